/* toposched merge: reads the parts of a sharded sweep with json-c, checks that they are the
 * N shards of one experiment run by this toposched, each once and each with exactly its
 * runs, rebuilds the experiment from the identity the parts carry and computes its points
 * from the runs' results, as the unsharded run does (ts_experiment_summarise), so that
 * the reports are the same bytes. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "part_fields.h"
#include "report.h"
#include "toposched/cost_model.h"
#include "toposched/experiment_part.h"
#include "toposched/group.h"
#include "toposched/kernel_profile.h"
#include "toposched/sim_groups.h"

struct ts_exp_merge {
	struct ts_experiment e;
	/* what e points at: only what the reports read (experiment_part.h) */
	struct ts_topology topo;
	struct ts_workload workload;
	char *workload_name, *metric_name, *unit, *load_name, *pin_text;
	struct ts_cpumask *pin;
	int *pin_cpus;
	struct ts_groups_spec *groups;
	struct ts_exp_config *configs;
	int *loads;
	struct ts_sim_result *results;
	char **warnings; /* [nr_warnings] */
	int nr_warnings;
};

/* Reading one file: its path for messages, the error to fill. */
struct reader {
	const char *path;
	struct ts_error *err;
};

static int bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct reader *r, const char *fmt, ...)
{
	char msg[TS_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ts_error_set(r->err, -EINVAL, "%s: %s", r->path, msg);
}

/* ---- typed members (what is missing or of another type is an error naming the key) ---- */

static int member(struct reader *r, json_object *obj, const char *where, const char *key,
		  json_type type, bool null_ok, json_object **out)
{
	if (!json_object_object_get_ex(obj, key, out))
		return bad(r, "%s%s: missing", where, key);
	if (null_ok && json_object_is_type(*out, json_type_null)) {
		*out = NULL;
		return 0;
	}
	if (!json_object_is_type(*out, type) &&
	    !(type == json_type_double && json_object_is_type(*out, json_type_int)))
		return bad(r, "%s%s: expected %s%s", where, key, json_type_to_name(type),
			   null_ok ? " or null" : "");
	return 0;
}

static int get_string(struct reader *r, json_object *obj, const char *where, const char *key,
		      bool null_ok, const char **out)
{
	json_object *v;
	int rc = member(r, obj, where, key, json_type_string, null_ok, &v);
	if (!rc)
		*out = v ? json_object_get_string(v) : NULL;
	return rc;
}

static int get_u64(struct reader *r, json_object *v, const char *where, const char *key,
		   uint64_t *out)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return bad(r, "%s%s: expected a number 0 or more", where, key);
	*out = json_object_get_uint64(v);
	return 0;
}

static int get_int(struct reader *r, json_object *v, const char *where, const char *key,
		   long long lo, long long hi, int *out)
{
	if (!json_object_is_type(v, json_type_int))
		return bad(r, "%s%s: expected a number", where, key);
	int64_t x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return bad(r, "%s%s: %" PRId64 " is not within %lld to %lld", where, key, x, lo,
			   hi);
	*out = (int)x;
	return 0;
}

static int member_u64(struct reader *r, json_object *obj, const char *where, const char *key,
		      uint64_t *out)
{
	json_object *v;
	return member(r, obj, where, key, json_type_int, false, &v) ||
	       get_u64(r, v, where, key, out);
}

static int member_int(struct reader *r, json_object *obj, const char *where, const char *key,
		      long long lo, long long hi, int *out)
{
	json_object *v;
	return member(r, obj, where, key, json_type_int, false, &v) ||
	       get_int(r, v, where, key, lo, hi, out);
}

static int get_hex(struct reader *r, json_object *v, const char *where, const char *key,
		   double *out)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
	char *end;
	*out = strtod(s, &end);
	if (!s[0] || *end)
		return bad(r, "%s%s: expected a double in hexadecimal (\"%%a\")", where, key);
	return 0;
}

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

/* ---- the experiment's identity -> the experiment ---- */

