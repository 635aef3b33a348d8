/* struct ts_cpumask: bit operations, searches and iteration (checked against a brute-force
 * model at word boundaries and up to TS_MAX_CPUS), wrap-around iteration, and the cpulist
 * format/parse pair (kernel bitmap_parselist() syntax, error messages, round trip). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_support.h"
#include "toposched/cpumask.h"

/* Sizes around word boundaries plus the largest supported. */
static const int sizes[] = {1, 2, 63, 64, 65, 127, 128, 129, 130, 4096, TS_MAX_CPUS};
#define NR_SIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static int rng_below(int n)
{
	return (int)(rng() % (uint64_t)n);
}

static struct ts_cpumask *alloc_or_fail(int n)
{
	struct ts_cpumask *m = ts_cpumask_alloc(n);
	assert_non_null(m);
	assert_int_equal(m->nr_cpus, n);
	return m;
}

static struct ts_cpumask *mask_of(int n, const char *list)
{
	struct ts_cpumask *m = alloc_or_fail(n);
	struct ts_error err = {0};
	if (ts_cpumask_parse(m, list, &err))
		fail_msg("parse '%s' on %d CPUs: %s", list, n, err.msg);
	return m;
}

/* Random mask: runs of set/clear bits of random length, so ranges cross word boundaries. */
static void fill_random(struct ts_cpumask *m, int density_pct)
{
	ts_cpumask_zero(m);
	for (int cpu = 0; cpu < m->nr_cpus;) {
		int run = 1 + rng_below(rng_below(4) == 0 ? 130 : 5);
		bool on = rng_below(100) < density_pct;
		for (; run > 0 && cpu < m->nr_cpus; run--, cpu++)
			if (on)
				ts_cpumask_set(m, cpu);
	}
}

/* The bits beyond nr_cpus of the last word must stay 0 (the header's invariant). */
static void assert_no_bits_past_end(const struct ts_cpumask *m)
{
	int r = m->nr_cpus & 63;
	if (r)
		assert_int_equal(m->bits[ts_cpumask_words(m->nr_cpus) - 1] >> r, 0);
}

static char *fmt(const struct ts_cpumask *m)
{
	char *s = ts_cpumask_to_string(m);
	assert_non_null(s);
	return s;
}

static void assert_format(const struct ts_cpumask *m, const char *want)
{
	char *s = fmt(m);
	assert_string_equal(s, want);
	assert_int_equal(ts_cpumask_format(m, NULL, 0), strlen(want));
	free(s);
}

/* ---- allocation ---- */

static void test_alloc_bounds(void **state)
{
	(void)state;
	struct ts_cpumask *m = ts_cpumask_alloc(0);
	assert_non_null(m);
	assert_int_equal(m->nr_cpus, 0);
	assert_true(ts_cpumask_empty(m));
	assert_int_equal(ts_cpumask_weight(m), 0);
	assert_int_equal(ts_cpumask_first(m), 0);
	assert_int_equal(ts_cpumask_nth(m, 0), 0);
	ts_cpumask_fill(m); /* no words: must not write anything */
	assert_true(ts_cpumask_empty(m));
	assert_format(m, "");
	ts_cpumask_free(m);

	assert_null(ts_cpumask_alloc(-1));
	assert_null(ts_cpumask_alloc(TS_MAX_CPUS + 1));
	assert_null(ts_cpumask_alloc(-64));

	m = ts_cpumask_alloc(TS_MAX_CPUS);
	assert_non_null(m);
	assert_true(ts_cpumask_empty(m)); /* zeroed */
	struct ts_cpumask *d = ts_cpumask_dup(m);
	assert_non_null(d);
	assert_true(ts_cpumask_equal(m, d));
	ts_cpumask_free(d);
	ts_cpumask_free(m);
	ts_cpumask_free(NULL); /* like free() */
}

/* ---- single bits ---- */

