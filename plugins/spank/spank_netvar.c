/* spank_netvar.c - the SPANK entry points: they only dispatch on context.
 * Nothing here may fail a job: remote-side errors are logged and ignored. */
#include <stdint.h>
#include <slurm/spank.h>

#include "spank_state.h"

SPANK_PLUGIN(netvar, 1)

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
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE)
        if (nv_spank_register_options(sp) != 0 && !remote)
            return -1;
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    switch (spank_context()) {
    case S_CTX_REMOTE:
        nv_spank_remote_post_opt(sp);
        return 0;
    case S_CTX_LOCAL:
    case S_CTX_ALLOCATOR:
        return nv_spank_local_post_opt(sp);
    default:
        return 0;
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
