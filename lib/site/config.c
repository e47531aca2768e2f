/* config.c - parses netvar.conf (see config.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <pwd.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "plausible.h"
#include "safe_open.h"

#define CONFIG_MAX_BYTES (1 << 20)

struct parse_ctx {
    const char *name;
    int line;
    int errors;
    nv_config_error_fn err;
    void *ctx;
};

static void report(struct parse_ctx *p, const char *fmt, ...)
{
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s:%d: ", p->name, p->line);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof msg)
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    p->errors++;
    if (p->err)
        p->err(p->ctx, msg);
}

unsigned nv_config_span_wait_s(const struct nv_config *c)
{
    return c->contain_span_wait_set ? c->contain_span_wait_s : c->contain_wait_s;
}

void nv_config_defaults(struct nv_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->model_file, sizeof c->model_file, "/var/lib/netvar/model.json");
    snprintf(c->spool_dir, sizeof c->spool_dir, "/var/spool/netvar");
    snprintf(c->mailer, sizeof c->mailer, "/usr/bin/mail");
    c->default_mode = NV_MODE_COUNTERS;
    c->enabled = true;
    c->allow_off = true;
    snprintf(c->predictor, sizeof c->predictor, "queue");
    c->min_pair_samples = 3;
    c->annotate_field = NV_ANNOTATE_COMMENT;
    c->annotate_all = true;
    c->interference_pct = 10.0;
    c->app_fields[0] = NV_APPF_NAME;
    c->app_fields[1] = NV_APPF_SCRIPT;
    c->contain_wait_s = 300;
    c->avoid_uplinks = NV_AVOID_UPLINKS_CONTAIN;
    c->max_neighbour_apps = 32;
    c->registry_check_s = 60;
    c->user_messages = NV_UMSG_PREDICTIONS;
    c->uplinks_per_leaf = 1;
}

static const char *const umsg_names[] = {"none", "actions", "predictions", "all"};

const char *nv_user_messages_name(enum nv_user_messages m)
{
    return (unsigned)m < sizeof umsg_names / sizeof *umsg_names ? umsg_names[m] : "?";
}

bool nv_config_parse_rate(const char *v, double *Bps)
{
    char num[64];
    size_t n = 0;
    while (v[n] && (isdigit((unsigned char)v[n]) || v[n] == '.'))
        n++;
    if (!n || n >= sizeof num)
        return false;
    memcpy(num, v, n);
    num[n] = '\0';
    double x;
    if (!nv_parse_decimal(num, &x))
        return false;
    const char *u = v + n;
    while (*u == ' ')
        u++;
    double mult = 1;
    switch (*u) {
    case 'k':
    case 'K':
        mult = 1e3;
        u++;
        break;
    case 'm':
    case 'M':
        mult = 1e6;
        u++;
        break;
    case 'g':
    case 'G':
        mult = 1e9;
        u++;
        break;
    case 't':
    case 'T':
        mult = 1e12;
        u++;
        break;
    default: break;
    }
    double per_byte; /* units of the rest in bytes */
    if (!strcasecmp(u, "bit") || !strcasecmp(u, "bit/s") || !strcmp(u, "b/s"))
        per_byte = 1.0 / 8;
    else if (!strcmp(u, "B/s"))
        per_byte = 1;
    else
        return false;
    double r = x * mult * per_byte;
    if (!(r >= 1.0 / 8 && r <= 100e12 / 8))
        return false;
    *Bps = r;
    return true;
}

static bool parse_pct(const char *v, double *out)
{
    double x; /* decimal only: strtod would read "0x10" as 16 */
    if (!nv_parse_decimal(v, &x) || !(x >= 0 && x <= 10000))
        return false;
    *out = x;
    return true;
}

static void parse_app_fields(struct parse_ctx *p, struct nv_config *c, const char *v)
{
    int out[NV_APP_FIELDS_MAX] = {0}, n = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int f = !strcasecmp(t, "name")     ? NV_APPF_NAME
                : !strcasecmp(t, "script") ? NV_APPF_SCRIPT
                                           : 0;
        if (!strcasecmp(t, "none") && n == 0 && !strtok_r(NULL, ",", &save)) {
            memset(c->app_fields, 0, sizeof c->app_fields);
            return;
        }
        if (!f || n == NV_APP_FIELDS_MAX) {
            report(p,
                   "AppFields=%s: give name, script, both in order, or none; keeping the default",
                   v);
            return;
        }
        out[n++] = f;
    }
    memcpy(c->app_fields, out, sizeof out);
}

