/* verb_alloc.c - `netvar alloc sweep|train|advise`: communication-time
 * prediction for allocation advice (*Communication time prediction*).
 * The features, trees and advice are in lib/alloc, training and the data
 * set file in lib/alloctrain; this file runs the sweep benchmark through
 * lib/runner's child processes and glues the rest together. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc_advice.h"
#include "alloc_records.h"
#include "alloc_train.h"
#include "args.h"
#include "child.h"
#include "counters_topology.h"
#include "topology_yaml.h"
#include "json_file.h"
#include "model.h"
#include "model_builder.h"
#include "nv_err.h"
#include "nv_json.h"
#include "opts.h"
#include "verbs.h"

#define LIST_MAX 32

static const char help_head[] =
    "Usage: netvar alloc sweep --out FILE (--topology FILE | --blade-map FILE)\n"
    "                          [--nodes LIST] [--ppn LIST] [--bytes LIST] [--placement LIST]\n"
    "                          [--dims D] [--phases K] [--reps R] [--launcher srun|mpirun]\n"
    "                          [--bin PATH] [--timeout S] [--source TEXT] [--json]\n"
    "       netvar alloc records --spool DIR --out FILE (--topology FILE | --blade-map FILE)\n"
    "                          [--json]\n"
    "       netvar alloc train (--dataset FILE... | --records SPOOL) --model FILE [--out FILE]\n"
    "                          [--learner xgboost|extra-trees] [--trees N] [--depth D]\n"
    "                          [--partition BYTES|none] [--topology FILE | --blade-map FILE]\n"
    "                          [--app-halo KEY:DIMS:BYTES:RANKS:PHASES:COMPUTE_CORE_S]\n"
    "                          [--app-profile KEY=PROFILE.json] [--json]\n"
    "       netvar alloc advise --model FILE --app KEY --nodes MIN[-MAX] [--ppn N]\n"
    "                          [--interference PCT] [--json]\n"
    "\n"
    "Predicts an application's communication time at N nodes x PPN ranks per node\n"
    "on a placement from features of its communication pattern, the mapping and\n"
    "the topology (Apostolakis, *Communication time prediction*: classes A = app\n"
    "and size, B = + mapping, C = + topology), with regression trees exported into\n"
    "the model file's \"alloc\" section, which job_submit/netvar uses to advise a\n"
    "node count within --nodes=MIN-MAX.\n"
    "\n"
    "sweep   runs the training benchmark netvar-sweep-stencil (a halo exchange, the\n"
    "        paper's §3.4) for every N x PPN x message size x placement and appends\n"
    "        one row per run to the data set FILE (netvar-alloc-dataset; written\n"
    "        after every run, so an interrupted sweep keeps what it measured).\n"
    "        Placement \"pack\" fills switches in the topology's order; \"spread\"\n"
    "        takes one node of each switch in turn (across the uplink).  Features\n"
    "        come from the halo's matrix on the nodes the ranks reported.\n"
    "records turns production jobs into training rows (a data set FILE, source\n"
    "        \"job records\"): every job of the spool whose record names an app and\n"
    "        whose segment profile (libnetvar_pmpi.so, segments or full mode) holds a\n"
    "        traffic matrix and placement gives one row: features from the matrix per\n"
    "        phase (bytes / segments, one message per rank pair) on the nodes that\n"
    "        ran, and the target communication seconds per phase = mean over segments\n"
    "        of (wall time - CPU time outside MPI), medians over ranks.  A job without\n"
    "        such a profile is counted; one that cannot be used is named on stderr\n"
    "        with the reason.  Profiles are read as the user's files (owner checked,\n"
    "        no link followed, size bounded).  FILE is replaced (atomically).\n"
    "train   trains one tree ensemble per class and message-size partition on the\n"
    "        data sets (target: ln seconds per phase), adds the app profiles and the\n"
    "        switches, and writes the section into the model (atomically; the rest\n"
    "        of the file is kept).  An app profile from a segment profile takes its\n"
    "        traffic matrix as the pattern per phase (one phase per segment) and its\n"
    "        compute as ranks x (runtime - predicted communication).\n"
    "advise  prints the advice job_submit would give (without interference unless\n"
    "        --interference is given).\n"
    "\n";

/* ---- options: one table per action, their values in these ---- */

typedef struct u32_list {
    uint32_t v[LIST_MAX];
    size_t n;
} u32_list;
typedef struct str_list {
    const char *v[64];
    size_t n;
} str_list;

static struct {
    const char *out, *topology, *blade_map, *bin, *source;
    int mpirun, json, place[2]; /* place: pack, spread */
    u32_list nodes, ppn, bytes;
    long dims, phases, reps;
    double timeout;
} sweep = {.source = "sweep",
           .place = {1, 1},
           .nodes = {{1, 2, 4}, 3},
           .ppn = {{1, 2}, 2},
           .bytes = {{1024, 16384, 262144}, 3},
           .dims = 3,
           .phases = 200,
           .reps = 1,
           .timeout = 300};

static struct {
    const char *out, *topology, *blade_map, *spool;
    int json;
} recs;

static struct {
    str_list datasets, halos, profiles;
    const char *model, *out, *topology, *blade_map, *records;
    int json, learner; /* learner: nv_alloc_learner */
    long trees, depth; /* 0: the learner's default */
    double partition;
} train = {.learner = NV_LEARN_XGBOOST, .partition = 4096};

static struct {
    const char *model, *app;
    uint32_t range[2]; /* --nodes MIN[-MAX] */
    int ppn, json;
    double interference;
} advise = {.ppn = 1, .interference = NAN};

