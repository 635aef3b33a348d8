/* The start of a run: costs and tables, the scheduler, the first events, every task
 * created; the benchmark's start-up (docs/engine.md, "Start"): an idle machine, then the
 * launcher forking the workload's tasks from the CPU it runs on, parents forking their
 * children, the listener accepting connections and forking a server for each, the start
 * barrier; and the run's teardown. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static bool has_listener(const struct ts_workload *w);
static int setup_start(struct sim *m, struct ts_error *err);
static void seed_idle_history(struct sim *m);

void sim_free(struct sim *m)
{
	sim_schedstat_free(m);
	sim_trace_free(m);
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		struct sim_task *t = &m->tasks[i];
		ts_numa_task_free(m->s, &t->t);
		ts_task_destroy(&t->t);
		ts_cpumask_free(t->mem_bind);
		free(t->touch_cursor);
	}
	free(m->tasks);
	free(m->mutexes);
	free(m->children);
	free(m->conns);
	free(m->fork_next);
	free(m->barrier);
	free(m->sync);
	free(m->scan_updates0);
	free(m->llc_seen);
	ts_cpumask_free(m->lb_scratch);
	free(m->node_cpus);
	free(m->node_running);
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
	free(m->core_cache_kib);
	free(m->lat);
	ts_cpumask_free(m->allowed);
	sim_groups_free(m->groups); /* before the sched, which owns the groups */
	free(m->tg_exec);
	free(m->tg_stall);
	ts_sched_destroy(m->s);
	ts_eq_destroy(&m->q);
	sim_seg_ends_destroy(&m->ends);
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

