/* The partial result of a shard (toposched sim --shard K/N): the experiment's identity and
 * the shard's runs, written with the project's JSON writer (json-c) in a fixed key order,
 * so that the same shard gives the same bytes. docs/sim-json.md ("Shards") documents the format. */
#include "toposched/experiment_part.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "part_fields.h"
#include "report.h"
#include "toposched/cost_model.h"
#include "toposched/json_writer.h"
#include "toposched/sim_groups.h"

#define R(field) offsetof(struct ts_sim_result, field)
#define N(field) ((int)(sizeof(((struct ts_sim_result *)0)->field) / sizeof(uint64_t)))

const struct ts_part_field ts_part_fields[] = {
	{"metric", TS_PART_F64, R(metric), 0},
	{"marks", TS_PART_U64, R(marks), 0},
	{"bytes", TS_PART_U64, R(bytes), 0},
	{"sim_ns", TS_PART_U64, R(sim_ns), 0},
	{"start_ns", TS_PART_U64, R(start_ns), 0},
	{"settle_ns", TS_PART_U64, R(settle_ns), 0},
	{"settle_capped", TS_PART_U64, R(settle_capped), 0},
	{"events", TS_PART_U64, R(events), 0},
	{"cpu_util", TS_PART_F64, R(cpu_util), 0},
	{"wakeup_lat_us", TS_PART_F64, R(wakeup_lat_us), 4},
	{"wakeup_lat_samples", TS_PART_U64, R(wakeup_lat_samples), 0},
	{"sis_search", TS_PART_U64, R(sis.search), 0},
	{"sis_domain_search", TS_PART_U64, R(sis.domain_search), 0},
	{"sis_scanned", TS_PART_U64, R(sis.scanned), 0},
	{"sis_failed", TS_PART_U64, R(sis.failed), 0},
	{"sis_recent_hit", TS_PART_U64, R(sis.recent_hit), 0},
	{"sis_recent_miss", TS_PART_U64, R(sis.recent_miss), 0},
	{"sis_core_search", TS_PART_U64, R(sis.core_search), 0},
	{"sis_core_failed", TS_PART_U64, R(sis.core_failed), 0},
	{"lb_count", TS_PART_U64, R(lb.lb_count), TS_CPU_MAX_IDLE_TYPES},
	{"lb_balanced", TS_PART_U64, R(lb.lb_balanced), TS_CPU_MAX_IDLE_TYPES},
	{"lb_failed", TS_PART_U64, R(lb.lb_failed), TS_CPU_MAX_IDLE_TYPES},
	{"lb_imbalance", TS_PART_U64, R(lb.lb_imbalance), TS_CPU_MAX_IDLE_TYPES},
	{"lb_gained", TS_PART_U64, R(lb.lb_gained), TS_CPU_MAX_IDLE_TYPES},
	{"lb_hot_gained", TS_PART_U64, R(lb.lb_hot_gained), TS_CPU_MAX_IDLE_TYPES},
	{"lb_nobusyq", TS_PART_U64, R(lb.lb_nobusyq), TS_CPU_MAX_IDLE_TYPES},
	{"lb_nobusyg", TS_PART_U64, R(lb.lb_nobusyg), TS_CPU_MAX_IDLE_TYPES},
	{"alb_count", TS_PART_U64, R(lb.alb_count), 0},
	{"alb_failed", TS_PART_U64, R(lb.alb_failed), 0},
	{"alb_pushed", TS_PART_U64, R(lb.alb_pushed), 0},
	{"ttwu_wake_remote", TS_PART_U64, R(lb.ttwu_wake_remote), 0},
	{"ttwu_move_affine", TS_PART_U64, R(lb.ttwu_move_affine), 0},
	{"ttwu_move_balance", TS_PART_U64, R(lb.ttwu_move_balance), 0},
	{"reasons", TS_PART_U64, R(reasons), TS_PLACE_NR},
	{"wakeups_by_relation", TS_PART_U64, R(wakeups_by_relation), TS_REL_NR},
	{"wakeups", TS_PART_U64, R(wakeups), 0},
	{"migrations", TS_PART_U64, R(migrations), 0},
	{"scan_hist", TS_PART_U64, R(scan_hist), TS_SCAN_HIST_BUCKETS},
	{"messages_sent", TS_PART_U64, R(messages_sent), 0},
	{"messages_received", TS_PART_U64, R(messages_received), 0},
	{"busy_ns", TS_PART_U64, R(busy_ns), 0},
	{"finished", TS_PART_BOOL, R(finished), 0},
	{"messages_queued", TS_PART_U64, R(messages_queued), 0},
	{"exec_ns", TS_PART_U64, R(exec_ns), 0},
	{"work_ns", TS_PART_F64, R(work_ns), TS_WORK_NR},
	/* struct ts_sim_numa's fields in their order (the numa keys of the report JSON) */
	{"numa", TS_PART_U64, R(numa), N(numa)},
	{"tg_enabled", TS_PART_BOOL, R(tg.enabled), 0},
	{"tg_window_ns", TS_PART_U64, R(tg.window_ns), 0},
	{"tg_nr_cpus", TS_PART_INT, R(tg.nr_cpus), 0},
	{"tg_load_avg_writes", TS_PART_U64, R(tg.load_avg_writes), 0},
	{"tg_load_avg_reads", TS_PART_U64, R(tg.load_avg_reads), 0},
	{"tg_skipped_ratelimit", TS_PART_U64, R(tg.skipped_ratelimit), 0},
	{"tg_skipped_filter", TS_PART_U64, R(tg.skipped_filter), 0},
	{"tg_line_reads", TS_PART_U64, R(tg.line_reads), 0},
	{"tg_line_writes", TS_PART_U64, R(tg.line_writes), 0},
	{"tg_line_misses", TS_PART_U64, R(tg.line_misses), TS_REL_NR},
	{"tg_remote_node_writes", TS_PART_U64, R(tg.remote_node_writes), 0},
	{"tg_stall_ns", TS_PART_F64, R(tg.stall_ns), 0},
	{"tg_wait_ns", TS_PART_F64, R(tg.wait_ns), 0},
	/* hitm[reader][local, remote], row by row */
	{"tg_hitm", TS_PART_U64, R(tg.hitm), N(tg.hitm)},
	{"tg_hitm_ns", TS_PART_F64, R(tg.hitm_ns), 0},
	{"tg_nr_top", TS_PART_INT, R(tg.nr_top), 0},
	{"tg_top_name", TS_PART_NAME, R(tg.top_name), TS_SIM_TG_TOP_MAX},
	{"tg_top_exec_ns", TS_PART_U64, R(tg.top_exec_ns), TS_SIM_TG_TOP_MAX},
	{"tg_other_top_exec_ns", TS_PART_U64, R(tg.other_top_exec_ns), 0},
	{"tg_root_exec_ns", TS_PART_U64, R(tg.root_exec_ns), 0},
};
const int ts_part_nr_fields = (int)(sizeof(ts_part_fields) / sizeof(ts_part_fields[0]));

