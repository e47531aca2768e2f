/* test_alloc_decision.c - the submission decision with a model that carries
 * an "alloc" section (written by the model builder, read back by the
 * loader): the predictive advice names its class, predictor and profile,
 * stays within --nodes=MIN-MAX and the cluster (a one-node cluster is never
 * told 16 nodes), pays the running jobs' interference only across switches,
 * and --netvar-advise=apply resizes within the user's range. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "alloc_model.h"
#include "config.h"
#include "model_builder.h"
#include "nv_test.h"
#include "submit_decision.h"

/* comm 1 ms per phase inside one switch, 10 ms across; compute 100 core-s, 1000 phases */
static nv_model *with_alloc(const uint32_t *sw_nodes, size_t ns, char *dir)
{
    char err[600], path[600];
    assert_int_equal(nv_test_tmpdir(dir, 256, "alloc"), 0);
    /* the job_submit fixture (fftw scales 1: 100 s, 2: 60 s, 4: 70 s) */
    const char *root = getenv("ROOT");
    snprintf(path, sizeof path, "%s%stests/fixtures/jobsubmit/model.json", root ? root : "",
             root ? "/" : "");
    nv_model *m = nv_model_load(path, err, sizeof err);
    if (!m)
        fail_msg("%s (run from the source tree, or set ROOT)", err);
    nv_alloc_model *am = nv_alloc_new();
    int32_t feat[3] = {NV_AF_SWITCHES, -1, -1}, left[3] = {1, 0, 0}, right[3] = {2, 0, 0};
    double thr[3] = {1.5, 0, 0}, val[3] = {0, log(0.001), log(0.01)};
    uint32_t roots[1] = {0};
    nv_alloc_predictor p = {
        .cls = NV_ALLOC_CLASS_C, .max_msg_bytes = INFINITY, .combine = NV_ALLOC_SUM};
    snprintf(p.source, sizeof p.source, "hand-made stump");
    assert_int_equal(
        nv_alloc_add_predictor(am, &p, feat, thr, left, right, val, 3, roots, 1, err, sizeof err),
        0);
    nv_alloc_app a = {
        .compute_core_s = 100, .phases = 1000, .ranks = 8, .pattern = {.n = 1, .o = {{1, 1e5, 1}}}};
    snprintf(a.key, sizeof a.key, "fftw");
    snprintf(a.source, sizeof a.source, "sweep");
    assert_int_equal(nv_alloc_add_app(am, &a, err, sizeof err), 0);
    for (size_t j = 0; j < ns; j++) {
        nv_alloc_switch s = {.nodes = sw_nodes[j]};
        snprintf(s.name, sizeof s.name, "s%zu", j);
        assert_int_equal(nv_alloc_add_switch(am, &s, err, sizeof err), 0);
    }
    assert_int_equal(nv_alloc_finish(am, err, sizeof err), 0);
    nv_model_builder *b = nv_builder_from_model(m);
    assert_non_null(b);
    assert_int_equal(nv_builder_set_alloc(b, am), 0);
    snprintf(path, sizeof path, "%s/out.json", dir);
    assert_int_equal(nv_builder_save(b, path, err, sizeof err), 0);
    nv_builder_free(b);
    nv_alloc_free(am);
    nv_model_free(m);
    m = nv_model_load(path, err, sizeof err);
    if (!m)
        fail_msg("%s", err);
    assert_non_null(nv_model_alloc(m));
    return m;
}

static struct nv_config *config(const char *text)
{
    struct nv_config *c = calloc(1, sizeof *c);
    assert_non_null(c);
    int errors = nv_config_parse("test.conf", text ? text : "", c, NULL, NULL);
    if (errors)
        fail_msg("config has %d errors:\n%s", errors, text);
    return c;
}

static void one_node_cluster_is_never_told_more(void **state)
{
    (void)state;
    char dir[256];
    uint32_t nodes[] = {1};
    nv_model *m = with_alloc(nodes, 1, dir);
    struct nv_config *c = config(NULL);
    struct nv_submit_decision *d = calloc(1, sizeof *d);
    struct nv_submit_query q = {.app_option = "fftw", .min_nodes = 1, .max_nodes = 32};
    nv_submit_decide(c, m, NULL, &q, d);
    assert_true(d->advice);
    assert_int_equal(d->advice_nodes, 1); /* the scaling history alone said 2 */
    assert_non_null(strstr(d->message, "netvar: advice 1 nodes x 1 (1 switch"));
    assert_non_null(strstr(d->message, "class C (hand-made stump); profile: sweep"));
    assert_non_null(strstr(d->message, "the cluster has fewer nodes than you allowed"));
    free(d);
    free(c);
    nv_model_free(m);
    nv_test_rmtree(dir);
}

