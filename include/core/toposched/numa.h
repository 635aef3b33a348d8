/* NUMA balancing, the core part (kernel/sched/fair.c, CONFIG_NUMA_BALANCING): per-task
 * fault statistics with their halving decay per scan window, the adaptive scan period,
 * the preferred node, NUMA groups of tasks that share memory, and task_numa_migrate()
 * with the per-run-queue migration reservation rq->numa_migrate_on (NUMA_RESERVE).
 *
 * Who calls what (the host is the simulator or the runtime):
 *   ts_numa_task_init()        once per task (p->numa then points at the state)
 *   ts_task_numa_fault()       for every NUMA hinting fault the host models, on p's CPU,
 *                              with no rq lock held (the kernel: fault context)
 *   ts_numa_migrate_due()      with TS_TNF_NO_MIGRATE faults: whether the host must run
 *   ts_numa_migrate_preferred()  the search itself (and take the locks it needs)
 *   ts_numa_scan_done()        when the scan of an mm's address space completes
 *                              (mm->numa_scan_seq++), so the next fault runs placement
 *   ts_task_tick_numa() ...    the scan pacing (numa_scan.h): when a task scans, and what;
 *                              the host walks its memory
 *   ts_sched_setnuma()         a host's own choice of p's preferred node
 *   ts_numa_migrate_apply()    the host's migration_cpu_stop / migrate_swap_stop: performs a
 *                              decided migration or swap under both rq locks
 *   ts_numa_migrate_done()     after the stop-machine work (applied or abandoned): releases
 *                              the reservation. The reservation is held from the decision to
 *                              this call, so a host can model the stop-machine latency.
 *
 * Decisions are recorded in struct ts_numa_result and never applied by the search itself:
 * the faulting task is running on its CPU, which only a stopper may take it off, and the
 * swap partner is by construction the running task of the destination. */
#ifndef TOPOSCHED_NUMA_H
#define TOPOSCHED_NUMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "toposched/numa_levels.h"
#include "toposched/numa_scan.h"
#include "toposched/stats.h"

struct ts_sched;
struct ts_sched_domain;
struct ts_task;
struct ts_error;

/* Sysctl defaults (kernel/sched/fair.c). */
#define TS_NUMA_SCAN_DELAY_MS	     1000  /* sysctl_numa_balancing_scan_delay */
#define TS_NUMA_SCAN_PERIOD_MIN_MS   1000  /* sysctl_numa_balancing_scan_period_min */
#define TS_NUMA_SCAN_PERIOD_MAX_MS   60000 /* sysctl_numa_balancing_scan_period_max */
#define TS_NUMA_SCAN_SIZE_MB	     256   /* sysctl_numa_balancing_scan_size */
#define TS_NUMA_MAX_SCAN_WINDOW	     2560  /* MAX_SCAN_WINDOW, MB/s */
#define TS_NUMA_PAGE_SHIFT	     12
#define TS_NUMA_PERIOD_SLOTS	     10
#define TS_NUMA_PERIOD_THRESHOLD     7
#define TS_NUMA_ACTIVE_NODE_FRACTION 3
#define TS_NUMA_SMALLIMP	     30
#define TS_NUMA_IMBALANCE_MIN	     2

/* task_numa_fault() flags: the kernel's TNF_* values. */
#define TS_TNF_MIGRATED	    0x01 /* the fault migrated the page(s) to this node */
#define TS_TNF_NO_GROUP	    0x02 /* do not try to join the last accessor's group */
#define TS_TNF_SHARED	    0x04 /* the page is mapped by several processes */
#define TS_TNF_FAULT_LOCAL  0x08 /* the page is (now) on the faulting CPU's node */
#define TS_TNF_MIGRATE_FAIL 0x10 /* the page should have moved and could not */
/* toposched's own, not a kernel TNF_* value (the kernel's use the low bits): feed the fault
 * without numa_migrate_preferred(). Placement still runs when the retry time has passed;
 * numa_migrate_retry is left alone and nothing is searched, so a host can feed faults
 * holding only p's rq lock and run ts_numa_migrate_preferred() itself, under the locks the
 * search needs, when ts_numa_migrate_due() says a search will happen. */
