#include "latency_hist.h"

#include <math.h>

static unsigned int bucket_of(uint64_t v)
{
	if (v < SIM_HIST_SUB)
		return (unsigned int)v;
	unsigned int e = 63u - (unsigned int)__builtin_clzll(v); /* >= SUB_BITS */
	unsigned int sub = (unsigned int)(v >> (e - SIM_HIST_SUB_BITS)) & (SIM_HIST_SUB - 1);
	return ((e - SIM_HIST_SUB_BITS + 1) << SIM_HIST_SUB_BITS) + sub;
}

void sim_hist_add(struct sim_hist *h, uint64_t v)
{
	h->bucket[bucket_of(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

static double bucket_mid(unsigned int b)
{
	if (b < SIM_HIST_SUB)
		return b;
	unsigned int e = (b >> SIM_HIST_SUB_BITS) + SIM_HIST_SUB_BITS - 1;
	uint64_t sub = b & (SIM_HIST_SUB - 1);
	uint64_t width = UINT64_C(1) << (e - SIM_HIST_SUB_BITS);
	uint64_t low = (SIM_HIST_SUB + sub) << (e - SIM_HIST_SUB_BITS);
	return (double)low + (double)(width - 1) / 2.0;
}

double sim_hist_percentile(const struct sim_hist *h, double q)
{
	if (!h->count)
		return -1;
	uint64_t rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	uint64_t seen = 0;
	for (unsigned int b = 0; b < SIM_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			double v = bucket_mid(b);
			return v > (double)h->max ? (double)h->max : v;
		}
	}
	return (double)h->max;
}
