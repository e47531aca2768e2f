// rp_simgrid.cc - netvar-replay-sim: the flow-level network simulation of
// `netvar replay`, and the only program of netvar that uses SimGrid
// (tests/check_layers.py checks that).  It reads the batches lib/replay
// wrote (rp_flow_write) from FILE and prints, for every job of every
// batch, the simulated seconds of one communication phase: each rank sends
// the job's bytes to the rank half the job away, all at once, beside the
// other jobs of the batch.  The fabric has LEAVES leaf switches of
// PER_LEAF nodes and UPLINKS uplinks each, links of the given rate and
// latency (flow level: bandwidth sharing is simulated, queueing latency is
// not); it is built once for all the batches.
//
// Three ways to send a phase:
//  - by leaf pair on the fat-tree (the default): SimGrid's fat-tree zone
//    (SPLITDUPLEX links, static d-mod-k routes: a flow goes up the spine
//    its destination's index modulo the uplinks picks) and one SimGrid
//    parallel task (host/model:ptask_L07) per pair of leaves a job's flows
//    join.  Its rank flows from leaf A to leaf B that take the same spine
//    share every link but their nodes' own, so they are one entry of the
//    task, from one of their sources to one of their destinations with
//    their bytes summed; those two nodes' links carry nothing else and
//    have the shared links' rate, so they bind no tighter.  SimGrid's
//    ptask solver (bottleneck-fair) gives each task an equal share of a
//    link, whatever the number of flows it carries.
//  - --trunks: each leaf's uplinks as one trunk up and one down of UPLINKS
//    x the line rate (routing that spreads a leaf's flows perfectly),
//    SimGrid's star zone, network model CM02 (no cross traffic, no TCP
//    window).  The m rank flows of a job from leaf A to leaf B are one comm
//    of m x the bytes from a sender whose own link is m x the line rate
//    (the nodes' links) and whose latency WEIGHT_S / m makes CM02's
//    max-min count the comm as its m flows.  Much cheaper, but without the
//    collisions of static routes.
//  - --per-rank: the fat-tree zone, network model LV08, one comm per rank:
//    the reference the others are checked against (test_replay_smoke).
//    Its cost grows with the square of the comms in flight (SimGrid 3.32
//    searches a list of comms each time one ends), so it is for small
//    cases.
// In the first two, flows inside one leaf are left out when others cross
// leaves: on the two-level tree they cross no uplink, and since each node
// sends one flow and receives one they never contend nor outlast the
// job's flows across leaves.
//
// Input:  "fabric LEAVES PER_LEAF UPLINKS BYTES_PER_S LATENCY_S", then
//         "batch ID K" and K lines "job ID BYTES N NODE...".
// Output: "BATCH JOB SECONDS" per job.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace
{

struct Job {
    unsigned long id = 0;
    double bytes = 0;
    std::vector<unsigned> node;
};
struct Batch {
    long id = 0;
    std::vector<Job> job;
};

std::vector<sg4::Host *> hosts;
sg4::Host *home = nullptr;
std::vector<Batch> batches;
unsigned per_leaf_g = 1, uplinks_g = 1;
struct Flow {
    unsigned src = 0, dst = 0;
    double bytes = 0;
};
constexpr size_t PART = 32;
enum class Mode { TASKS, TRUNKS, PER_RANK };
Mode mode = Mode::TASKS;

void run_per_rank(const Job *j)
{
    std::vector<sg4::CommPtr> comms;
    size_t n = j->node.size();
    for (size_t i = 0; i < n; i++) {
        size_t d = (i + n / 2) % n;
        if (d == i || j->node[i] == j->node[d])
            continue;
        comms.push_back(
            sg4::Comm::sendto_async(hosts[j->node[i]], hosts[j->node[d]], (uint64_t)j->bytes));
    }
    sg4::Comm::wait_all(comms);
}

// one parallel task: entries (source host, destination host, bytes)
sg4::ExecPtr start_task(const std::vector<Flow> &fl)
{
    std::vector<sg4::Host *> hs;
    size_t h = 2 * fl.size();
    std::vector<double> amount(h * h, 0.0);
    for (size_t k = 0; k < fl.size(); k++) {
        hs.push_back(hosts[fl[k].src]);
        hs.push_back(hosts[fl[k].dst]);
        amount[2 * k * h + 2 * k + 1] = fl[k].bytes;
    }
    sg4::ExecPtr e = sg4::Exec::init();
    e->set_hosts(hs);
    e->set_flops_amounts(std::vector<double>(h, 0.0));
    e->set_bytes_amounts(amount);
    e->start();
    return e;
}

// The rank flows of a job from leaf A to leaf B that go up through the
// same spine (SimGrid's d-mod-k: the destination's index mod the uplinks)
// share every link but their nodes' own: they are one entry, from one of
// their sources to one of their destinations, with their bytes summed.
// Those two nodes' links carry nothing else (each node sends one flow and
// receives one, and belongs to one job) and have the rate of the shared
// links, so they bind no tighter than the spine links do.
void run_aggregated(const Job *j)
{
    size_t n = j->node.size();
    std::map<std::pair<unsigned, unsigned>, std::map<unsigned, Flow>> cls, in_leaf;
    for (size_t i = 0; i < n; i++) {
        size_t d = (i + n / 2) % n;
        if (d == i || j->node[i] == j->node[d])
            continue;
        unsigned a = j->node[i] / per_leaf_g, b = j->node[d] / per_leaf_g;
        Flow &f = (a == b ? in_leaf : cls)[{a, b}][a == b ? j->node[i] : j->node[d] % uplinks_g];
        if (f.bytes == 0)
            f.src = j->node[i], f.dst = j->node[d];
        f.bytes += j->bytes;
    }
    if (cls.empty())
        cls.swap(in_leaf);
    std::vector<sg4::ExecPtr> tasks;
    std::vector<Flow> part;
    for (auto &c : cls) {
        for (auto &f : c.second) {
            part.push_back(f.second);
            if (part.size() == PART) {
                tasks.push_back(start_task(part));
                part.clear();
            }
        }
        if (!part.empty()) {
            tasks.push_back(start_task(part));
            part.clear();
        }
    }
    for (auto &t : tasks)
        t->wait();
}

std::vector<sg4::Host *> leaf_host, send_host;
// CM02 shares a link among comms in inverse proportion to their route's
// latency (weight-S 0); a sender of m flows has a latency of WEIGHT_S / m
// of its own and the trunks none, so each comm counts as its m flows
constexpr double WEIGHT_S = 1e-6;
double link_bw = 0;

// one comm per (source leaf, destination leaf): m rank flows, m x bytes,
// at most m x the line rate (their nodes' links), over the two leaves'
// trunks of uplinks x the line rate
void run_trunk(const Job *j)
{
    size_t n = j->node.size();
    std::map<std::pair<unsigned, unsigned>, unsigned> cls;
    for (size_t i = 0; i < n; i++) {
        size_t d = (i + n / 2) % n;
        if (d == i || j->node[i] == j->node[d])
            continue;
        unsigned a = j->node[i] / per_leaf_g, b = j->node[d] / per_leaf_g;
        if (a != b)
            cls[{a, b}]++;
    }
    std::vector<sg4::CommPtr> comms;
    for (auto &c : cls) {
        sg4::CommPtr m = sg4::Comm::sendto_init();
        m->set_source(send_host[(size_t)c.first.first * per_leaf_g + c.second - 1]);
        m->set_payload_size((uint64_t)(j->bytes * c.second));
        m->set_destination(leaf_host[c.first.second]); /* both ends set: it starts */
        comms.push_back(m);
    }
    if (comms.empty()) /* no flow across leaves: one node link's time */
        sg4::this_actor::sleep_for(j->bytes / link_bw);
    sg4::Comm::wait_all(comms);
}

void run_job(const Job *j, double t0, long batch)
{
    if (mode == Mode::PER_RANK)
        run_per_rank(j);
    else if (mode == Mode::TRUNKS)
        run_trunk(j);
    else
        run_aggregated(j);
    double s = sg4::Engine::get_clock() - t0;
    std::printf("%ld %lu %.9g\n", batch, j->id, s > 0 ? s : 1e-9);
}

void driver()
{
    for (const Batch &b : batches) {
        double t0 = sg4::Engine::get_clock();
        std::vector<sg4::ActorPtr> actors;
        for (const Job &j : b.job)
            actors.push_back(sg4::Actor::create("job", home, run_job, &j, t0, b.id));
        for (auto &a : actors)
            a->join();
    }
    std::fflush(stdout);
}

int fail(const char *file, long line, const char *why)
{
    std::fprintf(stderr, "netvar: replay-sim: %s:%ld: %s; nothing simulated\n", file, line, why);
    return 1;
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
    const char *file = argv[1 + opt];
    std::ifstream in(file);
    if (!in)
        return fail(file, 0, "cannot be read");
    std::string line;
    long no = 0;
    unsigned leaves = 0, per_leaf = 0, uplinks = 0;
    double bw = 0, lat = 0;
    while (std::getline(in, line)) {
        no++;
        std::istringstream ls(line);
        std::string word;
        ls >> word;
        if (word == "fabric") {
            if (!(ls >> leaves >> per_leaf >> uplinks >> bw >> lat) || leaves < 1 || per_leaf < 1 ||
                uplinks < 1 || leaves * per_leaf > 200000 || !(bw > 0) || !(lat >= 0))
                return fail(file, no,
                            "not \"fabric LEAVES PER_LEAF UPLINKS BYTES_PER_S LATENCY_S\"");
        } else if (word == "batch") {
            Batch b;
            if (!(ls >> b.id))
                return fail(file, no, "not \"batch ID K\"");
            batches.push_back(std::move(b));
        } else if (word == "job") {
            Job j;
            size_t n = 0;
            if (batches.empty() || !leaves || !(ls >> j.id >> j.bytes >> n) || n > 200000 ||
                !(j.bytes >= 0))
                return fail(file, no, "a job line before its fabric and batch, or malformed");
            j.node.resize(n);
            for (size_t k = 0; k < n; k++)
                if (!(ls >> j.node[k]) || j.node[k] >= leaves * per_leaf)
                    return fail(file, no, "a node outside the fabric");
            batches.back().job.push_back(std::move(j));
        } else if (!word.empty())
            return fail(file, no, "unknown line");
    }
    if (!leaves)
        return fail(file, no, "no fabric line");

    per_leaf_g = per_leaf;
    uplinks_g = uplinks;
    link_bw = bw;
    if (mode == Mode::TRUNKS) {
        int eargc = 5;
        char arg0[] = "netvar-replay-sim", quiet[] = "--log=root.thres:critical",
             model[] = "--cfg=network/model:CM02", gamma[] = "--cfg=network/TCP-gamma:0",
             cross[] = "--cfg=network/crosstraffic:0";
        char *eargv[] = {arg0, quiet, model, gamma, cross, nullptr};
        sg4::Engine e(&eargc, eargv);
        sg4::NetZone *z = sg4::create_star_zone("fabric");
        for (unsigned l = 0; l < leaves; l++) {
            std::string ls = std::to_string(l);
            const sg4::Link *up = z->create_link("up" + ls, bw * uplinks)->seal();
            const sg4::Link *down = z->create_link("down" + ls, bw * uplinks)->seal();
            sg4::Host *h = z->create_host("l" + ls, 1e9)->seal();
            z->add_route(nullptr, h->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(down)},
                         false);
            leaf_host.push_back(h);
            // senders of m flows: their own weight link first (see run_trunk)
            for (unsigned m = 1; m <= per_leaf; m++) {
                std::string ms = ls + "_" + std::to_string(m);
                const sg4::Link *w = z->create_link("w" + ms, bw * m)
                                         ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                                         ->set_latency(WEIGHT_S / m)
                                         ->seal();
                sg4::Host *s = z->create_host("s" + ms, 1e9)->seal();
                z->add_route(s->get_netpoint(), nullptr, nullptr, nullptr,
                             {sg4::LinkInRoute(w), sg4::LinkInRoute(up)}, false);
                send_host.push_back(s);
            }
        }
        z->seal();
        home = leaf_host[0];
        sg4::Actor::create("driver", home, driver);
        e.run();
        return 0;
    }
    int eargc = 3;
    char arg0[] = "netvar-replay-sim", quiet[] = "--log=root.thres:critical",
         ptask[] = "--cfg=host/model:ptask_L07";
    char *eargv[] = {arg0, quiet, ptask, nullptr};
    if (mode == Mode::PER_RANK)
        eargv[--eargc] = nullptr;
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
    return 0;
}
