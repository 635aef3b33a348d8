/* v5.4's calculate_imbalance() and fix_small_imbalance() (src/core/balance_busiest_v5_4.c),
 * by hand from kernel/sched/fair.c of v5.4, on two groups of 4 CPUs (capacity 4096) or of
 * one (1024), nice-0 tasks of load 1024 unless said otherwise. */
#include "../src/core/balance_busiest_v5_4.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* A group of `cap` capacity on `cpus` CPUs running n tasks of load `load` each. */
static struct sg_lb_stats_v5_4 group(unsigned long cap, unsigned int cpus, unsigned int n,
				     unsigned long load, enum group_type_v5_4 type)
{
	struct sg_lb_stats_v5_4 g = {.group_capacity = cap,
				     .group_weight = cpus,
				     .sum_nr_running = n,
				     .group_load = n * load,
				     .group_type = type};
	g.avg_load = g.group_load * TS_CAPACITY_SCALE / cap;
	g.load_per_task = n ? load : 0;
	return g;
}

/* calculate_imbalance() on busiest b and local l, the domain being the two of them. */
static long imbalance(struct sg_lb_stats_v5_4 b, struct sg_lb_stats_v5_4 l)
{
	struct sd_lb_stats_v5_4 sds = {.busiest_stat = b, .local_stat = l};
	sds.total_load = b.group_load + l.group_load;
	sds.total_capacity = b.group_capacity + l.group_capacity;
	sds.avg_load = TS_CAPACITY_SCALE * sds.total_load / sds.total_capacity;
	struct lb_env env = {.imbalance = -1, .migration_type = migrate_task};
	calculate_imbalance(&env, &sds);
	assert_int_equal(env.migration_type, migrate_load);
	return env.imbalance;
}

/* Both overloaded, 6 tasks against 5: avg_load 1536 and 1280, the domain's 11264 x 1024 /
 * 8192 = 1408. load_above_capacity = (6 x 1024 - 4096) x 1024 / 4096 = 512 does not cap
 * max_pull = 1536 - 1408 = 128; the imbalance min(128, 1408 - 1280) x 4096 / 1024 = 512 is
 * below a task's load, and fix_small_imbalance() (equal loads per task: imbn 2; scaled
 * 1024 x 1024 / 4096 = 256; 1536 + 256 >= 1280 + 2 x 256) moves one task: 1024. */
static void test_small_imbalance_one_task(void **state)
{
	(void)state;
	assert_int_equal(imbalance(group(4096, 4, 6, 1024, group_overloaded_v5_4),
				   group(4096, 4, 5, 1024, group_overloaded_v5_4)),
			 1024);
}

/* Both overloaded, 12 tasks against 4 (on 4 CPUs, so local is not overloaded: no cap):
 * avg_load 3072 and 1024, the domain's 2048; min(3072 - 2048, 2048 - 1024) x 4096 / 1024 =
 * 4096, four tasks' load. With local overloaded too, load_above_capacity = (12 x 1024 -
 * 4096) x 1024 / 4096 = 2048 does not cap 1024 either: the same 4096. */
static void test_large_imbalance(void **state)
{
	(void)state;
	assert_int_equal(imbalance(group(4096, 4, 12, 1024, group_overloaded_v5_4),
				   group(4096, 4, 4, 1024, group_other_v5_4)),
			 4096);
	assert_int_equal(imbalance(group(4096, 4, 12, 1024, group_overloaded_v5_4),
				   group(4096, 4, 4, 1024, group_overloaded_v5_4)),
			 4096);
}

/* load_above_capacity caps: 5 tasks of load 4096 each against 1 on 4-CPU groups, both
 * overloaded: avg_load 5120 and 1024, the
 * domain's 3072; load_above_capacity = (5 x 1024 - 4096) x 1024 / 4096 = 256 caps
 * max_pull (2048): min(256 x 4096, 2048 x 4096) / 1024 = 1024, below a task's 4096:
 * fix_small_imbalance(), 5120 + 1024 >= 1024 + 2 x 1024: one task, 4096. */
static void test_load_above_capacity(void **state)
{
	(void)state;
	assert_int_equal(imbalance(group(4096, 4, 5, 1024 * 4, group_overloaded_v5_4),
				   group(4096, 4, 1, 1024 * 4, group_overloaded_v5_4)),
			 4096);
}

/* One CPU each: busiest runs two tasks of 1024 (avg_load 2048), local one heavy task of
 * 2501 (nice -4): the domain's avg_load 4549 x 1024 / 2048 = 2274 is above busiest's, so
 * the imbalance is 0 and fix_small_imbalance() decides. busiest's load per task is not
 * above local's: imbn 2, and 2048 + 1024 < 2501 + 2 x 1024. Capacity used now:
 * (1024 x min(1024, 2048) + 1024 x min(2501, 2501)) / 1024 = 3525; after a move: busiest
 * min(1024, 2048 - 1024) = 1024, local min(2501, 2501 + 1024) = 2501, 3525 again: no gain,
 * nothing moves. A light local task instead (load 15, nice 19): busiest's tasks are the
 * heavier, imbn 1, and 2048 + 1024 >= 15 + 1024: one task, 1024. */
static void test_small_imbalance_capacity(void **state)
{
	(void)state;
	assert_int_equal(imbalance(group(1024, 1, 2, 1024, group_overloaded_v5_4),
				   group(1024, 1, 1, 2501, group_other_v5_4)),
			 0);
	assert_int_equal(imbalance(group(1024, 1, 2, 1024, group_overloaded_v5_4),
				   group(1024, 1, 1, 15, group_other_v5_4)),
			 1024);
}

/* group_imbalanced: the load per task is capped by the domain's avg_load. busiest 2 tasks
 * of 3000 on one CPU (avg_load 6000), local 1 of 1024: the domain's 7024 x 1024 / 2048 =
 * 3512; load_per_task min(3000, 3512) = 3000; min(6000 - 3512, 3512 - 1024) x 1024 / 1024 =
 * 2488 < 3000: fix_small_imbalance(), imbn 1 (3000 > 1024), 6000 + 3000 >= 1024 + 3000:
 * 3000. */
static void test_group_imbalanced(void **state)
{
	(void)state;
	assert_int_equal(imbalance(group(1024, 1, 2, 3000, group_imbalanced_v5_4),
				   group(1024, 1, 1, 1024, group_other_v5_4)),
			 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_imbalance_one_task),
		cmocka_unit_test(test_large_imbalance),
		cmocka_unit_test(test_load_above_capacity),
		cmocka_unit_test(test_small_imbalance_capacity),
		cmocka_unit_test(test_group_imbalanced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
