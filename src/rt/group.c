/* Task groups of the runtime: creation serialised against the workers as runtime.h
 * explains, a registry of the groups of this run (so that a pointer from another run, or
 * no group at all, is an error rather than a crash), their load_avg statistics and a
 * dump of the hierarchy. The scheduling of groups is the core's (rq.c, group.c). */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ts_rt_group {
	struct ts_task_group *tg;
	struct ts_rt_group *parent; /* NULL under the root */
};

int rt_groups_init(void)
{
	rt_g.groups = NULL;
	rt_g.nr_groups = rt_g.cap_groups = 0;
	return -pthread_mutex_init(&rt_g.group_lock, NULL);
}

void rt_groups_free(void)
{
	/* The core's groups go with the sched (ts_sched_destroy()). */
	for (int i = 0; i < rt_g.nr_groups; i++)
		free(rt_g.groups[i]);
	free(rt_g.groups);
	rt_g.groups = NULL;
	rt_g.nr_groups = rt_g.cap_groups = 0;
	pthread_mutex_destroy(&rt_g.group_lock);
}

/* With group_lock held: whether g is a group of this run (a pointer comparison only: g
 * is never dereferenced before it is found). */
static bool known(const struct ts_rt_group *g)
{
	for (int i = 0; i < rt_g.nr_groups; i++)
		if (rt_g.groups[i] == g)
			return true;
	return false;
}

int rt_group_resolve(const struct ts_rt_group *g, struct ts_task_group **out)
{
	*out = NULL;
	if (!g)
		return 0;
	pthread_mutex_lock(&rt_g.group_lock);
	bool ok = known(g);
	if (ok)
		*out = g->tg;
	pthread_mutex_unlock(&rt_g.group_lock);
	return ok ? 0 : -EINVAL;
}

/* Every worker's run-queue lock, in CPU order (double_rq_lock()'s). */
static void lock_all_rqs(void)
{
	for (int i = 0; i < rt_g.nr_workers; i++)
		rt_spin_lock(rt_rq_lock_of(rt_g.worker_cpus[i]));
}

static void unlock_all_rqs(void)
{
	for (int i = rt_g.nr_workers - 1; i >= 0; i--)
		rt_spin_unlock(rt_rq_lock_of(rt_g.worker_cpus[i]));
}

struct ts_rt_group *ts_rt_group_create(const char *name, unsigned long shares,
				       struct ts_rt_group *parent)
{
	if (!rt_call_enter(true)) {
		rt_error(-ENXIO, "ts_rt_group_create: the runtime is not running");
		return NULL;
	}
	struct ts_rt_group *g = calloc(1, sizeof(*g));
	if (!g) {
		rt_call_leave();
		rt_error(-ENOMEM, "ts_rt_group_create: out of memory");
		return NULL;
	}
	pthread_mutex_lock(&rt_g.group_lock);
	int rc = 0;
	if (parent && !known(parent)) {
		rc = rt_error(-EINVAL,
			      "ts_rt_group_create: '%s': the parent is not a group of this run",
			      name ? name : "(null)");
		goto out;
	}
	if (rt_g.nr_groups == rt_g.cap_groups) {
		int cap = rt_g.cap_groups ? 2 * rt_g.cap_groups : 16;
		struct ts_rt_group **v = realloc(rt_g.groups, (size_t)cap * sizeof(*v));
		if (!v) {
			rc = rt_error(-ENOMEM, "ts_rt_group_create: out of memory");
			goto out;
		}
		rt_g.groups = v;
		rt_g.cap_groups = cap;
	}
	struct ts_error err = {0};
	lock_all_rqs();
	rc = ts_sched_group_create(rt_g.s, parent ? parent->tg : NULL, name, shares, &g->tg, &err);
	unlock_all_rqs();
	if (rc) {
		rt_error(rc, "ts_rt_group_create: %s", err.msg);
		goto out;
	}
	g->parent = parent;
	rt_g.groups[rt_g.nr_groups++] = g;
out:
	pthread_mutex_unlock(&rt_g.group_lock);
	rt_call_leave();
	if (rc) {
		free(g);
		return NULL;
	}
	rt_error_clear();
	return g;
}

