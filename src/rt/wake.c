/* Blocking and waking a task, and the lost-wake-up race between them.
 *
 * A task blocks in two steps: under the lock of the wait queue it joins, it sets its
 * wstate to BLOCKING (rt_prepare_block); after dropping that lock it switches to its
 * worker (rt_block). A waker takes the task off the wait queue under the same lock and,
 * after dropping it, calls rt_wake(). The waker can therefore arrive at any moment of the
 * switch-out, which is the kernel's try_to_wake_up() vs __schedule() race. The state
 * word settles it, each transition a compare-and-swap:
 *
 *   task:   RUNNING  -> BLOCKING            (before it can be found)
 *   worker: BLOCKING -> PARKING             (rq locked, after the task's registers are
 *                                            saved), then ts_deactivate_curr() and
 *                                            ts_schedule(), then
 *           PARKING  -> SLEEPING  (release) (nothing of the worker touches it any more)
 *   waker:  BLOCKING -> RUNNING             the task has not left: the worker finds the
 *                                            CAS above failing and keeps it runnable (the
 *                                            kernel's ttwu_runnable(); no placement)
 *           PARKING  -> WAKE_DEFERRED       the worker is taking it off its queue: the
 *                                            worker's PARKING -> SLEEPING CAS fails and it
 *                                            wakes the task itself once done (the kernel
 *                                            spins on p->on_cpu here; we defer instead,
 *                                            so a waker never waits for a preempted worker)
 *           SLEEPING -> RUNNING   (acquire) the waker owns the wake-up: it calls the
 *                                            core's ts_try_to_wake_up() under p's pi_lock.
 *
 * A task that blocks without the loop (rt_block_direct(), worker.c) runs the worker's part
 * itself, under the rq lock, with one swap: it looks for BLOCKING, takes itself off the
 * queue and swaps BLOCKING -> SLEEPING (release); a waker that came after the look found
 * BLOCKING and left RUNNING, so the swap fails and the task wakes itself, as the worker
 * does for WAKE_DEFERRED (the kernel's ttwu_runnable() would wait for the rq lock and then
 * find the task off the queue).
 *
 * Exactly one party wins each transition, so a task is enqueued once per block and never
 * while its worker still uses it; the acquire/release pair hands the task's saved context
 * and core fields from the worker that parked it to the waker. pi_lock (as the kernel's
 * p->pi_lock) orders consecutive ts_try_to_wake_up() calls on one task: the core writes
 * p's wake-up counters after dropping the target's rq lock, when p may already run,
 * block again and be claimed by the next waker. The exit path takes it too, so that no
 * waker is still inside the core's wake-up when the task is freed. */
#include "rt_internal.h"

#include <stdlib.h>

void rt_switch_out(struct rt_task *t, int reason)
{
	t->reason = reason;
	rt_ctx_switch(&t->ctx, &t->worker->ctx);
	/* resumed, maybe on another worker: t->worker was set by that worker */
	rt_after_switch();
}

void rt_prepare_block(struct rt_task *t)
{
	t->blocked = true;
	atomic_store_explicit(&t->wstate, RT_BLOCKING, memory_order_relaxed);
}

void rt_block(struct rt_task *t)
{
	rt_block_direct(t);
}

/* The core's try_to_wake_up() also says whether the kernel would queue the activation on
 * the target's wakelist (ttwu_queue_cond(): another LLC, or an idle target; counted in
 * ttwu_queued). Where the target runs nothing, the worker does as the kernel does: the
 * waker pushes t onto the target's inbox (the wake list; the push's kick is the IPI) and
 * the target activates it under its own rq lock, so the waker writes none of the target's
 * queue, tree or load lines, which the target would then fetch back before it runs t.
 * A busy target keeps the waker's activation: a worker cannot be interrupted, and t would
 * wait in its inbox, out of every balancer's sight, until that worker's next switch. */
