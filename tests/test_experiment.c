/* The sweep runner and its statistics, on fake run functions (pure functions of the
 * config and seed), and every report format on a fake sweep. */
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

#include <cmocka.h>

#include "exp_report.h"
#include "test_support.h"
#include "toposched/experiment.h"

/* ---- statistics on hand-computed samples ---- */

static void test_means_and_stddev(void **state)
{
	(void)state;
	const double a[] = {1, 2, 4};
	assert_near(ts_exp_amean(a, 3), 7.0 / 3.0, 1e-12);
	assert_near(ts_exp_hmean(a, 3), 3.0 / 1.75, 1e-12); /* 12/7 */
	const double b[] = {2, 4, 4, 4, 5, 5, 7, 9};	    /* mean 5, SS 32 */
	assert_near(ts_exp_amean(b, 8), 5.0, 1e-12);
	assert_near(ts_exp_stddev(b, 8), sqrt(32.0 / 7.0), 1e-12);
	const double one[] = {42};
	assert_near(ts_exp_hmean(one, 1), 42, 1e-12);
	assert_near(ts_exp_amean(one, 1), 42, 1e-12);
	assert_near(ts_exp_stddev(one, 1), 0, 0);
	const double same[] = {3, 3, 3};
	assert_near(ts_exp_hmean(same, 3), 3, 1e-12);
	assert_near(ts_exp_stddev(same, 3), 0, 1e-12);
	const double zero[] = {5, 0, 5};
	assert_near(ts_exp_hmean(zero, 3), 0, 0);
	const double neg[] = {5, -1};
	assert_true(isnan(ts_exp_hmean(neg, 2)));
	/* hmean <= amean, equal only for equal samples */
	const double c[] = {10, 20};
	assert_near(ts_exp_hmean(c, 2), 2.0 / (0.1 + 0.05), 1e-12);
	assert_true(ts_exp_hmean(c, 2) < ts_exp_amean(c, 2));
}

static void test_pct_change_and_significance(void **state)
{
	(void)state;
	assert_near(ts_exp_pct_change(110, 100), 10, 1e-12);
	assert_near(ts_exp_pct_change(90, 100), -10, 1e-12);
	assert_near(ts_exp_pct_change(100, 100), 0, 0);
	assert_true(isnan(ts_exp_pct_change(1, 0)));
	assert_true(isnan(ts_exp_pct_change(NAN, 1)));
	/* Welch's t-test, two-sided, at the tables' critical values of Student's t (0.975
	 * quantile): 2.306004 for 8 degrees of freedom (5 + 5 samples, equal spread), 4.302653
	 * for 2 (2 + 2), 2.776445 for 4 (Welch-Satterthwaite: n - 1 when the baseline has no
	 * spread) */
	assert_near(ts_exp_welch_p(100 + 2.306004 * sqrt(2.0 / 5), 1, 5, 100, 1, 5), 0.05, 1e-6);
	assert_near(ts_exp_welch_p(100 - 4.302653 * 3, 3, 2, 100, 3, 2), 0.05, 1e-6);
	assert_near(ts_exp_welch_p(100 + 2.776445 * sqrt(1.0 / 5), 1, 5, 100, 0, 5), 0.05, 1e-6);
	assert_true(ts_exp_significant(100 + 2.4 * sqrt(2.0 / 5), 1, 5, 100, 1, 5));
	assert_false(ts_exp_significant(100 + 2.2 * sqrt(2.0 / 5), 1, 5, 100, 1, 5));
	assert_false(ts_exp_significant(110, 5, 3, 100, 8, 3));	 /* t = 1.84 for 3.36 d.f. */
	assert_true(ts_exp_significant(130, 5, 3, 100, 8, 3));	 /* t = 5.51 */
	assert_near(ts_exp_welch_p(101, 0, 2, 100, 0, 2), 0, 0); /* no spread at all */
	assert_near(ts_exp_welch_p(100, 0, 2, 100, 0, 2), 1, 0);
	assert_true(isnan(ts_exp_welch_p(200, 0, 1, 100, 0, 3))); /* 1 iteration: no test */
	assert_false(ts_exp_significant(200, 0, 1, 100, 0, 3));
	assert_false(ts_exp_significant(200, 0, 3, 100, 0, 1));
	assert_false(ts_exp_significant(NAN, 0, 3, 100, 0, 3));
	assert_true(ts_metric_higher_is_better(TS_METRIC_THROUGHPUT_MBS));
	assert_true(ts_metric_higher_is_better(TS_METRIC_TPS_PER_INSTANCE));
	assert_false(ts_metric_higher_is_better(TS_METRIC_TIME_S));
	assert_false(ts_metric_higher_is_better(TS_METRIC_WAKEUP_P99_US));
	assert_false(ts_metric_higher_is_better(TS_METRIC_US_PER_MARK));
	assert_true(ts_metric_higher_is_better(TS_METRIC_OPS_PER_S));
}