static int read_configs(struct reader *r, json_object *exp, struct ts_exp_merge *m)
{
	json_object *arr;
	if (member(r, exp, "experiment.", "configs", json_type_array, false, &arr))
		return r->err->code;
	int n = (int)json_object_array_length(arr);
	if (n < 1 || n > TS_EXP_MAX_CONFIGS)
		return bad(r, "experiment.configs: %d configurations (1 to %d)", n,
			   TS_EXP_MAX_CONFIGS);
	m->configs = calloc((size_t)n, sizeof(*m->configs));
	if (!m->configs)
		return ts_error_set(r->err, -ENOMEM, "out of memory");
	for (int c = 0; c < n; c++) {
		json_object *o = json_object_array_get_idx(arr, (size_t)c);
		char where[64];
		snprintf(where, sizeof(where), "experiment.configs[%d].", c);
		if (!json_object_is_type(o, json_type_object))
			return bad(r, "experiment.configs[%d]: expected an object", c);
		struct ts_exp_config *cfg = &m->configs[c];
		const char *name, *features, *layout, *kernel;
		if (get_string(r, o, where, "name", false, &name) ||
		    get_string(r, o, where, "features", false, &features) ||
		    member_u64(r, o, where, "features_mask", &cfg->features.mask) ||
		    get_string(r, o, where, "tg_layout", false, &layout) ||
		    get_string(r, o, where, "kernel", true, &kernel))
			return r->err->code;
		if (strlen(name) >= sizeof(cfg->name) ||
		    strlen(features) >= sizeof(cfg->features_text))
			return bad(r, "%sname or features: too long", where);
		memcpy(cfg->name, name, strlen(name) + 1);
		memcpy(cfg->features_text, features, strlen(features) + 1);
		struct ts_error e2 = {0};
		if (ts_tg_layout_parse(layout, &cfg->tg_layout, &e2))
			return bad(r, "%stg_layout: %s", where, e2.msg);
		if (kernel && ts_kernel_profile_parse(kernel, &cfg->kernel, &e2))
			return bad(r, "%skernel: %s", where, e2.msg);
	}
	m->e.configs = m->configs;
	m->e.nr_configs = n;
	return 0;
}

static int read_loads(struct reader *r, json_object *exp, struct ts_exp_merge *m)
{
	json_object *arr;
	if (member(r, exp, "experiment.", "loads", json_type_array, false, &arr))
		return r->err->code;
	int n = (int)json_object_array_length(arr);
	if (n < 1 || n > TS_EXP_MAX_LOADS)
		return bad(r, "experiment.loads: %d loads (1 to %d)", n, TS_EXP_MAX_LOADS);
	m->loads = calloc((size_t)n, sizeof(*m->loads));
	if (!m->loads)
		return ts_error_set(r->err, -ENOMEM, "out of memory");
	for (int l = 0; l < n; l++)
		if (get_int(r, json_object_array_get_idx(arr, (size_t)l), "experiment.", "loads", 1,
			    TS_SIM_MAX_TASKS, &m->loads[l]))
			return r->err->code;
	m->e.loads = m->loads;
	m->e.nr_loads = n;
	return 0;
}

static int read_pin(struct reader *r, json_object *exp, struct ts_exp_merge *m, bool *oom)
{
	json_object *pin, *seq;
	if (member(r, exp, "experiment.", "pin", json_type_object, true, &pin) ||
	    member(r, exp, "experiment.", "pin_cpus", json_type_array, false, &seq))
		return r->err->code;
	int nr_cpus = m->topo.nr_cpus;
	if (pin) {
		const char *nodes, *cpus;
		if (get_string(r, pin, "experiment.pin.", "nodes", true, &nodes) ||
		    get_string(r, pin, "experiment.pin.", "cpus", false, &cpus))
			return r->err->code;
		m->pin_text = dup_or_null(nodes, oom);
		m->pin = ts_cpumask_alloc(nr_cpus);
		if (!m->pin)
			return ts_error_set(r->err, -ENOMEM, "out of memory");
		struct ts_error e2 = {0};
		if (ts_cpumask_parse(m->pin, cpus, &e2))
			return bad(r, "experiment.pin.cpus: %s", e2.msg);
		m->e.base.pin = m->pin;
		m->e.pin_text = m->pin_text;
	}
	int n = (int)json_object_array_length(seq);
	if (n > 0) {
		m->pin_cpus = calloc((size_t)n, sizeof(*m->pin_cpus));
		if (!m->pin_cpus)
			return ts_error_set(r->err, -ENOMEM, "out of memory");
		for (int i = 0; i < n; i++)
			if (get_int(r, json_object_array_get_idx(seq, (size_t)i), "experiment.",
				    "pin_cpus", 0, nr_cpus - 1, &m->pin_cpus[i]))
				return r->err->code;
		m->e.base.pin_cpus = m->pin_cpus;
		m->e.base.nr_pin_cpus = n;
	}
	return 0;
}

