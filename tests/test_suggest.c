/* Did-you-mean: the edit distance (insertions, deletions, substitutions and adjacent
 * transpositions, case ignored) and which name ts_suggest_name() offers, if any. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/suggest.h"

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(ts_edit_distance("", ""), 0);
	assert_int_equal(ts_edit_distance("abc", ""), 3);
	assert_int_equal(ts_edit_distance("", "ab"), 2);
	assert_int_equal(ts_edit_distance("tbench", "tbench"), 0);
	assert_int_equal(ts_edit_distance("tbnch", "tbench"), 1);      /* insertion */
	assert_int_equal(ts_edit_distance("tbenchh", "tbench"), 1);    /* deletion */
	assert_int_equal(ts_edit_distance("tbanch", "tbench"), 1);     /* substitution */
	assert_int_equal(ts_edit_distance("tbecnh", "tbench"), 1);     /* transposition */
	assert_int_equal(ts_edit_distance("SIS_util", "SIS_UTIL"), 0); /* case */
	assert_int_equal(ts_edit_distance("epyc7601", "epyc-7601"), 1);
	assert_int_equal(ts_edit_distance("kitten", "sitting"), 3);
	char long_word[TS_SUGGEST_MAX_LEN + 2];
	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	assert_true(ts_edit_distance(long_word, "a") == SIZE_MAX);
}

static void test_suggest_name(void **state)
{
	(void)state;
	static const char *const names[] = {"tbench",	 "netperf-tcp-rr", "netperf-udp-rr",
					    "hackbench", "pipe",	   "numa01",
					    "numa02"};
	int n = sizeof(names) / sizeof(names[0]);
	assert_string_equal(ts_suggest_name("tbnech", names, n), "tbench");
	assert_string_equal(ts_suggest_name("hackbnch", names, n), "hackbench");
	assert_string_equal(ts_suggest_name("netperf-tcp-r", names, n), "netperf-tcp-rr");
	assert_string_equal(ts_suggest_name("pipr", names, n), "pipe");
	/* the first of two equally near names */
	assert_string_equal(ts_suggest_name("numa0", names, n), "numa01");
	/* too far to be a typo: up to 4 characters one edit, then one more per 4 */
	assert_null(ts_suggest_name("pp", names, n));
	assert_null(ts_suggest_name("xyz", names, n));
	assert_null(ts_suggest_name("tbnc", names, n)); /* 4 characters, 2 edits from tbench */
	assert_string_equal(ts_suggest_name("bnech", names, n), "tbench"); /* 5: 2 edits */
	assert_null(ts_suggest_name("bnehc", names, n));		   /* 5: 3 edits */
	/* an exact name is no typo */
	assert_null(ts_suggest_name("pipe", names, n));
	assert_null(ts_suggest_name("tbench", NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_suggest_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