#define TS_TNF_NO_MIGRATE 0x80000000u

/* numa_faults[] buckets; index = 2 * (bucket * nr_nodes + nid) + priv. */
enum { TS_NUMA_MEM, TS_NUMA_CPU, TS_NUMA_MEMBUF, TS_NUMA_CPUBUF, TS_NUMA_BUCKETS };
#define TS_NUMA_FAULT_STATS 4 /* MEM and CPU, shared/private: the group's array per node */

static inline int ts_numa_faults_idx(int nr_nodes, int bucket, int nid, int priv)
{
	return 2 * (bucket * nr_nodes + nid) + priv;
}

/* The address space a task belongs to (the part of mm_struct NUMA balancing reads). */
struct ts_numa_mm {
	atomic_int numa_scan_seq;  /* bumped when a scan of the whole space completes */
	unsigned long rss_pages;   /* get_mm_rss(), 4 KiB pages; 0 = one scan window */
	uint64_t numa_next_scan;   /* jiffies: no scan of this mm before (numa_scan.h) */
	uint64_t numa_scan_offset; /* where the next scan starts, in the host's unit */
	int id;
};

/* struct numa_group. Written by its members under group_lock (the host's threads may
 * fault concurrently); refcount/nr_tasks are the kernel's. */
struct ts_numa_group {
	int refcount;
	int nr_tasks;
	int gid;
	int active_nodes;
	unsigned long max_faults_cpu;
	unsigned long total_faults;
	atomic_flag lock;
	unsigned long *faults; /* [TS_NUMA_FAULT_STATS * nr_nodes] */
};

#define TS_NUMA_SCAN_HIST 8 /* scan periods remembered per task */

struct ts_numa_task {
	int nr_nodes;
	struct ts_numa_mm *mm; /* shared by the threads of a process, or &own_mm */
	struct ts_numa_mm own_mm;
	int numa_preferred_nid; /* TS_NUMA_NO_NODE initially */
	int numa_scan_seq;
	unsigned int numa_scan_period;	     /* ms */
	unsigned int numa_scan_period_max;   /* ms */
	unsigned int numa_scan_period_fixed; /* ms; toposched: a host's fixed pace, 0 = none */
	uint64_t node_stamp;		     /* ns of run time: task_tick_numa()'s pace */
	uint64_t numa_migrate_retry;	     /* jiffies */
	uint64_t last_task_numa_placement;   /* ns (se.exec_start at the last placement) */
	uint64_t last_sum_exec_runtime;
	unsigned long *numa_faults; /* [TS_NUMA_BUCKETS * 2 * nr_nodes]; NULL until a fault */
	unsigned long total_numa_faults;
	unsigned long numa_faults_locality[3]; /* remote, local, failed migrations */
	unsigned long numa_pages_migrated;
	struct ts_numa_group *numa_group;
	/* rq accounting done by this file: where and what was added (-1 = nowhere) */
	int acct_cpu;
	bool acct_numa, acct_preferred;
	/* counters of this task */
	uint64_t nr_numa_migrations, nr_numa_swaps, nr_numa_stick, nr_placements;
	unsigned int scan_period_hist[TS_NUMA_SCAN_HIST]; /* ring; newest at (hist_n-1)%N */
	unsigned int scan_period_hist_n;
};

/* Per CPU, written by the CPU that owns the event (the faulting / searching CPU). */
struct ts_numa_cpu_stats {
	ts_counter hint_faults;	      /* numa_hint_faults (pages) */
	ts_counter hint_faults_local; /* TNF_FAULT_LOCAL (numa_hint_faults_local) */
	ts_counter hint_faults_remote;
	ts_counter hint_faults_private, hint_faults_shared;
	ts_counter pages_migrated;	   /* TNF_MIGRATED (numa_pages_migrated) */
	ts_counter pages_migrate_failed;   /* TNF_MIGRATE_FAIL */
	ts_counter migrate_attempts;	   /* task_numa_migrate() calls */
	ts_counter migrations;		   /* sched_move_numa: moves decided */
	ts_counter swaps;		   /* sched_swap_numa: swaps decided */
	ts_counter stick;		   /* sched_stick_numa: nothing found or apply failed */
	ts_counter applied;		   /* moves/swaps that ts_numa_migrate_apply() did */
	ts_counter reserve_conflicts;	   /* assign found the candidate reserved */
	ts_counter reserve_conflict_alt;   /* ... and reserved another idle CPU of the node */
	ts_counter reserve_conflict_noalt; /* ... and kept the previous best */
	ts_counter reserved_skips;	   /* CPUs skipped while scanning (flag set) */
};

