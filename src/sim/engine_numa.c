/* The NUMA memory glue: TOUCH phases swept over an instance's address space, first-touch
 * placement and hinting faults, and the host part of NUMA balancing (task_tick_numa,
 * task_numa_work, the stopper's migration work) around the core's decisions. */
#include <stdlib.h>

#include "engine.h"

/* A touch segment stops after `done` ns: the sweep's position follows the cost walked.
 * Out of line: sim_stop_segment() runs on every event of every workload. */
__attribute__((noinline)) void sim_touch_stop(struct sim *m, struct sim_task *t, uint64_t done)
{
	struct sim_touch *tc = &t->touch;
	tc->seg = false;
	if (done >= t->work)
		tc->pos = tc->seg_to;
	else
		tc->pos = sim_sweep_advance(&tc->sw, tc->seg_from, tc->seg_to,
					    sim_lat_row(m, tc->seg_node),
					    tc->seg_cost * (double)done / (double)t->work);
	if (done < t->work) /* the rest is planned again */
		sim_uncount_work(m, TS_WORK_PROGRAM, (double)(t->work - done));
	t->work = 0;
}

/* CPU time NUMA balancing costs a task: it runs before the task's next work. */
static void charge_numa(struct sim *m, struct sim_task *t, double ns)
{
	sim_add_work(m, t, ns, TS_WORK_NUMA); /* counted: the window's system_ns */
}

static int phase_slot(const struct sim_task *t)
{
	return t->pro ? t->pc : t->cls->nr_prologue + t->pc;
}

/* An execution of a TOUCH phase starts: its slice and first page (struct sim_sweep). */
static void touch_begin(struct sim_task *t, const struct ts_phase *ph)
{
	struct sim_touch *tc = &t->touch;
	const struct sim_region *r = &t->mm->regions[ph->region];
	uint64_t lo = 0, len = r->pages;
	if (ph->slice == TS_SLICE_OWN) {
		lo = r->pages * (uint64_t)t->idx / (uint64_t)t->count;
		len = r->pages * (uint64_t)(t->idx + 1) / (uint64_t)t->count - lo;
	}
	uint64_t *cursor = &t->touch_cursor[phase_slot(t)];
	tc->sw = (struct sim_sweep){
		.mm = t->mm,
		.r = r,
		.slice_lo = lo,
		.slice_len = len,
		.start = len ? *cursor % len : 0,
		.len = len ? (ph->pages ? ph->pages : len) : 0,
		.page_ns = (double)ph->ns,
		.accesses = ph->accesses,
	};
	if (len)
		*cursor = (tc->sw.start + tc->sw.len % len) % len;
	tc->pos = 0;
	tc->active = true;
}

/* The node of `nodes` nearest to `here` (lowest number on ties): MPOL_BIND's allocation
 * order, the local node's zonelist. */
static int nearest_node(const struct sim *m, const struct ts_cpumask *nodes, int here)
{
	int best = -1, best_d = 0, n;
	ts_for_each_cpu(n, nodes)
	{
		int d = ts_topo_distance(m->topo, here, n);
		if (best < 0 || d < best_d) {
			best = n;
			best_d = d;
		}
	}
	return best < 0 ? here : best;
}

/* Where a page is allocated: by the region's policy, else the allocating task's --bind
 * nodes, else the node it runs on. idx = the chunk's index in its region. */
static int place_node(const struct sim *m, const struct ts_cpumask *bind,
		      const struct sim_region *r, uint32_t idx, int here)
{
	switch (r->desc->policy) {
	case TS_MEM_INTERLEAVE:
		return (int)(idx % (uint32_t)m->topo->nr_nodes);
	case TS_MEM_BIND_BALANCING:
		return r->desc->node;
	case TS_MEM_LOCAL:
		break;
	}
	return bind ? nearest_node(m, bind, here) : here;
}

