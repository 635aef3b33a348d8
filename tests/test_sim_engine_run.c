/* The simulation engine (ts_sim_run): determinism, conservation, behaviour that holds for
 * any sane cost model, and input validation. Workloads are described here (not taken from
 * workloads.c), runs are a few virtual milliseconds on small presets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim_machine.h"
#include "toposched/sim.h"

#define US 1000ULL
#define MS 1000000ULL

/* ---- workloads ---- */

/* Ping-pong pairs (netperf TCP_RR-like): the client sends a request and waits for the
 * reply; the server receives, computes, replies. RUN times exponential so that seeds
 * matter. */
static const struct ts_phase pp_client[] = {
	{.kind = TS_PH_RUN, .ns = 2 * US, .dist = TS_DIST_EXPONENTIAL},
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 64, .sync = true, .count_bytes = true},
	{.kind = TS_PH_RECV, .ch = {.chan = 1}},
	{.kind = TS_PH_MARK},
};
static const struct ts_phase pp_server[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}},
	{.kind = TS_PH_RUN, .ns = 3 * US, .dist = TS_DIST_EXPONENTIAL},
	{.kind = TS_PH_SEND, .ch = {.chan = 1}, .bytes = 0, .sync = true, .count_bytes = true},
};
static const uint32_t reply_bytes[] = {64, 4096};
static const uint32_t reply_weight[] = {3, 1};
static const struct ts_task_class pp_classes[] = {
	{.name = "client",
	 .count = 1,
	 .footprint_kib = 64,
	 .phases = pp_client,
	 .nr_phases = 4,
	 .measure_wakeup = true},
	{.name = "server",
	 .count = 1,
	 .footprint_kib = 64,
	 .phases = pp_server,
	 .nr_phases = 3,
	 .measure_wakeup = true},
};
static const struct ts_workload pingpong = {
	.name = "test-pingpong",
	.description = "ping-pong pairs with exponential compute",
	.classes = pp_classes,
	.nr_classes = 2,
	.channels_per_instance = 2,
	.channel_capacity = 65536,
	.reply_mix = {.bytes = reply_bytes, .weight = reply_weight, .n = 2},
	.metric = TS_METRIC_TPS_PER_INSTANCE,
	.metric_name = "tps",
	.unit = "trans/s",
	.load_name = "pairs",
};

/* The pipe ping-pong (perf bench sched pipe): no compute, 1-byte sync messages. */
static const struct ts_phase pipe_a[] = {
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 1, .sync = true},
	{.kind = TS_PH_RECV, .ch = {.chan = 1}},
	{.kind = TS_PH_MARK},
};
static const struct ts_phase pipe_b[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}},
	{.kind = TS_PH_SEND, .ch = {.chan = 1}, .bytes = 1, .sync = true},
};
static const struct ts_task_class pipe_classes[] = {
	{.name = "a", .count = 1, .footprint_kib = 16, .phases = pipe_a, .nr_phases = 3},
	{.name = "b", .count = 1, .footprint_kib = 16, .phases = pipe_b, .nr_phases = 2},
};
static const struct ts_workload pipe = {
	.name = "test-pipe",
	.classes = pipe_classes,
	.nr_classes = 2,
	.channels_per_instance = 2,
	.channel_capacity = 65536,
	.metric = TS_METRIC_US_PER_MARK,
	.load_name = "pairs",
};

/* Many-to-many (hackbench-like): per group NS senders each writing 100-byte messages to
 * the NR receivers in turn, NR receivers each reading its own pipe; a small buffer so that
 * senders block. Time to finish. */
