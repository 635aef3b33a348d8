/* Wait groups (Go's sync.WaitGroup): add, done, and wait until the count is zero.
 *
 * The count is an atomic. A change that leaves it above zero wakes nobody and is one
 * compare-and-swap, without the lock: with tasks on two workers calling ts_wg_done() on
 * one group, the lock's exchange, the count and the unlock each took the line from the
 * other worker (a spinning waiter reads it in between). A change to zero or below takes the
 * lock, as a wait does to look at the count and queue itself: so a wait never misses the
 * change to zero that should wake it, and the waiters woken are those that waited when the
 * count reached zero, as with the count under the lock. */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>

struct ts_waitgroup {
	atomic_long count;
	rt_spinlock_t lock; /* a wait's look against a change to zero; the waiters */
	struct rt_waitq waiters;
};

struct ts_waitgroup *ts_wg_create(void)
{
	struct ts_waitgroup *wg = calloc(1, sizeof(*wg));
	if (wg) {
		atomic_init(&wg->count, 0);
		rt_spin_lock_init(&wg->lock);
	}
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
	/* The first try guesses the count (a failed locked compare-and-swap still takes the
	 * line exclusively and reads it: a plain load first would fetch the line shared, and
	 * the swap fetch it again). Release: a waiter that sees zero sees what came before. */
	long c = delta < 0 ? 1 - (long)delta : 0;
	while (c + delta > 0)
		if (atomic_compare_exchange_weak_explicit(
			    &wg->count, &c, c + delta, memory_order_release, memory_order_relaxed))
			return 0;
	struct rt_task *chain = NULL;
	rt_spin_lock(&wg->lock);
	c = atomic_load_explicit(&wg->count, memory_order_relaxed);
	do {
		if (c + delta < 0) {
			rt_spin_unlock(&wg->lock);
			return rt_error(-EINVAL,
					"ts_wg_add: the count would become negative (%ld%+d)", c,
					delta);
		}
	} while (!atomic_compare_exchange_weak_explicit(
		&wg->count, &c, c + delta, memory_order_acq_rel, memory_order_relaxed));
	if (c + delta == 0) {
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
	/* Always under the lock, even when the count is zero already: the task whose change
	 * made it zero still pops the waiters and unlocks, and a wait that returned without
	 * the lock would let its caller free the group under it (ts_wg_destroy()). */
	rt_spin_lock(&wg->lock);
	if (atomic_load_explicit(&wg->count, memory_order_acquire) > 0) {
		struct rt_waiter w = {.task = self};
		rt_waitq_push(&wg->waiters, &w);
		rt_wait_done(&wg->lock, &w);
	}
	rt_spin_unlock(&wg->lock);
	return 0;
}
