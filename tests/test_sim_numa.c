/* The simulator's NUMA memory model and NUMA balancing host (src/sim/numa_memory.c and
 * engine_numa.c): chunks and page conservation under first touch, binding, interleave and
 * migrations; the scanner's window; should_numa_migrate_memory()'s two-stage filter; the
 * cost of TOUCH sweeps against hand computations (and their re-costing mid-sweep); the
 * workloads' behaviour (numa02 settles tasks on their preferred node, --bind hard vs
 * inverse); determinism of the JSON; the NUMA_RESERVE race (a constructed racy case:
 * no double migration with the reservation, some without); bad input.
 *
 * Machines: "numa:2 core:4 pu:1" (8 CPUs, 2 nodes at SLIT 20, the generic cost model:
 * mem.local 100 ns, 145 ns remote) for the constructed cases, broadwell-2s (80 CPUs, 2
 * nodes) for numa02. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/numa_memory.h"
#include "sim_machine.h"
#include "test_support.h"
#include "toposched/experiment.h"
#include "toposched/sim.h"

#define MS    1000000ULL
#define SMALL "numa:2 core:4 pu:1"
#define MIB   (1ULL << 20)

static struct ts_sim_config config(const struct machine *m, const struct ts_workload *w, int load,
				   const char *features)
{
	struct ts_sim_config cfg = {
		.topo = m->topo,
		.costs = &m->costs,
		.features = ts_features_default(),
		.workload = w,
		.load = load,
		.seed = 1,
		.max_events = 100000000,
	};
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse(features, &cfg.features, &err), 0);
	return cfg;
}

/* ---- chunks and conservation ------------------------------------------------------------- */

static const struct ts_region two_regions[] = {
	{.name = "big", .bytes = 3ULL << 30},
	{.name = "odd", .bytes = 5 * MIB + 4096 + 1}, /* 2 MiB, 2 MiB, 1 MiB + 2 pages */
};
static const struct ts_phase touch_big[] = {{.kind = TS_PH_TOUCH, .accesses = 1}};
static const struct ts_task_class one_class[] = {
	{.name = "t", .count = 1, .phases = touch_big, .nr_phases = 1, .iterations = 1},
};
static const struct ts_workload two_region_wl = {
	.name = "regions",
	.classes = one_class,
	.nr_classes = 1,
	.regions = two_regions,
	.nr_regions = 2,
	.metric = TS_METRIC_TIME_S,
};

static void test_chunks_and_conservation(void **state)
{
	(void)state;
	struct sim_mm mm;
	assert_int_equal(sim_mm_init(&mm, 0, &two_region_wl, 4), 0);
	assert_int_equal(mm.regions[0].pages, 786432);
	assert_int_equal(mm.regions[0].nr_chunks, 1536);    /* 3 GiB of 2 MiB THPs */
	assert_int_equal(mm.regions[1].pages, 5 * 256 + 2); /* the partial page rounds up */
	assert_int_equal(mm.regions[1].nr_chunks, 3);
	assert_int_equal(mm.chunks[1536 + 2].pages, 256 + 2);
	assert_int_equal(mm.nr_chunks, 1539);
	char why[256];
	assert_int_equal(sim_mm_check(&mm, why, sizeof(why)), 0);
	assert_int_equal(mm.numa.rss_pages, 0);
	/* first touch, then random migrations: per-node pages always add up */
	rng_seed(7);
	for (uint32_t c = 0; c < mm.nr_chunks; c++)
		sim_chunk_place(&mm, c, (int)(rng() % 4));
	assert_int_equal(mm.numa.rss_pages, mm.region_pages);
	for (int i = 0; i < 20000; i++) {
		sim_chunk_move(&mm, (uint32_t)(rng() % mm.nr_chunks), (int)(rng() % 4));
		if (i % 1000 == 0)
			assert_int_equal(sim_mm_check(&mm, why, sizeof(why)), 0);
	}
	uint64_t sum = 0;
	for (int n = 0; n < 4; n++)
		sum += mm.node_pages[n];
	assert_int_equal(sum, mm.region_pages);
	assert_int_equal(sim_mm_check(&mm, why, sizeof(why)), 0);
	/* the check is not vacuous: a page counted twice or lost is caught */
	mm.node_pages[2]++;
	assert_int_not_equal(sim_mm_check(&mm, why, sizeof(why)), 0);
	print_message("caught: %s\n", why);
	mm.node_pages[2]--;
	mm.chunks[5].marked = true;
	mm.chunks[5].node = -1; /* a marked chunk that was never placed */
	assert_int_not_equal(sim_mm_check(&mm, why, sizeof(why)), 0);
	sim_mm_free(&mm);
}

/* One walk over the window the core's task_numa_work() gives (256 MB of pages, 8x that of
 * address space) from the mm's scan offset, which then moves to where it stopped (as
 * ts_task_numa_work_end() does). */