#define HB_S	 4
#define HB_R	 4
#define HB_LOOPS 25
static const struct ts_phase hb_sender[] = {
	{.kind = TS_PH_SEND, .ch = {.chan = 0, .iter_mod = HB_R}, .bytes = 100},
	{.kind = TS_PH_RUN, .ns = 1 * US},
};
static const struct ts_phase hb_receiver[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0, .per_instance = true}},
	{.kind = TS_PH_RUN, .ns = 1 * US},
};
static const struct ts_task_class hb_classes[] = {
	{.name = "sender",
	 .count = HB_S,
	 .footprint_kib = 32,
	 .phases = hb_sender,
	 .nr_phases = 2,
	 .iterations = HB_LOOPS * HB_R},
	{.name = "receiver",
	 .count = HB_R,
	 .footprint_kib = 32,
	 .phases = hb_receiver,
	 .nr_phases = 2,
	 .iterations = HB_LOOPS * HB_S},
};
static const struct ts_workload hackbench = {
	.name = "test-hackbench",
	.classes = hb_classes,
	.nr_classes = 2,
	.channels_per_instance = HB_R,
	.channel_capacity = 1000, /* 10 messages */
	.metric = TS_METRIC_TIME_S,
	.load_name = "groups",
};

/* ---- helpers ---- */

static uint64_t sum_rel(const struct ts_sim_result *r)
{
	uint64_t n = 0;
	for (int i = 0; i < TS_REL_NR; i++)
		n += r->wakeups_by_relation[i];
	return n;
}

static void assert_conserved(const struct ts_sim_result *r)
{
	assert_int_equal(r->messages_sent, r->messages_received + r->messages_queued);
	assert_int_equal(r->busy_ns, r->exec_ns);
	assert_true(r->messages_sent > 0);
	assert_int_equal(sum_rel(r), r->wakeups);
	assert_true(r->cpu_util >= 0 && r->cpu_util <= 1.0 + 1e-9);
}

/* ---- determinism ---- */

static void test_same_seed_identical(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville");
	struct ts_sim_config cfg = sim_config(&m, &pingpong, 6);
	struct ts_sim_result a = sim_run_ok(&cfg), b = sim_run_ok(&cfg);
	a.wall_s = b.wall_s = 0;
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(a.marks > 0);
	assert_true(a.events > 0);

	cfg.seed = 2;
	struct ts_sim_result c = sim_run_ok(&cfg);
	assert_true(c.marks != a.marks || c.metric != a.metric || c.events != a.events);
	machine_free(&m);
}

/* ---- conservation ---- */

static void test_conservation_pingpong(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_config cfg = sim_config(&m, &pingpong, 8);
	cfg.pin = m.node0;
	cfg.warmup_ns = 40 * MS;
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_conserved(&r);
	assert_true(r.finished);
	/* one request in flight per pair: at most one message queued per pair */
	assert_true(r.messages_queued <= 8);
	assert_true(r.marks > 0);
	assert_true(r.metric > 0);
	assert_true(r.busy_ns > 0);
	assert_true(r.wakeup_lat_us[0] > 0);
	assert_true(r.wakeup_lat_us[0] <= r.wakeup_lat_us[1]);
	assert_true(r.wakeup_lat_us[1] <= r.wakeup_lat_us[2]);
	assert_true(r.wakeup_lat_us[2] <= r.wakeup_lat_us[3]);
	/* first the idle machine (2 x the 128-CPU top level's 128 ms balance interval), the
	 * launcher's jitter (under a tick) and the start-up */
	assert_true(r.start_ns >= 256 * MS && r.start_ns < 258 * MS);
	assert_int_equal(r.sim_ns, r.start_ns + 45 * MS);
	machine_free(&m);
}

static void test_conservation_many_to_many(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville");
	struct ts_sim_config cfg = sim_config(&m, &hackbench, 3);
	cfg.duration_ns = 0; /* the default cap */
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_true(r.finished);
	assert_conserved(&r);
	assert_int_equal(r.messages_queued, 0);
	assert_int_equal(r.messages_sent, 3ULL * HB_S * HB_LOOPS * HB_R);
	assert_true(r.metric > 0);
	assert_int_equal((uint64_t)(r.metric * 1e9 + 0.5), r.sim_ns - r.start_ns);
	machine_free(&m);
}

static void test_time_s_cap_not_finished(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville");
	struct ts_sim_config cfg = sim_config(&m, &hackbench, 3);
	cfg.duration_ns = 50 * US; /* far too short */
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_false(r.finished);
	assert_int_equal(r.messages_sent, r.messages_received + r.messages_queued);
	cfg.duration_ns = 0;
	cfg.max_events = 100;
	r = sim_run_ok(&cfg);
	assert_false(r.finished);
	assert_int_equal(r.events, 100);
	machine_free(&m);
}

