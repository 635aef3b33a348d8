/* rt-app files in the simulator (toposched/sim_rtapp.h): the task programs a file becomes,
 * the timer's semantics against rt-app's (relative and absolute periods, against sleep),
 * the stated costs of mem and iorun, the refusals with file, line, task and key, and
 * determinism. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/rtapp.h"
#include "toposched/sim_rtapp.h"

#include "sim_machine.h"
#include "test_support.h"
#include "trace_reader.h"

#define DATA TS_SOURCE_DIR "/tests/data/rtapp/"

/* The workload of r (freed here), which must build. */
static struct ts_sim_rtapp *build(struct ts_rtapp *r)
{
	struct ts_error err = {0};
	struct ts_sim_rtapp *x = NULL;
	int rc = ts_sim_rtapp_build(r, "t", &x, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	ts_rtapp_free(r);
	return x;
}

static struct ts_sim_rtapp *build_text(const char *text)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	assert_int_equal(ts_rtapp_parse(text, strlen(text), "t.json", &r, &err), 0);
	return build(r);
}

static struct ts_sim_rtapp *build_file(const char *path)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	assert_int_equal(ts_rtapp_load(path, &r, &err), 0);
	return build(r);
}

/* The translation refuses path with every word in its message. */
static void refused_v(const char *path, const char *const *words)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	assert_int_equal(ts_rtapp_load(path, &r, &err), 0);
	struct ts_sim_rtapp *x = NULL;
	int rc = ts_sim_rtapp_build(r, "f", &x, &err);
	ts_rtapp_free(r);
	bool ok = rc == -EINVAL && !x;
	for (int i = 0; ok && words[i]; i++)
		ok = strstr(err.msg, words[i]) != NULL;
	if (!ok) {
		print_message("rc %d: %s\n", rc, err.msg);
		ts_sim_rtapp_free(x);
		fail();
	}
}
#define refused(path, ...) refused_v(path, (const char *const[]){__VA_ARGS__, NULL})

static void test_programs(void **state)
{
	(void)state;
	struct ts_sim_rtapp *x = build_file(DATA "run_sleep.json");
	const struct ts_workload *w = &x->w;
	assert_int_equal(w->nr_classes, 1);
	const struct ts_task_class *c = &w->classes[0];
	assert_string_equal(c->name, "worker");
	assert_int_equal(c->count, 2);
	assert_int_equal(c->iterations, 50); /* one phase: its loop is the iterations */
	assert_int_equal(c->nr_phases, 4);
	assert_int_equal(c->phases[0].kind, TS_PH_RUN);
	assert_int_equal(c->phases[0].ns, 1000000);
	assert_int_equal(c->phases[3].kind, TS_PH_SLEEP);
	assert_int_equal(c->phases[3].ns, 500000);
	assert_int_equal(c->nr_prologue, 1);
	assert_int_equal(c->prologue[0].kind, TS_PH_BARRIER);
	assert_int_equal(w->metric, TS_METRIC_TIME_S); /* every thread ends */
	ts_sim_rtapp_free(x);

	/* two phases of 10 loops each, unrolled; one "unique" timer (one slot) in both */
	x = build_file(DATA "timer_periodic.json");
	c = &x->w.classes[0];
	assert_int_equal(c->nr_phases, 40);
	assert_int_equal(c->iterations, 0);
	assert_int_equal(c->nice, -5);
	assert_int_equal(c->phases[1].kind, TS_PH_TIMER);
	assert_int_equal(c->phases[39].kind, TS_PH_TIMER);
	assert_int_equal(c->phases[39].timer, 0);
	assert_int_equal(c->phases[38].ns, 4000000);
	assert_int_equal(x->w.metric, TS_METRIC_WAKEUP_P99_US);
	assert_int_equal(x->w.default_duration_ns, 1000000000);
	ts_sim_rtapp_free(x);

	/* delay: a sleep after the start barrier; an absolute timer */
	x = build_file(DATA "timer_absolute.json");
	c = &x->w.classes[0];
	assert_int_equal(c->nr_prologue, 2);
	assert_int_equal(c->prologue[1].kind, TS_PH_SLEEP);
	assert_int_equal(c->prologue[1].ns, 5000000);
	assert_true(c->phases[1].timer_absolute);
	ts_sim_rtapp_free(x);

	x = build_file(DATA "phases_cpus.json");
	assert_int_equal(x->w.classes[0].nr_cpus, 2);
	assert_int_equal(x->w.classes[0].iterations, 3);
	assert_int_equal(x->w.classes[0].nr_phases, 11); /* 5 x (run, sleep) + sleep */
	assert_int_equal(x->w.classes[1].nice, 10);
	ts_sim_rtapp_free(x);

	x = build_file(DATA "taskgroup.json");
	assert_string_equal(x->groups_spec, "apps/app=class:app,batch=class:batch");
	ts_sim_rtapp_free(x);
}

