/* opts.h - a verb's options declared once.  One table per verb (and one
 * for the launch options calibrate, impact and campaign share) gives each
 * option's name, argument, bounds, help text and where its value goes; the
 * same table drives getopt_long, the check of every value, the Options
 * part of --help and the hidden --list-options that the man-page test
 * compares with netvar(1). */
#ifndef NETVAR_CLI_OPTS_H
#define NETVAR_CLI_OPTS_H

#include <getopt.h> /* optind: the first operand after a parse */
#include <stddef.h>
#include <stdio.h>

/* "255" from a #define of a plain number, for help text */
#define NV_STR_(x) #x
#define NV_STR(x) NV_STR_(x)

typedef enum nv_opt_kind {
    NV_CLI_FLAG,    /* no argument: *(int *)to = ival */
    NV_CLI_STR,     /* *(const char **)to = the argument as typed */
    NV_CLI_LONG,    /* a whole number from lo to hi into *(long *)to */
    NV_CLI_INT,     /* the same into *(int *)to */
    NV_CLI_SECONDS, /* a duration, 0 < S <= 1e6 seconds, into *(double *)to */
    NV_CLI_DOUBLE,  /* a number from lo to hi (or 0 with zero_ok) into *(double *)to */
    NV_CLI_CHOICE,  /* one of choices ("a|b|c") into *(int *)to: its position */
    NV_CLI_CALL,    /* call(opt, to, arg, err, errlen): 0, or -1 with err set */
} nv_opt_kind;

typedef struct nv_opt nv_opt;
/* a CALL option's parser: the entry (name, bounds, ival), its target */
typedef int (*nv_opt_call)(const nv_opt *o, void *to, const char *arg, char *err, size_t errlen);

struct nv_opt {
    const char *name; /* the long option without "--" */
    const char *arg;  /* the argument's name in --help (FILE, S); NULL: takes none */
    nv_opt_kind kind;
    void *to;            /* where the value goes; CALL: its first argument */
    double lo, hi;       /* LONG, INT, DOUBLE: the bounds */
    const char *help;    /* plain words, with the unit and the default; wrapped by --help,
                          a '\n' starts a new line */
    const char *bad;     /* DOUBLE, CHOICE: what an error says after "--NAME 'ARG': "
                          (default: the bounds, or the choices) */
    const char *choices; /* CHOICE: the names, '|' between them */
    int ival;            /* FLAG: the value stored; CALL: its own use */
    int zero_ok;         /* DOUBLE: 0 is accepted besides lo..hi */
    int open_lo;         /* DOUBLE: lo itself is refused (more than lo) */
    nv_opt_call call;    /* CALL */
};

/* Options that --help shows under one heading. */
typedef struct nv_opt_group {
    const char *title; /* heading line in --help, e.g. "Options:" */
    const char *man;   /* the netvar(1) VERB OPTIONS entry that lists them */
    const nv_opt *opt;
    size_t n;
    void *to; /* with to NULL in an entry of a shared table: its target */
} nv_opt_group;

#define NV_OPT_GROUPS_MAX 4
#define NV_OPTS_MAX 64 /* options of one verb, all groups */

typedef struct nv_opt_spec {
    const char *who;      /* what an error line starts with: "netvar calibrate" */
    const char *bad_tail; /* what it ends with, e.g. "; nothing run" ("" when NULL) */
    const char *head;     /* --help before the options: usage, description */
    const char *tail;     /* --help after them: output, exit status, examples */
    int stop_at_operand;  /* the first operand ends the options (a COMMAND follows) */
    nv_opt_group group[NV_OPT_GROUPS_MAX];
    /* --help prints this one instead (a verb whose actions share one help) */
    const struct nv_opt_spec *help;
} nv_opt_spec;

/* Parses argv[1..] (argv[0] is the verb) with the spec's options; -h and
 * --help print the help on stdout, --list-options the option names.
 * Returns 0 parsed (optind is the first operand), 1 help or list printed
 * (exit 0), 2 bad usage with one line on stderr: who, the option as typed
 * and what is wrong with it, then bad_tail. */
int nv_opts_parse(const nv_opt_spec *s, int argc, char **argv);

/* The exit status of a parse that did not return 0: 0 after the help, 2. */
static inline int nv_opts_exit(int parsed)
{
    return parsed == 1 ? 0 : 2;
}

/* --json (*text = 0, the default) and --text (*text = 1) */
#define NV_OPT_JSON_TEXT(text)                                                                     \
    {"json", NULL,      NV_CLI_FLAG,                                                               \
     text,   .ival = 0, .help = "print the result as JSON on stdout (the default)"},               \
    {                                                                                              \
        "text", NULL, NV_CLI_FLAG, text, .ival = 1,                                                \
                                         .help = "print a short summary for people instead"        \
    }

/* --json where JSON is the only output */
#define NV_OPT_JSON_ONLY(flag)                                                                     \
    {                                                                                              \
        "json", NULL, NV_CLI_FLAG, flag,                                                           \
            .ival = 1, .help = "JSON output (the only form; accepted for uniformity)"              \
    }

/* The help: head, each group's title and options, tail. */
void nv_opts_help(FILE *out, const nv_opt_spec *s);

/* One line per option, "ENTRY<TAB>--NAME<TAB>ARG" (ARG empty for a flag),
 * ENTRY the group's man entry: what test_man_pages.sh checks netvar(1) by. */
void nv_opts_list(FILE *out, const nv_opt_spec *s);

/* Applies one option to its target (exposed for the unit tests): 0, or -1
 * with err naming --NAME, the argument and what is wrong. */
int nv_opt_apply(const nv_opt *o, void *group_to, const char *arg, char *err, size_t errlen);

#endif
