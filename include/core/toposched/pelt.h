/* PELT, per-entity load tracking: the kernel's geometric averages of load, runnable and
 * running time, with the kernel's integer arithmetic (kernel/sched/pelt.c, pelt.h,
 * sched-pelt.h) and the attach/detach bookkeeping of kernel/sched/fair.c.
 *
 * Units, as in the kernel:
 *  - `now` is the host's clock in nanoseconds (the simulator's virtual time, or the
 *    runtime's monotonic clock); PELT works in 1024 ns units (now >> 10) and 1024-unit
 *    periods (~1 ms), with y^32 = 1/2.
 *  - weights are in the kernel's scale_load_down()'ed scale: nice 0 = 1024, nice -5 = 3121.
 *  - util and runnable averages are in capacity units (SCHED_CAPACITY_SCALE = 1024 for a
 *    fully busy CPU, times the number of runnable entities for runnable_avg).
 * No global state and no I/O: every function works on the struct it is given. */
#ifndef TOPOSCHED_PELT_H
#define TOPOSCHED_PELT_H

#include <stdatomic.h>
#include <stdint.h>

#define TS_LOAD_AVG_PERIOD 32
/* Fixpoint of max = max*y + 1024 in the kernel's truncating arithmetic. */
#define TS_LOAD_AVG_MAX		47742
#define TS_PELT_MIN_DIVIDER	(TS_LOAD_AVG_MAX - 1024)
#define TS_SCHED_CAPACITY_SHIFT 10
#define TS_SCHED_CAPACITY_SCALE (1L << TS_SCHED_CAPACITY_SHIFT)

/* struct sched_avg, same field types (64-bit kernel: unsigned long is 64 bits).
 *
 * Lock-free readers: every field is written under the rq lock of the queue the average
 * belongs to (or, for a task that is not queued, by whoever holds the task: its waker or
 * its creator), except that `load_avg` is also READ without that lock by other CPUs:
 * task_h_load() (group.c ts_tg_update_h_load() / ts_task_h_load(), rq.c
 * ts_task_h_load_of()) reads the load_avg of a CPU's group cfs_rqs, of its group entities
 * and of the task it runs, from wake_affine_weight() (select.c) and task_numa_compare()
 * (numa.c). The kernel does that with plain loads, a data race it tolerates; here every
 * STORE to load_avg is a relaxed atomic store (ts_sa_set_load_avg()) and every lock-free
 * LOAD a relaxed atomic load (ts_sa_load_avg_lockfree()). Both are a plain mov on x86-64
 * and AArch64. The lock holder reads load_avg plainly: no store can run concurrently with
 * it, and a plain read never races with another thread's read. No other field is read
 * lock-free (other CPUs' loads and utilisation come from the rq's published copies,
 * sched.h struct ts_rq_ro). */
struct ts_sched_avg {
	uint64_t last_update_time; /* ns, advanced in whole 1024 ns units */
	uint64_t load_sum;	   /* se: unweighted; cfs_rq: sum of weight * time */
	uint64_t runnable_sum;	   /* time * nr runnable, << SCHED_CAPACITY_SHIFT */
	uint32_t util_sum;	   /* running time << SCHED_CAPACITY_SHIFT */
	uint32_t period_contrib;   /* units already spent in the current period */
	unsigned long load_avg;	   /* stored atomically, read lock-free: see above */
	unsigned long runnable_avg;
	unsigned long util_avg;
};

/* The one way to store load_avg (WRITE_ONCE): a relaxed atomic store. */
static inline void ts_sa_set_load_avg(struct ts_sched_avg *sa, unsigned long v)
{
	__atomic_store_n(&sa->load_avg, v, __ATOMIC_RELAXED);
}
/* load_avg read without the owner's rq lock (READ_ONCE): a relaxed atomic load. */
static inline unsigned long ts_sa_load_avg_lockfree(const struct ts_sched_avg *sa)
{
	return __atomic_load_n(&sa->load_avg, __ATOMIC_RELAXED);
}

/* decay_load(): val * y^n with the 32-entry runnable_avg_yN_inv table; 0 for
 * n > LOAD_AVG_PERIOD * 63. The table's y^0 is 0xffffffff / 2^32, so for n = 0, 32, 64, ...
 * the kernel's result is one less than val >> (n / 32) (decay_load(1024, 32) = 511). */
uint64_t ts_decay_load(uint64_t val, uint64_t n);

/* __accumulate_pelt_segments(): d1 * y^p + 1024 * sum_{n=1}^{p-1} y^n + d3. */
uint32_t ts_accumulate_pelt_segments(uint64_t periods, uint32_t d1, uint32_t d3);

/* get_pelt_divider(): the maximum *_sum at the current position in the period. */
uint32_t ts_pelt_divider(const struct ts_sched_avg *sa);

/* ___update_load_sum(): ages the sums to `now`. Returns 1 when a period boundary was
 * crossed (the averages are then due for ts_update_load_avg()), 0 otherwise. A clock
 * going backwards resets last_update_time, as the kernel does. */
int ts_update_load_sum(uint64_t now, struct ts_sched_avg *sa, unsigned long load,
		       unsigned long runnable, int running);

