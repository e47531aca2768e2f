/* nvp_matrix.c - the job's traffic matrix: per rank, the bytes it sent to
 * each MPI_COMM_WORLD rank, bounded to N x 8 bytes per rank and to jobs of
 * at most NETVAR_MATRIX_MAX_RANKS ranks (default 256); gathered to rank 0
 * at MPI_Finalize and added to the profile with the rank -> node placement.
 *
 * What is counted, from the sender's side:
 *  - point-to-point sends (Send, Ssend, Rsend, Bsend, their I-forms,
 *    Sendrecv, Sendrecv_replace; the Fortran forms the profiler wraps):
 *    the bytes of the call to its destination, exactly;
 *  - collectives, approximately (self excluded): Alltoall/v/w spread the
 *    bytes sent evenly over the other ranks (exact for Alltoall); Allreduce
 *    as a ring, 2(p-1)/p x the buffer to the right neighbour; Allgather/v
 *    as a ring, (p-1) x the own block to the right neighbour;
 *    Reduce_scatter/_block as a ring, (p-1)/p x the buffer to the right
 *    neighbour; Bcast flat, the root sends the buffer to every other rank;
 *    Scatter/v flat, the root's bytes spread evenly; Reduce and Gather/v
 *    flat, every rank sends its bytes to the root; Barrier nothing.  Real
 *    libraries pick trees and rings by size, so these are a placement
 *    model's input, not a wire trace.
 * Ranks of a communicator other than MPI_COMM_WORLD are translated once,
 * on its first counted call, and the table is cached on the communicator as
 * an MPI attribute: MPI deletes it when the communicator is freed, so a
 * recycled handle never meets a stale table, and each later call is a
 * lookup and an add.  Bytes whose
 * destination has no MPI_COMM_WORLD rank (intercommunicator collectives,
 * spawned processes) go to an "other" total.  Only the thread that
 * initialized MPI records, as for the segments. */
#define _GNU_SOURCE
#include "nvp.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_file.h"

#define DEFAULT_MAX_RANKS 256
#define HARD_MAX_RANKS 4096 /* netvar diagnose's bound (NV_MAPPING_MAX_RANKS) */
#define NODE_NAME_BYTES 64
#define TRANSLATE_CHUNK 64
#define PROFILE_MAX_BYTES ((size_t)512 << 20)

enum { WHY_OK, WHY_DISABLED, WHY_TOO_MANY, WHY_NO_MEMORY };

static struct {
    int enabled;
    int keyval; /* the translation tables' attribute key */
    int why;
    int rank, nranks, max_ranks;
    double *row;  /* bytes this rank sent to each world rank */
    double other; /* bytes sent to no world rank */
    MPI_Group world;
} M;

const char *const nvp_matrix_collectives_note =
    "approximated as: Alltoall/v/w the bytes sent spread evenly over the other ranks; Allreduce a "
    "ring, 2(p-1)/p x buffer to the right neighbour; Allgather/v a ring, (p-1) x own block to the "
    "right neighbour; Reduce_scatter/_block a ring, (p-1)/p x buffer to the right neighbour; Bcast "
    "flat, root to every other rank; Scatter/v flat, root's bytes spread evenly; Reduce, Gather/v "
    "flat, every rank to the root; nonblocking forms as blocking, counted when started";

int nvp_matrix_parse_max_ranks(const char *s, int *out)
{
    *out = DEFAULT_MAX_RANKS;
    if (!s || !*s)
        return 0;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || v < 0 || v > HARD_MAX_RANKS)
        return -1;
    *out = (int)v;
    return 0;
}

static int xlate_delete(MPI_Comm comm, int key, void *attr, void *extra);

