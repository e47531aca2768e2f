/* counters.c - the reader life cycle: choose a backend (or walk the auto
 * order), keep its counter files open, and take snapshots with pread. */
#include "counters_internal.h"

#include "nv_err.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sort_cmp.h"

static const char *const field_names[NV_CTR_NFIELDS] = {
    "bytes_out", "bytes_in", "packets_out", "packets_in", "stall", "discards",
};

const char *nv_ctr_field_name(nv_ctr_field f)
{
    if ((int)f < 0 || f >= NV_CTR_NFIELDS)
        return "unknown";
    return field_names[f];
}

void nv_ctr_logf(const nv_ctr_reader *r, const char *fmt, ...)
{
    if (!r || !r->log)
        return;
    char what[NV_LOG_LINE_MAX - 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    nv_logf(r->log, r->log_arg, "netvar: %s", what);
}

int nv_ctr_add_port(nv_ctr_reader *r, const char *name, const char *kind)
{
    for (int i = 0; i < r->nports; i++)
        if (!strcmp(r->layout[i].name, name))
            return i;
    if (r->nports >= NV_CTR_MAX_PORTS)
        return -1;
    nv_ctr_port *p = &r->layout[r->nports];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->kind = kind;
    for (int f = 0; f < NV_CTR_NFIELDS; f++) {
        p->f[f].unit = "none";
        p->f[f].scale = 1;
    }
    return r->nports++;
}

void nv_ctr_set_field(nv_ctr_reader *r, int port, nv_ctr_field f, const char *unit, uint64_t scale)
{
    r->layout[port].f[f].unit = unit;
    r->layout[port].f[f].scale = scale ? scale : 1;
}

int nv_ctr_add_file_source(nv_ctr_reader *r, int port, nv_ctr_field f, const char *path,
                           uint64_t sat_max)
{
    if (r->nsources >= NV_CTR_MAX_SOURCES) {
        nv_ctr_logf(r, "%s: too many counter files (limit %d); field %s of port %s left invalid",
                    path, NV_CTR_MAX_SOURCES, nv_ctr_field_name(f), r->layout[port].name);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        nv_ctr_logf(r, "%s: cannot open (%s); field %s of port %s marked invalid", path,
                    strerror(errno), nv_ctr_field_name(f), r->layout[port].name);
        return -1;
    }
    nv_ctr_source *s = &r->src[r->nsources++];
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->port = port;
    s->field = f;
    s->sat_max = sat_max;
    snprintf(s->path, sizeof s->path, "%s", path);
    return 0;
}

int nv_ctr_parse_u64(const char *buf, size_t len, uint64_t *out)
{
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    if (i == len || buf[i] < '0' || buf[i] > '9')
        return -1;
    uint64_t v = 0;
    for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
        uint64_t d = (uint64_t)(buf[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1; /* does not fit a 64-bit counter */
        v = v * 10 + d;
    }
    if (i < len && buf[i] == '@') /* cxi telemetry: "VALUE@SEC.NSEC", when it was read */
        for (i++; i < len && ((buf[i] >= '0' && buf[i] <= '9') || buf[i] == '.'); i++)
            ;
    for (; i < len; i++)
        if (buf[i] != '\n' && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\0')
            return -1;
    *out = v;
    return 0;
}

int nv_ctr_list_dir(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= NV_CTR_NAME_MAX / 2)
            continue;
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], nv_cmp_strp);
    return n;
}

static nv_ctr_reader *reader_new(const nv_ctr_config *cfg, const char *backend)
{
    nv_ctr_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->log = cfg->log;
    r->log_arg = cfg->log_arg;
    r->papi_eventset = -1;
    const char *root = cfg->sysfs_root ? cfg->sysfs_root : "";
    size_t n = strlen(root);
    while (n > 0 && root[n - 1] == '/')
        n--;
    if (n >= sizeof r->root)
        n = 0; /* checked by the caller */
    memcpy(r->root, root, n);
    r->root[n] = '\0';
    return r;
}

static void reader_free(nv_ctr_reader *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nsources; i++)
        if (r->src[i].fd >= 0)
            close(r->src[i].fd);
    nv_ctr_papi_close(r);
    free(r);
}

/* Opens one named backend; NULL with err when it cannot answer. */
static nv_ctr_reader *open_one(const nv_ctr_config *cfg, const char *backend, char *err,
                               size_t errlen)
{
    nv_ctr_reader *r = reader_new(cfg, backend);
    if (!r) {
        nv_err(err, errlen, "%s: out of memory", backend);
        return NULL;
    }
    int rc;
    if (!strcmp(backend, "netdev"))
        rc = nv_ctr_netdev_open(r, cfg->iface_glob, err, errlen);
    else if (!strcmp(backend, "infiniband"))
        rc = nv_ctr_ib_open(r, cfg->iface_glob, err, errlen);
    else if (!strcmp(backend, "cxi"))
        rc = nv_ctr_cxi_open(r, cfg->iface_glob, err, errlen);
    else
        rc = nv_ctr_papi_open(r, cfg->papi_events, err, errlen);
    if (rc != 0) {
        reader_free(r);
        return NULL;
    }
    return r;
}

