/* spank_netvar.c - the SPANK entry points: they only dispatch on context.
 * Nothing here may fail a job: remote-side errors are logged and ignored.
 *
 * Every hook returns 0 on every path.  That matters more with each release:
 * from 23.11 a failing hook fails the step, and from 25.05 any non-zero
 * return counts as a failure, not only a negative one.  The one deliberate non-zero is an
 * option callback (options.c) refusing a bad --netvar value in srun, sbatch
 * or salloc, before anything is submitted; in slurmstepd it never fails. */
#include <stdint.h>
#include <slurm/spank.h>

#include "spank_state.h"

SPANK_PLUGIN(netvar, 1)

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
/* 25.05 lets a plugin say what a failing slurm_spank_init means; the
 * default drains the node (ESPANK_NODE_FAILURE).  netvar's init does not
 * fail, but if it ever did, the job should fail, never the node. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

struct nv_spank_state nv_spank = {.opt_mode = NV_MODE_UNSET, .opt_interval_s = -1};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    bool remote = ctx == S_CTX_REMOTE;
    if (ctx == S_CTX_SLURMD) { /* once per slurmd start: the normal fallbacks, at info level */
        nv_spank_slurmd_start(ac, av);
        return 0;
    }
    nv_spank_parse_args(ac, av, &nv_spank.args, remote);
    /* A failed registration is logged (options.c) and the command goes on
     * without --netvar options: failing init here would fail every srun,
     * sbatch and salloc on the cluster for netvar's sake. */
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE)
        (void)nv_spank_register_options(sp);
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    switch (spank_context()) {
    case S_CTX_REMOTE: nv_spank_remote_post_opt(sp); return 0;
    case S_CTX_LOCAL:
    case S_CTX_ALLOCATOR:
        (void)nv_spank_local_post_opt(sp); /* warns the user; never fails srun/sbatch/salloc */
        return 0;
    default: return 0;
    }
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_REMOTE)
        nv_spank_remote_user_init(sp);
    return 0;
}
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_REMOTE)
        nv_spank_remote_exit(sp);
    return 0;
}

/* Prolog and epilog run on every node of the allocation, as root, with the
 * job's --netvar options in their environment (job script context). */
int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
    nv_spank_job_script(sp, ac, av, true);
    return 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    nv_spank_job_script(sp, ac, av, false);
    return 0;
}
