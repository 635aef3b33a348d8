/* Scheduler feature switches: the table (names, defaults, origins), the sched/features
 * text format (parse: separators, order, every error class with its exact message and
 * *inout untouched; format: the defaults' exact string, snprintf semantics, the
 * format→parse round trip), and 'toposched features' as a user runs it. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "toposched/features.h"

#include "test_support.h"

#define BIT(f)	 (UINT64_C(1) << (f))
#define ALL_BITS (BIT(TS_FEAT_NR) - 1)

static const struct {
	enum ts_feature bit;
	const char *name;
	bool default_on;
	const char *origin;
} expected[] = {
	{TS_FEAT_PLACE_LAG, "PLACE_LAG", true, "mainline"},
	{TS_FEAT_PLACE_DEADLINE_INITIAL, "PLACE_DEADLINE_INITIAL", true, "mainline"},
	{TS_FEAT_RUN_TO_PARITY, "RUN_TO_PARITY", true, "mainline"},
	{TS_FEAT_PREEMPT_SHORT, "PREEMPT_SHORT", true, "mainline"},
	{TS_FEAT_NEXT_BUDDY, "NEXT_BUDDY", false, "mainline"},
	{TS_FEAT_CACHE_HOT_BUDDY, "CACHE_HOT_BUDDY", true, "mainline"},
	{TS_FEAT_WAKEUP_PREEMPTION, "WAKEUP_PREEMPTION", true, "mainline"},
	{TS_FEAT_SIS_PROP, "SIS_PROP", false, "mainline <= v6.6"},
	{TS_FEAT_SIS_UTIL, "SIS_UTIL", true, "mainline"},
	{TS_FEAT_SIS_OVERLOAD, "SIS_OVERLOAD", false, "proposal (Mel Gorman, 2020)"},
	{TS_FEAT_SIS_CLUSTER, "SIS_CLUSTER", true, "toposched"},
	{TS_FEAT_WA_IDLE, "WA_IDLE", true, "mainline"},
	{TS_FEAT_WA_WEIGHT, "WA_WEIGHT", true, "mainline"},
	{TS_FEAT_WA_BIAS, "WA_BIAS", true, "mainline"},
	{TS_FEAT_NEWIDLE_BALANCE, "NEWIDLE_BALANCE", true, "toposched"},
	{TS_FEAT_NUMA, "NUMA", true, "mainline"},
	{TS_FEAT_NUMA_RESERVE, "NUMA_RESERVE", true, "toposched"},
	{TS_FEAT_TG_LOAD_RATELIMIT, "TG_LOAD_RATELIMIT", true, "toposched"},
	{TS_FEAT_TG_LOAD_FILTER, "TG_LOAD_FILTER", true, "toposched"},
	{TS_FEAT_RT_GROUP_SCHED, "RT_GROUP_SCHED", false, "mainline"},
};
#define NR_EXPECTED ((int)(sizeof(expected) / sizeof(expected[0])))

static const char default_string[] =
	"PLACE_LAG PLACE_DEADLINE_INITIAL RUN_TO_PARITY PREEMPT_SHORT NO_NEXT_BUDDY "
	"CACHE_HOT_BUDDY WAKEUP_PREEMPTION NO_SIS_PROP SIS_UTIL NO_SIS_OVERLOAD SIS_CLUSTER "
	"WA_IDLE WA_WEIGHT WA_BIAS NEWIDLE_BALANCE NUMA NUMA_RESERVE TG_LOAD_RATELIMIT "
	"TG_LOAD_FILTER NO_RT_GROUP_SCHED";

static uint64_t parse_ok(const char *text, uint64_t start)
{
	struct ts_features f = {start};
	struct ts_error err = {0};
	if (ts_features_parse(text, &f, &err))
		fail_msg("parse '%s': %s", text, err.msg);
	assert_int_equal(err.code, 0);
	return f.mask;
}

static void test_table(void **state)
{
	(void)state;
	assert_int_equal(ts_feature_count(), TS_FEAT_NR);
	assert_int_equal(NR_EXPECTED, TS_FEAT_NR);
	assert_null(ts_feature_info(-1));
	assert_null(ts_feature_info(TS_FEAT_NR));
	for (int i = 0; i < NR_EXPECTED; i++) {
		const struct ts_feature_info *fi = ts_feature_info((int)expected[i].bit);
		assert_non_null(fi);
		assert_int_equal(expected[i].bit, i); /* table order = enum order */
		assert_string_equal(fi->name, expected[i].name);
		assert_int_equal(fi->default_on, expected[i].default_on);
		assert_string_equal(fi->origin, expected[i].origin);
		/* Kernel spelling: upper case, digits, '_'; never starting with the negation. */
		for (const char *c = fi->name; *c; c++)
			assert_true((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
				    *c == '_');
		assert_int_not_equal(strncmp(fi->name, "NO_", 3), 0);
		assert_true(strlen(fi->meaning) > 10);
		assert_null(strchr(fi->meaning, '\n'));
		for (int j = 0; j < i; j++)
			assert_string_not_equal(ts_feature_info(j)->name, fi->name);
	}
}

