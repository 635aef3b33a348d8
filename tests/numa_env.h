/* The fixture of the core's NUMA-balancing tests (test_numa.c, test_numa_rules.c,
 * test_numa_internal.c): a scheduler over the fake host on a preset or a hand-built grid of
 * nodes, a pool of tasks with NUMA state, and the constructed fault state they are given.
 * A test that needs more than 64 tasks defines ENV_MAX_TASKS before including this. Each
 * test closes its env itself (env_destroy() after its own checks), since the files check
 * the run queues' NUMA counts to different extents. */
#ifndef TOPOSCHED_TEST_NUMA_ENV_H
#define TOPOSCHED_TEST_NUMA_ENV_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_host.h"
#include "toposched/sched.h"

#ifndef ENV_MAX_TASKS
#define ENV_MAX_TASKS 64
#endif

struct env {
	struct fake_host f;
	struct ts_topology *t;
	struct ts_sched *s;
	struct ts_task task[ENV_MAX_TASKS];
	int nr_tasks;
};

/* fake_sched() with a configuration (hz, cpu_map; NULL: the defaults); the env owns t. */
static inline void env_start(struct env *e, struct ts_topology *t, const char *features,
			     const struct ts_sched_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->t = t;
	e->f.now = 1000000; /* 1 ms, as fake_sched(): PELT treats 0 as "never" */
	e->f.nr_cpus = t->nr_cpus;
	struct ts_features feat = ts_features_default();
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse(features, &feat, &err), 0);
	assert_int_equal(ts_sched_create(t, feat, &fake_ops, &e->f, cfg, &e->s, &err), 0);
}

static inline void env_preset(struct env *e, const char *preset, const char *features)
{
	struct ts_error err = {0};
	const struct ts_preset *pr = ts_preset_find(preset);
	assert_non_null(pr);
	struct ts_topology *t = pr->build(&err);
	assert_non_null(t);
	env_start(e, t, features, NULL);
}

/* nr_nodes x per_node CPUs (CPU i on node i / per_node), an LLC and a package per node,
 * the given distance matrix (rows separated by ';'). */
static inline struct ts_topology *grid_topology(int nr_nodes, int per_node, const char *distance)
{
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(nr_nodes * per_node, nr_nodes, &err);
	assert_non_null(t);
	for (int i = 0; i < t->nr_cpus; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i;
		t->cpu[i].node = i / per_node;
		t->cpu[i].llc = i / per_node;
		t->cpu[i].package = i / per_node;
	}
	assert_int_equal(ts_topology_parse_distance(t, distance, &err), 0);
	assert_int_equal(ts_topology_finish(t, &err), 0);
	return t;
}

static inline void env_grid(struct env *e, int nr_nodes, int per_node, const char *distance,
			    const char *features)
{
	env_start(e, grid_topology(nr_nodes, per_node, distance), features, NULL);
}

/* Per CPU, the rq's NUMA counts equal a recount from the queued tasks; the recounts'
 * machine-wide sums in *total_numa and *total_pref (either may be NULL). */
static inline void check_rq_counts(struct env *e, unsigned *total_numa, unsigned *total_pref)
{
	unsigned all_numa = 0, all_pref = 0;
	for (int c = 0; c < e->t->nr_cpus; c++) {
		unsigned numa = 0, pref = 0;
		for (int i = 0; i < e->nr_tasks; i++) {
			const struct ts_task *p = &e->task[i];
			if (p->state != TS_TASK_RUNNABLE || p->cpu != c || !p->numa)
				continue;
			numa += p->numa->numa_preferred_nid != TS_NUMA_NO_NODE;
			pref += p->numa->numa_preferred_nid == e->t->cpu[c].node;
		}
		assert_int_equal(atomic_load(&e->s->rq[c].ro.nr_numa_running), numa);
		assert_int_equal(atomic_load(&e->s->rq[c].ro.nr_preferred_running), pref);
		all_numa += numa;
		all_pref += pref;
	}
	if (total_numa)
		*total_numa = all_numa;
	if (total_pref)
		*total_pref = all_pref;
}

/* Frees the tasks, the scheduler and the topology (the checks before it are the test's). */
static inline void env_destroy(struct env *e)
{
	for (int i = 0; i < e->nr_tasks; i++) {
		ts_numa_task_free(e->s, &e->task[i]);
		ts_task_destroy(&e->task[i]);
	}
	ts_sched_destroy(e->s);
	ts_topology_free(e->t);
}

/* A task with NUMA state (mm NULL: a process of its own; allowed NULL: every CPU), made
 * runnable on cpu and scheduled there: it runs when the CPU was idle, else it queues. */
static inline struct ts_task *env_spawn(struct env *e, int cpu, const struct ts_cpumask *allowed,
					struct ts_numa_mm *mm)
{
	struct ts_error err = {0};
	assert_true(e->nr_tasks < ENV_MAX_TASKS);
	struct ts_task *p = &e->task[e->nr_tasks];
	assert_int_equal(ts_task_init(e->s, p, 0, allowed, cpu, &err), 0);
	p->id = e->nr_tasks++;
	assert_int_equal(ts_numa_task_init(e->s, p, mm, &err), 0);
	fake_run_on(e->s, &e->f, p, cpu);
	return p;
}

/* p's fault statistics (allocated on first use, as the first fault does). */
static inline unsigned long *faults_of(struct ts_task *p)
{
	struct ts_numa_task *n = p->numa;
	if (!n->numa_faults)
		n->numa_faults =
			calloc((size_t)(TS_NUMA_BUCKETS * 2 * n->nr_nodes), sizeof(unsigned long));
	assert_non_null(n->numa_faults);
	return n->numa_faults;
}

/* sched_setnuma() as the core does it: a queued task is re-accounted under its rq lock. */
static inline void set_pref(struct env *e, struct ts_task *p, int pref)
{
	fake_lock(&e->f, p->cpu);
	ts_numa_account_dequeue(e->s, p);
	p->numa->numa_preferred_nid = pref;
	if (p->state == TS_TASK_RUNNABLE)
		ts_numa_account_enqueue(e->s, p, p->cpu);
	fake_unlock(&e->f, p->cpu);
}

/* Averaged private MEM faults per node (mem[nr_nodes]) and a preferred node. */
static inline void set_faults(struct env *e, struct ts_task *p, const unsigned long *mem, int pref)
{
	unsigned long *f = faults_of(p);
	struct ts_numa_task *n = p->numa;
	n->total_numa_faults = 0;
	for (int nid = 0; nid < n->nr_nodes; nid++) {
		f[ts_numa_faults_idx(n->nr_nodes, TS_NUMA_MEM, nid, 1)] = mem[nid];
		n->total_numa_faults += mem[nid];
	}
	set_pref(e, p, pref);
}

/* cpu's numa_migrate_on: reserved by a migration in flight. */
static inline int reserved(struct env *e, int cpu)
{
	return atomic_load(&e->s->rq[cpu].ro.numa_migrate_on);
}

#endif
