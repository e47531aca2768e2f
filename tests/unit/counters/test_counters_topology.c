/* test_counters_topology.c - host-range expansion, the blade map and Slurm
 * topology.conf parsers, and the one-reader-per-blade decision. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "counters_topology.h"
#include "nv_test.h"

static void expands_ranges_padding_and_lists(void **state)
{
    (void)state;
    char **v;
    char err[256];
    long n = nv_hostlist_expand("n[1-3,7],gpu[08-10]x,login", &v, 0, err, sizeof err);
    assert_int_equal(n, 8);
    const char *want[] = {"n1", "n2", "n3", "n7", "gpu08x", "gpu09x", "gpu10x", "login"};
    for (int i = 0; i < 8; i++)
        assert_string_equal(v[i], want[i]);
    nv_hostlist_free(v, (size_t)n);

    n = nv_hostlist_expand("r[1-2]n[1-2]", &v, 0, err, sizeof err);
    assert_int_equal(n, 4);
    assert_string_equal(v[0], "r1n1");
    assert_string_equal(v[3], "r2n2");
    nv_hostlist_free(v, (size_t)n);
}

static void rejects_bad_host_lists(void **state)
{
    (void)state;
    char **v;
    char err[256];
    assert_int_equal(nv_hostlist_expand("n[1-3", &v, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "without ']'"));
    assert_int_equal(nv_hostlist_expand("n[5-2]", &v, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "reversed"));
    assert_int_equal(nv_hostlist_expand("n[a-b]", &v, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad range"));
    assert_int_equal(nv_hostlist_expand("n[1-100000]", &v, 1000, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1000"));
    assert_int_equal(nv_hostlist_expand("n;rm", &v, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "not allowed"));
}

static void parses_blade_map(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256] = "";
    const char *text = "# Aries-like: 4 nodes per blade\n"
                       "n1 blade=b0 switch=s1 group=g0\n"
                       "n[2-4] blade=b0 switch=s1 group=g0   # same blade\n"
                       "\n"
                       "n[5-6] blade=b1 switch=s1\n";
    assert_int_equal(nv_topo_parse_map(&t, text, "map.txt", err, sizeof err), 0);
    assert_int_equal(t.n, 6);
    const nv_topo_node *n3 = nv_topo_find(&t, "n3");
    assert_non_null(n3);
    assert_string_equal(n3->blade, "b0");
    assert_string_equal(n3->sw, "s1");
    assert_string_equal(n3->group, "g0");
    assert_string_equal(nv_topo_blade_of(&t, "n6"), "b1");
    assert_string_equal(nv_topo_blade_of(&t, "stranger"), "stranger");
    assert_string_equal(nv_topo_find(&t, "n5")->group, "");
    nv_topo_free(&t);
}

static void blade_map_errors_name_the_line(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256] = "";
    assert_int_equal(
        nv_topo_parse_map(&t, "n1 blade=b0\nn2 colour=red\n", "map.txt", err, sizeof err), -1);
    assert_non_null(strstr(err, "map.txt:2: unknown key 'colour'"));
    assert_int_equal(t.n, 1); /* the good line before it is kept */
    assert_int_equal(nv_topo_parse_map(&t, "n3 blade\n", "m2", err, sizeof err), -1);
    assert_non_null(strstr(err, "m2:1: 'blade' is not key=value"));
    assert_int_equal(nv_topo_parse_map(&t, "n3 blade=b;x\n", "m3", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad value"));
    nv_topo_free(&t);
}

static void parses_slurm_topology_conf(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256] = "";
    const char *text = "# two leaves under one spine\n"
                       "SwitchName=s1 Nodes=n[1-2] LinkSpeed=100\n"
                       "SwitchName=s2 Nodes=n[3-4]\n"
                       "SwitchName=spine Switches=s[1-2]\n";
    assert_int_equal(nv_topo_parse_slurm(&t, text, "topology.conf", err, sizeof err), 0);
    assert_int_equal(t.n, 4);
    assert_string_equal(nv_topo_find(&t, "n2")->sw, "s1");
    assert_string_equal(nv_topo_find(&t, "n3")->sw, "s2");
    assert_string_equal(nv_topo_find(&t, "n4")->group, "spine");
    assert_string_equal(nv_topo_find(&t, "n4")->blade, "");
    assert_int_equal(nv_topo_parse_slurm(&t, "Nodes=n9\n", "bad.conf", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad.conf:1: line without SwitchName"));
    nv_topo_free(&t);
}

static void map_and_topology_combine(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256] = "";
    assert_int_equal(nv_topo_parse_map(&t, "n[1-2] blade=b0 group=g7\n", "m", err, sizeof err), 0);
    assert_int_equal(nv_topo_parse_slurm(&t,
                                         "SwitchName=s1 Nodes=n[1-3]\nSwitchName=top Switches=s1\n",
                                         "t", err, sizeof err),
                     0);
    assert_string_equal(nv_topo_find(&t, "n1")->sw, "s1");
    assert_string_equal(nv_topo_find(&t, "n1")->group, "g7"); /* the map wins */
    assert_string_equal(nv_topo_find(&t, "n3")->group, "top");
    nv_topo_free(&t);
}

static void one_reader_per_blade(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256] = "";
    assert_int_equal(
        nv_topo_parse_map(&t, "n[1-4] blade=b0\nn[5-8] blade=b1\n", "m", err, sizeof err), 0);
    const char *job[] = {"n3", "n2", "n6", "n7", "n9"};
    size_t nj = 5;
    /* b0: n2 and n3 in the job -> n2 reads; b1: n6 reads; n9 is its own blade */
    assert_true(nv_topo_is_blade_reader(&t, "n2", job, nj));
    assert_false(nv_topo_is_blade_reader(&t, "n3", job, nj));
    assert_true(nv_topo_is_blade_reader(&t, "n6", job, nj));
    assert_false(nv_topo_is_blade_reader(&t, "n7", job, nj));
    assert_true(nv_topo_is_blade_reader(&t, "n9", job, nj));
    assert_false(nv_topo_is_blade_reader(&t, "n1", job, nj)); /* not in the job */
    /* exactly one reader per blade among the job's nodes */
    int readers = 0;
    for (size_t i = 0; i < nj; i++)
        readers += nv_topo_is_blade_reader(&t, job[i], job, nj);
    assert_int_equal(readers, 3);
    nv_topo_free(&t);
}

