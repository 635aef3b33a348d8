/* The runtime's NUMA side: memory on a node and declared memory, the move_pages() query on
 * this host, spawning near a node (against the core's cpumask_local_spread()), the node
 * preference, bad arguments, and the NUMA balancer on a virtual 4-node machine (the
 * kunpeng920 preset, four CPUs of each node, mapped onto the real CPUs): a task moved to
 * its memory, a swap of two tasks, and many workers racing to move tasks onto the one idle
 * CPU of node 0 — with NUMA_RESERVE no CPU receives two migrations in one decision-to-done
 * window, with NO_NUMA_RESERVE it does. The race is made certain, not likely, by the test
 * knob numa_test_stop_delay_us (a decision waits that long before its stop work, so the
 * other workers decide meanwhile) and by node 0 having exactly one CPU a racer may use.
 * No assertion on elapsed time: the waits poll for a state and fail after a generous
 * bound only if it never comes. */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "toposched/runtime_core.h"
#include "toposched/spread.h"

/* node n of kunpeng920 is CPUs 32n .. 32n+31; four of each are scheduled */
#define KP_CPUS	      "0-3,32-35,64-67,96-99"
#define WAIT_LIMIT_NS (60ull * 1000000000ull)

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void start_or_fail(const struct ts_rt_config *cfg)
{
	if (ts_rt_start(cfg))
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
}

static bool contains(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Whether this kernel answers move_pages() queries (NUMA support, and no seccomp filter
 * against it, as container runtimes without CAP_SYS_NICE have). */
static bool kernel_answers_queries(void)
{
	if (numa_available() < 0)
		return false;
	char *p = malloc(1);
	void *pages[1] = {p};
	int status[1];
	bool ok = p && move_pages(0, 1, pages, NULL, status, 0) == 0;
	free(p);
	return ok;
}

/* ---- memory ---- */

struct alloc_check {
	int rc_redeclare, rc_undeclare, rc_free, rc_declare_stack, rc_undeclare_stack;
	char msg[160];
};

static void *alloc_in_task(void *arg)
{
	struct alloc_check *c = arg;
	size_t len = 5 * (size_t)page_size() + 1;
	char *p = ts_numa_alloc(len, 0);
	if (!p)
		return (void *)1;
	memset(p, 1, len);
	/* ts_numa_alloc from a task declared it: a second declaration overlaps */
	c->rc_redeclare = ts_numa_declare(p + 100, 10);
	snprintf(c->msg, sizeof(c->msg), "%s", ts_rt_last_error());
	c->rc_free = ts_numa_free(p, len); /* drops the declaration too */
	char stack_buf[64];
	c->rc_declare_stack = ts_numa_declare(stack_buf, sizeof(stack_buf));
	c->rc_undeclare_stack = ts_numa_undeclare(stack_buf - page_size(), 3 * (size_t)page_size());
	return NULL;
}

static void test_alloc_declare_free(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {0};
	start_or_fail(&cfg);
	/* from a plain thread: allocated, not declared */
	size_t len = 3 * (size_t)page_size();
	char *p = ts_numa_alloc(len, 0);
	assert_non_null(p);
	memset(p, 7, len);
	assert_int_equal(ts_numa_free(p, len), 0);
	assert_int_equal(ts_numa_free(p, len), -EINVAL); /* freed already */
	assert_true(contains(ts_rt_last_error(), "no memory of ts_numa_alloc"));

	struct alloc_check c = {0};
	ts_task_handle h = ts_spawn(alloc_in_task, &c, NULL);
	void *ret = (void *)1;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	assert_int_equal(c.rc_redeclare, -EEXIST);
	assert_true(contains(c.msg, "overlaps memory this task declared already"));
	assert_int_equal(c.rc_free, 0);
	assert_int_equal(c.rc_declare_stack, 0);
	assert_int_equal(c.rc_undeclare_stack, 1);
	assert_int_equal(ts_rt_stop(), 0);
}

/* The kernel's answer for memory of ts_numa_alloc on this machine: touched pages on node
 * 0 (the only one here), untouched ones not present. */
static void test_move_pages_query(void **state)
{
	(void)state;
	if (!kernel_answers_queries())
		skip(); /* no NUMA support here: ts_numa_alloc falls back to mmap */
	struct ts_rt_config cfg = {0};
	start_or_fail(&cfg);
	long pg = page_size();
	enum { N = 8 };
	char *p = ts_numa_alloc(N * (size_t)pg, 0);
	assert_non_null(p);
	void *pages[N];
	int status[N];
	for (int i = 0; i < N; i++) {
		pages[i] = p + i * pg;
		if (i % 2 == 0)
			p[i * pg] = 1;
	}
	assert_int_equal(move_pages(0, N, pages, NULL, status, 0), 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(status[i], i % 2 == 0 ? 0 : -ENOENT);
	assert_int_equal(ts_numa_free(p, N * (size_t)pg), 0);
	assert_int_equal(ts_rt_stop(), 0);
}

/* The balancer on this host: every scan samples the task's declared memory (fewer pages
 * than numa_scan_samples, so all of it), asks the kernel, and feeds the touched pages,
 * all local here, as faults: faults = scans x touched pages, exactly. */
static atomic_int host_stop;

static void *scanned_task(void *arg)
{
	(void)arg;
	long pg = page_size();
	enum { N = 16, TOUCHED = 6 };
	char *p = ts_numa_alloc(N * (size_t)pg, 0);
	if (!p)
		return (void *)1;
	for (int i = 0; i < TOUCHED; i++)
		p[i * pg] = 1;
	while (!atomic_load(&host_stop))
		ts_yield();
	return ts_numa_free(p, N * (size_t)pg) ? (void *)2 : NULL;
}

static void test_host_scan_faults(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.numa_scan_delay_ms = 1, .numa_scan_period_ms = 1};
	start_or_fail(&cfg);
	atomic_store(&host_stop, 0);
	ts_task_handle h = ts_spawn(scanned_task, NULL, NULL);
	assert_true(h.id != 0);
	struct ts_rt_stats st;
	uint64_t t0 = now_ns();
	do {
		sleep_ms(5);
		ts_rt_get_stats(&st);
	} while (st.numa_scans < 5 && now_ns() - t0 < WAIT_LIMIT_NS);
	atomic_store(&host_stop, 1);
	void *ret = (void *)1;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	ts_rt_get_stats(&st);
	assert_true(st.numa_scans >= 5);
	if (kernel_answers_queries())
		assert_int_equal(st.numa_faults, st.numa_scans * 6);
	else /* no kernel answer: the declared node, all 16 pages */
		assert_int_equal(st.numa_faults, st.numa_scans * 16);
	assert_int_equal(st.numa_faults_local, st.numa_faults);
	assert_int_equal(st.numa_decisions, 0); /* one node: nowhere to go */
	assert_int_equal(st.numa_searches, 0);	/* ... and always on the preferred node */
	struct ts_numa_cpu_stats ns;
	ts_numa_stats_sum(ts_rt_sched(), &ns);
	assert_int_equal(ts_stat_read(&ns.hint_faults), st.numa_faults);
	assert_int_equal(ts_stat_read(&ns.hint_faults_local), st.numa_faults);
	assert_int_equal(ts_stat_read(&ns.hint_faults_private), st.numa_faults);
	assert_int_equal(ts_rt_stop(), 0);
}

/* ---- spawning near a node ---- */

static void *where(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)ts_self_cpu();
}

