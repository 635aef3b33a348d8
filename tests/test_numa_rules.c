/* The NUMA-balancing rules of kernel/sched/fair.c, one focused test per rule, on
 * constructed states. Every expectation is computed by hand from the kernel's formula
 * (kernel/sched/fair.c, v6.12), quoted in the comment next to it. test_numa.c has the
 * end-to-end cases (placement by share, swaps, the reservation in flight, fbq, the load
 * balancer); this file pins down the arithmetic and the branch conditions.
 *
 * Machines: the presets (kunpeng920 NUMA_GLUELESS_MESH, epyc-7601 NUMA_BACKPLANE,
 * epyc-7742 NUMA_DIRECT) and hand-built "grids" of nodes whose distance matrix the test
 * chooses: with all remote distances equal the topology is NUMA_DIRECT, score_nearby_nodes()
 * adds nothing and task_weight(p, nid) is simply 1000 * faults(nid) / total_faults. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numa_env.h"

#define MS 1000000ULL

/* 4 nodes x 4 CPUs, every remote distance 20: NUMA_DIRECT. imb_numa_nr of the NUMA domain
 * (build_sched_domains()): the first level above the LLC is the package (= node, before
 * degeneration), one LLC: imb = max(1, 4 >> 3) = 1; at the NUMA level x 16 / 16 -> 1. */
#define DIRECT4 "10 20 20 20; 20 10 20 20; 20 20 10 20; 20 20 20 10"

static void env_close(struct env *e)
{
	assert_int_equal(e->f.lock_errors, 0);
	check_rq_counts(e, NULL, NULL);
	env_destroy(e);
}

/* env_spawn() with placement kept manual (the fault path runs placement only after
 * numa_migrate_retry, which nothing but a fault reads). */
static struct ts_task *spawn(struct env *e, int cpu, const struct ts_cpumask *allowed,
			     struct ts_numa_mm *mm)
{
	struct ts_task *p = env_spawn(e, cpu, allowed, mm);
	p->numa->numa_migrate_retry = UINT64_MAX;
	return p;
}

/* A task allowed only on the CPUs of node nid. */
static struct ts_task *spawn_on_node_only(struct env *e, int cpu, int nid)
{
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	assert_non_null(m);
	ts_topology_node_mask(e->t, nid, m);
	struct ts_task *p = spawn(e, cpu, m, NULL);
	ts_cpumask_free(m);
	return p;
}

static void sleep_curr(struct env *e, int cpu)
{
	fake_lock(&e->f, cpu);
	ts_deactivate_curr(e->s, cpu, TS_TASK_SLEEPING);
	ts_schedule(e->s, cpu);
	fake_unlock(&e->f, cpu);
}

static unsigned long fault_at(struct ts_task *p, int bucket, int nid, int priv)
{
	return faults_of(p)[ts_numa_faults_idx(p->numa->nr_nodes, bucket, nid, priv)];
}

/* A numa_group of the n tasks with the given MEM faults per node (private, shared; NULL =
 * none) and CPU faults (private), as task_numa_group()/task_numa_placement() leave it. */
static struct ts_numa_group *make_group(struct ts_task **members, int n, const unsigned long *priv,
					const unsigned long *shared, const unsigned long *cpu)
{
	int nn = members[0]->numa->nr_nodes;
	struct ts_numa_group *g = calloc(1, sizeof(*g));
	assert_non_null(g);
	g->faults = calloc((size_t)(TS_NUMA_FAULT_STATS * nn), sizeof(unsigned long));
	assert_non_null(g->faults);
	atomic_flag_clear(&g->lock);
	g->refcount = g->nr_tasks = n;
	g->gid = members[0]->id;
	g->active_nodes = 1;
	for (int nid = 0; nid < nn; nid++) {
		g->faults[ts_numa_faults_idx(nn, TS_NUMA_MEM, nid, 1)] = priv ? priv[nid] : 0;
		g->faults[ts_numa_faults_idx(nn, TS_NUMA_MEM, nid, 0)] = shared ? shared[nid] : 0;
		g->faults[ts_numa_faults_idx(nn, TS_NUMA_CPU, nid, 1)] = cpu ? cpu[nid] : 0;
		g->total_faults += (priv ? priv[nid] : 0) + (shared ? shared[nid] : 0);
	}
	for (int i = 0; i < n; i++) {
		faults_of(members[i]);
		members[i]->numa->numa_group = g;
	}
	return g;
}

static void placement(struct env *e, struct ts_task *p)
{
	ts_numa_scan_done(p->numa->mm);
	ts_task_numa_placement(e->s, p);
}

/* A search by p that must decide (ts_task_numa_migrate() 0): the decision as it stood
 * before ts_numa_migrate_done() released it; the env is closed (the decision's task
 * pointers still compare equal to the env's tasks). */
static struct ts_numa_result search_and_close(struct env *e, struct ts_task *p)
{
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_migrate(e->s, p, &r), 0);
	const struct ts_numa_result decided = r;
	ts_numa_migrate_done(e->s, &r);
	env_close(e);
	return decided;
}

/* A counter of struct ts_numa_cpu_stats summed over the CPUs. */
static uint64_t stat_sum(struct env *e, size_t offset)
{
	struct ts_numa_cpu_stats st;
	ts_numa_stats_sum(e->s, &st);
	return ts_stat_read((const ts_counter *)((const char *)&st + offset));
}

#define STAT(e, field) stat_sum(e, offsetof(struct ts_numa_cpu_stats, field))

/* The lock-free view of cpu that the search reads (update_numa_stats()): cpu_load(),
 * cpu_util_cfs(), cpu_runnable(). Set after the tasks are placed (each rq change
 * republishes PELT's values). */
static void set_cpu_view(struct env *e, int cpu, unsigned long load, unsigned long util)
{
	atomic_store(&e->s->rq[cpu].ro.load_avg, load);
	atomic_store(&e->s->rq[cpu].ro.util_avg, util);
	atomic_store(&e->s->rq[cpu].ro.runnable_avg, util);
}

/* A mask of the CPUs of nodes first..last. */
static struct ts_cpumask *nodes_mask(struct env *e, int first, int last)
{
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	assert_non_null(m);
	for (int c = 0; c < e->t->nr_cpus; c++)
		if (e->t->cpu[c].node >= first && e->t->cpu[c].node <= last)
			ts_cpumask_set(m, c);
	return m;
}

/* ======== fault statistics and task_numa_placement() ======== */

/* task_numa_fault(): pages go to MEMBUF[mem_node][priv], CPUBUF[cpu_node][priv] and
 * locality[local]; placement then folds each window with
 *   diff = MEMBUF - MEM/2;  MEM += diff;  total_numa_faults += diff;  MEMBUF = 0
 * i.e. MEM halves per scan window (integer halving: a single fault never decays away). */
static void test_fault_decay_per_window(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 1, NULL, NULL);
	p->se.avg.load_sum = 0; /* no CPU-fault weight in this test */
	/* window 1: 10 first-touch pages on node 1 (private), 6 shared on node 2, 4 private
	 * local on node 0 */
	ts_task_numa_fault(e.s, p, NULL, 1, 10, 0, NULL);
	ts_task_numa_fault(e.s, p, q, 2, 6, TS_TNF_NO_GROUP, NULL);
	ts_task_numa_fault(e.s, p, p, 0, 4, TS_TNF_FAULT_LOCAL, NULL);
	assert_int_equal(fault_at(p, TS_NUMA_MEMBUF, 1, 1), 10);
	assert_int_equal(fault_at(p, TS_NUMA_MEMBUF, 2, 0), 6);
	assert_int_equal(fault_at(p, TS_NUMA_MEMBUF, 0, 1), 4);
	assert_int_equal(fault_at(p, TS_NUMA_CPUBUF, 0, 1), 14); /* p runs on node 0 */
	assert_int_equal(fault_at(p, TS_NUMA_CPUBUF, 0, 0), 6);
	assert_int_equal(p->numa->numa_faults_locality[0], 16);
	assert_int_equal(p->numa->numa_faults_locality[1], 4);
	assert_int_equal(p->numa->total_numa_faults, 0);
	assert_int_equal(ts_numa_task_faults(p, 1), 0); /* nothing averaged yet */

	placement(&e, p);
	assert_int_equal(fault_at(p, TS_NUMA_MEM, 1, 1), 10);
	assert_int_equal(fault_at(p, TS_NUMA_MEM, 2, 0), 6);
	assert_int_equal(fault_at(p, TS_NUMA_MEM, 0, 1), 4);
	for (int nid = 0; nid < 4; nid++)
		for (int priv = 0; priv < 2; priv++) {
			assert_int_equal(fault_at(p, TS_NUMA_MEMBUF, nid, priv), 0);
			assert_int_equal(fault_at(p, TS_NUMA_CPUBUF, nid, priv), 0);
		}
	assert_int_equal(p->numa->total_numa_faults, 20);
	assert_int_equal(p->numa->numa_preferred_nid, 1); /* max task_faults: 10 on node 1 */

	/* window 2: node 1 += 3 private, node 2 += 1 shared:
	 * 10 + 3 - 5 = 8, 6 + 1 - 3 = 4, 4 + 0 - 2 = 2; total 20 - 2 - 2 - 2 = 14 */
	ts_task_numa_fault(e.s, p, p, 1, 3, 0, NULL);
	ts_task_numa_fault(e.s, p, q, 2, 1, TS_TNF_NO_GROUP, NULL);
	placement(&e, p);
	assert_int_equal(ts_numa_task_faults(p, 1), 8);
	assert_int_equal(ts_numa_task_faults(p, 2), 4);
	assert_int_equal(ts_numa_task_faults(p, 0), 2);
	assert_int_equal(p->numa->total_numa_faults, 14);
	/* windows 3 and 4 without faults: 8 -> 4 -> 2, 4 -> 2 -> 1, 2 -> 1 -> 1 (1 - 1/2) */
	placement(&e, p);
	assert_int_equal(p->numa->total_numa_faults, 7);
	placement(&e, p);
	assert_int_equal(ts_numa_task_faults(p, 1), 2);
	assert_int_equal(ts_numa_task_faults(p, 2), 1);
	assert_int_equal(ts_numa_task_faults(p, 0), 1);
	assert_int_equal(p->numa->total_numa_faults, 4);
	env_close(&e);
}

