/* Every placement goes through the core with a reason: a task spawned near a node is put on
 * the core's choice, ts_select_near_node() (cpumask_local_spread(i, node), NUMA hops), with
 * reason near_node_spread. On kunpeng920 (4 nodes of 32 CPUs; SLIT 16 between nodes 0-1
 * and 2-3, 25-33 across) over the fake host, against the core's spread itself. The
 * runtime's spawns near a node (ts_spawn() with near_node/spread_index) call it:
 * test_rt_numa.c checks them against ts_cpumask_local_spread(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numa_env.h"
#include "toposched/near_node.h"
#include "toposched/spread.h"

static void test_near_node(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_placement pl;
	struct ts_error err = {0};
	/* the i-th CPU of the node, then of its nearest node */
	assert_int_equal(ts_select_near_node(e.s, NULL, 2, 0, &pl, &err), 0);
	assert_int_equal(pl.cpu, 64);
	assert_int_equal(pl.target, 64);
	assert_int_equal(pl.reason, TS_PLACE_NEAR_NODE_SPREAD);
	assert_string_equal(ts_place_reason_name(pl.reason), "near_node_spread");
	assert_int_equal(ts_select_near_node(e.s, NULL, 2, 31, &pl, &err), 0);
	assert_int_equal(pl.cpu, 95);
	assert_int_equal(ts_select_near_node(e.s, NULL, 2, 32, &pl, &err), 0);
	assert_int_equal(e.t->cpu[pl.cpu].node, 3);
	/* the same as the core's spread for every i, wrapping at the CPUs' number */
	for (unsigned int i = 0; i < 300; i += 7) {
		assert_int_equal(ts_select_near_node(e.s, NULL, 1, i, &pl, &err), 0);
		assert_int_equal(pl.cpu,
				 ts_cpumask_local_spread(&e.s->dom->numa, e.s->dom->cpu_map,
							 TS_SPREAD_NUMA_HOPS, (int)(i % 128), 1));
	}
	/* only the allowed CPUs: node 2 excluded, its nearest node's first */
	struct ts_cpumask *m = ts_cpumask_alloc(e.t->nr_cpus);
	assert_non_null(m);
	for (int c = 0; c < e.t->nr_cpus; c++)
		if (e.t->cpu[c].node != 2)
			ts_cpumask_set(m, c);
	assert_int_equal(ts_select_near_node(e.s, m, 2, 0, &pl, &err), 0);
	assert_int_equal(pl.cpu, 96);
	/* no node: CPU order */
	assert_int_equal(ts_select_near_node(e.s, m, TS_NUMA_NO_NODE, 0, &pl, &err), 0);
	assert_int_equal(pl.cpu, 0);
	/* bad input */
	ts_cpumask_zero(m);
	assert_int_equal(ts_select_near_node(e.s, m, 2, 0, &pl, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no allowed CPU"));
	struct ts_error err2 = {0};
	assert_int_equal(ts_select_near_node(e.s, NULL, 4, 0, &pl, &err2), -EINVAL);
	assert_non_null(strstr(err2.msg, "node 4 does not exist"));
	ts_cpumask_free(m);
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_near_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
