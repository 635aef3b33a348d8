/* Cost of one wake-up placement decision (ts_select_task_rq() with WF_TTWU|WF_SYNC from a
 * waker to its wakee: wake_affine + select_idle_sibling) on kunpeng920 (clusters, no SMT)
 * and spr-2s (SMT, 112-CPU LLCs) with 0 %, 50 % and 100 % of the CPUs running a task,
 * for each scan configuration. Prints ns and CPUs examined per decision, and each
 * configuration's ns/decision relative to the default (SIS_UTIL) measured in the same run
 * (rounds interleaved, median of the rounds). Fixed iteration counts; nothing asserted.
 *
 * Busy CPUs run a real task (activated and scheduled through the core). nr_idle_scan is
 * set by ts_update_idle_cpu_scan() (balance.c) from the LLC's summed utilisation, with a
 * busy CPU counted as fully utilised (1024) — what periodic balancing converges to —
 * rather than from the PELT values of tasks that have just started. has_idle_cores starts
 * as __update_idle_core() would have left it (1 when a fully idle core exists). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topo/topo_build.h"
#include "toposched/sched.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The bench host: the real clock (so SIS_PROP measures real scan times), no locking
 * (single thread), resched requests ignored. */
static uint64_t h_clock(void *h)
{
	(void)h;
	return mono_ns();
}
static void h_resched(void *h, int cpu)
{
	(void)h;
	(void)cpu;
}
static void h_lock(void *h, int cpu)
{
	(void)h;
	(void)cpu;
}
static const struct ts_host_ops bench_ops = {
	.clock = h_clock,
	.resched_cpu = h_resched,
	.rq_lock = h_lock,
	.rq_unlock = h_lock,
	.scan_time = NULL, /* clock() - t0 */
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static const struct {
	const char *label;
	const char *features; /* applied on the defaults */
} configs[] = {
	{"SIS_UTIL (default)", ""},
	{"NO_SIS_UTIL SIS_PROP", "NO_SIS_UTIL SIS_PROP"},
	{"NO_SIS_UTIL", "NO_SIS_UTIL"},
	{"SIS_PROP SIS_OVERLOAD", "NO_SIS_UTIL SIS_PROP SIS_OVERLOAD"},
	{"NO_SIS_CLUSTER", "NO_SIS_CLUSTER"},
};
#define NR_CONFIGS (int)(sizeof(configs) / sizeof(configs[0]))
#define NR_PAIRS   16
#define ROUNDS	   3

struct machine {
	struct ts_topology *t;
	struct ts_sched *s;
	struct ts_task *tasks; /* one per busy CPU */
	int nr_tasks;
	struct ts_task wakee[NR_PAIRS];
	struct ts_task *waker[NR_PAIRS];
	int waker_cpu[NR_PAIRS], prev_cpu[NR_PAIRS];
	unsigned char *is_busy;
};

static void run_task_on(struct machine *m, int cpu)
{
	struct ts_error err = {0};
	struct ts_task *p = &m->tasks[m->nr_tasks++];
	if (ts_task_init(m->s, p, 0, NULL, cpu, &err)) {
		fprintf(stderr, "bench_select: %s\n", err.msg);
		exit(1);
	}
	ts_activate_task(m->s, cpu, p, 0);
	ts_schedule(m->s, cpu);
	m->is_busy[cpu] = 1;
}

/* Restores the SIS hints, so that every configuration starts from the same state. */
static void reset_hints(struct machine *m)
{
	struct ts_sched *s = m->s;
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct ts_cpu_domains *cd = &s->dom->cpu[c];
		if (!cd->sd_llc_shared || cd->sd_llc_id != c)
			continue;
		unsigned long sum_util = 0;
		int idle_core = 0;
		int cpu;
		ts_for_each_cpu(cpu, cd->sd_llc->span)
		{
			sum_util += m->is_busy[cpu] ? TS_CAPACITY_SCALE : 0;
			bool all_idle = true;
			for (int x = 0; x < s->nr_cpus; x++)
				if (m->t->cpu[x].core == m->t->cpu[cpu].core && m->is_busy[x])
					all_idle = false;
			idle_core |= all_idle;
		}
		/* ts_update_idle_cpu_scan() acts only with SIS_UTIL on: compute under the
		 * default features, whatever is being measured */
		struct ts_features saved = s->features;
		s->features = ts_features_default();
		ts_update_idle_cpu_scan(s, c, sum_util);
		s->features = saved;
		atomic_store(&cd->sd_llc_shared->has_idle_cores, s->dom->smt_active && idle_core);
		atomic_store(&cd->sd_llc_shared->overloaded, 0);
	}
	for (int c = 0; c < s->nr_cpus; c++) {
		struct ts_sched_domain *llc = s->dom->cpu[c].sd_llc;
		if (llc)
			llc->avg_scan_cost = 0;
		atomic_store(&s->rq[c].ro.wake_avg_idle, s->rq[c].avg_idle / 2);
		atomic_store(&s->rq[c].ro.wake_stamp, mono_ns() / s->tick_nsec);
	}
}

