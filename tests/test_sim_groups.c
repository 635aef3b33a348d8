/* Task groups in the simulator: the --groups-spec parser (good specs and every error with
 * its exact message), the tg_layout= token of a --compare string, runs with groups (a
 * 1024:2048 pair of groups of CPU-bound tasks on one CPU splits it 1:2; packed load_avg
 * shows more line transfers than aligned in the same run (free transfers, so that the
 * layout cannot change the schedule); per-node counters are never written from another
 * node; without the rate limit nothing is skipped by it), who executes a wake-up's
 * activation in whole runs (the ttwu_queue_cond() rule: line transfers only where the
 * waker activates a busy same-LLC target), byte-
 * identical JSON for the same seed whatever the number of jobs, the hierarchy dump, and
 * the CLI's bad-input cases (exit 2, one error line, nothing on stdout). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exp_report.h"
#include "sim/groups_run.h"
#include "sim_machine.h"
#include "test_support.h"
#include "toposched/experiment.h"
#include "toposched/sim.h"
#include "toposched/sim_groups.h"

#define US 1000ULL
#define MS 1000000ULL

/* ---- the parser ---- */

static void parse_ok(const char *text, const char *workload, struct ts_groups_spec *s)
{
	struct ts_error err = {0};
	const struct ts_workload *w = workload ? ts_workload_find(workload) : NULL;
	if (ts_groups_spec_parse(text, w, s, &err))
		fail_msg("'%s': %s", text, err.msg);
	assert_string_equal(s->text, text);
}

static void parse_bad(const char *text, const char *workload, const char *msg)
{
	struct ts_groups_spec s;
	struct ts_error err = {0};
	const struct ts_workload *w = workload ? ts_workload_find(workload) : NULL;
	int rc = ts_groups_spec_parse(text, w, &s, &err);
	if (rc != -EINVAL || strcmp(err.msg, msg) != 0)
		fail_msg("'%s': rc %d, message\n  [%s]\nwant\n  [%s]", text, rc, err.msg, msg);
}

