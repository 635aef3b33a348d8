/* The kernel's own CPU time on each CPU, besides the workload's tasks: the scheduler tick's
 * interrupt and the softirqs run at its exit, the CPU time of work done on an idle CPU
 * (interrupts, balancing: it is awake, and a task switched in waits for it), the per-CPU
 * kworker, and newly-idle balancing's walk, whose time the core learns from the host
 * (newidle_time: update_newidle_cost(), max_newidle_lb_cost). Rates and costs are terms of the cost
 * model (noise.*, docs/model.md); the mechanics are in docs/engine.md, "Kernel time". */
#include "engine.h"

/* The next softirq of cpu: softirqs are raised in interrupts (the tick's TIMER, RCU and
 * SCHED) and run at the interrupt's exit, so the draw picks the tick they follow. Drawn
 * from the run's noise stream (its own seed: a run without background activity draws
 * nothing, and the workload's draws do not depend on these). */
static void next_softirq(struct sim *m, struct sim_cpu *c)
{
	c->next_softirq += sim_ns_of(ts_rng_exp(&m->noise_rng, m->softirq_mean_ns)) + 1;
}

void sim_background_init(struct sim *m)
{
	const struct ts_cost_model *k = m->costs;
	m->background = !m->cfg->no_background;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		m->cpu[cpu].idle_since = m->t0;
	if (!m->background)
		return;
	m->tick_busy_ns = k->noise_tick_busy.value;
	m->tick_idle_ns = k->noise_tick_idle.value;
	m->softirq_ns = k->noise_softirq.value;
	double rate = k->noise_softirq_per_s.value;
	m->softirq_mean_ns = rate > 0 && m->softirq_ns > 0 ? 1e9 / rate : 0;
	ts_rng_seed(&m->noise_rng, ts_rng_derive(m->cfg->seed, SIM_NOISE_STREAM));
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		m->cpu[cpu].next_softirq = m->t0;
		if (m->softirq_mean_ns > 0)
			next_softirq(m, &m->cpu[cpu]);
	}
}

/* ns of kernel work on cpu while it has no task: from now, or after the work already
 * under way. Not counted in the CPU's busy time, which is its tasks' (busy = exec); a
 * task switched in while it lasts waits for it as CPU work of its own. */
void sim_kernel_busy(struct sim *m, int cpu, double ns, enum ts_sim_work w)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (ns <= 0)
		return;
	sim_count_work(m, w, ns);
	uint64_t from = c->kernel_until > m->now ? c->kernel_until : m->now;
	uint64_t d = sim_ns_of(ns);
	c->kernel_until = from + d;
}

/* The tick's own CPU time on cpu (after ts_sched_tick() and the balancing it ran): its
 * interrupt, and the softirq that follows it when one is due. A busy CPU's task loses the
 * time (the segment is extended). NO_HZ: an idle CPU keeps its tick only while its idle
 * period is shorter than a tick (the cpuidle governor predicts a short idle and
 * tick_nohz_idle_stop_tick() leaves the tick running); such a tick first takes the CPU
 * out of its idle state (idle_exit, idle time), then is kernel work. Once the tick is
 * stopped the CPU is not woken by it. */
void sim_tick_background(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	double ns = c->curr ? m->tick_busy_ns : m->tick_idle_ns;
	if (m->softirq_mean_ns > 0 && m->now >= c->next_softirq) {
		ns += m->softirq_ns;
		do
			next_softirq(m, c);
		while (c->next_softirq <= m->now);
	}
	if (c->curr) {
		sim_charge_cpu(m, cpu, ns, TS_WORK_KERNEL);
		return;
	}
	if (m->now - c->idle_since >= m->tick_ns)
		return; /* the tick is stopped */
	if (c->kernel_until <= m->now)
		c->kernel_until = m->now + m->idle_exit_ns; /* leaves its idle state first */
	sim_kernel_busy(m, cpu, ns, TS_WORK_KERNEL);
}

/* cpu switches from prev to next (sim_set_curr()). A CPU going idle starts its idle
 * period; a task switched in on a CPU busy with kernel work waits for the work: the rest
 * of it is CPU work before the task's own. */
void sim_kernel_switch(struct sim *m, int cpu, const struct sim_task *prev, struct sim_task *next)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (!next) {
		if (prev)
			c->idle_since = m->now;
		return;
	}
	if (next->role != SIM_ROLE_KWORKER)
		c->task_runs++;
	if (prev || c->kernel_until <= m->now)
		return;
	uint64_t rest = c->kernel_until - m->now;
	c->kernel_until = m->now;
	sim_task_add_work(next, (double)rest); /* counted as the kernel work it is */
}

/* ---- newly-idle balancing's CPU time ----
 * sched_balance_newidle() walks the domains of a CPU that is going idle; each pass at a
 * domain costs what a periodic pass there costs (balance_per_cpu over the span,
 * balance_per_task per task moved: sim_balance_costs_init()). The core times each pass
 * through the host (newidle_time: its update_newidle_cost(), max_newidle_lb_cost and the
 * cut-off against avg_idle learn it); after ts_schedule() the walk's time is charged: to
 * the task the CPU runs next, or as kernel work of the idle CPU. */

/* host newidle_time: the pass cpu just made (the cost since the last one it reported). */
uint64_t sim_newidle_time(void *h, int cpu, uint64_t t0)
{
	struct sim *m = h;
	struct sim_cpu *c = &m->cpu[cpu];
	(void)t0;
	double total = sim_balance_cost_so_far(m, cpu, TS_CPU_NEWLY_IDLE, TS_CPU_NEWLY_IDLE);
	uint64_t ns = sim_ns_of(total - c->newidle_timed);
	c->newidle_timed = total;
	return ns;
}

