/* The runtime's workers: ts_rt_start()/ts_rt_stop(), the host interface the core runs
 * on (clock, per-CPU run-queue mutexes, resched_cpu = need_resched + unpark) and the
 * scheduler loop of each worker thread.
 *
 * The loop, per iteration: lock own rq; if a tick period passed, ts_sched_tick(); the
 * bookkeeping of the task that just switched back (ts_yield_task(), or ts_deactivate_curr()
 * for a block or an exit — see wake.c for the state word); ts_schedule() (which runs
 * newly-idle balancing when nothing is queued); unlock; then, with no lock held, the
 * deferred wake-up, the exit of the previous task, periodic balancing when the tick said
 * it is due, the inbox (spawns and wake-ups from plain threads, tasks spawned onto this idle
 * worker by another) and expired sleeps; then
 * switch to the picked task, or spin and park when there is none.
 *
 * The round's clock. The core reads the host's clock() at each of its entry points
 * (tick, yield, deactivate, schedule), i.e. three or four times per round at ~35 ns each.
 * The worker reads it once, with its rq locked, and until it drops that lock clock()
 * returns that reading to this thread (round_clock). This is the kernel's own convention:
 * __schedule() calls update_rq_clock() once and every accounting step of that pass uses
 * rq->clock, so a round is accounted as if instantaneous at the moment the lock was
 * taken. It cannot make time go backwards: rq_clock() keeps max(rq->clock, now) per rq
 * and the reading is newer than anything this rq saw before it was locked. The cache
 * stops at the first unlock of this rq (host_unlock), so newly-idle balancing, which
 * drops the lock and measures its own cost with clock(), sees real time from there on;
 * every call from a task reads the real clock, and a wake-up reads it once: its first
 * reading (select_task_rq()'s record_wakee(), jiffies in the kernel) serves the
 * activation's rq clock when the target's lock was free (else it reads again). Expired sleeps
 * are fired against the round's reading unless the round did slow work after it: that
 * can only fire a sleeper later (by the length of one round), never early, and
 * ts_sleep_ns() re-checks the real clock anyway.
 *
 * Direct yield. A task's ts_yield() does the round's bookkeeping itself under its
 * rq lock (ts_yield_task() + ts_schedule()) and, when the core picks another task, switches
 * straight to it instead of going task -> loop -> task; when the core picks the yielder
 * again it just returns. The loop is still used whenever it has work of its own (the
 * tick is due, the inbox is not empty, a sleep has expired). As in the kernel, the
 * yielder is back on the run queue, and may be pulled by another worker, before its
 * registers are saved: on_cpu stays set until the task switched to has left the
 * yielder's stack (rt_after_switch(), the kernel's finish_task_switch()), and a worker
 * that picks a task waits for its on_cpu to drop (rt_claim_cpu(), the kernel's
 * smp_cond_load_acquire(&p->on_cpu, !VAL)); the release/acquire pair on on_cpu hands
 * the saved context over.
 *
 * NUMA stop work (numa.c). A task that switched back to the loop keeps its on_cpu until
 * the round has done its bookkeeping (a NUMA swap must not take a task that is blocking);
 * the round's first step, before the lock, runs stop work other workers posted (a yielded
 * prev may be the partner of a swap). After picking a task and claiming its on_cpu the
 * loop (and a direct yield) checks that it is still the rq's current task, since a stop
 * work may have moved it meanwhile, and runs a due NUMA scan of it, which may move it. */
#include "rt_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rt rt_g;
atomic_int rt_state;

/* initial-exec: a fixed offset from the thread pointer instead of a __tls_get_addr() call
 * on every access (3.5 % of a pipe round trip); 24 bytes of the static TLS surplus, which
 * glibc keeps for libraries loaded later, so a dlopen()ed libtoposched still loads. */
#define RT_TLS _Thread_local __attribute__((tls_model("initial-exec")))
static RT_TLS struct rt_task *tls_current;
static RT_TLS struct rt_worker *tls_worker;
/* The rq locks this thread holds as a set (rt_rq_lock_set()), NULL when none. */
static RT_TLS const struct ts_cpumask *tls_held;

/* noinline + compiler barrier: a task that moved to another thread must see that
 * thread's values, so the TLS address is never kept across a switch. */
__attribute__((noinline)) struct rt_task *rt_current(void)
{
	__asm__ volatile("" ::: "memory");
	return tls_current;
}
__attribute__((noinline)) struct rt_worker *rt_this_worker(void)
{
	__asm__ volatile("" ::: "memory");
	return tls_worker;
}
__attribute__((noinline)) void rt_set_current(struct rt_task *t)
{
	__asm__ volatile("" ::: "memory");
	tls_current = t;
}
__attribute__((noinline)) void rt_set_this_worker(struct rt_worker *w)
{
	__asm__ volatile("" ::: "memory");
	tls_worker = w;
}

/* ---- host interface ---- */

/* A wake-up before its rq lock: a real reading, the latest kept. */
static __attribute__((noinline)) uint64_t wake_clock_take(struct rt_worker *w)
{
	w->round_now = rt_clock_ns();
	w->round_clock = RT_CLOCK_TAKEN;
	return w->round_now;
}

