/* slurm_glue.h - the few libslurmfull symbols job_submit/netvar uses. They
 * resolve from slurmctld at load time; the plugin is not linked to Slurm.
 * Every string handed to slurmctld must come from Slurm's allocator. */
#ifndef NETVAR_SLURM_GLUE_H
#define NETVAR_SLURM_GLUE_H

#include <stdbool.h>
#include <stddef.h>

extern char *slurm_xstrdup(const char *str);
extern void slurm_xstrcat(char **str1, const char *str2);
/* slurm_xfree takes the address of the pointer and nothing else in every
 * release since 20.11 (xmalloc.h: void slurm_xfree(void **)); the file,
 * line and function arguments of older releases are gone.  Passing extra
 * arguments would be harmless at the ABI level, but the prototype must
 * match the daemon's own. */
extern void slurm_xfree(void **p);
#define nv_xfree(p) slurm_xfree((void **)&(p))

/* xcalloc's function, the same in every release since 20.02 (xmalloc.h):
 * count, size, clear, try (NULL instead of abort), file, line, function */
extern void *slurm_xcalloc(size_t cnt, size_t sz, bool clear, bool try_, const char *file, int line,
                           const char *func);

extern void slurm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
