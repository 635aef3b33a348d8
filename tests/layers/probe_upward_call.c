/* Built as if it were part of core, it calls the simulator's PRNG: check_layers must refuse. */
#include <stdint.h>

struct ts_rng;
void ts_rng_seed(struct ts_rng *r, uint64_t seed);
void ts_layer_probe_upward_call(void);

void ts_layer_probe_upward_call(void)
{
	ts_rng_seed(0, 1);
}