/* Timers: sleepers wake from their timer (waker = the CPU they slept on, no task). */
static const struct ts_phase sleeper[] = {
	{.kind = TS_PH_SLEEP, .ns = 100 * US},
	{.kind = TS_PH_RUN, .ns = 10 * US},
	{.kind = TS_PH_MARK},
};
static const struct ts_task_class sleeper_class[] = {
	{.name = "sleeper", .count = 4, .phases = sleeper, .nr_phases = 3, .measure_wakeup = true},
};
static const struct ts_workload sleepers = {
	.name = "test-sleepers",
	.classes = sleeper_class,
	.nr_classes = 1,
	.metric = TS_METRIC_WAKEUP_P99_US,
};

static void test_sleep_timers(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville");
	struct ts_sim_config cfg = sim_config(&m, &sleepers, 1);
	struct ts_sim_result r = sim_run_ok(&cfg);
	/* every iteration takes at least 110 us: at most 5 ms / 110 us (+1 in flight) each */
	assert_true(r.marks > 4 * 30 && r.marks <= 4 * (5 * MS / (110 * US) + 1));
	assert_true(r.wakeups >= r.marks - 4);
	assert_int_equal(r.messages_sent, 0);
	assert_true(r.wakeup_lat_us[0] > 0);
	assert_true(r.metric == r.wakeup_lat_us[2]);
	assert_int_equal(r.busy_ns, r.exec_ns);
	assert_true(r.cpu_util > 0 && r.cpu_util < 0.1);
	machine_free(&m);
}

/* ---- behaviour ---- */

/* A single pipe pair on an idle machine with sync wake-ups: every wake-up stays on the
 * waker's CPU or its cluster. */
static void test_pipe_pair_stays_local(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_config cfg = sim_config(&m, &pipe, 1);
	cfg.pin = m.node0;
	/* SIS_UTIL scans nothing until the first LLC-level periodic balance sets
	 * nr_idle_scan (the MC domain's interval is its weight in ms: 32 ms here). */
	cfg.warmup_ns = 40 * MS;
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_true(r.wakeups > 100);
	uint64_t local = r.wakeups_by_relation[TS_REL_SAME_CPU] +
			 r.wakeups_by_relation[TS_REL_SMT] + r.wakeups_by_relation[TS_REL_CLUSTER];
	assert_int_equal(local, r.wakeups);
	assert_true(r.metric > 0);
	assert_conserved(&r);
	machine_free(&m);
}

/* Throughput (transactions of all pairs) grows with pairs up to the CPU count. */
static void test_throughput_grows_with_pairs(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville"); /* 24 CPUs */
	double last = 0;
	const int pairs[] = {1, 2, 4, 8, 12};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct ts_sim_config cfg = sim_config(&m, &pingpong, pairs[i]);
		struct ts_sim_result r = sim_run_ok(&cfg);
		double total = r.metric * pairs[i];
		print_message("pairs %2d: %.0f trans/s, util %.2f\n", pairs[i], total, r.cpu_util);
		assert_true(total > last);
		last = total;
	}
	machine_free(&m);
}

/* Hackbench time grows with groups once the machine is overloaded. */
static void test_time_grows_with_groups(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville"); /* 24 CPUs; a group is 8 tasks */
	double last = 0;
	const int groups[] = {4, 8, 16};
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		struct ts_sim_config cfg = sim_config(&m, &hackbench, groups[i]);
		cfg.duration_ns = 0;
		struct ts_sim_result r = sim_run_ok(&cfg);
		assert_true(r.finished);
		print_message("groups %2d: %.6f s\n", groups[i], r.metric);
		assert_true(r.metric > last);
		last = r.metric;
	}
	machine_free(&m);
}

/* With SIS_UTIL (nr_idle_scan updated by LLC-level periodic balancing), CPUs examined per
 * wake-up fall as the load rises. */