static int read_bind(struct reader *r, json_object *exp, enum ts_sim_bind *out)
{
	const char *text;
	if (get_string(r, exp, "experiment.", "bind", false, &text))
		return r->err->code;
	for (enum ts_sim_bind b = TS_BIND_NONE; b <= TS_BIND_INVERSE; b++)
		if (strcmp(text, ts_report_bind_name(b)) == 0) {
			*out = b;
			return 0;
		}
	return bad(r, "experiment.bind: '%s' is none, hard or inverse", text);
}

/* The warnings the run printed before its runs, for merge to print again. */
static int read_warnings(struct reader *r, json_object *exp, struct ts_exp_merge *m)
{
	json_object *arr;
	if (member(r, exp, "experiment.", "warnings", json_type_array, false, &arr))
		return r->err->code;
	int n = (int)json_object_array_length(arr);
	if (n > TS_EXP_PART_MAX_WARNINGS)
		return bad(r, "experiment.warnings: %d warnings (%d at most)", n,
			   TS_EXP_PART_MAX_WARNINGS);
	if (n && !(m->warnings = calloc((size_t)n, sizeof(*m->warnings))))
		return ts_error_set(r->err, -ENOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(arr, (size_t)i);
		const char *text =
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
		/* a NUL inside the string would cut it short of what the checks saw */
		if (!ts_part_warning_ok(text) ||
		    strlen(text) != (size_t)json_object_get_string_len(v))
			return bad(r,
				   "experiment.warnings[%d]: expected one line of text (1 to %d "
				   "bytes, no control characters)",
				   i, TS_EXP_PART_WARNING_MAX - 1);
		if (!(m->warnings[i] = strdup(text)))
			return ts_error_set(r->err, -ENOMEM, "out of memory");
		m->nr_warnings = i + 1;
	}
	return 0;
}

