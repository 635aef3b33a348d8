/* The experiment as CSV (RFC 4180): one header line, then one row per (configuration,
 * load) in report order. Text fields are quoted when they hold a comma, a quote or a
 * blank; undefined numbers are empty fields. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "sim/report.h"

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
	for (int r = 0; r < TS_REL_NR; r++)
		fprintf(out, ",wakeup_%s", ts_cpu_relation_name((enum ts_cpu_relation)r));
	fputs(",wakeup_p50_us,wakeup_p90_us,wakeup_p99_us,wakeup_p99.9_us", out);
	for (int i = 0; i < ts_report_numa_nr; i++)
		fprintf(out, ",numa_%s", ts_report_numa_fields[i].key);
	fputs(",numa_preferred_pct\n", out);
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
			for (int r = 0; r < TS_REL_NR; r++)
				csv_u64(out, st->wakeups_by_relation[r]);
			for (int q = 0; q < 4; q++)
				csv_metric(out, st->wakeup_lat_us[q]);
			for (int i = 0; i < ts_report_numa_nr; i++)
				csv_u64(out, ts_report_numa_value(&st->numa, i));
			csv_metric(out, ts_report_numa_preferred_pct(&st->numa));
			fputc('\n', out);
		}
	return ts_report_finish(out);
}