/* After cpu's ts_schedule(): the walk's CPU time, before next's own (next NULL: the CPU
 * is idle, busy with it as kernel work). */
void sim_newidle_end(struct sim *m, int cpu, struct sim_task *next)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (c->newidle_timed == c->newidle_charged)
		return;
	double ns = c->newidle_timed - c->newidle_charged;
	c->newidle_charged = c->newidle_timed;
	if (next)
		sim_add_work(m, next, ns, TS_WORK_BALANCE);
	else
		sim_kernel_busy(m, cpu, ns, TS_WORK_BALANCE);
}

/* ---- the per-CPU kworker: vmstat_update() ----
 * mm/vmstat.c folds each CPU's VM counter deltas into the global counters from a delayed
 * work on that CPU (vmstat_work on mm_percpu_wq: a per-CPU kworker, a CFS task bound to
 * its CPU), every sysctl vm.stat_interval (HZ: 1 s), re-armed with
 * round_jiffies_relative(): it expires on a whole second of jiffies less 3 jiffies per
 * CPU number (kernel/time/timer.c, round_jiffies_common()), so the CPUs' runs are
 * staggered, not random. A CPU that ran no task since the last check has no deltas: the
 * work is not queued there (vmstat_shepherd() requeues it only where need_update()), so
 * an idle CPU is not woken. The kworker is a real task: woken through the core on its CPU
 * (a per-CPU kthread), it preempts or queues behind the CPU's task as the core decides. */
static const struct ts_task_class kworker_class = {
	.name = "kworker", .count = 1, .footprint_kib = 16};

int sim_kworker_count(const struct sim *m)
{
	const struct ts_cost_model *k = m->costs;
	bool on = !m->cfg->no_background && k->noise_vmstat.value > 0 &&
		  k->noise_vmstat_interval.value > 0;
	return on ? m->nr_allowed : 0;
}

/* The next expiry after now of cpu's vmstat work: round_jiffies_relative(interval). */
static uint64_t kworker_expiry(const struct sim *m, int cpu)
{
	uint64_t hz = 1000000000ULL / m->tick_ns;
	uint64_t now_j = m->now / m->tick_ns + m->jiffies_off;
	uint64_t orig = now_j + m->vmstat_jiffies;
	uint64_t skew = (uint64_t)cpu * 3;
	uint64_t j = orig + skew;
	uint64_t rem = j % hz;
	j = rem < hz / 4 ? j - rem : j - rem + hz; /* round down only a little */
	j -= skew;
	if (j <= now_j)
		j = orig; /* rounded into the past: the original */
	return (j - m->jiffies_off) * m->tick_ns;
}

int sim_kworkers_setup(struct sim *m, struct ts_error *err)
{
	int n = sim_kworker_count(m);
	if (!n)
		return 0;
	m->vmstat_ns = m->costs->noise_vmstat.value;
	uint64_t hz = 1000000000ULL / m->tick_ns;
	m->vmstat_jiffies = sim_ns_of(m->costs->noise_vmstat_interval.value) / m->tick_ns;
	if (m->vmstat_jiffies < 1)
		m->vmstat_jiffies = 1;
	m->jiffies_off = ts_rng_below(&m->noise_rng, hz);
	struct ts_cpumask *one = ts_cpumask_alloc(m->nr_cpus);
	if (!one)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	int id = m->nr_tasks + m->nr_sys, rc = 0;
	for (int cpu = 0; cpu < m->nr_cpus && !rc; cpu++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, cpu))
			continue;
		struct sim_task *t = &m->tasks[id];
		m->nr_tasks_inited = id + 1;
		ts_cpumask_zero(one);
		ts_cpumask_set(one, cpu);
		if ((rc = ts_task_init(m->s, &t->t, 0, one, cpu, err)))
			break;
		t->t.host_data = t;
		t->t.id = id++;
		t->t.percpu_kthread = true;
		t->cls = &kworker_class;
		t->role = SIM_ROLE_KWORKER;
		t->on_cpu = t->last_cpu = -1;
		t->forking = t->server = t->inst = -1;
		sim_post(m, kworker_expiry(m, cpu), EV_TIMER, cpu, t, 0);
	}
	ts_cpumask_free(one);
	return rc;
}

/* The kworker t's timer expired on cpu. True when handled here (no deltas to fold: armed
 * again; or its first run: created now), false when it is woken as a sleeping task. */
bool sim_kworker_timer(struct sim *m, int cpu, struct sim_task *t)
{
	const struct sim_cpu *c = &m->cpu[cpu];
	if (!c->curr && c->task_runs == t->kw_seen) {
		sim_post(m, kworker_expiry(m, cpu), EV_TIMER, cpu, t, 0);
		return true;
	}
	t->kw_seen = c->task_runs;
	if (t->t.state != TS_TASK_NEW)
		return false;
	sim_on_start(m, t);
	return true;
}

/* Its program: vmstat_update() (noise.vmstat of CPU work), then it sleeps until the next
 * expiry. */
enum sim_step sim_step_kworker(struct sim *m, int cpu, struct sim_task *t)
{
	if (!t->work && !t->pc) {
		t->pc = 1;
		sim_add_work(m, t, m->vmstat_ns, TS_WORK_KERNEL);
	}
	if (t->work > 0) {
		sim_start_segment(m, cpu);
		return STEP_SEGMENT;
	}
	t->pc = 0;
	sim_post(m, kworker_expiry(m, cpu), EV_TIMER, cpu, t, 0);
	return STEP_BLOCK;
}
