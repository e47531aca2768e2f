/* job_script_side.c - what spank_netvar does in the job prolog and epilog
 * on every node of an allocation: settle the job's mode from the options
 * Slurm passes in the environment, and log it.  Runs as root; every
 * failure is logged and ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spank_state.h"
#include "submit_options.h"

extern char **environ;

int nv_spank_job_script(spank_t sp, int ac, char **av, bool start)
{
    /* slurm_spank_init does not run before the prolog/epilog hooks */
    nv_spank_parse_args(ac, av, &nv_spank.args, true);
    uint32_t jobid = 0;
    spank_get_item(sp, S_JOB_ID, &jobid);
    const char *node = getenv("SLURMD_NODENAME");
    struct nv_submit_options opt;
    nv_submit_options_parse("SPANK_", (const char *const *)environ, UINT32_MAX, NULL, 0, &opt);
    nv_mode mode = nv_effective_mode(&opt, nv_spank.args.default_mode, nv_spank.args.allow_off);
    if (opt.rejected)
        slurm_error("netvar: job %u: %s", jobid, opt.note);
    slurm_info("netvar: job %u node %s %s mode %s app %s", jobid, node ? node : "?",
               start ? "prolog" : "epilog", nv_mode_name(mode), opt.app[0] ? opt.app : "-");
    return 0;
}
