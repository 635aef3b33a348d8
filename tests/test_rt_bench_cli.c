/* toposched bench as a user sees it: the JSON shape of a short pipe run (one object with
 * bench, unit, toposched, kernel, ratio and params; positive figures; the ratio is
 * kernel / toposched), the text form, --stats, and bad input (exit 2, nothing on stdout,
 * one error line naming the input). Never asserts anything about speed. */
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

static char tmpdir[256];

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static struct run run_cli(const char *const *args)
{
	return ts_run_cli(tmpdir, args, 300);
}

/* Brackets balance outside strings, and the text is one array. */
static bool json_balanced(const char *s)
{
	char stack[64];
	int depth = 0;
	bool in_str = false;
	while (*s == ' ' || *s == '\n')
		s++;
	if (*s != '[')
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
			if (!depth) { /* the top-level array ends: only blanks may follow */
				for (s++; *s; s++)
					if (*s != ' ' && *s != '\n')
						return false;
				return true;
			}
		}
	}
	return false;
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
	const char *const *args = ARGS("bench", "--bench", "pipe", "--loops", "2000", "--format", "json");
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
	run_free(&r);
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
	r = run_cli(ARGS("bench", "--bench", "pipe", "--loops", "500", "--stats", "--format", "json"));
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

/* Exit 2, empty stdout, exactly one "toposched bench: error:" line containing word. */
static void expect_error(const char *const *args, const char *word)
{
	struct run r = run_cli(args);
	bool ok = r.status == 2 && r.out[0] == '\0' &&
		  strncmp(r.err, "toposched bench: error: ", 24) == 0 && count_lines(r.err) == 1 &&
		  strstr(r.err, word) != NULL;
	if (!ok) {
		print_message("toposched");
		for (int i = 0; args[i]; i++)
			print_message(" '%s'", args[i]);
		print_message("\nwant exit 2 and one error line with [%s]; got exit %d, stdout %zu bytes, stderr: %s\n",
			      word, r.status, strlen(r.out), r.err);
		run_free(&r);
		fail();
	}
	run_free(&r);
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

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_rt_bench_cli.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char path[300];
	snprintf(path, sizeof(path), "%s/stdout", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_json),
		cmocka_unit_test(test_text_and_stats),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_bad_options),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
