/* The runtime host of an rt-app plan (cmd_run_exec.h): one libtoposched task per thread of
 * the file, run as rt-app's thread_body() runs a thread. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd_run_plan.h"
#include "toposched/runtime_core.h"

/* Wake-up latencies kept per thread; later ones are dropped (a thread that sleeps 0 us
 * in a loop could otherwise fill the memory). */
#define LAT_MAX_PER_THREAD (1u << 22)
/* How often the stopper wakes every condition and barrier until the last thread left. */
#define STOP_POLL_NS 1000000
/* "runtime": work in bursts of this much, then look at the clock (rt-app's loadwait(32)). */
#define RUNTIME_BURST_NS 32000.0

/* The core's counters that both hosts report, summed over CPUs. */
struct rx_counts {
	uint64_t wakeups, migrations, steal_ns;
	uint64_t reasons[TS_PLACE_NR], by_relation[TS_REL_NR];
};

struct rx_barrier {
	struct ts_mutex *m;
	struct ts_cond *c;
	int users, arrived; /* under m */
	uint64_t generation;
};

struct rx_run;

struct rx_thread {
	struct rx_run *run;
	int task;
	bool forked;
	uint64_t t_first; /* the reference of its timers: the start, plus its delay */
	uint64_t loops;
	uint64_t *lat;
	size_t nr_lat, cap_lat;
	uint64_t *timer_next;
	bool *timer_armed;
	struct ts_mutex *held[RX_HELD_MAX];
	int nr_held;
	char *buf; /* mem, iorun: global.mem_buffer_size bytes */
	int io_fd;
	int forks;
	char name[32];
	struct rx_thread *next;
};

