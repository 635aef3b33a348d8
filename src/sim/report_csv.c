/* The experiment as CSV (RFC 4180): one header line, then one row per (configuration,
 * load) in report order. Text fields are quoted when they hold a comma, a quote or a
 * blank; undefined numbers are empty fields. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report.h"

static void csv_text(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r ")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double v)
{
	fputc(',', out);
	if (isfinite(v))
		fprintf(out, "%.10g", v == 0 ? 0.0 : v);
}

static void csv_metric(FILE *out, double v)
{
	if (v < 0)
		fputc(',', out);
	else
		csv_num(out, v);
}

static void csv_u64(FILE *out, uint64_t v)
{
	fprintf(out, ",%" PRIu64, v);
}

/* One column per CPU relation, named prefix + the relation's name, ... */
static void csv_relation_header(FILE *out, const char *prefix)
{
	for (int r = 0; r < TS_REL_NR; r++)
		fprintf(out, ",%s%s", prefix, ts_cpu_relation_name((enum ts_cpu_relation)r));
}

/* ... and their counters. */
static void csv_relation_row(FILE *out, const uint64_t v[TS_REL_NR])
{
	for (int r = 0; r < TS_REL_NR; r++)
		csv_u64(out, v[r]);
}

/* ---- task groups: the last columns (empty counters without a groups spec) ---- */

static void csv_tg_header(FILE *out)
{
	fputs(",tg_layout,groups_spec,tg_window_ns,tg_load_avg_writes,tg_load_avg_reads,"
	      "tg_remote_node_writes,tg_skipped_ratelimit,tg_skipped_filter,tg_line_reads,"
	      "tg_line_writes",
	      out);
	csv_relation_header(out, "tg_line_misses_");
	fputs(",tg_stall_ns,tg_wait_ns,tg_cpu_share", out);
}

static void csv_tg_row(const struct ts_experiment *e, int c, const struct ts_exp_stats *st,
		       FILE *out)
{
	const struct ts_sim_tg_result *g = &st->tg;
	fputc(',', out);
	csv_text(out, ts_tg_layout_name(e->configs[c].tg_layout));
	fputc(',', out);
	if (e->base.groups)
		csv_text(out, e->base.groups->text);
	if (!g->enabled) {
		for (int i = 0; i < 8 + TS_REL_NR + 3; i++)
			fputc(',', out);
		return;
	}
	csv_u64(out, g->window_ns);
	csv_u64(out, g->load_avg_writes);
	csv_u64(out, g->load_avg_reads);
	csv_u64(out, g->remote_node_writes);
	csv_u64(out, g->skipped_ratelimit);
	csv_u64(out, g->skipped_filter);
	csv_u64(out, g->line_reads);
	csv_u64(out, g->line_writes);
	csv_relation_row(out, g->line_misses);
	csv_num(out, g->stall_ns);
	csv_num(out, g->wait_ns);
	/* "name=share;..." with shares 0..1 (one text field: the groups vary with the load) */
	char share[TS_SIM_TG_TOP_MAX * (TS_TG_NAME_MAX + 24) + 64];
	size_t len = 0;
	share[0] = '\0';
	for (int i = 0; i < ts_report_tg_nr_shares(g); i++) {
		double v;
		const char *name = ts_report_tg_share(g, i, &v);
		len += (size_t)snprintf(share + len, sizeof(share) - len, "%s%s=%.6g",
					len ? ";" : "", name, v);
	}
	fputc(',', out);
	csv_text(out, share);
}

int ts_exp_write_csv(const struct ts_experiment *e, FILE *out)
{
	fputs("config,features,", out);
	csv_text(out, ts_report_load_name(e));
	fputs(",iterations,mean,hmean,amean,stddev,pct_change,significant", out);
	for (int i = 0; i < e->iterations; i++)
		fprintf(out, ",sample_%d", i + 1);
	fputs(",sis_search,sis_domain_search,sis_scanned,sis_failed,sis_recent_hit,"
	      "sis_recent_miss,search_efficiency,domain_search_efficiency,success_rate,"
	      "recent_success_rate,scanned_per_wakeup,wakeups,migrations,cpu_util",
	      out);
	for (int r = 0; r < TS_PLACE_NR; r++)
		fprintf(out, ",reason_%s", ts_place_reason_name((enum ts_place_reason)r));
	csv_relation_header(out, "wakeup_");
	fputs(",wakeup_p50_us,wakeup_p90_us,wakeup_p99_us,wakeup_p99.9_us", out);
	for (int i = 0; i < ts_report_numa_nr; i++)
		fprintf(out, ",numa_%s", ts_report_numa_fields[i].key);
	fputs(",numa_preferred_pct", out);
	csv_tg_header(out); /* task groups */
	fputc('\n', out);
	for (int c = 0; c < e->nr_configs; c++)
		for (int l = 0; l < e->nr_loads; l++) {
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			const struct ts_exp_stats *st = &p->stats;
			csv_text(out, e->configs[c].name);
			fputc(',', out);
			csv_text(out, e->configs[c].features_text);
			fprintf(out, ",%d,%d", p->load, p->n);
			csv_num(out, p->mean);
			csv_num(out, p->hmean);
			csv_num(out, p->amean);
			csv_num(out, p->stddev);
			csv_num(out, p->pct_change);
			fprintf(out, ",%d", p->significant ? 1 : 0);
			for (int i = 0; i < p->n; i++)
				csv_num(out, p->samples[i]);
			csv_u64(out, st->sis.search);
			csv_u64(out, st->sis.domain_search);
			csv_u64(out, st->sis.scanned);
			csv_u64(out, st->sis.failed);
			csv_u64(out, st->sis.recent_hit);
			csv_u64(out, st->sis.recent_miss);
			csv_metric(out, st->sis_metrics.search_efficiency);
			csv_metric(out, st->sis_metrics.domain_search_efficiency);
			csv_metric(out, st->sis_metrics.success_rate);
			csv_metric(out, st->sis_metrics.recent_success_rate);
			csv_metric(out, st->sis_metrics.scanned_per_wakeup);
			csv_u64(out, st->wakeups);
			csv_u64(out, st->migrations);
			csv_num(out, st->cpu_util);
			for (int r = 0; r < TS_PLACE_NR; r++)
				csv_u64(out, st->reasons[r]);
			csv_relation_row(out, st->wakeups_by_relation);
			for (int q = 0; q < 4; q++)
				csv_metric(out, st->wakeup_lat_us[q]);
			for (int i = 0; i < ts_report_numa_nr; i++)
				csv_u64(out, ts_report_numa_value(&st->numa, i));
			csv_metric(out, ts_report_numa_preferred_pct(&st->numa));
			csv_tg_row(e, c, st, out); /* task groups */
			fputc('\n', out);
		}
	return ts_report_finish(out);
}
