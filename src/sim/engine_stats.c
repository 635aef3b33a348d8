/* Statistics: the core's counters snapshotted when the measured window opens and taken
 * as deltas at the end, with the engine's own counters, into struct ts_sim_result. */
#include <errno.h>
#include <string.h>

#include "engine.h"

const char *ts_sim_work_name(enum ts_sim_work w)
{
	static const char *const names[TS_WORK_NR] = {
		[TS_WORK_PROGRAM] = "program",
		[TS_WORK_PAYLOAD] = "payload",
		[TS_WORK_CTX_SWITCH] = "ctx_switch",
		[TS_WORK_SWITCH_OUT] = "switch_out",
		[TS_WORK_REFILL_EVICTED] = "refill_evicted",
		[TS_WORK_REFILL_MOVED] = "refill_moved",
		[TS_WORK_HANDOFF] = "handoff",
		[TS_WORK_WAKE_ENQUEUE] = "wake_enqueue",
		[TS_WORK_IDLE_SCAN] = "idle_scan",
		[TS_WORK_BALANCE] = "balance",
		[TS_WORK_MUTEX_SPIN] = "mutex_spin",
		[TS_WORK_START] = "start",
		[TS_WORK_KERNEL] = "kernel",
		[TS_WORK_NUMA] = "numa",
		[TS_WORK_TG_STALL] = "tg_stall",
	};
	return (unsigned)w < TS_WORK_NR ? names[w] : "?";
}

static void snapshot(struct sim *m, struct stat_snap *out)
{
	memset(out, 0, sizeof(*out));
	struct ts_sched *s = m->s;
	ts_sis_counts_sum(&s->rq[0].stats, m->nr_cpus, sizeof(struct ts_rq), &out->sis);
	sim_lb_sum(m, &out->lb);
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct ts_cpu_stats *st = &s->rq[cpu].stats;
		for (int i = 0; i < TS_PLACE_NR; i++)
			out->reasons[i] += ts_stat_read(&st->reasons[i]);
		for (int i = 0; i < TS_REL_NR; i++)
			out->by_rel[i] += ts_stat_read(&st->wakeups_by_relation[i]);
		for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
			out->scan_hist[i] += ts_stat_read(&st->scan_hist[i]);
		out->wakeups += ts_stat_read(&st->ttwu_count);
		out->migrations += ts_stat_read(&st->migrations);
		const struct sim_cpu *c = &m->cpu[cpu];
		out->busy += c->busy_total + (c->curr ? m->now - c->busy_since : 0);
	}
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct sim_task *t = &m->tasks[i];
		out->exec += t->t.se.sum_exec_runtime;
		if (t->on_cpu >= 0 && m->now > t->t.se.exec_start)
			out->exec += m->now - t->t.se.exec_start;
	}
	if (m->nr_mms)
		ts_numa_stats_sum(s, &out->numa);
}

/* Task groups (kept out of line, off the event loop's code): the tasks' CPU time so far by
 * top-level group, into m->tg_exec; the window's start; the run's group result. */
static void tg_exec_by_top(struct sim *m)
{
	memset(m->tg_exec, 0, ((size_t)m->groups->nr_top + 1) * sizeof(*m->tg_exec));
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct sim_task *t = &m->tasks[i];
		uint64_t ns = t->t.se.sum_exec_runtime;
		if (t->on_cpu >= 0 && m->now > t->t.se.exec_start)
			ns += m->now - t->t.se.exec_start;
		if (i < m->nr_tasks)
			sim_groups_add_exec(m->groups, m->tg_exec, i, ns);
		else /* the start-up's processes are root tasks */
			m->tg_exec[m->groups->nr_top] += ns;
	}
}

__attribute__((noinline)) static void tg_window_open(struct sim *m)
{
	tg_exec_by_top(m);
	sim_groups_window_open(m->groups, m->now, m->tg_exec);
}

__attribute__((noinline)) static void tg_result(struct sim *m, struct ts_sim_result *out)
{
	tg_exec_by_top(m);
	sim_groups_result(m->groups, m->now, m->tg_exec, m->nr_allowed, &out->tg);
}

void sim_window_open(struct sim *m)
{
	m->in_window = true;
	m->win_start = m->now;
	snapshot(m, &m->snap0);
	if (m->cfg->schedstat && sim_schedstat_open(m))
		sim_fail(m, -ENOMEM, "sim: out of memory for the --schedstat snapshot");
	if (m->groups)
		tg_window_open(m);
}

