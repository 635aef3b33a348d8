/* should_we_balance() of each kernel generation (src/core/balance.c), by hand from
 * kernel/sched/fair.c, on a package of two LLCs, each of two SMT2 cores (CPUs 0-1 and 2-3
 * share LLC 0, 4-5 and 6-7 LLC 1):
 *
 *   up to v6.5: the first idle CPU of the group balances for it (else its balance CPU)
 *   v6.6+ (b1bfeab9b002): the first idle CPU of an idle core; else the first idle CPU
 *         of a busy core
 *   up to v5.19: a newly idle CPU balances every level
 *   v6.0+ (792b9f65a568): it stops once it has a task or a wake-up pending */
#include "../src/core/balance.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_env.h"

static struct env *env_on(const char *version)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	struct ts_sched_config cfg = {.kernel = kernel(version)};
	env_start(e, load_topology("synthetic:pack:1 l3:2 core:2 pu:2"), "", &cfg);
	return e;
}

static void env_free(struct env *e)
{
	env_destroy(e);
	free(e);
}

static bool swb(struct env *e, int cpu, int span, enum ts_idle_type idle)
{
	struct lb_masks m = lb_masks_of(e->s, cpu);
	struct lb_env env = lb_env_of(e->s, env_domain_of_span(e, cpu, span), cpu, idle, m.cpus);
	env.swb_cpus = m.swb;
	return should_we_balance(&env);
}

/* CPU 0 runs a task; 1, 2 and 3 are idle. At the package level (groups: the LLCs) CPU 1
 * is LLC 0's first idle CPU, but its core is busy; CPU 2's core is idle. */
static void swb_package(const char *version, bool cpu1_balances)
{
	struct env *e = env_on(version);
	fake_run_on(e->s, &e->f, env_task(e, 0, NULL, 0), 0);
	if (swb(e, 1, 8, TS_CPU_IDLE) != cpu1_balances ||
	    swb(e, 2, 8, TS_CPU_IDLE) == cpu1_balances)
		fail_msg("kernel %s: CPU 1 %s balance LLC 0 at the package level, CPU 2 %s",
			 version, cpu1_balances ? "should" : "should not",
			 cpu1_balances ? "not" : "should");
	/* In the LLC (groups: the cores) CPU 1 is its core's only idle CPU: it balances in
	 * every generation. */
	assert_true(swb(e, 1, 4, TS_CPU_IDLE));
	assert_false(swb(e, 3, 4, TS_CPU_IDLE)); /* CPU 2 comes first in its core */
	env_free(e);
}

static void test_first_idle_core(void **state)
{
	(void)state;
	swb_package("5.6", true);
	swb_package("6.5", true);
	swb_package("6.6", false);
	swb_package("6.12", false);
}

/* A newly idle CPU 2 that got a task meanwhile. */
static void swb_newidle(const char *version, bool balances)
{
	struct env *e = env_on(version);
	assert_true(swb(e, 2, 8, TS_CPU_NEWLY_IDLE));
	fake_run_on(e->s, &e->f, env_task(e, 0, NULL, 2), 2);
	if (swb(e, 2, 8, TS_CPU_NEWLY_IDLE) != balances)
		fail_msg("kernel %s: a newly idle CPU with a task %s balance", version,
			 balances ? "should" : "should not");
	env_free(e);
}

static void test_newidle_bail(void **state)
{
	(void)state;
	swb_newidle("5.15", true);
	swb_newidle("5.19", true);
	swb_newidle("6.0", false);
	swb_newidle("6.12", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_idle_core),
		cmocka_unit_test(test_newidle_bail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
