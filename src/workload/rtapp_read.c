/* The rt-app reader: text -> struct ts_rtapp, with rt-app's own rules (its
 * src/rt-app_parse_config.c: which keys it reads at which level, their types and
 * defaults, events by key prefix) and one message per refusal naming the file, line, task
 * and key. */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp_arena.h"
#include "rtapp_keys.h"
#include "toposched/rtapp.h"

#define PATH_MAX_LEN		1024
#define DEFAULT_MEM_BUFFER_SIZE (4 * 1024 * 1024) /* rt-app's DEFAULT_MEM_BUF_SIZE */
#define DEFAULT_RT_PRIORITY	10		  /* rt-app's DEFAULT_THREAD_PRIORITY */

struct rd {
	struct ts_rtapp *r;
	struct ts_rtapp_arena *a;
	const struct rtapp_keys *keys;
	struct ts_error *err;
	int cap_warnings;
};

/* The object being read: its path (for lines) and what the messages call it. */
struct where {
	const char *task;  /* NULL: global or the root */
	const char *phase; /* NULL: the task's own level */
	const char *what;  /* "global", "the file" when task is NULL */
	char path[PATH_MAX_LEN];
};

static void where_child(struct where *child, const struct where *parent, const char *key)
{
	*child = *parent;
	size_t n = strlen(child->path);
	snprintf(child->path + n, sizeof(child->path) - n, "%s%s", n ? "\x1f" : "", key);
}

static int line_of(const struct rd *rd, const struct where *w, const char *key)
{
	struct where k;
	where_child(&k, w, key);
	int line = rtapp_keys_line(rd->keys, k.path);
	return line ? line : rtapp_keys_line(rd->keys, w->path);
}

static void context(const struct rd *rd, const struct where *w, const char *key, char *buf,
		    size_t size)
{
	char at[32] = "";
	int line = line_of(rd, w, key);
	if (line)
		snprintf(at, sizeof(at), ":%d", line);
	if (w->task && w->phase)
		snprintf(buf, size, "%s%s: task '%s' phase '%s': '%s'", rd->r->file, at, w->task,
			 w->phase, key);
	else if (w->task)
		snprintf(buf, size, "%s%s: task '%s': '%s'", rd->r->file, at, w->task, key);
	else
		snprintf(buf, size, "%s%s: %s: '%s'", rd->r->file, at, w->what, key);
}

static int fail(struct rd *rd, const struct where *w, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct rd *rd, const struct where *w, const char *key, const char *fmt, ...)
{
	char ctx[PATH_MAX_LEN], msg[TS_ERR_MSG_MAX];
	context(rd, w, key, ctx, sizeof(ctx));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ts_error_set(rd->err, -EINVAL, "%s: %s", ctx, msg);
}

static int oom(struct rd *rd)
{
	return ts_error_set(rd->err, -ENOMEM, "%s: out of memory", rd->r->file);
}

