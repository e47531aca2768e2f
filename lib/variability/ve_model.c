/* ve_model.c - the Variability Estimate model as the model file's
 * "variability" section: the writer (the reader is ve_load.c). */
#include "ve_model.h"

#include "nv_json.h"

#define D NV_VE_NFEAT

json_object *nv_ve_to_json(const nv_ve *ve)
{
    if (!ve)
        return NULL;
    json_object *o = json_object_new_object();
    json_object *names = json_object_new_array();
    for (size_t j = 0; j < D; j++)
        json_object_array_add(names, json_object_new_string(nv_ve_feature_name(j)));
    json_object_object_add(o, "features", names);
    json_object_object_add(o, "target",
                           json_object_new_string("runtime z-score per app and node count"));

    json_object *sc = json_object_new_object();
    json_object_object_add(sc, "median", nv_json_new_num_array(ve->median, D));
    json_object_object_add(sc, "iqr", nv_json_new_num_array(ve->iqr, D));
    json_object_object_add(o, "scaler", sc);

    const nv_svr *s = &ve->svr;
    json_object *sv = json_object_new_object();
    json_object_object_add(sv, "kernel", json_object_new_string("rbf"));
    json_object_object_add(sv, "gamma", nv_json_new_num(s->gamma));
    json_object_object_add(sv, "C", nv_json_new_num(s->C));
    json_object_object_add(sv, "epsilon", nv_json_new_num(s->epsilon));
    json_object_object_add(sv, "rho", nv_json_new_num(s->rho));
    json_object_object_add(sv, "coef", nv_json_new_num_array(s->coef, s->n_sv));
    json_object *vecs = json_object_new_array_ext((int)s->n_sv);
    for (size_t i = 0; i < s->n_sv; i++)
        json_object_array_add(vecs, nv_json_new_num_array(s->sv + i * s->nfeat, s->nfeat));
    json_object_object_add(sv, "support_vectors", vecs);
    json_object_object_add(o, "svr", sv);

    const nv_forest *f = &ve->forest;
    json_object *fo = json_object_new_object();
    json_object *qs = json_object_new_array();
    json_object_array_add(qs, nv_json_new_num(ve->lo_q));
    json_object_array_add(qs, nv_json_new_num(ve->hi_q));
    json_object_object_add(fo, "interval_quantiles", qs);
    if (ve->cal.calibrated) {
        json_object *ca = json_object_new_object();
        json_object_object_add(ca, "method", json_object_new_string(NV_VE_CAL_METHOD));
        json_object_object_add(ca, "level", nv_json_new_num(ve->cal.level));
        json_object_object_add(ca, "factor", nv_json_new_num(ve->cal.factor));
        json_object_object_add(ca, "svr_factor", nv_json_new_num(ve->cal.svr_factor));
        json_object_object_add(ca, "spread_floor", nv_json_new_num(ve->cal.spread_floor));
        json_object_object_add(ca, "points", json_object_new_int64((int64_t)ve->cal.points));
        json_object_object_add(ca, "oob_coverage", nv_json_new_num(ve->cal.oob_coverage));
        json_object_object_add(fo, "calibration", ca);
    }
    json_object *trees = json_object_new_array_ext((int)f->n_trees);
    for (size_t t = 0; t < f->n_trees; t++) {
        const nv_forest_node *nd = f->nodes + f->tree_off[t];
        size_t len = f->tree_len[t];
        json_object *to = json_object_new_object();
        json_object *fe = json_object_new_array_ext((int)len),
                    *th = json_object_new_array_ext((int)len);
        json_object *le = json_object_new_array_ext((int)len),
                    *ri = json_object_new_array_ext((int)len);
        json_object *va = json_object_new_array_ext((int)len);
        for (size_t i = 0; i < len; i++) {
            json_object_array_add(fe, json_object_new_int(nd[i].feature));
            json_object_array_add(th, nv_json_new_num(nd[i].threshold));
            json_object_array_add(le, json_object_new_int(nd[i].left));
            json_object_array_add(ri, json_object_new_int(nd[i].right));
            json_object_array_add(va, nv_json_new_num(nd[i].value));
        }
        json_object_object_add(to, "feature", fe);
        json_object_object_add(to, "threshold", th);
        json_object_object_add(to, "left", le);
        json_object_object_add(to, "right", ri);
        json_object_object_add(to, "value", va);
        json_object_array_add(trees, to);
    }
    json_object_object_add(fo, "trees", trees);
    json_object_object_add(o, "forest", fo);

    const nv_ve_training *tr = &ve->training;
    json_object *t = json_object_new_object();
    json_object_object_add(t, "samples", json_object_new_int64((int64_t)tr->samples));
    json_object_object_add(t, "folds", json_object_new_int64((int64_t)tr->folds));
    json_object_object_add(t, "seed", json_object_new_int64((int64_t)(tr->seed & INT64_MAX)));
    json_object_object_add(t, "cv_r2", nv_json_new_num(tr->cv_r2));
    json_object_object_add(t, "cv_r2_forest", nv_json_new_num(tr->cv_r2_forest));
    json_object_object_add(t, "abstention", nv_json_new_num(tr->abstention));
    json_object_object_add(t, "coverage", nv_json_new_num(tr->coverage));
    json_object_object_add(t, "mean_half_width", nv_json_new_num(tr->mean_half_width));
    json_object_object_add(t, "level", nv_json_new_num(tr->level));
    json_object_object_add(t, "interval_coverage", nv_json_new_num(tr->interval_coverage));
    json_object_object_add(t, "point_coverage", nv_json_new_num(tr->point_coverage));
    json_object_object_add(o, "training", t);
    return o;
}