static uint32_t walk(struct sim_mm *mm, const bool *scan, int *resets, uint32_t *lo, uint32_t *hi)
{
	int64_t pages = (int64_t)TS_NUMA_SCAN_SIZE_MB << (20 - TS_NUMA_PAGE_SHIFT);
	struct ts_numa_scan win = {mm->numa.numa_scan_offset, pages, 8 * pages};
	uint64_t next;
	uint32_t marked = sim_mm_scan(mm, scan, &win, &next, resets, lo, hi);
	mm->numa.numa_scan_offset = next;
	return marked;
}

/* The scanner: 256 MB windows (128 chunks) of present pages, not-present chunks cost only
 * virtual space, skipped regions nothing; the end of the space resets (seq++). */
static void test_scan_windows(void **state)
{
	(void)state;
	struct sim_mm mm;
	assert_int_equal(sim_mm_init(&mm, 0, &two_region_wl, 2), 0);
	bool scan[2] = {true, true};
	int resets = 0;
	uint32_t lo, hi;
	/* nothing present: 8 x 256 MB of address space walked, nothing marked */
	assert_int_equal(walk(&mm, scan, &resets, &lo, &hi), 0);
	assert_int_equal(mm.numa.numa_scan_offset, 1024);
	for (uint32_t c = 0; c < mm.nr_chunks; c++)
		sim_chunk_place(&mm, c, 0);
	mm.numa.numa_scan_offset = 0;
	for (int w = 0; w < 12; w++) { /* 3 GiB = 12 windows of 128 chunks */
		assert_int_equal(walk(&mm, scan, &resets, &lo, &hi), 128);
		assert_int_equal(lo, (uint32_t)w * 128);
		assert_int_equal(hi, (uint32_t)w * 128 + 128);
	}
	assert_int_equal(resets, 0);
	/* the last region (3 chunks) and the wrap in one window, as task_numa_work walks on
	 * to the next VMA and off the end */
	assert_int_equal(walk(&mm, scan, &resets, &lo, &hi), 3);
	assert_int_equal(resets, 1);
	assert_int_equal(mm.numa.numa_scan_offset, 0);
	/* everything marked already: no PTE updated, the budget is not spent, the walk
	 * goes on until the virtual budget (8 windows) ends */
	assert_int_equal(walk(&mm, scan, &resets, &lo, &hi), 0);
	assert_int_equal(mm.numa.numa_scan_offset, 1024);
	/* a skipped region is passed over */
	for (uint32_t c = 0; c < mm.nr_chunks; c++)
		mm.chunks[c].marked = false;
	mm.numa.numa_scan_offset = 0;
	scan[0] = false;
	resets = 0;
	assert_int_equal(walk(&mm, scan, &resets, &lo, &hi), 3);
	assert_int_equal(lo, 1536);
	assert_int_equal(resets, 1);
	char why[256];
	assert_int_equal(sim_mm_check(&mm, why, sizeof(why)), 0);
	sim_mm_free(&mm);
}

/* ---- should_numa_migrate_memory() -------------------------------------------------------- */

struct filter_env {
	struct ts_topology *t;
	struct ts_task p;
	struct ts_numa_task n;
	struct ts_numa_group g;
	unsigned long gfaults[TS_NUMA_FAULT_STATS * 2];
};

static void filter_open(struct filter_env *e)
{
	memset(e, 0, sizeof(*e));
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load(SMALL, &e->t, &err), 0);
	e->n.nr_nodes = 2;
	e->n.numa_preferred_nid = TS_NUMA_NO_NODE;
	e->p.numa = &e->n;
	e->g.faults = e->gfaults;
	e->g.refcount = 2;
}

static void group_faults(struct filter_env *e, unsigned long cpu0, unsigned long cpu1,
			 unsigned long mem0, unsigned long mem1)
{
	unsigned long *f = e->gfaults;
	f[ts_numa_faults_idx(2, TS_NUMA_CPU, 0, 0)] = cpu0;
	f[ts_numa_faults_idx(2, TS_NUMA_CPU, 1, 0)] = cpu1;
	f[ts_numa_faults_idx(2, TS_NUMA_MEM, 0, 0)] = mem0;
	f[ts_numa_faults_idx(2, TS_NUMA_MEM, 1, 0)] = mem1;
	e->n.numa_group = &e->g;
}

