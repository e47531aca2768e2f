/* config.c - parses netvar.conf (see config.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

void nv_config_defaults(struct nv_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->model_file, sizeof c->model_file, "/var/lib/netvar/model.json");
    snprintf(c->spool_dir, sizeof c->spool_dir, "/var/spool/netvar");
    c->default_mode = NV_MODE_COUNTERS;
    c->allow_off = true;
    snprintf(c->predictor, sizeof c->predictor, "queue");
    c->min_pair_samples = 3;
    c->annotate_field = NV_ANNOTATE_COMMENT;
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
    } else if (!strcasecmp(key, "DefaultMode")) {
        nv_mode m = nv_mode_parse(v);
        if (m == NV_MODE_UNSET)
            report(p, "DefaultMode=%s: not one of %s; keeping %s", v, NV_MODE_CHOICES,
                   nv_mode_name(c->default_mode));
        else
            c->default_mode = m;
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
            report(p, "Predictor=%s: not one of queue, averagelt, averagestdevlt, pdflt; keeping %s",
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
            report(p, "AnnotateField=%s: not Comment, AdminComment or none; keeping the default", v);
    } else {
        report(p, "unknown key '%s'; ignoring the line", key);
    }
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

int nv_config_parse(const char *name, const char *text, struct nv_config *c,
                    nv_config_error_fn err, void *ctx)
{
    struct parse_ctx p = {name ? name : "netvar.conf", 0, 0, err, ctx};
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
            char *hash = strchr(line, '#');
            if (hash)
                *hash = '\0';
            char *t = trim(line);
            if (*t) {
                char *eq = strchr(t, '=');
                if (!eq) {
                    report(&p, "'%s' is not Key=Value; ignoring the line", t);
                } else {
                    *eq = '\0';
                    char *key = trim(t), *val = trim(eq + 1);
                    if (!*key || !*val)
                        report(&p, "empty key or value; ignoring the line");
                    else
                        apply(&p, c, key, val);
                }
            }
        }
        s = nl ? nl + 1 : NULL;
    }
    return p.errors;
}

int nv_config_load(const char *path, struct nv_config *c, nv_config_error_fn err, void *ctx)
{
    struct parse_ctx p = {path, 0, 0, err, ctx};
    FILE *f = fopen(path, "re");
    if (!f) {
        nv_config_defaults(c);
        report(&p, "cannot open: %s; using the defaults", strerror(errno));
        return p.errors;
    }
    char *buf = malloc(CONFIG_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        nv_config_defaults(c);
        report(&p, "out of memory; using the defaults");
        return p.errors;
    }
    size_t n = fread(buf, 1, CONFIG_MAX_BYTES + 1, f);
    fclose(f);
    if (n > CONFIG_MAX_BYTES) {
        free(buf);
        nv_config_defaults(c);
        report(&p, "larger than 1 MiB; using the defaults");
        return p.errors;
    }
    buf[n] = '\0';
    int e = nv_config_parse(path, buf, c, err, ctx);
    free(buf);
    return e;
}
