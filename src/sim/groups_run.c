/* Task groups in one simulator run (groups_run.h) and the dump of a spec's hierarchy. */
#include "groups_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sim_groups_free(struct sim_groups *g)
{
	if (!g)
		return;
	sim_line_model_free(&g->lines);
	free(g->tg);
	free(g->node_first);
	free(g->top_of);
	free(g->top_tg);
	free(g->task_slot);
	free(g->exec0);
	free(g); /* the groups themselves belong to the sched */
}

static int class_index(const struct ts_workload *w, const char *name)
{
	for (int i = 0; i < w->nr_classes; i++)
		if (w->classes[i].name && strcmp(w->classes[i].name, name) == 0)
			return i;
	return -1;
}

int sim_groups_create(struct ts_sched *s, const struct ts_groups_spec *spec,
		      const struct ts_workload *w, int load, int nr_tasks,
		      const struct ts_topology *topo, const struct ts_cost_model *costs,
		      struct sim_groups **out, struct ts_error *err)
{
	*out = NULL;
	if (spec->nr_nodes <= 0 || spec->nr_entries <= 0)
		return ts_error_set(err, -EINVAL, "sim: the groups spec has no groups");
	struct sim_groups *g = calloc(1, sizeof(*g));
	if (!g)
		return ts_error_set(err, -ENOMEM, "sim: out of memory for task groups");
	g->spec = spec;
	int rc = 0;
	for (int e = 0; e < spec->nr_entries; e++) {
		const struct ts_groups_entry *en = &spec->entry[e];
		g->entry_class[e] = -1;
		if (en->who != TS_GROUPS_CLASS)
			continue;
		g->entry_class[e] = class_index(w, en->class_name);
		if (g->entry_class[e] < 0) {
			rc = ts_error_set(err, -EINVAL,
					  "sim: groups spec '%s': workload '%s' has no class '%s'",
					  spec->text, w->name ? w->name : "?", en->class_name);
			goto fail;
		}
	}
	int total = 0;
	for (int n = 0; n < spec->nr_nodes; n++)
		total += spec->node[n].per_instance ? load : 1;
	g->tg = calloc((size_t)total, sizeof(*g->tg));
	g->node_first = calloc((size_t)spec->nr_nodes, sizeof(*g->node_first));
	g->top_of = calloc((size_t)total, sizeof(*g->top_of));
	g->top_tg = calloc((size_t)total, sizeof(*g->top_tg));
	g->task_slot = calloc((size_t)(nr_tasks > 0 ? nr_tasks : 1), sizeof(*g->task_slot));
	g->exec0 = calloc((size_t)total + 1, sizeof(*g->exec0));
	if (!g->tg || !g->node_first || !g->top_of || !g->top_tg || !g->task_slot || !g->exec0) {
		rc = ts_error_set(err, -ENOMEM, "sim: out of memory for %d task groups", total);
		goto fail;
	}
	g->nr_tasks = nr_tasks;
	for (int n = 0; n < spec->nr_nodes; n++) {
		const struct ts_groups_node *nd = &spec->node[n];
		int parent = nd->parent >= 0 ? g->node_first[nd->parent] : -1;
		g->node_first[n] = g->nr_tg;
		for (int i = 0; i < (nd->per_instance ? load : 1); i++) {
			char name[TS_TG_NAME_MAX + 16];
			if (nd->per_instance)
				snprintf(name, sizeof(name), "%s%d", nd->name, i);
			else
				snprintf(name, sizeof(name), "%s", nd->name);
			struct ts_task_group *tg;
			rc = ts_sched_group_create(s, parent >= 0 ? g->tg[parent] : NULL, name,
						   nd->shares, &tg, err);
			if (rc) {
				ts_error_prefix(err, "sim: groups spec '%s': ", spec->text);
				goto fail;
			}
			int k = g->nr_tg++;
			g->tg[k] = tg;
			if (parent < 0) {
				g->top_tg[g->nr_top] = k;
				g->top_of[k] = g->nr_top++;
			} else {
				g->top_of[k] = g->top_of[parent];
			}
		}
	}
	for (int i = 0; i < nr_tasks; i++)
		g->task_slot[i] = g->nr_top;
	if (costs && (rc = sim_line_model_init(&g->lines, topo, costs, err)))
		goto fail;
	sim_groups_word_readers(g->tg[0]->layout, g->tg[0]->rt_group_sched, g->word_reader);
	*out = g;
	return 0;
fail:
	sim_groups_free(g);
	return rc;
}