static void test_two_stage_filter(void **state)
{
	(void)state;
	struct filter_env e;
	filter_open(&e);
	const int P = 3, Q = 4; /* task indexes: p and another task */
	/* CPUs 0-3 on node 0, 4-7 on node 1 */
	struct sim_chunk c = {.last_task = -1, .last_cpu = -1, .node = 1, .pages = 512};
	/* a first fault (no last accessor) early in life: migrate at once; the chunk now
	 * records (p, CPU 2) */
	assert_true(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 2));
	assert_int_equal(c.last_task, P);
	assert_int_equal(c.last_cpu, 2);
	/* a mature task (preferred node set, scan_seq > 4) */
	e.n.numa_preferred_nid = 0;
	e.n.numa_scan_seq = 5;
	/* the last fault came from node 1 (q on CPU 5): the first stage only records */
	c.last_task = Q;
	c.last_cpu = 5;
	assert_false(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 1));
	assert_int_equal(c.last_task, P);
	assert_int_equal(c.last_cpu, 1);
	/* the second consecutive fault from node 0, private: migrate */
	assert_true(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 3));
	/* private, but the previous fault was on the other node (p moved): record only */
	c.last_task = P;
	c.last_cpu = 6;
	assert_false(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 0));
	/* shared from the same node, no group yet: migrate */
	c.last_task = Q;
	c.last_cpu = 1;
	assert_true(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 0));
	/* early in life a shared fault does not take the shortcut: from the other node it
	 * is recorded only */
	e.n.numa_preferred_nid = TS_NUMA_NO_NODE;
	c.last_task = Q;
	c.last_cpu = 7;
	assert_false(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 0));
	e.n.numa_preferred_nid = 0;
	/* shared with a group: the destination used far more (cpu faults > 3x): migrate */
	group_faults(&e, 400, 100, 10, 10);
	c.last_task = Q;
	c.last_cpu = 2;
	assert_true(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 0));
	/* not that much more: the 3/4 hysteresis of cpu / mem ratios:
	 * 250 * mem(src) 100 * 3 = 75000 > 100 * mem(dst) 100 * 4 = 40000: migrate */
	group_faults(&e, 250, 100, 100, 100);
	c.last_task = Q;
	c.last_cpu = 2;
	assert_true(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 0));
	/* 120 * 100 * 3 = 36000 < 100 * 100 * 4 = 40000: stay */
	group_faults(&e, 120, 100, 100, 100);
	c.last_task = Q;
	c.last_cpu = 2;
	assert_false(sim_should_migrate_memory(e.t, &e.p, P, &c, 1, 0));
	ts_topology_free(e.t);
}

/* ts_numa_task_scan_start() (task_scan_start, which task_tick_numa's host calls): the
 * scan minimum, scaled up by a group's shared faults. */
static void test_task_scan_start(void **state)
{
	(void)state;
	struct filter_env e;
	filter_open(&e);
	e.n.mm = &e.n.own_mm;
	/* one scan window (rss 0): max(1000 / (2560 / 256), 1000 / 1) = 1000 ms */
	assert_int_equal(ts_numa_task_scan_start(&e.p), 1000);
	/* 3 GiB resident: 12 windows, max(100, 1000 / 12) = 100 ms */
	e.n.own_mm.rss_pages = 786432;
	assert_int_equal(ts_numa_task_scan_start(&e.p), 100);
	e.n.own_mm.rss_pages = 0;
	/* a group of 2 with 300 shared and 100 private faults: 1000 x 2 x 301 / 401 */
	unsigned long *f = e.gfaults;
	f[ts_numa_faults_idx(2, TS_NUMA_MEM, 0, 0)] = 300;
	f[ts_numa_faults_idx(2, TS_NUMA_MEM, 1, 1)] = 100;
	e.n.numa_group = &e.g;
	assert_int_equal(ts_numa_task_scan_start(&e.p), 1000UL * 2 * 301 / 401);
	/* all private: the minimum */
	f[ts_numa_faults_idx(2, TS_NUMA_MEM, 0, 0)] = 0;
	assert_int_equal(ts_numa_task_scan_start(&e.p), 1000);
	ts_topology_free(e.t);
}

/* ---- the cost of TOUCH sweeps ------------------------------------------------------------- */

/* Sweep arithmetic by hand: 3 chunks (node 0, 1, 0) of 512 pages, 10 ns + 2 accesses per
 * page at latencies 100 / 150. */
static void test_sweep_cost_and_recost(void **state)
{
	(void)state;
	static const struct ts_region r3[] = {{.name = "r", .bytes = 6 * MIB}};
	const struct ts_workload w = {.name = "w", .regions = r3, .nr_regions = 1};
	struct sim_mm mm;
	assert_int_equal(sim_mm_init(&mm, 0, &w, 2), 0);
	sim_chunk_place(&mm, 0, 0);
	sim_chunk_place(&mm, 1, 1);
	sim_chunk_place(&mm, 2, 0);
	const double lat[2] = {100, 150};
	struct sim_sweep sw = {.mm = &mm,
			       .r = &mm.regions[0],
			       .slice_lo = 0,
			       .slice_len = 1536,
			       .start = 0,
			       .len = 1536,
			       .page_ns = 10,
			       .accesses = 2};
	const double local = 10 + 2 * 100, remote = 10 + 2 * 150;
	double end, cost = sim_sweep_plan(&sw, 0, lat, &end);
	assert_near(end, 1536, 0);
	assert_near(cost, 512 * local + 512 * remote + 512 * local, 1e-6);
	/* half the cost: 768 ns short of 512 local + 256 remote pages */
	double half = 512 * local + 256 * remote;
	double pos = sim_sweep_advance(&sw, 0, end, lat, half);
	assert_near(pos, 768, 1e-9);
	/* the remote chunk moves to node 0 mid-sweep: the rest is costed anew */
	sim_chunk_move(&mm, 1, 0);
	cost = sim_sweep_plan(&sw, pos, lat, &end);
	assert_near(cost, 256 * local + 512 * local, 1e-6);
	/* a fractional position and a marked chunk ahead: the plan stops at its start */
	mm.chunks[2].marked = true;
	cost = sim_sweep_plan(&sw, 700.5, lat, &end);
	assert_near(end, 1024, 0);
	assert_near(cost, (1024 - 700.5) * local, 1e-6);
	/* at a marked chunk the plan is empty: it faults now */
	sim_sweep_plan(&sw, 1100, lat, &end);
	assert_near(end, 1100, 0);
	/* a slice that wraps: pages 1200.. of a 1536-page slice, 500 pages: 336 then 164 */
	mm.chunks[2].marked = false;
	sw.start = 1200;
	sw.len = 500;
	assert_int_equal(sim_sweep_chunk(&sw, 0), 2);
	assert_int_equal(sim_sweep_chunk(&sw, 336), 0);
	cost = sim_sweep_plan(&sw, 0, lat, &end);
	assert_near(end, 500, 0);
	assert_near(cost, 500 * local, 1e-6);
	sim_mm_free(&mm);
}

