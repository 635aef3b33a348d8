/* rt-app files -> simulator workloads (toposched/sim_rtapp.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toposched/sim_rtapp.h"

/* mem: rt-app's memload() memsets its per-thread buffer (global.mem_buffer_size, 4 MiB by
 * default, larger than a core's L2) `count` bytes. Estimate: 100 ns per KiB, about 10 GB/s,
 * a single core's streaming store rate into the LLC or DRAM (memset's non-temporal or
 * rep-stos stores run at 10-20 GB/s per core on the server parts of the presets; the
 * lower end, since the buffer is rewritten from the start each time and part of it is
 * evicted). */
#define RTAPP_MEM_NS_PER_KIB 100.0
/* iorun: rt-app's ioload() write()s the buffer to global.io_device in pieces of at most
 * mem_buffer_size bytes. On /dev/null (its default) a write copies nothing
 * (drivers/char/mem.c, write_null() returns the count), so each piece costs one system
 * call: 0.2 us, the entry/exit cost the built-ins use (docs/workloads.md, "Shared
 * per-operation costs": 0.1-0.2 us with current mitigations). */
#define RTAPP_SYSCALL_NS 200
#define RTAPP_DEV_NULL	 "/dev/null"
/* The cache footprint of an rt-app thread: its busy loop (waste_cpu_cycles()) touches a
 * few lines of stack and code; with the kernel's per-task state the 16 KiB the built-ins
 * give a syscall-loop task (docs/workloads.md). The mem buffer is charged by mem itself. */
#define RTAPP_FOOTPRINT_KIB 16
/* The virtual time a file whose threads all end may take (the autonuma workloads' cap):
 * a run that reaches it reports its time as a lower bound. */
#define RTAPP_FINITE_CAP_NS (UINT64_C(60) * 1000000000)

struct pool {
	void **p;
	int n, cap;
};

static void *pool_alloc(struct pool *pl, size_t size)
{
	if (pl->n == pl->cap) {
		int cap = pl->cap ? 2 * pl->cap : 16;
		void **v = realloc(pl->p, (size_t)cap * sizeof(*v));
		if (!v)
			return NULL;
		pl->p = v;
		pl->cap = cap;
	}
	void *m = calloc(1, size ? size : 1);
	if (m)
		pl->p[pl->n++] = m;
	return m;
}

