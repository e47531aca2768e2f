/* test_counters_hostcpu.c - the host CPU readers: /proc/stat's cpu line
 * (steal among its states), their percentages over a window, and a CPU
 * cgroup's throttling (v1 and v2 cpu.stat), read without following links
 * or blocking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctr_hostcpu.h"

/* a 2-CPU virtual machine's /proc/stat (kernel 6.1 layout) */
static const char STAT_A[] = "cpu  1000 10 500 8000 40 0 50 400 0 0\n"
                             "cpu0 500 5 250 4000 20 0 25 200 0 0\n"
                             "cpu1 500 5 250 4000 20 0 25 200 0 0\n"
                             "intr 123456 0 0\nctxt 99\nbtime 1795900000\n";
/* 10 s later: 2000 ticks in all: user 400, system 200, softirq 200,
 * steal 600, idle 600 */
static const char STAT_B[] = "cpu  1400 10 700 8600 40 0 250 1000 0 0\n"
                             "cpu0 600 5 350 4300 20 0 25 500 0 0\n";

static void parses_the_aggregate_line(void **state)
{
    (void)state;
    nv_hostcpu_stat s;
    char err[256] = "";
    assert_int_equal(nv_hostcpu_parse_stat(STAT_A, strlen(STAT_A), &s, err, sizeof err), 0);
    assert_int_equal(s.user, 1000);
    assert_int_equal(s.nice, 10);
    assert_int_equal(s.system, 500);
    assert_int_equal(s.idle, 8000);
    assert_int_equal(s.iowait, 40);
    assert_int_equal(s.softirq, 50);
    assert_int_equal(s.steal, 400);
    assert_true(s.have_steal);

    /* a kernel that prints four states has no steal */
    const char old[] = "cpu 10 0 5 100\n";
    assert_int_equal(nv_hostcpu_parse_stat(old, strlen(old), &s, err, sizeof err), 0);
    assert_false(s.have_steal);
    assert_int_equal(s.idle, 100);
}

static void refuses_text_without_a_cpu_line(void **state)
{
    (void)state;
    nv_hostcpu_stat s;
    char err[256] = "";
    const char per_cpu_only[] = "cpu0 1 2 3 4 5 6 7 8\nintr 1\n";
    assert_int_equal(nv_hostcpu_parse_stat(per_cpu_only, strlen(per_cpu_only), &s, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "no aggregate"));
    const char short_line[] = "cpu  1 2 x\n";
    assert_int_equal(nv_hostcpu_parse_stat(short_line, strlen(short_line), &s, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "2 numbers"));
    const char huge[] = "cpu  99999999999999999999999 1 1 1\n"; /* past 64 bits */
    assert_int_equal(nv_hostcpu_parse_stat(huge, strlen(huge), &s, err, sizeof err), -1);
    /* the text is not NUL-terminated where len ends */
    assert_int_equal(nv_hostcpu_parse_stat(STAT_A, 7, &s, err, sizeof err), -1);
}

static void percentages_over_a_window(void **state)
{
    (void)state;
    nv_hostcpu_stat a, b;
    nv_hostcpu_pct p;
    char err[256];
    assert_int_equal(nv_hostcpu_parse_stat(STAT_A, strlen(STAT_A), &a, err, sizeof err), 0);
    assert_int_equal(nv_hostcpu_parse_stat(STAT_B, strlen(STAT_B), &b, err, sizeof err), 0);
    assert_int_equal(nv_hostcpu_delta(&a, &b, &p), 0);
    assert_int_equal(p.ticks, 2000);
    assert_true(p.steal > 29.99 && p.steal < 30.01);    /* 600 of 2000 */
    assert_true(p.idle > 29.99 && p.idle < 30.01);      /* 600 */
    assert_true(p.user > 19.99 && p.user < 20.01);      /* 400 */
    assert_true(p.softirq > 9.99 && p.softirq < 10.01); /* 200 */
    assert_true(p.system > 9.99 && p.system < 10.01);   /* 200 */
    assert_true(p.busy > 69.99 && p.busy < 70.01);      /* all but idle */
    double sum = p.user + p.system + p.irq + p.softirq + p.steal + p.iowait + p.idle;
    assert_true(sum > 99.99 && sum < 100.01);

    /* no tick passed: no percentages */
    assert_int_equal(nv_hostcpu_delta(&a, &a, &p), -1);
    /* a counter that went backwards counts as 0, not as 2^64 */
    b = a;
    b.steal = 0;
    b.idle += 100;
    assert_int_equal(nv_hostcpu_delta(&a, &b, &p), 0);
    assert_true(p.steal == 0 && p.idle > 99.99);
}

