/* ctr_cxi.c - the HPE Slingshot NIC (Cassini, cxi driver) sysfs backend:
 * /sys/class/cxi/<dev>/device/telemetry/<item>, one file per telemetry
 * item, each reading "VALUE@SECONDS.NANOSECONDS" (the value and when the
 * driver read it).  One port per NIC:
 *   bytes_out   hni_sts_tx_ok_octets           bytes sent
 *   bytes_in    hni_sts_rx_ok_octets           bytes received
 *   packets_out hni_pkts_sent_by_tc_0..7        summed over traffic classes
 *   packets_in  hni_pkts_recv_by_tc_0..7
 *   stall       hni_tx_paused_0..7              cycles the transmit path was
 *               paused by the link partner's flow control (the switch had
 *               no room): Slingshot's analogue of Aries stalls and of
 *               InfiniBand's port_xmit_wait.
 * Items of traffic classes the NIC does not expose are skipped; a field
 * none of whose files exists is logged once and left invalid.  The
 * counters are 64-bit. */
#include "counters_internal.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CXI_MAX_TC 8

/* a field fed by one item, or by item_0..item_7 when tc is set */
static void add_field(nv_ctr_reader *r, int port, const char *tdir, nv_ctr_field f,
                      const char *unit, const char *item, int tc)
{
    char path[NV_CTR_PATH_MAX];
    nv_ctr_set_field(r, port, f, unit, 1);
    if (!tc) {
        snprintf(path, sizeof path, "%s/%s", tdir, item);
        nv_ctr_add_file_source(r, port, f, path, 0);
        return;
    }
    int found = 0;
    for (int k = 0; k < CXI_MAX_TC; k++) {
        snprintf(path, sizeof path, "%s/%s_%d", tdir, item, k);
        if (access(path, F_OK) == 0 && nv_ctr_add_file_source(r, port, f, path, 0) == 0)
            found++;
    }
    if (!found) { /* none: the first one's absence is what gets logged */
        snprintf(path, sizeof path, "%s/%s_0", tdir, item);
        nv_ctr_add_file_source(r, port, f, path, 0);
    }
}

int nv_ctr_cxi_open(nv_ctr_reader *r, const char *glob, char *err, size_t errlen)
{
    char base[NV_CTR_PATH_MAX];
    snprintf(base, sizeof base, "%s/sys/class/cxi", r->root);
    char *devs[NV_CTR_MAX_PORTS];
    int n = nv_ctr_list_dir(base, devs, NV_CTR_MAX_PORTS);
    if (n < 0) {
        snprintf(err, errlen, "%s: absent (no Slingshot NIC)", base);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (glob && *glob && fnmatch(glob, devs[i], 0) != 0)
            continue;
        char tdir[NV_CTR_PATH_MAX];
        snprintf(tdir, sizeof tdir, "%s/%s/device/telemetry", base, devs[i]);
        if (access(tdir, F_OK) != 0) {
            nv_ctr_logf(r, "%s: absent (driver without telemetry); %s not read", tdir, devs[i]);
            continue;
        }
        int port = nv_ctr_add_port(r, devs[i], "cxi_port");
        if (port < 0) {
            nv_ctr_logf(r, "%s: more than %d ports; %s and later ones are not read", base,
                        NV_CTR_MAX_PORTS, devs[i]);
            break;
        }
        add_field(r, port, tdir, NV_CTR_BYTES_OUT, "bytes", "hni_sts_tx_ok_octets", 0);
        add_field(r, port, tdir, NV_CTR_BYTES_IN, "bytes", "hni_sts_rx_ok_octets", 0);
        add_field(r, port, tdir, NV_CTR_PACKETS_OUT, "packets", "hni_pkts_sent_by_tc", 1);
        add_field(r, port, tdir, NV_CTR_PACKETS_IN, "packets", "hni_pkts_recv_by_tc", 1);
        add_field(r, port, tdir, NV_CTR_STALL, "cycles", "hni_tx_paused", 1);
    }
    for (int i = 0; i < n; i++)
        free(devs[i]);
    if (r->nports == 0) {
        snprintf(err, errlen, "%s: no Slingshot NIC with telemetry matches '%.64s'", base,
                 glob && *glob ? glob : "*");
        return -1;
    }
    return 0;
}