static uint64_t host_clock(void *h)
{
	(void)h;
	struct rt_worker *w = tls_worker;
	if (w) {
		if (w->round_clock == RT_CLOCK_ON)
			return w->round_now;
		if (w->round_clock != RT_CLOCK_OFF)
			return wake_clock_take(w);
	}
	return rt_clock_ns();
}

static void host_resched(void *h, int cpu)
{
	(void)h;
	struct rt_worker *w = rt_g.worker[cpu];
	if (!w)
		return;
	/* This worker's own CPU (a yield, a wake-up onto this CPU): it is not parked, and
	 * its loop reads need_resched on this thread, so the flag alone, without the
	 * sequentially consistent store and the look at parked (3 % of a yield). */
	if (w == tls_worker)
		atomic_store_explicit(&w->need_resched, 1, memory_order_relaxed);
	else
		rt_worker_kick(w);
}
/* While a NUMA scan holds its lock set, the core may still lock the scanned task's rq
 * (sched_setnuma()): that CPU is in the set, so the call is a no-op. Any other CPU would be
 * taken out of order, which could deadlock: the core never does it, and it must not. */
static inline bool held_in_set(int cpu)
{
	const struct ts_cpumask *held = tls_held;
	if (!held)
		return false;
	if (!ts_cpumask_test(held, cpu)) {
		fprintf(stderr, "toposched runtime: rq lock of CPU %d taken during a NUMA scan\n",
			cpu);
		abort();
	}
	return true;
}
/* A round's start: w's rq locked and the round's clock started; returns the reading.
 * The clock is read before the lock, where the TSC read overlaps the locked instruction
 * instead of waiting for it (a yield took 58 ns instead of 50 on the 2-CPU VM, the read
 * ~12 ns after a locked instruction against ~8 alone), and again only if the lock had
 * to be waited for. rq_clock() keeps the rq clock from going back should another CPU's
 * reading under the lock land in between. */
static inline uint64_t round_lock_clock(struct rt_worker *w)
{
	uint64_t now = rt_clock_ns();
	if (!held_in_set(w->cpu) && rt_spin_lock_waited(rt_rq_lock_of(w->cpu)))
		now = rt_clock_ns();
	w->round_now = now;
	w->round_clock = RT_CLOCK_ON;
	return now;
}
static void host_lock(void *h, int cpu)
{
	(void)h;
	if (held_in_set(cpu))
		return;
	bool waited = rt_spin_lock_waited(rt_rq_lock_of(cpu));
	/* A wake-up's reading serves its activation, as update_rq_clock() would, unless it
	 * is older than a wait for the lock: then the activation reads again. */
	struct rt_worker *w = tls_worker;
	if (w && __builtin_expect(w->round_clock == RT_CLOCK_TAKEN, 0))
		w->round_clock = waited ? RT_CLOCK_OFF : RT_CLOCK_ON;
}
static void host_unlock(void *h, int cpu)
{
	(void)h;
	if (held_in_set(cpu))
		return;
	struct rt_worker *w = tls_worker;
	if (w && w->cpu == cpu)
		w->round_clock = RT_CLOCK_OFF; /* the round's reading is only good while locked */
	rt_spin_unlock(rt_rq_lock_of(cpu));
}
static uint64_t host_scan_time(void *h, int cpu, int nr_scanned, uint64_t t0)
{
	(void)h, (void)cpu, (void)nr_scanned;
	uint64_t now = rt_clock_ns();
	struct rt_worker *w = tls_worker;
	if (w && w->round_clock == RT_CLOCK_TAKEN)
		w->round_now = now; /* a wake-up's latest reading */
	return now > t0 ? now - t0 : 0;
}

void rt_rq_lock_set(const struct ts_cpumask *set)
{
	int cpu;
	ts_for_each_cpu(cpu, set) rt_spin_lock(rt_rq_lock_of(cpu));
	tls_held = set;
}

void rt_rq_unlock_set(const struct ts_cpumask *set)
{
	int cpu;
	tls_held = NULL;
	ts_for_each_cpu(cpu, set) rt_spin_unlock(rt_rq_lock_of(cpu));
}

static const struct ts_host_ops rt_ops = {
	.clock = host_clock,
	.resched_cpu = host_resched,
	.rq_lock = host_lock,
	.rq_unlock = host_unlock,
	.scan_time = host_scan_time,
	.migrate_task = rt_trace_migrate,
};

/* ---- inbox ---- */

/* A push is one compare-and-swap of the head (a mutex was two locked instructions and,
 * contended by the drain, 5 % of a spawn across workers); the worker takes the whole stack
 * with one exchange, so no entry is ever popped alone (no ABA). */
void rt_inbox_push(struct rt_worker *w, struct rt_task *t, int kind)
{
	t->inbox_kind = kind;
	struct rt_task *head = atomic_load_explicit(&w->inbox, memory_order_relaxed);
	do
		t->inbox_next = head;
	while (!atomic_compare_exchange_weak(&w->inbox, &head, t));
	rt_worker_kick(w);
}

/* From a plain thread: counted, so that a stop draining the tasks waits until the thread
 * has left the worker alone (the pushed task may run and exit before the kick returns). */
void rt_inbox_push_plain(struct rt_worker *w, struct rt_task *t, int kind)
{
	rt_call_hold();
	rt_inbox_push(w, t, kind);
	rt_call_leave();
}