/* CPU faults are weighted by the share of CPU time (numa_get_avg_runtime()):
 *   f_weight = ((runtime << 16) / (period + 1)) * CPUBUF / (total_faults + 1)
 *   CPU += f_weight - CPU/2
 * with total_faults = locality[0] + locality[1]; on the first placement runtime is
 * se.avg.load_sum and period LOAD_AVG_MAX, afterwards the sum_exec_runtime and exec_start
 * deltas since the last placement. */
static void test_cpu_faults_weighted_by_runtime(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	ts_task_numa_fault(e.s, p, NULL, 1, 30, 0, NULL);
	ts_task_numa_fault(e.s, p, p, 0, 10, TS_TNF_FAULT_LOCAL, NULL);
	p->se.avg.load_sum = TS_LOAD_AVG_MAX / 2; /* 23871: half the time running */
	p->se.exec_start = 5000 * MS;
	p->se.sum_exec_runtime = 1000 * MS;
	placement(&e, p);
	/* (23871 << 16) / 47743 = 32767;  32767 * 40 / 41 = 31967 */
	assert_int_equal(fault_at(p, TS_NUMA_CPU, 0, 1), 31967);
	assert_int_equal(fault_at(p, TS_NUMA_CPU, 0, 0), 0);
	assert_int_equal(fault_at(p, TS_NUMA_CPU, 1, 1), 0); /* CPU faults count the CPU's node */
	assert_int_equal(p->numa->last_task_numa_placement, 5000 * MS);
	assert_int_equal(p->numa->last_sum_exec_runtime, 1000 * MS);
	/* update_task_scan_period() took the regular branch: locality cleared */
	assert_int_equal(p->numa->numa_faults_locality[0] + p->numa->numa_faults_locality[1], 0);

	/* second window: 500 ms run in 1 s; 20 local faults:
	 * (500e6 << 16) / (1e9 + 1) = 32767;  32767 * 20 / 21 = 31206;
	 * CPU = 31967 + 31206 - 31967/2 = 31967 + 31206 - 15983 = 47190 */
	ts_task_numa_fault(e.s, p, p, 0, 20, TS_TNF_FAULT_LOCAL, NULL);
	p->se.exec_start = 6000 * MS;
	p->se.sum_exec_runtime = 1500 * MS;
	placement(&e, p);
	assert_int_equal(fault_at(p, TS_NUMA_CPU, 0, 1), 47190);
	/* MEM is not weighted: 30 - 15 = 15 on node 1, 10 + 20 - 5 = 25 on node 0 */
	assert_int_equal(ts_numa_task_faults(p, 1), 15);
	assert_int_equal(ts_numa_task_faults(p, 0), 25);
	env_close(&e);
}

/* task_numa_placement() runs once per new mm->numa_scan_seq (p->numa_scan_seq == seq:
 * return), however often it is called and however far the seq moved; each thread of an mm
 * keeps its own numa_scan_seq. */
static void test_placement_once_per_scan_seq(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_numa_mm mm = {.id = 100};
	struct ts_task *p = spawn(&e, 0, NULL, &mm), *q = spawn(&e, 1, NULL, &mm);
	ts_task_numa_fault(e.s, p, NULL, 0, 8, TS_TNF_FAULT_LOCAL, NULL);
	ts_task_numa_fault(e.s, q, NULL, 2, 8, 0, NULL);
	ts_task_numa_placement(e.s, p);
	ts_task_numa_placement(e.s, p);
	assert_int_equal(p->numa->nr_placements, 0);
	assert_int_equal(fault_at(p, TS_NUMA_MEMBUF, 0, 1), 8); /* still buffered */
	assert_int_equal(p->numa->numa_preferred_nid, TS_NUMA_NO_NODE);
	/* two completed scans before the next placement: still one fold (8, not 8 - 4) */
	ts_numa_scan_done(&mm);
	ts_numa_scan_done(&mm);
	ts_task_numa_placement(e.s, p);
	ts_task_numa_placement(e.s, p);
	assert_int_equal(p->numa->nr_placements, 1);
	assert_int_equal(p->numa->numa_scan_seq, 2);
	assert_int_equal(ts_numa_task_faults(p, 0), 8);
	assert_int_equal(p->numa->numa_preferred_nid, 0);
	/* q has its own seq: its placement is still due */
	ts_task_numa_placement(e.s, q);
	assert_int_equal(q->numa->nr_placements, 1);
	assert_int_equal(q->numa->numa_preferred_nid, 2);
	/* the fault path: every fault after numa_migrate_retry calls placement; only the first
	 * after a new seq does anything (p is on its preferred node: no migration either) */
	p->numa->numa_migrate_retry = 0;
	ts_task_numa_fault(e.s, p, p, 0, 1, TS_TNF_FAULT_LOCAL, NULL);
	ts_task_numa_fault(e.s, p, p, 0, 1, TS_TNF_FAULT_LOCAL, NULL);
	assert_int_equal(p->numa->nr_placements, 1);
	ts_numa_scan_done(&mm);
	p->numa->numa_migrate_retry = 0;
	ts_task_numa_fault(e.s, p, p, 0, 1, TS_TNF_FAULT_LOCAL, NULL);
	assert_int_equal(p->numa->nr_placements, 2);
	p->numa->numa_migrate_retry = 0;
	ts_task_numa_fault(e.s, p, p, 0, 1, TS_TNF_FAULT_LOCAL, NULL);
	assert_int_equal(p->numa->nr_placements, 2);
	assert_int_equal(p->numa->numa_scan_seq, 3);
	env_close(&e);
}

/* A memory-only node is never preferred: task_numa_placement() maps the node with the
 * most faults to numa_nearest_node(max_nid, N_CPU) (v6.12: "Cannot migrate task to
 * CPU-less node"), and preferred_group_nid() on NUMA_GLUELESS_MESH scores only nodes with
 * CPUs (for_each_node_state(node, N_CPU)), although score_nearby_nodes() counts the faults
 * of every online node.
 * Machine: CPU nodes 0, 1, 2 at 20/30 (levels 10 20 30; nodes 0 and 2 have node 1 closer
 * to both: NUMA_GLUELESS_MESH, max distance 30); node 3 has memory only, 15 from all. */
static void test_preferred_node_has_cpus(void **state)
{
	(void)state;
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(12, 4, &err);
	assert_non_null(t);
	for (int i = 0; i < 12; i++) {
		t->cpu[i].core = t->cpu[i].cluster = i;
		t->cpu[i].node = t->cpu[i].llc = t->cpu[i].package = i / 4;
	}
	assert_int_equal(ts_topology_parse_distance(
				 t, "10 20 30 15; 20 10 20 15; 30 20 10 15; 15 15 15 10", &err),
			 0);
	assert_int_equal(ts_topology_finish(t, &err), 0);
	struct env e;
	env_start(&e, t, "", NULL);
	assert_int_equal(e.s->dom->numa.type, TS_NUMA_GLUELESS_MESH);
	assert_int_equal(e.s->dom->numa.max_distance, 30);
	/* a task alone: 100 faults on node 3 -> nearest CPU node; all at 15: the lowest, 0 */
	struct ts_task *p = spawn(&e, 4, NULL, NULL);
	ts_task_numa_fault(e.s, p, NULL, 3, 100, 0, NULL);
	ts_task_numa_fault(e.s, p, NULL, 1, 10, 0, NULL);
	placement(&e, p);
	assert_int_equal(p->numa->numa_preferred_nid, 0);
	/* in a group with faults n1 = 10, n3 = 100: group_weight(node, 30) counts
	 * faults(node) + sum over other nodes closer than 30 of faults * (30 - d) / 20:
	 *   node 0: 0 + 10*10/20 + 100*15/20 = 5 + 75 = 80
	 *   node 1: 10 + 0 + 0 + 75 = 85
	 *   node 2: 0 + 5 + 75 = 80
	 *   (node 3 would score 100 + 10*15/20 = 107, but has no CPUs) -> node 1 */
	struct ts_task *g = spawn(&e, 8, NULL, NULL);
	const unsigned long gf[4] = {0, 10, 0, 100};
	make_group(&g, 1, gf, NULL, NULL);
	placement(&e, g);
	assert_int_equal(g->numa->numa_preferred_nid, 1);
	env_close(&e);
}

/* ======== update_task_scan_period() ======== */

/* One placement with a constructed window: locality {remote, local, failed}, private and
 * shared faults (MEMBUF of node 0); returns the new numa_scan_period. */
static unsigned int scan_window(struct env *e, struct ts_task *p, unsigned int period,
				unsigned long remote, unsigned long local, unsigned long failed,
				unsigned long priv, unsigned long shared)
{
	struct ts_numa_task *n = p->numa;
	unsigned long *f = faults_of(p);
	n->numa_scan_period = period;
	n->numa_faults_locality[0] = remote;
	n->numa_faults_locality[1] = local;
	n->numa_faults_locality[2] = failed;
	f[ts_numa_faults_idx(n->nr_nodes, TS_NUMA_MEMBUF, 0, 1)] = priv;
	f[ts_numa_faults_idx(n->nr_nodes, TS_NUMA_MEMBUF, 0, 0)] = shared;
	unsigned int hist = n->scan_period_hist_n;
	placement(e, p);
	assert_int_equal(n->scan_period_hist_n, hist + 1);
	assert_int_equal(n->scan_period_hist[hist % TS_NUMA_SCAN_HIST], n->numa_scan_period);
	return n->numa_scan_period;
}

/* "local + shared == 0 || locality[2]": the period doubles, capped at
 * numa_scan_period_max, and (the kernel returns early) the locality is not cleared. */
static void test_scan_period_doubles(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_task *n = p->numa;
	assert_int_equal(n->numa_scan_period, TS_NUMA_SCAN_DELAY_MS);	 /* init: scan delay */
	assert_int_equal(scan_window(&e, p, 2000, 0, 0, 0, 0, 0), 4000); /* no faults */
	/* remote private faults only: local + shared == 0 (sic) -> doubles as well */
	assert_int_equal(scan_window(&e, p, 2000, 50, 0, 0, 50, 0), 4000);
	assert_int_equal(n->numa_faults_locality[0], 50);
	/* failed migrations override local private faults */
	assert_int_equal(scan_window(&e, p, 2000, 20, 80, 1, 100, 0), 4000);
	assert_int_equal(n->numa_faults_locality[1], 80);
	assert_int_equal(n->numa_faults_locality[2], 1);
	/* min(numa_scan_period_max = 60000, 80000) */
	assert_int_equal(scan_window(&e, p, 40000, 0, 0, 0, 0, 0), 60000);
	env_close(&e);
}

