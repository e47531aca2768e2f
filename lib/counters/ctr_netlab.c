/* ctr_netlab.c - the network lab sampler's counter file read back
 * (ctr_netlab.h). */
#include "ctr_netlab.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"

#define GAP_S_PER_MS 0.45e-3 /* a pass closer than 0.45 interval is the final read */
#define STEP_S 0.1           /* the sampler's step a W window must exceed */

void nv_netlab_free(nv_netlab_file *f)
{
    if (!f)
        return;
    free(f->steps);
    memset(f, 0, sizeof *f);
}

double nv_netlab_mean(const double *v, size_t n)
{
    if (!n)
        return NAN;
    double s = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        double t = s + v[i];
        c += fabs(s) >= fabs(v[i]) ? (s - t) + v[i] : (v[i] - t) + s;
        s = t;
    }
    return (s + c) / (double)n;
}

/* a number member or dflt when absent, null or 0 (the sampler's "or"
 * defaults); -1 when present but not a finite number */
static int num_or(json_object *o, const char *key, double dflt, double *out)
{
    double v;
    int r = nv_json_num_strict(o, key, &v);
    if (r < 0)
        return -1;
    *out = r == 0 || v == 0 ? dflt : v;
    return 0;
}

/* one series row: t, dev, backlog, bytes; 0, 1 too short (skipped, as the
 * sampler's readers always have), -1 malformed */
struct row {
    double t;
    int dev;
    int64_t backlog, bytes;
};

static int whole(json_object *x, int64_t *out)
{
    if (!json_object_is_type(x, json_type_int))
        return -1;
    errno = 0;
    *out = json_object_get_int64(x);
    return errno ? -1 : 0;
}

static int get_row(json_object *r, struct row *out)
{
    if (!json_object_is_type(r, json_type_array))
        return -1;
    if (json_object_array_length(r) < 5)
        return 1;
    json_object *t = json_object_array_get_idx(r, 0);
    int64_t dev;
    if (!(json_object_is_type(t, json_type_double) || json_object_is_type(t, json_type_int)) ||
        whole(json_object_array_get_idx(r, 1), &dev) ||
        whole(json_object_array_get_idx(r, 2), &out->backlog) ||
        whole(json_object_array_get_idx(r, 4), &out->bytes))
        return -1;
    out->t = json_object_get_double(t);
    if (!isfinite(out->t) || dev < 0 || dev >= NV_NETLAB_MAX_DEVS)
        return -1;
    out->dev = (int)dev;
    return 0;
}

struct prev {
    int have;
    double t;
    int64_t bytes;
};

/* one kept pass (rows[0..n)) into a step; prev[] carries each end's last row */
static void rate_pass(const struct row *rows, size_t n, const double *rate, struct prev *prev,
                      nv_netlab_step *s)
{
    memset(s, 0, sizeof *s);
    s->t_s = rows[0].t;
    for (size_t k = 0; k < n; k++) {
        const struct row *r = &rows[k];
        struct prev *p = &prev[r->dev];
        if (rate[r->dev] > 0) {
            if (p->have && r->t > p->t) {
                double u = (double)(r->bytes - p->bytes) / (r->t - p->t) / rate[r->dev];
                if (!s->has_u || u > s->u)
                    s->u = u;
                s->has_u = 1;
            }
            double w = (double)r->backlog / rate[r->dev] * 1e6;
            if (!s->has_w || w > s->w_us)
                s->w_us = w;
            s->has_w = 1;
        }
        *p = (struct prev){1, r->t, r->bytes};
    }
}

