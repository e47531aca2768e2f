/* ctr_papi.c - the PAPI backend: named events from configuration mapped
 * onto the common fields.  Aries router tiles (AR_RTR_r_c_* network tiles,
 * AR_RTR_PT_r_c_* processor tiles): incoming flits summed over virtual
 * channels -> bytes_in in flits, ROWBUS_STALL_CNT -> stall in flit times.
 * infiniband:::<dev>_<port>[_ext]:<counter> and net:::<if>:<rx|tx>:<what>
 * map like the sysfs backends.  PAPI counts from PAPI_start as 64-bit
 * values.  When PAPI lacks the component (Debian's PAPI has neither net nor
 * infiniband, and no PMU here) the open fails with one line and auto moves
 * on to the next backend. */
#include "counters_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpapi is opened only when the papi backend is asked for: loading it
 * (and libpfm) costs ~0.7 ms per process, paid otherwise by every srun and
 * slurmstepd that loads the SPANK plugin. */
static struct {
    int (*library_init)(int);
    int (*thread_init)(unsigned long (*)(void));
    const char *(*strerror_)(int);
    int (*create_eventset)(int *);
    int (*add_named_event)(int, const char *);
    int (*start)(int);
    int (*read)(int, long long *);
    int (*stop)(int, long long *);
    int (*cleanup_eventset)(int);
    int (*destroy_eventset)(int *);
} P;

