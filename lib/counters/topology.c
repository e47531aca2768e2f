/* topology.c - node -> blade/switch/group maps (netvar's map format and
 * Slurm topology.conf), Slurm host-range expansion, and the choice of one
 * counter reader per blade.  See counters_topology.h for the formats. */
#include "counters_topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "safe_open.h"
#include "str_hash.h"

/* ------------------------------------------------------------ host lists */

typedef struct name_vec {
    char **v;
    size_t n, cap, max;
} name_vec;

static int vec_push(name_vec *nv, const char *s, char *err, size_t errlen)
{
    if (nv->n >= nv->max) {
        snprintf(err, errlen, "host list expands to more than %zu names", nv->max);
        return -1;
    }
    if (nv->n == nv->cap) {
        size_t cap = nv->cap ? nv->cap * 2 : 16;
        char **v = realloc(nv->v, cap * sizeof *v);
        if (!v) {
            snprintf(err, errlen, "host list: out of memory");
            return -1;
        }
        nv->v = v;
        nv->cap = cap;
    }
    nv->v[nv->n] = strdup(s);
    if (!nv->v[nv->n]) {
        snprintf(err, errlen, "host list: out of memory");
        return -1;
    }
    nv->n++;
    return 0;
}

static int valid_host_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* Expands one item (no top-level commas) that may hold bracket groups. */
static int expand_item(const char *prefix, const char *rest, name_vec *out, const char *whole,
                       char *err, size_t errlen)
{
    const char *lb = strchr(rest, '[');
    if (!lb) {
        char name[NV_TOPO_NAME_MAX];
        if (strlen(prefix) + strlen(rest) >= sizeof name) {
            snprintf(err, errlen, "host list '%.60s': a name is longer than %d characters", whole,
                     NV_TOPO_NAME_MAX - 1);
            return -1;
        }
        snprintf(name, sizeof name, "%s%s", prefix, rest);
        if (!*name) {
            snprintf(err, errlen, "host list '%.60s': empty host name", whole);
            return -1;
        }
        for (const char *c = name; *c; c++)
            if (!valid_host_char(*c)) {
                snprintf(err, errlen,
                         "host list '%.60s': character '%c' is not allowed in a host name", whole,
                         *c);
                return -1;
            }
        return vec_push(out, name, err, errlen);
    }
    const char *rb = strchr(lb, ']');
    if (!rb) {
        snprintf(err, errlen, "host list '%.60s': '[' without ']'", whole);
        return -1;
    }
    char head[NV_TOPO_NAME_MAX];
    size_t hl = strlen(prefix) + (size_t)(lb - rest);
    if (hl >= sizeof head) {
        snprintf(err, errlen, "host list '%.60s': a name is longer than %d characters", whole,
                 NV_TOPO_NAME_MAX - 1);
        return -1;
    }
    snprintf(head, sizeof head, "%s%.*s", prefix, (int)(lb - rest), rest);
    /* each comma-separated range inside the brackets */
    const char *p = lb + 1;
    while (p < rb) {
        const char *end = memchr(p, ',', (size_t)(rb - p));
        if (!end)
            end = rb;
        char lo_s[16], hi_s[16];
        const char *dash = memchr(p, '-', (size_t)(end - p));
        size_t lo_len = (size_t)((dash ? dash : end) - p);
        size_t hi_len = dash ? (size_t)(end - dash - 1) : lo_len;
        const char *hi_p = dash ? dash + 1 : p;
        if (lo_len == 0 || hi_len == 0 || lo_len >= sizeof lo_s || hi_len >= sizeof hi_s ||
            strspn(p, "0123456789") < lo_len || strspn(hi_p, "0123456789") < hi_len) {
            snprintf(err, errlen, "host list '%.60s': bad range '%.*s' (want N or N-M)", whole,
                     (int)(end - p), p);
            return -1;
        }
        memcpy(lo_s, p, lo_len);
        lo_s[lo_len] = '\0';
        memcpy(hi_s, hi_p, hi_len);
        hi_s[hi_len] = '\0';
        unsigned long lo = strtoul(lo_s, NULL, 10), hi = strtoul(hi_s, NULL, 10);
        if (hi < lo || hi > 999999999ul) {
            snprintf(err, errlen, "host list '%.60s': range '%s-%s' is reversed or too large",
                     whole, lo_s, hi_s);
            return -1;
        }
        if (hi - lo >= out->max) {
            snprintf(err, errlen, "host list expands to more than %zu names", out->max);
            return -1;
        }
        int width = lo_s[0] == '0' ? (int)lo_len : 0; /* n[01-10] keeps the padding */
        for (unsigned long k = lo; k <= hi; k++) {
            char pre[NV_TOPO_NAME_MAX];
            if (snprintf(pre, sizeof pre, "%s%0*lu", head, width, k) >= (int)sizeof pre) {
                snprintf(err, errlen, "host list '%.60s': a name is longer than %d characters",
                         whole, NV_TOPO_NAME_MAX - 1);
                return -1;
            }
            if (expand_item(pre, rb + 1, out, whole, err, errlen) != 0)
                return -1;
        }
        p = end + 1;
    }
    return 0;
}

