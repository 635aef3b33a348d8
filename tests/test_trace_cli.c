/* toposched sim --trace as a user sees it: bad --trace-point, --trace-max-mb and file
 * options are refused (exit 2, one error line, no file), the report on stdout is the same
 * bytes with and without --trace, the trace the same bytes whatever --jobs, --trace-point
 * picks the run, and a trace past --trace-max-mb fails the command (exit 1) and leaves no
 * file. */
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
/* a sweep small enough for Debug and sanitizer builds */
#define TINY                                                                                       \
	"--clients", "1,2", "--iterations", "2", "--duration", "2ms", "--warmup", "1ms", "--quiet"

static char trace_a[400], trace_b[400], out_txt[400];

static int setup(void **state)
{
	if (ts_tmpdir_setup(state))
		return -1;
	snprintf(trace_a, sizeof(trace_a), "%s/a.trace", ts_tmpdir);
	snprintf(trace_b, sizeof(trace_b), "%s/b.trace", ts_tmpdir);
	snprintf(out_txt, sizeof(out_txt), "%s/out.txt", ts_tmpdir);
	return 0;
}

static int teardown(void **state)
{
	unlink(trace_a);
	unlink(trace_b);
	unlink(out_txt);
	return ts_tmpdir_teardown(state);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Exit 2, nothing on stdout, one error line holding every word, no trace file. */
static void expect_error_v(const char *const *args, const char *const *words)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	if (!ts_cli_refused(&r, "sim", words) || exists(trace_a)) {
		print_message("exit %d, stderr: %s", r.status, r.err);
		run_free(&r);
		fail();
	}
	run_free(&r);
}
#define EXPECT_ERROR(args, ...) expect_error_v(args, (const char *const[]){__VA_ARGS__, NULL})

static void test_bad_trace_options(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", TINY, "--trace-point", "baseline/1/1"), "--trace-point",
		     "need --trace");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--trace-point", "baselin/1/1"),
		     "--trace-point 'baselin/1/1'", "no configuration 'baselin'",
		     "did you mean 'baseline'?");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--trace-point", "zzz"),
		     "no configuration 'zzz'", "baseline, cluster");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--trace-point", "cluster/4/1"),
		     "load 4 is not one of the sweep's");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--trace-point", "cluster/2/3"),
		     "the iteration '3' is not one of 1 to 2");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--trace-point", "cluster/x"),
		     "the load 'x' is not a number");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--trace-max-mb", "0"),
		     "--trace-max-mb");
	EXPECT_ERROR(ARGS("sim", TINY, "--trace", trace_a, "--output", trace_a),
		     "--output and --trace name the same file");
}

static char *run_ok(const char *const *args)
{
	return ts_run_cli_ok(ts_tmpdir, args, 300);
}

static void test_report_untouched_trace_same_any_jobs(void **state)
{
	(void)state;
	char *plain = run_ok(ARGS("sim", TINY, "--jobs", "2"));
	char *traced = run_ok(ARGS("sim", TINY, "--jobs", "2", "--trace", trace_a));
	assert_string_equal(plain, traced);
	free(run_ok(ARGS("sim", TINY, "--jobs", "1", "--trace", trace_b)));
	size_t la, lb;
	char *a = slurp(trace_a, &la), *b = slurp(trace_b, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_int_equal(strncmp(a, "# tracer: nop\n", 14), 0);
	free(b);
	/* another run: another trace */
	free(run_ok(ARGS("sim", TINY, "--trace", trace_b, "--trace-point", "cluster/2/2")));
	b = slurp(trace_b, &lb);
	assert_true(la != lb || memcmp(a, b, la) != 0);
	assert_non_null(strstr(b, "sched_switch: prev_comm="));
	free(a);
	free(b);
	free(plain);
	free(traced);
}

static void test_bound_fails_and_leaves_nothing(void **state)
{
	(void)state;
	unlink(trace_a);
	struct run r =
		ts_run_cli(ts_tmpdir,
			   ARGS("sim", "--clients", "1", "--iterations", "1", "--quiet", "--output",
				out_txt, "--trace", trace_a, "--trace-max-mb", "1"),
			   300);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "passed its bound of 1 MiB"));
	assert_false(exists(trace_a));
	assert_false(exists(out_txt));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_trace_options),
		cmocka_unit_test(test_report_untouched_trace_same_any_jobs),
		cmocka_unit_test(test_bound_fails_and_leaves_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