static int papi_bind(void)
{
    void *h = dlopen("libpapi.so.7.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libpapi.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
#define BIND(field, name) *(void **)&P.field = dlsym(h, name)
    BIND(library_init, "PAPI_library_init");
    BIND(thread_init, "PAPI_thread_init");
    BIND(strerror_, "PAPI_strerror");
    BIND(create_eventset, "PAPI_create_eventset");
    BIND(add_named_event, "PAPI_add_named_event");
    BIND(start, "PAPI_start");
    BIND(read, "PAPI_read");
    BIND(stop, "PAPI_stop");
    BIND(cleanup_eventset, "PAPI_cleanup_eventset");
    BIND(destroy_eventset, "PAPI_destroy_eventset");
#undef BIND
    return P.library_init && P.thread_init && P.strerror_ && P.create_eventset &&
                   P.add_named_event && P.start && P.read && P.stop && P.cleanup_eventset &&
                   P.destroy_eventset
               ? 0
               : -1;
}

static const char *papi_strerror_safe(int e)
{
    return P.strerror_ ? P.strerror_(e) : "libpapi not loaded";
}

#define PAPI_library_init(v) P.library_init(v)
#define PAPI_thread_init(f) P.thread_init(f)
#define PAPI_strerror(e) papi_strerror_safe(e)
#define PAPI_create_eventset(p) P.create_eventset(p)
#define PAPI_add_named_event(s, n) P.add_named_event(s, n)
#define PAPI_start(s) P.start(s)
#define PAPI_read(s, v) P.read(s, v)
#define PAPI_stop(s, v) P.stop(s, v)
#define PAPI_cleanup_eventset(s) P.cleanup_eventset(s)
#define PAPI_destroy_eventset(p) P.destroy_eventset(p)

static pthread_once_t papi_once = PTHREAD_ONCE_INIT;
static int papi_init_rc;

static void papi_init(void)
{
    if (papi_bind() != 0) {
        papi_init_rc = PAPI_ENOSUPP;
        return;
    }
    papi_init_rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (papi_init_rc == PAPI_VER_CURRENT)
        PAPI_thread_init(pthread_self);
}

/* Copies event without its "component:::" prefix and ":qualifier" suffix. */
static void bare_name(const char *event, char *out, size_t outlen)
{
    const char *p = strstr(event, ":::");
    p = p ? p + 3 : event;
    snprintf(out, outlen, "%s", p);
}

static int map_aries(const char *name, nv_ctr_papi_map *m)
{
    const char *p = strstr(name, "AR_RTR_");
    if (!p)
        return -1;
    p += 7;
    bool proc = false;
    if (!strncmp(p, "PT_", 3)) {
        proc = true;
        p += 3;
    }
    int row, col, used = 0;
    if (sscanf(p, "%d_%d_%n", &row, &col, &used) != 2 || used == 0 || row < 0 || col < 0 ||
        row > 99 || col > 99)
        return -1;
    const char *what = p + used;
    if (!strncmp(what, "INQ_PRF_INCOMING_FLIT_VC", 24) && isdigit((unsigned char)what[24])) {
        m->field = NV_CTR_BYTES_IN;
        m->unit = "flits";
    } else if (!strncmp(what, "INQ_PRF_ROWBUS_STALL_CNT", 24)) {
        m->field = NV_CTR_STALL;
        m->unit = "flit_times";
    } else {
        return -1;
    }
    snprintf(m->port, sizeof m->port, "%s_%d_%d", proc ? "ptile" : "rtr", row, col);
    m->kind = proc ? "processor_tile" : "network_tile";
    m->scale = 1;
    return 0;
}

static int map_infiniband(const char *name, nv_ctr_papi_map *m)
{
    /* <dev>_<port>[_ext]:<counter> */
    const char *colon = strchr(name, ':');
    if (!colon || (size_t)(colon - name) >= sizeof m->port)
        return -1;
    char dev[NV_CTR_NAME_MAX];
    memcpy(dev, name, (size_t)(colon - name));
    dev[colon - name] = '\0';
    size_t dl = strlen(dev);
    if (dl > 4 && !strcmp(dev + dl - 4, "_ext"))
        dev[dl - 4] = '\0';
    const char *ctr = colon + 1;
    static const struct {
        const char *prefix;
        nv_ctr_field field;
        const char *unit;
        uint64_t scale;
    } t[] = {
        {"port_xmit_data", NV_CTR_BYTES_OUT, "bytes", 4},
        {"port_rcv_data", NV_CTR_BYTES_IN, "bytes", 4},
        {"port_xmit_packets", NV_CTR_PACKETS_OUT, "packets", 1},
        {"port_rcv_packets", NV_CTR_PACKETS_IN, "packets", 1},
        {"port_xmit_wait", NV_CTR_STALL, "ticks", 1},
        {"port_xmit_discards", NV_CTR_DISCARDS, "packets", 1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t n = strlen(t[i].prefix);
        if (!strncmp(ctr, t[i].prefix, n) && (ctr[n] == '\0' || !strcmp(ctr + n, "_64"))) {
            /* PAPI names the port dev_port; show it as sysfs does, dev/port */
            char *us = strrchr(dev, '_');
            if (us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1))
                *us = '/';
            snprintf(m->port, sizeof m->port, "%s", dev);
            m->kind = "ib_port";
            m->field = t[i].field;
            m->unit = t[i].unit;
            m->scale = t[i].scale;
            return 0;
        }
    }
    return -1;
}

static int map_net(const char *name, nv_ctr_papi_map *m)
{
    /* <if>:<rx|tx>:<bytes|packets|dropped> */
    char ifn[NV_CTR_NAME_MAX], dir[8], what[16];
    if (sscanf(name, "%63[^:]:%7[^:]:%15s", ifn, dir, what) != 3)
        return -1;
    bool tx = !strcmp(dir, "tx");
    if (!tx && strcmp(dir, "rx"))
        return -1;
    if (!strcmp(what, "bytes")) {
        m->field = tx ? NV_CTR_BYTES_OUT : NV_CTR_BYTES_IN;
        m->unit = "bytes";
    } else if (!strcmp(what, "packets")) {
        m->field = tx ? NV_CTR_PACKETS_OUT : NV_CTR_PACKETS_IN;
        m->unit = "packets";
    } else if (!strcmp(what, "dropped")) {
        m->field = NV_CTR_DISCARDS;
        m->unit = "packets";
    } else {
        return -1;
    }
    snprintf(m->port, sizeof m->port, "%s", ifn);
    m->kind = "netdev";
    m->scale = 1;
    return 0;
}

int nv_ctr_papi_map_event(const char *event, nv_ctr_papi_map *m)
{
    if (!event || !m || strlen(event) > 256)
        return -1;
    memset(m, 0, sizeof *m);
    char name[300];
    bare_name(event, name, sizeof name);
    if (!strncmp(event, "infiniband:::", 13))
        return map_infiniband(name, m);
    if (!strncmp(event, "net:::", 6))
        return map_net(name, m);
    return map_aries(name, m);
}

int nv_ctr_papi_open(nv_ctr_reader *r, const char *events, char *err, size_t errlen)
{
    if (!events || !*events) {
        snprintf(err, errlen, "papi: no events configured");
        return -1;
    }
    if (strlen(events) > 16384) {
        snprintf(err, errlen, "papi: event list longer than 16384 characters");
        return -1;
    }
    char *list = strdup(events);
    if (!list) {
        snprintf(err, errlen, "papi: out of memory");
        return -1;
    }
    int rc = -1;
    pthread_once(&papi_once, papi_init);
    if (papi_init_rc != PAPI_VER_CURRENT) {
        snprintf(err, errlen, "papi: library init failed (%s)", PAPI_strerror(papi_init_rc));
        goto out;
    }
    if (PAPI_create_eventset(&r->papi_eventset) != PAPI_OK) {
        r->papi_eventset = -1;
        snprintf(err, errlen, "papi: cannot create an event set");
        goto out;
    }
    char *save = NULL;
    for (char *ev = strtok_r(list, ", \t", &save); ev; ev = strtok_r(NULL, ", \t", &save)) {
        nv_ctr_papi_map m;
        if (nv_ctr_papi_map_event(ev, &m) != 0) {
            snprintf(err, errlen,
                     "papi: event '%.80s' maps to no counter field "
                     "(expected AR_RTR_*, infiniband:::, net:::)",
                     ev);
            goto out;
        }
        if (r->papi_nevents >= NV_CTR_MAX_PAPI_EVENTS) {
            snprintf(err, errlen, "papi: more than %d events", NV_CTR_MAX_PAPI_EVENTS);
            goto out;
        }
        int e = PAPI_add_named_event(r->papi_eventset, ev);
        if (e != PAPI_OK) {
            /* one line, then the caller's next backend answers */
            snprintf(err, errlen,
                     "papi: cannot add event '%.80s' (%s): this PAPI has no such "
                     "component or counter",
                     ev, PAPI_strerror(e));
            goto out;
        }
        int port = nv_ctr_add_port(r, m.port, m.kind);
        if (port < 0) {
            snprintf(err, errlen, "papi: more than %d ports", NV_CTR_MAX_PORTS);
            goto out;
        }
        nv_ctr_set_field(r, port, m.field, m.unit, m.scale);
        r->papi_port[r->papi_nevents] = port;
        r->papi_field[r->papi_nevents] = m.field;
        r->papi_nevents++;
    }
    if (r->papi_nevents == 0) {
        snprintf(err, errlen, "papi: no events configured");
        goto out;
    }
    if (PAPI_start(r->papi_eventset) != PAPI_OK) {
        snprintf(err, errlen, "papi: cannot start the event set");
        goto out;
    }
    rc = 0;
out:
    free(list);
    return rc;
}

int nv_ctr_papi_read(nv_ctr_reader *r, nv_ctr_snapshot *out, char *err, size_t errlen)
{
    if (PAPI_read(r->papi_eventset, r->papi_values) != PAPI_OK) {
        snprintf(err, errlen, "papi: read failed");
        return -1;
    }
    for (int i = 0; i < r->papi_nevents; i++) {
        nv_ctr_value *v = &out->port[r->papi_port[i]].f[r->papi_field[i]];
        if (!v->valid) {
            v->valid = true;
            v->raw = 0;
        }
        v->raw += (uint64_t)r->papi_values[i];
    }
    return 0;
}

void nv_ctr_papi_close(nv_ctr_reader *r)
{
    if (r->papi_eventset < 0)
        return;
    long long dummy[NV_CTR_MAX_PAPI_EVENTS];
    PAPI_stop(r->papi_eventset, dummy);
    PAPI_cleanup_eventset(r->papi_eventset);
    PAPI_destroy_eventset(&r->papi_eventset);
    r->papi_eventset = -1;
}