/* ps = 10 * private / (private + shared), lr = 10 * local / (local + remote),
 * slot = DIV_ROUND_UP(period, 10):
 *   ps >= 7: period += max(ps - 7, 1) * slot
 *   else lr >= 7: period += max(lr - 7, 1) * slot
 *   else period -= (7 - max(lr, ps)) * slot
 * clamped to [task_scan_min, task_scan_max] = [1000, 60000] for a one-window mm. */
static void test_scan_period_slots(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_task *n = p->numa;
	/* ps 9: + 2 * 200 */
	assert_int_equal(scan_window(&e, p, 2000, 0, 10, 0, 90, 10), 2400);
	assert_int_equal(n->numa_faults_locality[0] + n->numa_faults_locality[1], 0); /* cleared */
	/* ps 7 exactly: slot 0 counts as 1: + 200 */
	assert_int_equal(scan_window(&e, p, 2000, 0, 10, 0, 70, 30), 2200);
	/* ps 10, period 1001: slot DIV_ROUND_UP(1001, 10) = 101: + 3 * 101 */
	assert_int_equal(scan_window(&e, p, 1001, 0, 10, 0, 10, 0), 1304);
	/* ps 2 (shared memory), lr 9: + 2 * 200; lr 7: + 1 * 200 */
	assert_int_equal(scan_window(&e, p, 2000, 10, 90, 0, 20, 80), 2400);
	assert_int_equal(scan_window(&e, p, 2000, 30, 70, 0, 20, 80), 2200);
	/* ps 6, lr 6: neither: - (7 - 6) * 200 */
	assert_int_equal(scan_window(&e, p, 2000, 40, 60, 0, 60, 40), 1800);
	/* ps 5, lr 3: - (7 - 5) * 200 */
	assert_int_equal(scan_window(&e, p, 2000, 70, 30, 0, 50, 50), 1600);
	/* ps 1, lr 0 (local faults 0 but shared ones): 1000 - 6 * 100 = 400 -> min 1000 */
	assert_int_equal(scan_window(&e, p, 1000, 100, 0, 0, 10, 90), 1000);
	/* ps 10 at 59000: + 3 * 5900 = 76700 -> max 60000 */
	assert_int_equal(scan_window(&e, p, 59000, 0, 10, 0, 10, 0), 60000);
	env_close(&e);
}

/* task_scan_min/max from the mm's RSS (task_nr_scan_windows(): RSS rounded up to 256 MB
 * windows) and, for a group, smax scaled by refcount * (shared + 1) / (private + shared + 1);
 * numa_scan_period_max is recomputed at every placement. */
static void test_scan_period_limits_from_mm(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 1, NULL, NULL);
	struct ts_numa_task *n = p->numa;
	/* 1 GiB + 1 page: 262145 pages -> round_up to 5 windows of 65536:
	 * min = max(1000 / (2560 / 256), 1000 / 5) = 200, max = 60000 / 5 = 12000 */
	n->mm->rss_pages = (1UL << 18) + 1;
	assert_int_equal(ts_numa_task_scan_min(p), 200);
	assert_int_equal(ts_numa_task_scan_max(p), 12000);
	/* 300 - 7 * 30 = 90 -> 200;  11000 + 3 * 1100 = 14300 -> 12000 */
	assert_int_equal(scan_window(&e, p, 300, 100, 0, 0, 0, 0) /* doubles: shared 0 */, 600);
	assert_int_equal(scan_window(&e, p, 300, 100, 0, 0, 0, 10), 200);
	assert_int_equal(scan_window(&e, p, 11000, 0, 10, 0, 10, 0), 12000);
	assert_int_equal(n->numa_scan_period_max, 12000);
	/* doubling is capped by numa_scan_period_max: 8000 -> 12000 */
	assert_int_equal(scan_window(&e, p, 8000, 0, 0, 0, 0, 0), 12000);
	/* 1 TiB: 4096 windows: min = max(100, 0) = 100, max = max(min, 60000 / 4096 = 14) */
	n->mm->rss_pages = 1UL << 28;
	assert_int_equal(ts_numa_task_scan_min(p), 100);
	assert_int_equal(ts_numa_task_scan_max(p), 100);
	n->mm->rss_pages = 0;

	/* a group of p and q (refcount 2), 100 shared and 100 private faults (of other
	 * members: p starts over without faults of its own):
	 * 60000 * 2 * 101 / 201 = 60298 */
	memset(faults_of(p), 0,
	       (size_t)(TS_NUMA_BUCKETS * 2 * n->nr_nodes) * sizeof(unsigned long));
	n->total_numa_faults = 0;
	struct ts_task *members[2] = {p, q};
	const unsigned long hundred[4] = {100, 0, 0, 0};
	struct ts_numa_group *g = make_group(members, 2, hundred, hundred, NULL);
	assert_int_equal(ts_numa_task_scan_max(p), 60298);
	/* shared only: 60000 * 2 * 101 / 101 = 120000; p adds 10 shared (111 / 111: the
	 * same). lr 10, ps 0: 80000 + 3 * 8000 = 104000, beyond a lone task's 60000 */
	g->faults[ts_numa_faults_idx(4, TS_NUMA_MEM, 0, 1)] = 0;
	g->total_faults = 100;
	assert_int_equal(ts_numa_task_scan_max(p), 120000);
	assert_int_equal(scan_window(&e, p, 80000, 0, 10, 0, 0, 10), 104000);
	assert_int_equal(n->numa_scan_period_max, 120000);
	env_close(&e);
}

/* The scan-period history: a ring of TS_NUMA_SCAN_HIST entries, one per
 * update_task_scan_period(), the newest at (hist_n - 1) % TS_NUMA_SCAN_HIST. Ten windows
 * without faults from 1000 ms: 2000 4000 8000 16000 32000 60000 60000 60000 60000 60000. */
static void test_scan_period_history(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_task *n = p->numa;
	ts_task_numa_fault(e.s, p, NULL, 0, 1, TS_TNF_FAULT_LOCAL, NULL); /* numa_faults */
	placement(&e, p); /* local 1, private 1: ps 10 -> 1000 + 3 * 100 = 1300 */
	assert_int_equal(n->numa_scan_period, 1300);
	n->numa_scan_period = 1000;
	n->scan_period_hist_n = 0;
	for (int i = 0; i < 10; i++)
		placement(&e, p);
	assert_int_equal(n->scan_period_hist_n, 10);
	const unsigned int expect[TS_NUMA_SCAN_HIST] = {60000, 60000, 8000,  16000,
							32000, 60000, 60000, 60000};
	for (int i = 0; i < TS_NUMA_SCAN_HIST; i++)
		assert_int_equal(n->scan_period_hist[i], expect[i]);
	assert_int_equal(n->scan_period_hist[(n->scan_period_hist_n - 1) % TS_NUMA_SCAN_HIST],
			 60000);
	env_close(&e);
}

/* ======== NUMA groups ======== */

/* preferred_group_nid(p, nid) for the three topology types, on a group's MEM faults:
 * NUMA_DIRECT: nid as is (the node with the most group faults); NUMA_GLUELESS_MESH: the
 * node with the highest group_weight(p, node, max_distance); NUMA_BACKPLANE: narrow down
 * from the largest distance, keeping the group of nodes (closer than dist to a) with the
 * most faults, down to one node. */
static int group_preference(const char *preset, struct ts_topology *t, const unsigned long *gf,
			    int own_node, unsigned long own_faults)
{
	struct env e;
	if (preset)
		env_preset(&e, preset, "");
	else
		env_start(&e, t, "", NULL);
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	make_group(&p, 1, gf, NULL, NULL);
	if (own_faults)
		ts_task_numa_fault(e.s, p, NULL, own_node, (int)own_faults, 0, NULL);
	placement(&e, p);
	int nid = p->numa->numa_preferred_nid;
	env_close(&e);
	return nid;
}

static void test_group_preferred_nid_direct(void **state)
{
	(void)state;
	/* epyc-7742, 2 nodes: p's own 20 faults on node 0 fold into the group (20 + 0) but
	 * the group's 60 on node 1 decide: a task alone would prefer node 0 */
	const unsigned long gf[2] = {0, 60};
	assert_int_equal(group_preference("epyc-7742", NULL, gf, 0, 20), 1);
}

static void test_group_preferred_nid_glueless(void **state)
{
	(void)state;
	/* kunpeng920 (10/16/25/32/33 between 0-1, 1-2, 0-2, 0-3): group faults 30 40 45 0.
	 * group_weight(node, 33) counts faults(node) + faults(o) * (33 - d) / 23 for d < 33:
	 *   node 0: 30 + 40*17/23 + 45*1/23          = 30 + 29 + 1      = 60
	 *   node 1: 40 + 30*17/23 + 45*8/23 + 0       = 40 + 22 + 15     = 77
	 *   node 2: 45 + 30*1/23 + 40*8/23 + 0*17/23  = 45 + 1 + 13      = 59
	 *   node 3: 0 + 45*17/23 + 40*1/23            = 33 + 1           = 34
	 * -> node 1, although node 2 has the most faults */
	const unsigned long gf[4] = {30, 40, 45, 0};
	assert_int_equal(group_preference("kunpeng920", NULL, gf, 0, 0), 1);
}

static void test_group_preferred_nid_backplane(void **state)
{
	(void)state;
	/* epyc-7601 (two sockets of four nodes, 16 within, 32 across): faults n0 30, n4 25,
	 * n5 25. dist 32: groups {0-3} = 30, {4-7} = 50 -> {4-7}; dist 16: every node alone:
	 * 25, 25, 0, 0 -> node 4 (the first maximum); node 0 has the most faults */
	const unsigned long gf[8] = {30, 0, 0, 0, 25, 25, 0, 0};
	assert_int_equal(group_preference("epyc-7601", NULL, gf, 0, 0), 4);
	/* Not every backplane is a tree: six nodes, two sockets at 30, within a socket
	 * 0-1 and 1-2 at 12 but 0-2 at 20. The kernel only groups nodes still in `nodes`:
	 *   dist 30: {0,1,2} = 180 (a = 0), {3,4,5} = 0         -> nodes {0,1,2}
	 *   dist 20: a = 0: {0,1} = 110; a = 2: {2} = 70         -> nodes {0,1}, nid 0
	 *   dist 12: a = 0: {0} = 60; a = 1: {1} = 50            -> nid 0
	 * (counting node 1 again for a = 2, {1,2} = 120, would end on node 2) */
	struct ts_topology *t =
		grid_topology(6, 2,
			      "10 12 20 30 30 30; 12 10 12 30 30 30; 20 12 10 30 30 30;"
			      "30 30 30 10 12 20; 30 30 30 12 10 12; 30 30 30 20 12 10");
	const unsigned long gf6[6] = {60, 50, 70, 0, 0, 0};
	assert_int_equal(group_preference(NULL, t, gf6, 0, 0), 0);
}

