/* ctr_qdisc.c - reads a qdisc's statistics from `tc -s -j` JSON (json-c)
 * into nv_qdisc_stats and maps them onto the common counter fields. */
#define _GNU_SOURCE /* pipe2 */
#include "ctr_qdisc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "nv_json.h"

extern char **environ;

static void note(char *err, size_t errlen, const char *dev, const char *key, const char *what)
{
    if (!err || !errlen || err[0])
        return; /* one line: the first problem */
    snprintf(err, errlen, "tc qdisc JSON for %s: field '%s' %s; left invalid", dev, key, what);
}

/* A non-negative integer member; false (and a note naming why) when absent
 * or bad. */
static bool counter_member(json_object *o, const char *key, uint64_t *out, const char *dev,
                           char *err, size_t errlen)
{
    if (nv_json_u64(o, key, out) == 0)
        return true;
    note(err, errlen, dev, key,
         !json_object_object_get_ex(o, key, NULL) ? "missing"
         : nv_json_get(o, key, json_type_int)     ? "is negative"
                                                  : "is not an integer");
    return false;
}

int nv_qdisc_parse(const char *text, size_t len, const char *dev, nv_qdisc_stats *out, int max,
                   char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!dev)
        dev = "?";
    if (!text || !out || max <= 0) {
        if (err && errlen)
            snprintf(err, errlen, "tc qdisc JSON for %s: nothing to parse", dev);
        return -1;
    }
    if (len > NV_QDISC_JSON_MAX) {
        if (err && errlen)
            snprintf(err, errlen, "tc qdisc JSON for %s: %zu bytes is more than the %d-byte limit",
                     dev, len, NV_QDISC_JSON_MAX);
        return -1;
    }
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        if (err && errlen)
            snprintf(err, errlen, "tc qdisc JSON for %s: out of memory", dev);
        return -1;
    }
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success || !json_object_is_type(root, json_type_array)) {
        if (err && errlen)
            snprintf(err, errlen, "tc qdisc JSON for %s: not a JSON array of qdiscs (%s)", dev,
                     jerr != json_tokener_success ? json_tokener_error_desc(jerr) : "wrong type");
        json_object_put(root);
        return -1;
    }
    int n = 0;
    size_t total = json_object_array_length(root);
    for (size_t i = 0; i < total && n < max; i++) {
        json_object *q = json_object_array_get_idx(root, i);
        if (!json_object_is_type(q, json_type_object))
            continue;
        nv_qdisc_stats *s = &out[n++];
        memset(s, 0, sizeof *s);
        snprintf(s->dev, sizeof s->dev, "%s", dev);
        nv_json_str_copy(q, "kind", s->kind, sizeof s->kind);
        nv_json_str_copy(q, "handle", s->handle, sizeof s->handle);
        json_object *v;
        s->root = json_object_object_get_ex(q, "root", &v) && json_object_get_boolean(v);
        s->has_bytes = counter_member(q, "bytes", &s->bytes, dev, err, errlen);
        s->has_packets = counter_member(q, "packets", &s->packets, dev, err, errlen);
        s->has_drops = counter_member(q, "drops", &s->drops, dev, err, errlen);
        s->has_overlimits = counter_member(q, "overlimits", &s->overlimits, dev, err, errlen);
        (void)counter_member(q, "requeues", &s->requeues, dev, NULL, 0);
        s->has_backlog = counter_member(q, "backlog", &s->backlog_bytes, dev, err, errlen);
        s->has_qlen = counter_member(q, "qlen", &s->qlen, dev, err, errlen);
        json_object *opt;
        if (json_object_object_get_ex(q, "options", &opt) &&
            json_object_is_type(opt, json_type_object) &&
            !counter_member(opt, "rate", &s->rate_bytes_per_s, dev, NULL, 0))
            s->rate_bytes_per_s = 0;
    }
    if (total > (size_t)max && err && errlen && !err[0])
        snprintf(err, errlen, "tc qdisc JSON for %s: %zu qdiscs, only the first %d kept", dev,
                 total, max);
    json_object_put(root);
    return n;
}

static bool valid_ifname(const char *dev)
{
    size_t n = dev ? strlen(dev) : 0;
    if (n == 0 || n > 15)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = dev[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == ':' || c == '-'))
            return false;
    }
    return dev[0] != '-';
}

int nv_qdisc_read(const char *tc_path, const char *dev, nv_qdisc_stats *out, int max, char *err,
                  size_t errlen)
{
    if (!valid_ifname(dev)) {
        if (err && errlen)
            snprintf(err, errlen, "qdisc: '%.40s' is not an interface name (1-15 of A-Za-z0-9_.:-)",
                     dev ? dev : "(null)");
        return -1;
    }
    const char *tc = tc_path && *tc_path ? tc_path : "tc";
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "qdisc: pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)tc, "-s", "-j", "qdisc", "show", "dev", (char *)dev, NULL};
    pid_t pid;
    int rc = strchr(tc, '/') ? posix_spawn(&pid, tc, &fa, NULL, argv, environ)
                             : posix_spawnp(&pid, tc, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        if (err && errlen)
            snprintf(err, errlen, "qdisc: cannot run %s: %s", tc, strerror(rc));
        return -1;
    }
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap);
    bool too_long = false;
    while (buf) {
        if (len + 1 >= cap) {
            if (cap >= NV_QDISC_JSON_MAX) {
                too_long = true;
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(pfd[0], buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(pfd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf || too_long) {
        free(buf);
        if (err && errlen)
            snprintf(err, errlen, "qdisc: %s output for %s is %s", tc, dev,
                     too_long ? "longer than the limit" : "too large for memory");
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        if (err && errlen)
            snprintf(err, errlen, "qdisc: '%s -s -j qdisc show dev %s' failed (no such device?)",
                     tc, dev);
        return -1;
    }
    buf[len] = '\0';
    int n = nv_qdisc_parse(buf, len, dev, out, max, err, errlen);
    free(buf);
    return n;
}

const nv_qdisc_stats *nv_qdisc_root(const nv_qdisc_stats *q, int n)
{
    for (int i = 0; q && i < n; i++)
        if (q[i].root)
            return &q[i];
    return NULL;
}

static void set(nv_ctr_value *v, bool has, uint64_t raw, const char *unit)
{
    v->unit = unit;
    v->scale = 1;
    v->sat_max = 0;
    v->saturated = false;
    v->valid = has;
    v->raw = has ? raw : 0;
}

void nv_qdisc_to_port(const nv_qdisc_stats *q, nv_ctr_port *port)
{
    memset(port, 0, sizeof *port);
    snprintf(port->name, sizeof port->name, "%.30s/%.15s", q->dev, q->kind[0] ? q->kind : "qdisc");
    port->kind = NV_QDISC_PORT_KIND;
    for (int f = 0; f < NV_CTR_NFIELDS; f++)
        set(&port->f[f], false, 0, "none");
    set(&port->f[NV_QDISC_FLIT_FIELD], q->has_bytes, q->bytes, "bytes");
    set(&port->f[NV_CTR_PACKETS_OUT], q->has_packets, q->packets, "packets");
    set(&port->f[NV_QDISC_STALL_FIELD], q->has_overlimits, q->overlimits, "count");
    set(&port->f[NV_CTR_DISCARDS], q->has_drops, q->drops, "packets");
}