static void test_defaults(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	uint64_t want = 0;
	for (int i = 0; i < NR_EXPECTED; i++) {
		if (expected[i].default_on)
			want |= BIT(expected[i].bit);
		assert_int_equal(ts_features_has(f, expected[i].bit), expected[i].default_on);
	}
	assert_int_equal(f.mask, want);
	assert_true(ts_features_has(f, TS_FEAT_SIS_UTIL));
	assert_false(ts_features_has(f, TS_FEAT_SIS_PROP));
	assert_false(ts_features_has(f, TS_FEAT_SIS_OVERLOAD));
	assert_true(ts_features_has(f, TS_FEAT_SIS_CLUSTER));
	assert_false(ts_features_has(f, TS_FEAT_NEXT_BUDDY));

	ts_features_set(&f, TS_FEAT_SIS_PROP);
	assert_true(ts_features_has(f, TS_FEAT_SIS_PROP));
	ts_features_set(&f, TS_FEAT_SIS_PROP);
	assert_int_equal(f.mask, want | BIT(TS_FEAT_SIS_PROP));
	ts_features_clear(&f, TS_FEAT_SIS_UTIL);
	assert_false(ts_features_has(f, TS_FEAT_SIS_UTIL));
	ts_features_clear(&f, TS_FEAT_SIS_PROP);
	ts_features_set(&f, TS_FEAT_SIS_UTIL);
	assert_int_equal(f.mask, want);
	/* Bits outside the table are neither set nor reported. */
	ts_features_set(&f, TS_FEAT_NR);
	ts_features_set(&f, (enum ts_feature) - 1);
	assert_int_equal(f.mask, want);
	struct ts_features high = {~UINT64_C(0)};
	assert_false(ts_features_has(high, TS_FEAT_NR));
	ts_features_clear(&high, TS_FEAT_NR);
	assert_int_equal(high.mask, ~UINT64_C(0));
}

static void test_parse_kernel_style(void **state)
{
	(void)state;
	uint64_t def = ts_features_default().mask;
	uint64_t want = (def & ~BIT(TS_FEAT_SIS_UTIL)) | BIT(TS_FEAT_SIS_PROP);
	assert_int_equal(parse_ok("NO_SIS_UTIL SIS_PROP", def), want);
	/* One name, as the kernel's file takes it. */
	assert_int_equal(parse_ok("NO_SIS_UTIL", def), def & ~BIT(TS_FEAT_SIS_UTIL));
	assert_int_equal(parse_ok("SIS_OVERLOAD", def), def | BIT(TS_FEAT_SIS_OVERLOAD));
	/* Already in that state: no change. */
	assert_int_equal(parse_ok("SIS_UTIL NO_SIS_PROP", def), def);
	/* Applied on top of *inout, not on the defaults. */
	assert_int_equal(parse_ok("WA_IDLE", 0), BIT(TS_FEAT_WA_IDLE));
	assert_int_equal(parse_ok("NO_WA_IDLE", ALL_BITS), ALL_BITS & ~BIT(TS_FEAT_WA_IDLE));
	/* Bits above the table survive a parse. */
	assert_int_equal(parse_ok("NO_SIS_UTIL", ~UINT64_C(0)), ~BIT(TS_FEAT_SIS_UTIL));
	/* Every name, on and off. */
	for (int i = 0; i < TS_FEAT_NR; i++) {
		char text[64];
		snprintf(text, sizeof(text), "%s", ts_feature_info(i)->name);
		assert_int_equal(parse_ok(text, 0), BIT(i));
		snprintf(text, sizeof(text), "NO_%s", ts_feature_info(i)->name);
		assert_int_equal(parse_ok(text, ALL_BITS), ALL_BITS & ~BIT(i));
	}
}

