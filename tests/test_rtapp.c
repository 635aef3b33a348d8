/* The rt-app reader (toposched/rtapp.h): rt-app's own syntax (comments, trailing commas,
 * repeated keys renamed as doc/workgen does, events by prefix), every event's parameters,
 * the global section, and the refusals and warnings with their file, line, task and key.
 * The files are tests/data/rtapp/. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/rtapp.h"

#define DATA TS_SOURCE_DIR "/tests/data/rtapp/"

static struct ts_rtapp *load(const char *name)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	int rc = ts_rtapp_load(name, &r, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	return r;
}

static struct ts_rtapp *parse(const char *text)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	int rc = ts_rtapp_parse(text, strlen(text), "t.json", &r, &err);
	if (rc)
		print_message("%s\n", err.msg);
	assert_int_equal(rc, 0);
	return r;
}

/* Refused: -EINVAL and a message holding every word (NULL-terminated). */
static void refused_v(const char *text, const char *const *words)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	int rc = ts_rtapp_parse(text, strlen(text), "t.json", &r, &err);
	bool ok = rc == -EINVAL && !r;
	for (int i = 0; ok && words[i]; i++)
		ok = strstr(err.msg, words[i]) != NULL;
	if (!ok) {
		print_message("rc %d, message: %s\nwanted:", rc, err.msg);
		for (int i = 0; words[i]; i++)
			print_message(" [%s]", words[i]);
		print_message("\n");
		ts_rtapp_free(r);
		fail();
	}
}
#define refused(text, ...) refused_v(text, (const char *const[]){__VA_ARGS__, NULL})

static const struct ts_rtapp_event *event(const struct ts_rtapp *r, int task, int phase, int i)
{
	assert_true(task < r->nr_tasks);
	assert_true(phase < r->tasks[task].nr_phases);
	assert_true(i < r->tasks[task].phases[phase].nr_events);
	return &r->tasks[task].phases[phase].events[i];
}

/* Comments, trailing commas, a repeated key (workgen's "run1"), and a task that is its
 * own phase: "loop" is the phase's, the task then runs once. */
static void test_syntax_as_rtapp(void **state)
{
	(void)state;
	struct ts_rtapp *r = load(DATA "run_sleep.json");
	assert_int_equal(r->nr_tasks, 1);
	const struct ts_rtapp_task *t = &r->tasks[0];
	assert_string_equal(t->name, "worker");
	assert_int_equal(t->instances, 2);
	assert_int_equal(t->loop, 1);
	assert_int_equal(t->nr_phases, 1);
	assert_null(t->phases[0].name);
	assert_int_equal(t->phases[0].loop, 50);
	assert_int_equal(t->phases[0].nr_events, 4);
	static const char *const keys[] = {"run", "sleep", "run1", "sleep1"};
	static const int64_t usec[] = {1000, 2000, 500, 500};
	for (int i = 0; i < 4; i++) {
		const struct ts_rtapp_event *e = event(r, 0, 0, i);
		assert_string_equal(e->key, keys[i]);
		assert_int_equal(e->kind, i % 2 ? TS_RTAPP_SLEEP : TS_RTAPP_RUN);
		assert_int_equal(e->usec, usec[i]);
		assert_int_equal(e->line, 8 + i);
	}
	assert_int_equal(r->global.duration_s, -1);
	assert_int_equal(r->global.calibration, TS_RTAPP_CALIB_CPU);
	assert_int_equal(r->global.calibration_value, 0);
	assert_int_equal(r->global.default_policy, TS_RTAPP_POLICY_OTHER);
	assert_int_equal(r->nr_warnings, 0);
	ts_rtapp_free(r);
}

/* workgen's renaming: the first free KEY<n>, n kept per object (its curid). */
static void test_repeated_keys(void **state)
{
	(void)state;
	struct ts_rtapp *r = parse("{\"tasks\": {\"t\": {\"run\": 1, \"run1\": 2, \"run\": 3, "
				   "\"sleep\": 4, \"sleep\": 5, \"run\": 6}}}");
	static const char *const keys[] = {"run", "run1", "run2", "sleep", "sleep2", "run3"};
	assert_int_equal(r->tasks[0].phases[0].nr_events, 6);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(event(r, 0, 0, i)->key, keys[i]);
		assert_int_equal(event(r, 0, 0, i)->usec, i + 1);
	}
	ts_rtapp_free(r);
}

