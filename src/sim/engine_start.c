/* The start of a run: costs and tables, the scheduler, the first events, every task
 * created and forked from CPU 0 with its start jitter; and the run's teardown. */
#include <stdlib.h>

#include "engine.h"

void sim_free(struct sim *m)
{
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		struct sim_task *t = &m->tasks[i];
		ts_numa_task_free(m->s, &t->t);
		ts_task_destroy(&t->t);
		ts_cpumask_free(t->mem_bind);
		free(t->touch_cursor);
	}
	free(m->tasks);
	for (int i = 0; i < m->nr_chan; i++)
		sim_chan_free(&m->chan[i]);
	free(m->chan);
	for (int i = 0; i < m->nr_mms; i++)
		sim_mm_free(&m->mms[i]);
	free(m->mms);
	while (m->stops) {
		struct sim_numa_stop *st = m->stops;
		m->stops = st->next;
		free(st);
	}
	free(m->run_nodes);
	free(m->mem_lat);
	free(m->scan_region);
	free(m->numa_arrival);
	free(m->cpu);
	free(m->lat);
	ts_cpumask_free(m->allowed);
	sim_groups_free(m->groups); /* before the sched, which owns the groups */
	free(m->tg_exec);
	free(m->tg_stall);
	ts_sched_destroy(m->s);
	ts_eq_destroy(&m->q);
}

/* Task groups: the spec's groups in the run's sched, and a task joining its group. */
__attribute__((noinline)) static int tg_setup(struct sim *m, struct ts_error *err)
{
	const struct ts_sim_config *cfg = m->cfg;
	int rc = sim_groups_create(m->s, cfg->groups, m->w, m->nr_instances, m->nr_tasks, m->topo,
				   m->costs, &m->groups, err);
	if (rc)
		return rc;
	m->tg_exec = calloc((size_t)m->groups->nr_top + 1, sizeof(*m->tg_exec));
	m->tg_stall = calloc((size_t)m->nr_cpus, sizeof(*m->tg_stall));
	if (!m->tg_exec || !m->tg_stall)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	return 0;
}

__attribute__((noinline)) static int tg_join(struct sim *m, struct sim_task *t, int ci, int inst,
					     struct ts_error *err)
{
	struct ts_task_group *tg = sim_groups_place(m->groups, t->t.id, ci, inst);
	int rc = tg ? ts_task_set_group(m->s, &t->t, tg) : 0;
	if (rc)
		return ts_error_set(err, rc, "sim: task %d cannot join group '%s'", t->t.id,
				    tg->name);
	return 0;
}

