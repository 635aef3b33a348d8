/* ts_sim_run(): the event loop and its handlers, what a CPU runs after each event, and
 * the invariants checked in debug builds. How the engine works: docs/engine.md. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

/* sched_ttwu_pending(): cpu activates the wake-ups queued on its wake list (the wakelist
 * IPI has arrived, or cpu is about to go idle and do_idle() flushes its call queue). Called
 * with cpu's lock held. */
static void take_wakelist_locked(struct sim *m, int cpu)
{
	if (ts_cpu_rq(m->s, cpu)->wake_list)
		ts_sched_ttwu_pending(m->s, cpu);
}

/* __schedule() on cpu (locked): with nothing to run but wake-ups queued on cpu, the idle
 * loop's flush activates them and cpu schedules again. */
static struct ts_task *schedule_locked(struct sim *m, int cpu)
{
	struct ts_task *next = ts_schedule(m->s, cpu);
	if (!next && ts_cpu_rq(m->s, cpu)->wake_list) {
		take_wakelist_locked(m, cpu);
		next = ts_schedule(m->s, cpu);
	}
	return next;
}

/* Runs cpu's current task (and whatever the core picks after it blocks or exits) until a
 * task is executing a segment or the CPU is idle. */
void sim_cpu_run(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	while (c->curr && !m->error) {
		struct sim_task *t = c->curr;
		enum sim_step st = sim_step_task(m, cpu, t);
		if (st == STEP_SEGMENT || m->error)
			return;
		if (st == STEP_YIELD) { /* still runnable: schedule() picks again */
			sim_lock(m, cpu);
			struct ts_task *next = ts_schedule(m->s, cpu);
			sim_unlock(m, cpu);
			c->need_resched = false;
			sim_set_curr(m, cpu, next ? sim_task_of(next) : NULL);
			continue;
		}
		enum ts_task_state ns = st == STEP_EXIT ? TS_TASK_DEAD : TS_TASK_SLEEPING;
		if (sim_tracing(m) && st == STEP_EXIT)
			sim_trace_exit(m, cpu, t);
		sim_lock(m, cpu);
		ts_deactivate_curr(m->s, cpu, ns);
		m->nr_runnable--;
		struct ts_task *next = schedule_locked(m, cpu);
		sim_unlock(m, cpu);
		c->need_resched = false; /* __schedule() just ran */
		if (st == STEP_EXIT) {
			t->exited = true;
			if (t->limit && ++m->exited_limited == m->limited_tasks &&
			    m->w->metric == TS_METRIC_TIME_S) {
				m->finish_ns = m->now;
				m->stop = true;
			}
		}
		sim_set_curr(m, cpu, next ? sim_task_of(next) : NULL);
		sim_newidle_end(m, cpu, c->curr);
	}
}

/* __schedule() on cpu now (its need_resched or a RESCHED event), then run what it picked. */
void sim_do_resched(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	c->need_resched = false;
	sim_stop_segment(m, cpu);
	sim_lock(m, cpu);
	struct ts_task *next = schedule_locked(m, cpu);
	sim_unlock(m, cpu);
	c->need_resched = false;
	sim_set_curr(m, cpu, next ? sim_task_of(next) : NULL);
	sim_newidle_end(m, cpu, c->curr);
	sim_cpu_run(m, cpu);
}

/* A resched request (the tick, a wake-up's preemption, an IPI) reaches cpu; a task at a
 * pipe->mutex answers it its own way (sim_mx_resched()). */
static void resched_request(struct sim *m, int cpu)
{
	struct sim_task *t = m->cpu[cpu].curr;
	if (__builtin_expect(t && t->mx, 0) && sim_mx_resched(m, cpu, t))
		return;
	sim_do_resched(m, cpu);
}

/* End of a handler on cpu: honour the resched requests made for it meanwhile. */
void sim_finish_cpu(struct sim *m, int cpu)
{
	while (m->cpu[cpu].need_resched && !m->error)
		resched_request(m, cpu);
}

#ifndef NDEBUG
static int64_t wakelist_len(const struct ts_rq *rq)
{
	int64_t n = 0;
	for (const struct ts_task *p = rq->wake_list; p; p = p->wake_next)
		n++;
	return n;
}

