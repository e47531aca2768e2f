/* alloc_features.c - communication features of a placement (alloc_features.h). */
#include "alloc_features.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name, *unit;
} FEAT[NV_AF_COUNT] = {
    [NV_AF_N] = {"N", "nodes"},
    [NV_AF_PPN] = {"PPN", "ranks"},
    [NV_AF_MIN_S] = {"minS", "bytes"},
    [NV_AF_MAX_S] = {"maxS", "bytes"},
    [NV_AF_AVG_M] = {"avgM", "messages"},
    [NV_AF_AVG_NT] = {"avgNT", "bytes"},
    [NV_AF_MAX_NT] = {"maxNT", "bytes"},
    [NV_AF_AVG_NI] = {"avgNI", "messages"},
    [NV_AF_MAX_NI] = {"maxNI", "messages"},
    [NV_AF_MAX_INT] = {"maxINT", "bytes"},
    [NV_AF_MAX_INI] = {"maxINI", "messages"},
    [NV_AF_V] = {"V", "bytes"},
    [NV_AF_VI] = {"VI", "messages"},
    [NV_AF_SWITCHES] = {"switches", "switches"},
    [NV_AF_GROUPS] = {"groups", "groups"},
    [NV_AF_AVG_NSW] = {"avgNSW", "nodes"},
    [NV_AF_MAX_ST] = {"maxST", "bytes"},
    [NV_AF_MAX_INTRA_ST] = {"maxIntraST", "bytes"},
    [NV_AF_MAX_INTER_ST] = {"maxInterST", "bytes"},
    [NV_AF_AVG_INTER_ST] = {"avgInterST", "bytes"},
    [NV_AF_MAX_INTER_GT] = {"maxInterGT", "bytes"},
    [NV_AF_UPLINK_LOAD] = {"uplinkLoad", "node links"},
};

const char *nv_alloc_feature_name(int i)
{
    return i >= 0 && i < NV_AF_COUNT ? FEAT[i].name : NULL;
}

const char *nv_alloc_feature_unit(int i)
{
    return i >= 0 && i < NV_AF_COUNT ? FEAT[i].unit : NULL;
}

int nv_alloc_class_features(nv_alloc_class c)
{
    return c == NV_ALLOC_CLASS_A   ? NV_AF_CLASS_A_END
           : c == NV_ALLOC_CLASS_B ? NV_AF_CLASS_B_END
           : c == NV_ALLOC_CLASS_C ? NV_AF_CLASS_C_END
                                   : 0;
}

const char *nv_alloc_class_name(nv_alloc_class c)
{
    return c == NV_ALLOC_CLASS_A   ? "A"
           : c == NV_ALLOC_CLASS_B ? "B"
           : c == NV_ALLOC_CLASS_C ? "C"
                                   : "?";
}

int nv_alloc_class_parse(const char *s, nv_alloc_class *c)
{
    if (!s || !s[0] || s[1])
        return -1;
    switch (s[0]) {
    case 'A':
    case 'a': *c = NV_ALLOC_CLASS_A; return 0;
    case 'B':
    case 'b': *c = NV_ALLOC_CLASS_B; return 0;
    case 'C':
    case 'c': *c = NV_ALLOC_CLASS_C; return 0;
    }
    return -1;
}

/* Of the R ranks of a contiguous window on a cycle of P ranks, how many
 * send to a rank inside the window when each sends to (r + d) mod P. */
static double stay(int64_t d, uint64_t R, uint64_t P)
{
    int64_t m = d % (int64_t)P;
    uint64_t s = (uint64_t)(m < 0 ? m + (int64_t)P : m);
    uint64_t a = R > s ? R - s : 0;
    uint64_t b = s + R > P ? s + R - P : 0;
    uint64_t t = a + b;
    return (double)(t > R ? R : t);
}

