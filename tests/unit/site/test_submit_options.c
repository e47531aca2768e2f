/* test_submit_options.c - the --netvar options as job_submit ("")
 * and the prolog/epilog ("SPANK_") see them: spank option entries, the
 * NETVAR_MODE / NETVAR_APP user defaults from spank env and job env, their
 * precedence, rejected values and the note, oversize values, NULL arrays,
 * NULL-terminated arrays (UINT32_MAX), and nv_effective_mode. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "submit_options.h"

#define N(a) ((uint32_t)(sizeof(a) / sizeof *(a)))
#define OPT "_SLURM_SPANK_OPTION_netvar_"

static void assert_nothing_given(const struct nv_submit_options *o)
{
    assert_int_equal(o->mode, NV_MODE_UNSET);
    assert_string_equal(o->mode_source, "none");
    assert_string_equal(o->app, "");
    assert_string_equal(o->app_source, "none");
    assert_false(o->advise_apply);
    assert_int_equal(o->interval_s, -1);
    assert_int_equal(o->rejected, 0);
    assert_string_equal(o->note, "");
}

static void empty_and_null_arrays_give_nothing(void **state)
{
    (void)state;
    struct nv_submit_options o;
    memset(&o, 0x5a, sizeof o); /* parse must reset every field */
    nv_submit_options_parse("", NULL, 0, NULL, 0, &o);
    assert_nothing_given(&o);
    /* a NULL array with a non-zero count must not be read */
    memset(&o, 0x5a, sizeof o);
    nv_submit_options_parse("", NULL, 5, NULL, 7, &o);
    assert_nothing_given(&o);
    memset(&o, 0x5a, sizeof o);
    nv_submit_options_parse("SPANK_", NULL, UINT32_MAX, NULL, UINT32_MAX, &o);
    assert_nothing_given(&o);
    const char *unrelated[] = {"PATH=/usr/bin", "HOME=/root", OPT "other=1"};
    nv_submit_options_parse("", unrelated, N(unrelated), unrelated, N(unrelated), &o);
    assert_nothing_given(&o);
}

static void spank_options_with_empty_prefix(void **state)
{
    (void)state;
    const char *spank[] = {OPT "netvar=full", OPT "netvar_app=x", OPT "netvar_advise=apply",
                           OPT "netvar_interval=30"};
    struct nv_submit_options o;
    nv_submit_options_parse("", spank, N(spank), NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_FULL);
    assert_string_equal(o.mode_source, "--netvar");
    assert_string_equal(o.app, "x");
    assert_string_equal(o.app_source, "--netvar-app");
    assert_true(o.advise_apply);
    assert_int_equal(o.interval_s, 30);
    assert_int_equal(o.rejected, 0);
    assert_string_equal(o.note, "");
}

static void entry_order_does_not_matter_and_names_do_not_bleed(void **state)
{
    (void)state;
    /* netvar_app first: the "netvar" lookup must not take "netvar_app=..." */
    const char *spank[] = {OPT "netvar_app=lulesh", OPT "netvar_interval=5", OPT "netvar=segments"};
    struct nv_submit_options o;
    nv_submit_options_parse("", spank, N(spank), NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_SEGMENTS);
    assert_string_equal(o.app, "lulesh");
    assert_int_equal(o.interval_s, 5);
    /* only netvar_app given: the mode stays unset */
    const char *only_app[] = {OPT "netvar_app=lulesh"};
    nv_submit_options_parse("", only_app, N(only_app), NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_UNSET);
    assert_string_equal(o.mode_source, "none");
    assert_int_equal(o.rejected, 0);
}

static void spank_prefix_in_prolog_environment(void **state)
{
    (void)state;
    const char *spank[] = {"SPANK_" OPT "netvar=counters", "SPANK_" OPT "netvar_app=fftw",
                           "SPANK_" OPT "netvar_advise=apply", "SPANK_" OPT "netvar_interval=0"};
    struct nv_submit_options o;
    nv_submit_options_parse("SPANK_", spank, N(spank), NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_COUNTERS);
    assert_string_equal(o.app, "fftw");
    assert_true(o.advise_apply);
    assert_int_equal(o.interval_s, 0);
    /* the same entries without the prefix are not what the prolog sees */
    const char *unprefixed[] = {OPT "netvar=counters", OPT "netvar_app=fftw"};
    nv_submit_options_parse("SPANK_", unprefixed, N(unprefixed), NULL, 0, &o);
    assert_nothing_given(&o);
    /* and job_submit ("") does not take prefixed entries */
    nv_submit_options_parse("", spank, N(spank), NULL, 0, &o);
    assert_nothing_given(&o);
}

