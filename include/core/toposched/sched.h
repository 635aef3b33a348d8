/* The scheduling core: one struct ts_sched per scheduled machine, created from a
 * topology, a feature set and a host interface. No globals: two instances can live side
 * by side (the simulator's sweep runner runs one per core).
 *
 * Concurrency contract (docs/design.md): each CPU's run queue has a lock owned by the host.
 * Functions documented "rq locked" are called with that CPU's lock held; they change only
 * that run queue (and the task being moved). Reads of other CPUs' state (idle, nr_running,
 * load/util) go through the rq's `ro` block: relaxed atomics the owner stores under its
 * lock, like the kernel's READ_ONCE. Placement decisions may be stale, never unsafe.
 * task_h_load() (ts_task_h_load_of()) goes further, as the kernel's: it reads another CPU's
 * group cfs_rq and group entity averages and the task it runs (load_avg, p->cpu, p->tg)
 * and writes that CPU's h_load cache, all with relaxed atomics (pelt.h, group.h). */
#ifndef TOPOSCHED_SCHED_H
#define TOPOSCHED_SCHED_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "toposched/cpumask.h"
#include "toposched/domain.h"
#include "toposched/eevdf.h"
#include "toposched/error.h"
#include "toposched/features.h"
#include "toposched/group.h"
#include "toposched/kernel_profile.h"
#include "toposched/numa.h"
#include "toposched/pelt.h"
#include "toposched/stats.h"
#include "toposched/topology.h"

/* Wake flags: the kernel's values (kernel/sched/sched.h); TS_WF_SYNC/TS_WF_FORK come from
 * eevdf.h. The low nibble maps onto SD_BALANCE_{EXEC,FORK,WAKE} (sd_flag = wf & 0xF). */
#define TS_WF_EXEC	  0x02
#define TS_WF_TTWU	  0x08
#define TS_WF_MIGRATED	  0x20
#define TS_WF_CURRENT_CPU 0x40

#define TS_SCHED_MIGRATION_COST_NS 500000ULL /* sysctl_sched_migration_cost */
#define TS_SCHED_NR_MIGRATE	   32	     /* sysctl_sched_nr_migrate */
#define TS_HZ_DEFAULT		   1000

struct ts_task;

/* What the core needs from its host. */
struct ts_host_ops {
	uint64_t (*clock)(void *host);		  /* ns, monotonic (rq_clock) */
	void (*resched_cpu)(void *host, int cpu); /* resched_curr(): make cpu reschedule */
	void (*rq_lock)(void *host, int cpu);
	void (*rq_unlock)(void *host, int cpu);
	/* Time an idle scan took: the runtime measures it (clock() - t0), the simulator
	 * models it from the CPUs examined. NULL means clock() - t0. Feeds SIS_PROP's
	 * avg_scan_cost and the scan-time statistics. */
	uint64_t (*scan_time)(void *host, int cpu, int nr_scanned, uint64_t t0);
	/* Time the pass of newly-idle balancing that cpu just made at one domain took
	 * (sched_balance_newidle()'s t1 - t0, which feeds update_newidle_cost() and the
	 * avg_idle cut-off): the runtime measures it (clock() - t0), the simulator models
	 * it from what the pass examined and moved. NULL means clock() - t0. */
	uint64_t (*newidle_time)(void *host, int cpu, uint64_t t0);
	/* Optional (NULL = none): called for every access the scheduling paths make to a task
	 * group's shared cache lines (group.h, ts_tg_set_line_access()): `line` is the
	 * 64-byte-aligned address, `write` whether it is written, `cpu` the CPU accessing.
	 * For the simulator's false-sharing model. */
	void (*tg_line_access)(void *host, int cpu, const void *line, bool write);
	/* Optional (NULL = no active balancing): stop_one_cpu_nowait() of the active balance
	 * (sched_balance_rq()): have cpu's stopper call ts_active_load_balance_cpu_stop(s,
	 * cpu) soon, with no rq lock held. Called with no rq lock held. */
	void (*stop_one_cpu)(void *host, int cpu);
	/* Optional (NULL = none): set_task_cpu()'s trace_sched_migrate_task(): p, now on
	 * task_cpu(p), moves to dest_cpu (a wake-up or a balancing move; not a new task's
	 * first placement, __set_task_cpu() in wake_up_new_task()). For traces. */
	void (*migrate_task)(void *host, const struct ts_task *p, int dest_cpu);
	/* Optional (NULL = the waker activates every wake-up itself): the host models
	 * TTWU_QUEUE's wakelist. A wake-up that ttwu_queue_cond() sends to cpu's wakelist then
	 * stays off cpu's run queue (counted in its ttwu_pending only) and this op sends the
	 * IPI (send_call_function_single_ipi()); when cpu takes it, the host calls
	 * ts_sched_ttwu_pending(). Called with no rq lock held. */
	void (*wakelist_ipi)(void *host, int cpu);
};