static int read_identity(struct reader *r, json_object *exp, struct ts_exp_merge *m)
{
	bool oom = false;
	const char *machine, *workload, *metric, *unit, *load_name, *groups;
	int metric_kind, task_iterations;
	uint64_t hz;
	if (get_string(r, exp, "experiment.", "machine", false, &machine) ||
	    member_int(r, exp, "experiment.", "cpus", 0, INT_MAX, &m->topo.nr_cpus) ||
	    get_string(r, exp, "experiment.", "workload", false, &workload) ||
	    member_int(r, exp, "experiment.", "metric_kind", TS_METRIC_THROUGHPUT_MBS,
		       TS_METRIC_OPS_PER_S, &metric_kind) ||
	    get_string(r, exp, "experiment.", "metric", false, &metric) ||
	    get_string(r, exp, "experiment.", "unit", false, &unit) ||
	    get_string(r, exp, "experiment.", "load_name", true, &load_name) ||
	    member_u64(r, exp, "experiment.", "seed", &m->e.seed) ||
	    member_int(r, exp, "experiment.", "iterations", 1, TS_EXP_MAX_ITERATIONS,
		       &m->e.iterations) ||
	    read_loads(r, exp, m) ||
	    member_u64(r, exp, "experiment.", "duration_ns", &m->e.base.duration_ns) ||
	    member_u64(r, exp, "experiment.", "warmup_ns", &m->e.base.warmup_ns) ||
	    member_u64(r, exp, "experiment.", "hz", &hz) ||
	    member_int(r, exp, "experiment.", "task_iterations", 0, INT_MAX, &task_iterations) ||
	    member_u64(r, exp, "experiment.", "max_events", &m->e.base.max_events) ||
	    read_pin(r, exp, m, &oom) || read_bind(r, exp, &m->e.base.bind) ||
	    get_string(r, exp, "experiment.", "groups_spec", true, &groups) ||
	    read_configs(r, exp, m) || read_warnings(r, exp, m))
		return r->err->code;
	if (hz > UINT_MAX)
		return bad(r, "experiment.hz: %" PRIu64 " is too large", hz);
	json_object *v;
	if (member(r, exp, "experiment.", "no_background", json_type_boolean, false, &v))
		return r->err->code;
	m->e.base.no_background = json_object_get_boolean(v);
	m->e.base.hz = (unsigned)hz;
	m->e.base.iterations = task_iterations;
	if (strlen(machine) >= sizeof(m->topo.name))
		return bad(r, "experiment.machine: too long");
	memcpy(m->topo.name, machine, strlen(machine) + 1);
	m->e.machine = m->topo.name;
	m->e.base.topo = &m->topo;
	m->workload_name = dup_or_null(workload, &oom);
	m->metric_name = dup_or_null(metric, &oom);
	m->unit = dup_or_null(unit, &oom);
	m->load_name = dup_or_null(load_name, &oom);
	m->workload = (struct ts_workload){
		.name = m->workload_name,
		.metric = (enum ts_metric_kind)metric_kind,
		.metric_name = m->metric_name,
		.unit = m->unit,
		.load_name = m->load_name,
	};
	m->e.base.workload = &m->workload;
	if (groups) {
		m->groups = calloc(1, sizeof(*m->groups));
		if (!m->groups || strlen(groups) >= sizeof(m->groups->text))
			return m->groups ? bad(r, "experiment.groups_spec: too long")
					 : ts_error_set(r->err, -ENOMEM, "out of memory");
		memcpy(m->groups->text, groups, strlen(groups) + 1);
		m->e.base.groups = m->groups;
	}
	if (oom)
		return ts_error_set(r->err, -ENOMEM, "out of memory");
	return 0;
}

/* ---- one run's result ---- */

static int read_value(struct reader *r, const struct ts_part_field *f, json_object *v,
		      const char *where, void *p)
{
	uint64_t u;
	switch (f->type) {
	case TS_PART_U64:
		return get_u64(r, v, where, f->key, (uint64_t *)p);
	case TS_PART_F64:
		return get_hex(r, v, where, f->key, (double *)p);
	case TS_PART_INT:
		return get_int(r, v, where, f->key, INT_MIN, INT_MAX, (int *)p);
	case TS_PART_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return bad(r, "%s%s: expected true or false", where, f->key);
		*(bool *)p = json_object_get_boolean(v);
		return 0;
	case TS_PART_NAME:
		if (!json_object_is_type(v, json_type_string) ||
		    (u = (uint64_t)json_object_get_string_len(v)) >= TS_TG_NAME_MAX)
			return bad(r, "%s%s: expected a name of fewer than %d bytes", where, f->key,
				   TS_TG_NAME_MAX);
		memcpy(p, json_object_get_string(v), (size_t)u + 1);
		return 0;
	}
	return bad(r, "%s%s: unknown type", where, f->key);
}

static int read_result(struct reader *r, json_object *obj, const char *where,
		       struct ts_sim_result *out)
{
	if (!json_object_is_type(obj, json_type_object))
		return bad(r, "%s: expected an object", where);
	char prefix[96];
	snprintf(prefix, sizeof(prefix), "%s.", where);
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < ts_part_nr_fields; i++) {
		const struct ts_part_field *f = &ts_part_fields[i];
		char *p = (char *)out + f->offset;
		json_object *v;
		if (!json_object_object_get_ex(obj, f->key, &v))
			return bad(r, "%s%s: missing", prefix, f->key);
		if (!f->count) {
			if (read_value(r, f, v, prefix, p))
				return r->err->code;
			continue;
		}
		if (!json_object_is_type(v, json_type_array) ||
		    (int)json_object_array_length(v) != f->count)
			return bad(r, "%s%s: expected an array of %d", prefix, f->key, f->count);
		for (int k = 0; k < f->count; k++)
			if (read_value(r, f, json_object_array_get_idx(v, (size_t)k), prefix,
				       p + (size_t)k * ts_part_value_size(f->type)))
				return r->err->code;
	}
	/* every field was found: one more is not the format's */
	if (json_object_object_length(obj) != ts_part_nr_fields) {
		json_object_object_foreach(obj, key, v)
		{
			(void)v;
			bool known = false;
			for (int i = 0; i < ts_part_nr_fields && !known; i++)
				known = strcmp(key, ts_part_fields[i].key) == 0;
			if (!known)
				return bad(r, "%s%s: not a field of the format", prefix, key);
		}
	}
	return 0;
}

