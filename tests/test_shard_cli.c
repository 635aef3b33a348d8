/* toposched sim --shard K/N and toposched merge as a user runs them: the merged report is
 * the unsharded one byte for byte, as table, JSON and CSV, for N = 1, 2, 3 and N larger
 * than the sweep's runs (empty shards), and merge prints the unsharded run's warnings; a
 * configuration's samples do not depend on which other configurations run (common random
 * numbers, what sharding relies on); bad --shard values and bad sets of parts are refused
 * with one message, exit 2, nothing written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_support.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
/* 2 configurations x 3 loads x 2 iterations = 12 runs, small enough for sanitizer builds */
#define TINY                                                                                       \
	"--clients", "1,2,4", "--iterations", "2", "--duration", "2ms", "--warmup", "1ms", "--quiet"
#define NR_RUNS 12

static char part[16][400], out_path[400];

static int setup(void **state)
{
	if (ts_tmpdir_setup(state))
		return -1;
	for (int k = 0; k < 16; k++)
		snprintf(part[k], sizeof(part[k]), "%s/part%d.json", ts_tmpdir, k + 1);
	snprintf(out_path, sizeof(out_path), "%s/report.json", ts_tmpdir);
	return 0;
}

static int teardown(void **state)
{
	for (int k = 0; k < 16; k++)
		unlink(part[k]);
	unlink(out_path);
	return ts_tmpdir_teardown(state);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static char *run_ok(const char *const *args)
{
	return ts_run_cli_ok(ts_tmpdir, args, 300);
}

/* Exit 2, nothing on stdout, one error line of cmd holding every word, no out_path. */
static void expect_error_v(const char *cmd, const char *const *args, const char *const *words)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	bool ok = ts_cli_refused(&r, cmd, words);
	if (!ok || exists(out_path)) {
		print_message("exit %d, stderr: %s", r.status, r.err);
		run_free(&r);
		fail();
	}
	run_free(&r);
}
#define SIM_ERROR(args, ...) expect_error_v("sim", args, (const char *const[]){__VA_ARGS__, NULL})
#define MERGE_ERROR(args, ...)                                                                     \
	expect_error_v("merge", args, (const char *const[]){__VA_ARGS__, NULL})

/* The n parts of the TINY sweep (with extra options). */
static void run_shards(int n, const char *extra)
{
	for (int k = 0; k < n; k++) {
		char shard[32];
		snprintf(shard, sizeof(shard), "%d/%d", k + 1, n);
		free(run_ok(extra ? ARGS("sim", TINY, extra, "--shard", shard, "--output", part[k])
				  : ARGS("sim", TINY, "--shard", shard, "--output", part[k])));
	}
}

static void test_merged_is_the_unsharded_report(void **state)
{
	(void)state;
	static const char *const formats[] = {"table", "json", "csv"};
	char *want[3];
	for (int f = 0; f < 3; f++)
		want[f] = run_ok(ARGS("sim", TINY, "--format", formats[f]));
	static const int shard_counts[] = {1, 2, 3, NR_RUNS + 1};
	for (size_t i = 0; i < sizeof(shard_counts) / sizeof(shard_counts[0]); i++) {
		int n = shard_counts[i];
		run_shards(n, NULL);
		for (int f = 0; f < 3; f++) {
			/* the parts in reverse order: any order merges */
			const char *args[24] = {"merge", "--format", formats[f]};
			for (int k = 0; k < n; k++)
				args[3 + k] = part[n - 1 - k];
			char *got = run_ok(args);
			assert_string_equal(got, want[f]);
			free(got);
		}
	}
	/* an --output ending in .json selects JSON, as for sim */
	free(run_ok(ARGS("merge", part[0], part[1], part[2], part[3], part[4], part[5], part[6],
			 part[7], part[8], part[9], part[10], part[11], part[12], "--output",
			 out_path)));
	size_t len;
	char *file = slurp(out_path, &len);
	assert_string_equal(file, want[1]);
	free(file);
	unlink(out_path);
	for (int f = 0; f < 3; f++)
		free(want[f]);
}

