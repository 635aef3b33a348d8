/* The validation reports: a terminal table, JSON for tools and the markdown of
 * docs/validation.md. Each is computed from the results alone, in the rows' order, with
 * fixed precision and no host timing, so the same run gives the same bytes. */
#include <math.h>
#include <string.h>

#include "report.h"
#include "toposched/json_writer.h"
#include "toposched/validation.h"

static const char *role_name(enum ts_val_role r)
{
	return r == TS_VAL_CALIBRATION ? "calibration" : "validation";
}

static const char *verdict_name(const struct ts_val_result *r)
{
	return r->verdict == TS_VAL_PASS ? "PASS" : r->verdict == TS_VAL_MISS ? "MISS" : "-";
}

static int decimals(const char *unit)
{
	return strcmp(unit, "s") == 0 ? 4 : 2;
}

static bool is_change(const struct ts_val_row *row)
{
	return row->figure == TS_VAL_CHANGE || row->figure == TS_VAL_RATE_CHANGE ||
	       row->figure == TS_VAL_LOAD_CHANGE;
}

/* A figure with its unit; a change gets its sign. */
static void value_text(const struct ts_val_row *row, double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, is_change(row) ? "%+.*f %s" : "%.*f %s", decimals(row->unit), v,
			 row->unit);
}

static void simulated_text(const struct ts_val_result *r, char *buf, size_t size)
{
	const char *unit = r->row->unit;
	if (isnan(r->mean))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, is_change(r->row) ? "%+.*f ± %.*f %s" : "%.*f ± %.*f %s",
			 decimals(unit), r->mean, decimals(unit), r->stddev, unit);
}

void ts_val_band_text(const struct ts_val_row *row, char *buf, size_t size)
{
	const struct ts_val_band *b = &row->band;
	switch (b->kind) {
	case TS_VAL_BAND_RANGE:
		snprintf(buf, size, "%+g ... %+g %s", b->low, b->high, row->unit);
		break;
	case TS_VAL_BAND_AT_LEAST:
		snprintf(buf, size, ">= %g %s", b->low, row->unit);
		break;
	case TS_VAL_BAND_AT_MOST:
		snprintf(buf, size, "<= %g %s", b->high, row->unit);
		break;
	case TS_VAL_BAND_ABOVE:
		snprintf(buf, size, "> %g %s", b->low, row->unit);
		break;
	default:
		snprintf(buf, size, "none");
	}
}

static const char *load_name(const struct ts_val_experiment *x)
{
	const struct ts_workload *w = ts_workload_find(x->workload);
	return w && w->load_name ? w->load_name : "load";
}

/* The row's figure in words: its own text, or one made from the figure. */
static void what_text(const struct ts_val_row *row, char *buf, size_t size)
{
	const struct ts_val_experiment *x = row->exp;
	if (row->what) {
		snprintf(buf, size, "%s", row->what);
		return;
	}
	const struct ts_val_config *a = &x->configs[row->a], *b = &x->configs[row->b];
	snprintf(buf, size, "%s of %s (%s) vs %s (%s) at %d %s",
		 row->figure == TS_VAL_RATE_CHANGE ? "rate change" : "change", b->name, b->features,
		 a->name, a->features, row->load, load_name(x));
}

static void note_text(const struct ts_val_result *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", r->row->note ? r->row->note : "",
		 r->unfinished ? (r->row->note ? "; " : "") : "",
		 r->unfinished ? "a run hit the time cap" : "",
		 isnan(r->mean) ? (r->row->note || r->unfinished ? "; figure undefined"
								 : "figure undefined")
				: "");
}

struct tally {
	int rows, judged, inside;
};

static void count(const struct ts_validation *v, enum ts_val_role role, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < v->nr; i++) {
		const struct ts_val_result *r = &v->results[i];
		if (r->row->role != role)
			continue;
		t->rows++;
		t->judged += r->verdict != TS_VAL_UNJUDGED;
		t->inside += r->verdict == TS_VAL_PASS;
	}
}

