/* toposched bench: the runtime's benchmarks against the kernel, side by side in one run
 * (the bodies are in bench/rt_benches.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rt_benches.h"
#include "rt_peers.h"
#include "toposched/features.h"
#include "toposched/json_writer.h"
#include "toposched/runtime.h"

static const char bench_help[] =
	"usage: toposched bench [--bench NAME]... [--loops N] [--groups G] [--tasks N]\n"
	"                       [--cpus LIST] [--topology SPEC] [--features STR] [--stats]\n"
	"                       [--peers] [--repeat N] [--format text|json] [--output FILE]\n"
	"\n"
	"Runs libtoposched's benchmarks against the kernel, each in both forms in this one\n"
	"process, and prints both figures and their ratio (kernel / toposched: above 1, the\n"
	"runtime is that many times faster). Every figure is a time; lower is better.\n"
	"\n"
	"  pipe       ping-pong of a 4-byte message between two tasks over two channels vs\n"
	"             two threads over two pipes (perf bench sched pipe -T): us per round trip;\n"
	"             both wake the reader with a sync wake-up, which sends it back to its\n"
	"             idle previous CPU where the CPUs share an LLC\n"
	"  pingpong   the same with hand-off sends (ts_chan_send_handoff, WF_CURRENT_CPU: the\n"
	"             reader runs next on the sender's worker, as Go's and Boost.Fiber's\n"
	"             channels do) vs the pipe threads pinned to one CPU: us per round trip\n"
	"  hackbench  G groups x 20 senders x 20 receivers x L loops of 100-byte messages over\n"
	"             channels vs threads and pipes (rt-tests hackbench -T -p -g G -l L):\n"
	"             seconds in total; a task woken by a message (or by room for one)\n"
	"             is placed by the core's wake_affine() and select_idle_sibling()\n"
	"  hackbench-handoff\n"
	"             the same with hand-off sends and receives (ts_chan_send_handoff,\n"
	"             ts_chan_recv_handoff: the woken task is queued on its waker's worker,\n"
	"             as Go's and Boost.Fiber's channels do) vs the same threads and pipes\n"
	"  spawn      N tasks in batches of 256, one wait per batch: detached tasks and a\n"
	"             wait group vs detached threads and a mutex + condvar count (Go's `go`\n"
	"             + sync.WaitGroup): ns per task\n"
	"  spawn-join the same with each task joined: ts_join vs pthread_join: ns per task\n"
	"  yield      one switch between two tasks on one worker (the runtime on the first\n"
	"             allowed CPU) vs sched_yield between two threads pinned to it: ns\n"
	"  wake       cross-worker wake-up latency of a blocked task vs a futex wake between\n"
	"             two pinned threads, 50 us apart: ns at p50 and p99\n"
	"\n"
	"  --bench NAME     run NAME (repeatable; default: all, in the order above)\n"
	"  --loops N        pipe, pingpong: round trips (default 50000); hackbench and\n"
	"                   hackbench-handoff: loops (100); yield: yields per task (500000);\n"
	"                   wake: samples (5000)\n"
	"  --groups G       hackbench and hackbench-handoff groups (default 10)\n"
	"  --tasks N        spawn, spawn-join: tasks (default 10000)\n"
	"  --cpus LIST      the runtime's workers (a cpulist; default: the affinity mask)\n"
	"  --topology SPEC  the runtime's topology (default host; a preset or XML is mapped\n"
	"                   onto the real CPUs)\n"
	"  --features STR   the runtime's scheduler features (as 'toposched features')\n"
	"  --peers          also run each benchmark written for Go (GOMAXPROCS = the\n"
	"                   runtime's workers) and Boost.Fiber (as many threads), right after\n"
	"                   it: each figure with its ratio peer / toposched (>1 = toposched\n"
	"                   faster). The sources (bench/peers) are built on first use into\n"
	"                   the build tree (TOPOSCHED_PEERS_DIR overrides the source\n"
	"                   directory); a peer whose toolchain is missing is skipped with a\n"
	"                   line saying why (Debian: golang-go, libboost-fiber-dev)\n"
	"  --repeat N       run each benchmark N times (1..20, default 1), every form and peer\n"
	"                   in each run, one run after another; each figure is the median of\n"
	"                   the runs, and the lowest and highest of the runs' own ratios are\n"
	"                   printed with it (JSON: runs, ratio_min, ratio_max)\n"
	"  --stats          also print the runtime's core statistics of each run (placement\n"
	"                   reasons, SIS counters, wake-ups by relationship, migrations)\n"
	"  --format F       text (default) or json: an array, one object per benchmark:\n"
	"                   {bench, unit, runs, toposched, kernel, ratio, ratio_min, ratio_max,\n"
	"                   params, kernel_side}; wake\n"
	"                   gives p50 there and p99 in a \"p99\" object; --stats adds \"stats\",\n"
	"                   --peers \"peers\": {go, boost_fiber: {runs, figure, ratio,\n"
	"                   ratio_min, ratio_max[, p99]} or {skipped}}; with --repeat the\n"
	"                   statistics are the last run's\n"
	"  --output FILE    write to FILE instead of standard output (complete or untouched,\n"
	"                   as 'toposched sim --output')\n"
	"\n"
	"'toposched bench groups --help': task-group load tracking in the runtime, the three\n"
	"tg->load_avg layouts with and without TG_LOAD_RATELIMIT side by side.\n";

static void json_ratio_range(struct ts_json_writer *w, const struct rtb_figure *f)
{
	ts_json_key(w, "ratio_min");
	ts_json_double(w, f->ratio_min);
	ts_json_key(w, "ratio_max");
	ts_json_double(w, f->ratio_max);
}

static void json_figure(struct ts_json_writer *w, const struct rtb_figure *f)
{
	ts_json_key(w, "toposched");
	ts_json_double(w, f->toposched);
	ts_json_key(w, "kernel");
	ts_json_double(w, f->kernel);
	ts_json_key(w, "ratio");
	ts_json_double(w, rtb_ratio(f));
	json_ratio_range(w, f);
}

static void json_stats(struct ts_json_writer *w, const struct rtb_stats *s)
{
	ts_json_key(w, "stats");
	ts_json_begin_object(w);
	ts_json_key(w, "workers");
	ts_json_int(w, s->nr_workers);
	ts_json_member_uint(w, "spawned", s->rt.spawned);
	ts_json_member_uint(w, "wakeups", s->rt.wakeups);
	ts_json_member_uint(w, "early_wakeups", s->rt.early_wakeups);
	ts_json_member_uint(w, "deferred_wakeups", s->rt.deferred_wakeups);
	ts_json_member_uint(w, "ttwu_queued", s->rt.ttwu_queued);
	ts_json_member_uint(w, "wakelist", s->rt.wakelist);
	ts_json_member_uint(w, "switches", s->rt.switches);
	ts_json_member_uint(w, "parks", s->rt.parks);
	ts_json_member_uint(w, "ticks", s->rt.ticks);
	ts_json_member_uint(w, "steal_ns", s->rt.steal_ns);
	ts_json_member_uint(w, "ttwu_count", s->ttwu);
	ts_json_member_uint(w, "ttwu_local", s->ttwu_local);
	ts_json_member_uint(w, "fork_placements", s->fork_placements);
	ts_json_member_uint(w, "migrations", s->migrations);
	ts_json_member_uint(w, "wake_affine_attempts", s->wake_affine_attempts);
	ts_json_member_uint(w, "wake_affine", s->wake_affine);
	ts_json_key(w, "reasons");
	ts_json_begin_object(w);
	for (int i = 0; i < TS_PLACE_NR; i++)
		ts_json_member_uint(w, ts_place_reason_name((enum ts_place_reason)i),
				    s->reasons[i]);
	ts_json_end_object(w);
	ts_json_key(w, "wakeups_by_relation");
	ts_json_begin_object(w);
	for (int i = 0; i < TS_REL_NR; i++)
		ts_json_member_uint(w, ts_cpu_relation_name((enum ts_cpu_relation)i),
				    s->by_relation[i]);
	ts_json_end_object(w);
	ts_json_key(w, "sis");
	ts_json_begin_object(w);
	ts_json_member_uint(w, "search", s->sis.search);
	ts_json_member_uint(w, "domain_search", s->sis.domain_search);
	ts_json_member_uint(w, "scanned", s->sis.scanned);
	ts_json_member_uint(w, "failed", s->sis.failed);
	ts_json_member_uint(w, "recent_hit", s->sis.recent_hit);
	ts_json_member_uint(w, "recent_miss", s->sis.recent_miss);
	ts_json_member_uint(w, "core_search", s->sis.core_search);
	ts_json_member_uint(w, "core_failed", s->sis.core_failed);
	ts_json_end_object(w);
	ts_json_end_object(w);
}

/* "peers": per peer its figure and ratio peer / toposched, or why it was skipped. */
static void json_peers(struct ts_json_writer *w, const struct rtb_result *r)
{
	ts_json_key(w, "peers");
	ts_json_begin_object(w);
	for (int p = 0; p < RTB_PEER_NR; p++) {
		const struct rtb_peer_result *pr = &r->peer[p];
		ts_json_key(w, rtb_peer_name((enum rtb_peer)p));
		ts_json_begin_object(w);
		if (!pr->have) {
			ts_json_key(w, "skipped");
			ts_json_string(w, pr->skipped);
		} else {
			ts_json_key(w, "runs");
			ts_json_int(w, pr->runs);
			ts_json_key(w, "figure");
			ts_json_double(w, pr->fig.kernel);
			ts_json_key(w, "ratio");
			ts_json_double(w, rtb_ratio(&pr->fig));
			json_ratio_range(w, &pr->fig);
			if (r->has_p99) {
				ts_json_key(w, "p99");
				ts_json_begin_object(w);
				ts_json_key(w, "figure");
				ts_json_double(w, pr->p99.kernel);
				ts_json_key(w, "ratio");
				ts_json_double(w, rtb_ratio(&pr->p99));
				json_ratio_range(w, &pr->p99);
				ts_json_end_object(w);
			}
		}
		ts_json_end_object(w);
	}
	ts_json_end_object(w);
}

