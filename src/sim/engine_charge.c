/* Cost charging: what a task pays as CPU work for being switched in (ctx_switch, the
 * leaving task's switch_out, the refill of its footprint on a new CPU or of the part of its
 * working set other runs evicted on its core, the hand-off of its wake-up), for the
 * wake-ups it issues (their scan time, the enqueue on a busy CPU),
 * and, with task groups, for the core's accesses to group cache lines. */
#include "engine.h"

/* The refill a task pays as it is switched in on cpu (not after itself): on another core
 * none of its working set is in that core's L2, so it refetches all of it (its run's,
 * `cache.run_kib`, or its program's footprint where that is larger) from where it last ran
 * (*moved: that part); back on its core (this CPU or an SMT sibling, which shares the L2
 * but not the L1), the part the runs in between evicted, from the shared LLC, and after a
 * sibling its footprint (the rest of the returned total). */
double sim_refill_ns(const struct sim *m, const struct sim_task *t, int cpu, double *moved)
{
	*moved = 0;
	if (t->last_cpu < 0)
		return 0; /* its first run: what it brings in is its start's cost */
	double ns = 0;
	bool same_core = m->topo->cpu[t->last_cpu].core == m->topo->cpu[cpu].core;
	if (t->last_cpu != cpu) {
		double kib =
			same_core ? t->cls->footprint_kib : fmax(m->run_kib, t->cls->footprint_kib);
		ns += sim_cost_of(m, m->refill, ts_cost_refill_between, t->last_cpu, cpu) * kib;
		if (!same_core)
			*moved = ns;
	}
	if (same_core)
		ns += ts_cost_evicted_kib(m->costs, m->core_cache_kib[m->topo->cpu[cpu].core] -
							    t->cache_mark) *
		      m->evict_refill_per_kib;
	return ns;
}

/* The core switched cpu from its current task to `next` (NULL = idle). */
void sim_set_curr(struct sim *m, int cpu, struct sim_task *next)
{
	struct sim_cpu *c = &m->cpu[cpu];
	struct sim_task *prev = c->curr;
	SIM_CHECK(!c->seg_active, "CPU %d switched with a segment running", cpu);
	SIM_CHECK((ts_cpu_rq(m->s, cpu)->curr ? sim_task_of(ts_cpu_rq(m->s, cpu)->curr) : NULL) ==
			  next,
		  "CPU %d: the engine's task is not the core's rq->curr", cpu);
	if (sim_tracing(m) && next != prev)
		sim_trace_switch(m, cpu, prev, next);
	if (prev) {
		c->busy_total += m->now - c->busy_since;
		prev->on_cpu = -1;
	}
	c->curr = next;
	if (m->speed) /* the core's siblings and the package's clock see it */
		sim_speed_busy(m, cpu, next != NULL);
	sim_kernel_switch(m, cpu, prev, next);
	if (!next)
		return;
	SIM_CHECK(next->on_cpu == -1, "task %d current on CPU %d and CPU %d", next->t.id,
		  next->on_cpu, cpu);
	SIM_CHECK(next->t.cpu == cpu, "task %d runs on CPU %d but task_cpu() is %d", next->t.id,
		  cpu, next->t.cpu);
	next->on_cpu = cpu;
	c->busy_since = m->now;
	if (m->groups && m->tg_stall[cpu] > 0) { /* task groups: stalls of the switch */
		sim_add_work(m, next, m->tg_stall[cpu], TS_WORK_TG_STALL);
		m->tg_stall[cpu] = 0;
	}
	if (next != prev) {
		sim_add_work(m, next, (double)m->ctx_switch_ns, TS_WORK_CTX_SWITCH);
		if (prev) /* the leaving task's part of the switch, before next runs */
			sim_add_work(m, next, m->switch_out, TS_WORK_SWITCH_OUT);
		double *cache = sim_cache_kib(m, cpu), moved;
		double refill = sim_refill_ns(m, next, cpu, &moved);
		sim_add_work(m, next, moved, TS_WORK_REFILL_MOVED);
		sim_add_work(m, next, refill - moved, TS_WORK_REFILL_EVICTED);
		*cache += m->run_kib; /* this run's working set enters */
		next->cache_mark = *cache;
		next->last_cpu = cpu;
	}
	if (next->woken) {
		/* the wake-up's state comes over from the waker's CPU */
		sim_add_work(
			m, next,
			sim_cost_of(m, m->handoff, ts_cost_handoff_between, next->waker_cpu, cpu),
			TS_WORK_HANDOFF);
		next->woken = false;
		if (next->cls->measure_wakeup && sim_measuring(m))
			sim_hist_add(m->lat, m->now - next->wake_ns);
	}
}