static void test_parse_good(void **state)
{
	(void)state;
	struct ts_groups_spec s;
	parse_ok("app=all", "pipe", &s);
	assert_int_equal(s.nr_nodes, 1);
	assert_string_equal(s.node[0].name, "app");
	assert_int_equal(s.node[0].parent, -1);
	assert_int_equal(s.node[0].shares, 1024);
	assert_false(s.node[0].shares_given);
	assert_false(s.node[0].per_instance);
	assert_int_equal(s.nr_entries, 1);
	assert_int_equal(s.entry[0].who, TS_GROUPS_ALL);
	assert_int_equal(s.entry[0].node, 0);

	parse_ok("app:2048/client:512=class:netperf,app/server=class:netserver", "netperf-udp-rr",
		 &s);
	assert_int_equal(s.nr_nodes, 3);
	assert_int_equal(s.node[0].shares, 2048);
	assert_true(s.node[0].shares_given);
	assert_string_equal(s.node[1].name, "client");
	assert_int_equal(s.node[1].parent, 0);
	assert_int_equal(s.node[1].shares, 512);
	assert_string_equal(s.node[2].name, "server");
	assert_int_equal(s.node[2].parent, 0);
	assert_int_equal(s.node[2].shares, 1024);
	assert_int_equal(s.nr_entries, 2);
	assert_int_equal(s.entry[0].who, TS_GROUPS_CLASS);
	assert_string_equal(s.entry[0].class_name, "netperf");
	assert_int_equal(s.entry[0].node, 1);
	assert_string_equal(s.entry[1].class_name, "netserver");
	assert_int_equal(s.entry[1].node, 2);

	parse_ok("box:300/pair:100=instance", "pipe", &s);
	assert_int_equal(s.nr_nodes, 2);
	assert_true(s.node[1].per_instance);
	assert_false(s.node[0].per_instance);
	assert_int_equal(s.node[1].shares, 100);
	assert_int_equal(s.entry[0].who, TS_GROUPS_INSTANCE);
	assert_int_equal(s.entry[0].node, 1);

	/* shares given at a later mention; the limits are allowed */
	parse_ok("x/y:2=class:a,x:262144/z=class:b", "pipe", &s);
	assert_int_equal(s.node[0].shares, 262144);
	assert_int_equal(s.node[1].shares, 2);
	assert_int_equal(s.node[2].parent, 0);
	/* without a workload, class names are not checked (the engine checks them) */
	parse_ok("g.1-x_y=class:anything", NULL, &s);
	parse_ok("a/b/c/d/e/f/g/h=all", NULL, &s);
	assert_int_equal(s.nr_nodes, 8);
	assert_int_equal(s.node[7].parent, 6);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_bad("", NULL, "empty (expected PATH=WHO, e.g. app:1024=all)");
	parse_bad("app", NULL, "'app': expected PATH=WHO (e.g. app:1024=all)");
	parse_bad("=all", NULL, "'=all': expected PATH=WHO (e.g. app:1024=all)");
	parse_bad("app=everyone", NULL,
		  "'app=everyone': 'everyone' is not all, instance or class:NAME");
	parse_bad("app=class:", NULL, "'app=class:': 'class:' is not all, instance or class:NAME");
	parse_bad("app:0=all", NULL,
		  "shares '0' of group 'app' in 'app:0=all': not an integer from 2 to 262144");
	parse_bad("app:1k=all", NULL,
		  "shares '1k' of group 'app' in 'app:1k=all': not an integer from 2 to 262144");
	parse_bad("app:262145=all", NULL,
		  "shares '262145' of group 'app' in 'app:262145=all': not an integer from 2 to "
		  "262144");
	parse_bad("app:=all", NULL,
		  "shares '' of group 'app' in 'app:=all': not an integer from 2 to 262144");
	parse_bad("a b=all", NULL,
		  "group name 'a b' in 'a b=all': 1 to 31 letters, digits or '_-.'");
	parse_bad(":100=all", NULL,
		  "group name '' in ':100=all': 1 to 31 letters, digits or '_-.'");
	parse_bad("abcdefghijklmnopqrstuvwxyz012345=all", NULL,
		  "group name 'abcdefghijklmnopqrstuvwxyz012345' in "
		  "'abcdefghijklmnopqrstuvwxyz012345=all': 1 to 31 letters, digits or '_-.'");
	parse_bad("abcdefghijklmnopqrstuvwxyz0=instance", NULL,
		  "group name 'abcdefghijklmnopqrstuvwxyz0' in "
		  "'abcdefghijklmnopqrstuvwxyz0=instance': 1 to 26 letters, digits or '_-.' (a "
		  "per-instance name leaves room for the number)");
	parse_bad("a//b=all", NULL, "'a//b=all': empty group name in the path");
	parse_bad("a/=all", NULL, "'a/=all': empty group name in the path");
	parse_bad("a/b/c/d/e/f/g/h/i=all", NULL, "'a/b/c/d/e/f/g/h/i=all': deeper than 8 levels");
	parse_bad("app=all,,x=all", NULL, "empty entry 2 (entries are separated by single commas)");
	parse_bad("app=all,", NULL, "empty entry 2 (entries are separated by single commas)");
	parse_bad("a=all,b=class:a", "pipe", "'a=all' and 'b=class:a' both select the same tasks");
	parse_bad("a=class:a,b=instance", "pipe",
		  "'a=class:a' and 'b=instance' both select the same tasks");
	parse_bad("a=class:b,x/b=class:b", "pipe",
		  "'a=class:b' and 'x/b=class:b' both select the tasks of one class");
	parse_bad("a=class:zz", "pipe",
		  "'a=class:zz': workload 'pipe' has no class 'zz' (its classes: a, b)");
	parse_bad("x:100/a=class:a,x:200/b=class:b", "pipe",
		  "group 'x' in 'x:200/b=class:b': shares 200, but 100 before");
	parse_bad("p=instance,p/q=class:a", "pipe",
		  "group 'p' in 'p/q=class:a': a per-instance group (=instance) cannot be named "
		  "again or have children");
	parse_bad("p/q=class:a,p=instance", "pipe",
		  "'p=instance': group 'p' is named elsewhere too, so it cannot be per-instance");
	char longspec[600];
	memset(longspec, 'a', sizeof(longspec) - 1);
	longspec[sizeof(longspec) - 1] = '\0';
	parse_bad(longspec, NULL, "longer than 511 characters");
}

