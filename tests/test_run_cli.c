/* toposched run and compare-real refuse bad input before anything runs: exit 2, nothing
 * on stdout, one error line naming the input (file, line, task, key). Also their text
 * output of a file that runs in both hosts, and a run stopped at --duration (text and
 * JSON, with and without preemption). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "run_cli_support.h"

/* The number after "key": in s after the class named cls; fails the test when absent. */
static double class_member(const char *s, const char *cls, const char *key)
{
	char anchor[96], pat[96];
	snprintf(anchor, sizeof(anchor), "\"name\": \"%s\"", cls);
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	const char *from = strstr(s, anchor);
	const char *p = from ? strstr(from, pat) : NULL;
	if (!p) {
		print_message("no %s of %s in:\n%s\n", pat, cls, s);
		fail();
	}
	return strtod(p + strlen(pat), NULL);
}

/* Refused: exit 2, nothing on stdout, and one error line that names every word. */
static void expect_refused_v(const char *const *args, const char *const *words)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	char line[1024] = "";
	const char *e = strstr(r.err, "error:");
	if (e)
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(e, "\n"), e);
	int missing = 0;
	for (int i = 0; words[i]; i++)
		missing += !strstr(line, words[i]);
	if (r.status != 2 || r.out[0] || count_substr(r.err, "error:") != 1 || missing) {
		dump(&r);
		run_free(&r);
		fail_msg("%s %s: not the refusal wanted (%d words missing)", args[0],
			 args[1] ? args[1] : "", missing);
	}
	run_free(&r);
}
#define expect_refused(args, ...) expect_refused_v(args, (const char *const[]){__VA_ARGS__, NULL})

static void test_refusals(void **state)
{
	(void)state;
	expect_refused(ARGS("run", DATA "no-such-file.json"), "no-such-file.json");
	expect_refused(ARGS("run"), "no workload file");
	expect_refused(ARGS("run", DATA "run/events.json", "extra"), "unexpected argument");
	expect_refused(ARGS("run", DATA "run/events.json", "--duration", "soon"), "--duration");
	expect_refused(ARGS("run", DATA "run/events.json", "--features", "NO_SUCH"), "--features");
	expect_refused(ARGS("run", DATA "err_policy.json"), "err_policy.json", "'policy'",
		       "SCHED_OTHER");
	expect_refused(ARGS("run", DATA "err_shared_timer.json"), "'timer'", "shared");
	expect_refused(ARGS("run", DATA "run/err_unlock.json"), "err_unlock.json:3", "'unlock'",
		       "does not hold");
	expect_refused(ARGS("run", DATA "run/forever.json"), "forever.json", "--duration");
	expect_refused(ARGS("run", DATA "run/err_cpus.json"), "err_cpus.json:4", "'cpus'", "4000");
	/* the simulator refuses what it cannot model, before anything runs */
	expect_refused(ARGS("compare-real", DATA "err_fork_forever.json", "--duration", "10ms"),
		       "the simulator", "'fork'", "loops for ever");
	expect_refused(ARGS("compare-real", DATA "run/periodic.json"), "--duration");
	expect_refused(ARGS("compare-real", DATA "run/periodic.json", "--format", "xml"),
		       "--format");
}

/* A file that loops for ever, stopped by --duration: the threads stop, and the text
 * names every class; the timer bounds the loops by the periods in the measured time
 * (whatever the speed: a loop cannot end before its expiry). */
static void test_run_stops_at_duration(void **state)
{
	(void)state;
	struct run r = run_ok(
		ARGS("run", DATA "run/periodic.json", "--duration", "30ms", "--format", "json"));
	assert_true(strstr(r.out, "\"finished\": false") != NULL);
	const char *sec = strstr(r.out, "\"seconds\": ");
	assert_non_null(sec);
	double seconds = strtod(sec + 11, NULL);
	double loops = class_member(r.out, "tick", "loops");
	assert_true(seconds >= 0.030);
	/* loop k of a thread ends at its k-th expiry or later, and the end counts none after */
	assert_true(loops <= 2 * (seconds / 0.001));
	assert_int_equal((int)class_member(r.out, "idle", "threads"), 1);
	run_free(&r);

	r = run_ok(ARGS("run", DATA "run/periodic.json", "--duration", "20ms", "--no-preempt"));
	assert_true(strstr(r.out, "preemption off") != NULL);
	assert_true(strstr(r.out, "loops tick") != NULL);
	assert_true(strstr(r.out, "loops idle") != NULL);
	assert_true(strstr(r.out, "wake-ups by relation") != NULL);
	run_free(&r);
}

/* The side-by-side text: a row per figure, each host's column and the difference. */
static void test_compare_real_text(void **state)
{
	(void)state;
	struct run r = ts_run_cli(
		ts_tmpdir, ARGS("compare-real", DATA "run/periodic.json", "--duration", "20ms"),
		120);
	if (r.status != 0) {
		dump(&r);
		fail();
	}
	assert_true(strstr(r.out, "runtime") && strstr(r.out, "simulator"));
	assert_true(strstr(r.out, "loops/s tick") && strstr(r.out, "loops/s idle"));
	assert_true(strstr(r.out, "wake-up latency p50 us") &&
		    strstr(r.out, "wake-up latency p99 us"));
	assert_true(strstr(r.out, "migrations/s") && strstr(r.out, "placement reasons"));
	assert_true(strstr(r.out, "wake-ups by relation") != NULL);
	run_free(&r);
}

/* Files whose events become several simulator phases each (yield, wait, signal) or whose
 * threads are forked: each task's loops are counted in both hosts. */
static void test_compare_real_multi_phase_events(void **state)
{
	(void)state;
	static const struct {
		const char *file, *row;
	} cases[] = {
		{DATA "yield.json", "loops/s polite"},
		{DATA "wait_signal.json", "loops/s waiter"},
		{DATA "fork.json", "loops/s worker"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = ts_run_cli(
			ts_tmpdir, ARGS("compare-real", cases[i].file, "--duration", "20ms"), 120);
		if (r.status != 0 || !strstr(r.out, cases[i].row)) {
			print_message("%s\n", cases[i].file);
			dump(&r);
			fail();
		}
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_compare_real_text),
		cmocka_unit_test(test_compare_real_multi_phase_events),
		cmocka_unit_test(test_run_stops_at_duration),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
