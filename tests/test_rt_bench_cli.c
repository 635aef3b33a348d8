/* toposched bench as a user sees it: the JSON shape of a short pipe run (one object with
 * bench, unit, toposched, kernel, ratio and params; positive figures; the ratio is
 * kernel / toposched), the text form, --stats, and bad input (exit 2, nothing on stdout,
 * one error line naming the input); and `bench groups`: every workload x layout x
 * ratelimit row once (text and JSON), its options and their errors. Never asserts
 * anything about speed. */
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

#include "test_support.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static struct run run_cli(const char *const *args)
{
	return ts_run_cli(ts_tmpdir, args, 300);
}

/* Brackets balance outside strings, and the text is one array (or, with top '{', one
 * object). */
static bool json_balanced_top(const char *s, char top)
{
	char stack[64];
	int depth = 0;
	bool in_str = false;
	while (*s == ' ' || *s == '\n')
		s++;
	if (*s != top)
		return false;
	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				in_str = false;
			continue;
		}
		if (*s == '"')
			in_str = true;
		else if (*s == '[' || *s == '{') {
			if (depth == 64)
				return false;
			stack[depth++] = *s == '[' ? ']' : '}';
		} else if (*s == ']' || *s == '}') {
			if (!depth || stack[--depth] != *s)
				return false;
			if (!depth) { /* the top-level value ends: only blanks may follow */
				for (s++; *s; s++)
					if (*s != ' ' && *s != '\n')
						return false;
				return true;
			}
		}
	}
	return false;
}

static bool json_balanced(const char *s)
{
	return json_balanced_top(s, '[');
}

/* The number after "key": in s (the first occurrence); fails the test if absent. */
static double json_number(const char *s, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	const char *p = strstr(s, pat);
	if (!p) {
		print_message("no %s in: %s\n", pat, s);
		fail();
	}
	char *end;
	double v = strtod(p + strlen(pat), &end);
	assert_true(end != p + strlen(pat));
	return v;
}

static void test_pipe_json(void **state)
{
	(void)state;
	const char *const *args =
		ARGS("bench", "--bench", "pipe", "--loops", "2000", "--format", "json");
	struct run r = run_cli(args);
	if (r.status != 0 || r.err[0])
		print_message("exit %d, stderr: %s\n", r.status, r.err);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_true(json_balanced(r.out));
	/* one object, the pipe benchmark */
	assert_int_equal(count_substr(r.out, "\"bench\": "), 1);
	assert_non_null(strstr(r.out, "\"bench\": \"pipe\""));
	assert_non_null(strstr(r.out, "\"unit\": \"us\""));
	assert_non_null(strstr(r.out, "\"params\": {"));
	assert_int_equal((int)json_number(r.out, "loops"), 2000);
	double t = json_number(r.out, "toposched"), k = json_number(r.out, "kernel"),
	       ratio = json_number(r.out, "ratio");
	print_message("    pipe: toposched %g us, kernel %g us, ratio %g\n", t, k, ratio);
	assert_true(t > 0 && k > 0 && ratio > 0);
	/* printed with 6 significant digits each */
	double want = k / t;
	assert_true(ratio > want * (1 - 1e-4) && ratio < want * (1 + 1e-4));
	assert_non_null(strstr(r.out, "perf bench sched pipe -T -l 2000"));
	assert_null(strstr(r.out, "\"stats\""));
	/* one run: its ratio is the whole range */
	assert_int_equal((int)json_number(r.out, "runs"), 1);
	assert_true(json_number(r.out, "ratio_min") == ratio);
	assert_true(json_number(r.out, "ratio_max") == ratio);
	run_free(&r);
}

/* pingpong: the pipe exchange with hand-off sends, against the pipe threads pinned to one
 * CPU: every wake-up of the runtime side is a WF_CURRENT_CPU placement onto the waker's
 * worker, where the pipe row's are not (on a one-worker run the pipe row's would be too). */