static void cgroup_v1_and_v2(void **state)
{
    (void)state;
    nv_cgcpu_stat c;
    char err[256] = "";
    const char v1[] = "nr_periods 1500\nnr_throttled 120\nthrottled_time 345678901\n";
    assert_int_equal(nv_cgcpu_parse(v1, strlen(v1), &c, err, sizeof err), 0);
    assert_int_equal(c.periods, 1500);
    assert_int_equal(c.throttled_periods, 120);
    assert_int_equal(c.throttled_us, 345678); /* ns to us */
    const char v2[] = "usage_usec 9000\nuser_usec 6000\nsystem_usec 3000\nnr_periods 40\n"
                      "nr_throttled 3\nthrottled_usec 2500\nnr_bursts 0\nburst_usec 0\n";
    assert_int_equal(nv_cgcpu_parse(v2, strlen(v2), &c, err, sizeof err), 0);
    assert_int_equal(c.periods, 40);
    assert_int_equal(c.throttled_periods, 3);
    assert_int_equal(c.throttled_us, 2500);
    /* no quota counters (a cgroup without the cpu controller's bandwidth) */
    const char none[] = "usage_usec 9000\nuser_usec 6000\n";
    assert_int_equal(nv_cgcpu_parse(none, strlen(none), &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "nr_periods"));
    const char bad[] = "nr_periods 1\nnr_throttled 1x\nthrottled_time 5\n";
    assert_int_equal(nv_cgcpu_parse(bad, strlen(bad), &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "nr_throttled"));
}

static void reads_a_node_cgroup_without_following_links(void **state)
{
    (void)state;
    char dir[] = "/tmp/nv-hostcpu-XXXXXX", p[256], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/h1", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/h1/cpu.stat", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("nr_periods 10\nnr_throttled 2\nthrottled_time 7000000\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/h2", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/h2/cpu.stat", dir);
    assert_int_equal(symlink("../h1/cpu.stat", p), 0);
    snprintf(p, sizeof p, "%s/h3", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/h3/cpu.stat", dir);
    assert_int_equal(mkfifo(p, 0644), 0);

    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    nv_cgcpu_stat c;
    assert_int_equal(nv_cgcpu_read_at(fd, "h1", &c, err, sizeof err), 0);
    assert_int_equal(c.throttled_us, 7000);
    assert_int_equal(nv_cgcpu_read_at(fd, "h2", &c, err, sizeof err), -1); /* a link */
    assert_non_null(strstr(err, "h2/cpu.stat"));
    assert_int_equal(nv_cgcpu_read_at(fd, "h3", &c, err, sizeof err), -1); /* a FIFO: no block */
    assert_non_null(strstr(err, "not a regular file"));
    assert_int_equal(nv_cgcpu_read_at(fd, "..", &c, err, sizeof err), -1);
    assert_int_equal(nv_cgcpu_read_at(fd, "h1/../h1", &c, err, sizeof err), -1);
    assert_int_equal(nv_cgcpu_read_at(fd, "", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "plain path component"));
    close(fd);

    nv_hostcpu_stat s;
    assert_int_equal(nv_hostcpu_read_stat(NULL, &s, err, sizeof err), 0); /* this machine's */
    assert_true(s.user + s.system + s.idle > 0);
    assert_int_equal(nv_hostcpu_read_stat(p, &s, err, sizeof err), -1); /* the FIFO */

    for (int i = 1; i <= 3; i++) {
        snprintf(p, sizeof p, "%s/h%d/cpu.stat", dir, i);
        unlink(p);
        snprintf(p, sizeof p, "%s/h%d", dir, i);
        rmdir(p);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_the_aggregate_line),
        cmocka_unit_test(refuses_text_without_a_cpu_line),
        cmocka_unit_test(percentages_over_a_window),
        cmocka_unit_test(cgroup_v1_and_v2),
        cmocka_unit_test(reads_a_node_cgroup_without_following_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