static int pattern_ok(const nv_alloc_pattern *p)
{
    if (!p || p->n == 0 || p->n > NV_ALLOC_PATTERN_MAX)
        return 0;
    for (size_t k = 0; k < p->n; k++)
        if (p->o[k].offset == 0 || !isfinite(p->o[k].bytes) || !(p->o[k].bytes > 0) ||
            !isfinite(p->o[k].messages) || !(p->o[k].messages > 0))
            return 0;
    return 1;
}

int nv_alloc_features_pattern(const nv_alloc_pattern *p, const nv_alloc_layout *l, uint32_t ppn,
                              double *x)
{
    if (!pattern_ok(p) || !l || l->n_switches == 0 || l->n_switches > NV_ALLOC_SWITCHES_MAX ||
        ppn == 0)
        return -1;
    uint64_t N = 0;
    for (size_t j = 0; j < l->n_switches; j++) {
        if (l->nodes[j] == 0 || (j && l->group[j] < l->group[j - 1]))
            return -1;
        N += l->nodes[j];
    }
    uint64_t P = N * ppn;
    if (P > NV_ALLOC_MAX_RANKS)
        return -1;
    memset(x, 0, NV_AF_COUNT * sizeof *x);
    double smin = INFINITY, smax = 0, m = 0;
    /* per rank: bytes and messages that leave its node / stay on it */
    double nt = 0, ni = 0, intb = 0, inm = 0;
    for (size_t k = 0; k < p->n; k++) {
        const nv_alloc_offset *o = &p->o[k];
        smin = fmin(smin, o->bytes);
        smax = fmax(smax, o->bytes);
        m += o->messages;
        if ((int64_t)o->offset % (int64_t)P == 0)
            continue;                        /* to itself */
        double on = stay(o->offset, ppn, P); /* ranks of a node whose message stays on it */
        double off = (double)ppn - on;
        nt += off * o->messages * o->bytes;
        ni += off * o->messages;
        intb += on * o->messages * o->bytes;
        inm += on * o->messages;
    }
    x[NV_AF_N] = (double)N;
    x[NV_AF_PPN] = ppn;
    x[NV_AF_MIN_S] = smin;
    x[NV_AF_MAX_S] = smax;
    x[NV_AF_AVG_M] = m;
    /* every node is a window of PPN ranks: all nodes alike */
    x[NV_AF_AVG_NT] = x[NV_AF_MAX_NT] = nt;
    x[NV_AF_AVG_NI] = x[NV_AF_MAX_NI] = ni;
    x[NV_AF_MAX_INT] = intb;
    x[NV_AF_MAX_INI] = inm;
    x[NV_AF_V] = nt * (double)N;
    x[NV_AF_VI] = ni * (double)N;

    /* switches and groups are windows of their ranks */
    double max_st = 0, max_intra = 0, max_inter = 0, sum_inter = 0, max_gt = 0, groups = 0;
    uint64_t gR = 0;
    for (size_t j = 0; j < l->n_switches; j++) {
        uint64_t R = (uint64_t)l->nodes[j] * ppn;
        double inter = 0;
        for (size_t k = 0; k < p->n; k++) {
            const nv_alloc_offset *o = &p->o[k];
            if ((int64_t)o->offset % (int64_t)P == 0)
                continue;
            inter += ((double)R - stay(o->offset, R, P)) * o->messages * o->bytes;
        }
        double st = nt * l->nodes[j];
        max_st = fmax(max_st, st);
        max_intra = fmax(max_intra, st - inter);
        max_inter = fmax(max_inter, inter);
        sum_inter += inter;
        gR += R;
        if (j + 1 == l->n_switches || l->group[j + 1] != l->group[j]) {
            double out = 0;
            for (size_t k = 0; k < p->n; k++) {
                const nv_alloc_offset *o = &p->o[k];
                if ((int64_t)o->offset % (int64_t)P == 0)
                    continue;
                out += ((double)gR - stay(o->offset, gR, P)) * o->messages * o->bytes;
            }
            max_gt = fmax(max_gt, out);
            groups++;
            gR = 0;
        }
    }
    x[NV_AF_SWITCHES] = (double)l->n_switches;
    x[NV_AF_GROUPS] = groups;
    x[NV_AF_AVG_NSW] = (double)N / (double)l->n_switches;
    x[NV_AF_MAX_ST] = max_st;
    x[NV_AF_MAX_INTRA_ST] = max_intra;
    x[NV_AF_MAX_INTER_ST] = max_inter;
    x[NV_AF_AVG_INTER_ST] = sum_inter / (double)l->n_switches;
    x[NV_AF_MAX_INTER_GT] = max_gt;
    x[NV_AF_UPLINK_LOAD] = nt > 0 ? max_inter / nt : 0;
    return 0;
}

