/* The fixture of the core's NUMA-balancing tests (test_numa.c, test_numa_rules.c,
 * test_numa_internal.c): the core tests' env (sched_env.h) on a preset or a hand-built grid
 * of nodes, its tasks with NUMA state, and the constructed fault state they are given. Each
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

#include "sched_env.h"
#include "toposched/sched.h"

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

/* A task with NUMA state (mm NULL: a process of its own; allowed NULL: every CPU), made
 * runnable on cpu and scheduled there: it runs when the CPU was idle, else it queues. */
static inline struct ts_task *env_spawn(struct env *e, int cpu, const struct ts_cpumask *allowed,
					struct ts_numa_mm *mm)
{
	struct ts_error err = {0};
	struct ts_task *p = env_task(e, 0, allowed, cpu);
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
