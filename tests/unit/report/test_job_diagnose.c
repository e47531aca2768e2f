/* test_job_diagnose.c - nv_job_diagnose() on node records written here on
 * a two-leaf topology ("Congestion diagnosis", case A in miniature: every
 * node sends to n0, whose link is congested near line rate): the cause, the
 * root, the records and nodes read, a record skipped, windows, the mapping
 * metrics from a traffic-matrix file and from the segment profiler's
 * profiles, and the refusals (no topology, a node outside it, no counters,
 * no records). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "job_diagnose.h"
#include "nv_test.h"

struct fx {
    char root[64], spool[96], topo[96];
    char log[2048];
};

static void mkjob(struct fx *f, int job)
{
    char dir[160];
    snprintf(dir, sizeof dir, "%s/jobs/%d", f->spool, job);
    assert_int_equal(mkdir(dir, 0755), 0);
}

static void jobfile(struct fx *f, int job, const char *name, const char *text)
{
    char dir[160];
    snprintf(dir, sizeof dir, "%s/jobs/%d", f->spool, job);
    assert_int_equal(nv_test_write_file(dir, name, text), 0);
}

/* one InfiniBand port, whole job of 2 s */
static void delta_json(char *out, size_t n, double in, double outb, double stall)
{
    snprintf(
        out, n,
        "{\"backend\":\"infiniband\",\"dt_ns\":2000000000,\"ports\":[{\"name\":\"mlx5_0/1\","
        "\"kind\":\"ib_port\",\"fields\":{\"bytes_in\":{\"value\":%.0f,\"unit\":\"bytes\"},"
        "\"bytes_out\":{\"value\":%.0f,\"unit\":\"bytes\"},\"stall\":{\"value\":%.0f,\"unit\":\"ticks\"}}}]}",
        in, outb, stall);
}

static void node_record(struct fx *f, int job, const char *node, double in, double outb,
                        double stall)
{
    char d[1024], text[1400], name[64];
    delta_json(d, sizeof d, in, outb, stall);
    snprintf(text, sizeof text,
             "{\"schema\":\"netvar-node-record\",\"version\":1,\"job_id\":%d,\"node\":\"%s\","
             "\"start_unix_s\":100,\"end_unix_s\":102,\"delta\":%s}",
             job, node, d);
    snprintf(name, sizeof name, "node-%s.json", node);
    jobfile(f, job, name, text);
}

