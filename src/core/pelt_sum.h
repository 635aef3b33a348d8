/* ___update_load_sum() and accumulate_sum() (kernel/sched/pelt.c), inline: the run queue
 * ages two averages per enqueue, dequeue and pick, and the calls (saved registers, spilled
 * arguments) were ~5 % of a channel round trip. The decay over crossed periods, rarer,
 * stays in pelt.c (ts_pelt_decay_periods()). */
#ifndef TOPOSCHED_CORE_PELT_SUM_H
#define TOPOSCHED_CORE_PELT_SUM_H

#include "toposched/pelt.h"

/* accumulate_sum()'s step 1 and the contribution of step 2 when periods (> 0) were
 * crossed: decays the sums; returns the contribution, d1 + d2 + d3, or contrib unchanged
 * when !load (unused then). sa->period_contrib is still the old one. */
uint32_t ts_pelt_decay_periods(struct ts_sched_avg *sa, uint64_t periods, unsigned long load,
			       uint32_t d3, uint32_t contrib);

/* ts_update_load_sum()'s body (pelt.h). */
static inline __attribute__((always_inline)) int
pelt_update_load_sum(uint64_t now, struct ts_sched_avg *sa, unsigned long load,
		     unsigned long runnable, int running)
{
	uint64_t delta = now - sa->last_update_time;

	/* Time going backwards: resynchronise, as ___update_load_sum() does. */
	if ((int64_t)delta < 0) {
		sa->last_update_time = now;
		return 0;
	}

	/* 1024 ns units; the remainder stays for the next update. */
	delta >>= 10;
	if (!delta)
		return 0;
	sa->last_update_time += delta << 10;

	/* running is a subset of runnable is a subset of load; a dequeued curr can still
	 * claim running, so force the subset. */
	if (!load) {
		runnable = 0;
		running = 0;
	}

	/* accumulate_sum(): d1 rest of the old period, d2 whole periods, d3 start of the
	 * current; with no period crossed, delta < 1024 is all the contribution. */
	uint32_t contrib = (uint32_t)delta;
	uint64_t periods;

	delta += sa->period_contrib;
	periods = delta / 1024;
	if (periods) {
		delta %= 1024;
		contrib = ts_pelt_decay_periods(sa, periods, load, (uint32_t)delta, contrib);
	}
	sa->period_contrib = (uint32_t)delta;

	if (load)
		sa->load_sum += load * contrib;
	if (runnable)
		sa->runnable_sum += runnable * contrib << TS_SCHED_CAPACITY_SHIFT;
	if (running)
		sa->util_sum += contrib << TS_SCHED_CAPACITY_SHIFT;

	return (uint32_t)periods ? 1 : 0; /* accumulate_sum() returns u32 */
}

/* ts_update_load_avg_se() (pelt.h), inline. */
static inline __attribute__((always_inline)) int
pelt_update_load_avg_se(uint64_t now, struct ts_sched_avg *sa, unsigned long weight, int on_rq,
			unsigned long runnable, int running)
{
	if (pelt_update_load_sum(now, sa, on_rq ? 1 : 0, runnable, running)) {
		ts_update_load_avg(sa, weight);
		return 1;
	}
	return 0;
}

/* ts_update_load_avg_cfs_rq() (pelt.h), inline. */
static inline __attribute__((always_inline)) int
pelt_update_load_avg_cfs_rq(uint64_t now, struct ts_sched_avg *sa, unsigned long load_weight,
			    unsigned long h_nr_runnable, int running)
{
	if (pelt_update_load_sum(now, sa, load_weight, h_nr_runnable, running)) {
		ts_update_load_avg(sa, 1);
		return 1;
	}
	return 0;
}

#endif