/* a comma-separated list of up to LIST_MAX whole numbers from lo to hi */
static int set_list(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    u32_list *l = to, got = {{0}, 0};
    char buf[512];
    int ok = strlen(arg) < sizeof buf;
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *save = NULL, *t = ok ? strtok_r(buf, ",", &save) : NULL; t && ok;
         t = strtok_r(NULL, ",", &save)) {
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(t, &end, 10);
        ok = !errno && end && !*end && v >= o->lo && v <= o->hi && got.n < LIST_MAX;
        if (ok)
            got.v[got.n++] = (uint32_t)v;
    }
    if (!ok || !got.n)
        return snprintf(err, errlen,
                        "--%s '%.60s': expected up to %d whole numbers from %.0f "
                        "to %.0f, comma-separated",
                        o->name, arg, LIST_MAX, o->lo, o->hi),
               -1;
    *l = got;
    return 0;
}

/* --placement: pack, spread or both */
static int set_placement(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    int *place = to;
    place[0] = strstr(arg, "pack") != NULL;
    place[1] = strstr(arg, "spread") != NULL;
    if (!place[0] && !place[1])
        return snprintf(err, errlen, "--%s '%.60s': expected pack, spread or pack,spread", o->name,
                        arg),
               -1;
    return 0;
}

/* a repeatable option: one more value (up to 64) */
static int add_value(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    str_list *l = to;
    if (l->n == sizeof l->v / sizeof l->v[0])
        return snprintf(err, errlen, "--%s: at most %zu of them", o->name,
                        sizeof l->v / sizeof l->v[0]),
               -1;
    l->v[l->n++] = arg;
    return 0;
}

/* --partition BYTES, or none */
static int set_partition(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    char *end;
    double v = !strcmp(arg, "none") ? INFINITY : strtod(arg, &end);
    if (strcmp(arg, "none") && (end == arg || *end))
        v = NAN;
    if (!(v > 0))
        return snprintf(err, errlen, "--%s '%.40s': expected a number of bytes > 0 or none",
                        o->name, arg),
               -1;
    *(double *)to = v;
    return 0;
}

/* --nodes MIN or MIN-MAX (1 <= MIN <= MAX) */
static int set_range(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen)
{
    uint32_t *r = to;
    char *end = NULL;
    errno = 0;
    unsigned long lo = strtoul(arg, &end, 10), hi = lo;
    if (end != arg && *end == '-')
        hi = strtoul(end + 1, &end, 10);
    if (errno || end == arg || *end || lo < 1 || hi < lo || hi > UINT32_MAX)
        return snprintf(err, errlen, "--%s '%.40s': expected MIN or MIN-MAX, 1 <= MIN <= MAX",
                        o->name, arg),
               -1;
    r[0] = (uint32_t)lo;
    r[1] = (uint32_t)hi;
    return 0;
}

#define OPT_TOPOLOGY(to)                                                                           \
    {                                                                                              \
        "topology", "FILE", NV_CLI_STR, to,                                                        \
            .help = "Slurm topology.conf (SwitchName=... Nodes=...), or topology.yaml (a name "    \
                    "ending .yaml or .yml: its default tree or block topology)"                    \
    }
#define OPT_BLADE_MAP(to)                                                                          \
    {                                                                                              \
        "blade-map", "FILE", NV_CLI_STR, to,                                                       \
            .help = "netvar's blade map (lines 'n[1-4] switch=s1 group=g0')"                       \
    }
#define OPT_JSON(to)                                                                               \
    {                                                                                              \
        "json", NULL, NV_CLI_FLAG, to, .ival = 1, .help = "machine-readable output"                \
    }

static const nv_opt sweep_opts[] = {
    {"out", "FILE", NV_CLI_STR, &sweep.out, .help = "data set to append to (required)"},
    OPT_TOPOLOGY(&sweep.topology),
    OPT_BLADE_MAP(&sweep.blade_map),
    {"nodes", "LIST", NV_CLI_CALL, &sweep.nodes, 1, 4096, .call = set_list,
     .help = "node counts, comma-separated, 1..4096 (default 1,2,4)"},
    {"ppn", "LIST", NV_CLI_CALL, &sweep.ppn, 1, 1024, .call = set_list,
     .help = "ranks per node, 1..1024 (default 1,2)"},
    {"bytes", "LIST", NV_CLI_CALL, &sweep.bytes, 1, 64u << 20, .call = set_list,
     .help = "message sizes, bytes, 1..67108864 (default 1024,16384,262144)"},
    {"placement", "LIST", NV_CLI_CALL, sweep.place, .call = set_placement,
     .help = "pack,spread (default both)"},
    {"dims", "D", NV_CLI_LONG, &sweep.dims, 1, 3, .help = "halo dimensions 1-3 (default 3)"},
    {"phases", "K", NV_CLI_LONG, &sweep.phases, 1, 1000000,
     .help = "timed phases per run, 1..1000000 (default 200)"},
    {"reps", "R", NV_CLI_LONG, &sweep.reps, 1, 1000,
     .help = "repetitions of every configuration, 1..1000 (default 1)"},
    {"launcher", "L", NV_CLI_CHOICE, &sweep.mpirun, .choices = "srun|mpirun",
     .help = "srun (default; inside a Slurm allocation or lab) or mpirun (this host only: N "
             "must be 1)"},
    {"bin", "PATH", NV_CLI_STR, &sweep.bin,
     .help = "the benchmark (default netvar-sweep-stencil beside netvar)"},
    {"timeout", "S", NV_CLI_DOUBLE, &sweep.timeout, 0, 86400, .open_lo = 1,
     .bad = "must be more than 0 and at most 86400 seconds",
     .help = "per run, seconds (at most 86400, default 300)"},
    {"source", "TEXT", NV_CLI_STR, &sweep.source,
     .help = "the data set's \"source\" (default \"sweep\")"},
    OPT_JSON(&sweep.json),
};

static const nv_opt records_opts[] = {
    {"spool", "DIR", NV_CLI_STR, &recs.spool,
     .help = "netvar's spool (records: DIR/jobs/ID/job.json and profiles/; required)"},
    {"out", "FILE", NV_CLI_STR, &recs.out, .help = "data set to write (required)"},
    OPT_TOPOLOGY(&recs.topology),
    OPT_BLADE_MAP(&recs.blade_map),
    OPT_JSON(&recs.json),
};

