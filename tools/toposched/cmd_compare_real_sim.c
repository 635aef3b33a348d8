/* The simulator's side of toposched compare-real (cmd_compare_real.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_compare_real.h"
#include "toposched/cost_model.h"
#include "toposched/features.h"
#include "toposched/sim_rtapp.h"

#define CRS_SEED 1

/* The simulator's phases for one pass of phase p of rt-app task t (an event may become
 * several: ts_sim_rtapp_event_phases()). */
static int pass_length(const struct ts_rtapp_task *t, int p)
{
	int n = 0;
	for (int e = 0; e < t->phases[p].nr_events; e++)
		n += ts_sim_rtapp_event_phases(&t->phases[p].events[e]);
	return n;
}

/* The length of the program of rt-app task t as the simulator's translation lays it out:
 * each phase's pass repeated its loop times, or (a single phase) the pass once with its
 * loop folded into the iterations (src/sim/rtapp_workload.c). */
static int expected_length(const struct ts_rtapp_task *t)
{
	if (t->nr_phases == 1)
		return pass_length(t, 0);
	int n = 0;
	for (int p = 0; p < t->nr_phases; p++)
		n += pass_length(t, p) * t->phases[p].loop;
	return n;
}

/* The program of class c (of task t) with a MARK after every phase pass; NULL on a layout
 * this does not know or out of memory. */
static struct ts_phase *marked_program(const struct ts_rtapp_task *t, const struct ts_task_class *c,
				       int *len)
{
	if (expected_length(t) != c->nr_phases)
		return NULL;
	int passes = 0;
	for (int p = 0; p < t->nr_phases; p++)
		passes += t->nr_phases == 1 ? 1 : t->phases[p].loop;
	struct ts_phase *prog = calloc((size_t)(c->nr_phases + passes), sizeof(*prog));
	if (!prog)
		return NULL;
	int in = 0, n = 0;
	for (int p = 0; p < t->nr_phases; p++) {
		int reps = t->nr_phases == 1 ? 1 : t->phases[p].loop;
		for (int l = 0; l < reps; l++) {
			int len_p = pass_length(t, p);
			memcpy(&prog[n], &c->phases[in], (size_t)len_p * sizeof(*prog));
			n += len_p;
			in += len_p;
			prog[n++] = (struct ts_phase){.kind = TS_PH_MARK};
		}
	}
	*len = n;
	return prog;
}

static void take_figures(const struct ts_sim_result *res, const struct ts_workload *w,
			 uint64_t duration_ns, struct run_result *out)
{
	bool timed = w->metric == TS_METRIC_TIME_S && res->finished;
	out->finished = timed;
	out->seconds = timed ? res->metric : (double)duration_ns / 1e9;
	out->cpu_s = (double)res->busy_ns / 1e9;
	out->lat_samples = res->wakeup_lat_us[0] >= 0 ? res->wakeups : 0;
	for (int i = 0; i < RUN_LAT_NR; i++)
		out->lat_us[i] = res->wakeup_lat_us[i];
	out->wakeups = res->wakeups;
	out->migrations = res->migrations;
	memcpy(out->reasons, res->reasons, sizeof(out->reasons));
	memcpy(out->by_relation, res->wakeups_by_relation, sizeof(out->by_relation));
}

struct sim_env {
	struct ts_topology *topo;
	struct ts_cost_model costs;
	struct ts_features features;
	struct ts_groups_spec groups;
	bool has_groups;
	struct ts_sim_rtapp *x;
};

static int env_open(struct sim_env *e, const struct ts_rtapp *r, const char *features,
		    struct ts_error *err)
{
	int rc = ts_sim_rtapp_build(r, "compare-real", &e->x, err);
	if (rc)
		return rc;
	if ((rc = ts_topology_load("host", &e->topo, err)) ||
	    (rc = ts_cost_model_for(e->topo, "host", &e->costs, err)))
		return rc;
	e->features = ts_features_default();
	if (features && (rc = ts_features_parse(features, &e->features, err)))
		return rc;
	if (e->x->groups_spec) {
		e->has_groups = true;
		rc = ts_groups_spec_parse(e->x->groups_spec, &e->x->w, &e->groups, err);
	}
	return rc;
}

int crs_run(const struct ts_rtapp *r, const char *features, uint64_t duration_ns,
	    struct run_result *out, struct ts_error *err)
{
	memset(out, 0, sizeof(*out));
	struct sim_env e = {0};
	int rc = env_open(&e, r, features, err);
	const struct ts_workload *w = e.x ? &e.x->w : NULL;
	struct ts_task_class *classes = NULL;
	if (!rc && (!(classes = calloc((size_t)w->nr_classes, sizeof(*classes))) ||
		    !(out->classes = calloc((size_t)w->nr_classes, sizeof(*out->classes)))))
		rc = ts_error_set(err, -ENOMEM, "out of memory");
	for (int k = 0; !rc && k < w->nr_classes; k++) {
		const struct ts_rtapp_task *t = &r->tasks[e.x->class_task[k]];
		int len = 0;
		struct ts_phase *prog = marked_program(t, &w->classes[k], &len);
		if (!prog) {
			rc = ts_error_set(err, -EIO,
					  "%s: task '%s': the simulator's program does not follow "
					  "the file's events as compare-real expects",
					  r->file, w->classes[k].name);
			break;
		}
		memcpy(classes, w->classes, (size_t)w->nr_classes * sizeof(*classes));
		classes[k].phases = prog;
		classes[k].nr_phases = len;
		struct ts_workload marked = *w;
		marked.classes = classes;
		struct ts_sim_config cfg = {
			.topo = e.topo,
			.costs = &e.costs,
			.features = e.features,
			.workload = &marked,
			.load = 1,
			.duration_ns = duration_ns,
			.seed = CRS_SEED,
			.groups = e.has_groups ? &e.groups : NULL,
		};
		struct ts_sim_result res;
		rc = ts_sim_run(&cfg, &res, err);
		free(prog);
		if (rc)
			break;
		if (k == 0)
			take_figures(&res, w, duration_ns, out);
		out->classes[k] = (struct run_class){
			.name = t->name, .threads = w->classes[k].count, .loops = res.marks};
		out->nr_classes++;
	}
	if (!rc)
		out->nr_cpus = e.topo->nr_cpus;
	free(classes);
	ts_sim_rtapp_free(e.x);
	ts_topology_free(e.topo);
	if (rc)
		crs_free(out);
	return rc;
}

void crs_free(struct run_result *out)
{
	free(out->classes);
	out->classes = NULL;
	out->nr_classes = 0;
}