/* A relaxed look, for loops that look again before they sleep (has_work() in park.c). */
static bool inbox_empty(struct rt_worker *w)
{
	return !atomic_load_explicit(&w->inbox, memory_order_relaxed);
}

static bool inbox_drain(struct rt_worker *w)
{
	if (inbox_empty(w))
		return false;
	struct rt_task *lifo = atomic_exchange(&w->inbox, NULL), *t = NULL;
	while (lifo) { /* oldest first */
		/* Pushed by another thread, which wrote it last (a spawn: all of it). */
		rt_task_prefetch(lifo);
		struct rt_task *next = lifo->inbox_next;
		lifo->inbox_next = t;
		t = lifo;
		lifo = next;
	}
	while (t) {
		struct rt_task *next = t->inbox_next;
		if (t->inbox_kind == RT_INBOX_NEW_QUEUED) {
			ts_wake_up_new_task_queued(rt_g.s, &t->ts, w->cpu);
		} else if (t->inbox_kind == RT_INBOX_WAKE_LISTED) {
			ts_ttwu_listed_activate(rt_g.s, &t->ts, w->cpu);
		} else if (t->inbox_kind == RT_INBOX_NEW) {
			struct ts_placement pl = ts_wake_up_new_task(rt_g.s, &t->ts, w->cpu, NULL);
			rt_trace_new(t, NULL, &pl);
			rt_stat_bump(&w->spawned);
		} else {
			rt_do_ttwu(t, w, NULL, 0);
			rt_stat_bump(&w->wakeups);
		}
		t = next;
	}
	return true;
}

/* ---- the scheduler loop ---- */

/* A contended lock's waiter looks at the lock less and less often: 1, 2, 4, ... up to
 * RT_SPIN_BACKOFF_MAX pauses between looks (~10 ns a pause on the 2-CPU VM, so at most
 * ~1.3 us late). Each look takes the lock's line into the waiter's cache, and the holder's
 * next lock or unlock then waits for it to come back: a spawner that locks its rq for
 * each child while the other worker's newly-idle balancing waits for that lock to pull
 * one spent ~40 % of a spawn so (ns a spawn, four alternated runs of `toposched bench`:
 * 777-866 looking at every pause, 628-640 with this backoff; 650-730 with at most 32).
 * After every 1,024 pauses the waiter yields its CPU, so that a holder whose thread the
 * kernel preempted gets to run. */
#define RT_SPIN_BACKOFF_MAX 128u

/* noinline: inlined, its loop costs each uncontended lock saved registers */
__attribute__((noinline)) void rt_spin_lock_slow(rt_spinlock_t *l)
{
	unsigned paused = 0, backoff = 1;
	do {
		while (atomic_load_explicit(&l->locked, memory_order_relaxed)) {
			for (unsigned i = 0; i < backoff; i++)
				cpu_relax();
			paused += backoff;
			if (paused >= 1024) {
				sched_yield();
				paused = 0;
			}
			if (backoff < RT_SPIN_BACKOFF_MAX)
				backoff *= 2;
		}
	} while (atomic_exchange_explicit(&l->locked, 1, memory_order_acquire));
}

static __attribute__((noinline)) void claim_cpu_wait(struct rt_task *t)
{
	unsigned spins = 0;
	do {
		/* Only the few instructions of a direct switch on another worker, unless
		 * that worker's thread was preempted right there. */
		while (atomic_load_explicit(&t->on_cpu, memory_order_relaxed)) {
			if (++spins % 1024 == 0)
				sched_yield();
			else
				cpu_relax();
		}
	} while (atomic_exchange_explicit(&t->on_cpu, 1, memory_order_acquire));
}

void rt_claim_cpu(struct rt_task *t)
{
	/* the wait out of line: inlined, its loop cost each switch saved registers */
	if (__builtin_expect(atomic_exchange_explicit(&t->on_cpu, 1, memory_order_acquire), 0))
		claim_cpu_wait(t);
}

void rt_after_switch(void)
{
	struct rt_worker *w = rt_this_worker();
	struct rt_task *p = w->switch_from;
	if (p) {
		w->switch_from = NULL;
		atomic_store_explicit(&p->on_cpu, 0, memory_order_release);
	}
}

/* Runs t (claimed) until a task switches back to the loop; returns that task (t, or
 * another one that t or its successors switched to directly), whose on_cpu the loop keeps
 * until it has done that task's bookkeeping: until then a NUMA stop work must not take it
 * (it may be blocking, and only the loop knows). */
static struct rt_task *run_task(struct rt_worker *w, struct rt_task *t)
{
	t->worker = w;
	if (__builtin_expect(!t->stack.map, 0)) /* its first run */
		rt_task_bind_stack(w, t);
	rt_set_current(t);
	rt_stat_bump(&w->switches);
	rt_trace_switch(w, NULL, t);
	rt_ctx_switch(&w->ctx, &t->ctx);
	struct rt_task *back = rt_current();
	rt_set_current(NULL);
	return back;
}

