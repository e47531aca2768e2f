/* test_app_identity.c - app keys from job names (anonymous names
 * refused, bad characters replaced, leading '.'/'-' dropped, cut at 64)
 * and from batch scripts (the program a launcher line starts: launcher
 * options and their values, VAR=value prefixes, comments, lines without a
 * launcher, the 64 KiB scan limit). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app_identity.h"
#include "job_options.h"

static void name_is_kept_when_it_is_a_good_key(void **state)
{
    (void)state;
    char out[NV_APP_KEY_MAX + 1];
    const char *same[] = {"lulesh2.0", "su3_rmd", "AMG-2013", "x", "_", "wrapper", "bash5", "shx"};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        memset(out, 'Q', sizeof out);
        if (!nv_app_key_from_name(same[i], out, sizeof out))
            fail_msg("'%s' refused", same[i]);
        assert_string_equal(out, same[i]);
    }
}

static void name_anonymous_ones_are_refused(void **state)
{
    (void)state;
    char out[NV_APP_KEY_MAX + 1];
    const char *anon[] = {"wrap",        "sh",   "bash",   "zsh",    "tcsh",  "csh",
                          "interactive", "srun", "salloc", "sbatch", "script"};
    for (size_t i = 0; i < sizeof anon / sizeof *anon; i++)
        if (nv_app_key_from_name(anon[i], out, sizeof out))
            fail_msg("anonymous name '%s' accepted as '%s'", anon[i], out);
    /* the check is on the cleaned name: "-bash" (a login shell) is "bash" */
    assert_false(nv_app_key_from_name("-bash", out, sizeof out));
    assert_false(nv_app_key_from_name("..wrap", out, sizeof out));
}

static void name_bad_characters_become_underscores(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"my job", "my_job"},
        {"a/b/c", "a_b_c"},
        {"../../etc/passwd", "_.._etc_passwd"}, /* leading ".." dropped, then '/' -> '_' */
        {"--rf", "rf"},
        {".-.x", "x"},
        {"caf\xc3\xa9", "caf__"}, /* two UTF-8 bytes, two underscores */
        {"run#3 (big)", "run_3__big_"},
        {"tab\tname", "tab_name"},
        {"q\"uote", "q_uote"},
        {"x.", "x."},
    };
    char out[NV_APP_KEY_MAX + 1];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!nv_app_key_from_name(cases[i].in, out, sizeof out))
            fail_msg("'%s' refused", cases[i].in);
        assert_string_equal(out, cases[i].out);
        assert_true(nv_app_key_valid(out, NULL));
    }
}

static void name_nothing_usable(void **state)
{
    (void)state;
    char out[NV_APP_KEY_MAX + 1];
    assert_false(nv_app_key_from_name(NULL, out, sizeof out));
    assert_false(nv_app_key_from_name("", out, sizeof out));
    assert_false(nv_app_key_from_name("...", out, sizeof out));
    assert_false(nv_app_key_from_name("-.-", out, sizeof out));
    /* a buffer too small for a 64-character key is refused outright */
    char small[NV_APP_KEY_MAX];
    assert_false(nv_app_key_from_name("lulesh", small, sizeof small));
}

static void name_is_cut_at_64(void **state)
{
    (void)state;
    char in[200], out[NV_APP_KEY_MAX + 1];
    memset(in, 'n', sizeof in);
    in[199] = '\0';
    in[0] = '.'; /* dropped first, so the 64 kept start at in[1] */
    in[70] = 'Z';
    assert_true(nv_app_key_from_name(in, out, sizeof out));
    assert_int_equal(strlen(out), 64);
    assert_null(strchr(out, 'Z')); /* in[70] is the 70th kept char: beyond the cut */
    in[64] = '!';                  /* the 64th kept char */
    assert_true(nv_app_key_from_name(in, out, sizeof out));
    assert_int_equal(out[63], '_');
}

/* the last bytes of a script, for messages (padded ones are long) */
static const char *tail_of(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return !s ? "(null)" : n > 120 ? s + n - 120 : s;
}

static void expect_script(const char *script, const char *want)
{
    char out[NV_APP_KEY_MAX + 1];
    memset(out, 0, sizeof out);
    bool ok = nv_app_key_from_script(script, out, sizeof out);
    if (!want) {
        if (ok)
            fail_msg("script gave '%s', expected none:\n...%s", out, tail_of(script));
        return;
    }
    if (!ok)
        fail_msg("script gave nothing, expected '%s':\n...%s", want, tail_of(script));
    if (strcmp(out, want))
        fail_msg("script gave '%s', expected '%s':\n...%s", out, want, tail_of(script));
}

static void script_the_two_documented_examples(void **state)
{
    (void)state;
    expect_script("#!/bin/bash\n#SBATCH -N 2\nsrun -n 4 ./lulesh2.0 -s 30\n", "lulesh2.0");
    expect_script("OMP_NUM_THREADS=2 mpirun --bind-to none -np 8 /opt/apps/milc/bin/su3_rmd < in",
                  "su3_rmd");
}

