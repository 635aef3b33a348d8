/* The ends of the CPUs' running work segments (the engine's DONE events), at most one per
 * CPU, in an indexed min-heap beside the event queue. A segment's end moves whenever its
 * CPU's speed rises (cpu_speed.c: every time a core of the package stops, with turbo
 * bins); here it moves in place. In the event queue each move left a cancelled event
 * behind, and popping those stale events cost more than the rest of the speed model.
 *
 * An end is ordered like an event, by (time, seq), and takes its seq from the event
 * queue's counter when it is set: the engine pops the earlier of the two heaps' first
 * entries, so the events fire in exactly the order one queue would give them. */
#ifndef TOPOSCHED_SIM_SEGMENT_ENDS_H
#define TOPOSCHED_SIM_SEGMENT_ENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event_queue.h"

/* An end is an event (time, seq, cpu; the engine makes it a DONE when it pops it), in a
 * heap ordered and shaped as the event queue's. */
struct sim_seg_ends {
	struct ts_event *heap; /* [count], the earliest first */
	int *pos;	       /* per CPU: its end's index in heap, -1 when none is set */
	int count;
};

/* Room for nr_cpus ends, none set. 0 or -ENOMEM. */
int sim_seg_ends_init(struct sim_seg_ends *q, int nr_cpus);
void sim_seg_ends_destroy(struct sim_seg_ends *q);
/* The heap order holds and pos names every set end and only those (tests, debug checks). */
bool sim_seg_ends_valid(const struct sim_seg_ends *q, int nr_cpus);

/* e moves up from index i to its place; pos follows. */
static inline void sim_seg_ends_sift_up(struct sim_seg_ends *q, int i, struct ts_event e)
{
	while (i > 0) {
		int parent = (i - 1) / TS_EQ_ARITY;
		if (!ts_eq_before(&e, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		q->pos[q->heap[i].cpu] = i;
		i = parent;
	}
	q->heap[i] = e;
	q->pos[e.cpu] = i;
}

/* e moves down from index i to its place; pos follows. A node with four children picks
 * the earliest in a two-round tournament, as the event queue does. */
static inline void sim_seg_ends_sift_down(struct sim_seg_ends *q, int i, struct ts_event e)
{
	struct ts_event *h = q->heap;
	int n = q->count, c;
	while ((c = TS_EQ_ARITY * i + 1) < n) {
		int m = c;
		if (c + TS_EQ_ARITY <= n) {
			m = (int)ts_eq_earliest_of_four(h, (size_t)c);
		} else {
			for (int k = c + 1; k < n; k++)
				if (ts_eq_before(&h[k], &h[m]))
					m = k;
		}
		if (!ts_eq_before(&h[m], &e))
			break;
		h[i] = h[m];
		q->pos[h[i].cpu] = i;
		i = m;
	}
	h[i] = e;
	q->pos[e.cpu] = i;
}

/* cpu's segment ends at (time, seq): set, or moved from where it was. */
static inline void sim_seg_ends_set(struct sim_seg_ends *q, int cpu, uint64_t time, uint64_t seq)
{
	struct ts_event e = {.time = time, .seq = seq, .cpu = cpu};
	int i = q->pos[cpu];
	if (i < 0) {
		sim_seg_ends_sift_up(q, q->count++, e);
		return;
	}
	if (ts_eq_before(&e, &q->heap[i]))
		sim_seg_ends_sift_up(q, i, e);
	else
		sim_seg_ends_sift_down(q, i, e);
}

/* The entry at index i leaves: the last one takes its place. */
static inline void sim_seg_ends_remove_at(struct sim_seg_ends *q, int i)
{
	q->pos[q->heap[i].cpu] = -1;
	struct ts_event last = q->heap[--q->count];
	if (i == q->count)
		return;
	if (i > 0 && ts_eq_before(&last, &q->heap[(i - 1) / TS_EQ_ARITY]))
		sim_seg_ends_sift_up(q, i, last);
	else
		sim_seg_ends_sift_down(q, i, last);
}

/* cpu's segment stopped before its end (no-op when none is set). */
static inline void sim_seg_ends_cancel(struct sim_seg_ends *q, int cpu)
{
	if (q->pos[cpu] >= 0)
		sim_seg_ends_remove_at(q, q->pos[cpu]);
}

/* The earliest end, or NULL. */
static inline const struct ts_event *sim_seg_ends_peek(const struct sim_seg_ends *q)
{
	return q->count ? &q->heap[0] : NULL;
}

static inline void sim_seg_ends_pop(struct sim_seg_ends *q)
{
	sim_seg_ends_remove_at(q, 0);
}

#endif