/* A task without "phases": "loop": -1 (or none) loops forever, N runs its events N times. */
static void test_task_level_loop(void **state)
{
	(void)state;
	struct ts_rtapp *r = parse("{\"tasks\": {\"a\": {\"loop\": -1, \"run\": 1}, "
				   "\"b\": {\"run\": 1}, \"c\": {\"loop\": 7, \"run\": 1}}}");
	assert_int_equal(r->tasks[0].loop, -1);
	assert_int_equal(r->tasks[0].phases[0].loop, 1);
	assert_int_equal(r->tasks[1].loop, -1);
	assert_int_equal(r->tasks[2].loop, 1);
	assert_int_equal(r->tasks[2].phases[0].loop, 7);
	ts_rtapp_free(r);
	/* a phase of keys that are no events: the first such key is named */
	refused("{\"tasks\": {\"t\": {\"phases\": {\"p\": {\n\"external_workload\": {}}}}}}",
		":2:", "phase 'p'", "'external_workload'", "not an rt-app event");
}

/* Events are recognised by prefix, in rt-app's order: "runtime" is not "run". */
static void test_event_prefixes(void **state)
{
	(void)state;
	struct ts_rtapp *r = parse("{\"tasks\": {\"t\": {\"run_a\": 1, \"runtime_b\": 2, "
				   "\"sleeping\": 3, \"broadcast\": \"c\", \"memset\": 4, "
				   "\"yield_now\": \"\"}}}");
	static const enum ts_rtapp_event_kind kinds[] = {TS_RTAPP_RUN,	 TS_RTAPP_RUNTIME,
							 TS_RTAPP_SLEEP, TS_RTAPP_BROADCAST,
							 TS_RTAPP_MEM,	 TS_RTAPP_YIELD};
	assert_int_equal(r->tasks[0].phases[0].nr_events, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(event(r, 0, 0, i)->kind, kinds[i]);
	assert_string_equal(event(r, 0, 0, 3)->ref, "c");
	assert_int_equal(event(r, 0, 0, 4)->bytes, 4);
	ts_rtapp_free(r);
}

static void test_phases_and_timers(void **state)
{
	(void)state;
	struct ts_rtapp *r = load(DATA "timer_periodic.json");
	const struct ts_rtapp_task *t = &r->tasks[0];
	assert_int_equal(t->instances, 3);
	assert_int_equal(t->loop, -1);
	assert_true(t->sched.has_priority);
	assert_int_equal(t->sched.priority, -5);
	assert_int_equal(t->nr_phases, 2);
	assert_string_equal(t->phases[0].name, "light");
	assert_string_equal(t->phases[1].name, "heavy");
	assert_int_equal(t->phases[1].loop, 10);
	const struct ts_rtapp_event *timer = event(r, 0, 1, 1);
	assert_int_equal(timer->kind, TS_RTAPP_TIMER);
	assert_string_equal(timer->ref, "unique");
	assert_true(timer->unique);
	assert_false(timer->absolute);
	assert_int_equal(timer->usec, 10000);
	assert_int_equal(r->global.duration_s, 1);
	assert_int_equal(r->global.calibration, TS_RTAPP_CALIB_NS_PER_LOOP);
	assert_int_equal(r->global.calibration_value, 100);
	ts_rtapp_free(r);

	r = load(DATA "timer_absolute.json");
	timer = event(r, 0, 0, 1);
	assert_true(timer->absolute);
	assert_false(timer->unique);
	assert_string_equal(timer->ref, "tick");
	assert_int_equal(r->tasks[0].delay_usec, 5000);
	ts_rtapp_free(r);
}

static void test_resource_events(void **state)
{
	(void)state;
	struct ts_rtapp *r = load(DATA "wait_signal.json");
	assert_int_equal(r->nr_tasks, 3);
	const struct ts_rtapp_event *wait = event(r, 0, 0, 1);
	assert_int_equal(wait->kind, TS_RTAPP_WAIT);
	assert_string_equal(wait->ref, "c");
	assert_string_equal(wait->mutex, "m");
	assert_int_equal(event(r, 0, 0, 0)->kind, TS_RTAPP_LOCK);
	assert_int_equal(event(r, 0, 0, 2)->kind, TS_RTAPP_UNLOCK);
	assert_int_equal(event(r, 1, 0, 2)->kind, TS_RTAPP_SIGNAL);
	assert_int_equal(event(r, 1, 0, 3)->kind, TS_RTAPP_BROADCAST);
	assert_int_equal(r->tasks[2].instances, 0);
	assert_int_equal(event(r, 2, 0, 0)->kind, TS_RTAPP_SYNC);
	ts_rtapp_free(r);

	r = load(DATA "fork_yield.json");
	assert_int_equal(event(r, 0, 0, 0)->kind, TS_RTAPP_FORK);
	assert_string_equal(event(r, 0, 0, 0)->ref, "child");
	assert_int_equal(event(r, 0, 0, 1)->kind, TS_RTAPP_YIELD);
	ts_rtapp_free(r);

	r = load(DATA "suspend_resume.json");
	assert_int_equal(event(r, 0, 0, 0)->kind, TS_RTAPP_SUSPEND);
	assert_int_equal(event(r, 1, 0, 1)->kind, TS_RTAPP_RESUME);
	assert_string_equal(event(r, 1, 0, 1)->ref, "sleeper");
	ts_rtapp_free(r);

	r = load(DATA "barrier.json");
	assert_int_equal(event(r, 1, 0, 1)->kind, TS_RTAPP_BARRIER);
	assert_string_equal(event(r, 1, 0, 1)->ref, "sync_point");
	ts_rtapp_free(r);

	r = load(DATA "mem_iorun.json");
	assert_int_equal(event(r, 0, 0, 0)->bytes, 2097152);
	assert_int_equal(event(r, 0, 0, 1)->kind, TS_RTAPP_IORUN);
	assert_int_equal(r->global.mem_buffer_size, 1048576);
	assert_string_equal(r->global.io_device, "/dev/null");
	ts_rtapp_free(r);
}

static void test_task_attributes(void **state)
{
	(void)state;
	struct ts_rtapp *r = load(DATA "phases_cpus.json");
	const struct ts_rtapp_task *t = &r->tasks[0];
	assert_int_equal(t->nr_cpus, 2);
	assert_int_equal(t->cpus[1], 1);
	assert_int_equal(t->loop, 3);
	assert_int_equal(t->phases[1].nr_cpus, 2);
	assert_int_equal(r->tasks[1].sched.policy, TS_RTAPP_POLICY_OTHER);
	assert_int_equal(r->tasks[1].sched.priority, 10);
	ts_rtapp_free(r);

	r = load(DATA "taskgroup.json");
	assert_string_equal(r->tasks[0].taskgroup, "/apps/app");
	assert_string_equal(r->tasks[1].taskgroup, "/batch");
	ts_rtapp_free(r);
}

/* Keys rt-app ignores, or that only steer its logs: warnings with file, line and key. */
static void test_warnings(void **state)
{
	(void)state;
	struct ts_rtapp *r = load(DATA "ignored_keys.json");
	assert_int_equal(r->nr_warnings, 9);
	assert_non_null(strstr(r->warnings[0], "ignored_keys.json:2: the file: 'resources'"));
	assert_non_null(strstr(r->warnings[5], ":11: global: 'not_a_key': ignored"));
	assert_non_null(strstr(r->warnings[7], ":16: task 't': 'comment': ignored"));
	assert_non_null(strstr(r->warnings[8], ":18: task 't': 'extra'"));
	assert_false(r->global.pi_enabled);
	ts_rtapp_free(r);
}

static void test_refusals(void **state)
{
	(void)state;
	refused("{\n\"tasks\": {\n\"boost\": {\n\"run\": 1,\n\"util_min\": 10}}}",
		"t.json:5:", "task 'boost'", "'util_min'", "uclamp");
	refused("{\"tasks\": {\"t\": {\n\"phases\": {\"p\": {\n\"nodes_membind\": [0], "
		"\"run\": 1}}}}}",
		":3:", "task 't' phase 'p'", "'nodes_membind'");
	refused("{\"tasks\": {\"t\": {\"phases\": {\"p\": {\n\n\"run\": \"10\"}}}}}",
		":3:", "'run'", "integer");
	refused("{\"tasks\": {\"t\": {\"sleep\": -1}}}", "'sleep'", "out of range");
	refused("{\"tasks\": {\"t\": {\n\"run\" 1}}}", "t.json:2:", "not valid JSON");
	refused("{\"tasks\": {\"t\": {\"run\": 1}}", "t.json:1:", "ends early");
	refused("{\"global\": {}}", "no \"tasks\"");
	refused("[1]", "JSON object");
	refused("{\"tasks\": {\"t\": {\"loop\": 3}}}", "task 't'", "no events");
	refused("{\"tasks\": {\"t\": {\"phases\": {\"p\": {\"loop\": 0, \"run\": 1}}}}}",
		"phase 'p'", "'loop'");
	refused("{\"tasks\": {\"t\": {\"loop\": 0, \"run\": 1}}}", "'loop'", "forever");
	refused("{\"tasks\": {\"t\": {\"policy\": \"SCHED_BATCH\", \"run\": 1}}}", "'policy'",
		"SCHED_BATCH");
	refused("{\"tasks\": {\"t\": {\"priority\": 50, \"run\": 1}}}", "'priority'", "nice");
	refused("{\"tasks\": {\"t\": {\"taskgroup\": \"g\", \"run\": 1}}}", "'taskgroup'",
		"start with '/'");
	refused("{\"tasks\": {\n\"t\": {\"fork\": \"nobody\"}}}", "t.json:2:", "'fork'",
		"'nobody'");
	refused("{\"tasks\": {\"t\": {\"cpus\": [0, -1], \"run\": 1}}}", "'cpus'", "element 1");
	refused("{\"global\": {\"calibration\": \"GPU0\"}, \"tasks\": {\"t\": {\"run\": 1}}}",
		"global", "'calibration'", "GPU0");
	refused("{\"tasks\": {\"t\": {\"timer\": 5, \"run\": 1}}}", "'timer'", "object");
	refused("{\"tasks\": {\"t\": {\"run\": 1}}} x", "text after");
}

/* A NUL byte (which ends the text for json-c) is refused with its line, also inside a
 * repeated key, whose renaming would otherwise compare equal forever. */
static void test_nul_byte(void **state)
{
	(void)state;
	static const char text[] = "{\"tasks\": {\"t\": {\n\"r\0x\": 1, \"r\0x\": 2}}}";
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	assert_int_equal(ts_rtapp_parse(text, sizeof(text) - 1, "n.json", &r, &err), -EINVAL);
	assert_null(r);
	assert_non_null(strstr(err.msg, "n.json:2: a NUL byte"));
}

/* Every prefix of a real file: an error or a description, never a crash. */
static void test_truncated_files(void **state)
{
	(void)state;
	FILE *f = fopen(DATA "timer_periodic.json", "rb");
	assert_non_null(f);
	char text[4096];
	size_t len = fread(text, 1, sizeof(text), f);
	fclose(f);
	int ok = 0;
	for (size_t n = 0; n <= len; n++) {
		struct ts_error err = {0};
		struct ts_rtapp *r = NULL;
		int rc = ts_rtapp_parse(text, n, "cut.json", &r, &err);
		assert_true(rc == 0 || (rc == -EINVAL && err.msg[0] && !r));
		ok += rc == 0;
		ts_rtapp_free(r);
	}
	assert_true(ok >= 1); /* the whole file */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_as_rtapp), cmocka_unit_test(test_repeated_keys),
		cmocka_unit_test(test_event_prefixes),	cmocka_unit_test(test_phases_and_timers),
		cmocka_unit_test(test_resource_events), cmocka_unit_test(test_task_attributes),
		cmocka_unit_test(test_warnings),	cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_truncated_files), cmocka_unit_test(test_task_level_loop),
		cmocka_unit_test(test_nul_byte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
