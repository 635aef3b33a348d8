/* Load balancing (balance.c) through the fake host: periodic and newly-idle balancing on
 * Kunpeng 920 (clusters of 4, a 32-CPU LLC per node, 4 nodes), affinity and the
 * LBF_SOME_PINNED retry, cache hotness against cache_nice_tries, balance intervals,
 * SIS_UTIL's nr_idle_scan against the table of the patch, the newidle cost gates, and
 * the fork slow path with its NUMA imbalance rule. After every operation the fake host
 * must have seen no lock contract violation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo/topo_build.h"
#include "toposched/sched.h"

#define ENV_MAX_TASKS 256
#include "sched_env.h"

#define MS 1000000ULL

static struct env *env_on(struct ts_topology *t)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_start(e, t, "", NULL);
	/* Domains start with last_balance 0: from here on every level is due. */
	e->f.now = 1000 * MS;
	return e;
}

static void env_free(struct env *e)
{
	env_destroy(e);
	free(e);
}

/* n tasks made runnable on cpu (one of them runs); allowed may be NULL. The clock then
 * moves on 1 ms, so that they are no longer cache hot. */
static struct ts_task *place(struct env *e, int cpu, int n, const struct ts_cpumask *allowed)
{
	struct ts_task *first = &e->task[e->nr_tasks];
	for (int i = 0; i < n; i++) {
		struct ts_task *p = env_task(e, 0, allowed, cpu);
		fake_run_on(e->s, &e->f, p, cpu);
		assert_int_equal(e->f.lock_errors, 0);
	}
	e->f.now += MS; /* past sysctl_sched_migration_cost: the tasks are cache cold */
	return first;
}

static unsigned nr_on(struct env *e, int cpu)
{
	return e->s->rq[cpu].nr_running;
}

static void tick_balance(struct env *e, int cpu)
{
	ts_balance_tick(e->s, cpu);
	assert_int_equal(e->f.lock_errors, 0);
	for (int c = 0; c < e->f.nr_cpus; c++)
		assert_int_equal(e->f.locked[c], 0);
}

/* Kunpeng 920 under the profile of kernel `version`, the clock at 1 s (every level due). */
static struct env *kernel_env_on(const char *machine, const char *version)
{
	struct ts_sched_config cfg = {.kernel = kernel(version)};
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_start(e, preset(machine), "", &cfg);
	e->f.now = 1000 * MS;
	return e;
}

static struct env *kernel_env(const char *version)
{
	return kernel_env_on("kunpeng920", version);
}

/* ms milliseconds on CPUs first..last: each millisecond every one ticks and schedules (the
 * pick rotates among its queued tasks; PELT ages). */
static void run_ms(struct env *e, int first, int last, int ms)
{
	for (int i = 0; i < ms; i++) {
		e->f.now += MS;
		for (int c = first; c <= last; c++) {
			fake_lock(&e->f, c);
			ts_sched_tick(e->s, c);
			ts_schedule(e->s, c);
			fake_unlock(&e->f, c);
		}
	}
}

/* curr of cpu blocks; cpu schedules (newly-idle balancing may pull). */
static struct ts_task *block_and_schedule(struct env *e, int cpu)
{
	fake_lock(&e->f, cpu);
	ts_deactivate_curr(e->s, cpu, TS_TASK_SLEEPING);
	struct ts_task *next = ts_schedule(e->s, cpu);
	assert_int_equal(e->f.locked[cpu], 1);
	fake_unlock(&e->f, cpu);
	assert_int_equal(e->f.lock_errors, 0);
	for (int c = 0; c < e->f.nr_cpus; c++)
		assert_int_equal(e->f.locked[c], 0);
	return next;
}

static uint64_t lb_sum(struct env *e, int cpu, int which, enum ts_idle_type idle)
{
	uint64_t sum = 0;
	struct ts_sched_domain *sd;
	ts_for_each_domain(e->s->dom, cpu, sd)
	{
		const ts_counter *c = which == 0   ? sd->stats.lb_count
				      : which == 1 ? sd->stats.lb_gained
						   : sd->stats.lb_hot_gained;
		sum += ts_stat_read(&c[idle]);
	}
	return sum;
}

/* 8 tasks on CPU 0; the idle CPUs of its cluster balance in turn and end with 2 each. */
static void test_periodic_spreads_cluster(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	place(e, 0, 8, NULL);
	assert_int_equal(nr_on(e, 0), 8);
	assert_true(atomic_load(&e->s->overloaded));
	struct ts_sched_domain *cls = e->s->dom->cpu[1].sd;
	assert_int_equal(cls->span_weight, 4);

	tick_balance(e, 1);
	assert_int_equal(nr_on(e, 1), 4); /* sibling_imbalance 8 - 0, halved */
	assert_int_equal(ts_stat_read(&cls->stats.lb_gained[TS_CPU_IDLE]), 4);
	assert_int_equal(cls->nr_balance_failed, 0);
	assert_int_equal(cls->balance_interval, cls->min_interval);
	assert_true(e->s->rq[1].next_balance > e->f.now);
	tick_balance(e, 2);
	tick_balance(e, 3);
	for (int c = 0; c < 4; c++)
		assert_int_equal(nr_on(e, c), 2);
	for (int c = 4; c < 128; c++)
		assert_int_equal(nr_on(e, c), 0);
	for (int i = 0; i < e->nr_tasks; i++)
		assert_true(e->task[i].cpu < 4 && e->task[i].nr_migrations <= 2);
	env_free(e);
}

/* Every CPU of node 0 busy with n tasks, their PELT sums published as the tick would. */
static void load_node0(struct env *e, const unsigned *per_cluster, unsigned long load_per_task)
{
	for (int c = 0; c < 32; c++) {
		unsigned n = per_cluster[c / 4];
		place(e, c, (int)n, NULL);
		atomic_store(&e->s->rq[c].ro.load_avg, n * load_per_task);
		atomic_store(&e->s->rq[c].ro.runnable_avg, n * 1024UL);
		atomic_store(&e->s->rq[c].ro.util_avg, 1024UL);
	}
}

/* The warm-up's question (ts_balance_finds_imbalance()): with every CPU of node 0 busy,
 * cluster 0 holding twice the tasks of the others, busy balancing of the LLC (MC: groups
 * are clusters) on another cluster's balance CPU finds cluster 0 busiest; on cluster 0's
 * own it does not (local is the busiest). Asking writes nothing: no task moves, no
 * counter, balance state, SIS_UTIL budget or root-domain flag changes. Within the LLC's
 * imbalance_pct (117) it is balanced. */
