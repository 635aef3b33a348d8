/* The runtime's scheduling trace (ts_rt_config.trace, TOPOSCHED_TRACE): the events of
 * `toposched sim --trace` — sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
 * sched_migrate_task, sched_process_fork and sched_process_exit with the core's placement
 * reason — in the same ftrace text lines (toposched/ftrace_text.h, docs/trace.md).
 *
 * Each worker records the events its thread sees into a buffer of its own (no lock: only
 * that thread writes it), as binary records stamped with the runtime's clock, from
 * ts_rt_start(); ts_rt_stop() merges the buffers by time and writes the file. A worker's
 * buffer holds at most its share of the bound (trace_max_mb); past it the worker drops
 * what comes, and the header's entries-written counts the dropped events too, as the
 * kernel's does for an overwritten ring buffer.
 *
 * What a line says: the CPU is the worker's scheduler CPU; the context (TASK-PID) is the
 * task that worker last switched to, or <idle>-0 once it went idle (parked or polling);
 * a task's pid is the slot of its handle (ts_task_handle.id & 0xffffffff; slots are
 * reused as the kernel reuses pids), its comm its name, its prio 120 + nice. A
 * sched_switch is written when a worker runs a task other than the one it ran last (the
 * loop's own time between them is the previous task's), or goes idle. Events from a plain
 * thread (a spawn near a node placed from main(), a wake-up handed to a worker's inbox is
 * traced by the worker that runs it) are not recorded. The hooks in the hot paths are one
 * predictable branch each while tracing is off (rt_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"
#include "toposched/ftrace_text.h"
#include "toposched/stats.h"

#define TRACE_DEFAULT_MAX_MB 256
#define TRACE_FIRST_RECORDS  4096

enum rec_kind {
	REC_SWITCH,
	REC_WAKING,
	REC_WAKEUP,
	REC_WAKEUP_NEW,
	REC_MIGRATE,
	REC_FORK,
	REC_EXIT
};

/* One event, formatted when the file is written. */
struct rec {
	uint64_t ns;
	uint8_t kind;	  /* enum rec_kind */
	bool ctx_idle;	  /* the line's context is the idle task */
	char state[3];	  /* REC_SWITCH: prev_state */
	int cpu_a, cpu_b; /* target_cpu; migrate: orig_cpu, dest_cpu */
	int reason, nr_scanned;
	struct ts_ftrace_task ctx, a, b; /* the context; the task(s) of the event */
};

/* A worker's buffer and what its trace says runs there: a line of its own (only its
 * worker writes it). */
struct trace_cpu {
	struct rec *v;
	size_t n, cap, max;
	uint64_t dropped;
	struct ts_ftrace_task cur; /* the task last switched to */
	bool idle;
	const char *left; /* how cur left its worker's loop: its prev_state */
};

/* Read at every scheduling event on every worker: on a line no one writes while running. */
_Alignas(64) bool rt_trace_on;
static FILE *trace_out;
static struct trace_cpu **trace_cpus; /* [topo->nr_cpus]; NULL where no worker */

static void task_of(const struct rt_task *t, struct ts_ftrace_task *w)
{
	ts_ftrace_task_set(w, t->name, (int)(t->id & 0xffffffffu), TS_FTRACE_NICE_0 + t->ts.nice);
}

/* A new record on this thread's worker (NULL: not a worker, or its buffer is full). */
static struct rec *rec_new(enum rec_kind kind)
{
	struct rt_worker *w = rt_this_worker();
	struct trace_cpu *c = w ? trace_cpus[w->cpu] : NULL;
	if (!c)
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : TRACE_FIRST_RECORDS;
		if (cap > c->max)
			cap = c->max;
		struct rec *v = cap > c->cap ? realloc(c->v, cap * sizeof(*v)) : NULL;
		if (!v) {
			c->dropped++;
			return NULL;
		}
		c->v = v;
		c->cap = cap;
	}
	struct rec *r = &c->v[c->n++];
	r->ns = rt_clock_ns() - rt_g.t0;
	r->kind = (uint8_t)kind;
	r->ctx_idle = c->idle;
	r->ctx = c->cur;
	return r;
}