static void test_layout_token(void **state)
{
	(void)state;
	char rest[128];
	enum ts_tg_layout l = TS_TG_ALIGNED;
	bool given = true;
	struct ts_error err = {0};
	assert_int_equal(ts_tg_layout_take("SIS_PROP tg_layout=packed,NO_SIS_UTIL", rest,
					   sizeof(rest), &l, &given, &err),
			 0);
	assert_string_equal(rest, "SIS_PROP                 ,NO_SIS_UTIL");
	assert_int_equal(l, TS_TG_PACKED);
	assert_true(given);
	assert_int_equal(
		ts_tg_layout_take("tg_layout=per-node", rest, sizeof(rest), &l, &given, &err), 0);
	assert_string_equal(rest, "                  ");
	assert_int_equal(l, TS_TG_PER_NODE);
	l = TS_TG_PACKED;
	assert_int_equal(
		ts_tg_layout_take("  NO_TG_LOAD_RATELIMIT ", rest, sizeof(rest), &l, &given, &err),
		0);
	assert_false(given);
	assert_int_equal(l, TS_TG_PACKED); /* untouched */
	assert_string_equal(rest, "  NO_TG_LOAD_RATELIMIT ");
	assert_int_equal(ts_tg_layout_take("tg_layout=foo", rest, sizeof(rest), &l, &given, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "task group layout 'foo': expected " TS_TG_LAYOUT_NAMES
				     " (or the old names aligned = isolated, packed = v4.4)");
	ts_error_clear(&err);
	assert_int_equal(ts_tg_layout_take("A tg_layout=", rest, sizeof(rest), &l, &given, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "'tg_layout=': expected " TS_TG_LAYOUT_NAMES);
	ts_error_clear(&err);
	assert_int_equal(ts_tg_layout_take("SIS_PROP SIS_UTIL", rest, 8, &l, &given, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "the features are too long");
}

/* ---- runs ---- */

/* CPU-bound tasks: 5 ms of work, counted, forever. */
static const struct ts_phase spin[] = {
	{.kind = TS_PH_RUN, .ns = 5 * MS},
	{.kind = TS_PH_MARK},
};
static const struct ts_task_class spin_classes[] = {
	{.name = "lo", .count = 2, .phases = spin, .nr_phases = 2},
	{.name = "hi", .count = 2, .phases = spin, .nr_phases = 2},
};
static const struct ts_workload spinners = {
	.name = "test-spin",
	.classes = spin_classes,
	.nr_classes = 2,
	.metric = TS_METRIC_TPS_PER_INSTANCE,
	.metric_name = "tps",
	.unit = "ops/s",
	.load_name = "instances",
};

static void test_shares_split_one_cpu(void **state)
{
	(void)state;
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load("synthetic:pack:1 core:1 pu:1", &t, &err), 0);
	struct ts_groups_spec spec;
	assert_int_equal(
		ts_groups_spec_parse("lo:1024=class:lo,hi:2048=class:hi", &spinners, &spec, &err),
		0);
	struct ts_sim_config cfg = {
		.topo = t,
		.features = ts_features_default(),
		.workload = &spinners,
		.load = 1,
		.duration_ns = 3000 * MS,
		.warmup_ns = 200 * MS,
		.seed = 3,
		.groups = &spec,
		.no_background = true, /* no kworker: every task in a group */
	};
	struct ts_sim_result r;
	if (ts_sim_run(&cfg, &r, &err))
		fail_msg("run: %s", err.msg);
	const struct ts_sim_tg_result *g = &r.tg;
	assert_true(g->enabled);
	assert_int_equal(g->nr_top, 2);
	assert_string_equal(g->top_name[0], "lo");
	assert_string_equal(g->top_name[1], "hi");
	assert_int_equal(g->root_exec_ns, 0);
	assert_int_equal(g->window_ns, 3000 * MS);
	assert_int_equal(ts_sim_tg_exec_ns(g), r.exec_ns);
	double ratio = (double)g->top_exec_ns[1] / (double)g->top_exec_ns[0];
	print_message("hi/lo CPU time %.4f (%llu / %llu ns)\n", ratio,
		      (unsigned long long)g->top_exec_ns[1], (unsigned long long)g->top_exec_ns[0]);
	assert_true(ratio > 2.0 * 0.98 && ratio < 2.0 * 1.02);
	/* one CPU: every line access is by CPU 0, so nothing is ever transferred */
	/* a steady load: calc_group_shares() reads load_avg every tick, and every update of
	 * it is stopped by the 1/64 filter */
	assert_int_equal(g->load_avg_reads, 3000); /* 1 group entity running x 3000 ticks */
	assert_int_equal(g->load_avg_writes, 0);
	assert_true(g->skipped_filter > 0);
	assert_int_equal(ts_sim_tg_line_misses(g), 0);
	assert_true(g->stall_ns == 0);
	ts_topology_free(t);
}

/* icelake-2s and the named workload, with the groups spec text parsed for it. */
static const struct ts_workload *icelake_with_groups(struct machine *m, const char *workload,
						     const char *text, struct ts_groups_spec *spec)
{
	machine_load(m, "icelake-2s");
	const struct ts_workload *w = ts_workload_find(workload);
	struct ts_error err = {0};
	assert_int_equal(ts_groups_spec_parse(text, w, spec, &err), 0);
	return w;
}

/* A workload in one group on a two-socket machine. free_lines: every c2c tier 0, so
 * that line stalls cost nothing and the layout cannot change the schedule: the runs of
 * two layouts are then the same run, access for access. */
static void group_run(const char *workload, int load, enum ts_tg_layout layout,
		      const char *features, bool free_lines, struct ts_sim_result *r)
{
	struct machine m;
	struct ts_groups_spec spec;
	const struct ts_workload *w = icelake_with_groups(&m, workload, "app=all", &spec);
	assert_non_null(w);
	struct ts_error err = {0};
	struct ts_features f = ts_features_default();
	if (features)
		assert_int_equal(ts_features_parse(features, &f, &err), 0);
	static const char *const zero[] = {"c2c.smt=0",	 "c2c.cluster=0", "c2c.llc=0",
					   "c2c.node=0", "c2c.package=0", "c2c.remote=0"};
	for (size_t i = 0; free_lines && i < sizeof(zero) / sizeof(zero[0]); i++)
		assert_int_equal(ts_cost_model_set(&m.costs, zero[i], &err), 0);
	struct ts_sim_config cfg = {
		.topo = m.topo,
		.costs = &m.costs,
		.features = f,
		.workload = w,
		.load = load,
		.iterations = 20, /* hackbench loops */
		.duration_ns = 3 * MS,
		.warmup_ns = 1 * MS,
		.seed = 11,
		.groups = &spec,
		.tg_layout = layout,
	};
	if (ts_sim_run(&cfg, r, &err))
		fail_msg("run: %s", err.msg);
	machine_free(&m);
}

/* The same run under both layouts: packed puts load_avg in the line that set_task_rq(),
 * h_load and the blocked-load walk read, so every such read after a write elsewhere is
 * one more transfer; aligned keeps that line clean. */
static void test_packed_more_transfers_same_run(void **state)
{
	(void)state;
	/* pairs: the wakee's activation runs where the pair lives, and the read-mostly reads
	 * of set_task_rq()/h_load come between other CPUs' writes. hackbench's senders
	 * activate their receivers on the receivers' busy queues themselves (same LLC,
	 * ttwu_queue_cond() false), right after their own load_avg accesses: there the
	 * packed line's extra misses are offset (759 vs 793 transfers), so only the
	 * "same run" part is checked. */
	static const struct {
		const char *workload;
		int load;
		bool pairs;
	} runs[] = {{"pipe", 24, true}, {"hackbench", 2, false}, {"netperf-udp-rr", 24, true}};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct ts_sim_result packed, aligned;
		group_run(runs[i].workload, runs[i].load, TS_TG_PACKED, NULL, true, &packed);
		group_run(runs[i].workload, runs[i].load, TS_TG_ALIGNED, NULL, true, &aligned);
		uint64_t mp = ts_sim_tg_line_misses(&packed.tg),
			 ma = ts_sim_tg_line_misses(&aligned.tg);
		print_message("%s: line transfers packed %llu, aligned %llu\n", runs[i].workload,
			      (unsigned long long)mp, (unsigned long long)ma);
		/* the same run: same events, same accesses */
		assert_int_equal(packed.events, aligned.events);
		assert_int_equal(packed.tg.line_reads, aligned.tg.line_reads);
		assert_int_equal(packed.tg.line_writes, aligned.tg.line_writes);
		assert_true(packed.tg.stall_ns == 0 && aligned.tg.stall_ns == 0);
		if (runs[i].pairs)
			assert_true(mp > ma);
	}
}

static void test_layouts(void **state)
{
	(void)state;
	struct ts_sim_result packed, aligned, per_node, no_rl;
	group_run("pipe", 24, TS_TG_PACKED, NULL, false, &packed);
	group_run("pipe", 24, TS_TG_ALIGNED, NULL, false, &aligned);
	group_run("pipe", 24, TS_TG_PER_NODE, NULL, false, &per_node);
	group_run("pipe", 24, TS_TG_ALIGNED, "NO_TG_LOAD_RATELIMIT", false, &no_rl);
	assert_true(ts_sim_tg_line_misses(&aligned.tg) > 0);
	assert_true(packed.tg.stall_ns > 0 && aligned.tg.stall_ns > 0);
	/* every access is a line read or the one write of a load_avg update */
	assert_int_equal(aligned.tg.line_writes, aligned.tg.load_avg_writes);
	assert_true(aligned.tg.line_reads >= aligned.tg.load_avg_reads);
	/* one load_avg line written from both sockets */
	assert_true(aligned.tg.remote_node_writes > 0);
	/* per-node: a node's counter is the rq's node's, so only a CPU working on another
	 * node's queue (a balancing pull across nodes, CPU 0 forking) writes it from afar */
	assert_true(per_node.tg.load_avg_writes > 0);
	assert_true(per_node.tg.remote_node_writes < aligned.tg.remote_node_writes);
	/* per-node: calc_group_shares() reads both nodes' lines */
	assert_true(per_node.tg.line_reads > per_node.tg.load_avg_reads);
	/* without the rate limit, nothing is skipped by it */
	assert_int_equal(no_rl.tg.skipped_ratelimit, 0);
	/* the same run twice: the same figures */
	struct ts_sim_result again;
	group_run("pipe", 24, TS_TG_PACKED, NULL, false, &again);
	assert_int_equal(again.events, packed.events);
	assert_int_equal(ts_sim_tg_line_misses(&again.tg), ts_sim_tg_line_misses(&packed.tg));
	assert_true(again.tg.stall_ns == packed.tg.stall_ns);
	assert_true(again.metric == packed.metric);
}

/* ---- who executes a wake-up's activation, seen through whole runs ---- */

/* a (root group): works 500 us, wakes b through channel 0 (a plain SEND: no WF_SYNC),
 * waits for b's reply on channel 1; b (group g): receives, works 500 us, replies, counts
 * one mark. s (root group): CPU hogs, two of them or none. */
static const struct ts_phase exec_a[] = {
	{.kind = TS_PH_RUN, .ns = 500 * US},
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 64},
	{.kind = TS_PH_RECV, .ch = {.chan = 1}},
};
static const struct ts_phase exec_b[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}},
	{.kind = TS_PH_RUN, .ns = 500 * US},
	{.kind = TS_PH_SEND, .ch = {.chan = 1}, .bytes = 64},
	{.kind = TS_PH_MARK},
};
static const struct ts_phase exec_s[] = {
	{.kind = TS_PH_RUN, .ns = 50 * MS},
};
static const struct ts_task_class exec_classes[] = {
	{.name = "a", .count = 1, .phases = exec_a, .nr_phases = 3},
	{.name = "b", .count = 1, .phases = exec_b, .nr_phases = 4},
	{.name = "s", .count = 2, .phases = exec_s, .nr_phases = 1},
};

