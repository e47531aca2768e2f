/* test_probe_output.c - the probes' output schemas (lib/records/
 * probe_output.h): the readers the workflows use (strict about what they
 * need, one line naming the field), and writer -> reader round trips of
 * netvar-impactb and netvar-compressionb. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_json.h"
#include "probe_output.h"

static const char impactb_ok[] =
    "srun: some launcher chatter {not json}\n"
    "{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":2.5,\"stopped_by\":\"signal\",\n"
    " \"placement\":{\"nodes\":4,\"node_names\":[\"n1\",\"n2\",\"n3\",\"n4\"]},\n"
    " \"samples_us\":[5.5,6,7.25]}\n";

static void impactb_output_is_read(void **state)
{
    (void)state;
    nv_impactb_output r;
    char err[300];
    assert_int_equal(nv_impactb_parse(impactb_ok, strlen(impactb_ok), &r, err, sizeof err), 0);
    assert_int_equal(r.n_samples, 3);
    assert_true(r.samples_us[0] == 5.5 && r.samples_us[2] == 7.25);
    assert_int_equal(r.placement.nodes, 4);
    assert_int_equal(r.placement.n_node_names, 4);
    assert_string_equal(r.placement.node_names[3], "n4");
    assert_string_equal(r.stopped_by, "signal");
    assert_true(r.elapsed_s == 2.5);
    nv_impactb_output_free(&r);
    nv_impactb_output_free(&r); /* idempotent */

    struct {
        const char *text, *want;
    } bad[] = {
        {"", "no JSON object"},
        {"no json here\n", "no JSON object"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,", "incomplete or invalid"},
        {"{\"schema\":\"netvar-compressionb\",\"version\":1}", "schema"},
        {"{\"schema\":\"netvar-impactb\",\"version\":2}", "version"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1}", "placement.nodes"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1,\"placement\":{\"nodes\":2}}",
         "--samples"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1,\"placement\":{\"nodes\":2},"
         "\"samples_us\":[1,-2]}",
         "samples_us[1]"},
        {"{\"schema\":\"netvar-impactb\",\"version\":1,\"elapsed_s\":1,\"placement\":{\"nodes\":2},"
         "\"samples_us\":[1,\"x\"]}",
         "samples_us[1]"},
        {"[1,2]\n", "no JSON object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(nv_impactb_parse(bad[i].text, strlen(bad[i].text), &r, err, sizeof err),
                         -1);
        if (!strstr(err, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].want);
        assert_null(r.samples_us);
    }
}

static void compressionb_output_is_read(void **state)
{
    (void)state;
    const char ok[] = "{\"schema\":\"netvar-compressionb\",\"version\":1,\"elapsed_s\":2,"
                      "\"rounds_per_rank\":120,\"placement\":{\"nodes\":4},"
                      "\"injected_bandwidth\":{\"unit\":\"bytes/s\",\"mean_per_node\":2.5e7,"
                      "\"min_per_node\":2e7,\"max_per_node\":3e7}}";
    nv_compressionb_output r;
    char err[300];
    assert_int_equal(nv_compressionb_parse(ok, strlen(ok), &r, err, sizeof err), 0);
    assert_true(r.mean_bytes_per_s == 2.5e7 && r.min_bytes_per_s == 2e7 &&
                r.max_bytes_per_s == 3e7);
    assert_int_equal(r.placement.nodes, 4);
    assert_int_equal(r.rounds_per_rank, 120);
    nv_compressionb_output_free(&r);
    const char bad[] = "{\"schema\":\"netvar-compressionb\",\"version\":1,\"elapsed_s\":2,"
                       "\"placement\":{\"nodes\":4}}";
    assert_int_equal(nv_compressionb_parse(bad, strlen(bad), &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "injected_bandwidth"));
}

/* Serializes as the probes do (probes/probe_common.c) and reads it back
 * after some launcher chatter. */
static char *as_probe_text(json_object *o)
{
    const char *s =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t n = strlen(s) + 64;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "srun: chatter\n%s\n", s);
    return text;
}

