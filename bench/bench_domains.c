/* Scheduling-domain construction cost: a synthetic 4096-CPU, 16-node machine against the
 * 128-CPU kunpeng920 measured in the same run. Prints medians over repetitions and the
 * ratio of per-CPU cost (1.0 = building scales linearly with the CPU count). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "topo/topo_build.h"
#include "toposched/domain.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median seconds of `reps` full builds (domains + groups + degeneration). */
static double median_build(const struct ts_topology *t, int reps)
{
	double s[32];
	for (int r = 0; r < reps; r++) {
		struct ts_error err = {0};
		struct ts_domains *d;
		double t0 = now_s();
		if (ts_domains_build(t, NULL, &d, &err)) {
			fprintf(stderr, "bench_domains: %s\n", err.msg);
			exit(1);
		}
		s[r] = now_s() - t0;
		ts_domains_free(d);
	}
	qsort(s, (size_t)reps, sizeof(double), cmp_double);
	return s[reps / 2];
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	if (reps < 1 || reps > 32)
		reps = 5;
	/* 2 packages x 8 nodes x 4 LLCs x 4 clusters x 8 cores x SMT2 = 4096 CPUs; SLIT
	 * 10 local, 12 in the package, 32 across (an EPYC-like shape, 3 NUMA levels). */
	static int dist[16 * 16];
	for (int a = 0; a < 16; a++)
		for (int b = 0; b < 16; b++)
			dist[a * 16 + b] = a == b ? 10 : a / 8 == b / 8 ? 12 : 32;
	struct ts_regular_machine big = {
		"synthetic-4096", "4096 CPUs, 16 nodes", 2, 8, 4, 4, 8, 2, TS_SMT_SPLIT, dist, 0};
	struct ts_error err = {0};
	struct ts_topology *t_big = ts_topology_build_regular(&big, &err);
	const struct ts_preset *p = ts_preset_find("kunpeng920");
	struct ts_topology *t_base = p ? p->build(&err) : NULL;
	if (!t_big || !t_base) {
		fprintf(stderr, "bench_domains: %s\n", err.msg);
		return 1;
	}
	double base = median_build(t_base, reps);
	double bigt = median_build(t_big, reps);
	double per_base = base / t_base->nr_cpus, per_big = bigt / t_big->nr_cpus;
	printf("bench_domains: median of %d builds\n", reps);
	printf("  %-16s %5d CPUs %3d nodes  %9.3f ms  %7.2f us/CPU\n", t_base->name,
	       t_base->nr_cpus, t_base->nr_nodes, base * 1e3, per_base * 1e6);
	printf("  %-16s %5d CPUs %3d nodes  %9.3f ms  %7.2f us/CPU\n", t_big->name, t_big->nr_cpus,
	       t_big->nr_nodes, bigt * 1e3, per_big * 1e6);
	printf("  ratio per CPU (4096 / 128): %.2f   target: 4096-CPU build well under 1 s -> %s\n",
	       per_big / per_base, bigt < 1.0 ? "met" : "MISSED");
	ts_topology_free(t_big);
	ts_topology_free(t_base);
	return 0;
}