static void test_set_clear_test(void **state)
{
	(void)state;
	for (int s = 0; s < NR_SIZES; s++) {
		int n = sizes[s];
		struct ts_cpumask *m = alloc_or_fail(n);
		const int probe[] = {0, 1, 62, 63, 64, 65, 127, 128, 129, n - 2, n - 1};
		int want = 0;
		for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
			int cpu = probe[i];
			if (cpu < 0 || cpu >= n || ts_cpumask_test(m, cpu))
				continue;
			ts_cpumask_set(m, cpu);
			want++;
			assert_true(ts_cpumask_test(m, cpu));
			ts_cpumask_set(m, cpu); /* idempotent */
			assert_int_equal(ts_cpumask_weight(m), want);
		}
		for (int cpu = 0; cpu < n; cpu++) {
			bool in = false;
			for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
				in |= probe[i] == cpu;
			assert_int_equal(ts_cpumask_test(m, cpu), in);
		}
		assert_no_bits_past_end(m);
		for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
			int cpu = probe[i];
			if (cpu < 0 || cpu >= n)
				continue;
			ts_cpumask_clear_cpu(m, cpu);
			assert_false(ts_cpumask_test(m, cpu));
		}
		assert_true(ts_cpumask_empty(m));
		ts_cpumask_free(m);
	}
}

static void test_fill_zero_copy(void **state)
{
	(void)state;
	for (int s = 0; s < NR_SIZES; s++) {
		int n = sizes[s];
		struct ts_cpumask *m = alloc_or_fail(n);
		ts_cpumask_fill(m);
		assert_int_equal(ts_cpumask_weight(m), n);
		assert_no_bits_past_end(m);
		assert_int_equal(ts_cpumask_next(m, n - 1), n);
		assert_int_equal(ts_cpumask_nth(m, n - 1), n - 1);
		assert_int_equal(ts_cpumask_nth(m, n), n);
		struct ts_cpumask *c = alloc_or_fail(n);
		ts_cpumask_copy(c, m);
		assert_true(ts_cpumask_equal(c, m));
		assert_int_equal(ts_cpumask_hash(c), ts_cpumask_hash(m));
		ts_cpumask_zero(m);
		assert_true(ts_cpumask_empty(m));
		assert_int_equal(ts_cpumask_first(m), n);
		assert_false(ts_cpumask_equal(c, m));
		ts_cpumask_free(c);
		ts_cpumask_free(m);
	}
}

static void test_set_range(void **state)
{
	(void)state;
	struct ts_cpumask *m = alloc_or_fail(130);
	ts_cpumask_set_range(m, 60, 70);
	assert_int_equal(ts_cpumask_weight(m), 11);
	assert_format(m, "60-70");
	ts_cpumask_set_range(m, 5, 5);
	assert_format(m, "5,60-70");
	ts_cpumask_set_range(m, 127, 129);
	assert_format(m, "5,60-70,127-129");
	assert_no_bits_past_end(m);
	ts_cpumask_zero(m);
	ts_cpumask_set_range(m, 0, 129);
	struct ts_cpumask *f = alloc_or_fail(130);
	ts_cpumask_fill(f);
	assert_true(ts_cpumask_equal(m, f));
	ts_cpumask_free(f);
	ts_cpumask_free(m);

	m = alloc_or_fail(TS_MAX_CPUS);
	ts_cpumask_set_range(m, 64, 4095);
	assert_int_equal(ts_cpumask_weight(m), 4032);
	assert_int_equal(ts_cpumask_first(m), 64);
	assert_int_equal(ts_cpumask_next(m, 4095), TS_MAX_CPUS);
	ts_cpumask_free(m);
}

/* ---- combinations ---- */

