/* ctr_infiniband.c - the InfiniBand sysfs backend:
 * /sys/class/infiniband/<dev>/ports/<n>/counters, preferring the 64-bit
 * files of counters_ext/ when present.  *_data counters count 4-byte words
 * (scale 4 to bytes).  The 32-bit PMA counters stick at 4294967295 (16-bit
 * port_xmit_discards at 65535); port_xmit_wait counts ticks during which
 * data waited to be sent, the stall analogue. */
#include "counters_internal.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAT32 4294967295ull
#define SAT16 65535ull

static bool exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static void open_port_counters(nv_ctr_reader *r, int port, const char *pdir)
{
    static const struct {
        const char *file; /* in counters/ */
        const char *ext;  /* 64-bit twin in counters_ext/, or NULL */
        nv_ctr_field field;
        const char *unit;
        uint64_t scale;
        uint64_t sat;
    } map[] = {
        {"port_xmit_data", "port_xmit_data_64", NV_CTR_BYTES_OUT, "bytes", 4, SAT32},
        {"port_rcv_data", "port_rcv_data_64", NV_CTR_BYTES_IN, "bytes", 4, SAT32},
        {"port_xmit_packets", "port_xmit_packets_64", NV_CTR_PACKETS_OUT, "packets", 1, SAT32},
        {"port_rcv_packets", "port_rcv_packets_64", NV_CTR_PACKETS_IN, "packets", 1, SAT32},
        {"port_xmit_wait", NULL, NV_CTR_STALL, "ticks", 1, SAT32},
        {"port_xmit_discards", NULL, NV_CTR_DISCARDS, "packets", 1, SAT16},
    };
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++) {
        char path[NV_CTR_PATH_MAX];
        uint64_t sat = map[k].sat;
        bool have = false;
        if (map[k].ext) {
            snprintf(path, sizeof path, "%s/counters_ext/%s", pdir, map[k].ext);
            if (exists(path)) {
                have = true;
                sat = 0;
            }
        }
        if (!have)
            snprintf(path, sizeof path, "%s/counters/%s", pdir, map[k].file);
        nv_ctr_set_field(r, port, map[k].field, map[k].unit, map[k].scale);
        nv_ctr_add_file_source(r, port, map[k].field, path, sat);
    }
}

int nv_ctr_ib_open(nv_ctr_reader *r, const char *glob, char *err, size_t errlen)
{
    char base[NV_CTR_PATH_MAX];
    snprintf(base, sizeof base, "%s/sys/class/infiniband", r->root);
    char *devs[NV_CTR_MAX_PORTS];
    int ndev = nv_ctr_list_dir(base, devs, NV_CTR_MAX_PORTS);
    if (ndev < 0) {
        snprintf(err, errlen, "%s: absent (no InfiniBand devices)", base);
        return -1;
    }
    for (int i = 0; i < ndev; i++) {
        char pbase[NV_CTR_PATH_MAX];
        snprintf(pbase, sizeof pbase, "%s/%s/ports", base, devs[i]);
        char *ports[NV_CTR_MAX_PORTS];
        int np = nv_ctr_list_dir(pbase, ports, NV_CTR_MAX_PORTS);
        for (int j = 0; j < np; j++) {
            char name[NV_CTR_NAME_MAX];
            snprintf(name, sizeof name, "%s/%s", devs[i], ports[j]);
            if (glob && *glob && fnmatch(glob, devs[i], 0) != 0 && fnmatch(glob, name, 0) != 0)
                continue;
            int port = nv_ctr_add_port(r, name, "ib_port");
            if (port < 0) {
                nv_ctr_logf(r, "%s: more than %d InfiniBand ports; %s and later ones are not read",
                            base, NV_CTR_MAX_PORTS, name);
                break;
            }
            char pdir[NV_CTR_PATH_MAX];
            snprintf(pdir, sizeof pdir, "%s/%s", pbase, ports[j]);
            open_port_counters(r, port, pdir);
        }
        for (int j = 0; j < np; j++)
            free(ports[j]);
    }
    for (int i = 0; i < ndev; i++)
        free(devs[i]);
    if (r->nports == 0) {
        snprintf(err, errlen, "%s: no InfiniBand port matches '%.64s'", base,
                 glob && *glob ? glob : "*");
        return -1;
    }
    return 0;
}
