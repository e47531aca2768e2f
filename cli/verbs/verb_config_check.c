/* verb_config_check.c - `netvar config-check FILE`: the same validation of
 * netvar.conf that both plugins run at load, for admins before a restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "args.h"
#include "config.h"
#include "nv_json.h"
#include "opts.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar config-check [FILE] [--json]\n"
    "\n"
    "Validates netvar.conf exactly as job_submit/netvar and spank_netvar do\n"
    "when they load it, and prints one line per problem as FILE:LINE: reason\n"
    "(unknown keys, bad values, rules that can match nothing, contradictory\n"
    "actions such as deny with resize, rules never reached after a catch-all).\n"
    "With no problems it prints a summary of the effective settings and rules.\n"
    "FILE defaults to $NETVAR_CONF, then /etc/netvar/netvar.conf.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Exit status: 0 valid, 1 problems found or file unreadable, 2 bad usage.\n"
    "Example: netvar config-check /etc/netvar/netvar.conf\n";

static void print_error(void *ctx, const char *line)
{
    json_object *problems = ctx;
    if (problems)
        json_object_array_add(problems, json_object_new_string(line));
    else
        printf("%s\n", line);
}

static json_object *config_json(const char *path, const struct nv_config *c, int errors,
                                json_object *problems)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "file", json_object_new_string(path));
    json_object_object_add(o, "valid", json_object_new_boolean(errors == 0));
    json_object_object_add(o, "problems", json_object_get(problems));
    if (errors)
        return o;
    json_object *st = json_object_new_object();
    json_object_object_add(st, "model_file", json_object_new_string(c->model_file));
    json_object_object_add(st, "spool_dir", json_object_new_string(c->spool_dir));
    json_object_object_add(st, "default_mode",
                           json_object_new_string(nv_mode_name(c->default_mode)));
    json_object_object_add(st, "allow_off", json_object_new_boolean(c->allow_off));
    json_object_object_add(st, "enabled", json_object_new_boolean(c->enabled));
    json_object_object_add(st, "predictor", json_object_new_string(c->predictor));
    json_object_object_add(st, "min_pair_samples", json_object_new_int64(c->min_pair_samples));
    json_object_object_add(st, "interference_threshold_pct", nv_json_new_num(c->interference_pct));
    json_object_object_add(st, "contain_wait_s", json_object_new_int64(c->contain_wait_s));
    json_object_object_add(st, "contain_span_wait_s",
                           json_object_new_int64(nv_config_span_wait_s(c)));
    json_object_object_add(
        st, "avoid_uplinks",
        json_object_new_string(c->avoid_uplinks == NV_AVOID_UPLINKS_WARN ? "warn" : "contain"));
    json_object_object_add(st, "max_neighbour_apps", json_object_new_int64(c->max_neighbour_apps));
    json_object_object_add(st, "user_messages",
                           json_object_new_string(nv_user_messages_name(c->user_messages)));
    json_object_object_add(o, "settings", st);
    json_object *rules = json_object_new_array();
    for (int i = 0; i < c->policy.n; i++) {
        char acts[128];
        nv_actions_format(c->policy.rule[i].actions, acts, sizeof acts);
        json_object *r = json_object_new_object();
        json_object_object_add(r, "index", json_object_new_int(i + 1));
        json_object_object_add(r, "line", json_object_new_int(c->policy.rule[i].line));
        json_object_object_add(r, "name", json_object_new_string(c->policy.rule[i].name));
        json_object_object_add(r, "actions", json_object_new_string(acts));
        json_object_array_add(rules, r);
    }
    json_object_object_add(o, "rules", rules);
    return o;
}

int verb_config_check(int argc, char **argv)
{
    const char *path = NULL;
    int json = 0;
    const nv_opt opts[] = {
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1,
         .help =
             "one JSON object instead: file, valid (true/false), problems (the lines "
             "above), and when valid the settings (model_file, spool_dir, default_mode, "
             "enabled, allow_off, predictor, min_pair_samples, interference_threshold_pct, "
             "contain_wait_s, contain_span_wait_s, avoid_uplinks, max_neighbour_apps, user_messages) and the rules (index, "
             "line, name, actions)"},
    };
    const nv_opt_spec spec = {"netvar: config-check",
                              NULL,
                              help_head,
                              help_tail,
                              0,
                              {{"Options:", "config-check", opts, 1}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc)
        path = argv[optind++];
    if (optind < argc) {
        fprintf(stderr,
                "netvar: config-check: unexpected argument '%.60s'; give one FILE (see "
                "--help)\n",
                argv[optind]);
        return 2;
    }
    if (!path)
        path = getenv("NETVAR_CONF");
    if (!path)
        path = "/etc/netvar/netvar.conf";
    static struct nv_config c;
    json_object *problems = json ? json_object_new_array() : NULL;
    int errors = nv_config_load(path, &c, print_error, problems);
    /* as slurmctld resolves them: a rule naming an unknown user is a problem */
    errors += nv_config_resolve_users(&c, path, print_error, problems);
    if (json) {
        json_object *o = config_json(path, &c, errors, problems);
        nv_cli_print_json(o);
        json_object_put(o);
        json_object_put(problems);
        return errors ? 1 : 0;
    }
    if (errors) {
        printf("%s: %d problem%s\n", path, errors, errors == 1 ? "" : "s");
        return 1;
    }
    printf("%s: valid\n", path);
    if (!c.enabled)
        printf("  Enabled=no: both plugins do nothing (the site's off switch)\n");
    printf("  ModelFile=%s\n  SpoolDir=%s\n  DefaultMode=%s AllowOff=%s Predictor=%s "
           "MinPairSamples=%u\n  InterferenceThreshold=%g %%  ContainWaitSeconds=%u s  "
           "ContainSpanWaitSeconds=%u s\n  AvoidUplinks=%s  MaxNeighbourApps=%u  UserMessages=%s\n",
           c.model_file, c.spool_dir, nv_mode_name(c.default_mode), c.allow_off ? "yes" : "no",
           c.predictor, c.min_pair_samples, c.interference_pct, c.contain_wait_s,
           nv_config_span_wait_s(&c), c.avoid_uplinks == NV_AVOID_UPLINKS_WARN ? "warn" : "contain",
           c.max_neighbour_apps, nv_user_messages_name(c.user_messages));
    for (int i = 0; i < c.policy.n; i++) {
        char acts[128];
        nv_actions_format(c.policy.rule[i].actions, acts, sizeof acts);
        printf("  rule %d (line %d) %s: %s\n", i + 1, c.policy.rule[i].line, c.policy.rule[i].name,
               acts);
    }
    return 0;
}
