/* Wait groups (Go's sync.WaitGroup): add, done, and wait until the count is zero. */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>

struct ts_waitgroup {
	rt_spinlock_t lock;
	long count;
	struct rt_waitq waiters;
};

struct ts_waitgroup *ts_wg_create(void)
{
	struct ts_waitgroup *wg = calloc(1, sizeof(*wg));
	if (wg)
		rt_spin_lock_init(&wg->lock);
	return wg;
}

void ts_wg_destroy(struct ts_waitgroup *wg)
{
	if (!wg)
		return;
	free(wg);
}

int ts_wg_add(struct ts_waitgroup *wg, int delta)
{
	struct rt_task *chain = NULL;
	rt_spin_lock(&wg->lock);
	if (wg->count + delta < 0) {
		rt_spin_unlock(&wg->lock);
		return rt_error(-EINVAL, "ts_wg_add: the count would become negative (%ld%+d)",
				wg->count, delta);
	}
	wg->count += delta;
	if (wg->count == 0) {
		struct rt_waiter *w;
		while ((w = rt_waitq_pop(&wg->waiters))) {
			rt_chain_add(&chain, w->task);
			rt_waiter_done(w);
		}
	}
	rt_spin_unlock(&wg->lock);
	rt_chain_wake(chain, 0);
	return 0;
}

int ts_wg_done(struct ts_waitgroup *wg)
{
	return ts_wg_add(wg, -1);
}

int ts_wg_wait(struct ts_waitgroup *wg)
{
	struct rt_task *self = rt_current();
	if (!self)
		return rt_error(-EPERM, "ts_wg_wait: blocking call outside a task");
	rt_spin_lock(&wg->lock);
	if (wg->count > 0) {
		struct rt_waiter w = {.task = self};
		rt_waitq_push(&wg->waiters, &w);
		rt_wait_done(&wg->lock, &w);
	}
	rt_spin_unlock(&wg->lock);
	return 0;
}
