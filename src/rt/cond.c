/* A condition variable for task mutexes. The waiter queues itself and announces the
 * block under the condition's lock before it releases the mutex, so a signal sent between
 * the unlock and the switch-out finds it (wake.c's BLOCKING state) and is not lost. */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>

struct ts_cond {
	rt_spinlock_t lock;
	struct rt_waitq waiters;
};

struct ts_cond *ts_cond_create(void)
{
	struct ts_cond *c = calloc(1, sizeof(*c));
	if (c)
		rt_spin_lock_init(&c->lock);
	return c;
}

void ts_cond_destroy(struct ts_cond *c)
{
	if (!c)
		return;
	free(c);
}

int ts_cond_wait(struct ts_cond *c, struct ts_mutex *m)
{
	struct rt_task *self = rt_current();
	if (!self)
		return rt_error(-EPERM, "ts_cond_wait: blocking call outside a task");
	if (!rt_mutex_owned_by(m, self)) /* only the owner can change that */
		return rt_error(-EPERM, "ts_cond_wait: the caller does not hold the mutex");
	struct rt_waiter w = {.task = self};
	rt_spin_lock(&c->lock);
	rt_waitq_push(&c->waiters, &w);
	rt_prepare_block(self);
	rt_spin_unlock(&c->lock);
	ts_mutex_unlock(m);
	rt_block(self);
	rt_spin_lock(&c->lock);
	rt_wait_done(&c->lock, &w); /* re-blocks only after a wake-up that was not ours */
	rt_spin_unlock(&c->lock);
	return ts_mutex_lock(m);
}

static int wake_n(struct ts_cond *c, bool all)
{
	struct rt_task *chain = NULL;
	rt_spin_lock(&c->lock);
	struct rt_waiter *w;
	while ((w = rt_waitq_pop(&c->waiters))) {
		rt_chain_add(&chain, w->task);
		rt_waiter_done(w);
		if (!all)
			break;
	}
	rt_spin_unlock(&c->lock);
	rt_chain_wake(chain, 0);
	return 0;
}

int ts_cond_signal(struct ts_cond *c)
{
	return wake_n(c, false);
}
int ts_cond_broadcast(struct ts_cond *c)
{
	return wake_n(c, true);
}