static int warn(struct rd *rd, const struct where *w, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int warn(struct rd *rd, const struct where *w, const char *key, const char *fmt, ...)
{
	char ctx[PATH_MAX_LEN], msg[TS_ERR_MSG_MAX], line[PATH_MAX_LEN + TS_ERR_MSG_MAX + 8];
	context(rd, w, key, ctx, sizeof(ctx));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s: %s", ctx, msg);
	struct ts_rtapp *r = rd->r;
	if (r->nr_warnings == rd->cap_warnings) {
		int cap = rd->cap_warnings ? 2 * rd->cap_warnings : 8;
		char **v = rtapp_alloc(rd->a, (size_t)cap * sizeof(*v));
		if (!v)
			return oom(rd);
		if (r->nr_warnings)
			memcpy(v, r->warnings, (size_t)r->nr_warnings * sizeof(*v));
		r->warnings = v;
		rd->cap_warnings = cap;
	}
	if (!(r->warnings[r->nr_warnings] = rtapp_strdup(rd->a, line)))
		return oom(rd);
	r->nr_warnings++;
	return 0;
}

static const char *type_name(struct json_object *v)
{
	return json_type_to_name(json_object_get_type(v));
}

static int get_int(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		   int64_t lo, int64_t hi, const char *unit, int64_t *out)
{
	if (!json_object_is_type(v, json_type_int))
		return fail(rd, w, key, "must be an integer%s%s, not %s", unit ? " " : "",
			    unit ? unit : "", type_name(v));
	int64_t x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return fail(rd, w, key, "%lld is out of range [%lld, %lld]", (long long)x,
			    (long long)lo, (long long)hi);
	*out = x;
	return 0;
}

static int get_bool(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		    bool *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return fail(rd, w, key, "must be true or false, not %s", type_name(v));
	*out = json_object_get_boolean(v);
	return 0;
}

static int get_string(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		      const char **out)
{
	if (!json_object_is_type(v, json_type_string))
		return fail(rd, w, key, "must be a string, not %s", type_name(v));
	if (!(*out = rtapp_strdup(rd->a, json_object_get_string(v))))
		return oom(rd);
	return 0;
}

static bool prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static const char *const policy_names[] = {
	[TS_RTAPP_POLICY_SAME] = "same",       [TS_RTAPP_POLICY_OTHER] = "SCHED_OTHER",
	[TS_RTAPP_POLICY_IDLE] = "SCHED_IDLE", [TS_RTAPP_POLICY_FIFO] = "SCHED_FIFO",
	[TS_RTAPP_POLICY_RR] = "SCHED_RR",     [TS_RTAPP_POLICY_DEADLINE] = "SCHED_DEADLINE",
};

const char *ts_rtapp_policy_name(enum ts_rtapp_policy policy)
{
	return policy >= 0 && policy <= TS_RTAPP_POLICY_DEADLINE ? policy_names[policy] : "?";
}

static int get_policy(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		      enum ts_rtapp_policy *out)
{
	const char *s;
	int rc = get_string(rd, w, key, v, &s);
	if (rc)
		return rc;
	for (int p = TS_RTAPP_POLICY_OTHER; p <= TS_RTAPP_POLICY_DEADLINE; p++)
		if (strcmp(s, policy_names[p]) == 0) {
			*out = (enum ts_rtapp_policy)p;
			return 0;
		}
	return fail(rd, w, key,
		    "unknown policy '%s' (SCHED_OTHER, SCHED_IDLE, SCHED_FIFO, SCHED_RR or "
		    "SCHED_DEADLINE)",
		    s);
}

static int get_cpus(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		    int **cpus, int *nr)
{
	if (!json_object_is_type(v, json_type_array))
		return fail(rd, w, key, "must be an array of CPU numbers, not %s", type_name(v));
	size_t n = json_object_array_length(v);
	if (n == 0)
		return fail(rd, w, key, "is empty: a thread needs at least one CPU");
	if (n > 65536)
		return fail(rd, w, key, "lists more than 65536 CPUs");
	if (!(*cpus = rtapp_alloc(rd->a, n * sizeof(int))))
		return oom(rd);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(v, i);
		if (!json_object_is_type(c, json_type_int) || json_object_get_int64(c) < 0 ||
		    json_object_get_int64(c) >= 65536)
			return fail(rd, w, key, "element %zu is not a CPU number (0-65535)", i);
		(*cpus)[i] = (int)json_object_get_int64(c);
	}
	*nr = (int)n;
	return 0;
}

/* ---- events ---- */

static const char *const event_names[] = {
	[TS_RTAPP_RUN] = "run",		[TS_RTAPP_RUNTIME] = "runtime",
	[TS_RTAPP_SLEEP] = "sleep",	[TS_RTAPP_TIMER] = "timer",
	[TS_RTAPP_BARRIER] = "barrier", [TS_RTAPP_LOCK] = "lock",
	[TS_RTAPP_UNLOCK] = "unlock",	[TS_RTAPP_WAIT] = "wait",
	[TS_RTAPP_SIGNAL] = "signal",	[TS_RTAPP_BROADCAST] = "broad",
	[TS_RTAPP_SYNC] = "sync",	[TS_RTAPP_SUSPEND] = "suspend",
	[TS_RTAPP_RESUME] = "resume",	[TS_RTAPP_FORK] = "fork",
	[TS_RTAPP_YIELD] = "yield",	[TS_RTAPP_MEM] = "mem",
	[TS_RTAPP_IORUN] = "iorun",
};

