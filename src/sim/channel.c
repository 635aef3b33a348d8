#include "channel.h"

#include <errno.h>
#include <stdlib.h>

int sim_chan_push(struct sim_channel *ch, struct sim_msg m)
{
	if (ch->count == ch->ring_cap) {
		uint32_t ncap = ch->ring_cap ? ch->ring_cap * 2 : 4;
		if (ncap < ch->ring_cap)
			return -ENOMEM;
		struct sim_msg *n = malloc((size_t)ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		/* unroll the ring so that head is 0 */
		for (uint32_t i = 0; i < ch->count; i++)
			n[i] = ch->ring[(ch->head + i) % ch->ring_cap];
		free(ch->ring);
		ch->ring = n;
		ch->ring_cap = ncap;
		ch->head = 0;
	}
	ch->ring[(ch->head + ch->count) % ch->ring_cap] = m;
	ch->count++;
	ch->bytes_queued += m.bytes;
	return 0;
}

bool sim_chan_pop(struct sim_channel *ch, struct sim_msg *m)
{
	if (!ch->count)
		return false;
	*m = ch->ring[ch->head];
	ch->head = (ch->head + 1) % ch->ring_cap;
	ch->count--;
	ch->bytes_queued -= m->bytes;
	return true;
}

void sim_chan_free(struct sim_channel *ch)
{
	free(ch->ring);
	ch->ring = NULL;
	ch->ring_cap = ch->head = ch->count = 0;
	ch->bytes_queued = 0;
}
