/* topology_yaml.c - Slurm's topology.yaml read with libyaml's event parser
 * into a small bounded tree, then mapped onto nv_topo through the same
 * switch builder topology.conf uses (counters_topology.h).  See
 * topology_yaml.h for the schema, the mapping and the bounds. */
#include "topology_yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "safe_open.h"

/* ---------------------------------------------------- the bounded tree */

enum { Y_SCALAR, Y_SEQ, Y_MAP };

typedef struct ynode {
    int kind;
    char *s;             /* Y_SCALAR: the value, '\0'-terminated */
    struct ynode **kids; /* Y_SEQ: items; Y_MAP: key, value, key, value ... */
    size_t n, cap;
    unsigned long line; /* 1-based */
} ynode;

static void ynode_free(ynode *y)
{
    if (!y)
        return;
    for (size_t i = 0; i < y->n; i++)
        ynode_free(y->kids[i]); /* depth is bounded by NV_TOPO_YAML_MAX_DEPTH */
    free(y->kids);
    free(y->s);
    free(y);
}

static int ynode_add(ynode *parent, ynode *kid)
{
    if (parent->n == parent->cap) {
        size_t cap = parent->cap ? parent->cap * 2 : 8;
        ynode **v = realloc(parent->kids, cap * sizeof *v);
        if (!v)
            return -1;
        parent->kids = v;
        parent->cap = cap;
    }
    parent->kids[parent->n++] = kid;
    return 0;
}

typedef struct ybuild {
    ynode *root;
    ynode *stack[NV_TOPO_YAML_MAX_DEPTH];
    int depth;
    size_t items, docs;
} ybuild;

/* One event into the tree.  0, 1 at the end of the stream, -1 with err. */
static int on_event(ybuild *b, const yaml_event_t *ev, const char *src, char *err, size_t errlen)
{
    unsigned long line = (unsigned long)ev->start_mark.line + 1;
    int kind;
    switch (ev->type) {
    case YAML_STREAM_END_EVENT: return 1;
    case YAML_DOCUMENT_START_EVENT:
        if (++b->docs > 1) {
            snprintf(err, errlen, "%s:%lu: a second YAML document ('---'); one is read", src, line);
            return -1;
        }
        return 0;
    case YAML_ALIAS_EVENT:
        snprintf(err, errlen, "%s:%lu: an alias (*name): topology.yaml takes none", src, line);
        return -1;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (b->depth > 0)
            b->depth--;
        return 0;
    case YAML_SCALAR_EVENT: kind = Y_SCALAR; break;
    case YAML_SEQUENCE_START_EVENT: kind = Y_SEQ; break;
    case YAML_MAPPING_START_EVENT: kind = Y_MAP; break;
    default: return 0; /* stream start, document end, no event */
    }
    if (++b->items > NV_TOPO_YAML_MAX_ITEMS) {
        snprintf(err, errlen, "%s:%lu: more than %u YAML nodes", src, line, NV_TOPO_YAML_MAX_ITEMS);
        return -1;
    }
    if (kind == Y_SCALAR && ev->data.scalar.length > NV_TOPO_YAML_MAX_SCALAR) {
        snprintf(err, errlen, "%s:%lu: a value longer than %d bytes", src, line,
                 NV_TOPO_YAML_MAX_SCALAR);
        return -1;
    }
    if (kind != Y_SCALAR && b->depth >= NV_TOPO_YAML_MAX_DEPTH) {
        snprintf(err, errlen, "%s:%lu: nested deeper than %d levels", src, line,
                 NV_TOPO_YAML_MAX_DEPTH);
        return -1;
    }
    ynode *y = calloc(1, sizeof *y);
    if (!y || (kind == Y_SCALAR &&
               !(y->s = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length)))) {
        free(y);
        snprintf(err, errlen, "%s:%lu: out of memory", src, line);
        return -1;
    }
    y->kind = kind;
    y->line = line;
    if (b->depth == 0) {
        if (b->root) { /* cannot happen within one document; kept safe */
            ynode_free(y);
            snprintf(err, errlen, "%s:%lu: a second top-level value", src, line);
            return -1;
        }
        b->root = y;
    } else if (ynode_add(b->stack[b->depth - 1], y) != 0) {
        ynode_free(y);
        snprintf(err, errlen, "%s:%lu: out of memory", src, line);
        return -1;
    }
    if (kind != Y_SCALAR)
        b->stack[b->depth++] = y;
    return 0;
}