const char *ts_rtapp_event_name(enum ts_rtapp_event_kind kind)
{
	return kind >= 0 && kind <= TS_RTAPP_IORUN ? event_names[kind] : "?";
}

/* The event a key names, by prefix, in the order rt-app's parse_task_event_data() tests
 * them ("runtime" before "run" as its strncmp on "run" then "runtime" decides); -1: none
 * (rt-app's obj_is_event() is false: not an event). */
static int event_kind(const char *key)
{
	if (prefix(key, "runtime"))
		return TS_RTAPP_RUNTIME;
	if (prefix(key, "run"))
		return TS_RTAPP_RUN;
	if (prefix(key, "sleep"))
		return TS_RTAPP_SLEEP;
	if (prefix(key, "mem"))
		return TS_RTAPP_MEM;
	if (prefix(key, "iorun"))
		return TS_RTAPP_IORUN;
	if (prefix(key, "lock"))
		return TS_RTAPP_LOCK;
	if (prefix(key, "unlock"))
		return TS_RTAPP_UNLOCK;
	if (prefix(key, "signal"))
		return TS_RTAPP_SIGNAL;
	if (prefix(key, "broad"))
		return TS_RTAPP_BROADCAST;
	if (prefix(key, "wait"))
		return TS_RTAPP_WAIT;
	if (prefix(key, "sync"))
		return TS_RTAPP_SYNC;
	if (prefix(key, "barrier"))
		return TS_RTAPP_BARRIER;
	if (prefix(key, "timer"))
		return TS_RTAPP_TIMER;
	if (prefix(key, "resume"))
		return TS_RTAPP_RESUME;
	if (prefix(key, "suspend"))
		return TS_RTAPP_SUSPEND;
	if (prefix(key, "yield"))
		return TS_RTAPP_YIELD;
	if (prefix(key, "fork"))
		return TS_RTAPP_FORK;
	return -1;
}

/* An event whose value is an object of string/int members (timer, wait, sync). */
static int event_object(struct rd *rd, const struct where *w, const char *key,
			struct json_object *v, struct ts_rtapp_event *e)
{
	if (!json_object_is_type(v, json_type_object))
		return fail(rd, w, key, "must be an object {\"ref\": ..., %s}, not %s",
			    e->kind == TS_RTAPP_TIMER ? "\"period\": usec" : "\"mutex\": ...",
			    type_name(v));
	struct where in;
	where_child(&in, w, key);
	e->ref = "unknown"; /* rt-app's default for a missing "ref" and "mutex" */
	if (e->kind != TS_RTAPP_TIMER)
		e->mutex = "unknown";
	int rc = 0;
	json_object_object_foreach(v, k, m)
	{
		if (strcmp(k, "ref") == 0) {
			rc = get_string(rd, &in, k, m, &e->ref);
		} else if (e->kind == TS_RTAPP_TIMER && strcmp(k, "period") == 0) {
			rc = get_int(rd, &in, k, m, 0, INT_MAX, "(usec)", &e->usec);
		} else if (e->kind == TS_RTAPP_TIMER && strcmp(k, "mode") == 0) {
			const char *mode;
			if (!(rc = get_string(rd, &in, k, m, &mode)))
				e->absolute = prefix(mode, "absolute"); /* rt-app: else relative */
		} else if (e->kind != TS_RTAPP_TIMER && strcmp(k, "mutex") == 0) {
			rc = get_string(rd, &in, k, m, &e->mutex);
		} else {
			rc = warn(rd, &in, k, "ignored (rt-app does not read it)");
		}
		if (rc)
			return rc;
	}
	if (e->kind == TS_RTAPP_TIMER)
		e->unique = prefix(e->ref, "unique");
	return 0;
}