/* One run of a and b (with the hogs when `hogs`) on a two-CPU synthetic machine, b alone
 * in group g. NO_WA_IDLE NO_WA_WEIGHT: wake_affine() never picks the waker's CPU, so a
 * wakee goes back to its previous CPU (select_idle_sibling() finds no other idle CPU
 * there, or none in its one-CPU LLC), and the two machines place every wake-up alike.
 * The costs are one model for both machines with the relation-dependent tiers made
 * topology-blind: every c2c tier 0 (line transfers are counted but free, the wake-up
 * IPI costs the same), the NODE tiers of bulk copies and cache refills equal to the LLC
 * ones, no scan cost. What the runs do is then the same on both machines, access for
 * access; only who is in whose LLC differs. */
static void exec_run(const char *machine, bool hogs, struct ts_sim_result *r)
{
	struct ts_workload w = {
		.name = "test-ttwu-exec",
		.classes = exec_classes,
		.nr_classes = hogs ? 3 : 2,
		.channels_per_instance = 2,
		.channel_capacity = 1 << 20,
		.metric = TS_METRIC_TPS_PER_INSTANCE,
		.metric_name = "tps",
		.unit = "ops/s",
		.load_name = "instances",
	};
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load(machine, &t, &err), 0);
	struct ts_cost_model costs;
	assert_int_equal(ts_cost_model_for(t, machine, &costs, &err), 0);
	static const char *const flat[] = {"c2c.same_cpu=0",
					   "c2c.smt=0",
					   "c2c.cluster=0",
					   "c2c.llc=0",
					   "c2c.node=0",
					   "c2c.package=0",
					   "c2c.remote=0",
					   "scan_per_cpu.same_cpu=0",
					   "scan_per_cpu.smt=0",
					   "scan_per_cpu.cluster=0",
					   "scan_per_cpu.llc=0",
					   "scan_per_cpu.node=0",
					   "scan_per_cpu.package=0",
					   "scan_per_cpu.remote=0"};
	for (size_t i = 0; i < sizeof(flat) / sizeof(flat[0]); i++)
		assert_int_equal(ts_cost_model_set(&costs, flat[i], &err), 0);
	costs.bulk_per_kib[TS_REL_NODE] = costs.bulk_per_kib[TS_REL_LLC];
	costs.refill[TS_REL_NODE] = costs.refill[TS_REL_LLC];
	/* the wake-up hand-off and the waker's enqueue depend on the relation too */
	costs.handoff[TS_REL_NODE] = costs.handoff[TS_REL_LLC];
	for (int rel = 0; rel < TS_REL_NR; rel++)
		costs.wake_enqueue[rel].value = 0;
	struct ts_groups_spec spec;
	assert_int_equal(ts_groups_spec_parse("g=class:b", &w, &spec, &err), 0);
	struct ts_features f = ts_features_default();
	assert_int_equal(ts_features_parse("NO_WA_IDLE NO_WA_WEIGHT", &f, &err), 0);
	struct ts_sim_config cfg = {
		.topo = t,
		.costs = &costs,
		.features = f,
		.workload = &w,
		.load = 1,
		.duration_ns = 100 * MS,
		/* past the one-LLC machine's first busy LLC balance (4 ms x busy_factor 16):
		 * neither run's window then waits for SIS_UTIL (the two-LLC machine has no
		 * LLC domain), so both open at the same point of the same run */
		.warmup_ns = 70 * MS,
		.seed = 1,
		.groups = &spec,
	};
	if (ts_sim_run(&cfg, r, &err))
		fail_msg("run: %s", err.msg);
	const struct ts_sim_tg_result *g = &r->tg;
	print_message("%s%s: %llu wake-ups (%llu to another CPU), line reads %llu writes %llu, "
		      "misses same-LLC %llu other-LLC %llu\n",
		      machine, hogs ? " with hogs" : "", (unsigned long long)r->wakeups,
		      (unsigned long long)(r->wakeups - r->wakeups_by_relation[TS_REL_SAME_CPU]),
		      (unsigned long long)g->line_reads, (unsigned long long)g->line_writes,
		      (unsigned long long)g->line_misses[TS_REL_LLC],
		      (unsigned long long)g->line_misses[TS_REL_NODE]);
	ts_topology_free(t);
}

