/* The mmtests-style comparison: a header naming the experiment, per load one row with
 * every configuration's Hmean (higher-is-better metrics) or Amean, its % change against
 * the baseline in parentheses — or between '*' when the difference exceeds the
 * run-to-run spread — then the same rows for the stddev; below, per configuration, the
 * scheduler statistics per load (counters summed over the iterations). */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CELL_MAX 64

static void fmt_value(char *buf, size_t size, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, size, "%.*f", decimals, v);
	else
		snprintf(buf, size, "n/a");
}

static void fmt_pct(char *buf, size_t size, const struct ts_exp_point *p)
{
	if (!isfinite(p->pct_change))
		snprintf(buf, size, "(    n/a )");
	else if (p->significant)
		snprintf(buf, size, "*%7.2f%%*", p->pct_change);
	else
		snprintf(buf, size, "(%7.2f%%)", p->pct_change);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* The rows of the comparison, as mmtests' compare-kernels prints them: one statistic for
 * every load, then the next. CoeffVar is 100 * stddev / amean. */
enum cmp_row { CMP_MIN, CMP_MEAN, CMP_STDDEV, CMP_COEFFVAR, CMP_MAX, CMP_NR };

static double sample_extreme(const struct ts_exp_point *p, bool max)
{
	double v = p->n > 0 ? p->samples[0] : NAN;
	for (int i = 1; i < p->n; i++)
		v = max ? fmax(v, p->samples[i]) : fmin(v, p->samples[i]);
	return v;
}

static double cmp_value(const struct ts_exp_point *p, enum cmp_row row)
{
	switch (row) {
	case CMP_MIN:
		return sample_extreme(p, false);
	case CMP_MEAN:
		return p->mean;
	case CMP_STDDEV:
		return p->stddev;
	case CMP_COEFFVAR:
		return p->amean != 0 ? 100 * p->stddev / p->amean : NAN;
	case CMP_MAX:
	case CMP_NR:
		break;
	}
	return sample_extreme(p, true);
}

static void comparison(const struct ts_experiment *e, FILE *out)
{
	int dec = ts_report_metric_decimals(e);
	bool hib = ts_metric_higher_is_better(e->base.workload->metric);
	const char *mean_label = hib ? "Hmean" : "Amean";
	char buf[CELL_MAX];
	/* column widths: the widest value of the whole table, and the label column */
	int vw = 1, lw = 0;
	for (int c = 0; c < e->nr_configs; c++)
		for (int l = 0; l < e->nr_loads; l++) {
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			for (int row = 0; row < CMP_NR; row++) {
				fmt_value(buf, sizeof(buf), cmp_value(p, (enum cmp_row)row), dec);
				vw = max_int(vw, (int)strlen(buf));
			}
		}
	for (int l = 0; l < e->nr_loads; l++) {
		snprintf(buf, sizeof(buf), "%d", e->loads[l]);
		lw = max_int(lw, (int)strlen(buf));
	}
	const int pct_w = 10; /* "(  12.34%)" */
	int cell_w = vw + 1 + pct_w;
	for (int c = 0; c < e->nr_configs; c++)
		cell_w = max_int(cell_w, (int)strlen(e->configs[c].name));
	int label_w = 8 + 1 + lw; /* "CoeffVar" + load */

	fprintf(out, "%*s", label_w, "");
	for (int c = 0; c < e->nr_configs; c++)
		fprintf(out, "  %*s", cell_w, e->configs[c].name);
	fputc('\n', out);
	static const char *const labels[CMP_NR] = {"Min", NULL, "Stddev", "CoeffVar", "Max"};
	for (int row = 0; row < CMP_NR; row++) {
		for (int l = 0; l < e->nr_loads; l++) {
			fprintf(out, "%-8s %*d", row == CMP_MEAN ? mean_label : labels[row], lw,
				e->loads[l]);
			for (int c = 0; c < e->nr_configs; c++) {
				const struct ts_exp_point *p = ts_experiment_point(e, c, l);
				const struct ts_exp_point *b = ts_experiment_point(e, 0, l);
				char val[CELL_MAX], pct[CELL_MAX];
				double v = cmp_value(p, (enum cmp_row)row);
				fmt_value(val, sizeof(val), v, dec);
				pct[0] = '\0';
				if (row == CMP_MEAN) {
					fmt_pct(pct, sizeof(pct), p);
				} else if (row == CMP_MIN || row == CMP_MAX) {
					double d = ts_exp_pct_change(
						v, cmp_value(b, (enum cmp_row)row));
					if (isfinite(d))
						snprintf(pct, sizeof(pct), "(%7.2f%%)", d);
					else
						snprintf(pct, sizeof(pct), "(    n/a )");
				}
				bool last = c == e->nr_configs - 1;
				fprintf(out, "  %*s%*s", cell_w - vw - 1 - pct_w, "", vw, val);
				if (pct[0])
					fprintf(out, " %-*s", last ? 0 : pct_w, pct);
				else if (!last)
					fprintf(out, "%*s", pct_w + 1, "");
			}
			fputc('\n', out);
		}
	}
}

/* ---- per-configuration statistics: one row per quantity, one column per load ---- */

enum row_kind { ROW_COUNT, ROW_PCT, ROW_RATIO };

struct row {
	const char *label;
	enum row_kind kind;
	int index; /* reason / relation / metric selector */
	double (*get)(const struct ts_exp_stats *st, int index);
};

static double sis_search(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->sis.search;
}
static double sis_domain(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->sis.domain_search;
}
static double sis_scanned(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->sis.scanned;
}
static double sis_failed(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->sis.failed;
}
static double sis_rhit(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->sis.recent_hit;
}
static double sis_rmiss(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->sis.recent_miss;
}
static double m_search_eff(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return s->sis_metrics.search_efficiency;
}
static double m_domain_eff(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return s->sis_metrics.domain_search_efficiency;
}
static double m_success(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return s->sis_metrics.success_rate;
}
static double m_recent(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return s->sis_metrics.recent_success_rate;
}
static double m_scanned_pw(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return s->sis_metrics.scanned_per_wakeup;
}
static double reason(const struct ts_exp_stats *s, int i)
{
	return (double)s->reasons[i];
}
static double relation(const struct ts_exp_stats *s, int i)
{
	return (double)s->wakeups_by_relation[i];
}
static double wakeups(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->wakeups;
}
static double migrations(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->migrations;
}
static double cpu_util(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return 100.0 * s->cpu_util;
}
static double lat(const struct ts_exp_stats *s, int i)
{
	return s->wakeup_lat_us[i];
}

static double numa_field(const struct ts_exp_stats *s, int i)
{
	return (double)ts_report_numa_value(&s->numa, i);
}
static double numa_preferred(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return ts_report_numa_preferred_pct(&s->numa);
}
static double start_ms(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->start_ns / 1e6;
}
static double settle_ms(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->settle_ns / 1e6;
}
static double settle_capped(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->settle_capped;
}
static double numa_system_s(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)s->numa.system_ns / 1e9;
}

