/* How big and how long a sweep is, estimated before it starts: the default number of
 * workers, bounded by memory as well as by CPUs (an 8192-CPU machine at --jobs 32 took
 * 2.56 GB), and a note before a sweep that will take long (--duration 3600s at 128 clients
 * was accepted silently and would have run for hours). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "toposched/experiment.h"
#include "toposched/sim.h"

/* Peak RSS of one run (GNU time's %M; toposched sim --jobs 1 --iterations 1 --clients 1
 * --duration 1ms --warmup 0 on "pack:1 core:N pu:1"), less the 6.9 MB of the same run on
 * 4 CPUs: N = 4096, 174.5 MB (10.4 bytes per CPU^2); N = 8192, 643.6 MB (9.6). The larger
 * figure, rounded up; a machine with more levels needs less (fewer CPUs per group). */
#define RUN_BYTES_PER_CPU_PAIR 11
/* 4096 tbench clients (8192 tasks) on 4 CPUs peaked 5.6 MB above 64 clients. */
#define RUN_BYTES_PER_TASK 700
/* Host CPU time per task and simulated second, tbench on an AMD EPYC host: 2.16 s of user
 * time for 128 clients (256 tasks) and 200 ms, 0.26 s for 16 clients: 0.042 and 0.041.
 * Workloads that wake less often cost less; the note says "about". */
#define CPU_S_PER_TASK_SECOND 0.042

uint64_t ts_experiment_run_bytes(int nr_cpus, int64_t nr_tasks)
{
	uint64_t n = nr_cpus > 0 ? (uint64_t)nr_cpus : 0;
	uint64_t tasks = nr_tasks > 0 ? (uint64_t)nr_tasks : 0;
	return RUN_BYTES_PER_CPU_PAIR * n * n + RUN_BYTES_PER_TASK * tasks;
}

int ts_experiment_default_jobs(long online_cpus, uint64_t mem_available, uint64_t per_run)
{
	long jobs = online_cpus > 0 ? online_cpus : 1;
	if (mem_available > 0 && per_run > 0 && mem_available / per_run < (uint64_t)jobs)
		jobs = (long)(mem_available / per_run);
	if (jobs < 1)
		jobs = 1;
	return jobs > TS_EXP_MAX_JOBS ? TS_EXP_MAX_JOBS : (int)jobs;
}

uint64_t ts_meminfo_available(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[256];
	uint64_t kib = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kib) == 1)
			break;
	fclose(f);
	return kib > UINT64_MAX / 1024 ? UINT64_MAX : kib * 1024;
}

/* Tasks of one run at load, on the CPUs and nodes the pin allows (as sim counts them). */
static int64_t run_tasks(const struct ts_experiment *e, int load)
{
	const struct ts_topology *t = e->base.topo;
	if (!t || !e->base.workload)
		return 0;
	int cpus = 0, nodes = 0;
	for (int n = 0; n < t->nr_nodes; n++) {
		int here = 0;
		for (int c = 0; c < t->nr_cpus; c++)
			if (t->cpu[c].node == n &&
			    (!e->base.pin || ts_cpumask_test(e->base.pin, c)))
				here++;
		cpus += here;
		nodes += here > 0;
	}
	return ts_workload_nr_tasks(e->base.workload, cpus, nodes, load);
}

int64_t ts_experiment_max_tasks(const struct ts_experiment *e)
{
	int64_t most = 0;
	for (int l = 0; l < e->nr_loads; l++) {
		int64_t n = run_tasks(e, e->loads[l]);
		most = n > most ? n : most;
	}
	return most;
}

double ts_experiment_cpu_seconds(const struct ts_experiment *e)
{
	if (!e->base.workload || e->base.workload->metric == TS_METRIC_TIME_S)
		return 0;
	double simulated_s = (double)(e->base.warmup_ns + e->base.duration_ns) / 1e9, task_s = 0;
	for (int l = 0; l < e->nr_loads; l++)
		task_s += (double)run_tasks(e, e->loads[l]) * simulated_s;
	return task_s * e->nr_configs * e->iterations * CPU_S_PER_TASK_SECOND;
}

/* "45 s", "12 min", "3.5 hours", "2.1 days" */
static void format_span(double s, char *buf, size_t size)
{
	if (s < 120)
		snprintf(buf, size, "%.0f s", s);
	else if (s < 2 * 3600)
		snprintf(buf, size, "%.0f min", s / 60);
	else if (s < 48 * 3600)
		snprintf(buf, size, "%.1f hours", s / 3600);
	else
		snprintf(buf, size, "%.1f days", s / 86400);
}

bool ts_experiment_long_note(const struct ts_experiment *e, int jobs, char *buf, size_t size)
{
	buf[0] = '\0';
	int runs = e->nr_configs * e->nr_loads * e->iterations;
	int workers = jobs < 1 ? 1 : jobs > runs ? runs : jobs;
	/* a run is not split between workers: the sweep takes at least its longest run */
	double wall = ts_experiment_cpu_seconds(e) / workers;
	double longest = (double)ts_experiment_max_tasks(e) *
			 (double)(e->base.warmup_ns + e->base.duration_ns) / 1e9 *
			 CPU_S_PER_TASK_SECOND;
	if (!e->base.workload || e->base.workload->metric == TS_METRIC_TIME_S)
		longest = 0;
	if (wall < longest)
		wall = longest;
	if (!(wall > TS_EXP_LONG_SWEEP_S))
		return false;
	char span[32];
	format_span(wall, span, sizeof(span));
	snprintf(buf, size,
		 "%d runs of %.6g s simulated, up to %" PRId64 " tasks, on %d worker%s: about %s "
		 "(--duration, --iterations and the loads set the length)",
		 runs, (double)(e->base.warmup_ns + e->base.duration_ns) / 1e9,
		 ts_experiment_max_tasks(e), workers, workers == 1 ? "" : "s", span);
	return true;
}
