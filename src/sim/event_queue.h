/* The simulator's event queue: a 4-ary min-heap ordered by (time, sequence number), so
 * that events at the same virtual nanosecond fire in the order they were scheduled and a
 * run is reproducible. Cancellation is lazy: a cancelled event stays in the heap and is
 * skipped when it surfaces (the owner bumps a generation counter). */
#ifndef TOPOSCHED_SIM_EVENT_QUEUE_H
#define TOPOSCHED_SIM_EVENT_QUEUE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_event {
	uint64_t time; /* virtual ns */
	uint64_t seq;  /* tie-breaker: order of scheduling */
	int kind;      /* the engine's event type */
	int cpu;       /* CPU the event belongs to, or -1 */
	void *obj;     /* task, channel, ... */
	uint64_t gen;  /* the object's generation when scheduled (lazy cancellation) */
};

struct ts_event_queue {
	struct ts_event *heap;
	size_t count, cap;
	uint64_t next_seq;
	uint64_t now; /* time of the last event popped: never goes backwards */
};

int ts_eq_init(struct ts_event_queue *q, size_t initial_cap);
void ts_eq_destroy(struct ts_event_queue *q);
/* Doubles the heap's capacity: 0 or -ENOMEM (out of line: it is rarely taken). */
int ts_eq_grow(struct ts_event_queue *q);

/* The heap is 4-ary: node i's children are 4i+1..4i+4, its parent (i-1)/4. With the few
 * hundred to a thousand pending events of a run (a tick, a segment end and timers per
 * CPU) it is half as deep as a binary heap, so a pop moves half as many events, and a
 * node's four children are adjacent in memory. The order of pops does not depend on the
 * heap's shape: (time, seq) is a total order, seq being unique.
 *
 * Push and pop run once per event, so they are inline: the engine then builds an event
 * in registers and reads the popped one from them, rather than through by-value copies
 * on the stack (whose wide reloads of narrow stores stall store forwarding). */
#define TS_EQ_ARITY 4

static inline bool ts_eq_before(const struct ts_event *a, const struct ts_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* The earliest of the four events h[c .. c + 3], in a two-round tournament. */
static inline size_t ts_eq_earliest_of_four(const struct ts_event *h, size_t c)
{
	size_t x = ts_eq_before(&h[c + 1], &h[c]) ? c + 1 : c;
	size_t y = ts_eq_before(&h[c + 3], &h[c + 2]) ? c + 3 : c + 2;
	return ts_eq_before(&h[y], &h[x]) ? y : x;
}

/* Schedules ev (its seq is assigned here). Returns 0, -ENOMEM, or -EINVAL when ev->time is
 * before the current time (virtual time never goes backwards). */
static inline int ts_eq_push(struct ts_event_queue *q, struct ts_event ev)
{
	if (ev.time < q->now)
		return -EINVAL;
	if (q->count == q->cap) {
		int rc = ts_eq_grow(q);
		if (rc)
			return rc;
	}
	ev.seq = q->next_seq++;
	struct ts_event *h = q->heap;
	size_t i = q->count++;
	while (i > 0) { /* sift up */
		size_t parent = (i - 1) / TS_EQ_ARITY;
		if (!ts_eq_before(&ev, &h[parent]))
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = ev;
	return 0;
}

/* Pops the earliest event into *ev; false when empty. Advances q->now. */
static inline bool ts_eq_pop(struct ts_event_queue *q, struct ts_event *ev)
{
	if (!q->count)
		return false;
	struct ts_event *h = q->heap;
	*ev = h[0];
	size_t n = --q->count;
	if (n) {
		/* Sift the last event down from the root: the hole takes the earliest child
		 * while that child is before the last event. h[n] is never overwritten (every
		 * index written is below n). */
		const struct ts_event *last = &h[n];
		size_t i = 0, c;
		while ((c = TS_EQ_ARITY * i + 1) < n) {
			size_t m = c;
			if (c + TS_EQ_ARITY <= n) {
				m = ts_eq_earliest_of_four(h, c);
			} else {
				for (size_t k = c + 1; k < n; k++)
					if (ts_eq_before(&h[k], &h[m]))
						m = k;
			}
			if (!ts_eq_before(&h[m], last))
				break;
			h[i] = h[m];
			i = m;
		}
		h[i] = *last;
	}
	q->now = ev->time;
	return true;
}

static inline bool ts_eq_empty(const struct ts_event_queue *q)
{
	return q->count == 0;
}
static inline const struct ts_event *ts_eq_peek(const struct ts_event_queue *q)
{
	return q->count ? &q->heap[0] : NULL;
}

#endif
