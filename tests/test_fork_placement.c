/* Fork balancing from a running parent (ts_wake_up_new_task() with the parent as the
 * current task of the forking CPU), on Kunpeng 920 node 0 (8 clusters of 4 CPUs), every
 * task allowed only node 0 (numactl -N 0), as the simulator starts tbench and netperf.
 *
 * By hand, kernel/sched/fair.c sched_balance_find_dst_group() (find_idlest_group()): the
 * NUMA levels have no allowed group but the local node, so the MC level (the node's 32 CPUs,
 * groups = clusters) decides. A CPU counts idle only when nothing runs there, so the parent's
 * CPU 0 is busy: the local cluster has 3 idle CPUs against 4 in every other; in the
 * group_has_spare case the local group is kept only when local.idle_cpus >=
 * idlest.idle_cpus, and between equal clusters the first in domain order wins (ties on
 * idle_cpus go to the lower group_util, here all 0). The first child goes to cluster 1
 * (CPUs 4-7) and, all idle there, to its first CPU; each later child finds one more cluster
 * with a busy CPU: the k-th child (k = 1..7) lands on CPU 4k. An eighth finds every cluster
 * with 3 idle CPUs and stays in the parent's cluster.
 *
 * And wake_up_new_task() remembers the forking CPU as the child's recent_used_cpu. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_env.h"

/* Kunpeng 920 with the default features, and node 0's CPUs (0-31). */
static struct ts_cpumask *kunpeng_node0(struct env *e)
{
	env_preset(e, "kunpeng920", NULL);
	struct ts_cpumask *node0 = ts_cpumask_alloc(e->t->nr_cpus);
	assert_non_null(node0);
	for (int c = 0; c < 32; c++)
		ts_cpumask_set(node0, c);
	return node0;
}

/* The forking parent (the launcher, the listener), running on CPU 0. */
static struct ts_task *parent_running_on_cpu0(struct env *e, const struct ts_cpumask *node0)
{
	struct ts_task *parent = env_task(e, 0, node0, 0);
	fake_run_on(e->s, &e->f, parent, 0);
	return parent;
}

/* A new child of parent (running on CPU 0) through fork balancing: the CPU it goes to. */
static int fork_from_cpu0(struct env *e, const struct ts_cpumask *node0, struct ts_task *parent)
{
	struct ts_task *child = env_task(e, 0, node0, 0);
	struct ts_placement pl = ts_wake_up_new_task(e->s, child, 0, parent);
	assert_int_equal(pl.reason, TS_PLACE_SLOW_PATH);
	assert_int_equal(child->cpu, pl.cpu);
	return pl.cpu;
}

static void test_children_of_a_running_parent_spread_over_clusters(void **state)
{
	(void)state;
	struct env e;
	struct ts_cpumask *node0 = kunpeng_node0(&e);
	struct ts_task *parent = parent_running_on_cpu0(&e, node0);
	assert_false(ts_idle_cpu(e.s, 0));

	for (int k = 1; k <= 8; k++) {
		struct ts_task *child = env_task(&e, 0, node0, 0);
		struct ts_placement pl = ts_wake_up_new_task(e.s, child, 0, parent);
		assert_int_equal(child->recent_used_cpu, 0);
		assert_int_equal(pl.reason, TS_PLACE_SLOW_PATH);
		if (k <= 7) {
			assert_int_equal(pl.cpu, 4 * k);
		} else {
			assert_true(pl.cpu >= 1 && pl.cpu <= 3); /* the parent's cluster */
		}
		assert_int_equal(child->cpu, pl.cpu);
	}
	ts_cpumask_free(node0);
	env_destroy(&e);
}

/* Without a running parent (the old start: every task forked from an idle CPU 0) the local
 * cluster ties with the others (4 idle each) and keeps the child: it goes to CPU 0 itself. */
static void test_a_fork_from_an_idle_cpu_stays_local(void **state)
{
	(void)state;
	struct env e;
	struct ts_cpumask *node0 = kunpeng_node0(&e);
	struct ts_task *child = env_task(&e, 0, node0, 0);
	struct ts_placement pl = ts_wake_up_new_task(e.s, child, 0, NULL);
	assert_true(pl.cpu >= 0 && pl.cpu <= 3);
	assert_int_equal(child->recent_used_cpu, 0);
	ts_cpumask_free(node0);
	env_destroy(&e);
}

