/* Synchronisation phases: the mutexes, condition variables and barriers of rt-app files
 * (rt-app's run_event(): pthread_mutex_lock/unlock, pthread_cond_wait/signal/broadcast and
 * its barrier of a mutex, a condition and a count), and sched_yield().
 *
 * A pthread mutex of glibc is a futex word: the uncontended lock and unlock are user-space
 * atomics (not charged: tens of ns), a contended lock sleeps in FUTEX_WAIT, an unlock with
 * waiters wakes one in FUTEX_WAKE, which is not a sync wake-up, and the woken waiter
 * competes for the word again (no hand-off). A condition wakes its waiters in FIFO order;
 * pthread_cond_wait() releases the mutex as it goes to sleep and retakes it after. The
 * barrier's own mutex and the condition's internal lock are held for a few instructions
 * and are not modelled. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "engine.h"

int sim_sync_setup(struct sim *m)
{
	m->nr_sync = m->w->syncs_per_instance * m->nr_instances;
	if (!m->nr_sync)
		return 0;
	m->sync = calloc((size_t)m->nr_sync, sizeof(*m->sync));
	return m->sync ? 0 : -ENOMEM;
}

static struct sim_sync *sync_of(struct sim *m, const struct sim_task *t, int i)
{
	return &m->sync[t->inst * m->w->syncs_per_instance + i];
}

static struct sim_task *pop_waiter(struct sim_sync *o)
{
	struct sim_wait_link *l = sim_waitq_pop(&o->waiters);
	return l ? (struct sim_task *)((char *)l - offsetof(struct sim_task, wait)) : NULL;
}

/* The waker t pays each wake-up's CPU time (the core's try_to_wake_up()). */
static void wake(struct sim *m, int cpu, struct sim_task *t, struct sim_task *w, bool released)
{
	w->released = released;
	sim_task_add_work(t, sim_wake(m, w, cpu, t, 0));
}

static void unlock(struct sim *m, int cpu, struct sim_task *t, struct sim_sync *mx)
{
	mx->locked = false;
	struct sim_task *w = pop_waiter(mx);
	if (w)
		wake(m, cpu, t, w, false);
}

int sim_sync_step(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph)
{
	if (ph->kind == TS_PH_YIELD) {
		sim_advance(t);
		sim_lock(m, cpu);
		ts_yield_task(m->s, cpu);
		sim_unlock(m, cpu);
		return STEP_YIELD;
	}
	struct sim_sync *o = sync_of(m, t, ph->obj);
	switch (ph->kind) {
	case TS_PH_LOCK:
		if (o->locked) { /* FUTEX_WAIT; the unlock's wake-up brings it back here */
			sim_waitq_push(&o->waiters, &t->wait);
			return STEP_BLOCK;
		}
		o->locked = true;
		break;
	case TS_PH_UNLOCK:
		unlock(m, cpu, t, o);
		break;
	case TS_PH_COND_WAIT:
		if (t->released) { /* signalled: the LOCK phase after this retakes the mutex */
			t->released = false;
			break;
		}
		unlock(m, cpu, t, sync_of(m, t, ph->mutex));
		sim_waitq_push(&o->waiters, &t->wait);
		return STEP_BLOCK;
	case TS_PH_COND_SIGNAL: {
		struct sim_task *w = pop_waiter(o);
		if (w)
			wake(m, cpu, t, w, true);
		break;
	}
	case TS_PH_COND_BROADCAST:
		for (struct sim_task *w; (w = pop_waiter(o));)
			wake(m, cpu, t, w, true);
		break;
	case TS_PH_BARRIER_WAIT:
		if (!o->armed) { /* rt-app: -1, plus one per barrier event naming it */
			o->armed = true;
			o->waiting = ph->parties - 1;
		}
		if (t->released) { /* woken by the last arrival */
			t->released = false;
			o->waiting++;
			break;
		}
		if (o->waiting > 0) {
			o->waiting--;
			sim_waitq_push(&o->waiters, &t->wait);
			return STEP_BLOCK;
		}
		for (struct sim_task *w; (w = pop_waiter(o));)
			wake(m, cpu, t, w, true);
		break;
	default:
		return -1;
	}
	sim_advance(t);
	return -1;
}