/* The ttwu_queue_cond() rule (the core's ts_ttwu_activate_cpu(), whose cases
 * test_ttwu_queue.c checks) seen in whole runs. The sequence:
 * a and b sit on different CPUs (asserted below: every wake-up goes to the other CPU),
 * and nothing moves them (NO_WA_*; with the hogs, one hog per CPU keeps the loads even).
 * Group g's lines are touched only for b: by its activation when a wakes it (enqueue:
 * update_tg_load_avg(), calc_group_shares()), and on b's own CPU by its dequeue, the
 * ticks while it runs and the blocked-load walk. a's wake-ups by b touch no g line (a
 * is in the root group), and a's CPU walks no g cfs_rq of its own (b never runs there:
 * the runs without transfers below show that no other access comes from a's CPU).
 * So b's CPU is the only one to touch g's lines, except for whichever CPU executes b's
 * activation:
 *  - with the hogs, b's CPU is busy when a wakes b (its hog runs: nr_running 1):
 *     * one LLC ("l3:1 core:2"): cpus_share_cache() and a busy target: the waker, a's
 *       CPU, activates b on the remote queue itself, so g's lines move between the two
 *       CPUs: transfers, all at relation LLC;
 *     * two LLCs ("l3:2 core:1"): the wakelist, b's CPU runs the activation: one CPU
 *       touches every line, no transfer at all;
 *  - without the hogs, b's CPU is idle when a wakes b: the target runs the activation
 *    even in one LLC, so no transfer either.
 * The two machines' hog runs are the same run (same events, same accesses): only the
 * attribution differs, so the transfers come from the rule alone. A rule that always
 * answered the target would give no transfer in the one-LLC hog run; one that always
 * answered the waker would give transfers in the other two. */
