/* ctr_hostcpu.h - the measuring machine's own CPU accounting, read beside
 * the network counters because it confounds every runtime measured on it:
 *   - /proc/stat's aggregate "cpu" line: time spent per state in USER_HZ
 *     ticks over all CPUs, steal among them (time a CPU of this virtual
 *     machine was ready to run while the hypervisor ran something else);
 *   - a CPU cgroup's cpu.stat: bandwidth periods and the periods and time
 *     it was throttled for using its quota (cgroup v1: throttled_time in
 *     ns; cgroup v2: throttled_usec).
 * Both readers take the text (fixtures in tests) or open the file without
 * following links or blocking, and read a bounded amount. */
#ifndef NETVAR_CTR_HOSTCPU_H
#define NETVAR_CTR_HOSTCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NV_HOSTCPU_TEXT_MAX 65536 /* bytes of /proc/stat or cpu.stat read at most */

/* cumulative ticks (USER_HZ) of /proc/stat's first line; fields the kernel
 * did not print (steal before 2.6.11) stay 0 with have_steal false */
typedef struct nv_hostcpu_stat {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
    bool have_steal;
} nv_hostcpu_stat;

/* percent of all CPU time (every CPU) between two readings; busy is every
 * state but idle and iowait, steal included */
typedef struct nv_hostcpu_pct {
    double busy, user, system, irq, softirq, steal, iowait, idle;
    uint64_t ticks; /* total ticks in the window (all CPUs) */
} nv_hostcpu_pct;

/* a CPU cgroup's bandwidth counters */
typedef struct nv_cgcpu_stat {
    uint64_t periods, throttled_periods, throttled_us;
} nv_cgcpu_stat;

/* Parses /proc/stat text: its "cpu " line (needs the first four fields).
 * Returns 0, or -1 with one line in err. */
int nv_hostcpu_parse_stat(const char *text, size_t len, nv_hostcpu_stat *out, char *err,
                          size_t errlen);

/* Reads and parses path (NULL: /proc/stat). */
int nv_hostcpu_read_stat(const char *path, nv_hostcpu_stat *out, char *err, size_t errlen);

/* Fills *out from two readings a (earlier) and b.  A counter that went
 * backwards counts as 0.  Returns 0, or -1 when no tick passed. */
int nv_hostcpu_delta(const nv_hostcpu_stat *a, const nv_hostcpu_stat *b, nv_hostcpu_pct *out);

/* Parses cpu.stat text, cgroup v1 (nr_periods, nr_throttled,
 * throttled_time in ns) or v2 (nr_periods, nr_throttled, throttled_usec).
 * Returns 0, or -1 with one line in err when nr_periods, nr_throttled or
 * the throttled time is missing or not a number. */
int nv_cgcpu_parse(const char *text, size_t len, nv_cgcpu_stat *out, char *err, size_t errlen);

/* Reads <dirfd>/<name>/cpu.stat (name: one path component of
 * [A-Za-z0-9_.-], not "." or "..") without following a link at the last
 * component or blocking.  Returns as nv_cgcpu_parse. */
int nv_cgcpu_read_at(int dirfd, const char *name, nv_cgcpu_stat *out, char *err, size_t errlen);

#endif