static ynode *load_tree(const char *text, size_t len, const char *src, char *err, size_t errlen)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        snprintf(err, errlen, "%s: libyaml: out of memory", src);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    ybuild b = {0};
    int rc = 0;
    while (rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            snprintf(err, errlen, "%s:%lu:%lu: not YAML: %s", src,
                     (unsigned long)p.problem_mark.line + 1,
                     (unsigned long)p.problem_mark.column + 1,
                     p.problem ? p.problem : "parse error");
            rc = -1;
            break;
        }
        rc = on_event(&b, &ev, src, err, errlen);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (rc < 0) {
        ynode_free(b.root);
        return NULL;
    }
    if (!b.root)
        snprintf(err, errlen, "%s: empty: no topology", src);
    return b.root;
}

/* ------------------------------------------------------ the schema */

static const ynode *map_get(const ynode *m, const char *key)
{
    for (size_t i = 0; m && m->kind == Y_MAP && i + 1 < m->n; i += 2)
        if (m->kids[i]->kind == Y_SCALAR && !strcmp(m->kids[i]->s, key))
            return m->kids[i + 1];
    return NULL;
}

/* every key a scalar, known, and once; what names the map in errors */
static int check_keys(const ynode *m, const char *const *known, const char *what, const char *src,
                      char *err, size_t errlen)
{
    if (m->kind != Y_MAP) {
        snprintf(err, errlen, "%s:%lu: %s is not a mapping (key: value)", src, m->line, what);
        return -1;
    }
    for (size_t i = 0; i + 1 < m->n; i += 2) {
        const ynode *k = m->kids[i];
        bool ok = false;
        for (size_t j = 0; k->kind == Y_SCALAR && known[j]; j++)
            ok = ok || !strcmp(k->s, known[j]);
        if (!ok) {
            snprintf(err, errlen, "%s:%lu: unknown key '%.40s' in %s", src, k->line,
                     k->kind == Y_SCALAR ? k->s : "(not a word)", what);
            return -1;
        }
        for (size_t j = 0; j < i; j += 2)
            if (!strcmp(m->kids[j]->s, k->s)) {
                snprintf(err, errlen, "%s:%lu: key '%s' given twice in %s", src, k->line, k->s,
                         what);
                return -1;
            }
    }
    return 0;
}

static const char *scalar_of(const ynode *v, const char *key, const char *src, char *err,
                             size_t errlen)
{
    if (!v)
        return NULL;
    if (v->kind != Y_SCALAR || !*v->s) {
        snprintf(err, errlen, "%s:%lu: %s is not a plain value", src, v->line, key);
        return NULL;
    }
    return v->s;
}

/* A host list: one scalar ("n[1-4],m1"), or a sequence of them (joined
 * with commas into buf, at most NV_TOPO_YAML_MAX_SCALAR bytes). */
static const char *hostlist_of(const ynode *v, const char *key, char *buf, size_t buflen,
                               const char *src, char *err, size_t errlen)
{
    if (!v)
        return NULL;
    if (v->kind == Y_SCALAR)
        return scalar_of(v, key, src, err, errlen);
    if (v->kind != Y_SEQ || v->n == 0) {
        snprintf(err, errlen, "%s:%lu: %s is not a host list", src, v->line, key);
        return NULL;
    }
    size_t used = 0;
    for (size_t i = 0; i < v->n; i++) {
        const ynode *it = v->kids[i];
        if (it->kind != Y_SCALAR || !*it->s) {
            snprintf(err, errlen, "%s:%lu: an item of %s is not a host list", src, it->line, key);
            return NULL;
        }
        size_t l = strlen(it->s);
        if (used + l + 2 > buflen) {
            snprintf(err, errlen, "%s:%lu: %s is longer than %zu characters", src, it->line, key,
                     buflen - 1);
            return NULL;
        }
        if (used)
            buf[used++] = ',';
        memcpy(buf + used, it->s, l + 1);
        used += l;
    }
    return buf;
}

