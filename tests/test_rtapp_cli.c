/* rt-app files through the CLI: `toposched sim --workload FILE.json` runs a file, a shipped
 * file by name, and refuses bad ones with exit 2 and one message naming file, line, task
 * and key; every example of rt-app's own repository (tests/data/rtapp/upstream/) either
 * runs or is refused naming a key, and never crashes or hangs. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_support.h"

#define DATA	  TS_SOURCE_DIR "/tests/data/rtapp/"
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
/* a short run of any file: one configuration, one iteration, 20 ms */
#define SHORT "--features", "", "--iterations", "1", "--duration", "20ms", "--warmup", "5ms"

static void dump(const struct run *r)
{
	print_message("exit %d\n--- stdout ---\n%.400s\n--- stderr ---\n%s", r->status, r->out,
		      r->err);
}

/* Exit 2, nothing on stdout, one error line holding every word. */
static void expect_refused_v(const char *const *args, const char *const *words)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	bool ok = r.status == 2 && r.out[0] == '\0' && count_substr(r.err, "error:") == 1;
	const char *line = strstr(r.err, "error:");
	const char *end = line ? strchr(line, '\n') : NULL;
	for (int i = 0; ok && words[i]; i++) {
		const char *hit = strstr(line, words[i]);
		ok = hit && (!end || hit < end);
	}
	if (!ok) {
		for (int i = 0; words[i]; i++)
			print_message("want [%s]\n", words[i]);
		dump(&r);
		run_free(&r);
		fail();
	}
	run_free(&r);
}
#define expect_refused(args, ...) expect_refused_v(args, (const char *const[]){__VA_ARGS__, NULL})

static void test_runs_a_file(void **state)
{
	(void)state;
	struct run r = ts_run_cli(ts_tmpdir,
				  ARGS("sim", "--workload", DATA "run_sleep.json", "--features", "",
				       "--iterations", "1", "--format", "json", "--quiet"),
				  120);
	if (r.status != 0 || !strstr(r.out, "\"workload\": \"run_sleep\"") || r.err[0]) {
		dump(&r);
		run_free(&r);
		fail();
	}
	run_free(&r);
	/* the same file twice: the same bytes */
	struct run a = ts_run_cli(ts_tmpdir,
				  ARGS("sim", "--workload", DATA "timer_periodic.json", SHORT,
				       "--quiet", "--format", "csv"),
				  120);
	struct run b = ts_run_cli(ts_tmpdir,
				  ARGS("sim", "--workload", DATA "timer_periodic.json", SHORT,
				       "--quiet", "--format", "csv"),
				  120);
	assert_int_equal(a.status, 0);
	assert_string_equal(a.out, b.out);
	run_free(&a);
	run_free(&b);
}

/* The shipped files: listed as files, found by name. */
static void test_shipped_files(void **state)
{
	(void)state;
	struct run r = ts_run_cli(ts_tmpdir, ARGS("sim", "--list-workloads"), 120);
	bool ok = r.status == 0 && strstr(r.out, "file periodic.json") &&
		  strstr(r.out, "file ramp.json") && strstr(r.out, "file big-small.json") &&
		  strstr(r.out, "tbench ");
	if (!ok) {
		dump(&r);
		run_free(&r);
		fail();
	}
	run_free(&r);
	r = ts_run_cli(ts_tmpdir, ARGS("sim", "--workload", "periodic", SHORT, "--quiet"), 120);
	if (r.status != 0 || !strstr(r.out, "periodic on")) {
		dump(&r);
		run_free(&r);
		fail();
	}
	run_free(&r);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_refused(ARGS("sim", "--workload", DATA "err_uclamp.json"),
		       "err_uclamp.json:5:", "task 'boosted'", "'util_min'");
	expect_refused(ARGS("sim", "--workload", DATA "err_type.json"),
		       "err_type.json:6:", "phase 'p'", "'run'");
	expect_refused(ARGS("sim", "--workload", DATA "err_syntax.json"),
		       "err_syntax.json:4:", "not valid JSON");
	expect_refused(ARGS("sim", "--workload", DATA "err_fork_forever.json"),
		       "err_fork_forever.json:3:", "task 'spawner'", "'fork'");
	/* a forking file's tasks follow its loops: --loops is refused before any run */
	expect_refused(ARGS("sim", "--workload", DATA "fork.json", "--loops", "3"), "--loops",
		       "forks tasks", "fork");
	expect_refused(ARGS("sim", "--workload", DATA "err_policy.json"), "task 'rt'", "'policy'",
		       "SCHED_FIFO");
	expect_refused(ARGS("sim", "--workload", DATA "no-such-file.json"), "no-such-file.json",
		       "No such file");
	expect_refused(ARGS("sim", "--workload", "no-such-workload"), "no-such-workload",
		       "unknown workload");
}

/* Warnings on stderr, and the run goes on. */
static void test_warnings(void **state)
{
	(void)state;
	struct run r = ts_run_cli(
		ts_tmpdir, ARGS("sim", "--workload", DATA "ignored_keys.json", SHORT, "--quiet"),
		120);
	/* 9 of the file's keys, and its p99 metric resting on a few wake-ups */
	bool ok = r.status == 0 && count_substr(r.err, "warning:") == 10 &&
		  strstr(r.err, "ignored_keys.json:11: global: 'not_a_key'") &&
		  strstr(r.err, "warning: ignored_keys's p99 wake-up latency rests on fewer");
	if (!ok) {
		dump(&r);
		run_free(&r);
		fail();
	}
	run_free(&r);
}

/* Each of rt-app's own examples: runs (exit 0), or exit 2 with one error that quotes a
 * key. Never a crash, never the 60 s limit. */
static void test_upstream_examples(void **state)
{
	(void)state;
	DIR *d = opendir(DATA "upstream");
	assert_non_null(d);
	struct dirent *e;
	int ran = 0, refused = 0;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%supstream/%s", DATA, e->d_name);
		struct run r = ts_run_cli(
			ts_tmpdir,
			ARGS("sim", "--workload", path, SHORT, "--quiet", "--format", "csv"), 60);
		const char *err = strstr(r.err, "error:");
		bool ok = (r.status == 0 && !err) ||
			  (r.status == 2 && err && count_substr(r.err, "error:") == 1 &&
			   (strstr(err, ": '") || strstr(err, "\"tasks\"")) && r.out[0] == '\0');
		if (!ok) {
			print_message("%s\n", path);
			dump(&r);
			run_free(&r);
			closedir(d);
			fail();
		}
		ran += r.status == 0;
		refused += r.status == 2;
		run_free(&r);
	}
	closedir(d);
	/* refused: 6 real-time or deadline policies, 2 resource-only merge fragments, a
	 * lock_order array, a phase moving its thread's group, one changing its CPUs, an
	 * external workload */
	assert_int_equal(ran, 17);
	assert_int_equal(refused, 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_a_file),	  cmocka_unit_test(test_shipped_files),
		cmocka_unit_test(test_refusals),	  cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_upstream_examples),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
