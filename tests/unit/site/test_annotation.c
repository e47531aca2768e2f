/* test_annotation.c - the "netvar:" job annotation: exact strings,
 * omitted fields (NaN, NULL, 0), the result is JSON json-c can read,
 * overflow at every buffer size, and stripping an earlier annotation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "annotation.h"

static const struct nv_annotation full = {
    .mode = NV_MODE_FULL,
    .app = "lulesh2.0",
    .model = "known",
    .own_slowdown_pct = 107.5,
    .inflicted_pct = 1.357142857,
    .source = "model:queue",
    .advice_nodes = 2,
    .action = "avoid",
};

#define FULL_TEXT                                                                                  \
    "netvar:{\"v\":1,\"mode\":\"full\",\"app\":\"lulesh2.0\",\"model\":\"known\","                 \
    "\"own_pct\":107.5,\"inflicted_pct\":1.4,\"src\":\"model:queue\",\"advice_nodes\":2,"          \
    "\"action\":\"avoid\"}"

static void every_field_in_order(void **state)
{
    (void)state;
    char buf[NV_ANNOTATION_MAX];
    int n = nv_annotation_format(buf, sizeof buf, &full);
    assert_string_equal(buf, FULL_TEXT);
    assert_int_equal(n, (int)strlen(FULL_TEXT));
}

/* the neighbour app (and a running job of it) the own prediction was
 * against, so a report can tell whether the job then ran beside it; cut
 * before the prediction itself when the field is short */
static void the_neighbour_predicted_against_is_named(void **state)
{
    (void)state;
    char buf[NV_ANNOTATION_MAX];
    struct nv_annotation a = full;
    a.against_app = "alltoall";
    a.against_job = 6;
    nv_annotation_format(buf, sizeof buf, &a);
    assert_non_null(strstr(buf, ",\"src\":\"model:queue\",\"vs\":\"alltoall\",\"vs_job\":6,"));
    a.against_app = "bad key;";
    nv_annotation_format(buf, sizeof buf, &a);
    assert_null(strstr(buf, "\"vs\""));
    assert_non_null(strstr(buf, "\"vs_job\":6"));
    /* a field with room for the prediction but not its neighbour */
    a.against_app = "alltoall";
    struct nv_annotation t = a;
    t.model = NULL, t.source = NULL, t.advice_nodes = 0, t.inflicted_pct = NAN,
    t.against_app = NULL, t.against_job = 0;
    char want[NV_ANNOTATION_MAX], note[NV_ANNOTATION_MAX];
    int w = nv_annotation_format(want, sizeof want, &t);
    size_t keep = 0;
    int n = nv_annotation_fit("", &a, (size_t)w, &keep, note, sizeof note);
    assert_int_equal(n, w);
    assert_string_equal(note, want);
    assert_non_null(strstr(note, "own_pct"));
}

/* beside how many running jobs and uplinks, and the worst single
 * neighbour's answer; cut before inflicted_pct, after advice_nodes */
static void the_neighbours_summed_are_counted(void **state)
{
    (void)state;
    char buf[NV_ANNOTATION_MAX];
    struct nv_annotation a = full;
    a.vs_n = 3;
    a.vs_uplinks = 2;
    a.single_pct = 107.54;
    nv_annotation_format(buf, sizeof buf, &a);
    assert_non_null(strstr(buf, ",\"vs_n\":3,\"vs_uplinks\":2,\"single_pct\":107.5,"));
    json_object *o = json_tokener_parse(buf + strlen(NV_ANNOTATION_PREFIX));
    assert_non_null(o); /* still JSON */
    json_object_put(o);
    a.vs_n = 1; /* beside one job: single_pct would repeat own_pct */
    nv_annotation_format(buf, sizeof buf, &a);
    assert_non_null(strstr(buf, "\"vs_n\":1,\"vs_uplinks\":2"));
    assert_null(strstr(buf, "single_pct"));
    a.vs_n = 0; /* not written at all */
    nv_annotation_format(buf, sizeof buf, &a);
    assert_null(strstr(buf, "vs_n"));
    assert_null(strstr(buf, "vs_uplinks"));
    /* a short field: after model, src and advice_nodes, the counts go */
    a.vs_n = 3;
    struct nv_annotation t = a;
    t.model = NULL, t.source = NULL, t.advice_nodes = 0, t.vs_n = 0;
    char want[NV_ANNOTATION_MAX], note[NV_ANNOTATION_MAX];
    int w = nv_annotation_format(want, sizeof want, &t);
    size_t keep = 0;
    assert_int_equal(nv_annotation_fit("", &a, (size_t)w, &keep, note, sizeof note), w);
    assert_string_equal(note, want);
    assert_non_null(strstr(note, "inflicted_pct"));
}

