/* --trace: one run's scheduling events in the ftrace text format (toposched/ftrace_text.h,
 * the lines the runtime's trace writes too; docs/trace.md), so that Perfetto's UI and
 * trace_processor (their systrace importer), trace-cmd-style scripts and plain grep read the
 * simulated machine like a real one.
 *
 * A task's pid is its task id + 1 (0 is the idle task), its comm its class's name (spaces
 * made '_', cut to TASK_COMM_LEN - 1 = 15 characters) or kworker/CPU:1, its prio
 * 120 + nice. The lines are kept in memory until the run ends, since the header counts
 * them; cfg->trace_max_bytes bounds them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "toposched/ftrace_text.h"

#define TRACE_FIRST_SIZE (1u << 20)

struct sim_trace {
	char *buf;
	size_t len, cap;
	uint64_t entries;
	uint64_t max_bytes; /* 0: no bound */
};

int sim_trace_open(struct sim *m, struct ts_error *err)
{
	struct sim_trace *tr = calloc(1, sizeof(*tr));
	if (!tr)
		return ts_error_set(err, -ENOMEM, "sim: out of memory for the trace");
	tr->max_bytes = m->cfg->trace_max_bytes;
	m->trace = tr;
	return 0;
}

void sim_trace_free(struct sim *m)
{
	if (!m->trace)
		return;
	free(m->trace->buf);
	free(m->trace);
	m->trace = NULL;
}

static bool reserve(struct sim *m, size_t n)
{
	struct sim_trace *tr = m->trace;
	if (tr->max_bytes && tr->len + n > tr->max_bytes) {
		sim_fail(m, -EFBIG,
			 "sim: the trace passed its bound of %" PRIu64 " MiB after %" PRIu64
			 " events, at %.6f s of virtual time (--trace-max-mb raises it; a shorter "
			 "--duration or --warmup, or a smaller load, makes the trace smaller)",
			 tr->max_bytes >> 20, tr->entries, (double)m->now / 1e9);
		return false;
	}
	if (tr->len + n <= tr->cap)
		return true;
	size_t cap = tr->cap ? tr->cap : TRACE_FIRST_SIZE;
	while (cap < tr->len + n)
		cap *= 2;
	if (tr->max_bytes && cap > tr->max_bytes) /* never more than the bound */
		cap = (size_t)tr->max_bytes;
	char *buf = realloc(tr->buf, cap);
	if (!buf) {
		sim_fail(m, -ENOMEM, "sim: out of memory for the trace (%zu bytes)", cap);
		return false;
	}
	tr->buf = buf;
	tr->cap = cap;
	return true;
}

/* t (NULL: cpu's idle task) as the event arguments name it. */
static void who_of(const struct sim_task *t, int cpu, struct ts_ftrace_task *w)
{
	if (!t) {
		ts_ftrace_idle(w, cpu);
		return;
	}
	if (t->role == SIM_ROLE_KWORKER) {
		snprintf(w->comm, sizeof(w->comm), "kworker/%d:1", t->t.cpu);
		w->pid = t->t.id + 1;
		w->prio = TS_FTRACE_NICE_0 + t->t.nice;
		return;
	}
	ts_ftrace_task_set(w, t->cls && t->cls->name ? t->cls->name : "task", t->t.id + 1,
			   TS_FTRACE_NICE_0 + t->t.nice);
}

/* Where an event on cpu fires: its current task, now. */
static struct ts_ftrace_at at_of(const struct sim *m, int cpu, const char *flags,
				 struct ts_ftrace_task *cur)
{
	const struct sim_task *curr = m->cpu[cpu].curr;
	who_of(curr, cpu, cur);
	return (struct ts_ftrace_at){
		.curr = curr ? cur : NULL, .cpu = cpu, .ns = m->now, .flags = flags};
}

/* Appends one line of n bytes. */
static void emit(struct sim *m, const char *line, size_t n)
{
	if (m->error || !reserve(m, n))
		return;
	memcpy(m->trace->buf + m->trace->len, line, n);
	m->trace->len += n;
	m->trace->entries++;
}

/* __trace_sched_switch_state(): a task switched out while runnable was preempted ("R+");
 * one that blocked sleeps interruptibly, in a socket, pipe or futex wait ("S"); one that
 * exited is a zombie until its parent reaps it ("Z": exit_state EXIT_ZOMBIE). */
