/* test_job_options.c - the --netvar mode names, the app-key rule
 * (length, first character, character set, path tricks, UTF-8 bytes) and
 * the yes/no parser of lib/site/job_options. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "job_options.h"

static void mode_parse_accepts_exactly_the_four_names(void **state)
{
    (void)state;
    assert_int_equal(nv_mode_parse("off"), NV_MODE_OFF);
    assert_int_equal(nv_mode_parse("counters"), NV_MODE_COUNTERS);
    assert_int_equal(nv_mode_parse("segments"), NV_MODE_SEGMENTS);
    assert_int_equal(nv_mode_parse("full"), NV_MODE_FULL);
    /* anything else is unset: NULL, empty, prefixes, padding, other words */
    const char *bad[] = {"",   "Full", "FULL",    "ful",     "fulll", " full", "full ",
                         "on", "none", "counter", "segment", "0",     "1",     "off\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (nv_mode_parse(bad[i]) != NV_MODE_UNSET)
            fail_msg("nv_mode_parse(\"%s\") should be unset", bad[i]);
    assert_int_equal(nv_mode_parse(NULL), NV_MODE_UNSET);
}

static void mode_name_round_trips_and_names_the_rest_unset(void **state)
{
    (void)state;
    assert_string_equal(nv_mode_name(NV_MODE_OFF), "off");
    assert_string_equal(nv_mode_name(NV_MODE_COUNTERS), "counters");
    assert_string_equal(nv_mode_name(NV_MODE_SEGMENTS), "segments");
    assert_string_equal(nv_mode_name(NV_MODE_FULL), "full");
    for (int m = NV_MODE_OFF; m <= NV_MODE_FULL; m++)
        assert_int_equal(nv_mode_parse(nv_mode_name((nv_mode)m)), m);
    assert_string_equal(nv_mode_name(NV_MODE_UNSET), "unset");
    assert_string_equal(nv_mode_name((nv_mode)4), "unset");
    assert_string_equal(nv_mode_name((nv_mode)-7), "unset");
}

static void mode_wants_counters_and_segments(void **state)
{
    (void)state;
    assert_false(nv_mode_wants_counters(NV_MODE_OFF));
    assert_true(nv_mode_wants_counters(NV_MODE_COUNTERS));
    assert_false(nv_mode_wants_counters(NV_MODE_SEGMENTS));
    assert_true(nv_mode_wants_counters(NV_MODE_FULL));
    assert_false(nv_mode_wants_counters(NV_MODE_UNSET));
    assert_false(nv_mode_wants_segments(NV_MODE_OFF));
    assert_false(nv_mode_wants_segments(NV_MODE_COUNTERS));
    assert_true(nv_mode_wants_segments(NV_MODE_SEGMENTS));
    assert_true(nv_mode_wants_segments(NV_MODE_FULL));
    assert_false(nv_mode_wants_segments(NV_MODE_UNSET));
}

static void app_key_accepts_the_documented_alphabet(void **state)
{
    (void)state;
    const char *good[] = {
        "a",          "Z",
        "0",          "_",
        "_x",         "lulesh2.0",
        "su3_rmd",    "a-b",
        "a.b.c",      "A1_b-2.c",
        "x.",         "x-",
        "0123456789", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        const char *why = "untouched";
        if (!nv_app_key_valid(good[i], &why))
            fail_msg("'%s' rejected: %s", good[i], why);
        assert_string_equal(why, "untouched"); /* why is only written on failure */
    }
}

static void app_key_length_limit_is_64(void **state)
{
    (void)state;
    char s[200];
    memset(s, 'k', sizeof s);
    s[64] = '\0';
    assert_int_equal(strlen(s), 64);
    assert_true(nv_app_key_valid(s, NULL));
    s[64] = 'k';
    s[65] = '\0';
    const char *why = NULL;
    assert_false(nv_app_key_valid(s, &why));
    assert_non_null(why);
    assert_non_null(strstr(why, "64"));
    /* very long: still rejected for length, without reading past the end */
    s[sizeof s - 1] = '\0';
    assert_false(nv_app_key_valid(s, &why));
    assert_non_null(strstr(why, "longer"));
}