/* The samples of configuration `name` in a JSON report: every "samples" line of its block. */
static char *samples_of(const char *json, const char *name)
{
	char key[64];
	snprintf(key, sizeof(key), "\"name\": \"%s\"", name);
	const char *p = strstr(json, key);
	assert_non_null(p);
	const char *end = strstr(p + 1, "\"name\": ");
	size_t cap = strlen(p) + 1, used = 0;
	char *out = calloc(1, cap);
	assert_non_null(out);
	for (const char *s = p; (s = strstr(s, "\"samples\": [")) && (!end || s < end);) {
		const char *close = strchr(s, ']');
		assert_non_null(close);
		memcpy(out + used, s, (size_t)(close - s + 1));
		used += (size_t)(close - s + 1);
		s = close;
	}
	return out;
}

static void test_samples_independent_of_other_configs(void **state)
{
	(void)state;
	char *both = run_ok(ARGS("sim", TINY, "--format", "json", "--compare", "a=NO_SIS_CLUSTER",
				 "b=SIS_CLUSTER NO_SIS_UTIL"));
	char *alone = run_ok(
		ARGS("sim", TINY, "--format", "json", "--compare", "b=SIS_CLUSTER NO_SIS_UTIL"));
	char *in_both = samples_of(both, "b"), *in_alone = samples_of(alone, "b");
	assert_int_equal(count_substr(in_both, "\"samples\""), 3);
	assert_string_equal(in_both, in_alone);
	/* and they are the configuration's own: a differs */
	char *a = samples_of(both, "a");
	assert_string_not_equal(a, in_both);
	free(a);
	free(in_both);
	free(in_alone);
	free(both);
	free(alone);
}

/* What docs/sim-json.md tells a user who wants one run's trace of a sharded sweep: that
 * point alone, with the iterations up to the one wanted, is the very run. */
