/* js_stats.h - job_submit/netvar's counts for `netvar export`: the
 * decisions by action and the plugin's own time per call
 * (submit_stats.h), written by the refresher thread to jobsubmit/stats.json
 * in the model file's directory (which SlurmUser must be able to write). */
#ifndef NETVAR_JS_STATS_H
#define NETVAR_JS_STATS_H

#include <stdint.h>

/* from job_submit() (lock-free) */
void js_stats_note_decision(unsigned actions);
void js_stats_note_call(uint64_t ns);

/* from the refresher thread, once a second: writes the file when a count
 * changed and 10 s passed since the last write, and at least once a
 * minute (the file's written_unix_s says the plugin is alive).  A failure
 * is logged once, until a write succeeds again. */
void js_stats_flush(const char *model_path);

#endif
