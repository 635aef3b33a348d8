/* The runtime's benchmarks against the kernel, each in two forms run side by side in one
 * process: libtoposched tasks (channels, ts_yield, ts_spawn/ts_join) and kernel threads
 * doing the same job with the kernel's primitives (pipes, sched_yield, pthread_create/
 * join, futex). Used by `toposched bench` and by the standalone bench/bench_rt.
 *
 * Every figure is a time (lower is better); the ratio is kernel / toposched, so a ratio
 * above 1 means the runtime is that many times faster. Parameters mirror the real tools
 * so that the kernel side can be rerun with them:
 *   pipe       perf bench sched pipe -T -l LOOPS        us per round trip
 *   pingpong   the same with hand-off sends (WF_CURRENT_CPU); the kernel's pipe threads
 *              pinned to one CPU                        us per round trip
 *   hackbench  hackbench -T -p -g GROUPS -l LOOPS       s in total (20 senders x 20
 *              receivers per group, 100-byte messages)
 *   spawn      TASKS tasks in batches of 256, one wait per batch (detached tasks and a
 *              ts_waitgroup; detached pthreads and a mutex + condvar count: Go's `go` +
 *              sync.WaitGroup)                           ns per task
 *   spawn-join the same, each task joined: ts_join; pthread_create + pthread_join
 *                                                        ns per task
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

#include "toposched/runtime_core.h"

enum rtb_bench {
	RTB_PIPE,
	RTB_PINGPONG,
	RTB_HACKBENCH,
	RTB_HACKBENCH_HANDOFF,
	RTB_SPAWN,
	RTB_SPAWN_JOIN,
	RTB_YIELD,
	RTB_WAKE,
	RTB_NR
};

const char *rtb_name(enum rtb_bench b);
/* Width of the first column of the text report: the longest name, hackbench-handoff. */
#define RTB_NAME_COL 17
/* The benchmark called name, or -1. */
int rtb_lookup(const char *name);

/* Defaults (0 in rtb_config means these). */
#define RTB_PIPE_LOOPS	       50000L
#define RTB_HACKBENCH_LOOPS    100L
#define RTB_HACKBENCH_GROUPS   10L
#define RTB_HACKBENCH_FDS      20 /* senders and receivers per group (hackbench -f) */
#define RTB_HACKBENCH_DATASIZE 100
#define RTB_SPAWN_TASKS	       10000L
#define RTB_SPAWN_BATCH	       256L
#define RTB_YIELD_LOOPS	       500000L /* yields per task (2 tasks) */
#define RTB_WAKE_LOOPS	       5000L   /* samples */
#define RTB_WAKE_GAP_NS	       50000u  /* between samples: the waiter's CPU goes idle */

struct rtb_config {
	const char *topology; /* runtime topology spec; NULL = host */
	const char *cpus;     /* runtime workers (cpulist); NULL = the affinity mask */
	const char *features; /* runtime feature string; NULL = defaults */
	long loops;	      /* pipe, pingpong, hackbench, yield, wake; 0 = the default */
	long groups;	      /* hackbench; 0 = default */
	long tasks;	      /* spawn, spawn-join; 0 = default */
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
	/* The lowest and highest of the runs' own ratios (rtb_merge_runs(); the ratio itself
	 * for one run). */
	double ratio_min, ratio_max;
};

struct rtb_param {
	const char *key;
	bool is_string;
	long long i;
	char s[96];
};

#define RTB_MAX_PARAMS 12
#define RTB_NR_PEERS   2 /* enum rtb_peer (rt_peers.h) */

struct rtb_result {
	enum rtb_bench bench;
	int runs;	       /* how many runs the figures are the median of (rtb_merge_runs()) */
	const char *unit;      /* "us", "s", "ns" */
	const char *what;      /* "per round trip", ... */
	struct rtb_figure fig; /* wake: p50 */
	bool has_p99;
	struct rtb_figure p99; /* wake only */
	int nr_params;
	struct rtb_param params[RTB_MAX_PARAMS];
	char kernel_cmd[128]; /* the real tool's command line with these parameters */
	struct rtb_stats stats;
	/* --peers (rt_peers.h): each peer's figure in `kernel`'s place, for rtb_ratio() */
	struct rtb_peer_result {
		bool have;
		int runs; /* of the result's runs, those that gave a figure */
		struct rtb_figure fig, p99;
		char skipped[320]; /* why there is no figure */
	} peer[RTB_NR_PEERS];
};

/* A parameter of r by key (0 when absent). */
long long rtb_param(const struct rtb_result *r, const char *key);

/* kernel / toposched (0 when toposched is 0). */
double rtb_ratio(const struct rtb_figure *f);

/* Runs benchmark b, both forms. 0, or a negative errno with a message in err. Must be
 * called from a plain thread while the runtime is not running. */
int rtb_run(enum rtb_bench b, const struct rtb_config *cfg, struct rtb_result *out, char *err,
	    size_t errlen);

/* At most this many runs of one benchmark (`toposched bench --repeat`). */
#define RTB_MAX_REPEAT 20