/* numa_group_count_active_nodes(): max_faults_cpu = the largest group CPU-fault count,
 * active_nodes = nodes with 3 * faults_cpu > max_faults_cpu (ACTIVE_NODE_FRACTION).
 * task_numa_fault() then counts a shared fault as local when the group spans several
 * active nodes and both the CPU's node and the memory's node are active. */
static void test_group_active_nodes(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 1, NULL, NULL);
	const unsigned long mem[4] = {10, 10, 10, 0}, cpu[4] = {90, 31, 30, 0};
	struct ts_numa_group *g = make_group(&p, 1, mem, NULL, cpu);
	placement(&e, p); /* p adds no CPU faults: CPUBUF empty, CPU 0 - 0/2 */
	assert_int_equal(g->max_faults_cpu, 90);
	assert_int_equal(g->active_nodes, 2); /* 270 > 90, 93 > 90; 90 is not > 90 */
	struct ts_numa_task *n = p->numa;
	memset(n->numa_faults_locality, 0, sizeof(n->numa_faults_locality));
	/* shared, CPU node 0 and memory node 1 both active: local */
	ts_task_numa_fault(e.s, p, q, 1, 5, TS_TNF_NO_GROUP, NULL);
	assert_int_equal(n->numa_faults_locality[1], 5);
	/* shared, memory on node 2 (not active): remote */
	ts_task_numa_fault(e.s, p, q, 2, 3, TS_TNF_NO_GROUP, NULL);
	assert_int_equal(n->numa_faults_locality[0], 3);
	/* private, to active node 1: the rule is for shared faults only */
	ts_task_numa_fault(e.s, p, p, 1, 2, 0, NULL);
	assert_int_equal(n->numa_faults_locality[0], 5);
	assert_int_equal(n->numa_faults_locality[1], 5);
	/* the vmstat counter numa_hint_faults_local counts TNF_FAULT_LOCAL only */
	assert_int_equal(STAT(&e, hint_faults_local), 0);
	assert_int_equal(STAT(&e, hint_faults_remote), 10);
	/* one active node (CPU faults 90 0 0 0): no rule, even for a remote page that the
	 * fault just migrated to p's node (TNF_MIGRATED, mem_node 0, not TNF_FAULT_LOCAL) */
	for (int nid = 1; nid < 4; nid++)
		g->faults[ts_numa_faults_idx(4, TS_NUMA_CPU, nid, 1)] = 0;
	placement(&e, p);
	assert_int_equal(g->active_nodes, 1);
	memset(n->numa_faults_locality, 0, sizeof(n->numa_faults_locality));
	ts_task_numa_fault(e.s, p, q, 0, 4, TS_TNF_NO_GROUP | TS_TNF_MIGRATED, NULL);
	assert_int_equal(n->numa_faults_locality[0], 4);
	assert_int_equal(n->numa_faults_locality[1], 0);
	env_close(&e);
}

/* task_numa_group() on a shared fault (the last accessor is another task that still runs
 * on the CPU the page recorded): p gets a group of its own first; it then joins the
 * other task's group if that one is bigger (ties: toposched compares gids where the kernel
 * compares addresses, for reproducible runs; the lower gid joins), and only for threads
 * of one mm or with TNF_SHARED; a join refused by that filter makes the fault private.
 * Private faults and TNF_NO_GROUP never group. */
static void test_group_join_rules(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *a = spawn(&e, 0, NULL, NULL), *b = spawn(&e, 1, NULL, NULL);
	struct ts_task *c = spawn(&e, 32, NULL, NULL), *d = spawn(&e, 33, NULL, NULL);
	struct ts_task *x = spawn(&e, 64, NULL, NULL);
	/* private faults, first touches: no group; a's 4 local faults averaged */
	ts_task_numa_fault(e.s, a, a, 0, 4, TS_TNF_FAULT_LOCAL, NULL);
	ts_task_numa_fault(e.s, a, NULL, 0, 1, TS_TNF_FAULT_LOCAL, NULL);
	a->se.avg.load_sum = 0;
	placement(&e, a);
	assert_null(a->numa->numa_group);
	assert_int_equal(a->numa->total_numa_faults, 5);
	/* TNF_NO_GROUP: shared, still no group */
	ts_task_numa_fault(e.s, a, b, 1, 2, TS_TNF_NO_GROUP | TS_TNF_SHARED, NULL);
	assert_null(a->numa->numa_group);
	assert_int_equal(fault_at(a, TS_NUMA_MEMBUF, 1, 0), 2);
	assert_int_equal(STAT(&e, hint_faults_shared), 2);
	/* a faults on b's page, b has no group: a's own group (a copy of a's faults), shared */
	ts_task_numa_fault(e.s, a, b, 1, 3, 0, NULL);
	struct ts_numa_group *ga = a->numa->numa_group;
	assert_non_null(ga);
	assert_int_equal(ga->nr_tasks, 1);
	assert_int_equal(ga->refcount, 1);
	assert_int_equal(ga->gid, a->id);
	assert_int_equal(ga->total_faults, 5);
	assert_int_equal(ga->faults[ts_numa_faults_idx(4, TS_NUMA_MEM, 0, 1)], 5);
	assert_int_equal(fault_at(a, TS_NUMA_MEMBUF, 1, 0), 5);
	assert_null(b->numa->numa_group);
	/* b faults on a's page: b's own group; a tie (1 = 1) and b's gid is the higher: no
	 * join, the fault stays shared */
	ts_task_numa_fault(e.s, b, a, 0, 1, 0, NULL);
	struct ts_numa_group *gb = b->numa->numa_group;
	assert_non_null(gb);
	assert_ptr_not_equal(gb, ga);
	assert_int_equal(fault_at(b, TS_NUMA_MEMBUF, 0, 0), 1);
	/* a faults on b's page without TNF_SHARED, different mm: join refused, *priv = 1 */
	ts_task_numa_fault(e.s, a, b, 1, 7, 0, NULL);
	assert_ptr_equal(a->numa->numa_group, ga);
	assert_int_equal(fault_at(a, TS_NUMA_MEMBUF, 1, 1), 7);
	assert_int_equal(STAT(&e, hint_faults_private), 5 + 7);
	/* ... with TNF_SHARED: a moves its faults from its group to b's and drops its own */
	ts_task_numa_fault(e.s, a, b, 1, 1, TS_TNF_SHARED, NULL);
	assert_ptr_equal(a->numa->numa_group, gb);
	assert_int_equal(gb->nr_tasks, 2);
	assert_int_equal(gb->refcount, 2);
	assert_int_equal(gb->total_faults, 5);
	assert_int_equal(gb->faults[ts_numa_faults_idx(4, TS_NUMA_MEM, 0, 1)], 5);
	/* c, alone, faults on a's page (shared): the bigger group (2 > 1) takes it */
	ts_task_numa_fault(e.s, c, a, 0, 1, TS_TNF_SHARED, NULL);
	assert_ptr_equal(c->numa->numa_group, gb);
	assert_int_equal(gb->nr_tasks, 3);
	assert_int_equal(gb->refcount, 3);
	/* x gets a group of its own; a (group of 3) faulting on x's page does not join the
	 * smaller group, and x does not come along either */
	ts_task_numa_fault(e.s, x, a, 0, 1, TS_TNF_NO_GROUP, NULL);
	ts_task_numa_fault(e.s, x, d, 0, 1, 0, NULL);
	struct ts_numa_group *gx = x->numa->numa_group;
	assert_non_null(gx);
	ts_task_numa_fault(e.s, a, x, 2, 1, TS_TNF_SHARED, NULL);
	assert_ptr_equal(a->numa->numa_group, gb);
	assert_int_equal(gx->nr_tasks, 1);
	assert_int_equal(gb->nr_tasks, 3);
	/* the last accessor no longer runs on its CPU: no join (d gets its own group) */
	sleep_curr(&e, 1); /* b */
	ts_task_numa_fault(e.s, d, b, 0, 1, TS_TNF_SHARED, NULL);
	assert_non_null(d->numa->numa_group);
	assert_ptr_not_equal(d->numa->numa_group, gb);
	assert_int_equal(gb->nr_tasks, 3);
	/* a leaves (exit): its faults and its reference go with it */
	ts_numa_task_free(e.s, a);
	assert_null(a->numa);
	assert_int_equal(gb->nr_tasks, 2);
	assert_int_equal(gb->refcount, 2);
	assert_int_equal(gb->total_faults, 0);
	assert_int_equal(gb->faults[ts_numa_faults_idx(4, TS_NUMA_MEM, 0, 1)], 0);
	env_close(&e);
}

/* ======== numa_migrate_preferred() ======== */

/* No preferred node or no faults: nothing, numa_migrate_retry untouched. Otherwise
 *   numa_migrate_retry = jiffies + min(HZ, msecs_to_jiffies(numa_scan_period) / 16)
 * and task_numa_migrate() unless p already runs on its preferred node. The fault path
 * retries once jiffies is after numa_migrate_retry (time_after: strictly). */