/* mem: 100 ns per KiB; iorun on /dev/null: one 0.2 us write() per buffer-sized piece;
 * run with an integer calibration: whole loops only. */
static void test_stated_costs(void **state)
{
	(void)state;
	struct ts_sim_rtapp *x = build_file(DATA "mem_iorun.json");
	const struct ts_task_class *c = &x->w.classes[0];
	assert_int_equal(c->phases[0].kind, TS_PH_RUN);
	assert_int_equal(c->phases[0].ns, 2048 * 100);
	assert_int_equal(c->phases[1].ns, 3 * 200); /* 3 MiB in 1 MiB writes */
	ts_sim_rtapp_free(x);

	x = build_text("{\"global\": {\"calibration\": 300}, \"tasks\": {\"t\": {\"run\": 1}}}");
	assert_int_equal(x->w.classes[0].phases[0].ns, 900); /* floor(1000 / 300) loops */
	ts_sim_rtapp_free(x);
}

static void test_refusals(void **state)
{
	(void)state;
	refused(DATA "err_fork_forever.json", "err_fork_forever.json:3:", "task 'spawner'",
		"'fork'", "loops for ever", "FORKS_LIMIT");
	refused(DATA "err_fork_bomb.json", "err_fork_bomb.json:3:", "task 'bomb'", "'fork'",
		"more than 65536 threads of 'bomb'");
	refused(DATA "err_spin.json", "err_spin.json:3:", "task 'spinner'", "no event takes time");
	refused(DATA "err_policy.json", "task 'rt'", "'policy'", "SCHED_FIFO", "default_policy");
	refused(DATA "err_shared_timer.json", "err_shared_timer.json:6:", "'timer'",
		"shared by 2 threads");
}

static double run_time_s(const char *text)
{
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_rtapp *x = build_text(text);
	struct ts_sim_config cfg = sim_config(&m, &x->w, 1);
	cfg.duration_ns = 10ULL * 1000000000;
	cfg.no_background = true;
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_true(r.finished);
	ts_sim_rtapp_free(x);
	machine_free(&m);
	return r.metric;
}

/* rt-app's timer: periods count from the thread's start, not from the end of its run
 * (sleep does); after an overrun, "relative" restarts the period, "absolute" keeps the
 * grid and catches up. Times in ms; tutorial.txt's examples. */
static void test_timer_semantics(void **state)
{
	(void)state;
	/* 10 x (run 1 ms, period 10 ms): 100 ms; with sleep 10 ms: 110 ms */
	double timer = run_time_s("{\"tasks\": {\"t\": {\"loop\": 10, \"run\": 1000, "
				  "\"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}");
	double sleep = run_time_s("{\"tasks\": {\"t\": {\"loop\": 10, \"run\": 1000, "
				  "\"sleep\": 10000}}}");
	assert_near(timer, 0.100, 0.0005);
	assert_near(sleep, 0.110, 0.0005);
	/* run 30 ms once, then 3 x run 5 ms, all on a 20 ms timer:
	 * absolute: 30 (missed 20), 35 -> 40, 45 -> 60, 65 -> 80: 80 ms;
	 * relative: 30 (missed, restart), 35 -> 50, 55 -> 70, 75 -> 90: 90 ms */
#define TIMER_FMT                                                                                  \
	"{\"tasks\": {\"t\": {\"loop\": 1, \"phases\": {"                                          \
	"\"long\": {\"run\": 30000, \"timer\": {\"ref\": \"u\", \"period\": "                      \
	"20000, \"mode\": \"%s\"}},"                                                               \
	"\"short\": {\"loop\": 3, \"run\": 5000, \"timer\": {\"ref\": \"u\", "                     \
	"\"period\": 20000, \"mode\": \"%s\"}}}}}}"
	char text[512];
	snprintf(text, sizeof(text), TIMER_FMT, "absolute", "absolute");
	assert_near(run_time_s(text), 0.080, 0.0005);
	snprintf(text, sizeof(text), TIMER_FMT, "relative", "relative");
	assert_near(run_time_s(text), 0.090, 0.0005);
}

