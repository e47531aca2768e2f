/* spank_state.h - the SPANK plugin's per-process state, shared by its files.
 * One slurmstepd (or srun/sbatch/salloc) process holds one instance. */
#ifndef NETVAR_SPANK_STATE_H
#define NETVAR_SPANK_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include <slurm/spank.h>

#include "job_options.h"

struct nv_spank_args { /* from the plugstack.conf line */
    char spool[PATH_MAX];
    char config[PATH_MAX];
    char counters[256];
    char blade_map[PATH_MAX];
    double uplink_rate_Bps;    /* netvar.conf UplinkRate= (0: not set) */
    unsigned uplinks_per_leaf; /* netvar.conf UplinksPerLeaf= */
    char profiler[PATH_MAX];
    char
        sysfs_root[PATH_MAX]; /* prefix before /sys for the netdev/infiniband counters; "" = /sys */
    nv_mode default_mode;
    bool allow_off;
    bool enabled; /* netvar.conf Enabled=no: every hook does nothing */
    unsigned max_samples;
    bool config_missing; /* no netvar.conf at the default path: the defaults */
};

struct nv_spank_state {
    struct nv_spank_args args;
    nv_mode opt_mode; /* from --netvar, NV_MODE_UNSET if not given */
    char opt_app[NV_APP_KEY_MAX + 1];
    bool opt_app_set;
    int opt_interval_s; /* -1 if not given */
    bool opt_advise_apply;
    bool opt_advise_set; /* --netvar-advise given */
};

extern struct nv_spank_state nv_spank;

/* plugstack_args.c: parse key=value arguments; unknown keys and bad values
 * are logged (when log_errors) and skipped. Returns the number of errors. */
int nv_spank_parse_args(int ac, char **av, struct nv_spank_args *out, bool log_errors);

/* job_script_side.c: once per slurmd start (slurm_spank_init in S_CTX_SLURMD):
 * the normal fallbacks at info level, once (no netvar.conf at the default
 * path, the counter backend this node falls back to); jobs then log them
 * only at debug level. */
void nv_spank_slurmd_start(int ac, char **av);

/* options.c */
int nv_spank_register_options(spank_t sp);

/* remote_side.c: slurmstepd behaviour */
int nv_spank_remote_post_opt(spank_t sp);
int nv_spank_remote_user_init(spank_t sp);

/* job_script_side.c: prolog (start) and epilog (end) on every node */
int nv_spank_job_script(spank_t sp, int ac, char **av, bool start);

/* sampler.c: periodic samples in the extern step */
int nv_sampler_start(const char *path, int interval_s, unsigned max_samples);
void nv_sampler_stop(void);

/* remote_side.c, extern step */
int nv_spank_remote_exit(spank_t sp);

/* local_side.c: srun / sbatch / salloc behaviour */
int nv_spank_local_post_opt(spank_t sp);

#endif