static void tallies(const struct ts_validation *v, struct tally *val, struct tally *cal)
{
	count(v, TS_VAL_VALIDATION, val);
	count(v, TS_VAL_CALIBRATION, cal);
}

/* Row i is its experiment's first (each experiment is described once). */
static bool first_of_experiment(const struct ts_validation *v, int i)
{
	for (int j = 0; j < i; j++)
		if (v->results[j].row->exp == v->results[i].row->exp)
			return false;
	return true;
}

static void summary_line(const struct ts_validation *v, const char *prefix, FILE *out)
{
	struct tally val, cal;
	tallies(v, &val, &cal);
	fprintf(out,
		"%s%d validation rows, %d inside their band (%d with a band, %d miss; %d "
		"without a band, shown unjudged); %d calibration rows, %d inside their band (%d "
		"with a band)\n",
		prefix, val.rows, val.inside, val.judged, val.judged - val.inside,
		val.rows - val.judged, cal.rows, cal.inside, cal.judged);
}

/* The sources the results cite, each once, in table order. */
static int cited_sources(const struct ts_validation *v, const struct ts_val_source **out, int max)
{
	int n = 0;
	for (int i = 0; i < v->nr; i++) {
		const struct ts_val_source *s = v->results[i].row->source;
		bool seen = false;
		for (int k = 0; k < n; k++)
			seen |= out[k] == s;
		if (!seen && n < max)
			out[n++] = s;
	}
	return n;
}

/* ---- table ---- */

int ts_validation_write_table(const struct ts_validation *v, FILE *out)
{
	char what[512], pub[64], sim[96], band[64], note[1024];
	fprintf(out,
		"toposched validate: the simulator against published results (seed %llu)\n"
		"simulated = mean ± stddev over the seeds; MISS = outside the band, a model "
		"defect to fix, never refitted\n",
		(unsigned long long)v->seed);
	for (int role = TS_VAL_CALIBRATION; role <= TS_VAL_VALIDATION; role++) {
		struct tally t;
		count(v, (enum ts_val_role)role, &t);
		if (!t.rows)
			continue;
		fprintf(out, "\n%s\n",
			role == TS_VAL_CALIBRATION
				? "CALIBRATION rows (the only points a model parameter may be "
				  "fitted on)"
				: "VALIDATION rows (never fitted on)");
		fprintf(out, "%-38s %-16s %-26s %-18s %s\n", "id", "published", "simulated", "band",
			"verdict");
		for (int i = 0; i < v->nr; i++) {
			const struct ts_val_result *r = &v->results[i];
			if ((int)r->row->role != role)
				continue;
			value_text(r->row, r->row->published, pub, sizeof(pub));
			simulated_text(r, sim, sizeof(sim));
			ts_val_band_text(r->row, band, sizeof(band));
			what_text(r->row, what, sizeof(what));
			note_text(r, note, sizeof(note));
			fprintf(out, "%-38s %-16s %-27s %-18s %s\n", r->row->id, pub, sim, band,
				verdict_name(r));
			fprintf(out, "    %s; %s [%s]\n    published: %s\n", what, r->row->exp->id,
				r->row->source->key, r->row->published_text);
			if (note[0])
				fprintf(out, "    note: %s\n", note);
		}
	}
	const struct ts_val_source *src[16];
	int ns = cited_sources(v, src, 16);
	fputs("\nsources:\n", out);
	for (int i = 0; i < ns; i++)
		fprintf(out, "  [%s] %s\n", src[i]->key, src[i]->text);
	summary_line(v, "\nsummary: ", out);
	return ts_report_finish(out);
}

/* ---- JSON ---- */

static const char *band_kind_name(enum ts_val_band_kind k)
{
	static const char *const names[] = {"none", "range", "at_least", "at_most", "above"};
	return names[k];
}