static inline __attribute__((always_inline)) void do_ttwu(struct rt_task *t, struct rt_worker *w,
							  struct rt_task *waker, int wake_flags)
{
	rt_spin_lock(&t->pi_lock);
	rt_trace_waking(t);
	w->round_clock = RT_CLOCK_ARMED; /* one clock reading (worker.c) */
	struct ts_placement pl;
	bool listed = ts_try_to_wake_up_or_list(&pl, rt_g.s, &t->ts, w->cpu,
						waker ? &waker->ts : NULL, wake_flags);
	w->round_clock = RT_CLOCK_OFF;
	rt_spin_unlock(&t->pi_lock);
	rt_trace_wakeup(t, &pl);
	if (pl.ttwu_queued)
		rt_stat_bump(&w->ttwu_queued);
	if (listed) { /* the last touch of t here: once pushed, it may run */
		rt_stat_bump(&w->wakelist);
		rt_inbox_push(rt_g.worker[pl.cpu], t, RT_INBOX_WAKE_LISTED);
	}
}

void rt_do_ttwu(struct rt_task *t, struct rt_worker *w, struct rt_task *waker, int wake_flags)
{
	do_ttwu(t, w, waker, wake_flags);
}

bool rt_wake(struct rt_task *t, int wake_flags)
{
	return rt_wake_by(rt_current(), t, wake_flags);
}

bool rt_wake_by(struct rt_task *self, struct rt_task *t, int wake_flags)
{
	/* a running task's worker is the one that switched to it (no second TLS call) */
	struct rt_worker *w = self ? self->worker : rt_this_worker();
	for (;;) {
		int st = atomic_load_explicit(&t->wstate, memory_order_acquire);
		switch (st) {
		case RT_RUNNING:
		case RT_WAKE_DEFERRED:
			return false;
		case RT_BLOCKING:
			if (atomic_compare_exchange_weak_explicit(&t->wstate, &st, RT_RUNNING,
								  memory_order_acq_rel,
								  memory_order_acquire)) {
				if (w)
					rt_stat_bump(&w->early_wakeups);
				return true;
			}
			break;
		case RT_PARKING:
			if (atomic_compare_exchange_weak_explicit(&t->wstate, &st, RT_WAKE_DEFERRED,
								  memory_order_acq_rel,
								  memory_order_acquire)) {
				if (w)
					rt_stat_bump(&w->deferred_wakeups);
				return true;
			}
			break;
		case RT_SLEEPING:
			if (atomic_compare_exchange_weak_explicit(&t->wstate, &st, RT_RUNNING,
								  memory_order_acq_rel,
								  memory_order_acquire)) {
				if (!w) {
					/* A plain thread is no CPU: a worker does the wake-up. */
					rt_inbox_push_plain(rt_g.worker[t->ts.cpu], t,
							    RT_INBOX_WAKE);
					return true;
				}
				do_ttwu(t, w, self, self ? wake_flags : 0);
				rt_stat_bump(&w->wakeups);
				return true;
			}
			break;
		default:
			abort();
		}
	}
}

void rt_wait_done(rt_spinlock_t *lock, struct rt_waiter *w)
{
	while (!atomic_load_explicit(&w->done, memory_order_relaxed)) {
		rt_prepare_block(w->task);
		rt_spin_unlock(lock);
		rt_block(w->task);
		rt_spin_lock(lock);
	}
}

/* A waiter woken by its waker finds done set (before the waker's unlock, which precedes
 * the wake-up) without taking the lock again: one locked instruction less per hand-over. */
void rt_wait_done_unlock(rt_spinlock_t *lock, struct rt_waiter *w)
{
	while (!atomic_load_explicit(&w->done, memory_order_relaxed)) {
		rt_prepare_block(w->task);
		rt_spin_unlock(lock);
		rt_block(w->task);
		if (atomic_load_explicit(&w->done, memory_order_acquire))
			return;
		rt_spin_lock(lock);
	}
	rt_spin_unlock(lock);
}

void rt_chain_wake(struct rt_task *chain, int wake_flags)
{
	while (chain) {
		struct rt_task *next = chain->wake_next;
		rt_wake(chain, wake_flags);
		chain = next;
	}
}
