/* app_identity.c - app keys from job names and batch scripts. */
#include "app_identity.h"

#include <ctype.h>
#include <string.h>

#include "job_options.h"

static const char *const anonymous[] = {"wrap",        "sh",   "bash",   "zsh",    "tcsh",  "csh",
                                        "interactive", "srun", "salloc", "sbatch", "script"};

bool nv_app_key_from_name(const char *s, char *out, size_t cap)
{
    if (!s || cap <= NV_APP_KEY_MAX)
        return false;
    while (*s == '.' || *s == '-')
        s++;
    size_t n = 0;
    for (; *s && n < NV_APP_KEY_MAX; s++) {
        char c = *s;
        bool ok = isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
        out[n++] = ok ? c : '_';
    }
    out[n] = '\0';
    if (n == 0)
        return false;
    for (size_t i = 0; i < sizeof anonymous / sizeof anonymous[0]; i++)
        if (!strcmp(out, anonymous[i]))
            return false;
    return nv_app_key_valid(out, NULL);
}

enum launcher { NOT_LAUNCHER, SRUN, MPI_LAUNCHER };

static enum launcher launcher_of(const char *w, size_t n)
{
    static const char *const launchers[] = {"srun", "mpirun", "mpiexec", "orterun"};
    const char *base = w;
    for (size_t i = 0; i < n; i++)
        if (w[i] == '/')
            base = w + i + 1;
    size_t bn = n - (size_t)(base - w);
    for (size_t i = 0; i < 4; i++)
        if (strlen(launchers[i]) == bn && !strncmp(base, launchers[i], bn))
            return i == 0 ? SRUN : MPI_LAUNCHER;
    return NOT_LAUNCHER;
}

/* How many separate words follow option w (given without "=value") as its
 * value: launcher options whose values are not plain numbers, so that
 * "--bind-to none" or "-p debug" is not taken for the program. */
static int option_values(enum launcher l, const char *w, size_t n)
{
    static const char *const srun_opts[] = {"-A",
                                            "--account",
                                            "-p",
                                            "--partition",
                                            "-J",
                                            "--job-name",
                                            "-o",
                                            "--output",
                                            "-e",
                                            "--error",
                                            "-i",
                                            "--input",
                                            "-w",
                                            "--nodelist",
                                            "-x",
                                            "--exclude",
                                            "-C",
                                            "--constraint",
                                            "-D",
                                            "--chdir",
                                            "-t",
                                            "--time",
                                            "-m",
                                            "--distribution",
                                            "-q",
                                            "--qos",
                                            "-d",
                                            "--dependency",
                                            "-L",
                                            "--licenses",
                                            "--mpi",
                                            "--cpu-bind",
                                            "--mem-bind",
                                            "--export",
                                            "--reservation",
                                            "--gres",
                                            "--hint",
                                            "--mem",
                                            "--mem-per-cpu",
                                            "--mem-per-gpu",
                                            "--gpus",
                                            "--gpus-per-node",
                                            "--network",
                                            "--begin",
                                            "--comment",
                                            "--time-min",
                                            "-B",
                                            "--extra-node-info",
                                            "--propagate",
                                            "--container",
                                            NULL};
    static const char *const mpi_opts[] = {"--bind-to",
                                           "-bind-to",
                                           "--map-by",
                                           "-map-by",
                                           "--rank-by",
                                           "-rank-by",
                                           "-x",
                                           "-H",
                                           "--host",
                                           "-host",
                                           "-hosts",
                                           "--hostfile",
                                           "-hostfile",
                                           "--machinefile",
                                           "-machinefile",
                                           "-f",
                                           "-wdir",
                                           "--wdir",
                                           "-wd",
                                           "-d",
                                           "--prefix",
                                           "-prefix",
                                           "--output-filename",
                                           "-output-filename",
                                           "-launcher",
                                           "-bootstrap",
                                           "-genvlist",
                                           "-envlist",
                                           "-am",
                                           NULL};
    static const char *const mpi_two[] = {"--mca", "-mca", "--gmca", "-gmca",
                                          "-genv", "-env", NULL};
    const char *const *tables[2] = {l == SRUN ? srun_opts : mpi_opts, l == SRUN ? NULL : mpi_two};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; tables[t] && tables[t][i]; i++)
            if (strlen(tables[t][i]) == n && !strncmp(w, tables[t][i], n))
                return t + 1;
    return 0;
}

/* NAME=value, NAME a shell identifier: an assignment before the command */
static bool is_assignment(const char *w, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)w[0]) || w[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (w[i] == '=')
            return true;
        if (!isalnum((unsigned char)w[i]) && w[i] != '_')
            return false;
    }
    return false;
}

static bool all_digits(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)w[i]))
            return false;
    return n > 0;
}

/* one line [p, end): returns true and the program word when it launches one */
static bool launched_program(const char *p, const char *end, const char **prog, size_t *plen)
{
    enum launcher launcher = NOT_LAUNCHER;
    int skip = 0; /* words still to skip as an option's value */
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end || *p == '#')
            return false;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != ';' && *p != '&' && *p != '|')
            p++;
        size_t n = (size_t)(p - w);
        if (n == 0) {
            p++;
            continue;
        }
        if (launcher == NOT_LAUNCHER) {
            if (is_assignment(w, n))
                continue; /* VAR=value before the command */
            launcher = launcher_of(w, n);
            if (launcher == NOT_LAUNCHER)
                return false;
            continue;
        }
        if (skip > 0) {
            skip--;
            continue;
        }
        if (w[0] == '-') {
            if (!memchr(w, '=', n))
                skip = option_values(launcher, w, n);
            continue;
        }
        if (all_digits(w, n))
            continue; /* numeric values of launcher options */
        *prog = w;
        *plen = n;
        return true;
    }
    return false;
}

bool nv_app_key_from_script(const char *script, char *out, size_t cap)
{
    if (!script || cap <= NV_APP_KEY_MAX)
        return false;
    size_t len = strnlen(script, NV_SCRIPT_SCAN_MAX);
    const char *p = script, *stop = script + len;
    while (p < stop) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        if (!eol) {
            if (len == NV_SCRIPT_SCAN_MAX && script[len])
                break; /* the line is cut by the scan limit: no partial name */
            eol = stop;
        }
        const char *prog;
        size_t n;
        if (launched_program(p, eol, &prog, &n)) {
            const char *base = prog;
            for (size_t i = 0; i < n; i++)
                if (prog[i] == '/')
                    base = prog + i + 1;
            char word[NV_APP_KEY_MAX + 1];
            size_t bn = n - (size_t)(base - prog);
            if (bn > NV_APP_KEY_MAX)
                bn = NV_APP_KEY_MAX;
            memcpy(word, base, bn);
            word[bn] = '\0';
            if (nv_app_key_from_name(word, out, cap))
                return true;
        }
        p = eol + 1;
    }
    return false;
}