static void test_parse_separators(void **state)
{
	(void)state;
	uint64_t def = ts_features_default().mask;
	uint64_t want = (def & ~BIT(TS_FEAT_SIS_UTIL)) | BIT(TS_FEAT_SIS_PROP);
	static const char *const same[] = {
		"NO_SIS_UTIL,SIS_PROP",	       "NO_SIS_UTIL, SIS_PROP",
		"NO_SIS_UTIL ,SIS_PROP",       "  NO_SIS_UTIL \t , \n SIS_PROP  ",
		"\tNO_SIS_UTIL\tSIS_PROP\n",   "NO_SIS_UTIL   SIS_PROP",
		"NO_SIS_UTIL\r\nSIS_PROP\r\n",
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		assert_int_equal(parse_ok(same[i], def), want);
	/* Mixed: blanks inside a comma-separated field. */
	assert_int_equal(
		parse_ok("NO_WA_IDLE NO_WA_BIAS, SIS_OVERLOAD NEXT_BUDDY,NO_SIS_CLUSTER", def),
		(def & ~(BIT(TS_FEAT_WA_IDLE) | BIT(TS_FEAT_WA_BIAS) | BIT(TS_FEAT_SIS_CLUSTER))) |
			BIT(TS_FEAT_SIS_OVERLOAD) | BIT(TS_FEAT_NEXT_BUDDY));
	/* Nothing to apply. */
	assert_int_equal(parse_ok("", def), def);
	assert_int_equal(parse_ok(" \t\n ", def), def);
	assert_int_equal(parse_ok("", 0x5a5a), 0x5a5a);
}

static void test_parse_later_overrides_earlier(void **state)
{
	(void)state;
	uint64_t def = ts_features_default().mask;
	assert_int_equal(parse_ok("SIS_PROP NO_SIS_PROP", def), def);
	assert_int_equal(parse_ok("NO_SIS_PROP SIS_PROP", def), def | BIT(TS_FEAT_SIS_PROP));
	assert_int_equal(parse_ok("NO_SIS_UTIL SIS_UTIL", def), def);
	assert_int_equal(parse_ok("SIS_UTIL,NO_SIS_UTIL", def), def & ~BIT(TS_FEAT_SIS_UTIL));
	assert_int_equal(parse_ok("SIS_PROP NO_SIS_PROP SIS_PROP NO_SIS_PROP SIS_PROP", def),
			 def | BIT(TS_FEAT_SIS_PROP));
}

static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *msg;
	} cases[] = {
		/* unknown names */
		{"FOO", "unknown feature 'FOO' at offset 0"},
		{"SIS_UTIL NO_FOO", "unknown feature 'NO_FOO' at offset 9"},
		{"NO_SIS_UTIL SIS_PROPX",
		 "unknown feature 'SIS_PROPX' at offset 12; did you mean 'SIS_PROP'?"},
		{"SIS_UTI", "unknown feature 'SIS_UTI' at offset 0; did you mean 'SIS_UTIL'?"},
		{"NO", "unknown feature 'NO' at offset 0"},
		{"NO_NO_SIS_UTIL",
		 "unknown feature 'NO_NO_SIS_UTIL' at offset 0; did you mean 'NO_SIS_UTIL'?"},
		{"SIS_UTIL;SIS_PROP", "unknown feature 'SIS_UTIL;SIS_PROP' at offset 0"},
		{"SIS\x01UTIL",
		 "unknown feature 'SIS\\x01UTIL' at offset 0; did you mean 'SIS_UTIL'?"},
		{"\xc3\xa9", "unknown feature '\\xc3\\xa9' at offset 0"},
		/* case-sensitive, as the kernel; a near name is suggested */
		{"sis_util", "unknown feature 'sis_util' at offset 0; did you mean 'SIS_UTIL'?"},
		{"Sis_Util", "unknown feature 'Sis_Util' at offset 0; did you mean 'SIS_UTIL'?"},
		{"no_SIS_UTIL",
		 "unknown feature 'no_SIS_UTIL' at offset 0; did you mean 'NO_SIS_UTIL'?"},
		{"No_SIS_UTIL",
		 "unknown feature 'No_SIS_UTIL' at offset 0; did you mean 'NO_SIS_UTIL'?"},
		{"NO_sis_util",
		 "unknown feature 'NO_sis_util' at offset 0; did you mean 'NO_SIS_UTIL'?"},
		/* "NO_" alone */
		{"NO_", "'NO_' at offset 0 names no feature"},
		{"SIS_UTIL,NO_", "'NO_' at offset 9 names no feature"},
		{"NO_ SIS_UTIL", "'NO_' at offset 0 names no feature"},
		{"  NO_,SIS_UTIL", "'NO_' at offset 2 names no feature"},
		/* empty names */
		{",", "empty feature name at offset 0"},
		{",,", "empty feature name at offset 0"},
		{"SIS_UTIL,,SIS_PROP", "empty feature name at offset 9"},
		{"SIS_UTIL, ,SIS_PROP", "empty feature name at offset 10"},
		{",SIS_UTIL", "empty feature name at offset 0"},
		{"  ,SIS_UTIL", "empty feature name at offset 2"},
		{"SIS_UTIL,", "empty feature name at offset 9"},
		{"SIS_UTIL , \t", "empty feature name at offset 12"},
	};
	const uint64_t starts[] = {ts_features_default().mask, 0, ALL_BITS, 0x123456789abcdefULL};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
			struct ts_features f = {starts[s]};
			struct ts_error err = {0};
			int rc = ts_features_parse(cases[i].text, &f, &err);
			if (rc != -EINVAL || strcmp(err.msg, cases[i].msg) != 0)
				fail_msg("parse '%s': rc %d, message '%s', want '%s'",
					 cases[i].text, rc, err.msg, cases[i].msg);
			assert_int_equal(err.code, -EINVAL);
			assert_int_equal(f.mask, starts[s]);
			/* Nothing but the bad token and the suggestion is named. */
			const char *hint = strstr(err.msg, "; did you mean");
			for (int k = 0; k < TS_FEAT_NR; k++) {
				const char *at = strstr(err.msg, ts_feature_info(k)->name);
				if (!strstr(cases[i].text, ts_feature_info(k)->name))
					assert_true(!at || (hint && at > hint));
			}
		}
	}
	/* Names before the bad token are not applied either. */
	struct ts_features f = ts_features_default();
	assert_int_equal(ts_features_parse("NO_SIS_UTIL SIS_PROP FOO", &f, NULL), -EINVAL);
	assert_int_equal(f.mask, ts_features_default().mask);
	/* A long token is quoted up to 64 bytes. */
	char longtok[101];
	memset(longtok, 'A', 100);
	longtok[100] = '\0';
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse(longtok, &f, &err), -EINVAL);
	char want[128];
	snprintf(want, sizeof(want), "unknown feature '%.64s...' at offset 0", longtok);
	assert_string_equal(err.msg, want);
	/* No text. */
	ts_error_clear(&err);
	assert_int_equal(ts_features_parse(NULL, &f, &err), -EINVAL);
	assert_true(err.msg[0] != '\0');
	assert_int_equal(ts_features_parse("SIS_UTIL", NULL, NULL), -EINVAL);
	assert_int_equal(f.mask, ts_features_default().mask);
}