static void fmt_stat(char *buf, size_t size, const struct row *r, const struct ts_exp_stats *st)
{
	double v = r->get(st, r->index);
	if (r->kind == ROW_COUNT)
		snprintf(buf, size, "%" PRIu64, (uint64_t)v);
	else if (v < 0 || !isfinite(v)) /* -1: undefined (zero denominator) */
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.2f", v);
}

static void print_rows(const struct ts_experiment *e, int c, const struct row *rows, int nr,
		       int label_w, int col_w, FILE *out)
{
	char buf[CELL_MAX];
	for (int i = 0; i < nr; i++) {
		fprintf(out, "%-*s", label_w, rows[i].label);
		for (int l = 0; l < e->nr_loads; l++) {
			fmt_stat(buf, sizeof(buf), &rows[i], &ts_experiment_point(e, c, l)->stats);
			fprintf(out, " %*s", col_w, buf);
		}
		fputc('\n', out);
	}
}

static int rows_width(const struct ts_experiment *e, int c, const struct row *rows, int nr)
{
	char buf[CELL_MAX];
	int w = 0;
	for (int i = 0; i < nr; i++)
		for (int l = 0; l < e->nr_loads; l++) {
			fmt_stat(buf, sizeof(buf), &rows[i], &ts_experiment_point(e, c, l)->stats);
			w = max_int(w, (int)strlen(buf));
		}
	return w;
}

