/* A run starts as the benchmark does (docs/engine.md, "Start"; docs/workloads.md, "Start"):
 * an idle machine, the launcher forking from the CPU it runs on, the listener forking a
 * server per connection, the start barrier. Whole runs on Kunpeng 920 node 0 (8 clusters of
 * 4 CPUs, pinned as numactl -N 0), where the start decides the mechanism the cluster-first
 * wake-up patch is about:
 *  - fork balancing from a running parent puts each tbench client in another cluster than
 *    the launcher's, and the listener's fork puts its server in yet another: without
 *    SIS_CLUSTER the "prev is idle and shares the LLC" rule keeps the pairs split, so at
 *    1 client every wake-up crosses clusters and at 4 most do; with SIS_CLUSTER the wakee joins its
 *    waker's cluster and every wake-up stays inside one;
 *  - netperf with 16 pairs (half the node) under SIS_CLUSTER: every pair settles in a
 *    cluster of its own half, two per cluster, and nothing migrates (the 3-pair cluster whose
 *    tasks bounced through recent_used_cpu came from the old start);
 *  - the time before the benchmark: the idle pre-phase, twice the 128-CPU top level's
 *    128 ms idle balance interval, then tbench's 100 ms barrier poll;
 *  - tbench's release: with as many tasks as CPUs (16 clients) under SIS_CLUSTER the
 *    clients woken together onto colliding CPUs chase each other through recent_used_cpu
 *    for tens of ms; tbench's own warm-up outlasts that;
 *  - the window waits until busy balancing finds the clusters even;
 *  - a start-up phase outside a prologue is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim_machine.h"

#define MS 1000000ULL

static struct machine kunpeng; /* the group's machine (setup/teardown below) */

static int kunpeng_setup(void **state)
{
	(void)state;
	machine_load(&kunpeng, "kunpeng920");
	return 0;
}

static int kunpeng_teardown(void **state)
{
	(void)state;
	machine_free(&kunpeng);
	return 0;
}

static struct ts_sim_result kunpeng_run(struct machine *m, const char *workload, int load,
					const char *features)
{
	struct ts_sim_config cfg = sim_config(m, ts_workload_find(workload), load);
	cfg.pin = m->node0;
	cfg.warmup_ns = 10 * MS;
	cfg.duration_ns = 20 * MS;
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse(features, &cfg.features, &err), 0);
	struct ts_sim_result r = sim_run_ok(&cfg);
	print_message("%s x%d [%s]: %llu wake-ups, %llu cluster, %llu llc, %llu migrations, "
		      "start %.1f ms, settle %.1f ms\n",
		      workload, load, features, (unsigned long long)r.wakeups,
		      (unsigned long long)r.wakeups_by_relation[TS_REL_CLUSTER],
		      (unsigned long long)r.wakeups_by_relation[TS_REL_LLC],
		      (unsigned long long)r.migrations, (double)r.start_ns / 1e6,
		      (double)r.settle_ns / 1e6);
	assert_true(r.wakeups > 0);
	return r;
}

static void test_tbench_pairs_cross_clusters_without_sis_cluster(void **state)
{
	(void)state;
	for (int clients = 1; clients <= 4; clients *= 4) {
		struct ts_sim_result base =
			kunpeng_run(&kunpeng, "tbench", clients, "NO_SIS_CLUSTER");
		struct ts_sim_result patch =
			kunpeng_run(&kunpeng, "tbench", clients, "SIS_CLUSTER");
		/* one pair: cross-cluster; four: most of them (seed 1 leaves one of the four
		 * in one cluster after the start's moves) */
		if (clients == 1)
			assert_int_equal(base.wakeups_by_relation[TS_REL_LLC], base.wakeups);
		else
			assert_true(base.wakeups_by_relation[TS_REL_LLC] * 3 >= base.wakeups * 2);
		assert_int_equal(patch.wakeups_by_relation[TS_REL_CLUSTER], patch.wakeups);
		assert_int_equal(base.migrations, 0);
		assert_int_equal(patch.migrations, 0);
		/* the idle machine (256 ms), the launcher's jitter, then the barrier's poll */
		assert_true(base.start_ns >= 356 * MS && base.start_ns < 358 * MS);
	}
}

static void test_netperf_16_pairs_do_not_bounce(void **state)
{
	(void)state;
	struct ts_sim_result r = kunpeng_run(&kunpeng, "netperf-tcp-rr", 16, "SIS_CLUSTER");
	assert_int_equal(r.wakeups_by_relation[TS_REL_CLUSTER], r.wakeups);
	assert_int_equal(r.migrations, 0);
	assert_int_equal(r.reasons[TS_PLACE_RECENT], 0);
	/* no barrier: the benchmark starts with the launcher, after the idle machine */
	assert_true(r.start_ns >= 256 * MS && r.start_ns < 258 * MS);
}

/* tbench's release transient (docs/workloads.md, "The release transient"): 16 clients on
 * node 0's 32 CPUs under SIS_CLUSTER, 10 ms windows. After 50 ms some seeds still bounce
 * (thousands of migrations, most placed by the recent_used_cpu rule); after tbench's
 * default warm-up none does. */
