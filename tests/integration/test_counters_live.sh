#!/bin/bash
# test_counters_live.sh - the netdev counter reader on the real `lo`: 5 MB
# sent over loopback between the two snapshots of `netvar counters` must
# appear in its bytes_out and bytes_in deltas.  Also checks the CLI's clear
# error lines on a fixture tree with a missing and a non-numeric file.
# Env: BUILD, ROOT.  Exit 0 pass, 77 skip, 1 fail.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
NETVAR=$BUILD/bin/netvar
[ -x "$NETVAR" ] || { echo "skip: $NETVAR not built"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ -r /sys/class/net/lo/statistics/tx_bytes ] || { echo "skip: no /sys/class/net/lo"; exit 77; }
T=$(mktemp -d /tmp/nvctrlive.XXXXXX)
NV_PID=
cleanup() { [ -n "$NV_PID" ] && kill "$NV_PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$NETVAR" counters --backend netdev --iface lo --interval-s 4 >"$T/d.json" 2>"$T/d.err" &
NV_PID=$!
sleep 0.5
python3 - <<'PY' || fail "traffic generator"
import socket, threading
N = 5 * 1000 * 1000
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
got = [0]
def sink():
    c, _ = srv.accept()
    while True:
        b = c.recv(1 << 16)
        if not b: break
        got[0] += len(b)
    c.close()
t = threading.Thread(target=sink); t.start()
s = socket.create_connection(srv.getsockname())
s.sendall(b"x" * N); s.close(); t.join(); srv.close()
assert got[0] == N, got[0]
PY
wait "$NV_PID"; rc=$?; NV_PID=
[ $rc -eq 0 ] || { cat "$T/d.err"; fail "netvar counters exit $rc"; }
python3 - "$T/d.json" <<'PY' || { cat "$T/d.json"; fail "5 MB not seen in the lo delta"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "netvar-counters" and d["backend"] == "netdev"
(lo,) = [p for p in d["ports"] if p["name"] == "lo"]
f = lo["fields"]
for k in ("bytes_out", "bytes_in"):
    assert f[k]["valid"] and f[k]["unit"] == "bytes", f[k]
    assert f[k]["value"] >= 5000000, (k, f[k]["value"])
    assert f[k]["rate_unit"] == "bytes/s" and f[k]["rate"] > 0
assert f["packets_out"]["value"] > 0 and f["packets_out"]["unit"] == "packets"
assert f["stall"]["valid"] is False   # netdev has no stall counter
print("lo delta: %d bytes out, %d packets out in %.2f s" %
      (f["bytes_out"]["value"], f["packets_out"]["value"], d["interval_s"]))
PY
echo "ok: loopback traffic appears in the netdev delta"

# bad input: one clear line per bad file, run still succeeds
"$NETVAR" counters --backend netdev --sysfs-root "$ROOT/tests/fixtures/sysfs/netdev_bad" \
  --iface eth0 --interval-s 0.01 >"$T/b.json" 2>"$T/b.err" || fail "netvar counters on netdev_bad failed"
[ "$(grep -c 'rx_packets: cannot open' "$T/b.err")" -eq 1 ] || { cat "$T/b.err"; fail "missing-file line"; }
[ "$(grep -c "tx_bytes: 'garbage' is not a counter value" "$T/b.err")" -eq 1 ] || { cat "$T/b.err"; fail "non-numeric line"; }
"$NETVAR" counters --backend netdev --iface nosuchif0 --interval-s 0.01 >/dev/null 2>"$T/n.err"; rc=$?
[ $rc -eq 1 ] && grep -q "no interface matches 'nosuchif0'" "$T/n.err" || fail "unknown interface: exit $rc"
"$NETVAR" counters --interval-s 0 >/dev/null 2>"$T/u.err"; rc=$?
[ $rc -eq 2 ] || fail "--interval-s 0: exit $rc, want 2"
echo "ok: bad input gives one clear line"

# a Slingshot NIC's telemetry (fixture: this machine has none), through the CLI
"$NETVAR" counters --backend cxi --sysfs-root "$ROOT/tests/fixtures/sysfs/cxi" --iface 'cxi0' \
  --interval-s 0.01 >"$T/c.json" 2>"$T/c.err" || { cat "$T/c.err"; fail "netvar counters --backend cxi"; }
python3 - "$T/c.json" <<'PY' || { cat "$T/c.json"; fail "cxi fixture not read as the NIC's counters"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"] == "cxi", d["backend"]
(p,) = d["ports"]
assert p["name"] == "cxi0" and p["kind"] == "cxi_port", p
f = p["fields"]
assert f["bytes_out"]["valid"] and f["bytes_out"]["unit"] == "bytes" and f["bytes_out"]["value"] == 0
assert f["stall"]["valid"] and f["stall"]["unit"] == "cycles", f["stall"]
assert f["packets_out"]["valid"] and f["packets_out"]["unit"] == "packets"
assert not f["discards"]["valid"]
PY
echo "ok: the cxi backend reads a Slingshot NIC's telemetry"
echo "PASS"
