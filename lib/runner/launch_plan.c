/* launch_plan.c - how the workflows launch: plans, their options and
 * checks, --load-nodes, work directories (launch_plan.h). */
#define _GNU_SOURCE
#include "launch_plan.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters_topology.h"
#include "nv_err.h"

const char *nv_launcher_name(nv_launcher l)
{
    return l == NV_LAUNCHER_MPIRUN ? "mpirun" : "srun";
}

int nv_launcher_from_name(const char *name, nv_launcher *out)
{
    if (!name)
        return -1;
    if (!strcmp(name, "srun"))
        *out = NV_LAUNCHER_SRUN;
    else if (!strcmp(name, "mpirun"))
        *out = NV_LAUNCHER_MPIRUN;
    else
        return -1;
    return 0;
}

int nv_run_allocation_nodes(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (!job || !*job)
        return 0;
    const char *n = getenv("SLURM_JOB_NUM_NODES");
    if (!n || !*n)
        n = getenv("SLURM_NNODES");
    if (!n)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(n, &end, 10);
    if (errno || *end || v < 1 || v > 1000000)
        return 0;
    return (int)v;
}

void nv_run_plan_defaults(nv_run_plan *p)
{
    memset(p, 0, sizeof *p);
    p->launcher = NV_LAUNCHER_SRUN;
    int alloc = nv_run_allocation_nodes();
    p->in_allocation = alloc > 0;
    p->nodes = alloc > 0 ? alloc : 2;
    p->app_tasks_per_node = 1;
    p->probe_tasks_per_node = 1;
    p->launch_timeout_s = 60;
    p->launch_attempts = 2;
    p->notice = nv_run_notice_stderr;
    /* the probes are installed next to netvar (build/bin, /usr/bin) */
    char self[NV_RUN_PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0 && (size_t)n < sizeof self) {
        self[n] = '\0';
        char *dir = dirname(self);
        snprintf(p->impactb, sizeof p->impactb, "%s/impactb", dir);
        snprintf(p->compressionb, sizeof p->compressionb, "%s/compressionb", dir);
    } else {
        snprintf(p->impactb, sizeof p->impactb, "impactb");
        snprintf(p->compressionb, sizeof p->compressionb, "compressionb");
    }
}

void nv_run_notice_stderr(const void *ctx, const char *line)
{
    if (ctx)
        fprintf(stderr, "netvar: %s: %s\n", (const char *)ctx, line);
    else
        fprintf(stderr, "netvar: %s\n", line);
}

int nv_status_crashed(int status)
{
    return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) > 128);
}

/* Expands and checks a --load-nodes list: count, or -1 with err. */
long nv_run_load_nodes_expand(const char *list, char ***names, char *err, size_t errlen)
{
    char inner[300];
    long n = nv_hostlist_expand(list, names, 4096, inner, sizeof inner);
    if (n < 0)
        return nv_err(err, errlen, "--load-nodes: %s", inner);
    if (n == 0)
        return nv_err(err, errlen, "--load-nodes '%.60s': no node names", list);
    for (long i = 0; i < n; i++)
        for (long j = 0; j < i; j++)
            if (!strcmp((*names)[i], (*names)[j])) {
                nv_err(err, errlen, "--load-nodes '%.60s': %.64s is listed twice", list,
                       (*names)[i]);
                nv_hostlist_free(*names, (size_t)n);
                *names = NULL;
                return -1;
            }
    return n;
}

