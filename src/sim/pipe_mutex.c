/* pipe->mutex as the v5.6 kernel runs it (pipe_mutex.h): kernel/locking/mutex.c
 * __mutex_lock_common(), mutex_optimistic_spin() and __mutex_unlock_slowpath(). The
 * simulated kernel does not preempt kernel code (CONFIG_PREEMPT_VOLUNTARY, the
 * distributions' choice): a task holding the mutex keeps its CPU until it unlocks, and the
 * preemption asked meanwhile happens then, on the way back to user space. */
#include <stddef.h>
#include <stdlib.h>

#include "engine.h"

int sim_mx_setup(struct sim *m)
{
	bool locks = false;
	for (int c = 0; c < m->w->nr_classes && !locks; c++)
		for (int i = 0; i < m->w->classes[c].nr_phases; i++)
			locks |= m->w->classes[c].phases[i].pipe;
	if (!locks || !m->nr_chan)
		return 0;
	m->mutexes = calloc((size_t)m->nr_chan, sizeof(*m->mutexes));
	if (!m->mutexes)
		return -ENOMEM;
	for (int i = 0; i < m->nr_chan; i++) {
		m->mutexes[i].release_cpu = -1;
		m->chan[i].mutex = &m->mutexes[i];
	}
	return 0;
}

static struct sim_task *task_of_link(struct sim_wait_link *l)
{
	return l ? (struct sim_task *)((char *)l - offsetof(struct sim_task, wait)) : NULL;
}

static void spinner_remove(struct sim_pipe_mutex *mx, struct sim_task *t)
{
	for (struct sim_task **p = &mx->spinners; *p; p = &(*p)->mx_next)
		if (*p == t) {
			*p = t->mx_next;
			t->mx_next = NULL;
			return;
		}
}

static void spinner_append(struct sim_pipe_mutex *mx, struct sim_task *t)
{
	struct sim_task **p = &mx->spinners;
	while (*p)
		p = &(*p)->mx_next;
	t->mx_next = NULL;
	*p = t;
}

/* A spinner looks at the lock again now: its spin segment ends (it was given the lock, or
 * its owner stopped running). One that is not on a CPU (moved by the balancer while it
 * spun) looks when it runs next. */
static void kick(struct sim *m, struct sim_task *s)
{
	int scpu = s->on_cpu;
	if (scpu >= 0)
		sim_stop_segment(m, scpu);
	sim_uncount_work(m, TS_WORK_MUTEX_SPIN, (double)s->work);
	s->work = 0; /* a spinner's work is only its spin */
	if (scpu >= 0)
		sim_start_segment(m, scpu);
}

/* The lock becomes s's (a hand-off, or the first spinner's win); returns the cost of the
 * wake-up the unlocking CPU makes. */
static double grant(struct sim *m, int cpu, struct sim_task *unlocker, struct sim_pipe_mutex *mx,
		    struct sim_task *s)
{
	mx->owner = s;
	if (s->mx_state == SIM_MX_SPIN) {
		kick(m, s);
		return 0;
	}
	if (s->mx_state == SIM_MX_ASLEEP) { /* wake_up_q() after __mutex_handoff() */
		s->mx_state = SIM_MX_WOKEN;
		return sim_wake(m, s, cpu, unlocker, 0);
	}
	return 0; /* woken already, not yet run: it finds the lock its own */
}