/* mpol_misplaced(): the node a faulting chunk should move to, or -1. */
static int mpol_misplaced(struct sim *m, struct sim_task *t, const struct sim_region *r,
			  struct sim_chunk *c, int curnid, int cpu)
{
	int thisnid = sim_cpu_node(m, cpu);
	switch (r->desc->policy) {
	case TS_MEM_INTERLEAVE:
		return -1; /* an mbind() policy without MPOL_F_MOF */
	case TS_MEM_BIND_BALANCING:
		if (thisnid != r->desc->node)
			return -1; /* MPOL_F_MORON moves pages only among the policy's nodes */
		break;
	case TS_MEM_LOCAL:
		if (t->mem_bind)
			return -1; /* the task's MPOL_BIND: no MPOL_F_MOF */
		break;
	}
	/* MPOL_F_MORON: towards the node of the CPU referencing it, through the filter */
	if (!sim_should_migrate_memory(m->topo, &t->t, (int)(t - m->tasks), c, curnid, cpu))
		return -1;
	return curnid != thisnid ? thisnid : -1;
}

static void numa_stop_post(struct sim *m, struct sim_task *t, const struct ts_numa_result *res)
{
	struct sim_numa_stop *st = malloc(sizeof(*st));
	if (!st) {
		struct ts_numa_result r = *res;
		ts_numa_migrate_done(m->s, &r);
		sim_fail(m, -ENOMEM, "sim: out of memory for a NUMA migration");
		return;
	}
	st->res = *res;
	st->decided_ns = m->now;
	st->prev = NULL;
	st->next = m->stops;
	if (m->stops)
		m->stops->prev = st;
	m->stops = st;
	/* The stopper's switches occupy the faulting task's CPU. */
	charge_numa(m, t, m->stop_ns);
	sim_post(m, m->now + sim_ns_of(m->stop_ns), EV_NUMA_STOP, res->src_cpu, st, 0);
}

/* do_huge_pmd_numa_page() for task t on cpu touching marked chunk ci. */
static void hint_fault(struct sim *m, struct sim_task *t, int cpu, uint32_t ci)
{
	struct sim_mm *mm = t->mm;
	struct sim_chunk *c = &mm->chunks[ci];
	int nid = c->node;
	c->marked = false; /* the PMD is made present again */
	/* Writable private anonymous memory: never TNF_NO_GROUP nor TNF_SHARED; no node
	 * runs out of memory, so never TNF_MIGRATE_FAIL. */
	unsigned int flags = nid == sim_cpu_node(m, cpu) ? TS_TNF_FAULT_LOCAL : 0;
	const struct ts_task *last = c->last_task >= 0 ? &m->tasks[c->last_task].t : NULL;
	double cost = m->hint_fault_ns;
	int target = mpol_misplaced(m, t, t->touch.sw.r, c, nid, cpu);
	if (target >= 0) {
		cost += (double)c->pages * SIM_PAGE_KIB *
			ts_cost_migrate_per_kib(m->costs, ts_topo_distance(m->topo, nid, target));
		sim_chunk_move(mm, ci, target);
		flags |= TS_TNF_MIGRATED;
		nid = target;
	}
	charge_numa(m, t, cost);
	struct ts_numa_result res;
	int rc = ts_task_numa_fault(m->s, &t->t, last, nid, c->pages, flags, &res);
	if (rc == 0 && res.dst_cpu >= 0)
		numa_stop_post(m, t, &res);
}

/* One step of a TOUCH phase on cpu: a fault at the current page, or the segment to the
 * next page that faults. Returns true when the execution is complete. */