static void impactb_round_trip(void **state)
{
    (void)state;
    char *names[] = {"n1", "n2", "n3", "n4"};
    int tpn[] = {2, 2, 1, 1}, rank_node[] = {0, 0, 1, 1, 2, 3},
        pairs[][2] = {{0, 2}, {1, 3}, {4, 5}};
    double samples[] = {7.25, 5.5, 6, 0.1, 1e3 / 3};
    nv_impactb_output w = {
        .message_bytes = 1024,
        .interval_us = 20000,
        .duration_s = 2,
        .elapsed_s = 2.0123456789,
        .exchanges_per_rank = 99,
        .samples_dropped = 3,
        .samples_discarded_responder_late = 4,
        .pairs = pairs,
        .n_pairs = 3,
        .cpu_us_per_exchange = 12.5,
        .mpi_tests_per_exchange = 0.1,
        .samples_us = samples,
        .n_samples = 5,
        .write_samples = true,
        .placement = {.source = "NETVAR_PROBE_FAKE_NODES",
                      .overridden = true,
                      .ranks = 6,
                      .nodes = 4,
                      .node_names = names,
                      .n_node_names = 4,
                      .tasks_per_node = tpn,
                      .rank_node = rank_node},
    };
    snprintf(w.stopped_by, sizeof w.stopped_by, "signal");
    snprintf(w.wait_mode, sizeof w.wait_mode, "polite");
    snprintf(w.gaps, sizeof w.gaps, "exponential");
    nv_impactb_summarize(&w);
    /* sorted in place; type-7 percentiles; sample standard deviation */
    assert_true(samples[0] == 0.1 && samples[4] == 1e3 / 3);
    assert_int_equal(w.latency.count, 5);
    assert_true(w.latency.min_us == 0.1 && w.latency.max_us == 1e3 / 3);
    assert_true(w.latency.p50_us == 6);
    assert_true(fabs(w.latency.mean_us - (0.1 + 5.5 + 6 + 7.25 + 1e3 / 3) / 5) < 1e-12);
    assert_true(w.latency.sd_us > 0);
    assert_int_equal(w.histogram.total, 5);

    json_object *o = nv_impactb_to_json(&w);
    assert_non_null(o);
    assert_true(nv_json_schema_is(o, NV_IMPACTB_SCHEMA));
    assert_string_equal(nv_json_str(o, "pairing"), NV_IMPACTB_PAIRING);
    uint64_t count = 0;
    assert_int_equal(nv_json_u64(o, "count", &count), 0);
    assert_int_equal(count, 5);
    json_object *pl = nv_json_get(o, "placement", json_type_object);
    assert_non_null(pl);
    assert_non_null(nv_json_get(o, "placement_overridden", json_type_boolean));
    json_object *hist = nv_json_get(o, "histogram", json_type_object);
    assert_int_equal(json_object_array_length(nv_json_get(hist, "edges_us", json_type_array)),
                     NV_HIST_BINS + 1);
    assert_string_equal(nv_json_str(nv_json_get(o, "latency", json_type_object), "unit"), "us");
    char *text = as_probe_text(o);
    json_object_put(o);

    nv_impactb_output r;
    char err[300] = "";
    assert_int_equal(nv_impactb_parse(text, strlen(text), &r, err, sizeof err), 0);
    free(text);
    assert_int_equal(r.message_bytes, 1024);
    assert_int_equal(r.interval_us, 20000);
    assert_true(r.duration_s == 2 && r.elapsed_s == w.elapsed_s); /* written exactly */
    assert_string_equal(r.stopped_by, "signal");
    assert_string_equal(r.wait_mode, "polite");
    assert_string_equal(r.gaps, "exponential");
    assert_int_equal(r.exchanges_per_rank, 99);
    assert_int_equal(r.samples_dropped, 3);
    assert_int_equal(r.samples_discarded_responder_late, 4);
    assert_int_equal(r.n_pairs, 3);
    assert_int_equal(r.pairs[2][0], 4);
    assert_int_equal(r.pairs[2][1], 5);
    assert_string_equal(r.placement.source, "NETVAR_PROBE_FAKE_NODES");
    assert_true(r.placement.overridden);
    assert_int_equal(r.placement.ranks, 6);
    assert_int_equal(r.placement.nodes, 4);
    assert_int_equal(r.placement.n_node_names, 4);
    assert_string_equal(r.placement.node_names[2], "n3");
    assert_memory_equal(r.placement.tasks_per_node, tpn, sizeof tpn);
    assert_memory_equal(r.placement.rank_node, rank_node, sizeof rank_node);
    assert_true(r.cpu_us_per_exchange == 12.5 && r.mpi_tests_per_exchange == 0.1);
    assert_int_equal(r.latency.count, 5);
    assert_true(r.latency.min_us == w.latency.min_us && r.latency.mean_us == w.latency.mean_us &&
                r.latency.sd_us == w.latency.sd_us && r.latency.p50_us == w.latency.p50_us &&
                r.latency.p90_us == w.latency.p90_us && r.latency.p99_us == w.latency.p99_us &&
                r.latency.max_us == w.latency.max_us);
    assert_memory_equal(&r.histogram, &w.histogram, sizeof w.histogram);
    assert_int_equal(r.n_samples, 5);
    assert_memory_equal(r.samples_us, samples, sizeof samples);
    assert_true(r.write_samples);
    /* what was read writes the same again */
    json_object *again = nv_impactb_to_json(&r), *first = nv_impactb_to_json(&w);
    assert_string_equal(json_object_to_json_string(again), json_object_to_json_string(first));
    json_object_put(again);
    json_object_put(first);
    nv_impactb_output_free(&r);
}

