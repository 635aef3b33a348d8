/* The busiest-group choices of each kernel generation (src/core/balance_busiest.c), by hand
 * from kernel/sched/fair.c's update_sd_pick_busiest() and update_sg_lb_stats():
 *
 *   fully busy, up to v6.4: of two fully busy groups with equal avg_load (always 0 below
 *         overloaded) the first stays busiest
 *   fully busy, v6.5+ (5fd6d7f43958): the later one replaces it, unless the current
 *         busiest is an SMT core
 *   has spare, v6.6+ (fee1759e4f04): a non-SMT group is picked over an SMT busiest, and
 *         an SMT group with one task never over a non-SMT busiest; before, idle CPUs and
 *         running tasks decide between them as between any groups
 *   group_smt_balance, v6.6+ (fee1759e4f04): an SMT group running more than one task,
 *         for an idle balancing CPU only; before, no such type
 *   prefer_sibling, v6.5+ (43726bdedd29): the busiest group's SD_PREFER_SIBLING; before,
 *         the balancing CPU's child domain's
 *
 * Groups stand alone here (their flags are their child domain's); nothing is balanced. */
#include "../src/core/balance_busiest.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_env.h" /* kernel() */

#define SMT TS_SD_SHARE_CPUCAPACITY

/* update_sd_pick_busiest() on kernel v: is the candidate (flags, stats) busier than the
 * current busiest (flags, stats)? An idle balancing CPU at a level without asymmetric
 * capacities. */
static bool picks(const char *v, unsigned int busiest_flags, struct sg_lb_stats busiest,
		  unsigned int flags, struct sg_lb_stats cand)
{
	struct ts_sched s = {.kernel = kernel(v)};
	struct ts_sched_domain sd = {.flags = TS_SD_SHARE_LLC};
	struct lb_env env = {.s = &s, .sd = &sd, .idle = TS_CPU_IDLE};
	struct ts_sched_group b = {.flags = busiest_flags}, c = {.flags = flags};
	struct sd_lb_stats sds = {.busiest = &b, .busiest_stat = busiest};
	return update_sd_pick_busiest(&env, &sds, &c, &cand);
}

static struct sg_lb_stats fully_busy(unsigned int nr)
{
	return (struct sg_lb_stats){
		.group_type = group_fully_busy, .sum_nr_running = nr, .sum_h_nr_running = nr};
}

static struct sg_lb_stats has_spare(unsigned int nr, unsigned int idle)
{
	return (struct sg_lb_stats){.group_type = group_has_spare,
				    .sum_nr_running = nr,
				    .sum_h_nr_running = nr,
				    .idle_cpus = idle};
}

static void test_fully_busy_tie(void **state)
{
	(void)state;
	/* two fully busy LLCs (flags 0): the first stays up to v6.4, the later wins from v6.5 */
	assert_false(picks("5.6", 0, fully_busy(4), 0, fully_busy(4)));
	assert_false(picks("6.4", 0, fully_busy(4), 0, fully_busy(4)));
	assert_true(picks("6.5", 0, fully_busy(4), 0, fully_busy(4)));
	assert_true(picks("6.12", 0, fully_busy(4), 0, fully_busy(4)));
	/* an SMT core as busiest keeps its place in every generation */
	assert_false(picks("6.5", SMT, fully_busy(2), SMT, fully_busy(2)));
	assert_false(picks("6.12", SMT, fully_busy(2), 0, fully_busy(2)));
	/* a higher avg_load wins, a lower one loses, in every generation */
	struct sg_lb_stats heavier = fully_busy(4);
	heavier.avg_load = 10;
	assert_true(picks("6.4", 0, fully_busy(4), 0, heavier));
	assert_false(picks("6.5", 0, heavier, 0, fully_busy(4)));
}

static void test_has_spare_smt_vs_nonsmt(void **state)
{
	(void)state;
	/* An SMT core running 1 task (1 idle CPU) is busiest; a 4-CPU cluster of single-thread
	 * cores running 2 (2 idle) comes next. Up to v6.5 more idle CPUs lose; from v6.6 the
	 * non-SMT group is taken, so as not to empty the SMT core. */
	assert_false(picks("5.15", SMT, has_spare(1, 1), 0, has_spare(2, 2)));
	assert_false(picks("6.5", SMT, has_spare(1, 1), 0, has_spare(2, 2)));
	assert_true(picks("6.6", SMT, has_spare(1, 1), 0, has_spare(2, 2)));
	assert_true(picks("6.12", SMT, has_spare(1, 1), 0, has_spare(2, 2)));
	/* The other way round: an SMT core with one task never replaces a non-SMT busiest
	 * from v6.6, though it has fewer idle CPUs; one with two does, whatever its idle CPUs. */
	assert_true(picks("6.5", 0, has_spare(2, 2), SMT, has_spare(1, 1)));
	assert_false(picks("6.6", 0, has_spare(2, 2), SMT, has_spare(1, 1)));
	assert_false(picks("6.5", 0, has_spare(3, 1), SMT, has_spare(2, 1)));
	assert_true(picks("6.6", 0, has_spare(3, 1), SMT, has_spare(2, 1)));
	/* groups alike: idle CPUs, then running tasks, in every generation */
	assert_true(picks("6.12", SMT, has_spare(1, 1), SMT, has_spare(2, 0)));
	assert_false(picks("6.12", SMT, has_spare(2, 0), SMT, has_spare(1, 1)));
	assert_false(picks("6.4", 0, has_spare(2, 2), 0, has_spare(2, 2)));
}