struct ts_list_head {
	struct ts_list_head *next, *prev;
};

enum ts_task_state {
	TS_TASK_NEW,	  /* initialised, never woken */
	TS_TASK_RUNNABLE, /* queued on task->cpu (running when rq->curr == task) */
	TS_TASK_SLEEPING, /* blocked: not queued anywhere */
	TS_TASK_DEAD,
};

struct ts_task {
	struct ts_sched_entity se;    /* first: container_of-free conversion */
	struct ts_list_head cfs_node; /* rq->cfs_tasks, most recently picked first */
	enum ts_task_state state;
	int cpu; /* task_cpu(): the rq it is queued on or last ran on;
		  * stored atomically (read by ts_task_h_load_of()) */
	int recent_used_cpu;
	int nice;
	unsigned int wakee_flips;
	uint64_t wakee_flip_decay_ts; /* ns */
	const struct ts_task *last_wakee;
	struct ts_cpumask *cpus_allowed; /* NULL = every CPU */
	int nr_cpus_allowed;
	bool percpu_kthread; /* models is_per_cpu_kthread(current) for SIS step 3 */
	uint64_t nr_migrations;
	uint64_t nr_wakeups, nr_wakeups_local, nr_wakeups_remote, nr_wakeups_affine,
		nr_wakeups_affine_attempts, nr_wakeups_sync, nr_wakeups_migrate;
	void *host_data; /* the host's own task object */
	int id;
	struct ts_numa_task *numa; /* NUMA balancing state (numa.h), NULL = none */
	struct ts_task_group *tg;  /* task group; NULL (or s->root_tg) = the root; stored
				    * atomically (read by ts_task_h_load_of()) */
	struct ts_task *wake_next; /* next on the target's wakelist (ops->wakelist_ipi) */
	int wake_flags;		   /* its wake-up's flags, until the target activates it */
};

/* The part of a run queue other CPUs read without its lock. */
struct ts_rq_ro {
	atomic_uint nr_running;	   /* rq->nr_running */
	atomic_bool idle;	   /* curr is the idle task */
	atomic_uint ttwu_pending;  /* wake-ups targeted here, not yet enqueued */
	atomic_ulong load_avg;	   /* cpu_load(): cfs.avg.load_avg */
	atomic_ulong runnable_avg; /* cpu_runnable() */
	atomic_ulong util_avg;	   /* cpu_util_cfs() */
	/* SIS_PROP's idle history: set by whoever wakes a task onto this idle rq (under its
	 * lock), aged and spent by wakers running on this CPU (without it), as the kernel. */
	atomic_ullong wake_stamp;    /* jiffies */
	atomic_ullong wake_avg_idle; /* ns */
	/* NUMA balancing (numa.c): the migration reservation, taken by xchg() from any CPU
	 * and cleared when the migration is done; the NUMA task counts, owner-written. */
	atomic_int numa_migrate_on;
	atomic_uint nr_numa_running;	  /* tasks here with a preferred node */
	atomic_uint nr_preferred_running; /* ... that are on it */
	atomic_ulong runnable_load_avg;	  /* v5.4's cpu_runnable_load(), after the hot fields */
};

