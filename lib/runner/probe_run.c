/* probe_run.c - launching probe runs and the command under test for the
 * workflow verbs, and reading the probes' JSON (see probe_run.h). */
#define _GNU_SOURCE
#include "probe_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "counters_topology.h"

#define POLL_NS 10000000L /* 10 ms between checks on a running child */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

void nv_run_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int nv_run_interrupted(void) { return interrupted != 0; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap(void)
{
    struct timespec ts = {0, POLL_NS};
    nanosleep(&ts, NULL);
}

const char *nv_launcher_name(nv_launcher l) { return l == NV_LAUNCHER_MPIRUN ? "mpirun" : "srun"; }

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

const char nv_run_options_help[] =
    "Launch options (shared by calibrate, impact and campaign):\n"
    "  --nodes N              nodes each launch spans (default: the allocation's node\n"
    "                         count inside salloc/sbatch, else 2); ImpactB needs >= 2\n"
    "  --launcher NAME        srun (default) or mpirun (local runs, no Slurm)\n"
    "  --launcher-arg ARG     one extra argument for every srun/mpirun call, e.g.\n"
    "                         --launcher-arg=--partition=debug (repeatable, up to 32);\n"
    "                         srun gets --mpi=pmix unless an --mpi argument is given\n"
    "  --probe-tasks-per-node T  ImpactB and CompressionB tasks per node (default 1;\n"
    "                         the paper used 2, one per socket)\n"
    "  --impactb PATH         ImpactB binary (default: impactb next to netvar)\n"
    "  --compressionb PATH    CompressionB binary (default: compressionb next to netvar)\n"
    "  --launch-timeout-s S   longest a launch may take to start, or to stop after its\n"
    "                         stop signal, in seconds (default 60)\n"
    "  --no-fake-nodes        mpirun: use the real placement; by default the probes\n"
    "                         split their ranks into N pseudo-nodes\n"
    "                         (NETVAR_PROBE_FAKE_NODES), for runs on one host\n"
    "  --keep DIR             keep every launch's stdout/stderr (NAME.out, NAME.err)\n"
    "                         in DIR; by default a temporary directory is removed\n";

const char nv_run_placement_help[] =
    "Placement options (impact, campaign):\n"
    "  --load-nodes LIST      run the probe load on LIST, a Slurm host list (h2,h4\n"
    "                         or h[2,4]; at least 2 nodes), and the command on\n"
    "                         other nodes, so the load crosses the links the\n"
    "                         command uses instead of sharing its own ports (seed\n"
    "                         000 section 4.3: CompressionB on other nodes of the\n"
    "                         same switch).  On LIST run CompressionB and the\n"
    "                         ImpactB beside the command; the ImpactB that\n"
    "                         measures a CompressionB configuration runs on the\n"
    "                         command's nodes (idle then), across from it.\n"
    "                         srun: every node of LIST must be in the allocation;\n"
    "                         the load gets --nodelist=LIST, the command\n"
    "                         --exclude=LIST and --nodes N (default: the\n"
    "                         allocation's node count minus LIST's).  mpirun: the\n"
    "                         load gets --host NODE:T,...; the command keeps\n"
    "                         mpirun's placement.  Default: everything on the\n"
    "                         same first N nodes\n"
    "  --runtime-key KEY      the command's runtime is the last KEY=SECONDS it\n"
    "                         prints on stdout (e.g. runtime_s for netvar's proxy\n"
    "                         apps) instead of its wall time with the launch; a\n"
    "                         run that prints none fails\n";

/* Expands and checks a --load-nodes list: count, or -1 with err. */
static long load_nodes_expand(const char *list, char ***names, char *err, size_t errlen)
{
    char inner[300];
    long n = nv_hostlist_expand(list, names, 4096, inner, sizeof inner);
    if (n < 0) {
        snprintf(err, errlen, "--load-nodes: %s", inner);
        return -1;
    }
    if (n == 0) {
        snprintf(err, errlen, "--load-nodes '%.60s': no node names", list);
        return -1;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < i; j++)
            if (!strcmp((*names)[i], (*names)[j])) {
                snprintf(err, errlen, "--load-nodes '%.60s': %.64s is listed twice", list,
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
        if (strlen(arg) >= sizeof p->load_nodes) {
            snprintf(err, errlen, "--load-nodes: longer than %zu characters",
                     sizeof p->load_nodes - 1);
            return -1;
        }
        char **names = NULL;
        long n = load_nodes_expand(arg, &names, err, errlen);
        if (n < 0)
            return -1;
        nv_hostlist_free(names, (size_t)n);
        snprintf(p->load_nodes, sizeof p->load_nodes, "%s", arg);
        p->n_load_nodes = (int)n;
        return 0;
    }
    case NV_OPT_RUNTIME_KEY:
        if (!runtime_key_valid(arg)) {
            snprintf(err, errlen, "--runtime-key '%.40s': must be 1-64 of A-Z a-z 0-9 _ . -", arg);
            return -1;
        }
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
    case NV_OPT_LAUNCHER:
        if (nv_launcher_from_name(arg, &p->launcher)) {
            snprintf(err, errlen, "--launcher '%.40s': must be srun or mpirun", arg);
            return -1;
        }
        return 0;
    case NV_OPT_LAUNCHER_ARG:
        if (p->n_extra >= NV_RUN_MAX_EXTRA) {
            snprintf(err, errlen, "--launcher-arg: at most %d of them", NV_RUN_MAX_EXTRA);
            return -1;
        }
        p->extra[p->n_extra++] = arg;
        return 0;
    case NV_OPT_IMPACTB:
    case NV_OPT_COMPRESSIONB: {
        char *dst = c == NV_OPT_IMPACTB ? p->impactb : p->compressionb;
        if (!*arg || strlen(arg) >= NV_RUN_PATH_MAX) {
            snprintf(err, errlen, "--%s: empty or too long a path",
                     c == NV_OPT_IMPACTB ? "impactb" : "compressionb");
            return -1;
        }
        snprintf(dst, NV_RUN_PATH_MAX, "%s", arg);
        return 0;
    }
    case NV_OPT_LAUNCH_TIMEOUT:
        return nv_parse_seconds("--launch-timeout-s", arg, &p->launch_timeout_s, err, errlen);
    case NV_OPT_KEEP:
        *keep_dir = arg;
        return 0;
    case NV_OPT_NO_FAKE_NODES:
        p->fake_nodes = 0;
        p->no_fake_given = 1;
        return 0;
    default:
        return 1;
    }
}

/* --load-nodes against the allocation: every load node in it, and the
 * command's node count on the rest.  0 or -1. */
static int load_nodes_check(nv_run_plan *p, int alloc, int min_nodes, char *err, size_t errlen)
{
    if (p->n_load_nodes < min_nodes) {
        snprintf(err, errlen, "--load-nodes %.60s: %d node(s), at least %d are needed (ImpactB "
                 "pairs nodes)", p->load_nodes, p->n_load_nodes, min_nodes);
        return -1;
    }
    if (p->launcher != NV_LAUNCHER_SRUN || !alloc)
        return 0;
    const char *in = getenv("SLURM_JOB_NODELIST");
    if (!in || !*in)
        in = getenv("SLURM_NODELIST");
    if (in && *in) {
        char **names = NULL, **have = NULL, inner[300];
        long n = load_nodes_expand(p->load_nodes, &names, err, errlen);
        long h = nv_hostlist_expand(in, &have, 100000, inner, sizeof inner);
        int rc = n < 0 ? -1 : 0;
        for (long i = 0; rc == 0 && h > 0 && i < n; i++) {
            long j = 0;
            while (j < h && strcmp(names[i], have[j]))
                j++;
            if (j == h) {
                snprintf(err, errlen, "--load-nodes %.60s: %.64s is not in the allocation (%.80s)",
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
    } else if (p->nodes > rest || rest < min_nodes) {
        snprintf(err, errlen, "--load-nodes %.60s takes %d of the allocation's %d nodes, leaving %d "
                 "for the command, which needs %d", p->load_nodes, p->n_load_nodes, alloc,
                 rest > 0 ? rest : 0, p->nodes_given && p->nodes > min_nodes ? p->nodes : min_nodes);
        return -1;
    }
    return 0;
}

int nv_run_plan_check(nv_run_plan *p, int min_nodes, int need_allocation, char *err,
                      size_t errlen)
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
        if (need_allocation && !alloc) {
            snprintf(err, errlen, "--launcher srun needs an allocation (run inside salloc or "
                                  "sbatch) so that the probes and the command share nodes");
            return -1;
        }
        if (alloc && p->nodes > alloc) {
            snprintf(err, errlen, "--nodes %d: the allocation has only %d node(s)", p->nodes,
                     alloc);
            return -1;
        }
    }
    if (p->nodes < min_nodes) {
        snprintf(err, errlen, "--nodes %d: at least %d nodes are needed (ImpactB pairs nodes)",
                 p->nodes, min_nodes);
        return -1;
    }
    return 0;
}

void nv_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

struct vec {
    char **v;
    size_t n, cap;
    int failed;
};

static void push(struct vec *v, const char *s)
{
    if (v->failed)
        return;
    if (v->n + 2 > v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 32;
        char **nv = realloc(v->v, nc * sizeof *nv);
        if (!nv) {
            v->failed = 1;
            return;
        }
        v->v = nv;
        v->cap = nc;
    }
    char *d = strdup(s);
    if (!d) {
        v->failed = 1;
        return;
    }
    v->v[v->n++] = d;
    v->v[v->n] = NULL;
}

static void pushf(struct vec *v, const char *prefix, long a)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s%ld", prefix, a);
    push(v, buf);
}

int nv_run_side_nodes(const nv_run_plan *p, nv_run_side side)
{
    return side == NV_SIDE_LOAD && p->n_load_nodes > 0 ? p->n_load_nodes : p->nodes;
}

/* mpirun --host value for the load: "h2:T,h4:T" (T slots on each). */
static void push_mpirun_hosts(struct vec *v, const nv_run_plan *p, int tasks_per_node)
{
    char **names = NULL, err[300];
    long n = load_nodes_expand(p->load_nodes, &names, err, sizeof err);
    if (n < 1) {
        v->failed = 1;
        return;
    }
    size_t cap = (size_t)n * 72 + 1, len = 0;
    char *hosts = malloc(cap);
    if (!hosts) {
        v->failed = 1;
    } else {
        hosts[0] = '\0';
        for (long i = 0; i < n; i++)
            len += (size_t)snprintf(hosts + len, cap - len, "%s%s:%d", i ? "," : "", names[i],
                                    tasks_per_node);
        push(v, "--host");
        push(v, hosts);
        free(hosts);
    }
    nv_hostlist_free(names, (size_t)n);
}

char **nv_run_argv(const nv_run_plan *p, int tasks_per_node, const char *const *cmd, size_t ncmd)
{
    return nv_run_argv_on(p, NV_SIDE_APP, tasks_per_node, cmd, ncmd);
}

char **nv_run_argv_on(const nv_run_plan *p, nv_run_side side, int tasks_per_node,
                      const char *const *cmd, size_t ncmd)
{
    if (!p || !cmd || !ncmd || tasks_per_node < 1 || p->nodes < 1)
        return NULL;
    struct vec v = {0};
    int nodes = nv_run_side_nodes(p, side);
    int placed = p->n_load_nodes > 0; /* --load-nodes: explicit placement */
    long ntasks = (long)nodes * tasks_per_node;
    if (p->launcher == NV_LAUNCHER_SRUN) {
        push(&v, "srun");
        int has_mpi = 0;
        for (size_t i = 0; i < p->n_extra; i++)
            if (!strncmp(p->extra[i], "--mpi", 5))
                has_mpi = 1;
        if (!has_mpi)
            push(&v, "--mpi=pmix");
        pushf(&v, "--nodes=", nodes);
        pushf(&v, "--ntasks=", ntasks);
        pushf(&v, "--ntasks-per-node=", tasks_per_node);
        push(&v, "--kill-on-bad-exit=1");
        if (placed) {
            char w[NV_RUN_LOAD_NODES_MAX + 16];
            snprintf(w, sizeof w, "%s%s", side == NV_SIDE_LOAD ? "--nodelist=" : "--exclude=",
                     p->load_nodes);
            push(&v, w);
        }
        if (p->in_allocation) {
            /* probes and the command are separate steps of one allocation:
             * they must share CPUs and, unless placed, start on the same
             * first nodes */
            push(&v, "--overlap");
            if (!placed)
                push(&v, "--relative=0");
        }
    } else {
        push(&v, "mpirun");
        push(&v, "-n");
        pushf(&v, "", ntasks);
        if (placed && side == NV_SIDE_LOAD) {
            push_mpirun_hosts(&v, p, tasks_per_node);
            char map[48];
            snprintf(map, sizeof map, "ppr:%d:node", tasks_per_node);
            push(&v, "--map-by");
            push(&v, map);
        } else if (!p->fake_nodes) {
            char map[48];
            snprintf(map, sizeof map, "ppr:%d:node", tasks_per_node);
            push(&v, "--map-by");
            push(&v, map);
        }
    }
    for (size_t i = 0; i < p->n_extra; i++)
        push(&v, p->extra[i]);
    for (size_t i = 0; i < ncmd; i++)
        push(&v, cmd[i]);
    if (v.failed) {
        nv_argv_free(v.v);
        return NULL;
    }
    return v.v;
}

int nv_run_work_dir(nv_run_plan *p, const char *keep_dir, const char *verb, char *err,
                    size_t errlen)
{
    if (keep_dir) {
        if (strlen(keep_dir) >= sizeof p->work_dir - 1) {
            snprintf(err, errlen, "--keep %.60s...: path too long", keep_dir);
            return -1;
        }
        if (mkdir(keep_dir, 0755) && errno != EEXIST) {
            snprintf(err, errlen, "--keep %s: cannot create the directory: %s", keep_dir,
                     strerror(errno));
            return -1;
        }
        snprintf(p->work_dir, sizeof p->work_dir, "%s", keep_dir);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 512)
        tmp = "/tmp";
    snprintf(p->work_dir, sizeof p->work_dir, "%s/netvar-%s.XXXXXX", tmp, verb);
    if (!mkdtemp(p->work_dir)) {
        snprintf(err, errlen, "%s: cannot create a work directory: %s", p->work_dir,
                 strerror(errno));
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

/* ------------------------------------------------------------ children */

int nv_child_start(nv_child *c, const nv_run_plan *p, char **argv, const char *name,
                   int fake_nodes, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!argv || !argv[0]) {
        snprintf(err, errlen, "%s: nothing to launch (out of memory?)", name);
        return -1;
    }
    snprintf(c->what, sizeof c->what, "%s", name);
    snprintf(c->out_path, sizeof c->out_path, "%s/%s.out", p->work_dir, name);
    snprintf(c->err_path, sizeof c->err_path, "%s/%s.err", p->work_dir, name);
    /* both launchers forward SIGUSR1 to the ranks and then wait for them
     * (and their output); a SIGTERM makes srun kill the tasks and mpirun
     * exit before it has forwarded all of rank 0's stdout */
    c->stop_signal = SIGUSR1;
    int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out = open(c->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int er = open(c->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || er < 0) {
        snprintf(err, errlen, "%s: cannot open its output files in %s: %s", name, p->work_dir,
                 strerror(errno));
        if (in >= 0) close(in);
        if (out >= 0) close(out);
        if (er >= 0) close(er);
        return -1;
    }
    char fake[24];
    snprintf(fake, sizeof fake, "%d", fake_nodes);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "%s: fork failed: %s", name, strerror(errno));
        close(in);
        close(out);
        close(er);
        return -1;
    }
    if (pid == 0) {
        /* child: only async-signal-safe work plus setenv before exec */
        if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(er, 2) < 0)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (fake_nodes > 0)
            setenv("NETVAR_PROBE_FAKE_NODES", fake, 1);
        execvp(argv[0], argv);
        dprintf(2, "netvar: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in);
    close(out);
    close(er);
    c->pid = pid;
    c->t_start_ns = now_ns();
    return 0;
}

int nv_child_wait(nv_child *c, double timeout_s, int *status, double *elapsed_s)
{
    uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        if (c->pid <= 0) {
            *status = 0;
            return NV_WAIT_EXITED;
        }
        int st = 0;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == c->pid || (r < 0 && errno == ECHILD)) {
            if (elapsed_s)
                *elapsed_s = (double)(now_ns() - c->t_start_ns) / 1e9;
            c->pid = 0;
            *status = r > 0 ? st : 0;
            return NV_WAIT_EXITED;
        }
        if (interrupted)
            return NV_WAIT_INTERRUPTED;
        if (now_ns() >= deadline)
            return NV_WAIT_TIMEOUT;
        nap();
    }
}