#if defined(__x86_64__) || defined(__aarch64__)
/* A field added to struct ts_sim_result must be carried by the parts (a report may read
 * it): add it to ts_part_fields, then update this size. */
_Static_assert(sizeof(struct ts_sim_result) == 1672,
	       "struct ts_sim_result changed: update ts_part_fields");
#endif

/* %a: every bit of the double, and strtod() reads it back exactly (nan and inf too) */
static void write_hex(struct ts_json_writer *w, double v)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%a", v);
	ts_json_string(w, buf);
}

static void write_value(struct ts_json_writer *w, const struct ts_part_field *f, const void *p)
{
	switch (f->type) {
	case TS_PART_U64:
		ts_json_uint(w, *(const uint64_t *)p);
		break;
	case TS_PART_F64:
		write_hex(w, *(const double *)p);
		break;
	case TS_PART_INT:
		ts_json_int(w, *(const int *)p);
		break;
	case TS_PART_BOOL:
		ts_json_bool(w, *(const bool *)p);
		break;
	case TS_PART_NAME:
		ts_json_string(w, (const char *)p);
		break;
	}
}

size_t ts_part_value_size(enum ts_part_type t)
{
	switch (t) {
	case TS_PART_F64:
		return sizeof(double);
	case TS_PART_INT:
		return sizeof(int);
	case TS_PART_BOOL:
		return sizeof(bool);
	case TS_PART_NAME:
		return TS_TG_NAME_MAX;
	case TS_PART_U64:
		break;
	}
	return sizeof(uint64_t);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t ts_part_digest(uint64_t h, int run, const struct ts_sim_result *r)
{
	h = fnv1a(h, &run, sizeof(run));
	for (int i = 0; i < ts_part_nr_fields; i++) {
		const struct ts_part_field *f = &ts_part_fields[i];
		size_t size = ts_part_value_size(f->type);
		for (int k = 0; k < (f->count ? f->count : 1); k++) {
			const char *p = (const char *)r + f->offset + (size_t)k * size;
			h = fnv1a(h, p, f->type == TS_PART_NAME ? strnlen(p, size) : size);
		}
	}
	return h;
}

static void write_result(struct ts_json_writer *w, const struct ts_sim_result *r)
{
	ts_json_key(w, "result");
	ts_json_begin_object(w);
	for (int i = 0; i < ts_part_nr_fields; i++) {
		const struct ts_part_field *f = &ts_part_fields[i];
		const char *p = (const char *)r + f->offset;
		ts_json_key(w, f->key);
		if (!f->count) {
			write_value(w, f, p);
			continue;
		}
		ts_json_begin_array(w);
		for (int k = 0; k < f->count; k++)
			write_value(w, f, p + (size_t)k * ts_part_value_size(f->type));
		ts_json_end_array(w);
	}
	ts_json_end_object(w);
}

/* A digest of the topology the runs used (FNV-1a, 64 bits, over every CPU's ids and
 * capacity and the distance matrix): two machines of one name but other shapes (an hwloc
 * file edited between shards) are not one experiment. */
static uint64_t topology_digest(const struct ts_topology *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
#define MIX(v)                                                                                     \
	do {                                                                                       \
		uint64_t x_ = (uint64_t)(int64_t)(v);                                              \
		for (int b_ = 0; b_ < 8; b_++) {                                                   \
			h ^= (x_ >> (8 * b_)) & 0xff;                                              \
			h *= 0x100000001b3ULL;                                                     \
		}                                                                                  \
	} while (0)
	MIX(t->nr_cpus);
	MIX(t->nr_nodes);
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct ts_cpu_topo *p = &t->cpu[c];
		MIX(p->core);
		MIX(p->cluster);
		MIX(p->llc);
		MIX(p->node);
		MIX(p->package);
		MIX(p->capacity);
		MIX(p->os_index);
	}
	for (int i = 0; i < t->nr_nodes * t->nr_nodes; i++)
		MIX(t->distance[i]);
#undef MIX
	return h;
}