static void test_format_default(void **state)
{
	(void)state;
	char buf[TS_FEATURES_STR_MAX];
	int n = ts_features_format(ts_features_default(), buf, sizeof(buf));
	assert_string_equal(buf, default_string);
	assert_int_equal(n, (int)strlen(default_string));

	n = ts_features_format((struct ts_features){0}, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "NO_PLACE_LAG NO_PLACE_DEADLINE_INITIAL NO_RUN_TO_PARITY "
				 "NO_PREEMPT_SHORT NO_NEXT_BUDDY NO_CACHE_HOT_BUDDY "
				 "NO_WAKEUP_PREEMPTION NO_SIS_PROP NO_SIS_UTIL NO_SIS_OVERLOAD "
				 "NO_SIS_CLUSTER NO_WA_IDLE NO_WA_WEIGHT NO_WA_BIAS "
				 "NO_NEWIDLE_BALANCE NO_NUMA NO_NUMA_RESERVE NO_TG_LOAD_RATELIMIT "
				 "NO_TG_LOAD_FILTER NO_RT_GROUP_SCHED");
	assert_true(n < TS_FEATURES_STR_MAX);
	/* Bits above the table are not shown. */
	ts_features_format((struct ts_features){~UINT64_C(0)}, buf, sizeof(buf));
	assert_null(strstr(buf, "NO_"));
}

