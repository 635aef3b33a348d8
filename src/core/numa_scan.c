/* NUMA balancing's scan pacing (numa_scan.h): task_tick_numa(), the pacing of
 * task_numa_work(), and the scan period: task_scan_min()/task_scan_max()/task_scan_start()
 * and update_task_scan_period(). kernel/sched/fair.c, v6.x. */
#include "numa_internal.h"

#include <string.h>

static unsigned int task_nr_scan_windows(const struct ts_task *p)
{
	unsigned long nr_scan_pages = (unsigned long)TS_NUMA_SCAN_SIZE_MB
				      << (20 - TS_NUMA_PAGE_SHIFT);
	unsigned long rss = p->numa->mm->rss_pages;
	if (!rss)
		rss = nr_scan_pages;
	rss = (rss + nr_scan_pages - 1) / nr_scan_pages * nr_scan_pages;
	return (unsigned int)(rss / nr_scan_pages);
}

unsigned int ts_numa_task_scan_min(const struct ts_task *p)
{
	unsigned int scan_size = TS_NUMA_SCAN_SIZE_MB, windows = 1;
	if (scan_size < TS_NUMA_MAX_SCAN_WINDOW)
		windows = TS_NUMA_MAX_SCAN_WINDOW / scan_size;
	unsigned int floor = 1000 / windows;
	unsigned int scan = TS_NUMA_SCAN_PERIOD_MIN_MS / task_nr_scan_windows(p);
	return scan > floor ? scan : floor;
}

unsigned int ts_numa_task_scan_max(const struct ts_task *p)
{
	unsigned long smin = ts_numa_task_scan_min(p);
	unsigned long smax = TS_NUMA_SCAN_PERIOD_MAX_MS / task_nr_scan_windows(p);
	const struct ts_numa_group *ng = p->numa->numa_group;
	if (ng) {
		int nn = p->numa->nr_nodes;
		unsigned long shared = group_faults_priv(ng, nn, 0),
			      priv = group_faults_priv(ng, nn, 1);
		unsigned long period = smax;
		period *= (unsigned long)ng->refcount;
		period *= shared + 1;
		period /= priv + shared + 1;
		if (period > smax)
			smax = period;
	}
	return (unsigned int)(smin > smax ? smin : smax);
}

/* task_scan_start(): the first scan period, scaled up with the share of shared faults of
 * the task's group (hosts call it from task_tick_numa when node_stamp is still 0). */
unsigned int ts_numa_task_scan_start(const struct ts_task *p)
{
	unsigned long smin = ts_numa_task_scan_min(p), period = smin;
	const struct ts_numa_group *ng = p->numa->numa_group;
	if (ng) {
		int nn = p->numa->nr_nodes;
		unsigned long shared = group_faults_priv(ng, nn, 0),
			      priv = group_faults_priv(ng, nn, 1);
		period *= (unsigned long)ng->refcount;
		period *= shared + 1;
		period /= priv + shared + 1;
	}
	return (unsigned int)(smin > period ? smin : period);
}

static void scan_hist_push(struct ts_numa_task *n)
{
	n->scan_period_hist[n->scan_period_hist_n % TS_NUMA_SCAN_HIST] = n->numa_scan_period;
	n->scan_period_hist_n++;
}

void ts_numa_update_task_scan_period(struct ts_task *p, unsigned long shared, unsigned long priv)
{
	struct ts_numa_task *n = p->numa;
	unsigned long remote = n->numa_faults_locality[0], local = n->numa_faults_locality[1];
	/* sic: local + shared, as the kernel */
	if (local + shared == 0 || n->numa_faults_locality[2]) {
		unsigned int d = n->numa_scan_period << 1;
		n->numa_scan_period = d < n->numa_scan_period_max ? d : n->numa_scan_period_max;
		scan_hist_push(n);
		return;
	}
	long period_slot = (n->numa_scan_period + TS_NUMA_PERIOD_SLOTS - 1) / TS_NUMA_PERIOD_SLOTS;
	long lr_ratio =
		local + remote ? (long)(local * TS_NUMA_PERIOD_SLOTS / (local + remote)) : 0;
	long ps_ratio = (long)(priv * TS_NUMA_PERIOD_SLOTS / (priv + shared));
	long diff;
	if (ps_ratio >= TS_NUMA_PERIOD_THRESHOLD) {
		long slot = ps_ratio - TS_NUMA_PERIOD_THRESHOLD;
		diff = (slot ? slot : 1) * period_slot;
	} else if (lr_ratio >= TS_NUMA_PERIOD_THRESHOLD) {
		long slot = lr_ratio - TS_NUMA_PERIOD_THRESHOLD;
		diff = (slot ? slot : 1) * period_slot;
	} else {
		long ratio = lr_ratio > ps_ratio ? lr_ratio : ps_ratio;
		diff = -(TS_NUMA_PERIOD_THRESHOLD - ratio) * period_slot;
	}
	long v = (long)n->numa_scan_period + diff;
	long lo = ts_numa_task_scan_min(p), hi = ts_numa_task_scan_max(p);
	n->numa_scan_period = (unsigned int)(v < lo ? lo : v > hi ? hi : v);
	memset(n->numa_faults_locality, 0, sizeof(n->numa_faults_locality));
	scan_hist_push(n);
}