static int spawn_where(int near_node, int spread_index, const char *cpus)
{
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.near_node = near_node;
	a.spread_index = spread_index;
	a.cpus = cpus;
	ts_task_handle h = ts_spawn(where, NULL, &a);
	if (!h.id)
		fail_msg("ts_spawn: %s", ts_rt_last_error());
	void *ret = NULL;
	assert_int_equal(ts_join(h, &ret), 0);
	return (int)(intptr_t)ret;
}

static void test_spawn_near_node(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "kunpeng920", .cpulist = KP_CPUS};
	start_or_fail(&cfg);
	struct ts_sched *s = ts_rt_sched();
	const struct ts_cpumask *online = s->dom->cpu_map;
	/* One task at a time, so that nothing else runs and the first CPU is where it starts. */
	for (int node = 0; node < 4; node++)
		for (int i = 0; i < 16; i++)
			assert_int_equal(spawn_where(node, i, NULL),
					 ts_cpumask_local_spread(&s->dom->numa, online,
								 TS_SPREAD_NUMA_HOPS, i, node));
	/* spread_index -1: successive indices near the node (this runtime's first spawns
	 * near node 2) */
	for (int i = 0; i < 6; i++)
		assert_int_equal(
			spawn_where(2, -1, NULL),
			ts_cpumask_local_spread(&s->dom->numa, online, TS_SPREAD_NUMA_HOPS, i, 2));
	/* no node: the i-th scheduled CPU */
	assert_int_equal(spawn_where(-1, 5, NULL), 33);
	/* within the affinity: the CPUs nearest the node among the allowed ones */
	struct ts_cpumask *allowed = ts_cpumask_alloc(s->nr_cpus);
	struct ts_error err = {0};
	assert_int_equal(ts_cpumask_parse(allowed, "64-67,96", &err), 0);
	for (int node = 0; node < 4; node++)
		for (int i = 0; i < 5; i++)
			assert_int_equal(spawn_where(node, i, "64-67,96"),
					 ts_cpumask_local_spread(&s->dom->numa, allowed,
								 TS_SPREAD_NUMA_HOPS, i, node));
	assert_int_equal(spawn_where(3, 0, "64-67,96"), 96); /* node 3's own CPU first */
	assert_int_equal(spawn_where(3, 1, "64-67,96"), 64); /* then node 2, 16 away */
	ts_cpumask_free(allowed);
	assert_int_equal(ts_rt_stop(), 0);
}

