/* test_nv_json.c - the shared JSON getters, number writers, JSON file
 * writer and error and log helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "atomic_file.h"
#include "json_file.h"
#include "nv_err.h"
#include "nv_json.h"
#include "nv_test.h"

static void getters_refuse_what_is_not_there(void **state)
{
    json_object *o = json_tokener_parse(
        "{\"a\":1.5,\"i\":3,\"s\":\"x\",\"n\":null,\"neg\":-2,\"big\":18446744073709551615,"
        "\"schema\":\"netvar-x\",\"o\":{}}");
    assert_non_null(o);
    double d;
    assert_true(nv_json_num(o, "a") == 1.5);
    assert_true(nv_json_num(o, "i") == 3);
    assert_true(isnan(nv_json_num(o, "s")));
    assert_true(isnan(nv_json_num(o, "missing")));
    assert_true(nv_json_num_or(o, "n", 7) == 7);
    assert_int_equal(nv_json_num_strict(o, "n", &d), 0);
    assert_int_equal(nv_json_num_strict(o, "missing", &d), 0);
    assert_int_equal(nv_json_num_strict(o, "s", &d), -1);
    assert_true(isnan(d));
    assert_int_equal(nv_json_num_strict(o, "a", &d), 1);
    assert_string_equal(nv_json_str(o, "s"), "x");
    assert_null(nv_json_str(o, "a"));
    assert_null(nv_json_str(NULL, "a"));
    assert_null(nv_json_get(o, "o", json_type_array));
    assert_non_null(nv_json_get(o, "o", json_type_object));
    uint64_t u = 0;
    assert_int_equal(nv_json_u64(o, "i", &u), 0);
    assert_int_equal(u, 3);
    assert_int_equal(nv_json_u64(o, "neg", &u), -1);
    assert_int_equal(nv_json_u64(o, "a", &u), -1);
    assert_int_equal(nv_json_u64(o, "big", &u), 0);
    assert_true(u == UINT64_MAX);
    assert_true(nv_json_schema_is(o, "netvar-x"));
    assert_false(nv_json_schema_is(o, "netvar-y"));
    assert_false(nv_json_schema_is(NULL, "netvar-x"));
    char err[96];
    assert_int_equal(nv_json_schema_check(o, "netvar-x", 1, err, sizeof err), 0); /* no version */
    assert_int_equal(nv_json_schema_check(o, "netvar-y", 1, err, sizeof err), -1);
    assert_string_equal(err, "schema is not netvar-y");
    json_object_object_add(o, "version", json_object_new_int(2));
    assert_int_equal(nv_json_schema_check(o, "netvar-x", 2, err, sizeof err), 0);
    assert_int_equal(nv_json_schema_check(o, "netvar-x", 1, err, sizeof err), -1);
    assert_string_equal(err, "version 2 is newer than this netvar reads (1)");
    json_object_object_add(o, "version", json_object_new_string("1"));
    assert_int_equal(nv_json_schema_check(o, "netvar-x", 1, err, sizeof err), -1);
    assert_int_equal(nv_json_schema_check(NULL, "netvar-x", 1, err, sizeof err), -1);
    json_object_put(o);
}

static void writers_are_exact_or_null(void **state)
{
    double v[] = {0.1, 1.0 / 3.0, 1e300, -0.0, 12345};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        json_object *j = nv_json_new_num(v[i]);
        json_object *back = json_tokener_parse(json_object_to_json_string(j));
        assert_true(json_object_get_double(back) == v[i]);
        json_object_put(j);
        json_object_put(back);
    }
    assert_null(nv_json_new_num(NAN));
    assert_null(nv_json_new_num(INFINITY));
    json_object *kept = nv_json_new_num_or_nan(NAN);
    assert_non_null(kept);
    assert_true(isnan(json_object_get_double(kept)));
    json_object_put(kept);
    kept = nv_json_new_num_or_nan(0.1);
    assert_string_equal(json_object_to_json_string(kept), "0.1");
    json_object_put(kept);
    assert_null(nv_json_new_num_g(NAN, 6));
    json_object *g = nv_json_new_num_g(1.0 / 3.0, 3);
    assert_string_equal(json_object_to_json_string(g), "0.333");
    json_object_put(g);
    double arr[] = {1, NAN, 2.5};
    json_object *a = nv_json_new_num_array(arr, 3);
    assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN), "[1,null,2.5]");
    json_object_put(a);
}

