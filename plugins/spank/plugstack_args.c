/* plugstack_args.c - parses spank_netvar.so's key=value arguments from
 * plugstack.conf.  Unknown keys and bad values are errors that name the
 * argument; the plugin logs them and carries on with the defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "spank_state.h"

static const char *const known_keys =
    "spool, config, default_mode, allow_off, counters, blade_map, profiler, max_samples, sysfs_root";

static bool copy_value(char *dst, size_t cap, const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n >= cap)
        return false;
    memcpy(dst, v, n + 1);
    return true;
}

static bool copy_path(char *dst, size_t cap, const char *v)
{
    return v[0] == '/' && copy_value(dst, cap, v);
}

enum { GIVEN_SPOOL = 1, GIVEN_MODE = 2, GIVEN_ALLOW_OFF = 4, GIVEN_CONFIG = 8 };

static const char *apply_arg(struct nv_spank_args *a, const char *key, const char *val,
                             unsigned *given)
{
    if (!strcmp(key, "spool"))
        *given |= GIVEN_SPOOL;
    else if (!strcmp(key, "default_mode"))
        *given |= GIVEN_MODE;
    else if (!strcmp(key, "allow_off"))
        *given |= GIVEN_ALLOW_OFF;
    else if (!strcmp(key, "config"))
        *given |= GIVEN_CONFIG;
    if (!strcmp(key, "spool"))
        return copy_path(a->spool, sizeof a->spool, val) ? NULL : "needs an absolute path";
    if (!strcmp(key, "config"))
        return copy_path(a->config, sizeof a->config, val) ? NULL : "needs an absolute path";
    if (!strcmp(key, "blade_map"))
        return copy_path(a->blade_map, sizeof a->blade_map, val) ? NULL : "needs an absolute path";
    if (!strcmp(key, "profiler"))
        return copy_path(a->profiler, sizeof a->profiler, val) ? NULL : "needs an absolute path";
    if (!strcmp(key, "sysfs_root"))
        return copy_path(a->sysfs_root, sizeof a->sysfs_root, val) ? NULL
                                                                   : "needs an absolute path";
    if (!strcmp(key, "counters"))
        return copy_value(a->counters, sizeof a->counters, val) ? NULL : "is empty or too long";
    if (!strcmp(key, "default_mode")) {
        nv_mode m = nv_mode_parse(val);
        if (m == NV_MODE_UNSET)
            return "is not one of " NV_MODE_CHOICES;
        a->default_mode = m;
        return NULL;
    }
    if (!strcmp(key, "allow_off"))
        return nv_parse_bool(val, &a->allow_off) ? NULL : "is not yes or no";
    if (!strcmp(key, "max_samples")) {
        char *end;
        unsigned long n = strtoul(val, &end, 10);
        if (*val == '-' || *end || end == val || n > 100000)
            return "is not a whole number from 0 to 100000";
        a->max_samples = (unsigned)n;
        return NULL;
    }
    return "";
}

static void log_config_error(void *ctx, const char *line)
{
    if (*(bool *)ctx)
        slurm_error("netvar: %s", line);
}

int nv_spank_parse_args(int ac, char **av, struct nv_spank_args *a, bool log_errors)
{
    int errors = 0;
    unsigned given = 0;
    memset(a, 0, sizeof *a);
    snprintf(a->spool, sizeof a->spool, "/var/spool/netvar");
    snprintf(a->config, sizeof a->config, "/etc/netvar/netvar.conf");
    a->default_mode = NV_MODE_COUNTERS;
    a->allow_off = true;
    a->enabled = true;
    a->max_samples = 1024;
    for (int i = 0; i < ac; i++) {
        char key[32];
        const char *eq = strchr(av[i], '=');
        size_t klen = eq ? (size_t)(eq - av[i]) : 0;
        const char *why;
        if (!eq || klen == 0 || klen >= sizeof key) {
            why = "is not key=value";
        } else {
            memcpy(key, av[i], klen);
            key[klen] = '\0';
            why = apply_arg(a, key, eq + 1, &given);
            if (why && !*why) {
                errors++;
                if (log_errors)
                    slurm_error(
                        "netvar: plugstack.conf: unknown argument '%s' (known: %s); ignoring it",
                        key, known_keys);
                continue;
            }
        }
        if (why) {
            errors++;
            if (log_errors)
                slurm_error("netvar: plugstack.conf: argument '%s' %s; using the default", av[i],
                            why);
        }
    }
    /* netvar.conf holds the site policy; plugstack arguments override it */
    struct nv_config *conf = malloc(sizeof *conf); /* rules make it large */
    if (!conf)
        return errors;
    /* a config= the admin named must exist; the default path may be absent
     * (the defaults: said once, at slurmd start, nv_spank_slurmd_start) */
    errors += nv_config_load_opt(a->config, given & GIVEN_CONFIG, conf, log_config_error,
                                 &log_errors, &a->config_missing);
    if (!(given & GIVEN_SPOOL))
        snprintf(a->spool, sizeof a->spool, "%s", conf->spool_dir);
    if (!(given & GIVEN_MODE))
        a->default_mode = conf->default_mode;
    if (!(given & GIVEN_ALLOW_OFF))
        a->allow_off = conf->allow_off;
    a->enabled = conf->enabled;
    a->uplink_rate_Bps = conf->uplink_rate_Bps;
    a->uplinks_per_leaf = conf->uplinks_per_leaf;
    free(conf);
    return errors;
}