struct ts_rq {
	alignas(64) struct ts_rq_ro ro;
	alignas(64) struct ts_removed_load removed;
	alignas(64) int cpu;
	unsigned int nr_running; /* CFS tasks queued, curr included */
	struct ts_task *curr;	 /* NULL = the idle task runs */
	struct ts_cfs_rq cfs;
	struct ts_list_head cfs_tasks;
	struct ts_task *wake_list, **wake_tail; /* queued wake-ups, FIFO (ops->wakelist_ipi) */
	uint64_t clock;				/* last clock read under the lock */
	uint64_t steal;		/* steal clock: host time taken off update_curr()'s charges */
	uint64_t steal_pending; /* accounted, waiting for the clock to advance (rq_clock()) */
	uint64_t idle_stamp;	/* when this CPU went idle (0 = not idle) */
	uint64_t avg_idle;	/* update_avg() of idle periods, ns */
	uint64_t max_idle_balance_cost;
	/* A modelled machine's last newly-idle pass (ops->newidle_time): the kernel's pass
	 * runs with this rq unlocked, so a wake-up that lands before newidle_until found
	 * idle_stamp still set at newidle_stamp. */
	uint64_t newidle_stamp, newidle_until;
	unsigned long cpu_capacity;
	uint64_t next_balance; /* ns */
	uint64_t last_blocked_load_update;
	/* Active balancing: a push of this CPU's running task is queued for its stopper (set
	 * by the balancing CPU under this rq's lock, cleared by the stop work), to push_cpu. */
	bool active_balance;
	int push_cpu;
	struct ts_cpu_stats stats;
	struct ts_numa_cpu_stats numa_stats;
};

struct ts_sched_config {
	unsigned int hz;		  /* tick frequency (TS_HZ_DEFAULT when 0) */
	const struct ts_cpumask *cpu_map; /* CPUs to schedule on (NULL = all) */
	enum ts_tg_layout tg_layout;	  /* of every task group's load_avg (0 = aligned) */
	/* Keep the node of tg->load_avg's last writer in every task group, for the
	 * remote-write counter (ts_tg_stats.remote_writes): the root group's
	 * track_writer_node (ts_tg_root_params), which the groups created under it inherit.
	 * Off: no writer line, remote_writes stays 0. */
	bool tg_track_writer_node;
	/* The kernel generation of every mechanism that changed (kernel_profile.h); zeroed =
	 * the newest. Its feature defaults are the caller's to apply (the features argument
	 * of ts_sched_create() is used as given). kernel.fair_pick selects the fair class's
	 * pick: EEVDF (v6.6+) or CFS (fair_pick.h). */
	struct ts_kernel_profile kernel;
	/* The CFS pick's tunables (copied; NULL = the profile's era: ts_cfs_params_init_v5_6()
	 * before v5.13, ts_cfs_params_init() of v6.1 after, for the scheduled CPUs). Ignored
	 * for EEVDF. */
	const struct ts_cfs_params *cfs_params;
};

struct ts_sched {
	const struct ts_topology *topo;
	struct ts_domains *dom;
	struct ts_features features;
	struct ts_host_ops ops;
	void *host;
	int nr_cpus;
	struct ts_rq *rq; /* [nr_cpus], cache-line aligned */
	unsigned int hz;
	uint64_t tick_nsec;
	uint64_t base_slice; /* sysctl_sched_base_slice for this machine */
	uint64_t max_load_balance_interval_ns;
	atomic_bool overloaded;		       /* rd->overloaded: some rq has >1 runnable task */
	struct ts_cpumask **select_rq_mask;    /* per-CPU scratch masks (select_rq_mask) */
	struct ts_cpumask **lb_cpus, **lb_swb; /* per-CPU load-balance scratch masks */
	atomic_int sched_balance_running;      /* SD_SERIALIZE: one CPU balances NUMA levels */
	/* root_task_group, on the rqs' cfs; groups below it are created with
	 * ts_sched_group_create() and freed with the sched. */
	struct ts_task_group *root_tg;
	enum ts_tg_layout tg_layout;
	struct ts_kernel_profile kernel; /* never zeroed: the newest's fields filled in */
	enum ts_fair_pick fair_pick;	 /* kernel.fair_pick: every queue's, groups' included */
	struct ts_cfs_params cfs_params; /* the CFS pick's, pointed to by its queues */
};

int ts_sched_create(const struct ts_topology *topo, struct ts_features features,
		    const struct ts_host_ops *ops, void *host, const struct ts_sched_config *cfg,
		    struct ts_sched **out, struct ts_error *err);