/* ---- fake sweeps ---- */

static const struct ts_workload fake_tput = {
	.name = "fake",
	.description = "a fake workload",
	.metric = TS_METRIC_THROUGHPUT_MBS,
	.metric_name = "throughput",
	.unit = "MB/s",
	.load_name = "clients",
};

static const struct ts_workload fake_time = {
	.name = "fake-time",
	.metric = TS_METRIC_TIME_S,
	.metric_name = "time",
	.unit = "s",
	.load_name = "groups",
};

/* A pure function of (features, load, seed): 100 per client, +50% with SIS_PROP, plus
 * noise in [0, 1) from the seed; counters from the load. */
static int fake_run(const struct ts_sim_config *cfg, struct ts_sim_result *out,
		    struct ts_error *err)
{
	(void)err;
	double noise = (double)(cfg->seed >> 11) * 0x1.0p-53;
	double m =
		100.0 * cfg->load * (ts_features_has(cfg->features, TS_FEAT_SIS_PROP) ? 1.5 : 1.0);
	out->metric = m + noise;
	out->sis.search = 10 * (uint64_t)cfg->load;
	out->sis.domain_search = 4 * (uint64_t)cfg->load;
	out->sis.scanned = 40 * (uint64_t)cfg->load;
	out->sis.failed = (uint64_t)cfg->load;
	out->sis.recent_hit = 3;
	out->sis.recent_miss = 1;
	out->reasons[TS_PLACE_TARGET_IDLE] = 6;
	out->reasons[TS_PLACE_CLUSTER_SCAN] = 4;
	out->wakeups_by_relation[TS_REL_CLUSTER] = 7;
	out->wakeups_by_relation[TS_REL_REMOTE] = 3;
	out->wakeups = 10;
	out->migrations = 2;
	out->cpu_util = 0.25 * (double)(cfg->seed & 3);
	out->wakeup_lat_us[0] = out->wakeup_lat_us[1] = out->wakeup_lat_us[2] =
		out->wakeup_lat_us[3] = -1;
	out->finished = true;
	return 0;
}

/* The sample is the seed itself (its top 53 bits). */
static int seed_run(const struct ts_sim_config *cfg, struct ts_sim_result *out,
		    struct ts_error *err)
{
	(void)err;
	out->metric = (double)(cfg->seed >> 11);
	return 0;
}

static int failing_run(const struct ts_sim_config *cfg, struct ts_sim_result *out,
		       struct ts_error *err)
{
	if (cfg->load == 8 && ts_features_has(cfg->features, TS_FEAT_SIS_PROP))
		return ts_error_set(err, -EINVAL, "the fake engine refuses load %d", cfg->load);
	return fake_run(cfg, out, err);
}

static struct ts_exp_config configs[3];
static const int loads[] = {1, 2, 8};

static void make_configs(void)
{
	static const char *const names[] = {"base", "prop", "same"};
	static const char *const feats[] = {"NO_SIS_PROP", "SIS_PROP", "NO_SIS_PROP"};
	for (int i = 0; i < 3; i++) {
		memset(&configs[i], 0, sizeof(configs[i]));
		snprintf(configs[i].name, sizeof(configs[i].name), "%s", names[i]);
		snprintf(configs[i].features_text, sizeof(configs[i].features_text), "%s",
			 feats[i]);
		configs[i].features = ts_features_default();
		assert_int_equal(ts_features_parse(feats[i], &configs[i].features, NULL), 0);
	}
}