static void test_and_or_andnot(void **state)
{
	(void)state;
	struct ts_cpumask *a = mask_of(130, "0-3,63-65,129");
	struct ts_cpumask *b = mask_of(130, "2-5,64,100");
	struct ts_cpumask *c = mask_of(130, "10-20");
	struct ts_cpumask *d = alloc_or_fail(130);

	assert_true(ts_cpumask_and(d, a, b));
	assert_format(d, "2-3,64");
	assert_false(ts_cpumask_and(d, a, c)); /* disjoint: empty result, returns false */
	assert_true(ts_cpumask_empty(d));

	ts_cpumask_or(d, a, b);
	assert_format(d, "0-5,63-65,100,129");

	assert_true(ts_cpumask_andnot(d, a, b));
	assert_format(d, "0-1,63,65,129");
	assert_false(ts_cpumask_andnot(d, a, a));
	assert_true(ts_cpumask_empty(d));
	struct ts_cpumask *e = alloc_or_fail(130);
	assert_true(ts_cpumask_andnot(d, a, e)); /* a \ {} = a */
	assert_true(ts_cpumask_equal(d, a));
	assert_false(ts_cpumask_and(d, e, e));
	assert_false(ts_cpumask_andnot(d, e, a));

	/* dst may alias a source, as in the kernel */
	ts_cpumask_copy(d, a);
	assert_true(ts_cpumask_and(d, d, b));
	assert_format(d, "2-3,64");
	ts_cpumask_or(d, d, c);
	assert_format(d, "2-3,10-20,64");

	assert_int_equal(ts_cpumask_weight(a), 8);
	assert_int_equal(ts_cpumask_weight_and(a, b), 3);
	assert_int_equal(ts_cpumask_weight_andnot(a, b), 5);
	assert_int_equal(ts_cpumask_weight_andnot(b, a), 3);
	assert_int_equal(ts_cpumask_weight_and(a, c), 0);
	assert_int_equal(ts_cpumask_weight_andnot(a, e), 8);

	ts_cpumask_free(a);
	ts_cpumask_free(b);
	ts_cpumask_free(c);
	ts_cpumask_free(d);
	ts_cpumask_free(e);
}

static void test_predicates(void **state)
{
	(void)state;
	struct ts_cpumask *a = mask_of(130, "63-64");
	struct ts_cpumask *b = mask_of(130, "0-127");
	struct ts_cpumask *c = mask_of(130, "129");
	struct ts_cpumask *e = alloc_or_fail(130);
	struct ts_cpumask *other = mask_of(129, "63-64"); /* same bits, other size */

	assert_true(ts_cpumask_empty(e));
	assert_false(ts_cpumask_empty(c)); /* the only bit is in the last, partial word */
	assert_true(ts_cpumask_subset(a, b));
	assert_false(ts_cpumask_subset(b, a));
	assert_true(ts_cpumask_subset(e, a));
	assert_true(ts_cpumask_subset(a, a));
	assert_false(ts_cpumask_subset(c, b));
	assert_true(ts_cpumask_intersects(a, b));
	assert_false(ts_cpumask_intersects(c, b));
	assert_false(ts_cpumask_intersects(e, e));
	assert_true(ts_cpumask_equal(a, a));
	assert_false(ts_cpumask_equal(a, b));
	assert_false(ts_cpumask_equal(a, other));

	ts_cpumask_free(a);
	ts_cpumask_free(b);
	ts_cpumask_free(c);
	ts_cpumask_free(e);
	ts_cpumask_free(other);
}

/* ---- searches against a brute-force model ---- */

enum op { OP_ONE, OP_AND, OP_ANDNOT };

static bool model_bit(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu, enum op op)
{
	switch (op) {
	case OP_AND:
		return ts_cpumask_test(a, cpu) && ts_cpumask_test(b, cpu);
	case OP_ANDNOT:
		return ts_cpumask_test(a, cpu) && !ts_cpumask_test(b, cpu);
	default:
		return ts_cpumask_test(a, cpu);
	}
}

static int do_next(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu, enum op op)
{
	switch (op) {
	case OP_AND:
		return ts_cpumask_next_and(a, b, cpu);
	case OP_ANDNOT:
		return ts_cpumask_next_andnot(a, b, cpu);
	default:
		return ts_cpumask_next(a, cpu);
	}
}

static int do_nth(const struct ts_cpumask *a, const struct ts_cpumask *b, int k, enum op op)
{
	switch (op) {
	case OP_AND:
		return ts_cpumask_nth_and(a, b, k);
	case OP_ANDNOT:
		return ts_cpumask_nth_andnot(a, b, k);
	default:
		return ts_cpumask_nth(a, k);
	}
}

