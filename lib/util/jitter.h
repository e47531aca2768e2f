/* jitter.h - sampling instants that do not lock onto a periodic load.
 *
 * A sampler that reads a gauge (a queue's backlog) every fixed interval
 * sees a load whose period is near that interval, or a divisor of it, at
 * nearly the same phase on every read: a bursty load then reads as always
 * idle or always full, depending on where the first read fell (on the
 * network lab, CompressionB configurations with a burst every 50 or 100 ms
 * read 0.04 to 0.60 of their time busy in four runs of the same setting).
 * Drawing each gap uniformly from [interval/2, 3 interval/2) keeps the mean
 * rate and bounds every step, while the phase of the reads against any
 * period spreads out within a few steps, so the reads see the gauge's time
 * average.  Not for anything secret: a 64-bit mixer (splitmix64). */
#ifndef NV_JITTER_H
#define NV_JITTER_H

#include <stdint.h>

/* next value of the generator whose state is *s (any seed) */
static inline uint64_t nv_jitter_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* a gap in [mean_ns/2, mean_ns/2 + mean_ns), uniform, from the generator *s */
static inline uint64_t nv_jitter_gap_ns(uint64_t *s, uint64_t mean_ns)
{
    /* 53 bits of the draw as a fraction in [0, 1) */
    double f = (double)(nv_jitter_next(s) >> 11) * 0x1.0p-53;
    uint64_t off = (uint64_t)(f * (double)mean_ns);
    if (mean_ns && off >= mean_ns) /* rounding, for means beyond 2^53 ns */
        off = mean_ns - 1;
    return mean_ns / 2 + off;
}

#endif