bool sim_touch_step(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph)
{
	struct sim_touch *tc = &t->touch;
	if (!tc->active)
		touch_begin(t, ph);
	if (tc->pos >= (double)tc->sw.len) {
		tc->active = false;
		return true;
	}
	uint32_t ci = sim_sweep_chunk(&tc->sw, tc->pos);
	struct sim_chunk *c = &t->mm->chunks[ci];
	if (c->node < 0) { /* first touch: the page fault allocates the THP */
		const struct sim_region *r = tc->sw.r;
		sim_chunk_place(
			t->mm, ci,
			place_node(m, t->mem_bind, r, ci - r->first_chunk, sim_cpu_node(m, cpu)));
		return false;
	}
	if (c->marked) {
		hint_fault(m, t, cpu, ci);
		return false;
	}
	int node = sim_cpu_node(m, cpu);
	double end, cost = sim_sweep_plan(&tc->sw, tc->pos, sim_lat_row(m, node), &end);
	SIM_CHECK(end > tc->pos, "task %d: an empty touch segment", t->t.id);
	tc->seg = true;
	m->cpu[cpu].seg_touch = true; /* the segment sim_step_task() starts next */
	tc->seg_from = tc->pos;
	tc->seg_to = end;
	tc->seg_cost = cost;
	tc->seg_node = node;
	uint64_t w = sim_ns_of(cost);
	t->work = w ? w : 1;
	sim_count_work(m, TS_WORK_PROGRAM, (double)t->work);
	return false;
}

/* Re-plans cpu's running work now (a scan marked pages its sweep was about to touch),
 * as if cpu's own event were being handled. */
static void recost_cpu(struct sim *m, int cpu)
{
	int saved = m->cur_cpu;
	m->cur_cpu = cpu;
	sim_stop_segment(m, cpu);
	sim_cpu_run(m, cpu);
	sim_finish_cpu(m, cpu);
	m->cur_cpu = saved;
}

/* task_numa_work() of t, running on cpu, right after the tick that queued it (the task
 * work runs on the return to user space): the core paces it (ts_task_numa_work()), the
 * window it gives is marked PROT_NONE. */
static void task_numa_work(struct sim *m, int cpu, struct sim_task *t)
{
	struct sim_mm *mm = t->mm;
	struct ts_numa_scan win;
	if (!ts_task_numa_work(m->s, &t->t, &win))
		return;
	for (int r = 0; r < mm->nr_regions; r++) {
		enum ts_mem_policy pol = mm->regions[r].desc->policy;
		/* vma_policy_mof(): the VMA's own policy, else the task's */
		m->scan_region[r] =
			pol == TS_MEM_BIND_BALANCING || (pol == TS_MEM_LOCAL && !t->mem_bind);
	}
	int resets = 0;
	uint32_t lo, hi;
	uint64_t end;
	uint32_t marked = sim_mm_scan(mm, m->scan_region, &win, &end, &resets, &lo, &hi);
	double cost = marked * m->scan_pmd_ns;
	ts_task_numa_work_end(m->s, &t->t, end, resets, sim_ns_of(cost));
	if (sim_measuring(m)) {
		m->numa.scans++;
		m->numa.pte_updates += marked;
	}
	if (!marked)
		return;
	sim_stop_segment(m, cpu);
	charge_numa(m, t, cost);
	/* Every running sweep of this mm re-plans: it must stop at the marked chunks. */
	for (int c = 0; c < m->nr_cpus; c++) {
		struct sim_task *x = m->cpu[c].curr;
		if (c == cpu || (x && x->mm == mm && x->touch.seg))
			recost_cpu(m, c);
	}
}

/* task_tick_numa() for cpu's current task (sched_numa_balancing on): the core's. */
void sim_numa_tick(struct sim *m, int cpu)
{
	struct sim_task *t = m->cpu[cpu].curr;
	if (!t || !t->mm || !t->t.numa || t->exiting)
		return;
	if (ts_task_tick_numa(m->s, &t->t))
		task_numa_work(m, cpu, t);
}

/* The stopper took the engine's current task of cpu off it (rq->curr changed): the engine
 * lets it go too. */
bool sim_detach_taken(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (!c->curr || ts_cpu_rq(m->s, cpu)->curr == &c->curr->t)
		return false;
	c->busy_total += m->now - c->busy_since;
	c->curr->on_cpu = -1;
	c->curr = NULL;
	return true;
}