static int file_has(const char *path, const char *marker)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strstr(buf, marker) != NULL;
}

int nv_child_wait_marker(nv_child *c, const char *marker, double timeout_s, int *status)
{
    uint64_t deadline = now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        if (file_has(c->err_path, marker))
            return NV_WAIT_READY;
        int r = nv_child_wait(c, 0, status, NULL);
        if (r == NV_WAIT_EXITED || r == NV_WAIT_INTERRUPTED)
            return r;
        if (now_ns() >= deadline)
            return NV_WAIT_TIMEOUT;
        nap();
    }
}

int nv_child_stop(nv_child *c, double grace_s)
{
    if (c->pid <= 0)
        return 0;
    int st = 0;
    const int sigs[3] = {c->stop_signal, SIGTERM, SIGKILL};
    for (int i = 0; i < 3; i++) {
        if (i > 0 && sigs[i] == sigs[i - 1])
            continue;
        kill(c->pid, sigs[i]);
        uint64_t deadline = now_ns() + (uint64_t)(grace_s * 1e9);
        while (now_ns() < deadline || i == 2) {
            pid_t r = waitpid(c->pid, &st, i == 2 ? 0 : WNOHANG);
            if (r == c->pid || (r < 0 && errno != EINTR)) {
                c->pid = 0;
                return st;
            }
            nap();
        }
    }
    c->pid = 0;
    return st;
}