static void user_defaults_from_spank_env_and_job_env(void **state)
{
    (void)state;
    struct nv_submit_options o;
    const char *job[] = {"PATH=/bin", "NETVAR_MODE=segments", "NETVAR_APP=amg"};
    nv_submit_options_parse("", NULL, 0, job, N(job), &o);
    assert_int_equal(o.mode, NV_MODE_SEGMENTS);
    assert_string_equal(o.mode_source, "NETVAR_MODE");
    assert_string_equal(o.app, "amg");
    assert_string_equal(o.app_source, "NETVAR_APP");

    const char *spank[] = {"NETVAR_MODE=off", "NETVAR_APP=milc"};
    nv_submit_options_parse("", spank, N(spank), NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_OFF);
    assert_string_equal(o.mode_source, "NETVAR_MODE");
    assert_string_equal(o.app, "milc");

    /* prolog: user defaults carry the prefix in spank env */
    const char *pspank[] = {"SPANK_NETVAR_MODE=full", "SPANK_NETVAR_APP=milc"};
    nv_submit_options_parse("SPANK_", pspank, N(pspank), NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_FULL);
    assert_string_equal(o.app, "milc");
    /* a look-alike name is not NETVAR_MODE */
    const char *lookalike[] = {"NETVAR_MODEX=full", "XNETVAR_MODE=full", "NETVAR_APPS=a"};
    nv_submit_options_parse("", lookalike, N(lookalike), lookalike, N(lookalike), &o);
    assert_nothing_given(&o);
}

static void precedence_option_over_spank_env_over_job_env(void **state)
{
    (void)state;
    struct nv_submit_options o;
    const char *spank_all[] = {"NETVAR_MODE=segments", OPT "netvar=full", "NETVAR_APP=fromspank",
                               OPT "netvar_app=fromoption"};
    const char *job[] = {"NETVAR_MODE=counters", "NETVAR_APP=fromjob"};
    nv_submit_options_parse("", spank_all, N(spank_all), job, N(job), &o);
    assert_int_equal(o.mode, NV_MODE_FULL);
    assert_string_equal(o.mode_source, "--netvar");
    assert_string_equal(o.app, "fromoption");
    assert_string_equal(o.app_source, "--netvar-app");

    const char *spank_env[] = {"NETVAR_MODE=segments", "NETVAR_APP=fromspank"};
    nv_submit_options_parse("", spank_env, N(spank_env), job, N(job), &o);
    assert_int_equal(o.mode, NV_MODE_SEGMENTS);
    assert_string_equal(o.app, "fromspank");

    nv_submit_options_parse("", NULL, 0, job, N(job), &o);
    assert_int_equal(o.mode, NV_MODE_COUNTERS);
    assert_string_equal(o.app, "fromjob");
    assert_int_equal(o.rejected, 0);

    /* mode from the option, app from the job env: each independently */
    const char *spank_mode[] = {OPT "netvar=off"};
    nv_submit_options_parse("", spank_mode, N(spank_mode), job, N(job), &o);
    assert_int_equal(o.mode, NV_MODE_OFF);
    assert_string_equal(o.mode_source, "--netvar");
    assert_string_equal(o.app, "fromjob");
    assert_string_equal(o.app_source, "NETVAR_APP");
}