static void test_ttwu_executor_runs(void **state)
{
	(void)state;
	static const char one_llc[] = "synthetic:pack:1 l3:1 core:2 pu:1";
	static const char two_llc[] = "synthetic:pack:1 l3:2 core:1 pu:1";
	struct ts_sim_result busy1, busy2, idle1;
	exec_run(one_llc, true, &busy1);
	exec_run(two_llc, true, &busy2);
	exec_run(one_llc, false, &idle1);
	/* the sequence above: every wake-up (a's of b, b's of a) goes to the other CPU */
	assert_true(busy1.wakeups > 0 && idle1.wakeups > 0);
	assert_int_equal(busy1.wakeups_by_relation[TS_REL_LLC], busy1.wakeups);
	assert_int_equal(busy2.wakeups_by_relation[TS_REL_NODE], busy2.wakeups);
	assert_int_equal(idle1.wakeups_by_relation[TS_REL_LLC], idle1.wakeups);
	assert_int_equal(busy1.tg.nr_top, 1);
	/* the two hog runs are one run, access for access (not tick for tick: the idle
	 * machine before the start lasts twice the LLC's balance interval, and an LLC of
	 * one CPU has no domain) */
	assert_int_equal(busy1.marks, busy2.marks);
	assert_int_equal(busy1.wakeups, busy2.wakeups);
	assert_int_equal(busy1.tg.line_reads, busy2.tg.line_reads);
	assert_int_equal(busy1.tg.line_writes, busy2.tg.line_writes);
	assert_true(busy1.tg.line_reads > 0 && busy1.tg.line_writes > 0);
	/* one LLC, busy target: the waker executes, g's lines travel between the CPUs.
	 * Between two of b's activations each of g's two lines (aligned layout) changes
	 * hands at most twice towards a's CPU (a read, then the write's invalidation) and
	 * twice back: at most 8 transfers per wake-up of b (half of the wake-ups) */
	uint64_t m1 = ts_sim_tg_line_misses(&busy1.tg);
	assert_true(busy1.tg.line_misses[TS_REL_LLC] > 0);
	assert_int_equal(m1, busy1.tg.line_misses[TS_REL_LLC]);
	assert_true(m1 <= 8 * (busy1.wakeups / 2 + 1));
	assert_true(busy1.tg.stall_ns == 0); /* free transfers: the schedule cannot notice */
	/* two LLCs, busy target: the target executes, one CPU holds every line */
	assert_int_equal(ts_sim_tg_line_misses(&busy2.tg), 0);
	/* one LLC, idle target: the target executes */
	assert_true(idle1.tg.line_reads > 0);
	assert_int_equal(ts_sim_tg_line_misses(&idle1.tg), 0);
}

static void test_no_groups_no_block(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "icelake-2s");
	struct ts_sim_config cfg = {
		.topo = m.topo,
		.costs = &m.costs,
		.features = ts_features_default(),
		.workload = ts_workload_find("pipe"),
		.load = 2,
		.duration_ns = 1 * MS,
		.seed = 1,
	};
	struct ts_sim_result r;
	struct ts_error err = {0};
	assert_int_equal(ts_sim_run(&cfg, &r, &err), 0);
	assert_false(r.tg.enabled);
	assert_int_equal(r.tg.load_avg_writes + r.tg.line_reads + r.tg.line_writes, 0);
	/* an unknown class (the spec parsed without the workload) fails the run */
	struct ts_groups_spec spec;
	assert_int_equal(ts_groups_spec_parse("g=class:zz", NULL, &spec, &err), 0);
	cfg.groups = &spec;
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "sim: groups spec 'g=class:zz': workload 'pipe' has no class 'zz'");
	ts_error_clear(&err);
	cfg.groups = NULL;
	cfg.tg_layout = TS_TG_LAYOUT_NR;
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "sim: unknown task-group layout 5"); /* TS_TG_LAYOUT_NR */
	machine_free(&m);
}