void ts_sched_destroy(struct ts_sched *s);

static inline struct ts_rq *ts_cpu_rq(struct ts_sched *s, int cpu)
{
	return &s->rq[cpu];
}
static inline struct ts_task *ts_task_of(struct ts_sched_entity *se)
{
	return (struct ts_task *)se;
}

static inline enum ts_cpu_relation ts_cpu_relation(const struct ts_sched *s, int a, int b)
{
	return ts_topology_relation(s->topo, a, b);
}

/* Idle predicates (kernel/sched/core.c), lock-free. */
static inline bool ts_idle_cpu(struct ts_sched *s, int cpu)
{
	struct ts_rq_ro *ro = &s->rq[cpu].ro;
	return atomic_load_explicit(&ro->idle, memory_order_relaxed) &&
	       atomic_load_explicit(&ro->nr_running, memory_order_relaxed) == 0 &&
	       atomic_load_explicit(&ro->ttwu_pending, memory_order_relaxed) == 0;
}
/* No vCPU preemption on our hosts: available_idle_cpu() == idle_cpu(). */
static inline bool ts_available_idle_cpu(struct ts_sched *s, int cpu)
{
	return ts_idle_cpu(s, cpu);
}
static inline unsigned int ts_rq_nr_running(struct ts_sched *s, int cpu)
{
	return atomic_load_explicit(&s->rq[cpu].ro.nr_running, memory_order_relaxed);
}
static inline unsigned long ts_cpu_load(struct ts_sched *s, int cpu)
{
	return atomic_load_explicit(&s->rq[cpu].ro.load_avg, memory_order_relaxed);
}
/* The root cfs_rq's util_avg as published; it may pass the CPU's capacity for a while
 * after tasks were attached to it (forks, migrations). */
static inline unsigned long ts_cpu_util_avg(struct ts_sched *s, int cpu)
{
	return atomic_load_explicit(&s->rq[cpu].ro.util_avg, memory_order_relaxed);
}
/* cpu_util()'s last step: a utilisation of cpu clamped to its capacity
 * (arch_scale_cpu_capacity(); the core's capacities never change). */
static inline unsigned long ts_cpu_util_clamp(struct ts_sched *s, int cpu, unsigned long util)
{
	unsigned long cap = s->rq[cpu].cpu_capacity;
	return util < cap ? util : cap;
}
/* cpu_util_cfs(): util_avg clamped, as every balancing and placement sum reads it. */
static inline unsigned long ts_cpu_util(struct ts_sched *s, int cpu)
{
	return ts_cpu_util_clamp(s, cpu, ts_cpu_util_avg(s, cpu));
}
static inline unsigned long ts_cpu_runnable(struct ts_sched *s, int cpu)
{
	return atomic_load_explicit(&s->rq[cpu].ro.runnable_avg, memory_order_relaxed);
}
/* v5.4's cpu_runnable_load(), as published (0 unless the profile keeps it). */
static inline unsigned long ts_cpu_runnable_load(struct ts_sched *s, int cpu)
{
	return atomic_load_explicit(&s->rq[cpu].ro.runnable_load_avg, memory_order_relaxed);
}
static inline unsigned long ts_capacity_of(struct ts_sched *s, int cpu)
{
	return s->rq[cpu].cpu_capacity;
}

/* ---- tasks ---- */

/* Initialises a task (state NEW) on `cpu` with a nice value and an affinity mask (copied;
 * NULL = every CPU). */
int ts_task_init(struct ts_sched *s, struct ts_task *p, int nice, const struct ts_cpumask *allowed,
		 int cpu, struct ts_error *err);
void ts_task_destroy(struct ts_task *p);

/* ---- task groups (group.h; rq_group.c) ---- */

/* sched_create_group() under parent (NULL = the root) with the sched's tg_layout; shares as
 * cpu.weight's scale (1024 = nice 0; 0 = 1024; clamped to [2, 2^18]). Not concurrent with
 * scheduling (the caller serialises it against every other core call). Errors as
 * ts_tg_create(), and -EINVAL for a parent of another sched. */
int ts_sched_group_create(struct ts_sched *s, struct ts_task_group *parent, const char *name,
			  unsigned long shares, struct ts_task_group **out, struct ts_error *err);