/* next(cpu) for every cpu in -1..n-1, nth(k) for every k in 0..weight, and the iterators. */
static void check_searches(const struct ts_cpumask *a, const struct ts_cpumask *b, enum op op)
{
	int n = a->nr_cpus;
	int *first_at = malloc((size_t)(n + 1) * sizeof(int)); /* first set CPU >= c */
	int *list = malloc((size_t)(n + 1) * sizeof(int));
	assert_non_null(first_at);
	assert_non_null(list);
	int w = 0;
	for (int cpu = 0; cpu < n; cpu++)
		if (model_bit(a, b, cpu, op))
			list[w++] = cpu;
	first_at[n] = n;
	for (int c = n - 1; c >= 0; c--)
		first_at[c] = model_bit(a, b, c, op) ? c : first_at[c + 1];
	for (int cpu = -1; cpu < n; cpu++) {
		int got = do_next(a, b, cpu, op);
		if (got != first_at[cpu + 1])
			fail_msg("op %d n %d: next(%d) = %d, want %d", op, n, cpu, got,
				 first_at[cpu + 1]);
	}
	for (int k = 0; k <= w; k++) {
		int got = do_nth(a, b, k, op);
		int want = k < w ? list[k] : n;
		if (got != want)
			fail_msg("op %d n %d: nth(%d) = %d, want %d", op, n, k, got, want);
	}
	assert_int_equal(do_nth(a, b, w + 5, op), n);
	int i = 0, cpu;
	switch (op) {
	case OP_AND:
		assert_int_equal(ts_cpumask_weight_and(a, b), w);
		assert_int_equal(ts_cpumask_first_and(a, b), w ? list[0] : n);
		ts_for_each_cpu_and(cpu, a, b)
		{
			assert_true(i < w);
			assert_int_equal(cpu, list[i++]);
		}
		break;
	case OP_ANDNOT:
		assert_int_equal(ts_cpumask_weight_andnot(a, b), w);
		ts_for_each_cpu_andnot(cpu, a, b)
		{
			assert_true(i < w);
			assert_int_equal(cpu, list[i++]);
		}
		break;
	default:
		assert_int_equal(ts_cpumask_weight(a), w);
		assert_int_equal(ts_cpumask_first(a), w ? list[0] : n);
		ts_for_each_cpu(cpu, a)
		{
			assert_true(i < w);
			assert_int_equal(cpu, list[i++]);
		}
		break;
	}
	assert_int_equal(i, w);
	free(first_at);
	free(list);
}

static void test_next_nth_boundaries(void **state)
{
	(void)state;
	for (int s = 0; s < NR_SIZES; s++) {
		int n = sizes[s];
		struct ts_cpumask *a = alloc_or_fail(n), *b = alloc_or_fail(n);
		/* empty */
		check_searches(a, b, OP_ONE);
		check_searches(a, b, OP_AND);
		check_searches(a, b, OP_ANDNOT);
		/* bits at the word edges only: 0, 63, 64, 65, 127, 128, last */
		const int edge[] = {0, 63, 64, 65, 127, 128, n - 1};
		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
			if (edge[i] >= 0 && edge[i] < n)
				ts_cpumask_set(a, edge[i]);
		if (n > 64)
			ts_cpumask_set(b, 64);
		ts_cpumask_set(b, n - 1);
		check_searches(a, b, OP_ONE);
		check_searches(a, b, OP_AND);
		check_searches(a, b, OP_ANDNOT);
		/* only the last CPU */
		ts_cpumask_zero(a);
		ts_cpumask_set(a, n - 1);
		assert_int_equal(ts_cpumask_first(a), n - 1);
		assert_int_equal(ts_cpumask_next(a, n - 2), n - 1);
		assert_int_equal(ts_cpumask_next(a, n - 1), n);
		check_searches(a, b, OP_ONE);
		/* full */
		ts_cpumask_fill(a);
		check_searches(a, b, OP_ONE);
		check_searches(a, b, OP_ANDNOT);
		ts_cpumask_free(a);
		ts_cpumask_free(b);
	}
}

static void test_next_nth_random(void **state)
{
	(void)state;
	rng_seed(0x5eed1);
	for (int round = 0; round < 3; round++) {
		for (int s = 0; s < NR_SIZES; s++) {
			int n = sizes[s];
			struct ts_cpumask *a = alloc_or_fail(n), *b = alloc_or_fail(n);
			fill_random(a, 20 + 30 * round);
			fill_random(b, 50);
			check_searches(a, b, OP_ONE);
			check_searches(a, b, OP_AND);
			check_searches(a, b, OP_ANDNOT);
			ts_cpumask_free(a);
			ts_cpumask_free(b);
		}
	}
}

