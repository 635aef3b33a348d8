/* CPU speed: SMT sibling sharing and the clock by active cores (cpu_speed.h). Exact
 * re-timing: a running segment's DONE event is posted for the speed of its CPU; when the
 * speed changes (a sibling or another core of the package starts or stops running), the
 * work done at the old speed is banked in seg_done; a faster CPU's end is set anew (its
 * DONE event moves in place, segment_ends.h), a slower CPU's fires early and the engine
 * posts the rest then. Every change happens at an event, in event order, so the result is
 * deterministic and no work is lost or invented. */
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

/* clock_of and speed_of for every count a package and a core can have: at most all CPUs
 * of a package active (more than its cores), at most all threads of a core busy. */
static int speed_tables(struct sim_speed *s, int nr_cores, int nr_packages)
{
	int max_active = 0, max_busy = 0;
	for (int p = 0; p < nr_packages; p++)
		if (s->pkg_first[p + 1] - s->pkg_first[p] > max_active)
			max_active = s->pkg_first[p + 1] - s->pkg_first[p];
	for (int k = 0; k < nr_cores; k++)
		if (s->core_first[k + 1] - s->core_first[k] > max_busy)
			max_busy = s->core_first[k + 1] - s->core_first[k];
	s->busy_stride = max_busy + 1;
	s->clock_of = malloc((size_t)(max_active + 1) * sizeof(double));
	s->speed_of = malloc((size_t)(max_active + 1) * (size_t)s->busy_stride * sizeof(double));
	if (!s->clock_of || !s->speed_of)
		return -ENOMEM;
	for (int a = 0; a <= max_active; a++) {
		s->clock_of[a] = sim_freq_mhz(s->costs, a);
		for (int b = 0; b <= max_busy; b++)
			s->speed_of[a * s->busy_stride + b] = sim_cpu_speed(s->costs, a, b);
	}
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
	s->pkg_nbusy = calloc((size_t)t->nr_packages, sizeof(int));
	s->busy_at = malloc((size_t)m->nr_cpus * sizeof(int));
	if (!s->core_of || !s->pkg_of || !s->core_busy || !s->pkg_active || !s->pkg_nbusy ||
	    !s->busy_at)
		return -ENOMEM;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		s->core_of[cpu] = t->cpu[cpu].core;
		s->pkg_of[cpu] = t->cpu[cpu].package;
		s->busy_at[cpu] = -1;
	}
	if (group_cpus(m, s->core_of, t->nr_cores, &s->core_first, &s->core_cpus) ||
	    group_cpus(m, s->pkg_of, t->nr_packages, &s->pkg_first, &s->pkg_busy))
		return -ENOMEM;
	return speed_tables(s, t->nr_cores, t->nr_packages);
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
	free(s->pkg_nbusy);
	free(s->busy_at);
	free(s->core_first);
	free(s->core_cpus);
	free(s->pkg_first);
	free(s->pkg_busy);
	free(s->clock_of);
	free(s->speed_of);
	free(s);
	m->speed = NULL;
}

/* cpu's speed is now `speed`: a running segment banks its work so far and ends anew. */
static inline void set_speed(struct sim *m, int cpu, double speed)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (speed == c->speed)
		return;
	bool faster = speed > c->speed;
	if (c->seg_active) {
		c->seg_done += (double)(m->now - c->seg_start) * c->speed;
		c->seg_start = m->now;
	}
	c->speed = speed;
	/* Slower: the DONE event already posted comes too early, and the engine posts the
	 * rest again when it finds work left (EV_DONE in ts_sim_run()); that saves a re-post
	 * per slowdown when the speed changes back before. Faster: it would come too late. */
	if (c->seg_active && faster) /* the DONE event moves to the new end */
		sim_post_end(m, cpu, m->now + sim_seg_ns(c));
}

/* Every CPU of core k takes speed v (of its core's busy threads and its package's clock). */
static void update_core(struct sim *m, int k, double v)
{
	struct sim_speed *s = m->speed;
	for (int i = s->core_first[k]; i < s->core_first[k + 1]; i++)
		set_speed(m, s->core_cpus[i], v);
}

/* cpu joins or leaves its package's busy list (the last one takes a leaver's slot). */
static void track_busy(struct sim_speed *s, int cpu, int p, bool busy)
{
	int *list = &s->pkg_busy[s->pkg_first[p]];
	if (busy) {
		s->busy_at[cpu] = s->pkg_nbusy[p];
		list[s->pkg_nbusy[p]++] = cpu;
		return;
	}
	int at = s->busy_at[cpu], last = list[--s->pkg_nbusy[p]];
	list[at] = last;
	s->busy_at[last] = at;
	s->busy_at[cpu] = -1;
}

void sim_speed_busy(struct sim *m, int cpu, bool busy)
{
	struct sim_speed *s = m->speed;
	if ((s->busy_at[cpu] >= 0) == busy)
		return;
	int k = s->core_of[cpu], p = s->pkg_of[cpu];
	track_busy(s, cpu, p, busy);
	int before = s->core_busy[k];
	s->core_busy[k] += busy ? 1 : -1;
	bool core_changed = (before == 0) != (s->core_busy[k] == 0);
	int old_active = s->pkg_active[p];
	if (core_changed)
		s->pkg_active[p] += busy ? 1 : -1;
	const double *speed_of = &s->speed_of[s->pkg_active[p] * s->busy_stride];
	update_core(m, k, speed_of[s->core_busy[k]]);
	if (core_changed && s->clock_of[old_active] != s->clock_of[s->pkg_active[p]]) {
		/* the package's clock moved: every busy CPU of it (an idle one gets its speed
		 * from update_core() when it or its sibling becomes busy) */
		const int *list = &s->pkg_busy[s->pkg_first[p]];
		for (int i = 0; i < s->pkg_nbusy[p]; i++) {
			int x = list[i];
			if (s->core_of[x] != k)
				set_speed(m, x, speed_of[s->core_busy[s->core_of[x]]]);
		}
	}
}
