/* json_stream.h - read a large JSON document one piece at a time.
 *
 * json-c parses a whole document into a tree of objects, about 14 bytes of
 * heap per byte of text for a model file full of numbers.  A loader that
 * needs one array element at a time walks the document's structure with
 * the scanner here (top-level members, then the elements of one array) and
 * hands each piece to json-c, which parses and checks it strictly; the
 * piece's tree is freed before the next one is parsed.  The scanner itself
 * checks only the punctuation between pieces, so every byte of the text is
 * checked by one of the two, and a document json-c would reject whole is
 * rejected here too.
 *
 * The text need not be NUL-terminated.  Nothing here allocates except
 * nv_jspan_parse (json-c's objects).  Errors are one line naming the byte
 * offset in the whole document. */
#ifndef NETVAR_JSON_STREAM_H
#define NETVAR_JSON_STREAM_H

#include <stddef.h>

#include <json.h>

/* A value's bytes: text[off, off + len). */
typedef struct nv_jspan {
    size_t off, len;
} nv_jspan;

/* Parse one value of the document with json-c (tok is reset first).
 * Returns a new object (put it when done), or NULL with err set:
 * "invalid JSON at byte N: ..." where N counts from the document's start. */
json_object *nv_jspan_parse(json_tokener *tok, const char *text, size_t len, nv_jspan v, char *err,
                            size_t errlen);

/* Walk the top-level object of text[0, len): for each member, in file
 * order, calls fn(arg, key, value) with the key as a NUL-terminated string
 * (escapes decoded) and the value's span; a non-zero return from fn stops
 * the walk and is returned.  Whitespace only is allowed after the object.
 * Returns 0, fn's value, or -1 with err set (invalid or truncated JSON, or
 * a top-level value that is not an object: err then says what it is). */
int nv_jspan_members(const char *text, size_t len, json_tokener *tok,
                     int (*fn)(void *arg, const char *key, nv_jspan value), void *arg, char *err,
                     size_t errlen);

/* 0 when the object at span v (any other value: 0 too) names each of its
 * members once; -1 with err ("member \"K\" given twice", or why the
 * object is not well formed).  json-c keeps the last of a duplicate
 * silently; a loader that refuses duplicates calls this first. */
int nv_jspan_unique_members(const char *text, size_t len, nv_jspan v, json_tokener *tok, char *err,
                            size_t errlen);

/* The elements of one array value. */
typedef struct nv_jarray {
    const char *text;
    size_t len;   /* the whole document's length */
    size_t pos;   /* where the next element's search starts */
    size_t end;   /* offset of the closing ']' */
    size_t count; /* elements in the array */
} nv_jarray;

/* 1 when the span holds an array (its first byte is '['). */
int nv_jspan_is_array(const char *text, nv_jspan v);

/* Check the array's punctuation and count its elements.  Returns 0, or -1
 * with err set when the span is not a well-formed array. */
int nv_jarray_open(nv_jarray *a, const char *text, size_t len, nv_jspan v, char *err,
                   size_t errlen);
/* The next element's span: 1, or 0 after the last. */
int nv_jarray_next(nv_jarray *a, nv_jspan *elem);

#endif