/* ---- wrap-around iteration ---- */

/* Walks ts_for_each_cpu_wrap(m, start) into out (at most n + 1 steps, so that a walk that
 * never ends fails instead of hanging) and compares it with the model: set CPUs in
 * start..n-1, then 0..start-1. */
static void check_wrap(const struct ts_cpumask *m, int start)
{
	int n = m->nr_cpus;
	int *got = malloc((size_t)(n + 2) * sizeof(int));
	assert_non_null(got);
	int ng = 0, cpu;
	ts_for_each_cpu_wrap(cpu, m, start)
	{
		if (ng > n)
			fail_msg("wrap walk from %d on %d CPUs does not end", start, n);
		got[ng++] = cpu;
	}
	assert_int_equal(cpu, n); /* the walk ends with nr_cpus */
	int k = 0;
	for (int c = start; c < n; c++)
		if (ts_cpumask_test(m, c)) {
			if (k >= ng || got[k] != c)
				fail_msg("wrap from %d on %d CPUs: step %d is %d, want %d", start,
					 n, k, k < ng ? got[k] : -1, c);
			k++;
		}
	for (int c = 0; c < start; c++)
		if (ts_cpumask_test(m, c)) {
			if (k >= ng || got[k] != c)
				fail_msg("wrap from %d on %d CPUs: step %d is %d, want %d", start,
					 n, k, k < ng ? got[k] : -1, c);
			k++;
		}
	assert_int_equal(ng, k);
	assert_int_equal(ng, ts_cpumask_weight(m));
	free(got);
}

static void test_for_each_cpu_wrap(void **state)
{
	(void)state;
	for (int s = 0; s < NR_SIZES; s++) {
		int n = sizes[s];
		struct ts_cpumask *m = alloc_or_fail(n);
		const int starts[] = {0, 1, 63, 64, 65, n / 2, n - 1};
		const size_t ns = sizeof(starts) / sizeof(starts[0]);

		for (size_t i = 0; i < ns; i++) /* empty mask: no CPU at all */
			if (starts[i] < n)
				check_wrap(m, starts[i]);

		ts_cpumask_fill(m); /* full: every CPU once, start..n-1 then 0..start-1 */
		for (size_t i = 0; i < ns; i++)
			if (starts[i] < n)
				check_wrap(m, starts[i]);

		for (size_t bit = 0; bit < ns; bit++) { /* single-bit mask, every start */
			if (starts[bit] >= n)
				continue;
			ts_cpumask_zero(m);
			ts_cpumask_set(m, starts[bit]);
			for (size_t i = 0; i < ns; i++)
				if (starts[i] < n)
					check_wrap(m, starts[i]);
		}
		ts_cpumask_free(m);
	}

	/* Start inside the mask, outside it, and beyond its last set bit. */
	struct ts_cpumask *m = mask_of(130, "2-4,64,100");
	for (int start = 0; start < 130; start++)
		check_wrap(m, start);
	int cpu, seen[8], k = 0;
	ts_for_each_cpu_wrap(cpu, m, 101) /* beyond every set bit: wraps straight to 2 */
		seen[k++] = cpu;
	assert_int_equal(k, 5);
	assert_int_equal(seen[0], 2);
	assert_int_equal(seen[4], 100);
	k = 0;
	ts_for_each_cpu_wrap(cpu, m, 64) /* at a set bit: it comes first */
		seen[k++] = cpu;
	assert_int_equal(k, 5);
	assert_int_equal(seen[0], 64);
	assert_int_equal(seen[1], 100);
	assert_int_equal(seen[2], 2);
	k = 0;
	ts_for_each_cpu_wrap(cpu, m, 129) /* at the last CPU, which is clear */
		seen[k++] = cpu;
	assert_int_equal(k, 5);
	assert_int_equal(seen[0], 2);
	ts_cpumask_free(m);

	rng_seed(0x3a9);
	for (int round = 0; round < 20; round++) {
		m = alloc_or_fail(sizes[rng_below(NR_SIZES)]);
		fill_random(m, rng_below(100));
		for (int i = 0; i < 8; i++)
			check_wrap(m, rng_below(m->nr_cpus));
		ts_cpumask_free(m);
	}
}