static const nv_opt train_opts[] = {
    {"dataset", "FILE", NV_CLI_CALL, &train.datasets, .call = add_value,
     .help = "a data set to learn from; repeatable (up to 64)"},
    {"records", "SPOOL", NV_CLI_STR, &train.records,
     .help = "also learn from the spool's job records (as `records` makes them; needs "
             "--topology or --blade-map), and add each profiled app from its newest job "
             "(pattern, phases, ranks, measured compute) unless --app-halo/--app-profile names "
             "it"},
    {"model", "FILE", NV_CLI_STR, &train.model,
     .help = "model file (schema netvar-model; required)"},
    {"out", "FILE", NV_CLI_STR, &train.out, .help = "model to write (default --model)"},
    {"learner", "L", NV_CLI_CHOICE, &train.learner, .choices = "xgboost|extra-trees",
     .help = "xgboost (default; libxgboost) or extra-trees (netvar's own)"},
    {"trees", "N", NV_CLI_LONG, &train.trees, 1, NV_ALLOC_MAX_TREES,
     .help = "boosting rounds or forest size, 1-" NV_STR(NV_ALLOC_MAX_TREES) " (default 50; "
                                                                             "extra trees 100)"},
    {"depth", "D", NV_CLI_LONG, &train.depth, 1, 30,
     .help = "tree depth, 1-30 (default 4 xgboost, 12 extra trees)"},
    {"partition", "B", NV_CLI_CALL, &train.partition, .call = set_partition,
     .help = "split by largest message size at B bytes (default 4096); none: one model per "
             "class"},
    OPT_TOPOLOGY(&train.topology),
    OPT_BLADE_MAP(&train.blade_map),
    {"app-halo", "SPEC", NV_CLI_CALL, &train.halos, .call = add_value,
     .help = "an app described as a halo, KEY:DIMS:BYTES:RANKS:PHASES:COMPUTE_CORE_S: key, "
             "dimensions, message bytes, ranks, phases per run, compute core-seconds per run; "
             "repeatable"},
    {"app-profile", "KEY=FILE", NV_CLI_CALL, &train.profiles, .call = add_value,
     .help = "an app from a segment profile with a traffic matrix; repeatable"},
    OPT_JSON(&train.json),
};

static const nv_opt advise_opts[] = {
    {"model", "FILE", NV_CLI_STR, &advise.model,
     .help = "model file (schema netvar-model; required)"},
    {"app", "KEY", NV_CLI_STR, &advise.app, .help = "app to advise (required)"},
    {"nodes", "MIN[-MAX]", NV_CLI_CALL, advise.range, .call = set_range,
     .help = "the node counts the job accepts (required)"},
    {"ppn", "N", NV_CLI_INT, &advise.ppn, 1, 1024, .help = "ranks per node, 1..1024 (default 1)"},
    {"interference", "P", NV_CLI_DOUBLE, &advise.interference, -100, HUGE_VAL,
     .bad = "must be a number of percent >= -100",
     .help = "predicted slowdown beside running jobs, % (at least -100; paid across "
             "switches)"},
    OPT_JSON(&advise.json),
};

#define GROUP(title, man, opts)                                                                    \
    {                                                                                              \
        title, man, opts, sizeof opts / sizeof opts[0]                                             \
    }
static const nv_opt_spec alloc_spec = {
    "netvar alloc",
    NULL,
    help_head,
    NULL,
    0,
    {GROUP("Options of sweep:", "alloc sweep", sweep_opts),
     GROUP("Options of records:", "alloc records", records_opts),
     GROUP("Options of train:", "alloc train", train_opts),
     GROUP("Options of advise:", "alloc advise", advise_opts)},
};

/* ---- topology: dense switch and group ids ---- */

typedef struct topo_ix {
    nv_topo t;
    size_t n_sw;
    char sw[NV_ALLOC_SWITCHES_MAX][NV_TOPO_NAME_MAX];
    uint32_t sw_group[NV_ALLOC_SWITCHES_MAX], sw_nodes[NV_ALLOC_SWITCHES_MAX];
} topo_ix;

static int topo_index(topo_ix *x, const char *topology, const char *blade_map, char *err,
                      size_t errlen)
{
    nv_topo_init(&x->t);
    x->n_sw = 0;
    if (!topology && !blade_map)
        return 0;
    if (nv_topo_load_named(&x->t, topology ? topology : blade_map, topology != NULL, err, errlen))
        return -1;
    char groups[NV_ALLOC_SWITCHES_MAX][NV_TOPO_NAME_MAX];
    size_t ng = 0;
    for (size_t i = 0; i < x->t.n; i++) {
        const nv_topo_node *n = &x->t.nodes[i];
        const char *sw = n->sw[0] ? n->sw : n->node;
        size_t j = 0, g = 0;
        for (; j < x->n_sw && strcmp(x->sw[j], sw); j++)
            ;
        for (; g < ng && strcmp(groups[g], n->group); g++)
            ;
        if (g == ng && ng < NV_ALLOC_SWITCHES_MAX)
            snprintf(groups[ng++], NV_TOPO_NAME_MAX, "%s", n->group);
        if (j == x->n_sw) {
            if (x->n_sw >= NV_ALLOC_SWITCHES_MAX)
                return nv_err(err, errlen, "more than %d switches", NV_ALLOC_SWITCHES_MAX);
            snprintf(x->sw[x->n_sw], NV_TOPO_NAME_MAX, "%s", sw);
            x->sw_group[x->n_sw] = (uint32_t)g;
            x->sw_nodes[x->n_sw++] = 0;
        }
        x->sw_nodes[j]++;
    }
    return 0;
}

static int sw_of_node(const topo_ix *x, const char *node)
{
    const nv_topo_node *n = nv_topo_find(&x->t, node);
    if (!n)
        return -1;
    const char *sw = n->sw[0] ? n->sw : n->node;
    for (size_t j = 0; j < x->n_sw; j++)
        if (!strcmp(x->sw[j], sw))
            return (int)j;
    return -1;
}