static void test_migrate_preferred_retry(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", ""); /* HZ 1000: jiffies = ms */
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_task *n = p->numa;
	struct ts_numa_result r;
	n->numa_migrate_retry = 0;
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, &r), 1); /* no faults */
	assert_int_equal(r.ret, 1);
	assert_int_equal(r.dst_cpu, -1);
	faults_of(p);
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, &r), 1); /* no preferred node */
	assert_int_equal(n->numa_migrate_retry, 0);
	/* on its preferred node: 1 + min(1000, 1000 / 16 = 62) */
	const unsigned long on0[4] = {100, 0, 0, 0}, on1[4] = {0, 100, 0, 0};
	set_faults(&e, p, on0, 0);
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, &r), 1);
	assert_int_equal(n->numa_migrate_retry, 1 + 62);
	/* scan period 60000: 60000 / 16 = 3750 > HZ -> 1 + 1000 */
	n->numa_scan_period = 60000;
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, &r), 1);
	assert_int_equal(n->numa_migrate_retry, 1 + 1000);
	assert_int_equal(STAT(&e, migrate_attempts), 0);
	/* preferred node 1 at jiffies 100: an attempt, retry at 162 */
	n->numa_scan_period = 1000;
	set_faults(&e, p, on1, 1);
	e.f.now = 100 * MS;
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, &r), 0);
	assert_int_equal(e.t->cpu[r.dst_cpu].node, 1);
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(n->numa_migrate_retry, 162);
	assert_int_equal(STAT(&e, migrate_attempts), 1);
	/* faults at jiffies 162: not after the retry time */
	e.f.now = 162 * MS;
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 1, 1, 0, &r), 1);
	assert_int_equal(STAT(&e, migrate_attempts), 1);
	e.f.now = 163 * MS;
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 1, 1, 0, &r), 0);
	assert_int_equal(STAT(&e, migrate_attempts), 2);
	assert_int_equal(n->numa_migrate_retry, 163 + 62);
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);

	/* HZ 250: msecs_to_jiffies(1100) = DIV_ROUND_UP(1100, 4) = 275; 275 / 16 = 17 */
	struct ts_error err = {0};
	const struct ts_sched_config cfg = {.hz = 250};
	env_start(&e, ts_preset_find("kunpeng920")->build(&err), "", &cfg);
	p = spawn(&e, 0, NULL, NULL);
	set_faults(&e, p, on0, 0);
	p->numa->numa_scan_period = 1100;
	e.f.now = 400 * MS; /* jiffies 100 */
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, NULL), 1);
	assert_int_equal(p->numa->numa_migrate_retry, 100 + 17);
	env_close(&e);
}

/* ======== task_numa_migrate(): where it looks ======== */

/* The preferred node first; the other nodes (with CPUs, not src, not preferred) only when
 * no CPU was found there or p's group is active on several nodes. A node is skipped when
 * both taskimp and groupimp are negative: for a task without a group groupimp is
 * 0 - 0 = 0, so it never is. The has_spare path assigns an idle CPU unconditionally
 * (task_numa_assign(env, NULL, 0)), so with every node idle the last node searched wins.
 * DIRECT4; p on CPU 0 with faults n0 10, n1 50, n2 5, n3 35, preferring node 1. */
static void test_search_order(void **state)
{
	(void)state;
	const unsigned long pf[4] = {10, 50, 5, 35};
	struct env e;
	struct ts_numa_result r;
	/* preferred node 1 idle: CPU 4, nothing else looked at (node 3 would win) */
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	set_faults(&e, p, pf, 1);
	r = search_and_close(&e, p);
	assert_int_equal(r.dst_cpu, 4);

	/* node 1 taken by tasks that may not leave it (no swap: src_cpu not in their
	 * cpus_ptr): nodes 2 and 3 are searched, node 2 although taskimp = 50 - 100 < 0; the
	 * reservation of CPU 8 is handed to CPU 12 */
	env_grid(&e, 4, 4, DIRECT4, "");
	p = spawn(&e, 0, NULL, NULL);
	for (int c = 4; c < 8; c++)
		spawn_on_node_only(&e, c, 1);
	for (int c = 4; c < 8; c++)
		set_cpu_view(&e, c, 0, 1024); /* fully busy */
	set_faults(&e, p, pf, 1);
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_int_equal(r.dst_cpu, 12);
	assert_int_equal(reserved(&e, 8), 0);
	assert_int_equal(reserved(&e, 12), 1);
	assert_int_equal(p->numa->numa_preferred_nid, 1); /* no group: not settled */
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);
}

/* A group: taskimp and groupimp both negative skip a node; with active_nodes > 1 the other
 * nodes are searched although the preferred one had room, and the group settles where it
 * lands (sched_setnuma(p, cpu_to_node(best_cpu))). p's task faults are all on node 0
 * (task weight 1000 there: taskimp -1000 everywhere else); group faults n0 10, n1 50,
 * n2 0, n3 40 (total 100): groupimp node 1 +400, node 2 -100, node 3 +300. */
static void group_search_case(int active_nodes, int expect_cpu, int expect_pref)
{
	const unsigned long own[4] = {10, 0, 0, 0}, gf[4] = {10, 50, 0, 40};
	struct env e;
	struct ts_numa_result r;
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	set_faults(&e, p, own, 1);
	struct ts_numa_group *g = make_group(&p, 1, gf, NULL, NULL);
	g->active_nodes = active_nodes;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_int_equal(r.dst_cpu, expect_cpu);
	assert_int_equal(p->numa->numa_preferred_nid, expect_pref);
	for (int c = 0; c < 16; c++)
		assert_int_equal(reserved(&e, c), c == expect_cpu);
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);
}

static void test_search_group_active_nodes(void **state)
{
	(void)state;
	group_search_case(2, 12, 3); /* node 2 skipped, node 3 searched last: settles on 3 */
	group_search_case(1, 4, 1);  /* one active node: the preferred node only */
}

/* env.imbalance_pct = 100 + (sd_numa->imbalance_pct - 100) / 2 (117 -> 108) classifies
 * the nodes. Node 1 runs 4 tasks at util 925 each (3700 of capacity 4096):
 *   pct 108: 4096*100 > 3700*108 = 399600 and 4096*108 > 3700*100: node_has_spare; then
 *     dst_running 5 > imb_numa_nr 1 keeps the imbalance 5 - 0: no move, and no swap
 *     between group-less tasks while the node has spare capacity -> -EAGAIN
 *   pct 112 (sd 125): 409600 < 3700*112 = 414400: node_fully_busy; moving p alone
 *     (load 1024: |5120*4096 - 0| > |4096*4096 - 1024*4096|) is too imbalanced, a swap
 *     with the task of CPU 4 (equal load) gains taskimp = 900 - 100 = 800 */
static void test_search_imbalance_pct(void **state)
{
	(void)state;
	for (int sd_pct = 117; sd_pct <= 125; sd_pct += 8) {
		struct env e;
		struct ts_numa_result r;
		env_grid(&e, 4, 4, DIRECT4, "");
		struct ts_sched_domain *sd = e.s->dom->cpu[0].sd_numa;
		assert_non_null(sd);
		assert_int_equal(sd->imbalance_pct, 117);
		assert_int_equal(sd->imb_numa_nr, 1);
		sd->imbalance_pct = (unsigned)sd_pct;
		struct ts_cpumask *m = nodes_mask(&e, 0, 1);
		struct ts_task *p = spawn(&e, 0, m, NULL);
		ts_cpumask_free(m);
		struct ts_task *q4 = spawn(&e, 4, NULL, NULL);
		for (int c = 5; c < 8; c++)
			spawn(&e, c, NULL, NULL);
		const unsigned long pf[4] = {10, 90, 0, 0};
		set_faults(&e, p, pf, 1);
		for (int i = 0; i < e.nr_tasks; i++)
			e.task[i].se.avg.load_avg = 1024;
		set_cpu_view(&e, 0, 1024, 1024);
		for (int c = 4; c < 8; c++)
			set_cpu_view(&e, c, 1024, 925);
		int ret = ts_task_numa_migrate(e.s, p, &r);
		if (sd_pct == 117) {
			assert_int_equal(ret, -EAGAIN);
		} else {
			assert_int_equal(ret, 0);
			assert_ptr_equal(r.swap, q4);
			assert_int_equal(r.imp, 800);
			ts_numa_migrate_done(e.s, &r);
		}
		env_close(&e);
	}
}

/* No sd_numa (a cpuset that does not cross nodes): sched_setnuma(p, task_node(p)) and
 * -EINVAL, nothing reserved, no stick. Only node 0's CPUs are scheduled. */
static void test_search_without_sd_numa(void **state)
{
	(void)state;
	struct env e;
	struct ts_topology *t = grid_topology(4, 4, DIRECT4);
	struct ts_cpumask *node0 = ts_cpumask_alloc(16);
	ts_cpumask_set_range(node0, 0, 3);
	const struct ts_sched_config cfg = {.cpu_map = node0};
	env_start(&e, t, "", &cfg);
	assert_null(e.s->dom->cpu[0].sd_numa);
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	const unsigned long on1[4] = {0, 100, 0, 0};
	set_faults(&e, p, on1, 1);
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), -EINVAL);
	assert_int_equal(r.dst_cpu, -1);
	assert_int_equal(p->numa->numa_preferred_nid, 0);
	assert_int_equal(atomic_load(&e.s->rq[0].ro.nr_preferred_running), 1);
	assert_int_equal(STAT(&e, stick), 0);
	for (int c = 0; c < 16; c++)
		assert_int_equal(reserved(&e, c), 0);
	env_close(&e);
	ts_cpumask_free(node0);
}

/* ======== task_numa_compare() ======== */

/* DIRECT4: p on CPU 0 with faults n0 300, n1 700 (taskimp = 700 - 300 = 400), preferring
 * node 1, whose CPUs 4-7 run q4..q7 (fully busy). Loads (cpu_load, task_h_load) 1024 for
 * every task and busy CPU; src_load_per_cpu for the CPUs of node 0: 1024 on CPU 0 only
 * makes moving p alone too imbalanced (maymove false); 2048 on each makes it allowed
 * (|5120 - 7168| * 4096 < |4096 - 8192| * 4096). q[i] gets faults qf[i] (NULL: none) and
 * preferred node qpref[i]. */
struct compare_setup {
	const unsigned long *qf[4];
	int qpref[4];
	bool pinned[4]; /* q may not leave node 1 */
	bool maymove;
	bool cpu7_idle; /* q[3] is queued on CPU 4 instead (node 1 still counts 4) */
};