static struct machine *machine_new(const char *name, int busy_pct)
{
	struct ts_error err = {0};
	const struct ts_preset *pr = ts_preset_find(name);
	struct machine *m = calloc(1, sizeof(*m));
	if (!pr || !m || !(m->t = pr->build(&err))) {
		fprintf(stderr, "bench_select: cannot build %s\n", name);
		exit(1);
	}
	if (ts_sched_create(m->t, ts_features_default(), &bench_ops, NULL, NULL, &m->s, &err)) {
		fprintf(stderr, "bench_select: %s\n", err.msg);
		exit(1);
	}
	int n = m->t->nr_cpus;
	m->tasks = calloc((size_t)n, sizeof(*m->tasks));
	m->is_busy = calloc((size_t)n, 1);
	if (!m->tasks || !m->is_busy)
		exit(1);
	rng_state = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)busy_pct;
	/* the wakers run on their CPUs whatever the busy fraction */
	for (int i = 0; i < NR_PAIRS; i++) {
		int w;
		do
			w = (int)(rnd() % (uint64_t)n);
		while (m->is_busy[w]);
		m->waker_cpu[i] = w;
		run_task_on(m, w);
		m->waker[i] = &m->tasks[m->nr_tasks - 1];
		/* the wakee last ran somewhere in the waker's LLC */
		const struct ts_cpumask *llc = m->s->dom->cpu[w].sd_llc->span;
		int k = (int)(rnd() % (uint64_t)ts_cpumask_weight(llc));
		m->prev_cpu[i] = ts_cpumask_nth(llc, k);
		if (ts_task_init(m->s, &m->wakee[i], 0, NULL, m->prev_cpu[i], &err))
			exit(1);
	}
	/* then busy CPUs at random up to the fraction */
	int want = n * busy_pct / 100;
	while (m->nr_tasks < want) {
		int c = (int)(rnd() % (uint64_t)n);
		if (!m->is_busy[c])
			run_task_on(m, c);
	}
	return m;
}

static void machine_free(struct machine *m)
{
	for (int i = 0; i < m->nr_tasks; i++)
		ts_task_destroy(&m->tasks[i]);
	for (int i = 0; i < NR_PAIRS; i++)
		ts_task_destroy(&m->wakee[i]);
	ts_sched_destroy(m->s);
	ts_topology_free(m->t);
	free(m->tasks);
	free(m->is_busy);
	free(m);
}

struct result {
	double ns, scanned;
	uint64_t reasons[TS_PLACE_NR];
};

static void measure(struct machine *m, struct ts_features f, int iters, struct result *r)
{
	struct ts_sched *s = m->s;
	s->features = f;
	reset_hints(m);
	uint64_t scanned = 0;
	memset(r->reasons, 0, sizeof(r->reasons));
	uint64_t t0 = mono_ns();
	for (int it = 0; it < iters; it++) {
		int i = it % NR_PAIRS;
		struct ts_task *p = &m->wakee[i];
		p->cpu = m->prev_cpu[i]; /* the decision is not carried out */
		struct ts_placement pl = ts_select_task_rq(s, p, m->waker_cpu[i], m->waker[i],
							   TS_WF_TTWU | TS_WF_SYNC);
		scanned += (uint64_t)pl.nr_scanned;
		r->reasons[pl.reason]++;
	}
	uint64_t t = mono_ns() - t0;
	r->ns = (double)t / iters;
	r->scanned = (double)scanned / iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const char *top_reason(const struct result *r)
{
	int best = 0;
	for (int i = 1; i < TS_PLACE_NR; i++)
		if (r->reasons[i] > r->reasons[best])
			best = i;
	return ts_place_reason_name((enum ts_place_reason)best);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100000;
	if (iters < 1000)
		iters = 100000;
	static const char *const machines[] = {"kunpeng920", "spr-2s"};
	static const int busy[] = {0, 50, 100};
	struct ts_features feats[NR_CONFIGS];
	for (int c = 0; c < NR_CONFIGS; c++) {
		struct ts_error err = {0};
		feats[c] = ts_features_default();
		if (ts_features_parse(configs[c].features, &feats[c], &err)) {
			fprintf(stderr, "bench_select: %s\n", err.msg);
			return 1;
		}
	}
	printf("bench_select: %d decisions per configuration and round, %d rounds (median)\n",
	       iters, ROUNDS);
	printf("%-11s %5s  %-22s %10s %10s %8s  %s\n", "machine", "busy", "configuration", "ns/dec",
	       "cpus/dec", "ratio", "most frequent reason");
	for (size_t mi = 0; mi < sizeof(machines) / sizeof(machines[0]); mi++) {
		for (size_t bi = 0; bi < sizeof(busy) / sizeof(busy[0]); bi++) {
			struct machine *m = machine_new(machines[mi], busy[bi]);
			double ns[NR_CONFIGS][ROUNDS];
			struct result last[NR_CONFIGS];
			for (int round = 0; round < ROUNDS; round++)
				for (int c = 0; c < NR_CONFIGS; c++) {
					measure(m, feats[c], iters, &last[c]);
					ns[c][round] = last[c].ns;
				}
			double med[NR_CONFIGS];
			for (int c = 0; c < NR_CONFIGS; c++) {
				qsort(ns[c], ROUNDS, sizeof(double), cmp_double);
				med[c] = ns[c][ROUNDS / 2];
			}
			for (int c = 0; c < NR_CONFIGS; c++)
				printf("%-11s %4d%%  %-22s %10.1f %10.2f %8.2f  %s\n", machines[mi],
				       busy[bi], configs[c].label, med[c], last[c].scanned,
				       med[c] / med[0], top_reason(&last[c]));
			machine_free(m);
		}
	}
	return 0;
}
