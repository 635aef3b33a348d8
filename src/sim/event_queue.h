/* The simulator's event queue: a binary min-heap ordered by (time, sequence number), so
 * that events at the same virtual nanosecond fire in the order they were scheduled and a
 * run is reproducible. Cancellation is lazy: a cancelled event stays in the heap and is
 * skipped when it surfaces (the owner bumps a generation counter). */
#ifndef TOPOSCHED_SIM_EVENT_QUEUE_H
#define TOPOSCHED_SIM_EVENT_QUEUE_H

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
/* Schedules ev (its seq is assigned here). Returns 0, -ENOMEM, or -EINVAL when ev->time is
 * before the current time (virtual time never goes backwards). */
int ts_eq_push(struct ts_event_queue *q, struct ts_event ev);
/* Pops the earliest event into *ev; false when empty. Advances q->now. */
bool ts_eq_pop(struct ts_event_queue *q, struct ts_event *ev);
static inline bool ts_eq_empty(const struct ts_event_queue *q) { return q->count == 0; }
static inline const struct ts_event *ts_eq_peek(const struct ts_event_queue *q)
{
	return q->count ? &q->heap[0] : NULL;
}

#endif