/* smt_balance() and the class it gives, for a group of flags running nr tasks. */
static enum group_type classify(const char *v, enum ts_idle_type idle, unsigned int flags,
				unsigned int nr)
{
	struct ts_sched s = {.kernel = kernel(v)};
	struct lb_env env = {.s = &s, .idle = idle};
	struct ts_sched_group_capacity sgc;
	memset(&sgc, 0, sizeof(sgc));
	struct ts_sched_group g = {.flags = flags, .group_weight = 2, .sgc = &sgc};
	/* two CPUs each running a task: no spare capacity by count; by utilisation, yes */
	struct sg_lb_stats sgs = {.sum_nr_running = nr,
				  .sum_h_nr_running = nr,
				  .group_weight = 2,
				  .group_capacity = 2048,
				  .group_util = 600};
	if (smt_balance(&env, &sgs, &g))
		sgs.group_smt_balance = 1;
	return group_classify(117, &g, &sgs);
}

static void test_group_smt_balance(void **state)
{
	(void)state;
	assert_int_equal(classify("6.5", TS_CPU_IDLE, SMT, 2), group_has_spare);
	assert_int_equal(classify("6.6", TS_CPU_IDLE, SMT, 2), group_smt_balance);
	assert_int_equal(classify("6.12", TS_CPU_NEWLY_IDLE, SMT, 2), group_smt_balance);
	/* a busy balancing CPU, one task, or a non-SMT group: never */
	assert_int_equal(classify("6.12", TS_CPU_NOT_IDLE, SMT, 2), group_has_spare);
	assert_int_equal(classify("6.12", TS_CPU_IDLE, SMT, 1), group_has_spare);
	assert_int_equal(classify("6.12", TS_CPU_IDLE, 0, 2), group_has_spare);
	/* it ranks above fully busy, below overloaded */
	assert_true(group_smt_balance > group_fully_busy && group_smt_balance < group_overloaded);
}

/* prefer_sibling at an MC level where the balancing CPU is a core without SMT (no child
 * domain) and the busiest group an SMT core (its flags, its SMT child's, carry
 * SD_PREFER_SIBLING): on from v6.5, off before. A CPU whose child has the flag: on in both;
 * no busiest group: off from v6.5. */
static bool prefer_sibling(const char *v, bool has_child, bool has_busiest)
{
	struct ts_sched s = {.kernel = kernel(v)};
	struct ts_sched_domain child = {.flags = SMT | TS_SD_PREFER_SIBLING};
	struct ts_sched_domain sd = {.flags = TS_SD_SHARE_LLC | TS_SD_PREFER_SIBLING,
				     .child = has_child ? &child : NULL};
	struct lb_env env = {.s = &s, .sd = &sd, .idle = TS_CPU_IDLE};
	struct ts_sched_group smt_core = {.flags = SMT | TS_SD_PREFER_SIBLING};
	struct sd_lb_stats sds = {.busiest = has_busiest ? &smt_core : NULL};
	return prefer_sibling_of(&env, &sds);
}

/* Kunpeng 920, CPU 0's NUMA level spanning nodes 0-2 (CPUs 0-95): its child is the NUMA
 * level of nodes 0-1, without SD_PREFER_SIBLING; node 2's group comes from a descended
 * sibling and carries node 2's MC flags, with it. */
static bool kunpeng_prefer_sibling(const char *v)
{
	struct env e;
	struct ts_sched_config cfg = {.kernel = kernel(v)};
	env_start(&e, preset("kunpeng920"), "", &cfg);
	struct ts_sched_domain *sd = env_domain_of_span(&e, 0, 96);
	struct ts_sched_group *node2 = NULL;
	for (int g = 0; g < sd->nr_groups; g++)
		if (ts_cpumask_first(sd->groups[g]->span) == 64)
			node2 = sd->groups[g];
	assert_non_null(node2);
	assert_false(sd->child->flags & TS_SD_PREFER_SIBLING);
	assert_true(node2->flags & TS_SD_PREFER_SIBLING);
	struct lb_env env = {.s = e.s, .sd = sd, .idle = TS_CPU_IDLE};
	struct sd_lb_stats sds = {.busiest = node2};
	bool on = prefer_sibling_of(&env, &sds);
	env_destroy(&e);
	return on;
}

static void test_prefer_sibling_source(void **state)
{
	(void)state;
	assert_false(kunpeng_prefer_sibling("6.4"));
	assert_true(kunpeng_prefer_sibling("6.5"));
	assert_false(prefer_sibling("6.4", false, true));
	assert_true(prefer_sibling("6.5", false, true));
	assert_true(prefer_sibling("5.15", true, true));
	assert_true(prefer_sibling("6.12", true, true));
	assert_true(prefer_sibling("6.4", true, false));
	assert_false(prefer_sibling("6.5", true, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fully_busy_tie),
		cmocka_unit_test(test_has_spare_smt_vs_nonsmt),
		cmocka_unit_test(test_group_smt_balance),
		cmocka_unit_test(test_prefer_sibling_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
