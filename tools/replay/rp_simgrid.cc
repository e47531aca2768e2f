// rp_simgrid.cc - netvar-replay-sim: the flow-level network simulation of
// `netvar replay`, and the only program of netvar that uses SimGrid
// (tests/check_layers.py checks that).  It reads the batches lib/replay
// wrote (rp_flow_write) from FILE and prints, for every job of every
// batch, the simulated seconds of one communication phase: each rank sends
// the job's bytes to the rank half the job away, beside the other jobs of
// the batch.  The fabric has LEAVES leaf switches of PER_LEAF nodes and
// UPLINKS uplinks each, links of the given rate and latency (flow level:
// bandwidth sharing is simulated, queueing latency is not); it is built
// once for all the batches.
//
// Every job of a batch starts its phase at once, and SimGrid's max-min
// sharing per flow (network model CM02, no cross traffic, no TCP window)
// runs it to its end: a job's phase is over when its last flow is through,
// and a light job's flows, through early, stop loading the links they
// shared.  (Rates of the steady state alone, every job sending for ever,
// are cheaper but wrong beside a light neighbour: replayed against the
// lab, a neighbour at U 0.03 then takes a full share and the victims'
// error grew from 10 to 38 pp.)
//
// A job's flows that cross the same links are one comm of its m flows:
// it comes from a sender of m flows, whose own link is m x the line rate
// (their nodes' links, FATPIPE) with a latency of WEIGHT_S / m, which
// makes CM02's max-min (shares in inverse proportion to the route's
// latency) count it as its m flows.  Two ways to route them, both in a
// SimGrid star zone:
//  - d-mod-k (the default), the static routes of SimGrid's fat-tree zone:
//    a flow from leaf A to a node of index D under leaf B climbs spine
//    D mod UPLINKS, over A's link up to it and its link down to B, each at
//    the line rate; a class is (A, B, spine).
//  - --trunks: each leaf's uplinks as one trunk up and one down of UPLINKS
//    x the line rate (routing that spreads a leaf's flows perfectly); a
//    class is (A, B).
// Flows inside one leaf are left out when others cross leaves: on the
// two-level tree they cross no uplink, and since each node sends one flow
// and receives one they never contend nor outlast the job's flows across
// leaves.
//  - --per-rank: SimGrid's own fat-tree zone, network model LV08, one comm
//    per rank flow, inside a leaf too, for small cases.  LV08 weighs a flow
//    by its route and scales bandwidth by 0.97, so it agrees with the
//    others on ratios where the flows that meet have alike routes
//    (test_replay_smoke).
//
// Input:  "fabric LEAVES PER_LEAF UPLINKS BYTES_PER_S LATENCY_S [PRECISION_S]"
//         (SimGrid's timing precision: events closer than it are one;
//         default 1e-9 s, SimGrid's own), then
//         "def ID BYTES N NODES..." once per job (NODES as N indices, a run
//         of them as FIRST-LAST), and "batch ID K JOB..." naming K defined
//         jobs.  Batches are simulated as they are read.
// Output: "BATCH JOB SECONDS" per job of every batch.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace
{

// a job's rank flows that cross the same links, built once per job: from
// leaf a to leaf b (over spine k with d-mod-k routes), m of them; per
// rank, one flow from host a to host b
struct Part {
    unsigned a = 0, b = 0, k = 0, m = 1;
};
struct Job {
    double bytes = 0;
    std::vector<unsigned> node;
    bool built = false;
    std::vector<Part> part;
};

std::vector<sg4::Host *> hosts;
sg4::Host *home = nullptr;
std::unordered_map<unsigned long, Job> jobs;
unsigned per_leaf_g = 1, uplinks_g = 1, nslots_g = 1, mmax_g = 1;
double link_bw = 0;
constexpr size_t PART = 32;
enum class Mode { DMODK, TRUNKS, PER_RANK };
Mode mode = Mode::DMODK;
const char *file_g = "";

void build_per_rank(Job &j)
{
    size_t n = j.node.size();
    for (size_t i = 0; i < n; i++) {
        size_t d = (i + n / 2) % n;
        if (d == i || j.node[i] == j.node[d])
            continue;
        j.part.push_back({j.node[i], j.node[d], 0, 1});
    }
}

// d-mod-k: a rank flow from leaf A to a node of index D under leaf B climbs
// spine D mod UPLINKS, over A's up link to that spine and down its link to
// B.  The flows of a job from A to B on spine k are one comm of m x the
// bytes from A's sender of m flows on k to B's receiver on k.
void build_dmodk(Job &j)
{
    size_t n = j.node.size();
    std::map<std::tuple<unsigned, unsigned, unsigned>, unsigned> cls;
    for (size_t i = 0; i < n; i++) {
        size_t d = (i + n / 2) % n;
        if (d == i || j.node[i] == j.node[d])
            continue;
        unsigned a = j.node[i] / per_leaf_g, b = j.node[d] / per_leaf_g;
        if (a != b)
            cls[{a, b, j.node[d] % uplinks_g}]++;
    }
    for (auto &c : cls) {
        auto [a, b, k] = c.first;
        unsigned m = c.second;
        if (m > mmax_g) {
            std::fprintf(stderr, "netvar: replay-sim: %u flows on one spine, over %u\n", m, mmax_g);
            std::exit(1);
        }
        j.part.push_back({a, b, k, m});
    }
}

// the star zone's senders and receivers of the two uplink models
std::vector<sg4::Host *> recv_host, send_host;
// CM02 shares a link among comms in inverse proportion to their route's
// latency (weight-S 0); a sender of m flows has a latency of WEIGHT_S / m
// of its own and the trunks none, so each comm counts as its m flows
constexpr double WEIGHT_S = 1e-6;

// one comm per (source leaf, destination leaf): m rank flows, m x bytes,
// at most m x the line rate (their nodes' links), over the two leaves'
// trunks of uplinks x the line rate
void build_trunks(Job &j)
{
    size_t n = j.node.size();
    std::map<std::pair<unsigned, unsigned>, unsigned> cls;
    for (size_t i = 0; i < n; i++) {
        size_t d = (i + n / 2) % n;
        if (d == i || j.node[i] == j.node[d])
            continue;
        unsigned a = j.node[i] / per_leaf_g, b = j.node[d] / per_leaf_g;
        if (a != b)
            cls[{a, b}]++;
    }
    for (auto &c : cls) {
        j.part.push_back({c.first.first, c.first.second, 0, c.second});
    }
}

void build(Job &j)
{
    if (j.built)
        return;
    j.built = true;
    if (!(j.bytes > 0))
        return; /* nothing to send: it loads no link */
    if (mode == Mode::PER_RANK)
        build_per_rank(j);
    else if (mode == Mode::TRUNKS)
        build_trunks(j);
    else
        build_dmodk(j);
}

// A job's phase: one comm per class of its flows (m flows from leaf a to
// leaf b, on spine k), of m x its bytes, from a sender of m flows; the phase
// ends when the last is through.  Per rank, one comm per flow.
void start_job(const Job &j, std::vector<sg4::CommPtr> &comms)
{
    for (const Part &p : j.part) {
        sg4::Host *src, *dst;
        if (mode == Mode::PER_RANK) {
            src = hosts[p.a];
            dst = hosts[p.b];
        } else if (mode == Mode::TRUNKS) {
            src = send_host[(size_t)p.a * per_leaf_g + p.m - 1];
            dst = recv_host[p.b];
        } else {
            src = send_host[((size_t)p.a * uplinks_g + p.k) * mmax_g + p.m - 1];
            dst = recv_host[(size_t)p.b * uplinks_g + p.k];
        }
        sg4::CommPtr c = sg4::Comm::sendto_init();
        c->set_source(src);
        c->set_payload_size((uint64_t)(j.bytes * p.m));
        c->set_destination(dst); /* both ends set: it starts */
        comms.push_back(c);
    }
}

// Every job of the batch starts its phase at once; the driver waits for
// every comm, and a job's time is its last comm's finish.  (One actor for
// the batch: an actor per job costs a context each, 29 % more time for the
// same answers.)  A job with no flow across leaves takes one node link's
// time.
void run_batch(long id, const std::vector<unsigned long> &ids)
{
    double t0 = sg4::Engine::get_clock();
    std::vector<sg4::CommPtr> comms;
    std::vector<size_t> first(ids.size() + 1);
    for (size_t q = 0; q < ids.size(); q++) {
        Job &j = jobs.at(ids[q]);
        build(j);
        first[q] = comms.size();
        start_job(j, comms);
    }
    first[ids.size()] = comms.size();
    for (auto &c : comms)
        c->wait();
    for (size_t q = 0; q < ids.size(); q++) {
        double s = first[q] == first[q + 1] ? jobs.at(ids[q]).bytes / link_bw : 0;
        for (size_t k = first[q]; k < first[q + 1]; k++)
            s = std::max(s, comms[k]->get_finish_time() - t0);
        std::printf("%ld %lu %.9g\n", id, ids[q], s > 0 ? s : 1e-9);
    }
}

int fail(const char *file, long line, const char *why)
{
    std::fprintf(stderr, "netvar: replay-sim: %s:%ld: %s; nothing more simulated\n", file, line,
                 why);
    return 1;
}

// "FIRST" or "FIRST-LAST" runs into j.node; false on a malformed one
bool read_nodes(std::istringstream &ls, size_t n, Job &j)
{
    std::string tok;
    while (j.node.size() < n && ls >> tok) {
        char *e = nullptr;
        unsigned long a = std::strtoul(tok.c_str(), &e, 10), b = a;
        if (e == tok.c_str())
            return false;
        if (*e == '-') {
            const char *s = e + 1;
            b = std::strtoul(s, &e, 10);
            if (e == s || b < a)
                return false;
        }
        if (*e || b >= nslots_g || j.node.size() + (b - a + 1) > n)
            return false;
        for (unsigned long x = a; x <= b; x++)
            j.node.push_back((unsigned)x);
    }
    std::string extra;
    return j.node.size() == n && !(ls >> extra);
}

std::ifstream in_g;
long line_g = 0;
int rc_g = 0;

void driver()
{
    std::string line;
    while (std::getline(in_g, line)) {
        line_g++;
        std::istringstream ls(line);
        std::string word;
        ls >> word;
        if (word == "def") {
            unsigned long id = 0;
            size_t n = 0;
            Job j;
            if (!(ls >> id >> j.bytes >> n) || n > 200000 || !(j.bytes >= 0) ||
                !std::isfinite(j.bytes) || !read_nodes(ls, n, j) || jobs.count(id)) {
                rc_g = fail(file_g, line_g,
                            "not \"def ID BYTES N NODES...\" of N nodes inside the fabric, or "
                            "an ID defined twice");
                break;
            }
            jobs.emplace(id, std::move(j));
        } else if (word == "batch") {
            long id = 0;
            size_t k = 0;
            std::vector<unsigned long> ids;
            unsigned long x;
            if (!(ls >> id >> k) || k > 2000000) {
                rc_g = fail(file_g, line_g, "not \"batch ID K JOB...\"");
                break;
            }
            while (ids.size() < k && ls >> x && jobs.count(x))
                ids.push_back(x);
            std::string extra;
            if (ids.size() != k || ls >> extra) {
                rc_g = fail(file_g, line_g, "a batch that names other than K defined jobs");
                break;
            }
            run_batch(id, ids);
        } else if (!word.empty()) {
            rc_g = fail(file_g, line_g, "unknown line");
            break;
        }
    }
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    int opt = argc == 3 ? 1 : 0;
    if (opt && !std::strcmp(argv[1], "--per-rank"))
        mode = Mode::PER_RANK;
    else if (opt && !std::strcmp(argv[1], "--trunks"))
        mode = Mode::TRUNKS;
    else if (opt)
        argc = 0;
    if (argc != 2 + opt) {
        std::fprintf(stderr, "usage: netvar-replay-sim [--trunks | --per-rank] FILE (written by "
                             "netvar replay)\n");
        return 2;
    }
    file_g = argv[1 + opt];
    in_g.open(file_g);
    if (!in_g)
        return fail(file_g, 0, "cannot be read");
    std::string line;
    unsigned leaves = 0, per_leaf = 0, uplinks = 0;
    double bw = 0, lat = 0, prec = 1e-9; /* SimGrid's own default */
    while (!leaves && std::getline(in_g, line)) {
        line_g++;
        std::istringstream ls(line);
        std::string word, ptok, extra;
        ls >> word;
        if (word.empty())
            continue;
        bool ok = word == "fabric" && (ls >> leaves >> per_leaf >> uplinks >> bw >> lat);
        if (ok && ls >> ptok) { /* the optional precision */
            char *e = nullptr;
            prec = std::strtod(ptok.c_str(), &e);
            ok = *e == 0 && prec > 0 && prec < 1 && !(ls >> extra);
        }
        if (!ok || leaves < 1 || per_leaf < 1 || uplinks < 1 ||
            (size_t)leaves * per_leaf > 200000 || !(bw > 0) || !(lat >= 0) || !(lat < 1))
            return fail(file_g, line_g,
                        "not first \"fabric LEAVES PER_LEAF UPLINKS BYTES_PER_S LATENCY_S "
                        "[PRECISION_S]\"");
    }
    if (!leaves)
        return fail(file_g, line_g, "no fabric line");

    per_leaf_g = per_leaf;
    uplinks_g = uplinks;
    nslots_g = leaves * per_leaf;
    link_bw = bw;
    if (mode != Mode::PER_RANK) {
        int eargc = 6;
        char arg0[] = "netvar-replay-sim", quiet[] = "--log=root.thres:critical",
             model[] = "--cfg=network/model:CM02", gamma[] = "--cfg=network/TCP-gamma:0",
             cross[] = "--cfg=network/crosstraffic:0", timing[64];
        std::snprintf(timing, sizeof timing, "--cfg=surf/precision:%.6g", prec);
        char *eargv[] = {arg0, quiet, model, gamma, cross, timing, nullptr};
        sg4::Engine e(&eargc, eargv);
        sg4::NetZone *z = sg4::create_star_zone("fabric");
        // a sender of m flows: its own weight link first (see WEIGHT_S),
        // then the link up from its leaf
        auto sender = [&](const std::string &name, unsigned m, const sg4::Link *up) {
            const sg4::Link *w = z->create_link("w" + name, bw * m)
                                     ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                                     ->set_latency(WEIGHT_S / m)
                                     ->seal();
            sg4::Host *s = z->create_host("s" + name, 1e9)->seal();
            z->add_route(s->get_netpoint(), nullptr, nullptr, nullptr,
                         {sg4::LinkInRoute(w), sg4::LinkInRoute(up)}, false);
            send_host.push_back(s);
        };
        auto receiver = [&](const std::string &name, const sg4::Link *down) {
            sg4::Host *h = z->create_host("r" + name, 1e9)->seal();
            z->add_route(nullptr, h->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(down)},
                         false);
            recv_host.push_back(h);
        };
        /* at most this many of a leaf's flows to one leaf share a spine */
        mmax_g = (per_leaf + uplinks - 1) / uplinks;
        for (unsigned l = 0; l < leaves; l++) {
            std::string ls = std::to_string(l);
            if (mode == Mode::TRUNKS) { /* the leaf's uplinks as one trunk each way */
                const sg4::Link *up = z->create_link("up" + ls, bw * uplinks)->seal();
                const sg4::Link *down = z->create_link("down" + ls, bw * uplinks)->seal();
                receiver(ls, down);
                for (unsigned m = 1; m <= per_leaf; m++)
                    sender(ls + "_" + std::to_string(m), m, up);
                continue;
            }
            for (unsigned k = 0; k < uplinks; k++) { /* its link to spine k, each way */
                std::string lk = ls + "_" + std::to_string(k);
                const sg4::Link *up = z->create_link("up" + lk, bw)->seal();
                const sg4::Link *down = z->create_link("down" + lk, bw)->seal();
                receiver(lk, down);
                for (unsigned m = 1; m <= mmax_g; m++)
                    sender(lk + "_" + std::to_string(m), m, up);
            }
        }
        z->seal();
        home = recv_host[0];
        sg4::Actor::create("driver", home, driver);
        e.run();
        return rc_g;
    }
    int eargc = 3;
    char arg0[] = "netvar-replay-sim", quiet[] = "--log=root.thres:critical", timing[64];
    std::snprintf(timing, sizeof timing, "--cfg=surf/precision:%.6g", prec);
    char *eargv[] = {arg0, quiet, timing, nullptr};
    sg4::Engine e(&eargc, eargv);
    sg4::FatTreeParams params(2, {per_leaf, leaves}, {1, uplinks}, {1, 1});
    auto host_cb = [](sg4::NetZone *zone, const std::vector<unsigned long> &, unsigned long id)
        -> std::pair<simgrid::kernel::routing::NetPoint *, simgrid::kernel::routing::NetPoint *> {
        sg4::Host *h = zone->create_host("n" + std::to_string(id), 1e9)->seal();
        return {h->get_netpoint(), nullptr};
    };
    sg4::NetZone *z =
        sg4::create_fatTree_zone("fabric", nullptr, params, sg4::ClusterCallbacks(host_cb), bw, lat,
                                 sg4::Link::SharingPolicy::SPLITDUPLEX);
    z->seal();
    hosts.resize((size_t)leaves * per_leaf);
    for (size_t i = 0; i < hosts.size(); i++)
        hosts[i] = e.host_by_name("n" + std::to_string(i));
    home = hosts[0];
    sg4::Actor::create("driver", home, driver);
    e.run();
    return rc_g;
}