/* On a machine that has been up every CPU went idle through schedule() at some moment, and
 * sched_balance_find_dst_group_cpu() takes the CPU of the chosen group with the latest
 * idle_stamp. Parent running on CPU 0; CPUs 4-7 (cluster 1, the first of the tied clusters
 * in domain order) last went idle at 0.3, 0.9, 0.1 and 0.5 ms: the child goes to CPU 5. */
static void test_a_fork_takes_the_latest_idled_cpu_of_the_cluster(void **state)
{
	(void)state;
	struct env e;
	struct ts_cpumask *node0 = kunpeng_node0(&e);
	struct ts_task *parent = parent_running_on_cpu0(&e, node0);
	static const uint64_t stamp_us[4] = {300, 900, 100, 500};
	for (int i = 0; i < 4; i++)
		ts_rq_set_idle_stamp(ts_cpu_rq(e.s, 4 + i), stamp_us[i] * 1000);
	assert_int_equal(fork_from_cpu0(&e, node0, parent), 5);
	ts_cpumask_free(node0);
	env_destroy(&e);
}

/* wake_up_new_task() enqueues with activate_task(), not ttwu_do_activate(): the CPU's idle
 * period is not closed (idle_stamp kept, avg_idle and wake_avg_idle untouched), unlike a
 * wake-up's (tests/test_rq.c). Nor does running the child close it (__schedule() leaves
 * idle_stamp alone), so the next wake-up onto the busy CPU samples the whole time since it
 * went idle (3.01 ms), as the kernel's ttwu_do_activate() does. */
static void test_a_fork_does_not_close_the_idle_period(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", NULL);
	struct ts_cpumask *only5 = ts_cpumask_alloc(e.t->nr_cpus);
	assert_non_null(only5);
	ts_cpumask_set(only5, 5);
	struct ts_rq *rq = ts_cpu_rq(e.s, 5);
	ts_rq_set_idle_stamp(rq, 400000);
	uint64_t avg_idle = rq->avg_idle;
	unsigned long long wake_avg = atomic_load(&rq->ro.wake_avg_idle);
	e.f.now += 3000000;
	struct ts_task *child = env_task(&e, 0, only5, 5);
	struct ts_placement pl = ts_wake_up_new_task(e.s, child, 5, NULL);
	assert_int_equal(pl.cpu, 5);
	assert_int_equal(rq->idle_stamp, 400000);
	assert_int_equal(rq->avg_idle, avg_idle);
	assert_int_equal(atomic_load(&rq->ro.wake_avg_idle), wake_avg);

	fake_lock(&e.f, 5);
	assert_ptr_equal(ts_schedule(e.s, 5), child);
	fake_unlock(&e.f, 5);
	assert_int_equal(rq->idle_stamp, 400000);
	assert_int_equal(rq->avg_idle, avg_idle);

	struct ts_task *sleeper = env_task(&e, 0, only5, 5);
	ts_task_set_state(sleeper, TS_TASK_SLEEPING);
	rq->avg_idle = 0;
	e.f.now += 10000;
	fake_lock(&e.f, 5);
	ts_activate_task(e.s, 5, sleeper, 0);
	fake_unlock(&e.f, 5);
	/* update_avg(): an eighth of the way from 0 to the sample, below the cap */
	assert_int_equal(rq->avg_idle, (e.f.now - 400000) / 8);
	assert_true(rq->avg_idle < 2 * rq->max_idle_balance_cost);
	assert_int_equal(rq->idle_stamp, 0);
	assert_int_equal(e.f.lock_errors, 0);
	ts_cpumask_free(only5);
	env_destroy(&e);
}

/* The root of the start's same-cluster pairs (docs/engine.md, "Where the 8-client baseline
 * becomes same-cluster"): once every cluster holds a task, a fork goes onto the CPU a
 * sleeping task just left. Parent running on CPU 0; the CPUs of clusters 1-7 last went
 * idle at 0.1, 0.2, 0.3, 0.4 ms (first to last CPU of each cluster), so children 1-7,
 * forked at one instant, land on CPUs 7, 11, ..., 31 (one cluster each, as in the first
 * test, then the latest idled CPU) with util_avg 512 each (post_init_entity_util_avg() on an
 * empty CPU: (1024 - 0) / 2); they run and block 50 us later, each leaving the same
 * utilisation behind. By hand: every cluster but the parent's has 4 idle CPUs (a CPU whose task
 * sleeps is idle, idle_cpu_without()) and the same group_util, so the first in domain order,
 * cluster 1, wins; there CPU 7, idle since 1.05 ms, is the latest idled: child 8 goes onto child
 * 1's task_cpu. Child 8 is queued there, so CPU 7 is busy, cluster 1 has 3 idle CPUs, and child 9
 * goes onto child 2's CPU 11. */