static struct ts_experiment fake_experiment(int jobs, ts_sim_run_fn run)
{
	make_configs();
	return (struct ts_experiment){
		.machine = "fakebox",
		.base = {.workload = &fake_tput, .duration_ns = 5000000, .warmup_ns = 1000000},
		.seed = 7,
		.configs = configs,
		.nr_configs = 3,
		.loads = loads,
		.nr_loads = 3,
		.iterations = 4,
		.jobs = jobs,
		.run = run,
	};
}

static void test_points_and_aggregates(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(2, fake_run);
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	for (int c = 0; c < 3; c++)
		for (int l = 0; l < 3; l++) {
			const struct ts_exp_point *p = ts_experiment_point(&e, c, l);
			assert_int_equal(p->config, c);
			assert_int_equal(p->load, loads[l]);
			assert_int_equal(p->n, 4);
			double want = 100.0 * loads[l] * (c == 1 ? 1.5 : 1.0);
			for (int i = 0; i < 4; i++) {
				assert_true(p->samples[i] >= want && p->samples[i] < want + 1);
			}
			assert_near(p->hmean, ts_exp_hmean(p->samples, 4), 0);
			assert_near(p->amean, ts_exp_amean(p->samples, 4), 0);
			assert_near(p->stddev, ts_exp_stddev(p->samples, 4), 0);
			assert_near(p->mean, p->hmean, 0); /* throughput: Hmean */
			const struct ts_exp_point *b = ts_experiment_point(&e, 0, l);
			assert_near(p->pct_change, 100 * (p->mean - b->mean) / b->mean, 1e-9);
			/* SIS_PROP: +50%, far beyond a spread below 1 */
			assert_int_equal(p->significant,
					 c > 0 && ts_exp_significant(p->amean, p->stddev, 4,
								     b->amean, b->stddev, 4));
			if (c == 1)
				assert_true(p->significant);
			/* counters summed over the 4 iterations, metrics from the sums */
			assert_int_equal(p->stats.sis.search, 4 * 10 * (uint64_t)loads[l]);
			assert_int_equal(p->stats.sis.scanned, 4 * 40 * (uint64_t)loads[l]);
			assert_int_equal(p->stats.reasons[TS_PLACE_CLUSTER_SCAN], 16);
			assert_int_equal(p->stats.wakeups_by_relation[TS_REL_REMOTE], 12);
			assert_int_equal(p->stats.migrations, 8);
			assert_near(p->stats.sis_metrics.search_efficiency, 25.0, 1e-9);
			assert_near(p->stats.sis_metrics.success_rate, 90.0, 1e-9);
			assert_near(p->stats.sis_metrics.scanned_per_wakeup, 4.0, 1e-9);
			/* domain: 16 / (160 - 24) */
			assert_near(p->stats.sis_metrics.domain_search_efficiency, 100.0 * 16 / 136,
				    1e-9);
			assert_true(p->stats.all_finished);
			assert_near(p->stats.wakeup_lat_us[2], -1, 0);
		}
	ts_experiment_free(&e);
	assert_null(e.points);
}

static void test_lower_is_better_uses_amean(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(1, fake_run);
	e.base.workload = &fake_time;
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	for (int p = 0; p < 9; p++)
		assert_near(e.points[p].mean, e.points[p].amean, 0);
	ts_experiment_free(&e);
}

static void test_deterministic_regardless_of_jobs(void **state)
{
	(void)state;
	char *ref_json = NULL, *ref_csv = NULL, *ref_table = NULL;
	const int jobs[] = {1, 2, 3, 8, 36, 0};
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		struct ts_experiment e = fake_experiment(jobs[j], fake_run);
		struct ts_error err = {0};
		assert_int_equal(ts_experiment_run(&e, &err), 0);
		assert_true(e.jobs_used >= 1 && e.jobs_used <= 36);
		char *json = exp_report(&e, ts_exp_write_json),
		     *csv = exp_report(&e, ts_exp_write_csv);
		char *table = exp_report(&e, ts_exp_write_table);
		if (!ref_json) {
			ref_json = json;
			ref_csv = csv;
			ref_table = table;
		} else {
			assert_string_equal(json, ref_json);
			assert_string_equal(csv, ref_csv);
			assert_string_equal(table, ref_table);
			free(json);
			free(csv);
			free(table);
		}
		ts_experiment_free(&e);
	}
	free(ref_json);
	free(ref_csv);
	free(ref_table);
}