/* Do the run's CPUs span several NUMA nodes? */
static bool spans_nodes(const struct sim *m)
{
	int node = -1;
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		if (node >= 0 && m->topo->cpu[c].node != node)
			return true;
		node = m->topo->cpu[c].node;
	}
	return false;
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
	if (!rc)
		rc = sim_seg_ends_init(&m->ends, m->nr_cpus);
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
	m->core_cache_kib = calloc((size_t)m->topo->nr_cores, sizeof(*m->core_cache_kib));
	if (!m->cpu || !m->lat || !m->core_cache_kib)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	int per_instance = 0;
	for (int ci = 0; ci < w->nr_classes; ci++)
		per_instance += ts_class_count(&w->classes[ci], m->nr_allowed, cfg->load);
	m->nr_tasks = per_instance * m->nr_instances;
	m->nr_sys = 1 + has_listener(w);
	m->tasks =
		calloc((size_t)(m->nr_tasks + m->nr_sys + sim_kworker_count(m)), sizeof(*m->tasks));
	m->children = calloc((size_t)m->nr_tasks + 1, sizeof(*m->children));
	m->conns = calloc((size_t)m->nr_tasks + 1, sizeof(*m->conns));
	m->barrier = calloc((size_t)m->nr_tasks + 1, sizeof(*m->barrier));
	if (!m->children || !m->conns || !m->barrier)
		return ts_error_set(err, -ENOMEM, "sim: out of memory for %d tasks", m->nr_tasks);
	m->scan_updates0 = calloc((size_t)m->nr_cpus, sizeof(*m->scan_updates0));
	m->llc_seen = calloc((size_t)m->nr_cpus, sizeof(*m->llc_seen));
	m->lb_scratch = ts_cpumask_alloc(m->nr_cpus);
	m->node_cpus = calloc((size_t)m->topo->nr_nodes, sizeof(*m->node_cpus));
	m->node_running = calloc((size_t)m->topo->nr_nodes, sizeof(*m->node_running));
	if (!m->scan_updates0 || !m->llc_seen || !m->lb_scratch || !m->node_cpus ||
	    !m->node_running)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	m->fork_ns = m->costs->fork.value;
	m->accept_ns = m->costs->accept.value;
	m->nr_chan = w->channels_per_instance * m->nr_instances;
	m->chan = m->nr_chan ? calloc((size_t)m->nr_chan, sizeof(*m->chan)) : NULL;
	if (!m->cpu || !m->lat || !m->tasks || (m->nr_chan && !m->chan) || sim_mx_setup(m) ||
	    sim_sync_setup(m))
		return ts_error_set(err, -ENOMEM, "sim: out of memory for %d tasks", m->nr_tasks);
	if (w->nr_regions > 0 && (rc = sim_setup_memory(m, cfg, err)))
		return rc;
	struct ts_sched_config scfg = {
		.hz = hz, .cpu_map = NULL, .tg_layout = cfg->tg_layout, .kernel = cfg->kernel};
	struct ts_host_ops ops = cfg->groups ? sim_host_ops_groups : sim_host_ops;
	if (cfg->trace) {
		if ((rc = sim_trace_open(m, err)))
			return rc;
		ops.migrate_task = sim_trace_migrate;
	}
	rc = ts_sched_create(m->topo, cfg->features, &ops, m, &scfg, &m->s, err);
	if (rc)
		return rc;
	seed_idle_history(m);
	sim_numa_mm_start(m);
	if (cfg->groups && (rc = tg_setup(m, err))) /* before the tasks join them */
		return rc;
	sim_balance_costs_init(m);
	sim_background_init(m);
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		sim_post(m, m->t0 + m->tick_ns, EV_TICK, cpu, NULL, 0);

	/* Create every task; the start-up forks them. */
	m->cur_cpu = 0;
	struct ts_cpumask *bound = NULL; /* --bind, --pin-cpus or a class's CPUs: each task's */
	bool class_cpus = false;
	for (int ci = 0; ci < w->nr_classes; ci++)
		class_cpus |= w->classes[ci].nr_cpus > 0;
	m->tasks_bound = cfg->bind != TS_BIND_NONE || cfg->pin_cpus || class_cpus;
	m->multi_node = spans_nodes(m);
	if (m->tasks_bound && !(bound = ts_cpumask_alloc(m->nr_cpus)))
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
				if (c->nr_cpus > 0) { /* its CPUs among the run's (validated) */
					ts_cpumask_zero(bound);
					for (int i = 0; i < c->nr_cpus; i++)
						if (!m->allowed ||
						    ts_cpumask_test(m->allowed, c->cpus[i]))
							ts_cpumask_set(bound, c->cpus[i]);
				}
				const struct ts_cpumask *cpus = m->allowed;
				if (cfg->bind != TS_BIND_NONE || cfg->pin_cpus || c->nr_cpus > 0)
					cpus = bound;
				rc = ts_task_init(m->s, &t->t, c->nice, cpus, 0, err);
				if (rc)
					break;
				t->t.host_data = t;
				t->t.id = id;
				t->on_cpu = -1;
				t->last_cpu = -1;
				t->forking = -1;
				t->server = -1;
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
	if ((rc = setup_start(m, err)) || (rc = sim_kworkers_setup(m, err)))
		return rc;
	for (int cpu = 0; m->groups && cpu < m->nr_cpus; cpu++)
		m->tg_stall[cpu] = 0; /* joining groups is set-up, not run time */
	return m->error;
}

/* ---- the benchmark's start-up ---- */

/* The start-up processes: small programs of syscalls, the footprint of the workloads'
 * syscall loops (src/sim/workloads.c, SYSCALL_LOOP_FOOTPRINT_KIB: 16 KiB, an estimate). */
static const struct ts_task_class launcher_class = {
	.name = "launcher", .count = 1, .footprint_kib = 16};
static const struct ts_task_class listener_class = {
	.name = "listener", .count = 1, .footprint_kib = 16};

static bool has_phase(const struct ts_phase *ph, int n, enum ts_phase_kind kind)
{
	for (int i = 0; i < n; i++)
		if (ph[i].kind == kind)
			return true;
	return false;
}