static int parse_event(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		       enum ts_rtapp_event_kind kind, struct ts_rtapp_event *e)
{
	e->kind = kind;
	e->line = line_of(rd, w, key);
	if (!(e->key = rtapp_strdup(rd->a, key)))
		return oom(rd);
	switch (kind) {
	case TS_RTAPP_RUN:
	case TS_RTAPP_RUNTIME:
	case TS_RTAPP_SLEEP:
		return get_int(rd, w, key, v, 0, INT_MAX, "(usec)", &e->usec);
	case TS_RTAPP_MEM:
	case TS_RTAPP_IORUN:
		return get_int(rd, w, key, v, 0, INT_MAX, "(bytes)", &e->bytes);
	case TS_RTAPP_TIMER:
	case TS_RTAPP_WAIT:
	case TS_RTAPP_SYNC:
		return event_object(rd, w, key, v, e);
	case TS_RTAPP_YIELD: /* rt-app reads no value */
		return 0;
	default: /* the events naming one resource */
		return get_string(rd, w, key, v, &e->ref);
	}
}

/* ---- tasks and phases ---- */

/* Keys rt-app reads at task and phase level which the description does not carry:
 * refused, since ignoring them would change what the scheduler is asked to do. */
static int refuse_unmodelled(struct rd *rd, const struct where *w, const char *key)
{
	if (strcmp(key, "util_min") == 0 || strcmp(key, "util_max") == 0)
		return fail(rd, w, key,
			    "utilization clamping (uclamp) is not supported: remove the key");
	if (strcmp(key, "nodes_membind") == 0)
		return fail(rd, w, key, "NUMA memory binding is not supported: remove the key");
	return 1;
}

static bool deadline_key(const char *key)
{
	return strcmp(key, "dl-runtime") == 0 || strcmp(key, "dl-period") == 0 ||
	       strcmp(key, "dl-deadline") == 0;
}

/* The scheduling keys of a task or phase object. 0: taken, 1: not one of them. */
static int sched_key(struct rd *rd, const struct where *w, const char *key, struct json_object *v,
		     struct ts_rtapp_sched *s)
{
	int rc;
	if (strcmp(key, "policy") == 0) {
		if ((rc = get_policy(rd, w, key, v, &s->policy)))
			return rc;
	} else if (strcmp(key, "priority") == 0) {
		int64_t p = 0;
		if ((rc = get_int(rd, w, key, v, -20, 99, NULL, &p)))
			return rc;
		s->priority = (int)p;
		s->has_priority = true;
	} else if (deadline_key(key)) {
		/* rt-app uses them for SCHED_DEADLINE only, which is refused elsewhere */
		return warn(rd, w, key, "ignored: only SCHED_DEADLINE reads it");
	} else {
		return 1;
	}
	if (!s->line)
		s->line = line_of(rd, w, key);
	return 0;
}

static int check_priority(struct rd *rd, const struct where *w, struct ts_rtapp_sched *s)
{
	bool rt = s->policy == TS_RTAPP_POLICY_FIFO || s->policy == TS_RTAPP_POLICY_RR;
	if (!s->has_priority)
		return 0;
	if (rt && (s->priority < 1 || s->priority > 99))
		return fail(rd, w, "priority", "%d is not a %s priority (1-99)", s->priority,
			    ts_rtapp_policy_name(s->policy));
	if (!rt && s->priority > 19)
		return fail(rd, w, "priority",
			    "%d is not a nice value (-20..19), which %s takes as its priority",
			    s->priority, ts_rtapp_policy_name(s->policy));
	return 0;
}

static int get_taskgroup(struct rd *rd, const struct where *w, const char *key,
			 struct json_object *v, const char **out, int *line)
{
	const char *tg;
	int rc = get_string(rd, w, key, v, &tg);
	if (rc)
		return rc;
	if (!*tg) /* rt-app: "" is no taskgroup */
		return 0;
	if (*tg != '/')
		return fail(rd, w, key, "'%s' must start with '/' (a cgroup path)", tg);
	*out = tg;
	*line = line_of(rd, w, key);
	return 0;
}

