/* test_campaign.c - the campaign workflow's pure parts (lib/runner/
 * campaign.h): configuration lists and named sets (the Queue-theory
 * interference model's Table 2), configuration ids, medians and slowdowns,
 * the checks that configurations fit the nodes, and the result file's
 * writer and reader together. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "campaign.h"
#include "campaign_file.h"
#include "model.h"

static void config_ids_read_like_table2(void **state)
{
    (void)state;
    char id[64];
    nv_campaign_config_id(2.5e4, 4, 10, id, sizeof id);
    assert_string_equal(id, "B2.5e4-P4-M10");
    nv_campaign_config_id(1.25e5, 9, 1, id, sizeof id);
    assert_string_equal(id, "B1.25e5-P9-M1");
    nv_campaign_config_id(2.5e9, 17, 10, id, sizeof id);
    assert_string_equal(id, "B2.5e9-P17-M10");
    nv_campaign_config_id(250, 1, 1, id, sizeof id);
    assert_string_equal(id, "B250-P1-M1");
    nv_campaign_config_id(0, 1, 1, id, sizeof id);
    assert_string_equal(id, "B0-P1-M1");
    nv_campaign_config_id(1e10, 2, 3, id, sizeof id);
    assert_string_equal(id, "B1e10-P2-M3");
    assert_true(nv_model_key_valid("B2.5e4-P4-M10"));
}

static void config_lists_parse(void **state)
{
    (void)state;
    nv_campaign_config c[8];
    size_t n = 0;
    char err[300];
    assert_int_equal(nv_campaign_parse_configs("2.5e6:1:1,2.5e4:3:10", c, 8, &n, err, sizeof err),
                     0);
    assert_int_equal(n, 2);
    assert_true(c[0].bubble_cycles == 2.5e6 && c[0].partners == 1 && c[0].messages == 1);
    assert_true(c[1].bubble_cycles == 2.5e4 && c[1].partners == 3 && c[1].messages == 10);
    assert_string_equal(c[1].id, "B2.5e4-P3-M10");
    assert_int_equal(nv_campaign_parse_configs("0:1:1000", c, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);

    const char *bad[] = {"",         "2.5e6:1",  "x:1:1",   "1:0:1",   "1:1:0",
                         "1:1:1001", "-1:1:1",   "1:1:1,",  ",1:1:1",  "1:1:1,,2:2:2",
                         "1:1:1x",   "1e13:1:1", "nan:1:1", "inf:1:1", "1: 1:1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(nv_campaign_parse_configs(bad[i], c, 8, &n, err, sizeof err), -1);
        assert_true(strstr(err, "--configs") != NULL);
        assert_null(strchr(err, '\n'));
    }
    /* more entries than room */
    assert_int_equal(nv_campaign_parse_configs("1:1:1,2:1:1,3:1:1", c, 2, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 2"));
}

static void named_sets_follow_table2(void **state)
{
    (void)state;
    static nv_campaign_config c[NV_CAMPAIGN_MAX_CONFIGS];
    size_t n = 0;
    char err[300];
    assert_int_equal(nv_campaign_named_set("set1", c, NV_CAMPAIGN_MAX_CONFIGS, &n, err, sizeof err),
                     0);
    assert_int_equal(n, 1 * 16 * 2);
    for (size_t i = 0; i < n; i++)
        assert_true(c[i].bubble_cycles == 2.5e9);
    assert_int_equal(
        nv_campaign_named_set("set12", c, NV_CAMPAIGN_MAX_CONFIGS, &n, err, sizeof err), 0);
    assert_int_equal(n, 12 * 16 * 2);
    int saw_250 = 0, saw_p15 = 0, saw_p17 = 0;
    for (size_t i = 0; i < n; i++) {
        saw_250 |= c[i].bubble_cycles == 250;
        saw_p15 |= c[i].partners == 15; /* Table 2 skips 15 */
        saw_p17 |= c[i].partners == 17;
    }
    assert_true(saw_250 && !saw_p15 && saw_p17);
    assert_int_equal(
        nv_campaign_named_set("paper40", c, NV_CAMPAIGN_MAX_CONFIGS, &n, err, sizeof err), 0);
    assert_int_equal(n, 40);
    assert_string_equal(c[0].id, "B2.5e4-P1-M1");
    assert_string_equal(c[39].id, "B2.5e7-P17-M10");

    const char *bad[] = {"set0", "set13", "setx", "set1x", "set", "foo", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(
            nv_campaign_named_set(bad[i], c, NV_CAMPAIGN_MAX_CONFIGS, &n, err, sizeof err), -1);
        assert_non_null(strstr(err, "set1 .. set12"));
    }
    /* on 4 nodes only P <= 3 fits */
    nv_campaign_named_set("set2", c, NV_CAMPAIGN_MAX_CONFIGS, &n, err, sizeof err);
    size_t k = nv_campaign_fit_nodes(c, n, 4);
    assert_int_equal(k, 2 * 3 * 2);
    for (size_t i = 0; i < k; i++)
        assert_true(c[i].partners <= 3);
    assert_int_equal(nv_campaign_fit_nodes(c, k, 1), 0);
}

static void medians_and_slowdowns(void **state)
{
    (void)state;
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7};
    assert_true(nv_campaign_median(odd, 3) == 2);
    assert_true(nv_campaign_median(even, 4) == 2.5);
    assert_true(nv_campaign_median(one, 1) == 7);
    assert_true(odd[0] == 3); /* input untouched */
    assert_true(nv_campaign_median(one, 0) == 0);
    /* the point rule's fastest round: the lab's cg under one configuration,
     * 69.1, 56.2 and 56.1 s in three rounds */
    double rounds[] = {69.086, 56.2197, 56.1411};
    assert_true(nv_campaign_fastest(rounds, 3) == 56.1411);
    assert_true(nv_campaign_fastest(odd, 3) == 1);
    assert_true(nv_campaign_fastest(one, 1) == 7);
    assert_true(nv_campaign_fastest(one, 0) == 0);
    assert_true(nv_campaign_fastest(one, NV_CAMPAIGN_MAX_REPEAT + 1) == 0);
    assert_int_equal(nv_campaign_fastest_index(rounds, 3), 2);
    double tie[] = {5, 4, 4};
    assert_int_equal(nv_campaign_fastest_index(tie, 3), 1); /* the first of equals */
    assert_int_equal(nv_campaign_fastest_index(one, 0), 0);
    assert_true(rounds[0] == 69.086); /* input untouched */
    assert_string_equal(nv_campaign_point_name(NV_CAMPAIGN_POINT_FASTEST), "fastest");
    assert_string_equal(nv_campaign_point_name(NV_CAMPAIGN_POINT_MEDIAN), "median");
    assert_true(fabs(nv_campaign_slowdown_pct(10, 12) - 20) < 1e-12);
    assert_true(fabs(nv_campaign_slowdown_pct(10, 9) + 10) < 1e-12);
    assert_true(nv_campaign_slowdown_pct(0, 5) == 0);
    assert_true(nv_campaign_slowdown_pct(10, NAN) == 0);
}

