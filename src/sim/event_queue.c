#include "event_queue.h"

#include <errno.h>
#include <stdlib.h>

int ts_eq_init(struct ts_event_queue *q, size_t initial_cap)
{
	*q = (struct ts_event_queue){0};
	q->cap = initial_cap ? initial_cap : 64;
	q->heap = malloc(q->cap * sizeof(*q->heap));
	return q->heap ? 0 : -ENOMEM;
}

void ts_eq_destroy(struct ts_event_queue *q)
{
	free(q->heap);
	*q = (struct ts_event_queue){0};
}

int ts_eq_grow(struct ts_event_queue *q)
{
	size_t ncap = q->cap * 2;
	struct ts_event *nh = realloc(q->heap, ncap * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	q->heap = nh;
	q->cap = ncap;
	return 0;
}