static void test_seeds_per_run(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(3, seed_run);
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	/* every run its documented seed: the 12 (load, iteration) distinct, the same in
	 * every configuration (common random numbers) */
	double seen[12];
	int n = 0;
	for (int c = 0; c < 3; c++)
		for (int l = 0; l < 3; l++)
			for (int i = 0; i < 4; i++) {
				double s = ts_experiment_point(&e, c, l)->samples[i];
				assert_near(s, (double)(ts_experiment_seed(7, loads[l], i) >> 11),
					    0);
				assert_near(s, ts_experiment_point(&e, 0, l)->samples[i], 0);
				if (c > 0)
					continue;
				for (int k = 0; k < n; k++)
					assert_true(seen[k] != s);
				seen[n++] = s;
			}
	ts_experiment_free(&e);
	/* a point's samples do not depend on the other loads of the sweep */
	static const int only8[] = {8};
	struct ts_experiment f = fake_experiment(1, seed_run);
	f.loads = only8;
	f.nr_loads = 1;
	assert_int_equal(ts_experiment_run(&f, &err), 0);
	for (int i = 0; i < 4; i++)
		assert_near(ts_experiment_point(&f, 1, 0)->samples[i],
			    (double)(ts_experiment_seed(7, 8, i) >> 11), 0);
	ts_experiment_free(&f);
	/* a configuration on another stream (validate's seeds): other samples, the same
	 * (load, iteration) seeds within the stream; stream 0 is the common one */
	struct ts_experiment g = fake_experiment(2, seed_run);
	configs[2].seed_stream = 1;
	assert_int_equal(ts_experiment_run(&g, &err), 0);
	for (int l = 0; l < 3; l++)
		for (int i = 0; i < 4; i++) {
			double s0 = ts_experiment_point(&g, 0, l)->samples[i];
			double s1 = ts_experiment_point(&g, 2, l)->samples[i];
			assert_true(s0 != s1);
			assert_near(s0,
				    (double)(ts_experiment_stream_seed(7, 0, loads[l], i) >> 11),
				    0);
			assert_near(s1,
				    (double)(ts_experiment_stream_seed(7, 1, loads[l], i) >> 11),
				    0);
		}
	ts_experiment_free(&g);
	assert_true(ts_experiment_stream_seed(7, 0, 1, 0) == ts_experiment_seed(7, 1, 0));
	assert_true(ts_experiment_stream_seed(7, 1, 1, 0) != ts_experiment_stream_seed(7, 2, 1, 0));
	/* another base seed, other samples */
	assert_true(ts_experiment_seed(7, 1, 0) != ts_experiment_seed(8, 1, 0));
	assert_true(ts_experiment_seed(7, 1, 0) != ts_experiment_seed(7, 1, 1));
	assert_true(ts_experiment_seed(7, 1, 0) != ts_experiment_seed(7, 2, 0));
}

static void test_failing_run_stops_the_sweep(void **state)
{
	(void)state;
	const int jobs[] = {1, 4};
	for (int j = 0; j < 2; j++) {
		struct ts_experiment e = fake_experiment(jobs[j], failing_run);
		struct ts_error err = {0};
		assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "configuration 'prop'"));
		assert_non_null(strstr(err.msg, "clients 8"));
		assert_non_null(strstr(err.msg, "iteration 1"));
		assert_non_null(strstr(err.msg, "the fake engine refuses load 8"));
		assert_null(e.points);
		assert_null(e.samples);
	}
}

static void test_bad_experiments(void **state)
{
	(void)state;
	struct ts_error err = {0};
	struct ts_experiment e = fake_experiment(1, fake_run);
	e.iterations = 0;
	assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "iterations"));
	static const int dup[] = {2, 2};
	e = fake_experiment(1, fake_run);
	e.loads = dup;
	e.nr_loads = 2;
	ts_error_clear(&err);
	assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "twice"));
	e = fake_experiment(1, fake_run);
	snprintf(configs[2].name, sizeof(configs[2].name), "base");
	ts_error_clear(&err);
	assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'base' twice"));
	e = fake_experiment(1, fake_run);
	e.nr_configs = 0;
	ts_error_clear(&err);
	assert_int_equal(ts_experiment_run(&e, &err), -EINVAL);
}