static void *worker_main(void *arg)
{
	struct rt_worker *w = arg;
	struct ts_sched *s = rt_g.s;
	int cpu = w->cpu;
	rt_set_this_worker(w);
	rt_ctx_init_thread(&w->ctx);
	struct rt_task *prev = NULL;
	w->last_tick = rt_clock_ns();
	rt_steal_start(w, w->last_tick);

	for (;;) {
		struct rt_task *deferred = NULL, *held = prev;
		bool balance = false, parking = false, numa = false;
		/* Read now: once unlocked, a yielded or woken prev may run (and switch out
		 * again) on another worker. */
		int reason = prev ? prev->reason : -1;
		rt_trace_left(w, prev, reason);
		/* Cleared only when set: the store is a locked instruction, on the line that
		 * pushers onto the inbox write (a kick seen as 0 here was nothing to clear;
		 * one that comes after the look leaves it 1, and the loop runs once more). */
		if (atomic_load_explicit(&w->need_resched, memory_order_relaxed))
			atomic_store(&w->need_resched, 0);
		/* A safe point: stop work of other workers' NUMA swaps. A yielded prev may be
		 * their partner; then it is no longer ours to account. */
		if (atomic_load_explicit(&w->stop_n, memory_order_relaxed) &&
		    rt_stop_service(w, prev, reason == RT_SW_YIELD || reason == RT_SW_PREEMPT)) {
			prev = NULL;
			reason = -1;
		}

		/* Wake-ups listed here (and spawns placed here) are activated before the pick,
		 * as an idle CPU runs sched_ttwu_pending() on the IPI before it schedules: an
		 * idle worker kicked by a push then runs the task in this round, not the next. */
		inbox_drain(w);
		uint64_t now = round_lock_clock(w);
		if (now - w->last_tick >= s->tick_nsec) {
			w->last_tick = now;
			uint64_t steal = rt_steal_tick(w);
			if (steal)
				ts_sched_account_steal(s, cpu, steal);
			balance = ts_sched_tick(s, cpu);
			rt_stat_bump(&w->ticks);
		}
		if (prev) {
			switch (reason) {
			case RT_SW_YIELD:
				ts_yield_task(s, cpu);
				break;
			case RT_SW_BLOCK: {
				int st = RT_BLOCKING;
				if (atomic_compare_exchange_strong(&prev->wstate, &st,
								   RT_PARKING)) {
					ts_deactivate_curr(s, cpu, TS_TASK_SLEEPING);
					parking = true;
				}
				/* else woken before it left: it stays runnable */
				break;
			}
			case RT_SW_EXIT:
				ts_deactivate_curr(s, cpu, TS_TASK_DEAD);
				break;
			}
		}
		/* A preempted task whose slice the core's tick did not end (no resched_curr)
		 * keeps the CPU, as in the kernel, where only need_resched leads to schedule().
		 * After a direct block the core has picked already: its pick is rq->curr. */
		struct ts_task *n = reason == RT_SW_PREEMPT && !s->rq[cpu].cfs.resched ? &prev->ts
				    : reason == RT_SW_SCHEDULED && s->rq[cpu].curr
					    ? s->rq[cpu].curr
					    : ts_schedule(s, cpu);
		/* The picked task may come from another worker (a pull, a wake-up, a spawn):
		 * the lines of the runtime's fields are asked for at once (the struct is the
		 * task's: ts first, and the core has touched its own). */
		if (n)
			rt_task_prefetch_rt(rt_task_of(n));
		if (n && rt_task_of(n)->numa.nr_pages)
			numa = rt_numa_due(w, rt_task_of(n));
		if (parking) {
			int st = RT_PARKING;
			if (!atomic_compare_exchange_strong_explicit(
				    &prev->wstate, &st, RT_SLEEPING, memory_order_release,
				    memory_order_acquire)) {
				/* WAKE_DEFERRED: the waker left the wake-up to us. */
				atomic_store_explicit(&prev->wstate, RT_RUNNING,
						      memory_order_relaxed);
				deferred = prev;
			}
		}
		host_unlock(NULL, cpu);
		if (held)
			atomic_store_explicit(&held->on_cpu, 0, memory_order_release);

		if (deferred) {
			rt_do_ttwu(deferred, w, NULL, 0);
			rt_stat_bump(&w->wakeups);
		}
		if (reason == RT_SW_EXIT)
			rt_task_finish(prev, cpu);
		prev = NULL;
		if (balance)
			ts_balance_tick(s, cpu);
		bool drained = inbox_drain(w);
		/* The round's reading, unless the round did slow work since (see above). */
		if (balance || deferred || drained || reason == RT_SW_EXIT)
			now = rt_clock_ns();
		uint64_t next_timer = rt_timer_fire(w, now);

		if (n) {
			struct rt_task *t = rt_task_of(n);
			rt_claim_cpu(t);
			/* A NUMA stop work may have moved t while the lock was dropped; a due
			 * NUMA scan may move it now (both before it runs: its stack is not live).
			 */
			if (!rt_still_curr(t, cpu) || (numa && rt_numa_work(w, t))) {
				atomic_store_explicit(&t->on_cpu, 0, memory_order_release);
				continue;
			}
			prev = run_task(w, t);
			continue;
		}
		if (atomic_load(&rt_g.stopping) && !ts_rq_nr_running(s, cpu) &&
		    !atomic_load(&w->inbox) && !w->timers.n) {
			rt_exits_flush(w);
			break;
		}
		uint64_t timeout = 0;
		if (next_timer) {
			now = rt_clock_ns();
			timeout = next_timer > now ? next_timer - now : 1;
		}
		rt_trace_idle(w);
		rt_worker_park(w, timeout);
	}
	return NULL;
}