static void test_dry_run_finds_imbalance(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	const unsigned uneven[8] = {4, 2, 2, 2, 2, 2, 2, 2};
	load_node0(e, uneven, 1024);
	struct ts_sched_domain *mc4 = env_domain_of_span(e, 4, 32),
			       *mc0 = env_domain_of_span(e, 0, 32);
	struct ts_sched_domain_shared *sds = e->s->dom->cpu[0].sd_llc_shared;
	atomic_store(&sds->nr_idle_scan, 7);
	bool overloaded = atomic_load(&e->s->overloaded);
	unsigned failed = mc4->nr_balance_failed, interval = mc4->balance_interval;
	uint64_t last = mc4->last_balance, counts = lb_sum(e, 4, 0, TS_CPU_NOT_IDLE);
	struct ts_cpumask *scratch = ts_cpumask_alloc(e->f.nr_cpus);
	assert_non_null(scratch);

	assert_true(ts_balance_finds_imbalance(e->s, 4, mc4, scratch));
	assert_false(ts_balance_finds_imbalance(e->s, 0, mc0, scratch));
	for (int c = 0; c < 32; c++)
		assert_int_equal(nr_on(e, c), uneven[c / 4]);
	assert_int_equal(atomic_load(&sds->nr_idle_scan), 7);
	assert_int_equal(ts_stat_read(&e->s->rq[4].stats.nr_idle_scan_updates), 0);
	assert_int_equal(atomic_load(&e->s->overloaded), overloaded);
	assert_int_equal(mc4->nr_balance_failed, failed);
	assert_int_equal(mc4->balance_interval, interval);
	assert_int_equal(mc4->last_balance, last);
	assert_int_equal(lb_sum(e, 4, 0, TS_CPU_NOT_IDLE), counts);

	/* cluster 0's load 1.125 times the others': inside imbalance_pct, balanced */
	for (int c = 0; c < 4; c++)
		atomic_store(&e->s->rq[c].ro.load_avg, 2304UL);
	assert_false(ts_balance_finds_imbalance(e->s, 4, mc4, scratch));
	/* 1.25 times: outside it */
	for (int c = 0; c < 4; c++)
		atomic_store(&e->s->rq[c].ro.load_avg, 2560UL);
	assert_true(ts_balance_finds_imbalance(e->s, 4, mc4, scratch));
	ts_cpumask_free(scratch);
	env_free(e);
}

/* A CPU whose task blocks pulls one task from the overloaded CPU in ts_schedule(). */
static void test_newidle_pulls(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	place(e, 0, 8, NULL);
	place(e, 5, 1, NULL);
	struct ts_task *next = block_and_schedule(e, 5);
	assert_non_null(next);
	assert_int_equal(next->cpu, 5);
	assert_int_equal(next->nr_migrations, 1);
	assert_int_equal(nr_on(e, 0), 7);
	assert_int_equal(nr_on(e, 5), 1);
	assert_ptr_equal(e->s->rq[5].curr, next);
	assert_int_equal(e->s->rq[5].idle_stamp, 0);
	/* one task per newly-idle balance, found at the LLC level (CLS had nothing) */
	assert_int_equal(lb_sum(e, 5, 1, TS_CPU_NEWLY_IDLE), 1);
	assert_int_equal(
		ts_stat_read(&env_domain_of_span(e, 5, 32)->stats.lb_gained[TS_CPU_NEWLY_IDLE]), 1);
	env_free(e);
}

/* With tasks to pull both in the own cluster and on a remote node, the nearest level
 * wins, periodic and newly idle alike. */
static void test_nearest_level_first(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	place(e, 0, 3, NULL);
	place(e, 64, 3, NULL);
	place(e, 1, 1, NULL);
	struct ts_task *next = block_and_schedule(e, 1);
	assert_non_null(next);
	assert_int_equal(nr_on(e, 0), 2);
	assert_int_equal(nr_on(e, 64), 3);
	assert_int_equal(ts_stat_read(&e->s->dom->cpu[1].sd->stats.lb_gained[TS_CPU_NEWLY_IDLE]),
			 1);

	/* periodic: CPU 2 is idle; its cluster level finds CPU 0 (2 tasks) */
	place(e, 0, 2, NULL); /* CPU 0: 4 tasks */
	tick_balance(e, 2);
	assert_int_equal(nr_on(e, 2), 2);
	assert_int_equal(nr_on(e, 64), 3);
	env_free(e);
}

/* SD_SERIALIZE: while another CPU holds sched_balance_running, NUMA levels are skipped;
 * the levels below still balance. */
static void test_numa_levels_serialized(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	place(e, 64, 4, NULL); /* node 2 busy, node 0 idle */
	struct ts_sched_domain *numa = env_domain_of_span(e, 0, 96);
	struct ts_sched_domain *mc = env_domain_of_span(e, 0, 32);
	atomic_store(&e->s->sched_balance_running, 1);
	tick_balance(e, 0);
	assert_int_equal(ts_stat_read(&numa->stats.lb_count[TS_CPU_IDLE]), 0);
	assert_int_equal(ts_stat_read(&mc->stats.lb_count[TS_CPU_IDLE]), 1);
	assert_int_equal(atomic_load(&e->s->sched_balance_running), 1); /* not ours to drop */
	atomic_store(&e->s->sched_balance_running, 0);
	e->f.now += 1000 * MS;
	tick_balance(e, 0);
	assert_true(ts_stat_read(&numa->stats.lb_count[TS_CPU_IDLE]) >= 1);
	assert_int_equal(atomic_load(&e->s->sched_balance_running), 0);
	env_free(e);
}

/* Tasks pinned to CPU 0 never move, whoever balances, however often. */
static void test_pinned_never_move(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	struct ts_cpumask *only0 = ts_cpumask_alloc(e->t->nr_cpus);
	ts_cpumask_set(only0, 0);
	place(e, 0, 6, only0);
	ts_cpumask_free(only0);
	for (int round = 0; round < 4; round++) {
		for (int c = 1; c < 128; c++)
			tick_balance(e, c);
		e->f.now += 300 * MS;
	}
	assert_int_equal(nr_on(e, 0), 6);
	for (int i = 0; i < e->nr_tasks; i++)
		assert_int_equal(e->task[i].nr_migrations, 0);
	struct ts_sched_domain *cls = e->s->dom->cpu[1].sd;
	assert_true(ts_stat_read(&cls->stats.lb_balanced[TS_CPU_IDLE]) >= 4);
	/* all pinned: the interval may grow past max_interval, up to MAX_PINNED_INTERVAL */
	assert_true(cls->balance_interval > cls->max_interval);
	/* a newly idle CPU cannot take them either */
	place(e, 2, 1, NULL);
	assert_null(block_and_schedule(e, 2));
	assert_int_equal(nr_on(e, 0), 6);
	env_free(e);
}