/* How long try_to_wake_up() leaves the CPU its selection found (target) looking idle to
 * other wakers before its store to the target's rq->ttwu_pending (__ttwu_queue_wakelist();
 * without the wakelist, ttwu_do_activate()'s nr_running) starts: for a task that changes
 * CPU, set_task_cpu(), whose migrate_task_rq_fair() reads the previous CPU's cfs_rq PELT
 * line and takes its cache-line-aligned removed.lock (two lines that CPU wrote, c2c from
 * it each) and whose set_task_rq() reads the task group's lines (their stalls, tg_ns, from
 * the line model). The store's own transfer is the wake-up signal's c2c, which the target
 * sees as the IPI's delay (engine_host.c, post_ipi()); the instructions in between (a few
 * hundred, L1-hot) are not counted. A task that stays on its CPU: 0, queued at once. */
static double ttwu_window_ns(const struct sim *m, int waker_cpu, int prev_cpu, int target,
			     double tg_ns)
{
	if (prev_cpu == target)
		return 0;
	return 2 * sim_cost_of(m, m->c2c, ts_cost_between, waker_cpu, prev_cpu) + tg_ns;
}

/* ts_try_to_wake_up() of a blocked task by `waker` (NULL: a timer) from cpu. Returns the
 * CPU work the wake-up costs its waker (the enqueue on a busy CPU, the scan's probes, task
 * groups' line stalls), which the caller charges; it is counted here, by term, so the
 * caller charges it with sim_task_add_work() or sim_charge_cpu(..., SIM_WORK_COUNTED).
 * A wake-up to another CPU is queued there after ttwu_window_ns() (EV_TTWU), the task
 * TASK_WAKING (on no queue) in between; one to cpu itself at once (cpu runs the waker:
 * nobody finds it idle). */
double sim_wake(struct sim *m, struct sim_task *t, int cpu, struct sim_task *waker, int flags)
{
	SIM_CHECK(t->t.state == TS_TASK_SLEEPING, "waking task %d in state %d", t->t.id,
		  (int)t->t.state);
	SIM_CHECK(m->nr_locked == 0, "ts_try_to_wake_up() called with an rq lock held");
	t->wake_ns = m->now;
	t->woken = true;
	m->nr_runnable++;
	SIM_CHECK(cpu == m->cur_cpu, "wake-up from CPU %d while handling CPU %d", cpu, m->cur_cpu);
	m->tg_wakee = m->groups ? t : NULL;
	if (sim_tracing(m))
		sim_trace_waking(m, cpu, t, !waker);
	struct ts_task *wt = waker ? &waker->t : NULL;
	struct ts_placement pl;
	int prev_cpu = t->t.cpu;
	flags = ts_ttwu_select(&pl, m->s, &t->t, cpu, wt, flags);
	double tg_ns = m->groups ? m->tg_stall[cpu] : 0;
	flags = ts_ttwu_set_task_cpu(m->s, &t->t, pl.cpu, flags);
	tg_ns = m->groups ? m->tg_stall[cpu] - tg_ns : 0;
	uint64_t window =
		pl.cpu != cpu ? sim_ns_of(ttwu_window_ns(m, cpu, prev_cpu, pl.cpu, tg_ns)) : 0;
	if (window) {
		t->ttwu_cpu = pl.cpu;
		m->nr_waking++;
		sim_post(m, m->now + window, EV_TTWU, cpu, t, (uint64_t)flags);
	} else {
		ts_ttwu_queue(&pl, m->s, &t->t, cpu, wt, flags);
	}
	if (sim_tracing(m))
		sim_trace_wakeup(m, cpu, t, &pl, !waker, false);
	m->tg_wakee = NULL;
	m->tg_exec_cpu = -1;
	t->waker_cpu = cpu;
	double cost = 0;
	/* the waker activates the task on another CPU of its LLC itself unless the core
	 * queued it on that CPU's wake list (ttwu_queue_cond()), which pays in its own time,
	 * not charged */
	if (pl.cpu != cpu && !pl.ttwu_queued &&
	    ts_topology_relation(m->topo, cpu, pl.cpu) <= TS_REL_LLC) {
		double enqueue =
			sim_cost_of(m, m->wake_enqueue, ts_cost_wake_enqueue_between, cpu, pl.cpu);
		sim_count_work(m, TS_WORK_WAKE_ENQUEUE, enqueue);
		cost += enqueue;
	}
	int n = 0;
	double scan = 0;
	for (int r = 0; r < TS_REL_NR; r++) {
		if (pl.scanned_by_relation[r]) {
			n += pl.scanned_by_relation[r];
			scan += pl.scanned_by_relation[r] * m->scan[r];
		}
	}
	cost += scan;
	sim_count_work(m, TS_WORK_IDLE_SCAN, scan);
	if (n)
		m->scan_mix_per_cpu = cost / n;
	if (m->groups) { /* task groups: the waker's line stalls of the wake-up */
		cost += m->tg_stall[cpu];
		sim_count_work(m, TS_WORK_TG_STALL, m->tg_stall[cpu]);
		m->tg_stall[cpu] = 0;
	}
	return cost;
}

