// rp_simgrid.cc - netvar-replay-sim: the flow-level network simulation of
// `netvar replay`, and the only program of netvar that uses SimGrid
// (tests/check_layers.py checks that).  It reads the batches lib/replay
// wrote (rp_flow_write) from FILE and prints, for every job of every
// batch, the simulated seconds of one communication phase: each rank sends
// the job's bytes to the rank half the job away, all at once, beside the
// other jobs of the batch.  The fabric is SimGrid's fat-tree zone with
// LEAVES leaf switches of PER_LEAF nodes and UPLINKS uplinks each, links
// of the given rate and latency (flow level: bandwidth sharing is
// simulated, queueing latency is not), built once for all the batches.
//
// Two ways to send a phase (the same fat-tree, the same d-mod-k routes):
//  - aggregated (the default): the rank flows of a job between one pair of
//    leaves go as one SimGrid parallel task (host/model:ptask_L07) whose
//    byte matrix holds those flows, at most PART flows a task.  Each flow
//    still takes its own route and its own host links; the task's flows
//    progress together, and tasks sharing a link get bandwidth in
//    proportion to the bytes they put on it (flows of equal size: equal
//    shares, as per-rank TCP-like sharing gives).  Flows inside one leaf
//    are left out: on the two-level tree they cross no uplink, each node
//    sends one and receives one, so they never contend and never end
//    after the job's slowest flow across leaves.
//  - --per-rank: one SimGrid comm per rank (network model LV08), the
//    reference the aggregated way is checked against (test_replay_smoke).
//    Its cost grows with the square of the flows in flight (SimGrid 3.32
//    searches a list of comms at each end), so it is for small cases.
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
std::vector<Batch> batches;
unsigned per_leaf_g = 1, uplinks_g = 1;
struct Flow {
    unsigned src = 0, dst = 0;
    double bytes = 0;
};
bool per_rank = false;
constexpr size_t PART = 32;

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

void run_job(const Job *j, double t0, long batch)
{
    if (per_rank)
        run_per_rank(j);
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
            actors.push_back(sg4::Actor::create("job", hosts[0], run_job, &j, t0, b.id));
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
    per_rank = argc == 3 && !std::strcmp(argv[1], "--per-rank");
    if (argc != 2 + per_rank) {
        std::fprintf(stderr,
                     "usage: netvar-replay-sim [--per-rank] FILE (written by netvar replay)\n");
        return 2;
    }
    const char *file = argv[1 + per_rank];
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
    int eargc = 3;
    char arg0[] = "netvar-replay-sim", quiet[] = "--log=root.thres:critical",
         ptask[] = "--cfg=host/model:ptask_L07";
    char *eargv[] = {arg0, quiet, ptask, nullptr};
    if (per_rank)
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
    sg4::Actor::create("driver", hosts[0], driver);
    e.run();
    return 0;
}