static bool has_listener(const struct ts_workload *w)
{
	for (int c = 0; c < w->nr_classes; c++)
		if (w->classes[c].spawn == TS_SPAWN_ACCEPT)
			return true;
	return false;
}

/* The idle pre-phase: the machine has been up and idle before the benchmark, so periodic
 * balancing has run on idle CPUs at every level and per-LLC state (SIS_UTIL's
 * nr_idle_scan from update_idle_cpu_scan(), has_idle_cores) holds an idle machine's value,
 * not a fresh allocation's. An idle CPU balances a domain every balance_interval =
 * min_interval = the domain's weight in ms (sd_init(), no busy_factor when idle), the first
 * time one interval after boot (last_balance 0): twice the largest interval of the run's
 * CPUs' domains covers every level twice; at least two ticks. */
static uint64_t idle_prephase_ns(const struct sim *m)
{
	uint64_t jiffies = 2;
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		const struct ts_sched_domain *sd;
		ts_for_each_domain(m->s->dom, c, sd) if (2ULL * sd->min_interval > jiffies)
			jiffies = 2ULL * sd->min_interval;
	}
	return jiffies * m->tick_ns;
}

static int sys_task(struct sim *m, int id, const struct ts_task_class *cls, enum sim_role role,
		    struct ts_error *err)
{
	struct sim_task *t = &m->tasks[id];
	m->nr_tasks_inited = id + 1;
	int cpu = m->allowed ? ts_cpumask_first(m->allowed) : 0;
	int rc = ts_task_init(m->s, &t->t, 0, m->allowed, cpu, err);
	if (rc)
		return rc;
	t->t.host_data = t;
	t->t.id = id;
	t->cls = cls;
	t->role = role;
	t->on_cpu = -1;
	t->last_cpu = -1;
	t->forking = -1;
	t->server = -1;
	t->inst = -1;
	return 0;
}

/* ts_rng_derive() index of the stream that orders the CPUs' last idle entries before the
 * run (its own, so that no other draw of the run moves with it). */
#define SIM_IDLE_HISTORY_STREAM 0x69646c6568ULL

/* The machine has been up (calibration of the start, docs/engine.md "Start"): every CPU has
 * run something before the run (kworkers, timers, daemons) and went idle through
 * schedule() afterwards, so sched_balance_newidle() left rq->idle_stamp at the moment it
 * last did. sched_balance_find_dst_group_cpu() (kernel/sched/fair.c) sends a fork to the
 * idle CPU of its group with the latest idle_stamp; which CPU of a cluster that is, before
 * the benchmark has used it, follows that history, not the CPU numbers. We do not know the
 * history, so its order is drawn: each CPU's last idle entry uniform in [1, T0), before
 * the run's first instant, from a stream of its own. Without it every CPU would read 0
 * (never idle), and every first fork into a cluster would take its first CPU. */
static void seed_idle_history(struct sim *m)
{
	struct ts_rng r;
	ts_rng_seed(&r, ts_rng_derive(m->cfg->seed, SIM_IDLE_HISTORY_STREAM));
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		ts_rq_set_idle_stamp(ts_cpu_rq(m->s, cpu), 1 + ts_rng_below(&r, m->t0 - 1));
}

/* rt-app's fork events: the first task of each TS_SPAWN_FORK class in each instance is the
 * first one its TS_PH_FORK phases fork (tasks are created instance by instance, class by
 * class). */
static int setup_fork_phases(struct sim *m, struct ts_error *err)
{
	int nr_classes = m->w->nr_classes;
	bool any = false;
	for (int ci = 0; ci < nr_classes; ci++)
		any |= m->w->classes[ci].spawn == TS_SPAWN_FORK;
	if (!any)
		return 0;
	m->fork_next = calloc((size_t)m->nr_instances * (size_t)nr_classes, sizeof(*m->fork_next));
	if (!m->fork_next)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	for (int i = m->nr_tasks - 1; i >= 0; i--)
		m->fork_next[m->tasks[i].inst * nr_classes + m->tasks[i].cls_index] = i;
	return 0;
}

