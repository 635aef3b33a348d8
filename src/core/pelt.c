/* PELT with the kernel's integer arithmetic: kernel/sched/pelt.c (decay_load,
 * __accumulate_pelt_segments, accumulate_sum, ___update_load_sum, ___update_load_avg and
 * the se/cfs_rq flavours), pelt.h (get_pelt_divider) and fair.c (attach/detach_entity_load_avg,
 * enqueue/dequeue_load_avg, add_positive, __update_sa). Results must be bit-identical to the
 * kernel's for the same inputs, so the truncations below are deliberate.
 *
 * load_avg is read lock-free by other CPUs (pelt.h): every store to it below goes through
 * ts_sa_set_load_avg(), computed in a local first so that the relaxed atomic store is the
 * only access that changes. */
#include "toposched/pelt.h"

#include "pelt_sum.h"

/* runnable_avg_yN_inv[n] = floor(y^n * 2^32), y^32 = 1/2 (kernel/sched/sched-pelt.h). */
static const uint32_t runnable_avg_yN_inv[TS_LOAD_AVG_PERIOD] = {
	0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb,
	0xdbfbb796, 0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9,
	0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9,
	0xa2704302, 0x9ef5325f, 0x9b8d39b9, 0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a,
	0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

/* mul_u64_u32_shr() generic version (include/linux/math64.h): the exact floor of the
 * 96-bit product, without needing a 128-bit type. */
static uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned int shift)
{
	uint32_t ah = (uint32_t)(a >> 32), al = (uint32_t)a;
	uint64_t ret = ((uint64_t)al * mul) >> shift;

	if (ah)
		ret += ((uint64_t)ah * mul) << (32 - shift);
	return ret;
}

uint64_t ts_decay_load(uint64_t val, uint64_t n)
{
	unsigned int local_n;

	if (n > TS_LOAD_AVG_PERIOD * 63)
		return 0;
	local_n = (unsigned int)n;
	/* y^n = 1/2^(n/PERIOD) * y^(n%PERIOD): constant time for any n. */
	if (local_n >= TS_LOAD_AVG_PERIOD) {
		val >>= local_n / TS_LOAD_AVG_PERIOD;
		local_n %= TS_LOAD_AVG_PERIOD;
	}
	return mul_u64_u32_shr(val, runnable_avg_yN_inv[local_n], 32);
}

uint32_t ts_accumulate_pelt_segments(uint64_t periods, uint32_t d1, uint32_t d3)
{
	uint32_t c1, c2, c3 = d3; /* y^0 == 1 */

	c1 = (uint32_t)ts_decay_load((uint64_t)d1, periods);
	/* 1024 * sum_{n=1}^{p-1} y^n = LOAD_AVG_MAX - LOAD_AVG_MAX*y^p - 1024 */
	c2 = TS_LOAD_AVG_MAX - (uint32_t)ts_decay_load(TS_LOAD_AVG_MAX, periods) - 1024;
	return c1 + c2 + c3;
}

uint32_t ts_pelt_divider(const struct ts_sched_avg *sa)
{
	return TS_PELT_MIN_DIVIDER + sa->period_contrib;
}

uint32_t ts_pelt_decay_periods(struct ts_sched_avg *sa, uint64_t periods, unsigned long load,
			       uint32_t d3, uint32_t contrib)
{
	/* accumulate_sum() step 1: decay the sums by the periods crossed */
	sa->load_sum = ts_decay_load(sa->load_sum, periods);
	sa->runnable_sum = ts_decay_load(sa->runnable_sum, periods);
	sa->util_sum = (uint32_t)ts_decay_load((uint64_t)sa->util_sum, periods);

	/* !load implies !runnable && !running (see pelt_update_load_sum()), so contrib is
	 * unused then and the kernel skips computing it. */
	if (load)
		contrib = ts_accumulate_pelt_segments(periods, 1024 - sa->period_contrib, d3);
	return contrib;
}

int ts_update_load_sum(uint64_t now, struct ts_sched_avg *sa, unsigned long load,
		       unsigned long runnable, int running)
{
	return pelt_update_load_sum(now, sa, load, runnable, running);
}

void ts_update_load_avg(struct ts_sched_avg *sa, unsigned long load)
{
	uint32_t divider = ts_pelt_divider(sa);

	/* The divider follows period_contrib so that the unelapsed rest of the current period
	 * is not counted as idle (which would make a busy entity oscillate in [1002, 1024)). */
	ts_sa_set_load_avg(sa, (unsigned long)((load * sa->load_sum) / divider));
	sa->runnable_avg = (unsigned long)(sa->runnable_sum / divider);
	sa->util_avg = sa->util_sum / divider;
}