/* Many runs on many threads: for ThreadSanitizer builds. */
static void test_parallel_stress(void **state)
{
	(void)state;
	static int many[64];
	for (int i = 0; i < 64; i++)
		many[i] = i + 1;
	struct ts_experiment a = fake_experiment(16, fake_run), b = fake_experiment(1, fake_run);
	a.loads = b.loads = many;
	a.nr_loads = b.nr_loads = 64;
	a.iterations = b.iterations = 5;
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&a, &err), 0);
	assert_int_equal(ts_experiment_run(&b, &err), 0);
	assert_memory_equal(a.samples, b.samples, sizeof(double) * 3 * 64 * 5);
	ts_experiment_free(&a);
	ts_experiment_free(&b);
}

/* ---- reports ---- */

static int count(const char *s, const char *sub)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, sub)); p += strlen(sub))
		n++;
	return n;
}

/* a tiny JSON grammar check (RFC 8259, no semantics) */
static const char *jws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *jvalue(const char *p, int depth);

static const char *jstring(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\' && !*++p)
			return NULL;
	}
	return p + 1;
}

static const char *jvalue(const char *p, int depth)
{
	if (depth > 64)
		return NULL;
	p = jws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';
		p = jws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = jstring(jws(p));
				if (!p)
					return NULL;
				p = jws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = jvalue(p, depth + 1);
			if (!p)
				return NULL;
			p = jws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return jstring(p);
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	char *end;
	strtod(p, &end);
	return end == p ? NULL : end;
}

static void assert_json(const char *s)
{
	const char *end = jvalue(s, 0);
	assert_non_null(end);
	assert_string_equal(jws(end), "");
}

static void test_json_report(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(2, fake_run);
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	char *j = exp_report(&e, ts_exp_write_json);
	assert_json(j);
	const char *const top[] = {"\"machine\": \"fakebox\"",
				   "\"workload\": \"fake\"",
				   "\"metric\": \"throughput\"",
				   "\"unit\": \"MB/s\"",
				   "\"higher_is_better\": true",
				   "\"seed\": 7",
				   "\"configs\": [",
				   "\"name\": \"base\"",
				   "\"features\": \"SIS_PROP\"",
				   "\"pin\": null",
				   "\"groups_spec\": null"};
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (!strstr(j, top[i]))
			fail_msg("JSON lacks %s", top[i]);
	/* the keys, once per point */
	const char *const per_point[] = {"\"load\":",
					 "\"samples\": [",
					 "\"hmean\":",
					 "\"amean\":",
					 "\"stddev\":",
					 "\"stats\": {",
					 "\"sis_search\":",
					 "\"sis_domain_search\":",
					 "\"sis_scanned\":",
					 "\"sis_failed\":",
					 "\"search_efficiency\":",
					 "\"domain_search_efficiency\":",
					 "\"success_rate\":",
					 "\"scanned_per_wakeup\":",
					 "\"reasons\": {",
					 "\"wakeups_by_relation\": {",
					 "\"migrations\":"};
	for (size_t i = 0; i < sizeof(per_point) / sizeof(per_point[0]); i++)
		if (count(j, per_point[i]) != 9)
			fail_msg("JSON has %d x %s, want 9", count(j, per_point[i]), per_point[i]);
	assert_int_equal(count(j, "\"points\": ["), 3);
	/* task groups: the layout per configuration, no group block without a spec */
	assert_int_equal(count(j, "\"tg_layout\": \"isolated\""), 3);
	assert_int_equal(count(j, "\"task_groups\": null"), 9);
	int marked = 0;
	for (int p = 0; p < 9; p++)
		marked += e.points[p].significant;
	assert_int_equal(count(j, "\"significant\": true"), marked);
	assert_true(marked >= 3); /* prop at 3 loads */
	assert_int_equal(count(j, "\"cluster_scan\": 16"), 9);
	assert_int_equal(count(j, "\"remote\": 12"), 9);
	assert_int_equal(count(j, "\"recent_success_rate\": 75"), 9);
	assert_int_equal(count(j, "\"p99\": null"), 9);
	/* order: configs as given, loads ascending */
	assert_true(strstr(j, "\"name\": \"base\"") < strstr(j, "\"name\": \"prop\""));
	assert_true(strstr(j, "\"name\": \"prop\"") < strstr(j, "\"name\": \"same\""));
	assert_true(strstr(j, "\"load\": 1,") < strstr(j, "\"load\": 2,"));
	free(j);
	ts_experiment_free(&e);
}