static const struct row sis_rows[] = {
	{"SIS search", ROW_COUNT, 0, sis_search},
	{"SIS domain search", ROW_COUNT, 0, sis_domain},
	{"SIS scanned", ROW_COUNT, 0, sis_scanned},
	{"SIS failures", ROW_COUNT, 0, sis_failed},
	{"SIS recent used hit", ROW_COUNT, 0, sis_rhit},
	{"SIS recent used miss", ROW_COUNT, 0, sis_rmiss},
	{"SIS search efficiency %", ROW_PCT, 0, m_search_eff},
	{"SIS domain search eff. %", ROW_PCT, 0, m_domain_eff},
	{"SIS success rate %", ROW_PCT, 0, m_success},
	{"SIS recent success rate %", ROW_PCT, 0, m_recent},
	{"SIS scanned per wake-up", ROW_RATIO, 0, m_scanned_pw},
};

/* ---- task groups: the spec in the header, the layout and a block per configuration ---- */

static const struct ts_sim_tg_result *tg_of(const struct ts_exp_stats *s)
{
	return &s->tg;
}
static double tg_writes_ps(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return ts_tg_per_sec(tg_of(s)->load_avg_writes, tg_of(s)->window_ns);
}
static double tg_reads_ps(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return ts_tg_per_sec(tg_of(s)->load_avg_reads, tg_of(s)->window_ns);
}
static double tg_writes_ps_cpu(const struct ts_exp_stats *s, int i)
{
	double v = tg_writes_ps(s, i);
	return v >= 0 && tg_of(s)->nr_cpus > 0 ? v / tg_of(s)->nr_cpus : -1;
}
static double tg_reads_ps_cpu(const struct ts_exp_stats *s, int i)
{
	double v = tg_reads_ps(s, i);
	return v >= 0 && tg_of(s)->nr_cpus > 0 ? v / tg_of(s)->nr_cpus : -1;
}
static double tg_remote_pct(const struct ts_exp_stats *s, int i)
{
	(void)i;
	const struct ts_sim_tg_result *g = tg_of(s);
	return g->line_writes ? 100.0 * (double)g->remote_node_writes / (double)g->line_writes : -1;
}
static double tg_skip_rl(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)tg_of(s)->skipped_ratelimit;
}
static double tg_skip_filter(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)tg_of(s)->skipped_filter;
}
static double tg_accesses(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)(tg_of(s)->line_reads + tg_of(s)->line_writes);
}
static double tg_miss(const struct ts_exp_stats *s, int i)
{
	return (double)tg_of(s)->line_misses[i];
}
static double tg_misses(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return (double)ts_sim_tg_line_misses(tg_of(s));
}
static double tg_stall_ms(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return tg_of(s)->stall_ns / 1e6;
}
static double tg_wait_ms(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return tg_of(s)->wait_ns / 1e6;
}
static double tg_stall_pct(const struct ts_exp_stats *s, int i)
{
	(void)i;
	return s->busy_ns ? 100.0 * tg_of(s)->stall_ns / (double)s->busy_ns : -1;
}
/* HITMs: index = reader * 2 + (0 local, 1 remote); the share of that side's HITMs */
static double tg_hitm_pct(const struct ts_exp_stats *s, int i)
{
	const struct ts_sim_tg_result *g = tg_of(s);
	int side = i & 1;
	uint64_t all = 0;
	for (int r = 0; r < TS_SIM_TG_READER_NR; r++)
		all += g->hitm[r][side];
	return all ? 100.0 * (double)g->hitm[i >> 1][side] / (double)all : -1;
}
static double tg_hitm_side(const struct ts_exp_stats *s, int i)
{
	const struct ts_sim_tg_result *g = tg_of(s);
	uint64_t n = 0;
	for (int r = 0; r < TS_SIM_TG_READER_NR; r++)
		n += g->hitm[r][i];
	return (double)n;
}
static double tg_hitm_cycles(const struct ts_exp_stats *s, int i)
{
	(void)i;
	double n = tg_hitm_side(s, 0) + tg_hitm_side(s, 1);
	return n > 0 ? tg_of(s)->hitm_ns / n * TS_SIM_TG_C2C_GHZ : -1;
}
/* index: a top-level group, TS_SIM_TG_TOP_MAX = the others, TS_SIM_TG_TOP_MAX + 1 = root */
static double tg_share(const struct ts_exp_stats *s, int i)
{
	const struct ts_sim_tg_result *g = tg_of(s);
	uint64_t total = ts_sim_tg_exec_ns(g);
	if (!total || (i < TS_SIM_TG_TOP_MAX && i >= g->nr_top))
		return -1;
	uint64_t ns = i < TS_SIM_TG_TOP_MAX    ? g->top_exec_ns[i]
		      : i == TS_SIM_TG_TOP_MAX ? g->other_top_exec_ns
					       : g->root_exec_ns;
	return 100.0 * (double)ns / (double)total;
}