int sim_setup(struct sim *m, const struct ts_sim_config *cfg, struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	m->cfg = cfg;
	m->w = w;
	m->topo = cfg->topo;
	m->nr_cpus = cfg->topo->nr_cpus;
	m->err = err;
	m->costs = cfg->costs;
	if (!m->costs) {
		if (ts_cost_model_for(m->topo, m->topo->name, &m->own_costs, NULL) &&
		    ts_cost_model_for(m->topo, NULL, &m->own_costs, err))
			return err ? err->code : -EINVAL;
		m->costs = &m->own_costs;
	}
	for (int r = 0; r < TS_REL_NR; r++) {
		m->c2c[r] = ts_cost_c2c(m->costs, (enum ts_cpu_relation)r, 0);
		m->bulk[r] = ts_cost_bulk_per_kib(m->costs, (enum ts_cpu_relation)r, 0);
		m->refill[r] = ts_cost_refill_per_kib(m->costs, (enum ts_cpu_relation)r, 0);
		m->scan[r] = ts_cost_scan_per_cpu(m->costs, (enum ts_cpu_relation)r, 0);
		m->handoff[r] = ts_cost_handoff(m->costs, (enum ts_cpu_relation)r, 0);
		m->wake_enqueue[r] = ts_cost_wake_enqueue(m->costs, (enum ts_cpu_relation)r, 0);
	}
	m->scan_mix_per_cpu = m->scan[TS_REL_LLC];
	m->ctx_switch_ns = sim_ns_of(m->costs->ctx_switch.value);
	m->switch_out = m->costs->switch_out.value;
	m->run_kib = m->costs->cache_run_kib.value;
	/* an evicted working set comes back from the shared LLC */
	m->evict_refill_per_kib = ts_cost_refill_per_kib(m->costs, TS_REL_LLC, 0);
	m->idle_exit_ns = sim_ns_of(m->costs->idle_exit.value);
	unsigned int hz = cfg->hz ? cfg->hz : TS_HZ_DEFAULT;
	m->tick_ns = 1000000000ULL / hz;
	m->t0 = m->tick_ns;
	m->now = m->t0;
	ts_rng_seed(&m->rng, cfg->seed);

	int rc = ts_eq_init(&m->q, 1024);
	if (rc)
		return ts_error_set(err, rc, "sim: out of memory");
	m->q.now = m->t0;
	if (cfg->pin) {
		m->allowed = ts_cpumask_alloc(m->nr_cpus);
		if (!m->allowed)
			return ts_error_set(err, -ENOMEM, "sim: out of memory");
		for (int c = 0; c < m->nr_cpus && c < cfg->pin->nr_cpus; c++)
			if (ts_cpumask_test(cfg->pin, c))
				ts_cpumask_set(m->allowed, c);
		m->nr_allowed = ts_cpumask_weight(m->allowed);
	} else {
		m->nr_allowed = m->nr_cpus;
	}
	int nr_cpus, nr_nodes;
	sim_run_extent(cfg, &nr_cpus, &nr_nodes);
	m->nr_instances = ts_workload_instances(w, nr_nodes, cfg->load);
	m->cpu = calloc((size_t)m->nr_cpus, sizeof(*m->cpu));
	m->lat = calloc(1, sizeof(*m->lat));
	int per_instance = 0;
	for (int ci = 0; ci < w->nr_classes; ci++)
		per_instance += ts_class_count(&w->classes[ci], m->nr_allowed, cfg->load);
	m->nr_tasks = per_instance * m->nr_instances;
	m->tasks = calloc((size_t)m->nr_tasks, sizeof(*m->tasks));
	m->nr_chan = w->channels_per_instance * m->nr_instances;
	m->chan = m->nr_chan ? calloc((size_t)m->nr_chan, sizeof(*m->chan)) : NULL;
	if (!m->cpu || !m->lat || !m->tasks || (m->nr_chan && !m->chan))
		return ts_error_set(err, -ENOMEM, "sim: out of memory for %d tasks", m->nr_tasks);
	if (w->nr_regions > 0 && (rc = sim_setup_memory(m, cfg, err)))
		return rc;
	struct ts_sched_config scfg = {.hz = hz, .cpu_map = NULL, .tg_layout = cfg->tg_layout};
	rc = ts_sched_create(m->topo, cfg->features,
			     cfg->groups ? &sim_host_ops_groups : &sim_host_ops, m, &scfg, &m->s,
			     err);
	if (rc)
		return rc;
	sim_numa_mm_start(m);
	if (cfg->groups && (rc = tg_setup(m, err))) /* before the tasks join them */
		return rc;
	sim_balance_costs_init(m);
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		sim_post(m, m->t0 + m->tick_ns, EV_TICK, cpu, NULL, 0);
	if (w->metric == TS_METRIC_TIME_S) {
		uint64_t cap = cfg->duration_ns ? cfg->duration_ns : TS_SIM_TIME_CAP_NS;
		sim_post(m, m->t0 + cap, EV_END, -1, NULL, 0);
		sim_window_open(m);
	} else {
		sim_post(m, m->t0 + cfg->warmup_ns, EV_WINDOW, -1, NULL, 0);
		sim_post(m, m->t0 + cfg->warmup_ns + cfg->duration_ns, EV_END, -1, NULL, 0);
	}

	/* Create and fork every task from CPU 0. */
	m->cur_cpu = 0;
	struct ts_cpumask *bound = NULL; /* --bind or --pin-cpus: each task's CPUs */
	if ((cfg->bind != TS_BIND_NONE || cfg->pin_cpus) && !(bound = ts_cpumask_alloc(m->nr_cpus)))
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	int id = 0;
	for (int inst = 0; inst < m->nr_instances; inst++) {
		struct sim_mm *mm = m->nr_mms ? &m->mms[inst] : NULL;
		if (mm) {
			mm->first_task = id;
			sim_prefault(m, mm, cfg);
		}
		for (int ci = 0; ci < w->nr_classes; ci++) {
			const struct ts_task_class *c = &w->classes[ci];
			int count = ts_class_count(c, m->nr_allowed, cfg->load);
			for (int k = 0; k < count; k++, id++) {
				struct sim_task *t = &m->tasks[id];
				m->nr_tasks_inited = id + 1; /* freed by sim_free() from here on */
				t->cls = c;
				t->cls_index = ci;
				t->inst = inst;
				t->idx = k;
				t->count = count;
				t->mm = mm;
				if (cfg->bind != TS_BIND_NONE &&
				    (rc = sim_bind_task(m, t, bound, err)))
					break;
				if (cfg->pin_cpus) { /* --pin-cpus: task id on one CPU */
					ts_cpumask_zero(bound);
					ts_cpumask_set(bound, cfg->pin_cpus[id % cfg->nr_pin_cpus]);
				}
				rc = ts_task_init(m->s, &t->t, c->nice, bound ? bound : m->allowed,
						  0, err);
				if (rc)
					break;
				t->t.host_data = t;
				t->t.id = id;
				t->on_cpu = -1;
				t->last_cpu = -1;
				t->pro = c->nr_prologue > 0;
				t->prog = t->pro ? c->prologue : c->phases;
				t->prog_n = t->pro ? c->nr_prologue : c->nr_phases;
				t->limit = sim_class_limit(cfg, c);
				if (t->limit)
					m->limited_tasks++;
				if (mm) {
					t->touch_cursor =
						calloc((size_t)(c->nr_prologue + c->nr_phases),
						       sizeof(*t->touch_cursor));
					if (!t->touch_cursor) {
						rc = ts_error_set(err, -ENOMEM,
								  "sim: out of memory");
						break;
					}
					rc = ts_numa_task_init(m->s, &t->t, &mm->numa, err);
					if (rc)
						break;
				}
				if (m->groups && (rc = tg_join(m, t, ci, inst, err)))
					break;
			}
			if (rc)
				break;
		}
		if (rc)
			break;
		if (mm)
			mm->nr_tasks = id - mm->first_task;
	}
	ts_cpumask_free(bound);
	if (rc)
		return rc;
	/* Start jitter: each task's first wake-up at T0 + uniform [0, tick), forked from
	 * CPU 0 (docs/engine.md, "Start"). */
	for (int i = 0; i < m->nr_tasks; i++)
		sim_post(m, m->t0 + ts_rng_below(&m->rng, m->tick_ns), EV_START, 0, &m->tasks[i],
			 0);
	for (int cpu = 0; m->groups && cpu < m->nr_cpus; cpu++)
		m->tg_stall[cpu] = 0; /* joining groups is set-up, not run time */
	return m->error;
}

/* A task's first wake-up (its START event; cpu 0 forks it). */
void sim_on_start(struct sim *m, struct sim_task *t)
{
	SIM_CHECK(m->nr_locked == 0, "ts_wake_up_new_task() called with an rq lock held");
	SIM_CHECK(t->t.state == TS_TASK_NEW, "task %d started twice", t->t.id);
	m->nr_runnable++;
	ts_wake_up_new_task(m->s, &t->t, 0, NULL);
	if (m->groups)
		sim_tg_settle(m, 0);
}