/* ---- start / stop ---- */

static int parse_affinity(struct ts_cpumask **out)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	struct ts_cpumask *m = ts_cpumask_alloc(CPU_SETSIZE);
	if (!m)
		return -ENOMEM;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET((size_t)i, &set))
			ts_cpumask_set(m, i);
	*out = m;
	return 0;
}

static void rt_free_all(void)
{
	rt_numa_stop();
	rt_trace_abandon();
	if (rt_g.worker) {
		for (int i = 0; i < rt_g.topo->nr_cpus; i++) {
			struct rt_worker *w = rt_g.worker[i];
			if (!w)
				continue;
			rt_timer_heap_free(&w->timers);
			free(w);
		}
	}
	free(rt_g.rq_lock);
	free(rt_g.worker);
	free(rt_g.worker_cpus);
	if (rt_g.s)
		ts_sched_destroy(rt_g.s);
	if (rt_g.topo)
		ts_topology_free(rt_g.topo);
	rt_groups_free();
	memset(&rt_g, 0, sizeof(rt_g));
}

static int start(const struct ts_rt_config *cfg)
{
	struct ts_error err = {0};
	struct ts_cpumask *real = NULL, *map = NULL;
	int rc;
	memset(&rt_g, 0, sizeof(rt_g));
	if ((rc = rt_groups_init()))
		return rt_error(rc, "ts_rt_start: cannot initialise the group lock");
	if ((unsigned)cfg->tg_layout >= TS_TG_LAYOUT_NR)
		return rt_error(-EINVAL, "ts_rt_start: tg_layout %d is not a task group layout",
				(int)cfg->tg_layout);
	const char *spec = cfg->topology ? cfg->topology : "host";
	bool host = strcmp(spec, "host") == 0;
	rt_g.stack_size = cfg->stack_size ? cfg->stack_size : 256 * 1024;
	rt_g.stack_map_size = rt_stack_map_size(rt_g.stack_size);
	rt_g.idle_spin = cfg->idle_spin == 0 ? 200 : cfg->idle_spin < 0 ? 0 : cfg->idle_spin;
	rt_g.preempt = cfg->preempt;

	struct ts_features feat = ts_features_default();
	if (cfg->features && ts_features_parse(cfg->features, &feat, &err))
		return rt_error(err.code, "ts_rt_start: features: %s", err.msg);
	if ((rc = ts_topology_load(spec, &rt_g.topo, &err)))
		return rt_error(rc, "ts_rt_start: %s", err.msg);
	int nr = rt_g.topo->nr_cpus;
	if ((rc = parse_affinity(&real)))
		return rt_error(rc, "ts_rt_start: sched_getaffinity failed");
	/* this process's CPUs, for the messages: a cpulist is checked against them, not
	 * against cpu_set_t's CPU_SETSIZE */
	char *affinity = ts_cpumask_to_string(real);
	if (!affinity) {
		ts_cpumask_free(real);
		return rt_error(-ENOMEM, "ts_rt_start: out of memory");
	}
	if (host && cfg->cpulist) {
		struct ts_cpumask *want = ts_cpumask_alloc(CPU_SETSIZE);
		if (!want || (rc = ts_cpumask_parse(want, cfg->cpulist, &err))) {
			ts_cpumask_free(want);
			ts_cpumask_free(real);
			if (want && rc == -ERANGE)
				rc = rt_error(rc,
					      "ts_rt_start: cpulist '%s' names a CPU this process "
					      "cannot run on (its CPUs: %s)",
					      cfg->cpulist, affinity);
			else /* the parser's message names the list already */
				rc = rt_error(want ? rc : -ENOMEM, "ts_rt_start: %s",
					      want ? err.msg : "out of memory");
			free(affinity);
			return rc;
		}
		ts_cpumask_and(real, real, want);
		ts_cpumask_free(want);
	}
	int nr_real = ts_cpumask_weight(real);
	map = ts_cpumask_alloc(nr);
	if (!map || nr_real == 0) {
		ts_cpumask_free(real);
		ts_cpumask_free(map);
		rc = map ? rt_error(-EINVAL,
				    "ts_rt_start: no CPU to run on: cpulist '%s' and this "
				    "process's CPUs (%s) do not intersect",
				    cfg->cpulist ? cfg->cpulist : "", affinity)
			 : rt_error(-ENOMEM, "ts_rt_start: out of memory");
		free(affinity);
		return rc;
	}
	free(affinity);
	if (host) {
		for (int v = 0; v < nr; v++) {
			int os = rt_g.topo->cpu[v].os_index;
			if (os >= 0 && os < CPU_SETSIZE && ts_cpumask_test(real, os))
				ts_cpumask_set(map, v);
		}
	} else if (cfg->cpulist) {
		if ((rc = ts_cpumask_parse(map, cfg->cpulist, &err))) {
			ts_cpumask_free(real);
			ts_cpumask_free(map);
			return rt_error(rc, "ts_rt_start: topology '%s': %s", spec, err.msg);
		}
	} else {
		ts_cpumask_fill(map);
	}
	if (ts_cpumask_empty(map)) {
		ts_cpumask_free(real);
		ts_cpumask_free(map);
		return rt_error(-EINVAL, "ts_rt_start: no scheduled CPU left in topology '%s'",
				spec);
	}

	/* Count remote-node writes of load_avg (ts_rt_group_stats()): every group inherits
	 * the switch from the root. */
	struct ts_sched_config scfg = {.hz = cfg->hz,
				       .cpu_map = map,
				       .tg_layout = cfg->tg_layout,
				       .tg_track_writer_node = true};
	rc = ts_sched_create(rt_g.topo, feat, &rt_ops, NULL, &scfg, &rt_g.s, &err);
	if (rc) {
		ts_cpumask_free(real);
		ts_cpumask_free(map);
		return rt_error(rc, "ts_rt_start: %s", err.msg);
	}
	rt_clock_init();
	rt_g.t0 = rt_clock_ns();
	rt_g.rq_lock =
		aligned_alloc(_Alignof(struct rt_rq_lock), (size_t)nr * sizeof(*rt_g.rq_lock));
	rt_g.worker = calloc((size_t)nr, sizeof(*rt_g.worker));
	rt_g.worker_cpus = calloc((size_t)nr, sizeof(int));
	if (!rt_g.rq_lock || !rt_g.worker || !rt_g.worker_cpus) {
		ts_cpumask_free(real);
		ts_cpumask_free(map);
		return rt_error(-ENOMEM, "ts_rt_start: out of memory");
	}
	for (int i = 0; i < nr; i++)
		rt_spin_lock_init(rt_rq_lock_of(i));
	int v, k = 0;
	ts_for_each_cpu(v, map)
	{
		struct rt_worker *w = aligned_alloc(64, (sizeof(*w) + 63) & ~(size_t)63);
		if (!w) {
			ts_cpumask_free(real);
			ts_cpumask_free(map);
			return rt_error(-ENOMEM, "ts_rt_start: out of memory");
		}
		memset(w, 0, sizeof(*w));
		w->cpu = v;
		w->os_cpu = host ? rt_g.topo->cpu[v].os_index : ts_cpumask_nth(real, k % nr_real);
		rt_g.worker[v] = w;
		rt_g.worker_cpus[k++] = v;
	}
	rt_g.nr_workers = k;
	/* Polling before a park only where each worker has a CPU of its own: workers that
	 * share one would poll in each other's time. */
	rt_g.haltpoll = cfg->idle_spin >= 0 && !cfg->no_pin && (host || k <= nr_real);
	ts_cpumask_free(real);
	ts_cpumask_free(map);
	if ((rc = rt_numa_start(cfg, host)) || (rc = rt_trace_start(cfg)))
		return rc;

	for (int i = 0; i < rt_g.nr_workers; i++) {
		struct rt_worker *w = rt_g.worker[rt_g.worker_cpus[i]];
		pthread_attr_t a;
		pthread_attr_init(&a);
		if (!cfg->no_pin) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET((size_t)w->os_cpu, &set);
			pthread_attr_setaffinity_np(&a, sizeof(set), &set);
		}
		rc = pthread_create(&w->thread, &a, worker_main, w);
		pthread_attr_destroy(&a);
		if (rc) {
			atomic_store(&rt_g.stopping, 1);
			for (int j = 0; j < i; j++) {
				struct rt_worker *o = rt_g.worker[rt_g.worker_cpus[j]];
				rt_worker_kick(o);
				pthread_join(o->thread, NULL);
			}
			return rt_error(-rc, "ts_rt_start: pthread_create: %s", strerror(rc));
		}
	}
	return 0;
}