static struct ts_task *compare_env(struct env *e, const struct compare_setup *cs,
				   struct ts_task **q)
{
	env_grid(e, 4, 4, DIRECT4, "");
	struct ts_cpumask *m = nodes_mask(e, 0, 1);
	struct ts_task *p = spawn(e, 0, m, NULL); /* nodes 0 and 1: no escape to 2 or 3 */
	ts_cpumask_free(m);
	for (int i = 0; i < 4; i++) {
		int cpu = cs->cpu7_idle && i == 3 ? 4 : 4 + i;
		q[i] = cs->pinned[i] ? spawn_on_node_only(e, cpu, 1) : spawn(e, cpu, NULL, NULL);
	}
	const unsigned long pf[4] = {300, 700, 0, 0};
	set_faults(e, p, pf, 1);
	for (int i = 0; i < 4; i++)
		if (cs->qf[i])
			set_faults(e, q[i], cs->qf[i], cs->qpref[i]);
	for (int i = 0; i < e->nr_tasks; i++)
		e->task[i].se.avg.load_avg = 1024;
	for (int c = 0; c < 4; c++)
		set_cpu_view(e, c, cs->maymove ? 2048 : c == 0 ? 1024 : 0, c == 0 ? 1024 : 0);
	for (int c = 4; c < 8; c++)
		set_cpu_view(e, c, 1024, 1024);
	return p;
}

static const unsigned long Q_HOME[4] = {1000, 0, 0, 0};	 /* gains 1000 moving to node 0 */
static const unsigned long Q_STAYS[4] = {0, 1000, 0, 0}; /* loses 1000 */
static const unsigned long Q_EVEN[4] = {500, 500, 0, 0}; /* neutral */

/* A swap needs imp >= SMALLIMP (30) and imp > best_imp + SMALLIMP / 2. taskimp 400; q4
 * alone (the others pinned to node 1) losing 371 (3145/6855 of 10000 -> 314 - 685): imp 29,
 * refused; losing 370 (315 - 685): imp 30, taken. q4 neutral (400) then q5 gaining 15
 * (5075/4925 -> 507 - 492: 415 <= 400 + 15) keeps q4; q5 gaining 16 (508 - 492: 416)
 * replaces it, and the reservation moves from CPU 4 to CPU 5. Returns the partner's
 * index, -1 for none. */
static int smallimp_case(const unsigned long *q4f, const unsigned long *q5f, long *imp)
{
	const struct compare_setup cs = {
		.qf = {q4f, q5f},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.pinned = {false, q5f == NULL, true, true},
	};
	struct env e;
	struct ts_task *q[4];
	struct ts_task *p = compare_env(&e, &cs, q);
	struct ts_numa_result r;
	int ret = ts_task_numa_migrate(e.s, p, &r), which = -1;
	if (ret == 0) {
		which = r.swap == q[0] ? 0 : r.swap == q[1] ? 1 : 9;
		*imp = r.imp;
		for (int c = 4; c < 8; c++)
			assert_int_equal(reserved(&e, c), c == r.dst_cpu);
		ts_numa_migrate_done(e.s, &r);
	} else {
		assert_int_equal(ret, -EAGAIN);
	}
	env_close(&e);
	return which;
}

static void test_compare_smallimp_margin(void **state)
{
	(void)state;
	const unsigned long imp29[4] = {3145, 6855, 0, 0}, imp30[4] = {3150, 6850, 0, 0};
	const unsigned long plus15[4] = {5075, 4925, 0, 0}, plus16[4] = {508, 492, 0, 0};
	long imp = 0;
	assert_int_equal(smallimp_case(imp29, NULL, &imp), -1);
	assert_int_equal(smallimp_case(imp30, NULL, &imp), 0);
	assert_int_equal(imp, 30);
	assert_int_equal(smallimp_case(Q_EVEN, plus15, &imp), 0);
	assert_int_equal(imp, 400);
	assert_int_equal(smallimp_case(Q_EVEN, plus16, &imp), 1);
	assert_int_equal(imp, 416);
}

/* maymove: "moveimp > imp && moveimp > best_imp": p moves to the busy CPU instead of a swap
 * that gains less (q4 loses 1000: imp -600 < moveimp 400) -> a move to CPU 4 at imp 400;
 * a swap that gains more (q4 going home: 400 + 1000 = 1400) wins over the move. */
static void test_compare_move_or_swap(void **state)
{
	(void)state;
	struct env e;
	struct ts_task *q[4];
	struct ts_numa_result r;
	const struct compare_setup lose = {
		.qf = {Q_STAYS, Q_STAYS, Q_STAYS, Q_STAYS},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.maymove = true,
	};
	struct ts_task *p = compare_env(&e, &lose, q);
	r = search_and_close(&e, p);
	assert_null(r.swap);
	assert_int_equal(r.dst_cpu, 4);
	assert_int_equal(r.imp, 400);

	const struct compare_setup gain = {
		.qf = {Q_HOME, Q_STAYS, Q_STAYS, Q_STAYS},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.maymove = true,
	};
	p = compare_env(&e, &gain, q);
	r = search_and_close(&e, p);
	assert_ptr_equal(r.swap, q[0]);
	assert_int_equal(r.imp, 1400);
}

/* "Moving to an idle CPU": a move decided in task_numa_compare() (cur NULL) goes to the
 * idle CPU update_numa_stats() found (dst_stats.idle_cpu) when there is one, and ends the
 * search. Node 1 is fully busy by utilisation but CPU 7 is idle (its task is queued on
 * CPU 4): at CPU 4 the move (400 > -600) goes to CPU 7 and stops, before q5's swap (1400).
 * A cur that is exiting (PF_EXITING) counts as no task: with maymove, a move instead of
 * the swap it would have been. */
static void test_compare_move_to_idle(void **state)
{
	(void)state;
	struct env e;
	struct ts_task *q[4];
	struct ts_numa_result r;
	const struct compare_setup idle7 = {
		.qf = {Q_STAYS, Q_HOME, Q_STAYS, Q_STAYS},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.maymove = true,
		.cpu7_idle = true,
	};
	struct ts_task *p = compare_env(&e, &idle7, q);
	assert_true(ts_idle_cpu(e.s, 7));
	r = search_and_close(&e, p);
	assert_null(r.swap);
	assert_int_equal(r.dst_cpu, 7);
	assert_int_equal(r.imp, 400);

	const struct compare_setup exiting = {
		.qf = {Q_HOME, Q_STAYS, Q_STAYS, Q_STAYS},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.maymove = true,
	};
	p = compare_env(&e, &exiting, q);
	q[0]->state = TS_TASK_DEAD; /* in do_exit(), still curr */
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	q[0]->state = TS_TASK_RUNNABLE;
	assert_null(r.swap);
	assert_int_equal(r.dst_cpu, 4);
	assert_int_equal(r.imp, 400);
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);
}

/* The partner's preferred node: imp -= imp / 16 when it is the destination (q would leave
 * it), imp += imp / 8 when it is the source (q goes home). q4 gains 1000: 1400 - 87 = 1313,
 * 1400 + 175 = 1575. */
static long swap_imp_with_pref(int qpref)
{
	const struct compare_setup cs = {
		.qf = {Q_HOME}, .qpref = {qpref}, .pinned = {false, true, true, true}};
	struct env e;
	struct ts_task *q[4];
	struct ts_task *p = compare_env(&e, &cs, q);
	struct ts_numa_result r = search_and_close(&e, p);
	assert_ptr_equal(r.swap, q[0]);
	return r.imp;
}

static void test_compare_partner_preferred_node(void **state)
{
	(void)state;
	assert_int_equal(swap_imp_with_pref(TS_NUMA_NO_NODE), 1400);
	assert_int_equal(swap_imp_with_pref(1), 1313);
	assert_int_equal(swap_imp_with_pref(0), 1575);
}

/* A partner moving to its preferred node (the source) is preferred over one that is not:
 * without maymove, q5 (neutral, going home: 400 + 400/8 = 450) replaces q4 (1400) and
 * stops the search; with maymove (no stop), once q4 (going home, 450) is the best, q5
 * (1400, not going home) is skipped. */
static void test_compare_partner_going_home(void **state)
{
	(void)state;
	struct env e;
	struct ts_task *q[4];
	struct ts_numa_result r;
	const struct compare_setup stop = {
		.qf = {Q_HOME, Q_EVEN, Q_HOME, Q_HOME},
		.qpref = {TS_NUMA_NO_NODE, 0, 0, 0},
	};
	struct ts_task *p = compare_env(&e, &stop, q);
	r = search_and_close(&e, p);
	assert_ptr_equal(r.swap, q[1]);
	assert_int_equal(r.imp, 450);

	const struct compare_setup skip = {
		.qf = {Q_EVEN, Q_HOME, NULL, NULL},
		.qpref = {0, TS_NUMA_NO_NODE, 0, 0},
		.pinned = {false, false, true, true},
		.maymove = true,
	};
	p = compare_env(&e, &skip, q);
	r = search_and_close(&e, p);
	assert_ptr_equal(r.swap, q[0]);
	assert_int_equal(r.imp, 450);
}

/* Group against task improvements (q5..q7 pinned out of the way):
 *   no groups:             taskimp + task_weight(q, src) - task_weight(q, dst)
 *   one group for both:    the same, less 1/16 (hysteresis)
 *   different groups:      groupimp + group_weight(q, src) - group_weight(q, dst)
 *   p grouped, q not:      groupimp + q's task weights
 *   q grouped, p not:      taskimp + q's task weights
 * taskimp 400; p's group faults n0 200, n1 800 (groupimp 600); q's task faults 600/400
 * (+200); q's own group 700/300 (+400). */
enum grouping { NONE, SAME, BOTH_DIFFERENT, P_ONLY, Q_ONLY };

static long swap_imp_grouped(enum grouping gr)
{
	const unsigned long qf[4] = {600, 400, 0, 0};
	const unsigned long pg[4] = {200, 800, 0, 0}, qg[4] = {700, 300, 0, 0};
	const struct compare_setup cs = {
		.qf = {qf},
		.qpref = {TS_NUMA_NO_NODE},
		.pinned = {false, true, true, true},
	};
	struct env e;
	struct ts_task *q[4];
	struct ts_task *p = compare_env(&e, &cs, q);
	struct ts_task *both[2] = {p, q[0]};
	if (gr == SAME)
		make_group(both, 2, pg, NULL, NULL);
	if (gr == BOTH_DIFFERENT || gr == P_ONLY)
		make_group(&p, 1, pg, NULL, NULL);
	if (gr == BOTH_DIFFERENT || gr == Q_ONLY)
		make_group(&q[0], 1, qg, NULL, NULL);
	struct ts_numa_result r = search_and_close(&e, p);
	assert_ptr_equal(r.swap, q[0]);
	return r.imp;
}