/* migration_cpu_stop / migrate_swap_stop: the decided move or swap takes effect (or is
 * abandoned when the tasks moved meanwhile), the reservation is released, and the
 * double-migration counters look at the destination's previous NUMA arrival. */
void sim_on_numa_stop(struct sim *m, struct sim_numa_stop *st)
{
	if (st->prev)
		st->prev->next = st->next;
	else
		m->stops = st->next;
	if (st->next)
		st->next->prev = st->prev;
	struct ts_numa_result *res = &st->res;
	int src = res->src_cpu, dst = res->dst_cpu, cpus[2] = {src, dst};
	for (int i = 0; i < 2; i++) { /* account the work done up to now */
		struct sim_task *x = m->cpu[cpus[i]].curr;
		if (x && (&x->t == res->p || &x->t == res->swap))
			sim_stop_segment(m, cpus[i]);
	}
	SIM_CHECK(m->nr_locked == 0, "the NUMA stop work called with an rq lock held");
	/* The stopper executes it: migration_cpu_stop on the task's CPU (stop_one_cpu(src)),
	 * migrate_swap_stop on cpu1 of stop_two_cpus(dst, src) (multi_cpu_stop's
	 * active_cpus = cpumask_of(cpu1)). The event is src's; only a swap differs. */
	if (m->groups)
		m->tg_exec_cpu = res->swap ? dst : src;
	int rc = ts_numa_migrate_apply(m->s, res);
	ts_numa_migrate_done(m->s, res);
	m->tg_exec_cpu = -1;
	if (rc == 0) {
		uint64_t *last = &m->numa_arrival[dst];
		if (*last && sim_measuring(m)) {
			uint64_t prev = *last - 1;
			if (st->decided_ns < prev)
				m->numa.double_migrations++;
			if (m->now - prev < TS_SIM_NUMA_CLOSE_NS)
				m->numa.close_migrations++;
		}
		*last = m->now + 1;
	}
	free(st);
	/* Both CPUs follow the core: a CPU whose task was taken schedules now (the stopper
	 * hands over to the next task); one whose task stayed resumes it. */
	bool taken[2] = {sim_detach_taken(m, src), dst != src && sim_detach_taken(m, dst)};
	for (int i = 0; i < (dst != src ? 2 : 1); i++) {
		int cpu = cpus[i], saved = m->cur_cpu;
		m->cur_cpu = cpu;
		if (taken[i])
			sim_do_resched(m, cpu);
		else if (m->cpu[cpu].curr && !m->cpu[cpu].seg_active)
			sim_cpu_run(m, cpu);
		sim_finish_cpu(m, cpu);
		m->cur_cpu = saved;
	}
}

/* The nodes [lo, hi) of run_nodes a task belongs to under --bind (enum ts_home_rule);
 * inverse: the mirrored ones. */
static void home_range(const struct sim *m, enum ts_home_rule rule, int inst, int k, int n,
		       bool inverse, int *lo, int *hi)
{
	int N = m->nr_run_nodes, I = m->nr_instances;
	if (rule == TS_HOME_INSTANCE) {
		int i = inverse ? I - 1 - inst : inst;
		if (I <= N) {
			*lo = i * N / I;
			*hi = (i + 1) * N / I;
		} else {
			*lo = i % N;
			*hi = *lo + 1;
		}
	} else {
		int j = inverse ? n - 1 - k : k;
		*lo = (int)((int64_t)j * N / n);
		*hi = *lo + 1;
	}
}