enum sim_mx_lock sim_mx_lock(struct sim *m, int cpu, struct sim_task *t, struct sim_pipe_mutex *mx)
{
	if (t->mx_state == SIM_MX_SPIN) /* its spin ended: granted, aborted or its quantum */
		spinner_remove(mx, t);
	t->mx = mx;
	bool nospin = t->mx_nospin;
	t->mx_nospin = false;
	if (mx->owner == t || !mx->owner) { /* handed to it, or free (__mutex_trylock()) */
		bool spun = t->mx_state == SIM_MX_SPIN && mx->owner == t;
		if (t->mx_waiter) { /* only the first waiter ever gets it */
			SIM_CHECK(task_of_link(mx->waiters.head) == t,
				  "task %d took a mutex ahead of its first waiter", t->t.id);
			sim_waitq_pop(&mx->waiters);
			t->mx_waiter = false;
			mx->handoff = false;
		}
		mx->owner = t;
		t->mx_state = SIM_MX_HELD;
		/* a spinner sees the owner's release after the lock's line comes over */
		if (spun && mx->release_cpu >= 0)
			sim_add_work(m, t,
				     sim_cost_of(m, m->c2c, ts_cost_between, mx->release_cpu, cpu),
				     TS_WORK_MUTEX_SPIN);
		return SIM_MX_ACQUIRED;
	}
	if (t->mx_waiter) /* a woken first waiter that lost it again */
		mx->handoff = true;
	if (mx->owner->on_cpu >= 0 && !nospin) { /* mutex_spin_on_owner(): the owner runs */
		spinner_append(mx, t);
		t->mx_state = SIM_MX_SPIN;
		/* until the owner's unlock kicks it */
		sim_add_work(m, t, (double)m->tick_ns, TS_WORK_MUTEX_SPIN);
		return SIM_MX_SPINNING;
	}
	if (!t->mx_waiter) { /* __mutex_add_waiter() */
		sim_waitq_push(&mx->waiters, &t->wait);
		t->mx_waiter = true;
	}
	t->mx_state = SIM_MX_ASLEEP;
	return SIM_MX_SLEEPING;
}

/* mutex_unlock() by t on cpu; returns the CPU time of the wake-up it makes. */
double sim_mx_unlock(struct sim *m, int cpu, struct sim_task *t)
{
	struct sim_pipe_mutex *mx = t->mx;
	SIM_CHECK(mx && mx->owner == t, "task %d unlocks a mutex it does not hold", t->t.id);
	t->mx = NULL;
	t->mx_state = SIM_MX_NONE;
	mx->owner = NULL;
	mx->release_cpu = cpu;
	struct sim_task *head = task_of_link(mx->waiters.head);
	double cost = 0;
	if (mx->handoff && head) { /* MUTEX_FLAG_HANDOFF: __mutex_handoff() to the first waiter */
		mx->handoff = false;
		cost += grant(m, cpu, t, mx, head);
	} else {
		if (mx->spinners) /* the OSQ's head takes the released lock */
			cost += grant(m, cpu, t, mx, mx->spinners);
		if (head && head->mx_state == SIM_MX_ASLEEP) { /* wake_up_q() of the first waiter */
			head->mx_state = SIM_MX_WOKEN;
			cost += sim_wake(m, head, cpu, t, 0);
		}
	}
	/* the spinners stop once the owner is not running: they go to sleep */
	if (mx->owner && mx->owner->on_cpu < 0)
		for (struct sim_task *s = mx->spinners; s; s = s->mx_next)
			if (s != mx->owner)
				kick(m, s);
	if (t->mx_resched) { /* the preemption deferred while it held the lock */
		t->mx_resched = false;
		m->cpu[cpu].need_resched = true;
	}
	return cost;
}

/* A resched request reaches cpu while its task t is at a mutex: true when handled here. A
 * holder keeps the CPU until its unlock; a spinner sees need_resched() and goes to sleep on
 * the wait list instead of being preempted. */
bool sim_mx_resched(struct sim *m, int cpu, struct sim_task *t)
{
	if (t->mx_state == SIM_MX_HELD) {
		m->cpu[cpu].need_resched = false;
		t->mx_resched = true;
		return true;
	}
	if (t->mx_state != SIM_MX_SPIN)
		return false;
	m->cpu[cpu].need_resched = false;
	sim_stop_segment(m, cpu);
	sim_uncount_work(m, TS_WORK_MUTEX_SPIN, (double)t->work);
	t->work = 0;
	t->mx_nospin = true;
	sim_cpu_run(m, cpu); /* it blocks in the mutex (or finds the lock its own) */
	return true;
}