static void test_json_deterministic(void **state)
{
	(void)state;
	struct machine m;
	struct ts_groups_spec spec;
	const struct ts_workload *w =
		icelake_with_groups(&m, "netperf-udp-rr", "net:2048/p=instance", &spec);
	struct ts_error err = {0};
	struct ts_exp_config configs[2] = {
		{.name = "packed", .features_text = "tg_layout=packed", .tg_layout = TS_TG_PACKED},
		{.name = "aligned", .features_text = "", .tg_layout = TS_TG_ALIGNED},
	};
	configs[0].features = configs[1].features = ts_features_default();
	static const int loads[] = {2, 9};
	char *ref = NULL;
	for (int jobs = 1; jobs <= 2; jobs++) {
		struct ts_experiment e = {
			.base = {.topo = m.topo,
				 .costs = &m.costs,
				 .workload = w,
				 .duration_ns = 1 * MS,
				 .warmup_ns = 1 * MS,
				 .groups = &spec},
			.seed = 5,
			.configs = configs,
			.nr_configs = 2,
			.loads = loads,
			.nr_loads = 2,
			.iterations = 2,
			.jobs = jobs,
		};
		assert_int_equal(ts_experiment_run(&e, &err), 0);
		char *j = exp_report(&e, ts_exp_write_json);
		if (!ref) {
			ref = j;
			assert_int_equal(
				count_substr(j, "\"groups_spec\": \"net:2048/p=instance\""), 1);
			assert_int_equal(count_substr(j, "\"tg_layout\": \"v4.4\""), 1);
			assert_int_equal(count_substr(j, "\"tg_layout\": \"isolated\""), 1);
			assert_int_equal(count_substr(j, "\"task_groups\": {"), 4);
			assert_int_equal(count_substr(j, "\"line_misses\": {"), 4);
			assert_int_equal(count_substr(j, "\"group\": \"net\""), 4);
			assert_int_equal(count_substr(j, "\"group\": \"(root)\", \"share\": 0"), 0);
			const struct ts_exp_point *p = ts_experiment_point(&e, 0, 1);
			assert_true(p->stats.tg.enabled);
			assert_int_equal(p->stats.tg.nr_top, 1);
			assert_int_equal(p->stats.tg.window_ns, 2 * MS); /* 2 iterations */
			assert_true(p->stats.tg.load_avg_reads > 0);
		} else {
			assert_string_equal(j, ref);
			free(j);
		}
		ts_experiment_free(&e);
	}
	free(ref);
	machine_free(&m);
}

static void test_dump(void **state)
{
	(void)state;
	struct machine m;
	struct ts_groups_spec spec;
	const struct ts_workload *w =
		icelake_with_groups(&m, "netperf-udp-rr", "app:2048/cl:512=class:netperf", &spec);
	struct ts_error err = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ts_groups_spec_dump(&spec, m.topo, ts_features_default(), TS_TG_PACKED, w,
					     3, f, &err),
			 0);
	fclose(f);
	assert_string_equal(buf,
			    "task groups 'app:2048/cl:512=class:netperf': netperf-udp-rr, 3 pairs "
			    "(6 tasks), layout v4.4\n"
			    "/ shares=1024 parent=- layout=v4.4 load_avg=0\n"
			    "  app shares=2048 parent=/ layout=v4.4 load_avg=0\n"
			    "    cl shares=512 parent=app layout=v4.4 load_avg=0\n"
			    "tasks per group:\n"
			    "  / 3 tasks\n"
			    "    app 0 tasks\n"
			    "      cl 3 tasks\n");
	free(buf);
	machine_free(&m);
}

/* ---- the CLI ---- */

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define PIPE_ARGS "sim", "--machine", "icelake-2s", "--workload", "pipe", "--pairs", "2"

static void cli_bad(const char *const *args, const char *msg)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	char want[600];
	snprintf(want, sizeof(want), "toposched sim: error: %s\n", msg);
	if (r.status != 2 || r.out[0] || strcmp(r.err, want) != 0) {
		print_message("exit %d, stdout %zu bytes, stderr:\n%swant:\n%s", r.status,
			      strlen(r.out), r.err, want);
		run_free(&r);
		fail();
	}
	run_free(&r);
}

