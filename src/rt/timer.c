/* Sleeping tasks: a binary min-heap per worker keyed by wake-up time. Only the worker's
 * own thread touches it — the sleeping task adds itself while it still runs there, the
 * worker's loop fires it — so it needs no lock. A parked worker sleeps no longer than its
 * earliest deadline. */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>

static void swap(struct rt_task **a, struct rt_task **b)
{
	struct rt_task *t = *a;
	*a = *b;
	*b = t;
}

void rt_timer_add(struct rt_worker *w, struct rt_task *t)
{
	struct rt_timer_heap *h = &w->timers;
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct rt_task **v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			abort(); /* out of memory with a task half-way into sleep */
		h->v = v;
		h->cap = cap;
	}
	size_t i = h->n++;
	h->v[i] = t;
	while (i > 0 && h->v[(i - 1) / 2]->wake_at > h->v[i]->wake_at) {
		swap(&h->v[(i - 1) / 2], &h->v[i]);
		i = (i - 1) / 2;
	}
}

static struct rt_task *pop(struct rt_timer_heap *h)
{
	struct rt_task *top = h->v[0];
	h->v[0] = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && h->v[l]->wake_at < h->v[m]->wake_at)
			m = l;
		if (r < h->n && h->v[r]->wake_at < h->v[m]->wake_at)
			m = r;
		if (m == i)
			break;
		swap(&h->v[m], &h->v[i]);
		i = m;
	}
	return top;
}

uint64_t rt_timer_fire(struct rt_worker *w, uint64_t now)
{
	struct rt_timer_heap *h = &w->timers;
	while (h->n && h->v[0]->wake_at <= now)
		rt_wake(pop(h), 0);
	return h->n ? h->v[0]->wake_at : 0;
}

void rt_timer_heap_free(struct rt_timer_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

int ts_sleep_ns(uint64_t ns)
{
	struct rt_task *t = rt_current();
	if (!t)
		return rt_error(-EPERM, "ts_sleep_ns: called outside a task (use nanosleep)");
	if (!ns)
		return ts_yield();
	uint64_t until = rt_clock_ns() + ns;
	while (rt_clock_ns() < until) {
		t->wake_at = until;
		rt_prepare_block(t);
		rt_timer_add(t->worker, t);
		rt_block(t);
	}
	return 0;
}
