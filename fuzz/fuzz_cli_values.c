/* libFuzzer target: the CLI's option value parsers (tools/toposched/cli_parse.c) on
 * arbitrary text. The first input byte picks the parser, the second its bounds (as the
 * commands pass them), the rest is the option's text. Every call either succeeds silently
 * with a value inside the bounds, or refuses with exactly one message naming the option;
 * integers and seeds agree with an independent reading of the text. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_error_capture.h"
#include "fuzz_check.h"
#include "toposched/experiment.h"
#include "toposched/sim.h"

enum parser { P_INT, P_SEED, P_DURATION, P_LIST, P_NODES, P_CPUS, P_FORMAT, P_KERNEL, P_NR };

/* The outcome every parser promises: 0 and no message, or 2 and one naming the option. */
static void check_outcome(int rc, const char *option)
{
	if (rc == 0) {
		CHECK(cli_error_count == 0);
	} else {
		CHECK(rc == CLI_EXIT_USAGE && cli_error_count == 1);
		CHECK(strstr(cli_error_msg, option) != NULL);
	}
}

static void fuzz_int(unsigned param, const char *text)
{
	/* the bounds the commands use, and the extremes */
	static const long bounds[][2] = {
		{1, TS_EXP_MAX_JOBS},
		{10, 10000},
		{1, TS_EXP_MAX_ITERATIONS},
		{0, 3},
		{1, 1L << 24},
		{1, 1000000000L},
		{0, 0},
		{LONG_MIN, LONG_MAX},
	};
	const long *b = bounds[param % (sizeof(bounds) / sizeof(bounds[0]))];
	long v = -7;
	int rc = cli_parse_int("fuzz", "--int", text, b[0], b[1], &v);
	check_outcome(rc, "--int");
	char *end;
	errno = 0;
	long ref = strtol(text, &end, 10);
	bool ref_ok = !errno && end != text && *end == '\0' && ref >= b[0] && ref <= b[1];
	CHECK((rc == 0) == ref_ok);
	if (rc == 0)
		CHECK(v == ref);
}

/* An unsigned 64-bit decimal, read digit by digit. */
static bool seed_reference(const char *text, uint64_t *out)
{
	uint64_t v = 0;
	if (!*text)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static void fuzz_seed(const char *text)
{
	uint64_t v = 0, ref = 0;
	int rc = cli_parse_seed("fuzz", "--seed", text, &v);
	check_outcome(rc, "--seed");
	CHECK((rc == 0) == seed_reference(text, &ref));
	if (rc == 0)
		CHECK(v == ref);
}

static void fuzz_duration(unsigned param, const char *text)
{
	unsigned flags = param & (CLI_DURATION_ZERO | CLI_DURATION_BARE_SECONDS);
	uint64_t ns = UINT64_MAX;
	int rc = cli_parse_duration("fuzz", "--duration", text, flags, &ns);
	check_outcome(rc, "--duration");
	if (rc == 0) {
		CHECK(ns <= CLI_MAX_DURATION_NS);
		CHECK(ns > 0 || (flags & CLI_DURATION_ZERO));
		CHECK(text[0] != '-');
	}
}

static void fuzz_list(unsigned param, const char *text)
{
	static const int maxes[] = {TS_SIM_MAX_TASKS, 1, 64, 999999999};
	static const int max_items[] = {TS_EXP_MAX_LOADS, 1, 16};
	int max = maxes[param % 4], items = max_items[(param / 4) % 3];
	int *v = NULL, n = -1;
	int rc = cli_parse_list("fuzz", "--clients", text, max, items, &v, &n);
	check_outcome(rc, "--clients");
	if (rc == 0) {
		CHECK(v && n >= 1 && n <= items);
		for (int i = 0; i < n; i++)
			CHECK(v[i] >= 1 && v[i] <= max && (i == 0 || v[i - 1] < v[i]));
		free(v);
	}
}

static void fuzz_nodes(unsigned param, const char *text)
{
	int nr_nodes = param == 255 ? 1024 : 1 + (int)(param % 64);
	struct ts_cpumask *m = ts_cpumask_alloc(nr_nodes);
	CHECK(m != NULL);
	int rc = cli_parse_node_list("fuzz", "--pin", text, nr_nodes, "machine", m);
	check_outcome(rc, "--pin");
	if (rc == 0) {
		CHECK(!ts_cpumask_empty(m));
		int r = nr_nodes & 63; /* no bit past nr_nodes */
		CHECK(!r || (m->bits[ts_cpumask_words(nr_nodes) - 1] >> r) == 0);
	}
	ts_cpumask_free(m);
}

static void fuzz_cpus(unsigned param, const char *text)
{
	int nr_cpus = param == 255 ? TS_MAX_CPUS : 1 + (int)param;
	int *cpus = NULL, n = -1;
	int rc = cli_parse_cpu_sequence("fuzz", "--pin-cpus", text, nr_cpus, "machine", &cpus, &n);
	check_outcome(rc, "--pin-cpus");
	if (rc == 0) {
		int commas = 0;
		for (const char *c = text; *c; c++)
			commas += *c == ',';
		CHECK(cpus && n == commas + 1);
		for (int i = 0; i < n; i++)
			CHECK(cpus[i] >= 0 && cpus[i] < nr_cpus);
		free(cpus);
	}
}

static void fuzz_format(const char *text)
{
	enum cli_format f;
	int rc = cli_parse_format("fuzz", text, &f);
	check_outcome(rc, "--format");
	CHECK((rc == 0) == (strcmp(text, "text") == 0 || strcmp(text, "json") == 0));
}

static void fuzz_kernel(const char *text)
{
	struct ts_kernel_profile k;
	int rc = cli_parse_kernel("fuzz", "--kernel", text, &k);
	check_outcome(rc, "--kernel");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 4096) /* long inputs add nothing but time */
		return 0;
	char *text = fuzz_text(data + 2, size - 2);
	if (!text)
		return 0;
	unsigned param = data[1];
	cli_error_capture_reset();
	switch (data[0] % P_NR) {
	case P_INT:
		fuzz_int(param, text);
		break;
	case P_SEED:
		fuzz_seed(text);
		break;
	case P_DURATION:
		fuzz_duration(param, text);
		break;
	case P_LIST:
		fuzz_list(param, text);
		break;
	case P_NODES:
		fuzz_nodes(param, text);
		break;
	case P_CPUS:
		fuzz_cpus(param, text);
		break;
	case P_FORMAT:
		fuzz_format(text);
		break;
	default:
		fuzz_kernel(text);
		break;
	}
	free(text);
	return 0;
}