static void test_pingpong_hands_off(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("bench", "--bench", "pingpong", "--loops", "1000", "--stats",
				    "--format", "json"));
	if (r.status != 0 || r.err[0])
		print_message("exit %d, stderr: %s\n", r.status, r.err);
	assert_int_equal(r.status, 0);
	assert_true(json_balanced(r.out));
	assert_int_equal(count_substr(r.out, "\"bench\": "), 1);
	assert_non_null(strstr(r.out, "\"bench\": \"pingpong\""));
	int kcpu = (int)json_number(r.out, "kernel_cpu");
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "\"taskset -c %d perf bench sched pipe -T -l 1000\"", kcpu);
	assert_non_null(strstr(r.out, cmd));
	/* 1,100 round trips (100 of warm-up), at most two wake-ups each, all onto the waker's
	 * CPU but the first of each task: the two start on different workers, and a task
	 * still switching out there when its first message comes is woken by its worker, which
	 * wakes without flags (WAKE_DEFERRED, wake.c). A receive needs no wake-up when it
	 * finds its message already there: the first of each side, and any made while the two
	 * tasks sit on different workers (the idle worker's balancing may pull the queued
	 * wakee: migrations), or a wake-up that finds its task not yet switched out
	 * (early_wakeups). TSan's slowdown makes those more frequent (2,197 in a CI repeat,
	 * 2,199 with 0 early in a local one), so the count only has to be nearly all of them;
	 * the placements below are the hand-off's check. */
	double wakeups = json_number(r.out, "ttwu_count"),
	       current = json_number(r.out, "current_cpu"),
	       same_cpu = json_number(r.out, "same_cpu"),
	       early = json_number(r.out, "early_wakeups"),
	       migrations = json_number(r.out, "migrations");
	print_message("    pingpong: %g wake-ups, %g current_cpu, %g same_cpu, %g early, %g "
		      "migrations\n",
		      wakeups, current, same_cpu, early, migrations);
	assert_true(wakeups >= 2 * 1100 * 0.99 && wakeups <= 2 * 1100);
	assert_true(current >= wakeups - 2 && same_cpu >= wakeups - 2);
	run_free(&r);
}

/* hackbench-handoff's message wake-ups (a receiver woken by a send, a sender by the room a
 * receive made) are all placed on the waker's CPU; hackbench's go through wake_affine()
 * and select_idle_sibling() and none is. The other wake-ups of a run are the start's (the
 * start channel's close wakes the 40 tasks of the group, the last to be ready wakes the
 * controller) and the joins' (at most one a task), placed without flags, and the deferred
 * ones, placed by the wakee's own worker. 100 loops: 130-450 message wake-ups a run here,
 * and the runtime tests run 20 times under TSan in CI. */
static void hackbench_placements(const char *bench, double *wakeups, double *current,
				 double *deferred)
{
	struct run r = run_cli(ARGS("bench", "--bench", bench, "--groups", "1", "--loops", "100",
				    "--stats", "--format", "json"));
	if (r.status != 0 || r.err[0])
		print_message("exit %d, stderr: %s\n", r.status, r.err);
	assert_int_equal(r.status, 0);
	assert_true(json_balanced(r.out));
	assert_int_equal(count_substr(r.out, "\"bench\": "), 1);
	*wakeups = json_number(r.out, "ttwu_count");
	*current = json_number(r.out, "current_cpu");
	*deferred = json_number(r.out, "deferred_wakeups");
	print_message("    %s: %g wake-ups, %g current_cpu, %g deferred\n", bench, *wakeups,
		      *current, *deferred);
	run_free(&r);
}

static void test_hackbench_handoff(void **state)
{
	(void)state;
	double wakeups, current, deferred, start_and_joins = 2 * 40 + 1; /* 40 tasks a group */
	hackbench_placements("hackbench-handoff", &wakeups, &current, &deferred);
	assert_true(current > 0);
	assert_true(current >= wakeups - deferred - start_and_joins);
	hackbench_placements("hackbench", &wakeups, &current, &deferred);
	assert_true(wakeups > start_and_joins);
	assert_true(current == 0);
}

/* --repeat: the figures are medians of the runs, the printed ratio (of the medians) lies in
 * the runs' range, and the text says over how many runs. */
static void test_repeat(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("bench", "--bench", "pipe", "--loops", "300", "--repeat", "3",
				    "--format", "json"));
	assert_int_equal(r.status, 0);
	assert_true(json_balanced(r.out));
	assert_int_equal((int)json_number(r.out, "runs"), 3);
	double ratio = json_number(r.out, "ratio"), lo = json_number(r.out, "ratio_min"),
	       hi = json_number(r.out, "ratio_max");
	print_message("    pipe over 3 runs: ratio %g in [%g, %g]\n", ratio, lo, hi);
	/* 6 significant digits each */
	assert_true(lo > 0 && lo <= ratio * (1 + 1e-5) && ratio <= hi * (1 + 1e-5));
	run_free(&r);
	r = run_cli(ARGS("bench", "--bench", "yield", "--loops", "1000", "--repeat", "2"));
	assert_int_equal(r.status, 0);
	assert_int_equal(count_substr(r.out, "median of 2 runs; their ratios "), 1);
	run_free(&r);
}