/* ---- the node preference ---- */

static atomic_int pref_go;

static void *pref_task(void *arg)
{
	atomic_int *out = arg;
	struct ts_sched *s = ts_rt_sched();
	int node = s->topo->cpu[ts_self_cpu()].node, got = -5;
	if (ts_task_set_preferred_node((ts_task_handle){0}, node))
		return (void *)1;
	if (ts_task_get_preferred_node(ts_self(), &got))
		return (void *)2;
	/* sched_setnuma() accounted the running task on its rq */
	unsigned int pr, nu;
	ts_numa_preferred_share(s, &pr, &nu);
	atomic_store(&out[0], got);
	atomic_store(&out[1], (int)pr);
	atomic_store(&out[2], (int)nu);
	while (!atomic_load(&pref_go))
		ts_yield();
	return NULL;
}

static void test_preferred_node(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "kunpeng920", .cpulist = KP_CPUS};
	start_or_fail(&cfg);
	atomic_store(&pref_go, 0);
	atomic_int out[3];
	for (int i = 0; i < 3; i++)
		atomic_init(&out[i], -5);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.cpus = "64"; /* node 2 */
	ts_task_handle h = ts_spawn(pref_task, out, &a);
	assert_true(h.id != 0);
	int node = -5;
	uint64_t t0 = now_ns();
	while (atomic_load(&out[2]) == -5 && now_ns() - t0 < WAIT_LIMIT_NS)
		sleep_ms(1);
	assert_int_equal(atomic_load(&out[0]), 2);
	assert_int_equal(atomic_load(&out[1]), 1);
	assert_int_equal(atomic_load(&out[2]), 1);
	/* from another thread, while it runs */
	assert_int_equal(ts_task_get_preferred_node(h, &node), 0);
	assert_int_equal(node, 2);
	assert_int_equal(ts_task_set_preferred_node(h, 0), 0);
	assert_int_equal(ts_task_get_preferred_node(h, &node), 0);
	assert_int_equal(node, 0);
	unsigned int pr, nu;
	ts_numa_preferred_share(ts_rt_sched(), &pr, &nu);
	assert_int_equal(nu, 1);
	assert_int_equal(pr, 0); /* on node 2, preferring 0 */
	assert_int_equal(ts_task_set_preferred_node(h, -1), 0);
	ts_numa_preferred_share(ts_rt_sched(), &pr, &nu);
	assert_int_equal(nu, 0);
	atomic_store(&pref_go, 1);
	assert_int_equal(ts_join(h, NULL), 0);
	/* joined: the handle is stale */
	assert_int_equal(ts_task_get_preferred_node(h, &node), -ESRCH);
	assert_true(contains(ts_rt_last_error(), "names no task"));
	assert_int_equal(ts_rt_stop(), 0);
}

/* ---- bad arguments ---- */

static void *declare_bad(void *arg)
{
	(void)arg;
	if (ts_numa_declare(NULL, 10) != -EINVAL || !contains(ts_rt_last_error(), "bad range"))
		return (void *)1;
	char b[8];
	if (ts_numa_declare(b, 0) != -EINVAL)
		return (void *)2;
	return NULL;
}