static void json_result(struct ts_json_writer *w, const struct rtb_result *r, bool stats,
			bool peers)
{
	ts_json_begin_object(w);
	ts_json_key(w, "bench");
	ts_json_string(w, rtb_name(r->bench));
	ts_json_key(w, "unit");
	ts_json_string(w, r->unit);
	ts_json_key(w, "runs");
	ts_json_int(w, r->runs);
	json_figure(w, &r->fig);
	ts_json_key(w, "params");
	ts_json_begin_object(w);
	for (int i = 0; i < r->nr_params; i++) {
		ts_json_key(w, r->params[i].key);
		if (r->params[i].is_string)
			ts_json_string(w, r->params[i].s);
		else
			ts_json_int(w, r->params[i].i);
	}
	ts_json_end_object(w);
	if (r->has_p99) {
		ts_json_key(w, "percentile");
		ts_json_int(w, 50);
		ts_json_key(w, "p99");
		ts_json_begin_object(w);
		json_figure(w, &r->p99);
		ts_json_end_object(w);
	}
	ts_json_key(w, "kernel_side");
	ts_json_string(w, r->kernel_cmd);
	if (stats)
		json_stats(w, &r->stats);
	if (peers)
		json_peers(w, r);
	ts_json_end_object(w);
}

/* Starts and stops the runtime once with the user's configuration, so that a bad
 * --topology, --cpus or --features is a usage error before anything is timed. */