long nv_hostlist_expand(const char *expr, char ***out, size_t max, char *err, size_t errlen)
{
    *out = NULL;
    if (!expr || strlen(expr) > 65536) {
        snprintf(err, errlen, "host list is missing or longer than 65536 characters");
        return -1;
    }
    if (max == 0 || max > NV_HOSTLIST_MAX)
        max = NV_HOSTLIST_MAX;
    name_vec nv = {.max = max};
    char *copy = strdup(expr);
    if (!copy) {
        snprintf(err, errlen, "host list: out of memory");
        return -1;
    }
    /* split at commas outside brackets */
    int depth = 0;
    char *item = copy;
    for (char *c = copy;; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']')
            depth--;
        if (depth < 0 || depth > 1) {
            snprintf(err, errlen, "host list '%.60s': unbalanced or nested brackets", expr);
            goto fail;
        }
        if ((*c == ',' && depth == 0) || *c == '\0') {
            bool last = *c == '\0';
            *c = '\0';
            if (*item && expand_item("", item, &nv, expr, err, errlen) != 0)
                goto fail;
            if (last)
                break;
            item = c + 1;
        }
    }
    if (depth != 0) {
        snprintf(err, errlen, "host list '%.60s': '[' without ']'", expr);
        goto fail;
    }
    free(copy);
    *out = nv.v;
    return (long)nv.n;
fail:
    free(copy);
    nv_hostlist_free(nv.v, nv.n);
    return -1;
}

void nv_hostlist_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* -------------------------------------------------------------- the map */

void nv_topo_init(nv_topo *t)
{
    memset(t, 0, sizeof *t);
}

void nv_topo_free(nv_topo *t)
{
    free(t->nodes);
    free(t->ix);
    memset(t, 0, sizeof *t);
}

/* the index's slot for a node name */
static size_t name_hash(const char *s)
{
    return (size_t)nv_str_hash(s);
}

static size_t ix_slot(const nv_topo *t, const char *node)
{
    size_t mask = t->ixcap - 1, k = name_hash(node) & mask;
    while (t->ix[k] && strcmp(t->nodes[t->ix[k] - 1].node, node))
        k = (k + 1) & mask;
    return k;
}

/* an index of at least twice n slots, rebuilt from nodes when it grows */
static int ix_reserve(nv_topo *t, size_t n)
{
    if (t->ixcap >= 2 * n && t->ixcap)
        return 0;
    size_t cap = t->ixcap ? t->ixcap : 64;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *ix = calloc(cap, sizeof *ix);
    if (!ix)
        return -1;
    free(t->ix);
    t->ix = ix;
    t->ixcap = cap;
    for (size_t i = 0; i < t->n; i++)
        t->ix[ix_slot(t, t->nodes[i].node)] = (uint32_t)(i + 1);
    return 0;
}