static void check_invariants(struct sim *m)
{
	int64_t queued = 0;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct ts_rq *rq = ts_cpu_rq(m->s, cpu);
		queued += rq->nr_running + wakelist_len(rq);
		const struct sim_task *t = m->cpu[cpu].curr;
		SIM_CHECK((rq->curr ? sim_task_of(rq->curr) : NULL) == t,
			  "CPU %d: engine and core disagree on the running task", cpu);
		SIM_CHECK(!t || (t->on_cpu == cpu && t->t.cpu == cpu),
			  "CPU %d: its task says it is on CPU %d", cpu, t ? t->on_cpu : -1);
		SIM_CHECK(!m->cpu[cpu].locked, "CPU %d: rq lock held between events", cpu);
	}
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		SIM_CHECK((m->ends.pos[cpu] >= 0) == m->cpu[cpu].seg_active,
			  "CPU %d: a segment end without a running segment, or the reverse", cpu);
	SIM_CHECK(sim_seg_ends_valid(&m->ends, m->nr_cpus), "segment ends: heap order broken");
	queued += m->nr_waking; /* between their selection and ttwu_queue() */
	SIM_CHECK(queued == m->nr_runnable,
		  "runnable tasks lost: the engine holds %lld runnable, the run queues %lld",
		  (long long)m->nr_runnable, (long long)queued);
	/* Memory: conservation (every 64th check: it walks every chunk), and no running
	 * sweep covers a chunk that must fault. */
	if (m->nr_mms && (m->ticks0++ & 63) == 0) {
		char why[256];
		for (int i = 0; i < m->nr_mms; i++)
			SIM_CHECK(sim_mm_check(&m->mms[i], why, sizeof(why)) == 0, "pages: %s",
				  why);
		for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
			const struct sim_task *t = m->cpu[cpu].curr;
			if (!t || !t->touch.seg)
				continue;
			double end, k = t->touch.seg_from;
			sim_sweep_plan(&t->touch.sw, k, sim_lat_row(m, t->touch.seg_node), &end);
			SIM_CHECK(end >= t->touch.seg_to,
				  "CPU %d: task %d's touch segment runs into a chunk that faults",
				  cpu, t->t.id);
		}
	}
}

static void check_tasks(struct sim *m)
{
	int64_t runnable = 0;
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct sim_task *t = &m->tasks[i];
		runnable += t->t.state == TS_TASK_RUNNABLE;
		/* on a wake list, or selected and not queued yet */
		runnable += t->t.state == TS_TASK_SLEEPING && t->woken;
		SIM_CHECK(t->on_cpu < 0 || m->cpu[t->on_cpu].curr == t,
			  "task %d thinks it runs on CPU %d", i, t->on_cpu);
	}
	SIM_CHECK(runnable == m->nr_runnable, "runnable task count %lld != engine's %lld",
		  (long long)runnable, (long long)m->nr_runnable);
	uint64_t queued = 0;
	for (int i = 0; i < m->nr_chan; i++)
		queued += m->chan[i].count;
	SIM_CHECK(m->msgs_sent == m->msgs_recv + queued,
		  "messages: %llu sent, %llu received, %llu queued",
		  (unsigned long long)m->msgs_sent, (unsigned long long)m->msgs_recv,
		  (unsigned long long)queued);
	char why[256];
	for (int i = 0; i < m->nr_mms; i++)
		SIM_CHECK(sim_mm_check(&m->mms[i], why, sizeof(why)) == 0, "pages: %s", why);
}
#endif

static void on_tick(struct sim *m, int cpu)
{
	SIM_CHECK(m->nr_locked == 0, "a lock is held at a tick");
	sim_lock(m, cpu);
	bool balance = ts_sched_tick(m->s, cpu);
	sim_unlock(m, cpu);
	if (balance) {
		SIM_CHECK(m->nr_locked == 0, "ts_balance_tick() called with an rq lock held");
		ts_balance_tick(m->s, cpu);
	}
	sim_charge_balance(m, cpu); /* this tick's balance passes */
	if (m->background)
		sim_tick_background(m, cpu);
	if (m->numa_scan)
		sim_numa_tick(m, cpu);
	if (m->groups)
		sim_tg_settle(m, cpu);
	sim_post(m, m->now + m->tick_ns, EV_TICK, cpu, NULL, 0);
#ifndef NDEBUG
	if (cpu == 0)
		check_invariants(m);
#endif
}