/* --peers without the peers' sources: each peer is skipped with the reason, in both
 * formats, and the runtime's figures are still there. */
static void test_peers_skipped(void **state)
{
	(void)state;
	char none[600];
	snprintf(none, sizeof(none), "%s/no-peers-here", ts_tmpdir);
	setenv("TOPOSCHED_PEERS_DIR", none, 1);
	struct run r = run_cli(
		ARGS("bench", "--bench", "pipe", "--loops", "200", "--peers", "--format", "json"));
	assert_int_equal(r.status, 0);
	assert_true(json_balanced(r.out));
	assert_non_null(strstr(r.out, "\"peers\": {"));
	assert_non_null(strstr(r.out, "\"go\": {\n        \"skipped\": \"source "));
	assert_non_null(strstr(r.out, "\"boost_fiber\": {\n        \"skipped\": \"source "));
	assert_int_equal(count_substr(r.out, "no-peers-here"), 2);
	assert_true(json_number(r.out, "toposched") > 0);
	run_free(&r);
	r = run_cli(ARGS("bench", "--bench", "pipe", "--loops", "200", "--peers"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  go              skipped: source "));
	assert_non_null(strstr(r.out, "  boost_fiber     skipped: source "));
	run_free(&r);
	unsetenv("TOPOSCHED_PEERS_DIR");
}

static void test_text_and_stats(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("bench", "--bench", "pipe", "--loops", "500", "--stats"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "toposched"));
	assert_non_null(strstr(r.out, "\npipe "));
	assert_non_null(strstr(r.out, "us per round trip"));
	assert_non_null(strstr(r.out, "runtime statistics of 'pipe'"));
	assert_non_null(strstr(r.out, "placement reasons:"));
	assert_non_null(strstr(r.out, "wake-ups by relation:"));
	assert_non_null(strstr(r.out, "SIS: search"));
	assert_non_null(strstr(r.out, "migrations"));
	run_free(&r);

	/* JSON with --stats: the counters are consistent (one reason per core wake-up) */
	r = run_cli(
		ARGS("bench", "--bench", "pipe", "--loops", "500", "--stats", "--format", "json"));
	assert_int_equal(r.status, 0);
	assert_true(json_balanced(r.out));
	assert_non_null(strstr(r.out, "\"stats\": {"));
	double ttwu = json_number(r.out, "ttwu_count"), wakeups = json_number(r.out, "wakeups");
	assert_true(ttwu > 0);
	assert_true(ttwu == wakeups);
	const char *reasons = strstr(r.out, "\"reasons\": {");
	assert_non_null(reasons);
	double sum = 0;
	for (const char *p = reasons + 12; *p != '}'; p++)
		if (*p == ':')
			sum += strtod(p + 1, NULL);
	assert_true(sum == ttwu);
	run_free(&r);
}

static void test_help(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("bench", "--help"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: toposched bench"));
	assert_non_null(strstr(r.out, "hackbench"));
	run_free(&r);
	r = run_cli(ARGS("--help"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "bench"));
	run_free(&r);
}

/* Exit 2, empty stdout, exactly one "toposched CMD: error:" line containing word. */
static void expect_error_cmd(const char *const *args, const char *cmd, const char *word)
{
	struct run r = run_cli(args);
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "toposched %s: error: ", cmd);
	bool ok = r.status == 2 && r.out[0] == '\0' &&
		  strncmp(r.err, prefix, strlen(prefix)) == 0 && count_lines(r.err) == 1 &&
		  strstr(r.err, word) != NULL;
	if (!ok) {
		print_message("toposched");
		for (int i = 0; args[i]; i++)
			print_message(" '%s'", args[i]);
		print_message("\nwant exit 2 and one error line with [%s]; got exit %d, stdout %zu "
			      "bytes, stderr: %s\n",
			      word, r.status, strlen(r.out), r.err);
		run_free(&r);
		fail();
	}
	run_free(&r);
}

static void expect_error(const char *const *args, const char *word)
{
	expect_error_cmd(args, "bench", word);
}

static void test_bad_options(void **state)
{
	(void)state;
	expect_error(ARGS("bench", "--bench", "pipes"), "'pipes'");
	expect_error(ARGS("bench", "--bench", ""), "--bench");
	expect_error(ARGS("bench", "--loops", "0"), "--loops");
	expect_error(ARGS("bench", "--loops", "abc"), "not an integer");
	expect_error(ARGS("bench", "--loops", "10x"), "--loops");
	expect_error(ARGS("bench", "--groups", "101"), "--groups");
	expect_error(ARGS("bench", "--tasks", "-1"), "--tasks");
	expect_error(ARGS("bench", "--repeat", "0"), "--repeat");
	expect_error(ARGS("bench", "--repeat", "21"), "--repeat");
	expect_error(ARGS("bench", "--repeat", "two"), "not an integer");
	expect_error(ARGS("bench", "--format", "xml"), "--format");
	expect_error(ARGS("bench", "--features", "NO_SUCH_FEATURE"), "--features");
	expect_error(ARGS("bench", "--topology", "no-such-machine"), "no-such-machine");
	expect_error(ARGS("bench", "--cpus", "4096-4097"), "4096");
	expect_error(ARGS("bench", "--cpus", "1-0"), "1-0");
	expect_error(ARGS("bench", "--bench", "wake", "--cpus", "0"), "two runtime workers");
	expect_error(ARGS("bench", "--frobnicate"), "--frobnicate");
	expect_error(ARGS("bench", "--loops"), "needs a value");
	expect_error(ARGS("bench", "stray"), "stray");
}

/* ---- bench groups ---- */

/* Every workload x layout x ratelimit row exactly once, in the text output. */
static void test_groups_text(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("bench", "groups", "--duration", "10ms", "--workers", "1"));
	if (r.status != 0 || r.err[0])
		print_message("exit %d, stderr: %s\n", r.status, r.err);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "toposched bench groups: 1 workers"));
	assert_non_null(strstr(r.out, "2 ping-pong pairs"));
	assert_non_null(strstr(r.out, "1 x 20 senders x 20 receivers"));
	const char *workloads[] = {"pipe", "hackbench"},
		   *layouts[] = {"v4.4", "isolated", "per-node"}, *rl[] = {"off", "on"},
		   *units[] = {"round", "messages/s"};
	int seen[2][3][2] = {{{0}}}, rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char w[32], l[32], x[32], unit[32];
		double tput, writes, reads;
		if (sscanf(line, "%31s %31s %31s %lf %31s", w, l, x, &tput, unit) != 5)
			continue;
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 3; b++)
				for (int c = 0; c < 2; c++)
					if (!strcmp(w, workloads[a]) && !strcmp(l, layouts[b]) &&
					    !strcmp(x, rl[c])) {
						seen[a][b][c]++;
						rows++;
						/* >= 0: the OS may stop this process for all of
						 * 10 ms on a loaded machine */
						assert_true(tput >= 0);
						assert_string_equal(unit, units[a]);
						/* ... unit words, writes/s, reads/s, remote, ratio
						 */
						const char *p = strstr(line, a ? "messages/s"
									       : "round trips/s");
						assert_non_null(p);
						p += strlen(a ? "messages/s" : "round trips/s");
						char spread[16], remote[16], ratio[16];
						assert_int_equal(sscanf(p, "%15s %lf %lf %15s %15s",
									spread, &writes, &reads,
									remote, ratio),
								 5);
						assert_string_equal(spread, "0%"); /* one run */
						assert_true(writes >= 0 && reads >= 0);
						assert_true(ratio[strlen(ratio) - 1] == 'x');
						if (b == 0 && c == 0)
							assert_string_equal(ratio,
									    tput > 0 ? "1.000x"
										     : "0.000x");
					}
	}
	assert_int_equal(rows, 12);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 2; c++)
				assert_int_equal(seen[a][b][c], 1);
	run_free(&r);
}

