/* The validation runner: one sweep per experiment the selected rows use (only the loads
 * they need), every configuration once per seed (validation.h explains the layout), then
 * each row's figure per seed, its mean and spread, and the verdict against its band. */
#include "toposched/validation.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "toposched/cost_model.h"
#include "toposched/sim_groups.h"
#include "toposched/topology.h"

/* ---- selection ---- */

int ts_val_select(bool quick, const char *const *ids, int nr_ids, const struct ts_val_row ***out,
		  int *count, struct ts_error *err)
{
	int n;
	const struct ts_val_row *all = ts_val_rows(&n);
	const struct ts_val_row **sel = calloc((size_t)n, sizeof(*sel));
	bool *named = calloc((size_t)n, sizeof(*named));
	if (!sel || !named) {
		free(sel);
		free(named);
		return ts_error_set(err, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < nr_ids; i++) {
		int k = 0;
		while (k < n && strcmp(all[k].id, ids[i]) != 0)
			k++;
		if (k == n) {
			free(sel);
			free(named);
			return ts_error_set(err, -EINVAL,
					    "'%s': no such row (see 'toposched validate --list')",
					    ids[i]);
		}
		named[k] = true;
	}
	/* in the table's order, whatever the order of the ids */
	int m = 0;
	for (int k = 0; k < n; k++)
		if (nr_ids > 0 ? named[k] : !quick || all[k].quick)
			sel[m++] = &all[k];
	free(named);
	*out = sel;
	*count = m;
	return 0;
}

/* ---- figures and verdicts ---- */

uint64_t ts_val_warmup_ns(const struct ts_val_experiment *x)
{
	return x->warmup_ns ? x->warmup_ns : ts_workload_find(x->workload)->default_warmup_ns;
}

bool ts_val_band_contains(const struct ts_val_band *b, double v)
{
	if (isnan(v))
		return false;
	switch (b->kind) {
	case TS_VAL_BAND_RANGE:
		return v >= b->low && v <= b->high;
	case TS_VAL_BAND_AT_LEAST:
		return v >= b->low;
	case TS_VAL_BAND_AT_MOST:
		return v <= b->high;
	case TS_VAL_BAND_ABOVE:
		return v > b->low;
	default:
		return false;
	}
}

static const struct ts_exp_point *point_at(const struct ts_experiment *e, int config, int load,
					   bool *finished)
{
	if (config < 0 || config >= e->nr_configs)
		return NULL;
	for (int l = 0; l < e->nr_loads; l++)
		if (e->loads[l] == load) {
			const struct ts_exp_point *pt = ts_experiment_point(e, config, l);
			if (!pt->stats.all_finished)
				*finished = false;
			return pt;
		}
	return NULL;
}

/* The SIS counters of one configuration summed over every load of the row's experiment;
 * false when e lacks one of them. */
static bool sis_over_run(const struct ts_val_row *row, const struct ts_experiment *e, int config,
			 struct ts_sis_metrics *m, bool *finished)
{
	struct ts_sis_counts sum = {0};
	for (int l = 0; l < row->exp->nr_loads; l++) {
		const struct ts_exp_point *pt = point_at(e, config, row->exp->loads[l], finished);
		if (!pt)
			return false;
		const struct ts_sis_counts *c = &pt->stats.sis;
		sum.search += c->search;
		sum.domain_search += c->domain_search;
		sum.scanned += c->scanned;
		sum.failed += c->failed;
		sum.recent_hit += c->recent_hit;
		sum.recent_miss += c->recent_miss;
		sum.core_search += c->core_search;
		sum.core_failed += c->core_failed;
	}
	*m = ts_sis_metrics(&sum);
	return true;
}

static double defined(double v)
{
	return v < 0 ? NAN : v; /* ts_sis_metrics: -1 = undefined */
}

double ts_val_extract(const struct ts_val_row *row, const struct ts_experiment *e, int k,
		      bool *finished)
{
	bool ok = true;
	if (!finished)
		finished = &ok;
	int ca = k * row->exp->nr_configs + row->a, cb = k * row->exp->nr_configs + row->b;
	const struct ts_exp_point *a, *b;
	struct ts_sis_metrics ma, mb;
	switch (row->figure) {
	case TS_VAL_VALUE:
		a = point_at(e, ca, row->load, finished);
		return a ? a->mean * (row->scale > 0 ? row->scale : 1) : NAN;
	case TS_VAL_CHANGE:
		a = point_at(e, ca, row->load, finished);
		b = point_at(e, cb, row->load, finished);
		if (!a || !b)
			return NAN;
		return ts_metric_higher_is_better(e->base.workload->metric)
			       ? ts_exp_pct_change(b->mean, a->mean)
			       : -ts_exp_pct_change(b->mean, a->mean);
	case TS_VAL_RATE_CHANGE:
		a = point_at(e, ca, row->load, finished);
		b = point_at(e, cb, row->load, finished);
		if (!a || !b || b->mean == 0)
			return NAN;
		return ts_exp_pct_change(a->mean / b->mean, 1.0);
	case TS_VAL_LOAD_CHANGE:
		a = point_at(e, ca, row->load, finished);
		b = point_at(e, ca, row->load2, finished);
		return a && b ? ts_exp_pct_change(a->mean, b->mean) : NAN;
	case TS_VAL_SIS_EFF:
		return sis_over_run(row, e, ca, &ma, finished) ? defined(ma.search_efficiency)
							       : NAN;
	case TS_VAL_SIS_DOMAIN_EFF:
		return sis_over_run(row, e, ca, &ma, finished)
			       ? defined(ma.domain_search_efficiency)
			       : NAN;
	case TS_VAL_SIS_EFF_RATIO:
		if (!sis_over_run(row, e, ca, &ma, finished) ||
		    !sis_over_run(row, e, cb, &mb, finished) || !(ma.search_efficiency > 0))
			return NAN;
		return defined(mb.search_efficiency) / ma.search_efficiency;
	case TS_VAL_TG_REMOTE_SHARE: {
		/* perf c2c's remote HITMs over all HITMs of the groups' lines */
		a = point_at(e, ca, row->load, finished);
		uint64_t all = 0, remote = 0;
		for (int r = 0; a && r < TS_SIM_TG_READER_NR; r++) {
			all += a->stats.tg.hitm[r][0] + a->stats.tg.hitm[r][1];
			remote += a->stats.tg.hitm[r][1];
		}
		return all ? 100.0 * (double)remote / (double)all : NAN;
	}
	case TS_VAL_MIGRATION_RATE:
		a = point_at(e, ca, row->load, finished);
		return a && a->stats.busy_ns
			       ? (double)a->stats.migrations / ((double)a->stats.busy_ns / 1e9)
			       : NAN;
	case TS_VAL_IDLE:
		a = point_at(e, ca, row->load, finished);
		return a ? 100.0 * (1.0 - a->stats.cpu_util) : NAN;
	}
	return NAN;
}

void ts_val_judge(struct ts_val_result *r)
{
	bool nan = r->n < 1;
	for (int i = 0; i < r->n; i++)
		nan |= isnan(r->values[i]);
	r->mean = nan ? NAN : ts_exp_amean(r->values, r->n);
	r->stddev = nan ? NAN : ts_exp_stddev(r->values, r->n);
	if (r->row->band.kind == TS_VAL_BAND_NONE)
		r->verdict = TS_VAL_UNJUDGED;
	else
		r->verdict =
			ts_val_band_contains(&r->row->band, r->mean) ? TS_VAL_PASS : TS_VAL_MISS;
}

/* ---- running the experiments ---- */

/* Everything one experiment's sweep needs, built from its description. */
struct setup {
	struct ts_topology *topo;
	struct ts_cost_model costs;
	struct ts_cpumask *pin;
	struct ts_groups_spec groups;
	struct ts_exp_config configs[TS_VAL_MAX_CONFIGS * TS_VAL_MAX_SEEDS];
	int loads[TS_VAL_MAX_LOADS];
	int nr_loads;
};

static int build_pin(const struct ts_val_experiment *x, struct setup *s, struct ts_error *err)
{
	if (!x->pin)
		return 0;
	s->pin = ts_cpumask_alloc(s->topo->nr_cpus);
	struct ts_cpumask *node = ts_cpumask_alloc(s->topo->nr_cpus);
	int rc = 0;
	if (!s->pin || !node) {
		rc = ts_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	ts_cpumask_zero(s->pin);
	for (const char *p = x->pin; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == p || a < 0 || b >= s->topo->nr_nodes || a > b || (*end && *end != ',')) {
			rc = ts_error_set(err, -EINVAL, "pin '%s': not a node list of %s", x->pin,
					  x->machine);
			goto out;
		}
		for (long n = a; n <= b; n++) {
			ts_topology_node_mask(s->topo, (int)n, node);
			ts_cpumask_or(s->pin, s->pin, node);
		}
		p = *end ? end + 1 : end;
	}
out:
	ts_cpumask_free(node);
	return rc;
}

static int build_configs(const struct ts_val_experiment *x, struct setup *s, struct ts_error *err)
{
	if (x->nr_configs < 1 || x->nr_configs > TS_VAL_MAX_CONFIGS || x->seeds < 1 ||
	    x->seeds > TS_VAL_MAX_SEEDS)
		return ts_error_set(err, -EINVAL, "%d configurations x %d seeds (at most %d x %d)",
				    x->nr_configs, x->seeds, TS_VAL_MAX_CONFIGS, TS_VAL_MAX_SEEDS);
	for (int c = 0; c < x->nr_configs; c++) {
		struct ts_exp_config cfg = {0};
		char rest[TS_FEATURES_STR_MAX], features[TS_FEATURES_STR_MAX];
		bool given;
		/* kernel=V first: that kernel's switches are the base of the others, its
		 * struct task_group the layout unless tg_layout= names one */
		if (ts_kernel_profile_take(x->configs[c].features, rest, sizeof(rest), &cfg.kernel,
					   &given, err))
			return err ? err->code : -EINVAL;
		cfg.tg_layout = ts_kernel_tg_layout(&cfg.kernel);
		if (ts_tg_layout_take(rest, features, sizeof(features), &cfg.tg_layout, &given,
				      err))
			return err ? err->code : -EINVAL;
		cfg.features = ts_kernel_features_default(&cfg.kernel);
		if (ts_features_parse(features, &cfg.features, err))
			return err ? err->code : -EINVAL;
		snprintf(cfg.features_text, sizeof(cfg.features_text), "%s",
			 x->configs[c].features);
		for (int k = 0; k < x->seeds; k++) {
			struct ts_exp_config *out = &s->configs[k * x->nr_configs + c];
			*out = cfg;
			/* seed #1 is sim's common stream; the others are independent */
			out->seed_stream = (unsigned)k;
			snprintf(out->name, sizeof(out->name), "%s#%d", x->configs[c].name, k + 1);
		}
	}
	return 0;
}

static bool row_sums_run(const struct ts_val_row *r)
{
	return r->figure == TS_VAL_SIS_EFF || r->figure == TS_VAL_SIS_DOMAIN_EFF ||
	       r->figure == TS_VAL_SIS_EFF_RATIO;
}

/* The experiment's loads that the selected rows of it use, in the experiment's order. */
static void needed_loads(const struct ts_val_experiment *x, const struct ts_val_row *const *rows,
			 int nr, struct setup *s)
{
	s->nr_loads = 0;
	for (int l = 0; l < x->nr_loads; l++) {
		bool used = false;
		for (int i = 0; i < nr && !used; i++)
			used = rows[i]->exp == x &&
			       (row_sums_run(rows[i]) || rows[i]->load == x->loads[l] ||
				(rows[i]->figure == TS_VAL_LOAD_CHANGE &&
				 rows[i]->load2 == x->loads[l]));
		if (used)
			s->loads[s->nr_loads++] = x->loads[l];
	}
}

static int build_setup(const struct ts_val_experiment *x, struct setup *s, struct ts_error *err)
{
	const struct ts_workload *w = ts_workload_find(x->workload);
	if (!w)
		return ts_error_set(err, -EINVAL, "no workload '%s'", x->workload);
	int rc = ts_topology_load(x->machine, &s->topo, err);
	if (!rc)
		rc = ts_cost_model_for(s->topo, x->machine, &s->costs, err);
	if (!rc)
		rc = build_pin(x, s, err);
	if (!rc && x->groups_spec)
		rc = ts_groups_spec_parse(x->groups_spec, w, &s->groups, err);
	if (!rc)
		rc = build_configs(x, s, err);
	return rc;
}

static void free_setup(struct setup *s)
{
	ts_cpumask_free(s->pin);
	ts_topology_free(s->topo);
}

static int run_experiment(const struct ts_val_experiment *x, const struct ts_val_row *const *rows,
			  int nr, const struct ts_val_options *o, struct ts_validation *v,
			  struct ts_error *err)
{
	struct setup *s = calloc(1, sizeof(*s));
	if (!s)
		return ts_error_set(err, -ENOMEM, "out of memory");
	needed_loads(x, rows, nr, s);
	int rc = build_setup(x, s, err);
	struct ts_experiment e = {
		.machine = x->machine,
		.pin_text = x->pin,
		.base =
			{
				.topo = s->topo,
				.costs = &s->costs,
				.workload = ts_workload_find(x->workload),
				.iterations = x->loops,
				.pin = s->pin,
				.duration_ns = x->duration_ns,
				.warmup_ns = ts_val_warmup_ns(x),
				.groups = x->groups_spec ? &s->groups : NULL,
			},
		.seed = o->seed,
		.configs = s->configs,
		.nr_configs = x->nr_configs * x->seeds,
		.loads = s->loads,
		.nr_loads = s->nr_loads,
		.iterations = 1,
		.jobs = o->jobs,
		.run = o->run,
		.progress = o->progress,
	};
	if (!rc)
		rc = ts_experiment_run(&e, err);
	for (int i = 0; !rc && i < nr; i++) {
		if (rows[i]->exp != x)
			continue;
		struct ts_val_result *r = &v->results[i];
		bool finished = true;
		r->n = x->seeds;
		for (int k = 0; k < x->seeds; k++)
			r->values[k] = ts_val_extract(rows[i], &e, k, &finished);
		r->unfinished = !finished;
		ts_val_judge(r);
	}
	ts_experiment_free(&e);
	free_setup(s);
	free(s);
	if (rc && err)
		ts_error_prefix(err, "experiment '%s'", x->id);
	return rc;
}

int ts_validation_run(const struct ts_val_row *const *rows, int nr, const struct ts_val_options *o,
		      struct ts_validation *out, struct ts_error *err)
{
	memset(out, 0, sizeof(*out));
	out->seed = o->seed;
	out->results = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*out->results));
	if (!out->results)
		return ts_error_set(err, -ENOMEM, "out of memory");
	out->nr = nr;
	for (int i = 0; i < nr; i++)
		out->results[i].row = rows[i];
	bool tty = o->progress && isatty(fileno(o->progress));
	for (int i = 0; i < nr; i++) {
		bool first = true; /* run each experiment once, at its first row */
		for (int j = 0; j < i; j++)
			first &= rows[j]->exp != rows[i]->exp;
		if (!first)
			continue;
		if (tty)
			fprintf(o->progress, "validate: %s\n", rows[i]->exp->id);
		int rc = run_experiment(rows[i]->exp, rows, nr, o, out, err);
		if (rc) {
			ts_validation_free(out);
			return rc;
		}
	}
	return 0;
}

void ts_validation_free(struct ts_validation *v)
{
	free(v->results);
	v->results = NULL;
	v->nr = 0;
}