static void groups_header(const struct ts_experiment *e, FILE *out)
{
	if (e->base.groups)
		fprintf(out, "task groups: %s (layout per configuration below)\n",
			e->base.groups->text);
}

/* Appends the group rows of configuration c to rows (room for TG_ROWS_MAX); labels
 * live in lab. Returns the number added. */
#define TG_ROWS_MAX (18 + 2 * TS_SIM_TG_READER_NR + TS_REL_NR + TS_SIM_TG_TOP_MAX + 2)
struct tg_labels {
	char miss[TS_REL_NR][48];
	char hitm[TS_SIM_TG_READER_NR][2][80];
	char share[TS_SIM_TG_TOP_MAX][TS_TG_NAME_MAX + 32];
};

static int groups_rows(const struct ts_experiment *e, int c, struct row *rows,
		       struct tg_labels *lab)
{
	if (!e->base.groups)
		return 0;
	int nr = 0;
	rows[nr++] = (struct row){"tg load_avg writes/s", ROW_RATIO, 0, tg_writes_ps};
	rows[nr++] = (struct row){"tg load_avg reads/s", ROW_RATIO, 0, tg_reads_ps};
	rows[nr++] = (struct row){"tg load_avg writes/s per CPU", ROW_RATIO, 0, tg_writes_ps_cpu};
	rows[nr++] = (struct row){"tg load_avg reads/s per CPU", ROW_RATIO, 0, tg_reads_ps_cpu};
	rows[nr++] = (struct row){"tg writes after another node %", ROW_PCT, 0, tg_remote_pct};
	rows[nr++] = (struct row){"tg skipped by ratelimit", ROW_COUNT, 0, tg_skip_rl};
	rows[nr++] = (struct row){"tg skipped by filter", ROW_COUNT, 0, tg_skip_filter};
	rows[nr++] = (struct row){"tg line accesses", ROW_COUNT, 0, tg_accesses};
	rows[nr++] = (struct row){"tg line misses", ROW_COUNT, 0, tg_misses};
	for (int r = 0; r < TS_REL_NR; r++) {
		bool any = false;
		for (int l = 0; l < e->nr_loads; l++)
			any |= ts_experiment_point(e, c, l)->stats.tg.line_misses[r] != 0;
		if (!any)
			continue;
		snprintf(lab->miss[r], sizeof(lab->miss[r]), "tg line misses from %s",
			 ts_cpu_relation_name((enum ts_cpu_relation)r));
		rows[nr++] = (struct row){lab->miss[r], ROW_COUNT, r, tg_miss};
	}
	rows[nr++] = (struct row){"tg line stall ms", ROW_RATIO, 0, tg_stall_ms};
	rows[nr++] = (struct row){"tg line stall: waiting ms", ROW_RATIO, 0, tg_wait_ms};
	rows[nr++] = (struct row){"tg line stall % of busy time", ROW_PCT, 0, tg_stall_pct};
	/* perf c2c's view of the load_avg line, next to the published profile */
	rows[nr++] = (struct row){"tg HITM local (c2c 3927)", ROW_COUNT, 0, tg_hitm_side};
	rows[nr++] = (struct row){"tg HITM remote (c2c 1031)", ROW_COUNT, 1, tg_hitm_side};
	for (int r = 0; r < TS_SIM_TG_READER_NR; r++)
		for (int side = 0; side < 2; side++) {
			double pub = ts_sim_tg_c2c_share((enum ts_sim_tg_reader)r, side);
			char ref[24] = "";
			if (pub >= 0)
				snprintf(ref, sizeof(ref), " (c2c %.2f)", pub);
			snprintf(lab->hitm[r][side], sizeof(lab->hitm[r][side]),
				 "tg HITM %s %s %%%s", side ? "remote" : "local",
				 ts_sim_tg_reader_name((enum ts_sim_tg_reader)r), ref);
			rows[nr++] = (struct row){lab->hitm[r][side], ROW_PCT, r * 2 + side,
						  tg_hitm_pct};
		}
	rows[nr++] = (struct row){"tg HITM latency cycles (c2c 4028-5608)", ROW_RATIO, 0,
				  tg_hitm_cycles};
	/* CPU share by top-level group: names from the point with the most groups */
	const struct ts_sim_tg_result *names = NULL;
	bool others = false, root = false;
	for (int l = 0; l < e->nr_loads; l++) {
		const struct ts_sim_tg_result *g = &ts_experiment_point(e, c, l)->stats.tg;
		if (!names || g->nr_top > names->nr_top)
			names = g;
		others |= g->other_top_exec_ns > 0 || g->nr_top > TS_SIM_TG_TOP_MAX;
		root |= g->root_exec_ns > 0;
	}
	for (int t = 0; names && t < names->nr_top && t < TS_SIM_TG_TOP_MAX; t++) {
		snprintf(lab->share[t], sizeof(lab->share[t]), "tg CPU share %s %%",
			 names->top_name[t]);
		rows[nr++] = (struct row){lab->share[t], ROW_PCT, t, tg_share};
	}
	if (others)
		rows[nr++] = (struct row){"tg CPU share other groups %", ROW_PCT, TS_SIM_TG_TOP_MAX,
					  tg_share};
	if (root)
		rows[nr++] = (struct row){"tg CPU share root %", ROW_PCT, TS_SIM_TG_TOP_MAX + 1,
					  tg_share};
	return nr;
}