void nv_status_text(int status, char *buf, size_t n)
{
    if (WIFEXITED(status))
        snprintf(buf, n, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, n, "status %d", status);
}

void nv_child_last_line(const nv_child *c, char *buf, size_t n)
{
    buf[0] = '\0';
    int fd = open(c->err_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char tail[4096];
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    ssize_t got = pread(fd, tail, sizeof tail - 1, from);
    close(fd);
    if (got <= 0)
        return;
    tail[got] = '\0';
    /* the last line that says something; launcher noise like the SPANK
     * plugin's banner is as likely as the real error, so prefer lines
     * naming an error */
    char *best = NULL, *last = NULL, *save = NULL;
    for (char *line = strtok_r(tail, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strspn(line, "- \t=*") == strlen(line))
            continue; /* blank or a banner rule */
        last = line;
        if (strstr(line, "error") || strstr(line, "rror:") || strstr(line, "cannot") ||
            strstr(line, "netvar: impactb") || strstr(line, "netvar: compressionb"))
            best = line;
    }
    const char *pick = best ? best : last;
    if (pick) {
        snprintf(buf, n, "%s", pick);
        for (char *q = buf; *q; q++)
            if ((unsigned char)*q < 0x20)
                *q = ' ';
    }
}

/* ---------------------------------------------------- probe JSON output */

char *nv_read_text_file(const char *path, size_t max_bytes, size_t *len, char *err,
                        size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || st.st_size < 0 || (uint64_t)st.st_size > max_bytes) {
        snprintf(err, errlen, "%s: larger than %zu bytes or unreadable", path, max_bytes);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory for %zu bytes", path, cap);
        close(fd);
        return NULL;
    }
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The first JSON object in text whose line starts with '{'. */
static json_object *first_object(const char *text, size_t len, char *err, size_t errlen)
{
    const char *p = text, *end = text + len;
    while (p < end && !(*p == '{' && (p == text || p[-1] == '\n')))
        p++;
    if (p >= end) {
        snprintf(err, errlen, "no JSON object in the probe's output");
        return NULL;
    }
    json_tokener *tok = json_tokener_new_ex(64);
    if (!tok) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    size_t n = (size_t)(end - p);
    json_object *o = json_tokener_parse_ex(tok, p, n > INT32_MAX ? INT32_MAX : (int)n);
    enum json_tokener_error je = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!o || je != json_tokener_success) {
        json_object_put(o);
        snprintf(err, errlen, "the probe's JSON output is incomplete or invalid: %s",
                 json_tokener_error_desc(je));
        return NULL;
    }
    if (!json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        snprintf(err, errlen, "the probe's output is not a JSON object");
        return NULL;
    }
    return o;
}