static int write_cost(const struct ts_cost_term_info *info, const struct ts_cost_term *term,
		      void *arg)
{
	struct ts_json_writer *w = arg;
	ts_json_key(w, info->name);
	write_hex(w, term->value);
	return 0;
}

static void write_identity(struct ts_json_writer *w, const struct ts_experiment *e,
			   const char *const *warnings, int nr_warnings)
{
	const struct ts_workload *wl = e->base.workload;
	char buf[TS_FEATURES_STR_MAX];
	ts_json_key(w, "experiment");
	ts_json_begin_object(w);
	ts_json_member_string(w, "machine", ts_report_machine(e));
	ts_json_member_int(w, "cpus", e->base.topo ? e->base.topo->nr_cpus : 0);
	if (e->base.topo) {
		snprintf(buf, sizeof(buf), "fnv1a64:%016llx",
			 (unsigned long long)topology_digest(e->base.topo));
		ts_json_member_string(w, "topology", buf);
	} else {
		ts_json_member_null(w, "topology");
	}
	ts_json_member_string(w, "workload", wl->name);
	ts_json_member_int(w, "metric_kind", wl->metric);
	ts_json_member_string(w, "metric", wl->metric_name);
	ts_json_member_string(w, "unit", wl->unit);
	if (wl->load_name)
		ts_json_member_string(w, "load_name", wl->load_name);
	else
		ts_json_member_null(w, "load_name");
	ts_json_member_uint(w, "seed", e->seed);
	ts_json_member_int(w, "iterations", e->iterations);
	ts_json_key(w, "loads");
	ts_json_begin_array(w);
	for (int l = 0; l < e->nr_loads; l++)
		ts_json_int(w, e->loads[l]);
	ts_json_end_array(w);
	ts_json_member_uint(w, "duration_ns", e->base.duration_ns);
	ts_json_member_uint(w, "warmup_ns", e->base.warmup_ns);
	ts_json_member_uint(w, "hz", e->base.hz);
	ts_json_member_int(w, "task_iterations", e->base.iterations);
	ts_json_member_uint(w, "max_events", e->base.max_events);
	if (e->base.pin) {
		ts_report_pin_cpus(e, buf, sizeof(buf));
		ts_json_key(w, "pin");
		ts_json_begin_object(w);
		if (e->pin_text)
			ts_json_member_string(w, "nodes", e->pin_text);
		else
			ts_json_member_null(w, "nodes");
		ts_json_member_string(w, "cpus", buf);
		ts_json_end_object(w);
	} else {
		ts_json_member_null(w, "pin");
	}
	ts_json_key(w, "pin_cpus");
	ts_json_begin_array(w);
	for (int i = 0; e->base.pin_cpus && i < e->base.nr_pin_cpus; i++)
		ts_json_int(w, e->base.pin_cpus[i]);
	ts_json_end_array(w);
	ts_json_member_string(w, "bind", ts_report_bind_name(e->base.bind));
	ts_json_member_bool(w, "no_background", e->base.no_background);
	if (e->base.groups)
		ts_json_member_string(w, "groups_spec", e->base.groups->text);
	else
		ts_json_member_null(w, "groups_spec");
	ts_json_key(w, "configs");
	ts_json_begin_array(w);
	for (int c = 0; c < e->nr_configs; c++) {
		const struct ts_exp_config *cfg = &e->configs[c];
		ts_json_begin_object(w);
		ts_json_member_string(w, "name", cfg->name);
		ts_json_member_string(w, "features", cfg->features_text);
		ts_json_member_uint(w, "features_mask", cfg->features.mask);
		ts_json_member_string(w, "tg_layout", ts_tg_layout_name(cfg->tg_layout));
		if (cfg->kernel.major) {
			ts_kernel_profile_name(&cfg->kernel, buf, sizeof(buf));
			ts_json_member_string(w, "kernel", buf);
		} else {
			ts_json_member_null(w, "kernel");
		}
		ts_json_end_object(w);
	}
	ts_json_end_array(w);
	ts_json_key(w, "costs");
	if (e->base.costs) {
		ts_json_begin_object(w);
		ts_cost_model_foreach(e->base.costs, write_cost, w);
		ts_json_end_object(w);
	} else {
		ts_json_null(w);
	}
	ts_json_key(w, "warnings");
	ts_json_begin_array(w);
	for (int i = 0; i < nr_warnings; i++)
		ts_json_string(w, warnings[i]);
	ts_json_end_array(w);
	ts_json_end_object(w);
}

