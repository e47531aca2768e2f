/* test_config_uplink.c - netvar.conf's UplinkRate= and UplinksPerLeaf=:
 * rates with their units to bytes/s, bare numbers and unknown units
 * refused with one line naming the key, the range, the defaults. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"

struct errors {
    int n;
    char line[4][512];
};

static void capture(void *ctx, const char *line)
{
    struct errors *e = ctx;
    if (e->n < 4)
        snprintf(e->line[e->n], sizeof e->line[0], "%s", line);
    e->n++;
}

static void rates_with_units(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double Bps;
    } ok[] = {{"10Gbit/s", 1.25e9}, {"100mbit", 12.5e6}, {"1.25GB/s", 1.25e9},
              {"8 kbit", 1000},     {"40b/s", 5},        {"100Tbit/s", 12.5e12}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double r = -1;
        if (!nv_config_parse_rate(ok[i].text, &r) || fabs(r - ok[i].Bps) > 1e-6 * ok[i].Bps)
            fail_msg("'%s': %g bytes/s, want %g", ok[i].text, r, ok[i].Bps);
    }
    static const char *const bad[] = {"10",     "10G",     "10mbps", "1e9bit",  "-5Gbit/s",
                                      "0bit/s", "200Tbit", "Gbit/s", "0x10bit", "1.2.3bit"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double r = 7;
        if (nv_config_parse_rate(bad[i], &r) || r != 7)
            fail_msg("'%s' accepted as %g bytes/s", bad[i], r);
    }
}

static void keys_in_the_file(void **state)
{
    (void)state;
    struct nv_config *c = malloc(sizeof *c);
    struct errors e = {0};
    assert_int_equal(nv_config_parse("t.conf", "", c, capture, &e), 0);
    assert_true(c->uplink_rate_Bps == 0);
    assert_int_equal(c->uplinks_per_leaf, 1);
    assert_int_equal(
        nv_config_parse("t.conf", "UplinkRate=10Gbit/s\nUplinksPerLeaf=4\n", c, capture, &e), 0);
    assert_true(c->uplink_rate_Bps == 1.25e9);
    assert_int_equal(c->uplinks_per_leaf, 4);
    assert_int_equal(nv_config_parse("t.conf",
                                     "UplinkRate=10\nUplinksPerLeaf=0\nUplinkRate=1Gbit\n", c,
                                     capture, &e),
                     3);
    assert_non_null(strstr(e.line[0], "t.conf:1: UplinkRate=10: not a rate with its unit"));
    assert_non_null(strstr(e.line[1], "t.conf:2: UplinksPerLeaf=0: not 1..4096"));
    assert_non_null(strstr(e.line[2], "t.conf:3: UplinkRate given again"));
    assert_true(c->uplink_rate_Bps == 0); /* unset: records carry no bottleneck U */
    assert_int_equal(c->uplinks_per_leaf, 1);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rates_with_units),
        cmocka_unit_test(keys_in_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