static void log_line(void *ctx, const char *line)
{
    struct fx *f = ctx;
    strncat(f->log, line, sizeof f->log - strlen(f->log) - 2);
    strcat(f->log, "\n");
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(nv_test_tmpdir(f->root, sizeof f->root, "job-diagnose"), 0);
    snprintf(f->spool, sizeof f->spool, "%s/spool", f->root);
    snprintf(f->topo, sizeof f->topo, "%s/topology.conf", f->root);
    assert_int_equal(mkdir(f->spool, 0755), 0);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/jobs", f->spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(
        nv_test_write_file(f->root, "topology.conf",
                           "SwitchName=leaf0 Nodes=n[0-1]\nSwitchName=leaf1 Nodes=n[2-3]\n"
                           "SwitchName=top Switches=leaf[0-1]\n"),
        0);
    /* job 7: many-to-one into n0 at 92.6 % of 100 Gb/s */
    mkjob(f, 7);
    node_record(f, 7, "n0", 23150000000, 1000000, 23103700000);
    node_record(f, 7, "n1", 1000000, 7716666666, 6500000000);
    node_record(f, 7, "n2", 1000000, 7716666666, 6500000000);
    node_record(f, 7, "n3", 1000000, 7716666666, 6500000000);
    jobfile(f, 7, "node-n4.json", "{broken");                   /* skipped, one log line */
    jobfile(f, 7, "notes.json", "{\"not\":\"a node record\"}"); /* not read */
    /* job 8: a node outside the topology */
    mkjob(f, 8);
    node_record(f, 8, "n9", 1, 1, 1);
    /* job 9: a record without counters */
    mkjob(f, 9);
    jobfile(f, 9, "node-n1.json",
            "{\"schema\":\"netvar-node-record\",\"node\":\"n1\",\"counter_source\":\"none\"}");
    /* job 10: no node records */
    mkjob(f, 10);
    /* job 11: two --netvar-interval windows on n1, with the profiler's matrix */
    mkjob(f, 11);
    char d1[1024], d2[1024], text[3000];
    delta_json(d1, sizeof d1, 1000000, 5000000000, 10);
    delta_json(d2, sizeof d2, 1000000, 6000000000, 20);
    snprintf(
        text, sizeof text,
        "{\"schema\":\"netvar-node-record\",\"node\":\"n1\",\"line_rate_Bps\":{\"mlx5_0/1\":12500000000},"
        "\"samples\":{\"windows\":[{\"delta\":%s},{\"delta\":%s}]}}",
        d1, d2);
    jobfile(f, 11, "node-n1.json", text);
    snprintf(dir, sizeof dir, "%s/jobs/11/profiles", f->spool);
    assert_int_equal(mkdir(dir, 0755), 0);
    jobfile(f, 11, "profiles/big.json",
            "{\"placement\":[\"n0\",\"n1\",\"n2\",\"n3\"],\"traffic_matrix\":{\"bytes\":"
            "[[0,5,5,5],[5,0,5,5],[5,5,0,5],[5,5,5,0]]}}");
    jobfile(f, 11, "profiles/small.json",
            "{\"placement\":[\"n0\",\"n1\"],\"traffic_matrix\":{\"bytes\":[[0,1],[1,0]]}}");
    jobfile(f, 11, "profiles/none.json", "{\"format\":\"netvar-segment-profile\"}");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    assert_int_equal(nv_test_rmtree(f->root), 0);
    free(f);
    return 0;
}

static void opts(struct fx *f, nv_job_diagnose_opts *o)
{
    nv_job_diagnose_opts_default(o);
    o->topology = f->topo;
    o->node_Bps = 100e9 / 8;
    f->log[0] = 0;
}

static void many_to_one_is_a_communication_pattern(void **state)
{
    struct fx *f = *state;
    nv_job_diagnose_opts o;
    opts(f, &o);
    nv_job_diagnosis d;
    char err[1200];
    assert_int_equal(nv_job_diagnose(f->spool, 7, &o, log_line, f, &d, err, sizeof err), 0);
    assert_int_equal(d.job_id, 7);
    assert_int_equal(d.records, 4);
    assert_int_equal(d.n_nodes, 4);
    assert_int_equal(d.n_ports, 4);
    assert_int_equal(d.dg.n_windows, 1);
    assert_int_equal(d.dg.windows_judged, 1);
    assert_int_equal(d.dg.cause, NV_CAUSE_PATTERN);
    assert_true(d.dg.root >= 0);
    const nv_diag_port *root = &d.ports[d.dg.root];
    assert_string_equal(root->name, "n0:mlx5_0/1");
    assert_string_equal(root->sw, "leaf0");
    assert_int_equal(root->kind, NV_LINK_ENDPOINT);
    assert_float_equal(root->traffic_bytes, 23150000000.0, 0.5);
    assert_float_equal(root->line_rate_Bps, 100e9 / 8, 1);
    assert_float_equal(d.dg.per_port[d.dg.root].utilization, 0.926, 1e-9);
    assert_int_equal(d.dg.per_port[d.dg.root].congested, 1);
    int seen_n0 = 0;
    for (size_t i = 0; i < d.n_nodes; i++)
        seen_n0 |= !strcmp(d.nodes[i], "n0");
    assert_true(seen_n0);
    /* the broken record: one log line, skipped */
    assert_non_null(strstr(f->log, "node-n4.json"));
    assert_non_null(strstr(f->log, "skipped it"));
    /* no matrix anywhere: no mapping, and the note says so */
    assert_false(d.has_mapping);
    assert_non_null(strstr(d.mapping_note, "no traffic matrix recorded"));
    nv_job_diagnosis_free(&d);
}