int nv_alloc_features_matrix(const double *bytes, const double *msgs, uint32_t nranks,
                             const uint32_t *node_of, const uint32_t *switch_of,
                             const uint32_t *group_of, double *x)
{
    if (!bytes || !msgs || !node_of || !switch_of || !group_of || nranks == 0 ||
        nranks > NV_ALLOC_MAX_RANKS)
        return -1;
    uint32_t P = nranks;
    for (uint32_t r = 0; r < P; r++)
        if (node_of[r] >= P || switch_of[node_of[r]] >= P || group_of[switch_of[node_of[r]]] >= P)
            return -1;
    /* per node, switch and group: out-of-node bytes/messages, intranode,
     * bytes leaving the switch, leaving the group; counts of members */
    double *nb = calloc((size_t)P * 8, sizeof *nb);
    uint32_t *nranks_of = calloc((size_t)P * 3, sizeof *nranks_of);
    if (!nb || !nranks_of) {
        free(nb);
        free(nranks_of);
        return -1;
    }
    double *node_t = nb, *node_i = nb + P, *node_int = nb + 2 * P, *node_ini = nb + 3 * P;
    double *sw_t = nb + 4 * P, *sw_inter = nb + 5 * P, *g_inter = nb + 6 * P;
    uint32_t *node_has = nranks_of, *sw_nodes = nranks_of + P, *g_has = nranks_of + 2 * P;
    double smin = INFINITY, smax = 0, mtot = 0;
    int bad = 0;
    for (uint32_t r = 0; r < P && !bad; r++) {
        uint32_t a = node_of[r], sa = switch_of[a], ga = group_of[sa];
        for (uint32_t q = 0; q < P; q++) {
            double b = bytes[(size_t)r * P + q], k = msgs[(size_t)r * P + q];
            if (!isfinite(b) || !isfinite(k) || b < 0 || k < 0) {
                bad = 1;
                break;
            }
            if (k > 0) {
                mtot += k;
                if (b > 0) {
                    smin = fmin(smin, b / k);
                    smax = fmax(smax, b / k);
                }
            }
            if (q == r || (b == 0 && k == 0))
                continue;
            uint32_t c = node_of[q], sc = switch_of[c], gc = group_of[sc];
            if (c == a) {
                node_int[a] += b;
                node_ini[a] += k;
                continue;
            }
            node_t[a] += b;
            node_i[a] += k;
            sw_t[sa] += b;
            if (sc != sa)
                sw_inter[sa] += b;
            if (gc != ga)
                g_inter[ga] += b;
        }
    }
    if (bad) {
        free(nb);
        free(nranks_of);
        return -1;
    }
    for (uint32_t r = 0; r < P; r++)
        node_has[node_of[r]] = 1;
    double nodes = 0, sws = 0, groups = 0;
    for (uint32_t a = 0; a < P; a++)
        if (node_has[a]) {
            nodes++;
            if (!sw_nodes[switch_of[a]]++)
                sws++;
            if (!g_has[group_of[switch_of[a]]]++)
                groups++;
        }
    memset(x, 0, NV_AF_COUNT * sizeof *x);
    x[NV_AF_N] = nodes;
    x[NV_AF_PPN] = nodes > 0 ? (double)P / nodes : 0;
    x[NV_AF_MIN_S] = isfinite(smin) ? smin : 0;
    x[NV_AF_MAX_S] = smax;
    x[NV_AF_AVG_M] = mtot / P;
    double sum_nt = 0, sum_ni = 0, sum_inter = 0;
    for (uint32_t a = 0; a < P; a++) {
        if (node_has[a]) {
            sum_nt += node_t[a];
            sum_ni += node_i[a];
            x[NV_AF_MAX_NT] = fmax(x[NV_AF_MAX_NT], node_t[a]);
            x[NV_AF_MAX_NI] = fmax(x[NV_AF_MAX_NI], node_i[a]);
            x[NV_AF_MAX_INT] = fmax(x[NV_AF_MAX_INT], node_int[a]);
            x[NV_AF_MAX_INI] = fmax(x[NV_AF_MAX_INI], node_ini[a]);
        }
        if (sw_nodes[a]) {
            x[NV_AF_MAX_ST] = fmax(x[NV_AF_MAX_ST], sw_t[a]);
            x[NV_AF_MAX_INTRA_ST] = fmax(x[NV_AF_MAX_INTRA_ST], sw_t[a] - sw_inter[a]);
            x[NV_AF_MAX_INTER_ST] = fmax(x[NV_AF_MAX_INTER_ST], sw_inter[a]);
            sum_inter += sw_inter[a];
        }
        if (g_has[a])
            x[NV_AF_MAX_INTER_GT] = fmax(x[NV_AF_MAX_INTER_GT], g_inter[a]);
    }
    x[NV_AF_AVG_NT] = nodes > 0 ? sum_nt / nodes : 0;
    x[NV_AF_AVG_NI] = nodes > 0 ? sum_ni / nodes : 0;
    x[NV_AF_V] = sum_nt;
    x[NV_AF_VI] = sum_ni;
    x[NV_AF_SWITCHES] = sws;
    x[NV_AF_GROUPS] = groups;
    x[NV_AF_AVG_NSW] = sws > 0 ? nodes / sws : 0;
    x[NV_AF_AVG_INTER_ST] = sws > 0 ? sum_inter / sws : 0;
    x[NV_AF_UPLINK_LOAD] = x[NV_AF_MAX_NT] > 0 ? x[NV_AF_MAX_INTER_ST] / x[NV_AF_MAX_NT] : 0;
    free(nb);
    free(nranks_of);
    return 0;
}