static void test_format_truncation(void **state)
{
	(void)state;
	struct ts_features def = ts_features_default();
	int full = (int)strlen(default_string);
	assert_int_equal(ts_features_format(def, NULL, 0), full);
	char buf[TS_FEATURES_STR_MAX];
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(ts_features_format(def, buf, 0), full);
	assert_int_equal(buf[0], 'x');
	for (size_t size = 1; size <= (size_t)full + 1; size++) {
		memset(buf, 'x', sizeof(buf));
		assert_int_equal(ts_features_format(def, buf, size), full);
		assert_int_equal(strlen(buf), size - 1);
		assert_memory_equal(buf, default_string, size - 1);
		assert_int_equal(buf[size], 'x'); /* nothing past size */
	}
}

static void check_round_trip(uint64_t mask)
{
	char buf[TS_FEATURES_STR_MAX];
	int n = ts_features_format((struct ts_features){mask}, buf, sizeof(buf));
	assert_true(n > 0 && n < (int)sizeof(buf));
	/* The string names every feature, so where parsing starts does not matter. */
	const uint64_t starts[] = {ts_features_default().mask, 0, ALL_BITS};
	for (size_t s = 0; s < sizeof(starts) / sizeof(starts[0]); s++)
		assert_int_equal(parse_ok(buf, starts[s]), mask);
}

static void test_round_trip(void **state)
{
	(void)state;
	uint64_t def = ts_features_default().mask;
	check_round_trip(def);
	check_round_trip(0);
	check_round_trip(ALL_BITS);
	for (int i = 0; i < TS_FEAT_NR; i++) {
		check_round_trip(def ^ BIT(i));
		check_round_trip(BIT(i));
		check_round_trip(ALL_BITS & ~BIT(i));
	}
	/* Fixed-seed pseudo-random masks. */
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	for (int k = 0; k < 200; k++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		check_round_trip((x * 0x2545F4914F6CDD1DULL) & ALL_BITS);
	}
}

/* --- the CLI --- */

/* `toposched features args...` (args NULL-terminated) through the shared runner
 * (tests/test_support.h), in a fresh temporary directory removed afterwards; the run
 * already in *r, if any, is freed first. Output must fit the sizes it always had: 16383
 * bytes of stdout, 4095 of stderr. */
static void run_cli(struct run *r, const char *const *args)
{
	run_free(r);
	char dir[] = "/tmp/test_features.XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *argv[16] = {"features"};
	int argc = 1;
	for (int i = 0; args[i]; i++) {
		assert_true(argc < 14);
		argv[argc++] = args[i];
	}
	argv[argc] = NULL;
	*r = ts_run_cli(dir, argv, 120);
	ts_tmpdir_remove(dir);
	assert_true(r->out_len < 16384 - 1); /* the whole output fitted */
	assert_true(r->err_len < 4096 - 1);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__})

/* The text row of one feature, its columns split on runs of blanks. */
static void text_row(const char *out, const char *name, char *dflt, char *enabled)
{
	char key[64];
	snprintf(key, sizeof(key), "\n%s ", name);
	const char *row = strstr(out, key);
	if (!row)
		fail_msg("no row for %s in:\n%s", name, out);
	char n[64];
	assert_int_equal(sscanf(row + 1, "%63s %7s %7s", n, dflt, enabled), 3);
	assert_string_equal(n, name);
}