static int parse_uplinks(json_object *o, nv_netlab_file *f, double *rate, char *err, size_t errlen)
{
    json_object *ups = nv_json_get(o, "uplink", json_type_array);
    size_t n = ups ? json_object_array_length(ups) : 0;
    if (n > NV_NETLAB_MAX_DEVS)
        return nv_err(err, errlen, "%zu uplink ends (at most %d)", n, NV_NETLAB_MAX_DEVS);
    f->n_uplinks = (int)n;
    f->offered_ratio = 1.0;
    for (size_t i = 0; i < n; i++) {
        json_object *u = json_object_array_get_idx(ups, i);
        double sent, drops, pkt;
        if (!json_object_is_type(u, json_type_object) ||
            num_or(u, "rate_bytes_per_s", 0, &rate[i]) || num_or(u, "bytes_per_s", 0, &sent) ||
            num_or(u, "drops", 0, &drops) || num_or(u, "mean_packet_bytes", 0, &pkt) || rate[i] < 0)
            return nv_err(err, errlen,
                          "uplink[%zu]: rate_bytes_per_s, bytes_per_s, drops or "
                          "mean_packet_bytes is not a number >= 0",
                          i);
        if (sent > 0 && f->elapsed_s > 0) {
            double r = (sent + drops * pkt / f->elapsed_s) / sent;
            if (r > f->offered_ratio)
                f->offered_ratio = r;
        }
    }
    return 0;
}

static int parse_series(json_object *series, nv_netlab_file *f, const double *rate, char *err,
                        size_t errlen)
{
    size_t n = json_object_array_length(series);
    if (n > NV_NETLAB_MAX_ROWS)
        return nv_err(err, errlen, "series: %zu rows (at most %u)", n, NV_NETLAB_MAX_ROWS);
    struct row *rows = malloc((n ? n : 1) * sizeof *rows);
    f->steps = malloc((n ? n : 1) * sizeof *f->steps);
    if (!rows || !f->steps) {
        free(rows);
        return nv_err(err, errlen, "out of memory for %zu series rows", n);
    }
    struct prev prev[NV_NETLAB_MAX_DEVS] = {{0}};
    double gap = f->interval_ms * GAP_S_PER_MS;
    size_t first = 0, m = 0; /* the pass being gathered: rows[first..m) */
    for (size_t i = 0; i <= n; i++) {
        struct row r = {0};
        int got = 1;
        if (i < n && (got = get_row(json_object_array_get_idx(series, i), &r)) < 0) {
            free(rows);
            return nv_err(err, errlen,
                          "series[%zu]: not [t_s, dev 0..%d, backlog, qlen, bytes] "
                          "with whole counters",
                          i, NV_NETLAB_MAX_DEVS - 1);
        }
        if (got == 1 && i < n)
            continue;
        if (m > first && (i == n || r.dev <= rows[m - 1].dev)) { /* the pass is complete */
            if (!f->n_steps || rows[first].t - f->steps[f->n_steps - 1].t_s >= gap) {
                rate_pass(rows + first, m - first, rate, prev, &f->steps[f->n_steps]);
                f->n_steps++;
            }
            first = m;
        }
        if (i < n)
            rows[m++] = r;
    }
    free(rows);
    return 0;
}

static json_object *parse_json(const char *text, size_t len, char *err, size_t errlen)
{
    json_tokener *tok = json_tokener_new();
    json_object *o = tok && len < INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    enum json_tokener_error je = tok ? json_tokener_get_error(tok) : json_tokener_error_depth;
    size_t end = o ? (size_t)json_tokener_get_parse_end(tok) : 0;
    while (o && end < len && text[end] && strchr(" \t\r\n", text[end]))
        end++;
    if (tok)
        json_tokener_free(tok);
    if (!o || je != json_tokener_success || end < len) {
        json_object_put(o);
        nv_err(err, errlen, "not valid JSON (%s)",
               o                             ? "text after the document"
               : je == json_tokener_continue ? "truncated"
                                             : json_tokener_error_desc(je));
        return NULL;
    }
    return o;
}

json_object *nv_netlab_json_read(const char *path, size_t max_bytes, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = nv_read_file(path, max_bytes, &len, err, errlen);
    json_object *o = text ? parse_json(text, len, err, errlen) : NULL;
    free(text);
    return o;
}

