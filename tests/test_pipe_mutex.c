/* pipe->mutex (src/sim/pipe_mutex.c) and the v5.6 pipe (src/sim/engine_pipe.c): two writers on two
 * CPUs that do nothing but write to one pipe under its mutex take turns, so the run lasts at least
 * every write's time in the lock one after the other, where the same writes without the mutex
 * overlap; nothing is lost on the way (every message read, every task finished); a slow reader of a
 * full one-page pipe wakes the blocked writer with every read, although only the page's last read
 * frees its slot (v5.6's was_full rule); a reader that preempts its writer on the writer's CPU
 * does so as the write returns, before the next one; hackbench's pipes run deterministically. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/sim.h"

#include "sim_machine.h"
#include "test_support.h"

#define WRITES	200
#define HOLD_NS 2000 /* each write's time under the mutex */
#define READ_NS 100

static struct ts_phase writer_phases[] = {
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 1, .ns = HOLD_NS, .pipe = true}};
static struct ts_phase reader_phases[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}, .ns = READ_NS, .pipe = true}};

/* A class of `cnt` tasks running `ph` `iters` times. */
#define CLASS(nm, cnt, ph, iters)                                                                  \
	{                                                                                          \
		.name = (nm), .count = (cnt), .footprint_kib = 16, .phases = (ph),                 \
		.nr_phases = (int)(sizeof(ph) / sizeof((ph)[0])), .iterations = (iters)            \
	}
/* Writers and a reader (classes cls) on one pipe of `cap` bytes, timed to the end. */
#define ONE_PIPE(nm, cls, cap)                                                                     \
	{                                                                                          \
		.name = (nm), .description = (nm), .classes = (cls), .nr_classes = 2,              \
		.channels_per_instance = 1, .channel_capacity = (cap), .metric = TS_METRIC_TIME_S, \
		.metric_name = "time", .unit = "s", .load_name = "pipes"                           \
	}

static struct ts_task_class classes[] = {CLASS("writer", 2, writer_phases, WRITES),
					 CLASS("reader", 1, reader_phases, 2 * WRITES)};
static const struct ts_workload two_writers = ONE_PIPE("two-writers", classes, 65536);

/* One run of w, its k-th task pinned to cpus[k], to the end. */
static struct ts_sim_result run_pinned(const struct machine *m, const struct ts_workload *w,
				       const int *cpus, int n)
{
	struct ts_sim_config cfg = sim_config(m, w, 1);
	cfg.pin_cpus = cpus;
	cfg.nr_pin_cpus = n;
	cfg.warmup_ns = 0;
	cfg.duration_ns = 1000 * 1000000ULL;
	return sim_run_ok(&cfg);
}

/* The run's time in ns. */
static double run_two_writers(const struct machine *m)
{
	static const int cpus[] = {0, 1, 2};
	return run_pinned(m, &two_writers, cpus, 3).metric * 1e9;
}

static void test_mutex_serialises_writers(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	double locked = run_two_writers(&m);
	/* without the mutex the same writes run side by side (plus the start-up: the forks) */
	writer_phases[0] = (struct ts_phase){.kind = TS_PH_RUN, .ns = HOLD_NS};
	reader_phases[0] = (struct ts_phase){.kind = TS_PH_RUN, .ns = READ_NS};
	double apart = run_two_writers(&m);
	print_message("two writers: %.0f ns under the mutex, %.0f ns without\n", locked, apart);
	/* 2 x WRITES writes of HOLD_NS, one at a time */
	assert_true(locked >= 2.0 * WRITES * HOLD_NS);
	assert_true(apart < 2.0 * WRITES * HOLD_NS);
	writer_phases[0] = (struct ts_phase){
		.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 1, .ns = HOLD_NS, .pipe = true};
	reader_phases[0] = (struct ts_phase){
		.kind = TS_PH_RECV, .ch = {.chan = 0}, .ns = READ_NS, .pipe = true};
	machine_free(&m);
}

/* A fast writer and a slow reader, pinned apart, on a pipe of one page (40 messages): the
 * writer fills the page and waits; each read finds the pipe full and wakes it; it sleeps
 * again until the page's last read frees the slot, then writes the next 40. Of 10 pages,
 * the reads of the first 9 each wake the writer (the last page's find it gone): 360
 * wake-ups, less the few reads that come while the woken writer has not slept again, plus
 * the reader's own if it reaches the empty pipe before the first write (the 2025 rule,
 * waking only when a slot is free, would give 9). */
