/* --schedstat: one run's counters in /proc/schedstat format, and the load-balance counter
 * sums the reports print.
 *
 * The format is "version 17" as mmtests reads it (MonitorProcschedstat.pm in
 * gormanm/mmtests): the cpu and domain lines of show_schedstat() in kernel/sched/stats.c
 * at SCHEDSTAT_VERSION 15 (v4.x to v6.5), with Mel Gorman's SIS debugging counters
 * appended to each cpu line (sis_search, sis_domain_search, sis_scanned, sis_failed:
 * his version 16; sis_recent_hit, sis_recent_miss: 17). Mainline's own version 16/17
 * reorder and split the domain fields; this file follows the one that carries the SIS
 * counters, so that mmtests' efficiency formulas read it unchanged.
 *
 * Values are the measured window's: every counter is 0 when the window opens, and the
 * timestamp is the window's length in jiffies (ticks of the simulated HZ). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define SCHEDSTAT_VERSION 17

void ts_sim_lb_add_domain(struct ts_sim_lb *out, const struct ts_sd_stats *st)
{
	for (int i = 0; i < TS_CPU_MAX_IDLE_TYPES; i++) {
		out->lb_count[i] += ts_stat_read(&st->lb_count[i]);
		out->lb_balanced[i] += ts_stat_read(&st->lb_balanced[i]);
		out->lb_failed[i] += ts_stat_read(&st->lb_failed[i]);
		out->lb_imbalance[i] += ts_stat_read(&st->lb_imbalance[i]);
		out->lb_gained[i] += ts_stat_read(&st->lb_gained[i]);
		out->lb_hot_gained[i] += ts_stat_read(&st->lb_hot_gained[i]);
		out->lb_nobusyq[i] += ts_stat_read(&st->lb_nobusyq[i]);
		out->lb_nobusyg[i] += ts_stat_read(&st->lb_nobusyg[i]);
	}
	out->alb_count += ts_stat_read(&st->alb_count);
	out->alb_failed += ts_stat_read(&st->alb_failed);
	out->alb_pushed += ts_stat_read(&st->alb_pushed);
	out->ttwu_wake_remote += ts_stat_read(&st->ttwu_wake_remote);
	out->ttwu_move_affine += ts_stat_read(&st->ttwu_move_affine);
	out->ttwu_move_balance += ts_stat_read(&st->ttwu_move_balance);
}

void ts_sim_lb_add_delta(struct ts_sim_lb *out, const struct ts_sim_lb *a,
			 const struct ts_sim_lb *b)
{
	/* every field is a uint64_t */
	uint64_t *o = (uint64_t *)out;
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		o[i] += y[i] - x[i];
}

static struct ts_sched_domain *base_domain(const struct sim *m, int cpu)
{
	return m->s->dom ? m->s->dom->cpu[cpu].sd : NULL;
}

void sim_lb_sum(const struct sim *m, struct ts_sim_lb *out)
{
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		for (struct ts_sched_domain *sd = base_domain(m, cpu); sd; sd = sd->parent)
			ts_sim_lb_add_domain(out, &sd->stats);
}

/* The counters of one cpu line. The simulator keeps no yld_count (its tasks never call
 * sched_yield()), sched_count, sched_goidle, run_delay or pcount: they print as 0. */
struct cpu_snap {
	uint64_t ttwu_count, ttwu_local, rq_cpu_time;
	struct ts_sis_counts sis;
};

struct sim_schedstat {
	uint64_t t0;
	struct cpu_snap *cpu;  /* [nr_cpus] */
	int *first_domain;     /* [nr_cpus + 1]: cpu's domains are dom[first..next first) */
	struct ts_sim_lb *dom; /* every CPU's domains, lowest level first */
};

static void snap_cpu(const struct sim *m, int cpu, struct cpu_snap *out)
{
	const struct ts_cpu_stats *st = &m->s->rq[cpu].stats;
	const struct sim_cpu *c = &m->cpu[cpu];
	memset(out, 0, sizeof(*out));
	out->ttwu_count = ts_stat_read(&st->ttwu_count);
	out->ttwu_local = ts_stat_read(&st->ttwu_local);
	out->rq_cpu_time = c->busy_total + (c->curr ? m->now - c->busy_since : 0);
	ts_sis_counts_sum(st, 1, sizeof(*st), &out->sis);
}

static void snap_domains(const struct sim *m, int cpu, struct ts_sim_lb *out)
{
	for (struct ts_sched_domain *sd = base_domain(m, cpu); sd; sd = sd->parent, out++) {
		memset(out, 0, sizeof(*out));
		ts_sim_lb_add_domain(out, &sd->stats);
	}
}