/* ---- the parts ---- */

/* The whole file, parsed; NULL with the error set. */
static json_object *parse_file(struct reader *r)
{
	FILE *f = fopen(r->path, "rb");
	if (!f) {
		int e = errno;
		ts_error_set(r->err, -e, "%s: cannot read it: %s", r->path, strerror(e));
		return NULL;
	}
	json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	json_object *root = NULL;
	char buf[65536];
	size_t n, line = 1;
	enum json_tokener_error jerr = json_tokener_continue;
	while (tok && !root && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		root = json_tokener_parse_ex(tok, buf, (int)n);
		jerr = json_tokener_get_error(tok);
		size_t used =
			root || jerr != json_tokener_continue ? json_tokener_get_parse_end(tok) : n;
		for (size_t i = 0; i < used && i < n; i++)
			line += buf[i] == '\n';
		if (jerr != json_tokener_continue && jerr != json_tokener_success)
			break;
	}
	bool read_error = ferror(f);
	fclose(f);
	if (!tok) {
		ts_error_set(r->err, -ENOMEM, "out of memory");
	} else if (read_error) {
		ts_error_set(r->err, -EIO, "%s: reading it failed", r->path);
	} else if (!root) {
		bad(r, "not a partial result: %s (line %zu)",
		    jerr == json_tokener_continue ? "the JSON ends too early"
						  : json_tokener_error_desc(jerr),
		    line);
	}
	if (tok)
		json_tokener_free(tok);
	return root;
}

/* The first key of a whose value differs in b ("" when none does). */
static const char *first_difference(json_object *a, json_object *b)
{
	json_object_object_foreach(a, key, va)
	{
		json_object *vb;
		if (!json_object_object_get_ex(b, key, &vb) || !json_object_equal(va, vb))
			return key;
	}
	json_object_object_foreach(b, key2, vb2)
	{
		(void)vb2;
		if (!json_object_object_get_ex(a, key2, NULL))
			return key2;
	}
	return "";
}

struct merge_state {
	const char *version;
	int nr_shards, total;
	json_object *exp;	  /* the first part's identity */
	const char *first_path;	  /* its file */
	const char **shard_path;  /* [nr_shards]: the file of each shard read */
	int *shard_of_run;	  /* [total] */
	int *runs_of_shard_count; /* [nr_shards] */
	bool *have;		  /* [total] */
};

static int config_index(const struct ts_experiment *e, const char *name)
{
	for (int c = 0; c < e->nr_configs; c++)
		if (strcmp(e->configs[c].name, name) == 0)
			return c;
	return -1;
}

static int load_index(const struct ts_experiment *e, int load)
{
	for (int l = 0; l < e->nr_loads; l++)
		if (e->loads[l] == load)
			return l;
	return -1;
}