/* A stalled run (the lab's cg under a lossy load: 41.3 s and 211.3 s in
 * two rounds) is left out of the median; ordinary spread is not. */
static void stalled_runs_leave_the_median(void **state)
{
    (void)state;
    unsigned char st[NV_CAMPAIGN_MAX_REPEAT];
    size_t ns = 9;
    double two[] = {211.3, 41.3};
    assert_true(nv_campaign_median_kept(two, 2, 3, st, &ns) == 41.3);
    assert_int_equal(ns, 1);
    assert_int_equal(st[0], 1);
    assert_int_equal(st[1], 0);
    assert_true(two[0] == 211.3); /* input untouched */
    /* the same runs with the rule off: the plain median (here the mean) */
    assert_true(nv_campaign_median_kept(two, 2, 0, st, &ns) == nv_campaign_median(two, 2));
    assert_int_equal(ns, 0);
    assert_int_equal(st[0] + st[1], 0);
    /* spread under the ratio is kept: 24.7 and 36.0 s (1.46 times) */
    double spread[] = {24.7, 36.0};
    assert_true(nv_campaign_median_kept(spread, 2, 3, st, &ns) == nv_campaign_median(spread, 2));
    assert_int_equal(ns, 0);
    /* exactly at the ratio is not over it */
    double at[] = {10, 30, 31};
    assert_true(nv_campaign_median_kept(at, 3, 3, st, &ns) == 20);
    assert_int_equal(ns, 1);
    assert_int_equal(st[2], 1);
    /* three rounds, two stalled: the fastest alone answers */
    double three[] = {120, 12, 130};
    assert_true(nv_campaign_median_kept(three, 3, 3, st, &ns) == 12);
    assert_int_equal(ns, 2);
    double one[] = {5};
    assert_true(nv_campaign_median_kept(one, 1, 3, st, &ns) == 5);
    assert_int_equal(ns, 0);
    assert_true(nv_campaign_median_kept(one, 0, 3, st, &ns) == 0);
    assert_int_equal(ns, 0);
}