/* One task sweeping 8 MiB three times at 50 ns + 2 accesses per page, NUMA balancing
 * off: the CPU time is one context switch plus 3 x 2048 pages x (50 + 2 x latency), by
 * where the pages are: bound to node 1 and run on node 0 (remote, 145 ns), bound to node 0
 * (local, 100 ns), interleaved (half and half), first touch by a task pinned to node 1. */
static struct ts_region cost_region[] = {
	{.name = "r",
	 .bytes = 8 * MIB,
	 .policy = TS_MEM_BIND_BALANCING,
	 .node = 1,
	 .prefault = TS_PREFAULT_PARENT},
};
static const struct ts_phase cost_touch[] = {
	{.kind = TS_PH_TOUCH, .ns = 50, .accesses = 2, .slice = TS_SLICE_ALL},
};
static const struct ts_task_class cost_class[] = {
	{.name = "sweeper", .count = 1, .phases = cost_touch, .nr_phases = 1, .iterations = 3},
};
static const struct ts_workload cost_wl = {
	.name = "cost",
	.classes = cost_class,
	.nr_classes = 1,
	.regions = cost_region,
	.nr_regions = 1,
	.metric = TS_METRIC_TIME_S,
	.metric_name = "time",
	.unit = "s",
	.load_name = "processes",
};

static uint64_t sweep_busy(struct machine *m, enum ts_mem_policy pol, int node, bool pin_node1)
{
	cost_region[0].policy = pol;
	cost_region[0].node = node;
	cost_region[0].prefault = pol == TS_MEM_LOCAL ? TS_PREFAULT_NONE : TS_PREFAULT_PARENT;
	struct ts_sim_config cfg = config(m, &cost_wl, 1, "NO_NUMA");
	struct ts_cpumask *node1 = ts_cpumask_alloc(m->topo->nr_cpus);
	ts_topology_node_mask(m->topo, 1, node1);
	cfg.pin = pin_node1 ? node1 : m->node0;
	cfg.no_background = true; /* the sweep's own time, counted by hand */
	struct ts_sim_result r = sim_run_ok(&cfg);
	ts_cpumask_free(node1);
	assert_true(r.finished);
	assert_int_equal(r.busy_ns, r.exec_ns);
	return r.busy_ns;
}

static void test_access_cost_by_hand(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, SMALL);
	assert_near(ts_cost_mem_between(&m.costs, m.topo, 0, 1), 145, 1e-9);
	/* the launcher forks the sweeper at no cost: its CPU time is its context switch
	 * (set to a round 1,500 ns for the sums below) */
	m.costs.fork.value = 0;
	m.costs.ctx_switch.value = 1500;
	const uint64_t ctx = 1500, pages = 2048, passes = 3, launcher = ctx;
	uint64_t remote = sweep_busy(&m, TS_MEM_BIND_BALANCING, 1, false);
	uint64_t local = sweep_busy(&m, TS_MEM_BIND_BALANCING, 0, false);
	uint64_t inter = sweep_busy(&m, TS_MEM_INTERLEAVE, 0, false);
	uint64_t touched = sweep_busy(&m, TS_MEM_LOCAL, 0, true);
	print_message("busy: remote %llu, local %llu, interleaved %llu, first touch %llu ns\n",
		      (unsigned long long)remote, (unsigned long long)local,
		      (unsigned long long)inter, (unsigned long long)touched);
	assert_int_equal(remote, launcher + ctx + passes * pages * (50 + 2 * 145));
	assert_int_equal(local, launcher + ctx + passes * pages * (50 + 2 * 100));
	assert_int_equal(inter,
			 launcher + ctx + passes * (pages / 2) * ((50 + 2 * 100) + (50 + 2 * 145)));
	/* first touch on node 1 by a task there: local; placing pages takes no extra time */
	assert_int_equal(touched, local);
	cost_region[0].policy = TS_MEM_BIND_BALANCING;
	cost_region[0].node = 1;
	machine_free(&m);
}

/* With NUMA balancing the same sweeper (unpinned, its pages bound to node 1 with
 * MPOL_F_NUMA_BALANCING) is moved to node 1 mid-run, and its remaining work costs local
 * latencies from then on: it uses far less CPU time than the remote-only sweep. */