/* Puts a task that is not queued (NEW or SLEEPING) into tg (NULL = the root): a sleeping
 * task's blocked load moves from the old group's cfs_rq on p->cpu to the new one's
 * (task_change_group_fair(): detach, set_task_rq, attach, propagated up). Called with no
 * rq lock held; takes p->cpu's. -EBUSY for a runnable or dead task (the kernel's
 * sched_move_task() also moves queued and running tasks; we don't), -EINVAL for a group of
 * another sched. Not concurrent with a wake-up of p (the caller serialises, like pi_lock). */
int ts_task_set_group(struct ts_sched *s, struct ts_task *p, struct ts_task_group *tg);
/* task_h_load(p) on p's CPU: p->se.avg.load_avg scaled by its cfs_rq's share of the CPU's
 * load (update_cfs_rq_h_load(), once per jiffy per cfs_rq); for a root task
 * load_avg * root_load / (root_load + 1), root_load = the published rq load. Needs no rq
 * lock: p->cpu, p->tg and p->se.avg.load_avg are relaxed atomic loads, the group averages
 * too (ts_tg_update_h_load()). Lock-free callers accept staleness, like the kernel's. */
unsigned long ts_task_h_load_of(struct ts_sched *s, struct ts_task *p);
/* rq->curr is written under the rq lock and read lock-free by NUMA balancing's search. */
static inline void ts_rq_set_curr(struct ts_rq *rq, struct ts_task *p)
{
	__atomic_store_n(&rq->curr, p, __ATOMIC_RELAXED);
}

/* p->state is written under p's rq lock and read lock-free by NUMA balancing's search
 * (is the destination's running task exiting?): relaxed atomics on both sides. */
static inline void ts_task_set_state(struct ts_task *p, enum ts_task_state st)
{
	__atomic_store_n(&p->state, st, __ATOMIC_RELAXED);
}
static inline enum ts_task_state ts_task_state_lockfree(const struct ts_task *p)
{
	return __atomic_load_n(&p->state, __ATOMIC_RELAXED);
}

/* idle_stamp is written under the rq lock and read lock-free by the fork slow path. */
static inline void ts_rq_set_idle_stamp(struct ts_rq *rq, uint64_t v)
{
	__atomic_store_n(&rq->idle_stamp, v, __ATOMIC_RELAXED);
}

static inline bool ts_task_allowed(const struct ts_task *p, int cpu)
{
	return !p->cpus_allowed || ts_cpumask_test(p->cpus_allowed, cpu);
}

/* ---- placement (select.c), lock-free ---- */

struct ts_placement {
	int cpu; /* where the task should run */
	enum ts_place_reason reason;
	int target;	/* the SIS target: waker CPU (affine) or prev */
	int nr_scanned; /* CPUs examined by the scans (sis_scanned grows by 1 + this) */
	int scanned_by_relation[TS_REL_NR]; /* examined CPUs by relation to the waker */
	bool want_affine;		    /* !wake_wide() and the waker's CPU is allowed */
	bool affine_attempted;		    /* wake_affine() ran */
	bool affine;			    /* wake_affine() chose the waker's CPU */
	uint64_t scan_time_ns;		    /* from ops->scan_time, when select_idle_cpu() ran */
	/* ts_try_to_wake_up() only: ttwu_queue_cond() (ttwu.h) held, so the kernel would queue
	 * the activation on cpu's wakelist (cpu executes it); false: the waker activates. */
	bool ttwu_queued;
};

/* select_task_rq_fair(): where p (last on p->cpu) should run when `waker` (NULL for a
 * wake-up from no task, e.g. a timer) on waker_cpu wakes or forks it. Updates the waker's
 * wakee state, p->recent_used_cpu, the SIS hints and the waker CPU's statistics. */
struct ts_placement ts_select_task_rq(struct ts_sched *s, struct ts_task *p, int waker_cpu,
				      struct ts_task *waker, int wake_flags);
/* ts_select_task_rq() into *pl: the wake-up path fills one placement in place. Returned by
 * value, a placement is copied out with 16-byte loads right after its fields' narrower
 * stores, which the CPU cannot forward (a stall of each copy, ~30 ns a pipe round trip). */
