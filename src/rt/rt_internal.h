/* Internal structures of the runtime (src/rt/): shared by its files, not installed. */
#ifndef TOPOSCHED_RT_INTERNAL_H
#define TOPOSCHED_RT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/runtime_core.h"

#if defined(TS_RT_CTX_UCONTEXT)
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TS_RT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TS_RT_ASAN 1
#endif
#endif
/* Memory kept for reuse (a cached task struct or stack) is poisoned under ASan, so that a
 * use after its owner's end is still reported. */
#if defined(TS_RT_ASAN)
#include <sanitizer/asan_interface.h>
#define RT_POISON(p, n)	  ASAN_POISON_MEMORY_REGION(p, n)
#define RT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define RT_POISON(p, n)	  ((void)(p), (void)(n))
#define RT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
#if defined(__SANITIZE_THREAD__)
#define TS_RT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TS_RT_TSAN 1
#endif
#endif

/* ---- locks (worker.c) ---- */

/* The pause of a polling loop. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* The lock of a run queue, of a task's pi_lock and join lock, of a channel and the other
 * wait queues: a spinlock, as the kernel's raw_spinlock_t of rq->lock and p->pi_lock.
 * Each is held for a few hundred nanoseconds at most, and no task blocks holding one.
 * The unlock is a plain release store: a glibc mutex's unlock is a locked exchange (it
 * must learn whether to FUTEX_WAKE a sleeper), one of the ~18 locked instructions of a
 * channel hand-over, each of which waits for the core's stores of the switch to drain.
 * A waiter spins with pause, looking at the lock less often the longer it waits
 * (rt_spin_lock_slow()), and yields its CPU every 1024 pauses, so that a holder whose
 * thread the kernel preempted gets to run (as rt_claim_cpu() waits for on_cpu). */
typedef struct {
	atomic_int locked;
} rt_spinlock_t;

void rt_spin_lock_slow(rt_spinlock_t *l);
static inline void rt_spin_lock_init(rt_spinlock_t *l)
{
	atomic_init(&l->locked, 0);
}
static inline void rt_spin_lock(rt_spinlock_t *l)
{
	if (__builtin_expect(atomic_exchange_explicit(&l->locked, 1, memory_order_acquire), 0))
		rt_spin_lock_slow(l);
}
/* rt_spin_lock(), saying whether the lock had to be waited for (a clock read taken
 * before it is then stale). */
