/* test_json_stream.c - reading a document one member and one array element
 * at a time: the pieces join to what json-c reads from the whole text, and
 * what is not JSON is refused with the byte where it goes wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_stream.h"
#include "nv_test.h"

struct rebuild {
    const char *text;
    size_t len;
    json_tokener *tok;
    json_object *root;
    char err[256];
};

/* every member whose value is an array is read element by element, the
 * rest whole, and put back together */
static int put_member(void *arg, const char *key, nv_jspan v)
{
    struct rebuild *R = arg;
    json_object *val;
    if (nv_jspan_is_array(R->text, v)) {
        nv_jarray a;
        if (nv_jarray_open(&a, R->text, R->len, v, R->err, sizeof R->err))
            return 1;
        val = json_object_new_array();
        nv_jspan e;
        size_t n = 0;
        while (nv_jarray_next(&a, &e)) {
            json_object *x = nv_jspan_parse(R->tok, R->text, R->len, e, R->err, sizeof R->err);
            if (!x) {
                json_object_put(val);
                return 1;
            }
            json_object_array_add(val, x);
            n++;
        }
        assert_int_equal(n, a.count);
    } else if (!(val = nv_jspan_parse(R->tok, R->text, R->len, v, R->err, sizeof R->err))) {
        return 1;
    }
    json_object_object_add(R->root, key, val);
    return 0;
}

/* NULL with R->err set when the streamed reading refuses the text */
static json_object *stream_read(struct rebuild *R, const char *text, size_t len)
{
    R->text = text;
    R->len = len;
    R->err[0] = 0;
    R->root = json_object_new_object();
    int rc = nv_jspan_members(text, len, R->tok, put_member, R, R->err, sizeof R->err);
    if (rc) {
        assert_true(R->err[0] != 0);
        json_object_put(R->root);
        return NULL;
    }
    return R->root;
}

static json_object *whole_read(const char *text, size_t len)
{
    json_tokener *t = json_tokener_new_ex(64);
    json_object *o = json_tokener_parse_ex(t, text, (int)len);
    size_t end = json_tokener_get_parse_end(t);
    json_tokener_free(t);
    for (size_t i = end; o && i < len; i++)
        if (!strchr(" \t\r\n", text[i])) {
            json_object_put(o);
            o = NULL;
        }
    return o;
}

static const char SAMPLE[] =
    "{ \"schema\": \"netvar-model\", \"version\": 1,\n"
    "  \"apps\": [ {\"key\": \"a\\\"b\", \"u\": 0.25, \"pts\": [1, -2.5e3, [true, null]]},\n"
    "            {\"key\": \"c\\\\\", \"esc\": \"x]}\\u0041\", \"o\": {\"k\": [ ]}} ],\n"
    "  \"empty\": [],\"n\":-0.5e-2 , \"colocation\" : [ 1 ,2,\"3\" ], \"last\": false }\n";

static void pieces_join_to_the_whole(void **state)
{
    struct rebuild R = {.tok = json_tokener_new_ex(64)};
    json_object *s = stream_read(&R, SAMPLE, strlen(SAMPLE));
    if (!s)
        fail_msg("refused: %s", R.err);
    json_object *w = whole_read(SAMPLE, strlen(SAMPLE));
    assert_non_null(w);
    assert_true(json_object_equal(s, w));
    /* the arrays were counted and read one element at a time */
    json_object *apps = json_object_object_get(s, "apps");
    assert_int_equal(json_object_array_length(apps), 2);
    assert_string_equal(
        json_object_get_string(json_object_object_get(json_object_array_get_idx(apps, 0), "key")),
        "a\"b");
    json_object_put(s);
    json_object_put(w);
    /* the same without the trailing newline, and with no whitespace at all */
    const char *tight = "{\"a\":[1,{\"b\":[2]},\"]\"],\"n\":5}";
    s = stream_read(&R, tight, strlen(tight));
    w = whole_read(tight, strlen(tight));
    assert_non_null(s);
    assert_true(json_object_equal(s, w));
    json_object_put(s);
    json_object_put(w);
    json_tokener_free(R.tok);
}

