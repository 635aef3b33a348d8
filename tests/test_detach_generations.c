/* detach_tasks()'s "too much" tests of each kernel generation (src/core/balance.c,
 * too_much_load() and too_much_util()), by hand from kernel/sched/fair.c:
 *
 *   load, v5.4: skip while load / 2 > imbalance, whatever the failures
 *   load, v5.5-v5.9 (6cf82d559e1a): skip while load / 2 > imbalance, and only until the
 *         level's failed balances pass cache_nice_tries
 *   load, v5.10+ (5a7f55590467): skip while load >> failures > imbalance
 *   util, up to v6.7: skip while util > imbalance
 *   util, v6.8+ (3af7524b1419): skip while util >> failures > imbalance
 *
 * An imbalance of 400, cache_nice_tries 1. */
#include "../src/core/balance.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static struct ts_kernel_profile profile(const char *v)
{
	struct ts_kernel_profile k;
	struct ts_error err = {0};
	if (ts_kernel_profile_parse(v, &k, &err))
		fail_msg("kernel %s: %s", v, err.msg);
	return k;
}

/* too_much_load(load) on kernel v with `failed` failed balances at the level. */
static bool load_skipped(const char *v, unsigned long load, unsigned int failed)
{
	struct ts_sched s = {.kernel = profile(v)};
	struct ts_sched_domain sd = {.cache_nice_tries = 1, .nr_balance_failed = failed};
	struct lb_env env = {.s = &s, .sd = &sd, .imbalance = 400};
	return too_much_load(&env, load);
}

static bool util_skipped(const char *v, unsigned long util, unsigned int failed)
{
	struct ts_sched s = {.kernel = profile(v)};
	struct ts_sched_domain sd = {.cache_nice_tries = 1, .nr_balance_failed = failed};
	struct lb_env env = {.s = &s, .sd = &sd, .imbalance = 400};
	return too_much_util(&env, util);
}

static void test_load_generations(void **state)
{
	(void)state;
	/* load 1000: half is 500 > 400 */
	assert_true(load_skipped("5.4", 1000, 0));
	assert_true(load_skipped("5.4", 1000, 2)); /* never relaxed */
	assert_false(load_skipped("5.4", 800, 0)); /* 400 is not more */
	assert_true(load_skipped("5.9", 1000, 0));
	assert_true(load_skipped("5.9", 1000, 1));   /* 1 failure: not past cache_nice_tries */
	assert_false(load_skipped("5.9", 1000, 2));  /* relaxed */
	assert_true(load_skipped("5.10", 1000, 1));  /* 1000 >> 1 = 500 */
	assert_false(load_skipped("5.10", 1000, 2)); /* 250 */
	/* load 700: half is 350, moved at once before v5.10; 700 >> 0 is not */
	assert_false(load_skipped("5.6", 700, 0));
	assert_true(load_skipped("5.10", 700, 0));
	assert_true(load_skipped("6.12", 700, 0));
	assert_false(load_skipped("6.12", 700, 1)); /* 350 */
	/* the bound of the shift: 64 failures leave load >> 63 */
	assert_false(load_skipped("6.12", ~0UL >> 1, 64));
}

static void test_util_generations(void **state)
{
	(void)state;
	assert_true(util_skipped("6.7", 600, 0));
	assert_true(util_skipped("6.7", 600, 5)); /* failures change nothing before v6.8 */
	assert_true(util_skipped("5.6", 600, 5));
	assert_true(util_skipped("6.8", 600, 0));
	assert_false(util_skipped("6.8", 600, 1));  /* 300 */
	assert_false(util_skipped("6.12", 400, 0)); /* equal is not more */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_generations),
		cmocka_unit_test(test_util_generations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
