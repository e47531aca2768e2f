/* test_line_rate.c - port line rates read from fixture sysfs trees
 * with the kernel's file names and units (speed in Mb/s, IB rate text). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctr_line_rate.h"

static char root_netdev[4200], root_ib[4200], root_cxi[4200];

static int setup(void **state)
{
    (void)state;
    const char *r = getenv("ROOT");
    char base[4096];
    if (r)
        snprintf(base, sizeof base, "%s/tests/fixtures/sysfs", r);
    else if (access("tests/fixtures/sysfs", R_OK) == 0)
        snprintf(base, sizeof base, "tests/fixtures/sysfs");
    else
        return -1;
    snprintf(root_netdev, sizeof root_netdev, "%s/netdev", base);
    snprintf(root_ib, sizeof root_ib, "%s/infiniband", base);
    snprintf(root_cxi, sizeof root_cxi, "%s/cxi", base);
    return 0;
}

static void netdev_speed_is_megabits(void **state)
{
    (void)state;
    /* 10000 Mb/s = 1.25e9 bytes/s */
    assert_true(fabs(nv_ctr_port_line_rate(root_netdev, "netdev", "eth0") - 1.25e9) < 1);
    assert_true(isnan(nv_ctr_port_line_rate(root_netdev, "netdev", "eth1"))); /* "-1": unknown */
    assert_true(isnan(nv_ctr_port_line_rate(root_netdev, "netdev", "lo")));   /* no file */
}

static void infiniband_rate_text(void **state)
{
    (void)state;
    /* "100 Gb/sec (4X EDR)" = 12.5e9 bytes/s */
    assert_true(fabs(nv_ctr_port_line_rate(root_ib, "infiniband", "mlx5_0/1") - 12.5e9) < 1);
    assert_true(isnan(nv_ctr_port_line_rate(root_ib, "infiniband", "mlx5_0")));
}

/* a Slingshot NIC: its Ethernet function's speed (device/net/hsn0/speed) */
static void cxi_rate_from_its_netdev(void **state)
{
    (void)state;
    assert_true(fabs(nv_ctr_port_line_rate(root_cxi, "cxi", "cxi0") - 25e9) < 1); /* 200 Gb/s */
    assert_true(isnan(nv_ctr_port_line_rate(root_cxi, "cxi", "cxi1"))); /* no net function */
    assert_true(isnan(nv_ctr_port_line_rate(root_cxi, "cxi", "cxi0/x")));
}

static void hostile_names_are_refused(void **state)
{
    (void)state;
    assert_true(isnan(nv_ctr_port_line_rate(root_netdev, "netdev", "../../../etc/passwd")));
    assert_true(isnan(nv_ctr_port_line_rate(root_netdev, "netdev", "")));
    assert_true(isnan(nv_ctr_port_line_rate(root_netdev, "papi", "eth0")));
    assert_true(isnan(nv_ctr_port_line_rate(root_netdev, NULL, "eth0")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(netdev_speed_is_megabits),
        cmocka_unit_test(infiniband_rate_text),
        cmocka_unit_test(cxi_rate_from_its_netdev),
        cmocka_unit_test(hostile_names_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
