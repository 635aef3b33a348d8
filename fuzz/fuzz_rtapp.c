/* libFuzzer target: the rt-app reader, ts_rtapp_parse() (toposched sim --workload
 * FILE.json), on arbitrary bytes, then the simulator's translation of every description
 * it accepts, ts_sim_rtapp_build(). Never crashes or hangs; an error is -EINVAL (-EFBIG)
 * with a message naming the file; an accepted description is well formed: at least one
 * task, each with phases of 1..TS_RTAPP_MAX_EVENTS events, loops in range, every event
 * with its line and key; a built workload has a class per task with threads. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "toposched/rtapp.h"
#include "toposched/sim_rtapp.h"

static void check_description(const struct ts_rtapp *r)
{
	CHECK(r->nr_tasks >= 1 && r->nr_tasks <= TS_RTAPP_MAX_TASKS);
	CHECK(r->nr_warnings >= 0 && (r->nr_warnings == 0 || r->warnings));
	for (int t = 0; t < r->nr_tasks; t++) {
		const struct ts_rtapp_task *task = &r->tasks[t];
		CHECK(task->name && task->nr_phases >= 1);
		CHECK(task->loop == -1 || task->loop >= 1);
		CHECK(task->instances >= 0 && task->instances <= TS_RTAPP_MAX_INSTANCES);
		CHECK(task->delay_usec >= 0);
		for (int p = 0; p < task->nr_phases; p++) {
			const struct ts_rtapp_phase *ph = &task->phases[p];
			CHECK(ph->loop >= 1);
			CHECK(ph->nr_events >= 1 && ph->nr_events <= TS_RTAPP_MAX_EVENTS);
			for (int e = 0; e < ph->nr_events; e++) {
				const struct ts_rtapp_event *ev = &ph->events[e];
				CHECK(ev->key && ev->line >= 1);
				CHECK(ev->usec >= 0 && ev->bytes >= 0);
				CHECK(ev->kind >= TS_RTAPP_RUN && ev->kind <= TS_RTAPP_IORUN);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_error err = {0};
	struct ts_rtapp *r = NULL;
	int rc = ts_rtapp_parse((const char *)data, size, "fuzz.json", &r, &err);
	if (rc) {
		CHECK((rc == -EINVAL || rc == -EFBIG) && err.code == rc && !r);
		CHECK(strncmp(err.msg, "fuzz.json", 9) == 0);
		return 0;
	}
	CHECK(r && err.code == 0);
	check_description(r);
	struct ts_sim_rtapp *x = NULL;
	rc = ts_sim_rtapp_build(r, "fuzz", &x, &err);
	if (rc) {
		CHECK(rc == -EINVAL && err.msg[0] && !x);
	} else {
		CHECK(x && x->w.nr_classes >= 1 && x->w.nr_classes <= r->nr_tasks);
		for (int c = 0; c < x->w.nr_classes; c++)
			CHECK(x->w.classes[c].count >= 1 && x->w.classes[c].nr_phases >= 1);
	}
	ts_sim_rtapp_free(x);
	ts_rtapp_free(r);
	return 0;
}