static bool set_path(struct parse_ctx *p, char *dst, size_t cap, const char *key, const char *v)
{
    if (v[0] != '/') {
        report(p, "%s=%s: needs an absolute path; keeping the default", key, v);
        return false;
    }
    if (strlen(v) >= cap) {
        report(p, "%s: path is too long; keeping the default", key);
        return false;
    }
    snprintf(dst, cap, "%s", v);
    return true;
}

static bool parse_uint(const char *v, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (!isdigit((unsigned char)v[0]) || *end || errno || n > max)
        return false;
    *out = (unsigned)n;
    return true;
}

static void apply(struct parse_ctx *p, struct nv_config *c, const char *key, const char *v)
{
    if (!strcasecmp(key, "ModelFile")) {
        set_path(p, c->model_file, sizeof c->model_file, key, v);
    } else if (!strcasecmp(key, "SpoolDir")) {
        set_path(p, c->spool_dir, sizeof c->spool_dir, key, v);
    } else if (!strcasecmp(key, "Mailer")) {
        set_path(p, c->mailer, sizeof c->mailer, key, v);
    } else if (!strcasecmp(key, "DefaultMode")) {
        nv_mode m = nv_mode_parse(v);
        if (m == NV_MODE_UNSET)
            report(p, "DefaultMode=%s: not one of %s; keeping %s", v, NV_MODE_CHOICES,
                   nv_mode_name(c->default_mode));
        else
            c->default_mode = m;
    } else if (!strcasecmp(key, "Enabled")) {
        if (!nv_parse_bool(v, &c->enabled))
            report(p, "Enabled=%s: not yes or no; keeping %s", v, c->enabled ? "yes" : "no");
    } else if (!strcasecmp(key, "AllowOff")) {
        if (!nv_parse_bool(v, &c->allow_off))
            report(p, "AllowOff=%s: not yes or no; keeping %s", v, c->allow_off ? "yes" : "no");
    } else if (!strcasecmp(key, "Predictor")) {
        static const char *const names[] = {"queue", "averagelt", "averagestdevlt", "pdflt"};
        bool ok = false;
        for (int i = 0; i < 4; i++)
            if (!strcasecmp(v, names[i])) {
                snprintf(c->predictor, sizeof c->predictor, "%s", names[i]);
                ok = true;
            }
        if (!ok)
            report(p,
                   "Predictor=%s: not one of queue, averagelt, averagestdevlt, pdflt; keeping %s",
                   v, c->predictor);
    } else if (!strcasecmp(key, "MinPairSamples")) {
        if (!parse_uint(v, 1000000, &c->min_pair_samples))
            report(p, "MinPairSamples=%s: not a whole number from 0 to 1000000; keeping %u", v,
                   c->min_pair_samples);
    } else if (!strcasecmp(key, "AnnotateField")) {
        if (!strcasecmp(v, "Comment"))
            c->annotate_field = NV_ANNOTATE_COMMENT;
        else if (!strcasecmp(v, "AdminComment"))
            c->annotate_field = NV_ANNOTATE_ADMIN_COMMENT;
        else if (!strcasecmp(v, "none"))
            c->annotate_field = NV_ANNOTATE_NONE;
        else
            report(p, "AnnotateField=%s: not Comment, AdminComment or none; keeping the default",
                   v);
    } else if (!strcasecmp(key, "AnnotateAll")) {
        if (!nv_parse_bool(v, &c->annotate_all))
            report(p, "AnnotateAll=%s: not yes or no; keeping %s", v,
                   c->annotate_all ? "yes" : "no");
    } else if (!strcasecmp(key, "InterferenceThreshold")) {
        if (!parse_pct(v, &c->interference_pct))
            report(p, "InterferenceThreshold=%s: not a percentage from 0 to 10000; keeping %g", v,
                   c->interference_pct);
    } else if (!strcasecmp(key, "AppFields")) {
        parse_app_fields(p, c, v);
    } else if (!strcasecmp(key, "ContainWaitSeconds")) {
        if (!parse_uint(v, 86400 * 7, &c->contain_wait_s))
            report(p, "ContainWaitSeconds=%s: not 0..604800 seconds; keeping %u", v,
                   c->contain_wait_s);
    } else if (!strcasecmp(key, "ContainSpanWaitSeconds")) {
        if (parse_uint(v, 86400 * 7, &c->contain_span_wait_s))
            c->contain_span_wait_set = true;
        else
            report(p, "ContainSpanWaitSeconds=%s: not 0..604800 seconds; keeping %s", v,
                   c->contain_span_wait_set ? "the value set before" : "ContainWaitSeconds");
    } else if (!strcasecmp(key, "AvoidUplinks")) {
        if (!strcasecmp(v, "contain"))
            c->avoid_uplinks = NV_AVOID_UPLINKS_CONTAIN;
        else if (!strcasecmp(v, "warn"))
            c->avoid_uplinks = NV_AVOID_UPLINKS_WARN;
        else
            report(p, "AvoidUplinks=%s: not contain or warn; keeping %s", v,
                   c->avoid_uplinks == NV_AVOID_UPLINKS_WARN ? "warn" : "contain");
    } else if (!strcasecmp(key, "MaxNeighbourApps")) {
        unsigned n;
        if (!parse_uint(v, 4096, &n) || n == 0)
            report(p, "MaxNeighbourApps=%s: not 1..4096; keeping %u", v, c->max_neighbour_apps);
        else
            c->max_neighbour_apps = n;
    } else if (!strcasecmp(key, "RegistryCheckSeconds")) {
        if (!parse_uint(v, 86400, &c->registry_check_s))
            report(p, "RegistryCheckSeconds=%s: not 0..86400 seconds; keeping %u", v,
                   c->registry_check_s);
    } else if (!strcasecmp(key, "UserMessages")) {
        size_t k = 0;
        while (k < sizeof umsg_names / sizeof *umsg_names && strcasecmp(v, umsg_names[k]))
            k++;
        if (k < sizeof umsg_names / sizeof *umsg_names)
            c->user_messages = (enum nv_user_messages)k;
        else
            report(p, "UserMessages=%s: not none, actions, predictions or all; keeping %s", v,
                   nv_user_messages_name(c->user_messages));
    } else if (!strcasecmp(key, "UplinkRate")) {
        if (!nv_config_parse_rate(v, &c->uplink_rate_Bps))
            report(p,
                   "UplinkRate=%s: not a rate with its unit (10Gbit/s, 100mbit, 1.25GB/s), "
                   "1 bit/s to 100 Tbit/s; keeping it unset (records carry no bottleneck U)",
                   v);
    } else if (!strcasecmp(key, "UplinksPerLeaf")) {
        unsigned n;
        if (!parse_uint(v, 4096, &n) || n == 0)
            report(p, "UplinksPerLeaf=%s: not 1..4096 uplinks; keeping %u", v, c->uplinks_per_leaf);
        else
            c->uplinks_per_leaf = n;
    } else if (!strcasecmp(key, "Rule")) {
        char why[384];
        if (nv_policy_parse_rule(&c->policy, v, p->line, why, sizeof why))
            report(p, "Rule: %s; the rule is ignored", why);
    } else {
        report(p, "unknown key '%s'; ignoring the line", key);
    }
}