static int read_runs(struct reader *r, json_object *root, int shard, struct merge_state *st,
		     struct ts_exp_merge *m)
{
	const struct ts_experiment *e = &m->e;
	json_object *runs;
	if (member(r, root, "", "runs", json_type_array, false, &runs))
		return r->err->code;
	const char *checksum;
	if (get_string(r, root, "", "checksum", false, &checksum))
		return r->err->code;
	uint64_t digest = TS_PART_DIGEST_INIT;
	int n = (int)json_object_array_length(runs);
	for (int i = 0; i < n; i++) {
		json_object *run = json_object_array_get_idx(runs, (size_t)i), *res;
		char where[64];
		snprintf(where, sizeof(where), "runs[%d].", i);
		const char *config;
		int load, it;
		if (!json_object_is_type(run, json_type_object))
			return bad(r, "runs[%d]: expected an object", i);
		if (get_string(r, run, where, "config", false, &config) ||
		    member_int(r, run, where, "load", 1, TS_SIM_MAX_TASKS, &load) ||
		    member_int(r, run, where, "iteration", 1, e->iterations, &it) ||
		    member(r, run, where, "result", json_type_object, false, &res))
			return r->err->code;
		int c = config_index(e, config), l = load_index(e, load);
		if (c < 0 || l < 0)
			return bad(r, "runs[%d]: configuration '%s', %s %d: not one of the sweep's",
				   i, config, ts_report_load_name(e), load);
		int idx = (c * e->nr_loads + l) * e->iterations + it - 1;
		if (st->shard_of_run[idx] != shard)
			return bad(r,
				   "runs[%d]: configuration '%s', %s %d, iteration %d is a run of "
				   "shard %d/%d, not of this shard %d/%d",
				   i, config, ts_report_load_name(e), load, it,
				   st->shard_of_run[idx] + 1, st->nr_shards, shard + 1,
				   st->nr_shards);
		if (st->have[idx])
			return bad(r, "runs[%d]: configuration '%s', %s %d, iteration %d twice", i,
				   config, ts_report_load_name(e), load, it);
		snprintf(where, sizeof(where), "runs[%d].result", i);
		if (read_result(r, res, where, &m->results[idx]))
			return r->err->code;
		st->have[idx] = true;
		digest = ts_part_digest(digest, idx, &m->results[idx]);
	}
	char want[32];
	snprintf(want, sizeof(want), "fnv1a64:%016llx", (unsigned long long)digest);
	if (strcmp(checksum, want))
		return bad(r, "its runs do not match its checksum (the file was changed or "
			      "damaged)");
	if (n != st->runs_of_shard_count[shard])
		return bad(r, "shard %d/%d holds %d runs of its %d (a part cut short?)", shard + 1,
			   st->nr_shards, n, st->runs_of_shard_count[shard]);
	return 0;
}

/* The first part: the experiment, and what the others are checked against. */
static int first_part(struct reader *r, json_object *exp, int nr_shards, struct merge_state *st,
		      struct ts_exp_merge *m)
{
	if (read_identity(r, exp, m))
		return r->err->code;
	long long total = (long long)m->e.nr_configs * m->e.nr_loads * m->e.iterations;
	if (total > TS_EXP_MAX_RUNS)
		return bad(r, "experiment: %lld runs, more than %d", total, TS_EXP_MAX_RUNS);
	st->total = (int)total;
	st->nr_shards = nr_shards;
	st->shard_path = calloc((size_t)nr_shards, sizeof(*st->shard_path));
	st->runs_of_shard_count = calloc((size_t)nr_shards, sizeof(*st->runs_of_shard_count));
	st->shard_of_run = calloc((size_t)total, sizeof(*st->shard_of_run));
	st->have = calloc((size_t)total, sizeof(*st->have));
	m->results = calloc((size_t)total, sizeof(*m->results));
	int *order = ts_experiment_dispatch_order(&m->e);
	if (!st->shard_path || !st->runs_of_shard_count || !st->shard_of_run || !st->have ||
	    !m->results || !order) {
		free(order);
		return ts_error_set(r->err, -ENOMEM, "out of memory for %lld runs", total);
	}
	for (int p = 0; p < st->total; p++) {
		st->shard_of_run[order[p]] = ts_experiment_shard_of(p, nr_shards);
		st->runs_of_shard_count[st->shard_of_run[order[p]]]++;
	}
	free(order);
	st->exp = json_object_get(exp);
	st->first_path = r->path;
	return 0;
}