/* The forks of every parent (the launcher's first), the server each connecting task gets,
 * the barrier's size; the listener's START at T0, the launcher's after the idle
 * pre-phase plus a jitter in [0, 1/hz) (the first tick arrives at an arbitrary phase of
 * the benchmark's start: it makes iterations with different seeds differ). */
static int setup_start(struct sim *m, struct ts_error *err)
{
	int rc = sys_task(m, m->nr_tasks, &launcher_class, SIM_ROLE_LAUNCHER, err);
	if (rc)
		return rc;
	m->launcher = &m->tasks[m->nr_tasks];
	if (m->nr_sys > 1) {
		if ((rc = sys_task(m, m->nr_tasks + 1, &listener_class, SIM_ROLE_LISTENER, err)))
			return rc;
		m->listener = &m->tasks[m->nr_tasks + 1];
	}
	int n = 0;
	m->launcher->child0 = 0;
	for (int i = 0; i < m->nr_tasks; i++)
		if (m->tasks[i].cls->spawn == TS_SPAWN_LAUNCHER)
			m->children[n++] = i;
	m->launcher->nr_children = n;
	for (int i = 0; i < m->nr_tasks; i++) {
		struct sim_task *p = &m->tasks[i];
		const struct ts_task_class *c = p->cls;
		if (has_phase(c->prologue, c->nr_prologue, TS_PH_BARRIER))
			m->barrier_tasks++;
		p->child0 = n;
		for (int j = 0; p->idx == 0 && j < m->nr_tasks; j++) {
			const struct sim_task *q = &m->tasks[j];
			if (q->inst == p->inst && q->cls->spawn == TS_SPAWN_PARENT &&
			    q->cls->spawn_from == p->cls_index)
				m->children[n++] = j;
		}
		p->nr_children = n - p->child0;
		if (c->spawn == TS_SPAWN_ACCEPT) /* the task it serves: same instance, index */
			for (int j = 0; j < m->nr_tasks; j++) {
				struct sim_task *q = &m->tasks[j];
				if (q->inst == p->inst && q->cls_index == c->spawn_from &&
				    q->idx == p->idx)
					q->server = i;
			}
	}
	if ((rc = setup_fork_phases(m, err)))
		return rc;
	m->idle_ns = idle_prephase_ns(m);
	uint64_t launch = m->t0 + m->idle_ns + ts_rng_below(&m->rng, m->tick_ns);
	if (m->listener)
		sim_post(m, m->t0, EV_START, m->listener->t.cpu, m->listener, 0);
	sim_post(m, launch, EV_START, m->launcher->t.cpu, m->launcher, 0);
	/* A start-up that never completes ends the run with an error (sim_fail at EV_END). */
	const struct ts_sim_config *cfg = m->cfg;
	sim_post(m, launch + TS_SIM_TIME_CAP_NS + cfg->warmup_ns + cfg->duration_ns, EV_END, -1,
		 NULL, 0);
	return 0;
}

/* The launcher's and the listener's first wake-up (their START events): forked from the
 * CPU they start on by a parent that is not modelled (the shell). */
void sim_on_start(struct sim *m, struct sim_task *t)
{
	SIM_CHECK(m->nr_locked == 0, "ts_wake_up_new_task() called with an rq lock held");
	SIM_CHECK(t->t.state == TS_TASK_NEW, "task %d started twice", t->t.id);
	int cpu = t->t.cpu;
	m->nr_runnable++;
	struct ts_placement pl = ts_wake_up_new_task(m->s, &t->t, cpu, NULL);
	if (sim_tracing(m))
		sim_trace_wakeup(m, cpu, t, &pl, false, true);
	if (m->groups)
		sim_tg_settle(m, cpu);
}

/* parent, the current task of cpu, forks child: the core's fork path with the parent
 * running there (sched_balance_find_dst_group() counts cpu busy). */