/* The events and phase-level keys of obj (a phase, or a task without "phases"). */
static int parse_phase(struct rd *rd, const struct where *w, struct json_object *obj,
		       struct ts_rtapp_phase *ph, bool task_level)
{
	int n = 0;
	const char *other = NULL; /* a key that is no event, to name when there is none */
	json_object_object_foreach(obj, k0, v0)
	{
		(void)v0;
		n += event_kind(k0) >= 0;
		if (!other && event_kind(k0) < 0 && strcmp(k0, "loop") != 0)
			other = k0;
	}
	if (n == 0 && other)
		return fail(rd, w, other,
			    "is not an rt-app event, and the %s has no events (rt-app: \"Task "
			    "must have events or it's useless\")",
			    task_level ? "task" : "phase");
	if (n == 0)
		return fail(rd, w, task_level ? "tasks" : "phases",
			    "no events (rt-app: \"Task must have events or it's useless\")");
	if (n > TS_RTAPP_MAX_EVENTS)
		return fail(rd, w, "phases", "more than %d events", TS_RTAPP_MAX_EVENTS);
	if (!(ph->events = rtapp_alloc(rd->a, (size_t)n * sizeof(*ph->events))))
		return oom(rd);
	ph->loop = 1;
	int rc = 0;
	json_object_object_foreach(obj, k, v)
	{
		int kind = event_kind(k);
		if (kind >= 0) {
			rc = parse_event(rd, w, k, v, (enum ts_rtapp_event_kind)kind,
					 &ph->events[ph->nr_events++]);
		} else if (task_level) {
			continue; /* the task's own keys: parse_task() reads them */
		} else if (strcmp(k, "loop") == 0) {
			int64_t loop = 1;
			if (!(rc = get_int(rd, w, k, v, 1, INT_MAX, NULL, &loop)))
				ph->loop = (int)loop;
		} else if (strcmp(k, "cpus") == 0) {
			rc = get_cpus(rd, w, k, v, &ph->cpus, &ph->nr_cpus);
			ph->cpus_line = line_of(rd, w, k);
		} else if (strcmp(k, "taskgroup") == 0) {
			rc = get_taskgroup(rd, w, k, v, &ph->taskgroup, &ph->taskgroup_line);
		} else if ((rc = refuse_unmodelled(rd, w, k)) == 1 &&
			   (rc = sched_key(rd, w, k, v, &ph->sched)) == 1) {
			rc = warn(rd, w, k, "ignored (rt-app does not read it in a phase)");
		}
		if (rc)
			return rc;
	}
	return check_priority(rd, w, &ph->sched);
}