/* expired: when the timer expired (the wake-up latency counts from there) */
static void on_timer(struct sim *m, int cpu, struct sim_task *t, uint64_t expired)
{
	double cost = sim_wake(m, t, cpu, NULL, 0);
	t->wake_ns = expired;
	sim_charge_cpu(m, cpu, cost, SIM_WORK_COUNTED);
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ts_sim_run(const struct ts_sim_config *cfg, struct ts_sim_result *out, struct ts_error *err)
{
	int rc = sim_validate(cfg, err);
	if (rc)
		return rc;
	if (!out)
		return sim_invalid(err, "no result to fill");
	double wall0 = wall_now();
	struct sim *m = calloc(1, sizeof(*m));
	if (!m)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	m->tg_exec_cpu = -1;
	rc = sim_setup(m, cfg, err);
	if (!rc && sim_speed_setup(m))
		rc = ts_error_set(err, -ENOMEM, "sim: out of memory");
	if (rc) {
		sim_speed_free(m);
		sim_free(m);
		free(m);
		return rc;
	}
	struct ts_event ev;
	uint64_t max_events = cfg->max_events;
	while (!m->stop && sim_next_event(m, &ev)) {
		SIM_CHECK(ev.time >= m->now, "virtual time went back from %llu to %llu",
			  (unsigned long long)m->now, (unsigned long long)ev.time);
		if (max_events && m->events >= max_events) {
			m->truncated = true;
			break;
		}
		m->now = ev.time;
		m->events++;
		m->cur_cpu = ev.cpu;
		switch (ev.kind) {
		case EV_TICK:
			on_tick(m, ev.cpu);
			break;
		case EV_START:
			sim_on_start(m, ev.obj);
			break;
		case EV_DONE: {
			struct sim_cpu *c = &m->cpu[ev.cpu];
			sim_stop_segment(m, ev.cpu);
			/* work left only when the CPU slowed down since (cpu_speed.c): the
			 * rest is posted again */
			SIM_CHECK(c->curr && (c->curr->work == 0 || m->speed),
				  "CPU %d: segment done with work left", ev.cpu);
			sim_cpu_run(m, ev.cpu);
			break;
		}
		case EV_RESCHED: {
			/* the IPI: the wake list first (its activations may ask for a
			 * resched, honoured below), then a resched request if one came */
			struct sim_cpu *c = &m->cpu[ev.cpu];
			c->resched_posted = false;
			sim_lock(m, ev.cpu);
			take_wakelist_locked(m, ev.cpu);
			sim_unlock(m, ev.cpu);
			if (c->resched_wanted) {
				c->resched_wanted = false;
				resched_request(m, ev.cpu);
			}
			break;
		}
		case EV_TIMER:
			if (!ev.gen &&
			    __builtin_expect(((struct sim_task *)ev.obj)->role == SIM_ROLE_KWORKER,
					     0) &&
			    sim_kworker_timer(m, ev.cpu, ev.obj))
				break;
			/* An idle CPU first leaves its idle state to take the interrupt (one
			 * awake doing kernel work takes it at once). */
			if (!ev.gen && !m->cpu[ev.cpu].curr && m->idle_exit_ns &&
			    m->cpu[ev.cpu].kernel_until <= m->now) {
				sim_post(m, m->now + m->idle_exit_ns, EV_TIMER, ev.cpu, ev.obj,
					 m->now);
				break;
			}
			on_timer(m, ev.cpu, ev.obj, ev.gen ? ev.gen : m->now);
			break;
		case EV_WINDOW:
			m->cur_cpu = 0;
			sim_window_due(m);
			break;
		case EV_END:
			if (!m->started)
				sim_fail(m, -EDEADLK,
					 "sim: workload '%s' never finished its start-up (forks, "
					 "connections, barrier)",
					 m->w->name);
			m->window_done = true;
			m->stop = true;
			break;
		case EV_NUMA_STOP:
			sim_on_numa_stop(m, ev.obj);
			break;
		case EV_STOP_PUSH:
			sim_on_stop_push(m, ev.cpu);
			break;
		case EV_TTWU:
			sim_ttwu_queue_due(m, ev.cpu, ev.obj, (int)ev.gen);
			break;
		}
		if (ev.cpu >= 0)
			sim_finish_cpu(m, ev.cpu);
	}
	/* Pages are conserved in every build: a violation is an internal error of the run. */
	char why[256];
	for (int i = 0; i < m->nr_mms && !m->error; i++)
		if (sim_mm_check(&m->mms[i], why, sizeof(why)))
			sim_fail(m, -EFAULT, "sim: internal error: pages not conserved: %s", why);
	if (!m->error) {
#ifndef NDEBUG
		check_invariants(m);
		check_tasks(m);
#endif
		memset(out, 0, sizeof(*out));
		sim_fill_result(m, out);
		out->wall_s = wall_now() - wall0;
	}
	rc = m->error;
	sim_speed_free(m);
	sim_free(m);
	free(m);
	return rc;
}