int nv_netlab_parse(const char *text, size_t len, nv_netlab_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    json_object *o = parse_json(text, len, err, errlen);
    if (!o)
        return -1;
    double rate[NV_NETLAB_MAX_DEVS] = {0};
    json_object *series = nv_json_get(o, "series", json_type_array);
    int rc = -1;
    if (nv_json_schema_check(o, NV_NETLAB_COUNTERS_SCHEMA, NV_NETLAB_COUNTERS_VERSION, err, errlen))
        goto out;
    if (num_or(o, "interval_ms", 100, &f->interval_ms) || f->interval_ms < 0 ||
        num_or(o, "elapsed_s", 0, &f->elapsed_s)) {
        nv_err(err, errlen, "interval_ms or elapsed_s is not a number");
        goto out;
    }
    if (parse_uplinks(o, f, rate, err, errlen) ||
        (series && parse_series(series, f, rate, err, errlen)))
        goto out;
    rc = 0;
out:
    json_object_put(o);
    if (rc)
        nv_netlab_free(f);
    return rc;
}

int nv_netlab_read(const char *path, nv_netlab_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 1;
    size_t len = 0;
    char *text = nv_read_file(path, NV_NETLAB_FILE_MAX, &len, err, errlen);
    if (!text)
        return -1;
    int rc = nv_netlab_parse(text, len, f, err, errlen);
    free(text);
    return rc;
}

int nv_netlab_window(const nv_netlab_file *f, double runtime_s, double trim_s, int which,
                     double *lo, double *hi)
{
    const nv_netlab_step *first = NULL, *last = NULL, *busy = NULL;
    for (size_t i = 0; i < f->n_steps; i++) {
        const nv_netlab_step *s = &f->steps[i];
        if (which == 'u' ? s->has_u : s->has_w) {
            if (!first)
                first = s;
            last = s;
        }
        if (s->has_u && s->u > NV_NETLAB_BUSY_U)
            busy = s;
    }
    if (!first)
        return -1;
    if (runtime_s > 0) {
        double end = busy ? busy->t_s : last->t_s;
        *lo = end - runtime_s;
        *hi = end;
    } else {
        *lo = first->t_s + trim_s;
        *hi = last->t_s - trim_s;
    }
    return 0;
}

/* grows *v to hold *n + k doubles; 0 or -1 */
static int grow(void **v, size_t elem, size_t n, size_t k)
{
    if (!k)
        return 0;
    void *g = realloc(*v, (n + k) * elem);
    if (!g)
        return -1;
    *v = g;
    return 0;
}

static inline int in(const nv_netlab_step *s, double lo, double hi)
{
    return lo <= s->t_s && s->t_s <= hi;
}

long nv_netlab_u_values(const nv_netlab_file *f, double runtime_s, double trim_s, double **v,
                        size_t *n)
{
    double lo, hi;
    if (nv_netlab_window(f, runtime_s, trim_s, 'u', &lo, &hi))
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < f->n_steps; i++)
        k += f->steps[i].has_u && in(&f->steps[i], lo, hi);
    if (grow((void **)v, sizeof **v, *n, k))
        return -1;
    for (size_t i = 0; i < f->n_steps; i++)
        if (f->steps[i].has_u && in(&f->steps[i], lo, hi)) {
            double u = f->steps[i].u * f->offered_ratio;
            (*v)[(*n)++] = u < 1.0 ? u : 1.0;
        }
    return (long)k;
}

