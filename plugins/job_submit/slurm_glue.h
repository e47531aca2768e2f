/* slurm_glue.h - the few libslurmfull symbols job_submit/netvar uses. They
 * resolve from slurmctld at load time; the plugin is not linked to Slurm.
 * Every string handed to slurmctld must come from Slurm's allocator. */
#ifndef NETVAR_SLURM_GLUE_H
#define NETVAR_SLURM_GLUE_H

extern char *slurm_xstrdup(const char *str);
extern void slurm_xstrcat(char **str1, const char *str2);
/* 22.05 takes only the pointer; later releases add file/line/func, which
 * callers fill in through this macro so the call works on both. */
extern void slurm_xfree(void **p, const char *file, int line, const char *func);
#define nv_xfree(p) slurm_xfree((void **)&(p), __FILE__, __LINE__, __func__)

extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