struct rx_run {
	const struct rx_plan *p;
	double ns_per_loop;
	char **cpus; /* per task: its scheduler CPUs as a cpulist, NULL = all */
	struct ts_mutex **mutex;
	struct ts_cond **cond;
	struct rx_barrier *bar;
	struct ts_rt_group **group;
	struct ts_waitgroup *gate; /* the start barrier: 1 until every thread arrived */
	atomic_int arrived;
	atomic_bool gate_open;
	_Atomic uint64_t t0;
	atomic_bool stopping;
	atomic_int live;
	struct rx_counts at_start; /* written before `released`, read after */
	pthread_mutex_t lock;	   /* the rest, and the plain thread's waits */
	pthread_cond_t cv;
	bool released;
	struct rx_thread *threads;
	int nr_threads;
	int *task_threads;
	int error_code;
	char error[TS_ERR_MSG_MAX];
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool stopping(struct rx_run *run)
{
	return atomic_load_explicit(&run->stopping, memory_order_relaxed);
}

static void counts_read(struct rx_counts *c)
{
	memset(c, 0, sizeof(*c));
	struct ts_sched *s = ts_rt_sched();
	for (int cpu = 0; s && cpu < s->nr_cpus; cpu++) {
		const struct ts_cpu_stats *st = &ts_cpu_rq(s, cpu)->stats;
		c->wakeups += ts_stat_read(&st->ttwu_count);
		c->migrations += ts_stat_read(&st->migrations);
		for (int i = 0; i < TS_PLACE_NR; i++)
			c->reasons[i] += ts_stat_read(&st->reasons[i]);
		for (int i = 0; i < TS_REL_NR; i++)
			c->by_relation[i] += ts_stat_read(&st->wakeups_by_relation[i]);
	}
	struct ts_rt_stats rs;
	ts_rt_get_stats(&rs);
	c->steal_ns = rs.steal_ns;
}

static void notify(struct rx_run *run)
{
	pthread_mutex_lock(&run->lock);
	pthread_cond_broadcast(&run->cv);
	pthread_mutex_unlock(&run->lock);
}

/* The run's first failure ends it. */
static void run_fail(struct rx_run *run, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void run_fail(struct rx_run *run, int code, const char *fmt, ...)
{
	pthread_mutex_lock(&run->lock);
	if (!run->error_code) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(run->error, sizeof(run->error), fmt, ap);
		va_end(ap);
		run->error_code = code < 0 ? code : -EIO;
	}
	atomic_store(&run->stopping, true);
	pthread_cond_broadcast(&run->cv);
	pthread_mutex_unlock(&run->lock);
}

/* Opens the start barrier (once): the measured time begins. */
static void release_start(struct rx_run *run)
{
	if (atomic_exchange(&run->gate_open, true))
		return;
	counts_read(&run->at_start);
	atomic_store(&run->t0, now_ns());
	pthread_mutex_lock(&run->lock);
	run->released = true;
	pthread_cond_broadcast(&run->cv);
	pthread_mutex_unlock(&run->lock);
	ts_wg_done(run->gate);
}

static void lat_add(struct rx_thread *th, uint64_t ns)
{
	if (stopping(th->run) || th->nr_lat == LAT_MAX_PER_THREAD)
		return;
	if (th->nr_lat == th->cap_lat) {
		size_t cap = th->cap_lat ? 2 * th->cap_lat : 256;
		uint64_t *v = realloc(th->lat, cap * sizeof(*v));
		if (!v)
			return;
		th->lat = v;
		th->cap_lat = cap;
	}
	th->lat[th->nr_lat++] = ns;
}

/* Sleeps until `deadline` (CLOCK_MONOTONIC ns); when it slept, the wake-up latency is the
 * time from the deadline to now, when the thread runs again. */
static void wake_at(struct rx_thread *th, uint64_t deadline)
{
	uint64_t now;
	bool slept = false;
	while ((now = now_ns()) < deadline) {
		ts_sleep_ns(deadline - now);
		slept = true;
	}
	if (slept)
		lat_add(th, now - deadline);
}

/* rt-app's loadwait(): usec x 1000 / ns_per_loop loops. */
static uint64_t run_loops(const struct rx_run *run, const struct rx_event *e)
{
	return (uint64_t)((double)e->ev->usec * 1000.0 / run->ns_per_loop);
}

static bool hold(struct rx_thread *th, struct ts_mutex *m)
{
	if (th->nr_held == RX_HELD_MAX) {
		run_fail(th->run, -EINVAL, "task '%s': more than %d mutexes held at once", th->name,
			 RX_HELD_MAX);
		return false;
	}
	if (ts_mutex_lock(m)) {
		run_fail(th->run, -EIO, "task '%s': %s", th->name, ts_rt_last_error());
		return false;
	}
	th->held[th->nr_held++] = m;
	return true;
}

static void unhold(struct rx_thread *th, struct ts_mutex *m)
{
	for (int i = th->nr_held - 1; i >= 0; i--)
		if (th->held[i] == m) {
			th->held[i] = th->held[--th->nr_held];
			break;
		}
	ts_mutex_unlock(m);
}

static bool cond_wait(struct rx_thread *th, struct ts_cond *c, struct ts_mutex *m)
{
	if (ts_cond_wait(c, m)) {
		run_fail(th->run, -EIO, "task '%s': %s", th->name, ts_rt_last_error());
		return false;
	}
	return true;
}

/* rt-app's barrier: the last of its threads to arrive wakes the others. */
static bool barrier_wait(struct rx_thread *th, struct rx_barrier *b)
{
	if (ts_mutex_lock(b->m))
		return false;
	bool ok = true;
	if (++b->arrived >= b->users) {
		b->arrived = 0;
		b->generation++;
		ts_cond_broadcast(b->c);
	} else {
		uint64_t gen = b->generation;
		while (ok && gen == b->generation && !stopping(th->run))
			ok = cond_wait(th, b->c, b->m);
	}
	ts_mutex_unlock(b->m);
	return ok;
}

static char *buffer(struct rx_thread *th)
{
	if (!th->buf && !(th->buf = calloc(1, (size_t)th->run->p->r->global.mem_buffer_size)))
		run_fail(th->run, -ENOMEM, "task '%s': mem: out of memory", th->name);
	return th->buf;
}

/* rt-app's memload() and ioload(): the buffer, piece by piece. */
static void mem_event(struct rx_thread *th, int64_t bytes, bool io)
{
	char *buf = buffer(th);
	size_t size = (size_t)th->run->p->r->global.mem_buffer_size;
	if (!buf)
		return;
	if (io && th->io_fd < 0 && (th->io_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		run_fail(th->run, -errno, "task '%s': iorun: /dev/null: %s", th->name,
			 strerror(errno));
		return;
	}
	for (size_t left = (size_t)bytes; left;) {
		size_t n = left < size ? left : size;
		if (io) {
			ssize_t w = write(th->io_fd, buf, n);
			if (w <= 0)
				return;
			n = (size_t)w;
		} else {
			memset(buf, 0, n);
		}
		left -= n;
	}
}

static int spawn_thread(struct rx_run *run, int task, bool forked);

static void timer_event(struct rx_thread *th, const struct rx_event *e)
{
	uint64_t *next = &th->timer_next[e->res];
	if (!th->timer_armed[e->res]) {
		th->timer_armed[e->res] = true;
		*next = th->t_first;
	}
	*next += (uint64_t)e->ev->usec * 1000;
	uint64_t now = now_ns();
	if (now < *next)
		wake_at(th, *next);
	else if (!e->ev->absolute) /* late: the next period counts from now */
		*next = now;
}

/* One event; false when the thread must stop. */
static bool run_event(struct rx_thread *th, const struct rx_event *e)
{
	struct rx_run *run = th->run;
	const struct ts_rtapp_event *ev = e->ev;
	switch (ev->kind) {
	case TS_RTAPP_RUN:
		rx_burn(run_loops(run, e));
		return true;
	case TS_RTAPP_RUNTIME: {
		uint64_t end = now_ns() + (uint64_t)ev->usec * 1000;
		uint64_t burst = (uint64_t)(RUNTIME_BURST_NS / run->ns_per_loop) + 1;
		do
			rx_burn(burst);
		while (now_ns() < end);
		return true;
	}
	case TS_RTAPP_SLEEP: /* always blocks, as rt-app's nanosleep() does */
		if (ev->usec > 0) {
			uint64_t ns = (uint64_t)ev->usec * 1000, start = now_ns();
			ts_sleep_ns(ns);
			uint64_t late = now_ns() - start;
			lat_add(th, late > ns ? late - ns : 0);
		}
		return true;
	case TS_RTAPP_TIMER:
		timer_event(th, e);
		return true;
	case TS_RTAPP_LOCK:
		return hold(th, run->mutex[e->res]);
	case TS_RTAPP_UNLOCK:
		unhold(th, run->mutex[e->res]);
		return true;
	case TS_RTAPP_WAIT:
		return stopping(run) || cond_wait(th, run->cond[e->res], run->mutex[e->mutex]);
	case TS_RTAPP_SIGNAL:
		ts_cond_signal(run->cond[e->res]);
		return true;
	case TS_RTAPP_BROADCAST:
		ts_cond_broadcast(run->cond[e->res]);
		return true;
	case TS_RTAPP_SYNC:
		ts_cond_signal(run->cond[e->res]);
		return stopping(run) || cond_wait(th, run->cond[e->res], run->mutex[e->mutex]);
	case TS_RTAPP_SUSPEND: {
		struct ts_mutex *m = run->mutex[e->mutex];
		if (!hold(th, m))
			return false;
		bool ok = stopping(run) || cond_wait(th, run->cond[e->res], m);
		unhold(th, m);
		return ok;
	}
	case TS_RTAPP_RESUME: {
		struct ts_mutex *m = run->mutex[e->mutex];
		if (!hold(th, m))
			return false;
		ts_cond_broadcast(run->cond[e->res]);
		unhold(th, m);
		return true;
	}
	case TS_RTAPP_BARRIER:
		return barrier_wait(th, &run->bar[e->res]);
	case TS_RTAPP_FORK:
		if (th->forks++ >= RX_FORKS_LIMIT) {
			run_fail(run, -EAGAIN,
				 "task '%s': '%s' (line %d): more than %d forks by one thread "
				 "(rt-app's FORKS_LIMIT)",
				 th->name, ev->key, ev->line, RX_FORKS_LIMIT);
			return false;
		}
		return spawn_thread(run, e->res, true) == 0;
	case TS_RTAPP_YIELD:
		ts_yield();
		return true;
	case TS_RTAPP_MEM:
	case TS_RTAPP_IORUN:
		mem_event(th, ev->bytes, ev->kind == TS_RTAPP_IORUN);
		return true;
	}
	return true;
}

/* One pass over a phase's events; true when it ran them all. Like rt-app's run(), the
 * thread stops before the next event once the run ends. */
static bool run_phase(struct rx_thread *th, const struct rx_phase *ph)
{
	for (int i = 0; i < ph->nr; i++)
		if (stopping(th->run) || !run_event(th, &ph->ev[i]))
			return false;
	return true;
}

static void *thread_main(void *arg)
{
	struct rx_thread *th = arg;
	struct rx_run *run = th->run;
	const struct rx_task *x = &run->p->task[th->task];
	if (!th->forked) { /* rt-app's threads_barrier; forked threads do not wait */
		if (atomic_fetch_add(&run->arrived, 1) + 1 == run->p->threads)
			release_start(run);
		ts_wg_wait(run->gate);
	}
	th->t_first = atomic_load(&run->t0);
	if (x->t->delay_usec > 0 && !stopping(run)) {
		th->t_first += (uint64_t)x->t->delay_usec * 1000;
		wake_at(th, th->t_first);
	}
	int thread_loop = 0, phase = 0, phase_loop = 0;
	while (!stopping(run) && thread_loop != x->t->loop) {
		if (run_phase(th, &x->ph[phase]) && !stopping(run))
			th->loops++;
		/* a preemption point per loop, so that a loop of instant events cannot keep its
		 * worker for ever */
		ts_cond_resched();
		if (++phase_loop < x->ph[phase].loop)
			continue;
		phase_loop = 0;
		if (++phase == x->nr_phases) {
			phase = 0;
			thread_loop++;
		}
	}
	while (th->nr_held) /* stopped inside a critical section */
		unhold(th, th->held[th->nr_held - 1]);
	if (th->io_fd >= 0)
		close(th->io_fd);
	if (atomic_fetch_sub(&run->live, 1) == 1)
		notify(run);
	return NULL;
}

static int spawn_thread(struct rx_run *run, int task, bool forked)
{
	const struct rx_task *x = &run->p->task[task];
	struct rx_thread *th = calloc(1, sizeof(*th));
	if (th && x->nr_timers) {
		th->timer_next = calloc((size_t)x->nr_timers, sizeof(*th->timer_next));
		th->timer_armed = calloc((size_t)x->nr_timers, sizeof(*th->timer_armed));
	}
	if (!th || (x->nr_timers && (!th->timer_next || !th->timer_armed))) {
		if (th) {
			free(th->timer_next);
			free(th->timer_armed);
		}
		free(th);
		run_fail(run, -ENOMEM, "task '%s': out of memory", x->t->name);
		return -ENOMEM;
	}
	*th = (struct rx_thread){.run = run,
				 .task = task,
				 .forked = forked,
				 .timer_next = th->timer_next,
				 .timer_armed = th->timer_armed,
				 .io_fd = -1};
	pthread_mutex_lock(&run->lock);
	bool full = run->nr_threads >= RX_MAX_THREADS;
	int index = run->task_threads[task]++;
	run->nr_threads++;
	th->next = run->threads;
	run->threads = th;
	pthread_mutex_unlock(&run->lock);
	snprintf(th->name, sizeof(th->name), "%.20s-%d", x->t->name, index);
	if (full) {
		run_fail(run, -EAGAIN, "task '%s': more than %d threads in one run", th->name,
			 RX_MAX_THREADS);
		return -EAGAIN;
	}
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.name = th->name;
	a.nice = x->t->sched.has_priority ? x->t->sched.priority : 0;
	a.cpus = run->cpus[task];
	a.group = x->group >= 0 ? run->group[x->group] : NULL;
	atomic_fetch_add(&run->live, 1);
	if (!ts_spawn(thread_main, th, &a).id) {
		int rc = -errno;
		run_fail(run, rc, "task '%s': %s", th->name, ts_rt_last_error());
		if (atomic_fetch_sub(&run->live, 1) == 1)
			notify(run);
		return rc;
	}
	return 0;
}

/* ---- the plain thread's side ---- */

/* The file's CPUs (OS numbers, as rt-app's sched_setaffinity takes them) as the
 * scheduler CPUs of the runtime's topology. */
static int resolve_cpus(struct rx_run *run, struct ts_error *err)
{
	const struct ts_topology *topo = ts_rt_sched()->topo;
	for (int i = 0; i < run->p->nr_tasks; i++) {
		const struct ts_rtapp_task *t = run->p->task[i].t;
		if (!t->nr_cpus)
			continue;
		size_t len = (size_t)t->nr_cpus * 12 + 1;
		char *list = run->cpus[i] = calloc(1, len);
		if (!list)
			return ts_error_set(err, -ENOMEM, "out of memory");
		size_t at = 0;
		for (int k = 0; k < t->nr_cpus; k++) {
			int c = 0;
			while (c < topo->nr_cpus && topo->cpu[c].os_index != t->cpus[k])
				c++;
			if (c == topo->nr_cpus)
				return ts_error_set(
					err, -EINVAL,
					"%s:%d: task '%s': 'cpus': CPU %d is not one of "
					"this machine's %d",
					run->p->r->file, t->cpus_line, t->name, t->cpus[k],
					topo->nr_cpus);
			at += (size_t)snprintf(list + at, len - at, "%s%d", k ? "," : "", c);
		}
	}
	return 0;
}

static int create_objects(struct rx_run *run, struct ts_error *err)
{
	const struct rx_plan *p = run->p;
	for (int i = 0; i < p->mutexes.n; i++)
		if (!(run->mutex[i] = ts_mutex_create()))
			return ts_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < p->conds.n; i++)
		if (!(run->cond[i] = ts_cond_create()))
			return ts_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < p->barriers.n; i++) {
		struct rx_barrier *b = &run->bar[i];
		b->users = p->barrier_users[i];
		if (!(b->m = ts_mutex_create()) || !(b->c = ts_cond_create()))
			return ts_error_set(err, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < p->nr_groups; i++) {
		const struct rx_group *g = &p->groups[i];
		run->group[i] = ts_rt_group_create(g->name, 0,
						   g->parent >= 0 ? run->group[g->parent] : NULL);
		if (!run->group[i])
			return ts_error_set(err, -errno, "taskgroup '%s': %s", g->name,
					    ts_rt_last_error());
	}
	if (!(run->gate = ts_wg_create()) || ts_wg_add(run->gate, 1))
		return ts_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

static void destroy_objects(struct rx_run *run)
{
	const struct rx_plan *p = run->p;
	for (int i = 0; i < p->mutexes.n && run->mutex; i++)
		ts_mutex_destroy(run->mutex[i]);
	for (int i = 0; i < p->conds.n && run->cond; i++)
		ts_cond_destroy(run->cond[i]);
	for (int i = 0; i < p->barriers.n && run->bar; i++) {
		ts_mutex_destroy(run->bar[i].m);
		ts_cond_destroy(run->bar[i].c);
	}
	ts_wg_destroy(run->gate);
	for (int i = 0; i < p->nr_tasks && run->cpus; i++)
		free(run->cpus[i]);
	free(run->cpus);
	free(run->mutex);
	free(run->cond);
	free(run->bar);
	free(run->group);
	free(run->task_threads);
	for (struct rx_thread *th = run->threads, *next; th; th = next) {
		next = th->next;
		free(th->lat);
		free(th->timer_next);
		free(th->timer_armed);
		free(th->buf);
		free(th);
	}
	pthread_cond_destroy(&run->cv);
	pthread_mutex_destroy(&run->lock);
}

static int alloc_run(struct rx_run *run, const struct rx_plan *p)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&run->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&run->lock, NULL);
	run->p = p;
	run->cpus = calloc((size_t)p->nr_tasks, sizeof(*run->cpus));
	run->task_threads = calloc((size_t)p->nr_tasks, sizeof(*run->task_threads));
	run->mutex = calloc((size_t)p->mutexes.n + 1, sizeof(*run->mutex));
	run->cond = calloc((size_t)p->conds.n + 1, sizeof(*run->cond));
	run->bar = calloc((size_t)p->barriers.n + 1, sizeof(*run->bar));
	run->group = calloc((size_t)p->nr_groups + 1, sizeof(*run->group));
	return run->cpus && run->task_threads && run->mutex && run->cond && run->bar && run->group
		       ? 0
		       : -ENOMEM;
}

