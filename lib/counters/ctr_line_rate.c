/* ctr_line_rate.c - port line rates from sysfs (ctr_line_rate.h). */
#include "ctr_line_rate.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the parse of the sysfs text, shared with tests */
double nv_line_rate_from_sysfs(const char *kind, const char *text)
{
    if (!kind || !text)
        return NAN;
    char *end;
    double v = strtod(text, &end);
    if (end == text || !isfinite(v) || v <= 0)
        return NAN;
    if (!strcmp(kind, "infiniband")) {
        /* "100 Gb/sec (4X EDR)": the unit follows the number */
        while (*end == ' ')
            end++;
        if (!strncmp(end, "Gb/sec", 6))
            return v * 1e9 / 8;
        if (!strncmp(end, "Mb/sec", 6))
            return v * 1e6 / 8;
        return NAN;
    }
    if (!strcmp(kind, "netdev")) /* speed: Mb/s, as an integer */
        return (*end == '\0' || *end == '\n') ? v * 1e6 / 8 : NAN;
    return NAN;
}

/* names come from counter records: keep them to plain sysfs names */
static int safe_port_name(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < 64 && s[0] != '.' &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-/") == n &&
           !strstr(s, "..");
}

double nv_ctr_port_line_rate(const char *root, const char *backend, const char *port)
{
    char path[PATH_MAX], text[128];
    if (!root)
        root = "";
    if (!backend || !port || !safe_port_name(port))
        return NAN;
    if (!strcmp(backend, "netdev")) {
        if (strchr(port, '/'))
            return NAN;
        snprintf(path, sizeof path, "%s/sys/class/net/%s/speed", root, port);
    } else if (!strcmp(backend, "infiniband")) {
        char dev[64];
        unsigned num;
        if (sscanf(port, "%63[^/]/%u", dev, &num) != 2)
            return NAN;
        snprintf(path, sizeof path, "%s/sys/class/infiniband/%s/ports/%u/rate", root, dev, num);
    } else if (!strcmp(backend, "cxi")) {
        /* a Slingshot NIC's rate is its Ethernet function's: the PCI
         * device's one net/<if>/speed (Mb/s) */
        if (strchr(port, '/'))
            return NAN;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/sys/class/cxi/%s/device/net", root, port);
        DIR *d = opendir(dir);
        if (!d)
            return NAN;
        struct dirent *e;
        char ifname[64] = "";
        int n = 0;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.' && n++ == 0)
                snprintf(ifname, sizeof ifname, "%.63s", e->d_name);
        closedir(d);
        if (n != 1 || !safe_port_name(ifname))
            return NAN; /* none, or several: not one link to read */
        snprintf(path, sizeof path, "%s/%s/speed", dir, ifname);
        backend = "netdev";
    } else {
        return NAN;
    }
    FILE *f = fopen(path, "re");
    if (!f)
        return NAN;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return nv_line_rate_from_sysfs(backend, text);
}
