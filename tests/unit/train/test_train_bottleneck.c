/* test_train_bottleneck.c - what `netvar train` reads from a job record's
 * bottleneck (version 2): the job's own U is its busier direction (capped
 * at 1), ahead of the per-port lambda/mu; its switch-side U comes from the
 * uplink counters when the record has no switch_rho; a version 1 record
 * keeps the packet route; a malformed bottleneck is the record's error. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_u_is_the_busier_direction),
        cmocka_unit_test(without_it_the_packet_route),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
