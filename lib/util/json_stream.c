/* json_stream.c - see json_stream.h. */
#include "json_stream.h"
#include "safe_open.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NO_END SIZE_MAX /* the value runs past the end of the text */

static void fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void truncated(char *err, size_t errlen, size_t len)
{
    fail(err, errlen, "truncated JSON: the document ends at byte %zu before its value is complete",
         len);
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && is_ws(t[i]))
        i++;
    return i;
}

/* one past the closing quote of the string that opens at t[i] */
static size_t string_end(const char *t, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        const char *q = memchr(t + i, '"', len - i);
        if (!q)
            return NO_END;
        size_t k = (size_t)(q - t), bs = 0;
        while (k - bs > i && t[k - bs - 1] == '\\') /* an odd run of backslashes escapes it */
            bs++;
        if (bs % 2 == 0)
            return k + 1;
        i = k;
    }
    return NO_END;
}

/* One past the end of the value that starts at t[i]: a string to its
 * closing quote, an object or array to its matching bracket (by depth,
 * skipping strings; json-c checks the rest), anything else to the next
 * delimiter.  i itself when no value starts there; NO_END when the text
 * ends first. */
static size_t value_end(const char *t, size_t len, size_t i)
{
    if (i >= len)
        return NO_END;
    char c = t[i];
    if (c == '"')
        return string_end(t, len, i);
    if (c == '{' || c == '[') {
        size_t depth = 0;
        for (; i < len; i++) {
            char d = t[i];
            if (d == '"') {
                size_t e = string_end(t, len, i);
                if (e == NO_END)
                    return NO_END;
                i = e - 1;
            } else if (d == '{' || d == '[') {
                depth++;
            } else if (d == '}' || d == ']') {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return NO_END;
    }
    while (i < len && !is_ws(t[i]) && t[i] != ',' && t[i] != ']' && t[i] != '}' && t[i] != ':' &&
           t[i] != '[' && t[i] != '{' && t[i] != '"')
        i++;
    return i;
}

json_object *nv_jspan_parse(json_tokener *tok, const char *text, size_t len, nv_jspan v, char *err,
                            size_t errlen)
{
    if (v.off > len || v.len > len - v.off || v.len == 0) {
        fail(err, errlen, "invalid JSON at byte %zu: expected a value", v.off);
        return NULL;
    }
    /* one byte past the span (the delimiter) ends a bare number */
    size_t plen = v.len < len - v.off ? v.len + 1 : v.len;
    if (plen > INT_MAX) {
        fail(err, errlen, "invalid JSON at byte %zu: a value of %zu bytes is too long", v.off,
             v.len);
        return NULL;
    }
    json_tokener_reset(tok);
    json_object *o = json_tokener_parse_ex(tok, text + v.off, (int)plen);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    if (!o) {
        if (je == json_tokener_continue && v.off + plen == len)
            truncated(err, errlen, len);
        else
            fail(err, errlen, "invalid JSON at byte %zu: %s", v.off + end,
                 je == json_tokener_continue ? "the value is incomplete"
                                             : json_tokener_error_desc(je));
        return NULL;
    }
    if (end < v.len) {
        fail(err, errlen, "invalid JSON at byte %zu: unexpected data after a value", v.off + end);
        json_object_put(o);
        return NULL;
    }
    return o;
}

int nv_jspan_members(const char *text, size_t len, json_tokener *tok,
                     int (*fn)(void *arg, const char *key, nv_jspan value), void *arg, char *err,
                     size_t errlen)
{
    size_t i = skip_ws(text, len, 0);
    if (i >= len) {
        truncated(err, errlen, len);
        return -1;
    }
    if (text[i] != '{') {
        /* not an object: let json-c say what it is (or why it is not JSON) */
        size_t e = value_end(text, len, i);
        if (e == NO_END) {
            truncated(err, errlen, len);
            return -1;
        }
        json_object *o =
            nv_jspan_parse(tok, text, len, (nv_jspan){i, e > i ? e - i : 1}, err, errlen);
        if (o) {
            fail(err, errlen, "expected a JSON object at the top, got %s",
                 json_type_to_name(json_object_get_type(o)));
            json_object_put(o);
        }
        return -1;
    }
    i = skip_ws(text, len, i + 1);
    int first = 1;
    for (;;) {
        if (i >= len) {
            truncated(err, errlen, len);
            return -1;
        }
        if (text[i] == '}' && first)
            break;
        if (text[i] != '"') {
            fail(err, errlen, "invalid JSON at byte %zu: expected a member name in double quotes",
                 i);
            return -1;
        }
        size_t ke = string_end(text, len, i);
        if (ke == NO_END) {
            truncated(err, errlen, len);
            return -1;
        }
        json_object *key = nv_jspan_parse(tok, text, len, (nv_jspan){i, ke - i}, err, errlen);
        if (!key)
            return -1;
        i = skip_ws(text, len, ke);
        if (i >= len || text[i] != ':') {
            json_object_put(key);
            if (i >= len)
                truncated(err, errlen, len);
            else
                fail(err, errlen, "invalid JSON at byte %zu: expected ':' after a member name", i);
            return -1;
        }
        i = skip_ws(text, len, i + 1);
        size_t ve = value_end(text, len, i);
        if (ve == NO_END || ve == i) {
            json_object_put(key);
            if (ve == NO_END || i >= len)
                truncated(err, errlen, len);
            else
                fail(err, errlen, "invalid JSON at byte %zu: expected a value", i);
            return -1;
        }
        int rc = fn(arg, json_object_get_string(key), (nv_jspan){i, ve - i});
        json_object_put(key);
        if (rc)
            return rc;
        first = 0;
        i = skip_ws(text, len, ve);
        if (i >= len) {
            truncated(err, errlen, len);
            return -1;
        }
        if (text[i] == '}')
            break;
        if (text[i] != ',') {
            fail(err, errlen, "invalid JSON at byte %zu: expected ',' or '}' after a member", i);
            return -1;
        }
        i = skip_ws(text, len, i + 1);
    }
    for (i++; i < len; i++)
        if (!is_ws(text[i])) {
            fail(err, errlen, "invalid JSON: unexpected data after the document at byte %zu", i);
            return -1;
        }
    return 0;
}

int nv_jspan_is_array(const char *text, nv_jspan v)
{
    return v.len > 0 && text[v.off] == '[';
}

int nv_jarray_open(nv_jarray *a, const char *text, size_t len, nv_jspan v, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (v.off > len || v.len > len - v.off || !nv_jspan_is_array(text, v)) {
        fail(err, errlen, "invalid JSON at byte %zu: expected an array", v.off);
        return -1;
    }
    size_t end = v.off + v.len - 1; /* the span ends at its matching ']' */
    if (text[end] != ']') {
        fail(err, errlen, "invalid JSON at byte %zu: expected ']'", end);
        return -1;
    }
    size_t i = skip_ws(text, end, v.off + 1), n = 0;
    if (i < end) {
        for (;;) {
            size_t e = value_end(text, end, i);
            if (e == NO_END || e == i) {
                fail(err, errlen, "invalid JSON at byte %zu: expected a value", i);
                return -1;
            }
            n++;
            i = skip_ws(text, end, e);
            if (i == end)
                break;
            if (text[i] != ',') {
                fail(err, errlen, "invalid JSON at byte %zu: expected ',' or ']' after an element",
                     i);
                return -1;
            }
            i = skip_ws(text, end, i + 1);
        }
    }
    a->text = text;
    a->len = len;
    a->pos = v.off + 1;
    a->end = end;
    a->count = n;
    return 0;
}

int nv_jarray_next(nv_jarray *a, nv_jspan *elem)
{
    size_t i = skip_ws(a->text, a->end, a->pos);
    if (i < a->end && a->text[i] == ',')
        i = skip_ws(a->text, a->end, i + 1);
    if (i >= a->end)
        return 0;
    size_t e = value_end(a->text, a->end, i);
    if (e == NO_END || e == i) /* cannot happen after nv_jarray_open */
        return 0;
    elem->off = i;
    elem->len = e - i;
    a->pos = e;
    return 1;
}

struct unique {
    json_object *seen;
    char dup[80];
};

static int unique_member(void *arg, const char *key, nv_jspan v)
{
    (void)v;
    struct unique *u = arg;
    if (json_object_object_get_ex(u->seen, key, NULL)) {
        snprintf(u->dup, sizeof u->dup, "%s", key);
        return 1;
    }
    return json_object_object_add(u->seen, key, NULL) ? -1 : 0;
}

int nv_jspan_unique_members(const char *text, size_t len, nv_jspan v, json_tokener *tok, char *err,
                            size_t errlen)
{
    if (v.len == 0 || v.off + v.len > len || text[v.off] != '{')
        return 0;
    struct unique u = {json_object_new_object(), ""};
    if (!u.seen) {
        fail(err, errlen, "out of memory");
        return -1;
    }
    int rc = nv_jspan_members(text + v.off, v.len, tok, unique_member, &u, err, errlen);
    json_object_put(u.seen);
    if (rc == 1) {
        char shown[256];
        fail(err, errlen, "member \"%s\" given twice", nv_printable(u.dup, shown, 64));
    }
    return rc ? -1 : 0;
}