static void test_one_point_alone_is_the_sweeps_run(void **state)
{
	(void)state;
	char trace_sweep[420], trace_alone[420];
	snprintf(trace_sweep, sizeof(trace_sweep), "%s/sweep.trace", ts_tmpdir);
	snprintf(trace_alone, sizeof(trace_alone), "%s/alone.trace", ts_tmpdir);
	free(run_ok(ARGS("sim", TINY, "--trace", trace_sweep, "--trace-point", "cluster/1/2")));
	free(run_ok(ARGS("sim", "--clients", "1", "--iterations", "2", "--duration", "2ms",
			 "--warmup", "1ms", "--quiet", "--compare", "cluster=SIS_CLUSTER",
			 "--trace", trace_alone, "--trace-point", "cluster/1/2")));
	size_t la, lb;
	char *a = slurp(trace_sweep, &la), *b = slurp(trace_alone, &lb);
	assert_true(la > 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	unlink(trace_sweep);
	unlink(trace_alone);
}

/* s with every "toposched sim: " made "toposched merge: " (malloc'd). */
static char *as_merge(const char *s)
{
	static const char from[] = "toposched sim: ", to[] = "toposched merge: ";
	char *out = malloc(strlen(s) * 2 + 1), *o = out;
	assert_non_null(out);
	for (const char *p = s; *p;)
		if (strncmp(p, from, strlen(from)) == 0) {
			o = stpcpy(o, to);
			p += strlen(from);
		} else {
			*o++ = *p++;
		}
	*o = '\0';
	return out;
}

/* The warnings of the unsharded run, from merge: those known before the runs (a machine
 * without clusters under the default comparison, one iteration) that the parts carry, and
 * the one of the merged points (schbench's p99 on too few wake-ups). */
static void test_merge_warns_as_the_unsharded_run(void **state)
{
	(void)state;
#define WARNED                                                                                     \
	"--machine", "icelake-2s", "--workload", "schbench", "--clients", "2,4", "--iterations",   \
		"1", "--duration", "2ms", "--warmup", "1ms", "--quiet"
	struct run whole = ts_run_cli(ts_tmpdir, ARGS("sim", WARNED), 300);
	assert_int_equal(whole.status, 0);
	assert_int_equal(count_substr(whole.err, "toposched sim: warning: "), 3);
	assert_non_null(strstr(whole.err, "no cluster level"));
	assert_non_null(strstr(whole.err, "1 iteration: too few samples"));
	assert_non_null(strstr(whole.err, "p99 wake-up latency rests on fewer"));
	for (int k = 0; k < 2; k++) {
		struct run r = ts_run_cli(
			ts_tmpdir,
			ARGS("sim", WARNED, "--shard", k ? "2/2" : "1/2", "--output", part[k]),
			300);
		assert_int_equal(r.status, 0);
		run_free(&r);
	}
	struct run merged = ts_run_cli(ts_tmpdir, ARGS("merge", part[1], part[0]), 300);
	assert_int_equal(merged.status, 0);
	assert_string_equal(merged.out, whole.out);
	char *want = as_merge(whole.err);
	assert_string_equal(merged.err, want);
	free(want);
	run_free(&merged);
	run_free(&whole);
#undef WARNED
}

static void test_bad_shard_options(void **state)
{
	(void)state;
	static const char *const bad[] = {"0/2", "3/2", "a/b", "1/", "/2", "2", "1/0", "-1/2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		SIM_ERROR(ARGS("sim", TINY, "--shard", bad[i], "--output", out_path), "--shard",
			  bad[i]);
	SIM_ERROR(ARGS("sim", TINY, "--shard", "1/2", "--format", "csv", "--output", out_path),
		  "--shard", "toposched merge");
	SIM_ERROR(ARGS("sim", TINY, "--shard", "1/2", "--plot", "x.png", "--output", out_path),
		  "merge --plot");
	SIM_ERROR(ARGS("sim", TINY, "--shard", "1/2", "--trace", "x.trace", "--output", out_path),
		  "--shard with --trace");
	SIM_ERROR(ARGS("sim", TINY, "--shard", "1/2", "--schedstat", "x.ss", "--output", out_path),
		  "--shard with --schedstat");
}

static void test_bad_parts(void **state)
{
	(void)state;
	run_shards(3, NULL);
	MERGE_ERROR(ARGS("merge", part[0], part[1], "--output", out_path), "shard 3/3 is missing");
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[2], part[1], "--output", out_path),
		    part[1], "shard 2/3 again");
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[2], part[15], "--output", out_path),
		    part[15], "cannot read it");
	MERGE_ERROR(ARGS("merge", "--output", out_path), "no parts given");
	MERGE_ERROR(ARGS("merge", part[0], "--format", "xml", "--output", out_path), "--format");
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[2], "--output", part[0]),
		    "also an output");
	/* a truncated part */
	size_t len;
	char *text = slurp(part[2], &len);
	FILE *f = fopen(part[3], "w");
	assert_non_null(f);
	fwrite(text, 1, len / 2, f);
	fclose(f);
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[3], "--output", out_path), part[3],
		    "not a partial result");
	/* a damaged value */
	char *metric = strstr(text, "\"metric\": \"0x");
	assert_non_null(metric);
	metric[11] = 'z';
	f = fopen(part[3], "w");
	assert_non_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[3], "--output", out_path), part[3],
		    "runs[0].result.metric");
	/* a value changed that still reads: "events": 9... */
	metric[11] = '0';
	char *events = strstr(text, "\"events\": ");
	assert_non_null(events);
	events[10] = events[10] == '9' ? '8' : '9';
	f = fopen(part[3], "w");
	assert_non_null(f);
	fwrite(text, 1, len, f);
	fclose(f);
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[3], "--output", out_path), part[3],
		    "checksum");
	free(text);
	/* a report is not a part */
	free(run_ok(ARGS("sim", TINY, "--format", "json", "--output", part[3])));
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[3], "--output", out_path), part[3],
		    "not a partial result");
	/* another experiment: another seed; another cut: shards of 2 */
	free(run_ok(ARGS("sim", TINY, "--seed", "2", "--shard", "3/3", "--output", part[3])));
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[3], "--output", out_path), part[3],
		    "another experiment", "\"seed\" differs");
	free(run_ok(ARGS("sim", TINY, "--shard", "2/2", "--output", part[3])));
	MERGE_ERROR(ARGS("merge", part[0], part[1], part[2], part[3], "--output", out_path),
		    part[3], "shard 2/2", "a shard of 3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merged_is_the_unsharded_report),
		cmocka_unit_test(test_samples_independent_of_other_configs),
		cmocka_unit_test(test_one_point_alone_is_the_sweeps_run),
		cmocka_unit_test(test_merge_warns_as_the_unsharded_run),
		cmocka_unit_test(test_bad_shard_options),
		cmocka_unit_test(test_bad_parts),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