static void advice_within_range_and_applied(void **state)
{
    (void)state;
    char dir[256];
    uint32_t nodes[] = {4, 4};
    nv_model *m = with_alloc(nodes, 2, dir);
    struct nv_config *c = config("Rule=fit action=resize\n");
    struct nv_submit_decision *d = calloc(1, sizeof *d);
    /* 1..8: 8 nodes over two switches 12.5 + 10 = 22.5 s beat 4 in one at 26 s */
    struct nv_submit_query q = {
        .app_option = "fftw", .min_nodes = 1, .max_nodes = 8, .advise_apply = true};
    nv_submit_decide(c, m, NULL, &q, d);
    assert_int_equal(d->advice_nodes, 8);
    assert_int_equal(d->resize_nodes, 8);
    assert_true(d->actions & NV_ACT_RESIZE);
    assert_non_null(strstr(d->message, "78 % faster than 1, which would span 1 switch"));
    /* the user's range [2, 3] is the limit */
    q.min_nodes = 2;
    q.max_nodes = 3;
    nv_submit_decide(c, m, NULL, &q, d);
    assert_int_equal(d->advice_nodes, 3);
    assert_int_equal(d->resize_nodes, 3);
    /* no range: nothing to resize */
    q.max_nodes = 0;
    nv_submit_decide(c, m, NULL, &q, d);
    assert_int_equal(d->advice_nodes, 2);
    assert_int_equal(d->resize_nodes, 0);
    free(d);
    free(c);
    nv_model_free(m);
    nv_test_rmtree(dir);
}

/* avoid beside a job under both leaf switches adds contain only when the
 * job fits under one: the switches of the alloc section say how many nodes
 * a leaf holds (2 here) */
static void avoid_contains_only_what_fits_under_a_leaf(void **state)
{
    (void)state;
    char dir[256];
    uint32_t nodes[] = {2, 2};
    nv_model *m = with_alloc(nodes, 2, dir);
    struct nv_config *c = config("Rule=noisy app=amg inflicted_slowdown>=10 action=avoid\n");
    static char fftw_nodes[] = "n2,n3";
    struct nv_running_app fftw = {.app = nv_model_app_index(m, "fftw"),
                                  .key = "fftw",
                                  .utilization = 0.3,
                                  .njobs = 1,
                                  .first_jobid = 21,
                                  .nodes = fftw_nodes,
                                  .span_switches = 2,
                                  .span_jobid = 21};
    assert_true(fftw.app >= 0);
    struct nv_running_index ix = {.njobs = 1, .napps_total = 1, .napps = 1, .apps = &fftw};
    struct nv_submit_decision *d = calloc(1, sizeof *d);
    struct nv_submit_query q = {.app_option = "amg", .min_nodes = 2, .max_nodes = 2};
    nv_submit_decide(c, m, &ix, &q, d);
    assert_int_equal(d->actions & (NV_ACT_AVOID | NV_ACT_CONTAIN), NV_ACT_AVOID | NV_ACT_CONTAIN);
    assert_true(d->avoid_contained);
    q.min_nodes = q.max_nodes = 3;
    nv_submit_decide(c, m, &ix, &q, d);
    assert_int_equal(d->actions & (NV_ACT_AVOID | NV_ACT_CONTAIN), NV_ACT_AVOID);
    assert_non_null(strstr(d->message,
                           "netvar: avoid excludes the nodes of job 21 (fftw), which "
                           "spans 2 leaf switches; this job needs 3 nodes, more than one "
                           "leaf switch holds (2), so it would still share their uplinks"));
    free(d);
    free(c);
    nv_model_free(m);
    nv_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_node_cluster_is_never_told_more),
        cmocka_unit_test(advice_within_range_and_applied),
        cmocka_unit_test(avoid_contains_only_what_fits_under_a_leaf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