void nvp_matrix_init(int rank, int nranks)
{
    memset(&M, 0, sizeof M);
    M.rank = rank;
    M.nranks = nranks;
    M.world = MPI_GROUP_NULL;
    M.keyval = MPI_KEYVAL_INVALID;
    const char *env = getenv("NETVAR_MATRIX_MAX_RANKS");
    if (nvp_matrix_parse_max_ranks(env, &M.max_ranks) != 0)
        nvp_log_once("NETVAR_MATRIX_MAX_RANKS='%.30s' is not a rank count in [0, %d]; using %d",
                     env, HARD_MAX_RANKS, DEFAULT_MAX_RANKS);
    if (M.max_ranks == 0) {
        M.why = WHY_DISABLED;
        return;
    }
    if (nranks > M.max_ranks) {
        M.why = WHY_TOO_MANY;
        return;
    }
    M.row = calloc((size_t)nranks, sizeof *M.row);
    if (!M.row || PMPI_Comm_group(MPI_COMM_WORLD, &M.world) != MPI_SUCCESS) {
        nvp_log_once("out of memory for the traffic matrix row (%d ranks); no traffic matrix",
                     nranks);
        free(M.row);
        M.row = NULL;
        M.why = WHY_NO_MEMORY;
        return;
    }
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, xlate_delete, &M.keyval, NULL) !=
        MPI_SUCCESS)
        M.keyval = MPI_KEYVAL_INVALID; /* translate on every call instead */
    M.enabled = 1;
}

/* World ranks of ranks[0..n-1] of comm (remote group for a p2p
 * destination on an intercommunicator); -1 where there is none.  The
 * uncached way: a group per call. */
static void translate(MPI_Comm comm, int p2p, const int *ranks, int n, int *out)
{
    for (int i = 0; i < n; i++)
        out[i] = -1;
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || (inter && !p2p))
        return;
    MPI_Group g = MPI_GROUP_NULL;
    int rc = inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g);
    if (rc != MPI_SUCCESS)
        return;
    int gsize = 0, ok = PMPI_Group_size(g, &gsize) == MPI_SUCCESS;
    for (int i = 0; ok && i < n; i++)
        ok = ranks[i] >= 0 && ranks[i] < gsize;
    if (ok && PMPI_Group_translate_ranks(g, n, ranks, M.world, out) == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            if (out[i] < 0 || out[i] >= M.nranks)
                out[i] = -1;
    } else {
        for (int i = 0; i < n; i++)
            out[i] = -1;
    }
    PMPI_Group_free(&g);
}

/* A communicator's cached table: world rank of each of its ranks (of the
 * remote group for an intercommunicator). */
typedef struct {
    int inter, n;
    int world[];
} xlate;
#define XLATE_MAX_RANKS (1 << 20)

static int xlate_delete(MPI_Comm comm, int key, void *attr, void *extra)
{
    (void)comm, (void)key, (void)extra;
    free(attr);
    return MPI_SUCCESS;
}

/* comm's table, built on first use; NULL when it cannot be cached. */
static const xlate *xlate_of(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0, inter = 0, n = 0;
    if (M.keyval == MPI_KEYVAL_INVALID)
        return NULL;
    if (PMPI_Comm_get_attr(comm, M.keyval, &v, &flag) == MPI_SUCCESS && flag)
        return v;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return NULL;
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS ||
        n <= 0 || n > XLATE_MAX_RANKS)
        return NULL;
    xlate *x = malloc(sizeof *x + (size_t)n * sizeof x->world[0]);
    if (!x)
        return NULL;
    x->inter = inter;
    x->n = n;
    int ranks[TRANSLATE_CHUNK];
    for (int start = 0; start < n; start += TRANSLATE_CHUNK) {
        int k = n - start < TRANSLATE_CHUNK ? n - start : TRANSLATE_CHUNK;
        for (int i = 0; i < k; i++)
            ranks[i] = start + i;
        translate(comm, 1, ranks, k, x->world + start);
    }
    if (PMPI_Comm_set_attr(comm, M.keyval, x) != MPI_SUCCESS) {
        free(x);
        return NULL;
    }
    return x;
}

