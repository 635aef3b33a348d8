/* A gnuplot script drawing the experiment's metric against load: one line per
 * configuration, with the stddev as error bars, and, when there is more than one
 * configuration, a second panel with each one's % change against the baseline (the
 * table's pct_change, as mmtests' compare-kernels graphs it). The data is inline
 * (datablocks), so the script is one self-contained file; the CLI runs gnuplot on it and
 * keeps it next to the image. */
#include <math.h>
#include <string.h>

#include "report.h"

/* gnuplot single-quoted string: no escapes except '' for a quote */
static void gp_string(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', out);
		fputc(*s == '\n' ? ' ' : *s, out);
	}
	fputc('\'', out);
}

static void gp_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, " %.10g", v);
	else
		fputs(" ?", out);
}

/* The lower panel: each configuration's % change against the baseline (configuration 0)
 * at every load, with the zero line. Colours follow the upper panel (the baseline's line
 * type is skipped). */
static void write_change_panel(const struct ts_experiment *e, bool hib, FILE *out)
{
	fputs("$change << EOD\n", out);
	for (int l = 0; l < e->nr_loads; l++) {
		fprintf(out, "%d", e->loads[l]);
		for (int c = 1; c < e->nr_configs; c++)
			gp_num(out, ts_experiment_point(e, c, l)->pct_change);
		fputc('\n', out);
	}
	char buf[512];
	snprintf(buf, sizeof(buf), "%% change against %s (%s is better)", e->configs[0].name,
		 hib ? "higher" : "lower");
	fputs("EOD\nunset title\nset ylabel ", out);
	gp_string(out, buf);
	fputs("\nset autoscale y\nset xzeroaxis linetype -1\nplot ", out);
	for (int c = 1; c < e->nr_configs; c++) {
		fprintf(out, "%s$change using 1:%d with linespoints linetype %d linewidth 2 title ",
			c > 1 ? ", \\\n     " : "", 1 + c, 1 + c);
		gp_string(out, e->configs[c].name);
	}
	fputs("\nunset multiplot\n", out);
}

int ts_exp_write_gnuplot(const struct ts_experiment *e, enum ts_plot_format format,
			 const char *output_path, FILE *out)
{
	const struct ts_workload *wl = e->base.workload;
	bool hib = ts_metric_higher_is_better(wl->metric);
	bool change_panel = e->nr_configs > 1;
	int height = change_panel ? 960 : 640;
	char buf[512];
	fputs(TS_GNUPLOT_SCRIPT_MARK "; run with gnuplot 5\n", out);
	if (format == TS_PLOT_PNG)
		fprintf(out,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			"  set terminal pngcairo size 1024,%d noenhanced\n"
			"} else {\n"
			"  set terminal png size 1024,%d noenhanced\n"
			"}\n",
			height, height);
	else
		fprintf(out, "set terminal svg size 1024,%d noenhanced background rgb 'white'\n",
			height);
	if (output_path) {
		fputs("set output ", out);
		gp_string(out, output_path);
		fputc('\n', out);
	}
	fputs("set datafile missing '?'\nset title ", out);
	char cpus[256] = "";
	if (e->base.pin && !e->pin_text)
		ts_report_pin_cpus(e, cpus, sizeof(cpus));
	snprintf(buf, sizeof(buf), "%s on %s%s%s, seed %llu", wl->name, ts_report_machine(e),
		 !e->base.pin  ? ""
		 : e->pin_text ? ", nodes "
			       : ", CPUs ",
		 !e->base.pin  ? ""
		 : e->pin_text ? e->pin_text
			       : cpus,
		 (unsigned long long)e->seed);
	gp_string(out, buf);
	fputs("\nset xlabel ", out);
	gp_string(out, ts_report_load_name(e));
	fputs("\nset ylabel ", out);
	snprintf(buf, sizeof(buf), "%s (%s), %s of %d, %s is better", wl->metric_name, wl->unit,
		 hib ? "Hmean" : "Amean", e->iterations, hib ? "higher" : "lower");
	gp_string(out, buf);
	fputs("\nset key outside right top\nset grid\nset yrange [0:*]\n", out);
	if (change_panel) /* the same left margin in both panels: their x axes line up */
		fputs("set lmargin 12\n", out);
	int lo = e->loads[0], hi = e->loads[0];
	for (int l = 1; l < e->nr_loads; l++) {
		lo = e->loads[l] < lo ? e->loads[l] : lo;
		hi = e->loads[l] > hi ? e->loads[l] : hi;
	}
	if (hi >= 8 * lo)
		fprintf(out, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
	else if (hi > lo)
		fprintf(out, "set xrange [%g:%g]\n", lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.05);
	if (e->nr_loads <= 24) {
		fputs("set xtics (", out);
		for (int l = 0; l < e->nr_loads; l++)
			fprintf(out, "%s%d", l ? ", " : "", e->loads[l]);
		fputs(")\n", out);
	}
	fputs("$data << EOD\n", out);
	for (int l = 0; l < e->nr_loads; l++) {
		fprintf(out, "%d", e->loads[l]);
		for (int c = 0; c < e->nr_configs; c++) {
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			gp_num(out, p->mean);
			gp_num(out, p->stddev);
		}
		fputc('\n', out);
	}
	fputs("EOD\n", out);
	if (change_panel)
		fputs("set multiplot layout 2,1\n", out);
	fputs("plot ", out);
	for (int c = 0; c < e->nr_configs; c++) {
		fprintf(out, "%s$data using 1:%d:%d with yerrorlines linewidth 2 title ",
			c ? ", \\\n     " : "", 2 + 2 * c, 3 + 2 * c);
		gp_string(out, e->configs[c].name);
	}
	fputs("\n", out);
	if (change_panel)
		write_change_panel(e, hib, out);
	return ts_report_finish(out);
}
