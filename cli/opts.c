/* opts.c - a verb's options declared once (opts.h). */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "launch_plan.h" /* nv_parse_count, nv_parse_seconds */
#include "nv_err.h"
#include "safe_open.h"

#define HELP_COL 21      /* the least column where an option's help text starts */
#define HELP_NAME_MAX 21 /* a longer "--NAME ARG" puts its help on the next line */
#define HELP_WIDTH 79    /* the longest line --help prints */
#define CODE_BASE 256    /* getopt_long's value of the k-th option: above any character */

static int choice_index(const char *choices, const char *arg)
{
    size_t n = strlen(arg);
    int k = 0;
    for (const char *p = choices; p; k++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, arg, n))
            return k;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* "a, b or c" from "a|b|c" */
static void choices_words(const char *choices, char *out, size_t outlen)
{
    size_t o = 0;
    for (const char *p = choices; *p && o + 5 < outlen; p++) {
        if (*p != '|') {
            out[o++] = *p;
            continue;
        }
        const char *sep = strchr(p + 1, '|') ? ", " : " or ";
        for (; *sep && o + 1 < outlen; sep++)
            out[o++] = *sep;
    }
    out[o] = '\0';
}

int nv_opt_apply(const nv_opt *o, void *group_to, const char *arg, char *err, size_t errlen)
{
    void *to = o->to ? o->to : group_to;
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->name);
    switch (o->kind) {
    case NV_CLI_FLAG: *(int *)to = o->ival; return 0;
    case NV_CLI_STR: *(const char **)to = arg; return 0;
    case NV_CLI_LONG:
    case NV_CLI_INT: {
        long v;
        if (nv_parse_count(flag, arg, (long)o->lo, (long)o->hi, &v, err, errlen))
            return -1;
        if (o->kind == NV_CLI_LONG)
            *(long *)to = v;
        else
            *(int *)to = (int)v;
        return 0;
    }
    case NV_CLI_SECONDS: return nv_parse_seconds(flag, arg, (double *)to, err, errlen);
    case NV_CLI_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(arg, &end);
        if (end == arg || *end || errno == ERANGE || !isfinite(v) ||
            !((o->zero_ok && v == 0) || ((o->open_lo ? v > o->lo : v >= o->lo) && v <= o->hi))) {
            if (o->bad)
                return nv_err(err, errlen, "%s '%.40s': %s", flag, arg, o->bad);
            return nv_err(err, errlen, "%s '%.40s': must be a number from %g to %g", flag, arg,
                          o->lo, o->hi);
        }
        *(double *)to = v;
        return 0;
    }
    case NV_CLI_CHOICE: {
        int k = choice_index(o->choices, arg);
        if (k < 0) {
            if (o->bad)
                return nv_err(err, errlen, "%s '%.40s': %s", flag, arg, o->bad);
            char words[200];
            choices_words(o->choices, words, sizeof words);
            return nv_err(err, errlen, "%s '%.40s': must be %s", flag, arg, words);
        }
        *(int *)to = k;
        return 0;
    }
    case NV_CLI_CALL: return o->call(o, to, arg, err, errlen) ? -1 : 0;
    }
    return nv_err(err, errlen, "%s: no parser for this option", flag);
}

/* Writes text from column `col` (the cursor is at column `at`), wrapped at
 * HELP_WIDTH at spaces; '\n' starts a new line. */