static int marked_points(const struct ts_experiment *e)
{
	int n = 0;
	for (int p = 0; p < e->nr_configs * e->nr_loads; p++)
		n += e->points[p].significant;
	return n;
}

static void test_table_report(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(2, fake_run);
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	char *t = exp_report(&e, ts_exp_write_table);
	assert_non_null(strstr(t, "fake on fakebox"));
	assert_non_null(strstr(t, "Hmean of 4 iterations of 5ms after 1ms warm-up"));
	assert_non_null(
		strstr(t, "'*' where Welch's t-test finds the means different at 95% confidence"));
	/* compare-kernels' rows: each statistic for the 3 loads, then the next */
	assert_int_equal(count(t, "Min      "), 3);
	assert_int_equal(count(t, "Hmean    "), 3);
	assert_int_equal(count(t, "Stddev   "), 3);
	assert_int_equal(count(t, "CoeffVar "), 3);
	assert_int_equal(count(t, "Max      "), 3);
	assert_true(strstr(t, "Min      8") < strstr(t, "Hmean    1"));
	assert_true(strstr(t, "CoeffVar 8") < strstr(t, "Max      1"));
	/* Min, Hmean and Max against the baseline: the baseline column, and "same": its
	 * features are the baseline's and its seeds too (common random numbers), so its
	 * samples are identical */
	assert_int_equal(count(t, "(   0.00%)"), 3 * 3 * 2);
	if (getenv("TS_TEST_VERBOSE"))
		fputs(t, stderr);
	assert_int_equal(count(t, "%*"), marked_points(&e)); /* prop: +50%, marked */
	/* marks follow the rule: two '*' per significant cell, '(' for the others */
	const char *row = strstr(t, "Hmean    8");
	assert_non_null(row);
	char line[256];
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(row, "\n"), row);
	int sig = ts_experiment_point(&e, 1, 2)->significant +
		  ts_experiment_point(&e, 2, 2)->significant;
	assert_int_equal(count(line, "*"), 2 * sig);
	assert_int_equal(count(line, "("), 3 - sig);
	/* per-configuration blocks */
	assert_int_equal(count(t, "counters summed over 4 iterations"), 3);
	assert_int_equal(count(t, "SIS search efficiency %"), 3);
	assert_int_equal(count(t, "SIS domain search"), 6); /* count and efficiency rows */
	assert_int_equal(count(t, "SIS recent used hit"), 3);
	assert_int_equal(count(t, "place cluster_scan"), 3);
	assert_int_equal(count(t, "place prev "), 0); /* zero reasons are left out */
	assert_int_equal(count(t, "wake-up to same_cpu"), 3);
	assert_int_equal(count(t, "wake-up to remote"), 3);
	assert_int_equal(count(t, "migrations"), 3);
	assert_int_equal(count(t, "CPU utilisation %"), 3);
	assert_int_equal(count(t, " \n"), 0); /* no trailing blanks */
	free(t);
	ts_experiment_free(&e);
}