/* The synchronisation events become the pthread calls run_event() makes: a suspend is
 * lock, wait, (relock), unlock on the mutex and condition both named by ref; a resume
 * lock, broadcast, unlock; a sync signal, wait, relock; yield a system call and the yield;
 * names are per kind (mutex "m" and condition "m" are two objects); a barrier's parties
 * are its barrier events in the file's task descriptions, as rt-app counts them. */
static void test_sync_programs(void **state)
{
	(void)state;
	struct ts_sim_rtapp *x = build_text(
		"{\"tasks\": {\"a\": {\"instance\": 3, \"loop\": 1, \"suspend\": \"m\", "
		"\"sync\": {\"ref\": \"c\", \"mutex\": \"m\"}, \"barrier\": \"b\", \"yield\": 0},"
		"\"z\": {\"resume\": \"m\", \"barrier\": \"b\", \"run\": 10}}}");
	const struct ts_task_class *c = &x->w.classes[0];
	assert_int_equal(x->w.syncs_per_instance, 4); /* mutex m, cond m, cond c, barrier b */
	assert_int_equal(c->nr_phases, 4 + 3 + 1 + 2);
	static const enum ts_phase_kind want[] = {TS_PH_LOCK,	TS_PH_COND_WAIT,    TS_PH_LOCK,
						  TS_PH_UNLOCK, TS_PH_COND_SIGNAL,  TS_PH_COND_WAIT,
						  TS_PH_LOCK,	TS_PH_BARRIER_WAIT, TS_PH_RUN,
						  TS_PH_YIELD};
	for (int i = 0; i < c->nr_phases; i++)
		assert_int_equal(c->phases[i].kind, want[i]);
	int mutex_m = c->phases[0].obj, cond_m = c->phases[1].obj, cond_c = c->phases[4].obj;
	assert_int_not_equal(mutex_m, cond_m);
	assert_int_equal(c->phases[1].mutex, mutex_m);
	assert_int_equal(c->phases[3].obj, mutex_m);
	assert_int_not_equal(cond_c, cond_m);
	assert_int_equal(c->phases[5].mutex, mutex_m); /* sync's "mutex": "m" */
	assert_int_equal(c->phases[7].parties, 2);     /* two descriptions, not 3 + 1 threads */
	assert_int_equal(c->phases[8].ns, 200);	       /* sched_yield()'s system call */
	const struct ts_task_class *z = &x->w.classes[1];
	assert_int_equal(z->phases[0].kind, TS_PH_LOCK);
	assert_int_equal(z->phases[0].obj, mutex_m);
	assert_int_equal(z->phases[1].kind, TS_PH_COND_BROADCAST);
	assert_int_equal(z->phases[1].obj, cond_m);
	assert_int_equal(z->phases[2].kind, TS_PH_UNLOCK);
	assert_int_equal(z->phases[3].obj, c->phases[7].obj);
	ts_sim_rtapp_free(x);
}

/* What the objects do, timed (ms; no background noise, so each run's CPU work is exact):
 * a mutex serialises, a condition wait sleeps until the signal, suspend until the resume,
 * a barrier until its last party. Each file's time differs from the time it would take
 * if the objects did nothing. */
static void test_sync_semantics(void **state)
{
	(void)state;
	/* two threads, 10 x 1 ms under one mutex: 20 ms (10 ms without it) */
	double t = run_time_s("{\"tasks\": {\"t\": {\"instance\": 2, \"loop\": 10, "
			      "\"lock\": \"m\", \"run\": 1000, \"unlock\": \"m\"}}}");
	assert_near(t, 0.020, 0.0003);
	/* signals at 1, 3, ..., 19 ms; the waiter runs 1.5 ms after each: 20.5 ms (20 ms if
	 * the wait did not sleep) */
	t = run_time_s("{\"tasks\": {"
		       "\"w\": {\"loop\": 10, \"lock\": \"m\", \"wait\": {\"ref\": \"c\", "
		       "\"mutex\": \"m\"}, \"unlock\": \"m\", \"run\": 1500},"
		       "\"s\": {\"loop\": 10, \"run\": 1000, \"lock\": \"m\", \"signal\": "
		       "\"c\", \"unlock\": \"m\", \"sleep\": 1000}}}");
	assert_near(t, 0.0205, 0.0003);
	/* resumes at 1, 3, ..., 9 ms; 1.5 ms of work after each: 10.5 ms (10 ms) */
	t = run_time_s("{\"tasks\": {"
		       "\"s\": {\"loop\": 5, \"suspend\": \"x\", \"run\": 1500},"
		       "\"r\": {\"loop\": 5, \"run\": 1000, \"resume\": \"x\", \"sleep\": "
		       "1000}}}");
	assert_near(t, 0.0105, 0.0003);
	/* a: 1 ms, barrier, 2 ms; b: 3 ms, barrier; 5 loops: they meet every 3 ms, a ends
	 * 2 ms after the last meeting at 15 ms: 17 ms (15 ms without the barrier) */
	t = run_time_s("{\"tasks\": {"
		       "\"a\": {\"loop\": 5, \"run\": 1000, \"barrier\": \"b\", \"run1\": 2000},"
		       "\"b\": {\"loop\": 5, \"run\": 3000, \"barrier\": \"b\"}}}");
	assert_near(t, 0.017, 0.0003);
}

