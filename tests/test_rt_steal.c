/* Steal time in the runtime (src/rt/steal.c): wall time in which a worker's thread did not
 * run while its task was running is passed to the core and not charged to the task. A
 * plain thread pinned to the worker's CPU takes about half of it; the task's
 * se.sum_exec_runtime must then fall short of the wall time by about what the workers
 * report as steal, and the charge must be the CPU time the worker's thread received while
 * the task ran (CLOCK_THREAD_CPUTIME_ID, read by the task itself). With
 * TOPOSCHED_RT_STEAL=off the task is charged the wall time. The bounds do not depend on
 * the machine's load (more load only adds steal, and the charge and the CPU time fall
 * together); charge plus steal, and the charge against the CPU time, are held within a
 * tenth of the wall time (the steal is known at ticks). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "test_support.h"
#include "toposched/runtime_core.h"

#define RUN_NS 400000000ULL /* 0.4 s of wall time for the spinning task */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct hog {
	int cpu;
	atomic_int stop;
	uint64_t sink;
};

/* A plain thread spinning on the worker's CPU: the host shares that CPU between it and
 * the worker thread. */
static void *hog_main(void *p)
{
	struct hog *h = p;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((size_t)h->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	uint64_t x = 1;
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed))
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	h->sink = x;
	return NULL;
}

struct spin {
	uint64_t wall, charged, cpu, sink;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spins for RUN_NS of wall time, yielding now and then (a point where the worker can run
 * its tick), and keeps what the scheduler charged it and the CPU time its worker's thread
 * got meanwhile (the task is alone on its worker). */
static void *spin_task(void *p)
{
	struct spin *s = p;
	uint64_t t0 = now_ns(), x = 1, cpu0 = thread_cpu_ns();
	uint64_t c0 = ts_self_sched_task()->se.sum_exec_runtime;
	while (now_ns() - t0 < RUN_NS) {
		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ts_yield();
	}
	s->wall = now_ns() - t0;
	s->cpu = thread_cpu_ns() - cpu0;
	s->charged = ts_self_sched_task()->se.sum_exec_runtime - c0;
	s->sink = x;
	return NULL;
}

/* One run beside the hog: what the task was charged, its wall time and the workers'
 * steal. */
static void run_beside_hog(struct spin *out, uint64_t *steal)
{
	int cpu = ts_first_allowed_cpu();
	char list[16];
	snprintf(list, sizeof(list), "%d", cpu);
	struct ts_rt_config cfg = {.cpulist = list};
	int rc = ts_rt_start(&cfg);
	if (rc)
		print_message("ts_rt_start: %s\n", ts_rt_last_error());
	assert_int_equal(rc, 0);
	struct hog h = {.cpu = cpu};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, hog_main, &h), 0);
	*out = (struct spin){0};
	ts_task_handle t = ts_spawn(spin_task, out, NULL);
	assert_true(t.id != 0);
	assert_int_equal(ts_join(t, NULL), 0);
	atomic_store(&h.stop, 1);
	pthread_join(th, NULL);
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	*steal = st.steal_ns;
	assert_int_equal(ts_rt_stop(), 0);
	print_message("    wall %.1f ms, thread CPU %.1f ms, charged %.1f ms, steal %.1f ms\n",
		      (double)out->wall / 1e6, (double)out->cpu / 1e6, (double)out->charged / 1e6,
		      (double)*steal / 1e6);
}

static void test_steal_not_charged(void **state)
{
	(void)state;
	unsetenv("TOPOSCHED_RT_STEAL");
	struct spin s;
	uint64_t steal;
	run_beside_hog(&s, &steal);
	/* the hog takes about half the CPU */
	assert_true(steal >= s.wall / 5);
	/* charged wall - steal, give or take the steal of the tick periods at either end
	 * (the steal is known at ticks; a steal larger than a charge is carried) */
	assert_true(s.charged + steal <= s.wall + s.wall / 10);
	assert_true(s.charged + steal + s.wall / 10 >= s.wall);
	/* charged the CPU time it got, however little the loaded machine gave it */
	assert_true(s.charged <= s.cpu + s.wall / 10);
	assert_true(s.charged + s.wall / 10 >= s.cpu);
	assert_true(s.charged > 0);
}

/* The steal of a short window, read from another thread (ts_rt_get_stats() at both
 * ends, as `toposched run` reads its window): never more than the window's wall time on
 * the one worker, though the hog takes the worker's CPU in slices of milliseconds and
 * the worker learns of each at its next tick, which may fall in a later window. Read from
 * ticks alone, a window of 0.5 ms that held such a tick showed the whole slice's steal. */
#define WINDOWS	  100
#define WINDOW_NS 500000ULL
#define SLACK_NS  100000ULL /* the two clocks of a read are not read at one instant */

static void test_window_steal(void **state)
{
	(void)state;
	unsetenv("TOPOSCHED_RT_STEAL");
	int cpu = ts_first_allowed_cpu();
	char list[16];
	snprintf(list, sizeof(list), "%d", cpu);
	struct ts_rt_config cfg = {.cpulist = list};
	assert_int_equal(ts_rt_start(&cfg), 0);
	struct hog h = {.cpu = cpu};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, hog_main, &h), 0);
	struct spin sp = {0};
	ts_task_handle t = ts_spawn(spin_task, &sp, NULL);
	assert_true(t.id != 0);
	uint64_t total = 0, worst = 0;
	for (int i = 0; i < WINDOWS; i++) {
		struct ts_rt_stats a, b;
		uint64_t t0 = now_ns();
		ts_rt_get_stats(&a);
		while (now_ns() - t0 < WINDOW_NS)
			;
		ts_rt_get_stats(&b);
		uint64_t wall = now_ns() - t0;
		uint64_t steal = b.steal_ns > a.steal_ns ? b.steal_ns - a.steal_ns : 0;
		if (steal > wall + SLACK_NS)
			fail_msg("window %d: %.1f us of steal in %.1f us", i, (double)steal / 1e3,
				 (double)wall / 1e3);
		total += steal;
		if (steal > worst)
			worst = steal;
	}
	assert_int_equal(ts_join(t, NULL), 0);
	atomic_store(&h.stop, 1);
	pthread_join(th, NULL);
	assert_int_equal(ts_rt_stop(), 0);
	print_message("    %d windows of %.1f ms: steal %.1f ms in all, at most %.1f us in one\n",
		      WINDOWS, (double)WINDOW_NS / 1e6, (double)total / 1e6, (double)worst / 1e3);
	/* the hog had some of the CPU in the windows */
	assert_true(total > 0);
}

static void test_switched_off(void **state)
{
	(void)state;
	setenv("TOPOSCHED_RT_STEAL", "off", 1);
	struct spin s;
	uint64_t steal;
	run_beside_hog(&s, &steal);
	unsetenv("TOPOSCHED_RT_STEAL");
	assert_int_equal(steal, 0);
	assert_true(s.charged >= s.wall - s.wall / 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steal_not_charged),
		cmocka_unit_test(test_window_steal),
		cmocka_unit_test(test_switched_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