static nv_topo_node *find_mut(nv_topo *t, const char *node)
{
    if (!t->ixcap)
        return NULL;
    uint32_t i = t->ix[ix_slot(t, node)];
    return i ? &t->nodes[i - 1] : NULL;
}

const nv_topo_node *nv_topo_find(const nv_topo *t, const char *node)
{
    return t && node ? find_mut((nv_topo *)t, node) : NULL;
}

static nv_topo_node *get_or_add(nv_topo *t, const char *node)
{
    nv_topo_node *e = find_mut(t, node);
    if (e)
        return e;
    if (t->n >= NV_TOPO_MAX_NODES || ix_reserve(t, t->n + 1))
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        nv_topo_node *v = realloc(t->nodes, cap * sizeof *v);
        if (!v)
            return NULL;
        t->nodes = v;
        t->cap = cap;
    }
    e = &t->nodes[t->n];
    memset(e, 0, sizeof *e);
    snprintf(e->node, sizeof e->node, "%s", node);
    t->ix[ix_slot(t, e->node)] = (uint32_t)(t->n + 1);
    t->n++;
    return e;
}

/* Splits text into lines; calls fn for each non-empty, non-comment line. */
typedef int (*line_fn)(nv_topo *t, char *line, const char *source, int lineno, char *err,
                       size_t errlen);

static int for_each_line(nv_topo *t, const char *text, const char *source, line_fn fn, char *err,
                         size_t errlen)
{
    if (!text)
        return 0;
    int lineno = 0;
    const char *p = text;
    while (*p) {
        lineno++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[4096];
        if (len >= sizeof line) {
            snprintf(err, errlen, "%s:%d: line longer than %zu characters; parsing stopped", source,
                     lineno, sizeof line - 1);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        size_t sl = strlen(s);
        while (sl && isspace((unsigned char)s[sl - 1]))
            s[--sl] = '\0';
        if (*s && fn(t, s, source, lineno, err, errlen) != 0)
            return -1;
        p = nl ? nl + 1 : p + len;
    }
    return 0;
}

static int value_ok(const char *v)
{
    if (!*v || strlen(v) >= NV_TOPO_NAME_MAX)
        return 0;
    for (; *v; v++)
        if (!valid_host_char(*v) && *v != ':' && *v != '/')
            return 0;
    return 1;
}

static int map_line(nv_topo *t, char *line, const char *source, int lineno, char *err,
                    size_t errlen)
{
    char *save = NULL;
    char *hosts = strtok_r(line, " \t", &save);
    char blade[NV_TOPO_NAME_MAX] = "", sw[NV_TOPO_NAME_MAX] = "", group[NV_TOPO_NAME_MAX] = "";
    char nic[NV_TOPO_NAME_MAX] = "", swp[NV_TOPO_NAME_MAX] = "", up[NV_TOPO_NAME_MAX] = "";
    for (char *kv = strtok_r(NULL, " \t", &save); kv; kv = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: '%.40s' is not key=value; line ignored, parsing stopped",
                     source, lineno, kv);
            return -1;
        }
        *eq = '\0';
        const char *v = eq + 1;
        char *dst = !strcmp(kv, "blade")         ? blade
                    : !strcmp(kv, "switch")      ? sw
                    : !strcmp(kv, "group")       ? group
                    : !strcmp(kv, "nic")         ? nic
                    : !strcmp(kv, "switch_port") ? swp
                    : !strcmp(kv, "uplink")      ? up
                                                 : NULL;
        if (!dst) {
            snprintf(err, errlen,
                     "%s:%d: unknown key '%.40s' (use blade=, switch=, group=, nic=, "
                     "switch_port=, uplink=); parsing stopped",
                     source, lineno, kv);
            return -1;
        }
        if (!value_ok(v)) {
            snprintf(err, errlen, "%s:%d: bad value '%.40s' for %s; parsing stopped", source,
                     lineno, v, kv);
            return -1;
        }
        snprintf(dst, NV_TOPO_NAME_MAX, "%s", v);
    }
    char **names;
    char e[256];
    long n = nv_hostlist_expand(hosts, &names, NV_TOPO_MAX_NODES, e, sizeof e);
    if (n < 0) {
        snprintf(err, errlen, "%s:%d: %s; parsing stopped", source, lineno, e);
        return -1;
    }
    for (long i = 0; i < n; i++) {
        nv_topo_node *nd = get_or_add(t, names[i]);
        if (!nd) {
            snprintf(err, errlen, "%s:%d: more than %d nodes; parsing stopped", source, lineno,
                     NV_TOPO_MAX_NODES);
            nv_hostlist_free(names, (size_t)n);
            return -1;
        }
        if (*blade)
            snprintf(nd->blade, sizeof nd->blade, "%s", blade);
        if (*sw)
            snprintf(nd->sw, sizeof nd->sw, "%s", sw);
        if (*group)
            snprintf(nd->group, sizeof nd->group, "%s", group);
        if (*nic)
            snprintf(nd->nic, sizeof nd->nic, "%s", nic);
        if (*swp)
            snprintf(nd->sw_port, sizeof nd->sw_port, "%s", swp);
        if (*up)
            snprintf(nd->uplink, sizeof nd->uplink, "%s", up);
    }
    nv_hostlist_free(names, (size_t)n);
    return 0;
}

