/* What the core's NUMA balancing files share (numa.c, numa_migrate.c, numa_scan.c,
 * numa_pages.c): the kernel's small accessors, named as the kernel names them. */
#ifndef TOPOSCHED_CORE_NUMA_INTERNAL_H
#define TOPOSCHED_CORE_NUMA_INTERNAL_H

#include "toposched/sched.h"

static inline int nr_nodes_of(struct ts_sched *s)
{
	return s->topo->nr_nodes;
}
static inline int cpu_to_node(struct ts_sched *s, int cpu)
{
	return s->topo->cpu[cpu].node;
}
static inline int task_node(struct ts_sched *s, const struct ts_task *p)
{
	return cpu_to_node(s, __atomic_load_n(&p->cpu, __ATOMIC_RELAXED));
}
static inline int node_distance(struct ts_sched *s, int a, int b)
{
	return ts_topo_distance(s->topo, a, b);
}
static inline uint64_t jiffies(struct ts_sched *s)
{
	return s->ops.clock(s->host) / s->tick_nsec;
}
static inline uint64_t msecs_to_jiffies(struct ts_sched *s, uint64_t ms)
{
	return (ms * s->hz + 999) / 1000;
}
/* cpumask_of_node(nid) restricted to the scheduled CPUs; NULL for a CPU-less node. */
static inline const struct ts_cpumask *node_mask(struct ts_sched *s, int nid)
{
	return ts_numa_mask(&s->dom->numa, 0, nid);
}
static inline bool node_has_cpus(struct ts_sched *s, int nid)
{
	return ts_cpumask_test(s->dom->numa.node_has_cpu, nid);
}
/* rq->curr read without the lock (rcu_dereference(rq->curr) in the kernel): rq.c stores it
 * with a relaxed atomic store (ts_rq_set_curr()). */
static inline struct ts_task *rq_curr(struct ts_sched *s, int cpu)
{
	return __atomic_load_n(&s->rq[cpu].curr, __ATOMIC_RELAXED);
}
/* Of env->p or of another CPU's running task, without that CPU's lock: every field it
 * reads is a relaxed atomic load (ts_task_h_load_of(), pelt.h, group.h). */
static inline unsigned long task_h_load(struct ts_sched *s, struct ts_task *p)
{
	return ts_task_h_load_of(s, p);
}
static inline int preferred_nid(const struct ts_task *p)
{
	return p->numa ? p->numa->numa_preferred_nid : TS_NUMA_NO_NODE;
}
static inline struct ts_numa_group *numa_group_of(const struct ts_task *p)
{
	return p->numa ? p->numa->numa_group : NULL;
}

static inline unsigned long group_faults_cpu(const struct ts_numa_group *ng, int nn, int nid)
{
	return ng->faults[ts_numa_faults_idx(nn, TS_NUMA_CPU, nid, 0)] +
	       ng->faults[ts_numa_faults_idx(nn, TS_NUMA_CPU, nid, 1)];
}

static inline unsigned long group_faults_priv(const struct ts_numa_group *ng, int nn, int priv)
{
	unsigned long f = 0;
	for (int node = 0; node < nn; node++)
		f += ng->faults[ts_numa_faults_idx(nn, TS_NUMA_MEM, node, priv)];
	return f;
}

/* update_task_scan_period() (numa_scan.c), from task_numa_placement() (numa.c) with the
 * shared and private faults of the scan window just closed. */
void ts_numa_update_task_scan_period(struct ts_task *p, unsigned long shared, unsigned long priv);

#endif