static void test_bad_arguments(void **state)
{
	(void)state;
	/* not running */
	errno = 0;
	assert_null(ts_numa_alloc(4096, 0));
	assert_int_equal(errno, ENXIO);
	assert_true(contains(ts_rt_last_error(), "not running"));
	assert_int_equal(ts_task_set_preferred_node((ts_task_handle){1}, 0), -ENXIO);
	int node;
	assert_int_equal(ts_task_get_preferred_node((ts_task_handle){1}, &node), -ENXIO);

	struct ts_rt_config cfg = {.topology = "kunpeng920", .cpulist = KP_CPUS};
	start_or_fail(&cfg);
	errno = 0;
	assert_null(ts_numa_alloc(0, 0));
	assert_int_equal(errno, EINVAL);
	assert_true(contains(ts_rt_last_error(), "length 0"));
	assert_null(ts_numa_alloc(4096, 4));
	assert_true(contains(ts_rt_last_error(), "node 4 does not exist (4 nodes: 0-3)"));
	assert_null(ts_numa_alloc(4096, -1));
	assert_null(ts_numa_alloc(SIZE_MAX, 0));
	assert_true(contains(ts_rt_last_error(), "length"));

	char *p = ts_numa_alloc(2 * (size_t)page_size(), 3);
	assert_non_null(p);
	assert_int_equal(ts_numa_free(p, 5 * (size_t)page_size()), -EINVAL);
	assert_true(contains(ts_rt_last_error(), "bytes, not"));
	assert_int_equal(ts_numa_free(p + 1, 2 * (size_t)page_size()), -EINVAL);
	assert_int_equal(ts_numa_free(NULL, 1), -EINVAL);
	assert_int_equal(ts_numa_free(p, 2 * (size_t)page_size()), 0);

	assert_int_equal(ts_numa_declare(&node, sizeof(node)), -EPERM);
	assert_true(contains(ts_rt_last_error(), "outside a task"));
	assert_int_equal(ts_numa_undeclare(&node, sizeof(node)), -EPERM);
	ts_task_handle h = ts_spawn(declare_bad, NULL, NULL);
	void *ret = (void *)9;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);

	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.near_node = 4;
	errno = 0;
	assert_int_equal(ts_spawn(where, NULL, &a).id, 0);
	assert_int_equal(errno, EINVAL);
	assert_true(contains(ts_rt_last_error(), "near_node 4 does not exist (4 nodes"));
	a.near_node = -2;
	assert_int_equal(ts_spawn(where, NULL, &a).id, 0);
	a.near_node = 0;
	a.spread_index = -2;
	assert_int_equal(ts_spawn(where, NULL, &a).id, 0);
	assert_true(contains(ts_rt_last_error(), "spread_index -2"));

	assert_int_equal(ts_task_set_preferred_node((ts_task_handle){0}, 0), -ESRCH);
	assert_true(contains(ts_rt_last_error(), "this is no task"));
	assert_int_equal(ts_task_set_preferred_node((ts_task_handle){12345}, 0), -ESRCH);
	assert_int_equal(ts_task_set_preferred_node((ts_task_handle){12345}, 4), -EINVAL);
	assert_true(contains(ts_rt_last_error(), "node 4 does not exist"));
	assert_int_equal(ts_task_get_preferred_node((ts_task_handle){12345}, NULL), -EINVAL);
	assert_int_equal(ts_rt_stop(), 0);
}

/* ---- the balancer on the virtual machine ---- */

static atomic_int run_stop, run_go;

struct mover {
	int mem_node;
	atomic_int cpu;	   /* where it ran last */
	atomic_int inside; /* executions of its loop body at once: never more than 1 */
};

/* Once every task of the test is there, declares memory on mem_node and runs (yields)
 * until told to stop. */
static void *mover(void *arg)
{
	struct mover *m = arg;
	while (!atomic_load(&run_go) && !atomic_load(&run_stop))
		ts_yield();
	size_t len = 16 * (size_t)page_size();
	char *p = ts_numa_alloc(len, m->mem_node);
	if (!p)
		return (void *)1;
	memset(p, 0, len);
	while (!atomic_load(&run_stop)) {
		if (atomic_fetch_add(&m->inside, 1) != 0)
			return (void *)3; /* the task runs on two workers */
		atomic_store(&m->cpu, ts_self_cpu());
		atomic_fetch_sub(&m->inside, 1);
		ts_yield();
	}
	return ts_numa_free(p, len) ? (void *)2 : NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load(&run_stop))
		ts_yield();
	return NULL;
}

static ts_task_handle spawn_task(ts_task_fn fn, void *arg, const char *cpus, int near_node)
{
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.cpus = cpus;
	if (near_node >= 0) {
		a.near_node = near_node;
		a.spread_index = 0;
	}
	ts_task_handle h = ts_spawn(fn, arg, &a);
	if (!h.id)
		fail_msg("ts_spawn: %s", ts_rt_last_error());
	return h;
}

static int node_of(int cpu)
{
	return cpu / 32;
}

/* Every worker has gone idle once: from now on a worker runs only when something is put
 * on its CPU (the tests place every task directly with near_node, never through a
 * worker's inbox), so no idle worker balances the load before the tasks are where the
 * test put them. */
static void wait_all_parked(void)
{
	struct ts_rt_stats st;
	uint64_t t0 = now_ns();
	do {
		sleep_ms(1);
		ts_rt_get_stats(&st);
	} while (st.parks < (uint64_t)ts_rt_nr_workers() && now_ns() - t0 < WAIT_LIMIT_NS);
	assert_true(st.parks >= (uint64_t)ts_rt_nr_workers());
}

/* Waits for `more` scans after `from` and checks that none of them searched (took the lock
 * set of every CPU outside the worker's node). */