/* ---- format ---- */

static void test_format(void **state)
{
	(void)state;
	struct ts_cpumask *m = mask_of(16, "0-3,8-11");
	assert_format(m, "0-3,8-11");
	ts_cpumask_free(m);

	m = alloc_or_fail(130);
	assert_format(m, "");
	ts_cpumask_set(m, 5);
	assert_format(m, "5");
	ts_cpumask_set(m, 7);
	ts_cpumask_set(m, 129);
	assert_format(m, "5,7,129");
	ts_cpumask_set(m, 6);
	assert_format(m, "5-7,129");
	ts_cpumask_zero(m);
	ts_cpumask_set_range(m, 63, 64); /* a range across a word boundary is one range */
	assert_format(m, "63-64");
	ts_cpumask_set_range(m, 0, 129);
	assert_format(m, "0-129");
	ts_cpumask_free(m);

	m = alloc_or_fail(TS_MAX_CPUS);
	ts_cpumask_fill(m);
	assert_format(m, "0-8191");
	ts_cpumask_clear_cpu(m, 4096);
	assert_format(m, "0-4095,4097-8191");
	ts_cpumask_free(m);
}

/* snprintf contract: returns the full length and writes the first size-1 characters. */
static void test_format_truncation(void **state)
{
	(void)state;
	struct ts_cpumask *m = mask_of(16, "0-3,8-11");
	const char *full = "0-3,8-11";
	size_t len = strlen(full);
	assert_int_equal(ts_cpumask_format(m, NULL, 0), len);
	char buf[32];
	for (size_t size = 1; size <= len + 2; size++) {
		memset(buf, '#', sizeof(buf));
		assert_int_equal(ts_cpumask_format(m, buf, size), len);
		size_t want = size - 1 < len ? size - 1 : len;
		assert_int_equal(strlen(buf), want);
		if (strncmp(buf, full, want) != 0)
			fail_msg(
				"format into %zu bytes gave '%s', want the first %zu bytes of '%s'",
				size, buf, want, full);
		assert_int_equal(buf[size], '#'); /* nothing written past size */
	}
	memset(buf, '#', sizeof(buf));
	assert_int_equal(ts_cpumask_format(m, buf, 0), len);
	assert_int_equal(buf[0], '#');
	ts_cpumask_free(m);
}

/* ---- parse ---- */

static void assert_parses(int n, const char *list, const char *want)
{
	struct ts_cpumask *m = alloc_or_fail(n);
	ts_cpumask_fill(m); /* parsing replaces the whole mask */
	struct ts_error err = {0};
	int rc = ts_cpumask_parse(m, list, &err);
	if (rc)
		fail_msg("parse '%s' on %d CPUs: rc %d: %s", list, n, rc, err.msg);
	assert_int_equal(err.code, 0);
	assert_format(m, want);
	ts_cpumask_free(m);
}

static void test_parse_valid(void **state)
{
	(void)state;
	assert_parses(16, "0-3,8-11", "0-3,8-11");
	assert_parses(16, " 5\n", "5");
	assert_parses(16, "\t0-1,3 \n", "0-1,3");
	assert_parses(16, "", "");
	assert_parses(16, "  \n", "");
	assert_parses(16, "N", "15");
	assert_parses(1, "N", "0");
	assert_parses(16, "0-N", "0-15");
	assert_parses(16, "3,1,2", "1-3");
	assert_parses(16, "0-3,2-5", "0-5");
	assert_parses(130, "63,64,65", "63-65");
	assert_parses(TS_MAX_CPUS, "8191", "8191");
	/* bitmap_parselist stride: a-b:used/group sets the first `used` of every `group`. */
	assert_parses(16, "0-15:2/4", "0-1,4-5,8-9,12-13");
	assert_parses(16, "1-10:1/3", "1,4,7,10");
	assert_parses(16, "0-7:4/4", "0-7");
	assert_parses(16, "0-6:2/4", "0-1,4-5");
	assert_parses(1024, "0-1023:2/256", "0-1,256-257,512-513,768-769");
	assert_parses(16, "0-15:1/8,3", "0,3,8");
}