static void test_compare_group_weights(void **state)
{
	(void)state;
	assert_int_equal(swap_imp_grouped(NONE), 400 + 200);
	assert_int_equal(swap_imp_grouped(SAME), 600 - 600 / 16);
	assert_int_equal(swap_imp_grouped(BOTH_DIFFERENT), 600 + 400);
	assert_int_equal(swap_imp_grouped(P_ONLY), 600 + 200);
	assert_int_equal(swap_imp_grouped(Q_ONLY), 400 + 200);
}

/* A partner that may not run on src_cpu is skipped however much it would gain; so is a
 * per-CPU kthread (its cpus_ptr is its own CPU; the kernel keeps it as cur, it is not the
 * idle task). With maymove the move then goes to the next CPU (5), not to the kthread's. */
static void test_compare_partner_not_allowed(void **state)
{
	(void)state;
	struct env e;
	struct ts_task *q[4];
	struct ts_numa_result r;
	const struct compare_setup pinned = {
		.qf = {Q_HOME, Q_EVEN, NULL, NULL},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.pinned = {true, false, true, true},
	};
	struct ts_task *p = compare_env(&e, &pinned, q);
	r = search_and_close(&e, p);
	assert_ptr_equal(r.swap, q[1]);
	assert_int_equal(r.imp, 400);

	const struct compare_setup kthread = {
		.qf = {NULL, Q_STAYS, Q_STAYS, Q_STAYS},
		.qpref = {TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE, TS_NUMA_NO_NODE},
		.maymove = true,
	};
	p = compare_env(&e, &kthread, q);
	q[0]->percpu_kthread = true;
	r = search_and_close(&e, p);
	assert_null(r.swap);
	assert_int_equal(r.dst_cpu, 5);
}

/* load_too_imbalanced(src_load, dst_load): with capacities Cs, Cd,
 *   |dst_load*Cs - src_load*Cd| > |dst.load*Cs - src.load*Cd|.
 * p's load 3000, q4's 2000 (a swap moves 1000), dst.load 4096 (4 x 1024), q4 gains 200
 * (imp 600), p moving alone is always too imbalanced here.
 *   src.load 4096: swap 3096 / 5096: 2000*4096 > 0 -> refused
 *   src.load 6096: swap 5096 / 5096: 0 < 2000*4096 -> accepted
 *   src.load 6096, node 1's capacity halved (2048): |5096*4096 - 5096*2048| = 10436608 >
 *     |4096*4096 - 6096*2048| = 4292608 -> refused */
static int swap_with_loads(unsigned long src_cpu_load, unsigned long dst_capacity)
{
	const unsigned long qf[4] = {600, 400, 0, 0};
	const struct compare_setup cs = {
		.qf = {qf},
		.qpref = {TS_NUMA_NO_NODE},
		.pinned = {false, true, true, true},
	};
	struct env e;
	struct ts_task *q[4];
	struct ts_task *p = compare_env(&e, &cs, q);
	p->se.avg.load_avg = 3000;
	q[0]->se.avg.load_avg = 2000;
	for (int c = 0; c < 4; c++)
		set_cpu_view(&e, c, src_cpu_load, c == 0 ? 1024 : 0);
	for (int c = 4; c < 8; c++)
		e.s->rq[c].cpu_capacity = dst_capacity;
	struct ts_numa_result r;
	int ret = ts_task_numa_migrate(e.s, p, &r);
	if (ret == 0) {
		assert_ptr_equal(r.swap, q[0]);
		assert_int_equal(r.imp, 600);
		ts_numa_migrate_done(e.s, &r);
	}
	for (int c = 4; c < 8; c++)
		e.s->rq[c].cpu_capacity = 1024;
	env_close(&e);
	return ret;
}

static void test_compare_load_too_imbalanced(void **state)
{
	(void)state;
	assert_int_equal(swap_with_loads(1024, 1024), -EAGAIN);
	assert_int_equal(swap_with_loads(1524, 1024), 0);
	assert_int_equal(swap_with_loads(1524, 512), -EAGAIN);
}

/* task_numa_find_cpu() on a node with spare capacity: imbalance = max(0, dst_running -
 * src_running) with src_running = src.nr_running - 1, dst_running = dst.nr_running + 1;
 * adjust_numa_imbalance() forgives it only while dst_running <= imb_numa_nr (1), and then
 * only up to NUMA_IMBALANCE_MIN (2). Node 1 runs 4 tasks on CPUs 4-6 (CPU 7 idle, util
 * 0: has_spare), dst_running 5 > 1: with 6 tasks on node 0 (src_running 5) the imbalance
 * is 0 and p moves to CPU 7; with 3 (src_running 2) it is 3 and p stays. */
static int move_with_src_tasks(int nr_src)
{
	struct env e;
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_cpumask *m = nodes_mask(&e, 0, 1);
	struct ts_task *p = spawn(&e, 0, m, NULL);
	ts_cpumask_free(m);
	for (int i = 1; i < nr_src; i++)
		spawn(&e, i % 4, NULL, NULL);
	const int dst_cpus[4] = {4, 4, 5, 6};
	for (int i = 0; i < 4; i++)
		spawn(&e, dst_cpus[i], NULL, NULL);
	const unsigned long on1[4] = {0, 100, 0, 0};
	set_faults(&e, p, on1, 1);
	for (int c = 0; c < 16; c++)
		set_cpu_view(&e, c, 0, 0);
	unsigned int dst_nr = 0;
	for (int c = 4; c < 8; c++)
		dst_nr += ts_rq_nr_running(e.s, c);
	assert_int_equal(dst_nr, 4);
	struct ts_numa_result r;
	int ret = ts_task_numa_migrate(e.s, p, &r);
	int dst = r.dst_cpu;
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);
	return ret == 0 ? dst : ret;
}

static void test_find_cpu_imbalance_from_src(void **state)
{
	(void)state;
	assert_int_equal(move_with_src_tasks(6), 7);
	assert_int_equal(move_with_src_tasks(3), -EAGAIN);
}

/* ======== the numa_migrate_on reservation ======== */

/* update_numa_stats() skips reserved idle CPUs (READ_ONCE(rq->numa_migrate_on)), and
 * task_numa_compare() reserved destinations: while searches are in flight each new one
 * takes the next idle CPU of node 1; a fifth finds all four reserved (4 skipped in the
 * statistics, 4 more in the compare loop) and nothing. Done, the flags are gone. */
static void test_reserved_cpus_skipped(void **state)
{
	(void)state;
	struct env e;
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_cpumask *m = nodes_mask(&e, 0, 1);
	struct ts_task *p[5];
	for (int i = 0; i < 5; i++)
		p[i] = spawn(&e, i % 4, m, NULL); /* p[4] queued behind p[0] */
	ts_cpumask_free(m);
	const unsigned long on1[4] = {0, 100, 0, 0};
	for (int i = 0; i < 5; i++)
		set_faults(&e, p[i], on1, 1);
	struct ts_numa_result r[5];
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ts_task_numa_migrate(e.s, p[i], &r[i]), 0);
		assert_int_equal(r[i].dst_cpu, 4 + i);
		assert_true(r[i].reserved);
		assert_int_equal(STAT(&e, reserved_skips),
				 (uint64_t)(i * (i + 1) / 2)); /* 0 1 3 6 */
	}
	assert_int_equal(ts_task_numa_migrate(e.s, p[4], &r[4]), -EAGAIN);
	assert_int_equal(STAT(&e, reserved_skips), 6 + 4 + 4);
	assert_int_equal(STAT(&e, stick), 1);
	assert_int_equal(STAT(&e, reserve_conflicts), 0);
	for (int i = 0; i < 4; i++)
		ts_numa_migrate_done(e.s, &r[i]);
	for (int c = 0; c < 16; c++)
		assert_int_equal(reserved(&e, c), 0);
	assert_int_equal(ts_task_numa_migrate(e.s, p[4], &r[4]), 0);
	assert_int_equal(r[4].dst_cpu, 4);
	ts_numa_migrate_done(e.s, &r[4]);
	env_close(&e);
}

/* A search whose caller passes no result cannot have its decision applied: the
 * reservation it took is dropped at once (counted as a stick), never left set. */
static void test_no_result_drops_reservation(void **state)
{
	(void)state;
	struct env e;
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_cpumask *m = nodes_mask(&e, 0, 1);
	struct ts_task *p = spawn(&e, 0, m, NULL);
	ts_cpumask_free(m);
	const unsigned long on1[4] = {0, 100, 0, 0};
	set_faults(&e, p, on1, 1);
	assert_int_equal(ts_task_numa_migrate(e.s, p, NULL), -EAGAIN);
	for (int c = 0; c < 16; c++)
		assert_int_equal(reserved(&e, c), 0);
	assert_int_equal(STAT(&e, migrations), 1);
	assert_int_equal(STAT(&e, stick), 1);
	env_close(&e);
}

/* update_numa_stats(): a node's weight counts its scheduled CPUs only. Node 1 of a
 * 2 x 4 grid is scheduled on CPU 4 alone, which runs q (preferring node 0, where p runs):
 * with weight 1 the node is fully busy, not "spare" as its 4 CPUs would make it, so the
 * search swaps p and q (each gains 1000 - 0) instead of stacking p onto CPU 4. */
static void test_partly_scheduled_node_swaps(void **state)
{
	(void)state;
	struct env e;
	struct ts_topology *t = grid_topology(2, 4, "10 20; 20 10");
	struct ts_cpumask *map = ts_cpumask_alloc(t->nr_cpus);
	assert_non_null(map);
	for (int c = 0; c <= 4; c++)
		ts_cpumask_set(map, c);
	const struct ts_sched_config cfg = {.cpu_map = map};
	env_start(&e, t, "", &cfg);
	ts_cpumask_free(map);
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_task *q = spawn(&e, 4, NULL, NULL);
	const unsigned long on0[2] = {1000, 0}, on1[2] = {0, 1000};
	set_faults(&e, p, on1, 1);
	set_faults(&e, q, on0, 0);
	for (int c = 0; c <= 4; c++)
		set_cpu_view(&e, c, c == 0 || c == 4 ? 1024 : 0, c == 0 || c == 4 ? 1024 : 0);
	struct ts_numa_result r = search_and_close(&e, p);
	assert_int_equal(r.dst_cpu, 4);
	assert_ptr_equal(r.swap, q);
}

/* ======== the stop work: ts_numa_migrate_apply() ======== */