int nv_topo_parse_map(nv_topo *t, const char *text, const char *source, char *err, size_t errlen)
{
    return for_each_line(t, text, source ? source : "blade map", map_line, err, errlen);
}

/* topology.conf and topology.yaml: parent switches are remembered per
 * child switch (nv_topo_links) so that a leaf's nodes get group = the
 * switch above it. */
int nv_topo_add_switch(nv_topo *t, nv_topo_links *st, const char *swname, const char *nodes,
                       const char *switches, const char *where, char *err, size_t errlen)
{
    if (!value_ok(swname)) {
        snprintf(err, errlen, "%s: bad switch name '%.40s'; parsing stopped", where, swname);
        return -1;
    }
    const char *list = nodes ? nodes : switches;
    if (!list)
        return 0;
    char **names;
    char e[256];
    long n = nv_hostlist_expand(list, &names, NV_TOPO_MAX_NODES, e, sizeof e);
    if (n < 0) {
        snprintf(err, errlen, "%s: %s; parsing stopped", where, e);
        return -1;
    }
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        if (nodes) {
            nv_topo_node *nd = get_or_add(t, names[i]);
            if (!nd) {
                snprintf(err, errlen, "%s: more than %d nodes; parsing stopped", where,
                         NV_TOPO_MAX_NODES);
                rc = -1;
            } else if (!*nd->sw) {
                snprintf(nd->sw, sizeof nd->sw, "%s", swname);
            }
        } else {
            if (st->n == st->cap) {
                size_t cap = st->cap ? st->cap * 2 : 16;
                void *v =
                    cap <= NV_TOPO_MAX_NODES ? realloc(st->links, cap * sizeof *st->links) : NULL;
                if (!v) {
                    snprintf(err, errlen, "%s: too many switches; parsing stopped", where);
                    rc = -1;
                    break;
                }
                st->links = v;
                st->cap = cap;
            }
            snprintf(st->links[st->n].child, NV_TOPO_NAME_MAX, "%s", names[i]);
            snprintf(st->links[st->n].parent, NV_TOPO_NAME_MAX, "%s", swname);
            st->n++;
        }
    }
    nv_hostlist_free(names, (size_t)n);
    return rc;
}

void nv_topo_links_finish(nv_topo *t, nv_topo_links *st)
{
    /* group of a node = the parent of its leaf switch, unless the map set it */
    for (size_t i = 0; i < t->n; i++) {
        nv_topo_node *nd = &t->nodes[i];
        if (*nd->group || !*nd->sw)
            continue;
        for (size_t k = 0; k < st->n; k++)
            if (!strcmp(st->links[k].child, nd->sw)) {
                snprintf(nd->group, sizeof nd->group, "%s", st->links[k].parent);
                break;
            }
    }
    free(st->links);
    memset(st, 0, sizeof *st);
}

