#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ts_rng_next(struct ts_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t ts_rng_below(struct ts_rng *r, uint64_t n)
{
	/* Rejection sampling: values in the last incomplete block of n would be biased. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;
	do
		v = ts_rng_next(r);
	while (v >= limit);
	return v % n;
}

double ts_rng_unit(struct ts_rng *r)
{
	return (double)(ts_rng_next(r) >> 11) * 0x1.0p-53;
}

double ts_rng_exp(struct ts_rng *r, double mean)
{
	return -mean * log1p(-ts_rng_unit(r));
}

uint64_t ts_rng_derive(uint64_t seed, uint64_t index)
{
	uint64_t x = seed ^ (index * 0xD1B54A32D192ED03ull);
	splitmix64(&x);
	return splitmix64(&x);
}