/* An absent text is null, not "". */
static void json_str(struct ts_json_writer *w, const char *key, const char *v)
{
	if (v)
		ts_json_member_string(w, key, v);
	else
		ts_json_member_null(w, key);
}

static void json_experiment(struct ts_json_writer *w, const struct ts_val_experiment *x)
{
	ts_json_begin_object(w);
	json_str(w, "id", x->id);
	json_str(w, "machine", x->machine);
	json_str(w, "workload", x->workload);
	json_str(w, "pin", x->pin);
	json_str(w, "groups_spec", x->groups_spec);
	ts_json_key(w, "configs");
	ts_json_begin_array(w);
	for (int c = 0; c < x->nr_configs; c++) {
		ts_json_begin_object(w);
		json_str(w, "name", x->configs[c].name);
		json_str(w, "features", x->configs[c].features);
		ts_json_end_object(w);
	}
	ts_json_end_array(w);
	ts_json_key(w, "loads");
	ts_json_begin_array(w);
	for (int l = 0; l < x->nr_loads; l++)
		ts_json_int(w, x->loads[l]);
	ts_json_end_array(w);
	ts_json_key(w, "duration_ns");
	ts_json_uint(w, x->duration_ns);
	ts_json_key(w, "warmup_ns");
	ts_json_uint(w, ts_val_warmup_ns(x));
	ts_json_member_int(w, "loops", x->loops);
	ts_json_member_int(w, "seeds", x->seeds);
	json_str(w, "published_run", x->published_run);
	ts_json_end_object(w);
}

static void json_row(struct ts_json_writer *w, const struct ts_val_result *r)
{
	const struct ts_val_band *b = &r->row->band;
	char what[512], note[1024];
	what_text(r->row, what, sizeof(what));
	note_text(r, note, sizeof(note));
	ts_json_begin_object(w);
	json_str(w, "id", r->row->id);
	json_str(w, "role", role_name(r->row->role));
	json_str(w, "experiment", r->row->exp->id);
	json_str(w, "figure", what);
	json_str(w, "unit", r->row->unit);
	ts_json_member_double(w, "published", r->row->published);
	json_str(w, "published_text", r->row->published_text);
	json_str(w, "source", r->row->source->key);
	ts_json_key(w, "band");
	ts_json_begin_object(w);
	json_str(w, "kind", band_kind_name(b->kind));
	ts_json_member_double(w, "low",
			      b->kind == TS_VAL_BAND_RANGE || b->kind == TS_VAL_BAND_AT_LEAST ||
					      b->kind == TS_VAL_BAND_ABOVE
				      ? b->low
				      : NAN);
	ts_json_member_double(
		w, "high",
		b->kind == TS_VAL_BAND_RANGE || b->kind == TS_VAL_BAND_AT_MOST ? b->high : NAN);
	ts_json_end_object(w);
	ts_json_key(w, "values");
	ts_json_begin_array(w);
	for (int k = 0; k < r->n; k++)
		ts_json_double(w, r->values[k]);
	ts_json_end_array(w);
	ts_json_member_double(w, "mean", r->mean);
	ts_json_member_double(w, "stddev", r->stddev);
	json_str(w, "verdict",
		 r->verdict == TS_VAL_PASS   ? "pass"
		 : r->verdict == TS_VAL_MISS ? "miss"
					     : "unjudged");
	ts_json_key(w, "unfinished");
	ts_json_bool(w, r->unfinished);
	json_str(w, "note", note[0] ? note : NULL);
	ts_json_end_object(w);
}