static void wait_scans_without_search(struct ts_rt_stats from, uint64_t more)
{
	struct ts_rt_stats st;
	uint64_t t0 = now_ns();
	do {
		sleep_ms(2);
		ts_rt_get_stats(&st);
	} while (st.numa_scans < from.numa_scans + more && now_ns() - t0 < WAIT_LIMIT_NS);
	assert_true(st.numa_scans >= from.numa_scans + more);
	assert_int_equal(st.numa_searches, from.numa_searches);
	assert_int_equal(st.numa_decisions, from.numa_decisions);
}

/* A task on the node of its memory from the start: placement prefers that node, so its
 * scans feed faults under the worker's own rq lock only and never search. */
static void test_home_task_never_searches(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "kunpeng920",
				   .cpulist = KP_CPUS,
				   .numa_scan_delay_ms = 2,
				   .numa_scan_period_ms = 2};
	start_or_fail(&cfg);
	atomic_store(&run_stop, 0);
	atomic_store(&run_go, 1);
	struct mover m = {.mem_node = 1};
	atomic_init(&m.cpu, -1);
	ts_task_handle h = spawn_task(mover, &m, "32-35", 1);
	struct ts_rt_stats st = {0};
	wait_scans_without_search(st, 30);
	int pref = -5;
	assert_int_equal(ts_task_get_preferred_node(h, &pref), 0);
	assert_int_equal(pref, 1);
	assert_int_equal(node_of(atomic_load(&m.cpu)), 1);
	atomic_store(&run_stop, 1);
	void *ret = (void *)1;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	/* read once the task is done: a running task's faults and local faults are counted
	 * one after the other, so a read in between sees them apart */
	ts_rt_get_stats(&st);
	assert_true(st.numa_faults > 0);
	assert_int_equal(st.numa_faults_local, st.numa_faults);
	assert_int_equal(ts_rt_stop(), 0);
}

/* One task on node 2 with its memory on node 0: moved there, once. */
static void test_task_moves_to_memory(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "kunpeng920",
				   .cpulist = KP_CPUS,
				   .numa_scan_delay_ms = 2,
				   .numa_scan_period_ms = 2,
				   .numa_trace = 64};
	start_or_fail(&cfg);
	atomic_store(&run_stop, 0);
	atomic_store(&run_go, 1);
	struct mover m = {.mem_node = 0};
	atomic_init(&m.cpu, -1);
	ts_task_handle h = spawn_task(mover, &m, NULL, 2);
	uint64_t t0 = now_ns();
	while ((atomic_load(&m.cpu) < 0 || node_of(atomic_load(&m.cpu)) != 0) &&
	       now_ns() - t0 < WAIT_LIMIT_NS)
		sleep_ms(2);
	assert_int_equal(node_of(atomic_load(&m.cpu)), 0);
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	assert_true(st.numa_migrations >= 1);
	assert_true(st.numa_faults > 0);
	struct ts_rt_numa_event ev[64];
	size_t n = ts_rt_numa_trace(ev, 64);
	assert_true(n >= 1);
	assert_true(ev[0].applied);
	assert_int_equal(node_of(ev[0].src_cpu), 2);
	assert_int_equal(node_of(ev[0].dst_cpu), 0);
	assert_int_equal(ev[0].task, h.id);
	assert_int_equal(ev[0].swap_with, 0);
	assert_true(ev[0].decided_ns <= ev[0].done_ns);
	int pref = -5;
	assert_int_equal(ts_task_get_preferred_node(h, &pref), 0);
	assert_int_equal(pref, 0); /* placement chose the node of its faults */
	/* Only scans that searched took every node's locks; home, no scan does any more. */
	ts_rt_get_stats(&st);
	assert_true(st.numa_searches >= st.numa_decisions);
	assert_true(st.numa_searches <= st.numa_scans);
	wait_scans_without_search(st, 20);
	assert_int_equal(node_of(atomic_load(&m.cpu)), 0);
	atomic_store(&run_stop, 1);
	void *ret = (void *)1;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	assert_int_equal(ts_rt_stop(), 0);
}

/* Two tasks, each on the other's memory node, on nodes with no spare capacity (a pinned
 * task on each node's other CPU): the core swaps them (migrate_swap), the stop work
 * running on the partner's worker. The nice values make the swap improve the balance of
 * the node loads by a margin (load_too_imbalanced() refuses a swap of two equal loads
 * between equally loaded nodes as soon as PELT noise makes them differ by one). A
 * synthetic machine of two whole nodes: on a preset with part of each node scheduled the
 * core counts the node's unscheduled CPUs in its weight and always sees spare capacity
 * (update_numa_stats(), reported), which forbids swaps. */