/* Tasks that may not run on the balancing CPU go to another CPU of its group
 * (LBF_DST_PINNED -> new_dst_cpu). */
static void test_some_pinned_retries_other_dst(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	ts_cpumask_set(m, 0);
	ts_cpumask_set(m, 5);
	place(e, 0, 4, m);
	ts_cpumask_free(m);
	tick_balance(e, 4); /* CPU 4 balances cluster 4-7 against cluster 0-3 at MC */
	assert_int_equal(nr_on(e, 4), 0);
	assert_int_equal(nr_on(e, 5), 2); /* 4 - 0 tasks, halved */
	assert_int_equal(nr_on(e, 0), 2);
	for (int i = 0; i < e->nr_tasks; i++)
		assert_true(e->task[i].cpu == 0 || e->task[i].cpu == 5);
	env_free(e);
}

/* Cache-hot tasks stay until nr_balance_failed exceeds cache_nice_tries (1 at CLS). */
static void test_cache_hot_until_failures(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	struct ts_task *first = place(e, 0, 4, NULL);
	struct ts_sched_domain *cls = e->s->dom->cpu[1].sd;
	assert_int_equal(cls->cache_nice_tries, 1);
	for (int attempt = 0; attempt < 3; attempt++) {
		for (int i = 0; i < 4; i++)
			first[i].se.exec_start = e->f.now; /* they just ran */
		tick_balance(e, 1);
		if (attempt < 2) {
			assert_int_equal(nr_on(e, 1), 0);
			assert_int_equal(cls->nr_balance_failed, (unsigned)attempt + 1);
			assert_int_equal(ts_stat_read(&cls->stats.lb_failed[TS_CPU_IDLE]),
					 (uint64_t)attempt + 1);
			assert_int_equal(cls->balance_interval, cls->min_interval);
		}
		e->f.now += (uint64_t)cls->min_interval * MS;
	}
	assert_int_equal(nr_on(e, 1), 2);
	assert_int_equal(cls->nr_balance_failed, 0);
	assert_int_equal(ts_stat_read(&cls->stats.lb_hot_gained[TS_CPU_IDLE]), 2);
	env_free(e);
}

/* SMT siblings share their caches: hotness never holds a task back at the SMT level. */
static void test_smt_never_hot(void **state)
{
	(void)state;
	struct env *e = env_on(preset("spr-2s"));
	struct ts_sched_domain *smt = e->s->dom->cpu[112].sd;
	assert_true(smt->flags & TS_SD_SHARE_CPUCAPACITY);
	assert_true(ts_cpumask_test(smt->span, 0));
	struct ts_task *first = place(e, 0, 4, NULL);
	for (int i = 0; i < 4; i++)
		first[i].se.exec_start = e->f.now;
	tick_balance(e, 112);
	assert_int_equal(nr_on(e, 112), 2);
	assert_int_equal(ts_stat_read(&smt->stats.lb_hot_gained[TS_CPU_IDLE]), 0);
	env_free(e);
}

/* Balanced: the interval doubles up to max_interval; a pull resets it to min_interval. */
static void test_interval_grows_and_resets(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	struct ts_sched_domain *cls = e->s->dom->cpu[1].sd;
	assert_int_equal(cls->balance_interval, 4);
	tick_balance(e, 1);
	assert_int_equal(cls->balance_interval, 8);
	assert_int_equal(ts_stat_read(&cls->stats.lb_nobusyg[TS_CPU_IDLE]), 1);
	/* idle CPU: next balance of the CLS level is 8 jiffies (HZ 1000) later */
	assert_int_equal(e->s->rq[1].next_balance, e->f.now + 8 * MS);
	e->f.now += 4 * MS;
	tick_balance(e, 1); /* not due yet: nothing counted */
	assert_int_equal(ts_stat_read(&cls->stats.lb_count[TS_CPU_IDLE]), 1);
	e->f.now += 4 * MS;
	tick_balance(e, 1);
	assert_int_equal(ts_stat_read(&cls->stats.lb_count[TS_CPU_IDLE]), 2);
	assert_int_equal(cls->balance_interval, cls->max_interval); /* stays at 8 */

	place(e, 0, 4, NULL);
	e->f.now += 8 * MS;
	tick_balance(e, 1);
	assert_int_equal(nr_on(e, 1), 2);
	assert_int_equal(cls->balance_interval, cls->min_interval);
	env_free(e);
}

/* A busy CPU's balance interval per era: CPU 1 runs one task, its lowest level's interval
 * doubles at the balance (nothing to move), and the next balance comes after that interval
 * x busy_factor jiffies, less one from v5.10 (6e7499135db7 made busy_factor 16,
 * e4d32e4d5444 took the jiffy off; 32 before). The lowest level is the cluster (4 -> 8 ms)
 * from v5.16, which built the CLS level (778c558f49a2); before, the LLC (MC, 32 CPUs:
 * 32 -> 64 ms). So 8 x 16 - 1 = 127 from v5.16, 64 x 16 - 1 = 1023 in v5.10-v5.15,
 * 64 x 32 = 2048 before. The levels above keep their own longer intervals. */
static void busy_interval(const char *version, uint64_t expect_ms, unsigned busy_factor,
			  unsigned numa_pct)
{
	struct env *e = kernel_env(version);
	e->f.now = 5000 * MS; /* every level due, the NUMA ones' 128 x 32 ms included */
	place(e, 1, 1, NULL);
	tick_balance(e, 1);
	uint64_t t = e->f.now;
	if (e->s->rq[1].next_balance != t + expect_ms * MS)
		fail_msg("kernel %s: next balance of busy CPU 1 after %llu ms, want %llu", version,
			 (unsigned long long)((e->s->rq[1].next_balance - t) / MS),
			 (unsigned long long)expect_ms);
	/* sd_init(): the SMT-less clusters and the LLC keep 117; the NUMA levels the era's */
	struct ts_sched_domain *sd;
	ts_for_each_domain(e->s->dom, 1, sd)
	{
		assert_int_equal(sd->busy_factor, busy_factor);
		assert_int_equal(sd->imbalance_pct, sd->flags & TS_SD_SHARE_LLC ? 117 : numa_pct);
	}
	env_free(e);
}