void ts_select_task_rq_to(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			  int waker_cpu, struct ts_task *waker, int wake_flags);

/* ---- run-queue operations (rq.c) ---- */

/* Makes p runnable on `cpu` (rq locked): migrates it there if needed (PELT detach from the
 * old queue via its removed-load accumulator), enqueues it with ENQUEUE_WAKEUP (or
 * ENQUEUE_INITIAL for a new task), runs wake-up preemption, and asks the host to resched
 * cpu when p should preempt or cpu was idle. Returns true if cpu must reschedule. */
bool ts_activate_task(struct ts_sched *s, int cpu, struct ts_task *p, int wake_flags);
/* The full try_to_wake_up(): select, lock the target, activate, unlock. Called with no
 * rq lock held (it takes the target's through ops->rq_lock). */
struct ts_placement ts_try_to_wake_up(struct ts_sched *s, struct ts_task *p, int waker_cpu,
				      struct ts_task *waker, int wake_flags);
/* ts_try_to_wake_up() into *pl (as ts_select_task_rq_to()). */
void ts_try_to_wake_up_to(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			  int waker_cpu, struct ts_task *waker, int wake_flags);
/* ts_try_to_wake_up_to() in its three steps, for a host that gives the waker's work
 * between them time: ts_ttwu_select() is select_task_rq() (into *pl, with pl->ttwu_queued
 * as ttwu_queue_cond() answers now) and returns the wake-up's flags;
 * ts_ttwu_set_task_cpu() is try_to_wake_up()'s set_task_cpu() of a blocked task that
 * changes CPU (run by the waker: migrate_task_rq_fair(), set_task_rq()), adding
 * WF_MIGRATED to the flags it returns; ts_ttwu_queue() is ttwu_queue() with those flags,
 * which asks ttwu_queue_cond() again (the kernel asks it there) and writes
 * pl->ttwu_queued. Until ts_ttwu_queue(), as in try_to_wake_up() up to
 * __ttwu_queue_wakelist(), nothing marks pl->cpu: another waker can still find it idle.
 * p is then on no queue (TASK_WAKING); the host must not wake, move or count it. No rq
 * lock held for any of them. */
int ts_ttwu_select(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p, int waker_cpu,
		   struct ts_task *waker, int wake_flags);
int ts_ttwu_set_task_cpu(struct ts_sched *s, struct ts_task *p, int cpu, int wake_flags);
void ts_ttwu_queue(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p, int waker_cpu,
		   struct ts_task *waker, int wake_flags);
/* ts_try_to_wake_up_to() for a host whose CPUs run the activation of a wake-up queued for
 * them, as ttwu_queue_wakelist() lets the target run ttwu_do_activate() (sched_ttwu_pending())
 * so that the waker writes none of its run queue. The same choice and pl->ttwu_queued;
 * then, when ttwu_queue_cond() holds and the chosen CPU runs nothing, p is counted in that
 * CPU's ttwu_pending (it no longer looks idle to other choices), the wake-up is counted, and
 * true is returned: the host hands p to that CPU, which calls ts_ttwu_listed_activate().
 * A busy target is left to the waker, as ts_try_to_wake_up_to() (false): a host that
 * cannot interrupt a running CPU would hide p from balancing until that CPU's next
 * switch. No rq lock held; the host serialises wake-ups of p (p->pi_lock). */
bool ts_try_to_wake_up_or_list(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			       int waker_cpu, struct ts_task *waker, int wake_flags);
/* ttwu_do_activate() on cpu of a wake-up ts_try_to_wake_up_or_list() listed there, under
 * cpu's lock (taken here). Returns true if cpu must reschedule (ops->resched_cpu was
 * called too). */
bool ts_ttwu_listed_activate(struct ts_sched *s, struct ts_task *p, int cpu);
/* sched_ttwu_pending() (rq locked): cpu takes the wakelist IPI and activates the wake-ups
 * queued on it, oldest first (ts_activate_task() each: wake-up preemption may resched cpu).
 * Only with ops->wakelist_ipi. */