void sim_fill_result(struct sim *m, struct ts_sim_result *out)
{
	struct stat_snap end;
	snapshot(m, &end);
	const struct stat_snap *a = &m->snap0;
	uint64_t win = m->in_window ? m->now - m->win_start : 0;
	double win_s = (double)win / 1e9;
	out->marks = m->marks;
	out->bytes = m->bytes;
	out->sim_ns = m->now - m->t0;
	out->start_ns = m->started ? m->start_ns - m->t0 : out->sim_ns;
	out->settle_ns = m->settle_ns;
	out->settle_capped = m->settle_capped;
	out->events = m->events;
	out->sis.search = end.sis.search - a->sis.search;
	out->sis.domain_search = end.sis.domain_search - a->sis.domain_search;
	out->sis.scanned = end.sis.scanned - a->sis.scanned;
	out->sis.failed = end.sis.failed - a->sis.failed;
	out->sis.recent_hit = end.sis.recent_hit - a->sis.recent_hit;
	out->sis.recent_miss = end.sis.recent_miss - a->sis.recent_miss;
	out->sis.core_search = end.sis.core_search - a->sis.core_search;
	out->sis.core_failed = end.sis.core_failed - a->sis.core_failed;
	ts_sim_lb_add_delta(&out->lb, &a->lb, &end.lb);
	for (int i = 0; i < TS_PLACE_NR; i++)
		out->reasons[i] = end.reasons[i] - a->reasons[i];
	for (int i = 0; i < TS_REL_NR; i++)
		out->wakeups_by_relation[i] = end.by_rel[i] - a->by_rel[i];
	for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
		out->scan_hist[i] = end.scan_hist[i] - a->scan_hist[i];
	out->wakeups = end.wakeups - a->wakeups;
	out->migrations = end.migrations - a->migrations;
	out->busy_ns = end.busy - a->busy;
	for (int i = 0; i < TS_WORK_NR; i++) /* counted in the window only */
		out->work_ns[i] = m->work_by[i];
	out->exec_ns = end.exec - a->exec;
	out->cpu_util = win ? (double)out->busy_ns / ((double)m->nr_allowed * (double)win) : 0;
	uint64_t queued = 0;
	for (int i = 0; i < m->nr_chan; i++)
		queued += m->chan[i].count;
	out->messages_sent = m->msgs_sent;
	out->messages_received = m->msgs_recv;
	out->messages_queued = queued;
	static const double q[4] = {0.50, 0.90, 0.99, 0.999};
	for (int i = 0; i < 4; i++) {
		double v = sim_hist_percentile(m->lat, q[i]);
		out->wakeup_lat_us[i] = v < 0 ? -1 : v / 1000.0;
	}
	out->wakeup_lat_samples = m->lat->count;
	bool time_s = m->w->metric == TS_METRIC_TIME_S;
	out->finished = time_s ? m->exited_limited == m->limited_tasks : m->window_done;
	switch (m->w->metric) {
	case TS_METRIC_THROUGHPUT_MBS:
		out->metric = win ? (double)m->bytes / 1e6 / win_s : 0;
		break;
	case TS_METRIC_TPS_PER_INSTANCE:
		out->metric = win ? (double)m->marks / win_s / m->cfg->load : 0;
		break;
	case TS_METRIC_TIME_S:
		out->metric = (double)(m->now - m->start_ns) / 1e9; /* from the release */
		break;
	case TS_METRIC_WAKEUP_P99_US:
		out->metric = out->wakeup_lat_us[2];
		break;
	case TS_METRIC_US_PER_MARK:
		out->metric = m->marks ? (double)win / 1e3 / (double)m->marks : -1;
		break;
	case TS_METRIC_OPS_PER_S:
		out->metric = win ? (double)m->marks / win_s : 0;
		break;
	}
	if (m->groups)
		tg_result(m, out);
	sim_schedstat_write(m);
	sim_trace_write(m);
	if (!m->nr_mms)
		return;
	/* NUMA balancing: the core's counters over the window, the engine's own */
	struct ts_sim_numa *nu = &out->numa;
	*nu = m->numa;
	const struct ts_numa_cpu_stats *e = &end.numa, *b = &a->numa;
#define NUMA_DELTA(field) (ts_stat_read(&e->field) - ts_stat_read(&b->field))
	nu->hint_faults = NUMA_DELTA(hint_faults);
	nu->hint_faults_local = NUMA_DELTA(hint_faults_local);
	nu->hint_faults_remote = NUMA_DELTA(hint_faults_remote);
	nu->hint_faults_private = NUMA_DELTA(hint_faults_private);
	nu->hint_faults_shared = NUMA_DELTA(hint_faults_shared);
	nu->pages_migrated = NUMA_DELTA(pages_migrated);
	nu->migrate_attempts = NUMA_DELTA(migrate_attempts);
	nu->task_migrations = NUMA_DELTA(migrations);
	nu->task_swaps = NUMA_DELTA(swaps);
	nu->task_stick = NUMA_DELTA(stick);
	nu->applied = NUMA_DELTA(applied);
	nu->reserve_conflicts = NUMA_DELTA(reserve_conflicts);
	nu->reserve_conflict_alt = NUMA_DELTA(reserve_conflict_alt);
	nu->reserve_conflict_noalt = NUMA_DELTA(reserve_conflict_noalt);
	nu->reserved_skips = NUMA_DELTA(reserved_skips);
#undef NUMA_DELTA
	nu->system_ns = sim_ns_of(m->work_by[TS_WORK_NUMA]);
	/* At the end: where every task with a preferred node ran last (an exited task's CPU
	 * is the one it exited on). */
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct ts_task *p = &m->tasks[i].t;
		if (!p->numa || p->numa->numa_preferred_nid == TS_NUMA_NO_NODE)
			continue;
		nu->tasks_numa++;
		nu->tasks_preferred += sim_cpu_node(m, p->cpu) == p->numa->numa_preferred_nid;
	}
}