/* Our files of the synchronisation events run to their end in the simulator. */
static void test_sync_files_run(void **state)
{
	(void)state;
	static const char *const files[] = {"barrier.json", "lock_unlock.json", "wait_signal.json",
					    "suspend_resume.json", "yield.json"};
	struct machine m;
	machine_load(&m, "kunpeng920");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s%s", DATA, files[i]);
		struct ts_sim_rtapp *x = build_file(path);
		struct ts_sim_config cfg = sim_config(&m, &x->w, 1);
		/* files that end: a cap they finish well within; the others: 20 ms */
		cfg.duration_ns = x->w.metric == TS_METRIC_TIME_S ? 1000000000 : 20000000;
		struct ts_sim_result r = sim_run_ok(&cfg);
		if (x->w.metric == TS_METRIC_TIME_S)
			assert_true(r.finished);
		else
			assert_true(r.wakeups > 0);
		ts_sim_rtapp_free(x);
	}
	machine_free(&m);
}

/* sched_yield(): two threads on one CPU take turns at every yield (a switch each 50 us),
 * where without it each keeps the CPU for its slice. */
static void test_yield_switches(void **state)
{
	(void)state;
	const char *const files[2] = {
		"{\"tasks\": {\"t\": {\"instance\": 2, \"cpus\": [3], \"loop\": 200, "
		"\"run\": 50, \"yield\": 0}}}",
		"{\"tasks\": {\"t\": {\"instance\": 2, \"cpus\": [3], \"loop\": 200, "
		"\"run\": 50, \"run1\": 0}}}"};
	int switches[2];
	for (int i = 0; i < 2; i++) {
		struct machine m;
		machine_load(&m, "kunpeng920");
		struct ts_sim_rtapp *x = build_text(files[i]);
		struct ts_sim_config cfg = sim_config(&m, &x->w, 1);
		cfg.duration_ns = 1000000000;
		cfg.no_background = true;
		char *buf = NULL;
		size_t len = 0;
		cfg.trace = open_memstream(&buf, &len);
		struct ts_sim_result r = sim_run_ok(&cfg);
		fclose(cfg.trace);
		assert_true(r.finished);
		switches[i] = 0;
		for (const char *p = buf; (p = strstr(p, "prev_state=R")); p++)
			switches[i]++;
		free(buf);
		ts_sim_rtapp_free(x);
		machine_free(&m);
	}
	/* 400 runs of 50 us: about one switch per yield with it, a few per slice without */
	assert_true(switches[0] >= 380);
	assert_true(switches[1] <= 40);
}

/* The same file, machine and seed: the same result. */
static void test_deterministic(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_rtapp *x = build_file(DATA "timer_periodic.json");
	struct ts_sim_config cfg = sim_config(&m, &x->w, 2);
	cfg.duration_ns = 50000000;
	struct ts_sim_result a = sim_run_ok(&cfg), b = sim_run_ok(&cfg);
	assert_true(a.wakeups > 0);
	assert_int_equal(a.wakeups, b.wakeups);
	assert_int_equal(a.events, b.events);
	assert_memory_equal(a.wakeup_lat_us, b.wakeup_lat_us, sizeof(a.wakeup_lat_us));
	ts_sim_rtapp_free(x);
	machine_free(&m);
}

/* A thread pinned with "cpus" runs only there. */
static void test_cpus(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_rtapp *x = build_text("{\"tasks\": {\"t\": {\"instance\": 4, \"cpus\": [5], "
					    "\"loop\": 20, \"run\": 500, \"sleep\": 500}}}");
	struct ts_sim_config cfg = sim_config(&m, &x->w, 1);
	cfg.duration_ns = 1000000000;
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_true(r.finished);
	/* four threads on one CPU: 4 x 20 x 0.5 ms of work at least */
	assert_true(r.metric >= 0.040);
	assert_int_equal(r.migrations, 0);
	ts_sim_rtapp_free(x);
	machine_free(&m);
}