static int slurm_line_impl(nv_topo *t, nv_topo_links *st, char *line, const char *source,
                           int lineno, char *err, size_t errlen)
{
    char *save = NULL;
    char swname[NV_TOPO_NAME_MAX] = "";
    const char *nodes = NULL, *switches = NULL;
    for (char *kv = strtok_r(line, " \t", &save); kv; kv = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (!strcasecmp(kv, "SwitchName")) {
            if (!value_ok(eq + 1)) {
                snprintf(err, errlen, "%s:%d: bad SwitchName '%.40s'; parsing stopped", source,
                         lineno, eq + 1);
                return -1;
            }
            snprintf(swname, sizeof swname, "%s", eq + 1);
        } else if (!strcasecmp(kv, "Nodes")) {
            nodes = eq + 1;
        } else if (!strcasecmp(kv, "Switches")) {
            switches = eq + 1;
        } /* LinkSpeed and others do not matter here */
    }
    if (!*swname) {
        snprintf(err, errlen, "%s:%d: line without SwitchName=; parsing stopped", source, lineno);
        return -1;
    }
    char where[4200];
    snprintf(where, sizeof where, "%.4096s:%d", source, lineno);
    return nv_topo_add_switch(t, st, swname, nodes, switches, where, err, errlen);
}

int nv_topo_parse_slurm(nv_topo *t, const char *text, const char *source, char *err, size_t errlen)
{
    if (!source)
        source = "topology.conf";
    nv_topo_links st = {0};
    int rc = 0, lineno = 0;
    const char *p = text ? text : "";
    while (*p && rc == 0) {
        lineno++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[8192];
        if (len >= sizeof line) {
            snprintf(err, errlen, "%s:%d: line longer than %zu characters; parsing stopped", source,
                     lineno, sizeof line - 1);
            rc = -1;
            break;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s)
            rc = slurm_line_impl(t, &st, s, source, lineno, err, errlen);
        p = nl ? nl + 1 : p + len;
    }
    nv_topo_links_finish(t, &st);
    return rc;
}

int nv_topo_load_file(nv_topo *t, const char *path, bool slurm_format, char *err, size_t errlen)
{
    /* the admin's file: a FIFO, device or NUL byte refused without
     * blocking, at most 16 MiB (safe_open.h) */
    char why[256];
    size_t n = 0;
    char *buf = nv_read_admin_file(path, NV_TOPO_MAX_FILE_BYTES, true, &n, why, sizeof why);
    if (!buf) {
        snprintf(err, errlen, "%s: %s; no topology loaded", path ? path : "(no path)", why);
        return -1;
    }
    int rc = slurm_format ? nv_topo_parse_slurm(t, buf, path, err, errlen)
                          : nv_topo_parse_map(t, buf, path, err, errlen);
    free(buf);
    return rc;
}

const char *nv_topo_blade_of(const nv_topo *t, const char *node)
{
    const nv_topo_node *nd = nv_topo_find(t, node);
    return nd && *nd->blade ? nd->blade : node;
}

bool nv_topo_is_blade_reader(const nv_topo *t, const char *node, const char *const *job_nodes,
                             size_t njob)
{
    if (!node || !job_nodes)
        return false;
    bool member = false;
    for (size_t i = 0; i < njob; i++)
        if (job_nodes[i] && !strcmp(job_nodes[i], node))
            member = true;
    if (!member)
        return false;
    const char *blade = nv_topo_blade_of(t, node);
    bool own = !nv_topo_find(t, node) || !*nv_topo_find(t, node)->blade;
    for (size_t i = 0; i < njob; i++) {
        const char *other = job_nodes[i];
        if (!other || !strcmp(other, node))
            continue;
        if (own)
            continue; /* unknown blade: the node is alone on it */
        const nv_topo_node *on = nv_topo_find(t, other);
        if (on && *on->blade && !strcmp(on->blade, blade) && strcmp(other, node) < 0)
            return false;
    }
    return true;
}