/* ---- sweep ---- */

/* the nodes for a placement: pack = switch after switch; spread = one of
 * each switch in turn.  Writes "a,b,c" into list. */
static int pick_nodes(const topo_ix *x, uint32_t n, int spread, char *list, size_t cap)
{
    size_t used = 0, got = 0;
    list[0] = 0;
    size_t taken[NV_ALLOC_SWITCHES_MAX] = {0};
    while (got < n) {
        int progress = 0;
        for (size_t j = 0; j < x->n_sw && got < n; j++) {
            size_t k = 0, want = spread ? 1 : (size_t)-1;
            for (size_t i = 0; i < x->t.n && got < n && want; i++) {
                const nv_topo_node *nd = &x->t.nodes[i];
                if (strcmp(nd->sw[0] ? nd->sw : nd->node, x->sw[j]))
                    continue;
                if (k++ < taken[j])
                    continue;
                int w = snprintf(list + used, cap - used, "%s%s", used ? "," : "", nd->node);
                if (w < 0 || (size_t)w >= cap - used)
                    return -1;
                used += (size_t)w;
                taken[j]++;
                got++;
                want--;
                progress = 1;
            }
        }
        if (!progress)
            return -1;
    }
    return 0;
}

static int run_sweep(void)
{
    const char *out = sweep.out, *topology = sweep.topology, *blade_map = sweep.blade_map,
               *bin = sweep.bin, *source = sweep.source;
    const uint32_t *nodes = sweep.nodes.v, *ppn = sweep.ppn.v, *bytes = sweep.bytes.v;
    size_t nn = sweep.nodes.n, np = sweep.ppn.n, nb = sweep.bytes.n;
    const int *place = sweep.place;
    int json = sweep.json, mpirun = sweep.mpirun;
    long dims = sweep.dims, phases = sweep.phases, reps = sweep.reps;
    double timeout = sweep.timeout;
    if (!out || (!mpirun && !topology && !blade_map)) {
        fprintf(
            stderr,
            "netvar alloc sweep: --out and (with srun) --topology or --blade-map are required\n");
        return 2;
    }
    char err[600], self[4096], binbuf[4200];
    if (!bin) {
        ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
        self[l > 0 ? l : 0] = 0;
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = 0;
        snprintf(binbuf, sizeof binbuf, "%s/netvar-sweep-stencil", self);
        bin = binbuf;
    }
    topo_ix *tx = calloc(1, sizeof *tx);
    nv_alloc_dataset d;
    nv_alloc_dataset_init(&d);
    if (!tx || topo_index(tx, topology, blade_map, err, sizeof err)) {
        fprintf(stderr, "netvar alloc sweep: %s\n", tx ? err : "out of memory");
        free(tx);
        return 1;
    }
    if (access(out, F_OK) == 0 && nv_alloc_dataset_load(&d, out, err, sizeof err)) {
        fprintf(stderr, "netvar alloc sweep: %s; not appending to it\n", err);
        nv_topo_free(&tx->t);
        free(tx);
        return 1;
    }
    if (!d.source[0])
        snprintf(d.source, sizeof d.source, "%s", source);
    char work[] = "/tmp/netvar-sweep.XXXXXX";
    if (!mkdtemp(work)) {
        fprintf(stderr, "netvar alloc sweep: cannot make a work directory in /tmp: %s\n",
                strerror(errno));
        nv_topo_free(&tx->t);
        free(tx);
        return 1;
    }
    nv_run_catch_signals();
    int failures = 0, runs = 0;
    for (size_t a = 0; a < nn && !nv_run_interrupted(); a++)
        for (size_t b = 0; b < np && !nv_run_interrupted(); b++)
            for (int sp = 0; sp < 2 && !nv_run_interrupted(); sp++) {
                if (!place[sp] || (sp == 1 && (nodes[a] == 1 || tx->n_sw < 2)))
                    continue;
                if (mpirun && nodes[a] != 1)
                    continue;
                char list[4096] = "";
                if (!mpirun && pick_nodes(tx, nodes[a], sp, list, sizeof list)) {
                    fprintf(stderr,
                            "netvar alloc sweep: the topology has fewer than %u nodes; skipped\n",
                            nodes[a]);
                    continue;
                }
                for (size_t s = 0; s < nb && !nv_run_interrupted(); s++)
                    for (long r = 0; r < reps && !nv_run_interrupted(); r++) {
                        char nbuf[16], pbuf[40], tbuf[24], sbuf[24], dbuf[8], kbuf[24], wbuf[64];
                        snprintf(nbuf, sizeof nbuf, "%u", nodes[a]);
                        snprintf(pbuf, sizeof pbuf, "--ntasks-per-node=%u", ppn[b]);
                        snprintf(tbuf, sizeof tbuf, "%u", nodes[a] * ppn[b]);
                        snprintf(sbuf, sizeof sbuf, "%u", bytes[s]);
                        snprintf(dbuf, sizeof dbuf, "%ld", dims);
                        snprintf(kbuf, sizeof kbuf, "%ld", phases);
                        snprintf(wbuf, sizeof wbuf, "-w");
                        char *av[24];
                        int k = 0;
                        if (mpirun) {
                            av[k++] = "mpirun";
                            av[k++] = "--oversubscribe";
                            av[k++] = "-np";
                            av[k++] = tbuf;
                        } else {
                            av[k++] = "srun";
                            av[k++] = "--mpi=pmix";
                            av[k++] = "-N";
                            av[k++] = nbuf;
                            av[k++] = pbuf;
                            av[k++] = wbuf;
                            av[k++] = list;
                        }
                        av[k++] = (char *)bin;
                        av[k++] = "--bytes";
                        av[k++] = sbuf;
                        av[k++] = "--dims";
                        av[k++] = dbuf;
                        av[k++] = "--phases";
                        av[k++] = kbuf;
                        av[k] = NULL;
                        nv_child ch;
                        char name[64];
                        snprintf(name, sizeof name, "run%d", runs++);
                        int status = 0;
                        if (nv_child_start(&ch, work, av, name, 0, err, sizeof err)) {
                            fprintf(stderr, "netvar alloc sweep: %s\n", err);
                            failures++;
                            continue;
                        }
                        int w = nv_child_wait(&ch, timeout, &status, NULL);
                        if (w != NV_WAIT_EXITED)
                            status = nv_child_stop(&ch, 5);
                        size_t len = 0;
                        char *text = nv_read_text_file(ch.out_path, 1 << 20, &len, err, sizeof err);
                        char *brace = text ? strrchr(text, '{') : NULL;
                        json_object *o = brace ? json_tokener_parse(brace) : NULL;
                        json_object *nl = nv_json_get(o, "nodes", json_type_array);
                        double comm = nv_json_num(o, "comm_s");
                        uint32_t P = nodes[a] * ppn[b];
                        if (w != NV_WAIT_EXITED || !o || !nl || json_object_array_length(nl) != P ||
                            !(comm > 0)) {
                            char last[300];
                            nv_child_last_line(&ch, last, sizeof last);
                            fprintf(
                                stderr,
                                "netvar alloc sweep: N=%u PPN=%u S=%u %s: no result (%s); skipped\n",
                                nodes[a], ppn[b], bytes[s], sp ? "spread" : "pack",
                                last[0] ? last : "no output");
                            failures++;
                            json_object_put(o);
                            free(text);
                            continue;
                        }
                        /* the placement that ran: rank -> node -> switch */
                        double *bm = calloc((size_t)P * P, sizeof *bm),
                               *mm = calloc((size_t)P * P, sizeof *mm);
                        uint32_t *node_of = calloc(P, sizeof *node_of),
                                 *sw_of = calloc(P, sizeof *sw_of), *g_of = calloc(P, sizeof *g_of);
                        nv_alloc_pattern pat;
                        nv_alloc_row row;
                        memset(&row, 0, sizeof row);
                        int ok = bm && mm && node_of && sw_of && g_of &&
                                 !nv_alloc_pattern_halo(P, (int)dims, bytes[s], &pat);
                        uint32_t distinct = 0;
                        for (uint32_t q = 0; ok && q < P; q++) {
                            const char *nm =
                                json_object_get_string(json_object_array_get_idx(nl, q));
                            uint32_t id = 0;
                            for (; id < q; id++)
                                if (!strcmp(nm, json_object_get_string(
                                                    json_object_array_get_idx(nl, id))))
                                    break;
                            if (id == q) {
                                id = distinct++;
                                int sw = mpirun ? 0 : sw_of_node(tx, nm);
                                sw_of[id] = sw < 0 ? (uint32_t)tx->n_sw + id : (uint32_t)sw;
                                if (sw_of[id] >= P)
                                    sw_of[id] = P - 1;
                                g_of[sw_of[id]] = sw < 0 ? 0 : tx->sw_group[sw];
                            } else {
                                id = node_of[id];
                            }
                            node_of[q] = id;
                        }
                        for (uint32_t q = 0; ok && q < P; q++)
                            for (size_t e = 0; e < pat.n; e++) {
                                int64_t to = (((int64_t)q + pat.o[e].offset) % P + P) % P;
                                bm[(size_t)q * P + (size_t)to] +=
                                    pat.o[e].bytes * pat.o[e].messages;
                                mm[(size_t)q * P + (size_t)to] += pat.o[e].messages;
                            }
                        if (ok)
                            ok = !nv_alloc_features_matrix(bm, mm, P, node_of, sw_of, g_of, row.x);
                        if (ok) {
                            snprintf(row.app, sizeof row.app, "sweep-stencil-%ldd", dims);
                            snprintf(row.config, sizeof row.config, "N%uxPPN%u S%u %s", nodes[a],
                                     ppn[b], bytes[s], sp ? "spread" : "pack");
                            row.nodes = distinct;
                            row.ppn = ppn[b];
                            row.comm_s = comm;
                            row.runtime_s = NAN;
                            ok = !nv_alloc_dataset_add(&d, &row, err, sizeof err) &&
                                 !nv_alloc_dataset_save(&d, out, err, sizeof err);
                            if (!ok)
                                fprintf(stderr, "netvar alloc sweep: %s\n", err);
                        }
                        if (ok && !json)
                            printf("%-28s comm %.6f s per phase (%u switches)\n", row.config, comm,
                                   (unsigned)row.x[NV_AF_SWITCHES]);
                        failures += !ok;
                        free(bm);
                        free(mm);
                        free(node_of);
                        free(sw_of);
                        free(g_of);
                        json_object_put(o);
                        free(text);
                    }
            }
    char rm[64];
    snprintf(rm, sizeof rm, "%s", work);
    /* the work directory holds only our run files */
    for (int i = 0; i < runs; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/run%d.out", rm, i);
        unlink(p);
        snprintf(p, sizeof p, "%s/run%d.err", rm, i);
        unlink(p);
    }
    rmdir(rm);
    if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "dataset", json_object_new_string(out));
        json_object_object_add(o, "rows", json_object_new_int64((int64_t)d.n));
        json_object_object_add(o, "failed_runs", json_object_new_int(failures));
        nv_cli_print_json(o);
        json_object_put(o);
    } else {
        printf("netvar alloc sweep: %zu rows in %s (%d runs failed)\n", d.n, out, failures);
    }
    nv_alloc_dataset_free(&d);
    nv_topo_free(&tx->t);
    free(tx);
    return failures && d.n == 0 ? 1 : 0;
}

