/* test_safe_open.c - the one way to open a file someone else may have put
 * there: a FIFO must not block, a symbolic link is not followed, a file of
 * another owner or past the cap is refused, reads are bounded.  Every case
 * runs under alarm(): a reader that blocks fails the test instead of
 * hanging it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "json_file.h"
#include "nv_test.h"
#include "safe_open.h"

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    alarm(30); /* a blocking open would otherwise hang the suite */
    return nv_test_tmpdir(dir, sizeof dir, "safe-open");
}

static int remove_dir(void **state)
{
    (void)state;
    alarm(0);
    return nv_test_rmtree(dir);
}

static void a_fifo_is_refused_without_blocking(void **state)
{
    (void)state;
    char path[300], err[200];
    size_t len;
    snprintf(path, sizeof path, "%s/planted.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(nv_read_untrusted(path, NV_ANY_OWNER, 4096, 0, &len, err, sizeof err));
    assert_non_null(strstr(err, "FIFO"));
    /* also where a symbolic link would be followed (an admin-named path) */
    assert_null(nv_read_file(path, 4096, &len, err, sizeof err));
    assert_non_null(strstr(err, "FIFO"));
    assert_null(nv_json_read_file(path, 4096, err, sizeof err));
    assert_non_null(strstr(err, "FIFO"));
}

static void a_symbolic_link_is_not_followed(void **state)
{
    (void)state;
    char target[300], link[300], err[200];
    size_t len;
    snprintf(target, sizeof target, "%s/secret", dir);
    snprintf(link, sizeof link, "%s/link.json", dir);
    assert_int_equal(nv_test_write_file(dir, "secret", "{\"a\":1}"), 0);
    assert_int_equal(symlink(target, link), 0);
    assert_null(nv_read_untrusted(link, NV_ANY_OWNER, 4096, 0, &len, err, sizeof err));
    assert_non_null(strstr(err, "symbolic link"));
    assert_null(nv_json_read_file(link, 4096, err, sizeof err));
    assert_non_null(strstr(err, "symbolic link"));
    /* an admin-named path may be a link */
    char *buf = nv_read_untrusted(link, NV_ANY_OWNER, 4096, NV_OPEN_FOLLOW, &len, err, sizeof err);
    assert_non_null(buf);
    assert_int_equal(len, 7);
    free(buf);
}

/* a job directory linked out of the spool (ln -s /x SPOOL/jobs/2004) is
 * not read through: the file's own name is not enough */
static void a_linked_directory_is_not_followed(void **state)
{
    (void)state;
    char real[300], link[300], path[400], err[200];
    size_t len;
    snprintf(real, sizeof real, "%s/outside", dir);
    snprintf(link, sizeof link, "%s/2004", dir);
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(nv_test_write_file(real, "job.json", "{\"a\":1}"), 0);
    assert_int_equal(symlink(real, link), 0);
    snprintf(path, sizeof path, "%s/job.json", link);
    assert_null(nv_read_untrusted(path, NV_ANY_OWNER, 4096, 0, &len, err, sizeof err));
    assert_string_equal(err, "its directory is a symbolic link; not followed");
    assert_null(nv_json_read_file(path, 4096, err, sizeof err));
    assert_string_equal(err, "its directory is a symbolic link; not followed");
    /* the real directory reads, and a name without a directory too */
    snprintf(path, sizeof path, "%s/job.json", real);
    char *buf = nv_read_untrusted(path, NV_ANY_OWNER, 4096, 0, &len, err, sizeof err);
    assert_non_null(buf);
    free(buf);
    assert_int_equal(chdir(real), 0);
    buf = nv_read_untrusted("job.json", NV_ANY_OWNER, 4096, 0, &len, err, sizeof err);
    assert_non_null(buf);
    free(buf);
    assert_int_equal(chdir("/"), 0);
}

/* the one reader of a file the admin named (pairs, topology, blade map,
 * netvar.conf, model): a FIFO or /dev/zero refused at once, a NUL byte
 * refused, a link followed to a regular file */
static void the_admin_reader_refuses_fifos_devices_and_nul(void **state)
{
    (void)state;
    char path[300], link[300], err[200];
    size_t len = 99;
    snprintf(path, sizeof path, "%s/pairs.fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(nv_read_admin_file(path, 4096, true, &len, err, sizeof err));
    assert_string_equal(err, "a FIFO; not read");
    assert_null(nv_read_admin_file("/dev/zero", 4096, true, &len, err, sizeof err));
    assert_string_equal(err, "a device; not read");
    assert_null(nv_read_admin_file(dir, 4096, true, &len, err, sizeof err));
    assert_string_equal(err, "a directory; not read");
    snprintf(path, sizeof path, "%s/nul.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite("ab\0cd\n", 1, 6, f);
    fclose(f);
    assert_null(nv_read_admin_file(path, 4096, true, &len, err, sizeof err));
    assert_string_equal(err, "a NUL byte at offset 2: not a text file");
    assert_int_equal(len, 0);
    char *buf = nv_read_admin_file(path, 4096, false, &len, err, sizeof err); /* JSON: its parser */
    assert_non_null(buf);
    assert_int_equal(len, 6);
    free(buf);
    assert_null(nv_read_admin_file(path, 5, true, &len, err, sizeof err));
    assert_string_equal(err, "6 bytes is more than the 5-byte limit");
    assert_int_equal(nv_test_write_file(dir, "t.conf", "SwitchName=s1 Nodes=a1\n"), 0);
    snprintf(path, sizeof path, "%s/t.conf", dir);
    snprintf(link, sizeof link, "%s/current.conf", dir);
    assert_int_equal(symlink(path, link), 0);
    buf = nv_read_admin_file(link, 4096, true, &len, err, sizeof err);
    assert_non_null(buf);
    assert_string_equal(buf, "SwitchName=s1 Nodes=a1\n");
    free(buf);
}

static void owner_size_and_type_are_checked(void **state)
{
    (void)state;
    char path[300], err[200];
    size_t len;
    snprintf(path, sizeof path, "%s/rec.json", dir);
    assert_int_equal(nv_test_write_file(dir, "rec.json", "{\"x\":12345}"), 0);
    char *buf = nv_read_untrusted(path, geteuid(), 4096, 0, &len, err, sizeof err);
    assert_non_null(buf);
    assert_string_equal(buf, "{\"x\":12345}");
    free(buf);
    assert_null(nv_read_untrusted(path, geteuid() + 1, 4096, 0, &len, err, sizeof err));
    assert_non_null(strstr(err, "owned by uid"));
    assert_null(nv_json_read_owned(path, geteuid() + 1, 4096, err, sizeof err));
    assert_non_null(strstr(err, "owned by uid"));
    assert_null(nv_read_untrusted(path, NV_ANY_OWNER, 5, 0, &len, err, sizeof err));
    assert_non_null(strstr(err, "limit"));
    assert_null(nv_read_untrusted(dir, NV_ANY_OWNER, 4096, 0, &len, err, sizeof err));
    assert_non_null(strstr(err, "directory"));
    assert_null(
        nv_read_untrusted("/dev/zero", NV_ANY_OWNER, 4096, NV_OPEN_FOLLOW, &len, err, sizeof err));
    assert_non_null(strstr(err, "device"));
    uid_t o = 12345;
    assert_int_equal(nv_dir_owner(dir, &o, err, sizeof err), 0);
    assert_int_equal(o, geteuid());
    assert_int_equal(nv_dir_owner(path, &o, err, sizeof err), -1);
}

static void pread_all_notices_a_short_file(void **state)
{
    (void)state;
    char path[300], err[200], b[16];
    snprintf(path, sizeof path, "%s/short", dir);
    assert_int_equal(nv_test_write_file(dir, "short", "abc"), 0);
    int fd = nv_open_untrusted(path, NV_ANY_OWNER, 100, 0, NULL, err, sizeof err);
    assert_true(fd >= 0);
    assert_int_equal(nv_pread_all(fd, b, 2, 1, err, sizeof err), 0);
    assert_memory_equal(b, "bc", 2);
    assert_int_equal(nv_pread_all(fd, b, 8, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "shorter"));
    close(fd);
}

/* names users chose reach root's terminal only escaped */
static void names_are_escaped_for_the_terminal(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(nv_printable("profile-12.3.json", b, sizeof b), "profile-12.3.json");
    assert_string_equal(nv_printable("a\033]0;pwned\007b", b, sizeof b), "a\\x1b]0;pwned\\x07b");
    assert_string_equal(nv_printable("x\x9b"
                                     "2Jy",
                                     b, sizeof b),
                        "x\\x9b2Jy");                                               /* 8-bit CSI */
    assert_string_equal(nv_printable("c1 \xc2\x9b", b, sizeof b), "c1 \\xc2\\x9b"); /* UTF-8 C1 */
    assert_string_equal(nv_printable("µs é", b, sizeof b), "µs é");
    assert_string_equal(nv_printable("back\\slash\n", b, sizeof b), "back\\\\slash\\x0a");
    assert_string_equal(nv_printable("\x1b\x1b\x1b", b, 9), "\\x1b\\x1b"); /* cut whole */
    assert_string_equal(nv_printable(NULL, b, sizeof b), "");
    assert_true(nv_plain_name("profile-1.2.json"));
    assert_false(nv_plain_name(".hidden.json"));
    assert_false(nv_plain_name("a\033b.json"));
    assert_false(nv_plain_name("a b.json"));
    assert_false(nv_plain_name(""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_fifo_is_refused_without_blocking, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_symbolic_link_is_not_followed, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(a_linked_directory_is_not_followed, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(the_admin_reader_refuses_fifos_devices_and_nul, make_dir,
                                        remove_dir),
        cmocka_unit_test_setup_teardown(owner_size_and_type_are_checked, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(pread_all_notices_a_short_file, make_dir, remove_dir),
        cmocka_unit_test(names_are_escaped_for_the_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