/* Waits on the run's condition until pred() or the absolute CLOCK_MONOTONIC deadline
 * (0: none); run->lock held. */
static void wait_until(struct rx_run *run, bool (*pred)(struct rx_run *), uint64_t deadline)
{
	while (!pred(run)) {
		if (!deadline) {
			pthread_cond_wait(&run->cv, &run->lock);
			continue;
		}
		if (now_ns() >= deadline)
			return;
		struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000u),
				      .tv_nsec = (long)(deadline % 1000000000u)};
		pthread_cond_timedwait(&run->cv, &run->lock, &ts);
	}
}

static bool is_released(struct rx_run *run)
{
	return run->released || run->error_code;
}

static bool is_over(struct rx_run *run)
{
	return atomic_load(&run->live) == 0 || run->error_code;
}

static bool is_empty(struct rx_run *run)
{
	return atomic_load(&run->live) == 0;
}

/* Every thread stops before its next event; those blocked on a condition or a barrier
 * are woken until none is left (a waiter that checked just before the flag was set is
 * caught by the next round). */
static void stop_all(struct rx_run *run)
{
	atomic_store(&run->stopping, true);
	release_start(run);
	pthread_mutex_lock(&run->lock);
	while (atomic_load(&run->live) > 0) {
		pthread_mutex_unlock(&run->lock);
		for (int i = 0; i < run->p->conds.n; i++)
			ts_cond_broadcast(run->cond[i]);
		for (int i = 0; i < run->p->barriers.n; i++)
			ts_cond_broadcast(run->bar[i].c);
		pthread_mutex_lock(&run->lock);
		wait_until(run, is_empty, now_ns() + STOP_POLL_NS);
	}
	pthread_mutex_unlock(&run->lock);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int collect(struct rx_run *run, const struct rx_counts *end, struct run_result *out)
{
	const struct rx_plan *p = run->p;
	out->classes = calloc((size_t)p->nr_tasks, sizeof(*out->classes));
	size_t n = 0;
	for (struct rx_thread *th = run->threads; th; th = th->next)
		n += th->nr_lat;
	uint64_t *all = n ? malloc(n * sizeof(*all)) : NULL;
	if (!out->classes || (n && !all)) {
		free(all);
		return -ENOMEM;
	}
	for (int i = 0; i < p->nr_tasks; i++)
		if (run->task_threads[i])
			out->classes[out->nr_classes++] = (struct run_class){
				.name = p->task[i].t->name, .threads = run->task_threads[i]};
	n = 0;
	for (struct rx_thread *th = run->threads; th; th = th->next) {
		for (int i = 0; i < out->nr_classes; i++)
			if (out->classes[i].name == p->task[th->task].t->name)
				out->classes[i].loops += th->loops;
		if (th->nr_lat) /* a thread without samples may have no array at all */
			memcpy(all + n, th->lat, th->nr_lat * sizeof(*all));
		n += th->nr_lat;
	}
	if (n)
		qsort(all, n, sizeof(*all), by_value);
	out->lat_samples = n;
	for (int i = 0; i < RUN_LAT_NR; i++) { /* nearest rank */
		size_t rank = (size_t)((double)n * run_lat_quantiles[i] + 0.999999);
		out->lat_us[i] = n ? (double)all[rank ? rank - 1 : 0] / 1000.0 : -1;
	}
	free(all);
	const struct rx_counts *a = &run->at_start;
	out->wakeups = end->wakeups - a->wakeups;
	out->migrations = end->migrations - a->migrations;
	/* Both ends include each worker's stretch since its last tick (ts_rt_get_stats()); a
	 * stretch dropped for a park after the start's read can leave the end below it. */
	out->steal_s =
		end->steal_ns > a->steal_ns ? (double)(end->steal_ns - a->steal_ns) / 1e9 : 0;
	for (int i = 0; i < TS_PLACE_NR; i++)
		out->reasons[i] = end->reasons[i] - a->reasons[i];
	for (int i = 0; i < TS_REL_NR; i++)
		out->by_relation[i] = end->by_relation[i] - a->by_relation[i];
	return 0;
}

static int ns_per_loop(const struct rx_plan *p, const struct rx_config *cfg, struct rx_info *info,
		       struct ts_error *err)
{
	const struct ts_rtapp_global *g = &p->r->global;
	if (cfg->ns_per_loop > 0) {
		info->ns_per_loop = cfg->ns_per_loop;
	} else if (g->calibration == TS_RTAPP_CALIB_NS_PER_LOOP) {
		info->ns_per_loop = g->calibration_value;
	} else {
		struct ts_error e = {0};
		int rc = rx_calibrate(g->calibration_value, &info->ns_per_loop, &e);
		if (rc)
			return ts_error_set(err, rc, "%s: global 'calibration': %s", p->r->file,
					    e.msg);
		info->calibrated = true;
	}
	return 0;
}

/* CPU time of the whole process (the workers and this thread), s. */
static double process_cpu_s(void)
{
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u))
		return 0;
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Starts the threads and waits for the end; the runtime runs. */
static int drive(struct rx_run *run, uint64_t duration, struct run_result *out,
		 struct ts_error *err)
{
	const struct rx_plan *p = run->p;
	for (int i = 0; i < p->nr_tasks && !stopping(run); i++)
		for (int k = 0; k < p->task[i].t->instances && !stopping(run); k++)
			spawn_thread(run, i, false);
	pthread_mutex_lock(&run->lock);
	wait_until(run, is_released, 0);
	uint64_t t0 = atomic_load(&run->t0);
	double cpu0 = process_cpu_s();
	wait_until(run, is_over, t0 + duration);
	pthread_mutex_unlock(&run->lock);
	/* the end: what completes from here on is not counted */
	atomic_store(&run->stopping, true);
	uint64_t t_end = now_ns();
	out->cpu_s = process_cpu_s() - cpu0;
	struct rx_counts end;
	counts_read(&end);
	out->finished = atomic_load(&run->live) == 0;
	out->seconds = (double)(t_end - t0) / 1e9;
	out->nr_cpus = ts_rt_nr_workers();
	stop_all(run);
	if (run->error_code)
		return ts_error_set(err, run->error_code, "%s: %s", p->r->file, run->error);
	if (collect(run, &end, out))
		return ts_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

int rx_run(const struct rx_plan *p, const struct rx_config *cfg, struct run_result *out,
	   struct rx_info *info, struct ts_error *err)
{
	memset(out, 0, sizeof(*out));
	memset(info, 0, sizeof(*info));
	bool finite;
	info->duration_ns = rx_plan_duration_ns(p, cfg->duration_ns, &finite);
	info->preempt = !cfg->no_preempt;
	int rc = ns_per_loop(p, cfg, info, err);
	if (rc)
		return rc;
	struct ts_rt_config rcfg = {
		.features = cfg->features, .preempt = info->preempt, .trace = cfg->trace};
	if (ts_rt_start(&rcfg))
		return ts_error_set(err, -EINVAL, "runtime: %s", ts_rt_last_error());
	info->workers = ts_rt_nr_workers();
	struct rx_run run = {.ns_per_loop = info->ns_per_loop};
	if (alloc_run(&run, p))
		rc = ts_error_set(err, -ENOMEM, "out of memory");
	if (!rc)
		rc = resolve_cpus(&run, err);
	if (!rc)
		rc = create_objects(&run, err);
	if (!rc)
		rc = drive(&run, info->duration_ns, out, err);
	if (ts_rt_stop() && !rc) /* the trace could not be written */
		rc = ts_error_set(err, -EIO, "runtime: %s", ts_rt_last_error());
	destroy_objects(&run);
	if (rc)
		rx_result_free(out);
	return rc;
}

void rx_result_free(struct run_result *r)
{
	free(r->classes);
	r->classes = NULL;
	r->nr_classes = 0;
}