/* ---- train ---- */

static void log_stderr(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static int app_halo(nv_alloc_model *m, const char *spec, char *err, size_t errlen)
{
    char key[NV_ALLOC_KEY_MAX + 2];
    int dims = 0;
    double bytes = 0, ranks = 0, phases = 0, core = 0;
    int n = 0;
    if (sscanf(spec, "%64[^:]:%d:%lf:%lf:%lf:%lf%n", key, &dims, &bytes, &ranks, &phases, &core,
               &n) != 6 ||
        spec[n] || ranks < 1 || ranks > NV_ALLOC_MAX_RANKS)
        return nv_err(err, errlen,
                      "--app-halo '%.80s': expected KEY:DIMS:BYTES:RANKS:PHASES:COMPUTE_CORE_S",
                      spec);
    nv_alloc_app a;
    memset(&a, 0, sizeof a);
    snprintf(a.key, sizeof a.key, "%.64s", key);
    snprintf(a.source, sizeof a.source, "halo description");
    a.ranks = (uint32_t)ranks;
    a.phases = phases;
    a.compute_core_s = core;
    if (nv_alloc_pattern_halo(a.ranks, dims, bytes, &a.pattern))
        return nv_err(err, errlen, "--app-halo '%.80s': dimensions 1-3 and bytes > 0", spec);
    return nv_alloc_add_app(m, &a, err, errlen);
}

/* an app from a segment profile: pattern per phase from its traffic matrix */
static int app_profile(nv_alloc_model *m, const char *spec, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || eq - spec > NV_ALLOC_KEY_MAX)
        return nv_err(err, errlen, "--app-profile '%.80s': expected KEY=PROFILE.json", spec);
    char why[300];
    json_object *o = nv_json_read_file(eq + 1, 64u << 20, why, sizeof why);
    if (!o)
        return nv_err(err, errlen, "--app-profile %s: %s", eq + 1, why);
    json_object *rows =
        nv_json_get(nv_json_get(o, "traffic_matrix", json_type_object), "bytes", json_type_array);
    size_t P = rows ? json_object_array_length(rows) : 0;
    double segs = nv_json_num(o, "segments"), runtime_us = nv_json_num(o, "runtime_us");
    int rc = -1;
    double *b = NULL;
    if (P < 2 || P > 4096 || !(segs >= 1) || !(runtime_us > 0)) {
        nv_err(err, errlen,
               "--app-profile %s: needs traffic_matrix.bytes (2-4096 ranks), segments >= 1 and "
               "runtime_us; not used",
               eq + 1);
        goto out;
    }
    if (!(b = calloc(P * P, sizeof *b)))
        goto out;
    for (size_t r = 0; r < P; r++) {
        json_object *row = json_object_array_get_idx(rows, r);
        for (size_t q = 0; q < P && json_object_is_type(row, json_type_array) &&
                           q < json_object_array_length(row);
             q++)
            b[r * P + q] = json_object_get_double(json_object_array_get_idx(row, q)) / segs;
    }
    nv_alloc_app a;
    memset(&a, 0, sizeof a);
    snprintf(a.key, sizeof a.key, "%.*s", (int)(eq - spec), spec);
    snprintf(a.source, sizeof a.source, "segment profile (%zu ranks)", P);
    a.ranks = (uint32_t)P;
    a.phases = segs;
    a.compute_core_s = runtime_us * 1e-6 * (double)P; /* corrected after training */
    if (nv_alloc_pattern_from_matrix(b, NULL, (uint32_t)P, &a.pattern) < 0 || a.pattern.n == 0) {
        nv_err(err, errlen, "--app-profile %s: the traffic matrix holds no traffic; not used",
               eq + 1);
        goto out;
    }
    rc = nv_alloc_add_app(m, &a, err, errlen);
out:
    free(b);
    json_object_put(o);
    return rc;
}