int ts_update_load_avg_blocked_se(uint64_t now, struct ts_sched_avg *sa, unsigned long weight)
{
	if (ts_update_load_sum(now, sa, 0, 0, 0)) {
		ts_update_load_avg(sa, weight);
		return 1;
	}
	return 0;
}

int ts_update_load_avg_se(uint64_t now, struct ts_sched_avg *sa, unsigned long weight, int on_rq,
			  unsigned long runnable, int running)
{
	return pelt_update_load_avg_se(now, sa, weight, on_rq, runnable, running);
}

int ts_update_load_avg_cfs_rq(uint64_t now, struct ts_sched_avg *sa, unsigned long load_weight,
			      unsigned long h_nr_runnable, int running)
{
	return pelt_update_load_avg_cfs_rq(now, sa, load_weight, h_nr_runnable, running);
}

/* add_positive() (fair.c): signed delta on an unsigned value, clamped at 0 on underflow. */
static unsigned long add_positive_val(unsigned long var, long val)
{
	unsigned long res = var + (unsigned long)val;

	if (val < 0 && res > var)
		res = 0;
	return res;
}

static void add_positive_ul(unsigned long *ptr, long val)
{
	*ptr = add_positive_val(*ptr, val);
}

static void add_positive_u64(uint64_t *ptr, int64_t val)
{
	uint64_t var = *ptr, res = var + (uint64_t)val;

	if (val < 0 && res > var)
		res = 0;
	*ptr = res;
}

static void add_positive_u32(uint32_t *ptr, int32_t val)
{
	uint32_t var = *ptr, res = var + (uint32_t)val;

	if (val < 0 && res > var)
		res = 0;
	*ptr = res;
}

/* __update_sa() (fair.c): add to avg and sum, then keep sum >= avg * PELT_MIN_DIVIDER.
 * Rounding can leave a se's sum a little above its share of the cfs_rq's sum; detaching
 * many such entities between two updates would otherwise zero the sum while the avg is not.
 * PELT_MIN_DIVIDER is the only divider sure to be <= the current one. The max is taken in
 * the sum's own type, as in the kernel's max_t(typeof(sum), ...). */
static void update_sa_u64(unsigned long *avg, uint64_t *sum, long delta_avg, int64_t delta_sum)
{
	uint64_t floor;

	add_positive_ul(avg, delta_avg);
	add_positive_u64(sum, delta_sum);
	floor = (uint64_t)(*avg * TS_PELT_MIN_DIVIDER);
	if (*sum < floor)
		*sum = floor;
}

/* __update_sa(cfs_rq, load, ...): the same for load_avg, stored atomically. */
static void update_sa_load(struct ts_sched_avg *sa, long delta_avg, int64_t delta_sum)
{
	unsigned long avg = add_positive_val(sa->load_avg, delta_avg);
	uint64_t floor;

	ts_sa_set_load_avg(sa, avg);
	add_positive_u64(&sa->load_sum, delta_sum);
	floor = (uint64_t)(avg * TS_PELT_MIN_DIVIDER);
	if (sa->load_sum < floor)
		sa->load_sum = floor;
}

static void update_sa_u32(unsigned long *avg, uint32_t *sum, long delta_avg, int32_t delta_sum)
{
	uint32_t floor;

	add_positive_ul(avg, delta_avg);
	add_positive_u32(sum, delta_sum);
	floor = (uint32_t)(*avg * TS_PELT_MIN_DIVIDER);
	if (*sum < floor)
		*sum = floor;
}

/* enqueue_load_avg() / dequeue_load_avg(): the cfs_rq's load_sum is weighted, the se's is
 * not, so the se's counts se_weight times. */
void ts_enqueue_load_avg(struct ts_sched_avg *cfs_sa, const struct ts_sched_avg *se_sa,
			 unsigned long se_weight)
{
	update_sa_load(cfs_sa, (long)se_sa->load_avg, (int64_t)(se_weight * se_sa->load_sum));
}

void ts_dequeue_load_avg(struct ts_sched_avg *cfs_sa, const struct ts_sched_avg *se_sa,
			 unsigned long se_weight)
{
	/* se_weight(se) * -se->avg.load_sum: negate in unsigned arithmetic, as the kernel. */
	update_sa_load(cfs_sa, -(long)se_sa->load_avg,
		       (int64_t)(se_weight * (0 - se_sa->load_sum)));
}