static const struct ts_phase busy_client[] = {
	{.kind = TS_PH_RUN, .ns = 20 * US, .dist = TS_DIST_EXPONENTIAL},
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 64},
	{.kind = TS_PH_RECV, .ch = {.chan = 1}},
	{.kind = TS_PH_MARK},
};
static const struct ts_phase busy_server[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}},
	{.kind = TS_PH_RUN, .ns = 20 * US, .dist = TS_DIST_EXPONENTIAL},
	{.kind = TS_PH_SEND, .ch = {.chan = 1}, .bytes = 64},
};
static const struct ts_task_class busy_classes[] = {
	{.name = "client", .count = 1, .phases = busy_client, .nr_phases = 4},
	{.name = "server", .count = 1, .phases = busy_server, .nr_phases = 3},
};
static const struct ts_workload busy_pairs = {
	.name = "test-busy-pairs",
	.classes = busy_classes,
	.nr_classes = 2,
	.channels_per_instance = 2,
	.metric = TS_METRIC_TPS_PER_INSTANCE,
};

static double examined_per_llc_scan(const struct ts_sim_result *r)
{
	/* sis_scanned counts 1 per select_idle_sibling() call plus 1 per CPU examined */
	return r->sis.domain_search
		       ? (double)(r->sis.scanned - r->sis.search) / (double)r->sis.domain_search
		       : 0;
}

static struct ts_sim_result busy_run(const struct machine *m, int pairs, const char *features)
{
	struct ts_sim_config cfg = sim_config(m, &busy_pairs, pairs);
	cfg.pin = m->node0;	 /* one 32-CPU LLC */
	cfg.warmup_ns = 40 * MS; /* PELT util and nr_idle_scan settle (see above) */
	cfg.duration_ns = 10 * MS;
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse(features, &cfg.features, &err), 0);
	return sim_run_ok(&cfg);
}

/* Below ~70 % utilisation the wakee's prev CPU is mostly idle and few LLC scans run; the
 * CPUs examined per scan peak near 80 % (28 pairs; 24 before wake_affine_weight() used the
 * kernel's task_h_load(), whose root factor load * L / (L + 1) makes wake-ups a little
 * more affine), and from there on SIS_UTIL's budget shrinks with the LLC's utilisation
 * until it scans nothing (by 48 pairs since the switch-in became lat_pipe's, so the loads
 * sampled are 36, 42 and 48). */
static void test_sis_util_scan_falls_with_load(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	const int pairs[] = {36, 42, 48};
	double last_llc = 1e9, per[3];
	for (int i = 0; i < 3; i++) {
		struct ts_sim_result r = busy_run(&m, pairs[i], "");
		assert_true(r.sis.search > 0 && r.sis.domain_search > 0);
		per[i] = (double)r.sis.scanned / (double)r.sis.search;
		double llc = examined_per_llc_scan(&r);
		print_message("pairs %2d (util %.2f): %.2f CPUs examined per wake-up, %.2f per LLC "
			      "scan\n",
			      pairs[i], r.cpu_util, per[i], llc);
		assert_true(llc < last_llc);
		last_llc = llc;
	}
	assert_true(per[2] < per[1]);
	/* Without a budget the overloaded LLC is scanned further. */
	struct ts_sim_result r = busy_run(&m, 48, "NO_SIS_UTIL NO_SIS_PROP");
	assert_true(examined_per_llc_scan(&r) > last_llc);
	machine_free(&m);
}

/* ---- validation ---- */

static void expect_invalid(const struct ts_sim_config *cfg, const char *needle)
{
	struct ts_sim_result r;
	struct ts_error err = {0};
	int rc = ts_sim_run(cfg, &r, &err);
	if (rc >= 0 || !strstr(err.msg, needle))
		print_error("expected '%s', got rc %d: '%s'\n", needle, rc, err.msg);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, needle));
}

static const struct ts_phase spin_only[] = {{.kind = TS_PH_MARK},
					    {.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 1}};
static const struct ts_phase bad_chan[] = {{.kind = TS_PH_RECV, .ch = {.chan = 0, .iter_mod = 3}}};
static const struct ts_phase send0[] = {{.kind = TS_PH_SEND, .ch = {.chan = 0}},
					{.kind = TS_PH_RECV, .ch = {.chan = 0}}};

