#!/usr/bin/env python3
"""model_memory.py - bytes per app and per co-location entry that a loaded
model keeps in slurmctld, and the peak while it loads: writes model files
of several sizes (apps shaped as `netvar train` writes them: latency
histogram, compression curve and fit, scaling points, an 8-value
utilization profile), runs bench_model_memory on each, and fits
kept = a * apps + b * entries + c.  Usage: model_memory.py BENCH_BINARY."""
import json
import os
import subprocess
import sys
import tempfile


def model(apps, pairs):
    hist = [0] * 96
    for i in range(4, 9):
        hist[i] = 20
    pts = [{"utilization": u, "slowdown_pct": s, "samples": 2}
           for u, s in ((0.2, 10.0), (0.5, 60.0), (0.9, 250.0))]
    a = [{"key": "app%05d" % i, "utilization": 0.3, "utilization_source": "latency",
          "latency": {"mean_us": 2.5, "sd_us": 1.0,
                      "histogram": {"bins_per_decade": 16, "first_edge_us": 1, "counts": hist}},
          "compression": {"points": pts, "fit": pts, "residual_pct": 0.0},
          "scaling": [{"nodes": n, "median_runtime_s": 100.0 / n + 10, "count": 3}
                      for n in (1, 2, 4)],
          "utilization_profile": [0.02, 0.1, 0.2, 0.3, 0.3, 0.4, 0.5, 0.6]}
         for i in range(apps)]
    c = []
    for k in range(pairs):
        x, y = k % apps, (k // apps + 1 + k % apps) % apps
        if x == y:
            y = (y + 1) % apps
        c.append({"app": "app%05d" % x, "with": "app%05d" % y, "slowdown_pct": 5.0,
                  "samples": 3, "sd_pct": 1.0})
    # distinct pairs: the loader refuses duplicates
    seen, out = set(), []
    for e in c:
        if (e["app"], e["with"]) not in seen:
            seen.add((e["app"], e["with"]))
            out.append(e)
    return {"schema": "netvar-model", "version": 1,
            "calibration": {"service_us": 1.5, "mean_us": 2.0, "sd_us": 0.5, "utilization": 0.0},
            "apps": a, "colocation": out}, len(out)


def main():
    bench = sys.argv[1]
    base_path = os.path.join(os.path.dirname(__file__), "../fixtures/jobsubmit/model.json")
    base = json.load(open(base_path))
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for apps, pairs in ((1000, 0), (5000, 0), (5000, 115000), (5000, 500000)):
            m, npairs = model(apps, pairs)
            m["calibration"] = base["calibration"]
            ts = dict(base["training_set"][0])
            ts["slowdowns"] = []
            m["training_set"] = [ts]
            p = os.path.join(d, "m.json")
            with open(p, "w") as f:
                json.dump(m, f)
            out = subprocess.run([bench, p], capture_output=True, text=True)
            if out.returncode:
                sys.exit("bench_model_memory: " + out.stderr.strip())
            r = json.loads(out.stdout)
            rows.append(r)
            print("apps %6d entries %7d: file %6.1f MiB, kept %6.1f MiB, load peak +%6.1f MiB"
                  % (r["apps"], r["pairs"], r["file_bytes"] / 2**20, r["kept_bytes"] / 2**20,
                     r["peak_extra_kib"] / 1024))

    def slope(a, b, y, x):  # the change in y per unit of x from row a to row b
        return (rows[b][y] - rows[a][y]) / (rows[b][x] - rows[a][x])
    per_app = slope(0, 1, "kept_bytes", "apps")
    per_entry = slope(2, 3, "kept_bytes", "pairs")
    file_app = slope(0, 1, "file_bytes", "apps")
    file_entry = slope(2, 3, "file_bytes", "pairs")
    print("kept per app %.0f bytes, per co-location entry %.0f bytes" % (per_app, per_entry))
    print("file per app %.0f bytes, per entry %.0f bytes" % (file_app, file_entry))
    print(json.dumps({"kept_bytes_per_app": per_app, "kept_bytes_per_entry": per_entry,
                      "file_bytes_per_app": file_app, "file_bytes_per_entry": file_entry,
                      "rows": rows}))


main()