static int parse_task(struct rd *rd, const struct where *tasks, const char *name,
		      struct json_object *obj, struct ts_rtapp_task *t)
{
	struct where w;
	where_child(&w, tasks, name);
	w.task = name;
	if (!(t->name = rtapp_strdup(rd->a, name)))
		return oom(rd);
	t->line = rtapp_keys_line(rd->keys, w.path);
	if (!json_object_is_type(obj, json_type_object))
		return fail(rd, tasks, name, "a task must be an object, not %s", type_name(obj));
	t->instances = 1;
	t->sched.policy = rd->r->global.default_policy;
	struct json_object *phases = NULL;
	bool has_loop = false;
	int rc = 0;
	json_object_object_foreach(obj, k, v)
	{
		int64_t x = 0;
		if (strcmp(k, "instance") == 0) {
			if (!(rc = get_int(rd, &w, k, v, 0, TS_RTAPP_MAX_INSTANCES, NULL, &x)))
				t->instances = (int)x;
		} else if (strcmp(k, "delay") == 0) {
			rc = get_int(rd, &w, k, v, 0, INT_MAX, "(usec)", &t->delay_usec);
		} else if (strcmp(k, "loop") == 0) {
			has_loop = true;
			if (!(rc = get_int(rd, &w, k, v, -1, INT_MAX, NULL, &x)) && x == 0)
				rc = fail(rd, &w, k, "0 runs nothing: use -1 (forever) or a count");
			t->loop = (int)x;
		} else if (strcmp(k, "cpus") == 0) {
			rc = get_cpus(rd, &w, k, v, &t->cpus, &t->nr_cpus);
			t->cpus_line = line_of(rd, &w, k);
		} else if (strcmp(k, "taskgroup") == 0) {
			rc = get_taskgroup(rd, &w, k, v, &t->taskgroup, &t->taskgroup_line);
		} else if (strcmp(k, "phases") == 0) {
			if (!json_object_is_type(v, json_type_object))
				rc = fail(rd, &w, k, "must be an object of phases, not %s",
					  type_name(v));
			phases = v;
		} else if ((rc = refuse_unmodelled(rd, &w, k)) == 1 &&
			   (rc = sched_key(rd, &w, k, v, &t->sched)) == 1) {
			rc = 0;
			if (strcmp(k, "period") == 0 || strcmp(k, "deadline") == 0)
				rc = warn(rd, &w, k, "ignored: only SCHED_DEADLINE reads it");
			else if (event_kind(k) < 0)
				rc = warn(rd, &w, k, "ignored (rt-app does not read it in a task)");
			else if (phases || json_object_object_get_ex(obj, "phases", NULL))
				rc = warn(rd, &w, k,
					  "ignored: the task has \"phases\", whose events it runs");
		}
		if (rc)
			return rc;
	}
	if ((rc = check_priority(rd, &w, &t->sched)))
		return rc;
	if (t->sched.policy == TS_RTAPP_POLICY_SAME)
		t->sched.policy = TS_RTAPP_POLICY_OTHER;
	if (!phases) {
		/* the task is its one phase; rt-app: its "loop" is the phase's, and the task
		 * then runs once, else forever */
		t->nr_phases = 1;
		if (!(t->phases = rtapp_alloc(rd->a, sizeof(*t->phases))))
			return oom(rd);
		t->phases[0].line = t->line;
		if ((rc = parse_phase(rd, &w, obj, &t->phases[0], true)))
			return rc;
		/* rt-app: the phase loops "loop" times (-1: its counter never reaches it,
		 * forever), the task then runs once; without "loop" the task runs forever */
		t->phases[0].loop = has_loop && t->loop > 0 ? t->loop : 1;
		t->loop = has_loop && t->loop > 0 ? 1 : -1;
		return 0;
	}
	if (!has_loop)
		t->loop = -1;
	int n = json_object_object_length(phases);
	if (n == 0)
		return fail(rd, &w, "phases", "is empty");
	if (!(t->phases = rtapp_alloc(rd->a, (size_t)n * sizeof(*t->phases))))
		return oom(rd);
	struct where pw;
	where_child(&pw, &w, "phases");
	json_object_object_foreach(phases, pk, pv)
	{
		struct ts_rtapp_phase *ph = &t->phases[t->nr_phases++];
		struct where in;
		where_child(&in, &pw, pk);
		in.phase = pk;
		if (!(ph->name = rtapp_strdup(rd->a, pk)))
			return oom(rd);
		ph->line = rtapp_keys_line(rd->keys, in.path);
		if (!json_object_is_type(pv, json_type_object))
			return fail(rd, &w, pk, "a phase must be an object, not %s", type_name(pv));
		if ((rc = parse_phase(rd, &in, pv, ph, false)))
			return rc;
	}
	return 0;
}

/* ---- global ---- */