static void test_csv_report(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(2, fake_run);
	snprintf(configs[0].features_text, sizeof(configs[0].features_text), "NO_SIS_PROP, \"x\"");
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	char *c = exp_report(&e, ts_exp_write_csv);
	assert_int_equal(count(c, "\n"), 1 + 9);
	assert_int_equal(
		strncmp(c,
			"config,features,clients,iterations,mean,hmean,amean,stddev,"
			"pct_change,significant,sample_1,sample_2,sample_3,sample_4,"
			"sis_search,",
			strlen("config,features,clients,iterations,mean,hmean,amean,stddev,"
			       "pct_change,significant,sample_1,sample_2,sample_3,sample_4,"
			       "sis_search,")),
		0);
	assert_non_null(strstr(c, "\nbase,\"NO_SIS_PROP, \"\"x\"\"\",1,4,"));
	assert_non_null(strstr(c, "\nprop,SIS_PROP,8,4,"));
	/* every row has as many fields as the header (no quoted commas elsewhere) */
	int header_fields = 1;
	for (const char *p = c; *p != '\n'; p++)
		header_fields += *p == ',';
	const char *row = strstr(c, "\nprop,");
	int fields = 1;
	for (const char *p = row + 1; *p != '\n'; p++)
		fields += *p == ',';
	assert_int_equal(fields, header_fields);
	free(c);
	ts_experiment_free(&e);
}

/* A percentile q of n samples is thin when fewer than 10 samples lie beyond it: p99 needs
 * 1000, p50 20; an iteration without a sample is the thinnest; a point that never ran has
 * no percentile. */
static void test_percentile_thin(void **state)
{
	(void)state;
	struct ts_exp_point p = {0};
	p.stats.wakeup_lat_samples_min = 999;
	assert_true(ts_exp_percentile_thin(&p, 0.99));
	p.stats.wakeup_lat_samples_min = 1000;
	assert_false(ts_exp_percentile_thin(&p, 0.99));
	assert_true(ts_exp_percentile_thin(&p, 0.999));
	p.stats.wakeup_lat_samples_min = 19;
	assert_true(ts_exp_percentile_thin(&p, 0.50));
	p.stats.wakeup_lat_samples_min = 20;
	assert_false(ts_exp_percentile_thin(&p, 0.50));
	p.stats.wakeup_lat_samples_min = 0;
	assert_true(ts_exp_percentile_thin(&p, 0.99));
	p.stats.wakeup_lat_samples_min = UINT64_MAX;
	assert_false(ts_exp_percentile_thin(&p, 0.99));
}

