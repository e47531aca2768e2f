/* verb_config_check.c - `netvar config-check FILE`: the same validation of
 * netvar.conf that both plugins run at load, for admins before a restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "verbs.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: netvar config-check [FILE]\n"
            "\n"
            "Validates netvar.conf exactly as job_submit/netvar and spank_netvar do\n"
            "when they load it, and prints one line per problem as FILE:LINE: reason\n"
            "(unknown keys, bad values, rules that can match nothing, contradictory\n"
            "actions such as deny with resize, rules never reached after a catch-all).\n"
            "With no problems it prints a summary of the effective settings and rules.\n"
            "FILE defaults to $NETVAR_CONF, then /etc/netvar/netvar.conf.\n"
            "\n"
            "Exit status: 0 valid, 1 problems found or file unreadable, 2 bad usage.\n"
            "Example: netvar config-check /etc/netvar/netvar.conf\n");
}

static void print_error(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
}

int verb_config_check(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
        usage(stderr);
        return 2;
    }
    const char *path = argc == 2 ? argv[1] : getenv("NETVAR_CONF");
    if (!path)
        path = "/etc/netvar/netvar.conf";
    static struct nv_config c;
    int errors = nv_config_load(path, &c, print_error, NULL);
    if (errors) {
        printf("%s: %d problem%s\n", path, errors, errors == 1 ? "" : "s");
        return 1;
    }
    printf("%s: valid\n", path);
    printf("  ModelFile=%s\n  SpoolDir=%s\n  DefaultMode=%s AllowOff=%s Predictor=%s "
           "MinPairSamples=%u\n  InterferenceThreshold=%g %%  ContainWaitSeconds=%u s  "
           "MaxNeighbourApps=%u\n",
           c.model_file, c.spool_dir, nv_mode_name(c.default_mode), c.allow_off ? "yes" : "no",
           c.predictor, c.min_pair_samples, c.interference_pct, c.contain_wait_s,
           c.max_neighbour_apps);
    for (int i = 0; i < c.policy.n; i++) {
        char acts[128];
        nv_actions_format(c.policy.rule[i].actions, acts, sizeof acts);
        printf("  rule %d (line %d) %s: %s\n", i + 1, c.policy.rule[i].line, c.policy.rule[i].name,
               acts);
    }
    return 0;
}
