/* Sharded sweeps in the library: the shards of any N partition the runs and deal the
 * heavy loads out evenly; a shard runs exactly its runs; the parts, merged, give the
 * reports of the unsharded sweep byte for byte, whatever the results' doubles hold (NaN,
 * infinities, -0, the last bit); and a part carries every field a run's result has. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exp_report.h"
#include "test_support.h"
#include "toposched/cost_model.h"
#include "toposched/experiment.h"
#include "toposched/experiment_part.h"
#include "toposched/sim_groups.h"

#define VERSION "test-version"

static const struct ts_workload fake = {
	.name = "fake",
	.metric = TS_METRIC_THROUGHPUT_MBS,
	.metric_name = "throughput",
	.unit = "MB/s",
	.load_name = "clients",
};

/* Every field of the result from the seed, the doubles down to their last bit, with a
 * NaN, an infinity and -0 where the seed says so. */
static int every_field_run(const struct ts_sim_config *cfg, struct ts_sim_result *out,
			   struct ts_error *err)
{
	(void)err;
	uint64_t s = cfg->seed ^ (cfg->features.mask * 0x9e3779b97f4a7c15ULL);
	uint64_t *words = (uint64_t *)out;
	/* every 64-bit word a distinct counter, then the fields that are not counters */
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		words[i] = (s >> (i % 13)) + i;
	out->metric = 100.0 * cfg->load + (double)(s >> 11) * 0x1.0p-53;
	out->cpu_util = (double)(s >> 11) * 0x1.0p-53 / 3.0;
	out->wall_s = 0;
	for (int q = 0; q < 4; q++)
		out->wakeup_lat_us[q] = (s >> q) & 1 ? -1 : (double)(s % 1000) / 7.0;
	out->finished = s & 1;
	out->tg.enabled = true;
	out->tg.nr_cpus = cfg->load;
	out->tg.nr_top = (int)(s % 12);
	memset(out->tg.top_name, 0, sizeof(out->tg.top_name)); /* as the engine leaves them */
	for (int i = 0; i < TS_SIM_TG_TOP_MAX; i++)
		snprintf(out->tg.top_name[i], sizeof(out->tg.top_name[i]), "g%d-%d", i,
			 (int)(s % 97));
	out->tg.stall_ns = s & 2 ? NAN : (double)s / 3.0;
	out->tg.wait_ns = s & 4 ? -0.0 : INFINITY;
	out->tg.hitm_ns = 1.0 / 3.0;
	/* the padding zero, as in a result the engine fills, so that memcmp compares fields */
#define GAP(prev, next)                                                                            \
	memset((char *)out + offsetof(struct ts_sim_result, prev) + sizeof(out->prev), 0,          \
	       offsetof(struct ts_sim_result, next) - offsetof(struct ts_sim_result, prev) -       \
		       sizeof(out->prev))
	GAP(finished, messages_queued);
	GAP(tg.enabled, tg.window_ns);
	GAP(tg.nr_cpus, tg.load_avg_writes);
	GAP(tg.nr_top, tg.top_name);
	GAP(tg.top_name, tg.top_exec_ns);
#undef GAP
	return 0;
}

static struct ts_exp_config configs[3];
static const int loads[] = {1, 2, 8};
static struct ts_topology *topo;
static struct ts_cost_model costs;