static void test_busy_interval_generations(void **state)
{
	(void)state;
	busy_interval("6.12", 127, 16, 117);
	busy_interval("5.16", 127, 16, 117);
	busy_interval("5.15", 1023, 16, 117);
	busy_interval("5.10", 1023, 16, 117);
	busy_interval("5.9", 2048, 32, 125);
	busy_interval("5.4", 2048, 32, 125);
}

/* n tasks stacked on CPU 0 for 60 ms, so that the group of capacity cap holding CPU 0 is
 * overloaded by runnable_avg but not by utilisation; then CPU `balancer` (idle) balances.
 * Fails unless expect_left_on_0 tasks stay on CPU 0. */
static void stacked_pull_on(const char *machine, const char *version, int n, unsigned long cap,
			    int balancer, unsigned expect_left_on_0)
{
	struct env *e = kernel_env_on(machine, version);
	place(e, 0, n, NULL);
	run_ms(e, 0, 0, 60);
	unsigned long util = ts_cpu_util(e->s, 0), runnable = ts_cpu_runnable(e->s, 0);
	assert_true(util * 117 < cap * 100);	 /* not overloaded by utilisation */
	assert_true(runnable * 100 > cap * 117); /* ... but by runnable_avg */
	tick_balance(e, balancer);
	if (nr_on(e, 0) != expect_left_on_0)
		fail_msg("%s, kernel %s: %u tasks left on CPU 0 (util %lu, runnable %lu), want %u",
			 machine, version, nr_on(e, 0), util, runnable, expect_left_on_0);
	env_free(e);
}

/* stacked_pull_on() Kunpeng 920 */
static void stacked_pull(const char *version, int n, unsigned long cap, int balancer,
			 unsigned expect_left_on_0)
{
	stacked_pull_on("kunpeng920", version, n, cap, balancer, expect_left_on_0);
}

/* Sixty tasks queued on CPU 0 for 60 ms (each tick charged, the pick rotating): node 0's
 * utilisation is one CPU's, its runnable_avg about sixty. CPU 32 (node 1, idle) then
 * balances; node 0 has 60 tasks on 32 CPUs of capacity 32768 in all, and the NUMA level
 * (nodes 0 and 1; no SD_PREFER_SIBLING, not an LLC) decides:
 *   v5.7+ (070f5e860ee2): runnable x 100 > 32768 x 117: node 0 is group_overloaded, node 1
 *     has spare capacity and takes utilisation (migrate_util, imbalance 32768 - 0) up to
 *     the pass's loop limit (sysctl_sched_nr_migrate: 32 tasks looked at, all 32 move).
 *   v5.6: no runnable_avg; the utilisation (< 32768 x 100 / 117) leaves node 0
 *     group_has_spare, and two has-spare groups under prefer_sibling (the NUMA level's
 *     child, MC, has SD_PREFER_SIBLING) spread running tasks: half the difference,
 *     (60 - 0) >> 1 = 30, moves (migrate_task). */
static void test_runnable_classify_generations(void **state)
{
	(void)state;
	stacked_pull("6.12", 60, 32768, 32, 28);
	stacked_pull("5.7", 60, 32768, 32, 28);
	stacked_pull("5.6", 60, 32768, 32, 30);
}

/* Seven tasks queued on CPU 0 for 60 ms; CPU 4 (idle) balances, and the MC level (the LLC,
 * 32 CPUs) decides. Its groups are single CPUs (capacity 1024) before v5.16, the clusters
 * (capacity 4096, prefer_sibling from the CLS level below) from v5.16 (778c558f49a2). CPU
 * 0 (or cluster 0): 7 tasks, utilisation one CPU's (733 x 117 < 1024 x 100), runnable_avg
 * about seven (> 4096 x 117 / 100):
 *   v5.4: CPU 0 is group_other (it has capacity by utilisation; MC has no child, so no
 *     prefer_sibling), and for an idle CPU v5.4's find_busiest_group() leaves a busiest
 *     that is not overloaded alone while local->idle_cpus 1 <= busiest->idle_cpus 0 + 1:
 *     nothing moves at MC, and CPU 4, not node 0's first idle CPU, does not balance the
 *     levels above (should_we_balance()): 7 stay;
 *   v5.6: group_has_spare (no runnable_avg); the rework (v5.5) applies the idle-CPU test
 *     only to a busiest of more than one CPU, and a one-CPU busiest gives half the task
 *     difference: 7 >> 1 = 3 move;
 *   v5.7-v5.9: group_overloaded by runnable_avg (070f5e860ee2), and a has-spare local
 *     group fills its capacity with utilisation at every level: every queued task moves
 *     but the one switched out at the last tick, still cache hot (task_hot(): 0 < 500 us):
 *     5;
 *   v5.10+: within an LLC the tasks are evened out instead (16b0a7a1a0af): half the
 *     difference, of a one-CPU busiest, or from v5.16 of the clusters under
 *     prefer_sibling: 3 move. */
static void test_llc_spread_generations(void **state)
{
	(void)state;
	stacked_pull("5.4", 7, 1024, 4, 7);
	stacked_pull("5.6", 7, 1024, 4, 4);
	stacked_pull("5.7", 7, 1024, 4, 2);
	stacked_pull("5.9", 7, 1024, 4, 2);
	stacked_pull("5.10", 7, 1024, 4, 4);
	stacked_pull("5.15", 7, 1024, 4, 4);
	stacked_pull("5.16", 7, 4096, 4, 4);
	stacked_pull("6.12", 7, 4096, 4, 4);
}

/* The same seven tasks on Broadwell's CPU 0, CPU 1 (core 1, idle) balancing: the MC level's
 * groups are SMT cores (capacity 2048) and its child, SMT, prefers siblings.
 *   v5.4: core 0 runs 7 > 0 + 1 tasks beside a local group with capacity, so prefer_sibling
 *     makes it group_overloaded, and an idle CPU with capacity forces the balance. With l
 *     a task's runnable load: core 0's avg_load 7l x 1024 / 2048 = 7l/2, the domain's
 *     7l/40, the local 0; the imbalance min(7l/2 - 7l/40, 7l/40 - 0) x 2048 / 1024 = 7l/20
 *     is below a task's load, and fix_small_imbalance() (7l/2 + l/2 >= 0 + 2 x l/2) makes
 *     it l: one task moves;
 *   v5.6: two has-spare groups under prefer_sibling: half the task difference, 3. */
static void test_small_imbalance_generations(void **state)
{
	(void)state;
	stacked_pull_on("broadwell-2s", "5.4", 7, 2048, 1, 6);
	stacked_pull_on("broadwell-2s", "5.6", 7, 2048, 1, 4);
}