/* No samples: the statistics are null, the duration "until a signal" is
 * null, and without --samples the workflows' reader refuses the output. */
static void impactb_without_samples(void **state)
{
    (void)state;
    nv_impactb_output w = {.interval_us = 100000,
                           .elapsed_s = 1,
                           .placement = {.source = "MPI_COMM_TYPE_SHARED", .nodes = 2, .ranks = 2}};
    snprintf(w.stopped_by, sizeof w.stopped_by, "duration");
    nv_impactb_summarize(&w);
    assert_int_equal(w.latency.count, 0);
    assert_true(isnan(w.latency.mean_us));
    json_object *o = nv_impactb_to_json(&w);
    assert_non_null(o);
    json_object *lat = nv_json_get(o, "latency", json_type_object), *v = NULL;
    assert_true(json_object_object_get_ex(lat, "mean_us", &v) && v == NULL);
    assert_true(json_object_object_get_ex(o, "duration_s", &v) && v == NULL);
    assert_false(json_object_object_get_ex(o, "samples_us", &v));
    char err[300];
    nv_impactb_output r;
    assert_int_equal(nv_impactb_from_json(o, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "--samples"));
    /* with an empty list it reads, and the latency stays unknown */
    w.write_samples = true;
    json_object_put(o);
    o = nv_impactb_to_json(&w);
    assert_int_equal(nv_impactb_from_json(o, &r, err, sizeof err), 0);
    assert_int_equal(r.n_samples, 0);
    assert_true(r.duration_s == 0 && isnan(r.latency.mean_us));
    assert_int_equal(r.placement.n_node_names, 0);
    nv_impactb_output_free(&r);
    json_object_put(o);
}

/* The reader keeps at most NV_PROBE_MAX_NODE_NAMES names, each cut to
 * NV_PROBE_NODE_NAME_MAX - 1 characters. */
