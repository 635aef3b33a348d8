/* The experiment as JSON: the stable, documented schema of docs/sim-json.md. Key order
 * is fixed and numbers are printed with a fixed precision, so the same experiment gives
 * byte-identical JSON. Undefined values (a metric with a zero denominator, a percentile
 * with no measured class, a % change against a zero baseline) are null. */
#include <math.h>
#include <string.h>

#include "report.h"
#include "toposched/json_writer.h"

/* significant digits of every number: the schema's fixed precision */
#define TS_REPORT_JSON_PRECISION 10

/* The sim reports' members, keyed (NULL: an array element). */
static void jw_key(struct ts_json_writer *w, const char *key)
{
	if (key)
		ts_json_key(w, key);
}

static void jw_open(struct ts_json_writer *w, const char *key, char c)
{
	jw_key(w, key);
	if (c == '{')
		ts_json_begin_object(w);
	else
		ts_json_begin_array(w);
}

static void jw_close(struct ts_json_writer *w, char c)
{
	if (c == '}')
		ts_json_end_object(w);
	else
		ts_json_end_array(w);
}

static void jw_str(struct ts_json_writer *w, const char *key, const char *v)
{
	jw_key(w, key);
	ts_json_string(w, v);
}

static void jw_u64(struct ts_json_writer *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	ts_json_uint(w, v);
}

static void jw_bool(struct ts_json_writer *w, const char *key, bool v)
{
	jw_key(w, key);
	ts_json_bool(w, v);
}

static void jw_null(struct ts_json_writer *w, const char *key)
{
	jw_key(w, key);
	ts_json_null(w);
}

static void jw_num(struct ts_json_writer *w, const char *key, double v)
{
	jw_key(w, key);
	ts_json_double(w, v);
}

/* -1 is the core's and the engine's "undefined" */
static void jw_metric(struct ts_json_writer *w, const char *key, double v)
{
	if (v < 0)
		jw_null(w, key);
	else
		jw_num(w, key, v);
}

/* ---- task groups: "task_groups" of a point's stats (null without a groups spec) ---- */

/* An object keyed by CPU relation ("smt", "cluster", ...), one counter each. */
static void jw_by_relation(struct ts_json_writer *w, const char *key, const uint64_t v[TS_REL_NR])
{
	jw_open(w, key, '{');
	for (int i = 0; i < TS_REL_NR; i++)
		jw_u64(w, ts_cpu_relation_name((enum ts_cpu_relation)i), v[i]);
	jw_close(w, '}');
}