static int check_schema(json_object *o, const char *want, char *err, size_t errlen)
{
    json_object *s = NULL, *v = NULL;
    if (!json_object_object_get_ex(o, "schema", &s) || !json_object_is_type(s, json_type_string) ||
        strcmp(json_object_get_string(s), want)) {
        snprintf(err, errlen, "schema: expected \"%s\"", want);
        return -1;
    }
    if (!json_object_object_get_ex(o, "version", &v) || !json_object_is_type(v, json_type_int) ||
        json_object_get_int(v) != 1) {
        snprintf(err, errlen, "version: expected 1");
        return -1;
    }
    return 0;
}

static int get_number(json_object *o, const char *key, double *out)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) ||
        !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return -1;
    double d = json_object_get_double(v);
    if (!isfinite(d))
        return -1;
    *out = d;
    return 0;
}

static int placement(json_object *o, int *nodes, char names[][64], int *n_names, char *err,
                     size_t errlen)
{
    json_object *pl = NULL, *nn = NULL, *names_a = NULL;
    if (!json_object_object_get_ex(o, "placement", &pl) ||
        !json_object_object_get_ex(pl, "nodes", &nn) || !json_object_is_type(nn, json_type_int) ||
        json_object_get_int(nn) < 1) {
        snprintf(err, errlen, "placement.nodes: missing or not a positive whole number");
        return -1;
    }
    *nodes = json_object_get_int(nn);
    if (names && n_names) {
        *n_names = 0;
        if (json_object_object_get_ex(pl, "node_names", &names_a) &&
            json_object_is_type(names_a, json_type_array)) {
            size_t k = json_object_array_length(names_a);
            for (size_t i = 0; i < k && *n_names < NV_RUN_MAX_NODE_NAMES; i++) {
                json_object *s = json_object_array_get_idx(names_a, i);
                if (json_object_is_type(s, json_type_string))
                    snprintf(names[(*n_names)++], 64, "%s", json_object_get_string(s));
            }
        }
    }
    return 0;
}

