/* verb_prune.c - `netvar prune --older-than DAYS`: removes old job records
 * from the spool (lib/upkeep/prune.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "args.h"
#include "opts.h"
#include "prune.h"
#include "verbs.h"

static const char help_head[] =
    "Usage: netvar prune --older-than DAYS [--spool DIR] [--config FILE]\n"
    "                    [--dry-run] [--json]\n"
    "\n"
    "Removes the records of jobs that ended more than DAYS days ago:\n"
    "SPOOL/jobs/JOBID/ with its node records, job record and profiles.\n"
    "A job directory's age is its modification time, which the epilog's\n"
    "last record write sets.  Only directories named by a job id that are\n"
    "real directories owned by root are removed; anything else there is\n"
    "left alone with one line.  Symbolic links are never followed, and a\n"
    "job still listed in SPOOL/running/ is kept whatever its age.\n"
    "\n"
    "Each job directory is first renamed into SPOOL/.pruning/ and then\n"
    "removed there, so `netvar train`, reports and job_submit/netvar (which\n"
    "reads only SPOOL/running/) keep working during a prune and see a job\n"
    "whole or not at all.  A prune that was interrupted is finished by the\n"
    "next one.  Records are removed, not summarized: a model trained before\n"
    "keeps what it learned from them.\n"
    "\n";

static const char help_tail[] =
    "\n"
    "Exit status: 0 done (skipped entries are not failures), 1 the spool is\n"
    "unreadable or a job directory could not be removed, 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  netvar prune --older-than 365 --dry-run\n";

static void log_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int verb_prune(int argc, char **argv)
{
    const char *spool = NULL, *config = getenv("NETVAR_CONF");
    int json = 0, dry = 0;
    double days = -1;
    const nv_opt opts[] = {
        {"older-than", "DAYS", NV_CLI_DOUBLE, &days, 0, 36500,
         .bad = "not a number of days in [0, 36500]",
         .help = "age in days, 0 to 36500 (fractions allowed); required"},
        NV_CLI_OPT_SPOOL(&spool),
        NV_CLI_OPT_CONFIG(&config),
        {"dry-run", NULL, NV_CLI_FLAG, &dry, .ival = 1,
         .help = "count what would go; remove nothing"},
        {"json", NULL, NV_CLI_FLAG, &json, .ival = 1,
         .help = "one JSON object: spool, older_than_days, dry_run, examined, removed, "
                 "kept_recent, kept_running, skipped, failed, files_removed, bytes_removed, "
                 "elapsed_s"},
    };
    const nv_opt_spec spec = {
        "netvar: prune", NULL, help_head,
        help_tail,       0,    {{"Options:", "prune", opts, sizeof opts / sizeof opts[0]}}};
    int parsed = nv_opts_parse(&spec, argc, argv);
    if (parsed)
        return nv_opts_exit(parsed);
    if (optind < argc) {
        fprintf(stderr, "netvar: prune: unexpected argument '%.60s'; see --help\n", argv[optind]);
        return 2;
    }
    if (days < 0) {
        fprintf(stderr, "netvar: prune: --older-than DAYS is required; see --help\n");
        return 2;
    }
    if (!spool)
        spool = nv_cli_config(config)->spool_dir;

    nv_prune_opts o = {.older_than_s = days * 86400.0, .dry_run = dry, .log = log_stderr};
    nv_prune_stats st;
    char err[512];
    double t0 = mono_s();
    if (nv_prune_spool(spool, &o, &st, err, sizeof err)) {
        fprintf(stderr, "netvar: prune: %s\n", err);
        return 1;
    }
    double elapsed = mono_s() - t0;
    if (json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "spool", json_object_new_string(spool));
        json_object_object_add(j, "older_than_days", json_object_new_double(days));
        json_object_object_add(j, "dry_run", json_object_new_boolean(dry));
        json_object_object_add(j, "examined", json_object_new_int64((int64_t)st.examined));
        json_object_object_add(j, "removed", json_object_new_int64((int64_t)st.removed));
        json_object_object_add(j, "kept_recent", json_object_new_int64((int64_t)st.kept_recent));
        json_object_object_add(j, "kept_running", json_object_new_int64((int64_t)st.kept_running));
        json_object_object_add(j, "skipped", json_object_new_int64((int64_t)st.skipped));
        json_object_object_add(j, "failed", json_object_new_int64((int64_t)st.failed));
        json_object_object_add(j, "files_removed", json_object_new_int64((int64_t)st.files));
        json_object_object_add(j, "bytes_removed", json_object_new_int64((int64_t)st.bytes));
        json_object_object_add(j, "elapsed_s", json_object_new_double(elapsed));
        nv_cli_print_json(j);
        json_object_put(j);
    } else {
        printf("netvar prune: %s, older than %g days%s\n", spool, days, dry ? " (dry run)" : "");
        const struct {
            const char *what;
            uint64_t n;
        } rows[] = {
            {"job directories examined", st.examined},
            {dry ? "would be removed" : "removed", st.removed},
            {"kept: younger", st.kept_recent},
            {"kept: still running", st.kept_running},
            {"skipped: not a job dir", st.skipped},
            {"failed", st.failed},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            printf("  %-28s %llu\n", rows[i].what, (unsigned long long)rows[i].n);
        printf("  %-28s %llu (%.1f MiB)\n", "files removed", (unsigned long long)st.files,
               (double)st.bytes / 1048576.0);
        printf("  %-28s %.3f s\n", "elapsed", elapsed);
    }
    return st.failed ? 1 : 0;
}