static void test_migrated_sweep_is_recosted(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, SMALL);
	cost_region[0].policy = TS_MEM_BIND_BALANCING;
	cost_region[0].node = 1;
	cost_region[0].prefault = TS_PREFAULT_PARENT;
	struct ts_sim_config cfg = config(&m, &cost_wl, 1, "NUMA");
	cfg.iterations = 8000; /* ~5.6 s remote */
	cfg.pin = NULL;
	struct ts_sim_result r = sim_run_ok(&cfg);
	const struct ts_sim_numa *n = &r.numa;
	uint64_t remote_only = 1500 + 8000ULL * 2048 * (50 + 2 * 145);
	print_message("busy %llu ns (remote-only %llu), system %llu ns, faults %llu remote %llu, "
		      "moves %llu applied %llu, preferred %llu/%llu\n",
		      (unsigned long long)r.busy_ns, (unsigned long long)remote_only,
		      (unsigned long long)n->system_ns, (unsigned long long)n->hint_faults,
		      (unsigned long long)n->hint_faults_remote,
		      (unsigned long long)n->task_migrations, (unsigned long long)n->applied,
		      (unsigned long long)n->tasks_preferred, (unsigned long long)n->tasks_numa);
	assert_true(r.finished);
	assert_true(n->hint_faults_remote > 0); /* it did start on node 0 */
	assert_true(n->applied >= 1);
	assert_int_equal(n->tasks_numa, 1);
	assert_int_equal(n->tasks_preferred, 1);
	assert_int_equal(n->pages_migrated, 0); /* MPOL_BIND: the pages stay */
	assert_true(r.busy_ns < remote_only * 9 / 10);
	machine_free(&m);
}

/* ---- workloads ---------------------------------------------------------------------------- */

/* numa02 on a two-node preset: every task ends on its preferred node (most of them at
 * least); the pages the main thread placed on node 0 followed their threads. */
static void test_numa02_settles(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "broadwell-2s");
	struct ts_sim_config cfg = config(&m, ts_workload_find("numa02"), 1, "");
	cfg.iterations = 1500;
	struct ts_sim_result r = sim_run_ok(&cfg);
	const struct ts_sim_numa *n = &r.numa;
	print_message("numa02: %.3f s, faults %llu (local %llu), pages migrated %llu, moves %llu "
		      "swaps %llu, preferred %llu/%llu, system %.3f s\n",
		      r.metric, (unsigned long long)n->hint_faults,
		      (unsigned long long)n->hint_faults_local,
		      (unsigned long long)n->pages_migrated, (unsigned long long)n->task_migrations,
		      (unsigned long long)n->task_swaps, (unsigned long long)n->tasks_preferred,
		      (unsigned long long)n->tasks_numa, (double)n->system_ns / 1e9);
	assert_true(r.finished);
	assert_true(n->tasks_numa >= 70); /* of the 80 threads */
	assert_true(n->tasks_preferred * 10 >= n->tasks_numa * 8);
	assert_true(n->pages_migrated > 0);
	assert_true(n->hint_faults_local > n->hint_faults_remote);
	/* without NUMA balancing the half of the threads on node 1 stay remote: slower */
	cfg.features = ts_features_default();
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse("NO_NUMA", &cfg.features, &err), 0);
	struct ts_sim_result off = sim_run_ok(&cfg);
	print_message("numa02 NO_NUMA: %.3f s\n", off.metric);
	assert_int_equal(off.numa.hint_faults, 0);
	assert_true(off.metric > r.metric);
	machine_free(&m);
}

/* --bind hard: every thread runs next to its memory, nothing is scanned; --bind inverse:
 * every thread on the other node; hard < unbound-ish < inverse in time. */
static void test_bind_references(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, SMALL);
	const struct ts_workload *w = ts_workload_find("numa02");
	struct ts_sim_config cfg = config(&m, w, 1, "");
	cfg.iterations = 20;
	cfg.bind = TS_BIND_HARD;
	struct ts_sim_result hard = sim_run_ok(&cfg);
	cfg.bind = TS_BIND_INVERSE;
	struct ts_sim_result inv = sim_run_ok(&cfg);
	print_message("numa02 x 20 loops: hard %.4f s, inverse %.4f s\n", hard.metric, inv.metric);
	assert_true(hard.finished && inv.finished);
	assert_int_equal(hard.numa.pte_updates, 0); /* MPOL_BIND: no MPOL_F_MOF */
	assert_int_equal(inv.numa.pte_updates, 0);
	assert_int_equal(hard.migrations, 0); /* pinned to their nodes */
	/* 8 threads, 32768 pages each, 6.4 accesses: local 100 ns vs remote 145 ns */
	double ratio = inv.metric / hard.metric;
	assert_true(ratio > 1.3 && ratio < 1.5); /* 145 / 100, plus start and switch costs */
	/* a workload without home nodes cannot be bound */
	cfg.workload = ts_workload_find("tbench");
	cfg.duration_ns = MS;
	struct ts_sim_result r;
	struct ts_error err = {0};
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "home nodes"));
	machine_free(&m);
}

