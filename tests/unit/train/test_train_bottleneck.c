/* test_train_bottleneck.c - what `netvar train` reads from a job record's
 * bottleneck (version 2): the job's own U is its busier direction (capped
 * at 1), ahead of the per-port lambda/mu; its switch-side U comes from the
 * uplink counters when the record has no switch_rho; a version 1 record
 * keeps the packet route; a malformed bottleneck is the record's error.
 * The job's shape (nodes per leaf) comes from the bottleneck's leaves, and
 * train's baselines are kept per shape. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "job_record.h"
#include "train_history.h"

static json_object *record(int version, const char *bottleneck)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-job-record\",\"version\":%d,\"job_id\":5,\"app\":\"a2a\","
             "\"nodes\":[\"h1\",\"h4\"],\"switches\":[\"s1\",\"s2\"],\"runtime_s\":10,"
             "\"start_unix_s\":1.7e9,\"end_unix_s\":1700000010,"
             "\"utilization\":{\"service_us\":20,\"ports\":[{\"port\":\"d1\","
             "\"lambda_packets_per_s\":2000}]}%s%s}",
             version, bottleneck ? ",\"bottleneck\":" : "", bottleneck ? bottleneck : "");
    json_object *o = json_tokener_parse(text);
    assert_non_null(o);
    return o;
}

static void own_u_is_the_busier_direction(void **state)
{
    (void)state;
    nv_train_job j;
    char app[128], err[256];
    json_object *r = record(2, "{\"u_up\":0.3,\"u_down\":0.62,\"uplink_u_up\":0.5,"
                               "\"uplink_u_down\":0.9}");
    assert_int_equal(nv_train_job_from_record(r, 0, &j, app, err, sizeof err), 0);
    assert_true(fabs(j.rho - 0.62) < 1e-12);
    assert_true(fabs(j.switch_rho - 0.9) < 1e-12);
    json_object_put(r);
    /* over 1 (a burst over the shaper's rate) is capped */
    r = record(2, "{\"u_up\":1.4,\"u_down\":0.2}");
    assert_int_equal(nv_train_job_from_record(r, 0, &j, app, err, sizeof err), 0);
    assert_true(j.rho == 1);
    assert_true(isnan(j.switch_rho));
    json_object_put(r);
}

static void without_it_the_packet_route(void **state)
{
    (void)state;
    nv_train_job j;
    char app[128], err[256];
    /* version 1, no bottleneck: lambda x 1/mu = 2000/s x 20 us */
    json_object *r = record(1, NULL);
    assert_int_equal(nv_train_job_from_record(r, 0, &j, app, err, sizeof err), 0);
    assert_true(fabs(j.rho - 0.04) < 1e-12);
    json_object_put(r);
    /* unavailable (no UplinkRate): the packet route too */
    r = record(2, "{\"u_up\":null,\"u_down\":null,\"source\":\"unavailable: x\"}");
    assert_int_equal(nv_train_job_from_record(r, 0, &j, app, err, sizeof err), 0);
    assert_true(fabs(j.rho - 0.04) < 1e-12);
    json_object_put(r);
    r = record(2, "{\"u_up\":\"busy\",\"u_down\":0.1}");
    assert_int_equal(nv_train_job_from_record(r, 0, &j, app, err, sizeof err), -1);
    assert_non_null(strstr(err, "bottleneck"));
    json_object_put(r);
}

static uint8_t shape_of(const char *leaves)
{
    char text[1024], app[128], err[256];
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-job-record\",\"version\":2,\"job_id\":6,\"app\":\"a2a\","
             "\"nodes\":[\"h1\",\"h2\",\"h3\",\"h5\"],\"switches\":[\"s1\",\"s2\",\"s3\"],"
             "\"runtime_s\":10,\"start_unix_s\":1.7e9,\"end_unix_s\":1700000010,"
             "\"bottleneck\":{\"u_up\":0.3,\"u_down\":0.3,\"leaves\":[%s]}}",
             leaves);
    json_object *r = json_tokener_parse(text);
    assert_non_null(r);
    nv_train_job j;
    assert_int_equal(nv_train_job_from_record(r, 0, &j, app, err, sizeof err), 0);
    json_object_put(r);
    return j.shape;
}

static void shape_from_the_leaves(void **state)
{
    (void)state;
    uint8_t a = shape_of("{\"nodes\":2},{\"nodes\":1},{\"nodes\":1}"),
            b = shape_of("{\"nodes\":1},{\"nodes\":2},{\"nodes\":1}"),
            c = shape_of("{\"nodes\":1},{\"nodes\":1},{\"nodes\":1},{\"nodes\":1}"),
            d = shape_of("{\"nodes\":2},{\"nodes\":2}");
    uint8_t e = shape_of("{\"nodes\":1},{\"nodes\":1},{\"nodes\":2}"),
            a2 = shape_of("{\"nodes\":2},{\"nodes\":1},{\"nodes\":1}");
    assert_true(a != 0 && b != 0 && c != 0 && d != 0 && e != 0);
    assert_int_equal(a, a2);
    /* the order of the leaves counts: the ranks follow the node list */
    assert_true(a != b && a != e && b != e);
    assert_true(a != c && a != d && c != d && b != c && b != d);
    /* what does not add up is unknown, not an error */
    assert_int_equal(shape_of("{\"nodes\":0},{\"nodes\":4}"), 0);
    assert_int_equal(shape_of("{\"nodes\":3},{\"nodes\":2}"), 0);
    assert_int_equal(shape_of("{\"nodes\":1.5},{\"nodes\":2}"), 0);
    assert_int_equal(shape_of("{\"nodes\":4}"), 0);
}

/* each shape its own baseline where one of it ran, else the node count's */
static void baselines_per_shape(void **state)
{
    (void)state;
    static const struct {
        uint8_t shape;
        double runtime_s;
    } run[] = {{7, 10}, {7, 11}, {7, 12}, {9, 20}, {9, 21}, {0, 30}};
    nv_train_set s;
    nv_train_set_init(&s);
    char err[200];
    for (size_t i = 0; i < sizeof run / sizeof run[0]; i++) {
        nv_train_job j = {.job_id = (int64_t)i + 1,
                          .nodes = 4,
                          .start_s = 1.7e9 + 100.0 * (double)i,
                          .runtime_s = run[i].runtime_s,
                          .rho = 0.3,
                          .switch_rho = NAN,
                          .shape = run[i].shape};
        j.end_s = j.start_s + j.runtime_s;
        assert_int_equal(nv_train_set_add(&s, &j, "a", 100, err, sizeof err), 0);
    }
    nv_train_opts o;
    nv_train_opts_default(&o);
    assert_int_equal(nv_train_analyze(&s, &o), 0);
    assert_float_equal(s.jobs[nv_train_find_job(&s, 1)].baseline_s, 11, 1e-12);
    assert_float_equal(s.jobs[nv_train_find_job(&s, 4)].baseline_s, 20.5, 1e-12);
    assert_float_equal(s.jobs[nv_train_find_job(&s, 5)].slowdown_pct, 100 * (21 / 20.5 - 1), 1e-9);
    /* shape unknown: the median of all six */
    assert_float_equal(s.jobs[nv_train_find_job(&s, 6)].baseline_s, 16, 1e-12);
    assert_int_equal(s.stats.baseline_runs, 6);
    nv_train_set_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_u_is_the_busier_direction),
        cmocka_unit_test(without_it_the_packet_route),
        cmocka_unit_test(shape_from_the_leaves),
        cmocka_unit_test(baselines_per_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