static int check_runtime(const struct rtb_config *c, bool want_wake)
{
	if (c->topology && strcmp(c->topology, "host") != 0) {
		struct ts_topology *t = NULL;
		int load_rc = cli_load_topology("bench", c->topology, NULL, &t);
		if (load_rc)
			return load_rc; /* the loader's whole message */
		ts_topology_free(t);
	}
	struct ts_rt_config rc = {
		.topology = c->topology, .cpulist = c->cpus, .features = c->features};
	if (ts_rt_start(&rc))
		return cli_error("bench", "%s", ts_rt_last_error());
	int workers = ts_rt_nr_workers();
	ts_rt_stop();
	if (want_wake && workers < 2)
		return cli_error(
			"bench",
			"--bench wake needs at least two runtime workers (--cpus gives %d)",
			workers);
	return 0;
}

/* ---- toposched bench groups ---------------------------------------------------------- */

static const char groups_help[] =
	"usage: toposched bench groups [--workers N] [--groups N] [--duration T] [--repeat N]\n"
	"                              [--topology SPEC] [--json | --format text|json]\n"
	"\n"
	"Task-group load tracking in the runtime, in this one process: for each tg->load_avg\n"
	"layout (v4.4: load_avg in the line of the fields every enqueue reads; isolated: in a\n"
	"line of its own; per-node: one counter per node) with TG_LOAD_RATELIMIT off\n"
	"and on (TG_LOAD_FILTER at its default), the runtime is started, two workloads run in\n"
	"task groups of shares 1024, and it is stopped:\n"
	"  pipe       2 x workers ping-pong pairs over channels, pair i in group i mod N:\n"
	"             round trips per second\n"
	"  hackbench  ceil(workers / 4) groups of 20 senders x 20 receivers (100-byte\n"
	"             messages), hackbench group j in task group j mod N: messages per second\n"
	"Per configuration and workload: the throughput, tg->load_avg writes and reads per\n"
	"second (summed over the groups), the share of writes that followed a write from\n"
	"another NUMA node ('-' without writes), and the ratio of the throughput to v4.4's\n"
	"without ratelimit, measured in the same run (above 1: faster), with the spread of\n"
	"the runs ((max - min) / median) to judge it by. Higher is better.\n"
	"\n"
	"  --workers N      runtime workers (default: every CPU of the affinity mask, or of\n"
	"                   the --topology machine): the first N\n"
	"  --groups N       sibling task groups the pairs are spread over (default 1; at most\n"
	"                   the number of pairs)\n"
	"  --duration T     measured time per workload and configuration, seconds or with a\n"
	"                   unit (ms, s): default 1 s, after a warm-up of T/5 (at most 0.5 s)\n"
	"  --repeat N       runs of every configuration, interleaved; the median is reported\n"
	"                   (default 1, at most 99)\n"
	"  --topology SPEC  the runtime's topology (default host; a preset, XML or synthetic\n"
	"                   string is mapped onto the real CPUs)\n"
	"  --json           JSON: one object with the configuration and \"results\", one entry\n"
	"                   per workload x layout x ratelimit (the same as --format json)\n"
	"  --output FILE    write to FILE instead of standard output\n";