static int run_train(void)
{
    const char *const *datasets = train.datasets.v, *const *halos = train.halos.v,
                      *const *profiles = train.profiles.v;
    const char *model = train.model, *out = train.out, *topology = train.topology,
               *blade_map = train.blade_map, *records = train.records;
    size_t nd = train.datasets.n, nh = train.halos.n, npr = train.profiles.n;
    int json = train.json;
    double partition = train.partition;
    long trees = train.trees, depth = train.depth;
    if ((!nd && !records) || !model || (records && !topology && !blade_map)) {
        fprintf(
            stderr,
            "netvar alloc train: --model, and --dataset or --records (which needs --topology or "
            "--blade-map) are required (see --help)\n");
        return 2;
    }
    nv_alloc_train_params p;
    nv_alloc_train_defaults(&p, (nv_alloc_learner)train.learner); /* the learner's own defaults */
    if (trees)
        p.trees = (uint32_t)trees;
    if (depth)
        p.max_depth = (uint32_t)depth;
    char err[600];
    nv_alloc_dataset d;
    nv_alloc_dataset_init(&d);
    for (size_t i = 0; i < nd; i++)
        if (nv_alloc_dataset_load(&d, datasets[i], err, sizeof err)) {
            fprintf(stderr, "netvar alloc train: %s\n", err);
            nv_alloc_dataset_free(&d);
            return 1;
        }
    nv_alloc_model *am = nv_alloc_new();
    topo_ix *tx = calloc(1, sizeof *tx);
    int rc = 1;
    json_object *res = json_object_new_array();
    nv_model *m = NULL;
    nv_model_builder *b = NULL;
    if (!am || !tx || !res || topo_index(tx, topology, blade_map, err, sizeof err)) {
        fprintf(stderr, "netvar alloc train: %s\n", tx && am ? err : "out of memory");
        goto out;
    }
    for (size_t j = 0; j < tx->n_sw; j++) {
        nv_alloc_switch s = {.group = tx->sw_group[j], .nodes = tx->sw_nodes[j]};
        snprintf(s.name, sizeof s.name, "%s", tx->sw[j]);
        if (nv_alloc_add_switch(am, &s, err, sizeof err)) {
            fprintf(stderr, "netvar alloc train: %s\n", err);
            goto out;
        }
    }
    nv_alloc_app *rapps = NULL;
    size_t nrapps = 0;
    if (records) {
        nv_alloc_records_stats st;
        if (nv_alloc_rows_from_spool(records, &tx->t, &d, &rapps, &nrapps, &st, log_stderr, NULL,
                                     err, sizeof err)) {
            fprintf(stderr, "netvar alloc train: %s\n", err);
            goto out;
        }
        if (!json)
            printf(
                "job records: %zu rows and %zu apps from %zu jobs of %s (%zu without an app, %zu without "
                "a profile with a traffic matrix, %zu unusable)\n",
                st.rows, nrapps, st.jobs, records, st.no_app, st.no_profile, st.unusable);
    }
    for (int cls = 0; cls < NV_ALLOC_CLASSES; cls++) {
        double edges[3] = {0, partition, INFINITY};
        for (int part = 0; part < (isinf(partition) ? 1 : 2); part++) {
            double lo = isinf(partition) ? 0 : edges[part],
                   hi = isinf(partition) ? INFINITY : edges[part + 1];
            long used = nv_alloc_train_class(&d, NULL, 0, (nv_alloc_class)cls, lo, hi, &p, am, err,
                                             sizeof err);
            if (used < 0) {
                fprintf(stderr, "netvar alloc train: %s; no predictor for it\n", err);
                continue;
            }
            if (!json)
                printf("class %s, largest message in (%g, %g] bytes: %ld rows, %u trees (%s)\n",
                       nv_alloc_class_name((nv_alloc_class)cls), lo, hi, used, p.trees,
                       p.learner == NV_LEARN_XGBOOST ? nv_alloc_xgboost_version() : "extra trees");
            json_object *e = json_object_new_object();
            json_object_object_add(
                e, "class", json_object_new_string(nv_alloc_class_name((nv_alloc_class)cls)));
            json_object_object_add(e, "min_msg_bytes", nv_json_new_num(lo));
            json_object_object_add(e, "max_msg_bytes", nv_json_new_num(hi));
            json_object_object_add(e, "rows", json_object_new_int64(used));
            json_object_array_add(res, e);
        }
    }
    for (size_t i = 0; i < nh; i++)
        if (app_halo(am, halos[i], err, sizeof err))
            fprintf(stderr, "netvar alloc train: %s; app not added\n", err);
    for (size_t i = 0; i < npr; i++)
        if (app_profile(am, profiles[i], err, sizeof err))
            fprintf(stderr, "netvar alloc train: %s\n", err);
    /* the apps of the job records, unless given explicitly above */
    for (size_t i = 0; i < nrapps; i++) {
        size_t kl = strlen(rapps[i].key), k;
        for (k = 0; k < nh && (strncmp(halos[k], rapps[i].key, kl) || halos[k][kl] != ':'); k++)
            ;
        int given = k < nh;
        for (k = 0; !given && k < npr; k++)
            given = !strncmp(profiles[k], rapps[i].key, kl) && profiles[k][kl] == '=';
        if (!given && nv_alloc_add_app(am, &rapps[i], err, sizeof err))
            fprintf(stderr, "netvar alloc train: %s; app not added\n", err);
    }
    free(rapps);
    rapps = NULL;
    if (nv_alloc_finish(am, err, sizeof err)) {
        fprintf(stderr, "netvar alloc train: %s\n", err);
        goto out;
    }
    /* profiles: compute = ranks x (runtime - predicted communication) at the
     * size they ran, on the likely placement */
    for (size_t i = 0; i < nv_alloc_app_count(am); i++) {
        nv_alloc_app *a = (nv_alloc_app *)nv_alloc_app_at(am, i);
        if (strncmp(a->source, "segment profile", 15))
            continue;
        nv_alloc_candidate cand;
        int best = nv_alloc_best_class(am);
        if (best >= 0 &&
            !nv_alloc_predict_run(am, (nv_alloc_class)best, a, a->ranks, 1, &cand, NULL))
            a->compute_core_s = fmax(0, a->compute_core_s - cand.comm_s * a->ranks);
    }
    if (!(m = nv_model_load(model, err, sizeof err)) || !(b = nv_builder_from_model(m)) ||
        nv_builder_set_alloc(b, am) || nv_builder_save(b, out ? out : model, err, sizeof err)) {
        fprintf(stderr, "netvar alloc train: %s\n",
                m && b ? (err[0] ? err : nv_builder_error(b)) : err);
        goto out;
    }
    if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "model", json_object_new_string(out ? out : model));
        json_object_object_add(o, "rows", json_object_new_int64((int64_t)d.n));
        json_object_object_add(o, "predictors", json_object_get(res));
        json_object_object_add(o, "tree_nodes",
                               json_object_new_int64((int64_t)nv_alloc_node_count(am)));
        json_object_object_add(o, "apps", json_object_new_int64((int64_t)nv_alloc_app_count(am)));
        nv_cli_print_json(o);
        json_object_put(o);
    } else {
        printf("netvar alloc train: %zu rows, %zu tree nodes, %zu apps, %zu switches -> %s\n", d.n,
               nv_alloc_node_count(am), nv_alloc_app_count(am), nv_alloc_switch_count(am),
               out ? out : model);
    }
    rc = 0;