double nv_alloc_pattern_from_matrix(const double *bytes, const double *msgs, uint32_t nranks,
                                    nv_alloc_pattern *out)
{
    if (!bytes || !out || nranks < 2 || nranks > NV_ALLOC_MAX_RANKS)
        return -1;
    uint32_t P = nranks;
    double *sb = calloc((size_t)P * 2, sizeof *sb);
    if (!sb)
        return -1;
    double *sm = sb + P, total = 0;
    for (uint32_t r = 0; r < P; r++)
        for (uint32_t q = 0; q < P; q++) {
            double b = bytes[(size_t)r * P + q];
            double k = msgs ? msgs[(size_t)r * P + q] : (b > 0);
            if (!isfinite(b) || b < 0 || !isfinite(k) || k < 0) {
                free(sb);
                return -1;
            }
            if (q == r || b == 0)
                continue;
            uint32_t d = (q + P - r) % P;
            sb[d] += b;
            sm[d] += k > 0 ? k : 1;
            total += b;
        }
    memset(out, 0, sizeof *out);
    double kept = 0;
    for (size_t n = 0; n < NV_ALLOC_PATTERN_MAX; n++) {
        uint32_t best = 0;
        for (uint32_t d = 1; d < P; d++)
            if (sb[d] > sb[best])
                best = d;
        if (best == 0 || !(sb[best] > 0))
            break;
        nv_alloc_offset *o = &out->o[out->n++];
        o->offset = best > P / 2 ? (int32_t)best - (int32_t)P : (int32_t)best;
        o->messages = sm[best] / P;
        o->bytes = sb[best] / sm[best];
        kept += sb[best];
        sb[best] = 0;
    }
    free(sb);
    return total > 0 ? kept / total : 0;
}