static inline bool rt_spin_lock_waited(rt_spinlock_t *l)
{
	if (__builtin_expect(!atomic_exchange_explicit(&l->locked, 1, memory_order_acquire), 1))
		return false;
	rt_spin_lock_slow(l);
	return true;
}
static inline void rt_spin_unlock(rt_spinlock_t *l)
{
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

/* Asks for the n cache lines from p (64-byte aligned) in the state a store needs, without
 * waiting for them: x86-64's PREFETCHW where the CPU has it (rt_prefetchw, clock.c), else
 * a prefetch for writing as the compiler has it (x86-64 without PRFCHW: a plain
 * prefetch). For lines another worker wrote last, whose transfers a store would otherwise
 * wait for at the next locked instruction (a store buffer drains there), and a load one
 * by one. n is a constant at every call: the loop unrolls. */
#if defined(__x86_64__)
extern bool rt_prefetchw;
#endif
static inline __attribute__((always_inline)) void rt_prefetch_w(const void *p, int n)
{
	const char *c = p;
#if defined(__x86_64__)
	if (__builtin_expect(rt_prefetchw, 1)) {
		for (int i = 0; i < n; i++)
			__asm__ volatile("prefetchw %0" : : "m"(c[64 * i]));
		return;
	}
#endif
	for (int i = 0; i < n; i++)
		__builtin_prefetch(c + 64 * i, 1, 3);
}

/* ---- context switch (context.c, context_switch.S) ---- */

/* An execution context: a task's stack, or a worker thread's own stack. */
struct rt_ctx {
	void *sp; /* saved stack pointer (assembly back ends) */
#if defined(TS_RT_CTX_UCONTEXT)
	ucontext_t uc;
#endif
	void *stack_lo; /* for ASan: the stack this context runs on */
	size_t stack_size;
	void *asan_fake;  /* ASan's fake stack, saved while switched away */
	void *tsan_fiber; /* TSan's fiber of this context */
};

/* The context of the calling thread (a worker's scheduler loop). */
void rt_ctx_init_thread(struct rt_ctx *c);
/* A new context on [lo, lo+size) that starts in entry(arg); entry never returns. Under
 * TSan it runs on `fiber` if not NULL (one rt_ctx_keep_fiber() gave), else on a new one. */
void rt_ctx_init_task(struct rt_ctx *c, void *lo, size_t size, void (*entry)(void *), void *arg,
		      void *fiber);
#if defined(TS_RT_ASAN) || defined(TS_RT_TSAN)
/* Releases what the sanitizers keep for c (not the stack); c must not be running. */
void rt_ctx_destroy(struct rt_ctx *c);
/* Takes c's TSan fiber out of it, to be reused by a later context (NULL without TSan):
 * rt_ctx_destroy(c) then leaves it alone. */
void *rt_ctx_keep_fiber(struct rt_ctx *c);
/* Destroys a fiber rt_ctx_keep_fiber() gave (NULL: nothing). */
void rt_ctx_fiber_free(void *fiber);
/* The first call of a new context's entry function (finishes the sanitizers' switch). */
void rt_ctx_entered(void);
#else
/* Without sanitizers there is nothing to do: no call on the spawn and exit paths. */
static inline void rt_ctx_destroy(struct rt_ctx *c)
{
	(void)c;
}
static inline void *rt_ctx_keep_fiber(struct rt_ctx *c)
{
	(void)c;
	return NULL;
}
static inline void rt_ctx_fiber_free(void *fiber)
{
	(void)fiber;
}
static inline void rt_ctx_entered(void) {}
#endif
/* Saves the caller into from and resumes to; returns when something switches back. */
void rt_ctx_switch(struct rt_ctx *from, struct rt_ctx *to);
/* Same, for a context that will never be resumed (task exit). */
_Noreturn void rt_ctx_switch_final(struct rt_ctx *from, struct rt_ctx *to);

/* ---- stacks (stack.c) ---- */

struct rt_stack {
	void *map; /* guard page(s) + stack; NULL: none (a task that has not run yet) */
	size_t map_size;
	void *lo; /* lowest usable byte (just above the guard) */
	size_t size;
	/* Under TSan, the fiber of the task that last ran on it, while the stack waits in a
	 * cache: creating one maps and clears TSan's per-thread state, ~2 ms a task in this
	 * guest (stack.c); and how many tasks have run on it. */
	void *fiber;
	unsigned int fiber_uses;
};
/* A stack of at least `size` bytes (at least 4 pages) under a guard page. */
int rt_stack_alloc(struct rt_stack *st, size_t size);
/* The map_size of such a stack. */
size_t rt_stack_map_size(size_t size);
/* Unmaps st (and destroys the TSan fiber kept with it). */
void rt_stack_free(struct rt_stack *st);
size_t rt_page_size(void);

/* The free default-size stacks of one worker (stack.c), touched only by its thread. */
#define RT_STACK_CACHE_LOCAL 64	 /* per worker */
#define RT_STACK_CACHE_BATCH 32	 /* moved between a worker's cache and the pool at once */
#define RT_STACK_CACHE_MAX   256 /* the shared pool: this many per worker, and one more */
struct rt_stack_cache {
	int n;
	struct rt_stack v[RT_STACK_CACHE_LOCAL]; /* the hottest last */
};
struct rt_worker;
/* A default-size stack for a task about to run on w, by w's thread: from w's cache, the
 * shared pool, or mapped anew (-errno if that fails). */
int rt_stack_take(struct rt_worker *w, struct rt_stack *st);
/* A finished task's default-size stack back to w's cache, by w's thread; st is cleared. */
void rt_stack_give(struct rt_worker *w, struct rt_stack *st);
/* Unmaps every cached stack (ts_rt_stop(), once the workers have exited). */
void rt_stack_caches_flush(void);

/* ---- tasks (task.c) ---- */

/* The wake-up state word of a task (see wake.c for the protocol). */
enum rt_wstate {
	RT_RUNNING,	  /* running or runnable */
	RT_BLOCKING,	  /* announced it will block; still on its worker */
	RT_PARKING,	  /* its worker is taking it off the run queue */
	RT_SLEEPING,	  /* off every run queue: a waker may claim it */
	RT_WAKE_DEFERRED, /* a waker came while PARKING: the worker wakes it when done */
};

/* Why a task switched back to its worker's loop. RT_SW_SCHEDULED: a direct block
 * (worker.c) did the round's bookkeeping and ts_schedule() itself, then found nothing to
 * switch to directly; the loop runs the CPU's current task, if any. */
enum rt_switch_reason { RT_SW_YIELD, RT_SW_BLOCK, RT_SW_EXIT, RT_SW_PREEMPT, RT_SW_SCHEDULED };

/* ---- NUMA (numa.c) ---- */

/* A range of pages a task declared (ts_numa_declare), with the node its pages are taken
 * to be on when the kernel is not asked (a virtual topology, or no libnuma). */
struct rt_numa_region {
	uintptr_t start;
	size_t pages;
	int node;
};

/* A task's side of the runtime's NUMA balancer. Written by the task itself (declare) and
 * by the worker scanning it while it does not run (on_cpu hands it over). */
struct rt_numa_task {
	struct rt_numa_region *region;
	int nr_region, cap_region;
	size_t nr_pages; /* declared, in all regions; the core's scan offset (own_mm's
			  * numa_scan_offset) counts pages into them in order */
};

/* A swap the core decided (migrate_swap()): the stop work runs on the partner's worker,
 * the only one that can take the partner off its CPU at a safe point (stop_two_cpus()). */
enum rt_stop_state { RT_STOP_POSTED, RT_STOP_TAKEN, RT_STOP_DONE, RT_STOP_CANCELLED };
struct rt_stop_work {
	struct ts_numa_result *res;
	struct rt_stop_work *next;
	atomic_int state; /* enum rt_stop_state; POSTED -> TAKEN/CANCELLED under stop_lock */
	int rc;		  /* ts_numa_migrate_apply()'s, valid once DONE */
};
/* What an inbox entry asks of its worker: to place and activate a task spawned by a plain
 * thread (NEW), to activate one a task placed there (NEW_QUEUED:
 * ts_wake_up_new_task_queued()), or to wake one up (WAKE). */
enum rt_inbox_kind { RT_INBOX_NEW, RT_INBOX_NEW_QUEUED, RT_INBOX_WAKE, RT_INBOX_WAKE_LISTED };

struct rt_task {
	struct ts_task ts; /* the core's task (host_data = this); first (task.c clears the rest) */
	struct rt_ctx ctx;
	struct rt_stack stack;
	_Atomic int wstate;	  /* enum rt_wstate */
	atomic_int on_cpu;	  /* 1 while a worker runs it (a task never runs twice) */
	rt_spinlock_t pi_lock;	  /* held around ts_try_to_wake_up(), as p->pi_lock */
	struct rt_worker *worker; /* the worker running it (valid while it runs) */
	int reason;		  /* enum rt_switch_reason, set before switching out */
	bool blocked;		  /* it has blocked (rt_prepare_block()): a waker may have
				   * taken pi_lock for it (rt_task_finish()) */
	ts_task_fn fn;
	void *arg, *ret;
	uint64_t id;
	/* join */
	rt_spinlock_t join_lock;
	atomic_int finished; /* futex word for plain-thread joiners */
	int ext_waiters;
	struct rt_task *joiner;
	bool detached;	/* freed by rt_task_finish(), never joined */
	bool own_stack; /* a stack of its own size, mapped at the spawn, kept until the end;
			 * else a default one, held only while it runs (stack.c) */
	/* sleep (timer.c): in its worker's heap while sleeping */
	uint64_t wake_at;
	/* inbox of a worker (wake-ups and spawns from plain threads, spawns queued by tasks) */
	struct rt_task *inbox_next;
	int inbox_kind;
	/* chained by a waker between a wait queue's unlock and the wake-ups */
	struct rt_task *wake_next;
	/* a task cache's free list (task.c), while the struct waits there for reuse; in the
	 * shared cache the head of each chain also links the next chain and counts its own */
	struct rt_task *cache_next, *cache_chain;
	int cache_chain_n;
	/* NUMA balancing: the declared memory and scan state; swap decisions that name this
	 * task as the partner and are not done yet (it is not freed while there are any). */
	struct rt_numa_task numa;
	atomic_int numa_pins;
	/* Written at spawn, read by the trace and error messages: after the fields a worker
	 * reads to run the task (numa.nr_pages included), which then fit one line less. */
	char name[32];
	char err[TS_ERR_MSG_MAX]; /* ts_rt_last_error() for this task; last (task.c) */
};

static inline struct rt_task *rt_task_of(struct ts_task *p)
{
	return p->host_data;
}

/* rt_prefetch_w() of the lines of t that starting and running it touch: its struct up to
 * the error message's first byte (the core's task, the runtime's fields). A spawn writes
 * them on one worker, the worker that runs the task reads and writes them on another, and
 * when that one frees it the next spawn writes them again: each time the lines cross
 * between the CPUs, one by one as the code reaches them, and each store among them holds
 * up the next locked instruction until its line came. Asked for together, ahead, the
 * transfers overlap. (A task's struct is 64-byte aligned, task.c.) */
#define RT_TASK_LINE(off) ((off) & ~(size_t)63)
static inline void rt_task_prefetch(const struct rt_task *t)
{
	rt_prefetch_w(t, (int)RT_TASK_LINE(offsetof(struct rt_task, err)) / 64 + 1);
}
/* The runtime's fields of t that running it touches (after the core, which touched its
 * own, picked it): up to the name, which only the spawn writes. */
static inline void rt_task_prefetch_rt(const struct rt_task *t)
{
	rt_prefetch_w((const char *)t + RT_TASK_LINE(offsetof(struct rt_task, ctx)),
		      (int)(RT_TASK_LINE(offsetof(struct rt_task, name)) -
			    RT_TASK_LINE(offsetof(struct rt_task, ctx))) /
				      64 +
			      1);
}

/* The task running on this thread (NULL in a worker's own context or a plain thread) and
 * this thread's worker. Never cached by the compiler across a context switch. */
struct rt_task *rt_current(void);
struct rt_worker *rt_this_worker(void);
void rt_set_current(struct rt_task *t);
void rt_set_this_worker(struct rt_worker *w);

/* Exit bookkeeping, by the worker after the task's last switch (no lock held). */
void rt_task_finish(struct rt_task *t, int cpu);
/* Gives t (a task of the default stack size that has not run yet: no stack.map) its stack
 * and context, by the thread of w, the worker about to run it (task.c). */
void rt_task_bind_stack(struct rt_worker *w, struct rt_task *t);
/* Runs fn on the live task named by id (0 = the calling task) with the registry locked,
 * so that it is not freed meanwhile; fn's error is prefixed with `what`. */
int rt_task_with(uint64_t id, const char *what, int (*fn)(struct rt_task *, void *), void *arg);
/* Frees every task still registered and empties the task caches (ts_rt_stop()). */
void rt_tasks_free_all(void);

/* A cache of finished task structs with their stacks (guard page kept), reused by
 * ts_spawn() for tasks with the default stack size: see task.c. */
struct rt_task_cache {
	struct rt_task *head;
	int n;
};
#define RT_TASK_CACHE_LOCAL 64	/* per worker */
#define RT_TASK_CACHE_BATCH 32	/* moved between a worker's and the shared one at once */
#define RT_TASK_CACHE_MAX   256 /* the shared one: this many per worker, and one more */
#define RT_EXIT_BATCH	    32	/* finished tasks a worker accounts for at once */
/* Accounts for this worker's finished tasks (task.c), by its own thread: releases the
 * detached ones and takes them all off rt_g.live. When it parks, stops, or has
 * RT_EXIT_BATCH of them. */
void rt_exits_flush(struct rt_worker *w);

/* ---- workers (worker.c) ---- */

/* The state of the cpuidle haltpoll governor of one worker (park.c), and the governor's
 * parameters (its module parameters' defaults). */
struct rt_haltpoll {
	uint64_t poll_limit_ns; /* dev->poll_limit_ns */
	bool last_polled;	/* dev->last_state_idx == 0 */
	bool poll_time_limit;	/* dev->poll_time_limit: the last poll saw no event */
};
#define RT_HALT_POLL_NS		200000u /* guest_halt_poll_ns */
#define RT_HALT_POLL_GROW	2u	/* guest_halt_poll_grow */
#define RT_HALT_POLL_GROW_START 50000u	/* guest_halt_poll_grow_start */
#define RT_HALT_POLL_SHRINK	2u	/* guest_halt_poll_shrink */
/* haltpoll_select(): whether an idle worker polls before it parks. */
bool rt_haltpoll_select(const struct rt_haltpoll *hp);
/* adjust_poll_limit() after a park (a halt) that lasted block_ns. */
void rt_haltpoll_adjust(struct rt_haltpoll *hp, uint64_t block_ns);

struct rt_timer_heap {
	struct rt_task **v;
	size_t n, cap;
};

/* rt_worker.round_clock. A wake-up (rt_do_ttwu()) is ARMED: its first clock() reading
 * (record_wakee()) is kept (TAKEN), and serves the activation once the target's rq lock
 * was taken without waiting (ON): try_to_wake_up() reads the clock once. */
enum rt_round_clock { RT_CLOCK_OFF, RT_CLOCK_ON, RT_CLOCK_ARMED, RT_CLOCK_TAKEN };

struct rt_worker {
	/* What other threads write to reach this worker, on one line: a push onto its inbox
	 * and the kick after it (rt_inbox_push(): need_resched, then parked) take that line
	 * from this worker once, not twice, and its idle polling reads one line. */
	alignas(64) atomic_int need_resched;
	atomic_int parked; /* futex word: 1 while parked (park.c) */
	/* The inbox: a stack other threads push onto (rt_inbox_push()) and the worker takes
	 * whole (inbox_drain()), lock-free. */
	_Atomic(struct rt_task *) inbox;
	alignas(64) int cpu; /* scheduler CPU */
	int os_cpu;	     /* real CPU it is pinned to */
	pthread_t thread;
	struct rt_ctx ctx; /* the scheduler loop's context */
	uint64_t last_tick;
	/* Steal time (steal.c): on, and the wall clock, the thread's CPU time and the park
	 * count at the last tick, written by this worker's thread only, read by others
	 * (rt_steal_read()) under steal_seq (odd while they change; 0 before the start);
	 * cpu_clock is the thread's CPU-time clock for those readers. */
	bool steal_on;
	_Atomic uint64_t steal_seq;
	_Atomic uint64_t steal_wall, steal_cpu, steal_parks;
	clockid_t cpu_clock;
	/* The clock of a scheduling round or a wake-up (worker.c, enum rt_round_clock): while
	 * it is RT_CLOCK_ON (rq locked, this thread), the host's clock() returns round_now. */
	uint64_t round_now;
	unsigned char round_clock;
	/* The task a direct task-to-task switch left: its on_cpu is cleared by the task
	 * switched to, once off its stack (rt_after_switch()). */
	struct rt_task *switch_from;
	struct rt_timer_heap timers; /* sleeping tasks of this worker; only its thread */
	_Alignas(64) struct rt_task_cache tcache; /* only this worker's thread (loop, tasks) */
	struct rt_stack_cache scache;		  /* the same */
	/* finished tasks not accounted for yet (rt_exits_flush()), its thread only: the
	 * detached ones (their slots not released) and the count of all */
	struct rt_task *zombies;
	int nr_zombies;
	long nr_exited;
	struct rt_haltpoll haltpoll; /* only this worker's thread (park.c) */
	/* NUMA: stop work posted by other workers (numa.c), run at this worker's safe points */
	pthread_mutex_t stop_lock;
	struct rt_stop_work *stop_head;
	atomic_int stop_n;
	struct ts_cpumask *numa_lockset; /* rq locks a search from this CPU holds (numa.c) */
	struct ts_cpumask *numa_ownset;	 /* this CPU alone: the lock a scan feeds faults under */
	void **numa_pages;		 /* scratch of a scan: [numa_samples] */
	int *numa_status, *numa_node;
	/* counters (relaxed, this worker only) */
	ts_counter spawned, wakeups, early_wakeups, deferred_wakeups, switches, parks, ticks;
	ts_counter preemptions;
	ts_counter steal_ns;	/* steal time passed to the core (steal.c) */
	ts_counter ttwu_queued; /* wake-ups the kernel would activate on the target (wake.c) */
	ts_counter wakelist;	/* ... that the target activated (it ran nothing; wake.c) */
	ts_counter numa_scans, numa_searches, numa_faults, numa_faults_local, numa_decisions,
		numa_migrations, numa_swaps, numa_migrate_failed;
};

/* A run queue's lock on a cache line of its own, as the kernel's rq->__lock sits in its
 * CPU's struct rq: packed side by side, each lock or unlock of one CPU's queue took the
 * line away from every other worker locking its own. */
struct rt_rq_lock {
	_Alignas(64) rt_spinlock_t l;
};
_Static_assert(sizeof(struct rt_rq_lock) == 64, "one run-queue lock per cache line");

struct rt {
	struct ts_topology *topo;
	struct ts_sched *s;
	struct rt_worker **worker; /* [topo->nr_cpus]; NULL for unscheduled CPUs */
	int *worker_cpus;	   /* scheduled CPUs, in order */
	int nr_workers;
	struct rt_rq_lock *rq_lock; /* [topo->nr_cpus], 64-byte aligned */
	size_t stack_size;
	size_t stack_map_size; /* a default stack's mapping: tested at every spawn */
	int idle_spin;
	bool haltpoll; /* idle workers poll before they park (park.c): each has its own CPU */
	bool preempt;  /* ts_rt_config.preempt */
	uint64_t t0;
	atomic_int stopping;
	/* Written on every spawn, exit and join, by whichever worker does it: on lines of
	 * their own, or each write would take the line of s, worker and rq_lock above, which
	 * every operation on every worker reads, away from the other workers. */
	/* tasks spawned and not yet exited; a worker subtracts its exits in batches
	 * (rt_exits_flush()), so it reaches 0 only once every worker has accounted for its own */
	_Alignas(64) atomic_long live;
	_Alignas(64) atomic_uint next_inbox; /* round robin for spawns from plain threads */
	atomic_ulong spawned_near;	     /* spawns placed on their spread CPU (task.c) */
	atomic_uint *spread_next;	     /* [nr_nodes]: next spread index near each node */
	/* NUMA balancing (numa.c) */
	bool numa_on;	 /* feature NUMA */
	bool numa_query; /* host topology and libnuma: ask the kernel page nodes */
	int *os_node;	 /* [nr_nodes]: the OS node of each topology node, or -1 */
	int *node_of_os; /* [nr_os_nodes]: the inverse, -1 where none */
	int nr_os_nodes;
	unsigned int numa_delay_ms, numa_period_ms; /* ts_numa_scan_tune(); period 0: adaptive */
	unsigned int numa_samples;
	uint64_t numa_stop_delay_ns; /* test knob */
	pthread_mutex_t trace_lock;
	struct ts_rt_numa_event *trace;
	size_t trace_cap, trace_n;
	/* task groups (group.c): the groups of this run, under group_lock */
	pthread_mutex_t group_lock;
	struct ts_rt_group **groups;
	int nr_groups, cap_groups;
};

extern struct rt rt_g;
static inline rt_spinlock_t *rt_rq_lock_of(int cpu)
{
	return &rt_g.rq_lock[cpu].l;
}
/* Draining: ts_rt_stop() waits for the tasks, which may still spawn, join and use
 * everything else. Changing: the workers are being started or stopped. */
enum { RT_STATE_STOPPED, RT_STATE_CHANGING, RT_STATE_RUNNING, RT_STATE_DRAINING };
extern atomic_int rt_state;
static inline bool rt_is_running(void)
{
	int s = atomic_load_explicit(&rt_state, memory_order_acquire);
	return s == RT_STATE_RUNNING || s == RT_STATE_DRAINING;
}

/* clock.c: the runtime's clock (ns, monotonic; the TSC scaled where reliable), set up
 * by rt_clock_init() (once per process), and the system's CLOCK_MONOTONIC. */
void rt_clock_init(void);
uint64_t rt_monotonic_ns(void);
#if defined(__x86_64__)
#define RT_TSC_SHIFT 32
extern struct rt_tsc {
	bool on;
	uint64_t tsc0, ns0;
	uint64_t mult; /* ns per cycle << RT_TSC_SHIFT */
} rt_tsc;
/* Inline: a channel hop reads it twice, a yield once. */
static inline uint64_t rt_clock_ns(void)
{
	if (__builtin_expect(rt_tsc.on, 1)) {
		uint64_t d = __builtin_ia32_rdtsc() - rt_tsc.tsc0;
		return rt_tsc.ns0 +
		       (uint64_t)(((unsigned __int128)d * rt_tsc.mult) >> RT_TSC_SHIFT);
	}
	return rt_monotonic_ns();
}
#else
static inline uint64_t rt_clock_ns(void)
{
	return rt_monotonic_ns();
}
#endif

/* steal.c: the wall time a worker's thread did not run while it had a task running,
 * passed to the core as steal time at ticks (only the worker's own thread calls these;
 * rt_steal_start()'s now is the runtime clock). rt_steal_tick() returns the ns to pass (0: none, or
 * not known), for the stretch up to its own clock reading. rt_steal_read(), from any thread: the
 * worker's steal up to now, the stretch since its last tick included. */
void rt_steal_start(struct rt_worker *w, uint64_t now);
uint64_t rt_steal_tick(struct rt_worker *w);
uint64_t rt_steal_read(struct rt_worker *w);
void rt_worker_kick(struct rt_worker *w);		       /* need_resched + unpark (park.c) */
void rt_worker_park(struct rt_worker *w, uint64_t timeout_ns); /* 0 = no timeout */
void rt_inbox_push(struct rt_worker *w, struct rt_task *t, int kind);
void rt_inbox_push_plain(struct rt_worker *w, struct rt_task *t, int kind); /* no worker's */
static inline void rt_stat_bump(ts_counter *c)
{
	ts_stat_inc(c);
}

/* ---- wake-ups and waiting (wake.c) ---- */

/* Wakes t; returns true if this call woke it (false: it was awake already). From a task
 * the waker is that task on its worker's CPU; from a worker's loop the waker is no task;
 * from a plain thread the wake-up is handed to a worker's inbox. */
bool rt_wake(struct rt_task *t, int wake_flags);
/* rt_wake() by self, the caller's rt_current() (a channel hop has it already). */
bool rt_wake_by(struct rt_task *self, struct rt_task *t, int wake_flags);
/* The core's wake-up of a task this caller has claimed: try_to_wake_up() of t from this
 * thread's worker w, on its CPU, with no rq lock held. */
void rt_do_ttwu(struct rt_task *t, struct rt_worker *w, struct rt_task *waker, int wake_flags);
/* Wake-ups whose activation the kernel would have queued on the target's wakelist, summed
 * over the workers (relaxed; ts_rt_stats has no field for it yet). */
/* Announces that the current task is about to block (call with the wait queue's lock
 * held, before the waker can see it), then rt_block() after dropping that lock. */
void rt_prepare_block(struct rt_task *t);
void rt_block(struct rt_task *t);
/* rt_block() of the current task t: the round's bookkeeping on t's own stack and a direct
 * switch to the task the core picks, the loop only when it has work of its own (worker.c). */
void rt_block_direct(struct rt_task *t);
/* Switches the current task to its worker for `reason`. */
void rt_switch_out(struct rt_task *t, int reason);
/* First thing a task does whenever it is resumed (or first entered): finishes a direct
 * switch from another task by releasing that task's on_cpu. */
void rt_after_switch(void);
/* Takes t's on_cpu for this worker, waiting out the end of a direct switch away from t
 * on another worker. */
void rt_claim_cpu(struct rt_task *t);

/* A FIFO of blocked tasks, protected by its owner's lock. */
struct rt_waiter {
	struct rt_waiter *next;
	struct rt_task *task;
	/* Set by the waker under the owner's lock (rt_waiter_done()), after everything
	 * else it tells the waiter, and before it wakes it. */
	atomic_int done;
	int status; /* result for the waiter */
	void *buf;  /* channel element */
};
struct rt_waitq {
	struct rt_waiter *head, *tail;
};
static inline void rt_waitq_push(struct rt_waitq *q, struct rt_waiter *w)
{
	w->next = NULL;
	if (q->tail)
		q->tail->next = w;
	else
		q->head = w;
	q->tail = w;
}
static inline struct rt_waiter *rt_waitq_pop(struct rt_waitq *q)
{
	struct rt_waiter *w = q->head;
	if (w) {
		q->head = w->next;
		if (!q->head)
			q->tail = NULL;
		w->next = NULL;
	}
	return w;
}
/* The waker's last touch of w: the waiter may return (and its frame go) once it sees it. */
static inline void rt_waiter_done(struct rt_waiter *w)
{
	atomic_store_explicit(&w->done, 1, memory_order_release);
}
static inline bool rt_waitq_empty(const struct rt_waitq *q)
{
	return !q->head;
}
/* Blocks the current task until w->done, with *lock held on entry and on return. */
void rt_wait_done(rt_spinlock_t *lock, struct rt_waiter *w);
/* The same, with *lock held on entry and dropped on return. */
void rt_wait_done_unlock(rt_spinlock_t *lock, struct rt_waiter *w);
/* Wake chain: collect under the lock, wake after unlocking. */
static inline void rt_chain_add(struct rt_task **chain, struct rt_task *t)
{
	t->wake_next = *chain;
	*chain = t;
}
void rt_chain_wake(struct rt_task *chain, int wake_flags);

/* ---- timers (timer.c) ---- */

void rt_timer_add(struct rt_worker *w, struct rt_task *t);
/* Wakes the sleepers of w whose time has come; returns the next deadline (0 = none). */
uint64_t rt_timer_fire(struct rt_worker *w, uint64_t now);
void rt_timer_heap_free(struct rt_timer_heap *h);

/* ---- futex (park.c), mutex (mutex.c), stop (worker.c) ---- */

void rt_futex_wait(atomic_int *word, int expected, uint64_t timeout_ns); /* 0 = no timeout */
void rt_futex_wake(atomic_int *word, int n);
struct ts_mutex;
bool rt_mutex_owned_by(struct ts_mutex *m, const struct rt_task *t);
void rt_stop_notify(void);
/* A plain thread's call into the runtime (tasks and workers need none: a task is live, a
 * worker is joined before anything is freed): counted while inside, so that ts_rt_stop()
 * frees nothing it reads. rt_call_enter() is false, and counts nothing, when the runtime
 * is not running, or is draining and !draining_ok; rt_call_hold() counts unconditionally
 * (a caller that holds a live task, which keeps the stop draining). */
bool rt_call_enter(bool draining_ok);
void rt_call_hold(void);
void rt_call_leave(void);

/* ---- NUMA (numa.c) ---- */

/* Start/stop: the node maps, the trace, each worker's scratch and lock set. */
int rt_numa_start(const struct ts_rt_config *cfg, bool host);
void rt_numa_stop(void);
/* The release of a task's NUMA fields at join (waits out swap pins); at spawn they are
 * zero (task_alloc()), and the core's p->numa comes on first use. */
void rt_numa_task_release(struct rt_task *t);
/* A scan of t is due (w's rq locked, t its curr). */
bool rt_numa_due(struct rt_worker *w, struct rt_task *t);
/* The scan of t at its safe point (claimed by w, w's curr, not running, no lock held):
 * samples, faults, and the stop work of a migration the core decides. Returns true when
 * t is no longer w's curr (moved away): w must not run it. */
bool rt_numa_work(struct rt_worker *w, struct rt_task *t);
/* Runs the stop work posted to w. `held` is the task whose on_cpu w holds (or NULL);
 * it may be moved only if `movable` (runnable and switched out). Returns true when held
 * was moved away. No lock held. */
bool rt_stop_service(struct rt_worker *w, struct rt_task *held, bool movable);
/* Takes / drops the rq locks of `set` in ascending order; while they are held, the host's
 * rq_lock/rq_unlock of a CPU in the set are no-ops for this thread (worker.c). */
void rt_rq_lock_set(const struct ts_cpumask *set);
void rt_rq_unlock_set(const struct ts_cpumask *set);
/* rq->curr of cpu is still t (after a claim: a stop work may have taken t away). */
static inline bool rt_still_curr(struct rt_task *t, int cpu)
{
	return __atomic_load_n(&rt_g.s->rq[cpu].curr, __ATOMIC_RELAXED) == &t->ts;
}

/* ---- task groups (group.c) ---- */

int rt_groups_init(void);
void rt_groups_free(void); /* the registry; the core's groups go with the sched */
/* The core's group of g (NULL for g NULL: the root); -EINVAL if g is not of this run. */
int rt_group_resolve(const struct ts_rt_group *g, struct ts_task_group **out);

/* ---- the trace (trace.c): ts_rt_config.trace, TOPOSCHED_TRACE ---- */

/* Set before the workers start, cleared after they stop: each hook below is one
 * predictable branch while tracing is off. */
extern _Alignas(64) bool rt_trace_on;
int rt_trace_start(const struct ts_rt_config *cfg); /* after the workers exist */
int rt_trace_stop(void);			    /* after they stopped: writes the file */
void rt_trace_abandon(void);			    /* a failed start */
void rt_trace_do_switch(struct rt_worker *w, const struct rt_task *prev,
			const struct rt_task *next);
void rt_trace_do_left(struct rt_worker *w, const struct rt_task *prev, int reason);
void rt_trace_do_idle(struct rt_worker *w);
void rt_trace_do_waking(const struct rt_task *t);
void rt_trace_do_wakeup(const struct rt_task *t, const struct rt_task *parent,
			const struct ts_placement *pl, bool new_task);
/* ts_host_ops.migrate_task: sched_migrate_task (returns at once while tracing is off). */
void rt_trace_migrate(void *host, const struct ts_task *p, int dest_cpu);

/* w runs next: switched to from prev directly (prev still on w's stack), or from the loop
 * (prev NULL: the task the loop last saw left as rt_trace_left() said). */
static inline void rt_trace_switch(struct rt_worker *w, const struct rt_task *prev,
				   const struct rt_task *next)
{
	if (__builtin_expect(rt_trace_on, 0))
		rt_trace_do_switch(w, prev, next);
}
/* The loop got prev back for `reason` (enum rt_switch_reason; -1: none). */
static inline void rt_trace_left(struct rt_worker *w, const struct rt_task *prev, int reason)
{
	if (__builtin_expect(rt_trace_on, 0) && prev)
		rt_trace_do_left(w, prev, reason);
}
/* w goes idle (parks, after polling). */
static inline void rt_trace_idle(struct rt_worker *w)
{
	if (__builtin_expect(rt_trace_on, 0))
		rt_trace_do_idle(w);
}
/* try_to_wake_up() of t begins (t->ts.cpu: where it last ran), and placed it. */
static inline void rt_trace_waking(const struct rt_task *t)
{
	if (__builtin_expect(rt_trace_on, 0))
		rt_trace_do_waking(t);
}
static inline void rt_trace_wakeup(const struct rt_task *t, const struct ts_placement *pl)
{
	if (__builtin_expect(rt_trace_on, 0))
		rt_trace_do_wakeup(t, NULL, pl, false);
}
/* wake_up_new_task() of t, spawned by parent (NULL: from a plain thread). */
static inline void rt_trace_new(const struct rt_task *t, const struct rt_task *parent,
				const struct ts_placement *pl)
{
	if (__builtin_expect(rt_trace_on, 0))
		rt_trace_do_wakeup(t, parent, pl, true);
}

/* ---- errors (error.c) ---- */

int rt_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_error_clear(void);

#endif
