/* The CFS pick's tunables and slice, after kernel/sched/fair.c as of v6.1.55:
 * sched_init_granularity() / update_sysctl(), __sched_period(), sched_slice() and
 * sched_vslice() (fair_pick.h has the version notes). */
#include "toposched/cfs.h"
#include "toposched/group.h"

static void init_params(struct ts_cfs_params *p, unsigned int nr_cpus, bool v5_13)
{
	uint64_t factor = ts_get_update_sysctl_factor(nr_cpus);

	*p = (struct ts_cfs_params){
		.sched_latency = factor * TS_NORMALIZED_SCHED_LATENCY,
		.sched_min_granularity = factor * TS_NORMALIZED_SCHED_MIN_GRANULARITY,
		.sched_wakeup_granularity = factor * TS_NORMALIZED_SCHED_WAKEUP_GRAN,
		/* sysctl_sched_latency / sysctl_sched_min_granularity: the factor cancels */
		.sched_nr_latency = TS_SCHED_NR_LATENCY,
		.alt_period = v5_13,
		.base_slice = v5_13,
		.gentle_fair_sleepers = true,
		.start_debit = true,
		.last_buddy = true,
	};
}

void ts_cfs_params_init(struct ts_cfs_params *p, unsigned int nr_cpus)
{
	init_params(p, nr_cpus, true);
}

void ts_cfs_params_init_v5_6(struct ts_cfs_params *p, unsigned int nr_cpus)
{
	init_params(p, nr_cpus, false);
}

uint64_t ts_sched_period(const struct ts_cfs_params *p, unsigned long nr_running)
{
	if (nr_running > p->sched_nr_latency)
		return nr_running * p->sched_min_granularity;
	return p->sched_latency;
}

/* rq_of(cfs_rq)->cfs: the root queue of cfs's CPU (cfs itself outside any hierarchy). */
static const struct ts_cfs_rq *root_cfs_rq(const struct ts_cfs_rq *cfs)
{
	if (!cfs->tg)
		return cfs;
	return ts_tg_cfs_rq(cfs->tg->root, cfs->cpu);
}

uint64_t ts_sched_slice(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	const struct ts_cfs_params *p = cfs->cfs_params;
	unsigned long nr_running = cfs->nr_queued;
	uint64_t slice;

	if (p->alt_period)
		nr_running = root_cfs_rq(cfs)->h_nr_queued;
	slice = ts_sched_period(p, nr_running + !se->on_rq);
	for (; se; se = se->parent) {
		struct ts_cfs_rq *qcfs = se->cfs_rq;
		struct ts_load_weight *load = &qcfs->load;
		struct ts_load_weight lw;

		if (!se->on_rq) {
			lw = qcfs->load;
			lw.weight += se->load.weight; /* update_load_add() */
			lw.inv_weight = 0;
			load = &lw;
		}
		slice = ts_calc_delta(slice, se->load.weight, load);
	}
	/* SCHED_IDLE entities are not modelled: min_gran is always sysctl_sched_min_granularity */
	if (p->base_slice && slice < p->sched_min_granularity)
		slice = p->sched_min_granularity;
	return slice;
}

uint64_t ts_sched_vslice(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	return ts_calc_delta_fair(ts_sched_slice(cfs, se), se);
}