static void test_validation(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "jacobsville");
	struct ts_sim_config cfg = sim_config(&m, &pingpong, 2);

	expect_invalid(NULL, "no configuration");
	struct ts_sim_config c = cfg;
	c.duration_ns = 0;
	expect_invalid(&c, "duration is zero");
	c = cfg;
	c.load = 0;
	expect_invalid(&c, "load must be at least 1");
	c.load = -3;
	expect_invalid(&c, "load must be at least 1");
	c = cfg;
	c.load = TS_SIM_MAX_TASKS / 2 + 1;
	expect_invalid(&c, "exceed the bound");
	c = cfg;
	c.workload = NULL;
	expect_invalid(&c, "no workload");
	c = cfg;
	c.topo = NULL;
	expect_invalid(&c, "no machine topology");
	c = cfg;
	c.iterations = -1;
	expect_invalid(&c, "negative iterations");

	/* pin masks */
	struct ts_cpumask *empty = ts_cpumask_alloc(m.topo->nr_cpus);
	c = cfg;
	c.pin = empty;
	expect_invalid(&c, "pin mask is empty");
	struct ts_cpumask *beyond = ts_cpumask_alloc(m.topo->nr_cpus + 64);
	ts_cpumask_set(beyond, m.topo->nr_cpus + 3);
	c.pin = beyond;
	expect_invalid(&c, "does not intersect");
	ts_cpumask_free(empty);
	ts_cpumask_free(beyond);

	/* workloads */
	struct ts_task_class cls = {
		.name = "spinner", .count = 1, .phases = spin_only, .nr_phases = 2};
	struct ts_workload w = {.name = "bad",
				.classes = &cls,
				.nr_classes = 1,
				.channels_per_instance = 1,
				.metric = TS_METRIC_TPS_PER_INSTANCE};
	c = cfg;
	c.workload = &w;
	expect_invalid(&c, "without ever blocking or running");

	cls.phases = bad_chan;
	cls.nr_phases = 1;
	expect_invalid(&c, "channel index 2 out of range");

	cls.phases = send0;
	cls.nr_phases = 2;
	expect_invalid(&c, "request size mix");

	cls.phases = NULL;
	expect_invalid(&c, "has no phases");
	cls.phases = pipe_b;
	w.channels_per_instance = 2;
	cls.nice = 40;
	expect_invalid(&c, "nice 40");
	cls.nice = 0;
	cls.count = 0;
	expect_invalid(&c, "has no tasks");
	cls.count = 1;
	w.nr_classes = 0;
	expect_invalid(&c, "no task classes");

	/* TIME_S with nothing that ends */
	struct ts_workload tw = pingpong;
	tw.metric = TS_METRIC_TIME_S;
	c = cfg;
	c.workload = &tw;
	expect_invalid(&c, "no task class has iterations");

	/* a program that only talks to itself is caught at run time */
	static const struct ts_phase self[] = {
		{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 1},
		{.kind = TS_PH_RECV, .ch = {.chan = 0}},
	};
	struct ts_task_class sc = {.name = "self", .count = 1, .phases = self, .nr_phases = 2};
	struct ts_workload sw = {.name = "selfish",
				 .classes = &sc,
				 .nr_classes = 1,
				 .channels_per_instance = 1,
				 .metric = TS_METRIC_TPS_PER_INSTANCE};
	struct ts_cost_model zero = m.costs;
	zero.ctx_switch.value = 0;
	for (int i = 0; i < TS_REL_NR; i++)
		zero.bulk_per_kib[i].value = 0;
	c = cfg;
	c.workload = &sw;
	c.costs = &zero;
	expect_invalid(&c, "without ever using time");
	machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed_identical),
		cmocka_unit_test(test_conservation_pingpong),
		cmocka_unit_test(test_conservation_many_to_many),
		cmocka_unit_test(test_time_s_cap_not_finished),
		cmocka_unit_test(test_sleep_timers),
		cmocka_unit_test(test_pipe_pair_stays_local),
		cmocka_unit_test(test_throughput_grows_with_pairs),
		cmocka_unit_test(test_time_grows_with_groups),
		cmocka_unit_test(test_sis_util_scan_falls_with_load),
		cmocka_unit_test(test_validation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