/* Node 0 of Kunpeng 920 overloaded by utilisation: CPUs 1-31 run one task each, CPU 0
 * three, every CPU busy for 150 ms, CPU 5's task 30 ms longer (the most utilised CPU).
 * CPU 32 (node 1, idle) balances at the first NUMA level, which fills its spare capacity
 * with utilisation (migrate_util) from the busiest queue:
 *   v5.6: the most utilised CPU, 5, whose one task cannot be detached: nothing moves;
 *   v5.7+ (c32b4308295a): the most utilised CPU running more than one task, 0: of its
 *     two queued tasks the one switched out at the last tick is cache hot; one moves. */
static void migrate_util_src(const char *version, unsigned expect_left_on_0)
{
	struct env *e = kernel_env(version);
	place(e, 5, 1, NULL);
	run_ms(e, 5, 5, 30);
	place(e, 0, 3, NULL);
	for (int c = 1; c < 32; c++)
		if (c != 5)
			place(e, c, 1, NULL);
	run_ms(e, 0, 31, 150);
	assert_true(ts_cpu_util(e->s, 5) > ts_cpu_util(e->s, 0));
	tick_balance(e, 32);
	if (nr_on(e, 0) != expect_left_on_0 || nr_on(e, 5) != 1)
		fail_msg("kernel %s: %u tasks left on CPU 0 and %u on CPU 5, want %u and 1",
			 version, nr_on(e, 0), nr_on(e, 5), expect_left_on_0);
	env_free(e);
}

static void test_migrate_util_src_generations(void **state)
{
	(void)state;
	migrate_util_src("5.6", 3);
	migrate_util_src("5.7", 2);
	migrate_util_src("6.12", 2);
}

/* A machine with one 16-CPU LLC (no SMT, no clusters). */
static struct ts_topology *llc16(void)
{
	struct ts_error err = {0};
	struct ts_regular_machine m = {"llc16", "one 16-CPU LLC", 1,	1, 1, 1, 16,
				       1,	TS_SMT_ADJACENT,  NULL, 0};
	struct ts_topology *t = ts_topology_build_regular(&m, &err);
	assert_non_null(t);
	return t;
}

static const int util_pct[] = {0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 86};

static void check_table(struct ts_topology *t, int llc_size, const int *expect)
{
	struct env *e = env_on(t);
	assert_int_equal(e->s->dom->cpu[0].sd_llc_size, llc_size);
	struct ts_sched_domain_shared *sds = e->s->dom->cpu[0].sd_llc_shared;
	assert_non_null(sds);
	for (size_t i = 0; i < sizeof(util_pct) / sizeof(util_pct[0]); i++) {
		unsigned long sum =
			(unsigned long)util_pct[i] * (unsigned long)llc_size * 1024 / 100;
		ts_update_idle_cpu_scan(e->s, 0, sum);
		assert_int_equal(atomic_load(&sds->nr_idle_scan), expect[i]);
	}
	assert_int_equal(ts_stat_read(&e->s->rq[0].stats.nr_idle_scan_updates), 11);
	env_free(e);
}

static void test_sis_util_table(void **state)
{
	(void)state;
	static const int w112[] = {112, 111, 108, 102, 93, 81, 65, 47, 25, 1, 0};
	static const int w16[] = {16, 15, 15, 14, 13, 11, 9, 6, 3, 0, 0};
	check_table(preset("spr-2s"), 112, w112);
	check_table(llc16(), 16, w16);
}

/* The LLC-level periodic balance feeds update_idle_cpu_scan() with the summed util; the
 * newly-idle one does not. NO_SIS_UTIL turns it off. */
static void test_sis_util_from_balance(void **state)
{
	(void)state;
	struct env *e = env_on(llc16());
	struct ts_sched_domain_shared *sds = e->s->dom->cpu[0].sd_llc_shared;
	for (int c = 0; c < 16; c++)
		atomic_store(&e->s->rq[c].ro.util_avg, 460); /* 45% */
	assert_int_equal(atomic_load(&sds->nr_idle_scan), 0);
	tick_balance(e, 0);
	assert_int_equal(atomic_load(&sds->nr_idle_scan), 11);
	assert_int_equal(ts_stat_read(&e->s->rq[0].stats.nr_idle_scan_updates), 1);
	/* the LLC is the base level here: every CPU balances its own group there */
	for (int c = 0; c < 16; c++)
		atomic_store(&e->s->rq[c].ro.util_avg, 880); /* 86%: no scan */
	tick_balance(e, 3);
	assert_int_equal(ts_stat_read(&e->s->rq[3].stats.nr_idle_scan_updates), 1);
	assert_int_equal(atomic_load(&sds->nr_idle_scan), 0);
	/* a newly idle balance of the same domain leaves it alone */
	for (int c = 0; c < 16; c++)
		atomic_store(&e->s->rq[c].ro.util_avg, 0);
	place(e, 1, 2, NULL);
	place(e, 2, 1, NULL);
	assert_non_null(block_and_schedule(e, 2));
	assert_int_equal(ts_stat_read(&e->s->dom->cpu[2].sd->stats.lb_count[TS_CPU_NEWLY_IDLE]), 1);
	assert_int_equal(ts_stat_read(&e->s->rq[2].stats.nr_idle_scan_updates), 0);
	assert_int_equal(atomic_load(&sds->nr_idle_scan), 0);
	env_free(e);

	struct ts_topology *t = llc16();
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "NO_SIS_UTIL");
	assert_non_null(s);
	ts_update_idle_cpu_scan(s, 0, 8 * 1024);
	assert_int_equal(atomic_load(&s->dom->cpu[0].sd_llc_shared->nr_idle_scan), 0);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

/* avg_idle below the base domain's max_newidle_lb_cost, or no overloaded rq: no balance.
 * The walk stops at the first level whose cost no longer fits in avg_idle. */