/* --configs must fit as a whole; a named set is cut to what fits. */
static void configs_fit_the_nodes(void **state)
{
    (void)state;
    nv_campaign_config c[4];
    size_t n = 0;
    char err[300];
    assert_int_equal(nv_campaign_parse_configs("2.5e6:1:1,2.5e4:4:1", c, 4, &n, err, sizeof err),
                     0);
    assert_int_equal(nv_campaign_check_fit(c, n, 5, 0, err, sizeof err), 0);
    assert_int_equal(nv_campaign_check_fit(c, n, 4, 0, err, sizeof err), -1);
    assert_string_equal(err, "--configs B2.5e4-P4-M1: P=4 partners needs at least 5 nodes, the run "
                             "has 4 (P must be 1..3)");
    assert_int_equal(nv_campaign_check_fit(c, n, 3, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "the --load-nodes list has 3"));
    /* B cycles at G GHz: B / (G x 1000) microseconds */
    assert_true(fabs(nv_campaign_sleep_us(2.6e4, 2.6) - 10) < 1e-12);
    assert_true(fabs(nv_campaign_sleep_us(250, 2.5) - 0.1) < 1e-12);
}

/* A campaign with nothing to run fails before it loads or launches anything. */
static void run_refuses_empty_options(void **state)
{
    (void)state;
    nv_campaign_opts o;
    nv_campaign_opts_defaults(&o);
    assert_int_equal(o.repeat, 1);
    assert_true(o.timeout_s == 3600 && o.duration_s == 5 && o.ghz == 2.6);
    assert_int_equal(o.interval_us, 20000);
    assert_int_equal(o.msg_bytes, 40960);
    nv_run_plan p;
    nv_run_plan_defaults(&p);
    nv_campaign_result r;
    char err[300];
    assert_int_equal(nv_campaign_run(&p, &o, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "nothing to run"));
    assert_null(r.configs);
    assert_int_equal(r.logs_kept, 0);
    assert_string_equal(p.work_dir, "");
    nv_campaign_result_free(&r);
}

/* three rounds of the baseline and of two configurations, one round of
 * each a stall by 3 x the fastest */
static nv_campaign_result three_rounds(nv_campaign_config_result c[2])
{
    memset(c, 0, 2 * sizeof *c);
    double a[] = {30, 20, 25}, b[] = {11, 100, 12};
    memcpy(c[0].runtime_s, a, sizeof a);
    memcpy(c[1].runtime_s, b, sizeof b);
    return (nv_campaign_result){.baseline_s = {10, 12, 40}, .configs = c};
}

/* The point rule both netvar campaign and netvar labmodel apply: the
 * fastest rounds, or the medians without the stalls, each configuration's
 * against the baseline's. */