static int runtime_key_valid(const char *k)
{
    size_t n = strlen(k);
    return n >= 1 && n <= 64 &&
           strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

int nv_run_plan_option(nv_run_plan *p, int c, const char *arg, const char **keep_dir, char *err,
                       size_t errlen)
{
    long v;
    switch (c) {
    case NV_OPT_LOAD_NODES: {
        if (strlen(arg) >= sizeof p->load_nodes)
            return nv_err(err, errlen, "--load-nodes: longer than %zu characters",
                          sizeof p->load_nodes - 1);
        char **names = NULL;
        long n = nv_run_load_nodes_expand(arg, &names, err, errlen);
        if (n < 0)
            return -1;
        nv_hostlist_free(names, (size_t)n);
        snprintf(p->load_nodes, sizeof p->load_nodes, "%s", arg);
        p->n_load_nodes = (int)n;
        return 0;
    }
    case NV_OPT_RUNTIME_KEY:
        if (!runtime_key_valid(arg))
            return nv_err(err, errlen, "--runtime-key '%.40s': must be 1-64 of A-Z a-z 0-9 _ . -",
                          arg);
        p->runtime_key = arg;
        return 0;
    case NV_OPT_NODES:
        if (nv_parse_count("--nodes", arg, 1, 100000, &v, err, errlen))
            return -1;
        p->nodes = (int)v;
        p->nodes_given = 1;
        return 0;
    case NV_OPT_PROBE_TPN:
        if (nv_parse_count("--probe-tasks-per-node", arg, 1, 256, &v, err, errlen))
            return -1;
        p->probe_tasks_per_node = (int)v;
        return 0;
    case NV_OPT_LAUNCH_ATTEMPTS:
        if (nv_parse_count("--launch-attempts", arg, 1, 10, &v, err, errlen))
            return -1;
        p->launch_attempts = (int)v;
        return 0;
    case NV_OPT_LAUNCHER:
        if (nv_launcher_from_name(arg, &p->launcher))
            return nv_err(err, errlen, "--launcher '%.40s': must be srun or mpirun", arg);
        return 0;
    case NV_OPT_LAUNCHER_ARG:
        if (p->n_extra >= NV_RUN_MAX_EXTRA)
            return nv_err(err, errlen, "--launcher-arg: at most %d of them", NV_RUN_MAX_EXTRA);
        p->extra[p->n_extra++] = arg;
        return 0;
    case NV_OPT_IMPACTB:
    case NV_OPT_COMPRESSIONB: {
        char *dst = c == NV_OPT_IMPACTB ? p->impactb : p->compressionb;
        if (!*arg || strlen(arg) >= NV_RUN_PATH_MAX)
            return nv_err(err, errlen, "--%s: empty or too long a path",
                          c == NV_OPT_IMPACTB ? "impactb" : "compressionb");
        snprintf(dst, NV_RUN_PATH_MAX, "%s", arg);
        return 0;
    }
    case NV_OPT_LAUNCH_TIMEOUT:
        return nv_parse_seconds("--launch-timeout-s", arg, &p->launch_timeout_s, err, errlen);
    case NV_OPT_KEEP: *keep_dir = arg; return 0;
    case NV_OPT_NO_FAKE_NODES:
        p->fake_nodes = 0;
        p->no_fake_given = 1;
        return 0;
    default: return 1;
    }
}

/* --load-nodes against the allocation: every load node in it, and the
 * command's node count on the rest.  0 or -1. */
static int load_nodes_check(nv_run_plan *p, int alloc, int min_nodes, char *err, size_t errlen)
{
    if (p->n_load_nodes < min_nodes)
        return nv_err(err, errlen,
                      "--load-nodes %.60s: %d node(s), at least %d are needed "
                      "(ImpactB pairs nodes)",
                      p->load_nodes, p->n_load_nodes, min_nodes);
    if (p->launcher != NV_LAUNCHER_SRUN || !alloc)
        return 0;
    const char *in = getenv("SLURM_JOB_NODELIST");
    if (!in || !*in)
        in = getenv("SLURM_NODELIST");
    if (in && *in) {
        char **names = NULL, **have = NULL, inner[300];
        long n = nv_run_load_nodes_expand(p->load_nodes, &names, err, errlen);
        long h = nv_hostlist_expand(in, &have, 100000, inner, sizeof inner);
        int rc = n < 0 ? -1 : 0;
        for (long i = 0; rc == 0 && h > 0 && i < n; i++) {
            long j = 0;
            while (j < h && strcmp(names[i], have[j]))
                j++;
            if (j == h) {
                nv_err(err, errlen, "--load-nodes %.60s: %.64s is not in the allocation (%.80s)",
                       p->load_nodes, names[i], in);
                rc = -1;
            }
        }
        nv_hostlist_free(names, n > 0 ? (size_t)n : 0);
        nv_hostlist_free(have, h > 0 ? (size_t)h : 0);
        if (rc)
            return -1;
    }
    int rest = alloc - p->n_load_nodes;
    if (!p->nodes_given && rest >= min_nodes) {
        p->nodes = rest;
    } else if (p->nodes > rest || rest < min_nodes)
        return nv_err(err, errlen,
                      "--load-nodes %.60s takes %d of the allocation's %d nodes, leaving %d for "
                      "the command, which needs %d",
                      p->load_nodes, p->n_load_nodes, alloc, rest > 0 ? rest : 0,
                      p->nodes_given && p->nodes > min_nodes ? p->nodes : min_nodes);
    return 0;
}

int nv_run_plan_check(nv_run_plan *p, int min_nodes, int need_allocation, char *err, size_t errlen)
{
    int alloc = nv_run_allocation_nodes();
    if (p->n_load_nodes && load_nodes_check(p, alloc, min_nodes, err, errlen))
        return -1;
    if (p->launcher == NV_LAUNCHER_MPIRUN) {
        p->in_allocation = 0;
        p->fake_nodes = !p->no_fake_given;
        if (!p->nodes_given)
            p->nodes = 2 > min_nodes ? 2 : min_nodes;
    } else {
        p->in_allocation = alloc > 0;
        if (need_allocation && !alloc)
            return nv_err(err, errlen,
                          "--launcher srun needs an allocation (run inside salloc or "
                          "sbatch) so that the probes and the command share nodes");
        if (alloc && p->nodes > alloc)
            return nv_err(err, errlen, "--nodes %d: the allocation has only %d node(s)", p->nodes,
                          alloc);
    }
    if (p->nodes < min_nodes)
        return nv_err(err, errlen, "--nodes %d: at least %d nodes are needed (ImpactB pairs nodes)",
                      p->nodes, min_nodes);
    return 0;
}

int nv_run_side_nodes(const nv_run_plan *p, nv_run_side side)
{
    return side == NV_SIDE_LOAD && p->n_load_nodes > 0 ? p->n_load_nodes : p->nodes;
}

int nv_run_work_dir(nv_run_plan *p, const char *keep_dir, const char *verb, char *err,
                    size_t errlen)
{
    if (keep_dir) {
        if (strlen(keep_dir) >= sizeof p->work_dir - 1)
            return nv_err(err, errlen, "--keep %.60s...: path too long", keep_dir);
        if (mkdir(keep_dir, 0755) && errno != EEXIST)
            return nv_err(err, errlen, "--keep %s: cannot create the directory: %s", keep_dir,
                          strerror(errno));
        snprintf(p->work_dir, sizeof p->work_dir, "%s", keep_dir);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 512)
        tmp = "/tmp";
    snprintf(p->work_dir, sizeof p->work_dir, "%s/netvar-%s.XXXXXX", tmp, verb);
    if (!mkdtemp(p->work_dir)) {
        nv_err(err, errlen, "%s: cannot create a work directory: %s", p->work_dir, strerror(errno));
        p->work_dir[0] = '\0';
        return -1;
    }
    return 0;
}

void nv_run_work_dir_cleanup(const nv_run_plan *p, int keep)
{
    if (keep || !p->work_dir[0])
        return;
    DIR *d = opendir(p->work_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char path[NV_RUN_PATH_MAX + 300];
            snprintf(path, sizeof path, "%s/%s", p->work_dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(p->work_dir);
}

int nv_parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return nv_err(err, errlen, "%s '%.40s': not a number of seconds", opt, s);
    if (!(v > 0) || v > 1e6)
        return nv_err(err, errlen,
                      "%s %.40s: the duration must be more than 0 and at most 1e6 seconds", opt, s);
    *out = v;
    return 0;
}

int nv_parse_count(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                   size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi)
        return nv_err(err, errlen, "%s '%.40s': must be a whole number from %ld to %ld", opt, s, lo,
                      hi);
    *out = v;
    return 0;
}