/* Each bad list: negative return, mask unchanged, message names the list and the problem. */
static void assert_parse_fails(int n, const char *list, const char *problem)
{
	struct ts_cpumask *m = alloc_or_fail(n);
	ts_cpumask_set(m, 0);
	ts_cpumask_set(m, n - 1);
	struct ts_cpumask *before = ts_cpumask_dup(m);
	assert_non_null(before);
	struct ts_error err = {0};
	int rc = ts_cpumask_parse(m, list, &err);
	if (rc >= 0)
		fail_msg("parse '%s' on %d CPUs succeeded; it must fail (%s)", list, n, problem);
	assert_int_equal(err.code, rc);
	assert_true(ts_cpumask_equal(m, before));
	if (!strstr(err.msg, list))
		fail_msg("parse '%s': message '%s' does not name the input", list, err.msg);
	if (!strstr(err.msg, problem))
		fail_msg("parse '%s': message '%s' does not say '%s'", list, err.msg, problem);
	ts_cpumask_free(before);
	ts_cpumask_free(m);
}

static void test_parse_invalid(void **state)
{
	(void)state;
	assert_parse_fails(8, "x", "expected a CPU number");
	assert_parse_fails(8, "3-1", "decreasing");
	assert_parse_fails(8, "0-", "expected a CPU number");
	assert_parse_fails(8, "-1", "expected a CPU number");
	assert_parse_fails(8, "1,,2", "expected a CPU number");
	assert_parse_fails(8, "1,", "trailing");
	assert_parse_fails(8, "0-7:0/4", "stride");
	assert_parse_fails(8, "0-7:5/4", "stride");
	assert_parse_fails(8, "0-7:1/0", "stride");
	assert_parse_fails(8, "0-7:2", "expected '/'");
	assert_parse_fails(8, "9", "out of range");
	assert_parse_fails(8, "8", "out of range");
	assert_parse_fails(8, "0-8", "out of range");
	assert_parse_fails(8, "1x", "unexpected");
	assert_parse_fails(8, "99999999999999999999", "too large");
	assert_parse_fails(TS_MAX_CPUS, "8192", "out of range");

	/* 'N' has no meaning without CPUs */
	struct ts_cpumask *e = alloc_or_fail(0);
	struct ts_error err = {0};
	assert_true(ts_cpumask_parse(e, "N", &err) < 0);
	assert_non_null(strstr(err.msg, "'N'"));
	ts_error_clear(&err);
	assert_int_equal(ts_cpumask_parse(e, "", &err), 0);
	ts_cpumask_free(e);

	/* err may be NULL */
	struct ts_cpumask *m = alloc_or_fail(8);
	assert_int_equal(ts_cpumask_parse(m, "3-1", NULL), -EINVAL);
	assert_true(ts_cpumask_empty(m));
	ts_cpumask_free(m);
}

static void test_format_parse_round_trip(void **state)
{
	(void)state;
	rng_seed(20240601);
	for (int round = 0; round < 300; round++) {
		int n = round < 2 * NR_SIZES ? sizes[round % NR_SIZES] : 1 + rng_below(TS_MAX_CPUS);
		struct ts_cpumask *m = alloc_or_fail(n), *back = alloc_or_fail(n);
		fill_random(m, rng_below(101));
		char *s = fmt(m);
		assert_int_equal(ts_cpumask_format(m, NULL, 0), strlen(s));
		struct ts_error err = {0};
		if (ts_cpumask_parse(back, s, &err))
			fail_msg("round %d: parse of its own output '%.80s' failed: %s", round, s,
				 err.msg);
		if (!ts_cpumask_equal(m, back))
			fail_msg("round %d (%d CPUs): '%.80s' does not parse back to itself", round,
				 n, s);
		char *again = fmt(back);
		assert_string_equal(s, again);
		free(again);
		free(s);
		ts_cpumask_free(m);
		ts_cpumask_free(back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_bounds),
		cmocka_unit_test(test_set_clear_test),
		cmocka_unit_test(test_fill_zero_copy),
		cmocka_unit_test(test_set_range),
		cmocka_unit_test(test_and_or_andnot),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_next_nth_boundaries),
		cmocka_unit_test(test_next_nth_random),
		cmocka_unit_test(test_for_each_cpu_wrap),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_truncation),
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_invalid),
		cmocka_unit_test(test_format_parse_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