static void fork_now(struct sim *m, int cpu, struct sim_task *parent, struct sim_task *child)
{
	SIM_CHECK(m->nr_locked == 0, "ts_wake_up_new_task() called with an rq lock held");
	SIM_CHECK(child->t.state == TS_TASK_NEW, "task %d forked twice", child->t.id);
	SIM_CHECK(m->cpu[cpu].curr == parent, "CPU %d forks for a task not running there", cpu);
	m->nr_runnable++;
	if (sim_tracing(m))
		sim_trace_fork(m, cpu, parent, child);
	struct ts_placement pl = ts_wake_up_new_task(m->s, &child->t, cpu, &parent->t);
	if (sim_tracing(m))
		sim_trace_wakeup(m, cpu, child, &pl, false, true);
	if (m->groups) { /* task groups: the parent pays the line stalls of the fork */
		sim_add_work(m, parent, m->tg_stall[cpu], TS_WORK_TG_STALL);
		m->tg_stall[cpu] = 0;
	}
}

/* t's next fork: first its cost, then, when that is done, the child's wake-up. False when
 * t has nothing (left) to fork. The cost is drawn uniformly in [fork/2, 3 fork/2] from the
 * run's stream: forks do not take the same time twice (the parent's page tables, the
 * allocator's state), and the spread staggers the children against the ticks, which is
 * what makes iterations with different seeds differ for programs that draw nothing. */
bool sim_step_fork(struct sim *m, int cpu, struct sim_task *t)
{
	if (t->forking >= 0) {
		struct sim_task *child = &m->tasks[t->forking];
		t->forking = -1;
		fork_now(m, cpu, t, child);
		return true;
	}
	if (t->next_child < t->nr_children) {
		t->forking = m->children[t->child0 + t->next_child++];
		sim_add_work(m, t, m->fork_ns * (0.5 + ts_rng_unit(&m->rng)), TS_WORK_START);
		return true;
	}
	return false;
}

/* TS_PH_FORK: the next task of class ph->obj in t's instance, forked once t has paid the
 * fork (drawn as sim_step_fork() draws it). Forking more than the class has is an error of
 * the workload (validation keeps --loops from changing the number of forks). */
void sim_fork_phase(struct sim *m, struct sim_task *t, const struct ts_phase *ph)
{
	int *next = &m->fork_next[t->inst * m->w->nr_classes + ph->obj];
	struct sim_task *child = *next < m->nr_tasks ? &m->tasks[*next] : NULL;
	sim_advance(t);
	if (!child || child->inst != t->inst || child->cls_index != ph->obj) {
		sim_fail(m, -EINVAL,
			 "sim: workload '%s' class '%s' forks more '%s' tasks than the "
			 "workload has",
			 m->w->name, t->cls->name ? t->cls->name : "?",
			 m->w->classes[ph->obj].name ? m->w->classes[ph->obj].name : "?");
		return;
	}
	(*next)++;
	t->forking = child->t.id;
	sim_add_work(m, t, m->fork_ns * (0.5 + ts_rng_unit(&m->rng)), TS_WORK_START);
}

/* TS_PH_START_DELAY: rt-app's forked thread takes t_zero + delay as its t_first (the
 * reference of its timers) and sleeps until then if that is still to come. */
bool sim_start_delay(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph)
{
	uint64_t at = m->start_ns + ph->ns;
	t->loop_started = true;
	t->loop_start = at;
	sim_advance(t);
	if (m->now >= at)
		return true;
	sim_post(m, at, EV_TIMER, cpu, t, 0);
	return false;
}

/* The benchmark starts now: the warm-up's clock (open-ended workloads) or the measured
 * time (TIME_S) runs from here. */