static int setup(void **state)
{
	struct ts_error err = {0};
	if (ts_tmpdir_setup(state) || ts_topology_load("kunpeng920", &topo, &err) ||
	    ts_cost_model_for(topo, "kunpeng920", &costs, &err))
		return -1;
	static const char *const names[] = {"base", "prop", "util"};
	static const char *const feats[] = {"NO_SIS_PROP", "SIS_PROP", "NO_SIS_UTIL"};
	for (int i = 0; i < 3; i++) {
		snprintf(configs[i].name, sizeof(configs[i].name), "%s", names[i]);
		snprintf(configs[i].features_text, sizeof(configs[i].features_text), "%s",
			 feats[i]);
		configs[i].features = ts_features_default();
		if (ts_features_parse(feats[i], &configs[i].features, NULL))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	ts_topology_free(topo);
	return ts_tmpdir_teardown(state);
}

static struct ts_experiment experiment(int iterations)
{
	return (struct ts_experiment){
		.machine = topo->name,
		.base = {.topo = topo,
			 .costs = &costs,
			 .workload = &fake,
			 .duration_ns = 5000000,
			 .warmup_ns = 1000000},
		.seed = 7,
		.configs = configs,
		.nr_configs = 3,
		.loads = loads,
		.nr_loads = 3,
		.iterations = iterations,
		.jobs = 2,
		.run = every_field_run,
	};
}

static void test_shards_partition_and_balance(void **state)
{
	(void)state;
	struct ts_experiment e = experiment(3);
	int total = ts_experiment_nr_runs(&e);
	assert_int_equal(total, 27);
	int *order = ts_experiment_dispatch_order(&e);
	assert_non_null(order);
	/* heaviest load first */
	assert_int_equal(order[0], 2 * 3);
	for (int n = 1; n <= 30; n++) {
		int seen[27] = {0}, per_shard[30] = {0}, load_sum[30] = {0};
		for (int p = 0; p < total; p++) {
			int k = ts_experiment_shard_of(p, n);
			assert_in_range(k, 0, n - 1);
			seen[order[p]]++;
			per_shard[k]++;
			load_sum[k] += loads[order[p] / 3 % 3];
		}
		for (int i = 0; i < total; i++)
			assert_int_equal(seen[i], 1);
		/* sizes within one run; the runs' load values, heaviest first, dealt out so
		 * that two shards' sums differ by the largest load at most */
		for (int k = 0; k < n; k++)
			for (int j = 0; j < n; j++) {
				assert_in_range(per_shard[k], total / n, (total + n - 1) / n);
				assert_true(abs(load_sum[k] - load_sum[j]) <= 8);
			}
	}
	/* the snake: round 0 forward, round 1 backward */
	assert_int_equal(ts_experiment_shard_of(0, 4), 0);
	assert_int_equal(ts_experiment_shard_of(3, 4), 3);
	assert_int_equal(ts_experiment_shard_of(4, 4), 3);
	assert_int_equal(ts_experiment_shard_of(7, 4), 0);
	assert_int_equal(ts_experiment_shard_of(8, 4), 0);
	free(order);
	/* a shard runs its runs and only those: every run in exactly one shard */
	int ran[27] = {0};
	for (int k = 0; k < 4; k++) {
		e = experiment(3);
		e.nr_shards = 4;
		e.shard = k;
		assert_int_equal(ts_experiment_run(&e, NULL), 0);
		assert_null(e.points);
		for (int i = 0; i < total; i++)
			ran[i] += e.results[i].metric != 0;
		ts_experiment_free(&e);
	}
	for (int i = 0; i < total; i++)
		assert_int_equal(ran[i], 1);
	/* no shard of 0, none past N; no trace or schedstat for a shard */
	struct ts_error err = {0};
	e = experiment(3);
	e.nr_shards = 2;
	e.shard = 2;
	assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
	e.shard = 0;
	e.trace = stderr;
	ts_error_clear(&err);
	assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "sharded"));
}

/* What the parts carry for merge to print (one with a '/', which JSON may escape). */
static const char *const part_warnings[] = {"a warning about the experiment",
					    "another, with a / in it"};

/* The parts of a sweep cut into n shards, written into the scratch directory. */
static void write_parts(int iterations, int n, char (*paths)[512])
{
	for (int k = 0; k < n; k++) {
		struct ts_experiment e = experiment(iterations);
		e.nr_shards = n;
		e.shard = k;
		assert_int_equal(ts_experiment_run(&e, NULL), 0);
		snprintf(paths[k], 512, "%s/part%d.json", ts_tmpdir, k + 1);
		FILE *f = fopen(paths[k], "w");
		assert_non_null(f);
		assert_int_equal(ts_exp_write_part(&e, VERSION, part_warnings, 2, f), 0);
		fclose(f);
		ts_experiment_free(&e);
	}
}