static void test_newidle_gates(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	place(e, 0, 8, NULL);
	place(e, 5, 1, NULL);
	struct ts_rq *rq5 = &e->s->rq[5];
	struct ts_sched_domain *base = e->s->dom->cpu[5].sd;
	base->max_newidle_lb_cost = 2 * MS;
	rq5->avg_idle = 1 * MS;
	assert_null(block_and_schedule(e, 5));
	assert_int_equal(nr_on(e, 0), 8);
	assert_int_equal(lb_sum(e, 5, 0, TS_CPU_NEWLY_IDLE), 0);
	/* next_balance is pulled forward to the base domain's next due time at most */
	assert_true(rq5->next_balance <= e->f.now + (uint64_t)base->balance_interval * MS);

	/* cheap base level, expensive LLC level: CLS runs (finds nothing), MC is skipped */
	place(e, 5, 1, NULL);
	base->max_newidle_lb_cost = 0;
	env_domain_of_span(e, 5, 32)->max_newidle_lb_cost = 2 * MS;
	rq5->avg_idle = 1 * MS;
	assert_null(block_and_schedule(e, 5));
	assert_int_equal(ts_stat_read(&base->stats.lb_count[TS_CPU_NEWLY_IDLE]), 1);
	assert_int_equal(
		ts_stat_read(&env_domain_of_span(e, 5, 32)->stats.lb_count[TS_CPU_NEWLY_IDLE]), 0);
	assert_int_equal(nr_on(e, 0), 8);

	/* no overloaded run queue: no balance at all */
	place(e, 5, 1, NULL);
	env_domain_of_span(e, 5, 32)->max_newidle_lb_cost = 0;
	rq5->avg_idle = 10 * MS;
	atomic_store(&e->s->overloaded, false);
	assert_null(block_and_schedule(e, 5));
	assert_int_equal(ts_stat_read(&base->stats.lb_count[TS_CPU_NEWLY_IDLE]), 1);
	assert_int_equal(nr_on(e, 0), 8);
	env_free(e);
}

/* A host clock that advances 10 us at every read: the newidle walk measures its cost. */
static uint64_t stepping_clock(void *h)
{
	struct fake_host *f = h;
	f->now += 10000;
	return f->now;
}

/* Kunpeng 920 on a host with ops: 8 tasks on CPU 0 (overloaded), one on CPU 5. */
static struct env *newidle_env(const struct ts_host_ops *ops)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_open(e, preset("kunpeng920"), "", NULL, ops, ENV_MAX_TASKS);
	place(e, 0, 8, NULL);
	place(e, 5, 1, NULL);
	return e;
}

/* newidle_env() on kernel version, its clock at 1 s. */
static struct env *newidle_env_on(const char *version, const struct ts_host_ops *ops)
{
	struct ts_sched_config cfg = {.kernel = kernel(version)};
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_open(e, preset("kunpeng920"), "", &cfg, ops, ENV_MAX_TASKS);
	e->f.now = 1000 * MS;
	place(e, 0, 8, NULL);
	place(e, 5, 1, NULL);
	return e;
}

static void test_newidle_cost_and_decay(void **state)
{
	(void)state;
	struct ts_host_ops ops = fake_ops;
	ops.clock = stepping_clock;
	struct env *e = newidle_env(&ops);
	struct ts_sched_domain *base = e->s->dom->cpu[5].sd, *mc = env_domain_of_span(e, 5, 32);
	assert_int_equal(base->max_newidle_lb_cost, 0);
	assert_non_null(block_and_schedule(e, 5));
	assert_true(base->max_newidle_lb_cost > 0);
	assert_true(mc->max_newidle_lb_cost > 0);
	assert_true(e->s->rq[5].max_idle_balance_cost >= TS_SCHED_MIGRATION_COST_NS);

	/* decay ~1% per second from the periodic path */
	mc->max_newidle_lb_cost = 256000;
	mc->last_decay_max_lb_cost = e->f.now / MS;
	e->f.now += 1100 * MS;
	ts_balance_tick(e->s, 5);
	assert_int_equal(e->f.lock_errors, 0);
	assert_int_equal(mc->max_newidle_lb_cost, 253000);
	env_free(e);
}

/* A host that models the walk's time (the simulator): every pass costs 7 us, whatever the
 * clock says; the core's cost tracking learns it. */
static uint64_t pass_7us(void *h, int cpu, uint64_t t0)
{
	(void)h;
	(void)cpu;
	(void)t0;
	return 7000;
}

static void test_newidle_host_time(void **state)
{
	(void)state;
	struct ts_host_ops ops = fake_ops;
	ops.newidle_time = pass_7us;
	struct env *e = newidle_env(&ops);
	struct ts_sched_domain *base = e->s->dom->cpu[5].sd, *mc = env_domain_of_span(e, 5, 32);
	assert_non_null(block_and_schedule(e, 5));
	/* the cluster's pass found nothing, the LLC's pulled: 7 us each */
	assert_int_equal(base->max_newidle_lb_cost, 7000);
	assert_int_equal(mc->max_newidle_lb_cost, 7000);
	/* and it gates: with avg_idle 10 us, the cluster's pass (7 us) runs, the LLC's
	 * (7 us more) is skipped */
	uint64_t base_passes = ts_stat_read(&base->stats.lb_count[TS_CPU_NEWLY_IDLE]);
	uint64_t mc_passes = ts_stat_read(&mc->stats.lb_count[TS_CPU_NEWLY_IDLE]);
	e->s->rq[5].avg_idle = 10000;
	assert_null(block_and_schedule(e, 5));
	assert_int_equal(ts_stat_read(&base->stats.lb_count[TS_CPU_NEWLY_IDLE]), base_passes + 1);
	assert_int_equal(ts_stat_read(&mc->stats.lb_count[TS_CPU_NEWLY_IDLE]), mc_passes);
	assert_int_equal(e->f.lock_errors, 0);
	env_free(e);
}

/* The newly-idle gate of each era. Before v5.16 the walk needs avg_idle >=
 * sysctl_sched_migration_cost (500 us) whatever it costs; from v5.16 (9d783c8dd112,
 * c5b0a7eefc70) only the first level's max_newidle_lb_cost. Passes of 7 us: with avg_idle
 * 300 us v5.15 does not walk and v5.16 pulls; with 600 us both pull. And before v5.16 a
 * rise of max_newidle_lb_cost does not put off its decay (e60b56e46b38): the LLC level's
 * cost rises to 7 us half a second after its last decay, and a tick 0.6 s later decays
 * it on v5.15 only. */
static void test_newidle_generations(void **state)
{
	(void)state;
	static const char *const versions[] = {"5.15", "5.16"};
	for (int v = 0; v < 2; v++) {
		bool v516 = v == 1;
		struct ts_host_ops ops = fake_ops;
		ops.newidle_time = pass_7us;
		struct env *e = newidle_env_on(versions[v], &ops);
		struct ts_sched_domain *base = e->s->dom->cpu[5].sd,
				       *mc = env_domain_of_span(e, 5, 32);
		uint64_t jiffies = e->f.now / MS;
		mc->last_decay_max_lb_cost = jiffies - (uint64_t)e->s->hz / 2;
		e->s->rq[5].avg_idle = 300000;
		struct ts_task *next = block_and_schedule(e, 5);
		assert_int_equal(ts_stat_read(&base->stats.lb_count[TS_CPU_NEWLY_IDLE]), v516);
		assert_int_equal(nr_on(e, 0), v516 ? 7 : 8);
		if (!v516) {
			assert_null(next);
			assert_int_equal(mc->max_newidle_lb_cost, 0);
			place(e, 5, 1, NULL);
			e->s->rq[5].avg_idle = 600000;
			assert_non_null(block_and_schedule(e, 5));
			assert_int_equal(nr_on(e, 0), 7);
		}
		assert_int_equal(mc->max_newidle_lb_cost, 7000);
		assert_int_equal(mc->last_decay_max_lb_cost,
				 v516 ? e->f.now / MS : jiffies - (uint64_t)e->s->hz / 2);
		e->f.now += 600 * MS;
		ts_balance_tick(e->s, 5);
		assert_int_equal(mc->max_newidle_lb_cost, v516 ? 7000 : 7000 * 253 / 256);
		assert_int_equal(e->f.lock_errors, 0);
		env_free(e);
	}
}