/* Index in g->tg of the group of (class ci, instance inst); -1 = the root. */
static int place_index(const struct sim_groups *g, int ci, int inst)
{
	const struct ts_groups_spec *spec = g->spec;
	for (int e = 0; e < spec->nr_entries; e++) {
		const struct ts_groups_entry *en = &spec->entry[e];
		if (en->who == TS_GROUPS_CLASS && g->entry_class[e] != ci)
			continue;
		int k = g->node_first[en->node];
		return spec->node[en->node].per_instance ? k + inst : k;
	}
	return -1;
}

struct ts_task_group *sim_groups_place(struct sim_groups *g, int index, int ci, int inst)
{
	int k = place_index(g, ci, inst);
	if (index >= 0 && index < g->nr_tasks)
		g->task_slot[index] = k >= 0 ? g->top_of[k] : g->nr_top;
	return k >= 0 ? g->tg[k] : NULL;
}

static void core_stats(const struct sim_groups *g, struct ts_tg_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < g->nr_tg; i++) {
		struct ts_tg_stats st;
		ts_tg_stats_sum(g->tg[i], &st);
		out->writes += st.writes;
		out->reads += st.reads;
		out->remote_writes += st.remote_writes;
		out->skipped_ratelimit += st.skipped_ratelimit;
		out->skipped_filter += st.skipped_filter;
	}
}

void sim_groups_window_open(struct sim_groups *g, uint64_t now, const uint64_t *exec)
{
	g->win_start = now;
	memcpy(g->exec0, exec, ((size_t)g->nr_top + 1) * sizeof(*exec));
	core_stats(g, &g->core0);
	g->lines0 = g->lines.st;
	memcpy(g->hitm0, g->hitm, sizeof(g->hitm));
	g->hitm_ns0 = g->hitm_ns;
}

void sim_groups_result(const struct sim_groups *g, uint64_t now, const uint64_t *exec, int nr_cpus,
		       struct ts_sim_tg_result *out)
{
	memset(out, 0, sizeof(*out));
	out->enabled = true;
	out->nr_cpus = nr_cpus;
	out->window_ns = now - g->win_start;
	struct ts_tg_stats c;
	core_stats(g, &c);
	out->load_avg_writes = c.writes - g->core0.writes;
	out->load_avg_reads = c.reads - g->core0.reads;
	out->skipped_ratelimit = c.skipped_ratelimit - g->core0.skipped_ratelimit;
	out->skipped_filter = c.skipped_filter - g->core0.skipped_filter;
	const struct sim_line_stats *a = &g->lines0, *b = &g->lines.st;
	out->line_reads = b->reads - a->reads;
	out->line_writes = b->writes - a->writes;
	for (int r = 0; r < TS_REL_NR; r++)
		out->line_misses[r] = b->misses[r] - a->misses[r];
	out->remote_node_writes = b->remote_node_writes - a->remote_node_writes;
	out->stall_ns = b->stall_ns - a->stall_ns;
	out->wait_ns = b->wait_ns - a->wait_ns;
	for (int r = 0; r < TS_SIM_TG_READER_NR; r++)
		for (int k = 0; k < 2; k++)
			out->hitm[r][k] = g->hitm[r][k] - g->hitm0[r][k];
	out->hitm_ns = g->hitm_ns - g->hitm_ns0;
	out->nr_top = g->nr_top;
	for (int t = 0; t < g->nr_top; t++) {
		uint64_t ns = exec[t] - g->exec0[t];
		if (t < TS_SIM_TG_TOP_MAX) {
			snprintf(out->top_name[t], sizeof(out->top_name[t]), "%s",
				 g->tg[g->top_tg[t]]->name);
			out->top_exec_ns[t] = ns;
		} else {
			out->other_top_exec_ns += ns;
		}
	}
	out->root_exec_ns = exec[g->nr_top] - g->exec0[g->nr_top];
}

