/* What the tests of toposched run and compare-real share (test_rt_run_cli.c,
 * test_run_cli.c): the data directory, the argument lists, a run that must succeed. */
#ifndef TS_TESTS_RUN_CLI_SUPPORT_H
#define TS_TESTS_RUN_CLI_SUPPORT_H

#include "test_support.h"

#define DATA	  TS_SOURCE_DIR "/tests/data/rtapp/"
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static inline void dump(const struct run *r)
{
	print_message("exit %d\n--- stdout ---\n%.2000s\n--- stderr ---\n%s", r->status, r->out,
		      r->err);
}

/* Runs the CLI with args; fails the test unless it exits 0. */
static inline struct run run_ok(const char *const *args)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	if (r.status != 0) {
		dump(&r);
		fail();
	}
	return r;
}

#endif
