/* The simulator's PRNG: xoshiro256** seeded through splitmix64, so that one 64-bit seed
 * gives one reproducible stream on every platform. Per-iteration seeds are derived with
 * ts_rng_derive() so runs can execute in any order or in parallel and stay identical. */
#ifndef TOPOSCHED_SIM_RNG_H
#define TOPOSCHED_SIM_RNG_H

#include <stdint.h>

struct ts_rng {
	uint64_t s[4];
};

void ts_rng_seed(struct ts_rng *r, uint64_t seed);
uint64_t ts_rng_next(struct ts_rng *r);
/* Uniform in [0, n) without modulo bias (n > 0). */
uint64_t ts_rng_below(struct ts_rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double ts_rng_unit(struct ts_rng *r);
/* Exponentially distributed with the given mean (> 0). */
double ts_rng_exp(struct ts_rng *r, double mean);
/* A seed for sub-stream `index` of `seed` (e.g. configuration x load x iteration). */
uint64_t ts_rng_derive(uint64_t seed, uint64_t index);

#endif