static struct ts_phase fast_writer[] = {
	{.kind = TS_PH_RUN, .ns = 200},
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 100, .ns = 100, .pipe = true}};
static struct ts_phase slow_reader[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}, .ns = 100, .pipe = true},
	{.kind = TS_PH_RUN, .ns = 20000}};
static struct ts_task_class full_pipe_classes[] = {CLASS("writer", 1, fast_writer, 400),
						   CLASS("reader", 1, slow_reader, 400)};
static const struct ts_workload full_pipe = ONE_PIPE("full-pipe", full_pipe_classes, 4096);

static void test_full_pipe_wakes_writer_every_read(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	static const int cpus[] = {0, 4};
	struct ts_sim_result r = run_pinned(&m, &full_pipe, cpus, 2);
	print_message("full one-page pipe: %llu wake-ups for 400 messages\n",
		      (unsigned long long)r.wakeups);
	assert_true(r.wakeups >= 340 && r.wakeups <= 361);
	machine_free(&m);
}

/* v5.6's CFS (wakeup_gran 4 ms, sleeper credit 12 ms) on one CPU: a writer whose writes
 * take 100 us and a reader whose reads take 100 ns. The reader sleeps far behind the
 * writer in vruntime, so every write into the empty pipe wakes it (WF_SYNC, on the writer's
 * CPU, at no scan cost: one allowed CPU) and check_preempt_wakeup() preempts the writer;
 * the preemption takes effect as the write returns to user space, so the reader reads
 * that one message and sleeps again: one wake-up per message. (Held until the next write's
 * unlock, as the engine did, it was held again at every write: the reader ran only once
 * the writer was done, 1 wake-up for the 400 messages.) */
#define SLOW_WRITES 400
static struct ts_phase slow_writer[] = {
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 100, .ns = 100000, .pipe = true}};
static struct ts_phase quick_reader[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}, .ns = 100, .pipe = true}};
static struct ts_task_class preempt_classes[] = {CLASS("writer", 1, slow_writer, SLOW_WRITES),
						 CLASS("reader", 1, quick_reader, SLOW_WRITES)};
static const struct ts_workload preempting_reader =
	ONE_PIPE("preempting-reader", preempt_classes, 65536);

static void test_preempting_reader_reads_each_message(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "broadwell-2s");
	struct ts_error err = {0};
	static const int cpus[] = {0, 0};
	struct ts_sim_config cfg = sim_config(&m, &preempting_reader, 1);
	assert_int_equal(ts_kernel_profile_parse("5.6", &cfg.kernel, &err), 0);
	cfg.features = ts_kernel_features_default(&cfg.kernel);
	cfg.pin_cpus = cpus;
	cfg.nr_pin_cpus = 2;
	cfg.warmup_ns = 0;
	cfg.duration_ns = 1000 * 1000000ULL;
	struct ts_sim_result r = sim_run_ok(&cfg);
	print_message("preempting reader: %llu wake-ups for %d messages\n",
		      (unsigned long long)r.wakeups, SLOW_WRITES);
	assert_true(r.wakeups >= SLOW_WRITES * 9 / 10);
	assert_true(r.wakeups <= SLOW_WRITES + 2);
	machine_free(&m);
}

static void test_hackbench_pipes_deterministic(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "broadwell-2s");
	const struct ts_workload *w = ts_workload_find("hackbench");
	assert_non_null(w);
	assert_true(w->classes[0].phases[1].pipe); /* each write locks */
	struct ts_sim_config cfg = sim_config(&m, w, 4);
	cfg.iterations = 5;
	cfg.duration_ns = 1000 * 1000000ULL;
	cfg.warmup_ns = 0;
	struct ts_sim_result a = sim_run_ok(&cfg), b = sim_run_ok(&cfg);
	assert_int_equal(a.events, b.events);
	assert_true(a.metric == b.metric);
	assert_true(a.metric > 0);
	machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mutex_serialises_writers),
		cmocka_unit_test(test_full_pipe_wakes_writer_every_read),
		cmocka_unit_test(test_preempting_reader_reads_each_message),
		cmocka_unit_test(test_hackbench_pipes_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
