/* args.c - what the verbs share (args.h). */
#include "args.h"
#include "nv_err.h"
#include "safe_open.h"

#include <stdio.h>
#include <stdlib.h>

unsigned long nv_cli_jobid(const char *who, int argc, char **argv, int optind)
{
    if (optind != argc - 1) {
        fprintf(stderr, "%s: give exactly one JOBID (see --help)\n", who);
        return 0;
    }
    char *end;
    unsigned long jobid = strtoul(argv[optind], &end, 10);
    if (!*argv[optind] || *end || jobid == 0 || jobid > 0xfffffff0UL) {
        fprintf(stderr, "%s: JOBID '%s' is not a job number\n", who, argv[optind]);
        return 0;
    }
    return jobid;
}

static void config_error(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "netvar: %s\n", line);
}

const struct nv_config *nv_cli_config(const char *path)
{
    static struct nv_config conf; /* large (rules): not on the stack */
    nv_config_defaults(&conf);
    if (path)
        nv_config_load(path, &conf, config_error, NULL);
    return &conf;
}

void nv_cli_print_json(json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
}

const char *nv_cli_shown(const char *s)
{
    static char ring[8][1024];
    static unsigned next;
    char *buf = ring[next++ % 8];
    return nv_printable(s, buf, sizeof ring[0]);
}

int nv_cli_plan_option(nv_run_plan *plan, int c, const char *optarg, const char **keep_dir,
                       const char *typed, char *err, size_t errlen)
{
    int bad = nv_run_plan_option(plan, c, optarg, keep_dir, err, errlen);
    if (bad == 1)
        return nv_err(err, errlen, "unknown or incomplete option '%s'; see --help", typed);
    return bad ? -1 : 0;
}