static void nan_null_and_zero_fields_are_omitted(void **state)
{
    (void)state;
    char buf[NV_ANNOTATION_MAX];
    struct nv_annotation a = {.mode = NV_MODE_COUNTERS,
                              .app = NULL,
                              .model = "none",
                              .own_slowdown_pct = NAN,
                              .inflicted_pct = NAN};
    int n = nv_annotation_format(buf, sizeof buf, &a);
    assert_string_equal(buf, "netvar:{\"v\":1,\"mode\":\"counters\",\"model\":\"none\"}");
    assert_int_equal(n, (int)strlen(buf));

    struct nv_annotation b = {.mode = NV_MODE_OFF,
                              .app = "amg",
                              .model = NULL,
                              .own_slowdown_pct = 0.0,
                              .inflicted_pct = INFINITY,
                              .source = "table, 8 runs",
                              .advice_nodes = 0,
                              .action = NULL};
    nv_annotation_format(buf, sizeof buf, &b);
    assert_string_equal(buf, "netvar:{\"v\":1,\"mode\":\"off\",\"app\":\"amg\",\"own_pct\":0.0,"
                             "\"src\":\"table, 8 runs\"}");

    struct nv_annotation c = {.mode = NV_MODE_UNSET,
                              .own_slowdown_pct = -INFINITY,
                              .inflicted_pct = 5.04,
                              .action = "deny"};
    nv_annotation_format(buf, sizeof buf, &c);
    assert_string_equal(buf, "netvar:{\"v\":1,\"mode\":\"unset\",\"inflicted_pct\":5.0,"
                             "\"action\":\"deny\"}");
}

static void invalid_app_keys_never_reach_the_json(void **state)
{
    (void)state;
    char buf[NV_ANNOTATION_MAX];
    const char *bad[] = {"a\"b", "x\\y", "", "../etc", "new\nline"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct nv_annotation a = {
            .mode = NV_MODE_FULL, .app = bad[i], .own_slowdown_pct = NAN, .inflicted_pct = NAN};
        nv_annotation_format(buf, sizeof buf, &a);
        assert_string_equal(buf, "netvar:{\"v\":1,\"mode\":\"full\"}");
    }
}

static void output_is_json_that_reads_back(void **state)
{
    (void)state;
    char buf[NV_ANNOTATION_MAX];
    assert_true(nv_annotation_format(buf, sizeof buf, &full) > 0);
    assert_memory_equal(buf, NV_ANNOTATION_PREFIX, strlen(NV_ANNOTATION_PREFIX));
    json_object *o = json_tokener_parse(buf + strlen(NV_ANNOTATION_PREFIX));
    assert_non_null(o);
    json_object *v;
    assert_true(json_object_object_get_ex(o, "v", &v));
    assert_int_equal(json_object_get_int(v), NV_ANNOTATION_VERSION);
    assert_true(json_object_object_get_ex(o, "own_pct", &v));
    assert_true(fabs(json_object_get_double(v) - 107.5) < 1e-9);
    assert_true(json_object_object_get_ex(o, "app", &v));
    assert_string_equal(json_object_get_string(v), "lulesh2.0");
    assert_int_equal(json_object_object_length(o), 9);
    json_object_put(o);
}

static void overflow_returns_minus_one_with_an_empty_buffer(void **state)
{
    (void)state;
    size_t need = strlen(FULL_TEXT) + 1;
    char buf[NV_ANNOTATION_MAX];
    /* every capacity below the needed size fails cleanly */
    for (size_t cap = 1; cap < need; cap++) {
        memset(buf, 'Z', sizeof buf);
        int n = nv_annotation_format(buf, cap, &full);
        if (n != -1)
            fail_msg("cap %zu: returned %d", cap, n);
        assert_int_equal(buf[0], '\0');
        /* nothing written past cap */
        for (size_t i = cap; i < sizeof buf; i++)
            if (buf[i] != 'Z')
                fail_msg("cap %zu: byte %zu overwritten", cap, i);
    }
    /* exactly enough */
    assert_int_equal(nv_annotation_format(buf, need, &full), (int)need - 1);
    assert_string_equal(buf, FULL_TEXT);
    /* no room at all */
    assert_int_equal(nv_annotation_format(buf, 0, &full), -1);
    assert_int_equal(nv_annotation_format(NULL, 100, &full), -1);
}