static void config_block(const struct ts_experiment *e, int c, FILE *out)
{
	const struct ts_exp_config *cfg = &e->configs[c];
	/* the rows this configuration shows: SIS block, non-zero placement reasons, every
	 * relation, totals */
	struct row rows[128 + TG_ROWS_MAX];
	struct tg_labels tg_lab;
	int nr = 0, first_reason, first_rel, first_tail, first_numa, first_tg;
	for (size_t i = 0; i < sizeof(sis_rows) / sizeof(sis_rows[0]); i++)
		rows[nr++] = sis_rows[i];
	char reason_labels[TS_PLACE_NR][48], rel_labels[TS_REL_NR][48];
	first_reason = nr;
	for (int r = 0; r < TS_PLACE_NR; r++) {
		bool any = false;
		for (int l = 0; l < e->nr_loads; l++)
			any |= ts_experiment_point(e, c, l)->stats.reasons[r] != 0;
		if (!any)
			continue;
		snprintf(reason_labels[r], sizeof(reason_labels[r]), "place %s",
			 ts_place_reason_name((enum ts_place_reason)r));
		rows[nr++] = (struct row){reason_labels[r], ROW_COUNT, r, reason};
	}
	first_rel = nr;
	for (int r = 0; r < TS_REL_NR; r++) {
		snprintf(rel_labels[r], sizeof(rel_labels[r]), "wake-up to %s",
			 ts_cpu_relation_name((enum ts_cpu_relation)r));
		rows[nr++] = (struct row){rel_labels[r], ROW_COUNT, r, relation};
	}
	first_tail = nr;
	rows[nr++] = (struct row){"wake-ups", ROW_COUNT, 0, wakeups};
	rows[nr++] = (struct row){"migrations", ROW_COUNT, 0, migrations};
	rows[nr++] = (struct row){"CPU utilisation %", ROW_PCT, 0, cpu_util};
	/* the idle machine and the start-up; the warm-up's wait for SIS_UTIL and the
	 * balancer to settle, and the runs whose wait ended at its cap */
	rows[nr++] = (struct row){"start-up ms", ROW_RATIO, 0, start_ms};
	rows[nr++] = (struct row){"warm-up past --warmup ms", ROW_RATIO, 0, settle_ms};
	rows[nr++] = (struct row){"warm-up cut unsettled", ROW_COUNT, 0, settle_capped};
	static const char *const lat_labels[4] = {
		"wake-up latency p50 us", "wake-up latency p90 us", "wake-up latency p99 us",
		"wake-up latency p99.9 us"};
	for (int q = 0; q < 4; q++) {
		bool any = false;
		for (int l = 0; l < e->nr_loads; l++)
			any |= ts_experiment_point(e, c, l)->stats.wakeup_lat_us[q] >= 0;
		if (any)
			rows[nr++] = (struct row){lat_labels[q], ROW_RATIO, q, lat};
	}
	/* NUMA balancing, only where it did something */
	first_numa = nr;
	bool numa = false;
	for (int l = 0; l < e->nr_loads; l++)
		numa |= ts_report_numa_active(&ts_experiment_point(e, c, l)->stats.numa);
	if (numa) {
		for (int i = 0; i < ts_report_numa_nr; i++) {
			size_t off = ts_report_numa_fields[i].offset;
			if (off == offsetof(struct ts_sim_numa, tasks_preferred) ||
			    off == offsetof(struct ts_sim_numa, system_ns))
				continue; /* shown as the share and in seconds below */
			rows[nr++] = (struct row){ts_report_numa_fields[i].label, ROW_COUNT, i,
						  numa_field};
		}
		rows[nr++] =
			(struct row){"NUMA tasks on preferred node %", ROW_PCT, 0, numa_preferred};
		rows[nr++] = (struct row){"NUMA system time s", ROW_RATIO, 0, numa_system_s};
	}
	first_tg = nr;
	nr += groups_rows(e, c, rows + nr, &tg_lab); /* task groups */

	int label_w = 0;
	for (int i = 0; i < nr; i++)
		label_w = max_int(label_w, (int)strlen(rows[i].label));
	int col_w = max_int(rows_width(e, c, rows, nr), 8);
	char buf[CELL_MAX];
	for (int l = 0; l < e->nr_loads; l++) {
		snprintf(buf, sizeof(buf), "%d", e->loads[l]);
		col_w = max_int(col_w, (int)strlen(buf));
	}
	fprintf(out, "\n%s: %s (counters summed over %d iteration%s)\n", cfg->name,
		cfg->features_text[0] ? cfg->features_text : "default features", e->iterations,
		e->iterations == 1 ? "" : "s");
	if (e->base.groups) /* task groups */
		fprintf(out, "task-group layout: %s\n", ts_tg_layout_name(cfg->tg_layout));
	if (cfg->kernel.major) /* --kernel: only an older kernel than the newest is named */
		fprintf(out, "kernel: %d.%d (docs/kernels.md)\n", cfg->kernel.major,
			cfg->kernel.minor);
	fprintf(out, "%-*s", label_w, ts_report_load_name(e));
	for (int l = 0; l < e->nr_loads; l++)
		fprintf(out, " %*d", col_w, e->loads[l]);
	fputc('\n', out);
	print_rows(e, c, rows, first_reason, label_w, col_w, out);
	print_rows(e, c, rows + first_reason, first_rel - first_reason, label_w, col_w, out);
	print_rows(e, c, rows + first_rel, first_tail - first_rel, label_w, col_w, out);
	print_rows(e, c, rows + first_tail, first_numa - first_tail, label_w, col_w, out);
	print_rows(e, c, rows + first_numa, first_tg - first_numa, label_w, col_w, out);
	print_rows(e, c, rows + first_tg, nr - first_tg, label_w, col_w, out);
}

