/* options.c - the one table of --netvar options and their callbacks.
 * Callbacks run in srun/sbatch/salloc (where a bad value fails the command
 * before anything is submitted) and again in slurmstepd, possibly twice
 * there, so they only validate and store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spank_state.h"

enum { OPT_MODE = 1, OPT_APP, OPT_INTERVAL, OPT_ADVISE };

/* the same words as a bad NETVAR_* value gets (job_options.h) */
static int reject(const char *opt, const char *val, const char *why, int remote)
{
    char name[32], line[256];
    snprintf(name, sizeof name, "--%s", opt);
    /* remote: already validated on the submit side; never fail a step */
    nv_bad_value(line, sizeof line, name, val, why, remote ? "ignoring it" : NULL);
    slurm_error("netvar: %s", line);
    return remote ? 0 : -1;
}

static int option_cb(int val, const char *optarg, int remote)
{
    const char *why;
    switch (val) {
    case OPT_MODE: {
        nv_mode m = nv_mode_parse(optarg);
        if (m == NV_MODE_UNSET)
            return reject("netvar", optarg, NV_MODE_RULE, remote);
        nv_spank.opt_mode = m;
        return 0;
    }
    case OPT_APP:
        if (!nv_app_key_valid(optarg, &why))
            return reject("netvar-app", optarg, why, remote);
        snprintf(nv_spank.opt_app, sizeof nv_spank.opt_app, "%s", optarg);
        nv_spank.opt_app_set = true;
        return 0;
    case OPT_INTERVAL: {
        int s;
        if (nv_interval_parse(optarg, &s))
            return reject("netvar-interval", optarg, NV_INTERVAL_RULE, remote);
        nv_spank.opt_interval_s = s;
        return 0;
    }
    case OPT_ADVISE:
        if (nv_advise_parse(optarg, &nv_spank.opt_advise_apply))
            return reject("netvar-advise", optarg, NV_ADVISE_RULE, remote);
        nv_spank.opt_advise_set = true;
        return 0;
    }
    return 0;
}

static struct spank_option netvar_options[] = {
    {"netvar", "MODE",
     "netvar network-interference collection for this job: off, counters, "
     "segments or full (default set by the site)",
     1, OPT_MODE, option_cb},
    {"netvar-app", "NAME",
     "tag the job's application for netvar's model (letters, digits, ._-; "
     "at most 64 characters)",
     1, OPT_APP, option_cb},
    {"netvar-interval", "SECONDS",
     "netvar counter sampling period in seconds; 0 = job start and end only", 1, OPT_INTERVAL,
     option_cb},
    {"netvar-advise", "show|apply",
     "netvar allocation-size advice: show it (default) or apply it within "
     "your --nodes min-max",
     1, OPT_ADVISE, option_cb},
    SPANK_OPTIONS_TABLE_END};

int nv_spank_register_options(spank_t sp)
{
    for (struct spank_option *o = netvar_options; o->name; o++) {
        spank_err_t rc = spank_option_register(sp, o);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("netvar: cannot register option --%s: %s", o->name, spank_strerror(rc));
            return -1;
        }
    }
    return 0;
}
