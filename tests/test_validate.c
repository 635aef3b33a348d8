/* toposched validate: the band decisions at their edges, figure extraction from a
 * hand-made sweep result, a short real run through the library and through the CLI (its
 * JSON and markdown, its determinism across --jobs) and the CLI's refusal of bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "toposched/validation.h"

/* ---- bands and verdicts ---- */

static void test_band_edges(void **state)
{
	(void)state;
	struct ts_val_band range = {TS_VAL_BAND_RANGE, 6, 25};
	assert_true(ts_val_band_contains(&range, 6));
	assert_true(ts_val_band_contains(&range, 25));
	assert_false(ts_val_band_contains(&range, 5.999));
	assert_false(ts_val_band_contains(&range, 25.001));
	assert_false(ts_val_band_contains(&range, NAN));
	struct ts_val_band least = {TS_VAL_BAND_AT_LEAST, 3, 0};
	assert_true(ts_val_band_contains(&least, 3));
	assert_false(ts_val_band_contains(&least, 2.999));
	struct ts_val_band most = {TS_VAL_BAND_AT_MOST, 0, -15};
	assert_true(ts_val_band_contains(&most, -15));
	assert_false(ts_val_band_contains(&most, -14.999));
	struct ts_val_band above = {TS_VAL_BAND_ABOVE, 0, 0};
	assert_false(ts_val_band_contains(&above, 0));
	assert_true(ts_val_band_contains(&above, 1e-9));
	struct ts_val_band none = {TS_VAL_BAND_NONE, 0, 0};
	assert_false(ts_val_band_contains(&none, 0));
}

static void test_judge(void **state)
{
	(void)state;
	struct ts_val_row row = {.band = {TS_VAL_BAND_RANGE, -3, 3}, .unit = "%"};
	struct ts_val_result r = {.row = &row, .n = 3, .values = {1, 2, 3}};
	ts_val_judge(&r);
	assert_near(r.mean, 2, 1e-12);
	assert_near(r.stddev, 1, 1e-12);
	assert_int_equal(r.verdict, TS_VAL_PASS);
	r.values[2] = 9; /* mean 4: outside */
	ts_val_judge(&r);
	assert_int_equal(r.verdict, TS_VAL_MISS);
	r.values[1] = NAN; /* undefined: a miss, never a pass */
	ts_val_judge(&r);
	assert_true(isnan(r.mean));
	assert_int_equal(r.verdict, TS_VAL_MISS);
	row.band.kind = TS_VAL_BAND_NONE;
	ts_val_judge(&r);
	assert_int_equal(r.verdict, TS_VAL_UNJUDGED);
}

/* ---- extraction from a hand-made result: 2 seeds x 2 configurations x loads 32, 64 ---- */

static const struct ts_val_experiment synthetic = {
	.id = "synthetic",
	.machine = "kunpeng920",
	.workload = "tbench",
	.configs = {{"a", ""}, {"b", "SIS_CLUSTER"}},
	.nr_configs = 2,
	.loads = {32, 64},
	.nr_loads = 2,
	.seeds = 2,
};

struct fake {
	struct ts_experiment e;
	struct ts_exp_point points[4 * 2];
	int loads[2];
};

/* Seed k, configuration c at load index l: mean 100 (k + 1) + 10 c + l; SIS search
 * 10 (c + 1), scanned 100 per load; 1 remote of 4 group-line transfers; 30 (l + 1)
 * migrations in 3 ms of busy CPU time; CPU utilisation 0.25 (l + 1). */
static void fake_init(struct fake *f, const char *workload)
{
	memset(f, 0, sizeof(*f));
	f->loads[0] = 32;
	f->loads[1] = 64;
	f->e.base.workload = ts_workload_find(workload);
	f->e.nr_configs = 4;
	f->e.loads = f->loads;
	f->e.nr_loads = 2;
	f->e.points = f->points;
	for (int k = 0; k < 2; k++)
		for (int c = 0; c < 2; c++)
			for (int l = 0; l < 2; l++) {
				struct ts_exp_point *p = &f->points[(k * 2 + c) * 2 + l];
				p->mean = 100.0 * (k + 1) + 10 * c + l;
				p->stats.all_finished = true;
				p->stats.sis.search = (uint64_t)(10 * (c + 1));
				p->stats.sis.scanned = 100;
				/* HITMs: 1 remote of 4 (transfers without a modified
				 * copy do not count) */
				p->stats.tg.hitm[TS_SIM_TG_UPDATE_CFS_GROUP][1] = 1;
				p->stats.tg.hitm[TS_SIM_TG_SET_TASK_CPU][0] = 3;
				p->stats.tg.line_misses[TS_REL_LLC] = 5;
				p->stats.migrations = (uint64_t)(30 * (l + 1));
				p->stats.busy_ns = 3000000; /* 3 ms of CPU time */
				p->stats.cpu_util = 0.25 * (l + 1);
			}
}

