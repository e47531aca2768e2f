/* fmt_lite.c - see fmt_lite.h. */
#include "fmt_lite.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* the conversions written here; false: vsnprintf writes the call */
static bool lite_only(const char *f)
{
    for (; (f = strchr(f, '%')) != NULL; f++) {
        f++;
        if (*f == 'l' || *f == 'z')
            f++;
        if (!*f || !strchr("scdu%", *f))
            return false;
        if ((f[-1] == 'l' || f[-1] == 'z') && !strchr("du", *f))
            return false;
    }
    return true;
}

struct out {
    char *buf;
    size_t cap, len;
};

static void put_n(struct out *o, const char *s, size_t n)
{
    size_t room = o->cap - 1 - o->len;
    if (n > room)
        n = room;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void put_u(struct out *o, uintmax_t v)
{
    char d[24];
    size_t i = sizeof d;
    do
        d[--i] = (char)('0' + v % 10);
    while (v /= 10);
    put_n(o, d + i, sizeof d - i);
}

static void put_i(struct out *o, intmax_t v)
{
    if (v < 0) {
        put_n(o, "-", 1);
        put_u(o, (uintmax_t)0 - (uintmax_t)v);
    } else {
        put_u(o, (uintmax_t)v);
    }
}

void nv_fmt_vappend(char *buf, size_t cap, size_t *len, const char *fmt, va_list ap)
{
    if (*len + 1 >= cap)
        return;
    if (!lite_only(fmt)) {
        int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
        if (n > 0)
            *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
        return;
    }
    struct out o = {buf, cap, *len};
    for (const char *f = fmt; *f && o.len + 1 < cap;) {
        const char *pc = strchr(f, '%');
        if (!pc) {
            put_n(&o, f, strlen(f));
            break;
        }
        put_n(&o, f, (size_t)(pc - f));
        f = pc + 1;
        char mod = 0;
        if (*f == 'l' || *f == 'z')
            mod = *f++;
        switch (*f++) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            put_n(&o, s, strlen(s));
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            put_n(&o, &c, 1);
            break;
        }
        case 'd':
            put_i(&o, mod == 'l'   ? va_arg(ap, long)
                      : mod == 'z' ? (intmax_t)va_arg(ap, size_t)
                                   : va_arg(ap, int));
            break;
        case 'u':
            put_u(&o, mod == 'l'   ? va_arg(ap, unsigned long)
                      : mod == 'z' ? va_arg(ap, size_t)
                                   : va_arg(ap, unsigned));
            break;
        default: put_n(&o, "%", 1); break; /* "%%" */
        }
    }
    o.buf[o.len] = '\0';
    *len = o.len;
}

void nv_fmt_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_fmt_vappend(buf, cap, len, fmt, ap);
    va_end(ap);
}