void ts_attach_entity_load_avg(struct ts_sched_avg *cfs_sa, struct ts_sched_avg *se_sa,
			       unsigned long se_weight)
{
	/* se and cfs_rq share a clock, so the cfs_rq's period_contrib serves for both. */
	uint32_t divider = ts_pelt_divider(cfs_sa);

	/* Align the entity's decay window with the cfs_rq's. */
	se_sa->last_update_time = cfs_sa->last_update_time;
	se_sa->period_contrib = cfs_sa->period_contrib;

	/* Rebuild the sums for the new period_contrib from the averages; the truncation is
	 * accepted since the entity is outside any hierarchy at this point. */
	se_sa->util_sum = (uint32_t)(se_sa->util_avg * divider);
	se_sa->runnable_sum = (uint64_t)se_sa->runnable_avg * divider;
	se_sa->load_sum = (uint64_t)se_sa->load_avg * divider;
	/* Never leave load_sum 0 with load_avg != 0 (kernel commit 40f5aa4c5eae). The kernel's
	 * se_weight() is never 0; the extra test only keeps a bad weight from dividing by 0. */
	if (se_weight && se_weight < se_sa->load_sum)
		se_sa->load_sum = se_sa->load_sum / se_weight;
	else
		se_sa->load_sum = 1;

	ts_enqueue_load_avg(cfs_sa, se_sa, se_weight);
	cfs_sa->util_avg += se_sa->util_avg;
	cfs_sa->util_sum += se_sa->util_sum;
	cfs_sa->runnable_avg += se_sa->runnable_avg;
	cfs_sa->runnable_sum += se_sa->runnable_sum;
}

void ts_detach_entity_load_avg(struct ts_sched_avg *cfs_sa, const struct ts_sched_avg *se_sa,
			       unsigned long se_weight)
{
	ts_dequeue_load_avg(cfs_sa, se_sa, se_weight);
	update_sa_u32(&cfs_sa->util_avg, &cfs_sa->util_sum, -(long)se_sa->util_avg,
		      -(int32_t)se_sa->util_sum);
	update_sa_u64(&cfs_sa->runnable_avg, &cfs_sa->runnable_sum, -(long)se_sa->runnable_avg,
		      -(int64_t)se_sa->runnable_sum);
}

/* ---- removed load (remove_entity_load_avg / update_cfs_rq_load_avg) ---- */

void ts_remove_entity_load_avg(struct ts_removed_load *r, const struct ts_sched_avg *se_sa)
{
	atomic_fetch_add(&r->load_avg, se_sa->load_avg);
	atomic_fetch_add(&r->util_avg, se_sa->util_avg);
	atomic_fetch_add(&r->runnable_avg, se_sa->runnable_avg);
	atomic_fetch_add(&r->nr, 1);
}

static void sub_positive_ul(unsigned long *v, unsigned long d)
{
	*v = *v > d ? *v - d : 0;
}

int ts_apply_removed_load(struct ts_sched_avg *sa, struct ts_removed_load *r,
			  long *prop_runnable_sum)
{
	*prop_runnable_sum = 0;
	if (!r || !atomic_load_explicit(&r->nr, memory_order_relaxed))
		return 0;
	unsigned long r_load = atomic_exchange(&r->load_avg, 0);
	unsigned long r_util = atomic_exchange(&r->util_avg, 0);
	unsigned long r_run = atomic_exchange(&r->runnable_avg, 0);
	atomic_store(&r->nr, 0);
	uint32_t divider = ts_pelt_divider(sa);
	uint64_t d;

	unsigned long load = sa->load_avg > r_load ? sa->load_avg - r_load : 0;
	ts_sa_set_load_avg(sa, load);
	d = (uint64_t)r_load * divider;
	sa->load_sum = sa->load_sum > d ? sa->load_sum - d : 0;
	if (sa->load_sum < (uint64_t)load * TS_PELT_MIN_DIVIDER)
		sa->load_sum = (uint64_t)load * TS_PELT_MIN_DIVIDER;

	sub_positive_ul(&sa->util_avg, r_util);
	d = (uint64_t)r_util * divider;
	sa->util_sum = sa->util_sum > d ? (uint32_t)(sa->util_sum - d) : 0;
	if (sa->util_sum < (uint64_t)sa->util_avg * TS_PELT_MIN_DIVIDER)
		sa->util_sum = (uint32_t)(sa->util_avg * TS_PELT_MIN_DIVIDER);

	sub_positive_ul(&sa->runnable_avg, r_run);
	d = (uint64_t)r_run * divider;
	sa->runnable_sum = sa->runnable_sum > d ? sa->runnable_sum - d : 0;
	if (sa->runnable_sum < (uint64_t)sa->runnable_avg * TS_PELT_MIN_DIVIDER)
		sa->runnable_sum = (uint64_t)sa->runnable_avg * TS_PELT_MIN_DIVIDER;

	/* removed_runnable is the unweighted version of removed_load, so it estimates the
	 * removed load_sum. */
	*prop_runnable_sum = -(long)((uint64_t)r_run * divider) >> TS_SCHED_CAPACITY_SHIFT;
	return 1;
}

