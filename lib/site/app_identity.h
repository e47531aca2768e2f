/* app_identity.h - names the application of a submission when the user
 * gave no --netvar-app: from the job name, or from the batch script's
 * launcher line (the executable that srun/mpirun/mpiexec starts), never
 * from the whole script text.  Results are valid app keys
 * (job_options.h).  Pure, bounded, allocation-free. */
#ifndef NETVAR_APP_IDENTITY_H
#define NETVAR_APP_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

#define NV_SCRIPT_SCAN_MAX (64 * 1024) /* bytes of a batch script looked at */

/* Turns s into an app key in out (cap > NV_APP_KEY_MAX): characters outside
 * [A-Za-z0-9._-] become '_', leading '.'/'-' are dropped, the result is cut
 * at 64. Returns false when nothing usable remains, or when s is one of the
 * names Slurm and shells give anonymous jobs ("wrap", "bash", "sh", ...). */
bool nv_app_key_from_name(const char *s, char *out, size_t cap);

/* The basename of the first program an srun/mpirun/mpiexec/orterun line of
 * the script launches, as an app key. False when there is none. */
bool nv_app_key_from_script(const char *script, char *out, size_t cap);

#endif