int ts_validation_write_json(const struct ts_validation *v, FILE *out)
{
	struct ts_json_writer w;
	ts_json_init(&w, out, 10);
	ts_json_begin_object(&w);
	ts_json_key(&w, "seed");
	ts_json_uint(&w, v->seed);
	ts_json_key(&w, "experiments");
	ts_json_begin_array(&w);
	for (int i = 0; i < v->nr; i++)
		if (first_of_experiment(v, i))
			json_experiment(&w, v->results[i].row->exp);
	ts_json_end_array(&w);
	ts_json_key(&w, "rows");
	ts_json_begin_array(&w);
	for (int i = 0; i < v->nr; i++)
		json_row(&w, &v->results[i]);
	ts_json_end_array(&w);
	ts_json_key(&w, "sources");
	ts_json_begin_array(&w);
	const struct ts_val_source *src[16];
	int ns = cited_sources(v, src, 16);
	for (int i = 0; i < ns; i++) {
		ts_json_begin_object(&w);
		json_str(&w, "key", src[i]->key);
		json_str(&w, "text", src[i]->text);
		ts_json_end_object(&w);
	}
	ts_json_end_array(&w);
	struct tally val, cal;
	tallies(v, &val, &cal);
	ts_json_key(&w, "summary");
	ts_json_begin_object(&w);
	ts_json_member_int(&w, "validation_rows", val.rows);
	ts_json_member_int(&w, "validation_with_band", val.judged);
	ts_json_member_int(&w, "validation_inside", val.inside);
	ts_json_member_int(&w, "calibration_rows", cal.rows);
	ts_json_member_int(&w, "calibration_with_band", cal.judged);
	ts_json_member_int(&w, "calibration_inside", cal.inside);
	ts_json_end_object(&w);
	int rc = ts_json_end_object(&w); /* writes the document */
	return rc ? rc : ts_report_finish(out);
}

/* ---- markdown (docs/validation.md) ---- */