static ts_task_handle spawn_nice(ts_task_fn fn, void *arg, const char *cpus, int near_node,
				 int nice)
{
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.cpus = cpus;
	a.nice = nice;
	a.near_node = near_node;
	a.spread_index = near_node >= 0 ? 0 : -1;
	ts_task_handle h = ts_spawn(fn, arg, &a);
	if (!h.id)
		fail_msg("ts_spawn: %s", ts_rt_last_error());
	return h;
}

static void test_swap(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "synthetic:pack:2 numa:1 core:2 pu:1",
				   .numa_scan_delay_ms = 2,
				   .numa_scan_period_ms = 2,
				   .numa_trace = 256};
	start_or_fail(&cfg);
	atomic_store(&run_stop, 0);
	atomic_store(&run_go, 0);
	struct mover a = {.mem_node = 0}, b = {.mem_node = 1};
	atomic_init(&a.cpu, -1);
	atomic_init(&b.cpu, -1);
	/* node 0: b (memory on node 1) on CPU 0, z (light) on 1; node 1: a (heavy, memory on
	 * node 0) on CPU 2, y on 3. Loads: node 0 1024 + 335, node 1 3121 + 1024. */
	wait_all_parked();
	ts_task_handle hb = spawn_nice(mover, &b, "0,2", 0, 0);
	ts_task_handle hz = spawn_nice(spinner, NULL, "1", 0, 5);
	ts_task_handle ha = spawn_nice(mover, &a, "0,2", 1, -5);
	ts_task_handle hy = spawn_nice(spinner, NULL, "3", 1, 0);
	atomic_store(&run_go, 1);
	struct ts_rt_stats st;
	uint64_t t0 = now_ns();
	do {
		sleep_ms(2);
		ts_rt_get_stats(&st);
	} while ((st.numa_swaps == 0 || atomic_load(&a.cpu) != 0 || atomic_load(&b.cpu) != 2) &&
		 now_ns() - t0 < WAIT_LIMIT_NS);
	assert_true(st.numa_swaps >= 1);
	assert_int_equal(atomic_load(&a.cpu), 0);
	assert_int_equal(atomic_load(&b.cpu), 2);
	struct ts_rt_numa_event ev[256];
	size_t n = ts_rt_numa_trace(ev, 256), swaps = 0;
	for (size_t i = 0; i < n && i < 256; i++) {
		assert_true(ev[i].swap_with != 0); /* never a move: no CPU had room */
		if (!ev[i].applied)
			continue;
		swaps++;
		assert_true((ev[i].task == ha.id && ev[i].swap_with == hb.id) ||
			    (ev[i].task == hb.id && ev[i].swap_with == ha.id));
	}
	assert_true(swaps >= 1);
	atomic_store(&run_stop, 1);
	ts_task_handle all[] = {ha, hb, hy, hz};
	for (int i = 0; i < 4; i++)
		assert_int_equal(ts_join(all[i], NULL), 0);
	assert_int_equal(ts_rt_stop(), 0);
}

/* ---- the race for node 0 ---- */

#define NR_RACERS 12

struct race {
	ts_task_handle racer[NR_RACERS], filler[NR_RACERS], hog[3];
	struct mover m[NR_RACERS];
	char racer_cpus[NR_RACERS][16], pin[NR_RACERS][8];
};

static bool overlap(const struct ts_rt_numa_event *a, const struct ts_rt_numa_event *b)
{
	return a->dst_cpu == b->dst_cpu && a->decided_ns < b->done_ns && b->decided_ns < a->done_ns;
}

/* Applied migrations to one CPU whose decision-to-done windows overlap. */
static size_t overlapping_pairs(const struct ts_rt_numa_event *ev, size_t n, bool applied_only)
{
	size_t pairs = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if ((!applied_only || (ev[i].applied && ev[j].applied)) &&
			    overlap(&ev[i], &ev[j]))
				pairs++;
	return pairs;
}

/* Node 0: hogs pinned on CPUs 1-3, CPU 0 idle. Nodes 1-3: on each CPU c a pinned filler and
 * a racer allowed on c and 0 only, with its memory on node 0. Every racer's search finds
 * node 0 with spare capacity and CPU 0 its only idle CPU. */
