/* fuzz_inputs.c - libFuzzer target for the parsers of outside input other
 * than the model file: netvar.conf with its rules, the --netvar values as
 * job_submit sees them, app names from batch scripts, `tc -j` JSON (with
 * the host CPU counters the lab's sampler reads beside it: /proc/stat and
 * cgroup cpu.stat text), and
 * segment profiles (written by users' own ranks), sacct lines and other
 * tools' AdminComment text, campaign --bottleneck specs (with the PAPI
 * events an Aries tile names), and the host lists a user gives sbatch
 * (--nodelist, --exclude) as job_submit expands them, and reads for
 * the leaf switches of a job that names its nodes, and Slurm's
 * topology.yaml.  The first byte picks the
 * parser; the rest is the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_identity.h"
#include "bottleneck.h"
#include "config.h"
#include "counters_topology.h"
#include "partitions.h"
#include "placement.h"
#include "acct_summary.h"
#include "ctr_hostcpu.h"
#include "ctr_qdisc.h"
#include "sacct_history.h"
#include "segment_profile.h"
#include "submit_options.h"
#include "topology_yaml.h"

static void ignore(void *ctx, const char *line)
{
    (void)ctx;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    switch (data[0] % 9) {
    case 0: {
        static struct nv_config c;
        nv_config_parse("fuzz.conf", text, &c, ignore, NULL);
        break;
    }
    case 1: {
        /* split into NUL-separated "environment" entries */
        const char *env[64];
        uint32_t n = 0;
        for (char *p = text; n < 64 && p < text + size - 1; p += strlen(p) + 1)
            env[n++] = p;
        struct nv_submit_options o;
        nv_submit_options_parse("", env, n, env, n, &o);
        nv_submit_options_parse("SPANK_", env, n, NULL, 0, &o);
        break;
    }
    case 2: {
        char key[80];
        nv_app_key_from_script(text, key, sizeof key);
        nv_app_key_from_name(text, key, sizeof key);
        break;
    }
    case 3: {
        nv_qdisc_stats q[8];
        char err[256];
        nv_qdisc_parse(text, size - 1, "uplink", q, 8, err, sizeof err);
        nv_qdisc_parse(text, size - 1, NULL, q, 8, err, sizeof err);
        nv_hostcpu_stat h;
        nv_cgcpu_stat c;
        if (nv_hostcpu_parse_stat(text, size - 1, &h, err, sizeof err) == 0) {
            nv_hostcpu_pct p;
            if (nv_hostcpu_delta(&h, &h, &p) != -1) /* no tick between equal readings */
                abort();
        }
        nv_cgcpu_parse(text, size - 1, &c, err, sizeof err);
        break;
    }
    case 4: {
        char path[] = "/tmp/netvar-fuzz-profile.XXXXXX";
        int fd = mkstemp(path);
        if (fd >= 0) {
            if (write(fd, text, size - 1) == (ssize_t)(size - 1)) {
                const char *paths[1] = {path};
                nv_seg_profile p;
                char err[256];
                if (nv_seg_profile_load(paths, 1, &p, err, sizeof err) == 0)
                    nv_seg_profile_free(&p);
            }
            close(fd);
            unlink(path);
        }
        break;
    }
    case 5: {
        nv_sacct_job j;
        char err[256], out[1024];
        if (nv_sacct_parse_line(text, &j, err, sizeof err) == 0)
            json_object_put(nv_sacct_job_record(&j, NULL, err, sizeof err));
        nv_acct_merge(text, "netvar:{\"v\":1}", out, sizeof out);
        nv_acct_prediction own;
        if (nv_acct_own_prediction(text, &own) != own.found ||
            strnlen(own.src, sizeof own.src) == sizeof own.src ||
            strnlen(own.claimed_src, sizeof own.claimed_src) == sizeof own.claimed_src)
            abort(); /* the sources stay terminated */
        break;
    }
    case 6: {
        nv_bn_spec s;
        char err[256], events[600];
        if (nv_bn_parse(text, &s, err, sizeof err) == 0)
            for (int i = 0; i < s.nports; i++)
                if (s.kind == NV_BN_ARIES && nv_bn_aries_events(s.port[i], events, sizeof events))
                    abort(); /* a port the parser took must name its events */
        break;
    }
    case 7: {
        char **names = NULL, err[200];
        long n = nv_hostlist_expand(text, &names, 8192, err, sizeof err);
        if (n > 8192)
            abort(); /* the bound job_submit relies on */
        if (n > 0)
            nv_hostlist_free(names, (size_t)n);
        static struct nv_partitions parts;
        if (!parts.n)
            nv_partitions_add(&parts, "batch", "n[1-64]", true, err, sizeof err);
        size_t total;
        long left = nv_partitions_nodes_left(&parts, NULL, "n1,n2", text, &total);
        if (left > 64 || (left >= 0 && total != 64))
            abort();
        static struct nv_leaf_map lm;
        if (!lm.n) {
            nv_topo t;
            nv_topo_init(&t);
            nv_topo_parse_slurm(&t, "SwitchName=s1 Nodes=n[1-32]\nSwitchName=s2 Nodes=n[33-64]\n",
                                "fuzz", err, sizeof err);
            nv_leaf_map_build(&lm, &t, err, sizeof err);
            nv_topo_free(&t);
        }
        struct nv_named_nodes nn;
        nv_named_nodes_read(&nn, text);
        for (size_t i = 1; i < nn.n; i++)
            if (strcmp(nn.name[i - 1], nn.name[i]) >= 0)
                abort(); /* sorted, each name once */
        if (nn.n && !nv_named_nodes_has(&nn, nn.name[nn.n / 2]))
            abort();
        struct nv_placement pl;
        nv_placement_of(&lm, &nn, 0, 0, &pl);
        nv_named_nodes_free(&nn);
        if (pl.leaves > 2 || (pl.leaves && (!pl.nodes || pl.nodes > 64)))
            abort(); /* two leaves hold the 64 nodes a placement can name */
        break;
    }
    case 8: { /* Slurm's topology.yaml, NUL bytes and all */
        nv_topo t;
        char err[512] = "";
        nv_topo_init(&t);
        int rc =
            nv_topo_parse_yaml(&t, (const char *)data + 1, size - 1, "fuzz.yaml", err, sizeof err);
        if (t.n > NV_TOPO_MAX_NODES || (rc != 0 && (!*err || strchr(err, '\n'))))
            abort(); /* bounded, and a refusal is one line */
        for (size_t i = 0; rc == 0 && i < t.n; i++)
            if (!*t.nodes[i].sw)
                abort(); /* a node is placed only under a switch or block */
        nv_topo_free(&t);
        break;
    }
    }
    free(text);
    return 0;
}