/* Text for a table cell: '|' would end the cell. */
static void md_cell(FILE *out, const char *s)
{
	fputs("| ", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc(' ', out);
}

static const char md_intro[] =
	"The simulator against every published result the project knows. Each row names an "
	"experiment, the figure taken from it, the figure as published with its public "
	"source, and a band that decides PASS or MISS (the acceptance criteria of the issue "
	"\"Simulator fidelity I\"; a figure the issue gives no band for is shown unjudged). "
	"Calibration rows are the only points a model parameter may be fitted on; validation "
	"rows are never fitted on. **A MISS is a model defect**, reported here as it is and "
	"being worked on under \"Simulator fidelity I\" — never a reason to refit a "
	"parameter to the published figure. A row whose published run needs a mechanism the "
	"simulator does not have yet still runs with what exists; its note names what is "
	"missing.\n\n"
	"Every figure is computed per seed (each seed runs every configuration at every load "
	"the row needs) and shown as mean ± sample stddev over the seeds. A % change is "
	"mmtests': positive means better (higher throughput, shorter time). A run's window "
	"opens after its warm-up and, where needed, after SIS_UTIL's budget was recomputed "
	"under the load, busy balancing had evened the clusters the start left uneven and no "
	"node ran more tasks than CPUs next to one running fewer (docs/engine.md, \"The "
	"benchmark starts\"; seconds of virtual time at 64 and more tasks on Kunpeng's node 0 "
	"and on broadwell-2s before v5.18). The NUMA experiments of docs/workloads.md are not "
	"here: "
	"they quote only this simulator's own figures, no published result.\n";

static void md_rows(const struct ts_validation *v, enum ts_val_role role, FILE *out)
{
	char what[512], sim[96], band[64], note[1024];
	fputs("| id | figure | published | source | simulated | band | verdict | note |\n"
	      "|---|---|---|---|---|---|---|---|\n",
	      out);
	for (int i = 0; i < v->nr; i++) {
		const struct ts_val_result *r = &v->results[i];
		if (r->row->role != role)
			continue;
		simulated_text(r, sim, sizeof(sim));
		ts_val_band_text(r->row, band, sizeof(band));
		what_text(r->row, what, sizeof(what));
		note_text(r, note, sizeof(note));
		md_cell(out, r->row->id);
		md_cell(out, what);
		md_cell(out, r->row->published_text);
		md_cell(out, r->row->source->key);
		md_cell(out, sim);
		md_cell(out, band);
		md_cell(out, verdict_name(r));
		md_cell(out, note);
		fputs("|\n", out);
	}
}

int ts_validation_write_markdown(const struct ts_validation *v, FILE *out)
{
	fputs("# Validation: the simulator against published results\n\n", out);
	if (v->command)
		fprintf(out,
			"Generated by `%s` (seed %llu); rerun that command to update this file, "
			"do not edit it by hand.\n\n",
			v->command, (unsigned long long)v->seed);
	fputs(md_intro, out);
	summary_line(v, "\n**Summary:** ", out);
	static const char *const heads[] = {"## Calibration rows\n\n", "## Validation rows\n\n"};
	for (int role = TS_VAL_CALIBRATION; role <= TS_VAL_VALIDATION; role++) {
		struct tally t;
		count(v, (enum ts_val_role)role, &t);
		if (!t.rows)
			continue;
		fputs("\n", out);
		fputs(heads[role], out);
		md_rows(v, (enum ts_val_role)role, out);
	}
	fputs("\n## Experiments\n\n| experiment | machine | workload | pin | task groups | "
	      "configurations | loads | run | seeds | published run |\n"
	      "|---|---|---|---|---|---|---|---|---|---|\n",
	      out);
	for (int i = 0; i < v->nr; i++) {
		const struct ts_val_experiment *x = v->results[i].row->exp;
		if (!first_of_experiment(v, i))
			continue;
		char buf[512], dur[32], warm[32];
		size_t len = 0;
		md_cell(out, x->id);
		md_cell(out, x->machine);
		md_cell(out, x->workload);
		md_cell(out, x->pin ? x->pin : "none");
		md_cell(out, x->groups_spec ? x->groups_spec : "none");
		buf[0] = '\0';
		for (int c = 0; c < x->nr_configs; c++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=\"%s\"",
						c ? ", " : "", x->configs[c].name,
						x->configs[c].features);
		md_cell(out, buf);
		len = 0;
		for (int l = 0; l < x->nr_loads; l++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d", l ? ", " : "",
						x->loads[l]);
		snprintf(buf + len, sizeof(buf) - len, " %s", load_name(x));
		md_cell(out, buf);
		ts_report_duration(x->duration_ns, dur, sizeof(dur));
		ts_report_duration(ts_val_warmup_ns(x), warm, sizeof(warm));
		if (x->duration_ns)
			snprintf(buf, sizeof(buf), "%s after %s warm-up", dur, warm);
		else
			snprintf(buf, sizeof(buf), "to the end, --loops %d", x->loops);
		md_cell(out, buf);
		snprintf(buf, sizeof(buf), "%d", x->seeds);
		md_cell(out, buf);
		md_cell(out, x->published_run);
		fputs("|\n", out);
	}
	const struct ts_val_source *src[16];
	int ns = cited_sources(v, src, 16);
	fputs("\n## Sources\n\n", out);
	for (int i = 0; i < ns; i++)
		fprintf(out, "* **%s** %s\n", src[i]->key, src[i]->text);
	return ts_report_finish(out);
}

/* ---- the rows without running them ---- */

int ts_validation_write_list(const struct ts_val_row *const *rows, int nr, FILE *out)
{
	char what[512], band[64];
	fprintf(out, "%-38s %-11s %-5s %-18s %s\n", "id", "role", "quick", "band", "figure");
	for (int i = 0; i < nr; i++) {
		const struct ts_val_row *r = rows[i];
		ts_val_band_text(r, band, sizeof(band));
		what_text(r, what, sizeof(what));
		fprintf(out, "%-38s %-11s %-5s %-18s %s; %s; published %s [%s]\n", r->id,
			role_name(r->role), r->quick ? "yes" : "no", band, what, r->exp->id,
			r->published_text, r->source->key);
	}
	return ts_report_finish(out);
}