/* fork: one class per task for its own threads, one for those its forks create (named
 * NAME-forked when it has both), counted through forks of forked threads; the forked
 * class starts without the start barrier, from t_zero + delay. */
static void test_fork_classes(void **state)
{
	(void)state;
	struct ts_sim_rtapp *x =
		build_text("{\"tasks\": {"
			   "\"a\": {\"instance\": 2, \"loop\": 2, \"fork\": \"b\", \"run\": 10},"
			   "\"b\": {\"instance\": 1, \"loop\": 1, \"delay\": 300, \"fork\": \"c\", "
			   "\"fork1\": \"c\", \"run\": 10},"
			   "\"c\": {\"instance\": 0, \"loop\": 1, \"run\": 10}}}");
	const struct ts_workload *w = &x->w;
	assert_int_equal(w->nr_classes, 4);
	/* a x2, b x1 from the start; b forked 2 x 2 = 4 times; c by 1 + 4 b threads x 2 */
	const char *names[] = {"a", "b", "b-forked", "c"};
	int counts[] = {2, 1, 4, 10};
	enum ts_spawn_kind spawn[] = {TS_SPAWN_LAUNCHER, TS_SPAWN_LAUNCHER, TS_SPAWN_FORK,
				      TS_SPAWN_FORK};
	for (int i = 0; i < 4; i++) {
		assert_string_equal(w->classes[i].name, names[i]);
		assert_int_equal(w->classes[i].count, counts[i]);
		assert_int_equal(w->classes[i].spawn, spawn[i]);
	}
	assert_int_equal(w->classes[0].phases[0].kind, TS_PH_FORK);
	assert_int_equal(w->classes[0].phases[0].obj, 2);
	assert_int_equal(w->classes[1].phases[0].obj, 3);
	assert_int_equal(w->classes[2].phases[1].obj, 3);
	assert_int_equal(w->classes[2].nr_prologue, 1);
	assert_int_equal(w->classes[2].prologue[0].kind, TS_PH_START_DELAY);
	assert_int_equal(w->classes[2].prologue[0].ns, 300000);
	assert_int_equal(w->classes[1].prologue[0].kind, TS_PH_BARRIER);
	ts_sim_rtapp_free(x);
}

/* fork.json in the simulator: the spawner forks its 3 workers through the core's fork path
 * (sched_process_fork, sched_wakeup_new), each runs its 2 x 2 ms; the run ends with the
 * last worker. */
static void test_fork_runs(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_rtapp *x = build_file(DATA "fork.json");
	struct ts_sim_config cfg = sim_config(&m, &x->w, 1);
	cfg.duration_ns = 10ULL * 1000000000;
	cfg.no_background = true;
	char *text = NULL;
	size_t len = 0;
	sim_run_ok_traced(&cfg, &text, &len);
	struct reader *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	read_trace(text, r, m.topo->nr_cpus);
	int workers = 0;
	uint64_t worker_us = 0;
	for (int pid = 1; pid < MAX_PIDS; pid++)
		if (strcmp(r->comm[pid], "worker") == 0) {
			workers++;
			worker_us += r->run_us[pid];
		}
	assert_int_equal(workers, 3);
	/* the launcher forks the spawner, the spawner the workers; the launcher's own start
	 * is a new task too */
	assert_int_equal(r->forks, 4);
	assert_int_equal(r->new_tasks, 5);
	/* 12 ms of work, plus what the machine adds (switches, cache refills) */
	assert_true(worker_us >= 12000 && worker_us < 12300);
	free(r);
	free(text);
	/* the last worker is forked after 2 spawner loops (2 x 1 ms sleep and forks) and
	 * runs 2 + 0.5 + 2 ms: the time to finish is about 6.6 ms */
	struct ts_sim_result res = sim_run_ok(&cfg);
	assert_true(res.finished);
	assert_near(res.metric, 0.0066, 0.0006);
	ts_sim_rtapp_free(x);
	machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_programs),       cmocka_unit_test(test_stated_costs),
		cmocka_unit_test(test_refusals),       cmocka_unit_test(test_timer_semantics),
		cmocka_unit_test(test_deterministic),  cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_sync_programs),  cmocka_unit_test(test_sync_semantics),
		cmocka_unit_test(test_yield_switches), cmocka_unit_test(test_sync_files_run),
		cmocka_unit_test(test_fork_classes),   cmocka_unit_test(test_fork_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