static void benchmark_starts(struct sim *m)
{
	const struct ts_sim_config *cfg = m->cfg;
	m->started = true;
	m->start_ns = m->now;
	if (m->w->metric == TS_METRIC_TIME_S) {
		uint64_t cap = cfg->duration_ns ? cfg->duration_ns : TS_SIM_TIME_CAP_NS;
		sim_post(m, m->now + cap, EV_END, -1, NULL, 0);
		sim_window_open(m);
	} else {
		for (int c = 0; c < m->nr_cpus; c++)
			m->scan_updates0[c] =
				ts_stat_read(&ts_cpu_rq(m->s, c)->stats.nr_idle_scan_updates);
		sim_post(m, m->now + cfg->warmup_ns, EV_WINDOW, -1, NULL, 0);
	}
}

/* The busy balance interval of sd, ns: max_interval x busy_factor
 * (get_sd_balance_interval() on a busy CPU). */
static uint64_t busy_interval_ns(const struct sim *m, const struct ts_sched_domain *sd)
{
	return (uint64_t)sd->max_interval * sd->busy_factor * m->tick_ns;
}

/* The largest busy balance interval of the run's LLC domains, ns. */
static uint64_t llc_busy_interval_ns(const struct sim *m)
{
	uint64_t ns = 0;
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		const struct ts_sched_domain *llc = m->s->dom->cpu[c].sd_llc;
		if (llc && busy_interval_ns(m, llc) > ns)
			ns = busy_interval_ns(m, llc);
	}
	return ns;
}

/* The balancing the warm-up waits for, each seen from the CPU that balances a domain for
 * its local group (should_we_balance(): the group's balance CPU), on the run's CPUs.
 *
 * LB_WAIT_LLC: busy balancing within an LLC between groups of several cores (Kunpeng's
 * clusters). The benchmark's own start can leave a cluster with a few tasks and another
 * with many; with every CPU busy only the busy balancer evens them out, at intervals of
 * about a second on a 32-CPU LLC, a few seconds of the published runs' minutes. Not
 * waited for: levels whose groups are one core (SMT, CLS, an x86 LLC's cores), whose
 * balancing of collapsed pairs never rests.
 *
 * LB_WAIT_NUMA: a node with spare capacity next to an overloaded one (calculate_imbalance()
 * fills the spare capacity, whatever the NUMA imbalance allowance): a start whose children
 * block at a barrier leaves every task on the launcher's node under the fork rules up to
 * v5.17 (docs/kernels.md, "The NUMA imbalance"), and idle balancing moves them over in a
 * second or two. Evening out two busy nodes is not waited for: busy NUMA intervals are
 * seconds (160 ms x 16 on broadwell-2s) and at 320 tbench clients the sockets were still
 * uneven after 60 s; a wait of several would cost minutes.
 *
 * A run whose tasks are bound to CPUs (--pin-cpus, --bind, an rt-app file's cpus) does
 * not wait: its imbalance may be one no balancer is allowed to fix. */
enum lb_wait { LB_WAIT_LLC, LB_WAIT_NUMA, NR_LB_WAITS };

static bool waits_for(const struct sim *m, int cpu, const struct ts_sched_domain *sd,
		      enum lb_wait w)
{
	if (m->tasks_bound || (m->allowed && !ts_cpumask_test(m->allowed, cpu)) ||
	    ts_group_balance_cpu(sd->groups[0]) != cpu)
		return false;
	if (w == LB_WAIT_NUMA)
		return m->multi_node && (sd->flags & TS_SD_NUMA);
	return (sd->flags & TS_SD_SHARE_LLC) && sd->groups[0]->cores > 1;
}

/* The interval of the balancing waited for: busy (LLC) or idle, after failures (NUMA). */
static uint64_t wait_interval_ns(const struct sim *m, const struct ts_sched_domain *sd,
				 enum lb_wait w)
{
	return w == LB_WAIT_NUMA ? (uint64_t)sd->max_interval * m->tick_ns
				 : busy_interval_ns(m, sd);
}

