/* rt-app descriptions -> plans for the runtime host: the checks of cmd_run_exec.h and the
 * resolution of names into table indices. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run_plan.h"

#define RTAPP_DEV_NULL "/dev/null"
#define GROUP_NAME_MAX 31 /* ts_rt_group_create() */

int rx_names_index(struct rx_names *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->v[i], name) == 0)
			return i;
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 8;
		const char **v = realloc(t->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = name;
	return t->n++;
}

struct build {
	const struct ts_rtapp *r;
	struct rx_plan *p;
	struct ts_error *err;
};

/* "FILE:LINE: task 'T': 'KEY': why" (-EINVAL). */
static int refuse(struct build *b, const struct ts_rtapp_task *t, int line, const char *key,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int refuse(struct build *b, const struct ts_rtapp_task *t, int line, const char *key,
		  const char *fmt, ...)
{
	char why[TS_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (line <= 0)
		return ts_error_set(b->err, -EINVAL, "%s: task '%s': '%s': %s", b->r->file, t->name,
				    key, why);
	return ts_error_set(b->err, -EINVAL, "%s:%d: task '%s': '%s': %s", b->r->file, line,
			    t->name, key, why);
}

static int oom(struct build *b)
{
	return ts_error_set(b->err, -ENOMEM, "%s: out of memory", b->r->file);
}

static bool same_cpus(const int *a, int na, const int *b, int nb)
{
	return na == nb && (na == 0 || memcmp(a, b, (size_t)na * sizeof(*a)) == 0);
}

/* What a phase may not change: the runtime cannot change them on a running task. */
static int check_phase_attrs(struct build *b, const struct ts_rtapp_task *t,
			     const struct ts_rtapp_phase *ph)
{
	const char *name = ph->name ? ph->name : "?";
	if (ph->cpus && !same_cpus(ph->cpus, ph->nr_cpus, t->cpus, t->nr_cpus))
		return refuse(b, t, ph->cpus_line, "cpus",
			      "phase '%s' changes the thread's CPUs: the runtime sets a task's "
			      "CPUs once, when it spawns it",
			      name);
	const struct ts_rtapp_sched *s = &ph->sched;
	int nice = t->sched.has_priority ? t->sched.priority : 0;
	if ((s->policy != TS_RTAPP_POLICY_SAME && s->policy != t->sched.policy) ||
	    (s->has_priority && s->priority != nice))
		return refuse(b, t, s->line,
			      s->policy != TS_RTAPP_POLICY_SAME ? "policy" : "priority",
			      "phase '%s' changes the thread's policy or priority: the runtime "
			      "sets a task's nice value once, when it spawns it",
			      name);
	if (ph->taskgroup && !(t->taskgroup && strcmp(ph->taskgroup, t->taskgroup) == 0))
		return refuse(b, t, ph->taskgroup_line, "taskgroup",
			      "phase '%s' moves the thread to another group: the runtime puts a "
			      "task in its group when it spawns it",
			      name);
	return 0;
}

struct held {
	int m[RX_HELD_MAX];
	int n;
};

static int held_find(const struct held *h, int m)
{
	for (int i = 0; i < h->n; i++)
		if (h->m[i] == m)
			return i;
	return -1;
}

/* The lock discipline of one phase's events, followed in order from no mutex held. */
static int check_locks(struct build *b, const struct ts_rtapp_task *t, const struct rx_phase *ph,
		       const struct ts_rtapp_phase *src)
{
	struct held h = {.n = 0};
	const struct rx_names *mx = &b->p->mutexes;
	for (int i = 0; i < ph->nr; i++) {
		const struct rx_event *e = &ph->ev[i];
		const struct ts_rtapp_event *ev = e->ev;
		switch (ev->kind) {
		case TS_RTAPP_LOCK:
			if (held_find(&h, e->res) >= 0)
				return refuse(b, t, ev->line, ev->key,
					      "locks '%s', which the thread holds already (a "
					      "deadlock)",
					      ev->ref);
			if (h.n == RX_HELD_MAX)
				return refuse(b, t, ev->line, ev->key,
					      "more than %d mutexes held at once", RX_HELD_MAX);
			h.m[h.n++] = e->res;
			break;
		case TS_RTAPP_UNLOCK: {
			int k = held_find(&h, e->res);
			if (k < 0)
				return refuse(b, t, ev->line, ev->key,
					      "unlocks '%s', which the thread does not hold here",
					      ev->ref);
			h.m[k] = h.m[--h.n];
			break;
		}
		case TS_RTAPP_WAIT:
		case TS_RTAPP_SYNC:
			if (held_find(&h, e->mutex) < 0)
				return refuse(
					b, t, ev->line, ev->key,
					"waits on '%s' without holding its mutex '%s' (lock it "
					"first)",
					ev->ref, mx->v[e->mutex]);
			break;
		case TS_RTAPP_SUSPEND:
		case TS_RTAPP_RESUME:
			if (held_find(&h, e->mutex) >= 0)
				return refuse(b, t, ev->line, ev->key,
					      "takes mutex '%s', which the thread holds already (a "
					      "deadlock)",
					      mx->v[e->mutex]);
			break;
		default:
			break;
		}
	}
	if (h.n)
		return refuse(b, t, src->line, src->name ? src->name : t->name,
			      "the phase ends holding mutex '%s': the runtime host needs every "
			      "lock of a phase released within it",
			      mx->v[h.m[0]]);
	return 0;
}

/* The timer slot of ev within task rt (slots in order of first use). */
static int timer_slot(struct build *b, const struct ts_rtapp_task *t,
		      const struct ts_rtapp_event *ev, struct rx_names *timers)
{
	if (!ev->unique) {
		int users = ts_rtapp_shared_timer_users(b->r, ev->ref);
		if (users > 1)
			return refuse(b, t, ev->line, ev->key,
				      "timer '%s' is shared by %d threads, whose uses all advance "
				      "it: name it \"unique...\" to give each thread its own (the "
				      "simulator refuses it too)",
				      ev->ref, users);
	}
	int slot = rx_names_index(timers, ev->ref);
	return slot < 0 ? oom(b) : slot;
}

static int resolve_event(struct build *b, const struct ts_rtapp_task *t,
			 const struct ts_rtapp_event *ev, struct rx_event *e,
			 struct rx_names *timers)
{
	struct rx_plan *p = b->p;
	const struct ts_rtapp_global *g = &b->r->global;
	*e = (struct rx_event){.ev = ev, .res = -1, .mutex = -1};
	switch (ev->kind) {
	case TS_RTAPP_LOCK:
	case TS_RTAPP_UNLOCK:
		e->res = rx_names_index(&p->mutexes, ev->ref);
		break;
	case TS_RTAPP_WAIT:
	case TS_RTAPP_SYNC:
		e->res = rx_names_index(&p->conds, ev->ref);
		e->mutex = rx_names_index(&p->mutexes, ev->mutex);
		break;
	case TS_RTAPP_SIGNAL:
	case TS_RTAPP_BROADCAST:
		e->res = rx_names_index(&p->conds, ev->ref);
		break;
	case TS_RTAPP_SUSPEND:
	case TS_RTAPP_RESUME:
		/* rt-app: the condition and the mutex both named after ref */
		e->res = rx_names_index(&p->conds, ev->ref);
		e->mutex = rx_names_index(&p->mutexes, ev->ref);
		break;
	case TS_RTAPP_BARRIER:
		e->res = rx_names_index(&p->barriers, ev->ref);
		break;
	case TS_RTAPP_TIMER:
		e->res = timer_slot(b, t, ev, timers);
		return e->res < 0 ? e->res : 0;
	case TS_RTAPP_FORK:
		for (int i = 0; i < b->r->nr_tasks; i++)
			if (strcmp(b->r->tasks[i].name, ev->ref) == 0)
				e->res = i;
		return 0; /* the reader checked the target exists */
	case TS_RTAPP_IORUN:
		if (strcmp(g->io_device, RTAPP_DEV_NULL) != 0)
			return refuse(b, t, ev->line, ev->key,
				      "writes to io_device '%s': only %s is supported (as in the "
				      "simulator)",
				      g->io_device, RTAPP_DEV_NULL);
		return 0;
	default: /* RUNTIME, SLEEP, YIELD, MEM */
		return 0;
	}
	if (e->res < 0 ||
	    (e->mutex < 0 && (ev->kind == TS_RTAPP_WAIT || ev->kind == TS_RTAPP_SYNC ||
			      ev->kind == TS_RTAPP_SUSPEND || ev->kind == TS_RTAPP_RESUME)))
		return oom(b);
	return 0;
}

/* The levels of "/a/b" as groups, each under the previous; the leaf's index. */
static int resolve_group(struct build *b, const struct ts_rtapp_task *t)
{
	struct rx_plan *p = b->p;
	int parent = -1;
	const char *s = t->taskgroup;
	while (*s) {
		while (*s == '/')
			s++;
		size_t len = strcspn(s, "/");
		if (!len)
			break;
		if (len > GROUP_NAME_MAX || strcspn(s, " \t") < len)
			return refuse(b, t, t->taskgroup_line, "taskgroup",
				      "'%s': each level must be 1 to %d characters without blanks",
				      t->taskgroup, GROUP_NAME_MAX);
		int found = -1;
		for (int i = 0; i < p->nr_groups && found < 0; i++)
			if (p->groups[i].parent == parent && strlen(p->groups[i].name) == len &&
			    strncmp(p->groups[i].name, s, len) == 0)
				found = i;
		if (found < 0) {
			struct rx_group *v =
				realloc(p->groups, (size_t)(p->nr_groups + 1) * sizeof(*v));
			if (!v)
				return oom(b);
			p->groups = v;
			char *name = strndup(s, len);
			if (!name)
				return oom(b);
			v[p->nr_groups] = (struct rx_group){.name = name, .parent = parent};
			found = p->nr_groups++;
		}
		parent = found;
		s += len;
	}
	return parent;
}

/* Whether task i ever has a thread: instances, or a fork event naming it. */
static bool runs(const struct ts_rtapp *r, int i)
{
	if (r->tasks[i].instances > 0)
		return true;
	for (int t = 0; t < r->nr_tasks; t++)
		for (int p = 0; p < r->tasks[t].nr_phases; p++)
			for (int e = 0; e < r->tasks[t].phases[p].nr_events; e++)
				if (r->tasks[t].phases[p].events[e].kind == TS_RTAPP_FORK &&
				    strcmp(r->tasks[t].phases[p].events[e].ref, r->tasks[i].name) ==
					    0)
					return true;
	return false;
}

static int build_task(struct build *b, int i)
{
	const struct ts_rtapp_task *t = &b->r->tasks[i];
	struct rx_task *x = &b->p->task[i];
	x->t = t;
	x->group = -1;
	if (t->sched.policy != TS_RTAPP_POLICY_OTHER)
		return refuse(b, t, t->sched.line ? t->sched.line : t->line, "policy",
			      "%s%s: the runtime runs SCHED_OTHER threads only (its core is the "
			      "fair class)",
			      ts_rtapp_policy_name(t->sched.policy),
			      t->sched.line ? "" : " (global default_policy)");
	if (t->taskgroup && (x->group = resolve_group(b, t)) < -1)
		return x->group;
	if (!(x->ph = calloc((size_t)t->nr_phases, sizeof(*x->ph))))
		return oom(b);
	x->nr_phases = t->nr_phases;
	struct rx_names timers = {0};
	int rc = 0, events = 0;
	for (int p = 0; p < t->nr_phases && !rc; p++) {
		const struct ts_rtapp_phase *ph = &t->phases[p];
		struct rx_phase *xp = &x->ph[p];
		xp->loop = ph->loop;
		if ((rc = check_phase_attrs(b, t, ph)))
			break;
		if (ph->nr_events && !(xp->ev = calloc((size_t)ph->nr_events, sizeof(*xp->ev)))) {
			rc = oom(b);
			break;
		}
		for (int e = 0; e < ph->nr_events && !rc; e++)
			rc = resolve_event(b, t, &ph->events[e], &xp->ev[xp->nr++], &timers);
		if (!rc && xp->nr && runs(b->r, i)) /* a task that never runs may be wrong */
			rc = check_locks(b, t, xp, ph);
		events += xp->nr;
	}
	x->nr_timers = timers.n;
	free(timers.v);
	if (!rc && events == 0)
		rc = refuse(b, t, t->line, t->name, "no event to run");
	return rc;
}

/* Each barrier's users, as rt-app counts them (ts_rtapp_barrier_users(): the simulator
 * uses the same count). */
static int count_barrier_users(struct build *b)
{
	struct rx_plan *p = b->p;
	if (p->barriers.n && !(p->barrier_users = calloc((size_t)p->barriers.n, sizeof(int))))
		return oom(b);
	for (int bar = 0; bar < p->barriers.n; bar++)
		p->barrier_users[bar] = ts_rtapp_barrier_users(b->r, p->barriers.v[bar]);
	return 0;
}

int rx_plan_build(const struct ts_rtapp *r, struct rx_plan **out, struct ts_error *err)
{
	*out = NULL;
	struct rx_plan *p = calloc(1, sizeof(*p));
	if (!p || !(p->task = calloc((size_t)r->nr_tasks, sizeof(*p->task)))) {
		free(p);
		return ts_error_set(err, -ENOMEM, "%s: out of memory", r->file);
	}
	p->r = r;
	p->nr_tasks = r->nr_tasks;
	p->finite = true;
	struct build b = {.r = r, .p = p, .err = err};
	int rc = 0;
	for (int i = 0; i < r->nr_tasks && !rc; i++) {
		rc = build_task(&b, i);
		p->threads += r->tasks[i].instances;
		if (r->tasks[i].instances > 0 && r->tasks[i].loop < 0)
			p->finite = false;
	}
	if (!rc && p->threads == 0)
		rc = ts_error_set(err, -EINVAL,
				  "%s: no task has a thread (every \"instance\" is 0)", r->file);
	if (!rc && p->threads > RX_MAX_THREADS)
		rc = ts_error_set(err, -EINVAL, "%s: %d threads, more than the runtime host's %d",
				  r->file, p->threads, RX_MAX_THREADS);
	if (!rc)
		rc = count_barrier_users(&b);
	if (rc) {
		rx_plan_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void rx_plan_free(struct rx_plan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nr_tasks; i++) {
		for (int ph = 0; ph < p->task[i].nr_phases; ph++)
			free(p->task[i].ph[ph].ev);
		free(p->task[i].ph);
	}
	for (int i = 0; i < p->nr_groups; i++)
		free((char *)p->groups[i].name);
	free(p->groups);
	free(p->task);
	free(p->mutexes.v);
	free(p->conds.v);
	free(p->barriers.v);
	free(p->barrier_users);
	free(p);
}

uint64_t rx_plan_duration_ns(const struct rx_plan *p, uint64_t override, bool *finite)
{
	*finite = p->finite;
	if (override)
		return override;
	if (p->r->global.duration_s > 0)
		return (uint64_t)p->r->global.duration_s * 1000000000u;
	return RX_FINITE_CAP_NS;
}