static void to_world(MPI_Comm comm, int p2p, const int *ranks, int n, int *out)
{
    if (comm == MPI_COMM_WORLD) {
        for (int i = 0; i < n; i++)
            out[i] = ranks[i] >= 0 && ranks[i] < M.nranks ? ranks[i] : -1;
        return;
    }
    const xlate *x = xlate_of(comm);
    if (!x) {
        translate(comm, p2p, ranks, n, out);
        return;
    }
    for (int i = 0; i < n; i++)
        out[i] = (x->inter && !p2p) || ranks[i] < 0 || ranks[i] >= x->n ? -1 : x->world[ranks[i]];
}

static void add_to(MPI_Comm comm, int p2p, int peer, double bytes)
{
    int w;
    to_world(comm, p2p, &peer, 1, &w);
    if (w >= 0)
        M.row[w] += bytes;
    else
        M.other += bytes;
}

/* each rank of comm but me gets `each` bytes */
static void add_to_all(MPI_Comm comm, int me, int p, double each)
{
    int ranks[TRANSLATE_CHUNK], world[TRANSLATE_CHUNK];
    for (int start = 0; start < p; start += TRANSLATE_CHUNK) {
        int n = p - start < TRANSLATE_CHUNK ? p - start : TRANSLATE_CHUNK;
        for (int i = 0; i < n; i++)
            ranks[i] = start + i;
        to_world(comm, 0, ranks, n, world);
        for (int i = 0; i < n; i++)
            if (start + i != me) {
                if (world[i] >= 0)
                    M.row[world[i]] += each;
                else
                    M.other += each;
            }
    }
}

static const char call_is_send[NVP_NCALLS] = {
    [NVP_SEND] = 1,     [NVP_SSEND] = 1,
    [NVP_RSEND] = 1,    [NVP_BSEND] = 1,
    [NVP_ISEND] = 1,    [NVP_ISSEND] = 1,
    [NVP_IRSEND] = 1,   [NVP_IBSEND] = 1,
    [NVP_SENDRECV] = 1, [NVP_SENDRECV_REPLACE] = 1,
};

void nvp_matrix_count(int call, MPI_Comm comm, int peer, double sent, double recv)
{
    if (!M.enabled || comm == MPI_COMM_NULL)
        return;
    if (comm == MPI_COMM_WORLD && call_is_send[call]) { /* the common case: one add */
        if (peer >= 0 && peer < M.nranks)
            M.row[peer] += sent;
        else if (peer != MPI_PROC_NULL)
            M.other += sent;
        return;
    }
    switch (call) {
    case NVP_SEND:
    case NVP_SSEND:
    case NVP_RSEND:
    case NVP_BSEND:
    case NVP_ISEND:
    case NVP_ISSEND:
    case NVP_IRSEND:
    case NVP_IBSEND:
    case NVP_SENDRECV:
    case NVP_SENDRECV_REPLACE:
        if (sent > 0 && peer != MPI_PROC_NULL)
            add_to(comm, 1, peer, sent);
        return;
    default: break;
    }
    int p = nvp_comm_size(comm), me = nvp_comm_rank(comm);
    if (p <= 1 || me < 0)
        return;
    int right = (me + 1) % p;
    switch (call) {
    case NVP_ALLTOALL:
    case NVP_ALLTOALLV:
    case NVP_ALLTOALLW:
    case NVP_IALLTOALL:
    case NVP_IALLTOALLV:
    case NVP_IALLTOALLW: {
        double total = sent > 0 ? sent : recv; /* in place: what arrives is what left */
        if (total > 0)
            add_to_all(comm, me, p, total / p);
        break;
    }
    case NVP_ALLREDUCE:
    case NVP_IALLREDUCE:
        if (sent > 0)
            add_to(comm, 0, right, 2.0 * (p - 1) / p * sent);
        break;
    case NVP_ALLGATHER:
    case NVP_ALLGATHERV:
    case NVP_IALLGATHER:
    case NVP_IALLGATHERV: {
        double block = sent > 0 ? sent : recv / p;
        if (block > 0)
            add_to(comm, 0, right, (p - 1) * block);
        break;
    }
    case NVP_REDUCE_SCATTER:
    case NVP_REDUCE_SCATTER_BLOCK:
    case NVP_IREDUCE_SCATTER:
    case NVP_IREDUCE_SCATTER_BLOCK:
        if (sent > 0)
            add_to(comm, 0, right, (double)(p - 1) / p * sent);
        break;
    case NVP_BCAST:
        if (sent > 0 && me == peer)
            add_to_all(comm, me, p, sent);
        break;
    case NVP_SCATTER:
    case NVP_SCATTERV:
        if (sent > 0 && me == peer)
            add_to_all(comm, me, p, sent / p);
        break;
    case NVP_REDUCE:
    case NVP_GATHER:
    case NVP_GATHERV:
        if (sent > 0 && me != peer && peer >= 0)
            add_to(comm, 0, peer, sent);
        break;
    default: break;
    }
}