/* Memory and NUMA balancing: address spaces, latencies, the run's nodes, costs. */
int sim_setup_memory(struct sim *m, const struct ts_sim_config *cfg, struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	const struct ts_topology *t = m->topo;
	int nn = t->nr_nodes;
	m->run_nodes = calloc((size_t)nn, sizeof(*m->run_nodes));
	m->mem_lat = calloc((size_t)nn * (size_t)nn, sizeof(*m->mem_lat));
	m->scan_region = calloc((size_t)w->nr_regions, sizeof(*m->scan_region));
	m->numa_arrival = calloc((size_t)m->nr_cpus, sizeof(*m->numa_arrival));
	m->mms = calloc((size_t)m->nr_instances, sizeof(*m->mms));
	if (!m->run_nodes || !m->mem_lat || !m->scan_region || !m->numa_arrival || !m->mms)
		return ts_error_set(err, -ENOMEM, "sim: out of memory for the memory model");
	for (int n = 0; n < nn; n++) {
		for (int c = 0; c < m->nr_cpus; c++)
			if (t->cpu[c].node == n &&
			    (!m->allowed || ts_cpumask_test(m->allowed, c))) {
				m->run_nodes[m->nr_run_nodes++] = n;
				break;
			}
		for (int k = 0; k < nn; k++)
			m->mem_lat[n * nn + k] = ts_cost_mem(m->costs, ts_topo_distance(t, n, k));
	}
	m->hint_fault_ns = m->costs->numa_hint_fault.value;
	m->stop_ns = m->costs->numa_stop_latency.value;
	m->scan_pmd_ns = m->costs->numa_scan_per_pmd.value;
	/* sched_numa_balancing: on with the feature, and only on a NUMA machine
	 * (check_numabalancing_enable(): num_online_nodes() > 1) */
	m->numa_scan = ts_features_has(cfg->features, TS_FEAT_NUMA) && nn > 1;
	for (int i = 0; i < m->nr_instances; i++) {
		if (sim_mm_init(&m->mms[i], i, w, nn))
			return ts_error_set(err, -ENOMEM,
					    "sim: out of memory for the memory model");
		m->nr_mms = i + 1;
	}
	return 0;
}

void sim_numa_mm_start(struct sim *m)
{
	for (int i = 0; i < m->nr_mms; i++) /* init_numa_balancing() of a new mm */
		ts_numa_mm_init(m->s, &m->mms[i].numa, TS_NUMA_SCAN_DELAY_MS);
}

/* TS_PREFAULT_PARENT: the parent faults the region in before forking its threads. */
void sim_prefault(struct sim *m, struct sim_mm *mm, const struct ts_sim_config *cfg)
{
	int first_cpu = 0;
	while (m->allowed && !ts_cpumask_test(m->allowed, first_cpu))
		first_cpu++;
	int parent = sim_cpu_node(m, first_cpu), N = m->nr_run_nodes;
	for (int r = 0; r < mm->nr_regions; r++) {
		const struct sim_region *g = &mm->regions[r];
		if (g->desc->prefault != TS_PREFAULT_PARENT)
			continue;
		for (uint32_t i = 0; i < g->nr_chunks; i++) {
			int node = place_node(m, NULL, g, i, parent);
			if (g->desc->policy == TS_MEM_LOCAL && cfg->bind != TS_BIND_NONE)
				node = m->run_nodes[(uint64_t)i * (uint64_t)N / g->nr_chunks];
			sim_chunk_place(mm, g->first_chunk + i, node);
		}
	}
}

/* A task's --bind masks: CPUs of its CPU nodes (within the pin), MPOL_BIND nodes. */
int sim_bind_task(struct sim *m, struct sim_task *t, struct ts_cpumask *cpus, struct ts_error *err)
{
	const struct ts_sim_config *cfg = m->cfg;
	int lo, hi;
	t->mem_bind = ts_cpumask_alloc(m->topo->nr_nodes);
	if (!t->mem_bind)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	home_range(m, t->cls->home, t->inst, t->idx, t->count, false, &lo, &hi);
	for (int i = lo; i < hi; i++)
		ts_cpumask_set(t->mem_bind, m->run_nodes[i]);
	home_range(m, t->cls->home, t->inst, t->idx, t->count, cfg->bind == TS_BIND_INVERSE, &lo,
		   &hi);
	ts_cpumask_zero(cpus);
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		for (int i = lo; i < hi; i++)
			if (sim_cpu_node(m, c) == m->run_nodes[i])
				ts_cpumask_set(cpus, c);
	}
	return 0;
}