static void loads_files_and_reports_missing(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char err[256] = "";
    assert_int_equal(nv_topo_load_file(&t, "/nonexistent/netvar-topo", false, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/netvar-topo: cannot open"));
    char path[] = "/tmp/nvtopo.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "SwitchName=s1 Nodes=a[1-2]\n");
    fclose(f);
    assert_int_equal(nv_topo_load_file(&t, path, true, err, sizeof err), 0);
    assert_int_equal(t.n, 2);
    remove(path);
    nv_topo_free(&t);
}

/* the admin's topology or blade map is a FIFO or /dev/zero: refused at once
 * (fopen blocked on the FIFO, and read /dev/zero up to 16 MiB) */
static void a_fifo_or_device_is_refused_without_blocking(void **state)
{
    (void)state;
    nv_topo t;
    nv_topo_init(&t);
    char dir[256], path[300], err[512] = "";
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "topo"), 0);
    snprintf(path, sizeof path, "%s/topology.conf", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10); /* a blocking open fails the test instead of hanging it */
    assert_int_equal(nv_topo_load_file(&t, path, true, err, sizeof err), -1);
    char want[400];
    snprintf(want, sizeof want, "%s: a FIFO; not read; no topology loaded", path);
    assert_string_equal(err, want);
    assert_int_equal(nv_topo_load_file(&t, "/dev/zero", false, err, sizeof err), -1);
    assert_string_equal(err, "/dev/zero: a device; not read; no topology loaded");
    alarm(0);
    assert_int_equal(nv_test_write_file(dir, "map", "n1 b0\n\n"), 0);
    snprintf(path, sizeof path, "%s/map", dir);
    FILE *f = fopen(path, "a");
    fputc(0, f);
    fclose(f);
    assert_int_equal(nv_topo_load_file(&t, path, false, err, sizeof err), -1);
    assert_non_null(strstr(err, "a NUL byte at offset 7: not a text file; no topology loaded"));
    assert_int_equal(t.n, 0);
    nv_topo_free(&t);
    assert_int_equal(nv_test_rmtree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_ranges_padding_and_lists),
        cmocka_unit_test(rejects_bad_host_lists),
        cmocka_unit_test(parses_blade_map),
        cmocka_unit_test(a_fifo_or_device_is_refused_without_blocking),
        cmocka_unit_test(blade_map_errors_name_the_line),
        cmocka_unit_test(parses_slurm_topology_conf),
        cmocka_unit_test(map_and_topology_combine),
        cmocka_unit_test(one_reader_per_blade),
        cmocka_unit_test(loads_files_and_reports_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