static int read_part(struct reader *r, struct merge_state *st, struct ts_exp_merge *m)
{
	json_object *root = parse_file(r), *exp;
	if (!root)
		return r->err->code;
	int rc = 0, shard, nr_shards, format_version;
	const char *format, *version;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "format", NULL)) {
		rc = bad(r, "not a partial result of 'toposched sim --shard' (no \"format\")");
		goto out;
	}
	if (get_string(r, root, "", "format", false, &format) ||
	    member_int(r, root, "", "format_version", INT_MIN, INT_MAX, &format_version)) {
		rc = r->err->code;
		goto out;
	}
	if (strcmp(format, TS_EXP_PART_FORMAT) || format_version != TS_EXP_PART_VERSION) {
		rc = bad(r, "format '%s' version %d, not '%s' version %d", format, format_version,
			 TS_EXP_PART_FORMAT, TS_EXP_PART_VERSION);
		goto out;
	}
	if (get_string(r, root, "", "toposched", false, &version)) {
		rc = r->err->code;
		goto out;
	}
	if (strcmp(version, st->version)) {
		rc = bad(r,
			 "written by toposched %s, and this is toposched %s: merge with the "
			 "toposched that ran the shards",
			 version, st->version);
		goto out;
	}
	if (member_int(r, root, "", "shards", 1, TS_EXP_MAX_RUNS, &nr_shards) ||
	    member_int(r, root, "", "shard", 1, nr_shards, &shard) ||
	    member(r, root, "", "experiment", json_type_object, false, &exp)) {
		rc = r->err->code;
		goto out;
	}
	shard--;
	if (!st->exp) {
		rc = first_part(r, exp, nr_shards, st, m);
	} else if (nr_shards != st->nr_shards) {
		rc = bad(r, "shard %d/%d, but %s is a shard of %d: parts of another sweep",
			 shard + 1, nr_shards, st->first_path, st->nr_shards);
	} else if (!json_object_equal(exp, st->exp)) {
		rc = bad(r,
			 "another experiment than %s (its \"%s\" differs): the shards of one "
			 "sweep share every option but --shard, --output, --jobs and --quiet",
			 st->first_path, first_difference(exp, st->exp));
	}
	if (rc)
		goto out;
	if (st->shard_path[shard]) {
		rc = bad(r, "shard %d/%d again (%s is that shard too)", shard + 1, nr_shards,
			 st->shard_path[shard]);
		goto out;
	}
	st->shard_path[shard] = r->path;
	rc = read_runs(r, root, shard, st, m);
out:
	json_object_put(root);
	return rc;
}

int ts_exp_merge_parts(const char *const *paths, int nr, const char *version,
		       struct ts_exp_merge **out, struct ts_error *err)
{
	*out = NULL;
	struct ts_exp_merge *m = calloc(1, sizeof(*m));
	if (!m)
		return ts_error_set(err, -ENOMEM, "out of memory");
	struct merge_state st = {.version = version};
	int rc = nr < 1 ? ts_error_set(err, -EINVAL, "no partial results to merge") : 0;
	for (int i = 0; !rc && i < nr; i++) {
		struct reader r = {.path = paths[i], .err = err};
		rc = read_part(&r, &st, m);
	}
	for (int k = 0; !rc && k < st.nr_shards; k++)
		if (!st.shard_path[k])
			rc = ts_error_set(err, -EINVAL,
					  "shard %d/%d is missing (%d part%s given, of %d shards)",
					  k + 1, st.nr_shards, nr, nr == 1 ? "" : "s",
					  st.nr_shards);
	if (!rc)
		rc = ts_experiment_summarise(&m->e, m->results, err);
	json_object_put(st.exp);
	free(st.shard_path);
	free(st.shard_of_run);
	free(st.runs_of_shard_count);
	free(st.have);
	if (rc) {
		ts_exp_merge_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

const struct ts_experiment *ts_exp_merge_experiment(const struct ts_exp_merge *m)
{
	return &m->e;
}

int ts_exp_merge_warnings(const struct ts_exp_merge *m, const char *const **out)
{
	*out = (const char *const *)m->warnings;
	return m->nr_warnings;
}

const struct ts_sim_result *ts_exp_merge_result(const struct ts_exp_merge *m, int run)
{
	return &m->results[run];
}

void ts_exp_merge_free(struct ts_exp_merge *m)
{
	if (!m)
		return;
	ts_experiment_free(&m->e);
	free(m->workload_name);
	free(m->metric_name);
	free(m->unit);
	free(m->load_name);
	free(m->pin_text);
	ts_cpumask_free(m->pin);
	free(m->pin_cpus);
	free(m->groups);
	free(m->configs);
	free(m->loads);
	free(m->results);
	for (int i = 0; i < m->nr_warnings; i++)
		free(m->warnings[i]);
	free(m->warnings);
	free(m);
}