/* JSON: the configuration, 12 results with the layout in each, runs as repeated. */
static void test_groups_json(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("bench", "groups", "--duration", "0.01", "--repeat", "2",
				    "--groups", "2", "--workers", "1", "--json"));
	if (r.status != 0 || r.err[0])
		print_message("exit %d, stderr: %s\n", r.status, r.err);
	assert_int_equal(r.status, 0);
	assert_true(json_balanced_top(r.out, '{'));
	assert_int_equal((int)json_number(r.out, "repeat"), 2);
	assert_int_equal((int)json_number(r.out, "groups"), 2);
	assert_int_equal((int)json_number(r.out, "workers"), 1);
	assert_int_equal((int)json_number(r.out, "pipe_pairs"), 2);
	assert_int_equal(count_substr(r.out, "\"workload\": "), 12);
	assert_int_equal(count_substr(r.out, "\"layout\": "), 12);
	for (int i = 0; i < 3; i++) {
		const char *l[] = {"v4.4", "isolated", "per-node"};
		char pat[48];
		snprintf(pat, sizeof(pat), "\"layout\": \"%s\"", l[i]);
		assert_int_equal(count_substr(r.out, pat), 4);
	}
	assert_int_equal(count_substr(r.out, "\"ratelimit\": true"), 6);
	assert_int_equal(count_substr(r.out, "\"ratelimit\": false"), 6);
	/* the first result is the baseline itself (0 only if nothing ran in 2 x 10 ms) */
	double base = json_number(r.out, "throughput");
	assert_true(base >= 0);
	assert_true(json_number(r.out, "ratio_to_packed_no_ratelimit") == (base > 0 ? 1 : 0));
	/* two runs in each "runs" array: one comma between its numbers */
	const char *p = r.out;
	int arrays = 0;
	while ((p = strstr(p, "\"runs\": ["))) {
		const char *end = strchr(p, ']');
		assert_non_null(end);
		int commas = 0;
		for (const char *q = p; q < end; q++)
			commas += *q == ',';
		assert_int_equal(commas, 1);
		arrays++;
		p = end;
	}
	assert_int_equal(arrays, 12);
	assert_int_equal(count_substr(r.out, "\"spread\": "), 12);
	run_free(&r);
}