static int bool_of(const ynode *v, bool *out, const char *src, char *err, size_t errlen)
{
    static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no",
                                                                                "off", "0"};
    const char *s = scalar_of(v, "cluster_default", src, err, errlen);
    for (size_t i = 0; s && i < 4; i++) {
        if (!strcasecmp(s, yes[i]))
            return *out = true, 0;
        if (!strcasecmp(s, no[i]))
            return *out = false, 0;
    }
    if (s)
        snprintf(err, errlen, "%s:%lu: cluster_default '%.20s' is not true or false", src, v->line,
                 s);
    return -1;
}

/* One switch or block: a map naming itself in name_key, listing nodes
 * (and, in a tree, children). */
static int add_entry(nv_topo *t, nv_topo_links *links, const ynode *e, const char *what,
                     const char *name_key, const char *const *known, char *nodes_buf,
                     char *kids_buf, size_t buflen, const char *src, char *err, size_t errlen)
{
    if (check_keys(e, known, what, src, err, errlen))
        return -1;
    const ynode *nm = map_get(e, name_key);
    if (!nm) {
        snprintf(err, errlen, "%s:%lu: an entry of %s without '%s:'", src, e->line, what, name_key);
        return -1;
    }
    const char *name = scalar_of(nm, name_key, src, err, errlen);
    if (!name)
        return -1;
    const ynode *nv = map_get(e, "nodes"), *cv = map_get(e, "children");
    const char *nodes = hostlist_of(nv, "nodes", nodes_buf, buflen, src, err, errlen);
    const char *kids = hostlist_of(cv, "children", kids_buf, buflen, src, err, errlen);
    if ((nv && !nodes) || (cv && !kids))
        return -1;
    char where[4200];
    snprintf(where, sizeof where, "%.4096s:%lu", src, e->line);
    /* a switch with both is taken as topology.conf takes Nodes= with
     * Switches=: its nodes, and its children's parent */
    if (nodes && nv_topo_add_switch(t, links, name, nodes, NULL, where, err, errlen))
        return -1;
    if (kids && nv_topo_add_switch(t, links, name, NULL, kids, where, err, errlen))
        return -1;
    if (!nodes && !kids && nv_topo_add_switch(t, links, name, NULL, NULL, where, err, errlen))
        return -1; /* checks the name */
    return 0;
}

/* A list of entries (switches or blocks) */
static int add_entries(nv_topo *t, nv_topo_links *links, const ynode *list, const char *what,
                       const char *name_key, const char *const *known, const char *src, char *err,
                       size_t errlen)
{
    if (!list || list->kind != Y_SEQ) {
        snprintf(err, errlen, "%s:%lu: %s is missing or not a list", src, list ? list->line : 1ul,
                 what);
        return -1;
    }
    if (list->n > NV_TOPO_MAX_NODES) {
        snprintf(err, errlen, "%s:%lu: more than %d %s", src, list->line, NV_TOPO_MAX_NODES, what);
        return -1;
    }
    size_t buflen = NV_TOPO_YAML_MAX_SCALAR + 1;
    char *nodes_buf = malloc(buflen), *kids_buf = malloc(buflen);
    int rc = nodes_buf && kids_buf ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "%s: out of memory", src);
    for (size_t i = 0; rc == 0 && i < list->n; i++)
        rc = add_entry(t, links, list->kids[i], what, name_key, known, nodes_buf, kids_buf, buflen,
                       src, err, errlen);
    free(nodes_buf);
    free(kids_buf);
    return rc;
}