static void what_is_not_json_is_refused_where_it_goes_wrong(void **state)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"", "truncated JSON"},
        {"   ", "truncated JSON"},
        {"{\"a\": [1, 2", "truncated JSON"},
        {"{\"a\": \"open", "truncated JSON"},
        {"{\"a\": 1", "truncated JSON"},
        {"{\"a\" 1}", "byte 5: expected ':'"},
        {"{\"a\": 1 \"b\": 2}", "byte 8: expected ',' or '}'"},
        {"{\"a\": [1 2]}", "byte 9: expected ',' or ']'"},
        {"{\"a\": [1,,2]}", "byte 9: expected a value"},
        {"{\"a\": [1,]}", "expected a value"},
        {"{\"a\": [1}", "expected ']'"},
        {"{\"a\": {\"b\": 1]}", "invalid JSON at byte"},
        {"{\"a\": tru}", "invalid JSON at byte"},
        {"{\"a\": [nul]}", "invalid JSON at byte"},
        {"{\"a\": 1} x", "unexpected data after the document at byte 9"},
        {"{a: 1}", "byte 1: expected a member name"},
        {"[1, 2]", "expected a JSON object at the top, got array"},
        {"7 ", "expected a JSON object at the top, got int"},
        {"7", "truncated JSON"}, /* a bare number may go on: json-c says so too */
        {"{\"a\": [\"x\\\"]}", "truncated JSON"},
    };
    struct rebuild R = {.tok = json_tokener_new_ex(64)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_object *s = stream_read(&R, bad[i].text, strlen(bad[i].text));
        if (s)
            fail_msg("accepted %s", bad[i].text);
        if (!strstr(R.err, bad[i].want))
            fail_msg("%s: got \"%s\", want \"%s\"", bad[i].text, R.err, bad[i].want);
        /* json-c refuses these too, but for a trailing comma, which its
         * default (non-strict) mode lets through and netvar never writes */
        json_object *w = whole_read(bad[i].text, strlen(bad[i].text));
        if (w && json_object_is_type(w, json_type_object) && !strstr(bad[i].text, ",]"))
            fail_msg("json-c reads %s", bad[i].text);
        json_object_put(w);
    }
    json_tokener_free(R.tok);
}

/* Random damage to the sample: whatever the streamed reading accepts,
 * json-c reads from the whole text as the same value; and it never reads
 * outside the text (the copy is exactly as long as the text, no NUL). */
static void damaged_documents_never_fool_it(void **state)
{
    static const char alphabet[] = "{}[]\",:\\ 01eE.-tn";
    struct rebuild R = {.tok = json_tokener_new_ex(64)};
    size_t n = strlen(SAMPLE);
    char *buf = malloc(n + 8);
    unsigned seed = 12345;
    size_t accepted = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, SAMPLE, n);
        size_t len = n;
        int edits = 1 + (int)(rand_r(&seed) % 3);
        for (int k = 0; k < edits; k++) {
            size_t at = (size_t)rand_r(&seed) % len;
            int op = rand_r(&seed) % 3;
            char c = alphabet[(size_t)rand_r(&seed) % (sizeof alphabet - 1)];
            if (op == 0) { /* replace */
                buf[at] = c;
            } else if (op == 1 && len > 1) { /* delete */
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
            } else if (len < n + 8) { /* insert */
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = c;
                len++;
            }
        }
        char *exact = malloc(len);
        memcpy(exact, buf, len);
        json_object *s = stream_read(&R, exact, len);
        if (s) {
            accepted++;
            json_object *w = whole_read(exact, len);
            if (!w || !json_object_equal(s, w))
                fail_msg("streamed reading accepted what json-c reads otherwise: %.*s", (int)len,
                         exact);
            json_object_put(w);
            json_object_put(s);
        }
        free(exact);
    }
    /* some damage is harmless (a digit for a digit): the check ran */
    assert_true(accepted > 100);
    free(buf);
    json_tokener_free(R.tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pieces_join_to_the_whole),
        cmocka_unit_test(what_is_not_json_is_refused_where_it_goes_wrong),
        cmocka_unit_test(damaged_documents_never_fool_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