static void rejected_values_are_counted_and_the_first_noted(void **state)
{
    (void)state;
    struct nv_submit_options o;
    const char *spank[] = {OPT "netvar=loud", OPT "netvar_app=../../etc/passwd",
                           OPT "netvar_interval=86401"};
    nv_submit_options_parse("", spank, N(spank), NULL, 0, &o);
    assert_int_equal(o.rejected, 3);
    assert_int_equal(o.mode, NV_MODE_UNSET);
    assert_string_equal(o.app, "");
    assert_int_equal(o.interval_s, -1);
    assert_string_equal(o.note, "--netvar='loud' is not one of off, counters, segments, full; "
                                "ignored it; the default applies");

    const char *app_only[] = {OPT "netvar_app=../../etc"};
    nv_submit_options_parse("", app_only, N(app_only), NULL, 0, &o);
    assert_int_equal(o.rejected, 1);
    assert_string_equal(o.note, "--netvar-app='../../etc' starts with '.' or '-'; ignored it; "
                                "the default applies");

    const char *spaces[] = {"NETVAR_APP=my app"};
    nv_submit_options_parse("", NULL, 0, spaces, N(spaces), &o);
    assert_int_equal(o.rejected, 1);
    assert_string_equal(o.app, "");
    assert_string_equal(o.app_source, "none");
    assert_string_equal(o.note,
                        "NETVAR_APP='my app' has a character outside letters, digits and ._-; "
                        "ignored it; the default applies");

    const char *env_mode[] = {"NETVAR_MODE=FULL"};
    nv_submit_options_parse("", env_mode, N(env_mode), NULL, 0, &o);
    assert_int_equal(o.rejected, 1);
    assert_int_equal(o.mode, NV_MODE_UNSET);
    assert_string_equal(o.note, "NETVAR_MODE='FULL' is not one of off, counters, segments, full; "
                                "ignored it; the default applies");
}

static void a_rejected_option_falls_back_to_the_user_default(void **state)
{
    (void)state;
    /* --netvar=bogus is ignored, so NETVAR_MODE from the job env applies */
    const char *spank[] = {OPT "netvar=bogus", OPT "netvar_app=a b"};
    const char *job[] = {"NETVAR_MODE=segments", "NETVAR_APP=amg"};
    struct nv_submit_options o;
    nv_submit_options_parse("", spank, N(spank), job, N(job), &o);
    assert_int_equal(o.mode, NV_MODE_SEGMENTS);
    assert_string_equal(o.mode_source, "NETVAR_MODE");
    assert_string_equal(o.app, "amg");
    assert_int_equal(o.rejected, 2);
    assert_non_null(strstr(o.note, "--netvar='bogus' "));
}

static void interval_bounds(void **state)
{
    (void)state;
    struct {
        const char *v;
        int want; /* -1: rejected */
    } cases[] = {
        {"0", 0},   {"1", 1},   {"86400", 86400}, {"86401", -1}, {"-1", -1},
        {"", -1},   {"5s", -1}, {"abc", -1},      {"1e3", -1},   {"99999999999999999999", -1},
        {"3.5", -1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char entry[128];
        snprintf(entry, sizeof entry, OPT "netvar_interval=%s", cases[i].v);
        const char *spank[] = {entry};
        struct nv_submit_options o;
        nv_submit_options_parse("", spank, 1, NULL, 0, &o);
        if (o.interval_s != cases[i].want)
            fail_msg("interval '%s' gave %d, expected %d", cases[i].v, o.interval_s, cases[i].want);
        assert_int_equal(o.rejected, cases[i].want < 0 ? 1 : 0);
        if (cases[i].want < 0) {
            char want[256];
            snprintf(want, sizeof want,
                     "--netvar-interval='%.64s%s' is not a whole number of seconds from 0 to "
                     "86400; ignored it; the default applies",
                     cases[i].v, strlen(cases[i].v) > 64 ? "..." : "");
            assert_string_equal(o.note, want);
        }
    }
}

static void advise_is_apply_only_for_the_word_apply(void **state)
{
    (void)state;
    const char *words[] = {"apply", "show", "", "APPLY", "apply ", "yes"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, OPT "netvar_advise=%s", words[i]);
        const char *spank[] = {entry};
        struct nv_submit_options o;
        nv_submit_options_parse("", spank, 1, NULL, 0, &o);
        assert_int_equal(o.advise_apply, i == 0);
        assert_int_equal(o.rejected, i >= 2); /* only show and apply are words */
    }
}

/* NETVAR_INTERVAL and NETVAR_ADVISE: every option has an environment
 * form (for jobs submitted without srun, sbatch or salloc: slurmrestd),
 * with the option's validation, and the option wins where both are given */