/* MPI_Dims_create's balanced factorisation, largest first */
static void dims_create(uint32_t P, int d, uint32_t *dims)
{
    for (int i = 0; i < 3; i++)
        dims[i] = 1;
    uint32_t rest = P;
    for (uint32_t f = 2; f * f <= rest;) {
        if (rest % f) {
            f++;
            continue;
        }
        rest /= f;
        /* give each prime factor, largest last, to the smallest dimension */
        int lo = 0;
        for (int i = 1; i < d; i++)
            if (dims[i] < dims[lo])
                lo = i;
        dims[lo] *= f;
    }
    if (rest > 1) {
        int lo = 0;
        for (int i = 1; i < d; i++)
            if (dims[i] < dims[lo])
                lo = i;
        dims[lo] *= rest;
    }
    /* descending, as MPI does */
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            if (dims[j] > dims[i]) {
                uint32_t t = dims[i];
                dims[i] = dims[j];
                dims[j] = t;
            }
}

int nv_alloc_pattern_halo(uint32_t nranks, int dims, double face_bytes, nv_alloc_pattern *out)
{
    if (!out || nranks == 0 || nranks > NV_ALLOC_MAX_RANKS || dims < 1 || dims > 3 ||
        !isfinite(face_bytes) || !(face_bytes > 0))
        return -1;
    uint32_t g[3];
    dims_create(nranks, dims, g);
    memset(out, 0, sizeof *out);
    int32_t stride = 1;
    /* row-major: the last dimension varies fastest */
    for (int i = dims - 1; i >= 0; i--) {
        if (g[i] >= 2) {
            out->o[out->n++] = (nv_alloc_offset){stride, face_bytes, 1};
            if (g[i] >= 3)
                out->o[out->n++] = (nv_alloc_offset){-stride, face_bytes, 1};
        }
        stride *= (int32_t)g[i];
    }
    if (out->n == 0) /* one rank: a self-exchange, no traffic */
        out->o[out->n++] = (nv_alloc_offset){(int32_t)nranks, face_bytes, 1};
    return 0;
}

int nv_alloc_layout_pack(uint32_t nodes, const uint32_t *cap, const uint32_t *group,
                         size_t n_switches, nv_alloc_layout *out)
{
    if (!out || !cap || !group || nodes == 0 || n_switches == 0 ||
        n_switches > NV_ALLOC_SWITCHES_MAX)
        return -1;
    out->n_switches = 0; /* (the arrays are filled as far as used: no 8 KiB memset per call) */
    /* one switch that fits: the smallest such */
    size_t one = n_switches;
    for (size_t j = 0; j < n_switches; j++)
        if (cap[j] >= nodes && (one == n_switches || cap[j] < cap[one]))
            one = j;
    if (one < n_switches) {
        out->n_switches = 1;
        out->nodes[0] = nodes;
        out->group[0] = group[one];
        return 0;
    }
    /* else the fullest switches first, until the nodes fit */
    unsigned char taken[NV_ALLOC_SWITCHES_MAX];
    uint32_t got[NV_ALLOC_SWITCHES_MAX];
    memset(taken, 0, n_switches);
    uint32_t left = nodes;
    while (left) {
        size_t best = n_switches;
        for (size_t j = 0; j < n_switches; j++)
            if (!taken[j] && cap[j] && (best == n_switches || cap[j] > cap[best]))
                best = j;
        if (best == n_switches)
            return -1;
        taken[best] = 1;
        got[best] = cap[best] < left ? cap[best] : left;
        left -= got[best];
    }
    /* in group order (stable within a group) */
    for (;;) {
        size_t pick = n_switches;
        for (size_t j = 0; j < n_switches; j++)
            if (taken[j] == 1 && (pick == n_switches || group[j] < group[pick]))
                pick = j;
        if (pick == n_switches)
            break;
        taken[pick] = 2;
        out->nodes[out->n_switches] = got[pick];
        out->group[out->n_switches++] = group[pick];
    }
    return 0;
}