/* What task_numa_migrate() decided. */
struct ts_numa_result {
	int ret; /* 0 decided; -EAGAIN nothing better (stick); -EINVAL no sd_numa */
	struct ts_task *p;
	struct ts_task *swap; /* migrate_swap partner (running on dst_cpu), NULL = move */
	int src_cpu, dst_cpu; /* dst_cpu: env.best_cpu, -1 when none */
	long imp;	      /* env.best_imp */
	bool reserved;	      /* rq(dst_cpu)->numa_migrate_on is held for this result */
	bool applied;	      /* ts_numa_migrate_apply() moved the task(s) */
};

/* Allocates p->numa (init_numa_balancing()): preferred node none, scan period
 * scan_delay, scan_seq from mm (NULL = a private mm of its own). */
int ts_numa_task_init(struct ts_sched *s, struct ts_task *p, struct ts_numa_mm *mm,
		      struct ts_error *err);
/* Leaves the group, drops the rq accounting, frees p->numa. */
void ts_numa_task_free(struct ts_sched *s, struct ts_task *p);

/* task_numa_fault(last_cpupid, mem_node, pages, flags) for p on its CPU. `last` is the
 * task recorded as the page's last accessor (NULL: none, a first touch, counted private);
 * a fault by another task is shared and may join p to last's group (task_numa_group()).
 * When numa_migrate_retry has passed it runs placement and numa_migrate_preferred(); a
 * decided migration is returned in *res (res->dst_cpu >= 0) and must be completed with
 * ts_numa_migrate_apply()/ts_numa_migrate_done(). Returns res->ret, or 1 when no
 * migration was attempted (always with TS_TNF_NO_MIGRATE). No rq lock held, or only p's
 * held the host's way (its ops->rq_lock of p's CPU then a no-op: sched_setnuma()). */
int ts_task_numa_fault(struct ts_sched *s, struct ts_task *p, const struct ts_task *last,
		       int mem_node, int pages, unsigned int flags, struct ts_numa_result *res);
/* time_after(jiffies, p->numa_migrate_retry): the condition on which ts_task_numa_fault()
 * runs placement and numa_migrate_preferred(). False without p->numa. */
bool ts_numa_migrate_retry_passed(struct ts_sched *s, const struct ts_task *p);
/* Whether numa_migrate_preferred() now would search (ts_task_numa_migrate()): the retry
 * time has passed, p has fault statistics and a preferred node, and is not on it. When it
 * is false and the retry time has passed, ts_numa_migrate_preferred() only re-arms
 * numa_migrate_retry (the lock-free reads of other CPUs' tasks do not happen). Read after
 * the fault's placement, which may change the preferred node; p's rq lock held (the
 * preferred node is written under it). */
bool ts_numa_migrate_due(struct ts_sched *s, const struct ts_task *p);
/* The scan of mm's address space completed (mm->numa_scan_seq++). */
void ts_numa_scan_done(struct ts_numa_mm *mm);

/* task_numa_placement(): once per new mm scan seq; decays the faults, picks the preferred
 * node (sched_setnuma), updates the group and adapts the scan period. */
void ts_task_numa_placement(struct ts_sched *s, struct ts_task *p);
/* numa_migrate_preferred(): sets numa_migrate_retry and calls ts_task_numa_migrate()
 * unless p is on its preferred node. Returns 1 when no migration was attempted. */
