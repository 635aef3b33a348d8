/* struct ts_sched: creation, tasks, CPU relationships. */
#include "toposched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* root_task_group on the rqs' cfs_rq, with their removed-load accumulators and published
 * loads, the host's line hook and the topology's node map. */
static int create_root_group(struct ts_sched *s, const struct ts_sched_config *cfg,
			     struct ts_error *err)
{
	s->tg_layout = cfg ? cfg->tg_layout : TS_TG_ALIGNED;
	if ((unsigned)s->tg_layout >= TS_TG_LAYOUT_NR)
		return ts_error_set(err, -EINVAL, "sched: task group layout %d out of range",
				    (int)s->tg_layout);
	int n = s->nr_cpus;
	struct ts_cfs_rq **cfs = calloc((size_t)n, sizeof(*cfs));
	atomic_ulong **load = calloc((size_t)n, sizeof(*load));
	int *node = calloc((size_t)n, sizeof(*node));
	int rc = -ENOMEM;
	if (!cfs || !load || !node) {
		ts_error_set(err, -ENOMEM, "sched: out of memory");
		goto out;
	}
	for (int c = 0; c < n; c++) {
		s->rq[c].cfs.removed = &s->rq[c].removed;
		cfs[c] = &s->rq[c].cfs;
		load[c] = &s->rq[c].ro.load_avg;
		node[c] = s->topo->cpu[c].node;
	}
	struct ts_tg_root_params p = {
		.nr_cpus = n,
		.nr_nodes = s->topo->nr_nodes > 0 ? s->topo->nr_nodes : 1,
		.cpu_node = node,
		.layout = s->tg_layout,
		.track_writer_node = cfg && cfg->tg_track_writer_node,
		.root_cfs_rq = cfs,
		.base_slice = s->base_slice,
		.tick_nsec = s->tick_nsec,
		.root_load = load,
		.line_access = s->ops.tg_line_access,
		.line_host = s->host,
	};
	rc = ts_tg_create_root(&p, &s->root_tg, err);
out:
	free(cfs);
	free(load);
	free(node);
	return rc;
}

int ts_sched_create(const struct ts_topology *topo, struct ts_features features,
		    const struct ts_host_ops *ops, void *host, const struct ts_sched_config *cfg,
		    struct ts_sched **out, struct ts_error *err)
{
	*out = NULL;
	if (!ops || !ops->clock || !ops->resched_cpu || !ops->rq_lock || !ops->rq_unlock)
		return ts_error_set(
			err, -EINVAL,
			"sched: the host must provide clock, resched_cpu, rq_lock and rq_unlock");
	struct ts_sched *s = calloc(1, sizeof(*s));
	if (!s)
		return ts_error_set(err, -ENOMEM, "sched: out of memory");
	s->topo = topo;
	s->features = features;
	s->ops = *ops;
	s->host = host;
	s->nr_cpus = topo->nr_cpus;
	s->hz = cfg && cfg->hz ? cfg->hz : TS_HZ_DEFAULT;
	s->tick_nsec = TS_TICK_NSEC((uint64_t)s->hz);
	s->kernel = cfg && cfg->kernel.major ? cfg->kernel : ts_kernel_profile_newest();
	s->fair_pick = s->kernel.fair_pick;
	int rc = ts_domains_build_config(topo, cfg ? cfg->cpu_map : NULL, s->kernel.sched_cluster,
					 &s->dom, err);
	if (rc) {
		free(s);
		return rc;
	}
	ts_domains_set_sd_defaults(s->dom, s->kernel.sd_imbalance_pct, s->kernel.sd_busy_factor);
	int online = ts_cpumask_weight(s->dom->cpu_map);
	s->base_slice = ts_sched_base_slice((unsigned)online);
	if ((unsigned)s->fair_pick > TS_FAIR_PICK_CFS) {
		int pick = (int)s->fair_pick;
		ts_domains_free(s->dom);
		free(s);
		return ts_error_set(err, -EINVAL, "sched: fair pick %d out of range", pick);
	}
	if (cfg && cfg->cfs_params)
		s->cfs_params = *cfg->cfs_params;
	else if (s->kernel.major && s->kernel.major * 100 + s->kernel.minor < 513) /* 0 = newest */
		ts_cfs_params_init_v5_6(&s->cfs_params, (unsigned)online);
	else
		ts_cfs_params_init(&s->cfs_params, (unsigned)online);
	/* max_load_balance_interval = HZ * num_online_cpus() / 10 jiffies */
	s->max_load_balance_interval_ns = (uint64_t)online * (uint64_t)TS_NSEC_PER_SEC / 10;
	s->rq = aligned_alloc(64, sizeof(struct ts_rq) * (size_t)s->nr_cpus);
	s->select_rq_mask = calloc((size_t)s->nr_cpus, sizeof(*s->select_rq_mask));
	s->lb_cpus = calloc((size_t)s->nr_cpus, sizeof(*s->lb_cpus));
	s->lb_swb = calloc((size_t)s->nr_cpus, sizeof(*s->lb_swb));
	if (!s->rq || !s->select_rq_mask || !s->lb_cpus || !s->lb_swb) {
		ts_sched_destroy(s);
		return ts_error_set(err, -ENOMEM, "sched: out of memory");
	}
	memset(s->rq, 0, sizeof(struct ts_rq) * (size_t)s->nr_cpus);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct ts_rq *rq = &s->rq[cpu];
		rq->cpu = cpu;
		ts_cfs_rq_init(&rq->cfs, s->base_slice, s->tick_nsec);
		rq->cfs.steal_clock = &rq->steal;
		ts_cfs_rq_set_pick(&rq->cfs, s->fair_pick, &s->cfs_params);
		ts_list_init(&rq->cfs_tasks);
		rq->wake_list = NULL;
		rq->wake_tail = &rq->wake_list;
		rq->cpu_capacity = (unsigned long)topo->cpu[cpu].capacity;
		/* sched_init(): avg_idle = 2 * sysctl_sched_migration_cost */
		rq->avg_idle = 2 * TS_SCHED_MIGRATION_COST_NS;
		rq->max_idle_balance_cost = TS_SCHED_MIGRATION_COST_NS;
		atomic_init(&rq->ro.idle, true);
		if (!(s->select_rq_mask[cpu] = ts_cpumask_alloc(s->nr_cpus)) ||
		    !(s->lb_cpus[cpu] = ts_cpumask_alloc(s->nr_cpus)) ||
		    !(s->lb_swb[cpu] = ts_cpumask_alloc(s->nr_cpus))) {
			ts_sched_destroy(s);
			return ts_error_set(err, -ENOMEM, "sched: out of memory");
		}
	}
	rc = create_root_group(s, cfg, err);
	if (rc) {
		ts_sched_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

void ts_sched_destroy(struct ts_sched *s)
{
	if (!s)
		return;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (s->select_rq_mask)
			ts_cpumask_free(s->select_rq_mask[cpu]);
		if (s->lb_cpus)
			ts_cpumask_free(s->lb_cpus[cpu]);
		if (s->lb_swb)
			ts_cpumask_free(s->lb_swb[cpu]);
	}
	free(s->select_rq_mask);
	free(s->lb_cpus);
	free(s->lb_swb);
	ts_tg_destroy_tree(s->root_tg);
	free(s->rq);
	ts_domains_free(s->dom);
	free(s);
}