/* ---- the dump ---- */

static uint64_t dump_clock(void *h)
{
	(void)h;
	return 0;
}
static void dump_resched(void *h, int cpu)
{
	(void)h;
	(void)cpu;
}
static void dump_lock(void *h, int cpu)
{
	(void)h;
	(void)cpu;
}

static void dump_counts(const struct ts_task_group *tg, const struct sim_groups *g,
			const int *count, int root_count, int depth, FILE *out)
{
	int n = root_count;
	for (int i = 0; i < g->nr_tg; i++)
		if (g->tg[i] == tg)
			n = count[i];
	fprintf(out, "%*s%s %d task%s\n", 2 * depth + 2, "", tg->name, n, n == 1 ? "" : "s");
	for (const struct ts_task_group *c = tg->first_child; c; c = c->next_sibling)
		dump_counts(c, g, count, root_count, depth + 1, out);
}

int ts_groups_spec_dump(const struct ts_groups_spec *spec, const struct ts_topology *t,
			struct ts_features f, enum ts_tg_layout layout, const struct ts_workload *w,
			int load, FILE *out, struct ts_error *err)
{
	static const struct ts_host_ops ops = {
		.clock = dump_clock,
		.resched_cpu = dump_resched,
		.rq_lock = dump_lock,
		.rq_unlock = dump_lock,
	};
	if (!spec || !t || !w || load < 1)
		return ts_error_set(err, -EINVAL,
				    "groups dump: no spec, machine, workload or load");
	struct ts_sched_config cfg = {.tg_layout = layout};
	struct ts_sched *s = NULL;
	int rc = ts_sched_create(t, f, &ops, NULL, &cfg, &s, err);
	if (rc)
		return rc;
	/* as a run on the whole machine counts them (no --pin) */
	int instances = ts_workload_instances(w, t->nr_nodes, load), per = 0;
	for (int c = 0; c < w->nr_classes; c++)
		per += ts_class_count(&w->classes[c], t->nr_cpus, load);
	struct sim_groups *g = NULL;
	int *count = NULL;
	char *text = NULL;
	rc = sim_groups_create(s, spec, w, instances, 0, t, NULL, &g, err);
	if (rc)
		goto out;
	count = calloc((size_t)g->nr_tg, sizeof(*count));
	size_t need = ts_tg_dump(s->root_tg, NULL, 0);
	text = malloc(need + 1);
	if (!count || !text) {
		rc = ts_error_set(err, -ENOMEM, "groups dump: out of memory");
		goto out;
	}
	ts_tg_dump(s->root_tg, text, need + 1);
	int root_count = 0;
	for (int inst = 0; inst < instances; inst++)
		for (int c = 0; c < w->nr_classes; c++) {
			int k = place_index(g, c, inst);
			int n = ts_class_count(&w->classes[c], t->nr_cpus, load);
			if (k >= 0)
				count[k] += n;
			else
				root_count += n;
		}
	fprintf(out, "task groups '%s': %s, %d %s (%d tasks), layout %s\n", spec->text,
		w->name ? w->name : "?", load, w->load_name ? w->load_name : "instances",
		per * instances, ts_tg_layout_name(layout));
	fputs(text, out);
	fputs("tasks per group:\n", out);
	dump_counts(s->root_tg, g, count, root_count, 0, out);
out:
	free(text);
	free(count);
	sim_groups_free(g);
	ts_sched_destroy(s);
	return rc;
}
