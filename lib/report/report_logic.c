/* report_logic.c - pure helpers of `netvar report` (report_logic.h). */
#include "report_logic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotation.h"
#include "nv_err.h"
#include "nv_json.h"
#include "policy.h"

static double clean(double v)
{
    return isfinite(v) ? v : 0;
}

static const uint32_t *g_cluster, *g_sig; /* qsort context */

static int cmp_group(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (g_cluster[i] != g_cluster[j])
        return g_cluster[i] < g_cluster[j] ? -1 : 1;
    if (g_sig[i] != g_sig[j])
        return g_sig[i] < g_sig[j] ? -1 : 1;
    return (i > j) - (i < j);
}

long nv_report_segment_flags(const double *work, const double *time_us, const uint32_t *sig,
                             size_t n, const nv_seg_estimate_opts *o, unsigned char *interfered)
{
    if (!o || (n && (!work || !time_us || !sig || !interfered)) || n > (SIZE_MAX >> 4))
        return -1;
    if (n == 0)
        return 0;
    memset(interfered, 0, n);
    uint32_t *cluster = malloc(n * sizeof *cluster);
    size_t *order = malloc(n * sizeof *order);
    double *w = malloc(n * sizeof *w), *t = malloc(n * sizeof *t),
           *scratch = malloc(n * sizeof *scratch);
    long flagged = -1;
    if (!cluster || !order || !w || !t || !scratch)
        goto out;
    for (size_t i = 0; i < n; i++)
        w[i] = clean(work[i]);
    if (nv_seg_cluster_relative(w, n, o->rel_threshold, cluster) < 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    g_cluster = cluster;
    g_sig = sig;
    qsort(order, n, sizeof *order, cmp_group);
    flagged = 0;
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && cluster[order[e]] == cluster[order[s]] && sig[order[e]] == sig[order[s]])
            e++;
        size_t m = e - s;
        if (m >= o->min_group) {
            for (size_t k = 0; k < m; k++)
                t[k] = clean(time_us[order[s + k]]);
            double med = nv_seg_median_inplace(t, m);
            double thr = med + o->mad_factor * nv_seg_mad(t, m, med, scratch);
            for (size_t k = 0; k < m; k++)
                if (clean(time_us[order[s + k]]) > thr) {
                    interfered[order[s + k]] = 1;
                    flagged++;
                }
        }
        s = e;
    }
out:
    free(cluster);
    free(order);
    free(w);
    free(t);
    free(scratch);
    return flagged;
}

static void copy_str(json_object *o, const char *key, char *dst, size_t cap)
{
    const char *v = nv_json_str(o, key);
    if (v)
        snprintf(dst, cap, "%s", v);
}

int nv_report_action_moved(const nv_report_annotation *an)
{
    /* the names job_submit writes (policy.c spells them once) */
    static const enum nv_action moved[] = {NV_ACT_DENY, NV_ACT_HOLD, NV_ACT_ISOLATE, NV_ACT_CONTAIN,
                                           NV_ACT_AVOID};
    if (!an || !an->recorded)
        return 0;
    for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++)
        if (!strcmp(an->action, nv_action_name(moved[i])))
            return 1;
    return 0;
}

int nv_report_kept_apart(const nv_report_annotation *an, const char *const *neighbour_apps,
                         const int64_t *neighbour_jobs, size_t n, int complete)
{
    if (!nv_report_action_moved(an) || !an->against_app[0] || !complete)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (neighbour_apps && neighbour_apps[i] && !strcmp(neighbour_apps[i], an->against_app))
            return 0;
        if (neighbour_jobs && an->against_job && neighbour_jobs[i] == an->against_job)
            return 0; /* the very job predicted against, whatever its app is called */
    }
    return 1;
}