static void report_rule(void *ctx, int line, const char *why)
{
    struct parse_ctx *p = ctx;
    p->line = line;
    report(p, "%s", why);
}

static void warn_rule(void *ctx, int line, const char *why)
{
    struct parse_ctx *p = ctx;
    char msg[512];
    snprintf(msg, sizeof msg, "%s:%d: warning: %s", p->name, line, why);
    if (p->err)
        p->err(p->ctx, msg);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* keys given once (Rule may repeat): the line each was first given on */
static const char *const single_keys[] = {
    "ModelFile", "SpoolDir",           "DefaultMode",   "Enabled",          "AllowOff",
    "Predictor", "MinPairSamples",     "AnnotateField", "AnnotateAll",      "InterferenceThreshold",
    "AppFields", "ContainWaitSeconds", "AvoidUplinks",  "MaxNeighbourApps", "RegistryCheckSeconds",
    "Mailer",    "UserMessages",       "UplinkRate",    "UplinksPerLeaf"};
#define NSINGLE (sizeof single_keys / sizeof *single_keys)

int nv_config_parse(const char *name, const char *text, struct nv_config *c, nv_config_error_fn err,
                    void *ctx)
{
    struct parse_ctx p = {name ? name : "netvar.conf", 0, 0, err, ctx};
    int first_line[NSINGLE] = {0};
    nv_config_defaults(c);
    const char *s = text;
    while (s && *s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[1024];
        p.line++;
        if (len >= sizeof line) {
            report(&p, "line is longer than %zu characters; ignoring it", sizeof line - 1);
        } else {
            memcpy(line, s, len);
            line[len] = '\0';
            bool quoted = false; /* '#' inside "..." belongs to a rule's text */
            for (char *h = line; *h; h++) {
                if (*h == '"')
                    quoted = !quoted;
                else if (*h == '#' && !quoted) {
                    *h = '\0';
                    break;
                }
            }
            char *t = trim(line);
            if (*t) {
                char *eq = strchr(t, '=');
                if (!eq) {
                    report(&p, "'%s' is not Key=Value; ignoring the line", t);
                } else {
                    *eq = '\0';
                    char *key = trim(t), *val = trim(eq + 1);
                    size_t k = 0;
                    while (k < NSINGLE && strcasecmp(key, single_keys[k]))
                        k++;
                    if (!*key || !*val)
                        report(&p, "empty key or value; ignoring the line");
                    else if (k < NSINGLE && first_line[k])
                        report(&p, "%s given again (first on line %d); ignoring this line",
                               single_keys[k], first_line[k]);
                    else {
                        if (k < NSINGLE)
                            first_line[k] = p.line;
                        apply(&p, c, key, val);
                    }
                }
            }
        }
        s = nl ? nl + 1 : NULL;
    }
    nv_policy_check(&c->policy, report_rule, &p);
    nv_policy_warn(&c->policy, warn_rule, &p);
    return p.errors;
}

int nv_config_load(const char *path, struct nv_config *c, nv_config_error_fn err, void *ctx)
{
    return nv_config_load_opt(path, true, c, err, ctx, NULL);
}

int nv_config_load_opt(const char *path, bool must_exist, struct nv_config *c,
                       nv_config_error_fn err, void *ctx, bool *missing)
{
    struct parse_ctx p = {path, 0, 0, err, ctx};
    char why[200];
    size_t n;
    if (missing)
        *missing = false;
    nv_config_defaults(c);
    if (!must_exist && path && access(path, F_OK) != 0 && errno == ENOENT) {
        if (missing)
            *missing = true;
        return 0;
    }
    /* the admin's path: a link is followed; a FIFO, device, directory or
     * a NUL byte is refused without blocking (safe_open.h) */
    char *buf = nv_read_admin_file(path, CONFIG_MAX_BYTES, true, &n, why, sizeof why);
    if (!buf) {
        report(&p, "%s; using the defaults", why);
        return p.errors;
    }
    int e = nv_config_parse(path, buf, c, err, ctx);
    free(buf);
    return e;
}

int nv_config_resolve_users(struct nv_config *c, const char *name, nv_config_error_fn err,
                            void *ctx)
{
    struct parse_ctx p = {name ? name : "netvar.conf", 0, 0, err, ctx};
    long size = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t cap = size > 0 ? (size_t)size : 16384;
    char *buf = malloc(cap);
    for (int i = 0; i < c->policy.n; i++) {
        struct nv_policy_list *l = &c->policy.rule[i].match[NV_PF_USER];
        for (int k = 0; k < l->n; k++) {
            char *s = l->item[k], *end;
            strtoul(s, &end, 10);
            if (!strcmp(s, "*") || (*s && !*end))
                continue;
            struct passwd pw, *found = NULL;
            while (buf && getpwnam_r(s, &pw, buf, cap, &found) == ERANGE && cap < (1u << 20)) {
                char *bigger = realloc(buf, cap * 2);
                if (!bigger)
                    break;
                buf = bigger;
                cap *= 2;
            }
            p.line = c->policy.rule[i].line;
            if (!found) {
                report(&p, "rule '%s': user '%s' does not exist; the rule will not match it",
                       c->policy.rule[i].name, s);
                continue;
            }
            snprintf(s, NV_POLICY_WORD_MAX, "%u", (unsigned)found->pw_uid);
        }
    }
    free(buf);
    return p.errors;
}