/* "1.5", "1.5s", "200ms": seconds in *out, within [1 ms, 1 h]. */
static int parse_seconds(const char *option, const char *text, double *out)
{
	uint64_t ns;
	if (cli_parse_duration("bench groups", option, text, CLI_DURATION_BARE_SECONDS, &ns))
		return CLI_EXIT_USAGE;
	if (ns < 1000 * 1000)
		return cli_error("bench groups", "%s '%s': must be between 1ms and 3600s", option,
				 text);
	*out = (double)ns / 1e9;
	return 0;
}

static void json_rate(struct ts_json_writer *w, const char *key, double v)
{
	ts_json_key(w, key);
	if (v < 0)
		ts_json_null(w);
	else
		ts_json_double(w, v);
}

static int groups_json(FILE *out, const struct rtbg_result *r)
{
	struct ts_json_writer w;
	ts_json_init(&w, out, CLI_JSON_PRECISION);
	ts_json_begin_object(&w);
	ts_json_key(&w, "bench");
	ts_json_string(&w, "groups");
	ts_json_key(&w, "workers");
	ts_json_int(&w, r->workers);
	ts_json_key(&w, "runtime_cpus");
	ts_json_string(&w, r->cpus);
	ts_json_key(&w, "topology");
	ts_json_string(&w, r->topology);
	ts_json_key(&w, "nodes");
	ts_json_int(&w, r->nodes);
	ts_json_key(&w, "groups");
	ts_json_int(&w, r->groups);
	ts_json_key(&w, "pipe_pairs");
	ts_json_int(&w, r->pairs);
	ts_json_key(&w, "hackbench_groups");
	ts_json_int(&w, r->hb_groups);
	ts_json_key(&w, "hackbench_senders");
	ts_json_int(&w, RTBG_HB_FDS);
	ts_json_key(&w, "hackbench_receivers");
	ts_json_int(&w, RTBG_HB_FDS);
	ts_json_key(&w, "duration_s");
	ts_json_double(&w, r->duration_s);
	ts_json_key(&w, "warmup_s");
	ts_json_double(&w, r->warmup_s);
	ts_json_key(&w, "repeat");
	ts_json_int(&w, r->repeat);
	ts_json_key(&w, "results");
	ts_json_begin_array(&w);
	for (int wl = 0; wl < RTBG_NR; wl++)
		for (int li = 0; li < RTBG_LAYOUTS; li++)
			for (int rl = 0; rl < 2; rl++) {
				const struct rtbg_row *row = &r->row[wl][li][rl];
				const struct rtbg_sample *m = &row->median;
				ts_json_begin_object(&w);
				ts_json_key(&w, "workload");
				ts_json_string(&w, rtbg_workload_name(row->workload));
				ts_json_key(&w, "layout");
				ts_json_string(&w, ts_tg_layout_name(row->layout));
				ts_json_key(&w, "ratelimit");
				ts_json_bool(&w, row->ratelimit);
				ts_json_key(&w, "unit");
				ts_json_string(&w, rtbg_workload_unit(row->workload));
				ts_json_key(&w, "throughput");
				ts_json_double(&w, m->throughput);
				ts_json_key(&w, "load_avg_writes_per_s");
				ts_json_double(&w, m->writes_per_s);
				ts_json_key(&w, "load_avg_reads_per_s");
				ts_json_double(&w, m->reads_per_s);
				json_rate(&w, "remote_write_share", m->remote_share);
				ts_json_key(&w, "skipped_ratelimit_per_s");
				ts_json_double(&w, m->skipped_ratelimit_per_s);
				ts_json_key(&w, "skipped_filter_per_s");
				ts_json_double(&w, m->skipped_filter_per_s);
				ts_json_key(&w, "spread");
				ts_json_double(&w, row->spread);
				ts_json_key(&w, "ratio_to_packed_no_ratelimit");
				ts_json_double(&w, row->ratio);
				ts_json_key(&w, "runs");
				ts_json_begin_array(&w);
				for (int i = 0; i < row->nr; i++)
					ts_json_double(&w, row->run[i].throughput);
				ts_json_end_array(&w);
				ts_json_end_object(&w);
			}
	ts_json_end_array(&w);
	int rc = ts_json_end_object(&w);
	if (!rc)
		fputc('\n', out);
	return rc;
}