static void wrap(FILE *out, const char *text, int at, int col)
{
    const char *p = text;
    while (*p) {
        if (at < col) {
            fprintf(out, "%*s", col - at, "");
            at = col;
        }
        size_t word = strcspn(p, " \n");
        if (at > col && at + 1 + (int)word > HELP_WIDTH) {
            fprintf(out, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', out);
            at++;
        }
        fwrite(p, 1, word, out);
        at += (int)word;
        p += word;
        if (*p == '\n') {
            fputc('\n', out);
            at = 0;
            p++;
        }
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

static int name_len(const nv_opt *o)
{
    return 2 + (int)strlen(o->name) + (o->arg ? 1 + (int)strlen(o->arg) : 0);
}

static void help_option(FILE *out, const nv_opt *o, int col)
{
    int at = fprintf(out, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (at + 1 > col) {
        fputc('\n', out);
        at = 0;
    }
    wrap(out, o->help ? o->help : "", at, col);
}

/* the help column of every group: two spaces after the longest
 * "--NAME ARG" that fits (HELP_NAME_MAX), at least HELP_COL */
static int help_col(const nv_opt_spec *s)
{
    int col = HELP_COL;
    for (int g = 0; g < NV_OPT_GROUPS_MAX && s->group[g].opt; g++)
        for (size_t k = 0; k < s->group[g].n; k++) {
            int len = name_len(&s->group[g].opt[k]);
            if (len <= HELP_NAME_MAX && 2 + len + 2 > col)
                col = 2 + len + 2;
        }
    return col;
}

void nv_opts_help(FILE *out, const nv_opt_spec *s)
{
    if (s->head)
        fputs(s->head, out);
    int col = help_col(s);
    for (int g = 0; g < NV_OPT_GROUPS_MAX && s->group[g].opt; g++) {
        const nv_opt_group *grp = &s->group[g];
        if (g)
            fputc('\n', out);
        fprintf(out, "%s\n", grp->title ? grp->title : "Options:");
        for (size_t k = 0; k < grp->n; k++)
            help_option(out, &grp->opt[k], col);
        if (g == 0)
            wrap(out, "show this help", fprintf(out, "  -h, --help"), col);
    }
    if (s->tail)
        fputs(s->tail, out);
}

void nv_opts_list(FILE *out, const nv_opt_spec *s)
{
    for (int g = 0; g < NV_OPT_GROUPS_MAX && s->group[g].opt; g++)
        for (size_t k = 0; k < s->group[g].n; k++)
            fprintf(out, "%s\t--%s\t%s\n", s->group[g].man, s->group[g].opt[k].name,
                    s->group[g].opt[k].arg ? s->group[g].opt[k].arg : "");
}

/* the k-th option of the spec, all groups in order (NULL past the end) */
static const nv_opt *nth(const nv_opt_spec *s, int k, void **group_to)
{
    for (int g = 0; g < NV_OPT_GROUPS_MAX && s->group[g].opt; g++) {
        if ((size_t)k < s->group[g].n) {
            *group_to = s->group[g].to;
            return &s->group[g].opt[k];
        }
        k -= (int)s->group[g].n;
    }
    return NULL;
}

/* the one line of a bad usage: who, what, the spec's tail; what quotes
 * the user's argv, so it reaches the terminal escaped (nv_printable) */
static int bad(const nv_opt_spec *s, const char *what)
{
    char shown[1024];
    fprintf(stderr, "%s: %s%s\n", s->who, nv_printable(what, shown, sizeof shown),
            s->bad_tail ? s->bad_tail : "");
    return 2;
}

enum { CODE_HELP = 'h', CODE_LIST = CODE_BASE - 1 };

int nv_opts_parse(const nv_opt_spec *s, int argc, char **argv)
{
    struct option lo[NV_OPTS_MAX + 3];
    int n = 0;
    void *group_to;
    for (const nv_opt *o; n < NV_OPTS_MAX && (o = nth(s, n, &group_to)); n++)
        lo[n] =
            (struct option){o->name, o->arg ? required_argument : no_argument, NULL, CODE_BASE + n};
    char err[700];
    /* a name given twice would leave one of them unreachable */
    for (int i = 0; i < n; i++) {
        int twice = !strcmp(lo[i].name, "help") || !strcmp(lo[i].name, "list-options");
        for (int j = 0; j < i; j++)
            twice |= !strcmp(lo[i].name, lo[j].name);
        if (twice) {
            snprintf(err, sizeof err, "option '--%s' is declared twice (a bug)", lo[i].name);
            return bad(s, err);
        }
    }
    if (nth(s, n, &group_to))
        return bad(s, "more options than NV_OPTS_MAX (a bug)");
    lo[n++] = (struct option){"help", no_argument, NULL, CODE_HELP};
    lo[n++] = (struct option){"list-options", no_argument, NULL, CODE_LIST};
    lo[n] = (struct option){NULL, 0, NULL, 0};
    int c;
    optind = 0;
    opterr = 0;
    /* '+': stop at the command, whose own options are not ours;
     * ':': a missing argument is told apart from an unknown option */
    while ((c = getopt_long(argc, argv, s->stop_at_operand ? "+:h" : ":h", lo, NULL)) != -1) {
        if (c == CODE_HELP) {
            nv_opts_help(stdout, s->help ? s->help : s);
            return 1;
        }
        if (c == CODE_LIST) {
            nv_opts_list(stdout, s);
            return 1;
        }
        const nv_opt *o = c >= CODE_BASE ? nth(s, c - CODE_BASE, &group_to) : NULL;
        if (c == ':') {
            o = optopt >= CODE_BASE ? nth(s, optopt - CODE_BASE, &group_to) : NULL;
            snprintf(err, sizeof err, "option '%.60s' needs an argument %s; see --help",
                     argv[optind - 1], o && o->arg ? o->arg : "");
            return bad(s, err);
        }
        if (!o && c == '?' && optopt >= CODE_BASE && (o = nth(s, optopt - CODE_BASE, &group_to))) {
            snprintf(err, sizeof err, "option '--%s' takes no argument; see --help", o->name);
            return bad(s, err);
        }
        if (!o) {
            snprintf(err, sizeof err, "unknown option '%.60s'; see --help", argv[optind - 1]);
            return bad(s, err);
        }
        if (nv_opt_apply(o, group_to, optarg, err, sizeof err))
            return bad(s, err);
    }
    return 0;
}