void ts_sched_ttwu_pending(struct ts_sched *s, int cpu);
/* wake_up_new_task(): first wake-up of a NEW task forked on parent_cpu by `parent` (its
 * current task there, or NULL when the fork is not modelled), with fork balancing
 * (WF_FORK; sched_balance_find_dst_group() counts parent_cpu busy while the parent runs
 * on it): p->recent_used_cpu = parent_cpu, select, then as ts_wake_up_new_task_on() on
 * the chosen CPU. Called with no rq lock held. */
struct ts_placement ts_wake_up_new_task(struct ts_sched *s, struct ts_task *p, int parent_cpu,
					struct ts_task *parent);
/* ts_wake_up_new_task() for a host that lets the chosen CPU activate p itself, as
 * ttwu_queue_wakelist() lets an idle CPU activate a wake-up (ttwu_queue_cond()'s idle rule;
 * the kernel's wake_up_new_task() always activates on the forking CPU). The same choice;
 * then, when the chosen CPU is not parent_cpu and runs nothing, p is counted in that CPU's
 * ttwu_pending (so it no longer looks idle to other choices) and pl.ttwu_queued is set:
 * the host must call ts_wake_up_new_task_queued() for p on that CPU, which runs the rest
 * of wake_up_new_task() there. Otherwise p is activated here, as ts_wake_up_new_task().
 * The placement is filled in *pl (see ts_select_task_rq_to()). */
void ts_wake_up_new_task_or_queue(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
				  int parent_cpu, struct ts_task *parent);
/* The rest of wake_up_new_task() for a task that ts_wake_up_new_task_or_queue() queued on
 * cpu (its pl.cpu): as ts_wake_up_new_task_on() (no rq lock held; takes cpu's), and p
 * leaves cpu's ttwu_pending. Returns true when cpu was asked to reschedule. */
bool ts_wake_up_new_task_queued(struct ts_sched *s, struct ts_task *p, int cpu);
/* wake_up_new_task() on a CPU the host has already chosen (no fork balancing, no
 * placement statistics): takes cpu's lock through ops->rq_lock (so it is called with no rq
 * lock held, from any thread), moves p there (__set_task_cpu(): no migration is counted, a
 * new task has no load to move), brings the cfs_rq p joins (its group's) up to date,
 * gives p post_init_entity_util_avg()'s start (half the spare capacity of that cfs_rq, in
 * proportion to p's weight), enqueues it with ENQUEUE_INITIAL and runs wake-up preemption
 * as a fork (WF_FORK). The same code as ts_wake_up_new_task() after its select. cpu must be
 * a scheduled CPU p is allowed on (not checked). Returns true when cpu was asked to
 * reschedule. */
bool ts_wake_up_new_task_on(struct ts_sched *s, struct ts_task *p, int cpu);

/* curr on cpu stops being runnable (rq locked): block (sleep) or exit. */
void ts_deactivate_curr(struct ts_sched *s, int cpu, enum ts_task_state new_state);

/* __schedule() for cpu (rq locked): put the current task back (if still runnable), pick the
 * next one; with nothing to run, newly-idle balance (which may lock other rqs: it calls
 * ops->rq_lock for them after releasing none — see balance.c for the lock order), then
 * switch to idle. Returns the task to run, or NULL for idle. */
struct ts_task *ts_schedule(struct ts_sched *s, int cpu);
/* ts_deactivate_curr() then ts_schedule(), as __schedule() does for a task that blocks:
 * one pass, one read of the rq clock (update_rq_clock()) for both. */
struct ts_task *ts_schedule_deactivate(struct ts_sched *s, int cpu, enum ts_task_state new_state);

/* sched_tick() on cpu (rq locked): entity_tick() at every level of curr's hierarchy
 * (charge, PELT, group weights), slice expiry at any level -> resched; returns true when
 * periodic load balancing is due (the host then calls ts_balance_tick()). */
bool ts_sched_tick(struct ts_sched *s, int cpu);
/* Steal time (rq locked): the host ran something else on cpu for ns. The rq clock's next
 * advances pass it into the steal clock, no more than each advance, and update_curr()
 * charges each entity its clock delta less the steal clock's (the kernel's
 * rq_clock_task(), held back by update_rq_clock_task() under
 * CONFIG_PARAVIRT_TIME_ACCOUNTING, which up to v6.13 carries a steal larger than the
 * delta into the next update; rq_clock()). A host that never calls it charges wall time. */