static void strings_copy_bounded(void **state)
{
    json_object *o = json_tokener_parse("{\"s\":\"abcdef\",\"e\":\"\",\"n\":3}");
    assert_non_null(o);
    char buf[4] = "zzz";
    assert_int_equal(nv_json_str_copy(o, "s", buf, sizeof buf), 1);
    assert_string_equal(buf, "abc");
    char big[16];
    assert_int_equal(nv_json_str_copy(o, "s", big, sizeof big), 0);
    assert_string_equal(big, "abcdef");
    assert_int_equal(nv_json_str_copy(o, "e", buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    strcpy(buf, "zzz");
    assert_int_equal(nv_json_str_copy(o, "n", buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    strcpy(buf, "zzz");
    assert_int_equal(nv_json_str_copy(o, "missing", buf, sizeof buf), -1);
    assert_string_equal(buf, "");
    assert_int_equal(nv_json_str_copy(NULL, "s", buf, sizeof buf), -1);
    assert_int_equal(nv_json_str_copy(o, "s", NULL, 0), 1);
    json_object_put(o);
}

static void errors_go_into_the_buffer(void **state)
{
    char err[16];
    assert_int_equal(nv_err(err, sizeof err, "bad %s: %d", "value", 12345678), -1);
    assert_string_equal(err, "bad value: 1234");
    assert_int_equal(nv_err(NULL, 0, "ignored %d", 1), -1);
    /* a quoted value cannot break the line or reach a terminal as an escape */
    char line[64];
    assert_int_equal(nv_err(line, sizeof line, "value \"%s\"", "a\nb\x1b[2Jc\x7f"), -1);
    assert_string_equal(line, "value \"a?b?[2Jc?\"");
}

/* the validating reader: the first problem, named by its path */
static void checks_name_the_first_problem(void **state)
{
    json_object *o = json_tokener_parse(
        "{\"a\":{\"n\":1.5,\"i\":-3,\"s\":\"fast\",\"arr\":[1,null],\"nan\":NaN}}");
    assert_non_null(o);
    char err[128];
    nv_jcheck c = {err, sizeof err, 0};
    double d = 0;
    int64_t i = 0;
    json_object *a = nv_jcheck_member(&c, o, "a", "", json_type_object);
    assert_non_null(a);
    assert_int_equal(nv_jcheck_number_member(&c, a, "n", "a", &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(nv_jcheck_integer_member(&c, a, "i", "a", -5, 5, &i), 0);
    assert_int_equal(i, -3);
    assert_string_equal(nv_jcheck_string_member(&c, a, "s", "a"), "fast");
    assert_false(c.failed);
    assert_int_equal(nv_jcheck_number_member(&c, a, "s", "a", &d), -1);
    assert_string_equal(err, "a.s: expected a number, got string \"fast\"");
    /* later problems do not overwrite the first */
    assert_null(nv_jcheck_member(&c, a, "missing", "a", json_type_object));
    assert_string_equal(err, "a.s: expected a number, got string \"fast\"");

    nv_jcheck c2 = {err, sizeof err, 0};
    assert_null(nv_jcheck_member(&c2, a, "missing", "a", json_type_array));
    assert_string_equal(err, "a.missing: missing required field");
    nv_jcheck c3 = {err, sizeof err, 0};
    assert_int_equal(nv_jcheck_integer_member(&c3, a, "i", "a", 0, 5, &i), -1);
    assert_string_equal(err, "a.i: value -3 is negative; it must be >= 0");
    nv_jcheck c4 = {err, sizeof err, 0};
    json_object *arr = nv_jcheck_member(&c4, a, "arr", "a", json_type_array);
    assert_int_equal(nv_jcheck_number(&c4, json_object_array_get_idx(arr, 1), "a.arr[1]", &d), -1);
    assert_string_equal(err, "a.arr[1]: expected a number, got null");
    nv_jcheck c5 = {err, sizeof err, 0};
    assert_int_equal(nv_jcheck_number_member(&c5, a, "nan", "a", &d), -1);
    assert_string_equal(err, "a.nan: value NaN is not a finite number");
    nv_jcheck c6 = {NULL, 0, 0}; /* no buffer: fails all the same */
    assert_int_equal(nv_jcheck_integer_member(&c6, a, "n", "", 0, 5, &i), -1);
    assert_true(c6.failed);
    assert_string_equal(nv_jcheck_type_name(NULL), "null");
    json_object_put(o);
}

static void keep_line(void *arg, const char *line)
{
    snprintf(arg, 64, "%s", line);
}

static void log_lines_go_to_the_callback(void **state)
{
    char got[64] = "";
    nv_logf(keep_line, got, "job %d: %s", 7, "skipped");
    assert_string_equal(got, "job 7: skipped");
    nv_logf(NULL, got, "nobody hears %d", 1); /* no callback: nothing, no crash */
    assert_string_equal(got, "job 7: skipped");
    nv_logf(keep_line, got, "app %s", "x\ny");
    assert_string_equal(got, "app x?y");
}

static void json_files_are_written_whole(void **state)
{
    char dir[64], sub[80], path[96], err[256];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "json-file"), 0);
    snprintf(sub, sizeof sub, "%s/d", dir);
    assert_int_equal(nv_make_dir(sub, 0750, err, sizeof err), 0);
    assert_int_equal(nv_make_dir(sub, 0750, err, sizeof err), 0); /* already there */
    snprintf(path, sizeof path, "%s/f", sub);
    assert_int_equal(nv_make_dir(path, 0750, err, sizeof err), 0);
    assert_int_equal(rmdir(path), 0);
    json_object *o = json_tokener_parse("{\"a\":\"x/y\",\"n\":[1,2]}");
    assert_int_equal(nv_json_write_file(path, o, 0640, (gid_t)-1, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    json_object *back = nv_json_read_file(path, 4096, err, sizeof err);
    assert_non_null(back);
    assert_string_equal(nv_json_str(back, "a"), "x/y");
    json_object_put(back);
    FILE *f = fopen(path, "r");
    char text[256] = "";
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    assert_non_null(strstr(text, "x/y")); /* slashes not escaped */
    assert_non_null(strchr(text, '\n'));  /* pretty */
    /* a file where a directory is wanted, and a directory that cannot exist */
    assert_int_equal(nv_make_dir(path, 0750, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot create directory"));
    snprintf(sub, sizeof sub, "%s/no/such/f", dir);
    assert_int_equal(nv_json_write_file(sub, o, 0640, (gid_t)-1, err, sizeof err), -1);
    json_object_put(o);
    assert_int_equal(nv_test_rmtree(dir), 0);
}

/* A device or a FIFO, or a link to one, is written in place: a temp file
 * renamed over --output /dev/null once replaced the device node on a test
 * machine.  A FIFO with no reader is an error, not a hang; nothing is left
 * beside it either way. */
static void special_files_are_written_in_place(void **state)
{
    (void)state;
    char dir[200], fifo[300], link[300], err[300];
    assert_int_equal(nv_test_tmpdir(dir, sizeof dir, "atomic-special"), 0);
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    snprintf(link, sizeof link, "%s/to-pipe", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(symlink(fifo, link), 0);
    /* no reader: refused at once, the FIFO still there */
    assert_int_equal(nv_write_file_atomic(fifo, "x", 1, 0644, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    assert_int_equal(nv_write_file_atomic(fifo, "hello", 5, 0644, err, sizeof err), 0);
    assert_int_equal(nv_write_file_atomic(link, "+link", 5, 0644, err, sizeof err), 0);
    char got[32] = "";
    assert_int_equal(read(rd, got, sizeof got - 1), 10);
    assert_string_equal(got, "hello+link");
    close(rd);
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* no temp file left in the directory: only the FIFO and the link */
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 2);
    assert_int_equal(nv_test_rmtree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(getters_refuse_what_is_not_there),
        cmocka_unit_test(writers_are_exact_or_null),
        cmocka_unit_test(strings_copy_bounded),
        cmocka_unit_test(checks_name_the_first_problem),
        cmocka_unit_test(errors_go_into_the_buffer),
        cmocka_unit_test(log_lines_go_to_the_callback),
        cmocka_unit_test(json_files_are_written_whole),
        cmocka_unit_test(special_files_are_written_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