static struct ts_val_row row_of(enum ts_val_figure figure, int load)
{
	return (struct ts_val_row){.exp = &synthetic,
				   .figure = figure,
				   .a = 0,
				   .b = 1,
				   .load = load,
				   .load2 = 32,
				   .unit = "%"};
}

static void test_extract(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f, "tbench"); /* higher is better */
	bool finished = true;
	struct ts_val_row r = row_of(TS_VAL_CHANGE, 64);
	/* seed 1 (k = 1): a = 201, b = 211 */
	assert_near(ts_val_extract(&r, &f.e, 1, &finished), 100.0 * 10 / 201, 1e-12);
	r = row_of(TS_VAL_VALUE, 32);
	r.scale = 10;
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 1000, 1e-12);
	r = row_of(TS_VAL_LOAD_CHANGE, 64); /* a(64) = 101 vs a(32) = 100 */
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 1, 1e-12);
	r = row_of(TS_VAL_RATE_CHANGE, 32); /* 100 (a / b - 1), a = 100, b = 110 */
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 100.0 * (100.0 / 110 - 1), 1e-12);
	r = row_of(TS_VAL_SIS_EFF, 0); /* 2 x 10 / 2 x 100 */
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 10, 1e-12);
	r = row_of(TS_VAL_SIS_EFF_RATIO, 0);
	assert_near(ts_val_extract(&r, &f.e, 1, &finished), 2, 1e-12);
	r = row_of(TS_VAL_TG_REMOTE_SHARE, 64);
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 25, 1e-12);
	r = row_of(TS_VAL_MIGRATION_RATE, 64); /* 60 migrations in 3 ms of CPU time */
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 20000, 1e-9);
	r = row_of(TS_VAL_IDLE, 64); /* utilisation 0.5 */
	assert_near(ts_val_extract(&r, &f.e, 0, &finished), 50, 1e-12);
	assert_true(finished);
	r = row_of(TS_VAL_CHANGE, 128); /* a load the sweep did not run */
	assert_true(isnan(ts_val_extract(&r, &f.e, 0, &finished)));
	f.points[(1 * 2 + 0) * 2 + 0].stats.all_finished = false; /* seed 1, a, load 32 */
	r = row_of(TS_VAL_VALUE, 32);
	ts_val_extract(&r, &f.e, 0, &finished);
	assert_true(finished);
	ts_val_extract(&r, &f.e, 1, &finished);
	assert_false(finished);

	fake_init(&f, "hackbench");    /* a time: positive = b is faster */
	r = row_of(TS_VAL_CHANGE, 32); /* a = 100 s, b = 110 s: 10 % worse */
	assert_near(ts_val_extract(&r, &f.e, 0, NULL), -10, 1e-12);
}

/* ---- a short real run ---- */

static const struct ts_val_experiment tiny = {
	.id = "tiny",
	.machine = "kunpeng920",
	.workload = "tbench",
	.pin = "0",
	.configs = {{"baseline", "NO_SIS_CLUSTER"}, {"cluster", "SIS_CLUSTER"}},
	.nr_configs = 2,
	.loads = {2, 4},
	.nr_loads = 2,
	.duration_ns = 2000000,
	.warmup_ns = 1000000,
	.seeds = 3,
	.published_run = "a test",
};

static const struct ts_val_source tiny_source = {"T1", "this test"};

static const struct ts_val_row tiny_row = {
	.id = "tiny-gain-2",
	.role = TS_VAL_VALIDATION,
	.exp = &tiny,
	.figure = TS_VAL_CHANGE,
	.a = 0,
	.b = 1,
	.load = 2,
	.unit = "%",
	.published = 10,
	.published_text = "+10 %",
	.source = &tiny_source,
	.band = {TS_VAL_BAND_RANGE, 6, 25},
};

static char *json_of(int jobs)
{
	const struct ts_val_row *rows[] = {&tiny_row};
	struct ts_val_options o = {.seed = 7, .jobs = jobs};
	struct ts_validation v;
	struct ts_error err = {0};
	assert_int_equal(ts_validation_run(rows, 1, &o, &v, &err), 0);
	assert_int_equal(v.nr, 1);
	assert_int_equal(v.results[0].n, 3);
	assert_true(isfinite(v.results[0].mean));
	assert_int_not_equal(v.results[0].verdict, TS_VAL_UNJUDGED);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(ts_validation_write_json(&v, f), 0);
	fclose(f);
	ts_validation_free(&v);
	return buf;
}