static void script_launchers_and_paths(void **state)
{
    (void)state;
    expect_script("mpiexec -n 16 ./amg -problem 2\n", "amg");
    expect_script("orterun -np 2 /usr/local/bin/hpcg\n", "hpcg");
    expect_script("/usr/bin/mpirun -np 4 ./xhpl\n", "xhpl");
    expect_script("  \tsrun\t-N2 -n 8   --mpi=pmix  ./fftw_bench\n", "fftw_bench");
    expect_script("srun -n 4 ./lulesh2.0;echo done\n", "lulesh2.0");
    expect_script("srun ./a.out&\nwait\n", "a.out");
    expect_script("srun -n 4 hostname", "hostname"); /* no trailing newline */
    expect_script("A=1 B=2 srun ./multi_env\n", "multi_env");
    /* a program name that needs cleaning */
    expect_script("srun ./my@app\n", "my_app");
}

static void script_launcher_options_with_values(void **state)
{
    (void)state;
    /* values of launcher options are not the program */
    expect_script("mpirun --map-by ppr:2:node --bind-to core -np 8 ./milc\n", "milc");
    expect_script("mpirun -x OMP_NUM_THREADS -x LD_LIBRARY_PATH -np 4 ./nekbone\n", "nekbone");
    expect_script("mpirun --mca btl tcp,self -np 2 ./pingpong\n", "pingpong");
    expect_script("mpirun --hostfile hosts.txt ./qbox in.i\n", "qbox");
    expect_script("srun -p debug -J myjob -t 10:00 ./lammps -in in.lj\n", "lammps");
    expect_script("srun --partition batch --cpu-bind cores -o out.txt ./gromacs\n", "gromacs");
    expect_script("srun --label -n 2 ./labelled\n", "labelled"); /* a flag without a value */
    /* VAR=value with a path in the value is still an assignment */
    expect_script("LD_LIBRARY_PATH=/opt/lib:/usr/lib srun ./withlibs\n", "withlibs");
}

static void script_lines_that_do_not_launch(void **state)
{
    (void)state;
    expect_script(NULL, NULL);
    expect_script("", NULL);
    expect_script("#!/bin/bash\n#SBATCH -J lulesh\n# srun ./commented_out\n", NULL);
    expect_script("module load fftw\n./serial_run\necho srun ./not_me\ncd /tmp\n", NULL);
    expect_script("srun\nsrun -n 4\nmpirun -np 8 --\n", NULL); /* launchers with no program */
    expect_script("srunner ./x\nmy-mpirun ./y\n", NULL);       /* not launchers */
    expect_script("srun wrap\nsrun bash -c 'x'\n", NULL);      /* anonymous programs */
    /* the first usable launcher line wins, later ones are not looked at */
    expect_script("hostname\n# srun ./c\nsrun bash run.sh\nsrun -n 2 ./first\nsrun ./second\n",
                  "first");
    expect_script("#!/bin/sh\nsrun ./x # srun ./y\n", "x");
    char small[NV_APP_KEY_MAX];
    assert_false(nv_app_key_from_script("srun ./x\n", small, sizeof small));
}

static char *padded_script(size_t pad, const char *tail)
{
    size_t tl = strlen(tail);
    char *s = malloc(pad + tl + 1);
    assert_non_null(s);
    /* comment lines of 64 bytes each */
    for (size_t i = 0; i < pad; i++)
        s[i] = (i % 64 == 63) ? '\n' : '#';
    if (pad)
        s[pad - 1] = '\n';
    memcpy(s + pad, tail, tl + 1);
    return s;
}

static void script_scan_limit_is_64_kib(void **state)
{
    (void)state;
    /* launcher line entirely inside the first 64 KiB */
    const char *tail = "srun -n 4 ./inside\n";
    char *s = padded_script(NV_SCRIPT_SCAN_MAX - strlen(tail), tail);
    expect_script(s, "inside");
    free(s);
    /* launcher line entirely beyond it */
    s = padded_script(NV_SCRIPT_SCAN_MAX + 64, "srun -n 4 ./beyond\n");
    expect_script(s, NULL);
    free(s);
    /* a 70 KiB script whose launcher is near the start is fine */
    char *big = padded_script(70 * 1024, "srun ./late\n");
    memcpy(big, "srun ./early\n", 13);
    expect_script(big, "early");
    free(big);
}

static void script_line_cut_by_the_limit_gives_no_partial_name(void **state)
{
    (void)state;
    /* the launcher line straddles the limit: "srun ./lulesh2.0" would be
     * seen as "srun ./lul"; a cut line must not name an app */
    const char *tail = "srun ./lulesh2.0\n";
    char *s = padded_script(NV_SCRIPT_SCAN_MAX - 10, tail);
    expect_script(s, NULL);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(name_is_kept_when_it_is_a_good_key),
        cmocka_unit_test(name_anonymous_ones_are_refused),
        cmocka_unit_test(name_bad_characters_become_underscores),
        cmocka_unit_test(name_nothing_usable),
        cmocka_unit_test(name_is_cut_at_64),
        cmocka_unit_test(script_the_two_documented_examples),
        cmocka_unit_test(script_launchers_and_paths),
        cmocka_unit_test(script_launcher_options_with_values),
        cmocka_unit_test(script_lines_that_do_not_launch),
        cmocka_unit_test(script_scan_limit_is_64_kib),
        cmocka_unit_test(script_line_cut_by_the_limit_gives_no_partial_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