/* One result from n runs of the same benchmark (n >= 1, run one after another, each
 * toposched's and the kernel's form, then the peers): each figure is the median over the
 * runs (the mean of the middle two for even n), its ratio_min and ratio_max the range of
 * the runs' own ratios; the median of toposched's figures over the median of the other's
 * always lies in that range. A peer's figures are over the runs that gave one (skipped, with
 * the last run's reason, when none did). Parameters, command line and statistics are the
 * last run's. */
void rtb_merge_runs(const struct rtb_result *runs, int n, struct rtb_result *out);
/* Sets f's ratio range to its own ratio (a figure of one run). */
void rtb_figure_single(struct rtb_figure *f);
/* Text: "median of N runs; their ratios A .. B" under a figure's line, when N > 1. */
void rtb_print_range(FILE *f, int runs, const struct rtb_figure *fig);

/* Text output: a header, one line per figure, and the statistics block of a result. */
void rtb_print_header(FILE *f);
void rtb_print_result(FILE *f, const struct rtb_result *r);
void rtb_print_stats(FILE *f, const struct rtb_result *r);

/* ---- groups: task-group load tracking in the runtime (toposched bench groups) ----
 * Not a comparison with the kernel: the runtime against itself, in one process, for each
 * tg->load_avg layout (packed, aligned, per-node; group.h) x TG_LOAD_RATELIMIT off/on
 * (TG_LOAD_FILTER at its default). Per configuration the runtime is started with that
 * layout and feature set, `groups` sibling task groups (shares 1024) are created, and two
 * workloads run one after the other, each for `duration` after a warm-up:
 *   pipe       2 x workers ping-pong pairs (a 4-byte message over two channels, as the
 *              pipe benchmark), pair i in group i mod groups: round trips per second
 *   hackbench  ceil(workers / 4) hackbench groups of 20 senders and 20 receivers
 *              (100-byte messages, each sender to every receiver of its group, channels
 *              holding 655 messages), hackbench group j in task group j mod groups:
 *              messages per second
 * then the runtime is stopped. Over the measured interval: the throughput, tg->load_avg
 * writes and reads per second summed over the groups, and the share of writes that came
 * from another node than the write before (0 on a one-node machine, always for per-node).
 * Repeats are interleaved (every configuration once, then again); each figure is the
 * median over the repeats, and the ratio is a configuration's median throughput over
 * packed/ratelimit-off's, measured in the same run. Higher throughput is better. */

enum rtbg_workload { RTBG_PIPE, RTBG_HACKBENCH, RTBG_NR };
#define RTBG_LAYOUTS	3 /* packed, aligned, per-node: the order of the output */
#define RTBG_MAX_REPEAT 99
#define RTBG_HB_FDS	20

struct rtbg_config {
	const char *topology; /* NULL = host */
	int workers;	      /* 0 = every CPU (the affinity mask; a preset's every CPU) */
	int groups;	      /* 0 = 1 */
	double duration_s;    /* per workload and configuration; 0 = 1 s */
	int repeat;	      /* 0 = 1 */
};

struct rtbg_sample {
	double throughput; /* round trips/s or messages/s */
	double writes_per_s, reads_per_s, skipped_ratelimit_per_s, skipped_filter_per_s;
	double remote_share; /* remote writes / writes; -1 without writes */
	double interval_s;
};

struct rtbg_row {
	enum rtbg_workload workload;
	enum ts_tg_layout layout;
	bool ratelimit;
	int nr; /* repeats done */
	struct rtbg_sample run[RTBG_MAX_REPEAT];
	struct rtbg_sample median; /* per field; remote_share over the runs with writes */
	double spread;		   /* (max - min) / median of the throughput; 0 for one run */
	double ratio;		   /* median throughput / packed, ratelimit off's */
};

struct rtbg_result {
	int workers, groups, pairs, hb_groups, repeat;
	double duration_s, warmup_s;
	char cpus[256]; /* the runtime's cpulist */
	char topology[96];
	int nodes;				       /* of the scheduled CPUs' machine */
	struct rtbg_row row[RTBG_NR][RTBG_LAYOUTS][2]; /* [workload][layout index][ratelimit] */
};

const char *rtbg_workload_name(enum rtbg_workload w); /* "pipe", "hackbench" */
const char *rtbg_workload_unit(enum rtbg_workload w); /* "round trips/s", "messages/s" */
enum ts_tg_layout rtbg_layout(int index);	      /* packed, aligned, per-node */
/* Checks the configuration (starts and stops the runtime once): 0, or -EINVAL with the
 * whole message in err (naming the option). Fills out's configuration fields. */
int rtbg_prepare(const struct rtbg_config *c, struct rtbg_result *out, char *err, size_t n);
/* Runs every configuration after rtbg_prepare(). From a plain thread, the runtime not
 * running. */
int rtbg_run(const struct rtbg_config *c, struct rtbg_result *out, char *err, size_t n);
void rtbg_print(FILE *f, const struct rtbg_result *r);

#endif