static void test_groups_bad_options(void **state)
{
	(void)state;
	expect_error_cmd(ARGS("bench", "groups", "--workers", "0"), "bench groups", "--workers");
	expect_error_cmd(ARGS("bench", "groups", "--workers", "two"), "bench groups",
			 "not an integer");
	expect_error_cmd(ARGS("bench", "groups", "--workers", "4096"), "bench groups", "only");
	expect_error_cmd(ARGS("bench", "groups", "--topology", "kunpeng920", "--workers", "129"),
			 "bench groups", "kunpeng920 has only 128 CPUs");
	expect_error_cmd(ARGS("bench", "groups", "--groups", "0"), "bench groups", "--groups");
	expect_error_cmd(ARGS("bench", "groups", "--workers", "1", "--groups", "3"), "bench groups",
			 "more groups than pipe pairs");
	expect_error_cmd(ARGS("bench", "groups", "--duration", "0"), "bench groups", "--duration");
	expect_error_cmd(ARGS("bench", "groups", "--duration", "-1s"), "bench groups",
			 "--duration");
	expect_error_cmd(ARGS("bench", "groups", "--duration", "5h"), "bench groups",
			 "not a duration");
	expect_error_cmd(ARGS("bench", "groups", "--duration", "7200"), "bench groups", "3600s");
	expect_error_cmd(ARGS("bench", "groups", "--duration", "nan"), "bench groups",
			 "--duration");
	expect_error_cmd(ARGS("bench", "groups", "--repeat", "0"), "bench groups", "--repeat");
	expect_error_cmd(ARGS("bench", "groups", "--repeat", "100"), "bench groups", "--repeat");
	expect_error_cmd(ARGS("bench", "groups", "--topology", "no-such-machine"), "bench groups",
			 "no-such-machine");
	expect_error_cmd(ARGS("bench", "groups", "--format", "xml"), "bench groups", "--format");
	expect_error_cmd(ARGS("bench", "groups", "--bench", "pipe"), "bench groups", "--bench");
	expect_error_cmd(ARGS("bench", "groups", "--duration"), "bench groups", "needs a value");
	expect_error_cmd(ARGS("bench", "groups", "stray"), "bench groups", "stray");
	struct run r = run_cli(ARGS("bench", "groups", "--help"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: toposched bench groups"));
	assert_non_null(strstr(r.out, "per-node"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_json),
		cmocka_unit_test(test_pingpong_hands_off),
		cmocka_unit_test(test_hackbench_handoff),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_peers_skipped),
		cmocka_unit_test(test_text_and_stats),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_groups_text),
		cmocka_unit_test(test_groups_json),
		cmocka_unit_test(test_groups_bad_options),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
