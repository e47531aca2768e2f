/* app_identity.c - app keys from job names and batch scripts. */
#include "app_identity.h"

#include <ctype.h>
#include <string.h>

#include "job_options.h"

static const char *const anonymous[] = {"wrap", "sh", "bash", "zsh", "tcsh", "csh",
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

static bool is_launcher(const char *w, size_t n)
{
    static const char *const launchers[] = {"srun", "mpirun", "mpiexec", "orterun"};
    const char *base = w;
    for (size_t i = 0; i < n; i++)
        if (w[i] == '/')
            base = w + i + 1;
    size_t bn = n - (size_t)(base - w);
    for (size_t i = 0; i < 4; i++)
        if (strlen(launchers[i]) == bn && !strncmp(base, launchers[i], bn))
            return true;
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
    bool after_launcher = false;
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
        if (!after_launcher) {
            if (memchr(w, '=', n) && !memchr(w, '/', n))
                continue; /* VAR=value before the command */
            if (!is_launcher(w, n))
                return false;
            after_launcher = true;
            continue;
        }
        if (w[0] == '-' || all_digits(w, n))
            continue; /* launcher options and their numeric values */
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
        if (!eol)
            eol = stop;
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
