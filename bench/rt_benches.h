/* The runtime's benchmarks against the kernel, each in two forms run side by side in one
 * process: libtoposched tasks (channels, ts_yield, ts_spawn/ts_join) and kernel threads
 * doing the same job with the kernel's primitives (pipes, sched_yield, pthread_create/
 * join, futex). Used by `toposched bench` and by the standalone bench/bench_rt.
 *
 * Every figure is a time (lower is better); the ratio is kernel / toposched, so a ratio
 * above 1 means the runtime is that many times faster. Parameters mirror the real tools
 * so that the kernel side can be rerun with them:
 *   pipe       perf bench sched pipe -T -l LOOPS        us per round trip
 *   hackbench  hackbench -T -p -g GROUPS -l LOOPS       s in total (20 senders x 20
 *              receivers per group, 100-byte messages)
 *   spawn      TASKS x pthread_create + pthread_join     ns per task (in batches of 256)
 *   yield      two threads pinned to one CPU, sched_yield; the runtime on one worker
 *              (the first CPU allowed)                   ns per switch
 *   wake       cross-CPU wake-up of a blocked waiter: futex wake between two pinned threads
 *              vs channel send between tasks on two workers  ns, p50 (and p99)
 * The runtime is started (ts_rt_start) and stopped around each benchmark; its start-up is
 * not timed. */
#ifndef TS_BENCH_RT_BENCHES_H
#define TS_BENCH_RT_BENCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/runtime.h"

enum rtb_bench { RTB_PIPE, RTB_HACKBENCH, RTB_SPAWN, RTB_YIELD, RTB_WAKE, RTB_NR };

const char *rtb_name(enum rtb_bench b);
/* The benchmark called name, or -1. */
int rtb_lookup(const char *name);

/* Defaults (0 in rtb_config means these). */
#define RTB_PIPE_LOOPS 50000L
#define RTB_HACKBENCH_LOOPS 100L
#define RTB_HACKBENCH_GROUPS 10L
#define RTB_HACKBENCH_FDS 20     /* senders and receivers per group (hackbench -f) */
#define RTB_HACKBENCH_DATASIZE 100
#define RTB_SPAWN_TASKS 10000L
#define RTB_SPAWN_BATCH 256L
#define RTB_YIELD_LOOPS 500000L  /* yields per task (2 tasks) */
#define RTB_WAKE_LOOPS 5000L     /* samples */
#define RTB_WAKE_GAP_NS 50000u   /* between samples: the waiter's CPU goes idle */

struct rtb_config {
	const char *topology; /* runtime topology spec; NULL = host */
	const char *cpus;     /* runtime workers (cpulist); NULL = the affinity mask */
	const char *features; /* runtime feature string; NULL = defaults */
	long loops;           /* pipe, hackbench, yield, wake; 0 = the benchmark's default */
	long groups;          /* hackbench; 0 = default */
	long tasks;           /* spawn; 0 = default */
};

/* The runtime's core statistics of one benchmark's runtime run, read just before
 * ts_rt_stop(): ts_rt_get_stats() and the per-CPU ts_cpu_stats of ts_rt_sched(), summed. */
struct rtb_stats {
	int nr_workers;
	struct ts_rt_stats rt;
	uint64_t ttwu, ttwu_local, fork_placements, migrations;
	uint64_t wake_affine_attempts, wake_affine;
	uint64_t reasons[TS_PLACE_NR];
	uint64_t by_relation[TS_REL_NR];
	struct ts_sis_counts sis;
};

struct rtb_figure {
	double toposched, kernel; /* in the result's unit */
};

struct rtb_param {
	const char *key;
	bool is_string;
	long long i;
	char s[96];
};

#define RTB_MAX_PARAMS 12

struct rtb_result {
	enum rtb_bench bench;
	const char *unit;         /* "us", "s", "ns" */
	const char *what;         /* "per round trip", ... */
	struct rtb_figure fig;    /* wake: p50 */
	bool has_p99;
	struct rtb_figure p99;    /* wake only */
	int nr_params;
	struct rtb_param params[RTB_MAX_PARAMS];
	char kernel_cmd[128];     /* the real tool's command line with these parameters */
	struct rtb_stats stats;
};

/* kernel / toposched (0 when toposched is 0). */
double rtb_ratio(const struct rtb_figure *f);

/* Runs benchmark b, both forms. 0, or a negative errno with a message in err. Must be
 * called from a plain thread while the runtime is not running. */
int rtb_run(enum rtb_bench b, const struct rtb_config *cfg, struct rtb_result *out, char *err,
	    size_t errlen);

/* Text output: a header, one line per figure, and the statistics block of a result. */
void rtb_print_header(FILE *f);
void rtb_print_result(FILE *f, const struct rtb_result *r);
void rtb_print_stats(FILE *f, const struct rtb_result *r);

#endif
