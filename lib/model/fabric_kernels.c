/* fabric_kernels.c - the reference kernels' result line
 * (NV_FABRIC_KERNELS_FORMAT, fabric.h): its writer (probes/fabric_kernels.c
 * calls it) and its reader (lib/runner/fabric_cal.c). */
#include <stdio.h>
#include <string.h>

#include "fabric.h"
#include "nv_err.h"
#include "nv_json.h"

/* "class_us": one time per class, > 0 and at most 1e12 us */
static int class_times(nv_jcheck *L, json_object *o, double *out)
{
    json_object *a = nv_jcheck_member(L, o, "class_us", "kernels", json_type_array);
    if (!a)
        return -1;
    size_t n = json_object_array_length(a);
    if (n != NV_FABRIC_CLASSES)
        return nv_jcheck_fail(L, "kernels.class_us: %zu values; one per message class (%d)", n,
                              NV_FABRIC_CLASSES);
    for (size_t i = 0; i < n; i++) {
        char q[64];
        snprintf(q, sizeof q, "kernels.class_us[%zu]", i);
        if (nv_jcheck_number(L, json_object_array_get_idx(a, i), q, &out[i]))
            return -1;
        if (!(out[i] > 0 && out[i] <= 1e12))
            return nv_jcheck_fail(L, "%s: value %g is outside (0, 1e12] us", q, out[i]);
    }
    return 0;
}

json_object *nv_fabric_kernels_to_json(const double class_us[NV_FABRIC_CLASSES], int ranks)
{
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "schema", json_object_new_string(NV_FABRIC_KERNELS_FORMAT));
    json_object_object_add(o, "version", json_object_new_int(NV_FABRIC_VERSION));
    json_object_object_add(o, "ranks", json_object_new_int(ranks));
    json_object_object_add(o, "class_us", nv_json_new_num_array(class_us, NV_FABRIC_CLASSES));
    return o;
}

int nv_fabric_kernels_parse(const char *text, size_t len, double class_us[NV_FABRIC_CLASSES],
                            int *ranks, char *err, size_t errlen)
{
    const char *line = NULL;
    for (size_t i = 0; text && i < len; i++)
        if (text[i] == '{' && (i == 0 || text[i - 1] == '\n'))
            line = text + i;
    if (!line)
        return nv_err(err, errlen, "the reference kernels printed no result line");
    size_t n = 0;
    while (line + n < text + len && line[n] != '\n')
        n++;
    json_tokener *tok = json_tokener_new();
    json_object *o = tok ? json_tokener_parse_ex(tok, line, (int)n) : NULL;
    if (tok)
        json_tokener_free(tok);
    nv_jcheck L = {err, errlen, 0};
    int rc = -1;
    int64_t v, r;
    const char *schema;
    if (!o)
        nv_jcheck_fail(&L, "the reference kernels' result line is not JSON");
    else if (!(schema = nv_jcheck_string_member(&L, o, "schema", "kernels")))
        ;
    else if (strcmp(schema, NV_FABRIC_KERNELS_FORMAT))
        nv_jcheck_fail(&L, "kernels.schema: not \"%s\"", NV_FABRIC_KERNELS_FORMAT);
    else if (nv_jcheck_integer_member(&L, o, "version", "kernels", NV_FABRIC_VERSION,
                                      NV_FABRIC_VERSION, &v) ||
             nv_jcheck_integer_member(&L, o, "ranks", "kernels", 2, 1000000, &r) ||
             class_times(&L, o, class_us))
        ;
    else {
        *ranks = (int)r;
        rc = 0;
    }
    json_object_put(o);
    return rc;
}