static void test_gnuplot_script(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(2, fake_run);
	snprintf(configs[2].name, sizeof(configs[2].name), "it's");
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ts_exp_write_gnuplot(&e, TS_PLOT_SVG, "/tmp/a'b.svg", f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "set terminal svg"));
	assert_non_null(strstr(buf, "set output '/tmp/a''b.svg'"));
	assert_non_null(strstr(buf, "$data << EOD\n1 "));
	assert_non_null(strstr(buf, "\n8 "));
	assert_int_equal(count(buf, "with yerrorlines"), 3);
	assert_non_null(strstr(buf, "title 'it''s'"));
	assert_non_null(strstr(buf, "set logscale x 2"));
	/* the lower panel: the two non-baseline configurations' % change */
	assert_non_null(strstr(buf, "set multiplot layout 2,1\n"));
	char row[128];
	snprintf(row, sizeof(row), "$change << EOD\n%d %.10g %.10g\n", loads[0],
		 ts_experiment_point(&e, 1, 0)->pct_change,
		 ts_experiment_point(&e, 2, 0)->pct_change);
	assert_non_null(strstr(buf, row));
	assert_int_equal(count(buf, "$change using 1:"), 2);
	assert_non_null(strstr(buf, "% change against "));
	assert_non_null(strstr(buf, "unset multiplot"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(ts_exp_write_gnuplot(&e, TS_PLOT_PNG, "x.png", f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "pngcairo"));
	free(buf);
	/* one configuration: nothing to compare, one panel */
	e.nr_configs = 1;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(ts_exp_write_gnuplot(&e, TS_PLOT_SVG, NULL, f), 0);
	fclose(f);
	assert_null(strstr(buf, "multiplot"));
	assert_null(strstr(buf, "set output"));
	free(buf);
	e.nr_configs = 3;
	ts_experiment_free(&e);
}

/* NUMA counters: the fake run reports NUMA balancing only under SIS_PROP (configuration
 * "prop"), so only that configuration gets the table's NUMA block; the JSON and CSV carry
 * them everywhere, summed over the iterations. */
static int numa_run(const struct ts_sim_config *cfg, struct ts_sim_result *out,
		    struct ts_error *err)
{
	int rc = fake_run(cfg, out, err);
	if (!ts_features_has(cfg->features, TS_FEAT_SIS_PROP))
		return rc;
	out->numa.hint_faults = 1024;
	out->numa.hint_faults_local = 512;
	out->numa.hint_faults_remote = 512;
	out->numa.double_migrations = (uint64_t)cfg->load;
	out->numa.tasks_numa = 4;
	out->numa.tasks_preferred = 3;
	out->numa.system_ns = 250000000;
	return rc;
}

static void test_numa_reports(void **state)
{
	(void)state;
	struct ts_experiment e = fake_experiment(2, numa_run);
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&e, &err), 0);
	const struct ts_exp_point *p = ts_experiment_point(&e, 1, 2); /* prop, load 8 */
	assert_int_equal(p->stats.numa.hint_faults, 4 * 1024);
	assert_int_equal(p->stats.numa.double_migrations, 4 * 8);
	assert_int_equal(p->stats.numa.tasks_numa, 16);
	assert_int_equal(ts_experiment_point(&e, 0, 2)->stats.numa.hint_faults, 0);
	char *j = exp_report(&e, ts_exp_write_json);
	assert_json(j);
	assert_int_equal(count(j, "\"numa\": {"), 9);
	assert_int_equal(count(j, "\"bind\": \"none\""), 1);
	assert_int_equal(count(j, "\"double_migrations\": 32"), 1);
	assert_int_equal(count(j, "\"preferred_pct\": 75"), 3); /* prop at 3 loads */
	assert_int_equal(count(j, "\"preferred_pct\": null"), 6);
	assert_int_equal(count(j, "\"system_ns\": 1000000000"), 3);
	/* the keys in the documented order */
	const char *keys[] = {
		"\"hint_faults\"",	 "\"pages_migrated\"",	  "\"migrate_attempts\"",
		"\"reserve_conflicts\"", "\"double_migrations\"", "\"close_migrations\"",
		"\"tasks_numa\"",	 "\"system_ns\"",	  "\"preferred_pct\""};
	const char *at = strstr(j, "\"numa\": {");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = strstr(at, keys[i]);
		assert_non_null(k);
		assert_true(k > at);
		at = k;
	}
	char *t = exp_report(&e, ts_exp_write_table);
	assert_int_equal(count(t, "NUMA hint faults (pages)"), 1);
	assert_int_equal(count(t, "NUMA double migrations"), 1);
	assert_int_equal(count(t, "NUMA tasks on preferred node %"), 1);
	assert_non_null(strstr(t, "75.00"));
	assert_int_equal(count(t, " \n"), 0);
	char *c = exp_report(&e, ts_exp_write_csv);
	assert_non_null(strstr(c, ",numa_hint_faults,numa_hint_faults_local,"));
	assert_non_null(strstr(c, ",numa_system_ns,numa_preferred_pct,tg_layout,"));
	int header_fields = 1;
	for (const char *q = c; *q != '\n'; q++)
		header_fields += *q == ',';
	const char *row = strstr(c, "\nprop,");
	int fields = 1;
	for (const char *q = row + 1; *q != '\n'; q++)
		fields += *q == ',';
	assert_int_equal(fields, header_fields);
	free(j);
	free(t);
	free(c);
	ts_experiment_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_means_and_stddev),
		cmocka_unit_test(test_pct_change_and_significance),
		cmocka_unit_test(test_points_and_aggregates),
		cmocka_unit_test(test_lower_is_better_uses_amean),
		cmocka_unit_test(test_deterministic_regardless_of_jobs),
		cmocka_unit_test(test_seeds_per_run),
		cmocka_unit_test(test_failing_run_stops_the_sweep),
		cmocka_unit_test(test_bad_experiments),
		cmocka_unit_test(test_parallel_stress),
		cmocka_unit_test(test_json_report),
		cmocka_unit_test(test_table_report),
		cmocka_unit_test(test_csv_report),
		cmocka_unit_test(test_percentile_thin),
		cmocka_unit_test(test_gnuplot_script),
		cmocka_unit_test(test_numa_reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