static void interval_and_advise_have_environment_forms(void **state)
{
    (void)state;
    struct nv_submit_options o;
    const char *job[] = {"NETVAR_INTERVAL=30", "NETVAR_ADVISE=apply"};
    nv_submit_options_parse("", NULL, 0, job, N(job), &o);
    assert_int_equal(o.interval_s, 30);
    assert_string_equal(o.interval_source, "NETVAR_INTERVAL");
    assert_true(o.advise_apply);
    assert_string_equal(o.advise_source, "NETVAR_ADVISE");
    assert_int_equal(o.rejected, 0);

    /* the prolog sees the submit side's copy as SPANK_NETVAR_... */
    const char *prolog[] = {"SPANK_NETVAR_INTERVAL=5", "SPANK_NETVAR_ADVISE=show"};
    nv_submit_options_parse("SPANK_", prolog, N(prolog), NULL, 0, &o);
    assert_int_equal(o.interval_s, 5);
    assert_false(o.advise_apply);
    assert_string_equal(o.advise_source, "NETVAR_ADVISE");

    /* the options win */
    const char *spank[] = {OPT "netvar_interval=0", OPT "netvar_advise=show"};
    nv_submit_options_parse("", spank, N(spank), job, N(job), &o);
    assert_int_equal(o.interval_s, 0);
    assert_string_equal(o.interval_source, "--netvar-interval");
    assert_false(o.advise_apply);
    assert_string_equal(o.advise_source, "--netvar-advise");

    /* the same bounds, the same one-line note */
    const char *bad[] = {"NETVAR_INTERVAL=86401", "NETVAR_ADVISE=yes"};
    nv_submit_options_parse("", NULL, 0, bad, N(bad), &o);
    assert_int_equal(o.rejected, 2);
    assert_int_equal(o.interval_s, -1);
    assert_false(o.advise_apply);
    assert_string_equal(o.advise_source, "none");
    assert_string_equal(o.note, "NETVAR_ADVISE='yes' is not 'show' or 'apply'; ignored it; "
                                "the default applies");
    const char *plus[] = {"NETVAR_INTERVAL=+5"};
    nv_submit_options_parse("", NULL, 0, plus, N(plus), &o);
    assert_int_equal(o.rejected, 1);
    assert_string_equal(o.note, "NETVAR_INTERVAL='+5' is not a whole number of seconds from 0 to "
                                "86400; ignored it; the default applies");

    /* a bad option falls back to the environment, as for the mode */
    const char *badopt[] = {OPT "netvar_advise=APPLY"};
    nv_submit_options_parse("", badopt, N(badopt), job, N(job), &o);
    assert_true(o.advise_apply);
    assert_string_equal(o.advise_source, "NETVAR_ADVISE");
    assert_int_equal(o.rejected, 1);
    assert_string_equal(o.note, "--netvar-advise='APPLY' is not 'show' or 'apply'; ignored it; "
                                "the default applies");
}

/* builds "NAME=" + n copies of c */
static char *entry_of(const char *name, size_t n, char c)
{
    size_t l = strlen(name);
    char *e = malloc(l + n + 2);
    assert_non_null(e);
    memcpy(e, name, l);
    e[l] = '=';
    memset(e + l + 1, c, n);
    e[l + 1 + n] = '\0';
    return e;
}

/* the note for a long value of c: its first 64 bytes, then "..." */
static void assert_long_note(const char *note, const char *name, char c, const char *why)
{
    char want[256], shown[65];
    memset(shown, c, 64);
    shown[64] = '\0';
    snprintf(want, sizeof want, "%s='%s...' %s; ignored it; the default applies", name, shown, why);
    assert_string_equal(note, want);
}

