/* probe_run.h - runs of the probes and of the command under test for the
 * workflows (calibrate, impact, campaign): ImpactB or CompressionB started
 * with the plan's launcher and waited for until every rank measures, then
 * stopped (their stop signal makes them write their JSON) or waited for;
 * the command under test run to its end with a timeout.  Their output is
 * read with lib/records/probe_output.h. */
#ifndef NETVAR_PROBE_RUN_H
#define NETVAR_PROBE_RUN_H

#include <stddef.h>

#include "child.h"
#include "launch_plan.h"

#define NV_RUN_MAX_PROBE_OUTPUT (512u * 1024u * 1024u) /* bytes */

/* Starts a probe (path `probe`, args plus --announce) with the plan's
 * launcher and probe tasks per node, and waits until it announces that it
 * measures.  0, or -1 with err set (the child is stopped then). */
int nv_probe_start(nv_child *c, const nv_run_plan *p, const char *probe, const char *name,
                   const char *const *args, size_t nargs, char *err, size_t errlen);
/* The same on a chosen side (nv_probe_start is the LOAD side): ImpactB
 * measuring a CompressionB load runs on the APP side, across from it. */
int nv_probe_start_on(nv_child *c, const nv_run_plan *p, nv_run_side side, const char *probe,
                      const char *name, const char *const *args, size_t nargs, char *err,
                      size_t errlen);

/* Ends a probe run: stop_now stops it (the stop signal makes it write its
 * JSON), otherwise waits up to timeout_s for it to end on its own.  Returns
 * its stdout (malloc'd, *len bytes) when it exited 0, else NULL with err. */
char *nv_probe_finish(nv_child *c, const nv_run_plan *p, int stop_now, double timeout_s,
                      size_t *len, char *err, size_t errlen);

/* Runs the command under test to its end (the plan's launcher, app tasks
 * per node, APP side; output in WORKDIR/NAME.out/.err), at most timeout_s.
 * 0 with its wall time in seconds (launch included), or with the plan's
 * runtime_key the seconds it printed; -1 with err: non-zero exit, timeout,
 * interrupt (the command is stopped then) or no KEY=SECONDS printed. */
int nv_run_command(const nv_run_plan *p, const char *const *cmd, size_t ncmd, const char *name,
                   double timeout_s, double *wall_s, char *err, size_t errlen);

/* The last "KEY=SECONDS" in text (KEY at the start of a word), a finite
 * number >= 0.  0, or -1 when there is none. */
int nv_output_seconds(const char *text, const char *key, double *out);

#endif