static void node_name(char out[NODE_NAME_BYTES])
{
    memset(out, 0, NODE_NAME_BYTES);
    const char *s = getenv("SLURMD_NODENAME");
    if (s && *s)
        snprintf(out, NODE_NAME_BYTES, "%s", s);
    else if (gethostname(out, NODE_NAME_BYTES - 1) != 0 || !out[0])
        snprintf(out, NODE_NAME_BYTES, "unknown");
    out[NODE_NAME_BYTES - 1] = 0;
}

static json_object *path_list(const char *list)
{
    json_object *a = json_object_new_array();
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        json_object_array_add(a, json_object_new_string_len(p, (int)len));
        p += len;
        if (*p)
            p++;
    }
    return a;
}

/* "pmpi_tools", only when another PMPI tool was found in the preloads. */
static void add_pmpi_tools(json_object *o)
{
    const char *after = nvp_tools_after(), *before = nvp_tools_before();
    if (!after[0] && !before[0])
        return;
    json_object *t = json_object_new_object();
    json_object_object_add(t, "after", path_list(after));
    json_object_object_add(t, "before", path_list(before));
    json_object_object_add(
        t, "note",
        json_object_new_string(
            "other PMPI tools in the preload order (rank 0's view): the profiler forwards every MPI call "
            "to the tools after it; the calls a tool before it wraps did not reach the profiler, so the "
            "segments may miss boundaries"));
    json_object_object_add(o, "pmpi_tools", t);
}

/* Adds traffic_matrix (and placement, if absent) to the profile at path,
 * atomically.  matrix NULL: not recorded, for the reason `why`. */
