/* apply_decision.h - turns a netvar decision into Slurm's own levers on a
 * job_desc_msg_t: Comment/AdminComment, req_switch + wait4switch, excluded
 * nodes, exclusivity, hold, node count; and the user's message. */
#ifndef NETVAR_APPLY_DECISION_H
#define NETVAR_APPLY_DECISION_H

#include <slurm/slurm.h>

#include "config.h"
#include "submit_decision.h"
#include "submit_options.h"

/* Returns SLURM_SUCCESS, or an error code when the decision denies the job
 * (its reason is then in *err_msg, but at UserMessages=none).  user_msg:
 * what the user is told (nv_submit_user_message), may be "". */
int nv_apply_decision(job_desc_msg_t *job, const struct nv_config *c, nv_mode mode,
                      const struct nv_submit_decision *d, const char *user_msg, char **err_msg);

void nv_tell_user(char **err_msg, const char *msg);

#endif
