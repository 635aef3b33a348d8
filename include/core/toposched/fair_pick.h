/* The generation of the fair class's pick, selected per scheduler instance: the EEVDF pick of
 * v6.6+ (eevdf.h, the default, as of v6.12) or the CFS pick of v5.x .. v6.5, after
 * kernel/sched/fair.c as of v6.1.55 (the 6.1 LTS line) with the v5.x differences below.
 *
 * CFS (v6.1.55; the same in v5.6 .. v6.5 unless noted):
 *  - tunables, scaled by get_update_sysctl_factor() (SCHED_TUNABLESCALING_LOG: 1 + ilog2(
 *    min(ncpus, 8))): sysctl_sched_latency 6 ms, sysctl_sched_min_granularity 0.75 ms,
 *    sysctl_sched_wakeup_granularity 1 ms, each times the factor; sched_nr_latency = 8
 *    (latency / min_granularity, which the factor does not change);
 *  - __sched_period(nr) = nr > sched_nr_latency ? nr * min_granularity : latency;
 *  - sched_slice(): the period for nr_running (+1 if se is not queued) scaled by
 *    se's weight over its queue's load at every level of the hierarchy. v5.13 added
 *    ALT_PERIOD (nr_running is the root queue's h_nr_running) and BASE_SLICE (the slice is
 *    at least min_granularity), both on by default ("sched,fair: Alternative
 *    sched_slice()"); v5.6 and v5.10 have neither;
 *  - place_entity(): a waking task starts no earlier than min_vruntime - sched_latency / 2
 *    (sleeper credit, halved by GENTLE_FAIR_SLEEPERS), a new task at min_vruntime +
 *    sched_vslice() (START_DEBIT), never before its own vruntime (max_vruntime());
 *  - vruntime is made relative to min_vruntime when a task leaves a queue other than by
 *    sleeping (and when a sleeping task is woken on another CPU), and absolute again on
 *    the queue it joins;
 *  - check_preempt_tick(): resched once curr ran its ideal_runtime = sched_slice(), or,
 *    after min_granularity, when it is more than ideal_runtime (as virtual time) ahead
 *    of the leftmost;
 *  - check_preempt_wakeup(): preempt when curr's vruntime exceeds the wakee's by more
 *    than wakeup_gran() = calc_delta_fair(sysctl_sched_wakeup_granularity, wakee); the
 *    preempting wakee becomes the next buddy, the preempted curr the last buddy (LAST_BUDDY,
 *    only when nr_running >= sched_nr_latency);
 *  - pick_next_entity(): the leftmost (curr included), else the second if the leftmost is
 *    the skip buddy (yield) and that is not too unfair, then next, then last, each only if
 *    wakeup_preempt_entity(buddy, leftmost) < 1. v5.10 cleared the buddies of the picked
 *    entity in pick_next_entity(), v6.1 in set_next_entity(): the same result here.
 *
 * Features of that era that did not survive into EEVDF (kernel/sched/features.h, v6.1
 * defaults): GENTLE_FAIR_SLEEPERS, START_DEBIT, LAST_BUDDY on; NEXT_BUDDY off (the
 * feature set's NEXT_BUDDY bit); WAKEUP_PREEMPTION on (the feature set's bit, read by both
 * picks). They are fields of struct ts_cfs_params here, not bits of the feature set, so
 * that the feature list of the default (EEVDF) kernel does not change. */
#ifndef TOPOSCHED_FAIR_PICK_H
#define TOPOSCHED_FAIR_PICK_H

#include <stdbool.h>
#include <stdint.h>

enum ts_fair_pick {
	TS_FAIR_PICK_EEVDF, /* v6.6+: pick_eevdf() (the default) */
	TS_FAIR_PICK_CFS,   /* v2.6.23 .. v6.5: leftmost vruntime with buddies */
};

/* normalized_sysctl_sched_{latency,min_granularity,wakeup_granularity} (ns). */
#define TS_NORMALIZED_SCHED_LATENCY	    6000000ULL
#define TS_NORMALIZED_SCHED_MIN_GRANULARITY 750000ULL
#define TS_NORMALIZED_SCHED_WAKEUP_GRAN	    1000000ULL
#define TS_SCHED_NR_LATENCY		    8U

/* The CFS pick's tunables and switches: kernel globals there, one copy per scheduler here,
 * pointed to by each of its queues. */
struct ts_cfs_params {
	uint64_t sched_latency;		   /* sysctl_sched_latency */
	uint64_t sched_min_granularity;	   /* sysctl_sched_min_granularity */
	uint64_t sched_wakeup_granularity; /* sysctl_sched_wakeup_granularity */
	unsigned int sched_nr_latency;
	bool alt_period;	   /* ALT_PERIOD (v5.13+) */
	bool base_slice;	   /* BASE_SLICE (v5.13+) */
	bool gentle_fair_sleepers; /* GENTLE_FAIR_SLEEPERS */
	bool start_debit;	   /* START_DEBIT */
	bool last_buddy;	   /* LAST_BUDDY */
};

/* The v6.1 defaults for nr_cpus online CPUs (sched_init_granularity()). */
void ts_cfs_params_init(struct ts_cfs_params *p, unsigned int nr_cpus);
/* The same before v5.13: no ALT_PERIOD, no BASE_SLICE. */
void ts_cfs_params_init_v5_6(struct ts_cfs_params *p, unsigned int nr_cpus);

#endif