static void test_short_run_deterministic(void **state)
{
	(void)state;
	char *one = json_of(1), *two = json_of(2);
	assert_string_equal(one, two);
	assert_non_null(strstr(one, "\"id\": \"tiny-gain-2\""));
	assert_non_null(strstr(one, "\"loads\": [\n        2,\n        4\n      ]"));
	free(one);
	free(two);
}

/* ---- the CLI ---- */

#define ROW "tbench-kp920-n0-gain-1"

static struct run cli(const char *const *args)
{
	return ts_run_cli(ts_tmpdir, args, 300);
}

static void test_cli_json_markdown(void **state)
{
	(void)state;
	struct run j1 = cli((const char *[]){"validate", "--row", ROW, "--format", "json", "--jobs",
					     "1", NULL});
	struct run j2 = cli((const char *[]){"validate", "--row", ROW, "--format", "json", "--jobs",
					     "2", NULL});
	assert_int_equal(j1.status, 0);
	assert_string_equal(j1.out, j2.out);
	assert_true(j1.out[0] == '{');
	assert_non_null(strstr(j1.out, "\"rows\": ["));
	assert_non_null(strstr(j1.out, "\"role\": \"validation\""));
	assert_non_null(strstr(j1.out, "\"published\": 13.8,"));
	assert_non_null(strstr(j1.out, "\"summary\": {\n    \"validation_rows\": 1,"));
	assert_int_equal(count_substr(j1.out, "\"verdict\": "), 1);
	struct run md = cli((const char *[]){"validate", "--row", ROW, "--row",
					     "hackbench-bdw-time-1", "--format", "markdown", NULL});
	assert_int_equal(md.status, 0);
	assert_non_null(strstr(md.out, "# Validation"));
	assert_non_null(strstr(md.out, "Generated by `toposched validate --format markdown --row "
				       "tbench-kp920-n0-gain-1 --row hackbench-bdw-time-1`"));
	const char *cal = strstr(md.out, "## Calibration rows");
	const char *val = strstr(md.out, "## Validation rows");
	assert_non_null(cal);
	assert_non_null(val);
	assert_true(cal < val);
	assert_non_null(strstr(md.out, "| " ROW " |"));
	assert_non_null(strstr(md.out, "| hackbench-bdw-time-1 |"));
	assert_non_null(strstr(md.out, "## Sources"));
	assert_non_null(strstr(md.out, "20231012121707.51368-3-yangyicong@huawei.com"));
	run_free(&j1);
	run_free(&j2);
	run_free(&md);
}

static void test_cli_list(void **state)
{
	(void)state;
	struct run r = cli((const char *[]){"validate", "--list", NULL});
	assert_int_equal(r.status, 0);
	int n;
	const struct ts_val_row *rows = ts_val_rows(&n);
	assert_int_equal(count_lines(r.out), n + 1);
	for (int i = 0; i < n; i++)
		assert_non_null(strstr(r.out, rows[i].id));
	run_free(&r);
}

static void test_cli_bad_input(void **state)
{
	(void)state;
	static const char *const bad[][6] = {
		{"validate", "--format", "xml", NULL},
		{"validate", "--row", "no-such-row", NULL},
		{"validate", "--jobs", "0", NULL},
		{"validate", "--seed", "x", NULL},
		{"validate", "--bogus", NULL},
		{"validate", "stray", NULL},
		{"validate", "--quick", "--row", ROW, NULL},
		{"validate", "--row", NULL},
		{"validate", "--output", "/nonexistent-dir/x.md", "--row", ROW, NULL},
	};
	static const char *const says[] = {"xml",     "no-such-row", "--jobs",
					   "--seed",  "--bogus",     "stray",
					   "--quick", "--row",	     "/nonexistent-dir"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = cli(bad[i]);
		assert_int_equal(r.status, 2);
		assert_string_equal(r.out, "");
		assert_non_null(strstr(r.err, "toposched validate: error: "));
		assert_non_null(strstr(r.err, says[i]));
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_band_edges),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_short_run_deterministic),
		cmocka_unit_test(test_cli_json_markdown),
		cmocka_unit_test(test_cli_list),
		cmocka_unit_test(test_cli_bad_input),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