static void test_cli_bad_input(void **state)
{
	(void)state;
	cli_bad(ARGS(PIPE_ARGS, "--groups-spec", "app:x=all"),
		"--groups-spec 'app:x=all': shares 'x' of group 'app' in 'app:x=all': not an "
		"integer from 2 to 262144");
	cli_bad(ARGS(PIPE_ARGS, "--groups-spec", "app=class:zz"),
		"--groups-spec 'app=class:zz': 'app=class:zz': workload 'pipe' has no class 'zz' "
		"(its classes: a, b)");
	cli_bad(ARGS(PIPE_ARGS, "--groups-spec", "app=all", "--tg-layout", "bogus"),
		"--tg-layout 'bogus': expected " TS_TG_LAYOUT_NAMES);
	cli_bad(ARGS(PIPE_ARGS, "--groups-spec", "app=all", "--compare", "p=tg_layout=bogus"),
		"--compare 'p=tg_layout=bogus': task group layout 'bogus': "
		"expected " TS_TG_LAYOUT_NAMES
		" (or the old names aligned = isolated, packed = v4.4)");
	cli_bad(ARGS(PIPE_ARGS, "--groups-spec", "app=all", "--compare",
		     "p=tg_layout=packed SIS_PRO"),
		"--compare 'p=tg_layout=packed SIS_PRO': unknown feature 'SIS_PRO' at offset 17; "
		"did you mean 'SIS_PROP'? "
		"(see 'toposched features')");
	cli_bad(ARGS(PIPE_ARGS, "--tg-layout", "packed"),
		"--tg-layout: a task-group layout needs --groups-spec (without it every task is in "
		"the root group)");
	cli_bad(ARGS(PIPE_ARGS, "--compare", "a=tg_layout=packed", "b="),
		"--compare: a task-group layout needs --groups-spec (without it every task is in "
		"the root group)");
	cli_bad(ARGS(PIPE_ARGS, "--features", "tg_layout=per-node"),
		"--features: a task-group layout needs --groups-spec (without it every task is in "
		"the root group)");
	cli_bad(ARGS(PIPE_ARGS, "--dump-groups"), "--dump-groups needs --groups-spec");
}

static void test_cli_good(void **state)
{
	(void)state;
	struct run r = ts_run_cli(
		ts_tmpdir, ARGS(PIPE_ARGS, "--groups-spec", "g:512=instance", "--dump-groups"),
		120);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	/* the kernel's struct task_group unless a layout is named: v6.4 from v4.5 on */
	assert_non_null(strstr(r.out, "  g0 shares=512 parent=/ layout=v6.4 load_avg=0\n"));
	assert_non_null(strstr(r.out, "    g1 2 tasks\n"));
	run_free(&r);
	r = ts_run_cli(
		ts_tmpdir,
		ARGS(PIPE_ARGS, "--kernel", "5.6", "--groups-spec", "g=all", "--dump-groups"), 120);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  g shares=1024 parent=/ layout=v6.4 load_avg=0\n"));
	run_free(&r);
	r = ts_run_cli(ts_tmpdir,
		       ARGS(PIPE_ARGS, "--groups-spec", "g=all", "--tg-layout", "isolated",
			    "--dump-groups"),
		       120);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  g shares=1024 parent=/ layout=isolated load_avg=0\n"));
	run_free(&r);
	/* a tiny comparison: CSV with the layout and spec columns, the table's group block */
	const char *const *args =
		ARGS(PIPE_ARGS, "--groups-spec", "app=all", "--compare", "p=tg_layout=packed",
		     "n=tg_layout=per-node NO_TG_LOAD_RATELIMIT", "--iterations", "1", "--duration",
		     "1ms", "--warmup", "1ms", "--quiet", "--format", "csv");
	r = ts_run_cli(ts_tmpdir, args, 120);
	assert_int_equal(r.status, 0);
	/* 1 iteration: the significance test's warning, nothing else */
	assert_non_null(strstr(r.err, "warning: 1 iteration: too few samples"));
	assert_int_equal(strlen(r.err), strcspn(r.err, "\n") + 1);
	assert_non_null(strstr(r.out, ",tg_layout,groups_spec,tg_window_ns,"));
	assert_non_null(strstr(r.out, ",v4.4,app=all,1000000,"));
	assert_non_null(strstr(r.out, ",per-node,app=all,1000000,"));
	assert_non_null(strstr(r.out, ",app=1;(root)=0\n"));
	run_free(&r);
	r = ts_run_cli(ts_tmpdir,
		       ARGS(PIPE_ARGS, "--groups-spec", "app=all", "--tg-layout", "packed",
			    "--iterations", "1", "--duration", "1ms", "--warmup", "1ms", "--quiet"),
		       120);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "task groups: app=all (layout per configuration below)\n"));
	assert_int_equal(count_substr(r.out, "task-group layout: v4.4\n"), 2);
	assert_int_equal(count_substr(r.out, "tg load_avg writes/s  "), 2);
	assert_int_equal(count_substr(r.out, "tg load_avg writes/s per CPU"), 2);
	assert_int_equal(count_substr(r.out, "tg CPU share app %"), 2);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_layout_token),
		cmocka_unit_test(test_shares_split_one_cpu),
		cmocka_unit_test(test_packed_more_transfers_same_run),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_ttwu_executor_runs),
		cmocka_unit_test(test_no_groups_no_block),
		cmocka_unit_test(test_json_deterministic),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_cli_bad_input),
		cmocka_unit_test(test_cli_good),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