/* The largest interval of the domains waited for, ns (0: none). */
static uint64_t balanced_interval_ns(const struct sim *m, enum lb_wait w)
{
	uint64_t ns = 0;
	struct ts_sched_domain *sd;
	for (int c = 0; c < m->nr_cpus; c++) {
		ts_for_each_domain(m->s->dom, c, sd)
		{
			if (waits_for(m, c, sd, w) && wait_interval_ns(m, sd, w) > ns)
				ns = wait_interval_ns(m, sd, w);
		}
	}
	return ns;
}

/* Does a node of the run's CPUs run more tasks than it has CPUs while another runs fewer?
 * Counted on the run queues, not on the balancer's PELT averages, which lag the start by
 * tens of milliseconds. */
static bool nodes_uneven(struct sim *m)
{
	int nr_nodes = m->topo->nr_nodes;
	unsigned int *cpus = m->node_cpus, *running = m->node_running;
	memset(cpus, 0, (size_t)nr_nodes * sizeof(*cpus));
	memset(running, 0, (size_t)nr_nodes * sizeof(*running));
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		int node = m->topo->cpu[c].node;
		cpus[node]++;
		running[node] += ts_rq_nr_running(m->s, c);
	}
	bool over = false, spare = false;
	for (int n = 0; n < nr_nodes; n++) {
		over |= cpus[n] && running[n] > cpus[n];
		spare |= cpus[n] && running[n] < cpus[n];
	}
	return over && spare;
}

/* Would balancing still move load between the groups of any domain waited for? (Asked
 * only while some domain is waited for: balanced_interval_ns() > 0.) */
static bool balance_settled(struct sim *m, enum lb_wait w)
{
	if (w == LB_WAIT_NUMA)
		return !nodes_uneven(m);
	struct ts_sched_domain *sd;
	for (int c = 0; c < m->nr_cpus; c++) {
		ts_for_each_domain(m->s->dom, c, sd)
		{
			if (waits_for(m, c, sd, w) &&
			    ts_balance_finds_imbalance(m->s, c, sd, m->lb_scratch))
				return false;
		}
	}
	return true;
}

/* Has every LLC of the run's CPUs recomputed its SIS_UTIL budget (update_idle_cpu_scan(),
 * from a periodic LLC balance) since the benchmark started? Until then nr_idle_scan
 * holds the idle machine's value, whatever the load. */
static bool llc_state_settled(struct sim *m)
{
	bool *seen = m->llc_seen;
	memset(seen, 0, (size_t)m->nr_cpus * sizeof(*seen));
	for (int c = 0; c < m->nr_cpus; c++)
		if (ts_stat_read(&ts_cpu_rq(m->s, c)->stats.nr_idle_scan_updates) >
		    m->scan_updates0[c])
			seen[m->s->dom->cpu[c].sd_llc_id] = true;
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		if (m->s->dom->cpu[c].sd_llc && !seen[m->s->dom->cpu[c].sd_llc_id])
			return false;
	}
	return true;
}

/* The longest wait for the balancer, in intervals of the domains waited for. */
#define BALANCE_WAIT_INTERVALS 16

/* EV_WINDOW (open-ended workloads): the warm-up is over when cfg->warmup_ns has passed
 * and, with SIS_UTIL, every LLC's budget reflects the load (llc_state_settled()), or at
 * the latest two busy LLC balance intervals later, and balancing has nothing left to
 * even out (balance_settled(), each wait at the latest BALANCE_WAIT_INTERVALS of its
 * intervals later); until then it looks again every tick. The measured window then runs
 * for cfg->duration_ns. */