void rt_trace_do_switch(struct rt_worker *w, const struct rt_task *prev, const struct rt_task *next)
{
	struct trace_cpu *c = trace_cpus[w->cpu];
	struct ts_ftrace_task n;
	task_of(next, &n);
	if (!c->idle && c->cur.pid == n.pid)
		return; /* the same task goes on: no switch */
	/* a direct switch: prev yielded (still runnable) or blocked */
	const char *state =
		c->idle ? "R"
		: prev	? (atomic_load_explicit(&prev->wstate, memory_order_relaxed) == RT_RUNNING
				   ? "R+"
				   : "S")
			: c->left;
	struct rec *r = rec_new(REC_SWITCH);
	if (r) {
		if (c->idle)
			ts_ftrace_idle(&r->a, w->cpu);
		else
			r->a = c->cur;
		snprintf(r->state, sizeof(r->state), "%s", state);
		r->b = n;
	}
	c->cur = n;
	c->idle = false;
}

void rt_trace_do_left(struct rt_worker *w, const struct rt_task *prev, int reason)
{
	struct trace_cpu *c = trace_cpus[w->cpu];
	c->left = reason == RT_SW_EXIT				     ? "Z"
		  : reason == RT_SW_YIELD || reason == RT_SW_PREEMPT ? "R+"
								     : "S";
	if (reason != RT_SW_EXIT)
		return;
	struct rec *r = rec_new(REC_EXIT);
	if (r)
		task_of(prev, &r->a);
}

void rt_trace_do_idle(struct rt_worker *w)
{
	struct trace_cpu *c = trace_cpus[w->cpu];
	if (c->idle)
		return;
	struct rec *r = rec_new(REC_SWITCH);
	if (r) {
		r->a = c->cur;
		snprintf(r->state, sizeof(r->state), "%s", c->left ? c->left : "S");
		ts_ftrace_idle(&r->b, w->cpu);
	}
	c->idle = true;
}

void rt_trace_do_waking(const struct rt_task *t)
{
	struct rec *r = rec_new(REC_WAKING);
	if (!r)
		return;
	task_of(t, &r->a);
	r->cpu_a = t->ts.cpu;
}

void rt_trace_do_wakeup(const struct rt_task *t, const struct rt_task *parent,
			const struct ts_placement *pl, bool new_task)
{
	struct rec *r;
	if (parent && (r = rec_new(REC_FORK))) {
		task_of(parent, &r->a);
		task_of(t, &r->b);
	}
	if (!(r = rec_new(new_task ? REC_WAKEUP_NEW : REC_WAKEUP)))
		return;
	task_of(t, &r->a);
	r->cpu_a = pl->cpu;
	r->reason = (int)pl->reason;
	r->nr_scanned = pl->nr_scanned;
}

void rt_trace_migrate(void *host, const struct ts_task *p, int dest_cpu)
{
	(void)host;
	struct rec *r;
	if (!rt_trace_on || !(r = rec_new(REC_MIGRATE)))
		return;
	task_of(rt_task_of((struct ts_task *)p), &r->a);
	r->cpu_a = p->cpu;
	r->cpu_b = dest_cpu;
}

static size_t format(char *line, const struct rec *r, int cpu)
{
	static const char *const flags[] = {
		[REC_SWITCH] = TS_FTRACE_FLAGS_SWITCH,	 [REC_WAKING] = TS_FTRACE_FLAGS_WAKING,
		[REC_WAKEUP] = TS_FTRACE_FLAGS_WAKEUP,	 [REC_WAKEUP_NEW] = TS_FTRACE_FLAGS_WAKEUP,
		[REC_MIGRATE] = TS_FTRACE_FLAGS_MIGRATE, [REC_FORK] = TS_FTRACE_FLAGS_PROCESS,
		[REC_EXIT] = TS_FTRACE_FLAGS_PROCESS,
	};
	struct ts_ftrace_at at = {.curr = r->ctx_idle ? NULL : &r->ctx,
				  .cpu = cpu,
				  .ns = r->ns,
				  .flags = flags[r->kind]};
	switch (r->kind) {
	case REC_SWITCH:
		return ts_ftrace_switch(line, &at, &r->a, r->state, &r->b);
	case REC_WAKING:
		return ts_ftrace_waking(line, &at, &r->a, r->cpu_a);
	case REC_WAKEUP:
	case REC_WAKEUP_NEW:
		return ts_ftrace_wakeup(line, &at, &r->a, r->kind == REC_WAKEUP_NEW, r->cpu_a,
					ts_place_reason_name((enum ts_place_reason)r->reason),
					r->nr_scanned);
	case REC_MIGRATE:
		return ts_ftrace_migrate(line, &at, &r->a, r->cpu_a, r->cpu_b);
	case REC_FORK:
		return ts_ftrace_fork(line, &at, &r->a, &r->b);
	default:
		return ts_ftrace_exit(line, &at, &r->a);
	}
}