int nv_report_annotation_from_record(json_object *rec, nv_report_annotation *out, char *err,
                                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->own_pct = out->inflicted_pct = out->single_pct = NAN;
    json_object *v = NULL, *parsed = NULL, *a = NULL;
    if (!rec)
        return 0;
    const char *field = "annotation";
    if (!json_object_object_get_ex(rec, "annotation", &v) || !v) {
        field = "comment";
        if (!json_object_object_get_ex(rec, "comment", &v) || !v)
            return 0;
    }
    if (json_object_is_type(v, json_type_object))
        a = v;
    else if (json_object_is_type(v, json_type_string)) {
        const char *s = strstr(json_object_get_string(v), NV_ANNOTATION_PREFIX "{");
        if (!s)
            return 0; /* a comment of the user's own */
        s += strlen(NV_ANNOTATION_PREFIX);
        size_t len = strnlen(s, NV_ANNOTATION_MAX);
        json_tokener *tok = json_tokener_new();
        parsed = tok ? json_tokener_parse_ex(tok, s, (int)len) : NULL;
        json_tokener_free(tok);
        if (!parsed || !json_object_is_type(parsed, json_type_object)) {
            json_object_put(parsed);
            return nv_err(err, errlen, "%s: the netvar annotation is not a JSON object", field);
        }
        a = parsed;
    } else {
        return nv_err(err, errlen, "%s: expected a string or an object", field);
    }
    out->recorded = 1;
    out->own_pct = nv_json_num(a, "own_pct");
    out->inflicted_pct = nv_json_num(a, "inflicted_pct");
    double adv = nv_json_num(a, "advice_nodes");
    out->advice_nodes = isfinite(adv) && adv >= 1 && adv < 1e9 ? (unsigned)adv : 0;
    copy_str(a, "src", out->source, sizeof out->source);
    copy_str(a, "action", out->action, sizeof out->action);
    copy_str(a, "mode", out->mode, sizeof out->mode);
    copy_str(a, "vs", out->against_app, sizeof out->against_app);
    if (out->against_app[0] && !nv_model_key_valid(out->against_app))
        out->against_app[0] = '\0'; /* not an app key: names nothing */
    double vj = nv_json_num(a, "vs_job");
    out->against_job = isfinite(vj) && vj >= 1 && vj < 4294967296.0 ? (int64_t)vj : 0;
    double vn = nv_json_num(a, "vs_n"), vu = nv_json_num(a, "vs_uplinks");
    out->vs_n = isfinite(vn) && vn >= 1 && vn < 1e6 ? (unsigned)vn : 0;
    out->vs_uplinks = isfinite(vu) && vu >= 1 && vu < 1e6 ? (unsigned)vu : 0;
    out->single_pct = nv_json_num(a, "single_pct");
    json_object_put(parsed);
    return 0;
}

/* 1 when two running jobs' paths may meet at an uplink (predict.h, the
 * paths): both cross one, and they have a leaf switch in common, so both
 * send through its uplinks.  Comma-separated lists; a job without a list
 * shares with every job; a job under one leaf switch (a list of one name)
 * crosses no uplink and shares with none.  (Two jobs across disjoint leaf
 * sets use different leaves' uplinks: in a two-level tree they share no
 * port; a deeper tree's higher links are not looked at.) */
int nv_report_paths_meet(const char *x, const char *y)
{
    if (!x || !*x || !y || !*y)
        return 1;
    if (!strchr(x, ',') || !strchr(y, ','))
        return 0;
    for (const char *p = x; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        for (const char *q = y; *q;) {
            const char *f = strchr(q, ',');
            size_t m = f ? (size_t)(f - q) : strlen(q);
            if (l && l == m && !strncmp(p, q, l))
                return 1;
            q += m + (f != NULL);
        }
        p += l + (e != NULL);
    }
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    const nv_report_pair *x = a, *y = b;
    if (x->slowdown_pct != y->slowdown_pct)
        return x->slowdown_pct > y->slowdown_pct ? -1 : 1;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return (x->b > y->b) - (x->b < y->b);
}

size_t nv_report_cluster_pairs(const nv_model *m, const char *const *apps,
                               const char *const *switches, size_t n, nv_predictor predictor,
                               nv_report_pair *out, size_t max)
{
    size_t total = 0, kept = 0;
    if (!m || !apps)
        return 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (i == j || !apps[i] || !apps[j] ||
                !nv_report_paths_meet(switches ? switches[i] : NULL, switches ? switches[j] : NULL))
                continue;
            nv_prediction p;
            const char *with = apps[j];
            if (nv_predict(m, apps[i], &with, 1, predictor, NV_DEFAULT_MIN_SAMPLES, &p, NULL) !=
                NV_PRED_OK)
                continue;
            total++;
            nv_report_pair r = {i, j, p.slowdown_pct, p.source_label};
            /* insertion into the sorted top-max list */
            size_t k = kept < max ? kept++ : max;
            if (k == max && (!max || cmp_pair(&r, &out[max - 1]) >= 0))
                continue;
            if (k == max)
                k = max - 1;
            while (k > 0 && cmp_pair(&r, &out[k - 1]) < 0) {
                out[k] = out[k - 1];
                k--;
            }
            out[k] = r;
        }
    return total;
}

double nv_profile_matrix_bytes(json_object *profile)
{
    json_object *bytes = nv_json_get(nv_json_get(profile, "traffic_matrix", json_type_object),
                                     "bytes", json_type_array);
    if (!bytes || !nv_json_get(profile, "placement", json_type_array))
        return -1;
    double t = 0;
    for (size_t r = 0; r < json_object_array_length(bytes); r++) {
        json_object *row = json_object_array_get_idx(bytes, r);
        for (size_t c = 0;
             json_object_is_type(row, json_type_array) && c < json_object_array_length(row); c++)
            t += json_object_get_double(json_object_array_get_idx(row, c));
    }
    return isfinite(t) ? t : 0;
}
