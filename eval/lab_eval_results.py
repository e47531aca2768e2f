"""lab_eval_results - what eval/contain_eval.sh and eval/paths_eval.sh read
back from their runs: the runtime_s a CG job printed, medians that skip
missing runs, and job_submit/netvar's prediction from sbatch's output."""
import re
import statistics


def runtime(out, tag):
    """runtime_s from OUT/TAG.out, or None (no file, or no such line)."""
    try:
        with open(f"{out}/{tag}.out") as f:
            m = re.search(r"runtime_s=([0-9.]+)", f.read())
        return float(m.group(1)) if m else None
    except OSError:
        return None


def median(xs):
    """median of the values that are not None, or None."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def prediction(err_text, app=None):
    """(percent, source) of 'predicted slowdown X % beside job N (APP;
    SOURCE)' in sbatch's output (APP: any when None), or (None, None)."""
    who = re.escape(app) if app else "[^;]*"
    m = re.search(r"predicted slowdown ([0-9.-]+) % beside job \d+ \(" + who + r"; *([^)]*)\)",
                  err_text)
    return (float(m.group(1)), m.group(2)) if m else (None, None)