int nv_impactb_parse(const char *text, size_t len, nv_impactb_result *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_object *o = first_object(text, len, err, errlen);
    if (!o)
        return -1;
    int rc = -1;
    json_object *sa = NULL, *sb = NULL;
    if (check_schema(o, "netvar-impactb", err, errlen) ||
        placement(o, &out->nodes, out->node_names, &out->n_node_names, err, errlen))
        goto done;
    if (get_number(o, "elapsed_s", &out->elapsed_s) || out->elapsed_s < 0) {
        snprintf(err, errlen, "elapsed_s: missing or not a number >= 0");
        goto done;
    }
    if (json_object_object_get_ex(o, "stopped_by", &sb) && json_object_is_type(sb, json_type_string))
        snprintf(out->stopped_by, sizeof out->stopped_by, "%s", json_object_get_string(sb));
    if (!json_object_object_get_ex(o, "samples_us", &sa) || !json_object_is_type(sa, json_type_array)) {
        snprintf(err, errlen, "samples_us: missing (ImpactB must run with --samples)");
        goto done;
    }
    size_t n = json_object_array_length(sa);
    if (n > NV_CAL_MAX_SAMPLES) {
        snprintf(err, errlen, "samples_us: %zu samples, more than the %u accepted", n,
                 NV_CAL_MAX_SAMPLES);
        goto done;
    }
    out->samples_us = malloc((n ? n : 1) * sizeof *out->samples_us);
    if (!out->samples_us) {
        snprintf(err, errlen, "samples_us: out of memory for %zu samples", n);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(sa, i);
        double d = json_object_get_double(v);
        if (!(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
            !isfinite(d) || d < 0) {
            snprintf(err, errlen, "samples_us[%zu]: not a finite latency >= 0 us", i);
            goto done;
        }
        out->samples_us[i] = d;
    }
    out->n_samples = n;
    rc = 0;
done:
    json_object_put(o);
    if (rc)
        nv_impactb_result_free(out);
    return rc;
}

void nv_impactb_result_free(nv_impactb_result *r)
{
    free(r->samples_us);
    r->samples_us = NULL;
    r->n_samples = 0;
}

int nv_compressionb_parse(const char *text, size_t len, nv_compressionb_result *out, char *err,
                          size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_object *o = first_object(text, len, err, errlen);
    if (!o)
        return -1;
    int rc = -1;
    json_object *bw = NULL, *rounds = NULL;
    if (check_schema(o, "netvar-compressionb", err, errlen) ||
        placement(o, &out->nodes, NULL, NULL, err, errlen))
        goto done;
    if (!json_object_object_get_ex(o, "injected_bandwidth", &bw) ||
        get_number(bw, "mean_per_node", &out->mean_bytes_per_s) ||
        get_number(bw, "min_per_node", &out->min_bytes_per_s) ||
        get_number(bw, "max_per_node", &out->max_bytes_per_s) || out->mean_bytes_per_s < 0) {
        snprintf(err, errlen, "injected_bandwidth: missing mean/min/max_per_node bytes/s");
        goto done;
    }
    if (get_number(o, "elapsed_s", &out->elapsed_s) || out->elapsed_s < 0) {
        snprintf(err, errlen, "elapsed_s: missing or not a number >= 0");
        goto done;
    }
    if (json_object_object_get_ex(o, "rounds_per_rank", &rounds) &&
        json_object_is_type(rounds, json_type_int))
        out->rounds_per_rank = json_object_get_int64(rounds);
    rc = 0;
done:
    json_object_put(o);
    return rc;
}

/* -------------------------------------------------------- model helpers */

int nv_run_load_model_if_any(const char *path, nv_model **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char inner[400];
    *out = nv_model_load(path, inner, sizeof inner);
    if (!*out) {
        snprintf(err, errlen, "%s", inner);
        return -1;
    }
    return 0;
}

int nv_run_app_utilization(const nv_calibration *cal, const double *samples_us, size_t n,
                           nv_latency_summary *lat, nv_utilization *u)
{
    if (!cal || !samples_us || !n || nv_latency_summary_of(samples_us, n, lat) == 0)
        return -1;
    return nv_utilization_from_latency(cal->service_us, cal->var_s_us2, lat->mean_us, u);
}

int nv_parse_seconds(const char *opt, const char *s, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v)) {
        snprintf(err, errlen, "%s '%.40s': not a number of seconds", opt, s);
        return -1;
    }
    if (!(v > 0) || v > 1e6) {
        snprintf(err, errlen, "%s %.40s: the duration must be more than 0 and at most 1e6 seconds",
                 opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int nv_parse_count(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                   size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi) {
        snprintf(err, errlen, "%s '%.40s': must be a whole number from %ld to %ld", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* ------------------------------------------------------- probe launches */

int nv_probe_start(nv_child *c, const nv_run_plan *p, const char *probe, const char *name,
                   const char *const *args, size_t nargs, char *err, size_t errlen)
{
    return nv_probe_start_on(c, p, NV_SIDE_LOAD, probe, name, args, nargs, err, errlen);
}

int nv_probe_start_on(nv_child *c, const nv_run_plan *p, nv_run_side side, const char *probe,
                      const char *name, const char *const *args, size_t nargs, char *err,
                      size_t errlen)
{
    const char *cmd[64];
    size_t n = 0;
    if (nargs > 60) {
        snprintf(err, errlen, "%s: too many arguments", name);
        return -1;
    }
    cmd[n++] = probe;
    for (size_t i = 0; i < nargs; i++)
        cmd[n++] = args[i];
    cmd[n++] = "--announce";
    char **argv = nv_run_argv_on(p, side, p->probe_tasks_per_node, cmd, n);
    /* a load placed on real hosts is not split into pseudo-nodes */
    int fake = p->launcher == NV_LAUNCHER_MPIRUN && p->fake_nodes &&
               !(side == NV_SIDE_LOAD && p->n_load_nodes > 0);
    int rc = nv_child_start(c, p, argv, name, fake ? nv_run_side_nodes(p, side) : 0, err, errlen);
    nv_argv_free(argv);
    if (rc)
        return -1;
    /* wait until every rank can be stopped by a signal: a stop sent before
     * that would kill the probe without output */
    char marker[96];
    const char *base = strrchr(probe, '/');
    snprintf(marker, sizeof marker, "netvar: %s: started:", base ? base + 1 : probe);
    int st = 0;
    int w = nv_child_wait_marker(c, marker, p->launch_timeout_s, &st);
    if (w == NV_WAIT_READY)
        return 0;
    char line[300], how[48];
    nv_child_last_line(c, line, sizeof line);
    if (w == NV_WAIT_EXITED) {
        nv_status_text(st, how, sizeof how);
        snprintf(err, errlen, "%s ended before it started measuring (%s): %s", name, how,
                 line[0] ? line : "no message");
    } else if (w == NV_WAIT_INTERRUPTED) {
        nv_child_stop(c, 5);
        snprintf(err, errlen, "interrupted while %s was starting; stopped it", name);
    } else {
        nv_child_stop(c, 5);
        snprintf(err, errlen, "%s did not start within %.0f s (stopped it): %s", name,
                 p->launch_timeout_s, line[0] ? line : "no message");
    }
    return -1;
}

char *nv_probe_finish(nv_child *c, const nv_run_plan *p, int stop_now, double timeout_s,
                      size_t *len, char *err, size_t errlen)
{
    int st = 0;
    if (stop_now) {
        st = nv_child_stop(c, p->launch_timeout_s < 15 ? p->launch_timeout_s : 15);
    } else {
        int w = nv_child_wait(c, timeout_s, &st, NULL);
        if (w != NV_WAIT_EXITED) {
            nv_child_stop(c, 5);
            snprintf(err, errlen, "%s %s; stopped it", c->what,
                     w == NV_WAIT_TIMEOUT ? "did not finish in time" : "interrupted");
            return NULL;
        }
    }
    /* a launcher may exit non-zero after forwarding a stop signal even when
     * every rank ended cleanly; a probe we stopped is judged by its output */
    struct stat fst;
    int have_output = stat(c->out_path, &fst) == 0 && fst.st_size > 0;
    if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && !(stop_now && have_output)) {
        char line[300], how[48];
        nv_child_last_line(c, line, sizeof line);
        nv_status_text(st, how, sizeof how);
        snprintf(err, errlen, "%s failed (%s): %s", c->what, how, line[0] ? line : "no message");
        return NULL;
    }
    return nv_read_text_file(c->out_path, NV_RUN_MAX_PROBE_OUTPUT, len, err, errlen);
}

int nv_run_command(const nv_run_plan *p, const char *const *cmd, size_t ncmd, const char *name,
                   double timeout_s, double *wall_s, char *err, size_t errlen)
{
    char **argv = nv_run_argv(p, p->app_tasks_per_node, cmd, ncmd);
    nv_child c;
    int rc = nv_child_start(&c, p, argv, name, 0, err, errlen);
    nv_argv_free(argv);
    if (rc)
        return -1;
    /* the command does not handle SIGUSR1; on SIGTERM both launchers end
     * the whole job (mpirun forwarding SIGUSR1 and leaving could orphan ranks) */
    c.stop_signal = SIGTERM;
    int st = 0;
    int w = nv_child_wait(&c, timeout_s, &st, wall_s);
    if (w != NV_WAIT_EXITED) {
        nv_child_stop(&c, 5);
        if (w == NV_WAIT_TIMEOUT)
            snprintf(err, errlen, "%s did not finish within --timeout-s %.0f s; stopped it", name,
                     timeout_s);
        else
            snprintf(err, errlen, "interrupted while %s ran; stopped it", name);
        return -1;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char line[300], how[48];
        nv_child_last_line(&c, line, sizeof line);
        nv_status_text(st, how, sizeof how);
        snprintf(err, errlen, "%s failed (%s): %s", name, how, line[0] ? line : "no message");
        return -1;
    }
    if (p->runtime_key) {
        size_t len = 0;
        char rerr[300];
        char *text = nv_read_text_file(c.out_path, NV_RUN_MAX_PROBE_OUTPUT, &len, rerr, sizeof rerr);
        int found = text && nv_output_seconds(text, p->runtime_key, wall_s) == 0;
        free(text);
        if (!found) {
            snprintf(err, errlen, "%s printed no %s=SECONDS on stdout (--runtime-key; see %s)",
                     name, p->runtime_key, c.out_path);
            return -1;
        }
    }
    return 0;
}

int nv_output_seconds(const char *text, const char *key, double *out)
{
    if (!text || !key || !*key)
        return -1;
    size_t kl = strlen(key);
    int found = 0;
    for (const char *s = strstr(text, key); s; s = strstr(s + 1, key)) {
        if ((s != text && !strchr(" \t\n\r:", s[-1])) || s[kl] != '=')
            continue;
        char *end;
        errno = 0;
        double d = strtod(s + kl + 1, &end);
        if (end == s + kl + 1 || errno == ERANGE || !isfinite(d) || d < 0 ||
            !(*end == '\0' || strchr(" \t\n\r,;", *end)))
            continue;
        *out = d;
        found = 1;
    }
    return found ? 0 : -1;
}