static void test_merged_reports_are_the_unsharded_ones(void **state)
{
	(void)state;
	struct ts_experiment whole = experiment(2);
	assert_int_equal(ts_experiment_run(&whole, NULL), 0);
	int (*const writers[])(const struct ts_experiment *,
			       FILE *) = {ts_exp_write_json, ts_exp_write_table, ts_exp_write_csv};
	char *want[3];
	for (int w = 0; w < 3; w++)
		want[w] = exp_report(&whole, writers[w]);
	/* 18 runs: 19 shards leave one empty */
	static const int shard_counts[] = {1, 2, 3, 5, 19};
	char paths[19][512];
	for (size_t i = 0; i < sizeof(shard_counts) / sizeof(shard_counts[0]); i++) {
		int n = shard_counts[i];
		write_parts(2, n, paths);
		/* any order */
		const char *given[19];
		for (int k = 0; k < n; k++)
			given[k] = paths[(k * 7 + 3) % n];
		struct ts_exp_merge *m = NULL;
		struct ts_error err = {0};
		assert_int_equal(ts_exp_merge_parts(given, n, VERSION, &m, &err), 0);
		const char *const *warnings;
		assert_int_equal(ts_exp_merge_warnings(m, &warnings), 2);
		assert_string_equal(warnings[0], part_warnings[0]);
		assert_string_equal(warnings[1], part_warnings[1]);
		for (int w = 0; w < 3; w++) {
			char *got = exp_report(ts_exp_merge_experiment(m), writers[w]);
			assert_string_equal(got, want[w]);
			free(got);
		}
		/* the very doubles, not only their printed digits */
		const struct ts_experiment *e = ts_exp_merge_experiment(m);
		for (int p = 0; p < 9; p++) {
			assert_memory_equal(e->points[p].samples, whole.points[p].samples,
					    2 * sizeof(double));
			assert_memory_equal(&e->points[p].stats.tg, &whole.points[p].stats.tg,
					    sizeof(whole.points[p].stats.tg));
		}
		ts_exp_merge_free(m);
		for (int k = 0; k < n; k++)
			unlink(paths[k]);
	}
	for (int w = 0; w < 3; w++)
		free(want[w]);
	ts_experiment_free(&whole);
}

/* Field by field: the padding of the run's struct holds the fake's bytes. */
static void assert_tg_equal(const struct ts_sim_tg_result *a, const struct ts_sim_tg_result *b)
{
	assert_int_equal(a->enabled, b->enabled);
	assert_int_equal(a->window_ns, b->window_ns);
	assert_int_equal(a->nr_cpus, b->nr_cpus);
	assert_int_equal(a->load_avg_writes + a->load_avg_reads + a->skipped_ratelimit +
				 a->skipped_filter + a->line_reads + a->line_writes +
				 a->remote_node_writes + a->other_top_exec_ns + a->root_exec_ns,
			 b->load_avg_writes + b->load_avg_reads + b->skipped_ratelimit +
				 b->skipped_filter + b->line_reads + b->line_writes +
				 b->remote_node_writes + b->other_top_exec_ns + b->root_exec_ns);
	assert_int_equal(a->root_exec_ns, b->root_exec_ns);
	assert_memory_equal(a->line_misses, b->line_misses, sizeof(a->line_misses));
	assert_memory_equal(&a->stall_ns, &b->stall_ns, sizeof(double));
	assert_memory_equal(&a->wait_ns, &b->wait_ns, sizeof(double));
	assert_memory_equal(a->hitm, b->hitm, sizeof(a->hitm));
	assert_memory_equal(&a->hitm_ns, &b->hitm_ns, sizeof(double));
	assert_int_equal(a->nr_top, b->nr_top);
	assert_memory_equal(a->top_name, b->top_name, sizeof(a->top_name));
	assert_memory_equal(a->top_exec_ns, b->top_exec_ns, sizeof(a->top_exec_ns));
}

