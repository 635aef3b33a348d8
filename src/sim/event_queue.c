#include "sim/event_queue.h"

#include <errno.h>
#include <stdlib.h>

static bool before(const struct ts_event *a, const struct ts_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int ts_eq_init(struct ts_event_queue *q, size_t initial_cap)
{
	*q = (struct ts_event_queue){ 0 };
	q->cap = initial_cap ? initial_cap : 64;
	q->heap = malloc(q->cap * sizeof(*q->heap));
	return q->heap ? 0 : -ENOMEM;
}

void ts_eq_destroy(struct ts_event_queue *q)
{
	free(q->heap);
	*q = (struct ts_event_queue){ 0 };
}

int ts_eq_push(struct ts_event_queue *q, struct ts_event ev)
{
	if (ev.time < q->now)
		return -EINVAL;
	if (q->count == q->cap) {
		size_t ncap = q->cap * 2;
		struct ts_event *nh = realloc(q->heap, ncap * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		q->heap = nh;
		q->cap = ncap;
	}
	ev.seq = q->next_seq++;
	size_t i = q->count++;
	while (i > 0) { /* sift up */
		size_t parent = (i - 1) / 2;
		if (!before(&ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = ev;
	return 0;
}

bool ts_eq_pop(struct ts_event_queue *q, struct ts_event *ev)
{
	if (!q->count)
		return false;
	*ev = q->heap[0];
	struct ts_event last = q->heap[--q->count];
	size_t i = 0, n = q->count;
	for (;;) { /* sift the last element down from the root */
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct ts_event *best = &last;
		if (l < n && before(&q->heap[l], best)) {
			m = l;
			best = &q->heap[l];
		}
		if (r < n && before(&q->heap[r], best))
			m = r;
		if (m == i)
			break;
		q->heap[i] = q->heap[m];
		i = m;
	}
	if (n)
		q->heap[i] = last;
	q->now = ev->time;
	return true;
}