static void oversize_values_are_ignored_as_too_long(void **state)
{
    (void)state;
    struct nv_submit_options o;
    char *mode = entry_of(OPT "netvar", NV_ENV_VALUE_MAX + 1, 'f');
    const char *spank[] = {mode};
    nv_submit_options_parse("", spank, 1, NULL, 0, &o);
    assert_int_equal(o.rejected, 1);
    assert_int_equal(o.mode, NV_MODE_UNSET);
    assert_long_note(o.note, "--netvar", 'f', "is too long");
    free(mode);

    /* exactly 4096 is not "too long", just not a mode name */
    mode = entry_of(OPT "netvar", NV_ENV_VALUE_MAX, 'f');
    spank[0] = mode;
    nv_submit_options_parse("", spank, 1, NULL, 0, &o);
    assert_int_equal(o.rejected, 1);
    assert_long_note(o.note, "--netvar", 'f', NV_MODE_RULE);
    free(mode);

    char *app = entry_of(OPT "netvar_app", 100000, 'a');
    spank[0] = app;
    nv_submit_options_parse("", spank, 1, NULL, 0, &o);
    assert_int_equal(o.rejected, 1);
    assert_string_equal(o.app, "");
    assert_long_note(o.note, "--netvar-app", 'a', "is too long");
    free(app);

    /* 65 characters: short enough for the env check, too long for a key */
    app = entry_of(OPT "netvar_app", 65, 'a');
    spank[0] = app;
    nv_submit_options_parse("", spank, 1, NULL, 0, &o);
    assert_int_equal(o.rejected, 1);
    assert_long_note(o.note, "--netvar-app", 'a', "is longer than 64 characters");
    free(app);
    app = entry_of(OPT "netvar_app", 64, 'a');
    spank[0] = app;
    nv_submit_options_parse("", spank, 1, NULL, 0, &o);
    assert_int_equal(o.rejected, 0);
    assert_int_equal(strlen(o.app), 64);
    free(app);

    char *env_mode = entry_of("NETVAR_MODE", NV_ENV_VALUE_MAX + 1, 'x');
    char *env_app = entry_of("NETVAR_APP", NV_ENV_VALUE_MAX + 10, 'x');
    const char *job[] = {env_mode, env_app};
    nv_submit_options_parse("", NULL, 0, job, 2, &o);
    assert_int_equal(o.rejected, 2);
    assert_int_equal(o.mode, NV_MODE_UNSET);
    assert_string_equal(o.app, "");
    assert_long_note(o.note, "NETVAR_MODE", 'x', "is too long");
    free(env_mode);
    free(env_app);
}

static void counts_bound_the_scan_and_uint32_max_means_null_terminated(void **state)
{
    (void)state;
    struct nv_submit_options o;
    const char *spank[] = {"A=1", OPT "netvar=full", NULL, OPT "netvar_app=hidden"};
    /* count 1: the option at index 1 is not looked at */
    nv_submit_options_parse("", spank, 1, NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_UNSET);
    nv_submit_options_parse("", spank, 2, NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_FULL);
    /* UINT32_MAX: stops at the NULL, never reaching index 3 */
    nv_submit_options_parse("", spank, UINT32_MAX, NULL, 0, &o);
    assert_int_equal(o.mode, NV_MODE_FULL);
    assert_string_equal(o.app, "");
    const char *job[] = {"X=1", "NETVAR_APP=jobapp", NULL, "NETVAR_MODE=full"};
    nv_submit_options_parse("", NULL, 0, job, UINT32_MAX, &o);
    assert_string_equal(o.app, "jobapp");
    assert_int_equal(o.mode, NV_MODE_UNSET);
    /* a NULL inside a counted array also ends the scan (no crash) */
    nv_submit_options_parse("", NULL, 0, job, 4, &o);
    assert_int_equal(o.mode, NV_MODE_UNSET);
}

/* a job from slurmrestd: its NETVAR_* defaults only in the job's
 * environment; those are handed on (checked, normalised), and nothing that
 * an option or spank_job_env already says */
static void env_only_defaults_are_handed_to_spank_job_env(void **state)
{
    (void)state;
    char lines[4][NV_ENV_LINE_MAX];
    struct nv_submit_options o;
    const char *job[] = {"NETVAR_MODE=full", "NETVAR_APP=fftw", "NETVAR_INTERVAL=007",
                         "NETVAR_ADVISE=apply"};
    nv_submit_options_parse("", NULL, 0, job, N(job), &o);
    assert_int_equal(nv_submit_options_env_defaults(&o, NULL, 0, lines, 4), 4);
    assert_string_equal(lines[0], "NETVAR_MODE=full");
    assert_string_equal(lines[1], "NETVAR_APP=fftw");
    assert_string_equal(lines[2], "NETVAR_INTERVAL=7");
    assert_string_equal(lines[3], "NETVAR_ADVISE=apply");
    /* cap bounds the lines written */
    assert_int_equal(nv_submit_options_env_defaults(&o, NULL, 0, lines, 2), 2);
    /* options beat the environment: only the two without an option */
    const char *spank[] = {OPT "netvar=counters", OPT "netvar_interval=3"};
    nv_submit_options_parse("", spank, N(spank), job, N(job), &o);
    assert_int_equal(o.interval_s, 3);
    assert_int_equal(nv_submit_options_env_defaults(&o, spank, N(spank), lines, 4), 2);
    assert_string_equal(lines[0], "NETVAR_APP=fftw");
    assert_string_equal(lines[1], "NETVAR_ADVISE=apply");
    /* sbatch already put them in spank_job_env: nothing to add */
    const char *sb[] = {"NETVAR_MODE=full", "NETVAR_APP=fftw", "NETVAR_INTERVAL=7",
                        "NETVAR_ADVISE=apply"};
    nv_submit_options_parse("", sb, N(sb), job, N(job), &o);
    assert_int_equal(nv_submit_options_env_defaults(&o, sb, N(sb), lines, 4), 0);
    /* bad values are not handed on */
    const char *bad[] = {"NETVAR_MODE=loud", "NETVAR_APP=a/b", "NETVAR_INTERVAL=abc",
                         "NETVAR_ADVISE=yes"};
    nv_submit_options_parse("", NULL, 0, bad, N(bad), &o);
    assert_int_equal(o.rejected, 4);
    assert_int_equal(nv_submit_options_env_defaults(&o, NULL, 0, lines, 4), 0);
}

