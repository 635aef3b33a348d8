/* Scheduler statistics: the kernel's schedstat counters, Mel Gorman's SIS search counters
 * (the debug patches mmtests reads), placement reasons, wake-ups by the relationship of
 * the waker's CPU and the chosen CPU, and the load-balance counters of /proc/schedstat.
 *
 * Counters are written only by the CPU that owns them (the waker's CPU for wake-up
 * counters, the balancing CPU for its domains) and read by anyone: ts_stat_inc() is a
 * relaxed load + store, free of read-modify-write cost and of data races. */
#ifndef TOPOSCHED_STATS_H
#define TOPOSCHED_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "toposched/topology.h" /* enum ts_cpu_relation */

typedef _Atomic uint64_t ts_counter;

static inline void ts_stat_add(ts_counter *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}
static inline void ts_stat_inc(ts_counter *c)
{
	ts_stat_add(c, 1);
}
static inline uint64_t ts_stat_read(const ts_counter *c)
{
	return atomic_load_explicit((ts_counter *)c, memory_order_relaxed);
}

/* The step of select_task_rq_fair()/select_idle_sibling() that decided a placement. */
enum ts_place_reason {
	TS_PLACE_TARGET_IDLE,	   /* SIS 1: target idle */
	TS_PLACE_PREV,		   /* SIS 2: prev idle, shares cache (and cluster) */
	TS_PLACE_KTHREAD_STACK,	   /* SIS 3: per-CPU kthread waker, stack on it */
	TS_PLACE_RECENT,	   /* SIS 4: recent_used_cpu idle, shares cache (and cluster) */
	TS_PLACE_ASYM_CAPACITY,	   /* SIS 5: select_idle_capacity() */
	TS_PLACE_NO_LLC,	   /* SIS 6: target has no LLC domain */
	TS_PLACE_IDLE_SMT,	   /* SIS 7: idle SMT sibling of prev */
	TS_PLACE_IDLE_CORE,	   /* SIS 8: a fully idle core found by the LLC scan */
	TS_PLACE_IDLE_THREAD,	   /* SIS 8: no idle core, an idle thread remembered on the way */
	TS_PLACE_CLUSTER_SCAN,	   /* SIS 8: idle CPU in the target's cluster */
	TS_PLACE_LLC_SCAN,	   /* SIS 8: idle CPU elsewhere in the LLC */
	TS_PLACE_PREV_FALLBACK,	   /* SIS 9: remembered prev of another cluster */
	TS_PLACE_RECENT_FALLBACK,  /* SIS 10: remembered recent_used_cpu of another cluster */
	TS_PLACE_TARGET_FALLBACK,  /* SIS 11: nothing found (sis_failed) */
	TS_PLACE_SCAN_ABORTED,	   /* SIS_OVERLOAD: LLC marked overloaded, no scan */
	TS_PLACE_BUDGET_EXHAUSTED, /* SIS_UTIL/SIS_PROP budget ran out (or was 0) */
	TS_PLACE_CURRENT_CPU,	   /* WF_CURRENT_CPU */
	TS_PLACE_SLOW_PATH,	   /* fork/exec balancing: sched_balance_find_dst_cpu() */
	TS_PLACE_SINGLE_CPU,	   /* select_task_rq(): allowed one CPU, the class is not asked */
	TS_PLACE_NR,		   /* select_task_rq_fair()'s reasons end here: reasons[] */
	/* A new task the host spawns near a node: the i-th CPU nearest to it,
	 * cpumask_local_spread() (ts_select_near_node()). Not a select_task_rq_fair() result:
	 * not counted in reasons[], whose reports keep their columns. */
	TS_PLACE_NEAR_NODE_SPREAD,
};
const char *ts_place_reason_name(enum ts_place_reason r); /* "target_idle", ... */

#define TS_SCAN_HIST_BUCKETS 12 /* 0, 1, 2, 3-4, 5-8, 9-16, ..., 513+ CPUs examined */
int ts_scan_hist_bucket(int nr_scanned);
const char *ts_scan_hist_label(int bucket);

/* Per CPU, written by that CPU (as the waker, or as the rq owner). */
struct ts_cpu_stats {
	ts_counter ttwu_count;	      /* wake-ups issued from this CPU */
	ts_counter ttwu_local;	      /* ... that chose this CPU */
	ts_counter sis_search;	      /* select_idle_sibling() calls */
	ts_counter sis_domain_search; /* ... that reached the LLC scan */
	ts_counter sis_scanned;	      /* 1 per call + 1 per CPU examined */
	ts_counter sis_failed;	      /* ... that returned target with nothing found */
	ts_counter sis_recent_hit, sis_recent_miss;
	ts_counter sis_core_search, sis_core_failed;
	ts_counter wake_affine_attempts, wake_affine; /* wake_affine() calls / chose this CPU */
	ts_counter reasons[TS_PLACE_NR];	      /* per wake-up: they sum to ttwu_count */
	ts_counter fork_exec_placements;	   /* placements of new tasks (WF_FORK / WF_EXEC) */
	ts_counter wakeups_by_relation[TS_REL_NR]; /* waker CPU vs chosen CPU */
	ts_counter scan_hist[TS_SCAN_HIST_BUCKETS]; /* CPUs examined per select_idle_cpu() */
	ts_counter scan_time_ns;	 /* modelled/measured time of select_idle_cpu() scans */
	ts_counter migrations;		 /* tasks that arrived here from another CPU */
	ts_counter nr_idle_scan_updates; /* SIS_UTIL recomputations done by this CPU */
};

enum ts_idle_type { TS_CPU_IDLE, TS_CPU_NOT_IDLE, TS_CPU_NEWLY_IDLE, TS_CPU_MAX_IDLE_TYPES };

/* Per domain (sched_domain's schedstat fields), written by the domain's CPU. */
struct ts_sd_stats {
	ts_counter lb_count[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_failed[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_balanced[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_imbalance[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_gained[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_hot_gained[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_nobusyq[TS_CPU_MAX_IDLE_TYPES];
	ts_counter lb_nobusyg[TS_CPU_MAX_IDLE_TYPES];
	ts_counter alb_count, alb_failed, alb_pushed;
	ts_counter ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance;
};

/* mmtests' derived SIS metrics (MonitorProcschedstat.pm), from counter values or deltas.
 * Each is a percentage; a metric whose denominator is 0 is reported as -1 (undefined). */
struct ts_sis_metrics {
	double search_efficiency;	 /* 100 * search / scanned */
	double domain_search_efficiency; /* 100 * domain_search / (scanned - fast_search) */
	double fast_success_rate;	 /* 100 * fast_search / search */
	double success_rate;		 /* 100 * (search - failed) / search */
	double recent_success_rate;	 /* 100 * recent_hit / (recent_hit + recent_miss) */
	double core_search_efficiency;	 /* 100 * (core_search - core_failed) / core_search */
	double scanned_per_wakeup;	 /* scanned / search */
};
struct ts_sis_counts {
	uint64_t search, domain_search, scanned, failed, recent_hit, recent_miss, core_search,
		core_failed;
};
struct ts_sis_metrics ts_sis_metrics(const struct ts_sis_counts *c);
/* Sums the SIS counters of every CPU's stats. */
void ts_sis_counts_sum(const struct ts_cpu_stats *per_cpu, int nr_cpus, size_t stride,
		       struct ts_sis_counts *out);

#endif
