/* test_alloc_features.c - *Communication time prediction*'s features
 * (alloc_features.h): a ring on two switches by hand, the closed form
 * against enumeration of the same pattern's matrix on many placements,
 * one node, the pattern summary of a recorded matrix, MPI_Dims_create's
 * halo, Slurm-like packing, and refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "alloc_features.h"

static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-9 * (1.0 + fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void ring_by_hand(void **state)
{
    (void)state;
    /* P = 8 ranks, PPN 2, nodes 4 on 2 switches; rank r sends one 1000-byte
     * message to r+1: one of a node's 2 ranks leaves the node; one of a
     * switch's 4 ranks leaves the switch (3->4 and 7->0) */
    nv_alloc_pattern p = {.n = 1, .o = {{1, 1000, 1}}};
    nv_alloc_layout l = {.n_switches = 2, .nodes = {2, 2}, .group = {0, 0}};
    double x[NV_AF_COUNT];
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 2, x), 0);
    near(x[NV_AF_N], 4, "N");
    near(x[NV_AF_PPN], 2, "PPN");
    near(x[NV_AF_MIN_S], 1000, "minS");
    near(x[NV_AF_AVG_M], 1, "avgM");
    near(x[NV_AF_MAX_NT], 1000, "maxNT");
    near(x[NV_AF_MAX_NI], 1, "maxNI");
    near(x[NV_AF_MAX_INT], 1000, "maxINT");
    near(x[NV_AF_V], 4000, "V");
    near(x[NV_AF_SWITCHES], 2, "switches");
    near(x[NV_AF_GROUPS], 1, "groups");
    near(x[NV_AF_MAX_ST], 2000, "maxST");
    near(x[NV_AF_MAX_INTER_ST], 1000, "maxInterST");
    near(x[NV_AF_MAX_INTRA_ST], 1000, "maxIntraST");
    near(x[NV_AF_MAX_INTER_GT], 0, "maxInterGT");
    near(x[NV_AF_UPLINK_LOAD], 1, "uplinkLoad");
}

static void one_node_is_all_intranode(void **state)
{
    (void)state;
    nv_alloc_pattern p;
    assert_int_equal(nv_alloc_pattern_halo(4, 2, 512, &p), 0);
    nv_alloc_layout l = {.n_switches = 1, .nodes = {1}};
    double x[NV_AF_COUNT];
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 4, x), 0);
    near(x[NV_AF_MAX_NT], 0, "maxNT on one node");
    assert_true(x[NV_AF_MAX_INT] > 0);
    near(x[NV_AF_MAX_INTER_ST], 0, "maxInterST on one switch");
}

/* the pattern's matrix on a block placement, enumerated */
static void matrix_of(const nv_alloc_pattern *p, uint32_t P, double *b, double *m)
{
    memset(b, 0, sizeof(double) * P * P);
    memset(m, 0, sizeof(double) * P * P);
    for (uint32_t r = 0; r < P; r++)
        for (size_t k = 0; k < p->n; k++) {
            int64_t q = ((int64_t)r + p->o[k].offset) % (int64_t)P;
            if (q < 0)
                q += P;
            b[(size_t)r * P + (size_t)q] += p->o[k].bytes * p->o[k].messages;
            m[(size_t)r * P + (size_t)q] += p->o[k].messages;
        }
}

static void closed_form_equals_enumeration(void **state)
{
    (void)state;
    const uint32_t layouts[][4] = {
        {4, 0, 0, 0}, {3, 1, 0, 0}, {2, 2, 0, 0}, {1, 2, 3, 2}, {5, 1, 1, 0}};
    const uint32_t groups[][4] = {{0}, {0, 0}, {0, 1}, {0, 0, 1, 1}, {0, 1, 2}};
    const size_t nsw[] = {1, 2, 2, 4, 3};
    for (int dims = 1; dims <= 3; dims++)
        for (size_t li = 0; li < 5; li++)
            for (uint32_t ppn = 1; ppn <= 4; ppn++) {
                nv_alloc_layout l = {.n_switches = nsw[li]};
                uint32_t N = 0;
                for (size_t j = 0; j < nsw[li]; j++) {
                    l.nodes[j] = layouts[li][j];
                    l.group[j] = groups[li][j];
                    N += l.nodes[j];
                }
                uint32_t P = N * ppn;
                nv_alloc_pattern p;
                assert_int_equal(nv_alloc_pattern_halo(P, dims, 100.0 * dims, &p), 0);
                p.o[0].messages = 3; /* uneven counts too */
                double *b = malloc(sizeof(double) * P * P), *m = malloc(sizeof(double) * P * P);
                uint32_t *node_of = malloc(sizeof(uint32_t) * P), sw_of[64] = {0}, g_of[64] = {0};
                uint32_t node = 0;
                for (size_t j = 0; j < l.n_switches; j++)
                    for (uint32_t k = 0; k < l.nodes[j]; k++, node++)
                        sw_of[node] = (uint32_t)j;
                for (size_t j = 0; j < l.n_switches; j++)
                    g_of[j] = l.group[j];
                for (uint32_t r = 0; r < P; r++)
                    node_of[r] = r / ppn;
                matrix_of(&p, P, b, m);
                double xa[NV_AF_COUNT], xb[NV_AF_COUNT];
                assert_int_equal(nv_alloc_features_pattern(&p, &l, ppn, xa), 0);
                assert_int_equal(nv_alloc_features_matrix(b, m, P, node_of, sw_of, g_of, xb), 0);
                for (int f = 0; f < NV_AF_COUNT; f++) {
                    if (f == NV_AF_MIN_S || f == NV_AF_MAX_S)
                        continue; /* the matrix merges offsets that meet on one peer */
                    if (!(fabs(xa[f] - xb[f]) <= 1e-9 * (1 + fabs(xb[f]))))
                        fail_msg(
                            "dims %d layout %zu ppn %u: %s closed form %.17g, enumerated %.17g",
                            dims, li, ppn, nv_alloc_feature_name(f), xa[f], xb[f]);
                }
                free(b);
                free(m);
                free(node_of);
            }
}

