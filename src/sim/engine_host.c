/* The engine as the scheduling core's host (struct ts_host_ops): the clock, resched_cpu,
 * the rq locks (single-threaded, but checked), scan_time, and with task groups the stalls
 * of the core's accesses to group cache lines. Also the engine's error paths. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "toposched/ttwu.h"

#ifndef NDEBUG
void sim_internal_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("toposched sim: internal error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
#endif

void sim_fail(struct sim *m, int code, const char *fmt, ...)
{
	if (!m->error) {
		char buf[TS_ERR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		m->error = code;
		ts_error_set(m->err, code, "%s", buf);
	}
	m->stop = true;
}

/* ---- the host interface ---- */

static uint64_t host_clock(void *h)
{
	return ((struct sim *)h)->now;
}

/* An IPI from the CPU whose event is being handled reaches cpu (a RESCHED event). */
static void post_ipi(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (c->resched_posted)
		return;
	c->resched_posted = true;
	double d = sim_cost_of(m, m->c2c, ts_cost_between, m->cur_cpu, cpu);
	uint64_t delay = sim_ns_of(d);
	/* an idle CPU leaves its idle state first, unless it is awake doing kernel work
	 * when the IPI arrives (the task then waits for that work: sim_kernel_switch()) */
	if (!c->curr && c->kernel_until < m->now + delay)
		delay += m->idle_exit_ns;
	sim_post(m, m->now + delay, EV_RESCHED, cpu, NULL, 0);
}

static void host_resched(void *h, int cpu)
{
	struct sim *m = h;
	struct sim_cpu *c = &m->cpu[cpu];
	if (cpu == m->cur_cpu) {
		c->need_resched = true;
		return;
	}
	c->resched_wanted = true;
	post_ipi(m, cpu);
}

/* The wakelist IPI (TTWU_QUEUE): the woken task waits on cpu's wake list, off its run
 * queue, until the RESCHED event activates it there (sim_take_wakelist()). */
static void host_wakelist_ipi(void *h, int cpu)
{
	post_ipi(h, cpu);
}

static void host_lock(void *h, int cpu)
{
	sim_lock(h, cpu);
}

static void host_unlock(void *h, int cpu)
{
	sim_unlock(h, cpu);
}

static uint64_t host_scan_time(void *h, int cpu, int nr_scanned, uint64_t t0)
{
	struct sim *m = h;
	(void)cpu;
	(void)t0;
	return sim_ns_of(nr_scanned * m->scan_mix_per_cpu);
}

const struct ts_host_ops sim_host_ops = {
	.clock = host_clock,
	.resched_cpu = host_resched,
	.rq_lock = host_lock,
	.rq_unlock = host_unlock,
	.scan_time = host_scan_time,
	.stop_one_cpu = sim_host_stop_one_cpu,
	.newidle_time = sim_newidle_time,
	.wakelist_ipi = host_wakelist_ipi,
};

/* ---- task groups: the stalls of the core's accesses to group cache lines ----
 *
 * The core reports each access to a group's shared lines (tg_line_access) with the CPU of
 * the run queue whose structures it touches; the line model (sim/line_model.h) is given
 * instead the CPU that executes the code in the kernel, which is the CPU whose event is
 * being handled (m->cur_cpu: the tick, __schedule() and newidle balancing, the periodic
 * balancing that pulls from another queue, the timer's or the waker's CPU, CPU 0 forking
 * a task, the stopper CPU of the NUMA stop work), except the activation of a wake-up that
 * ttwu_queue_cond() sends to the target's wakelist: the target runs it
 * (the core's ts_ttwu_activate_cpu(), asked when the core takes the target's lock,
 * tg_exec_cpu).
 * The stall is CPU time of that CPU, charged like the other costs as work of the task
 * running there: at once when that CPU is another busy CPU (its running segment is
 * extended: the wakelist IPI interrupts it); for the CPU whose event is being handled,
 * collected while the handler runs and charged to the task switched in next (set_curr),
 * to the waker with its wake-up's scan time (wake), or to the current task when it keeps
 * running after a tick or a fork (tg_settle); an idle CPU that stays idle absorbs it (an
 * idle CPU that is woken, as a wakelist target, pays it in the woken task). */

static void host_tg_line_access(void *h, int rq_cpu, const void *line, bool write)
{
	struct sim *m = h;
	(void)rq_cpu; /* the structures' CPU; the executing one is ours to say */
	if (!m->groups)
		return; /* not set up yet */
	int cpu = m->tg_exec_cpu >= 0 ? m->tg_exec_cpu : m->cur_cpu;
	double ns = sim_groups_access(m->groups, cpu, line, write, m->now);
	if (m->groups->oom)
		sim_fail(m, -ENOMEM, "sim: out of memory for the cache-line model");
	if (ns <= 0)
		return;
	struct sim_cpu *c = &m->cpu[cpu];
	if (cpu != m->cur_cpu && c->curr && c->seg_active) {
		sim_stop_segment(m, cpu);
		sim_add_work(m, c->curr, ns, TS_WORK_TG_STALL);
		sim_start_segment(m, cpu);
	} else {
		m->tg_stall[cpu] += ns;
	}
}

/* ts_try_to_wake_up() takes the target's lock in ttwu_queue(), where the kernel decides
 * between the wakelist and a direct activation: the accesses under that lock are the
 * activation's. Before it (select_task_rq(), the wakee's and waker's task_h_load(), and
 * set_task_cpu()'s set_task_rq() reads of a task that changes CPU) the waker executes. */
static void host_lock_groups(void *h, int cpu)
{
	struct sim *m = h;
	if (m->tg_wakee && m->tg_exec_cpu < 0)
		m->tg_exec_cpu = ts_ttwu_activate_cpu(m->s, &m->tg_wakee->t, m->cur_cpu, cpu);
	host_lock(h, cpu);
}

const struct ts_host_ops sim_host_ops_groups = {
	.clock = host_clock,
	.resched_cpu = host_resched,
	.rq_lock = host_lock_groups,
	.rq_unlock = host_unlock,
	.scan_time = host_scan_time,
	.newidle_time = sim_newidle_time,
	.wakelist_ipi = host_wakelist_ipi,
	.tg_line_access = host_tg_line_access,
	.stop_one_cpu = sim_host_stop_one_cpu,
};