static void app_key_rejections_name_the_rule(void **state)
{
    (void)state;
    struct {
        const char *key, *why_has;
    } bad[] = {
        {"", "empty"},
        {".hidden", "starts with"},
        {"-rf", "starts with"},
        {"..", "starts with"},
        {"../../etc", "starts with"},
        {"a/../../etc", "character"},
        {"etc/passwd", "character"},
        {"my app", "character"},
        {" app", "character"},
        {"app ", "character"},
        {"tab\there", "character"},
        {"new\nline", "character"},
        {"caf\xc3\xa9", "character"}, /* UTF-8 e-acute */
        {"\xe2\x80\x8b"
         "app",
         "character"}, /* zero-width space first */
        {"a\"b", "character"},
        {"a\\b", "character"},
        {"a;rm", "character"},
        {"a$b", "character"},
        {"a+b", "character"},
        {"a:b", "character"},
        {"a@b", "character"},
        {"a=b", "character"},
        {"a\x7f", "character"},
        {"\x01", "character"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *why = NULL;
        if (nv_app_key_valid(bad[i].key, &why))
            fail_msg("key #%zu '%s' accepted", i, bad[i].key);
        assert_non_null(why);
        if (!strstr(why, bad[i].why_has))
            fail_msg("key #%zu: reason '%s' lacks '%s'", i, why, bad[i].why_has);
    }
    const char *why = NULL;
    assert_false(nv_app_key_valid(NULL, &why));
    assert_string_equal(why, "is empty");
    /* why may be NULL */
    assert_false(nv_app_key_valid("../x", NULL));
    assert_false(nv_app_key_valid(NULL, NULL));
}

static void app_key_with_bad_byte_at_position_64_is_rejected(void **state)
{
    (void)state;
    /* 63 good characters and one bad one: length is fine, the byte is not */
    char s[65];
    memset(s, 'a', 63);
    s[63] = '/';
    s[64] = '\0';
    const char *why = NULL;
    assert_false(nv_app_key_valid(s, &why));
    assert_non_null(strstr(why, "character"));
}

static void parse_bool_words_any_case(void **state)
{
    (void)state;
    const char *yes[] = {"yes", "YES", "Yes", "true", "TRUE", "1", "on", "ON", "oN"};
    const char *no[] = {"no", "NO", "false", "False", "0", "off", "OFF"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        bool b = false;
        assert_true(nv_parse_bool(yes[i], &b));
        if (!b)
            fail_msg("'%s' should be true", yes[i]);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        bool b = true;
        assert_true(nv_parse_bool(no[i], &b));
        if (b)
            fail_msg("'%s' should be false", no[i]);
    }
}

static void parse_bool_rejects_others_and_leaves_out_alone(void **state)
{
    (void)state;
    const char *bad[] = {"",     "y",   "n",      "t",  "f",   "2",     "-1",
                         "yes ", " no", "enable", "of", "onn", "truee", "00"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool b = true;
        if (nv_parse_bool(bad[i], &b))
            fail_msg("'%s' accepted as a boolean", bad[i]);
        assert_true(b);
        b = false;
        assert_false(nv_parse_bool(bad[i], &b));
        assert_false(b);
    }
    bool b = true;
    assert_false(nv_parse_bool(NULL, &b));
    assert_true(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mode_parse_accepts_exactly_the_four_names),
        cmocka_unit_test(mode_name_round_trips_and_names_the_rest_unset),
        cmocka_unit_test(mode_wants_counters_and_segments),
        cmocka_unit_test(app_key_accepts_the_documented_alphabet),
        cmocka_unit_test(app_key_length_limit_is_64),
        cmocka_unit_test(app_key_rejections_name_the_rule),
        cmocka_unit_test(app_key_with_bad_byte_at_position_64_is_rejected),
        cmocka_unit_test(parse_bool_words_any_case),
        cmocka_unit_test(parse_bool_rejects_others_and_leaves_out_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