int ts_sched_group_create(struct ts_sched *s, struct ts_task_group *parent, const char *name,
			  unsigned long shares, struct ts_task_group **out, struct ts_error *err)
{
	*out = NULL;
	if (!parent)
		parent = s->root_tg;
	else if (parent->root != s->root_tg)
		return ts_error_set(err, -EINVAL,
				    "task group '%s': parent '%s' belongs to another scheduler",
				    name ? name : "(null)", parent->name);
	int rc = ts_tg_create(parent, name, shares, s->tg_layout, out, err);
	if (rc)
		return rc;
	(*out)->rt_group_sched = ts_features_has(s->features, TS_FEAT_RT_GROUP_SCHED);
	/* the group's queues pick as the sched's do */
	for (int c = 0; c < s->nr_cpus; c++)
		ts_cfs_rq_set_pick(ts_tg_cfs_rq(*out, c), s->fair_pick, &s->cfs_params);
	return 0;
}

int ts_task_init(struct ts_sched *s, struct ts_task *p, int nice, const struct ts_cpumask *allowed,
		 int cpu, struct ts_error *err)
{
	memset(p, 0, sizeof(*p));
	/* the entity is cleared just above: not a second pass (1 % of a spawn) */
	ts_sched_entity_init_zeroed(&p->se);
	if (ts_set_load_weight(&p->se, nice))
		return ts_error_set(err, -EINVAL, "task: nice %d is outside %d..%d", nice,
				    TS_MIN_NICE, TS_MAX_NICE);
	if (cpu < 0 || cpu >= s->nr_cpus)
		return ts_error_set(err, -EINVAL, "task: CPU %d does not exist", cpu);
	p->nice = nice;
	p->nr_cpus_allowed = s->nr_cpus;
	if (allowed) {
		if (!ts_cpumask_intersects(allowed, s->dom->cpu_map))
			return ts_error_set(
				err, -EINVAL,
				"task: its allowed CPUs are all outside the scheduled CPUs");
		if (!(p->cpus_allowed = ts_cpumask_dup(allowed)))
			return ts_error_set(err, -ENOMEM, "task: out of memory");
		p->nr_cpus_allowed = ts_cpumask_weight(allowed);
		if (!ts_cpumask_test(allowed, cpu))
			cpu = ts_cpumask_first_and(allowed, s->dom->cpu_map);
	}
	ts_list_init(&p->cfs_node);
	p->state = TS_TASK_NEW;
	p->cpu = cpu;
	p->recent_used_cpu = cpu;
	/* init_entity_runnable_average(): a new task looks heavy until it has history. */
	ts_sa_set_load_avg(&p->se.avg, p->se.load.weight);
	return 0;
}

void ts_task_destroy(struct ts_task *p)
{
	ts_cpumask_free(p->cpus_allowed);
	p->cpus_allowed = NULL;
}