/* EV_TTWU: the waker's CPU (cpu) reaches ttwu_queue() of t's wake-up; with task groups,
 * the line stalls of an activation it runs itself go to what runs there now. The waker
 * is not passed: ttwu_queue() asks for it only to spare a wake-up onto the waker's
 * own CPU the ttwu_pending mark, and those are never deferred. */
void sim_ttwu_queue_due(struct sim *m, int cpu, struct sim_task *t, int wake_flags)
{
	SIM_CHECK(t->t.state == TS_TASK_SLEEPING && t->woken, "task %d queued while not waking",
		  t->t.id);
	m->nr_waking--;
	struct ts_placement pl = {.cpu = t->ttwu_cpu};
	m->tg_wakee = m->groups ? t : NULL;
	ts_ttwu_queue(&pl, m->s, &t->t, cpu, NULL, wake_flags);
	m->tg_wakee = NULL;
	m->tg_exec_cpu = -1;
	if (m->groups)
		sim_tg_settle(m, cpu);
}

/* Task groups: stalls left by a tick or a fork on cpu go to its running segment; an idle
 * CPU absorbs them (and, ticking every 1/hz, whatever an idle CPU collected that no task
 * switched in to pay). */
__attribute__((noinline, cold)) void sim_tg_settle(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	double ns = m->tg_stall[cpu];
	if (ns <= 0)
		return;
	m->tg_stall[cpu] = 0;
	if (!c->curr || m->error)
		return;
	sim_stop_segment(m, cpu);
	sim_add_work(m, c->curr, ns, TS_WORK_TG_STALL);
	sim_start_segment(m, cpu);
}

/* Charges ns of CPU time, counted under w, to whatever runs on cpu (a timer wake-up's
 * scan, balancing, the tick): an idle CPU does it as kernel work (sim_kernel_busy()). */
void sim_charge_cpu(struct sim *m, int cpu, double ns, enum ts_sim_work w)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (ns <= 0)
		return;
	if (!c->curr) {
		sim_kernel_busy(m, cpu, ns, w);
		return;
	}
	sim_stop_segment(m, cpu);
	sim_add_work(m, c->curr, ns, w);
	if (c->curr->work)
		sim_start_segment(m, cpu);
	else
		sim_cpu_run(m, cpu);
}

/* ---- load balancing's CPU time ----
 * A balance pass at a domain (load_balance(): periodic, idle or newly idle) examines every
 * CPU of the domain's span (update_sd_lb_stats()), balance_per_cpu by each one's relation
 * to the balancing CPU; every task it moves costs balance_per_task, taken here as the mean
 * over the span's other CPUs. The core counts passes (lb_count) and tasks moved (lb_gained)
 * per domain; the CPU's current task pays for the periodic and idle passes at the tick that
 * ran them (an idle CPU does them as kernel work). Newly-idle passes are charged where
 * they run, and timed by the core through the host clock (engine_background.c). */
void sim_balance_costs_init(struct sim *m)
{
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct sim_cpu *c = &m->cpu[cpu];
		int level = 0;
		for (const struct ts_sched_domain *sd = m->s->dom->cpu[cpu].sd;
		     sd && level < SIM_LB_LEVELS; sd = sd->parent, level++) {
			double pass = 0, move = 0;
			int n = 0, o;
			ts_for_each_cpu(o, sd->span)
			{
				pass += ts_cost_balance_cpu_between(m->costs, m->topo, cpu, o);
				if (o != cpu) {
					move += ts_cost_balance_task_between(m->costs, m->topo, cpu,
									     o);
					n++;
				}
			}
			c->lb_pass[level] = pass;
			c->lb_move[level] = n ? move / n : 0;
		}
		c->lb_levels = level;
	}
}

/* The cost of every pass and move cpu's balancing of the idle types first..last made so
 * far (enum ts_idle_type). */
double sim_balance_cost_so_far(const struct sim *m, int cpu, int first, int last)
{
	const struct sim_cpu *c = &m->cpu[cpu];
	double total = 0;
	int level = 0;
	for (const struct ts_sched_domain *sd = m->s->dom->cpu[cpu].sd; sd && level < c->lb_levels;
	     sd = sd->parent, level++) {
		uint64_t passes = 0, moved = 0;
		for (int i = first; i <= last; i++) {
			passes += ts_stat_read(&sd->stats.lb_count[i]);
			moved += ts_stat_read(&sd->stats.lb_gained[i]);
		}
		total += (double)passes * c->lb_pass[level] + (double)moved * c->lb_move[level];
	}
	return total;
}

void sim_charge_balance(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	double total = sim_balance_cost_so_far(m, cpu, TS_CPU_IDLE, TS_CPU_NOT_IDLE);
	double ns = total - c->lb_charged;
	c->lb_charged = total;
	sim_charge_cpu(m, cpu, ns, TS_WORK_BALANCE);
}
