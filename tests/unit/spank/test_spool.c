/* test_spool.c - the SPANK plugin's job directories (plugins/spank/spool.c,
 * linked in): a job directory left by an earlier run with the same job id
 * (a requeue, or an id reused) is reset when the new job starts, and the
 * earlier user's profiles go without any link being followed. */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "nv_test.h"

#include "../../../plugins/spank/spool.h"

static void a_stale_job_directory_is_reset(void **state)
{
    (void)state;
    char root[256], dir[400], sub[500], outside[400], err[256];
    assert_int_equal(nv_test_tmpdir(root, sizeof root, "spool-reset"), 0);
    assert_int_equal(nv_spool_job_dir(root, 42, 0, dir, sizeof dir, err, sizeof err), 0);
    /* what the earlier run left */
    assert_int_equal(nv_test_write_file(dir, "job.json", "{}"), 0);
    assert_int_equal(nv_test_write_file(dir, "node-n1.json", "{}"), 0);
    assert_int_equal(nv_test_write_file(dir, "node-n2.json", "{}"), 0);
    assert_int_equal(nv_test_write_file(dir, ".start-n2.json", "{}"), 0); /* this run's */
    snprintf(sub, sizeof sub, "%s/profiles", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(nv_test_write_file(sub, "old.json", "{}"), 0);
    snprintf(sub, sizeof sub, "%s/profiles/deep", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_int_equal(nv_test_write_file(sub, "x", "y"), 0);
    /* a link out of the spool: removed, its target untouched */
    snprintf(outside, sizeof outside, "%s/outside", root);
    assert_int_equal(mkdir(outside, 0755), 0);
    assert_int_equal(nv_test_write_file(outside, "keep", "k"), 0);
    snprintf(sub, sizeof sub, "%s/profiles/link", dir);
    assert_int_equal(symlink(outside, sub), 0);
    if (geteuid() == 0) { /* the earlier user's directory */
        snprintf(sub, sizeof sub, "%s/profiles", dir);
        assert_int_equal(chown(sub, 4242, 4242), 0);
    }

    int n = nv_spool_job_reset(dir, err, sizeof err);
    assert_int_equal(n, 7);
    snprintf(sub, sizeof sub, "%s/job.json", dir);
    assert_int_not_equal(access(sub, F_OK), 0);
    snprintf(sub, sizeof sub, "%s/node-n1.json", dir);
    assert_int_not_equal(access(sub, F_OK), 0);
    snprintf(sub, sizeof sub, "%s/.start-n2.json", dir);
    assert_int_equal(access(sub, F_OK), 0);
    snprintf(sub, sizeof sub, "%s/outside/keep", root);
    assert_int_equal(access(sub, F_OK), 0);
    snprintf(sub, sizeof sub, "%s/profiles", dir);
    struct stat st;
    assert_int_equal(lstat(sub, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    if (geteuid() == 0) {
        assert_int_equal(st.st_uid, 0);
        assert_int_equal(st.st_mode & 0777, 0700);
    }
    /* nothing left to reset */
    assert_int_equal(nv_spool_job_reset(dir, err, sizeof err), 0);
    /* profiles that is a link: removed, not followed */
    assert_int_equal(rmdir(sub), 0);
    assert_int_equal(symlink(outside, sub), 0);
    assert_int_equal(nv_spool_job_reset(dir, err, sizeof err), 1);
    snprintf(sub, sizeof sub, "%s/outside/keep", root);
    assert_int_equal(access(sub, F_OK), 0);
    assert_int_equal(nv_test_rmtree(root), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stale_job_directory_is_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