static int read_tree(nv_topo *t, const ynode *tree, const char *src, char *err, size_t errlen)
{
    static const char *const tree_keys[] = {"switches", NULL};
    static const char *const sw_keys[] = {"switch", "children", "nodes", NULL};
    if (check_keys(tree, tree_keys, "tree", src, err, errlen))
        return -1;
    nv_topo_links links = {0};
    int rc = add_entries(t, &links, map_get(tree, "switches"), "switches", "switch", sw_keys, src,
                         err, errlen);
    nv_topo_links_finish(t, &links);
    return rc;
}

static int read_block(nv_topo *t, const ynode *block, const char *src, char *err, size_t errlen)
{
    static const char *const block_keys[] = {"block_sizes", "blocks", NULL};
    static const char *const b_keys[] = {"block", "nodes", NULL};
    if (check_keys(block, block_keys, "block", src, err, errlen))
        return -1;
    const ynode *bs = map_get(block, "block_sizes");
    if (bs) { /* each a power of two above the one before (topology.yaml(5)) */
        if (bs->kind != Y_SEQ) {
            snprintf(err, errlen, "%s:%lu: block_sizes is not a list of numbers", src, bs->line);
            return -1;
        }
        unsigned long prev = 0;
        for (size_t i = 0; i < bs->n; i++) {
            const ynode *v = bs->kids[i];
            char *end = NULL;
            errno = 0;
            unsigned long n = v->kind == Y_SCALAR ? strtoul(v->s, &end, 10) : 0;
            if (v->kind != Y_SCALAR || !*v->s || *end || errno || n == 0 || n > NV_TOPO_MAX_NODES ||
                (prev && (n <= prev || n % prev || (n / prev & (n / prev - 1))))) {
                snprintf(err, errlen,
                         "%s:%lu: block size '%.20s' is not a number of nodes (1-%d), each a "
                         "power of two times the one before",
                         src, v->line, v->kind == Y_SCALAR ? v->s : "(list)", NV_TOPO_MAX_NODES);
                return -1;
            }
            prev = n;
        }
    }
    nv_topo_links links = {0};
    int rc = add_entries(t, &links, map_get(block, "blocks"), "blocks", "block", b_keys, src, err,
                         errlen);
    nv_topo_links_finish(t, &links);
    return rc;
}

int nv_topo_parse_yaml(nv_topo *t, const char *text, size_t len, const char *source, char *err,
                       size_t errlen)
{
    static const char *const topo_keys[] = {"topology", "cluster_default", "tree", "block", "flat",
                                            NULL};
    const char *src = source ? source : "topology.yaml";
    if (!text)
        text = "";
    ynode *root = load_tree(text, len, src, err, errlen);
    if (!root)
        return -1;
    int rc = -1;
    const ynode *pick = NULL;
    bool pick_dflt = false;
    if (root->kind != Y_SEQ || root->n == 0) {
        snprintf(err, errlen, "%s:%lu: not a list of topologies ('- topology: name')", src,
                 root->line);
        goto out;
    }
    for (size_t i = 0; i < root->n; i++) {
        const ynode *e = root->kids[i];
        if (check_keys(e, topo_keys, "a topology", src, err, errlen))
            goto out;
        if (!scalar_of(map_get(e, "topology"), "topology", src, err, errlen)) {
            if (!map_get(e, "topology"))
                snprintf(err, errlen, "%s:%lu: a topology without 'topology: name'", src, e->line);
            goto out;
        }
        int kinds = !!map_get(e, "tree") + !!map_get(e, "block") + !!map_get(e, "flat");
        if (kinds != 1) {
            snprintf(err, errlen, "%s:%lu: topology '%.40s' has %s of tree, block and flat", src,
                     e->line, map_get(e, "topology")->s, kinds ? "more than one" : "none");
            goto out;
        }
        bool dflt = false;
        const ynode *cd = map_get(e, "cluster_default");
        if (cd && bool_of(cd, &dflt, src, err, errlen))
            goto out;
        /* Slurm's: the first with cluster_default: true, else the first */
        if (!pick || (dflt && !pick_dflt)) {
            pick = e;
            pick_dflt = dflt;
        }
    }
    const ynode *v;
    if ((v = map_get(pick, "tree")))
        rc = read_tree(t, v, src, err, errlen);
    else if ((v = map_get(pick, "block")))
        rc = read_block(t, v, src, err, errlen);
    else {
        bool flat = false;
        rc = bool_of(map_get(pick, "flat"), &flat, src, err, errlen);
        if (rc == 0 && !flat) {
            snprintf(err, errlen, "%s:%lu: topology '%.40s': flat is not true", src, pick->line,
                     map_get(pick, "topology")->s);
            rc = -1;
        }
    }
out:
    ynode_free(root);
    return rc;
}