static void strip_keeps_the_users_text(void **state)
{
    (void)state;
    assert_int_equal(nv_annotation_strip(NULL), 0);
    assert_int_equal(nv_annotation_strip(""), 0);
    const char *plain = "my own comment";
    assert_int_equal(nv_annotation_strip(plain), strlen(plain));
    /* "netvar:" without a JSON object is the user's text */
    const char *mention = "ask netvar: about it";
    assert_int_equal(nv_annotation_strip(mention), strlen(mention));

    char c[600];
    snprintf(c, sizeof c, "user text   %s", FULL_TEXT);
    assert_int_equal(nv_annotation_strip(c), strlen("user text")); /* trailing spaces go too */
    assert_int_equal(nv_annotation_strip(FULL_TEXT), 0);
    /* a "netvar:{" the user wrote, and everything after it, is the user's */
    snprintf(c, sizeof c, "keep this %s trailing", "netvar:{\"v\":1}");
    assert_int_equal(nv_annotation_strip(c), strlen(c));
    snprintf(c, sizeof c, "see netvar:{my notes} and more");
    assert_int_equal(nv_annotation_strip(c), strlen(c));
    snprintf(c, sizeof c, "see netvar:{my notes} %s", FULL_TEXT);
    assert_int_equal(nv_annotation_strip(c), strlen("see netvar:{my notes}"));
    /* not netvar's shape (nested object): the user's */
    snprintf(c, sizeof c, "x netvar:{\"v\":{\"a\":1}}");
    assert_int_equal(nv_annotation_strip(c), strlen(c));
    /* two annotations at the end: both go */
    snprintf(c, sizeof c, "a %s %s", FULL_TEXT, FULL_TEXT);
    assert_int_equal(nv_annotation_strip(c), 1);
}

/* netvar only adds: a 4 KB Comment is kept whole (no limit: AdminComment),
 * and under a limit netvar cuts its own annotation's fields first */
static void fit_keeps_the_user_text_and_cuts_its_own(void **state)
{
    (void)state;
    char big[4097], note[NV_ANNOTATION_MAX];
    memset(big, 'u', 4096);
    big[4096] = '\0';
    size_t keep = 0;
    int n = nv_annotation_fit(big, &full, 0, &keep, note, sizeof note);
    assert_int_equal(keep, 4096);
    assert_string_equal(note, FULL_TEXT);
    assert_int_equal(n, (int)strlen(FULL_TEXT));
    /* 900 characters of the user's under 1024: the annotation loses fields */
    char mid[901];
    memset(mid, 'm', 900);
    mid[900] = '\0';
    n = nv_annotation_fit(mid, &full, 1024, &keep, note, sizeof note);
    assert_int_equal(keep, 900);
    assert_true(n > 0 && 900 + 1 + (size_t)n <= 1024);
    assert_non_null(strstr(note, "\"action\":\"avoid\""));
    assert_null(strstr(note, "\"model\""));
    json_object *o = json_tokener_parse(note + strlen(NV_ANNOTATION_PREFIX));
    assert_non_null(o);
    json_object_put(o);
    /* no room even for the shortest: -1, the user's text untouched */
    char full_c[1001];
    memset(full_c, 'f', 1000);
    full_c[1000] = '\0';
    assert_int_equal(nv_annotation_fit(full_c, &full, 1024, &keep, note, sizeof note), -1);
    assert_int_equal(keep, 1000);
    assert_string_equal(note, "");
    /* an earlier annotation at the end is replaced, the text before kept */
    char c[700];
    snprintf(c, sizeof c, "mine netvar:{not json} %s", FULL_TEXT);
    nv_annotation_fit(c, &full, 0, &keep, note, sizeof note);
    assert_int_equal(keep, strlen("mine netvar:{not json}"));
}

static void strip_then_format_replaces_an_old_annotation(void **state)
{
    (void)state;
    char old[NV_ANNOTATION_MAX], now[NV_ANNOTATION_MAX], comment[1200];
    struct nv_annotation a = full;
    a.own_slowdown_pct = 3.0;
    nv_annotation_format(old, sizeof old, &a);
    snprintf(comment, sizeof comment, "run 7 %s", old);
    size_t keep = nv_annotation_strip(comment);
    nv_annotation_format(now, sizeof now, &full);
    char joined[1200];
    snprintf(joined, sizeof joined, "%.*s %s", (int)keep, comment, now);
    assert_string_equal(joined, "run 7 " FULL_TEXT);
    /* and again: stripping the new comment gives the same user text */
    assert_int_equal(nv_annotation_strip(joined), keep);
}