static void mapping_from_a_traffic_matrix_file(void **state)
{
    struct fx *f = *state;
    char path[160];
    snprintf(path, sizeof path, "%s/tm.json", f->root);
    assert_int_equal(nv_test_write_file(f->root, "tm.json",
                                        "{\"ranks\":[\"n0\",\"n1\",\"n2\",\"n3\"],"
                                        "\"bytes\":[[0,0,0,0],[1,0,0,0],[1,0,0,0],[1,0,0,0]]}"),
                     0);
    nv_job_diagnose_opts o;
    opts(f, &o);
    o.traffic_matrix = path;
    nv_job_diagnosis d;
    char err[1200];
    assert_int_equal(nv_job_diagnose(f->spool, 7, &o, NULL, NULL, &d, err, sizeof err), 0);
    /* n1 -> n0: 2 links; n2, n3 -> n0 across leaves: 4 links each */
    assert_true(d.has_mapping);
    assert_float_equal(d.mapping.total_bytes, 3, 0);
    assert_float_equal(d.mapping.hop_bytes, 10, 0);
    assert_float_equal(d.mapping.worst_link_bytes, 3, 0);
    assert_non_null(strstr(d.mapping_note, "tm.json"));
    nv_job_diagnosis_free(&d);
    /* a rank outside the topology: no metrics, the reason in the note */
    assert_int_equal(nv_test_write_file(f->root, "tm.json",
                                        "{\"ranks\":[\"n0\",\"n7\"],\"bytes\":[[0,0],[1,0]]}"),
                     0);
    assert_int_equal(nv_job_diagnose(f->spool, 7, &o, NULL, NULL, &d, err, sizeof err), 0);
    assert_false(d.has_mapping);
    assert_non_null(strstr(d.mapping_note, "not in the topology"));
    nv_job_diagnosis_free(&d);
}

static void windows_and_the_profilers_matrix(void **state)
{
    struct fx *f = *state;
    nv_job_diagnose_opts o;
    opts(f, &o);
    o.node_Bps = NAN; /* the rate the node recorded answers */
    nv_job_diagnosis d;
    char err[1200];
    assert_int_equal(nv_job_diagnose(f->spool, 11, &o, NULL, NULL, &d, err, sizeof err), 0);
    assert_int_equal(d.records, 1);
    assert_int_equal(d.n_ports, 2);
    assert_int_equal(d.dg.n_windows, 2);
    assert_int_equal(d.ports[0].window, 0);
    assert_int_equal(d.ports[1].window, 1);
    assert_float_equal(d.ports[1].traffic_bytes, 6000000000.0, 0.5);
    assert_float_equal(d.ports[0].line_rate_Bps, 12500000000.0, 1);
    /* the profile with the most bytes stands for the job */
    assert_true(d.has_mapping);
    assert_float_equal(d.mapping.total_bytes, 60, 0);
    assert_non_null(strstr(d.mapping_note, "big.json"));
    assert_non_null(strstr(d.mapping_note, "segment profiler"));
    nv_job_diagnosis_free(&d);
}

static void refusals(void **state)
{
    struct fx *f = *state;
    nv_job_diagnose_opts o;
    opts(f, &o);
    nv_job_diagnosis d;
    char err[1200];
    assert_int_equal(nv_job_diagnose(f->spool, 8, &o, NULL, NULL, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "not in the topology"));
    nv_job_diagnosis_free(&d);
    assert_int_equal(nv_job_diagnose(f->spool, 9, &o, NULL, NULL, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "no node record holds counters"));
    nv_job_diagnosis_free(&d);
    assert_int_equal(nv_job_diagnose(f->spool, 10, &o, NULL, NULL, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "no node records"));
    nv_job_diagnosis_free(&d);
    assert_int_equal(nv_job_diagnose(f->spool, 12, &o, NULL, NULL, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open the job's records"));
    nv_job_diagnosis_free(&d);
    o.topology = NULL;
    assert_int_equal(nv_job_diagnose(f->spool, 7, &o, NULL, NULL, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "no topology"));
    nv_job_diagnosis_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_to_one_is_a_communication_pattern),
        cmocka_unit_test(mapping_from_a_traffic_matrix_file),
        cmocka_unit_test(windows_and_the_profilers_matrix),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