int sim_schedstat_open(struct sim *m)
{
	struct sim_schedstat *ss = calloc(1, sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	m->schedstat = ss;
	ss->t0 = m->now;
	ss->cpu = calloc((size_t)m->nr_cpus, sizeof(*ss->cpu));
	ss->first_domain = calloc((size_t)m->nr_cpus + 1, sizeof(*ss->first_domain));
	if (!ss->cpu || !ss->first_domain)
		return -ENOMEM;
	int nr = 0;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		ss->first_domain[cpu] = nr;
		for (struct ts_sched_domain *sd = base_domain(m, cpu); sd; sd = sd->parent)
			nr++;
	}
	ss->first_domain[m->nr_cpus] = nr;
	ss->dom = calloc((size_t)nr + 1, sizeof(*ss->dom));
	if (!ss->dom)
		return -ENOMEM;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		snap_cpu(m, cpu, &ss->cpu[cpu]);
		snap_domains(m, cpu, &ss->dom[ss->first_domain[cpu]]);
	}
	return 0;
}

void sim_schedstat_free(struct sim *m)
{
	struct sim_schedstat *ss = m->schedstat;
	if (!ss)
		return;
	free(ss->cpu);
	free(ss->first_domain);
	free(ss->dom);
	free(ss);
	m->schedstat = NULL;
}

/* The span as the kernel's "%*pb" prints it: hex, 32-bit chunks separated by commas, the
 * first one as wide as the bits it holds (nr_cpu_ids bits in all). */
static void print_span(FILE *out, const struct ts_cpumask *span, int nr_cpus)
{
	int nr_chunks = (nr_cpus + 31) / 32;
	for (int k = nr_chunks - 1; k >= 0; k--) {
		uint32_t word = 0;
		int bits = k == nr_chunks - 1 ? nr_cpus - 32 * k : 32;
		for (int b = 0; b < bits; b++)
			if (ts_cpumask_test(span, 32 * k + b))
				word |= 1u << b;
		fprintf(out, "%s%0*x", k == nr_chunks - 1 ? "" : ",", (bits + 3) / 4, word);
	}
}

static void print_domain(FILE *out, int level, const struct ts_sched_domain *sd, int nr_cpus,
			 const struct ts_sim_lb *a)
{
	struct ts_sim_lb now = {0}, d = {0};
	ts_sim_lb_add_domain(&now, &sd->stats);
	ts_sim_lb_add_delta(&d, a, &now);
	fprintf(out, "domain%d ", level);
	print_span(out, sd->span, nr_cpus);
	for (int i = 0; i < TS_CPU_MAX_IDLE_TYPES; i++)
		fprintf(out, " %llu %llu %llu %llu %llu %llu %llu %llu",
			(unsigned long long)d.lb_count[i], (unsigned long long)d.lb_balanced[i],
			(unsigned long long)d.lb_failed[i], (unsigned long long)d.lb_imbalance[i],
			(unsigned long long)d.lb_gained[i], (unsigned long long)d.lb_hot_gained[i],
			(unsigned long long)d.lb_nobusyq[i], (unsigned long long)d.lb_nobusyg[i]);
	/* sbe_* and sbf_* (exec and fork balancing): the core keeps no such counters */
	fprintf(out, " %llu %llu %llu 0 0 0 0 0 0 %llu %llu %llu\n",
		(unsigned long long)d.alb_count, (unsigned long long)d.alb_failed,
		(unsigned long long)d.alb_pushed, (unsigned long long)d.ttwu_wake_remote,
		(unsigned long long)d.ttwu_move_affine, (unsigned long long)d.ttwu_move_balance);
}

void sim_schedstat_write(struct sim *m)
{
	const struct sim_schedstat *ss = m->schedstat;
	FILE *out = m->cfg->schedstat;
	if (!ss || !out)
		return;
	unsigned int hz = m->s->hz ? m->s->hz : 1000;
	fprintf(out, "version %d\ntimestamp %llu\n", SCHEDSTAT_VERSION,
		(unsigned long long)((m->now - ss->t0) * hz / 1000000000ULL));
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct cpu_snap e;
		const struct cpu_snap *a = &ss->cpu[cpu];
		snap_cpu(m, cpu, &e);
		fprintf(out, "cpu%d 0 0 0 0 %llu %llu %llu 0 0 %llu %llu %llu %llu %llu %llu\n",
			cpu, (unsigned long long)(e.ttwu_count - a->ttwu_count),
			(unsigned long long)(e.ttwu_local - a->ttwu_local),
			(unsigned long long)(e.rq_cpu_time - a->rq_cpu_time),
			(unsigned long long)(e.sis.search - a->sis.search),
			(unsigned long long)(e.sis.domain_search - a->sis.domain_search),
			(unsigned long long)(e.sis.scanned - a->sis.scanned),
			(unsigned long long)(e.sis.failed - a->sis.failed),
			(unsigned long long)(e.sis.recent_hit - a->sis.recent_hit),
			(unsigned long long)(e.sis.recent_miss - a->sis.recent_miss));
		int level = 0;
		for (struct ts_sched_domain *sd = base_domain(m, cpu); sd; sd = sd->parent, level++)
			print_domain(out, level, sd, m->nr_cpus,
				     &ss->dom[ss->first_domain[cpu] + level]);
	}
}