void sim_window_due(struct sim *m)
{
	uint64_t warm = m->start_ns + m->cfg->warmup_ns;
	bool scan_waits =
		ts_features_has(m->cfg->features, TS_FEAT_SIS_UTIL) && !llc_state_settled(m);
	bool scan_cut = scan_waits && m->now >= warm + 2 * llc_busy_interval_ns(m);
	bool waits = scan_waits && !scan_cut, cut = scan_cut;
	for (enum lb_wait w = 0; w < NR_LB_WAITS; w++) {
		uint64_t interval = balanced_interval_ns(m, w);
		if (!interval)
			continue;
		if (balance_settled(m, w))
			continue;
		if (m->now >= warm + BALANCE_WAIT_INTERVALS * interval)
			cut = true;
		else
			waits = true;
	}
	if (waits) {
		sim_post(m, m->now + m->tick_ns, EV_WINDOW, -1, NULL, 0);
		return;
	}
	m->settle_ns = m->now - warm;
	m->settle_capped = cut;
	sim_window_open(m);
	sim_post(m, m->now + m->cfg->duration_ns, EV_END, -1, NULL, 0);
}

static inline enum sim_step run_work(struct sim *m, int cpu)
{
	sim_start_segment(m, cpu);
	return STEP_SEGMENT;
}

/* The launcher: forks its children one after another (a workload without a barrier starts
 * with the first), then waits for the barrier (polling
 * every barrier_poll_ns, or woken by the last arrival) and releases every waiting task
 * with one wake-up each from its CPU (a semop or a write to the wake fd); then it waits
 * for its children (waitpid) for the rest of the run. */
enum sim_step sim_step_launcher(struct sim *m, int cpu, struct sim_task *t)
{
	if (!m->started && !m->barrier_tasks)
		benchmark_starts(m); /* no barrier: the benchmark runs from its first fork */
	for (;;) {
		if (t->work > 0)
			return run_work(m, cpu);
		if (sim_step_fork(m, cpu, t))
			continue;
		if (m->started)
			return STEP_BLOCK;
		if (m->at_barrier < m->barrier_tasks) {
			if (m->w->barrier_poll_ns) {
				sim_post(m, m->now + m->w->barrier_poll_ns, EV_TIMER, cpu, t, 0);
				return STEP_BLOCK;
			}
			m->launcher_waits = true;
			return STEP_BLOCK;
		}
		benchmark_starts(m);
		for (int i = 0; i < m->nr_waiting; i++)
			sim_task_add_work(t, sim_wake(m, m->barrier[i], cpu, t, 0));
		m->nr_waiting = 0;
	}
}

/* The listener: accept() one queued connection and fork its server, until none is left;
 * then it blocks in accept() until a TS_PH_CONNECT wakes it. */
enum sim_step sim_step_listener(struct sim *m, int cpu, struct sim_task *t)
{
	for (;;) {
		if (t->work > 0)
			return run_work(m, cpu);
		if (sim_step_fork(m, cpu, t))
			continue;
		if (m->conn_head == m->nr_conns) {
			m->listener_waits = true;
			return STEP_BLOCK;
		}
		t->forking = m->tasks[m->conns[m->conn_head++]].server;
		sim_add_work(m, t, m->accept_ns + m->fork_ns, TS_WORK_START);
	}
}

/* TS_PH_CONNECT by t on cpu: its connection joins the accept queue; a listener blocked in
 * accept() is woken (WF_SYNC). Returns the wake-up's cost, which t pays. */
double sim_connect(struct sim *m, int cpu, struct sim_task *t)
{
	SIM_CHECK(m->listener && t->server >= 0, "task %d connects to no listener", t->t.id);
	m->conns[m->nr_conns++] = t->t.id;
	if (!m->listener_waits)
		return 0;
	m->listener_waits = false;
	return sim_wake(m, m->listener, cpu, t, TS_WF_SYNC);
}

/* TS_PH_BARRIER: t arrives at the barrier (once); the last arrival wakes a launcher that
 * waits for it. Returns that wake-up's cost. */
double sim_at_barrier(struct sim *m, int cpu, struct sim_task *t)
{
	(void)t;
	if (++m->at_barrier < m->barrier_tasks || !m->launcher_waits)
		return 0;
	m->launcher_waits = false;
	return sim_wake(m, m->launcher, cpu, t, 0);
}
