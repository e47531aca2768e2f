#include <stdint.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
const char plugin_name[] = "job_submit netvar";
const char plugin_type[] = "job_submit/netvar";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;
int init(void) { return SLURM_SUCCESS; }
void fini(void) {}
int job_submit(job_desc_msg_t *d, uint32_t uid, char **err) { (void)d; (void)uid; (void)err; return SLURM_SUCCESS; }
int job_modify(job_desc_msg_t *d, void *j, uint32_t uid) { (void)d; (void)j; (void)uid; return SLURM_SUCCESS; }