out:
    json_object_put(res);
    nv_builder_free(b);
    nv_model_free(m);
    nv_alloc_free(am);
    if (tx)
        nv_topo_free(&tx->t);
    free(tx);
    nv_alloc_dataset_free(&d);
    return rc;
}

/* ---- advise ---- */

static int run_advise(void)
{
    const char *model = advise.model, *app = advise.app;
    uint32_t lo = advise.range[0], hi = advise.range[1], ppn = (uint32_t)advise.ppn;
    double interference = advise.interference;
    int json = advise.json;
    if (!model || !app || !lo) {
        fprintf(stderr,
                "netvar alloc advise: --model, --app and --nodes are required (see --help)\n");
        return 2;
    }
    char err[600];
    nv_model *m = nv_model_load(model, err, sizeof err);
    if (!m) {
        fprintf(stderr, "netvar alloc advise: %s\n", err);
        return 1;
    }
    const nv_alloc_model *am = nv_model_alloc(m);
    nv_alloc_query q = {
        .app = app, .min_nodes = lo, .max_nodes = hi, .ppn = ppn, .interference_pct = interference};
    nv_alloc_advice a;
    int rc = 0;
    if (!am || nv_alloc_advise(am, &q, &a)) {
        fprintf(stderr, "netvar alloc advise: %s: %s\n", model,
                am ? a.why_not : "no \"alloc\" section (run netvar alloc train)");
        rc = 1;
    } else if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "app", json_object_new_string(app));
        json_object_object_add(o, "nodes", json_object_new_int64(a.best.nodes));
        json_object_object_add(o, "ppn", json_object_new_int64(a.ppn));
        json_object_object_add(o, "switches", json_object_new_int64(a.best.switches));
        json_object_object_add(o, "runtime_s", nv_json_new_num_g(a.best.time_s, 6));
        json_object_object_add(o, "comm_s", nv_json_new_num_g(a.best.comm_s, 6));
        json_object_object_add(o, "compared_nodes", json_object_new_int64(a.compared.nodes));
        json_object_object_add(o, "compared_runtime_s", nv_json_new_num_g(a.compared.time_s, 6));
        json_object_object_add(o, "margin_pct", nv_json_new_num_g(a.margin_pct, 4));
        json_object_object_add(o, "class", json_object_new_string(nv_alloc_class_name(a.cls)));
        json_object_object_add(o, "predictor",
                               json_object_new_string(a.predictor ? a.predictor->source : ""));
        json_object_object_add(o, "profile", json_object_new_string(a.app->source));
        json_object_object_add(o, "cap_nodes", json_object_new_int64(a.cap_nodes));
        nv_cli_print_json(o);
        json_object_put(o);
    } else {
        printf(
            "%s: advice %u nodes x %u (%u switch%s): %.3g s predicted, %.0f %% faster than %u nodes "
            "(%.3g s, %u switch%s); class %s (%s), profile: %s%s\n",
            nv_cli_shown(app), a.best.nodes, a.ppn, a.best.switches,
            a.best.switches == 1 ? "" : "es", a.best.time_s, a.margin_pct, a.compared.nodes,
            a.compared.time_s, a.compared.switches, a.compared.switches == 1 ? "" : "es",
            nv_alloc_class_name(a.cls), a.predictor ? a.predictor->source : "?", a.app->source,
            a.capped ? "; the range was cut to the cluster's nodes" : "");
    }
    nv_model_free(m);
    return rc;
}