/* migration_cpu_stop()/migrate_swap_stop() re-check under both rq locks that the tasks are
 * still where the decision saw them and allowed there; otherwise -EAGAIN, and
 * ts_numa_migrate_done() counts sched_stick_numa and releases the reservation. */
static void test_apply_rechecks(void **state)
{
	(void)state;
	const unsigned long on1[4] = {0, 100, 0, 0};
	struct env e;
	struct ts_numa_result r;
	/* p moved (slept, woke on CPU 1) after the decision */
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	set_faults(&e, p, on1, 1);
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_int_equal(r.dst_cpu, 4);
	sleep_curr(&e, 0);
	fake_run_on(e.s, &e.f, p, 1);
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), -EAGAIN);
	assert_int_equal(p->cpu, 1);
	assert_int_equal(ts_rq_nr_running(e.s, 4), 0);
	assert_int_equal(reserved(&e, 4), 1); /* held until done */
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(reserved(&e, 4), 0);
	assert_int_equal(r.ret, -EAGAIN);
	assert_int_equal(STAT(&e, stick), 1);
	assert_int_equal(STAT(&e, applied), 0);
	assert_int_equal(p->numa->nr_numa_stick, 1);
	assert_int_equal(p->numa->nr_numa_migrations, 1);	   /* decided, not done */
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), -EINVAL); /* done: nothing to apply */
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(STAT(&e, stick), 1);
	env_close(&e);

	/* the destination left p's affinity */
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_cpumask *all = nodes_mask(&e, 0, 3);
	p = spawn(&e, 0, all, NULL);
	ts_cpumask_free(all);
	set_faults(&e, p, on1, 1);
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	ts_cpumask_clear_cpu(p->cpus_allowed, r.dst_cpu);
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), -EAGAIN);
	assert_int_equal(p->cpu, 0);
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(STAT(&e, stick), 1);
	env_close(&e);
}

/* A swap moves both tasks, or neither when the partner is gone; applying twice is one
 * application. */
static void test_apply_swap(void **state)
{
	(void)state;
	const struct compare_setup cs = {
		.qf = {Q_HOME},
		.qpref = {0},
		.pinned = {false, true, true, true},
	};
	struct env e;
	struct ts_task *q[4];
	struct ts_numa_result r;
	struct ts_task *p = compare_env(&e, &cs, q);
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_ptr_equal(r.swap, q[0]);
	sleep_curr(&e, 4); /* the partner blocks before the stopper runs */
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), -EAGAIN);
	assert_int_equal(p->cpu, 0);
	assert_int_equal(q[0]->cpu, 4);
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(STAT(&e, stick), 1);
	env_close(&e);

	p = compare_env(&e, &cs, q);
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), 0);
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), 0);
	assert_int_equal(p->cpu, 4);
	assert_int_equal(q[0]->cpu, 0);
	assert_int_equal(ts_rq_nr_running(e.s, 0), 1);
	assert_int_equal(ts_rq_nr_running(e.s, 4), 1);
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(STAT(&e, applied), 1);
	assert_int_equal(STAT(&e, swaps), 1);
	assert_int_equal(STAT(&e, stick), 0);
	assert_int_equal(p->numa->nr_numa_swaps, 1);
	/* both on their preferred nodes now */
	unsigned pr, nu;
	ts_numa_preferred_share(e.s, &pr, &nu);
	assert_int_equal(pr, 2);
	assert_int_equal(nu, 2);
	env_close(&e);
}

/* ======== counters ======== */

/* The per-CPU counters (charged to the CPU that faulted or searched) and the per-task ones
 * after a script: faults of every kind, a placement that decides a move which is applied,
 * a decided move that is abandoned, and a search that finds nothing. */
static void test_counters_script(void **state)
{
	(void)state;
	struct env e;
	env_grid(&e, 4, 4, DIRECT4, "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 1, NULL, NULL);
	struct ts_cpumask *node0 = nodes_mask(&e, 0, 0);
	struct ts_task *x = spawn(&e, 2, node0, NULL);
	ts_cpumask_free(node0);
	struct ts_numa_result r;
	/* 40 migrated first touches on node 1, 10 local private, 5 shared that failed to
	 * migrate */
	ts_task_numa_fault(e.s, p, NULL, 1, 40, TS_TNF_MIGRATED, &r);
	ts_task_numa_fault(e.s, p, p, 0, 10, TS_TNF_FAULT_LOCAL, &r);
	ts_task_numa_fault(e.s, p, q, 1, 5, TS_TNF_NO_GROUP | TS_TNF_MIGRATE_FAIL, &r);
	assert_int_equal(p->numa->numa_pages_migrated, 40);
	assert_int_equal(p->numa->numa_faults_locality[2], 5);
	/* the next fault after a completed scan: placement (node 1: 45 > 10), the failed
	 * migrations double the period (2000), numa_migrate_preferred() decides CPU 4 */
	ts_numa_scan_done(p->numa->mm);
	p->numa->numa_migrate_retry = 0;
	e.f.now = 10 * MS;
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 1, 1, 0, &r), 0);
	assert_int_equal(p->numa->numa_preferred_nid, 1);
	assert_int_equal(p->numa->numa_scan_period, 2000);
	assert_int_equal(p->numa->numa_migrate_retry, 10 + 2000 / 16);
	assert_int_equal(r.dst_cpu, 4);
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), 0);
	ts_numa_migrate_done(e.s, &r);
	/* q decides a move and does not get there. Node 1 now runs p: dst_running 2 >
	 * imb_numa_nr 1 keeps the imbalance 2 - 1, so node 1 gives nothing; for a task without
	 * a group nodes 2 and 3 are searched, the last wins */
	const unsigned long on1[4] = {0, 100, 0, 0};
	set_faults(&e, q, on1, 1);
	assert_int_equal(ts_task_numa_migrate(e.s, q, &r), 0);
	assert_int_equal(r.dst_cpu, 12);
	ts_numa_migrate_done(e.s, &r);
	/* x may not leave node 0: nothing */
	set_faults(&e, x, on1, 1);
	assert_int_equal(ts_task_numa_migrate(e.s, x, &r), -EAGAIN);

	const struct ts_numa_cpu_stats *c0 = &e.s->rq[0].numa_stats;
	assert_int_equal(ts_stat_read(&c0->hint_faults), 56);
	assert_int_equal(ts_stat_read(&c0->hint_faults_local), 10);
	assert_int_equal(ts_stat_read(&c0->hint_faults_remote), 46);
	assert_int_equal(ts_stat_read(&c0->hint_faults_private), 51);
	assert_int_equal(ts_stat_read(&c0->hint_faults_shared), 5);
	assert_int_equal(ts_stat_read(&c0->pages_migrated), 40);
	assert_int_equal(ts_stat_read(&c0->pages_migrate_failed), 5);
	assert_int_equal(ts_stat_read(&c0->migrate_attempts), 1);
	assert_int_equal(ts_stat_read(&c0->migrations), 1);
	assert_int_equal(ts_stat_read(&c0->applied), 1);
	assert_int_equal(ts_stat_read(&e.s->rq[1].numa_stats.migrations), 1);
	assert_int_equal(ts_stat_read(&e.s->rq[1].numa_stats.stick), 1);
	assert_int_equal(ts_stat_read(&e.s->rq[2].numa_stats.stick), 1);
	assert_int_equal(STAT(&e, migrate_attempts), 3);
	assert_int_equal(STAT(&e, migrations), 2);
	assert_int_equal(STAT(&e, swaps), 0);
	assert_int_equal(STAT(&e, stick), 2);
	assert_int_equal(STAT(&e, applied), 1);
	assert_int_equal(STAT(&e, reserve_conflicts), 0);
	assert_int_equal(STAT(&e, reserved_skips), 0);
	assert_int_equal(p->numa->nr_numa_migrations, 1);
	assert_int_equal(p->numa->nr_numa_stick, 0);
	assert_int_equal(p->numa->nr_placements, 1);
	assert_int_equal(q->numa->nr_numa_migrations, 1);
	assert_int_equal(q->numa->nr_numa_stick, 1);
	assert_int_equal(x->numa->nr_numa_migrations, 0);
	assert_int_equal(x->numa->nr_numa_stick, 1);
	unsigned pr, nu;
	ts_numa_preferred_share(e.s, &pr, &nu);
	assert_int_equal(nu, 3);
	assert_int_equal(pr, 1); /* p, on node 1 */
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_decay_per_window),
		cmocka_unit_test(test_cpu_faults_weighted_by_runtime),
		cmocka_unit_test(test_placement_once_per_scan_seq),
		cmocka_unit_test(test_preferred_node_has_cpus),
		cmocka_unit_test(test_scan_period_doubles),
		cmocka_unit_test(test_scan_period_slots),
		cmocka_unit_test(test_scan_period_limits_from_mm),
		cmocka_unit_test(test_scan_period_history),
		cmocka_unit_test(test_group_preferred_nid_direct),
		cmocka_unit_test(test_group_preferred_nid_glueless),
		cmocka_unit_test(test_group_preferred_nid_backplane),
		cmocka_unit_test(test_group_active_nodes),
		cmocka_unit_test(test_group_join_rules),
		cmocka_unit_test(test_migrate_preferred_retry),
		cmocka_unit_test(test_search_order),
		cmocka_unit_test(test_search_group_active_nodes),
		cmocka_unit_test(test_search_imbalance_pct),
		cmocka_unit_test(test_search_without_sd_numa),
		cmocka_unit_test(test_compare_smallimp_margin),
		cmocka_unit_test(test_compare_move_or_swap),
		cmocka_unit_test(test_compare_move_to_idle),
		cmocka_unit_test(test_compare_partner_preferred_node),
		cmocka_unit_test(test_compare_partner_going_home),
		cmocka_unit_test(test_compare_group_weights),
		cmocka_unit_test(test_compare_partner_not_allowed),
		cmocka_unit_test(test_compare_load_too_imbalanced),
		cmocka_unit_test(test_find_cpu_imbalance_from_src),
		cmocka_unit_test(test_reserved_cpus_skipped),
		cmocka_unit_test(test_no_result_drops_reservation),
		cmocka_unit_test(test_partly_scheduled_node_swaps),
		cmocka_unit_test(test_apply_rechecks),
		cmocka_unit_test(test_apply_swap),
		cmocka_unit_test(test_counters_script),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