static const char *prev_state(const struct sim_task *prev)
{
	if (!prev)
		return "R";
	switch (prev->t.state) {
	case TS_TASK_RUNNABLE:
		return "R+";
	case TS_TASK_DEAD:
		return "Z";
	default:
		return "S";
	}
}

void sim_trace_switch(struct sim *m, int cpu, const struct sim_task *prev,
		      const struct sim_task *next)
{
	char line[TS_FTRACE_LINE_MAX];
	struct ts_ftrace_task cur, p, n;
	struct ts_ftrace_at at = at_of(m, cpu, TS_FTRACE_FLAGS_SWITCH, &cur);
	who_of(prev, cpu, &p);
	who_of(next, cpu, &n);
	emit(m, line, ts_ftrace_switch(line, &at, &p, prev_state(prev), &n));
}

void sim_trace_waking(struct sim *m, int cpu, const struct sim_task *t, bool from_timer)
{
	char line[TS_FTRACE_LINE_MAX];
	struct ts_ftrace_task cur, w;
	struct ts_ftrace_at at = at_of(
		m, cpu, from_timer ? TS_FTRACE_FLAGS_WAKING_TIMER : TS_FTRACE_FLAGS_WAKING, &cur);
	who_of(t, cpu, &w);
	emit(m, line, ts_ftrace_waking(line, &at, &w, t->t.cpu));
}

void sim_trace_wakeup(struct sim *m, int cpu, const struct sim_task *t,
		      const struct ts_placement *pl, bool from_timer, bool new_task)
{
	char line[TS_FTRACE_LINE_MAX];
	struct ts_ftrace_task cur, w;
	/* a wake-up sent to the target's wake list is activated there */
	struct ts_ftrace_at at =
		at_of(m, pl->ttwu_queued ? pl->cpu : cpu,
		      from_timer ? TS_FTRACE_FLAGS_WAKEUP_TIMER : TS_FTRACE_FLAGS_WAKEUP, &cur);
	who_of(t, cpu, &w);
	emit(m, line,
	     ts_ftrace_wakeup(line, &at, &w, new_task, pl->cpu, ts_place_reason_name(pl->reason),
			      pl->nr_scanned));
}

void sim_trace_migrate(void *host, const struct ts_task *p, int dest_cpu)
{
	struct sim *m = host;
	const struct sim_task *t = sim_task_of((struct ts_task *)p);
	char line[TS_FTRACE_LINE_MAX];
	struct ts_ftrace_task cur, w;
	struct ts_ftrace_at at =
		at_of(m, m->cur_cpu >= 0 ? m->cur_cpu : p->cpu, TS_FTRACE_FLAGS_MIGRATE, &cur);
	who_of(t, p->cpu, &w);
	emit(m, line, ts_ftrace_migrate(line, &at, &w, p->cpu, dest_cpu));
}

void sim_trace_fork(struct sim *m, int cpu, const struct sim_task *parent,
		    const struct sim_task *child)
{
	char line[TS_FTRACE_LINE_MAX];
	struct ts_ftrace_task cur, p, c;
	struct ts_ftrace_at at = at_of(m, cpu, TS_FTRACE_FLAGS_PROCESS, &cur);
	who_of(parent, cpu, &p);
	who_of(child, cpu, &c);
	emit(m, line, ts_ftrace_fork(line, &at, &p, &c));
}

void sim_trace_exit(struct sim *m, int cpu, const struct sim_task *t)
{
	char line[TS_FTRACE_LINE_MAX];
	struct ts_ftrace_task cur, w;
	struct ts_ftrace_at at = at_of(m, cpu, TS_FTRACE_FLAGS_PROCESS, &cur);
	who_of(t, cpu, &w);
	emit(m, line, ts_ftrace_exit(line, &at, &w));
}

/* The header, then the lines. */
void sim_trace_write(struct sim *m)
{
	const struct sim_trace *tr = m->trace;
	FILE *out = m->cfg->trace;
	if (!tr || !out)
		return;
	ts_ftrace_header(out, tr->entries, tr->entries, m->nr_cpus);
	if (tr->len)
		fwrite(tr->buf, 1, tr->len, out);
}
