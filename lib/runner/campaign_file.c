/* campaign_file.c - the reader of a campaign's rounds (campaign_file.h) */
#include "campaign_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"

/* a runtime_s array of n rounds (n 0: its length sets it) */
static int rounds(json_object *a, double *v, size_t *n, const char *path, const char *what,
                  char *err, size_t errlen)
{
    size_t len = a ? json_object_array_length(a) : 0;
    if (!a || len == 0 || len > NV_CAMPAIGN_MAX_REPEAT)
        return nv_err(err, errlen, "%s: %s: needs a runtime_s array of 1 to %d rounds", path, what,
                      NV_CAMPAIGN_MAX_REPEAT);
    if (*n && len != *n)
        return nv_err(err, errlen, "%s: %s: %zu rounds, where the baseline has %zu", path, what,
                      len, *n);
    for (size_t k = 0; k < len; k++) {
        json_object *x = json_object_array_get_idx(a, k);
        double t = NAN;
        if (json_object_is_type(x, json_type_double) || json_object_is_type(x, json_type_int))
            t = json_object_get_double(x);
        if (!(isfinite(t) && t > 0))
            return nv_err(err, errlen, "%s: %s: round %zu is not a runtime in seconds > 0", path,
                          what, k + 1);
        v[k] = t;
    }
    *n = len;
    return 0;
}

int nv_campaign_rounds_read(const char *path, nv_campaign_rounds *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char why[256];
    json_object *o = nv_json_read_file(path, NV_CAMPAIGN_FILE_MAX, why, sizeof why);
    if (!o)
        return nv_err(err, errlen, "%s: %s", path, why);
    int rc = -1;
    json_object *b = nv_json_get(o, "baseline", json_type_object),
                *cfgs = nv_json_get(o, "configs", json_type_array),
                *rule = nv_json_get(o, "point_rule", json_type_string);
    size_t nc = cfgs ? json_object_array_length(cfgs) : 0;
    if (!b || !cfgs || nc > NV_CAMPAIGN_MAX_CONFIGS) {
        nv_err(err, errlen, "%s: needs a baseline object and a configs array (at most %d)", path,
               NV_CAMPAIGN_MAX_CONFIGS);
        goto out;
    }
    snprintf(out->point_rule, sizeof out->point_rule, "%s",
             rule ? json_object_get_string(rule) : "median");
    if (rounds(nv_json_get(b, "runtime_s", json_type_array), out->r.baseline_s, &out->repeat, path,
               "baseline", err, errlen))
        goto out;
    out->r.configs = calloc(nc ? nc : 1, sizeof *out->r.configs);
    out->id = calloc(nc ? nc : 1, sizeof *out->id);
    if (!out->r.configs || !out->id) {
        nv_err(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < nc; i++) {
        json_object *c = json_object_array_get_idx(cfgs, i),
                    *id = nv_json_get(c, "id", json_type_string);
        const char *s = id ? json_object_get_string(id) : "";
        if (!*s || strlen(s) >= sizeof out->id[i]) {
            nv_err(err, errlen, "%s: configs[%zu]: needs an id of 1 to %zu characters", path, i,
                   sizeof out->id[i] - 1);
            goto out;
        }
        snprintf(out->id[i], sizeof out->id[i], "%s", s);
        size_t n = out->repeat;
        if (rounds(nv_json_get(c, "runtime_s", json_type_array), out->r.configs[i].runtime_s, &n,
                   path, out->id[i], err, errlen))
            goto out;
    }
    out->ncfg = nc;
    rc = 0;
out:
    json_object_put(o);
    return rc;
}

void nv_campaign_rounds_free(nv_campaign_rounds *c)
{
    if (!c)
        return;
    free(c->r.configs);
    free(c->id);
    memset(c, 0, sizeof *c);
}