/* A part's run, read back, is the run's result: every field but wall_s (host time). */
static void test_part_carries_every_field(void **state)
{
	(void)state;
	char paths[1][512];
	write_parts(1, 1, paths);
	struct ts_exp_merge *m = NULL;
	const char *given[] = {paths[0]};
	assert_int_equal(ts_exp_merge_parts(given, 1, VERSION, &m, NULL), 0);
	const struct ts_experiment *e = ts_exp_merge_experiment(m);
	/* one iteration: a point's stats hold its one run's counters */
	for (int c = 0; c < 3; c++)
		for (int l = 0; l < 3; l++) {
			struct ts_sim_config cfg = {.load = loads[l],
						    .features = configs[c].features,
						    .seed = ts_experiment_seed(7, loads[l], 0)};
			struct ts_sim_result r = {0};
			every_field_run(&cfg, &r, NULL);
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			assert_memory_equal(&p->samples[0], &r.metric, sizeof(double));
			assert_memory_equal(&p->stats.cpu_util, &r.cpu_util, sizeof(double));
			assert_int_equal(p->stats.events, r.events);
			assert_int_equal(p->stats.lb.ttwu_move_balance, r.lb.ttwu_move_balance);
			assert_int_equal(p->stats.numa.system_ns, r.numa.system_ns);
			assert_int_equal(p->stats.scan_hist[TS_SCAN_HIST_BUCKETS - 1],
					 r.scan_hist[TS_SCAN_HIST_BUCKETS - 1]);
			assert_int_equal(p->stats.all_finished, r.finished);
			assert_tg_equal(&p->stats.tg, &r.tg);
		}
	/* and the whole struct, run by run */
	for (int run = 0; run < ts_experiment_nr_runs(e); run++) {
		int c = run / 3, l = run % 3;
		struct ts_sim_config cfg = {.load = loads[l],
					    .features = configs[c].features,
					    .seed = ts_experiment_seed(7, loads[l], 0)};
		struct ts_sim_result r;
		memset(&r, 0, sizeof(r));
		every_field_run(&cfg, &r, NULL);
		assert_memory_equal(ts_exp_merge_result(m, run), &r, sizeof(r));
	}
	ts_exp_merge_free(m);
	unlink(paths[0]);
}

/* A warning that is not one line of text is not written, and not read back either. */
static void test_part_warnings_are_lines(void **state)
{
	(void)state;
	struct ts_experiment e = experiment(1);
	e.nr_shards = 1;
	assert_int_equal(ts_experiment_run(&e, NULL), 0);
	char path[512];
	snprintf(path, sizeof(path), "%s/part.json", ts_tmpdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	static char long_line[TS_EXP_PART_WARNING_MAX + 1];
	memset(long_line, 'w', TS_EXP_PART_WARNING_MAX);
	const char *const bad[] = {"two\nlines", "", "a \x1b[31mcolour", long_line};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ts_exp_write_part(&e, VERSION, &bad[i], 1, f), -EINVAL);
	const char *many[TS_EXP_PART_MAX_WARNINGS + 1];
	for (int i = 0; i <= TS_EXP_PART_MAX_WARNINGS; i++)
		many[i] = "w";
	assert_int_equal(ts_exp_write_part(&e, VERSION, many, TS_EXP_PART_MAX_WARNINGS + 1, f),
			 -EINVAL);
	assert_int_equal(ftell(f), 0); /* nothing written */
	assert_int_equal(ts_exp_write_part(&e, VERSION, part_warnings, 1, f), 0);
	fclose(f);
	ts_experiment_free(&e);
	/* the same part with its warning made two lines: refused, naming it */
	size_t len;
	char *text = slurp(path, &len);
	char *w = strstr(text, "\"a warning about");
	assert_non_null(w);
	memcpy(w + 2, "\\n", 2);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
	free(text);
	struct ts_exp_merge *m = NULL;
	struct ts_error err = {0};
	const char *given[] = {path};
	assert_int_equal(ts_exp_merge_parts(given, 1, VERSION, &m, &err), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(err.msg, "experiment.warnings[0]: expected one line of text"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shards_partition_and_balance),
		cmocka_unit_test(test_part_warnings_are_lines),
		cmocka_unit_test(test_merged_reports_are_the_unsharded_ones),
		cmocka_unit_test(test_part_carries_every_field),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
