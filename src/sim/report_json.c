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

/* -1 is the core's and the engine's "undefined" */
static void jw_metric(struct ts_json_writer *w, const char *key, double v)
{
	if (v < 0)
		ts_json_member_null(w, key);
	else
		ts_json_member_double(w, key, v);
}

/* ---- task groups: "task_groups" of a point's stats (null without a groups spec) ---- */

/* An object keyed by CPU relation ("smt", "cluster", ...), one counter each. */
static void jw_by_relation(struct ts_json_writer *w, const char *key, const uint64_t v[TS_REL_NR])
{
	jw_open(w, key, '{');
	for (int i = 0; i < TS_REL_NR; i++)
		ts_json_member_uint(w, ts_cpu_relation_name((enum ts_cpu_relation)i), v[i]);
	jw_close(w, '}');
}

static void write_task_groups(struct ts_json_writer *w, const struct ts_exp_stats *st)
{
	const struct ts_sim_tg_result *g = &st->tg;
	if (!g->enabled) {
		ts_json_member_null(w, "task_groups");
		return;
	}
	jw_open(w, "task_groups", '{');
	ts_json_member_uint(w, "window_ns", g->window_ns);
	ts_json_member_uint(w, "cpus", (uint64_t)g->nr_cpus);
	ts_json_member_uint(w, "load_avg_writes", g->load_avg_writes);
	ts_json_member_uint(w, "load_avg_reads", g->load_avg_reads);
	jw_metric(w, "load_avg_writes_per_s", ts_tg_per_sec(g->load_avg_writes, g->window_ns));
	jw_metric(w, "load_avg_reads_per_s", ts_tg_per_sec(g->load_avg_reads, g->window_ns));
	ts_json_member_uint(w, "remote_node_writes", g->remote_node_writes);
	jw_metric(w, "remote_node_write_share",
		  g->line_writes ? (double)g->remote_node_writes / (double)g->line_writes : -1);
	ts_json_member_uint(w, "skipped_ratelimit", g->skipped_ratelimit);
	ts_json_member_uint(w, "skipped_filter", g->skipped_filter);
	ts_json_member_uint(w, "line_reads", g->line_reads);
	ts_json_member_uint(w, "line_writes", g->line_writes);
	jw_by_relation(w, "line_misses", g->line_misses);
	ts_json_member_uint(w, "line_misses_total", ts_sim_tg_line_misses(g));
	ts_json_member_double(w, "stall_ns", g->stall_ns);
	ts_json_member_double(w, "wait_ns", g->wait_ns);
	jw_metric(w, "stall_share", st->busy_ns ? g->stall_ns / (double)st->busy_ns : -1);
	/* perf c2c's view: HITMs by reader, next to the published split */
	jw_open(w, "hitm", '[');
	for (int r = 0; r < TS_SIM_TG_READER_NR; r++) {
		jw_open(w, NULL, '{');
		ts_json_member_string(w, "reader", ts_sim_tg_reader_name((enum ts_sim_tg_reader)r));
		ts_json_member_uint(w, "local", g->hitm[r][0]);
		ts_json_member_uint(w, "remote", g->hitm[r][1]);
		jw_metric(w, "published_local_pct",
			  ts_sim_tg_c2c_share((enum ts_sim_tg_reader)r, false));
		jw_metric(w, "published_remote_pct",
			  ts_sim_tg_c2c_share((enum ts_sim_tg_reader)r, true));
		jw_close(w, '}');
	}
	jw_close(w, ']');
	ts_json_member_double(w, "hitm_ns", g->hitm_ns);
	jw_open(w, "cpu_share", '[');
	for (int i = 0; i < ts_report_tg_nr_shares(g); i++) {
		double share;
		jw_open(w, NULL, '{');
		ts_json_member_string(w, "group", ts_report_tg_share(g, i, &share));
		ts_json_member_double(w, "share", share);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

/* The domain lines' counters of /proc/schedstat, per idle type by the kernel's names
 * (enum cpu_idle_type: CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE). */
static void jw_load_balance(struct ts_json_writer *w, const struct ts_sim_lb *lb)
{
	static const char *const idle_names[TS_CPU_MAX_IDLE_TYPES] = {"idle", "not_idle",
								      "newly_idle"};
	jw_open(w, "load_balance", '{');
	for (int i = 0; i < TS_CPU_MAX_IDLE_TYPES; i++) {
		jw_open(w, idle_names[i], '{');
		ts_json_member_uint(w, "lb_count", lb->lb_count[i]);
		ts_json_member_uint(w, "lb_balanced", lb->lb_balanced[i]);
		ts_json_member_uint(w, "lb_failed", lb->lb_failed[i]);
		ts_json_member_uint(w, "lb_imbalance", lb->lb_imbalance[i]);
		ts_json_member_uint(w, "lb_gained", lb->lb_gained[i]);
		ts_json_member_uint(w, "lb_hot_gained", lb->lb_hot_gained[i]);
		ts_json_member_uint(w, "lb_nobusyq", lb->lb_nobusyq[i]);
		ts_json_member_uint(w, "lb_nobusyg", lb->lb_nobusyg[i]);
		jw_close(w, '}');
	}
	ts_json_member_uint(w, "alb_count", lb->alb_count);
	ts_json_member_uint(w, "alb_failed", lb->alb_failed);
	ts_json_member_uint(w, "alb_pushed", lb->alb_pushed);
	ts_json_member_uint(w, "ttwu_wake_remote", lb->ttwu_wake_remote);
	ts_json_member_uint(w, "ttwu_move_affine", lb->ttwu_move_affine);
	ts_json_member_uint(w, "ttwu_move_balance", lb->ttwu_move_balance);
	jw_close(w, '}');
}

static void write_stats(struct ts_json_writer *w, const struct ts_exp_stats *st)
{
	const struct ts_sis_metrics *m = &st->sis_metrics;
	jw_open(w, "stats", '{');
	ts_json_member_uint(w, "sis_search", st->sis.search);
	ts_json_member_uint(w, "sis_domain_search", st->sis.domain_search);
	ts_json_member_uint(w, "sis_scanned", st->sis.scanned);
	ts_json_member_uint(w, "sis_failed", st->sis.failed);
	ts_json_member_uint(w, "sis_recent_hit", st->sis.recent_hit);
	ts_json_member_uint(w, "sis_recent_miss", st->sis.recent_miss);
	ts_json_member_uint(w, "sis_core_search", st->sis.core_search);
	ts_json_member_uint(w, "sis_core_failed", st->sis.core_failed);
	jw_metric(w, "search_efficiency", m->search_efficiency);
	jw_metric(w, "domain_search_efficiency", m->domain_search_efficiency);
	jw_metric(w, "fast_success_rate", m->fast_success_rate);
	jw_metric(w, "success_rate", m->success_rate);
	jw_metric(w, "recent_success_rate", m->recent_success_rate);
	jw_metric(w, "core_search_efficiency", m->core_search_efficiency);
	jw_metric(w, "scanned_per_wakeup", m->scanned_per_wakeup);
	jw_open(w, "reasons", '{');
	for (int i = 0; i < TS_PLACE_NR; i++)
		ts_json_member_uint(w, ts_place_reason_name((enum ts_place_reason)i),
				    st->reasons[i]);
	jw_close(w, '}');
	jw_by_relation(w, "wakeups_by_relation", st->wakeups_by_relation);
	jw_open(w, "scan_hist", '{');
	for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
		ts_json_member_uint(w, ts_scan_hist_label(i), st->scan_hist[i]);
	jw_close(w, '}');
	ts_json_member_uint(w, "wakeups", st->wakeups);
	ts_json_member_uint(w, "migrations", st->migrations);
	jw_load_balance(w, &st->lb);
	ts_json_member_double(w, "cpu_util", st->cpu_util);
	jw_open(w, "wakeup_latency_us", '{');
	static const char *const pct_names[4] = {"p50", "p90", "p99", "p99.9"};
	for (int q = 0; q < 4; q++)
		jw_metric(w, pct_names[q], st->wakeup_lat_us[q]);
	jw_close(w, '}');
	ts_json_member_uint(w, "marks", st->marks);
	ts_json_member_uint(w, "bytes", st->bytes);
	ts_json_member_uint(w, "messages_sent", st->messages_sent);
	ts_json_member_uint(w, "messages_received", st->messages_received);
	ts_json_member_uint(w, "busy_ns", st->busy_ns);
	jw_open(w, "work_ns", '{');
	for (int i = 0; i < TS_WORK_NR; i++)
		ts_json_member_uint(w, ts_sim_work_name((enum ts_sim_work)i),
				    st->work_ns[i] > 0 ? (uint64_t)llround(st->work_ns[i]) : 0);
	jw_close(w, '}');
	ts_json_member_uint(w, "sim_ns", st->sim_ns);
	ts_json_member_uint(w, "start_ns", st->start_ns);
	ts_json_member_uint(w, "settle_ns", st->settle_ns);
	ts_json_member_uint(w, "settle_capped", st->settle_capped);
	ts_json_member_uint(w, "events", st->events);
	ts_json_member_bool(w, "finished", st->all_finished);
	jw_open(w, "numa", '{');
	for (int i = 0; i < ts_report_numa_nr; i++)
		ts_json_member_uint(w, ts_report_numa_fields[i].key,
				    ts_report_numa_value(&st->numa, i));
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
	ts_json_member_uint(&w, "schema_version", 1);
	ts_json_member_string(&w, "machine", ts_report_machine(e));
	ts_json_member_string(&w, "workload", wl->name);
	ts_json_member_string(&w, "metric", wl->metric_name);
	ts_json_member_string(&w, "unit", wl->unit);
	ts_json_member_bool(&w, "higher_is_better", ts_metric_higher_is_better(wl->metric));
	ts_json_member_string(&w, "summary",
			      ts_metric_higher_is_better(wl->metric) ? "hmean" : "amean");
	ts_json_member_uint(&w, "seed", e->seed);
	ts_json_member_string(&w, "load_name", ts_report_load_name(e));
	ts_json_member_uint(&w, "iterations", (uint64_t)e->iterations);
	ts_json_member_uint(&w, "duration_ns", e->base.duration_ns);
	ts_json_member_uint(&w, "warmup_ns", e->base.warmup_ns);
	ts_json_member_uint(&w, "hz", e->base.hz ? e->base.hz : 1000);
	if (e->base.iterations > 0)
		ts_json_member_uint(&w, "task_iterations", (uint64_t)e->base.iterations);
	else
		ts_json_member_null(&w, "task_iterations");
	if (e->base.pin) {
		ts_report_pin_cpus(e, buf, sizeof(buf));
		jw_open(&w, "pin", '{');
		if (e->pin_text)
			ts_json_member_string(&w, "nodes", e->pin_text);
		else /* --cpus: pinned to a CPU list, not to nodes */
			ts_json_member_null(&w, "nodes");
		ts_json_member_string(&w, "cpus", buf);
		jw_close(&w, '}');
	} else {
		ts_json_member_null(&w, "pin");
	}
	ts_json_member_string(&w, "bind", ts_report_bind_name(e->base.bind));
	if (e->base.groups) /* task groups */
		ts_json_member_string(&w, "groups_spec", e->base.groups->text);
	else
		ts_json_member_null(&w, "groups_spec");
	jw_open(&w, "configs", '[');
	for (int c = 0; c < e->nr_configs; c++) {
		const struct ts_exp_config *cfg = &e->configs[c];
		jw_open(&w, NULL, '{');
		ts_json_member_string(&w, "name", cfg->name);
		ts_json_member_string(&w, "features", cfg->features_text);
		ts_features_format(cfg->features, buf, sizeof(buf));
		ts_json_member_string(&w, "features_effective", buf);
		ts_json_member_bool(&w, "baseline", c == 0);
		ts_json_member_string(&w, "tg_layout",
				      ts_tg_layout_name(cfg->tg_layout)); /* task groups */
		if (cfg->kernel.major) { /* --kernel other than the newest */
			ts_kernel_profile_name(&cfg->kernel, buf, sizeof(buf));
			ts_json_member_string(&w, "kernel", buf);
		}
		jw_open(&w, "points", '[');
		for (int l = 0; l < e->nr_loads; l++) {
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			jw_open(&w, NULL, '{');
			ts_json_member_uint(&w, "load", (uint64_t)p->load);
			jw_open(&w, "samples", '[');
			for (int i = 0; i < p->n; i++)
				ts_json_member_double(&w, NULL, p->samples[i]);
			jw_close(&w, ']');
			ts_json_member_double(&w, "hmean", p->hmean);
			ts_json_member_double(&w, "amean", p->amean);
			ts_json_member_double(&w, "stddev", p->stddev);
			ts_json_member_double(&w, "mean", p->mean);
			ts_json_member_double(&w, "pct_change", p->pct_change);
			ts_json_member_bool(&w, "significant", p->significant);
			write_stats(&w, &p->stats);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	int rc = ts_json_end_object(&w); /* writes the document */
	return rc ? rc : ts_report_finish(out);
}
