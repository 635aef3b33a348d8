/* The runtime's trace (ts_rt_config.trace, TOPOSCHED_TRACE): a small program — a parent
 * task forking a ping and a pong task that pass a token back and forth over two channels,
 * and sleep now and then — runs with the trace on; the file ts_rt_stop() writes is read
 * back by the reader of the simulator's trace test (tests/trace_reader.h: the kernel's
 * line layout, Perfetto's importer's expression, the header's counts, each CPU's switches
 * consistent, a woken task next running where its wake-up placed it). The tasks must
 * appear with their forks, wake-ups and switches on the workers' CPUs. Off, no file is
 * written; TOPOSCHED_TRACE turns it on as the field does; under its bound the header
 * counts every event kept; a file that cannot be created fails the start. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "toposched/runtime_core.h"

#include "trace_reader.h"

#define ROUNDS 200

struct pair {
	struct ts_chan *to_pong, *to_ping;
};

static void *ping(void *arg)
{
	struct pair *p = arg;
	for (int i = 0; i < ROUNDS; i++) {
		assert_int_equal(ts_chan_send(p->to_pong, &i), 0);
		int j;
		assert_int_equal(ts_chan_recv(p->to_ping, &j), 0);
		assert_int_equal(j, i);
		if (i % 50 == 0)
			ts_sleep_ns(100000);
	}
	return NULL;
}

static void *pong(void *arg)
{
	struct pair *p = arg;
	for (int i = 0; i < ROUNDS; i++) {
		int j;
		assert_int_equal(ts_chan_recv(p->to_pong, &j), 0);
		assert_int_equal(ts_chan_send(p->to_ping, &j), 0);
	}
	return NULL;
}

static void *parent(void *arg)
{
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.name = "ping";
	ts_task_handle h1 = ts_spawn(ping, arg, &a);
	a.name = "pong";
	ts_task_handle h2 = ts_spawn(pong, arg, &a);
	assert_true(h1.id && h2.id);
	assert_int_equal(ts_join(h1, NULL), 0);
	assert_int_equal(ts_join(h2, NULL), 0);
	return NULL;
}

/* Runs the program with cfg; returns the trace file's text (NULL: none was written). */
static char *run_traced(struct ts_rt_config *cfg, const char *path)
{
	unlink(path);
	int rc = ts_rt_start(cfg);
	if (rc)
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
	struct pair p = {ts_chan_create(1, sizeof(int)), ts_chan_create(1, sizeof(int))};
	assert_non_null(p.to_pong);
	assert_non_null(p.to_ping);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.name = "parent";
	ts_task_handle h = ts_spawn(parent, &p, &a);
	assert_true(h.id != 0);
	assert_int_equal(ts_join(h, NULL), 0);
	if (ts_rt_stop())
		fail_msg("ts_rt_stop: %s", ts_rt_last_error());
	ts_chan_destroy(p.to_pong);
	ts_chan_destroy(p.to_ping);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	unlink(path);
	return text;
}

static int header_cpus(const char *text)
{
	const char *p = strstr(text, "#P:");
	assert_non_null(p);
	return atoi(p + 3);
}

static void test_trace_read_back(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_rt_trace.%d", (int)getpid());
	struct ts_rt_config cfg = {.trace = path};
	char *text = run_traced(&cfg, path);
	assert_non_null(text);
	int nr_cpus = header_cpus(text);
	assert_true(nr_cpus > 0 && nr_cpus <= MAX_CPUS);
	struct reader *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	read_trace(text, r, nr_cpus);
	/* the parent forks ping and pong from its worker; main's spawn of the parent is a
	 * new task without a parent task */
	assert_true(r->forks >= 2);
	assert_true(r->new_tasks >= 3);
	int seen = 0;
	for (int pid = 1; pid < MAX_PIDS; pid++) {
		uint64_t runs = r->runs_on[pid][0] + r->runs_on[pid][1];
		if (!strcmp(r->comm[pid], "ping") || !strcmp(r->comm[pid], "pong")) {
			seen++;
			assert_true(runs >= 1);
		}
	}
	assert_int_equal(seen, 2);
	/* every round of the token blocks one of the two until the other sends */
	assert_true(r->wakeups >= ROUNDS);
	assert_true(r->switches >= ROUNDS);
	free(r);
	free(text);
}

static void test_trace_off_and_bounded(void **state)
{
	(void)state;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/test_rt_trace_off.%d", (int)getpid());
	struct ts_rt_config off = {0};
	assert_null(run_traced(&off, path));
	setenv("TOPOSCHED_TRACE", path, 1);
	char *text = run_traced(&off, path);
	unsetenv("TOPOSCHED_TRACE");
	assert_non_null(text);
	assert_non_null(strstr(text, "sched_switch: "));
	free(text);
	/* 1 MiB is more than this run needs: nothing dropped */
	struct ts_rt_config small = {.trace = path, .trace_max_mb = 1};
	text = run_traced(&small, path);
	assert_non_null(text);
	unsigned long long kept, written;
	const char *h = strstr(text, "entries-in-buffer/entries-written: ");
	assert_non_null(h);
	assert_int_equal(sscanf(h, "entries-in-buffer/entries-written: %llu/%llu", &kept, &written),
			 2);
	assert_true(kept > 0);
	assert_int_equal(kept, written);
	free(text);
	/* a trace file that cannot be created fails the start, naming it */
	struct ts_rt_config bad = {.trace = "/nonexistent-dir/trace.txt"};
	assert_int_equal(ts_rt_start(&bad), -ENOENT);
	assert_non_null(strstr(ts_rt_last_error(), "/nonexistent-dir/trace.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_read_back),
		cmocka_unit_test(test_trace_off_and_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
