/* A log-linear histogram of nanosecond latencies (HdrHistogram's layout): values below
 * 2^SIM_HIST_SUB_BITS are exact, larger ones fall in one of 2^SIM_HIST_SUB_BITS equal
 * sub-buckets of their power of two, so a reported percentile is within 1/128 (0.8 %) of
 * the exact nearest-rank value. O(1) per sample, fixed memory, no sort. */
#ifndef TOPOSCHED_SIM_LATENCY_HIST_H
#define TOPOSCHED_SIM_LATENCY_HIST_H

#include <stdint.h>

#define SIM_HIST_SUB_BITS 7
#define SIM_HIST_SUB	  (1u << SIM_HIST_SUB_BITS)
#define SIM_HIST_BUCKETS  ((64 - SIM_HIST_SUB_BITS + 1) * SIM_HIST_SUB)

struct sim_hist {
	uint64_t count, max;
	uint64_t bucket[SIM_HIST_BUCKETS];
};

void sim_hist_add(struct sim_hist *h, uint64_t v);
/* Nearest-rank percentile q in (0, 1], ns: the midpoint of the bucket holding the sample
 * of rank ceil(q * count), capped at the largest sample; -1 when empty. */
double sim_hist_percentile(const struct sim_hist *h, double q);

#endif