/* ------------------------------------------------------------ files */

int nv_topo_load_yaml(nv_topo *t, const char *path, char *err, size_t errlen)
{
    char why[256];
    struct stat st;
    const char *p = path ? path : "(no path)";
    /* not through a symbolic link, a regular file, owned by root or by
     * whoever reads it (slurmctld's SlurmUser); the owner seen is the one
     * the read checks again */
    int fd = nv_open_untrusted(path, NV_ANY_OWNER, NV_TOPO_MAX_FILE_BYTES, 0, &st, why, sizeof why);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s; no topology loaded", p, why);
        return -1;
    }
    close(fd);
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s: owned by uid %u, not root or uid %u; no topology loaded", p,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    size_t n = 0;
    char *buf = nv_read_untrusted(path, st.st_uid, NV_TOPO_MAX_FILE_BYTES, 0, &n, why, sizeof why);
    if (!buf) {
        snprintf(err, errlen, "%s: %s; no topology loaded", p, why);
        return -1;
    }
    int rc = nv_topo_parse_yaml(t, buf, n, path, err, errlen);
    free(buf);
    return rc;
}

enum nv_topo_kind nv_topo_slurm_file(const char *slurm_conf, bool reads_yaml, char *path,
                                     size_t pathlen)
{
    const char *slash = slurm_conf && slurm_conf[0] == '/' ? strrchr(slurm_conf, '/') : NULL;
    int dirlen = slash ? (int)(slash - slurm_conf) : (int)strlen("/etc/slurm");
    const char *dir = slash ? slurm_conf : "/etc/slurm";
    struct stat st;
    if (reads_yaml) {
        snprintf(path, pathlen, "%.*s/topology.yaml", dirlen, dir);
        if (stat(path, &st) == 0) /* Slurm's test: it exists */
            return NV_TOPO_YAML;
    }
    snprintf(path, pathlen, "%.*s/topology.conf", dirlen, dir);
    return stat(path, &st) == 0 ? NV_TOPO_CONF : NV_TOPO_NONE;
}

int nv_topo_load_slurm(nv_topo *t, const char *path, enum nv_topo_kind kind, char *err,
                       size_t errlen)
{
    switch (kind) {
    case NV_TOPO_YAML: return nv_topo_load_yaml(t, path, err, errlen);
    case NV_TOPO_CONF: return nv_topo_load_file(t, path, true, err, errlen);
    default: return 0;
    }
}

bool nv_topo_is_yaml_name(const char *path)
{
    size_t l = path ? strlen(path) : 0;
    return (l > 5 && !strcmp(path + l - 5, ".yaml")) || (l > 4 && !strcmp(path + l - 4, ".yml"));
}

int nv_topo_load_named(nv_topo *t, const char *path, bool slurm_format, char *err, size_t errlen)
{
    if (slurm_format && nv_topo_is_yaml_name(path))
        return nv_topo_load_yaml(t, path, err, errlen);
    return nv_topo_load_file(t, path, slurm_format, err, errlen);
}