static void pattern_from_recorded_matrix(void **state)
{
    (void)state;
    nv_alloc_pattern p = {.n = 2, .o = {{1, 4096, 1}, {-4, 256, 2}}}, q;
    uint32_t P = 16;
    double b[256], m[256];
    matrix_of(&p, P, b, m);
    double share = nv_alloc_pattern_from_matrix(b, m, P, &q);
    near(share, 1, "share of bytes kept");
    assert_int_equal(q.n, 2);
    assert_int_equal(q.o[0].offset, 1);
    near(q.o[0].bytes, 4096, "bytes of +1");
    near(q.o[0].messages, 1, "messages of +1");
    assert_int_equal(q.o[1].offset, -4);
    near(q.o[1].bytes, 256, "bytes of -4");
    near(q.o[1].messages, 2, "messages of -4");
}

static void halo_dims(void **state)
{
    (void)state;
    nv_alloc_pattern p;
    /* 12 ranks in 3D: MPI_Dims_create gives 3 x 2 x 2: strides 1 (2 wide:
     * one neighbour), 2 (2 wide: one), 4 (3 wide: two) */
    assert_int_equal(nv_alloc_pattern_halo(12, 3, 10, &p), 0);
    assert_int_equal(p.n, 4);
    assert_int_equal(p.o[0].offset, 1);
    assert_int_equal(p.o[1].offset, 2);
    assert_int_equal(p.o[2].offset, 4);
    assert_int_equal(p.o[3].offset, -4);
    assert_int_equal(nv_alloc_pattern_halo(1, 3, 10, &p), 0); /* one rank: itself, no traffic */
    nv_alloc_layout l = {.n_switches = 1, .nodes = {1}};
    double x[NV_AF_COUNT];
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 1, x), 0);
    near(x[NV_AF_MAX_INT] + x[NV_AF_MAX_NT], 0, "no traffic alone");
    assert_int_equal(nv_alloc_pattern_halo(0, 3, 10, &p), -1);
    assert_int_equal(nv_alloc_pattern_halo(8, 4, 10, &p), -1);
    assert_int_equal(nv_alloc_pattern_halo(8, 3, NAN, &p), -1);
}

static void pack_like_slurm(void **state)
{
    (void)state;
    uint32_t cap[] = {4, 4, 2}, grp[] = {0, 0, 1};
    nv_alloc_layout l;
    assert_int_equal(nv_alloc_layout_pack(2, cap, grp, 3, &l), 0);
    assert_int_equal(l.n_switches, 1); /* the smallest switch that fits */
    assert_int_equal(l.group[0], 1);
    assert_int_equal(nv_alloc_layout_pack(6, cap, grp, 3, &l), 0);
    assert_int_equal(l.n_switches, 2);
    assert_int_equal(l.nodes[0] + l.nodes[1], 6);
    assert_int_equal(l.group[1], 0);
    assert_int_equal(nv_alloc_layout_pack(10, cap, grp, 3, &l), 0);
    assert_int_equal(l.n_switches, 3);
    assert_int_equal(l.group[2], 1); /* in group order */
    assert_int_equal(nv_alloc_layout_pack(11, cap, grp, 3, &l), -1);
    assert_int_equal(nv_alloc_layout_pack(0, cap, grp, 3, &l), -1);
}

static void refusals(void **state)
{
    (void)state;
    double x[NV_AF_COUNT];
    nv_alloc_pattern p = {.n = 1, .o = {{1, 100, 1}}};
    nv_alloc_layout l = {.n_switches = 2, .nodes = {1, 1}, .group = {1, 0}};
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 1, x), -1); /* groups out of order */
    l.group[0] = 0;
    l.nodes[1] = 0;
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 1, x), -1); /* a switch without nodes */
    l.nodes[1] = 1;
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 0, x), -1);
    p.o[0].offset = 0;
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 1, x), -1);
    p.o[0].offset = 1;
    p.o[0].bytes = -1;
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 1, x), -1);
    l.nodes[0] = 70000;
    p.o[0].bytes = 1;
    assert_int_equal(nv_alloc_features_pattern(&p, &l, 1, x), -1); /* P beyond the bound */
    double b[4] = {0, -1, 0, 0}, m[4] = {0};
    uint32_t n[2] = {0, 1}, s[2] = {0, 0}, g[2] = {0, 0};
    assert_int_equal(nv_alloc_features_matrix(b, m, 2, n, s, g, x), -1);
    n[1] = 5;
    b[1] = 1;
    assert_int_equal(nv_alloc_features_matrix(b, m, 2, n, s, g, x), -1);
    nv_alloc_class c;
    assert_int_equal(nv_alloc_class_parse("b", &c), 0);
    assert_int_equal(c, NV_ALLOC_CLASS_B);
    assert_int_equal(nv_alloc_class_parse("D", &c), -1);
    assert_string_equal(nv_alloc_feature_name(NV_AF_UPLINK_LOAD), "uplinkLoad");
    assert_null(nv_alloc_feature_name(NV_AF_COUNT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_by_hand),
        cmocka_unit_test(one_node_is_all_intranode),
        cmocka_unit_test(closed_form_equals_enumeration),
        cmocka_unit_test(pattern_from_recorded_matrix),
        cmocka_unit_test(halo_dims),
        cmocka_unit_test(pack_like_slurm),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
