/* alloc_dataset.c - the "netvar-alloc-dataset" file: writer and reader
 * (format in alloc_train.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_train.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"

#define DATASET_MAX_BYTES ((size_t)512 << 20)

void nv_alloc_dataset_init(nv_alloc_dataset *d)
{
    memset(d, 0, sizeof *d);
}

void nv_alloc_dataset_free(nv_alloc_dataset *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->rows[i].layout);
    free(d->rows);
    memset(d, 0, sizeof *d);
}

int nv_alloc_dataset_add(nv_alloc_dataset *d, const nv_alloc_row *r, char *err, size_t errlen)
{
    if (d->n >= NV_ALLOC_DATASET_MAX_ROWS)
        return nv_err(err, errlen, "more than %u rows", NV_ALLOC_DATASET_MAX_ROWS);
    if (!(r->comm_s > 0) || !isfinite(r->comm_s))
        return nv_err(err, errlen, "comm_s %g is not a positive number of seconds", r->comm_s);
    if (d->n == d->cap) {
        size_t c = d->cap ? d->cap * 2 : 256;
        nv_alloc_row *p = realloc(d->rows, c * sizeof *p);
        if (!p)
            return nv_err(err, errlen, "out of memory");
        d->rows = p;
        d->cap = c;
    }
    nv_alloc_row *o = &d->rows[d->n];
    *o = *r;
    o->layout = NULL;
    if (r->layout) {
        if (nv_alloc_features_pattern(&r->pattern, r->layout, r->ppn, o->x))
            return nv_err(err, errlen,
                          "layout or pattern invalid (no switch, unsorted groups, bad offset)");
        if (!(o->layout = malloc(sizeof *o->layout)))
            return nv_err(err, errlen, "out of memory");
        *o->layout = *r->layout;
    } else {
        for (int i = 0; i < NV_AF_COUNT; i++)
            if (!isfinite(o->x[i]))
                return nv_err(err, errlen, "feature %s not finite", nv_alloc_feature_name(i));
    }
    d->n++;
    return 0;
}

static int row_from_json(json_object *e, nv_alloc_row *r, nv_alloc_layout *l, char *err,
                         size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->runtime_s = NAN;
    nv_json_str_copy(e, "app", r->app, sizeof r->app);
    nv_json_str_copy(e, "config", r->config, sizeof r->config);
    uint64_t v;
    if (nv_json_u64(e, "nodes", &v) || v == 0 || v > NV_ALLOC_MAX_RANKS)
        return nv_err(err, errlen, "nodes: missing or not in 1..%u", NV_ALLOC_MAX_RANKS);
    r->nodes = (uint32_t)v;
    if (nv_json_u64(e, "ppn", &v) || v == 0 || v > NV_ALLOC_MAX_RANKS)
        return nv_err(err, errlen, "ppn: missing or not in 1..%u", NV_ALLOC_MAX_RANKS);
    r->ppn = (uint32_t)v;
    r->comm_s = nv_json_num(e, "comm_s");
    double rt = nv_json_num(e, "runtime_s");
    r->runtime_s = rt;
    json_object *f = nv_json_get(e, "features", json_type_array);
    if (f) {
        if (json_object_array_length(f) != NV_AF_COUNT)
            return nv_err(err, errlen, "features: %zu numbers; expected %d",
                          json_object_array_length(f), NV_AF_COUNT);
        for (int i = 0; i < NV_AF_COUNT; i++)
            r->x[i] =
                json_object_is_type(json_object_array_get_idx(f, (size_t)i), json_type_double) ||
                        json_object_is_type(json_object_array_get_idx(f, (size_t)i), json_type_int)
                    ? json_object_get_double(json_object_array_get_idx(f, (size_t)i))
                    : NAN;
        return 0;
    }
    json_object *lay = nv_json_get(e, "layout", json_type_array),
                *grp = nv_json_get(e, "groups", json_type_array);
    json_object *pat = nv_json_get(e, "pattern", json_type_array);
    size_t ns = lay ? json_object_array_length(lay) : 0,
           np = pat ? json_object_array_length(pat) : 0;
    if (ns == 0 || ns > NV_ALLOC_SWITCHES_MAX || (grp && json_object_array_length(grp) != ns))
        return nv_err(err, errlen,
                      "layout: missing, empty, longer than %d or not as long as groups",
                      NV_ALLOC_SWITCHES_MAX);
    if (np == 0 || np > NV_ALLOC_PATTERN_MAX)
        return nv_err(err, errlen, "pattern: missing, empty or longer than %d",
                      NV_ALLOC_PATTERN_MAX);
    memset(l, 0, sizeof *l);
    l->n_switches = ns;
    uint64_t sum = 0;
    for (size_t j = 0; j < ns; j++) {
        int64_t n = json_object_get_int64(json_object_array_get_idx(lay, j));
        int64_t g = grp ? json_object_get_int64(json_object_array_get_idx(grp, j)) : 0;
        if (n <= 0 || n > NV_ALLOC_MAX_RANKS || g < 0 || g > (int64_t)UINT32_MAX)
            return nv_err(err, errlen, "layout[%zu]: %lld nodes (group %lld) out of range", j,
                          (long long)n, (long long)g);
        l->nodes[j] = (uint32_t)n;
        l->group[j] = (uint32_t)g;
        sum += (uint64_t)n;
    }
    if (sum != r->nodes)
        return nv_err(err, errlen, "layout holds %llu nodes; nodes says %u",
                      (unsigned long long)sum, r->nodes);
    r->pattern.n = np;
    for (size_t k = 0; k < np; k++) {
        json_object *o = json_object_array_get_idx(pat, k);
        r->pattern.o[k].offset =
            (int32_t)json_object_get_int64(nv_json_get(o, "offset", json_type_int));
        r->pattern.o[k].bytes = nv_json_num(o, "bytes");
        r->pattern.o[k].messages = nv_json_num(o, "messages");
    }
    r->layout = l;
    return 0;
}

int nv_alloc_dataset_load(nv_alloc_dataset *d, const char *path, char *err, size_t errlen)
{
    char why[300];
    json_object *root = nv_json_read_file(path, DATASET_MAX_BYTES, why, sizeof why);
    if (!root)
        return nv_err(err, errlen, "%s: %s", path, why);
    int rc = -1;
    if (nv_json_schema_check(root, NV_ALLOC_DATASET_SCHEMA, NV_ALLOC_DATASET_VERSION, why,
                             sizeof why)) {
        nv_err(err, errlen, "%s: %s", path, why);
        goto out;
    }
    if (!d->source[0])
        nv_json_str_copy(root, "source", d->source, sizeof d->source);
    json_object *rows = nv_json_get(root, "rows", json_type_array);
    if (!rows) {
        nv_err(err, errlen, "%s: rows: missing or not an array", path);
        goto out;
    }
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        nv_alloc_row r;
        nv_alloc_layout l;
        if (row_from_json(json_object_array_get_idx(rows, i), &r, &l, why, sizeof why) ||
            nv_alloc_dataset_add(d, &r, why, sizeof why)) {
            nv_err(err, errlen, "%s: rows[%zu]: %s", path, i, why);
            goto out;
        }
    }
    rc = 0;
out:
    json_object_put(root);
    return rc;
}

#define put nv_alloc_json_put
#define add nv_alloc_json_add

int nv_alloc_dataset_save(const nv_alloc_dataset *d, const char *path, char *err, size_t errlen)
{
    int ok = 1;
    json_object *root = json_object_new_object(), *rows = json_object_new_array();
    if (!root || !rows) {
        json_object_put(root);
        json_object_put(rows);
        return nv_err(err, errlen, "%s: out of memory", path);
    }
    put(root, "schema", json_object_new_string(NV_ALLOC_DATASET_SCHEMA), &ok);
    put(root, "version", json_object_new_int(NV_ALLOC_DATASET_VERSION), &ok);
    put(root, "source", json_object_new_string(d->source), &ok);
    for (size_t i = 0; i < d->n && ok; i++) {
        const nv_alloc_row *r = &d->rows[i];
        json_object *e = json_object_new_object();
        put(e, "app", json_object_new_string(r->app), &ok);
        if (r->config[0])
            put(e, "config", json_object_new_string(r->config), &ok);
        put(e, "nodes", json_object_new_int64(r->nodes), &ok);
        put(e, "ppn", json_object_new_int64(r->ppn), &ok);
        if (r->layout) {
            json_object *lay = json_object_new_array(), *grp = json_object_new_array();
            for (size_t j = 0; j < r->layout->n_switches; j++) {
                add(lay, json_object_new_int64(r->layout->nodes[j]), &ok);
                add(grp, json_object_new_int64(r->layout->group[j]), &ok);
            }
            put(e, "layout", lay, &ok);
            put(e, "groups", grp, &ok);
            put(e, "pattern", nv_alloc_pattern_to_json(&r->pattern), &ok);
        } else {
            put(e, "features", nv_json_new_num_array(r->x, NV_AF_COUNT), &ok);
        }
        put(e, "comm_s", nv_json_new_num(r->comm_s), &ok);
        if (isfinite(r->runtime_s))
            put(e, "runtime_s", nv_json_new_num(r->runtime_s), &ok);
        add(rows, e, &ok);
    }
    put(root, "rows", rows, &ok);
    int rc = ok ? nv_json_write_file(path, root, 0644, (gid_t)-1, err, errlen)
                : nv_err(err, errlen, "%s: out of memory", path);
    json_object_put(root);
    return rc;
}