/* ---- pacing ---- */

void ts_numa_mm_init(struct ts_sched *s, struct ts_numa_mm *mm, unsigned int scan_delay_ms)
{
	mm->numa_next_scan = jiffies(s) + msecs_to_jiffies(s, scan_delay_ms);
	atomic_store_explicit(&mm->numa_scan_seq, 0, memory_order_relaxed);
	mm->numa_scan_offset = 0;
}

void ts_numa_scan_tune(struct ts_sched *s, struct ts_task *p, unsigned int scan_delay_ms,
		       unsigned int fixed_period_ms)
{
	struct ts_numa_task *n = p->numa;
	unsigned int delay = scan_delay_ms ? scan_delay_ms : TS_NUMA_SCAN_DELAY_MS;
	n->numa_scan_period = delay;
	n->numa_scan_period_fixed = fixed_period_ms;
	if (n->mm == &n->own_mm)
		ts_numa_mm_init(s, n->mm, delay);
}

unsigned int ts_numa_scan_period_now(const struct ts_task *p)
{
	const struct ts_numa_task *n = p->numa;
	/* node_stamp 0: the scan delay, which numa_scan_period holds until the first scan */
	return n->numa_scan_period_fixed && n->node_stamp ? n->numa_scan_period_fixed
							  : n->numa_scan_period;
}

bool ts_task_tick_numa(struct ts_sched *s, struct ts_task *p)
{
	struct ts_numa_task *n = p->numa;
	if (!n)
		return false;
	/* Run time, not wall time: the task must have done some work first. */
	uint64_t now = p->se.sum_exec_runtime;
	uint64_t period = (uint64_t)ts_numa_scan_period_now(p) * 1000000u;
	if (now <= n->node_stamp + period)
		return false;
	if (!n->node_stamp)
		n->numa_scan_period = ts_numa_task_scan_start(p);
	n->node_stamp += period;
	return jiffies(s) >= n->mm->numa_next_scan; /* !time_before(jiffies, numa_next_scan) */
}

bool ts_task_numa_work(struct ts_sched *s, struct ts_task *p, struct ts_numa_scan *scan)
{
	struct ts_numa_task *n = p->numa;
	struct ts_numa_mm *mm = n->mm;
	uint64_t now = jiffies(s);
	if (now < mm->numa_next_scan) /* time_before(now, mm->numa_next_scan) */
		return false;
	/* One scanner per mm per period (the kernel's cmpxchg on numa_next_scan: the hosts
	 * hold p's rq lock, and an mm's threads scan from their own CPUs one at a time). */
	mm->numa_next_scan = now + msecs_to_jiffies(s, ts_numa_scan_period_now(p));
	/* Delay this task enough that another task of this mm will likely win next time. */
	n->node_stamp += 2 * s->tick_nsec;
	scan->start = mm->numa_scan_offset;
	scan->pages = (int64_t)TS_NUMA_SCAN_SIZE_MB << (20 - TS_NUMA_PAGE_SHIFT);
	scan->virtpages = scan->pages * 8;
	return true;
}

void ts_task_numa_work_end(struct ts_sched *s, struct ts_task *p, uint64_t end, int resets,
			   uint64_t scan_ns)
{
	(void)s;
	struct ts_numa_task *n = p->numa;
	for (int i = 0; i < resets; i++) /* reset_ptenuma_scan() */
		ts_numa_scan_done(n->mm);
	n->mm->numa_scan_offset = end;
	/* At least 32x as much time running other code as scanning (3 % overhead at most). */
	n->node_stamp += 32 * scan_ns;
}
