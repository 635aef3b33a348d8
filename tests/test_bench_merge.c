/* rtb_merge_runs() (bench/rt_benches.c), by hand: the figures of `toposched bench --repeat`
 * are the medians of the runs' figures, the ratio range the runs' own ratios, and a peer's
 * figures are over the runs that gave one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../bench/rt_benches.h"

static struct rtb_result run(double t, double k)
{
	struct rtb_result r;
	memset(&r, 0, sizeof(r));
	r.bench = RTB_PIPE;
	r.runs = 1;
	r.fig = (struct rtb_figure){.toposched = t, .kernel = k};
	rtb_figure_single(&r.fig);
	return r;
}

static void peer(struct rtb_result *r, int p, double figure)
{
	r->peer[p].have = true;
	r->peer[p].runs = 1;
	r->peer[p].fig = (struct rtb_figure){.toposched = r->fig.toposched, .kernel = figure};
	rtb_figure_single(&r->peer[p].fig);
}

/* Three runs: (toposched, kernel) = (2, 10), (4, 8), (1, 9): medians 2 and 9, ratio 4.5;
 * the runs' ratios 5, 2, 9. The last run's parameters and statistics are kept. */
static void test_odd(void **state)
{
	(void)state;
	struct rtb_result r[3] = {run(2, 10), run(4, 8), run(1, 9)}, m;
	r[2].stats.migrations = 7;
	r[2].nr_params = 1;
	r[2].params[0] = (struct rtb_param){.key = "loops", .i = 500};
	rtb_merge_runs(r, 3, &m);
	assert_int_equal(m.runs, 3);
	assert_true(m.fig.toposched == 2 && m.fig.kernel == 9);
	assert_true(rtb_ratio(&m.fig) == 4.5);
	assert_true(m.fig.ratio_min == 2 && m.fig.ratio_max == 9);
	assert_int_equal(m.stats.migrations, 7);
	assert_int_equal(rtb_param(&m, "loops"), 500);
	/* the inputs are left as they were (the medians sort copies) */
	assert_true(r[0].fig.toposched == 2 && r[1].fig.toposched == 4 && r[2].fig.toposched == 1);
	assert_false(m.peer[0].have || m.peer[1].have);
}

/* Even: the mean of the middle two. (1, 3), (3, 3), (2, 8), (4, 4): toposched 2.5, kernel
 * 3.5; ratios 3, 1, 4, 1. */
static void test_even(void **state)
{
	(void)state;
	struct rtb_result r[4] = {run(1, 3), run(3, 3), run(2, 8), run(4, 4)}, m;
	rtb_merge_runs(r, 4, &m);
	assert_int_equal(m.runs, 4);
	assert_true(m.fig.toposched == 2.5 && m.fig.kernel == 3.5);
	assert_true(m.fig.ratio_min == 1 && m.fig.ratio_max == 4);
}

/* A peer that gave a figure in two of three runs: its figures are over those two (toposched
 * 2 and 1, the peer 4 and 1: medians 1.5 and 2.5; ratios 2 and 1); a peer in no run is
 * skipped with the last run's reason. One run merges to itself. */
static void test_peers(void **state)
{
	(void)state;
	struct rtb_result r[3] = {run(2, 10), run(4, 8), run(1, 9)}, m;
	peer(&r[0], 0, 4);
	peer(&r[2], 0, 1);
	strcpy(r[2].peer[1].skipped, "no toolchain");
	rtb_merge_runs(r, 3, &m);
	assert_true(m.peer[0].have);
	assert_int_equal(m.peer[0].runs, 2);
	assert_true(m.peer[0].fig.toposched == 1.5 && m.peer[0].fig.kernel == 2.5);
	assert_true(m.peer[0].fig.ratio_min == 1 && m.peer[0].fig.ratio_max == 2);
	assert_false(m.peer[1].have);
	assert_int_equal(m.peer[1].runs, 0);
	assert_string_equal(m.peer[1].skipped, "no toolchain");

	rtb_merge_runs(&r[0], 1, &m);
	assert_int_equal(m.runs, 1);
	assert_true(m.fig.toposched == 2 && m.fig.kernel == 10);
	assert_true(m.fig.ratio_min == 5 && m.fig.ratio_max == 5);
	assert_true(m.peer[0].fig.kernel == 4 && m.peer[0].runs == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_peers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