/* ---- hierarchy propagation (update_tg_cfs_util / _runnable / _load) ---- */

void ts_update_tg_cfs_util(struct ts_sched_avg *cfs, struct ts_sched_avg *se,
			   const struct ts_sched_avg *gcfs)
{
	long delta_avg = (long)gcfs->util_avg - (long)se->util_avg;

	if (!delta_avg)
		return;
	uint32_t divider = ts_pelt_divider(cfs);
	/* Set the group entity's utilisation, then the parent's by the difference. */
	se->util_avg = gcfs->util_avg;
	uint32_t new_sum = (uint32_t)(se->util_avg * divider);
	long delta_sum = (long)new_sum - (long)se->util_sum;
	se->util_sum = new_sum;
	add_positive_ul(&cfs->util_avg, delta_avg);
	add_positive_u32(&cfs->util_sum, (int32_t)delta_sum);
	if (cfs->util_sum < (uint32_t)(cfs->util_avg * TS_PELT_MIN_DIVIDER))
		cfs->util_sum = (uint32_t)(cfs->util_avg * TS_PELT_MIN_DIVIDER);
}

void ts_update_tg_cfs_runnable(struct ts_sched_avg *cfs, struct ts_sched_avg *se,
			       const struct ts_sched_avg *gcfs)
{
	long delta_avg = (long)gcfs->runnable_avg - (long)se->runnable_avg;

	if (!delta_avg)
		return;
	uint32_t divider = ts_pelt_divider(cfs);
	se->runnable_avg = gcfs->runnable_avg;
	/* The kernel computes new_sum in a u32 as well. */
	uint32_t new_sum = (uint32_t)(se->runnable_avg * divider);
	long delta_sum = (long)new_sum - (long)se->runnable_sum;
	se->runnable_sum = new_sum;
	add_positive_ul(&cfs->runnable_avg, delta_avg);
	add_positive_u64(&cfs->runnable_sum, delta_sum);
	if (cfs->runnable_sum < (uint64_t)cfs->runnable_avg * TS_PELT_MIN_DIVIDER)
		cfs->runnable_sum = (uint64_t)cfs->runnable_avg * TS_PELT_MIN_DIVIDER;
}

void ts_update_tg_cfs_load(struct ts_sched_avg *cfs, struct ts_sched_avg *se,
			   unsigned long se_weight, const struct ts_sched_avg *gcfs,
			   unsigned long gcfs_load_weight, long *prop_runnable_sum)
{
	long runnable_sum = *prop_runnable_sum;
	uint64_t load_sum = 0;

	if (!runnable_sum)
		return;
	*prop_runnable_sum = 0;
	uint32_t divider = ts_pelt_divider(cfs);

	if (runnable_sum >= 0) {
		/* Add runnable; clip at the divider: until the CPU is saturated,
		 * running == runnable. */
		runnable_sum += (long)se->load_sum;
		if (runnable_sum > (long)divider)
			runnable_sum = (long)divider;
	} else {
		/* Estimate the new unweighted runnable_sum of the group cfs_rq by assuming all
		 * its tasks are equally runnable, but do not inflate se's. */
		if (gcfs_load_weight)
			load_sum = gcfs->load_sum / gcfs_load_weight;
		runnable_sum = (long)(se->load_sum < load_sum ? se->load_sum : load_sum);
	}
	/* runnable_sum can't be lower than running_sum (rescaled to the same range). */
	long running_sum = (long)(se->util_sum >> TS_SCHED_CAPACITY_SHIFT);
	if (runnable_sum < running_sum)
		runnable_sum = running_sum;

	load_sum = (uint64_t)se_weight * (uint64_t)runnable_sum;
	unsigned long load_avg = (unsigned long)(load_sum / divider);
	long delta_avg = (long)load_avg - (long)se->load_avg;
	if (!delta_avg)
		return;
	int64_t delta_sum = (int64_t)load_sum - (int64_t)(se_weight * se->load_sum);
	se->load_sum = (uint64_t)runnable_sum;
	ts_sa_set_load_avg(se, load_avg);
	unsigned long cfs_load = add_positive_val(cfs->load_avg, delta_avg);
	ts_sa_set_load_avg(cfs, cfs_load);
	add_positive_u64(&cfs->load_sum, delta_sum);
	if (cfs->load_sum < (uint64_t)cfs_load * TS_PELT_MIN_DIVIDER)
		cfs->load_sum = (uint64_t)cfs_load * TS_PELT_MIN_DIVIDER;
}