int ts_rt_start(const struct ts_rt_config *cfg)
{
	static const struct ts_rt_config defaults = {0};
	int expected = RT_STATE_STOPPED;
	if (rt_current())
		return rt_error(-EALREADY,
				"ts_rt_start: called from a task of the running runtime");
	if (!atomic_compare_exchange_strong(&rt_state, &expected, RT_STATE_CHANGING))
		return rt_error(-EALREADY, "ts_rt_start: the runtime is already %s",
				expected == RT_STATE_RUNNING ? "running" : "starting or stopping");
	int rc = start(cfg ? cfg : &defaults);
	if (rc) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s", ts_rt_last_error());
		rt_free_all();
		atomic_store(&rt_state, RT_STATE_STOPPED);
		return rt_error(rc, "%s", msg);
	}
	rt_error_clear();
	atomic_store_explicit(&rt_state, RT_STATE_RUNNING, memory_order_release);
	return 0;
}

/* Outside rt_g and never destroyed: a plain thread leaving its call notifies after its
 * decrement, and the stop may have seen the zero by then (woken by the last task's exit)
 * and freed rt_g. A late broadcast with nobody waiting is harmless. */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static atomic_long plain_calls; /* plain threads inside rt_call_enter() .. rt_call_leave() */

bool rt_call_enter(bool draining_ok)
{
	atomic_fetch_add(&plain_calls, 1);
	/* Both sides seq_cst: either the stop's look at plain_calls sees this call, or this
	 * look sees the state the stop stored before it (Dekker). */
	int st = atomic_load(&rt_state);
	if (st == RT_STATE_RUNNING || (draining_ok && st == RT_STATE_DRAINING))
		return true;
	rt_call_leave();
	return false;
}