static void test_cli(void **state)
{
	(void)state;
	struct run run = {0}, *r = &run;
	char d[8], e[8];

	run_cli(r, ARGS(NULL));
	assert_int_equal(r->status, 0);
	assert_string_equal(r->err, "");
	assert_int_equal(strncmp(r->out, "feature ", 8), 0);
	int lines = 0;
	for (const char *c = r->out; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 1 + TS_FEAT_NR);
	for (int i = 0; i < TS_FEAT_NR; i++) {
		const struct ts_feature_info *fi = ts_feature_info(i);
		text_row(r->out, fi->name, d, e);
		assert_string_equal(d, fi->default_on ? "on" : "off");
		assert_string_equal(e, d);
		assert_non_null(strstr(r->out, fi->meaning));
	}
	assert_non_null(strstr(r->out, "proposal (Mel Gorman, 2020)"));

	run_cli(r, ARGS("--features", "NO_SIS_UTIL SIS_PROP", NULL));
	assert_int_equal(r->status, 0);
	text_row(r->out, "SIS_UTIL", d, e);
	assert_string_equal(d, "on");
	assert_string_equal(e, "off");
	text_row(r->out, "SIS_PROP", d, e);
	assert_string_equal(d, "off");
	assert_string_equal(e, "on");
	text_row(r->out, "WA_IDLE", d, e);
	assert_string_equal(e, "on");

	/* Repeated --features apply left to right. */
	run_cli(r, ARGS("--features=NO_WA_IDLE", "--features", "WA_IDLE,NO_WA_BIAS", NULL));
	assert_int_equal(r->status, 0);
	text_row(r->out, "WA_IDLE", d, e);
	assert_string_equal(e, "on");
	text_row(r->out, "WA_BIAS", d, e);
	assert_string_equal(e, "off");

	run_cli(r, ARGS("--format", "json", "--features", "NO_SIS_UTIL", NULL));
	assert_int_equal(r->status, 0);
	assert_string_equal(r->err, "");
	assert_int_equal(strncmp(r->out, "{\n  \"features\": [\n", 18), 0);
	assert_non_null(strstr(r->out,
			       "\"name\": \"SIS_UTIL\",\n      \"default\": true,\n"
			       "      \"enabled\": false,\n      \"origin\": \"mainline\",\n"
			       "      \"meaning\": \""));
	assert_non_null(strstr(r->out, "\"name\": \"SIS_OVERLOAD\",\n      \"default\": false,\n"
				       "      \"enabled\": false,\n"
				       "      \"origin\": \"proposal (Mel Gorman, 2020)\""));
	int names = 0;
	for (const char *c = r->out; (c = strstr(c, "\"name\": ")); c++)
		names++;
	assert_int_equal(names, TS_FEAT_NR);
	size_t len = strlen(r->out);
	assert_true(len > 7);
	assert_string_equal(r->out + len - 7, "\n  ]\n}\n");

	run_cli(r, ARGS("--help", NULL));
	assert_int_equal(r->status, 0);
	assert_int_equal(strncmp(r->out, "usage: toposched features", 25), 0);
	assert_string_equal(r->err, "");

	/* Bad input: exit 2, nothing on stdout, one line naming the problem. The parse
	 * messages are ours and asserted whole; the getopt and --format messages belong to
	 * the shared CLI helpers (tests/test_cli.c), so only their key words are. */
	static const struct {
		const char *const args[5];
		const char *err;
		bool whole;
	} bad[] = {
		{{"--features", "NO_SIS_UTIL FOO"},
		 "toposched features: error: --features: unknown feature 'FOO' at offset 12\n",
		 true},
		{{"--features", "sis_util"},
		 "toposched features: error: --features: unknown feature 'sis_util' at offset 0; "
		 "did "
		 "you mean 'SIS_UTIL'?\n",
		 true},
		{{"--features", "NO_"},
		 "toposched features: error: --features: 'NO_' at offset 0 names no feature\n",
		 true},
		{{"--features", "SIS_UTIL,,SIS_PROP"},
		 "toposched features: error: --features: empty feature name at offset 9\n",
		 true},
		{{"--features", "SIS_UTIL", "--features", "FOO"},
		 "toposched features: error: --features: unknown feature 'FOO' at offset 0\n",
		 true},
		{{"SIS_UTIL"}, "toposched features: error: unexpected argument 'SIS_UTIL'\n", true},
		{{"--features"}, "--features", false},
		{{"--format", "xml"}, "xml", false},
		{{"--bogus"}, "--bogus", false},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run_cli(r, bad[i].args);
		if (r->status != 2 || r->out[0] ||
		    (bad[i].whole ? strcmp(r->err, bad[i].err) != 0
				  : !strstr(r->err, bad[i].err)) ||
		    strncmp(r->err, "toposched features: error: ", 27) != 0 ||
		    strchr(r->err, '\n') != r->err + strlen(r->err) - 1)
			fail_msg(
				"case %zu: exit %d, stdout '%s', stderr '%s'; want exit 2 and '%s'",
				i, r->status, r->out, r->err, bad[i].err);
	}
	run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_parse_kernel_style),
		cmocka_unit_test(test_parse_separators),
		cmocka_unit_test(test_parse_later_overrides_earlier),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_format_default),
		cmocka_unit_test(test_format_truncation),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_cli),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
