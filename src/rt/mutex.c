/* A task mutex: blocked lockers queue FIFO and the unlocker hands the mutex over to the
 * first of them (no barging, no retry loop). */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>

struct ts_mutex {
	rt_spinlock_t lock;
	const void *owner; /* the task, or a plain thread's token */
	struct rt_waitq waiters;
};

static _Thread_local char thread_token;

static const void *me(void)
{
	struct rt_task *t = rt_current();
	return t ? (const void *)t : (const void *)&thread_token;
}

struct ts_mutex *ts_mutex_create(void)
{
	struct ts_mutex *m = calloc(1, sizeof(*m));
	if (m)
		rt_spin_lock_init(&m->lock);
	return m;
}

void ts_mutex_destroy(struct ts_mutex *m)
{
	if (!m)
		return;
	free(m);
}

int ts_mutex_lock(struct ts_mutex *m)
{
	struct rt_task *self = rt_current();
	if (!self)
		return rt_error(
			-EPERM,
			"ts_mutex_lock: blocking call outside a task (use ts_mutex_trylock)");
	rt_spin_lock(&m->lock);
	if (m->owner == self) {
		rt_spin_unlock(&m->lock);
		return rt_error(-EDEADLK, "ts_mutex_lock: task '%s' already holds it", self->name);
	}
	if (!m->owner) {
		m->owner = self;
	} else {
		struct rt_waiter w = {.task = self};
		rt_waitq_push(&m->waiters, &w);
		rt_wait_done(&m->lock, &w); /* the unlocker made us the owner */
	}
	rt_spin_unlock(&m->lock);
	return 0;
}

bool rt_mutex_owned_by(struct ts_mutex *m, const struct rt_task *t)
{
	rt_spin_lock(&m->lock);
	bool own = m->owner == t;
	rt_spin_unlock(&m->lock);
	return own;
}

int ts_mutex_trylock(struct ts_mutex *m)
{
	rt_spin_lock(&m->lock);
	int rc = 0;
	if (m->owner)
		rc = rt_error(-EBUSY, "ts_mutex_trylock: the mutex is held");
	else
		m->owner = me();
	rt_spin_unlock(&m->lock);
	return rc;
}

int ts_mutex_unlock(struct ts_mutex *m)
{
	rt_spin_lock(&m->lock);
	if (m->owner != me()) {
		rt_spin_unlock(&m->lock);
		return rt_error(-EPERM, "ts_mutex_unlock: the caller does not hold the mutex");
	}
	struct rt_waiter *w = rt_waitq_pop(&m->waiters);
	struct rt_task *wake = NULL;
	m->owner = w ? (const void *)w->task : NULL;
	if (w) {
		wake = w->task;
		rt_waiter_done(w);
	}
	rt_spin_unlock(&m->lock);
	if (wake)
		rt_wake(wake, 0);
	return 0;
}