static void test_tbench_release_transient_within_warmup(void **state)
{
	(void)state;
	const struct ts_workload *w = ts_workload_find("tbench");
	int churning_early = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct ts_sim_config cfg = sim_config(&kunpeng, w, 16);
		struct ts_error err = {0};
		assert_int_equal(ts_features_parse("SIS_CLUSTER", &cfg.features, &err), 0);
		cfg.pin = kunpeng.node0;
		cfg.seed = seed;
		cfg.duration_ns = 10 * MS;
		cfg.warmup_ns = 50 * MS;
		struct ts_sim_result early = sim_run_ok(&cfg);
		if (early.migrations > 100 && early.reasons[TS_PLACE_RECENT] * 2 > early.migrations)
			churning_early++;
		cfg.warmup_ns = w->default_warmup_ns;
		struct ts_sim_result late = sim_run_ok(&cfg);
		print_message("seed %llu: %llu migrations after 50 ms, %llu after %llu ms\n",
			      (unsigned long long)seed, (unsigned long long)early.migrations,
			      (unsigned long long)late.migrations,
			      (unsigned long long)(w->default_warmup_ns / MS));
		assert_true(late.migrations < 20);
	}
	assert_true(churning_early >= 2);
}

/* The window waits until busy balancing finds the clusters even (docs/engine.md, "The
 * window also waits for busy load balancing"): on 2 clusters of 4 CPUs tbench with 128
 * clients (32 tasks per CPU) leaves the clusters uneven after the release, and the
 * warm-up grows past --warmup until it ends, before its cap of 16 busy MC intervals
 * (16 x 16 ms x busy_factor 16): balanced. Without SIS_UTIL, whose own wait would mix in.
 * With 2 clients every cluster has idle CPUs: no wait. */
static void test_window_waits_for_cluster_balance(void **state)
{
	(void)state;
	struct machine small;
	machine_load(&small, "pack:1 numa:1 l3:1 group:2 core:4 pu:1");
	struct ts_sim_config cfg = sim_config(&small, ts_workload_find("tbench"), 128);
	cfg.warmup_ns = 10 * MS;
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse("NO_SIS_UTIL NO_SIS_CLUSTER", &cfg.features, &err), 0);
	struct ts_sim_result r = sim_run_ok(&cfg);
	print_message("tbench x128 on 2 x 4 CPUs: settle %.1f ms\n", (double)r.settle_ns / 1e6);
	assert_true(r.settle_ns > 0);
	assert_true(r.settle_ns < 16 * 16 * 16 * MS);
	assert_int_equal(r.settle_capped, 0);
	cfg.load = 2;
	r = sim_run_ok(&cfg);
	assert_int_equal(r.settle_ns, 0);
	machine_free(&small);
}

/* Two nodes of 4 CPUs, tbench x 8 (16 tasks, about 8 runnable) on v5.6: its fork rule keeps
 * every child on the launcher's node while that node has an idle CPU, and the clients block
 * at the barrier right after their fork, so the release finds node 0 with twice the tasks
 * of its CPUs and node 1 idle. The window waits until the nodes even out (a node with more
 * tasks than CPUs next to one with fewer), a wait the run reports; pinned to node 0, where
 * there is no other node to fill, it does not wait. */
static void test_window_waits_for_an_idle_node(void **state)
{
	(void)state;
	struct machine two;
	machine_load(&two, "pack:2 numa:1 l3:1 core:4 pu:1");
	struct ts_sim_config cfg = sim_config(&two, ts_workload_find("tbench"), 8);
	struct ts_error err = {0};
	assert_int_equal(ts_kernel_profile_parse("5.6", &cfg.kernel, &err), 0);
	cfg.features = ts_kernel_features_default(&cfg.kernel);
	struct ts_sim_result r = sim_run_ok(&cfg);
	print_message("tbench x8 on 2 nodes x 4 CPUs, v5.6: settle %.1f ms, capped %d\n",
		      (double)r.settle_ns / 1e6, (int)r.settle_capped);
	/* v5.6 has no SIS_UTIL budget and no multi-core groups in an LLC: the node wait only */
	assert_true(r.settle_ns > 0);
	assert_int_equal(r.settle_capped, 0);
	cfg.pin = two.node0;
	r = sim_run_ok(&cfg);
	assert_int_equal(r.settle_ns, 0);
	machine_free(&two);
}

static void test_start_phase_outside_prologue_refused(void **state)
{
	(void)state;
	static const struct ts_phase bad[] = {{.kind = TS_PH_BARRIER},
					      {.kind = TS_PH_RUN, .ns = 1}};
	static const struct ts_task_class cls[] = {
		{.name = "x", .count = 1, .phases = bad, .nr_phases = 2}};
	struct ts_workload w = {.name = "bad-start",
				.classes = cls,
				.nr_classes = 1,
				.metric = TS_METRIC_TPS_PER_INSTANCE,
				.metric_name = "tps",
				.unit = "ops/s",
				.load_name = "x"};
	struct ts_sim_config cfg = sim_config(&kunpeng, &w, 1);
	struct ts_sim_result r;
	struct ts_error err = {0};
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "prologue"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tbench_pairs_cross_clusters_without_sis_cluster),
		cmocka_unit_test(test_netperf_16_pairs_do_not_bounce),
		cmocka_unit_test(test_tbench_release_transient_within_warmup),
		cmocka_unit_test(test_window_waits_for_cluster_balance),
		cmocka_unit_test(test_window_waits_for_an_idle_node),
		cmocka_unit_test(test_start_phase_outside_prologue_refused),
	};
	return cmocka_run_group_tests(tests, kunpeng_setup, kunpeng_teardown);
}