int ts_exp_write_table(const struct ts_experiment *e, FILE *out)
{
	const struct ts_workload *wl = e->base.workload;
	bool hib = ts_metric_higher_is_better(wl->metric);
	char d[32], w[32], pin[512];
	fprintf(out, "toposched sim: %s on %s", wl->name, ts_report_machine(e));
	if (e->base.topo)
		fprintf(out, " (%d CPUs)", e->base.topo->nr_cpus);
	ts_report_pin_cpus(e, pin, sizeof(pin));
	if (e->base.pin && e->pin_text)
		fprintf(out, ", pinned to node%s %s (CPUs %s)",
			strpbrk(e->pin_text, ",-") ? "s" : "", e->pin_text, pin);
	else if (e->base.pin)
		fprintf(out, ", pinned to CPUs %s", pin);
	if (e->base.bind != TS_BIND_NONE)
		fprintf(out, ", --bind %s", ts_report_bind_name(e->base.bind));
	fprintf(out, ", seed %" PRIu64 "\n", e->seed);
	fprintf(out, "metric: %s in %s, %s is better; %s of %d iteration%s", wl->metric_name,
		wl->unit, hib ? "higher" : "lower", hib ? "Hmean" : "Amean", e->iterations,
		e->iterations == 1 ? "" : "s");
	if (wl->metric != TS_METRIC_TIME_S) {
		ts_report_duration(e->base.duration_ns, d, sizeof(d));
		ts_report_duration(e->base.warmup_ns, w, sizeof(w));
		fprintf(out, " of %s after %s warm-up", d, w);
	}
	fputc('\n', out);
	groups_header(e, out); /* task groups */
	if (e->iterations >= TS_EXP_TTEST_MIN_SAMPLES)
		fprintf(out,
			"%% change against '%s'; '*' where Welch's t-test finds the means "
			"different at %.0f%% confidence\n\n",
			e->configs[0].name, 100 * TS_EXP_CONFIDENCE);
	else
		fprintf(out,
			"%% change against '%s'; no '*': Welch's t-test needs %d or more "
			"iterations\n\n",
			e->configs[0].name, TS_EXP_TTEST_MIN_SAMPLES);
	comparison(e, out);
	if (wl->metric == TS_METRIC_TIME_S)
		for (int c = 0; c < e->nr_configs; c++)
			for (int l = 0; l < e->nr_loads; l++)
				if (!ts_experiment_point(e, c, l)->stats.all_finished)
					fprintf(out,
						"note: '%s' at %s %d: some runs ended before every "
						"task finished; the time is a lower bound\n",
						e->configs[c].name, ts_report_load_name(e),
						e->loads[l]);
	for (int c = 0; c < e->nr_configs; c++)
		config_block(e, c, out);
	return ts_report_finish(out);
}