static void points_follow_the_rule(void **state)
{
    (void)state;
    nv_campaign_config_result c[2];
    nv_campaign_result r = three_rounds(c);
    nv_campaign_points(&r, 2, 3, 3, NV_CAMPAIGN_POINT_FASTEST);
    assert_true(r.baseline_point_s == 10 && r.n_baseline_stalled == 1 && r.baseline_stalled[2]);
    assert_true(fabs(c[0].slowdown_pct - 100) < 1e-12 && fabs(c[1].slowdown_pct - 10) < 1e-12);
    assert_int_equal(c[1].n_stalled, 1); /* 100 s: over 3 x 11 s */
    nv_campaign_points(&r, 2, 3, 3, NV_CAMPAIGN_POINT_MEDIAN);
    assert_true(r.baseline_point_s == 11 && c[0].point_s == 25 && c[1].point_s == 11.5);
    assert_true(fabs(c[0].slowdown_pct - (25.0 / 11 - 1) * 100) < 1e-12);
    nv_campaign_points(&r, 2, 3, 0, NV_CAMPAIGN_POINT_MEDIAN);
    assert_true(r.baseline_point_s == 12 && c[1].point_s == 12 && c[1].n_stalled == 0);
    assert_true(fabs(c[1].slowdown_pct) < 1e-12);
}

/* the result file's writer and reader are one module: what the writer
 * puts down, the reader gives back, rounds and ids; a file whose
 * configuration has fewer rounds than the baseline is refused by name */
static void result_file_reads_back(void **state)
{
    (void)state;
    nv_campaign_config cfg[2] = {
        {.id = "2.6e7:1:1", .bubble_cycles = 2.6e7, .partners = 1, .messages = 1},
        {.id = "250:1:10", .bubble_cycles = 250, .partners = 1, .messages = 10}};
    nv_campaign_config_result c[2];
    nv_campaign_result r = three_rounds(c);
    nv_campaign_points(&r, 2, 3, 3, NV_CAMPAIGN_POINT_FASTEST);
    nv_campaign_opts co = {.app = "cg",
                           .model_path = "m.json",
                           .cfg = cfg,
                           .ncfg = 2,
                           .repeat = 3,
                           .ghz = 2.6,
                           .point = NV_CAMPAIGN_POINT_FASTEST};
    nv_run_plan plan;
    memset(&plan, 0, sizeof plan);
    json_object *o = nv_campaign_result_to_json(&co, &plan, &r);
    assert_non_null(o);
    char path[] = "/tmp/netvar-test-campaign-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = json_object_to_json_string(o);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    nv_campaign_rounds got;
    char err[256] = "";
    assert_int_equal(nv_campaign_rounds_read(path, &got, err, sizeof err), 0);
    assert_int_equal(got.repeat, 3);
    assert_int_equal(got.ncfg, 2);
    assert_string_equal(got.id[1], "250:1:10");
    assert_true(got.r.baseline_s[2] == 40 && got.r.configs[1].runtime_s[1] == 100);
    assert_string_equal(got.point_rule, "fastest");
    nv_campaign_rounds_free(&got);
    /* one round fewer under the second configuration */
    json_object *cf = json_object_array_get_idx(json_object_object_get(o, "configs"), 1);
    json_object_array_del_idx(json_object_object_get(cf, "runtime_s"), 2, 1);
    assert_int_equal(json_object_to_file(path, o), 0);
    assert_int_equal(nv_campaign_rounds_read(path, &got, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    nv_campaign_rounds_free(&got);
    json_object_put(o);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_ids_read_like_table2),   cmocka_unit_test(config_lists_parse),
        cmocka_unit_test(named_sets_follow_table2),      cmocka_unit_test(medians_and_slowdowns),
        cmocka_unit_test(stalled_runs_leave_the_median), cmocka_unit_test(configs_fit_the_nodes),
        cmocka_unit_test(run_refuses_empty_options),     cmocka_unit_test(points_follow_the_rule),
        cmocka_unit_test(result_file_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
