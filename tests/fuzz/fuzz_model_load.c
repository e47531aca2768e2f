/* fuzz_model_load.c - libFuzzer target for the model loader: any bytes
 * must give a model or one error line, never a crash, leak or UB.  A model
 * that loads is also walked and queried, and its error line must be a
 * single line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_advice.h"
#include "model.h"
#include "predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    nv_model *m = nv_model_load_buffer((const char *)data, size, err, sizeof err);
    if (!m) {
        if (!err[0] || strchr(err, '\n'))
            abort(); /* every rejection explains itself in one line */
        return 0;
    }
    size_t n = nv_model_app_count(m);
    for (size_t i = 0; i < n && i < 16; i++) {
        nv_app_view v;
        nv_model_app(m, (int32_t)i, &v);
        if (nv_model_app_index(m, v.key) != (int32_t)i)
            abort();
        const char *with[2] = {v.key, NULL};
        nv_app_view w;
        nv_model_app(m, (int32_t)((i + 1) % n), &w);
        with[1] = w.key;
        for (int p = 0; p < NV_PREDICTOR_COUNT; p++)
            for (size_t k = 1; k <= 2; k++) {
                nv_prediction pr;
                if (nv_predict(m, v.key, with, k, (nv_predictor)p, 1, &pr, NULL) == 0 &&
                    pr.slowdown_pct != pr.slowdown_pct)
                    abort(); /* NaN */
            }
    }
    for (size_t c = 0; c < nv_model_config_count(m) && c < 16; c++) {
        nv_config_view cv;
        nv_model_config(m, (int32_t)c, &cv);
        for (size_t k = 0; k < cv.n_slowdowns; k++) {
            int32_t a;
            double pct;
            if (nv_model_config_slowdown(m, (int32_t)c, k, &a, &pct) || a < 0 || (size_t)a >= n)
                abort();
        }
    }
    /* the allocation-advice section: every app advised over a range */
    const nv_alloc_model *am = nv_model_alloc(m);
    for (size_t i = 0; am && i < nv_alloc_app_count(am) && i < 8; i++) {
        nv_alloc_query q = {.app = nv_alloc_app_at(am, i)->key,
                            .min_nodes = 1,
                            .max_nodes = 64,
                            .ppn = (uint32_t)(1 + i % 3),
                            .interference_pct = 10.0 * (double)i};
        nv_alloc_advice a;
        if (nv_alloc_advise(am, &q, &a) == 0 &&
            (!(a.best.time_s >= 0) || a.best.nodes < 1 || a.best.nodes > 64))
            abort(); /* a NaN or a count outside the range */
    }
    nv_model_free(m);
    return 0;
}