/* ___update_load_avg(): *_avg from *_sum; load_avg is weighted by `load`. */
void ts_update_load_avg(struct ts_sched_avg *sa, unsigned long load);

/* __update_load_avg_blocked_se(): a dequeued (sleeping) entity only decays. */
int ts_update_load_avg_blocked_se(uint64_t now, struct ts_sched_avg *sa, unsigned long weight);

/* __update_load_avg_se(): on_rq = se->on_rq (load accrues), runnable = se_runnable()
 * (task: on_rq && !sched_delayed; group se: its cfs_rq's h_nr_runnable), running =
 * (cfs_rq->curr == se). weight = se_weight(). Returns 1 if a period boundary was crossed. */
int ts_update_load_avg_se(uint64_t now, struct ts_sched_avg *sa, unsigned long weight, int on_rq,
			  unsigned long runnable, int running);

/* __update_load_avg_cfs_rq(): load_weight = scale_load_down(cfs_rq->load.weight), the sum
 * of queued entities' weights; running = (cfs_rq->curr != NULL). The cfs_rq's load_avg is
 * load_sum / divider, since its load_sum is already weighted. */
int ts_update_load_avg_cfs_rq(uint64_t now, struct ts_sched_avg *sa, unsigned long load_weight,
			      unsigned long h_nr_runnable, int running);

/* attach_entity_load_avg(): the caller has aged cfs_sa to now (update_cfs_rq_load_avg()).
 * The entity is aligned to the cfs_rq's window, its sums rebuilt from its averages with the
 * cfs_rq's divider, and added in. se_weight >= 1 (the kernel's se_weight() is >= 2). */
void ts_attach_entity_load_avg(struct ts_sched_avg *cfs_sa, struct ts_sched_avg *se_sa,
			       unsigned long se_weight);

/* detach_entity_load_avg(): subtract the entity, clamping at 0 and keeping each
 * *_sum >= *_avg * PELT_MIN_DIVIDER. se_weight is needed because dequeue_load_avg()
 * removes se_weight * se->load_sum from the cfs_rq's weighted load_sum. */
void ts_detach_entity_load_avg(struct ts_sched_avg *cfs_sa, const struct ts_sched_avg *se_sa,
			       unsigned long se_weight);

/* enqueue_load_avg() / dequeue_load_avg(): add or remove an entity's load (avg and its
 * weighted sum) from a cfs_rq's, as reweight_entity() does around a weight change. */
void ts_enqueue_load_avg(struct ts_sched_avg *cfs_sa, const struct ts_sched_avg *se_sa,
			 unsigned long se_weight);
void ts_dequeue_load_avg(struct ts_sched_avg *cfs_sa, const struct ts_sched_avg *se_sa,
			 unsigned long se_weight);

/* Load that left a cfs_rq while its lock was not held (cfs_rq->removed in the kernel, there
 * under its own spinlock; here lock-free): tasks woken elsewhere queue their averages into
 * the queue they last slept on, folded in at that queue's next PELT update. Its own line:
 * any CPU writes it. */
struct ts_removed_load {
	atomic_ulong load_avg, util_avg, runnable_avg;
	atomic_uint nr;
};

/* remove_entity_load_avg() after sync_entity_load_avg(): queue se's averages. */
void ts_remove_entity_load_avg(struct ts_removed_load *r, const struct ts_sched_avg *se_sa);

/* The removed-load part of update_cfs_rq_load_avg(): subtract what was queued (keeping each
 * *_sum >= *_avg * PELT_MIN_DIVIDER). Returns 1 if anything was removed, with
 * *prop_runnable_sum (add_tg_cfs_propagate()'s argument) =
 * -(removed runnable_avg * divider) >> SCHED_CAPACITY_SHIFT; 0 (and *prop 0) otherwise. */
int ts_apply_removed_load(struct ts_sched_avg *sa, struct ts_removed_load *r,
			  long *prop_runnable_sum);

/* Hierarchy propagation (fair.c, CONFIG_FAIR_GROUP_SCHED): the group entity se takes the
 * util / runnable of its group cfs_rq gcfs, and its parent cfs_rq cfs the difference
 * (update_tg_cfs_util(), update_tg_cfs_runnable()). cfs's period_contrib serves as se's
 * (their windows are aligned). */
void ts_update_tg_cfs_util(struct ts_sched_avg *cfs, struct ts_sched_avg *se,
			   const struct ts_sched_avg *gcfs);
void ts_update_tg_cfs_runnable(struct ts_sched_avg *cfs, struct ts_sched_avg *se,
			       const struct ts_sched_avg *gcfs);
/* update_tg_cfs_load(): re-estimates se's load_sum from the runnable sum propagated from
 * its group cfs_rq (*prop_runnable_sum, consumed and zeroed): added runnable is clipped at
 * the divider, removed runnable is estimated as gcfs's load_sum / gcfs_load_weight; never
 * below se's running sum. se_weight = se_weight(se); gcfs_load_weight = the group cfs_rq's
 * load.weight. */
void ts_update_tg_cfs_load(struct ts_sched_avg *cfs, struct ts_sched_avg *se,
			   unsigned long se_weight, const struct ts_sched_avg *gcfs,
			   unsigned long gcfs_load_weight, long *prop_runnable_sum);

#endif