static int cmd_bench_groups(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"workers", required_argument, NULL, 'w'},
		{"groups", required_argument, NULL, 'g'},
		{"duration", required_argument, NULL, 'd'},
		{"repeat", required_argument, NULL, 'r'},
		{"topology", required_argument, NULL, 't'},
		{"json", no_argument, NULL, 'j'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *cmd = "bench groups", *output = NULL;
	struct rtbg_config cfg = {0};
	enum cli_format format = CLI_FORMAT_TEXT;
	long v;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":w:g:d:r:t:jf:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			if (cli_parse_int(cmd, "--workers", optarg, 1, 4096, &v))
				return CLI_EXIT_USAGE;
			cfg.workers = (int)v;
			break;
		case 'g':
			if (cli_parse_int(cmd, "--groups", optarg, 1, 8192, &v))
				return CLI_EXIT_USAGE;
			cfg.groups = (int)v;
			break;
		case 'd':
			if (parse_seconds("--duration", optarg, &cfg.duration_s))
				return CLI_EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_int(cmd, "--repeat", optarg, 1, RTBG_MAX_REPEAT, &v))
				return CLI_EXIT_USAGE;
			cfg.repeat = (int)v;
			break;
		case 't':
			cfg.topology = optarg;
			break;
		case 'j':
			format = CLI_FORMAT_JSON;
			break;
		case 'f':
			if (cli_parse_format(cmd, optarg, &format))
				return CLI_EXIT_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(groups_help, stdout);
			return 0;
		default:
			return cli_getopt_error(cmd, opt, argv);
		}
	}
	if (optind < argc)
		return cli_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (cfg.topology && strcmp(cfg.topology, "host") != 0) {
		struct ts_topology *t = NULL;
		int load_rc = cli_load_topology(cmd, cfg.topology, NULL, &t);
		if (load_rc)
			return load_rc; /* the loader's whole message */
		ts_topology_free(t);
	}
	static struct rtbg_result res; /* large: 12 rows of up to 99 runs */
	char err[256];
	if (rtbg_prepare(&cfg, &res, err, sizeof(err)))
		return cli_error(cmd, "%s", err);
	struct cli_output out;
	if (cli_output_open(&out, cmd, "--output", output))
		return CLI_EXIT_USAGE;
	if (rtbg_run(&cfg, &res, err, sizeof(err))) {
		fprintf(stderr, "toposched bench groups: error: %s\n", err);
		cli_output_discard(&out);
		return 1;
	}
	int doc = 0;
	if (format == CLI_FORMAT_JSON)
		doc = groups_json(cli_output_stream(&out), &res);
	else
		rtbg_print(cli_output_stream(&out), &res);
	return cli_output_commit_doc(&out, doc);
}