static void impactb_node_names_are_bounded(void **state)
{
    (void)state;
    enum { N = NV_PROBE_MAX_NODE_NAMES + 6 };
    char *names[N], longname[100];
    memset(longname, 'h', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    for (int i = 0; i < N; i++)
        names[i] = i == 1 ? longname : "n";
    double s = 1;
    nv_impactb_output w = {.elapsed_s = 1,
                           .samples_us = &s,
                           .n_samples = 1,
                           .write_samples = true,
                           .placement = {.nodes = N, .node_names = names, .n_node_names = N}};
    json_object *o = nv_impactb_to_json(&w);
    nv_impactb_output r;
    char err[300];
    assert_int_equal(nv_impactb_from_json(o, &r, err, sizeof err), 0);
    assert_int_equal(r.placement.nodes, N);
    assert_int_equal(r.placement.n_node_names, NV_PROBE_MAX_NODE_NAMES);
    assert_int_equal(strlen(r.placement.node_names[1]), NV_PROBE_NODE_NAME_MAX - 1);
    assert_null(r.placement.tasks_per_node); /* none written */
    nv_impactb_output_free(&r);
    json_object_put(o);
}

static void compressionb_round_trip(void **state)
{
    (void)state;
    char *names[] = {"a", "b", "c"};
    int tpn[] = {1, 1, 1}, rank_node[] = {0, 1, 2};
    double per_node[] = {1.5e7, 2.25e7, 3e7};
    nv_compressionb_output w = {
        .partners = 2,
        .messages = 10,
        .msg_bytes = 40960,
        .sleep_us = 250000 / 2.6e3,
        .have_cycles = true,
        .cycles = 250000,
        .ghz = 2.6,
        .sleep_per_round = true,
        .duration_s = 0,
        .elapsed_s = 3.5,
        .rounds_per_rank = 120,
        .bytes_sent_total = 1ull << 40,
        .placement = {.source = "MPI_COMM_TYPE_SHARED",
                      .ranks = 3,
                      .nodes = 3,
                      .node_names = names,
                      .n_node_names = 3,
                      .tasks_per_node = tpn,
                      .rank_node = rank_node},
        .per_node_bytes_per_s = per_node,
        .n_per_node = 3,
        .mean_bytes_per_s = 2.25e7,
        .min_bytes_per_s = 1.5e7,
        .max_bytes_per_s = 3e7,
    };
    snprintf(w.stopped_by, sizeof w.stopped_by, "signal");
    snprintf(w.wait_mode, sizeof w.wait_mode, "busy");
    json_object *o = nv_compressionb_to_json(&w);
    assert_non_null(o);
    assert_true(nv_json_schema_is(o, NV_COMPRESSIONB_SCHEMA));
    json_object *bw = nv_json_get(o, "injected_bandwidth", json_type_object), *v = NULL;
    assert_string_equal(nv_json_str(bw, "unit"), "bytes/s");
    assert_true(json_object_object_get_ex(o, "duration_s", &v) && v == NULL);
    assert_string_equal(nv_json_str(nv_json_get(o, "parameters", json_type_object), "sleep_at"),
                        "round");
    char *text = as_probe_text(o);
    json_object_put(o);

    nv_compressionb_output r;
    char err[300] = "";
    assert_int_equal(nv_compressionb_parse(text, strlen(text), &r, err, sizeof err), 0);
    free(text);
    assert_int_equal(r.partners, 2);
    assert_int_equal(r.messages, 10);
    assert_int_equal(r.msg_bytes, 40960);
    assert_true(r.sleep_us == w.sleep_us); /* written exactly */
    assert_true(r.have_cycles && r.cycles == 250000 && r.ghz == 2.6 && r.sleep_per_round);
    assert_true(r.duration_s == 0 && r.elapsed_s == 3.5);
    assert_string_equal(r.stopped_by, "signal");
    assert_string_equal(r.wait_mode, "busy");
    assert_int_equal(r.rounds_per_rank, 120);
    assert_true(r.bytes_sent_total == 1ull << 40);
    assert_int_equal(r.placement.nodes, 3);
    assert_string_equal(r.placement.node_names[1], "b");
    assert_memory_equal(r.placement.rank_node, rank_node, sizeof rank_node);
    assert_int_equal(r.n_per_node, 3);
    assert_memory_equal(r.per_node_bytes_per_s, per_node, sizeof per_node);
    assert_true(r.mean_bytes_per_s == 2.25e7 && r.min_bytes_per_s == 1.5e7 &&
                r.max_bytes_per_s == 3e7);
    json_object *again = nv_compressionb_to_json(&r), *first = nv_compressionb_to_json(&w);
    assert_string_equal(json_object_to_json_string(again), json_object_to_json_string(first));
    json_object_put(again);
    json_object_put(first);
    nv_compressionb_output_free(&r);
    nv_compressionb_output_free(&r); /* idempotent */

    /* B given as a sleep: no cycles, no GHz; "partner" */
    w.have_cycles = false;
    w.sleep_per_round = false;
    o = nv_compressionb_to_json(&w);
    json_object *par = nv_json_get(o, "parameters", json_type_object);
    assert_true(json_object_object_get_ex(par, "cycles", &v) && v == NULL);
    assert_true(json_object_object_get_ex(par, "ghz", &v) && v == NULL);
    assert_int_equal(nv_compressionb_from_json(o, &r, err, sizeof err), 0);
    assert_true(!r.have_cycles && !r.sleep_per_round);
    nv_compressionb_output_free(&r);
    json_object_put(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(impactb_output_is_read),
        cmocka_unit_test(compressionb_output_is_read),
        cmocka_unit_test(impactb_round_trip),
        cmocka_unit_test(impactb_without_samples),
        cmocka_unit_test(impactb_node_names_are_bounded),
        cmocka_unit_test(compressionb_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
