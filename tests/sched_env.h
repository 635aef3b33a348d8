/* The core tests' environment: a scheduler over the fake host on a topology, and a pool of
 * tasks that the environment frees. A test that needs more than 64 tasks by default defines
 * ENV_MAX_TASKS before including this (or passes its own count to env_open()). Each test
 * closes its env itself with env_destroy(), after its own checks. */
#ifndef TOPOSCHED_TEST_SCHED_ENV_H
#define TOPOSCHED_TEST_SCHED_ENV_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_host.h"
#include "topo_fixture.h"
#include "toposched/sched.h"

#ifndef ENV_MAX_TASKS
#define ENV_MAX_TASKS 64
#endif

struct env {
	struct fake_host f;
	struct ts_topology *t; /* owned */
	struct ts_sched *s;
	struct ts_task *task; /* [max_tasks]: never moves, the core keeps pointers into it */
	int nr_tasks, max_tasks;
};

/* A scheduler on t (the env owns it) with features applied on the defaults (NULL or "":
 * the defaults), a configuration (NULL: the defaults), host ops (NULL: fake_ops) and room
 * for max_tasks tasks. The clock starts at 1 ms: PELT treats last_update_time 0 as "never". */
static inline void env_open(struct env *e, struct ts_topology *t, const char *features,
			    const struct ts_sched_config *cfg, const struct ts_host_ops *ops,
			    int max_tasks)
{
	memset(e, 0, sizeof(*e));
	e->t = t;
	e->f.now = 1000000;
	e->f.nr_cpus = t->nr_cpus;
	e->max_tasks = max_tasks;
	e->task = calloc((size_t)max_tasks, sizeof(*e->task));
	assert_non_null(e->task);
	struct ts_features feat = ts_features_default();
	struct ts_error err = {0};
	if (features && ts_features_parse(features, &feat, &err))
		fail_msg("features \"%s\": %s", features, err.msg);
	if (ts_sched_create(t, feat, ops ? ops : &fake_ops, &e->f, cfg, &e->s, &err))
		fail_msg("ts_sched_create on %s: %s", t->name, err.msg);
}

/* env_open() with the fake host and ENV_MAX_TASKS tasks. */
static inline void env_start(struct env *e, struct ts_topology *t, const char *features,
			     const struct ts_sched_config *cfg)
{
	env_open(e, t, features, cfg, NULL, ENV_MAX_TASKS);
}

static inline void env_preset(struct env *e, const char *name, const char *features)
{
	env_start(e, preset(name), features, NULL);
}

/* The kernel profile of version text v ("5.6"), which must parse. */
static inline struct ts_kernel_profile kernel(const char *v)
{
	struct ts_kernel_profile k;
	struct ts_error err = {0};
	if (ts_kernel_profile_parse(v, &k, &err))
		fail_msg("kernel %s: %s", v, err.msg);
	return k;
}

/* The sched domain of cpu spanning span CPUs; fails the test when cpu has none. */
static inline struct ts_sched_domain *env_domain_of_span(struct env *e, int cpu, int span)
{
	struct ts_sched_domain *sd;
	ts_for_each_domain(e->s->dom, cpu, sd) if (sd->span_weight == span) return sd;
	fail_msg("CPU %d has no domain spanning %d CPUs", cpu, span);
	return NULL;
}

/* The pool's next task, initialised (nice, allowed: NULL = every CPU) on cpu, not queued;
 * its id is its index in the pool. */
static inline struct ts_task *env_task(struct env *e, int nice, const struct ts_cpumask *allowed,
				       int cpu)
{
	struct ts_error err = {0};
	assert_true(e->nr_tasks < e->max_tasks);
	struct ts_task *p = &e->task[e->nr_tasks];
	assert_int_equal(ts_task_init(e->s, p, nice, allowed, cpu, &err), 0);
	p->id = e->nr_tasks++;
	return p;
}

/* One more task running (or queued) on cpu through the fake host; returns it. */
static inline struct ts_task *env_busy(struct env *e, int cpu)
{
	struct ts_task *q = env_task(e, 0, NULL, cpu);
	fake_run_on(e->s, &e->f, q, cpu);
	assert_false(ts_idle_cpu(e->s, cpu));
	return q;
}

/* Frees the tasks (their NUMA state too), the scheduler and the topology; the checks before
 * it are the test's. */
static inline void env_destroy(struct env *e)
{
	for (int i = 0; i < e->nr_tasks; i++) {
		ts_numa_task_free(e->s, &e->task[i]);
		ts_task_destroy(&e->task[i]);
	}
	ts_sched_destroy(e->s);
	ts_topology_free(e->t);
	free(e->task);
}

#endif
