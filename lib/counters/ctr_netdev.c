/* ctr_netdev.c - the netdev backend: /sys/class/net/<if>/statistics files,
 * interfaces chosen by exact name or fnmatch glob.  These counters are
 * 64-bit on the 64-bit kernels netvar targets; netdev has no stall counter. */
#include "counters_internal.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_cmp.h"

int nv_ctr_netdev_open(nv_ctr_reader *r, const char *glob, char *err, size_t errlen)
{
    char dir[NV_CTR_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/sys/class/net", r->root);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot list network interfaces", dir);
        return -1;
    }
    /* sorted so port order is stable across nodes and runs */
    char *names[NV_CTR_MAX_PORTS + 1];
    int n = 0;
    bool truncated = false;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (glob && *glob) {
            if (fnmatch(glob, e->d_name, 0) != 0)
                continue;
        } else if (!strcmp(e->d_name, "lo")) {
            continue; /* by default only real interfaces */
        }
        if (strlen(e->d_name) >= NV_CTR_NAME_MAX)
            continue;
        if (n >= NV_CTR_MAX_PORTS) {
            truncated = true;
            continue;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    if (truncated)
        nv_ctr_logf(r, "%s: more than %d interfaces match; only the first %d (by name) are read",
                    dir, NV_CTR_MAX_PORTS, NV_CTR_MAX_PORTS);
    if (n == 0) {
        snprintf(err, errlen, "%s: no interface matches '%.64s'", dir,
                 glob && *glob ? glob : "* except lo");
        return -1;
    }
    qsort(names, (size_t)n, sizeof names[0], nv_cmp_strp);

    static const struct {
        const char *file;
        nv_ctr_field field;
        const char *unit;
    } files[] = {
        {"tx_bytes", NV_CTR_BYTES_OUT, "bytes"},       {"rx_bytes", NV_CTR_BYTES_IN, "bytes"},
        {"tx_packets", NV_CTR_PACKETS_OUT, "packets"}, {"rx_packets", NV_CTR_PACKETS_IN, "packets"},
        {"tx_dropped", NV_CTR_DISCARDS, "packets"},    {"rx_dropped", NV_CTR_DISCARDS, "packets"},
    };
    for (int i = 0; i < n; i++) {
        int port = nv_ctr_add_port(r, names[i], "netdev");
        if (port < 0)
            break;
        for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
            char path[NV_CTR_PATH_MAX];
            snprintf(path, sizeof path, "%s/%s/statistics/%s", dir, names[i], files[k].file);
            nv_ctr_set_field(r, port, files[k].field, files[k].unit, 1);
            nv_ctr_add_file_source(r, port, files[k].field, path, 0);
        }
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    return 0;
}