long nv_netlab_w_values(const nv_netlab_file *f, double runtime_s, double trim_s, double window_s,
                        double **v, size_t *n)
{
    double lo, hi;
    if (nv_netlab_window(f, runtime_s, trim_s, 'w', &lo, &hi))
        return 0;
    size_t k = 0, first = f->n_steps;
    for (size_t i = 0; i < f->n_steps; i++)
        if (f->steps[i].has_w && in(&f->steps[i], lo, hi)) {
            if (first == f->n_steps)
                first = i;
            k++;
        }
    if (!k)
        return 0;
    if (!(window_s > STEP_S + 1e-9)) {
        if (grow((void **)v, sizeof **v, *n, k))
            return -1;
        for (size_t i = first; i < f->n_steps; i++)
            if (f->steps[i].has_w && in(&f->steps[i], lo, hi))
                (*v)[(*n)++] = f->steps[i].w_us;
        return (long)k;
    }
    /* consecutive windows from the first step kept: each one's mean */
    double t0 = f->steps[first].t_s, *x = malloc(k * sizeof *x);
    if (!x)
        return -1;
    long made = 0;
    size_t nx = 0;
    double cur = -1;
    for (size_t i = first; i <= f->n_steps; i++) {
        const nv_netlab_step *s = i < f->n_steps ? &f->steps[i] : NULL;
        if (s && !(s->has_w && in(s, lo, hi)))
            continue;
        double bin = s ? floor((s->t_s - t0) / window_s) : -2;
        if (nx && bin != cur) {
            if (grow((void **)v, sizeof **v, *n, 1)) {
                free(x);
                *n -= (size_t)made;
                return -1;
            }
            (*v)[(*n)++] = nv_netlab_mean(x, nx);
            made++;
            nx = 0;
        }
        if (s) {
            cur = bin;
            x[nx++] = s->w_us;
        }
    }
    free(x);
    return made;
}

size_t nv_netlab_joint_mean(const nv_netlab_file *f, double runtime_s, double trim_s,
                            nv_netlab_uw *mean)
{
    *mean = (nv_netlab_uw){NAN, NAN};
    double lo, hi;
    if (nv_netlab_window(f, runtime_s, trim_s, 'u', &lo, &hi))
        return 0;
    double *u = malloc((f->n_steps ? f->n_steps : 1) * sizeof *u);
    double *w = malloc((f->n_steps ? f->n_steps : 1) * sizeof *w);
    size_t k = 0;
    for (size_t i = 0; u && w && i < f->n_steps; i++) {
        const nv_netlab_step *s = &f->steps[i];
        if (s->has_u && s->has_w && in(s, lo, hi)) {
            double x = s->u * f->offered_ratio;
            u[k] = x < 1.0 ? x : 1.0;
            w[k++] = s->w_us;
        }
    }
    if (k)
        *mean = (nv_netlab_uw){nv_netlab_mean(u, k), nv_netlab_mean(w, k)};
    free(u);
    free(w);
    return k;
}

long nv_netlab_joint_windows(const nv_netlab_file *f, double runtime_s, double trim_s, double win_s,
                             nv_netlab_uw **v, size_t *n)
{
    double lo, hi;
    if (!(win_s > 0) || nv_netlab_window(f, runtime_s, trim_s, 'u', &lo, &hi))
        return 0;
    size_t need = (size_t)(win_s / STEP_S * 0.5);
    if (need < 1)
        need = 1;
    double *u = malloc((f->n_steps ? f->n_steps : 1) * sizeof *u);
    double *w = malloc((f->n_steps ? f->n_steps : 1) * sizeof *w);
    size_t base = *n;
    long made = 0;
    int have_t0 = 0;
    double t0 = 0, cur = -1;
    size_t nx = 0;
    for (size_t i = 0; u && w && i <= f->n_steps; i++) {
        const nv_netlab_step *s = i < f->n_steps ? &f->steps[i] : NULL;
        if (s && !(s->has_u && s->has_w && in(s, lo, hi)))
            continue;
        if (s && !have_t0) {
            t0 = s->t_s;
            have_t0 = 1;
        }
        double bin = s ? floor((s->t_s - t0) / win_s) : -2;
        if (nx && bin != cur) {
            if (nx >= need) {
                if (grow((void **)v, sizeof **v, *n, 1)) {
                    *n = base;
                    made = -1;
                    break;
                }
                (*v)[(*n)++] = (nv_netlab_uw){nv_netlab_mean(u, nx), nv_netlab_mean(w, nx)};
                made++;
            }
            nx = 0;
        }
        if (s) {
            double x = s->u * f->offered_ratio;
            cur = bin;
            u[nx] = x < 1.0 ? x : 1.0;
            w[nx++] = s->w_us;
        }
    }
    if (!u || !w)
        made = -1;
    free(u);
    free(w);
    return made;
}
