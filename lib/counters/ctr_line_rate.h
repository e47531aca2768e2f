/* ctr_line_rate.h - a port's line rate from sysfs, in bytes/s: `speed`
 * (Mb/s) for netdev, `rate` ("100 Gb/sec (4X EDR)") for InfiniBand.
 * spank_netvar records it with each node's counters; `netvar diagnose`
 * falls back to it on the host where it runs. */
#ifndef NETVAR_CTR_LINE_RATE_H
#define NETVAR_CTR_LINE_RATE_H

/* root: sysfs root prefix ("" or NULL for the real /sys); backend
 * "netdev" or "infiniband"; port as the counter reader names it ("eth0",
 * "mlx5_0/1").  NAN when unknown (no such file, "-1", other backends). */
double nv_ctr_port_line_rate(const char *root, const char *backend, const char *port);

/* Line rate in bytes/s from sysfs text: kind "infiniband" reads the `rate`
 * file ("100 Gb/sec (4X EDR)"), kind "netdev" the `speed` file (Mb/s,
 * "-1" or 0 = unknown).  Returns NAN when the text gives no rate. */
double nv_line_rate_from_sysfs(const char *kind, const char *text);

#endif