/* ---- the NUMA_RESERVE race ----------------------------------------------------------------
 *
 * Four threads whose memory is bound to node 1 (MPOL_BIND | MPOL_F_NUMA_BALANCING: the
 * pages never move, the tasks must) start where fork balancing puts them, some on node 0.
 * After a scan they all want node 1, and their faults come right after it, at the same
 * instant (every running sweep of the mm re-plans and faults on its marked chunk), well
 * within the stop work's latency (numa.stop_latency, set to 3 us here: two switches at the
 * x86 presets' former 1.5-us estimate; the generic model's lat_pipe-derived 0.83 us closes
 * the window on this small machine): without the reservation three of them pick the same
 * idle CPU (two double migrations); with it, never. */
static const struct ts_region race_region[] = {
	{.name = "r",
	 .bytes = 32 * MIB,
	 .policy = TS_MEM_BIND_BALANCING,
	 .node = 1,
	 .prefault = TS_PREFAULT_PARENT},
};
static const struct ts_phase race_touch[] = {
	{.kind = TS_PH_TOUCH, .accesses = 6.4, .slice = TS_SLICE_OWN},
};
static const struct ts_task_class race_class[] = {
	{.name = "t",
	 .count = 4,
	 .phases = race_touch,
	 .nr_phases = 1,
	 .iterations = 3000,
	 .home = TS_HOME_TASK},
};
static const struct ts_workload race_wl = {
	.name = "race",
	.classes = race_class,
	.nr_classes = 1,
	.regions = race_region,
	.nr_regions = 1,
	.metric = TS_METRIC_TIME_S,
	.metric_name = "time",
	.unit = "s",
	.load_name = "processes",
};

static struct ts_sim_numa race(struct machine *m, const char *features, uint64_t seed)
{
	struct ts_sim_config cfg = config(m, &race_wl, 1, features);
	cfg.seed = seed;
	struct ts_sim_result r = sim_run_ok(&cfg);
	print_message(
		"%-16s seed %llu: %.3f s, searches %llu, moves %llu, swaps %llu, applied %llu, "
		"conflicts %llu (alt %llu), skips %llu, double %llu, within 10ms %llu, on "
		"preferred node %llu/%llu\n",
		features, (unsigned long long)seed, r.metric,
		(unsigned long long)r.numa.migrate_attempts,
		(unsigned long long)r.numa.task_migrations, (unsigned long long)r.numa.task_swaps,
		(unsigned long long)r.numa.applied, (unsigned long long)r.numa.reserve_conflicts,
		(unsigned long long)r.numa.reserve_conflict_alt,
		(unsigned long long)r.numa.reserved_skips,
		(unsigned long long)r.numa.double_migrations,
		(unsigned long long)r.numa.close_migrations,
		(unsigned long long)r.numa.tasks_preferred, (unsigned long long)r.numa.tasks_numa);
	assert_true(r.finished);
	return r.numa;
}

static void test_reserve_prevents_double_migrations(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, SMALL);
	m.costs.numa_stop_latency.value = 3000;
	uint64_t doubles_off = 0, doubles_on = 0, skips_on = 0, applied_on = 0;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct ts_sim_numa on = race(&m, "NUMA_RESERVE", seed);
		struct ts_sim_numa off = race(&m, "NO_NUMA_RESERVE", seed);
		doubles_on += on.double_migrations;
		doubles_off += off.double_migrations;
		skips_on += on.reserved_skips + on.reserve_conflicts;
		applied_on += on.applied;
		assert_int_equal(off.reserved_skips + off.reserve_conflicts, 0);
	}
	assert_int_equal(doubles_on, 0);
	assert_true(doubles_off > 0);
	assert_true(applied_on > 0);
	assert_true(skips_on > 0); /* the reservation was in the way of some search */
	machine_free(&m);
}

/* ---- reports and determinism ------------------------------------------------------------- */