void rt_call_hold(void)
{
	atomic_fetch_add(&plain_calls, 1);
}

void rt_call_leave(void)
{
	if (atomic_fetch_sub(&plain_calls, 1) == 1 && atomic_load(&rt_state) != RT_STATE_RUNNING)
		rt_stop_notify();
}

/* Until the tasks have exited (for_tasks), or the plain threads' calls have returned. */
static void stop_wait(bool for_tasks)
{
	pthread_mutex_lock(&stop_lock);
	while (for_tasks ? atomic_load(&rt_g.live) > 0 : atomic_load(&plain_calls) > 0)
		pthread_cond_wait(&stop_cond, &stop_lock);
	pthread_mutex_unlock(&stop_lock);
}

int ts_rt_stop(void)
{
	if (rt_current())
		return rt_error(-EBUSY,
				"ts_rt_stop: called from a task (call it from a plain thread)");
	int expected = RT_STATE_RUNNING;
	if (!atomic_compare_exchange_strong(&rt_state, &expected, RT_STATE_DRAINING))
		return rt_error(-ENXIO, "ts_rt_stop: the runtime is %s",
				expected == RT_STATE_STOPPED ? "not running"
							     : "starting or stopping");
	/* Draining: the tasks still spawn and join (a task that spawns is live, so rt_g.live
	 * stays above zero until its child counts), and plain threads join, wake and read. */
	stop_wait(true);
	/* No task is left, and none can start (a plain thread's spawn is refused while
	 * draining): the plain threads' calls still inside end, and later ones are refused. */
	atomic_store(&rt_state, RT_STATE_CHANGING);
	stop_wait(false);
	atomic_store(&rt_g.stopping, 1);
	for (int i = 0; i < rt_g.nr_workers; i++)
		rt_worker_kick(rt_g.worker[rt_g.worker_cpus[i]]);
	for (int i = 0; i < rt_g.nr_workers; i++)
		pthread_join(rt_g.worker[rt_g.worker_cpus[i]]->thread, NULL);
	int rc = rt_trace_stop();
	rt_tasks_free_all();
	rt_free_all();
	atomic_store(&rt_state, RT_STATE_STOPPED);
	return rc;
}

void rt_stop_notify(void)
{
	pthread_mutex_lock(&stop_lock);
	pthread_cond_broadcast(&stop_cond);
	pthread_mutex_unlock(&stop_lock);
}

bool ts_rt_running(void)
{
	return rt_is_running();
}
struct ts_sched *ts_rt_sched(void)
{
	return rt_is_running() ? rt_g.s : NULL;
}
int ts_rt_nr_workers(void)
{
	if (!rt_call_enter(true))
		return 0;
	int n = rt_g.nr_workers;
	rt_call_leave();
	return n;
}

void ts_rt_get_stats(struct ts_rt_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!rt_call_enter(true))
		return;
	for (int i = 0; i < rt_g.nr_workers; i++) {
		struct rt_worker *w = rt_g.worker[rt_g.worker_cpus[i]];
		out->spawned += ts_stat_read(&w->spawned);
		out->wakeups += ts_stat_read(&w->wakeups);
		out->early_wakeups += ts_stat_read(&w->early_wakeups);
		out->deferred_wakeups += ts_stat_read(&w->deferred_wakeups);
		out->ttwu_queued += ts_stat_read(&w->ttwu_queued);
		out->wakelist += ts_stat_read(&w->wakelist);
		out->switches += ts_stat_read(&w->switches);
		out->parks += ts_stat_read(&w->parks);
		out->ticks += ts_stat_read(&w->ticks);
		out->preemptions += ts_stat_read(&w->preemptions);
		out->steal_ns += rt_steal_read(w);
		out->numa_scans += ts_stat_read(&w->numa_scans);
		out->numa_searches += ts_stat_read(&w->numa_searches);
		out->numa_faults += ts_stat_read(&w->numa_faults);
		out->numa_faults_local += ts_stat_read(&w->numa_faults_local);
		out->numa_decisions += ts_stat_read(&w->numa_decisions);
		out->numa_migrations += ts_stat_read(&w->numa_migrations);
		out->numa_swaps += ts_stat_read(&w->numa_swaps);
		out->numa_migrate_failed += ts_stat_read(&w->numa_migrate_failed);
	}
	out->spawned += atomic_load_explicit(&rt_g.spawned_near, memory_order_relaxed);
	rt_call_leave();
}

/* The start of a direct round (a yield or a block without the loop): false when the loop
 * has work of its own (stop work, the inbox, the tick, an expired sleep); else true, with
 * w's rq locked and the round's clock started. */
static inline __attribute__((always_inline)) bool direct_round_begin(struct rt_worker *w)
{
	struct ts_sched *s = rt_g.s;
	if (!inbox_empty(w) || atomic_load_explicit(&w->stop_n, memory_order_relaxed))
		return false;
	uint64_t now = round_lock_clock(w);
	if (now - w->last_tick >= s->tick_nsec || (w->timers.n && w->timers.v[0]->wake_at <= now)) {
		host_unlock(NULL, w->cpu);
		return false;
	}
	return true;
}

/* Switches from t straight to next, the core's pick on w's CPU, and returns true once t
 * runs again (anywhere); false, with nothing done, when a NUMA swap took next away since
 * the pick. */