/* The kernel's newly-idle pass runs with its rq unlocked and idle_stamp set; a wake-up
 * landing meanwhile samples avg_idle from the pass's start, even if the pass then pulls.
 * A modelled pass takes no time, so the core keeps its window: 2 passes x 7 us here. */
static uint64_t avg_idle_after_wakeup_at(uint64_t after_pass_start)
{
	struct ts_host_ops ops = fake_ops;
	ops.newidle_time = pass_7us;
	struct env *e = newidle_env(&ops);
	struct ts_task *sleeper = &e->task[8]; /* CPU 5's task */
	uint64_t start = e->f.now;
	assert_non_null(block_and_schedule(e, 5)); /* pulled: idle_stamp cleared */
	assert_int_equal(e->s->rq[5].idle_stamp, 0);
	uint64_t before = e->s->rq[5].avg_idle;
	e->f.now = start + after_pass_start;
	fake_lock(&e->f, 5);
	ts_activate_task(e->s, 5, sleeper, 0);
	fake_unlock(&e->f, 5);
	uint64_t after = e->s->rq[5].avg_idle;
	assert_int_equal(e->f.lock_errors, 0);
	env_free(e);
	if (after != before) /* update_avg(): an eighth of the way to the sample */
		assert_int_equal(
			after,
			before + (uint64_t)(((int64_t)after_pass_start - (int64_t)before) / 8));
	return after - before;
}

static void test_newidle_window_samples_avg_idle(void **state)
{
	(void)state;
	assert_true(avg_idle_after_wakeup_at(3000) != 0);     /* inside the 14-us pass */
	assert_true(avg_idle_after_wakeup_at(13999) != 0);    /* its last nanosecond */
	assert_int_equal(avg_idle_after_wakeup_at(14000), 0); /* after it: nothing to sample */
	assert_int_equal(avg_idle_after_wakeup_at(500000), 0);
}

static struct ts_sched_domain *highest_with(struct env *e, int cpu, unsigned int flag)
{
	struct ts_sched_domain *sd, *best = NULL;
	ts_for_each_domain(e->s->dom, cpu, sd) if (sd->flags & flag) best = sd;
	return best;
}

/* Fork from a full node: the child goes to an idle CPU of the idlest node. */
static void test_find_dst_cpu_fork(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	for (int c = 0; c < 32; c++)
		place(e, c, 1, NULL);
	struct ts_task child;
	struct ts_error err = {0};
	assert_int_equal(ts_task_init(e->s, &child, 0, NULL, 0, &err), 0);
	struct ts_sched_domain *sd = highest_with(e, 0, TS_SD_BALANCE_FORK);
	assert_non_null(sd);
	assert_true(sd->flags & TS_SD_NUMA);
	int cpu = ts_sched_balance_find_dst_cpu(e->s, sd, &child, 0, 0, TS_SD_BALANCE_FORK);
	assert_int_equal(e->t->cpu[cpu].node, 1);
	assert_true(ts_idle_cpu(e->s, cpu));
	/* affinity: only CPUs 0-31 and 40 allowed -> 40 is the only idle choice */
	ts_task_destroy(&child);
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	ts_cpumask_set_range(m, 0, 31);
	ts_cpumask_set(m, 40);
	assert_int_equal(ts_task_init(e->s, &child, 0, m, 0, &err), 0);
	ts_cpumask_free(m);
	cpu = ts_sched_balance_find_dst_cpu(e->s, sd, &child, 0, 0, TS_SD_BALANCE_FORK);
	assert_int_equal(cpu, 40);
	ts_task_destroy(&child);
	assert_int_equal(e->f.lock_errors, 0);
	env_free(e);
}

/* find_idlest_group()'s NUMA rule: while the local node would run no more than
 * imb_numa_nr tasks, an idle-CPU imbalance of at most 2 keeps the child on the local node (in its
 * idlest cluster); beyond that it goes to the idler node. */
static void test_find_dst_cpu_numa_imbalance(void **state)
{
	(void)state;
	struct env *e = env_on(preset("kunpeng920"));
	struct ts_sched_domain *sd = highest_with(e, 0, TS_SD_BALANCE_FORK);
	assert_true(sd->flags & TS_SD_NUMA);
	/* one LLC per node: imb_numa_nr = 12.5% of the 32-CPU node */
	assert_int_equal(sd->imb_numa_nr, 4);
	place(e, 0, 1, NULL);
	struct ts_task child;
	struct ts_error err = {0};
	assert_int_equal(ts_task_init(e->s, &child, 0, NULL, 0, &err), 0);
	int cpu = ts_sched_balance_find_dst_cpu(e->s, sd, &child, 0, 0, TS_SD_BALANCE_FORK);
	assert_int_equal(e->t->cpu[cpu].node, 0);
	assert_true(cpu >= 4); /* not CPU 0's cluster: cluster 4-7 has more idle CPUs */
	assert_true(ts_idle_cpu(e->s, cpu));

	place(e, 0, 3, NULL); /* local node: 4 running, +1 > imb_numa_nr */
	cpu = ts_sched_balance_find_dst_cpu(e->s, sd, &child, 0, 0, TS_SD_BALANCE_FORK);
	assert_int_equal(e->t->cpu[cpu].node, 1);
	ts_task_destroy(&child);
	env_free(e);
}