static void test_cli_json_deterministic_and_numa_block(void **state)
{
	(void)state;
	char dir[] = "/tmp/ts-sim-numa-XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *a1[] = {"sim",
			    "--machine",
			    SMALL,
			    "--workload",
			    "numa02",
			    "--loops",
			    "200",
			    "--iterations",
			    "2",
			    "--compare",
			    "reserve=NUMA_RESERVE",
			    "noreserve=NO_NUMA_RESERVE",
			    "--format",
			    "json",
			    "--quiet",
			    "--jobs",
			    "1",
			    NULL};
	struct run a = ts_run_cli(dir, a1, 300);
	if (a.status)
		print_error("toposched sim: %s\n", a.err);
	assert_int_equal(a.status, 0);
	/* the same run on two worker threads: the same bytes */
	const char *a2[sizeof(a1) / sizeof(a1[0])];
	memcpy(a2, a1, sizeof(a1));
	a2[sizeof(a1) / sizeof(a1[0]) - 2] = "2"; /* --jobs */
	struct run b = ts_run_cli(dir, a2, 300);
	assert_int_equal(b.status, 0);
	assert_int_equal(a.out_len, b.out_len);
	assert_memory_equal(a.out, b.out, a.out_len);
	assert_non_null(strstr(a.out, "\"bind\": \"none\""));
	assert_int_equal(count_substr(a.out, "\"numa\": {"), 2);
	assert_int_equal(count_substr(a.out, "\"double_migrations\": "), 2);
	assert_int_equal(count_substr(a.out, "\"preferred_pct\": "), 2);
	assert_null(strstr(a.out, "\"hint_faults\": 0,")); /* balancing ran */
	/* the table shows the NUMA block for both configurations */
	const char *t1[] = {"sim",     "--machine",   SMALL,	      "--workload", "numa02",
			    "--loops", "200",	      "--iterations", "1",	    "--compare",
			    "on=NUMA", "off=NO_NUMA", "--quiet",      NULL};
	struct run t = ts_run_cli(dir, t1, 300);
	assert_int_equal(t.status, 0);
	assert_int_equal(count_substr(t.out, "NUMA hint faults (pages)"), 1); /* not for "off" */
	assert_int_equal(count_substr(t.out, "NUMA double migrations"), 1);
	assert_int_equal(count_substr(t.out, "NUMA tasks on preferred node %"), 1);
	/* CSV: the NUMA columns */
	const char *c1[] = {"sim", "--machine",	   SMALL, "--workload", "numa02", "--loops",
			    "50",  "--iterations", "1",	  "--format",	"csv",	  "--quiet",
			    NULL};
	struct run c = ts_run_cli(dir, c1, 300);
	assert_int_equal(c.status, 0);
	assert_non_null(strstr(c.out, ",numa_hint_faults,"));
	assert_non_null(strstr(c.out, ",numa_double_migrations,"));
	assert_non_null(strstr(c.out, ",numa_preferred_pct,tg_layout,"));
	run_free(&a);
	run_free(&b);
	run_free(&t);
	run_free(&c);
	assert_int_equal(ts_tmpdir_remove(dir), 0);
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void expect_invalid(const struct ts_sim_config *cfg, const char *word)
{
	struct ts_sim_result r;
	struct ts_error err = {0};
	int rc = ts_sim_run(cfg, &r, &err);
	if (rc != -EINVAL || !strstr(err.msg, word))
		fail_msg("want -EINVAL with '%s', got %d: %s", word, rc, err.msg);
}

static void test_bad_descriptions(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, SMALL);
	struct ts_region reg = {.name = "r", .bytes = MIB};
	struct ts_phase ph = {.kind = TS_PH_TOUCH, .accesses = 1};
	struct ts_task_class cls = {
		.name = "c", .count = 1, .phases = &ph, .nr_phases = 1, .iterations = 1};
	struct ts_workload w = {.name = "bad",
				.classes = &cls,
				.nr_classes = 1,
				.regions = &reg,
				.nr_regions = 1,
				.metric = TS_METRIC_TIME_S};
	struct ts_sim_config cfg = config(&m, &w, 1, "");
	sim_run_ok(&cfg); /* the good one */
	ph.region = 1;
	expect_invalid(&cfg, "region 1 does not exist");
	ph.region = 0;
	ph.accesses = -1;
	expect_invalid(&cfg, "accesses");
	ph.accesses = NAN;
	expect_invalid(&cfg, "accesses");
	ph.accesses = 0;
	expect_invalid(&cfg, "without ever blocking or running");
	ph.accesses = 1;
	ph.slice = (enum ts_touch_slice)7;
	expect_invalid(&cfg, "slice");
	ph.slice = TS_SLICE_OWN;
	reg.bytes = 0;
	expect_invalid(&cfg, "size 0 bytes");
	reg.bytes = TS_SIM_MAX_REGION_BYTES + 1;
	expect_invalid(&cfg, "region 'r'");
	reg.bytes = MIB;
	reg.policy = TS_MEM_BIND_BALANCING;
	reg.node = 2;
	expect_invalid(&cfg, "node 2 does not exist");
	reg.policy = TS_MEM_LOCAL;
	cls.count_rule = TS_COUNT_CPUS;
	cls.count = 0;
	expect_invalid(&cfg, "zero CPU divisor");
	cls.count_rule = TS_COUNT_FIXED;
	cls.count = 1;
	cfg.bind = TS_BIND_HARD;
	expect_invalid(&cfg, "home nodes");
	cls.home = TS_HOME_TASK;
	sim_run_ok(&cfg);
	cfg.bind = (enum ts_sim_bind)9;
	expect_invalid(&cfg, "bind mode");
	cfg.bind = TS_BIND_NONE;
	/* too many chunks */
	reg.bytes = TS_SIM_MAX_REGION_BYTES;
	cfg.load = 64;
	expect_invalid(&cfg, "chunks of 2 MiB");
	machine_free(&m);
}

static void expect_cli_error(const char *dir, const char *const *args, const char *word)
{
	struct run r = ts_run_cli(dir, args, 60);
	bool ok = r.status == 2 && r.out[0] == '\0' &&
		  strncmp(r.err, "toposched sim: error: ", 22) == 0 && count_lines(r.err) == 1 &&
		  strstr(r.err, word);
	if (!ok)
		fail_msg("want exit 2 with one error line naming '%s'; got %d: %s", word, r.status,
			 r.err);
	run_free(&r);
}