static int parse_global(struct rd *rd, const struct where *root, struct json_object *obj)
{
	struct ts_rtapp_global *g = &rd->r->global;
	struct where w;
	where_child(&w, root, "global");
	w.what = "global";
	if (!json_object_is_type(obj, json_type_object))
		return fail(rd, root, "global", "must be an object, not %s", type_name(obj));
	int rc = 0;
	json_object_object_foreach(obj, k, v)
	{
		int64_t x = 0;
		if (strcmp(k, "duration") == 0) {
			if (!(rc = get_int(rd, &w, k, v, -1, INT_MAX, "(seconds)", &x)))
				g->duration_s = (int)x;
		} else if (strcmp(k, "calibration") == 0) {
			if (json_object_is_type(v, json_type_int)) {
				if (!(rc = get_int(rd, &w, k, v, 1, INT_MAX, "(ns per loop)",
						   &x))) {
					g->calibration = TS_RTAPP_CALIB_NS_PER_LOOP;
					g->calibration_value = (int)x;
				}
			} else {
				const char *s;
				int cpu, end = 0;
				if (!(rc = get_string(rd, &w, k, v, &s)) &&
				    (sscanf(s, "CPU%d%n", &cpu, &end) != 1 || s[end] || cpu < 0))
					rc = fail(rd, &w, k,
						  "'%s' is neither \"CPU<n>\" nor ns per loop", s);
				g->calibration = TS_RTAPP_CALIB_CPU;
				g->calibration_value = rc ? 0 : cpu;
			}
		} else if (strcmp(k, "default_policy") == 0) {
			rc = get_policy(rd, &w, k, v, &g->default_policy);
		} else if (strcmp(k, "pi_enabled") == 0) {
			rc = get_bool(rd, &w, k, v, &g->pi_enabled);
		} else if (strcmp(k, "cumulative_slack") == 0) {
			rc = get_bool(rd, &w, k, v, &g->cumulative_slack);
		} else if (strcmp(k, "io_device") == 0) {
			rc = get_string(rd, &w, k, v, &g->io_device);
		} else if (strcmp(k, "mem_buffer_size") == 0) {
			rc = get_int(rd, &w, k, v, 1, INT_MAX, "(bytes)", &g->mem_buffer_size);
		} else if (strcmp(k, "lock_pages") == 0 || strcmp(k, "logdir") == 0 ||
			   strcmp(k, "log_basename") == 0 || strcmp(k, "log_size") == 0 ||
			   strcmp(k, "ftrace") == 0 || strcmp(k, "gnuplot") == 0) {
			rc = warn(rd, &w, k, "ignored: it steers rt-app's own logging and paging");
		} else {
			rc = warn(rd, &w, k, "ignored (rt-app does not read it in global)");
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- the file ---- */

static int check_refs(struct rd *rd)
{
	struct ts_rtapp *r = rd->r;
	for (int t = 0; t < r->nr_tasks; t++)
		for (int p = 0; p < r->tasks[t].nr_phases; p++)
			for (int e = 0; e < r->tasks[t].phases[p].nr_events; e++) {
				const struct ts_rtapp_event *ev = &r->tasks[t].phases[p].events[e];
				if (ev->kind != TS_RTAPP_FORK)
					continue;
				bool found = false;
				for (int u = 0; u < r->nr_tasks && !found; u++)
					found = strcmp(r->tasks[u].name, ev->ref) == 0;
				if (!found)
					return ts_error_set(rd->err, -EINVAL,
							    "%s:%d: task '%s': '%s': forks '%s', "
							    "which is not a task of the file",
							    r->file, ev->line, r->tasks[t].name,
							    ev->key, ev->ref);
			}
	return 0;
}

static int parse_root(struct rd *rd, struct json_object *root)
{
	struct ts_rtapp *r = rd->r;
	struct where w = {.what = "the file"};
	if (!json_object_is_type(root, json_type_object))
		return ts_error_set(rd->err, -EINVAL,
				    "%s:1: an rt-app file is a JSON object with \"tasks\", not %s",
				    r->file, type_name(root));
	struct json_object *tasks = NULL, *global = NULL;
	int rc = 0;
	json_object_object_foreach(root, k, v)
	{
		if (strcmp(k, "tasks") == 0)
			tasks = v;
		else if (strcmp(k, "global") == 0)
			global = v;
		else if (strcmp(k, "resources") == 0)
			rc = warn(rd, &w, k,
				  "ignored: rt-app creates resources from the events that name "
				  "them (its tutorial: kept for backward compatibility)");
		else
			rc = warn(rd, &w, k, "ignored (rt-app does not read it)");
		if (rc)
			return rc;
	}
	/* global first: its default_policy applies to every task */
	if (global && (rc = parse_global(rd, &w, global)))
		return rc;
	if (!tasks)
		return ts_error_set(rd->err, -EINVAL,
				    "%s: no \"tasks\" object (rt-app requires one)", r->file);
	if (!json_object_is_type(tasks, json_type_object))
		return fail(rd, &w, "tasks", "must be an object of tasks, not %s",
			    type_name(tasks));
	int n = json_object_object_length(tasks);
	if (n == 0)
		return fail(rd, &w, "tasks", "is empty");
	if (n > TS_RTAPP_MAX_TASKS)
		return fail(rd, &w, "tasks", "has more than %d tasks", TS_RTAPP_MAX_TASKS);
	if (!(r->tasks = rtapp_alloc(rd->a, (size_t)n * sizeof(*r->tasks))))
		return oom(rd);
	struct where tw;
	where_child(&tw, &w, "tasks");
	json_object_object_foreach(tasks, name, obj)
	{
		if ((rc = parse_task(rd, &tw, name, obj, &r->tasks[r->nr_tasks++])))
			return rc;
	}
	return check_refs(rd);
}

int ts_rtapp_parse(const char *text, size_t len, const char *file, struct ts_rtapp **out,
		   struct ts_error *err)
{
	*out = NULL;
	if (len > TS_RTAPP_MAX_FILE)
		return ts_error_set(err, -EFBIG, "%s: larger than %d MiB", file,
				    TS_RTAPP_MAX_FILE >> 20);
	struct ts_rtapp_arena *a = rtapp_arena_new();
	struct ts_rtapp *r = a ? rtapp_alloc(a, sizeof(*r)) : NULL;
	if (!r) {
		rtapp_arena_free(a);
		return ts_error_set(err, -ENOMEM, "%s: out of memory", file);
	}
	r->arena = a;
	r->global = (struct ts_rtapp_global){
		.duration_s = -1,
		.calibration = TS_RTAPP_CALIB_CPU,
		.default_policy = TS_RTAPP_POLICY_OTHER,
		.io_device = "/dev/null",
		.mem_buffer_size = DEFAULT_MEM_BUFFER_SIZE,
	};
	struct rtapp_keys keys;
	struct rd rd = {.r = r, .a = a, .keys = &keys, .err = err};
	int rc;
	/* A NUL ends the text for json-c (and would make two keys equal to the scanner) */
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		rc = ts_error_set(err, -EINVAL, "%s:%d: a NUL byte in the text", file,
				  rtapp_line_at(text, len, (size_t)(nul - text)));
		ts_rtapp_free(r);
		return rc;
	}
	if (!(r->file = rtapp_strdup(a, file)) || rtapp_keys_scan(text, len, &keys)) {
		ts_rtapp_free(r);
		return ts_error_set(err, -ENOMEM, "%s: out of memory", file);
	}
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root = NULL;
	if (!tok) {
		rc = oom(&rd);
		goto out;
	}
	/* json-c's default mode, as rt-app's json_object_from_file(): comments and trailing
	 * commas are accepted */
	root = json_tokener_parse_ex(tok, keys.text, (int)keys.len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		rc = ts_error_set(err, -EINVAL, "%s:%d: not valid JSON: the text ends early", file,
				  rtapp_line_at(keys.text, keys.len, keys.len));
		goto out;
	}
	size_t end = json_tokener_get_parse_end(tok);
	if (jerr != json_tokener_success) {
		rc = ts_error_set(err, -EINVAL, "%s:%d: not valid JSON: %s", file,
				  rtapp_line_at(keys.text, keys.len, end),
				  json_tokener_error_desc(jerr));
		goto out;
	}
	/* what follows the value may only be blanks (json-c stops after the value) */
	for (size_t i = end; i < keys.len; i++)
		if (!strchr(" \t\r\n", keys.text[i])) {
			rc = ts_error_set(err, -EINVAL,
					  "%s:%d: not valid JSON: text after the end of the object",
					  file, rtapp_line_at(keys.text, keys.len, i));
			goto out;
		}
	rc = parse_root(&rd, root);
out:
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	rtapp_keys_free(&keys);
	if (rc) {
		ts_rtapp_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int ts_rtapp_load(const char *path, struct ts_rtapp **out, struct ts_error *err)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return ts_error_set(err, -errno, "%s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (len == cap) {
			if (cap > TS_RTAPP_MAX_FILE) {
				rc = ts_error_set(err, -EFBIG, "%s: larger than %d MiB", path,
						  TS_RTAPP_MAX_FILE >> 20);
				break;
			}
			cap = cap ? 2 * cap : 65536;
			char *p = realloc(buf, cap);
			if (!p) {
				rc = ts_error_set(err, -ENOMEM, "%s: out of memory", path);
				break;
			}
			buf = p;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				rc = ts_error_set(err, -EIO, "%s: read error", path);
			break;
		}
	}
	fclose(f);
	if (!rc)
		rc = ts_rtapp_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}

void ts_rtapp_free(struct ts_rtapp *r)
{
	if (r)
		rtapp_arena_free(r->arena);
}