/* ---- records ---- */

/* records, with `operands` arguments left after the options (a usage error) */
static int run_records(int operands)
{
    const char *out = recs.out, *topology = recs.topology, *blade_map = recs.blade_map,
               *spool = recs.spool;
    int json = recs.json;
    if (operands || !out || !spool || (!topology == !blade_map)) {
        fprintf(stderr,
                "netvar alloc records: --spool, --out and one of --topology or --blade-map are "
                "required (see --help)\n");
        return 2;
    }
    char err[700];
    nv_topo t;
    nv_topo_init(&t);
    if (nv_topo_load_named(&t, topology ? topology : blade_map, topology != NULL, err,
                           sizeof err)) {
        fprintf(stderr, "netvar alloc records: %s\n", err);
        return 1;
    }
    nv_alloc_dataset d;
    nv_alloc_dataset_init(&d);
    nv_alloc_records_stats st;
    int rc = 0;
    if (nv_alloc_rows_from_spool(spool, &t, &d, NULL, NULL, &st, log_stderr, NULL, err,
                                 sizeof err) ||
        nv_alloc_dataset_save(&d, out, err, sizeof err)) {
        fprintf(stderr, "netvar alloc records: %s\n", err);
        rc = 1;
    } else if (json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "dataset", json_object_new_string(out));
        json_object_object_add(o, "source", json_object_new_string(d.source));
        json_object_object_add(o, "jobs", json_object_new_int64((int64_t)st.jobs));
        json_object_object_add(o, "rows", json_object_new_int64((int64_t)st.rows));
        json_object_object_add(o, "no_app", json_object_new_int64((int64_t)st.no_app));
        json_object_object_add(o, "no_profile", json_object_new_int64((int64_t)st.no_profile));
        json_object_object_add(o, "unusable", json_object_new_int64((int64_t)st.unusable));
        nv_cli_print_json(o);
        json_object_put(o);
    } else {
        for (size_t i = 0; i < d.n; i++)
            printf("%-32s %-20s comm %.6f s per phase\n", nv_cli_shown(d.rows[i].config),
                   nv_cli_shown(d.rows[i].app), d.rows[i].comm_s);
        printf(
            "netvar alloc records: %zu rows from %zu job records in %s (%zu without an app, %zu without "
            "a profile with a traffic matrix, %zu unusable)\n",
            st.rows, st.jobs, out, st.no_app, st.no_profile, st.unusable);
    }
    nv_alloc_dataset_free(&d);
    nv_topo_free(&t);
    return rc;
}

int verb_alloc(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        nv_opts_help(argc < 2 ? stderr : stdout, &alloc_spec);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--list-options")) {
        nv_opts_list(stdout, &alloc_spec);
        return 0;
    }
    static const char *const action[] = {"sweep", "records", "train", "advise"};
    int k = 0;
    while (k < 4 && strcmp(argv[1], action[k]))
        k++;
    if (k == 4) {
        fprintf(
            stderr,
            "netvar alloc: unknown subcommand '%s' (sweep, records, train or advise; see --help)\n",
            argv[1]);
        return 2;
    }
    char who[32];
    snprintf(who, sizeof who, "netvar alloc %s", action[k]);
    const nv_opt_spec one = {who, NULL, NULL, NULL, 0, {alloc_spec.group[k]}, &alloc_spec};
    int parsed = nv_opts_parse(&one, argc - 1, argv + 1);
    if (parsed)
        return nv_opts_exit(parsed);
    switch (k) {
    case 0: return run_sweep();
    case 1: return run_records(optind < argc - 1);
    case 2: return run_train();
    default: return run_advise();
    }
}