static char *pool_printf(struct pool *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *pool_printf(struct pool *pl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = n >= 0 ? pool_alloc(pl, (size_t)n + 1) : NULL;
	if (s) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return s;
}

/* rt-app's resources that the synchronisation events name: a name is a mutex, a
 * condition and a barrier at once (get_resource_index() looks a name up with its type). */
enum sync_kind { SYNC_MUTEX, SYNC_COND, SYNC_BARRIER };
#define RTAPP_MAX_SYNCS 4096

/* rt-app's FORKS_LIMIT (src/rt-app.c): a thread that forks more often exits with an error. */
#define RTAPP_FORKS_LIMIT 1024

/* The fork events of one task naming one other: how often a thread of `parent` forks
 * `child` (its fork events x their phases' loops x the task's loop), and the first such
 * event's line. */
struct fork_pair {
	int parent, child;
	int64_t per_thread;
	int line;
	const char *key;
};

struct build {
	const struct ts_rtapp *r;
	struct ts_sim_rtapp *x;
	struct pool *pl;
	struct ts_error *err;
	int cap_notes;
	uint64_t program_total; /* phases of every class so far */
	/* per task of the file: its threads forked per copy, and its classes (-1: none) */
	int64_t *forked;
	int *launch_class, *fork_class;
	/* the instance's synchronisation objects, in order of first use */
	const char **sync_name;
	enum sync_kind *sync_kind;
	int nr_sync;
};

static int refuse(struct build *b, const struct ts_rtapp_task *t, int line, const char *key,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int refuse(struct build *b, const struct ts_rtapp_task *t, int line, const char *key,
		  const char *fmt, ...)
{
	char msg[TS_ERR_MSG_MAX], at[24] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(at, sizeof(at), ":%d", line);
	return ts_error_set(b->err, -EINVAL, "%s%s: task '%s': '%s': %s", b->r->file, at, t->name,
			    key, msg);
}

static int oom(struct build *b)
{
	return ts_error_set(b->err, -ENOMEM, "%s: out of memory", b->r->file);
}

static int note(struct build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct build *b, const char *fmt, ...)
{
	char msg[TS_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct ts_sim_rtapp *x = b->x;
	for (int i = 0; i < x->nr_notes; i++) /* once per kind of approximation */
		if (strcmp(x->notes[i], msg) == 0)
			return 0;
	if (x->nr_notes == b->cap_notes) {
		int cap = b->cap_notes ? 2 * b->cap_notes : 4;
		char **v = pool_alloc(b->pl, (size_t)cap * sizeof(*v));
		if (!v)
			return oom(b);
		if (x->nr_notes)
			memcpy(v, x->notes, (size_t)x->nr_notes * sizeof(*v));
		x->notes = v;
		b->cap_notes = cap;
	}
	if (!(x->notes[x->nr_notes] = pool_printf(b->pl, "%s", msg)))
		return oom(b);
	x->nr_notes++;
	return 0;
}

static int task_index(const struct ts_rtapp *r, const char *name)
{
	for (int i = 0; i < r->nr_tasks; i++)
		if (strcmp(r->tasks[i].name, name) == 0)
			return i;
	return -1;
}

/* The timer slot of ref within task t (slots in order of first use). */
static int timer_slot(struct build *b, const struct ts_rtapp_task *t,
		      const struct ts_rtapp_event *ev, const char **names, int *nr)
{
	for (int i = 0; i < *nr; i++)
		if (strcmp(names[i], ev->ref) == 0)
			return i;
	if (*nr == TS_SIM_TASK_TIMERS)
		return refuse(b, t, ev->line, ev->key,
			      "more than %d timers in one task: the simulator keeps %d per thread",
			      TS_SIM_TASK_TIMERS, TS_SIM_TASK_TIMERS);
	if (!ev->unique) {
		int users = ts_rtapp_shared_timer_users(b->r, ev->ref);
		if (users > 1)
			return refuse(b, t, ev->line, ev->key,
				      "timer '%s' is shared by %d threads, whose uses all advance "
				      "it; the simulator keeps one timer per thread: name it "
				      "\"unique...\" to give each thread its own",
				      ev->ref, users);
	}
	names[*nr] = ev->ref;
	return (*nr)++;
}

int ts_sim_rtapp_event_phases(const struct ts_rtapp_event *ev)
{
	switch (ev->kind) {
	case TS_RTAPP_WAIT:  /* COND_WAIT, LOCK */
	case TS_RTAPP_YIELD: /* the system call, YIELD */
		return 2;
	case TS_RTAPP_SYNC:   /* COND_SIGNAL, COND_WAIT, LOCK */
	case TS_RTAPP_RESUME: /* LOCK, COND_BROADCAST, UNLOCK */
		return 3;
	case TS_RTAPP_SUSPEND: /* LOCK, COND_WAIT, LOCK, UNLOCK */
		return 4;
	default:
		return 1;
	}
}

/* The index of resource (kind, name) among the instance's objects, added on first use. */
static int sync_index(struct build *b, const struct ts_rtapp_task *t,
		      const struct ts_rtapp_event *ev, enum sync_kind kind, const char *name)
{
	for (int i = 0; i < b->nr_sync; i++)
		if (b->sync_kind[i] == kind && strcmp(b->sync_name[i], name) == 0)
			return i;
	if (b->nr_sync == RTAPP_MAX_SYNCS)
		return refuse(b, t, ev->line, ev->key,
			      "more than %d mutexes, conditions and barriers in the file",
			      RTAPP_MAX_SYNCS);
	if (!b->sync_name) {
		b->sync_name = pool_alloc(b->pl, RTAPP_MAX_SYNCS * sizeof(*b->sync_name));
		b->sync_kind = pool_alloc(b->pl, RTAPP_MAX_SYNCS * sizeof(*b->sync_kind));
		if (!b->sync_name || !b->sync_kind)
			return oom(b);
	}
	b->sync_name[b->nr_sync] = name;
	b->sync_kind[b->nr_sync] = kind;
	return b->nr_sync++;
}

/* The synchronisation events as run_event() runs them: pthread calls on the resources
 * named (out: ts_sim_rtapp_event_phases(ev) phases). */
static int translate_sync(struct build *b, const struct ts_rtapp_task *t,
			  const struct ts_rtapp_event *ev, struct ts_phase *out)
{
	int cond = -1, mutex = -1, n = 0;
	switch (ev->kind) {
	case TS_RTAPP_LOCK:
	case TS_RTAPP_UNLOCK:
		if ((mutex = sync_index(b, t, ev, SYNC_MUTEX, ev->ref)) < 0)
			return mutex;
		out[n++] = (struct ts_phase){.kind = ev->kind == TS_RTAPP_LOCK ? TS_PH_LOCK
									       : TS_PH_UNLOCK,
					     .obj = mutex};
		return n;
	case TS_RTAPP_WAIT:
	case TS_RTAPP_SYNC:
	case TS_RTAPP_SUSPEND:
		/* suspend: the condition and the mutex both named ref */
		if ((cond = sync_index(b, t, ev, SYNC_COND, ev->ref)) < 0 ||
		    (mutex = sync_index(b, t, ev, SYNC_MUTEX,
					ev->kind == TS_RTAPP_SUSPEND ? ev->ref : ev->mutex)) < 0)
			return cond < 0 ? cond : mutex;
		if (ev->kind == TS_RTAPP_SYNC)
			out[n++] = (struct ts_phase){.kind = TS_PH_COND_SIGNAL, .obj = cond};
		if (ev->kind == TS_RTAPP_SUSPEND)
			out[n++] = (struct ts_phase){.kind = TS_PH_LOCK, .obj = mutex};
		out[n++] = (struct ts_phase){.kind = TS_PH_COND_WAIT, .obj = cond, .mutex = mutex};
		out[n++] = (struct ts_phase){.kind = TS_PH_LOCK, .obj = mutex};
		if (ev->kind == TS_RTAPP_SUSPEND)
			out[n++] = (struct ts_phase){.kind = TS_PH_UNLOCK, .obj = mutex};
		return n;
	case TS_RTAPP_SIGNAL:
	case TS_RTAPP_BROADCAST:
		if ((cond = sync_index(b, t, ev, SYNC_COND, ev->ref)) < 0)
			return cond;
		out[n++] = (struct ts_phase){.kind = ev->kind == TS_RTAPP_SIGNAL
							     ? TS_PH_COND_SIGNAL
							     : TS_PH_COND_BROADCAST,
					     .obj = cond};
		return n;
	case TS_RTAPP_RESUME:
		if ((cond = sync_index(b, t, ev, SYNC_COND, ev->ref)) < 0 ||
		    (mutex = sync_index(b, t, ev, SYNC_MUTEX, ev->ref)) < 0)
			return cond < 0 ? cond : mutex;
		out[n++] = (struct ts_phase){.kind = TS_PH_LOCK, .obj = mutex};
		out[n++] = (struct ts_phase){.kind = TS_PH_COND_BROADCAST, .obj = cond};
		out[n++] = (struct ts_phase){.kind = TS_PH_UNLOCK, .obj = mutex};
		return n;
	case TS_RTAPP_BARRIER: {
		int bar = sync_index(b, t, ev, SYNC_BARRIER, ev->ref);
		if (bar < 0)
			return bar;
		out[n++] = (struct ts_phase){.kind = TS_PH_BARRIER_WAIT,
					     .obj = bar,
					     .parties = ts_rtapp_barrier_users(b->r, ev->ref)};
		return n;
	}
	case TS_RTAPP_YIELD: /* sched_yield(): a system call, then the yield */
		out[n++] = (struct ts_phase){.kind = TS_PH_RUN, .ns = RTAPP_SYSCALL_NS};
		out[n++] = (struct ts_phase){.kind = TS_PH_YIELD};
		return n;
	default:
		return 0;
	}
}

/* One event as phases (0 to ts_sim_rtapp_event_phases(ev) written to out), or a refusal. */
static int translate_event(struct build *b, const struct ts_rtapp_task *t,
			   const struct ts_rtapp_event *ev, struct ts_phase *out,
			   const char **timers, int *nr_timers)
{
	const struct ts_rtapp_global *g = &b->r->global;
	memset(out, 0, sizeof(*out));
	switch (ev->kind) {
	case TS_RTAPP_RUN: {
		/* rt-app runs floor(t * 1000 / ns_per_loop) loops of ns_per_loop ns */
		uint64_t ns = (uint64_t)ev->usec * 1000;
		if (g->calibration == TS_RTAPP_CALIB_NS_PER_LOOP)
			ns -= ns % (uint64_t)g->calibration_value;
		*out = (struct ts_phase){.kind = TS_PH_RUN, .ns = ns};
		return 1;
	}
	case TS_RTAPP_RUNTIME:
		if (note(b, "runtime is run as CPU work at the machine's nominal speed; rt-app's "
			    "runtime ends after that much wall-clock time, preemption included"))
			return b->err->code;
		*out = (struct ts_phase){.kind = TS_PH_RUN, .ns = (uint64_t)ev->usec * 1000};
		return 1;
	case TS_RTAPP_SLEEP:
		*out = (struct ts_phase){.kind = TS_PH_SLEEP, .ns = (uint64_t)ev->usec * 1000};
		return 1;
	case TS_RTAPP_TIMER: {
		int slot = timer_slot(b, t, ev, timers, nr_timers);
		if (slot < 0)
			return slot;
		*out = (struct ts_phase){.kind = TS_PH_TIMER,
					 .ns = (uint64_t)ev->usec * 1000,
					 .timer = slot,
					 .timer_absolute = ev->absolute};
		return 1;
	}
	case TS_RTAPP_MEM:
		*out = (struct ts_phase){
			.kind = TS_PH_RUN,
			.ns = (uint64_t)((double)ev->bytes / 1024.0 * RTAPP_MEM_NS_PER_KIB + 0.5)};
		return 1;
	case TS_RTAPP_IORUN: {
		if (strcmp(g->io_device, RTAPP_DEV_NULL) != 0)
			return refuse(b, t, ev->line, ev->key,
				      "writes to io_device '%s': the simulator models %s only",
				      g->io_device, RTAPP_DEV_NULL);
		uint64_t writes = ((uint64_t)ev->bytes + (uint64_t)g->mem_buffer_size - 1) /
				  (uint64_t)g->mem_buffer_size;
		*out = (struct ts_phase){.kind = TS_PH_RUN, .ns = writes * RTAPP_SYSCALL_NS};
		return 1;
	}
	case TS_RTAPP_FORK: {
		int child = task_index(b->r, ev->ref);
		if (child < 0 || b->fork_class[child] < 0) /* the reader checked the name */
			return refuse(b, t, ev->line, ev->key, "forks '%s', which has no thread",
				      ev->ref);
		*out = (struct ts_phase){.kind = TS_PH_FORK, .obj = b->fork_class[child]};
		return 1;
	}
	default:
		return translate_sync(b, t, ev, out);
	}
}

static bool same_cpus(const int *a, int na, const int *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* What a phase may set: nothing that changes the thread's attributes mid-run. */
static int check_phase(struct build *b, const struct ts_rtapp_task *t,
		       const struct ts_rtapp_phase *ph)
{
	if (ph->cpus && !same_cpus(ph->cpus, ph->nr_cpus, t->cpus, t->nr_cpus))
		return refuse(b, t, ph->cpus_line, "cpus",
			      "phase '%s' changes the thread's CPUs: the simulator keeps one "
			      "affinity per thread",
			      ph->name ? ph->name : "?");
	const struct ts_rtapp_sched *s = &ph->sched;
	if ((s->policy != TS_RTAPP_POLICY_SAME && s->policy != t->sched.policy) ||
	    (s->has_priority && s->priority != (t->sched.has_priority ? t->sched.priority : 0)))
		return refuse(b, t, s->line,
			      s->policy != TS_RTAPP_POLICY_SAME ? "policy" : "priority",
			      "phase '%s' changes the thread's policy or priority: the simulator "
			      "keeps them for the whole run",
			      ph->name ? ph->name : "?");
	if (ph->taskgroup && !(t->taskgroup && strcmp(ph->taskgroup, t->taskgroup) == 0))
		return refuse(b, t, ph->taskgroup_line, "taskgroup",
			      "phase '%s' moves the thread to another group: the simulator keeps "
			      "one group per thread",
			      ph->name ? ph->name : "?");
	return 0;
}

static bool spec_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

/* Does the phase use CPU time or sleep for sure? (A lock sleeps only when contended.) */
static bool phase_takes_time(const struct ts_phase *ph)
{
	switch (ph->kind) {
	case TS_PH_RUN:
	case TS_PH_SLEEP:
		return ph->ns > 0 || ph->kind == TS_PH_SLEEP;
	case TS_PH_TIMER:
	case TS_PH_COND_WAIT:
	case TS_PH_FORK: /* the fork's cost */
		return true;
	case TS_PH_BARRIER_WAIT:
		return ph->parties > 1;
	default:
		return false;
	}
}

/* The class of task t: its "instance" threads, or (forked) the threads its fork events
 * create. */
static int translate_task(struct build *b, const struct ts_rtapp_task *t, bool forked,
			  struct ts_task_class *c)
{
	const struct ts_rtapp_sched *s = &t->sched;
	if (s->policy != TS_RTAPP_POLICY_OTHER)
		return refuse(b, t, s->line ? s->line : t->line, "policy",
			      "%s%s: the simulator runs SCHED_OTHER threads only (its core models "
			      "the fair class)",
			      ts_rtapp_policy_name(s->policy),
			      s->line ? "" : " (global default_policy)");
	int rc;
	for (int p = 0; p < t->nr_phases; p++)
		if ((rc = check_phase(b, t, &t->phases[p])))
			return rc;
	/* program length: each phase's events, `loop` times */
	uint64_t len = 0, first_len = 0;
	for (int p = 0; p < t->nr_phases; p++) {
		uint64_t per_loop = 0;
		for (int e = 0; e < t->phases[p].nr_events; e++)
			per_loop += (uint64_t)ts_sim_rtapp_event_phases(&t->phases[p].events[e]);
		len += per_loop * (uint64_t)t->phases[p].loop;
		if (p == 0)
			first_len = per_loop;
	}
	/* one phase: its loop multiplies the iterations instead of the program */
	bool fold = t->nr_phases == 1;
	if (fold)
		len = first_len;
	b->program_total += len;
	if (len > TS_SIM_RTAPP_MAX_PROGRAM || b->program_total > TS_SIM_RTAPP_MAX_PROGRAM)
		return refuse(b, t, t->line, "loop",
			      "the phases with their loops make %llu steps per iteration (%llu "
			      "in the file so far), more than the simulator's %d",
			      (unsigned long long)len, (unsigned long long)b->program_total,
			      TS_SIM_RTAPP_MAX_PROGRAM);
	struct ts_phase *prog = pool_alloc(b->pl, (size_t)len * sizeof(*prog));
	struct ts_phase *pro = pool_alloc(b->pl, 2 * sizeof(*pro));
	/* the description is freed once the workload is built: keep copies */
	char *name = forked && t->instances > 0 ? pool_printf(b->pl, "%s-forked", t->name)
						: pool_printf(b->pl, "%s", t->name);
	int *cpus = t->nr_cpus ? pool_alloc(b->pl, (size_t)t->nr_cpus * sizeof(int)) : NULL;
	if (!prog || !pro || !name || (t->nr_cpus && !cpus))
		return oom(b);
	if (cpus)
		memcpy(cpus, t->cpus, (size_t)t->nr_cpus * sizeof(int));
	const char *timers[TS_SIM_TASK_TIMERS];
	int nr_timers = 0, n = 0;
	for (int p = 0; p < t->nr_phases; p++) {
		const struct ts_rtapp_phase *ph = &t->phases[p];
		int first = n;
		for (int e = 0; e < ph->nr_events; e++) {
			rc = translate_event(b, t, &ph->events[e], &prog[n], timers, &nr_timers);
			if (rc < 0)
				return rc;
			n += rc;
		}
		int per_loop = n - first;
		for (int l = 1; !fold && l < ph->loop; l++)
			for (int i = 0; i < per_loop; i++)
				prog[n++] = prog[first + i];
	}
	if (n == 0)
		return refuse(b, t, t->line, t->name, "no event to run");
	bool takes_time = false;
	for (int i = 0; i < n && !takes_time; i++)
		takes_time = phase_takes_time(&prog[i]);
	if (!takes_time)
		return refuse(b, t, t->line, t->name,
			      "no event takes time or sleeps (a run, sleep, timer, mem, iorun, "
			      "yield, wait or barrier of others): rt-app would spin in it for "
			      "ever, the simulator cannot advance its clock");
	/* the start: rt-app's threads wait at its start barrier, then sleep their delay; a
	 * forked thread does not wait, and counts its delay and timers from t_zero */
	int nr_pro = 0;
	uint64_t delay_ns = (uint64_t)t->delay_usec * 1000;
	if (forked)
		pro[nr_pro++] = (struct ts_phase){.kind = TS_PH_START_DELAY, .ns = delay_ns};
	else
		pro[nr_pro++] = (struct ts_phase){.kind = TS_PH_BARRIER};
	if (!forked && t->delay_usec > 0)
		pro[nr_pro++] = (struct ts_phase){.kind = TS_PH_SLEEP, .ns = delay_ns};
	uint64_t iterations = 0;
	if (t->loop > 0)
		iterations = (uint64_t)t->loop * (fold ? (uint64_t)t->phases[0].loop : 1);
	if (iterations > INT32_MAX)
		return refuse(b, t, t->line, "loop", "%llu iterations: more than %d",
			      (unsigned long long)iterations, INT32_MAX);
	*c = (struct ts_task_class){
		.name = name,
		.count = forked ? (int)b->forked[t - b->r->tasks] : t->instances,
		.spawn = forked ? TS_SPAWN_FORK : TS_SPAWN_LAUNCHER,
		.nice = s->has_priority ? s->priority : 0,
		.footprint_kib = RTAPP_FOOTPRINT_KIB,
		.phases = prog,
		.nr_phases = n,
		.iterations = (int)iterations,
		.measure_wakeup = true,
		.prologue = pro,
		.nr_prologue = nr_pro,
		.cpus = cpus,
		.nr_cpus = t->nr_cpus,
	};
	if (t->taskgroup && !spec_name(t->name))
		return refuse(b, t, t->taskgroup_line, "taskgroup",
			      "a task in a group needs a name of letters, digits and '_-.' only "
			      "(the simulator's --groups-spec names it)");
	return 0;
}

/* The pairs (parent, child) of the file's fork events, with how often one thread of the
 * parent forks the child (-1: for ever). */
static int fork_pairs(struct build *b, struct fork_pair **out, int *nr)
{
	const struct ts_rtapp *r = b->r;
	int cap = 0;
	for (int t = 0; t < r->nr_tasks; t++)
		for (int p = 0; p < r->tasks[t].nr_phases; p++)
			for (int e = 0; e < r->tasks[t].phases[p].nr_events; e++)
				cap += r->tasks[t].phases[p].events[e].kind == TS_RTAPP_FORK;
	*nr = 0;
	if (!cap)
		return 0;
	struct fork_pair *v = pool_alloc(b->pl, (size_t)cap * sizeof(*v));
	if (!v)
		return oom(b);
	*out = v;
	for (int t = 0; t < r->nr_tasks; t++) {
		const struct ts_rtapp_task *pt = &r->tasks[t];
		int first = *nr;
		for (int p = 0; p < pt->nr_phases; p++)
			for (int e = 0; e < pt->phases[p].nr_events; e++) {
				const struct ts_rtapp_event *ev = &pt->phases[p].events[e];
				int child = ev->kind == TS_RTAPP_FORK ? task_index(r, ev->ref) : -1;
				if (child < 0) /* (the reader checked the name) */
					continue;
				int i = first;
				while (i < *nr && v[i].child != child)
					i++;
				if (i == *nr)
					v[(*nr)++] = (struct fork_pair){.parent = t,
									.child = child,
									.line = ev->line,
									.key = ev->key};
				v[i].per_thread += pt->phases[p].loop;
			}
		for (int i = first; i < *nr; i++)
			v[i].per_thread = pt->loop < 0 ? -1 : v[i].per_thread * pt->loop;
	}
	return 0;
}

/* A parent with threads that forks for ever, or more often than rt-app allows. */
static int check_forker(struct build *b, const struct fork_pair *v, int nr, int parent)
{
	const struct ts_rtapp *r = b->r;
	const struct ts_rtapp_task *pt = &r->tasks[parent];
	const struct fork_pair *first = NULL;
	int64_t total = 0;
	for (int i = 0; i < nr; i++) {
		if (v[i].parent != parent)
			continue;
		if (v[i].per_thread < 0)
			return refuse(b, pt, v[i].line, v[i].key,
				      "forks '%s' in every loop of a task that loops for ever "
				      "(loop -1): rt-app stops it with an error after %d forks "
				      "(FORKS_LIMIT), and the simulator creates every thread "
				      "before the run; give the task a finite loop",
				      r->tasks[v[i].child].name, RTAPP_FORKS_LIMIT);
		total += v[i].per_thread;
		first = first ? first : &v[i];
	}
	if (total > RTAPP_FORKS_LIMIT)
		return refuse(b, pt, first->line, first->key,
			      "one thread forks %lld times: rt-app stops a thread with an error "
			      "after %d forks (FORKS_LIMIT)",
			      (long long)total, RTAPP_FORKS_LIMIT);
	return 0;
}

/* b->forked: the threads each task's fork events create in one copy of the file, forks of
 * forked threads included: a fixed point, the counts growing until nothing changes or the
 * threads exceed the simulator's bound on tasks (a task that forks itself does). */
static int count_forks(struct build *b)
{
	const struct ts_rtapp *r = b->r;
	struct fork_pair *v = NULL;
	int nr = 0, rc = fork_pairs(b, &v, &nr);
	if (rc || !nr)
		return rc;
	for (bool changed = true; changed;) {
		changed = false;
		for (int u = 0; u < r->nr_tasks; u++) {
			int64_t n = 0;
			for (int i = 0; i < nr; i++) {
				if (v[i].child != u)
					continue;
				int64_t parents =
					r->tasks[v[i].parent].instances + b->forked[v[i].parent];
				if (parents == 0)
					continue;
				if ((rc = check_forker(b, v, nr, v[i].parent)))
					return rc;
				n += parents * v[i].per_thread;
				if (n > TS_SIM_MAX_TASKS)
					return refuse(
						b, &r->tasks[v[i].parent], v[i].line, v[i].key,
						"the file's forks create more than %d threads "
						"of '%s' (forks of forked threads included), "
						"the simulator's bound on tasks",
						TS_SIM_MAX_TASKS, r->tasks[u].name);
			}
			if (n != b->forked[u]) {
				b->forked[u] = n;
				changed = true;
			}
		}
	}
	return 0;
}

/* "a/b=class:T,..." from the tasks' "taskgroup" paths ("/a/b"). */
static int build_groups_spec(struct build *b)
{
	char spec[TS_GROUPS_SPEC_MAX];
	size_t len = 0;
	for (int k = 0; k < 2 * b->r->nr_tasks; k++) {
		int i = k / 2;
		const struct ts_rtapp_task *t = &b->r->tasks[i];
		int ci = k % 2 ? b->fork_class[i] : b->launch_class[i];
		if (!t->taskgroup || ci < 0)
			continue;
		const char *path = t->taskgroup;
		while (*path == '/')
			path++;
		if (!*path) /* "/": the root group */
			continue;
		int n = snprintf(spec + len, sizeof(spec) - len, "%s%s=class:%s", len ? "," : "",
				 path, b->x->w.classes[ci].name);
		if (n < 0 || (size_t)n >= sizeof(spec) - len)
			return refuse(b, t, t->taskgroup_line, "taskgroup",
				      "the file's groups do not fit the simulator's group spec "
				      "(%d characters)",
				      TS_GROUPS_SPEC_MAX - 1);
		len += (size_t)n;
	}
	if (len && !(b->x->groups_spec = pool_printf(b->pl, "%s", spec)))
		return oom(b);
	return 0;
}

int ts_sim_rtapp_build(const struct ts_rtapp *r, const char *name, struct ts_sim_rtapp **out,
		       struct ts_error *err)
{
	*out = NULL;
	struct pool *pl = calloc(1, sizeof(*pl));
	struct ts_sim_rtapp *x = pl ? pool_alloc(pl, sizeof(*x)) : NULL;
	if (!x) {
		free(pl);
		return ts_error_set(err, -ENOMEM, "%s: out of memory", r->file);
	}
	x->mem = pl;
	struct build b = {.r = r, .x = x, .pl = pl, .err = err};
	int rc = 0, nr_classes = 0, threads = 0;
	/* at most two classes per task: its threads, and its forked threads */
	struct ts_task_class *classes = pool_alloc(pl, 2 * (size_t)r->nr_tasks * sizeof(*classes));
	if (!classes) {
		rc = oom(&b);
		goto out;
	}
	b.forked = pool_alloc(pl, (size_t)r->nr_tasks * sizeof(*b.forked));
	b.launch_class = pool_alloc(pl, (size_t)r->nr_tasks * sizeof(*b.launch_class));
	b.fork_class = pool_alloc(pl, (size_t)r->nr_tasks * sizeof(*b.fork_class));
	int *class_task = pool_alloc(pl, 2 * (size_t)r->nr_tasks * sizeof(*class_task));
	if (!b.forked || !b.launch_class || !b.fork_class || !class_task) {
		rc = oom(&b);
		goto out;
	}
	if ((rc = count_forks(&b)))
		goto out;
	/* the classes: each task's threads from the start, then those its forks create */
	for (int i = 0; i < r->nr_tasks; i++)
		b.launch_class[i] = r->tasks[i].instances > 0 ? nr_classes++ : -1;
	for (int i = 0; i < r->nr_tasks; i++)
		b.fork_class[i] = b.forked[i] > 0 ? nr_classes++ : -1;
	bool finite = true;
	for (int k = 0; k < 2 * r->nr_tasks && !rc; k++) {
		int i = k % r->nr_tasks;
		bool forked = k >= r->nr_tasks;
		int ci = forked ? b.fork_class[i] : b.launch_class[i];
		if (ci < 0) /* no thread: a fork target no fork names */
			continue;
		class_task[ci] = i;
		rc = translate_task(&b, &r->tasks[i], forked, &classes[ci]);
		finite &= classes[ci].iterations > 0;
		threads += classes[ci].count;
	}
	if (!rc && nr_classes == 0)
		rc = ts_error_set(err, -EINVAL,
				  "%s: no task has a thread (every \"instance\" is 0)", r->file);
	if (rc)
		goto out;
	x->w = (struct ts_workload){
		.name = pool_printf(pl, "%s", name),
		.description = pool_printf(pl, "rt-app file %s: %d task%s, %d thread%s", r->file,
					   nr_classes, nr_classes == 1 ? "" : "s", threads,
					   threads == 1 ? "" : "s"),
		.classes = classes,
		.nr_classes = nr_classes,
		/* every thread ends: the time until the last does, as rt-app runs until then
		 * (duration -1); else rt-app's wu_lat, the timer and sleep wake-up latency */
		.metric = finite ? TS_METRIC_TIME_S : TS_METRIC_WAKEUP_P99_US,
		.metric_name = finite ? "time" : "p99_wakeup",
		.unit = finite ? "s" : "us",
		.load_name = "copies",
		.default_loads = "1",
		/* rt-app stops every thread after global.duration; threads that all end are
		 * given RTAPP_FINITE_CAP_NS to do so */
		.default_duration_ns = r->global.duration_s > 0 ? (uint64_t)r->global.duration_s *
									  UINT64_C(1000000000)
				       : finite ? RTAPP_FINITE_CAP_NS
						: 0,
		.instances = TS_INSTANCES_LOAD,
		.syncs_per_instance = b.nr_sync, /* each copy of the file has its own */
	};
	x->class_task = class_task;
	if (!x->w.name || !x->w.description)
		rc = oom(&b);
	if (!rc)
		rc = build_groups_spec(&b);
out:
	if (rc) {
		ts_sim_rtapp_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

void ts_sim_rtapp_free(struct ts_sim_rtapp *x)
{
	if (!x)
		return;
	struct pool *pl = x->mem;
	for (int i = pl->n - 1; i >= 0; i--)
		free(pl->p[i]);
	free(pl->p);
	free(pl);
}