static void trace_free(void)
{
	for (int i = 0; trace_cpus && i < rt_g.topo->nr_cpus; i++)
		if (trace_cpus[i]) {
			free(trace_cpus[i]->v);
			free(trace_cpus[i]);
		}
	free(trace_cpus);
	trace_cpus = NULL;
	if (trace_out)
		fclose(trace_out);
	trace_out = NULL;
	rt_trace_on = false;
}

int rt_trace_start(const struct ts_rt_config *cfg)
{
	const char *path = cfg->trace ? cfg->trace : getenv("TOPOSCHED_TRACE");
	if (!path || !*path)
		return 0;
	unsigned long mb = cfg->trace_max_mb;
	const char *env_mb = getenv("TOPOSCHED_TRACE_MAX_MB");
	if (!mb && env_mb) {
		char *end;
		mb = strtoul(env_mb, &end, 10);
		if (*end || !mb || mb > (1ul << 20))
			return rt_error(-EINVAL,
					"ts_rt_start: TOPOSCHED_TRACE_MAX_MB '%s': a size in MiB, "
					"1 to %lu",
					env_mb, 1ul << 20);
	}
	if (!mb)
		mb = TRACE_DEFAULT_MAX_MB;
	trace_out = fopen(path, "w");
	if (!trace_out)
		return rt_error(-errno, "ts_rt_start: trace file '%s': %s", path, strerror(errno));
	trace_cpus = calloc((size_t)rt_g.topo->nr_cpus, sizeof(*trace_cpus));
	if (!trace_cpus)
		goto oom;
	size_t max = ((size_t)mb << 20) / (size_t)rt_g.nr_workers / sizeof(struct rec);
	for (int i = 0; i < rt_g.nr_workers; i++) {
		struct trace_cpu *c = aligned_alloc(64, (sizeof(*c) + 63) & ~(size_t)63);
		if (!c)
			goto oom;
		memset(c, 0, sizeof(*c));
		c->max = max > 1 ? max : 1;
		c->idle = true;
		trace_cpus[rt_g.worker_cpus[i]] = c;
	}
	rt_trace_on = true;
	return 0;
oom:
	trace_free();
	return rt_error(-ENOMEM, "ts_rt_start: out of memory for the trace");
}

/* The buffers merged by time (a worker's own are in order), after the workers stopped. */
int rt_trace_stop(void)
{
	if (!rt_trace_on) {
		trace_free();
		return 0;
	}
	int nr = rt_g.topo->nr_cpus;
	uint64_t kept = 0, written = 0;
	size_t *at = calloc((size_t)nr, sizeof(*at));
	for (int i = 0; i < nr; i++)
		if (trace_cpus[i]) {
			kept += trace_cpus[i]->n;
			written += trace_cpus[i]->n + trace_cpus[i]->dropped;
		}
	int rc = at ? 0 : -ENOMEM;
	if (at) {
		ts_ftrace_header(trace_out, kept, written, nr);
		char line[TS_FTRACE_LINE_MAX];
		for (;;) {
			int best = -1;
			for (int i = 0; i < nr; i++) {
				struct trace_cpu *c = trace_cpus[i];
				if (c && at[i] < c->n &&
				    (best < 0 || c->v[at[i]].ns < trace_cpus[best]->v[at[best]].ns))
					best = i;
			}
			if (best < 0)
				break;
			const struct rec *r = &trace_cpus[best]->v[at[best]++];
			fwrite(line, 1, format(line, r, best), trace_out);
		}
		if (ferror(trace_out))
			rc = -EIO;
	}
	free(at);
	if (fclose(trace_out) && !rc)
		rc = -EIO;
	trace_out = NULL;
	trace_free();
	if (rc)
		return rt_error(rc, "ts_rt_stop: the trace could not be written (%s)",
				strerror(-rc));
	return 0;
}

void rt_trace_abandon(void)
{
	trace_free();
}