bool ts_part_warning_ok(const char *text)
{
	size_t n = strnlen(text, TS_EXP_PART_WARNING_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return false;
	return n > 0 && n < TS_EXP_PART_WARNING_MAX;
}

int ts_exp_write_part(const struct ts_experiment *e, const char *version,
		      const char *const *warnings, int nr_warnings, FILE *out)
{
	if (nr_warnings < 0 || nr_warnings > TS_EXP_PART_MAX_WARNINGS)
		return -EINVAL;
	for (int i = 0; i < nr_warnings; i++)
		if (!ts_part_warning_ok(warnings[i]))
			return -EINVAL;
	int total = ts_experiment_nr_runs(e), iters = e->iterations;
	int *order = ts_experiment_dispatch_order(e);
	bool *mine = calloc((size_t)total + 1, sizeof(*mine));
	if (!order || !mine) {
		free(order);
		free(mine);
		return -ENOMEM;
	}
	for (int p = 0; p < total; p++)
		mine[order[p]] = ts_experiment_shard_of(p, e->nr_shards) == e->shard;
	free(order);
	struct ts_json_writer w;
	ts_json_init(&w, out, 17);
	ts_json_begin_object(&w);
	ts_json_member_string(&w, "format", TS_EXP_PART_FORMAT);
	ts_json_member_int(&w, "format_version", TS_EXP_PART_VERSION);
	ts_json_member_string(&w, "toposched", version);
	ts_json_member_int(&w, "shard", e->shard + 1);
	ts_json_member_int(&w, "shards", e->nr_shards);
	write_identity(&w, e, warnings, nr_warnings);
	/* the runs in run-index order (config, load, iteration) */
	ts_json_key(&w, "runs");
	ts_json_begin_array(&w);
	uint64_t digest = TS_PART_DIGEST_INIT;
	for (int idx = 0; idx < total; idx++) {
		if (!mine[idx])
			continue;
		digest = ts_part_digest(digest, idx, &e->results[idx]);
		int point = idx / iters;
		ts_json_begin_object(&w);
		ts_json_member_string(&w, "config", e->configs[point / e->nr_loads].name);
		ts_json_member_int(&w, "load", e->loads[point % e->nr_loads]);
		ts_json_member_int(&w, "iteration", idx % iters + 1);
		write_result(&w, &e->results[idx]);
		ts_json_end_object(&w);
	}
	ts_json_end_array(&w);
	free(mine);
	char buf[32];
	snprintf(buf, sizeof(buf), "fnv1a64:%016llx", (unsigned long long)digest);
	ts_json_member_string(&w, "checksum", buf);
	int rc = ts_json_end_object(&w);
	return rc ? rc : ts_report_finish(out);
}