int cmd_bench(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "groups") == 0)
		return cmd_bench_groups(argc - 1, argv + 1);
	static const struct option longopts[] = {
		{"bench", required_argument, NULL, 'b'},
		{"loops", required_argument, NULL, 'l'},
		{"groups", required_argument, NULL, 'g'},
		{"tasks", required_argument, NULL, 'n'},
		{"cpus", required_argument, NULL, 'c'},
		{"topology", required_argument, NULL, 't'},
		{"features", required_argument, NULL, 'F'},
		{"stats", no_argument, NULL, 's'},
		{"peers", no_argument, NULL, 'P'},
		{"repeat", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct rtb_config cfg = {0};
	bool peers = false;
	int repeat = 1;
	const char *output = NULL;
	enum cli_format format = CLI_FORMAT_TEXT;
	bool selected[RTB_NR] = {false}, any = false, stats = false;
	long v;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":b:l:g:n:c:t:F:sPr:f:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b': {
			int b = rtb_lookup(optarg);
			if (b < 0)
				return cli_error("bench",
						 "--bench '%s': unknown (choose pipe, pingpong, "
						 "hackbench, hackbench-handoff, spawn, spawn-join, "
						 "yield or wake)",
						 optarg);
			selected[b] = any = true;
			break;
		}
		case 'l':
			if (cli_parse_int("bench", "--loops", optarg, 1, 1000000000L, &v))
				return CLI_EXIT_USAGE;
			cfg.loops = v;
			break;
		case 'g':
			if (cli_parse_int("bench", "--groups", optarg, 1, 100, &v))
				return CLI_EXIT_USAGE;
			cfg.groups = v;
			break;
		case 'n':
			if (cli_parse_int("bench", "--tasks", optarg, 1, 100000000L, &v))
				return CLI_EXIT_USAGE;
			cfg.tasks = v;
			break;
		case 'c':
			cfg.cpus = optarg;
			break;
		case 't':
			cfg.topology = optarg;
			break;
		case 'F': {
			struct ts_features f = ts_features_default();
			struct ts_error err = {0};
			if (ts_features_parse(optarg, &f, &err))
				return cli_error("bench", "--features: %s", err.msg);
			cfg.features = optarg;
			break;
		}
		case 's':
			stats = true;
			break;
		case 'P':
			peers = true;
			break;
		case 'r':
			if (cli_parse_int("bench", "--repeat", optarg, 1, RTB_MAX_REPEAT, &v))
				return CLI_EXIT_USAGE;
			repeat = (int)v;
			break;
		case 'f':
			if (cli_parse_format("bench", optarg, &format))
				return CLI_EXIT_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(bench_help, stdout);
			return 0;
		default:
			return cli_getopt_error("bench", opt, argv);
		}
	}
	if (optind < argc)
		return cli_error("bench", "unexpected argument '%s'", argv[optind]);
	if (!any)
		for (int i = 0; i < RTB_NR; i++)
			selected[i] = true;
	if (check_runtime(&cfg, selected[RTB_WAKE]))
		return CLI_EXIT_USAGE;

	struct cli_output output_file;
	if (cli_output_open(&output_file, "bench", "--output", output))
		return CLI_EXIT_USAGE;
	FILE *out = cli_output_stream(&output_file);
	static struct rtb_result res[RTB_NR], runs[RTB_MAX_REPEAT];
	int nr = 0;
	char err[256];
	struct rtb_peers pp;
	if (peers) {
		const char *src = getenv("TOPOSCHED_PEERS_DIR");
		rtb_peers_build(src && *src ? src : TS_PEERS_SRC_DIR, TS_PEERS_CACHE_DIR, &pp);
	}
	if (format == CLI_FORMAT_TEXT) {
		rtb_print_header(out);
		fflush(out);
	}
	for (int b = 0; b < RTB_NR; b++) {
		if (!selected[b])
			continue;
		for (int i = 0; i < repeat; i++) {
			if (rtb_run((enum rtb_bench)b, &cfg, &runs[i], err, sizeof(err))) {
				fflush(out);
				fprintf(stderr, "toposched bench: error: %s: %s\n",
					rtb_name((enum rtb_bench)b), err);
				cli_output_discard(&output_file);
				return 1;
			}
			for (int p = 0; peers && p < RTB_PEER_NR; p++)
				rtb_peer_run(&pp, (enum rtb_peer)p, runs[i].stats.nr_workers,
					     &runs[i]);
		}
		rtb_merge_runs(runs, repeat, &res[nr]);
		if (format == CLI_FORMAT_TEXT) {
			rtb_print_result(out, &res[nr]);
			if (peers)
				rtb_print_peers(out, &res[nr]);
			fflush(out);
		}
		nr++;
	}
	if (format == CLI_FORMAT_TEXT && stats)
		for (int i = 0; i < nr; i++) {
			fputc('\n', out);
			rtb_print_stats(out, &res[i]);
		}
	int doc = 0;
	if (format == CLI_FORMAT_JSON) {
		struct ts_json_writer w;
		ts_json_init(&w, out, CLI_JSON_PRECISION);
		ts_json_begin_array(&w);
		for (int i = 0; i < nr; i++)
			json_result(&w, &res[i], stats, peers);
		doc = ts_json_end_array(&w);
	}
	return cli_output_commit_doc(&output_file, doc);
}