/* the user's value is shown bounded, without quotes or control bytes */
static void bad_value_lines_are_bounded_and_printable(void **state)
{
    (void)state;
    char line[256], small[16];
    nv_bad_value(line, sizeof line, "NETVAR_INTERVAL", "a'b\n\x01\"", NV_INTERVAL_RULE, NULL);
    assert_string_equal(line, "NETVAR_INTERVAL='a?b?"
                              "?"
                              "?' is not a whole number of seconds from 0 "
                              "to 86400");
    char big[200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    nv_bad_value(line, sizeof line, "--netvar-app", big, "is too long", "ignoring it");
    assert_int_equal(strlen(line), strlen("--netvar-app='' is too long; ignoring it") + 64 + 3);
    nv_bad_value(small, sizeof small, "NETVAR_MODE", "x", NV_MODE_RULE, NULL);
    assert_string_equal(small, "NETVAR_MODE='x'");
    nv_bad_value(line, sizeof line, "NETVAR_MODE", NULL, NV_MODE_RULE, NULL);
    assert_string_equal(line, "NETVAR_MODE='' is not one of off, counters, segments, full");
}

static void effective_mode_default_and_allow_off(void **state)
{
    (void)state;
    struct nv_submit_options o;
    nv_submit_options_parse("", NULL, 0, NULL, 0, &o);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_COUNTERS, true), NV_MODE_COUNTERS);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_FULL, false), NV_MODE_FULL);

    const char *full[] = {OPT "netvar=full"};
    nv_submit_options_parse("", full, 1, NULL, 0, &o);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_COUNTERS, true), NV_MODE_FULL);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_COUNTERS, false), NV_MODE_FULL);

    const char *off[] = {OPT "netvar=off"};
    nv_submit_options_parse("", off, 1, NULL, 0, &o);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_COUNTERS, true), NV_MODE_OFF);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_COUNTERS, false), NV_MODE_COUNTERS);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_SEGMENTS, false), NV_MODE_SEGMENTS);
    /* a site whose default is off keeps it off */
    nv_submit_options_parse("", NULL, 0, NULL, 0, &o);
    assert_int_equal(nv_effective_mode(&o, NV_MODE_OFF, false), NV_MODE_OFF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interval_and_advise_have_environment_forms),
        cmocka_unit_test(empty_and_null_arrays_give_nothing),
        cmocka_unit_test(spank_options_with_empty_prefix),
        cmocka_unit_test(entry_order_does_not_matter_and_names_do_not_bleed),
        cmocka_unit_test(spank_prefix_in_prolog_environment),
        cmocka_unit_test(user_defaults_from_spank_env_and_job_env),
        cmocka_unit_test(precedence_option_over_spank_env_over_job_env),
        cmocka_unit_test(rejected_values_are_counted_and_the_first_noted),
        cmocka_unit_test(a_rejected_option_falls_back_to_the_user_default),
        cmocka_unit_test(interval_bounds),
        cmocka_unit_test(advise_is_apply_only_for_the_word_apply),
        cmocka_unit_test(oversize_values_are_ignored_as_too_long),
        cmocka_unit_test(counts_bound_the_scan_and_uint32_max_means_null_terminated),
        cmocka_unit_test(effective_mode_default_and_allow_off),
        cmocka_unit_test(env_only_defaults_are_handed_to_spank_job_env),
        cmocka_unit_test(bad_value_lines_are_bounded_and_printable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