/* Busy balancing of Kunpeng's LLC (MC, groups = clusters, prefer_sibling) from CPU 4, the
 * balance CPU of cluster 1 whose four CPUs each run a task (no idle CPU to balance
 * instead: should_we_balance()), while cluster 0 runs 6 (3 on CPU 0). With their load
 * averages still 0 both clusters have spare capacity (group_has_capacity() by util), so
 * the running tasks' difference decides: up to v6.5 busiest->sum_nr_running 6 >
 * local 4 + 1 and nr_diff = 2, halved: 1 task comes to CPU 4; from v6.6 (7ff1693236f5)
 * sibling_imbalance() counts only for an idle CPU, and a busy one leaves a busiest group
 * that is not overloaded alone. Before v5.16 there is no CLS level: MC's groups are single
 * CPUs and, MC having no child, nothing prefers siblings; the busiest, CPU 0, is not
 * overloaded, so busy CPU 4 leaves it alone too. */
static void busy_sibling_pull(const char *version, unsigned int expect_on_4)
{
	struct env *e = kernel_env(version);
	place(e, 0, 3, NULL);
	for (int c = 1; c < 4; c++)
		place(e, c, 1, NULL);
	for (int c = 4; c < 8; c++)
		place(e, c, 1, NULL);
	struct ts_sched_domain *llc = e->s->dom->cpu[4].sd_llc;
	assert_int_equal(llc->span_weight, 32);
	e->f.now += 10000 * MS; /* every level due, busy interval included */
	tick_balance(e, 4);
	if (nr_on(e, 4) != expect_on_4)
		fail_msg("kernel %s: %u tasks on CPU 4 after its busy balance, not %u", version,
			 nr_on(e, 4), expect_on_4);
	env_free(e);
}

static void test_busy_sibling_generations(void **state)
{
	(void)state;
	busy_sibling_pull("6.12", 1);
	busy_sibling_pull("6.6", 1);
	busy_sibling_pull("6.5", 2);
	busy_sibling_pull("5.16", 2);
	busy_sibling_pull("5.15", 1);
}

/* A wake-up listed for the newly idle CPU while its walk runs: the host sets the CPU's
 * ttwu_pending after the first level's pass (newidle_time is the hook there). */
static struct ts_sched *pending_sched;
static int pending_cpu = -1;
static uint64_t pass_then_pending(void *h, int cpu, uint64_t t0)
{
	(void)h;
	(void)t0;
	if (cpu == pending_cpu)
		atomic_store(&pending_sched->rq[cpu].ro.ttwu_pending, 1);
	return 7000;
}

/* Broadwell-2s (SMT cores, so a two-level walk below the LLC in every era): CPU 5 goes
 * newly idle with 8 tasks on CPU 0; its SMT core (first level: its sibling 45 idles) has
 * nothing to pull, the LLC (second) would pull one. A wake-up listed for CPU 5 after the
 * first pass: v5.12 ignores it and pulls at the LLC; v5.13 (9c9f520a1467) stops the walk
 * before the LLC (the walk's own test, up to v5.19); from v6.0 (792b9f65a568) the LLC's pass
 * starts and should_we_balance() bails out of it (its lb_count counts the pass). A wake-up
 * pending when the CPU goes idle: v5.12 walks and pulls, v5.13 does not start. */
static void newidle_pending(const char *version, bool at_start, unsigned expect_on_0,
			    uint64_t expect_llc_passes)
{
	struct ts_host_ops ops = fake_ops;
	ops.newidle_time = pass_then_pending;
	struct ts_sched_config cfg = {.kernel = kernel(version)};
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_open(e, preset("broadwell-2s"), "", &cfg, &ops, ENV_MAX_TASKS);
	e->f.now = 1000 * MS;
	place(e, 0, 8, NULL);
	place(e, 5, 1, NULL);
	assert_int_equal(e->s->dom->cpu[5].sd->span_weight, 2);
	struct ts_sched_domain *mc = env_domain_of_span(e, 5, 40);
	assert_ptr_equal(mc, e->s->dom->cpu[5].sd->parent);
	pending_sched = e->s;
	pending_cpu = at_start ? -1 : 5;
	if (at_start)
		atomic_store(&e->s->rq[5].ro.ttwu_pending, 1);
	block_and_schedule(e, 5);
	pending_cpu = -1;
	if (nr_on(e, 0) != expect_on_0 ||
	    ts_stat_read(&mc->stats.lb_count[TS_CPU_NEWLY_IDLE]) != expect_llc_passes)
		fail_msg("kernel %s, wake-up pending %s: %u tasks left on CPU 0, %llu LLC passes; "
			 "want %u and %llu",
			 version, at_start ? "at the start" : "after the first level", nr_on(e, 0),
			 (unsigned long long)ts_stat_read(&mc->stats.lb_count[TS_CPU_NEWLY_IDLE]),
			 expect_on_0, (unsigned long long)expect_llc_passes);
	atomic_store(&e->s->rq[5].ro.ttwu_pending, 0);
	env_free(e);
}

static void test_newidle_pending_generations(void **state)
{
	(void)state;
	newidle_pending("5.12", false, 7, 1);
	newidle_pending("5.13", false, 8, 0);
	newidle_pending("5.19", false, 8, 0);
	newidle_pending("6.0", false, 8, 1);
	newidle_pending("6.12", false, 8, 1);
	newidle_pending("5.12", true, 7, 1);
	newidle_pending("5.13", true, 8, 0);
	newidle_pending("6.12", true, 8, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_periodic_spreads_cluster),
		cmocka_unit_test(test_dry_run_finds_imbalance),
		cmocka_unit_test(test_newidle_pulls),
		cmocka_unit_test(test_nearest_level_first),
		cmocka_unit_test(test_numa_levels_serialized),
		cmocka_unit_test(test_pinned_never_move),
		cmocka_unit_test(test_some_pinned_retries_other_dst),
		cmocka_unit_test(test_cache_hot_until_failures),
		cmocka_unit_test(test_smt_never_hot),
		cmocka_unit_test(test_interval_grows_and_resets),
		cmocka_unit_test(test_busy_interval_generations),
		cmocka_unit_test(test_runnable_classify_generations),
		cmocka_unit_test(test_llc_spread_generations),
		cmocka_unit_test(test_small_imbalance_generations),
		cmocka_unit_test(test_migrate_util_src_generations),
		cmocka_unit_test(test_sis_util_table),
		cmocka_unit_test(test_sis_util_from_balance),
		cmocka_unit_test(test_newidle_gates),
		cmocka_unit_test(test_newidle_cost_and_decay),
		cmocka_unit_test(test_newidle_host_time),
		cmocka_unit_test(test_newidle_generations),
		cmocka_unit_test(test_newidle_pending_generations),
		cmocka_unit_test(test_newidle_window_samples_avg_idle),
		cmocka_unit_test(test_find_dst_cpu_fork),
		cmocka_unit_test(test_find_dst_cpu_numa_imbalance),
		cmocka_unit_test(test_busy_sibling_generations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