int ts_numa_migrate_preferred(struct ts_sched *s, struct ts_task *p, struct ts_numa_result *res);
/* task_numa_migrate(): the search, lock-free (reads the rqs' lock-free blocks and curr).
 * With NUMA_RESERVE, the chosen CPU's numa_migrate_on stays set until
 * ts_numa_migrate_done(res). With res NULL a decision is dropped at once (the reservation
 * released, counted as a stick): nobody could apply it. */
int ts_task_numa_migrate(struct ts_sched *s, struct ts_task *p, struct ts_numa_result *res);
/* migrate_task_to() / migrate_swap() stop work: under both rq locks (ops->rq_lock, lower
 * CPU first) re-checks that p (and swap) are still where the decision saw them and
 * allowed, takes a running task off its CPU as a stopper would (the CPU is asked to
 * reschedule) and moves it with ts_move_queued_task(). Returns 0 or -EAGAIN. No rq lock
 * held on entry. */
int ts_numa_migrate_apply(struct ts_sched *s, struct ts_numa_result *res);
/* WRITE_ONCE(rq(dst_cpu)->numa_migrate_on, 0) after the stop work, and the stick count
 * when it did not happen. Idempotent. */
void ts_numa_migrate_done(struct ts_sched *s, struct ts_numa_result *res);

/* account_numa_enqueue()/account_numa_dequeue() for p on rq(cpu) (rq locked): rq.c calls
 * them wherever a task joins or leaves a run queue (enqueue_on, ts_deactivate_curr,
 * ts_move_queued_task), sched_setnuma() around a change of the preferred node. The
 * counts are kept in the rq's lock-free block (ro.nr_numa_running/nr_preferred_running),
 * written by the lock holder. Idempotent: p remembers where and what it added. */
void ts_numa_account_enqueue(struct ts_sched *s, struct ts_task *p, int cpu);
void ts_numa_account_dequeue(struct ts_sched *s, struct ts_task *p);

/* migrate_degrades_locality() for the load balancer moving p from src_cpu to dst_cpu at
 * domain sd (src rq locked), pre-v6.14 convention: 1 the move degrades locality (p
 * leaves its preferred node while src has tasks off theirs, or the weights say so), 0 it
 * improves it (dst is on the preferred node), -1 locality does not decide (NUMA off, no
 * faults, not an SD_NUMA level, same node, leaving the preferred node when src runs only
 * preferred tasks, or an idle dst: the cache-hot test then decides). */
int ts_numa_migrate_degrades_locality(struct ts_sched *s, const struct ts_task *p,
				      const struct ts_sched_domain *sd, int src_cpu, int dst_cpu,
				      enum ts_idle_type idle);

/* sched_setnuma(): p's preferred node becomes nid, p re-accounted if queued. Takes p's rq
 * lock (task_rq_lock(): the CPU read, locked and re-checked) through ops->rq_lock. */
void ts_sched_setnuma(struct ts_sched *s, struct ts_task *p, int nid);

/* Scores (per mille of faults), as task_weight()/group_weight() with score_nearby_nodes(). */
unsigned long ts_numa_task_faults(const struct ts_task *p, int nid);
unsigned long ts_numa_group_faults(const struct ts_task *p, int nid);
unsigned long ts_numa_task_weight(struct ts_sched *s, const struct ts_task *p, int nid, int dist);
unsigned long ts_numa_group_weight(struct ts_sched *s, const struct ts_task *p, int nid, int dist);
unsigned int ts_numa_task_scan_min(const struct ts_task *p);
unsigned int ts_numa_task_scan_max(const struct ts_task *p);
/* task_scan_start(): the scan period a task's scanning starts with (ts_task_tick_numa()). */
unsigned int ts_numa_task_scan_start(const struct ts_task *p);

/* Share of tasks on their preferred node: sum nr_preferred_running / nr_numa_running. */
void ts_numa_preferred_share(struct ts_sched *s, unsigned int *preferred, unsigned int *numa);
/* Sums the per-CPU NUMA counters. */
void ts_numa_stats_sum(struct ts_sched *s, struct ts_numa_cpu_stats *out);

#endif