static int amend_profile(const char *path, const double *matrix, const char *names, double other,
                         int why)
{
    char err[512], tmp[4200];
    json_object *o = nv_json_read_file(path, PROFILE_MAX_BYTES, err, sizeof err);
    if (!o) {
        nvp_log_once("%s; traffic matrix not added", err);
        return -1;
    }
    int n = M.nranks;
    json_object *tm = json_object_new_object();
    json_object_object_add(tm, "ranks", json_object_new_int(n));
    json_object_object_add(tm, "unit", json_object_new_string("bytes"));
    json_object_object_add(tm, "max_ranks", json_object_new_int(M.max_ranks));
    if (matrix) {
        json_object *rows = json_object_new_array_ext(n);
        for (int r = 0; r < n; r++) {
            json_object *row = json_object_new_array_ext(n);
            for (int c = 0; c < n; c++)
                json_object_array_add(row,
                                      json_object_new_int64(llround(matrix[(size_t)r * n + c])));
            json_object_array_add(rows, row);
        }
        json_object_object_add(tm, "bytes", rows);
        json_object_object_add(tm, "other_bytes", json_object_new_int64(llround(other)));
        json_object_object_add(
            tm, "point_to_point",
            json_object_new_string(
                "bytes of each send to its MPI_COMM_WORLD destination, from the thread that initialized MPI; "
                "other_bytes had no MPI_COMM_WORLD destination"));
        json_object_object_add(tm, "collectives",
                               json_object_new_string(nvp_matrix_collectives_note));
    } else {
        char note[200];
        snprintf(note, sizeof note, "not recorded: %s",
                 why == WHY_TOO_MANY   ? "the job has more ranks than NETVAR_MATRIX_MAX_RANKS"
                 : why == WHY_DISABLED ? "NETVAR_MATRIX_MAX_RANKS=0"
                                       : "out of memory");
        json_object_object_add(tm, "bytes", NULL);
        json_object_object_add(tm, "note", json_object_new_string(note));
    }
    json_object_object_add(o, "traffic_matrix", tm);
    add_pmpi_tools(o);
    if (names && !json_object_object_get_ex(o, "placement", NULL)) {
        json_object *pl = json_object_new_array_ext(n);
        for (int r = 0; r < n; r++)
            json_object_array_add(pl, json_object_new_string(names + (size_t)r * NODE_NAME_BYTES));
        json_object_object_add(o, "placement", pl);
    }
    int rc = -1;
    if (snprintf(tmp, sizeof tmp, "%s.matrix.%ld.tmp", path, (long)getpid()) < (int)sizeof tmp) {
        if (json_object_to_file_ext(tmp, o,
                                    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) == 0 &&
            rename(tmp, path) == 0)
            rc = 0;
        else {
            nvp_log_once(
                "cannot write the traffic matrix into %s (%s); the profile stays without it", path,
                strerror(errno));
            unlink(tmp);
        }
    }
    json_object_put(o);
    return rc;
}

void nvp_matrix_finalize(MPI_Comm comm, const char *profile_path, int profile_written)
{
    int why = M.why, why_all = 0, en = M.enabled, en_all = 0;
    PMPI_Allreduce(&why, &why_all, 1, MPI_INT, MPI_MAX, comm);
    PMPI_Allreduce(&en, &en_all, 1, MPI_INT, MPI_MIN, comm);
    double other_all = 0;
    double *matrix = NULL;
    char *names = NULL;
    if (en_all) {
        PMPI_Reduce(&M.other, &other_all, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
        int ok = 1;
        if (M.rank == 0) {
            matrix = malloc((size_t)M.nranks * (size_t)M.nranks * sizeof *matrix);
            names = malloc((size_t)M.nranks * NODE_NAME_BYTES);
            ok = matrix && names;
        }
        PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
        if (ok) {
            char mine[NODE_NAME_BYTES];
            node_name(mine);
            PMPI_Gather(M.row, M.nranks, MPI_DOUBLE, matrix, M.nranks, MPI_DOUBLE, 0, comm);
            PMPI_Gather(mine, NODE_NAME_BYTES, MPI_CHAR, names, NODE_NAME_BYTES, MPI_CHAR, 0, comm);
        } else {
            why_all = WHY_NO_MEMORY;
            if (M.rank == 0)
                nvp_log_once(
                    "out of memory gathering the traffic matrix at MPI_Finalize; not recorded");
        }
    }
    if (M.rank == 0 && profile_written)
        amend_profile(profile_path, en_all && matrix && names ? matrix : NULL,
                      en_all && matrix && names ? names : NULL, other_all,
                      why_all ? why_all : WHY_NO_MEMORY);
    free(matrix);
    free(names);
    free(M.row);
    M.row = NULL;
    M.enabled = 0;
    if (M.world != MPI_GROUP_NULL)
        PMPI_Group_free(&M.world);
    if (M.keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&M.keyval); /* tables on live communicators go with them */
}