nv_ctr_reader *nv_ctr_open(const nv_ctr_config *cfg, char *err, size_t errlen)
{
    static const nv_ctr_config empty = {0};
    if (!cfg)
        cfg = &empty;
    if (err && errlen)
        err[0] = '\0';
    if (cfg->sysfs_root && strlen(cfg->sysfs_root) >= NV_CTR_PATH_MAX - 128) {
        nv_err(err, errlen, "sysfs root '%.60s...' is too long (limit %d characters)",
               cfg->sysfs_root, NV_CTR_PATH_MAX - 128);
        return NULL;
    }
    const char *b = cfg->backend && *cfg->backend ? cfg->backend : "auto";
    if (!strcmp(b, "netdev") || !strcmp(b, "infiniband") || !strcmp(b, "cxi") || !strcmp(b, "papi"))
        return open_one(cfg, b, err, errlen);
    if (strcmp(b, "auto")) {
        nv_err(err, errlen,
               "counter backend '%.40s' is unknown (use auto, papi, infiniband, cxi or netdev)", b);
        return NULL;
    }
    /* auto: the first backend that opens answers; each one that cannot
     * says why in one line so an admin sees the fallback. */
    static const char *const order[] = {"papi", "infiniband", "cxi", "netdev"};
    char why[512] = "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!strcmp(order[i], "papi") && !(cfg->papi_events && *cfg->papi_events))
            continue;                   /* not configured: nothing to say */
        if (!strcmp(order[i], "cxi")) { /* only where the cxi driver is loaded */
            char cls[NV_CTR_PATH_MAX + 32];
            snprintf(cls, sizeof cls, "%s/sys/class/cxi", cfg->sysfs_root ? cfg->sysfs_root : "");
            if (access(cls, F_OK) != 0)
                continue;
        }
        char e[512] = "";
        nv_ctr_reader *r = open_one(cfg, order[i], e, sizeof e);
        if (r)
            return r;
        nv_logf(cfg->log, cfg->log_arg,
                "netvar: counters: %s unavailable (%s); trying the next backend", order[i], e);
        snprintf(why, sizeof why, "%s", e);
    }
    nv_err(err, errlen, "no counter backend available (last: %s)", why);
    return NULL;
}

int nv_ctr_snapshot_take(nv_ctr_reader *r, nv_ctr_snapshot *out, char *err, size_t errlen)
{
    if (!r || !out) {
        nv_err(err, errlen, "counters: snapshot without an open reader");
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    memcpy(out->backend, r->backend, sizeof out->backend);
    out->t_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    out->nports = r->nports;
    memcpy(out->port, r->layout, sizeof out->port[0] * (size_t)r->nports);
    for (int p = 0; p < r->nports; p++)
        for (int f = 0; f < NV_CTR_NFIELDS; f++) {
            out->port[p].f[f].valid = false;
            out->port[p].f[f].raw = 0;
            out->port[p].f[f].saturated = false;
            out->port[p].f[f].sat_max = 0;
        }
    if (r->papi_eventset >= 0)
        return nv_ctr_papi_read(r, out, err, errlen);

    int bad = 0;
    bool poisoned[NV_CTR_MAX_PORTS][NV_CTR_NFIELDS];
    memset(poisoned, 0, sizeof poisoned);
    for (int i = 0; i < r->nsources; i++) {
        nv_ctr_source *s = &r->src[i];
        char buf[48];
        ssize_t n = pread(s->fd, buf, sizeof buf - 1, 0);
        uint64_t v = 0;
        if (n <= 0 || nv_ctr_parse_u64(buf, (size_t)n, &v) != 0) {
            bad++;
            poisoned[s->port][s->field] = true;
            if (!s->warned) {
                s->warned = true;
                if (n < 0)
                    nv_ctr_logf(r, "%s: read failed (%s); field %s of port %s marked invalid",
                                s->path, strerror(errno), nv_ctr_field_name(s->field),
                                r->layout[s->port].name);
                else {
                    buf[n > 0 ? n : 0] = '\0';
                    buf[strcspn(buf, "\n")] = '\0';
                    nv_ctr_logf(
                        r, "%s: '%.20s' is not a counter value; field %s of port %s marked invalid",
                        s->path, buf, nv_ctr_field_name(s->field), r->layout[s->port].name);
                }
            }
            if (err && errlen && bad == 1)
                snprintf(err, errlen,
                         "%s: unreadable or non-numeric counter; field %s marked invalid", s->path,
                         nv_ctr_field_name(s->field));
            continue;
        }
        nv_ctr_value *val = &out->port[s->port].f[s->field];
        if (s->sat_max && v > s->sat_max)
            s->sat_max = 0; /* larger than the saturating width: it is a 64-bit counter */
        if (!val->valid) {
            val->valid = true;
            val->raw = v;
            val->sat_max = s->sat_max;
        } else {
            val->raw += v; /* modular sum: deltas of sums stay exact */
            if (s->sat_max)
                val->sat_max = s->sat_max;
        }
        if (s->sat_max && v == s->sat_max)
            val->saturated = true;
    }
    for (int p = 0; p < r->nports; p++)
        for (int f = 0; f < NV_CTR_NFIELDS; f++)
            if (poisoned[p][f])
                out->port[p].f[f].valid = false; /* a partial sum would be garbage */
    return bad;
}

const char *nv_ctr_reader_backend(const nv_ctr_reader *r)
{
    return r ? r->backend : "none";
}

int nv_ctr_reader_nports(const nv_ctr_reader *r)
{
    return r ? r->nports : 0;
}

void nv_ctr_close(nv_ctr_reader *r)
{
    reader_free(r);
}
