/* An experiment's report (ts_exp_write_json/_csv/_table) captured in memory, for the tests
 * that check its text. */
#ifndef TOPOSCHED_TEST_EXP_REPORT_H
#define TOPOSCHED_TEST_EXP_REPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "toposched/experiment.h"

/* The text fn writes for e, malloc'd. noinline: gcc -O2 otherwise takes the returned buffer
 * for the local pointer that open_memstream() filled (-Wdangling-pointer false positive). */
static __attribute__((unused, noinline)) char *
exp_report(const struct ts_experiment *e, int (*fn)(const struct ts_experiment *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(e, f), 0);
	fclose(f);
	return buf;
}

#endif