/* The group's core group, NULL when g is not one of this run (or the runtime is not
 * running): the name stays valid until ts_rt_stop() (set at creation, never changed). */
struct ts_task_group *ts_rt_group_tg(const struct ts_rt_group *g)
{
	struct ts_task_group *tg = NULL;
	if (!rt_call_enter(true))
		return NULL;
	if (rt_group_resolve(g, &tg))
		tg = NULL;
	rt_call_leave();
	return tg;
}

const char *ts_rt_group_name(const struct ts_rt_group *g)
{
	struct ts_task_group *tg = ts_rt_group_tg(g);
	return tg ? tg->name : NULL;
}

int ts_rt_group_stats(const struct ts_rt_group *g, struct ts_rt_group_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!rt_call_enter(true))
		return rt_error(-ENXIO, "ts_rt_group_stats: the runtime is not running");
	pthread_mutex_lock(&rt_g.group_lock);
	if (g && !known(g)) {
		pthread_mutex_unlock(&rt_g.group_lock);
		rt_call_leave();
		return rt_error(-EINVAL, "ts_rt_group_stats: not a group of this run");
	}
	for (int i = 0; i < rt_g.nr_groups; i++) {
		if (g && rt_g.groups[i] != g)
			continue;
		struct ts_tg_stats s;
		ts_tg_stats_sum(rt_g.groups[i]->tg, &s); /* relaxed reads of per-CPU counters */
		out->writes += s.writes;
		out->reads += s.reads;
		out->remote_writes += s.remote_writes;
		out->skipped_ratelimit += s.skipped_ratelimit;
		out->skipped_filter += s.skipped_filter;
		out->nr_groups++;
	}
	pthread_mutex_unlock(&rt_g.group_lock);
	rt_call_leave();
	out->at_ns = rt_monotonic_ns();
	return 0;
}

int ts_rt_group_rates(const struct ts_rt_group_stats *a, const struct ts_rt_group_stats *b,
		      struct ts_rt_group_rates *out)
{
	memset(out, 0, sizeof(*out));
	if (b->at_ns <= a->at_ns)
		return rt_error(
			-EINVAL,
			"ts_rt_group_rates: the second reading is not later than the first");
	if (b->writes < a->writes || b->reads < a->reads || b->remote_writes < a->remote_writes ||
	    b->skipped_ratelimit < a->skipped_ratelimit || b->skipped_filter < a->skipped_filter ||
	    a->nr_groups != b->nr_groups)
		return rt_error(
			-EINVAL,
			"ts_rt_group_rates: the readings are not of the same groups in one run");
	uint64_t dt = b->at_ns - a->at_ns;
	out->interval_s = (double)dt / 1e9;
	out->writes = ts_tg_per_sec(b->writes - a->writes, dt);
	out->reads = ts_tg_per_sec(b->reads - a->reads, dt);
	out->remote_writes = ts_tg_per_sec(b->remote_writes - a->remote_writes, dt);
	out->skipped_ratelimit = ts_tg_per_sec(b->skipped_ratelimit - a->skipped_ratelimit, dt);
	out->skipped_filter = ts_tg_per_sec(b->skipped_filter - a->skipped_filter, dt);
	struct ts_tg_stats d = {.writes = b->writes - a->writes,
				.remote_writes = b->remote_writes - a->remote_writes};
	out->remote_share = ts_tg_remote_share(&d);
	return 0;
}

size_t ts_rt_group_dump(const struct ts_rt_group *g, char *buf, size_t len)
{
	if (buf && len)
		buf[0] = '\0';
	if (!rt_call_enter(true))
		return 0;
	pthread_mutex_lock(&rt_g.group_lock);
	size_t n = 0;
	/* The child lists change only under group_lock (and the rq locks): stable here. */
	if (!g || known(g))
		n = ts_tg_dump(g ? g->tg : rt_g.s->root_tg, buf, len);
	pthread_mutex_unlock(&rt_g.group_lock);
	rt_call_leave();
	return n;
}