/* The pieces are appended directly (and the percentages through
 * nv_fmt_fixed), not through vsnprintf: over random annotations and
 * buffer sizes the text and the length are what the printf formats give,
 * and an annotation that does not fit fails the same way. */
static int by_printf(char *buf, size_t cap, const struct nv_annotation *a)
{
    size_t len = 0;
    int n = snprintf(buf, cap, NV_ANNOTATION_PREFIX "{\"v\":%d,\"mode\":\"%s\"",
                     NV_ANNOTATION_VERSION, nv_mode_name(a->mode));
#define PIECE(...)                                                                                 \
    do {                                                                                           \
        if (n < 0 || (size_t)n >= cap - len)                                                       \
            goto overflow;                                                                         \
        len += (size_t)n;                                                                          \
        n = snprintf(buf + len, cap - len, __VA_ARGS__);                                           \
    } while (0)
    if (a->app)
        PIECE(",\"app\":\"%s\"", a->app);
    if (a->model)
        PIECE(",\"model\":\"%s\"", a->model);
    if (isfinite(a->own_slowdown_pct))
        PIECE(",\"own_pct\":%.1f", a->own_slowdown_pct);
    if (isfinite(a->inflicted_pct))
        PIECE(",\"inflicted_pct\":%.1f", a->inflicted_pct);
    if (a->source)
        PIECE(",\"src\":\"%s\"", a->source);
    if (a->against_app)
        PIECE(",\"vs\":\"%s\"", a->against_app);
    if (a->against_job)
        PIECE(",\"vs_job\":%u", a->against_job);
    if (a->advice_nodes)
        PIECE(",\"advice_nodes\":%u", a->advice_nodes);
    if (a->action)
        PIECE(",\"action\":\"%s\"", a->action);
    PIECE("}");
    PIECE("%s", "");
#undef PIECE
    return (int)len;
overflow:
    buf[0] = '\0';
    return -1;
}

static void pieces_appended_read_as_printf_wrote_them(void **state)
{
    (void)state;
    uint64_t r = 0x9E3779B97F4A7C15ull;
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
    static const char *apps[] = {NULL, "lammps", "a.b-c_9", "x"};
    static const char *models[] = {NULL, "none", "2026-11-27T10:00:00Z-3f2a"};
    static const char *srcs[] = {NULL, "table", "model:queue-wait+history"};
    static const char *acts[] = {NULL, "annotate", "avoid,annotate"};
    int fitted = 0, cut = 0;
    for (int i = 0; i < 200000; i++) {
        struct nv_annotation a = {
            .mode = (nv_mode)(NEXT() % 4),
            .app = apps[NEXT() % 4],
            .model = models[NEXT() % 3],
            .own_slowdown_pct = NEXT() % 5 ? -100 + (double)(NEXT() % 1000000) / 97.0 : NAN,
            .inflicted_pct = NEXT() % 5 ? (double)(NEXT() % 100000) / 8.0 : NAN,
            .source = srcs[NEXT() % 3],
            .advice_nodes = NEXT() % 2 ? (unsigned)(NEXT() % 100000) : 0,
            .action = acts[NEXT() % 3],
        };
        size_t cap = NEXT() % 4 ? NV_ANNOTATION_MAX : 1 + NEXT() % 160;
        char got[NV_ANNOTATION_MAX], want[NV_ANNOTATION_MAX];
        int gn = nv_annotation_format(got, cap, &a), wn = by_printf(want, cap, &a);
        if (gn != wn || strcmp(got, want))
            fail_msg("cap %zu: got '%s' (%d), want '%s' (%d)", cap, got, gn, want, wn);
        fitted += gn > 0;
        cut += gn < 0;
    }
    assert_true(fitted > 1000 && cut > 1000);
#undef NEXT
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field_in_order),
        cmocka_unit_test(the_neighbours_summed_are_counted),
        cmocka_unit_test(the_neighbour_predicted_against_is_named),
        cmocka_unit_test(nan_null_and_zero_fields_are_omitted),
        cmocka_unit_test(invalid_app_keys_never_reach_the_json),
        cmocka_unit_test(output_is_json_that_reads_back),
        cmocka_unit_test(overflow_returns_minus_one_with_an_empty_buffer),
        cmocka_unit_test(strip_keeps_the_users_text),
        cmocka_unit_test(strip_then_format_replaces_an_old_annotation),
        cmocka_unit_test(fit_keeps_the_user_text_and_cuts_its_own),
        cmocka_unit_test(pieces_appended_read_as_printf_wrote_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
