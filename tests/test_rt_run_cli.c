/* toposched run and toposched compare-real as a user sees them: an rt-app file's threads
 * run as runtime tasks with the loop, thread and wake-up counts the file implies; a file
 * in both hosts gives both figures and their difference, the run stopped at --duration
 * (the refusals, the text outputs and the options are in test_run_cli.c, which CI does not
 * repeat under TSan). Counts and structure only: nothing here depends on
 * how fast anything ran (the runs are short, under TSan too). */
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

/* The number after "key": in s, searched from the first occurrence of `after` (NULL: the
 * start); fails the test when absent. */
static double number_after(const char *s, const char *after, const char *key)
{
	const char *from = after ? strstr(s, after) : s;
	char pat[96];
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	const char *p = from ? strstr(from, pat) : NULL;
	if (!p) {
		print_message("no %s after %s in:\n%s\n", pat, after ? after : "the start", s);
		fail();
	}
	return strtod(p + strlen(pat), NULL);
}

/* A class's member in the JSON of one host (`host`: "\"runtime\"", ... or NULL). */
static double class_number(const char *s, const char *host, const char *cls, const char *key)
{
	const char *from = host ? strstr(s, host) : s;
	assert_non_null(from);
	char anchor[96];
	snprintf(anchor, sizeof(anchor), "\"name\": \"%s\"", cls);
	return number_after(from, anchor, key);
}

/* Every event kind the runtime host runs, in a file whose threads all end: the loops,
 * threads (a forked one included) and sleeps are exactly what the file says. */
static void test_run_counts_every_loop(void **state)
{
	(void)state;
	struct run r = run_ok(ARGS("run", DATA "run/events.json", "--format", "json"));
	const char *s = r.out;
	assert_true(strstr(s, "\"finished\": true") != NULL);
	assert_true(strstr(s, "\"calibrated\": false") != NULL);
	assert_int_equal((int)number_after(s, NULL, "ns_per_loop"), 100);
	assert_int_equal((int)class_number(s, NULL, "worker", "threads"), 2);
	assert_int_equal((int)class_number(s, NULL, "worker", "loops"), 50);
	assert_int_equal((int)class_number(s, NULL, "spawner", "loops"), 1);
	assert_int_equal((int)class_number(s, NULL, "child", "threads"), 1);
	assert_int_equal((int)class_number(s, NULL, "child", "loops"), 3);
	assert_int_equal((int)number_after(s, "wakeup_latency_us", "samples"), 30);
	assert_true(number_after(s, "wakeup_latency_us", "p99") >=
		    number_after(s, "wakeup_latency_us", "p50"));
	assert_true(strstr(s, "\"reasons\"") && strstr(s, "\"wakeups_by_relation\""));
	/* steal time: never more than the workers' share of the measured time */
	double steal = number_after(s, NULL, "steal_s");
	assert_true(steal >= 0 &&
		    steal <= number_after(s, NULL, "seconds") * number_after(s, NULL, "cpus"));
	assert_true(r.err[0] == '\0');
	run_free(&r);
}

/* --trace: the runtime's trace of the run, in the ftrace text lines of sim --trace, with
 * the spawner's fork of its child and the threads' switches (tests/test_rt_trace.c reads a
 * runtime trace back line by line). */
static void test_run_trace(void **state)
{
	(void)state;
	char path[320];
	snprintf(path, sizeof(path), "%s/rt.trace", ts_tmpdir);
	struct run r = run_ok(ARGS("run", DATA "run/events.json", "--trace", path));
	run_free(&r);
	size_t len = 0;
	char *t = slurp(path, &len);
	assert_non_null(t);
	assert_true(strncmp(t, "# tracer: nop\n", 14) == 0);
	assert_non_null(strstr(t, "sched_process_fork: comm=spawner-0 "));
	assert_non_null(strstr(t, "child_comm=child-0 "));
	assert_non_null(strstr(t, "sched_switch: prev_comm=worker-"));
	assert_non_null(strstr(t, "sched_wakeup: comm=worker-"));
	free(t);
	assert_int_equal(unlink(path), 0); /* so the teardown's rmdir() leaves nothing behind */
}

/* Both hosts on one file: both results, with the loops the timer allows in the
 * simulator's 40 ms, and the differences. */
static void test_compare_real_both_hosts(void **state)
{
	(void)state;
	struct run r = run_ok(ARGS("compare-real", DATA "run/periodic.json", "--duration", "40ms",
				   "--format", "json"));
	const char *s = r.out;
	assert_true(strstr(s, "\"topology\": \"host\"") != NULL);
	double sim_loops = class_number(s, "\"simulator\"", "tick", "loops");
	assert_true(sim_loops >= 2 * 38 && sim_loops <= 2 * 40);
	assert_true(class_number(s, "\"simulator\"", "idle", "loops") >= 10);
	assert_true(class_number(s, "\"runtime\"", "tick", "threads") == 2);
	assert_near(number_after(s, "\"simulator\"", "seconds"), 0.04, 1e-9);
	assert_near(number_after(s, "\"simulator\"", "steal_s"), 0, 0); /* runs nothing else */
	assert_true(number_after(s, "\"runtime\"", "steal_s") >= 0);
	assert_true(strstr(s, "\"difference\"") != NULL);
	assert_true(strstr(strstr(s, "\"difference\""), "\"tick\"") != NULL);
	assert_true(strstr(s, "\"reasons_pp\"") && strstr(s, "\"wakeups_by_relation_pp\""));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_counts_every_loop),
		cmocka_unit_test(test_compare_real_both_hosts),
		cmocka_unit_test(test_run_trace),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