static void write_task_groups(struct ts_json_writer *w, const struct ts_exp_stats *st)
{
	const struct ts_sim_tg_result *g = &st->tg;
	if (!g->enabled) {
		jw_null(w, "task_groups");
		return;
	}
	jw_open(w, "task_groups", '{');
	jw_u64(w, "window_ns", g->window_ns);
	jw_u64(w, "cpus", (uint64_t)g->nr_cpus);
	jw_u64(w, "load_avg_writes", g->load_avg_writes);
	jw_u64(w, "load_avg_reads", g->load_avg_reads);
	jw_metric(w, "load_avg_writes_per_s", ts_tg_per_sec(g->load_avg_writes, g->window_ns));
	jw_metric(w, "load_avg_reads_per_s", ts_tg_per_sec(g->load_avg_reads, g->window_ns));
	jw_u64(w, "remote_node_writes", g->remote_node_writes);
	jw_metric(w, "remote_node_write_share",
		  g->line_writes ? (double)g->remote_node_writes / (double)g->line_writes : -1);
	jw_u64(w, "skipped_ratelimit", g->skipped_ratelimit);
	jw_u64(w, "skipped_filter", g->skipped_filter);
	jw_u64(w, "line_reads", g->line_reads);
	jw_u64(w, "line_writes", g->line_writes);
	jw_by_relation(w, "line_misses", g->line_misses);
	jw_u64(w, "line_misses_total", ts_sim_tg_line_misses(g));
	jw_num(w, "stall_ns", g->stall_ns);
	jw_num(w, "wait_ns", g->wait_ns);
	jw_metric(w, "stall_share", st->busy_ns ? g->stall_ns / (double)st->busy_ns : -1);
	jw_open(w, "cpu_share", '[');
	for (int i = 0; i < ts_report_tg_nr_shares(g); i++) {
		double share;
		jw_open(w, NULL, '{');
		jw_str(w, "group", ts_report_tg_share(g, i, &share));
		jw_num(w, "share", share);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void write_stats(struct ts_json_writer *w, const struct ts_exp_stats *st)
{
	const struct ts_sis_metrics *m = &st->sis_metrics;
	jw_open(w, "stats", '{');
	jw_u64(w, "sis_search", st->sis.search);
	jw_u64(w, "sis_domain_search", st->sis.domain_search);
	jw_u64(w, "sis_scanned", st->sis.scanned);
	jw_u64(w, "sis_failed", st->sis.failed);
	jw_u64(w, "sis_recent_hit", st->sis.recent_hit);
	jw_u64(w, "sis_recent_miss", st->sis.recent_miss);
	jw_u64(w, "sis_core_search", st->sis.core_search);
	jw_u64(w, "sis_core_failed", st->sis.core_failed);
	jw_metric(w, "search_efficiency", m->search_efficiency);
	jw_metric(w, "domain_search_efficiency", m->domain_search_efficiency);
	jw_metric(w, "fast_success_rate", m->fast_success_rate);
	jw_metric(w, "success_rate", m->success_rate);
	jw_metric(w, "recent_success_rate", m->recent_success_rate);
	jw_metric(w, "core_search_efficiency", m->core_search_efficiency);
	jw_metric(w, "scanned_per_wakeup", m->scanned_per_wakeup);
	jw_open(w, "reasons", '{');
	for (int i = 0; i < TS_PLACE_NR; i++)
		jw_u64(w, ts_place_reason_name((enum ts_place_reason)i), st->reasons[i]);
	jw_close(w, '}');
	jw_by_relation(w, "wakeups_by_relation", st->wakeups_by_relation);
	jw_open(w, "scan_hist", '{');
	for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
		jw_u64(w, ts_scan_hist_label(i), st->scan_hist[i]);
	jw_close(w, '}');
	jw_u64(w, "wakeups", st->wakeups);
	jw_u64(w, "migrations", st->migrations);
	jw_num(w, "cpu_util", st->cpu_util);
	jw_open(w, "wakeup_latency_us", '{');
	static const char *const pct_names[4] = {"p50", "p90", "p99", "p99.9"};
	for (int q = 0; q < 4; q++)
		jw_metric(w, pct_names[q], st->wakeup_lat_us[q]);
	jw_close(w, '}');
	jw_u64(w, "marks", st->marks);
	jw_u64(w, "bytes", st->bytes);
	jw_u64(w, "messages_sent", st->messages_sent);
	jw_u64(w, "messages_received", st->messages_received);
	jw_u64(w, "busy_ns", st->busy_ns);
	jw_u64(w, "sim_ns", st->sim_ns);
	jw_u64(w, "events", st->events);
	jw_bool(w, "finished", st->all_finished);
	jw_open(w, "numa", '{');
	for (int i = 0; i < ts_report_numa_nr; i++)
		jw_u64(w, ts_report_numa_fields[i].key, ts_report_numa_value(&st->numa, i));
	jw_metric(w, "preferred_pct", ts_report_numa_preferred_pct(&st->numa));
	jw_close(w, '}');
	write_task_groups(w, st); /* task groups */
	jw_close(w, '}');
}

int ts_exp_write_json(const struct ts_experiment *e, FILE *out)
{
	struct ts_json_writer w;
	ts_json_init(&w, out, TS_REPORT_JSON_PRECISION);
	const struct ts_workload *wl = e->base.workload;
	char buf[TS_FEATURES_STR_MAX];
	jw_open(&w, NULL, '{');
	jw_u64(&w, "schema_version", 1);
	jw_str(&w, "machine", ts_report_machine(e));
	jw_str(&w, "workload", wl->name);
	jw_str(&w, "metric", wl->metric_name);
	jw_str(&w, "unit", wl->unit);
	jw_bool(&w, "higher_is_better", ts_metric_higher_is_better(wl->metric));
	jw_str(&w, "summary", ts_metric_higher_is_better(wl->metric) ? "hmean" : "amean");
	jw_u64(&w, "seed", e->seed);
	jw_str(&w, "load_name", ts_report_load_name(e));
	jw_u64(&w, "iterations", (uint64_t)e->iterations);
	jw_u64(&w, "duration_ns", e->base.duration_ns);
	jw_u64(&w, "warmup_ns", e->base.warmup_ns);
	jw_u64(&w, "hz", e->base.hz ? e->base.hz : 1000);
	if (e->base.iterations > 0)
		jw_u64(&w, "task_iterations", (uint64_t)e->base.iterations);
	else
		jw_null(&w, "task_iterations");
	if (e->base.pin) {
		ts_report_pin_cpus(e, buf, sizeof(buf));
		jw_open(&w, "pin", '{');
		jw_str(&w, "nodes", e->pin_text ? e->pin_text : "");
		jw_str(&w, "cpus", buf);
		jw_close(&w, '}');
	} else {
		jw_null(&w, "pin");
	}
	jw_str(&w, "bind", ts_report_bind_name(e->base.bind));
	if (e->base.groups) /* task groups */
		jw_str(&w, "groups_spec", e->base.groups->text);
	else
		jw_null(&w, "groups_spec");
	jw_open(&w, "configs", '[');
	for (int c = 0; c < e->nr_configs; c++) {
		const struct ts_exp_config *cfg = &e->configs[c];
		jw_open(&w, NULL, '{');
		jw_str(&w, "name", cfg->name);
		jw_str(&w, "features", cfg->features_text);
		ts_features_format(cfg->features, buf, sizeof(buf));
		jw_str(&w, "features_effective", buf);
		jw_bool(&w, "baseline", c == 0);
		jw_str(&w, "tg_layout", ts_tg_layout_name(cfg->tg_layout)); /* task groups */
		jw_open(&w, "points", '[');
		for (int l = 0; l < e->nr_loads; l++) {
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			jw_open(&w, NULL, '{');
			jw_u64(&w, "load", (uint64_t)p->load);
			jw_open(&w, "samples", '[');
			for (int i = 0; i < p->n; i++)
				jw_num(&w, NULL, p->samples[i]);
			jw_close(&w, ']');
			jw_num(&w, "hmean", p->hmean);
			jw_num(&w, "amean", p->amean);
			jw_num(&w, "stddev", p->stddev);
			jw_num(&w, "mean", p->mean);
			jw_num(&w, "pct_change", p->pct_change);
			jw_bool(&w, "significant", p->significant);
			write_stats(&w, &p->stats);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}'); /* ends the line */
	return ts_report_finish(out);
}