static void test_a_fork_stacks_onto_the_cpu_a_sleeping_task_just_left(void **state)
{
	(void)state;
	struct env e;
	struct ts_cpumask *node0 = kunpeng_node0(&e);
	struct ts_task *parent = parent_running_on_cpu0(&e, node0);
	for (int c = 4; c < 32; c++)
		ts_rq_set_idle_stamp(ts_cpu_rq(e.s, c), (uint64_t)(100 + 100 * (c % 4)) * 1000);

	struct ts_task *first[8];
	for (int k = 1; k <= 7; k++) {
		first[k] = env_task(&e, 0, node0, 0);
		struct ts_placement pl = ts_wake_up_new_task(e.s, first[k], 0, parent);
		assert_int_equal(pl.cpu, 4 * k + 3);
		assert_int_equal(first[k]->se.avg.util_avg, 512);
	}
	e.f.now += 50000;
	for (int k = 1; k <= 7; k++) {
		int cpu = 4 * k + 3;
		fake_lock(&e.f, cpu);
		ts_schedule(e.s, cpu);
		ts_deactivate_curr(e.s, cpu, TS_TASK_SLEEPING);
		ts_schedule(e.s, cpu);
		fake_unlock(&e.f, cpu);
		assert_true(ts_idle_cpu(e.s, cpu));
		assert_int_equal(ts_cpu_rq(e.s, cpu)->idle_stamp, 1050000);
		/* 50 us of PELT: the same for every child */
		assert_int_equal(first[k]->se.avg.util_avg, first[1]->se.avg.util_avg);
	}

	struct ts_task *eighth = env_task(&e, 0, node0, 0);
	struct ts_placement pl = ts_wake_up_new_task(e.s, eighth, 0, parent);
	assert_int_equal(pl.reason, TS_PLACE_SLOW_PATH);
	assert_int_equal(pl.cpu, 7);
	assert_int_equal(first[1]->cpu, 7);
	struct ts_task *ninth = env_task(&e, 0, node0, 0);
	pl = ts_wake_up_new_task(e.s, ninth, 0, parent);
	assert_int_equal(pl.cpu, 11);
	ts_cpumask_free(node0);
	env_destroy(&e);
}

/* cpu_util_cfs() clamps a CPU's util_avg to its capacity: a root cfs_rq holds more than
 * 1024 for a while after tasks were attached to it (forks, wake-up migrations), and the
 * group_util that breaks a tie between clusters with as many idle CPUs counts at most 1024
 * per CPU. By hand, parent running on CPU 0, every other CPU idle: cluster 1 has one CPU
 * at util_avg 1500 (1024 once clamped), cluster 2 two at 600 (1200), clusters 3-7 two at
 * 700 (1400): cluster 1 has the lowest group_util and the child goes to CPU 4; without the
 * clamp cluster 2 would win (1200 < 1500). */
static void test_group_util_counts_a_cpu_at_most_its_capacity(void **state)
{
	(void)state;
	struct env e;
	struct ts_cpumask *node0 = kunpeng_node0(&e);
	struct ts_task *parent = parent_running_on_cpu0(&e, node0);
	struct ts_rq *rq = ts_cpu_rq(e.s, 4);
	atomic_store_explicit(&rq->ro.util_avg, 1500, memory_order_relaxed);
	for (int c = 8; c < 32; c += 4) {
		unsigned long util = c == 8 ? 600 : 700;
		atomic_store_explicit(&ts_cpu_rq(e.s, c)->ro.util_avg, util, memory_order_relaxed);
		atomic_store_explicit(&ts_cpu_rq(e.s, c + 1)->ro.util_avg, util,
				      memory_order_relaxed);
	}
	assert_int_equal(ts_cpu_util(e.s, 4), 1024);
	assert_int_equal(ts_cpu_util_avg(e.s, 4), 1500);

	assert_int_equal(fork_from_cpu0(&e, node0, parent), 4);
	ts_cpumask_free(node0);
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_children_of_a_running_parent_spread_over_clusters),
		cmocka_unit_test(test_a_fork_from_an_idle_cpu_stays_local),
		cmocka_unit_test(test_a_fork_takes_the_latest_idled_cpu_of_the_cluster),
		cmocka_unit_test(test_a_fork_does_not_close_the_idle_period),
		cmocka_unit_test(test_a_fork_stacks_onto_the_cpu_a_sleeping_task_just_left),
		cmocka_unit_test(test_group_util_counts_a_cpu_at_most_its_capacity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
