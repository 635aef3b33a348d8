/* CPU speed: SMT sibling sharing and the clock by active cores (cpu_speed.h). Exact
 * re-timing: a running segment's DONE event is posted for the speed of its CPU; when the
 * speed changes (a sibling or another core of the package starts or stops running), the
 * work done at the old speed is banked in seg_done and the event posted again (the old
 * one goes stale by the CPU's gen). Every change happens at an event, in event order, so
 * the result is deterministic and no work is lost or invented. */
#include "cpu_speed.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "engine.h"

double sim_freq_mhz(const struct ts_cost_model *m, int active)
{
	if (active < 1)
		active = 1;
	double f = m->freq_max_mhz.value - (active - 1) * m->freq_step_mhz.value;
	return f > m->freq_all_core_mhz.value ? f : m->freq_all_core_mhz.value;
}

double sim_cpu_speed(const struct ts_cost_model *m, int active, int busy)
{
	double s = m->freq_max_mhz.value > 0 ? sim_freq_mhz(m, active) / m->freq_max_mhz.value : 1;
	if (busy >= 2)
		s *= m->smt_pair_yield.value / busy;
	return s;
}

/* CPUs grouped by an index (core or package): first[k] .. first[k + 1] of list. */
static int group_cpus(const struct sim *m, const int *of, int n, int **first, int **list)
{
	*first = calloc((size_t)n + 1, sizeof(int));
	*list = malloc((size_t)m->nr_cpus * sizeof(int));
	if (!*first || !*list)
		return -ENOMEM;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		(*first)[of[cpu] + 1]++;
	for (int k = 0; k < n; k++)
		(*first)[k + 1] += (*first)[k];
	int *fill = calloc((size_t)n, sizeof(int));
	if (!fill)
		return -ENOMEM;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) /* ascending CPU order within a group */
		(*list)[(*first)[of[cpu]] + fill[of[cpu]]++] = cpu;
	free(fill);
	return 0;
}

int sim_speed_setup(struct sim *m)
{
	const struct ts_cost_model *c = m->costs;
	const struct ts_topology *t = m->topo;
	bool smt = t->has_smt && c->smt_pair_yield.value != 2;
	bool freq =
		c->freq_step_mhz.value > 0 && c->freq_all_core_mhz.value < c->freq_max_mhz.value;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		m->cpu[cpu].speed = 1;
	if (!smt && !freq)
		return 0;
	struct sim_speed *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	m->speed = s;
	s->costs = c;
	s->core_of = malloc((size_t)m->nr_cpus * sizeof(int));
	s->pkg_of = malloc((size_t)m->nr_cpus * sizeof(int));
	s->core_busy = calloc((size_t)t->nr_cores, sizeof(int));
	s->pkg_active = calloc((size_t)t->nr_packages, sizeof(int));
	s->busy = calloc((size_t)m->nr_cpus, sizeof(bool));
	if (!s->core_of || !s->pkg_of || !s->core_busy || !s->pkg_active || !s->busy)
		return -ENOMEM;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		s->core_of[cpu] = t->cpu[cpu].core;
		s->pkg_of[cpu] = t->cpu[cpu].package;
	}
	if (group_cpus(m, s->core_of, t->nr_cores, &s->core_first, &s->core_cpus) ||
	    group_cpus(m, s->pkg_of, t->nr_packages, &s->pkg_first, &s->pkg_cpus))
		return -ENOMEM;
	return 0;
}

void sim_speed_free(struct sim *m)
{
	struct sim_speed *s = m->speed;
	if (!s)
		return;
	free(s->core_of);
	free(s->pkg_of);
	free(s->core_busy);
	free(s->pkg_active);
	free(s->busy);
	free(s->core_first);
	free(s->core_cpus);
	free(s->pkg_first);
	free(s->pkg_cpus);
	free(s);
	m->speed = NULL;
}

/* cpu's speed is now `speed`: a running segment banks its work so far and ends anew. */
static void set_speed(struct sim *m, int cpu, double speed)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (speed == c->speed)
		return;
	if (c->seg_active) {
		c->seg_done += (double)(m->now - c->seg_start) * c->speed;
		c->seg_start = m->now;
		c->speed = speed;
		c->gen++; /* the DONE event posted for the old speed is stale */
		sim_post(m, m->now + sim_seg_ns(c), EV_DONE, cpu, NULL, c->gen);
	} else {
		c->speed = speed;
	}
}

/* Every CPU of core k takes the speed of its core's busy threads and its package's clock. */
static void update_core(struct sim *m, int k, int active)
{
	struct sim_speed *s = m->speed;
	double v = sim_cpu_speed(s->costs, active, s->core_busy[k]);
	for (int i = s->core_first[k]; i < s->core_first[k + 1]; i++)
		set_speed(m, s->core_cpus[i], v);
}

void sim_speed_busy(struct sim *m, int cpu, bool busy)
{
	struct sim_speed *s = m->speed;
	if (s->busy[cpu] == busy)
		return;
	s->busy[cpu] = busy;
	int k = s->core_of[cpu], p = s->pkg_of[cpu];
	int before = s->core_busy[k];
	s->core_busy[k] += busy ? 1 : -1;
	bool core_changed = (before == 0) != (s->core_busy[k] == 0);
	int old_active = s->pkg_active[p];
	if (core_changed)
		s->pkg_active[p] += busy ? 1 : -1;
	if (core_changed &&
	    sim_freq_mhz(s->costs, old_active) != sim_freq_mhz(s->costs, s->pkg_active[p])) {
		/* the package's clock moved: every CPU of it */
		for (int i = s->pkg_first[p]; i < s->pkg_first[p + 1]; i++) {
			int x = s->pkg_cpus[i];
			set_speed(m, x,
				  sim_cpu_speed(s->costs, s->pkg_active[p],
						s->core_busy[s->core_of[x]]));
		}
		return;
	}
	update_core(m, k, s->pkg_active[p]);
}