static bool switch_direct(struct rt_worker *w, struct rt_task *t, struct rt_task *next)
{
	rt_claim_cpu(next);
	if (!rt_still_curr(next, w->cpu)) {
		atomic_store_explicit(&next->on_cpu, 0, memory_order_release);
		return false;
	}
	w->switch_from = t;
	next->worker = w;
	if (__builtin_expect(!next->stack.map, 0)) /* its first run */
		rt_task_bind_stack(w, next);
	rt_set_current(next);
	rt_stat_bump(&w->switches);
	rt_trace_switch(w, t, next);
	rt_ctx_switch(&t->ctx, &next->ctx);
	rt_after_switch();
	return true;
}

/* ts_yield() of task t, without the loop where it has nothing to do (see above). */
static void yield_direct(struct rt_task *t)
{
	struct rt_worker *w = t->worker;
	struct ts_sched *s = rt_g.s;
	int cpu = w->cpu;
	if (!direct_round_begin(w))
		goto loop;
	ts_yield_task(s, cpu);
	struct ts_task *n = ts_schedule(s, cpu);
	host_unlock(NULL, cpu);
	if (!n) { /* t itself is runnable and queued: the core always finds a task */
		fprintf(stderr, "toposched runtime: nothing to run after a yield of task %s\n",
			t->name);
		abort();
	}
	struct rt_task *next = rt_task_of(n);
	if (next == t)
		return;
	/* Not switched: a NUMA swap took next away; t is queued again, the loop picks anew. */
	if (switch_direct(w, t, next))
		return;
loop:
	rt_switch_out(t, RT_SW_YIELD);
}

/* A task's block (wake.c) without the loop where it has nothing to do: the loop's round
 * for a blocking prev (BLOCKING -> PARKING, ts_deactivate_curr(), ts_schedule(), PARKING ->
 * SLEEPING, all under the rq lock) done by the task itself, on its own stack, then a direct
 * switch to the task picked, as a direct yield does. The stack stays the blocker's until
 * the task switched to has left it (on_cpu, rt_after_switch()), so a waker that claims
 * the task meanwhile waits as it would for the loop. A task woken before it left keeps
 * running when the core picks it again (the kernel's ttwu_runnable()), without a switch.
 * The loop is used when it has work of its own (as for a yield), when nothing is left to
 * run (it parks), and when the task picked is due for a NUMA scan (it runs the scan). */
void rt_block_direct(struct rt_task *t)
{
	struct rt_worker *w = t->worker;
	struct ts_sched *s = rt_g.s;
	int cpu = w->cpu;
	if (!direct_round_begin(w))
		goto loop;
	/* t itself runs this, so it needs no PARKING step: a waker that finds it still
	 * BLOCKING after the look below marks it RUNNING (it thinks t never left), the
	 * BLOCKING -> SLEEPING swap then fails, and t, taken off the queue meanwhile, is
	 * woken here, as for WAKE_DEFERRED: one locked instruction a block fewer. */
	bool parking = atomic_load_explicit(&t->wstate, memory_order_relaxed) == RT_BLOCKING;
	/* ts_deactivate_curr() + ts_schedule() in one pass when t still blocks */
	struct ts_task *n =
		parking ? ts_schedule_deactivate(s, cpu, TS_TASK_SLEEPING) : ts_schedule(s, cpu);
	bool numa = n && rt_task_of(n)->numa.nr_pages && rt_numa_due(w, rt_task_of(n));
	bool deferred = false;
	if (parking) {
		int st = RT_BLOCKING;
		if (!atomic_compare_exchange_strong_explicit(&t->wstate, &st, RT_SLEEPING,
							     memory_order_release,
							     memory_order_acquire)) {
			/* a waker came since the look: it left the wake-up to us (it counted
			 * an early wake-up; this is a deferred one too) */
			atomic_store_explicit(&t->wstate, RT_RUNNING, memory_order_relaxed);
			rt_stat_bump(&w->deferred_wakeups);
			deferred = true;
		}
	}
	host_unlock(NULL, cpu);
	if (deferred) {
		rt_do_ttwu(t, w, NULL, 0);
		rt_stat_bump(&w->wakeups);
	}
	if (n == &t->ts)
		return;
	if (!n || numa)
		goto scheduled;
	/* Not switched: a NUMA swap took next away; the loop runs what is current now. */
	if (switch_direct(w, t, rt_task_of(n)))
		return;
scheduled:
	rt_switch_out(t, RT_SW_SCHEDULED);
	return;
loop:
	rt_switch_out(t, RT_SW_BLOCK);
}

void ts_cond_resched(void)
{
	struct rt_task *t = rt_current();
	/* The tick is due when its period has passed since the worker's last one: the loop
	 * runs it (last_tick is the loop's, on this same thread). */
	if (!t || !rt_g.preempt || rt_clock_ns() - t->worker->last_tick < rt_g.s->tick_nsec)
		return;
	rt_stat_bump(&t->worker->preemptions);
	rt_switch_out(t, RT_SW_PREEMPT);
}

int ts_yield(void)
{
	struct rt_task *t = rt_current();
	if (!t) {
		sched_yield();
		return 0;
	}
	yield_direct(t);
	return 0;
}