void ts_sched_account_steal(struct ts_sched *s, int cpu, uint64_t ns);
/* yield_task_fair(): curr gives up the rest of its slice (rq locked). */
void ts_yield_task(struct ts_sched *s, int cpu);
/* put_prev_task_fair() for cpu's running task (rq locked): every level of its hierarchy
 * charged and put back into its queue (still runnable) or let go; rq->curr = NULL. The
 * host then reschedules cpu. */
void ts_put_prev_task(struct ts_sched *s, int cpu);

/* Moves a queued, not running task between run queues; both rqs locked. */
void ts_move_queued_task(struct ts_sched *s, struct ts_task *p, int src_cpu, int dst_cpu);

/* Publishes rq's lock-free fields after a change (rq locked). */
void ts_rq_publish(struct ts_sched *s, struct ts_rq *rq);
/* Brings rq's PELT averages to now (rq locked): curr, the cfs_rq, removed load, and the
 * blocked load of every group cfs_rq of this CPU bottom up with update_tg_load_avg()
 * (__update_blocked_fair()). The tick does the latter too on an idle CPU and when periodic
 * balancing is due (sched_balance_softirq()'s update of the blocked averages). */
void ts_update_rq_load(struct ts_sched *s, struct ts_rq *rq, uint64_t now);

/* ---- load balancing (balance.c; the fork/exec slow path: balance_fork.c) ---- */

/* sched_balance_find_dst_cpu() (find_idlest_cpu): the fork/exec slow path, top-down from
 * sd (the highest domain with sd_flag); lock-free like the rest of placement. */
int ts_sched_balance_find_dst_cpu(struct ts_sched *s, struct ts_sched_domain *sd, struct ts_task *p,
				  int cpu, int prev_cpu, int sd_flag);

/* sched_balance_domains(): periodic balancing of cpu's domains that are due; called by
 * the host without any rq lock held, after ts_sched_tick() returned true. */
void ts_balance_tick(struct ts_sched *s, int cpu);
/* sched_balance_newidle(): called by ts_schedule() with cpu's rq locked; may drop and
 * retake it. Returns the number of tasks pulled. */
int ts_balance_newidle(struct ts_sched *s, int cpu);
/* active_load_balance_cpu_stop(): the stop work an active balance queued on busiest_cpu
 * (ts_host_ops.stop_one_cpu). The stopper has preempted busiest_cpu's running task: it goes
 * back into its queue and the CPU is told to reschedule; then one task that may run on the
 * pushing CPU moves there. Returns the task moved, or NULL. No rq lock held. */
struct ts_task *ts_active_load_balance_cpu_stop(struct ts_sched *s, int busiest_cpu);
/* update_idle_cpu_scan(): SIS_UTIL's nr_idle_scan for the LLC of cpu from the summed
 * utilisation of its CPUs (called from LLC-level periodic balancing). */
void ts_update_idle_cpu_scan(struct ts_sched *s, int cpu, unsigned long sum_util);

/* Would busy periodic balancing of sd on cpu find an imbalance now (find_busiest_group()
 * with CPU_NOT_IDLE)? Read-only: for a host that waits until the balancer has nothing
 * left to do (the simulator's warm-up). scratch: a mask of the scheduler's CPUs. */
bool ts_balance_finds_imbalance(struct ts_sched *s, int cpu, struct ts_sched_domain *sd,
				struct ts_cpumask *scratch);

/* ---- list helpers ---- */
static inline void ts_list_init(struct ts_list_head *h)
{
	h->next = h->prev = h;
}
static inline bool ts_list_empty(const struct ts_list_head *h)
{
	return h->next == h;
}
static inline void ts_list_add(struct ts_list_head *n, struct ts_list_head *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}
static inline void ts_list_del(struct ts_list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}
static inline void ts_list_move(struct ts_list_head *n, struct ts_list_head *h)
{
	ts_list_del(n);
	ts_list_add(n, h);
}
#define ts_task_of_cfs_node(n) ((struct ts_task *)((char *)(n)-offsetof(struct ts_task, cfs_node)))

#endif