static void race(bool reserve, size_t *nr_events, struct ts_rt_numa_event *ev, size_t cap,
		 uint64_t *reserved_skips)
{
	static struct race r;
	memset(&r, 0, sizeof(r));
	struct ts_rt_config cfg = {.topology = "kunpeng920",
				   .cpulist = KP_CPUS,
				   .features = reserve ? "NUMA_RESERVE" : "NO_NUMA_RESERVE",
				   .numa_scan_delay_ms = 10,
				   .numa_scan_period_ms = 10,
				   .numa_test_stop_delay_us = 400000,
				   .numa_trace = cap};
	start_or_fail(&cfg);
	atomic_store(&run_stop, 0);
	atomic_store(&run_go, 0);
	wait_all_parked();
	r.hog[0] = spawn_task(spinner, NULL, "1", 0);
	r.hog[1] = spawn_task(spinner, NULL, "2", 0);
	r.hog[2] = spawn_task(spinner, NULL, "3", 0);
	for (int i = 0; i < NR_RACERS; i++) {
		int c = 32 * (1 + i / 4) + i % 4;
		snprintf(r.pin[i], sizeof(r.pin[i]), "%d", c);
		snprintf(r.racer_cpus[i], sizeof(r.racer_cpus[i]), "0,%d", c);
		r.filler[i] = spawn_task(spinner, NULL, r.pin[i], node_of(c));
		r.m[i].mem_node = 0;
		atomic_init(&r.m[i].cpu, -1);
		/* near its own node, index 0: starts on c, the nearest CPU it may use */
		r.racer[i] = spawn_task(mover, &r.m[i], r.racer_cpus[i], node_of(c));
	}
	atomic_store(&run_go, 1);
	struct ts_sched *s = ts_rt_sched();
	struct ts_numa_cpu_stats ns;
	uint64_t t0 = now_ns();
	for (;;) {
		sleep_ms(10);
		*nr_events = ts_rt_numa_trace(ev, cap);
		ts_numa_stats_sum(s, &ns);
		size_t applied = 0;
		for (size_t i = 0; i < *nr_events && i < cap; i++)
			applied += ev[i].applied;
		bool done = reserve ? applied >= 1 && ts_stat_read(&ns.reserved_skips) > 0
				    : overlapping_pairs(ev, *nr_events < cap ? *nr_events : cap,
							true) > 0;
		if (done || now_ns() - t0 > WAIT_LIMIT_NS)
			break;
	}
	*reserved_skips = ts_stat_read(&ns.reserved_skips);
	atomic_store(&run_stop, 1);
	for (int i = 0; i < NR_RACERS; i++) {
		void *ret = (void *)1;
		assert_int_equal(ts_join(r.racer[i], &ret), 0);
		assert_null(ret);
		assert_int_equal(ts_join(r.filler[i], NULL), 0);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(ts_join(r.hog[i], NULL), 0);
	/* the final trace: decisions still in their stop work when told to stop are in it */
	*nr_events = ts_rt_numa_trace(ev, cap);
	assert_int_equal(ts_rt_stop(), 0);
	if (*nr_events > cap)
		*nr_events = cap;
}

#define TRACE_CAP 4096

static void test_race_reserved(void **state)
{
	(void)state;
	static struct ts_rt_numa_event ev[TRACE_CAP];
	size_t n;
	uint64_t skips;
	race(true, &n, ev, TRACE_CAP, &skips);
	size_t applied = 0;
	for (size_t i = 0; i < n; i++) {
		applied += ev[i].applied;
		assert_int_equal(ev[i].swap_with, 0);
		assert_true(ev[i].decided_ns <= ev[i].done_ns);
	}
	assert_true(applied >= 1);
	/* other searches met the reservation ... */
	assert_true(skips > 0);
	/* ... and no CPU was the destination of two decisions in one window */
	assert_int_equal(overlapping_pairs(ev, n, false), 0);
}

static void test_race_unreserved(void **state)
{
	(void)state;
	static struct ts_rt_numa_event ev[TRACE_CAP];
	size_t n;
	uint64_t skips;
	race(false, &n, ev, TRACE_CAP, &skips);
	assert_int_equal(skips, 0);
	/* without the reservation CPU 0 received migrations decided in one window */
	assert_true(overlapping_pairs(ev, n, true) > 0);
	for (size_t i = 0; i < n; i++)
		if (ev[i].applied)
			assert_int_equal(ev[i].dst_cpu, 0);
}

/* ---- stress: blocking tasks, many decisions ---- */

#define NR_PAIRS    16
#define ROUND_TRIPS 1500
/* On a loaded machine the round trips can all end before the first NUMA decision: the
 * clients then go on, up to this many, until one was made. */
#define ROUND_TRIPS_MAX (40 * ROUND_TRIPS)
#define STOP_PAIR	(-1)

struct pair {
	struct ts_chan *req, *resp;
	int mem_node;
	atomic_int inside;
};

/* Memory on its pair's node, then round trips over the channels (blocking both ways). */
static void *pair_end(struct pair *pr, bool client)
{
	size_t len = 8 * (size_t)page_size();
	char *mem = ts_numa_alloc(len, client ? pr->mem_node : (pr->mem_node + 1) % 4);
	if (!mem)
		return (void *)1;
	for (int i = 0;; i++) {
		int v = i, back = -1;
		if (client && i >= ROUND_TRIPS && (i >= ROUND_TRIPS_MAX || i % 16 == 0)) {
			struct ts_rt_stats st;
			ts_rt_get_stats(&st);
			if (st.numa_decisions > 0 || i >= ROUND_TRIPS_MAX) {
				v = STOP_PAIR;
				if (ts_chan_send(pr->req, &v))
					return (void *)2;
				break;
			}
		}
		if (atomic_fetch_add(&pr->inside, 1) > 1)
			return (void *)4; /* more than the two ends at once: one of them twice */
		mem[(size_t)(i % 8) * (size_t)page_size()] = (char)i;
		atomic_fetch_sub(&pr->inside, 1);
		if (client) {
			if (ts_chan_send(pr->req, &v) || ts_chan_recv(pr->resp, &back) || back != i)
				return (void *)2;
		} else {
			if (ts_chan_recv(pr->req, &back))
				return (void *)3;
			if (back == STOP_PAIR)
				break;
			if (back != i || ts_chan_send(pr->resp, &back))
				return (void *)3;
		}
		if (i % 16 == 0)
			ts_yield();
	}
	return ts_numa_free(mem, len) ? (void *)5 : NULL;
}

static void *pair_client(void *arg)
{
	return pair_end(arg, true);
}
static void *pair_server(void *arg)
{
	return pair_end(arg, false);
}

/* Tasks that block and wake all the time, with memory on every node, scanned every
 * millisecond: every message arrives (no wake-up lost), no task runs twice, and the
 * balancer moves and swaps tasks meanwhile (the pairs go on past ROUND_TRIPS until it
 * has decided once). */
static void test_stress_blocking(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "kunpeng920",
				   .cpulist = KP_CPUS,
				   .numa_scan_delay_ms = 1,
				   .numa_scan_period_ms = 1};
	start_or_fail(&cfg);
	static struct pair pr[NR_PAIRS];
	ts_task_handle h[2 * NR_PAIRS];
	for (int i = 0; i < NR_PAIRS; i++) {
		pr[i].req = ts_chan_create(0, sizeof(int));
		pr[i].resp = ts_chan_create(1, sizeof(int));
		pr[i].mem_node = i % 4;
		atomic_init(&pr[i].inside, 0);
		assert_non_null(pr[i].req);
		assert_non_null(pr[i].resp);
		/* both ends start away from their memory */
		h[2 * i] = spawn_task(pair_client, &pr[i], NULL, (i + 2) % 4);
		h[2 * i + 1] = spawn_task(pair_server, &pr[i], NULL, (i + 3) % 4);
	}
	for (int i = 0; i < 2 * NR_PAIRS; i++) {
		void *ret = (void *)9;
		assert_int_equal(ts_join(h[i], &ret), 0);
		assert_null(ret);
	}
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	assert_true(st.numa_scans > 0);
	assert_true(st.numa_decisions > 0);
	assert_int_equal(st.numa_decisions,
			 st.numa_migrations + st.numa_swaps + st.numa_migrate_failed);
	assert_true(st.numa_searches >= st.numa_decisions);
	assert_true(st.numa_searches <= st.numa_scans);
	print_message("stress: %llu scans, %llu with the full lock set, %llu decisions\n",
		      (unsigned long long)st.numa_scans, (unsigned long long)st.numa_searches,
		      (unsigned long long)st.numa_decisions);
	for (int i = 0; i < NR_PAIRS; i++) {
		ts_chan_destroy(pr[i].req);
		ts_chan_destroy(pr[i].resp);
	}
	assert_int_equal(ts_rt_stop(), 0);
}

/* A failed test leaves its runtime running: stop its tasks and it. */
static int teardown(void **state)
{
	(void)state;
	atomic_store(&run_stop, 1);
	atomic_store(&host_stop, 1);
	atomic_store(&pref_go, 1);
	if (ts_rt_running())
		ts_rt_stop();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_alloc_declare_free, teardown),
		cmocka_unit_test_teardown(test_move_pages_query, teardown),
		cmocka_unit_test_teardown(test_host_scan_faults, teardown),
		cmocka_unit_test_teardown(test_spawn_near_node, teardown),
		cmocka_unit_test_teardown(test_preferred_node, teardown),
		cmocka_unit_test_teardown(test_bad_arguments, teardown),
		cmocka_unit_test_teardown(test_home_task_never_searches, teardown),
		cmocka_unit_test_teardown(test_task_moves_to_memory, teardown),
		cmocka_unit_test_teardown(test_swap, teardown),
		cmocka_unit_test_teardown(test_race_reserved, teardown),
		cmocka_unit_test_teardown(test_race_unreserved, teardown),
		cmocka_unit_test_teardown(test_stress_blocking, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