static void test_cli_bad_input(void **state)
{
	(void)state;
	char dir[] = "/tmp/ts-sim-numa-XXXXXX";
	assert_non_null(mkdtemp(dir));
#define A(...) ((const char *const[]){"sim", __VA_ARGS__, NULL})
	expect_cli_error(dir, A("--workload", "numa02", "--bind", "soft"), "'soft'");
	expect_cli_error(dir, A("--workload", "numa02", "--bind"), "--bind");
	expect_cli_error(dir, A("--workload", "tbench", "--bind", "hard"), "no memory to bind");
	expect_cli_error(dir, A("--workload", "numa02", "--cost", "numa.hint_fault=-1"),
			 "numa.hint_fault=-1");
	expect_cli_error(dir, A("--workload", "numa02", "--cost", "numa.migrate_per_kib=x"),
			 "not a number");
	expect_cli_error(dir, A("--workload", "numa02", "--cost", "numa.stop=5"), "unknown term");
	expect_cli_error(dir,
			 A("--workload", "numa01", "--machine", "kunpeng920", "--load", "2000"),
			 "more than the limit");
	expect_cli_error(dir, A("--workload", "numa03"), "numa02");
#undef A
	assert_int_equal(ts_tmpdir_remove(dir), 0);
}

/* ---- the workload figures (autonuma-benchmark, mmtests' SPECjbb2005 config) ------------ */

static void test_workload_figures(void **state)
{
	(void)state;
	const struct ts_workload *n1 = ts_workload_find("numa01"),
				 *n1t = ts_workload_find("numa01-thread-alloc"),
				 *n2 = ts_workload_find("numa02"),
				 *n2s = ts_workload_find("numa02-smt"),
				 *jbb = ts_workload_find("specjbb");
	assert_non_null(n1);
	assert_non_null(n1t);
	assert_non_null(n2);
	assert_non_null(n2s);
	assert_non_null(jbb);
	/* sizes: 3 GiB per process, 1 GiB for numa02 */
	assert_int_equal(n1->regions[0].bytes, 3ULL << 30);
	assert_int_equal(n1t->regions[0].bytes, 3ULL << 30);
	assert_int_equal(n2->regions[0].bytes, 1ULL << 30);
	assert_int_equal(n2->regions[0].prefault, TS_PREFAULT_PARENT); /* BINDMAP's bzero */
	/* threads scaled to the CPUs: NCPUS/2 per process, NCPUS, NCPUS/2 */
	assert_int_equal(ts_class_count(&n1->classes[0], 128, 2), 64);
	assert_int_equal(ts_class_count(&n2->classes[0], 128, 1), 128);
	assert_int_equal(ts_class_count(&n2s->classes[0], 128, 1), 64);
	assert_int_equal(ts_workload_nr_tasks(n1, 128, 4, 2), 128);
	/* loops: 1 + 50, 1 + 1000, 800 */
	assert_int_equal(n1->classes[0].iterations, 50);
	assert_int_equal(n1->classes[0].nr_prologue, 1);
	assert_int_equal(n1->classes[0].phases[0].slice, TS_SLICE_ALL);
	assert_int_equal(n1t->classes[0].iterations, 1000);
	assert_int_equal(n1t->classes[0].prologue[0].slice, TS_SLICE_ALL);
	assert_int_equal(n1t->classes[0].phases[0].slice, TS_SLICE_OWN);
	assert_int_equal(n2->classes[0].iterations, 800);
	assert_int_equal(n2->classes[0].nr_prologue, 0);
	assert_near(n2->classes[0].phases[0].accesses, 64 / 10.0, 1e-12);
	for (const struct ts_workload *const *w =
		     (const struct ts_workload *const[]){n1, n1t, n2, n2s, NULL};
	     *w; w++) {
		assert_int_equal((*w)->metric, TS_METRIC_TIME_S);
		assert_non_null((*w)->default_loads);
		assert_true((*w)->classes[0].home != TS_HOME_NONE);
	}
	/* SPECjbb: one JVM per node, load = warehouses per JVM, a throughput */
	assert_int_equal(jbb->instances, TS_INSTANCES_NODES);
	assert_int_equal(jbb->classes[0].count_rule, TS_COUNT_LOAD);
	assert_int_equal(ts_workload_instances(jbb, 4, 8), 4);
	assert_int_equal(ts_workload_nr_tasks(jbb, 128, 4, 8), 32);
	assert_true(ts_metric_higher_is_better(jbb->metric));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks_and_conservation),
		cmocka_unit_test(test_scan_windows),
		cmocka_unit_test(test_two_stage_filter),
		cmocka_unit_test(test_task_scan_start),
		cmocka_unit_test(test_sweep_cost_and_recost),
		cmocka_unit_test(test_access_cost_by_hand),
		cmocka_unit_test(test_migrated_sweep_is_recosted),
		cmocka_unit_test(test_numa02_settles),
		cmocka_unit_test(test_bind_references),
		cmocka_unit_test(test_reserve_prevents_double_migrations),
		cmocka_unit_test(test_cli_json_deterministic_and_numa_block),
		cmocka_unit_test(test_bad_descriptions),
		cmocka_unit_test(test_cli_bad_input),
		cmocka_unit_test(test_workload_figures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
