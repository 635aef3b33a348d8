/* rt-app workload files (github.com/scheduler-tools/rt-app, doc/tutorial.txt): the reader
 * and the host-neutral description it produces. Both hosts run it: the simulator
 * translates it into task programs (src/sim/rtapp_workload.c), the runtime can run the
 * same tasks as real ones. The reader knows nothing of either host.
 *
 * The file is read as rt-app reads it: json-c's tokener in its default (non-strict) mode,
 * which accepts C comments and trailing commas; keys repeated within one object are renamed
 * the way rt-app's doc/workgen does before rt-app sees the file ("run", "run" -> "run",
 * "run1"), so that a phase may list the same event several times. Events are recognised by
 * the prefix of their key, as rt-app's obj_is_event() does ("run2", "sleep_long").
 *
 * What the reader refuses (the message names the key, the task and the line, -EINVAL): a
 * key rt-app gives a meaning the description cannot carry (SCHED_DEADLINE parameters,
 * util_min, nodes_membind, a resources section), a value of the wrong type or range, a
 * missing tasks section. A key rt-app itself ignores (no rt-app code reads it) and the keys
 * that only steer rt-app's own logging are accepted with a warning (warnings[]). */
#ifndef TOPOSCHED_RTAPP_H
#define TOPOSCHED_RTAPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/error.h"

enum ts_rtapp_event_kind {
	TS_RTAPP_RUN,	    /* usec of calibrated work (longer on a slower CPU) */
	TS_RTAPP_RUNTIME,   /* usec of wall-clock time spent running */
	TS_RTAPP_SLEEP,	    /* usec */
	TS_RTAPP_TIMER,	    /* ref, usec = period, absolute */
	TS_RTAPP_BARRIER,   /* ref */
	TS_RTAPP_LOCK,	    /* ref = the mutex */
	TS_RTAPP_UNLOCK,    /* ref = the mutex */
	TS_RTAPP_WAIT,	    /* ref = the condition, mutex */
	TS_RTAPP_SIGNAL,    /* ref = the condition */
	TS_RTAPP_BROADCAST, /* ref = the condition (rt-app's key prefix "broad") */
	TS_RTAPP_SYNC,	    /* signal ref, then wait on it (ref, mutex) */
	TS_RTAPP_SUSPEND,   /* ref: wait on the condition named ref */
	TS_RTAPP_RESUME,    /* ref: broadcast the condition named ref */
	TS_RTAPP_FORK,	    /* ref = the task to create */
	TS_RTAPP_YIELD,
	TS_RTAPP_MEM,	/* bytes written into the per-thread buffer (memset) */
	TS_RTAPP_IORUN, /* bytes written to global.io_device */
};

struct ts_rtapp_event {
	enum ts_rtapp_event_kind kind;
	const char *key; /* as the file writes it (after workgen's renaming): "run1" */
	int line;
	int64_t usec;	   /* RUN, RUNTIME, SLEEP; TIMER: the period */
	int64_t bytes;	   /* MEM, IORUN */
	const char *ref;   /* the named resource, NULL for the others */
	const char *mutex; /* WAIT, SYNC */
	bool absolute;	   /* TIMER: "mode": "absolute" (else relative) */
	bool unique;	   /* TIMER: the ref starts with "unique": one timer per thread */
};

/* Scheduling attributes of a task or a phase; a phase's are "unchanged" unless it sets
 * them. */
enum ts_rtapp_policy {
	TS_RTAPP_POLICY_SAME, /* a phase that sets none */
	TS_RTAPP_POLICY_OTHER,
	TS_RTAPP_POLICY_IDLE,
	TS_RTAPP_POLICY_FIFO,
	TS_RTAPP_POLICY_RR,
	TS_RTAPP_POLICY_DEADLINE,
};

struct ts_rtapp_sched {
	enum ts_rtapp_policy policy;
	bool has_priority;
	int priority; /* the nice value for OTHER and IDLE, the RT priority for FIFO/RR */
	int line;     /* of "policy" or "priority", 0 when neither is given */
};

struct ts_rtapp_phase {
	const char *name; /* NULL: the task has no "phases" object (its events are its own) */
	int line;
	int loop; /* >= 1 */
	struct ts_rtapp_event *events;
	int nr_events;
	int *cpus; /* "cpus" at phase level (NULL: the task's) */
	int nr_cpus;
	int cpus_line;
	struct ts_rtapp_sched sched;
	const char *taskgroup; /* NULL: unchanged */
	int taskgroup_line;
};

struct ts_rtapp_task {
	const char *name;
	int line;
	int instances; /* >= 0 ("instance"); 0 creates no thread (a fork target) */
	int loop;      /* -1: forever */
	int64_t delay_usec;
	int *cpus; /* NULL: every CPU */
	int nr_cpus;
	int cpus_line;
	struct ts_rtapp_sched sched;
	const char *taskgroup; /* NULL: the root group */
	int taskgroup_line;
	struct ts_rtapp_phase *phases;
	int nr_phases;
};

enum ts_rtapp_calibration_kind {
	TS_RTAPP_CALIB_CPU,	    /* "CPUn": rt-app measures ns per loop on CPU n */
	TS_RTAPP_CALIB_NS_PER_LOOP, /* an integer: ns per loop, no measurement */
};

struct ts_rtapp_global {
	int duration_s; /* -1: until every thread ends */
	enum ts_rtapp_calibration_kind calibration;
	int calibration_value; /* the CPU or the ns per loop */
	enum ts_rtapp_policy default_policy;
	bool pi_enabled;
	const char *io_device;	 /* "/dev/null" by default */
	int64_t mem_buffer_size; /* bytes, 4 MiB by default */
	bool cumulative_slack;
};

#define TS_RTAPP_MAX_TASKS     4096
#define TS_RTAPP_MAX_INSTANCES 65536 /* per task */
#define TS_RTAPP_MAX_EVENTS    4096  /* per phase */
#define TS_RTAPP_MAX_FILE      (16 << 20)

struct ts_rtapp {
	const char *file; /* the name messages use */
	struct ts_rtapp_global global;
	struct ts_rtapp_task *tasks;
	int nr_tasks;
	char **warnings; /* one line each, naming file, line and key */
	int nr_warnings;
	struct ts_rtapp_arena *arena; /* every string and array above */
};

/* Reads text (len bytes, not NUL-terminated necessarily) named `file` in messages.
 * 0 and *out, or a negative code with err naming file, line, task and key. */
int ts_rtapp_parse(const char *text, size_t len, const char *file, struct ts_rtapp **out,
		   struct ts_error *err);
/* Reads the file at path (-ENOENT etc. when it cannot be read). */
int ts_rtapp_load(const char *path, struct ts_rtapp **out, struct ts_error *err);
void ts_rtapp_free(struct ts_rtapp *r);

const char *ts_rtapp_event_name(enum ts_rtapp_event_kind kind);

/* rt-app's users of barrier `ref`: pted_barrier() adds one per barrier event naming it,
 * at parse, once per task description (a task's instances share the count, a phase's
 * loop does not multiply it); the last of them to arrive releases the others. */
int ts_rtapp_barrier_users(const struct ts_rtapp *r, const char *ref);
/* Threads (instances) whose events use timer `ref` not named "unique...": rt-app has one
 * such timer for all of them, and each use advances it. */
int ts_rtapp_shared_timer_users(const struct ts_rtapp *r, const char *ref);
const char *ts_rtapp_policy_name(enum ts_rtapp_policy policy);

#endif
