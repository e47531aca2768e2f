// rp_simgrid.cc - netvar-replay-sim: the flow-level network simulation of
// `netvar replay`, and the only program of netvar that uses SimGrid
// (tests/check_layers.py checks that).  It reads the batches lib/replay
// wrote (rp_flow_write) from FILE and prints, for every job of every
// batch, the simulated seconds of one communication phase: each rank sends
// the job's bytes to the rank half the job away, all at once, beside the
// other jobs of the batch.  The fabric is SimGrid's fat-tree zone with
// LEAVES leaf switches of PER_LEAF nodes and UPLINKS uplinks each, links
// of the given rate and latency (flow level: bandwidth sharing is
// simulated, queueing latency is not).
//
// Input:  "fabric LEAVES PER_LEAF UPLINKS BYTES_PER_S LATENCY_S", then
//         "batch ID K" and K lines "job ID BYTES N NODE...".
// Output: "BATCH JOB SECONDS" per job.
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

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

void run_job(const Job *j, double t0, long batch)
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
    if (argc != 2) {
        std::fprintf(stderr, "usage: netvar-replay-sim FILE (written by netvar replay)\n");
        return 2;
    }
    const char *file = argv[1];
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
                return fail(file, no, "not \"fabric LEAVES PER_LEAF UPLINKS BYTES_PER_S LATENCY_S\"");
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

    int eargc = 2;
    char arg0[] = "netvar-replay-sim", quiet[] = "--log=root.thres:critical";
    char *eargv[] = {arg0, quiet, nullptr};
    sg4::Engine e(&eargc, eargv);
    sg4::FatTreeParams params(2, {per_leaf, leaves}, {1, uplinks}, {1, 1});
    auto host_cb = [](sg4::NetZone *zone, const std::vector<unsigned long> &,
                      unsigned long id) -> std::pair<simgrid::kernel::routing::NetPoint *,
                                                     simgrid::kernel::routing::NetPoint *> {
        sg4::Host *h = zone->create_host("n" + std::to_string(id), 1e9)->seal();
        return {h->get_netpoint(), nullptr};
    };
    sg4::NetZone *z = sg4::create_fatTree_zone("fabric", nullptr, params, sg4::ClusterCallbacks(host_cb), bw, lat,
                                               sg4::Link::SharingPolicy::SPLITDUPLEX);
    z->seal();
    hosts.resize((size_t)leaves * per_leaf);
    for (size_t i = 0; i < hosts.size(); i++)
        hosts[i] = e.host_by_name("n" + std::to_string(i));
    sg4::Actor::create("driver", hosts[0], driver);
    e.run();
    return 0;
}
