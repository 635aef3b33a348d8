/* toposched sim: run a workload on a simulated machine under one or several scheduler
 * feature configurations, over a list of loads, and compare them mmtests-style.
 *
 * Every input is checked before the first run starts (and output files are opened then,
 * as temporary files next to their destination), so bad input costs nothing and leaves
 * nothing behind; the files are renamed into place only once everything succeeded. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_plot.h"
#include "cli_shard.h"
#include "cli_trace.h"
#include "cli_warn.h"
#include "cli_workload_file.h"
#include "toposched/cost_model.h"
#include "toposched/domain.h"
#include "toposched/experiment.h"
#include "toposched/experiment_part.h"
#include "toposched/features.h"
#include "toposched/sim.h"
#include "toposched/sim_groups.h"
#include "toposched/suggest.h"
#include "toposched/topology.h"

/* The built-in default experiment (README's main command): tbench on Kunpeng 920's
 * node 0, clients 1..128, without and with cluster-first wake-up. Durations are chosen
 * so that the whole default sweep (2 configs x 8 loads x SIM_DEFAULT_ITERATIONS runs)
 * ends well within a minute on a 2-core machine. */
#define SIM_CMD		       "sim"
#define SIM_DEFAULT_WORKLOAD   "tbench"
#define SIM_DEFAULT_LOADS      "1..128"
#define SIM_DEFAULT_PIN	       "0" /* only when --machine/--topology is not given */
#define SIM_DEFAULT_ITERATIONS 3
#define SIM_DEFAULT_DURATION   "100ms" /* measured virtual time per run */
/* Warm-up before it: longer than the first LLC-level balance of an idle node (about its
 * span in ms, 32 on Kunpeng 920), which sets SIS_UTIL's nr_idle_scan from 0 (its initial
 * value, as in the kernel: no scan at all) to a real budget. */
#define SIM_DEFAULT_WARMUP "50ms"
#define SIM_DEFAULT_SEED   1
#define SIM_STR(x)	   #x
#define SIM_XSTR(x)	   SIM_STR(x)
#define SIM_MAX_COSTS	   64
static const char *const sim_default_compare[] = {"baseline=NO_SIS_CLUSTER", "cluster=SIS_CLUSTER"};

/* one line of the help per line of source; a printf format (print_help()) */
// clang-format off
static const char sim_help[] =
	"usage: toposched sim [OPTIONS]\n"
	"\n"
	"Runs a workload on a simulated machine under the scheduling core, for every\n"
	"configuration x load x iteration (in parallel), and prints an mmtests-style\n"
	"comparison: per load each configuration's Hmean (throughput, rates) or Amean\n"
	"(times, latencies), its %% change against the first configuration, '*' where\n"
	"|mean - baseline| > max(stddev, baseline stddev), the stddev; then, per\n"
	"configuration, the SIS statistics, placement reasons, wake-ups by relationship,\n"
	"migrations and CPU utilisation. With no options it runs the default experiment:\n"
	"tbench on kunpeng920 pinned to node 0, clients 1..128,\n"
	"baseline=NO_SIS_CLUSTER vs cluster=SIS_CLUSTER.\n"
	"\n"
	"experiment:\n"
	"  --machine SPEC, --topology SPEC\n"
	"                      a preset (toposched machines), FILE.xml, a sysfs root, an\n"
	"                      hwloc synthetic string or host (default " CLI_DEFAULT_TOPOLOGY ")\n"
	"  --workload NAME     a built-in workload or shipped file (--list-workloads;\n"
	"                      default " SIM_DEFAULT_WORKLOAD "), or FILE.json, an rt-app file\n"
	"                      (docs/workloads.md, \"rt-app files\")\n"
	"  --clients LIST, --groups LIST, --pairs LIST, --load LIST\n"
	"                      the loads to sweep (one option; the names are aliases):\n"
	"                      N, A-B (every value), A..B (A, 2A, 4A ... and B), comma-\n"
	"                      separated; sorted, duplicates dropped (default " SIM_DEFAULT_LOADS ")\n"
	"  --compare NAME=FEATURES ...\n"
	"                      configurations to compare, the first is the baseline;\n"
	"                      repeat the option or list several before the next option.\n"
	"                      FEATURES as for sched/features (\"NO_SIS_UTIL SIS_PROP\"),\n"
	"                      applied on the defaults (toposched features)\n"
	"  --features STR      one configuration \"STR\"; with --compare, applied first to\n"
	"                      every configuration (a common base)\n"
	"  --kernel V          the kernel generation of every mechanism that changed\n"
	"                      since 5.4 (" TS_KERNEL_KNOWN "; default " TS_KERNEL_NEWEST "),\n"
	"                      with that kernel's feature switches as the defaults\n"
	"                      (toposched features --kernel V; docs/kernels.md);\n"
	"                      V+tip-YYYY-MM-DD is release V plus the next release's\n"
	"                      changes that were in tip/sched/core that day; a\n"
	"                      --compare FEATURES token kernel=V sets it per\n"
	"                      configuration\n"
	"  --pin NODES         run every task on these nodes' CPUs only, like numactl -N\n"
	"                      (node list, e.g. 0 or 0-1; 'all' for none). Default: node " SIM_DEFAULT_PIN "\n"
	"                      without --machine (the default experiment), else none;\n"
	"                      none for the NUMA workloads\n"
	"  --cpus LIST         run every task on these CPUs only, like taskset -c (a\n"
	"                      cpulist, e.g. 0-3,8-11); instead of --pin\n"
	"  --pin-cpus LIST     pin the run's k-th task (instance by instance, class by\n"
	"                      class) to CPU k of this comma list, repeated CPUs\n"
	"                      allowed, like lat_pipe's pinned processes: --workload\n"
	"                      pipe --pairs 1 --pin-cpus 0,4 (within --pin's or\n"
	"                      --cpus' CPUs)\n"
	"  --cost NAME=VALUE   override a cost-model term (toposched machines --costs);\n"
	"                      repeatable\n"
	"  --groups-spec SPEC  put the tasks in task groups: ENTRY[,ENTRY...], ENTRY =\n"
	"                      NAME[:SHARES][/NAME[:SHARES]...]=all|class:CLASS|instance\n"
	"                      (docs/workloads.md, \"Task groups\"; e.g. app:1024=all)\n"
	"  --tg-layout L       the groups' load_avg layout: v6.4 (default: the --kernel's,\n"
	"                      v4.5 to the newest; load_avg's line holds rt_se and rt_rq\n"
	"                      with RT_GROUP_SCHED), v4.4, relayout (the 2023 patch),\n"
	"                      isolated (load_avg alone in its line) or per-node (the\n"
	"                      RFC); aligned and packed are the old names of isolated\n"
	"                      and v4.4;\n"
	"                      a --compare FEATURES token tg_layout=L sets it per\n"
	"                      configuration\n"
	"  --dump-groups       print the group hierarchy of --groups-spec for the first\n"
	"                      load and exit\n"
	"  --iterations N      samples per point (default " SIM_XSTR(SIM_DEFAULT_ITERATIONS) ")\n"
	"  --duration T        measured virtual time per run, T with a unit: ns, us, ms, s\n"
	"                      (e.g. 200ms; default " SIM_DEFAULT_DURATION ")\n"
	"  --warmup T          unmeasured virtual time before it (0 allowed; default: the\n"
	"                      workload's own, %s, else " SIM_DEFAULT_WARMUP ")\n"
	"  --loops N           per-task iterations of finite workloads such as hackbench\n"
	"                      (default: the workload's own)\n"
	"  --bind MODE         none (default), hard or inverse: the autonuma references;\n"
	"                      every task bound to its home nodes' CPUs (hard) or to the\n"
	"                      mirrored nodes' (inverse), its memory to its home nodes\n"
	"                      (NUMA workloads only; NUMA balancing then has nothing\n"
	"                      to scan)\n"
	"  --seed N            base seed; each run's seed derives from it and the run's\n"
	"                      (configuration, load, iteration) (default " SIM_XSTR(SIM_DEFAULT_SEED) ")\n"
	"  --hz N              scheduler tick frequency (default 1000)\n"
	"  --no-background     no background kernel activity: ticks and softirqs cost no\n"
	"                      CPU time (docs/engine.md, \"Kernel time\")\n"
	"\n"
	"running and output:\n"
	"  --jobs N            worker threads (default: the online CPUs, fewer when\n"
	"                      MemAvailable holds fewer runs of this machine's size)\n"
	"  --format FMT        table (default), csv or json (schema: docs/sim-json.md);\n"
	"                      without --format, an --output ending in .csv or .json\n"
	"                      selects that format\n"
	"  --output FILE       write the report to FILE once everything succeeded: a file\n"
	"                      is replaced whole (its mode kept), a device, a FIFO or a\n"
	"                      file with several hard links written in place; '-' is\n"
	"                      standard output\n"
	"  --plot FILE         also draw the metric against load, and the %% change\n"
	"                      against the baseline, with gnuplot; FILE ends in .png\n"
	"                      or .svg; the script is kept as FILE.gp\n"
	"  --schedstat FILE    also write the counters of the first configuration's\n"
	"                      smallest load, iteration 1, in /proc/schedstat format\n"
	"                      (version 17 as mmtests reads it; docs/sim-json.md)\n"
	"  --trace FILE        also write one run's scheduling events (sched_switch,\n"
	"                      sched_waking, sched_wakeup, sched_migrate_task, forks,\n"
	"                      exits) as /sys/kernel/tracing/trace prints them, for\n"
	"                      ui.perfetto.dev (docs/trace.md)\n"
	"  --trace-point NAME/LOAD/ITER\n"
	"                      the run --trace writes: a configuration, a load and an\n"
	"                      iteration (default: the first configuration, the\n"
	"                      smallest load, iteration 1)\n"
	"  --trace-max-mb N    the largest trace in MiB (default " SIM_XSTR(CLI_TRACE_DEFAULT_MAX_MB) "): a run whose\n"
	"                      trace would pass it fails\n"
	"  --shard K/N         run only the K-th of N slices of the sweep and write its\n"
	"                      partial result (JSON) to --output; 'toposched merge' makes\n"
	"                      the report of the N parts (docs/sim-json.md, \"Shards\")\n"
	"  --quiet             no progress line on stderr\n"
	"  --list-workloads    list the built-in workloads and the shipped rt-app files\n"
	"                      (share/toposched/workloads/) and exit\n"
	"  --help              this text\n"
	"\n"
	"Exit status: 0 on success, 2 for bad input (nothing is run or written), 1 when a\n"
	"run or writing the output fails.\n";
// clang-format on

static int sim_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sim_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cli_error(SIM_CMD, "%s", msg);
}

/* ---- the command ---- */

enum sim_format { SIM_TABLE, SIM_CSV, SIM_JSON };

struct sim_opts {
	const char *machine;
	bool machine_given;
	const char *workload;
	const char *loads_text, *loads_option;
	const char *compare[TS_EXP_MAX_CONFIGS];
	int nr_compare;
	const char *features;
	struct ts_kernel_profile kernel; /* --kernel (zeroed: the newest) */
	long iterations, hz, jobs, loops;
	uint64_t duration_ns, warmup_ns, seed;
	bool duration_given, warmup_given;
	enum ts_sim_bind bind;
	const char *pin, *pin_cpus, *cpus;
	const char *costs[SIM_MAX_COSTS];
	int nr_costs;
	enum sim_format format;
	bool format_given;
	const char *output, *plot, *schedstat;
	const char *trace, *trace_point; /* --trace */
	const char *shard;		 /* --shard K/N */
	long trace_max_mb;
	bool quiet, list_workloads, no_background;
	/* task groups */
	const char *groups_spec, *tg_layout;
	bool dump_groups;
};

/* The help, with the workloads' own warm-ups from their table, so that it cannot
 * disagree with them. */
static void print_help(void)
{
	char own[256] = "", one[32];
	size_t len = 0;
	int n;
	const struct ts_workload *w = ts_workload_list(&n);
	for (int i = 0; i < n; i++) {
		if (!w[i].default_warmup_ns)
			continue;
		ts_report_duration(w[i].default_warmup_ns, one, sizeof(one));
		len += (size_t)snprintf(own + len, sizeof(own) - len, "%s%s %s", len ? ", " : "",
					w[i].name, one);
		if (len >= sizeof(own))
			break;
	}
	printf(sim_help, own);
}

static void list_workloads(void)
{
	int n;
	const struct ts_workload *w = ts_workload_list(&n);
	int name_w = 8, load_w = 4, metric_w = 6;
	char metric[128];
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			printf("%-*s  %-*s  %-*s  %s\n", name_w, "workload", load_w, "load",
			       metric_w, "metric", "description");
		for (int i = 0; i < n; i++) {
			const char *load = w[i].load_name ? w[i].load_name : "load";
			snprintf(metric, sizeof(metric), "%s (%s, %s is better)", w[i].metric_name,
				 w[i].unit,
				 ts_metric_higher_is_better(w[i].metric) ? "higher" : "lower");
			if (pass == 0) {
				name_w = (int)strlen(w[i].name) > name_w ? (int)strlen(w[i].name)
									 : name_w;
				load_w = (int)strlen(load) > load_w ? (int)strlen(load) : load_w;
				metric_w = (int)strlen(metric) > metric_w ? (int)strlen(metric)
									  : metric_w;
				continue;
			}
			printf("%-*s  %-*s  %-*s  %s\n", name_w, w[i].name, load_w, load, metric_w,
			       metric, w[i].description ? w[i].description : "");
		}
		cli_workload_list_files(stdout, pass, &name_w, &load_w, &metric_w);
	}
}

static int parse_format(const char *text, enum sim_format *out)
{
	if (strcmp(text, "table") == 0 || strcmp(text, "text") == 0)
		*out = SIM_TABLE;
	else if (strcmp(text, "csv") == 0)
		*out = SIM_CSV;
	else if (strcmp(text, "json") == 0)
		*out = SIM_JSON;
	else
		return sim_error("--format '%s': unknown (choose table, csv or json)", text);
	return 0;
}

enum {
	OPT_CLIENTS = 256,
	OPT_GROUPS,
	OPT_PAIRS,
	OPT_LOAD,
	OPT_COMPARE,
	OPT_FEATURES,
	OPT_ITERATIONS,
	OPT_DURATION,
	OPT_WARMUP,
	OPT_SEED,
	OPT_PIN,
	OPT_PIN_CPUS,
	OPT_CPUS,
	OPT_COST,
	OPT_HZ,
	OPT_JOBS,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_PLOT,
	OPT_SCHEDSTAT,
	OPT_QUIET,
	OPT_LIST,
	OPT_LOOPS,
	OPT_BIND,
	OPT_GROUPS_SPEC,
	OPT_TG_LAYOUT,
	OPT_DUMP_GROUPS,
	OPT_NO_BACKGROUND,
	OPT_KERNEL,
	OPT_TRACE,
	OPT_TRACE_POINT,
	OPT_TRACE_MAX_MB,
	OPT_SHARD,
};

static int parse_bind(const char *text, enum ts_sim_bind *out)
{
	if (strcmp(text, "none") == 0)
		*out = TS_BIND_NONE;
	else if (strcmp(text, "hard") == 0)
		*out = TS_BIND_HARD;
	else if (strcmp(text, "inverse") == 0)
		*out = TS_BIND_INVERSE;
	else
		return sim_error("--bind '%s': unknown mode (choose none, hard or inverse)", text);
	return 0;
}

static int parse_args(int argc, char **argv, struct sim_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"machine", required_argument, NULL, 'm'},
		{"topology", required_argument, NULL, 'm'},
		{"workload", required_argument, NULL, 'w'},
		{"clients", required_argument, NULL, OPT_CLIENTS},
		{"groups", required_argument, NULL, OPT_GROUPS},
		{"pairs", required_argument, NULL, OPT_PAIRS},
		{"load", required_argument, NULL, OPT_LOAD},
		{"compare", required_argument, NULL, OPT_COMPARE},
		{"features", required_argument, NULL, OPT_FEATURES},
		{"iterations", required_argument, NULL, OPT_ITERATIONS},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"warmup", required_argument, NULL, OPT_WARMUP},
		{"seed", required_argument, NULL, OPT_SEED},
		{"pin", required_argument, NULL, OPT_PIN},
		{"pin-cpus", required_argument, NULL, OPT_PIN_CPUS},
		{"cpus", required_argument, NULL, OPT_CPUS},
		{"cost", required_argument, NULL, OPT_COST},
		{"hz", required_argument, NULL, OPT_HZ},
		{"no-background", no_argument, NULL, OPT_NO_BACKGROUND},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, OPT_OUTPUT},
		{"plot", required_argument, NULL, OPT_PLOT},
		{"schedstat", required_argument, NULL, OPT_SCHEDSTAT},
		{"quiet", no_argument, NULL, OPT_QUIET},
		{"list-workloads", no_argument, NULL, OPT_LIST},
		{"loops", required_argument, NULL, OPT_LOOPS},
		{"bind", required_argument, NULL, OPT_BIND},
		{"groups-spec", required_argument, NULL, OPT_GROUPS_SPEC},
		{"tg-layout", required_argument, NULL, OPT_TG_LAYOUT},
		{"dump-groups", no_argument, NULL, OPT_DUMP_GROUPS},
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"trace-point", required_argument, NULL, OPT_TRACE_POINT},
		{"trace-max-mb", required_argument, NULL, OPT_TRACE_MAX_MB},
		{"shard", required_argument, NULL, OPT_SHARD},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const load_names[] = {"--clients", "--groups", "--pairs", "--load"};
	opterr = 0;
	optind = 0;
	int opt;
	/* '+': stop at the first non-option, so that --compare can take the arguments that
	 * follow it (they are not permuted away) */
	while ((opt = getopt_long(argc, argv, "+:m:w:qh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			o->machine = optarg;
			o->machine_given = true;
			break;
		case 'w':
			o->workload = optarg;
			break;
		case OPT_CLIENTS:
		case OPT_GROUPS:
		case OPT_PAIRS:
		case OPT_LOAD:
			if (o->loads_option &&
			    strcmp(o->loads_option, load_names[opt - OPT_CLIENTS]))
				return sim_error("%s and %s: give the loads once", o->loads_option,
						 load_names[opt - OPT_CLIENTS]);
			o->loads_option = load_names[opt - OPT_CLIENTS];
			o->loads_text = optarg;
			break;
		case OPT_COMPARE:
			for (;;) {
				if (o->nr_compare >= TS_EXP_MAX_CONFIGS)
					return sim_error("--compare: more than %d configurations",
							 TS_EXP_MAX_CONFIGS);
				o->compare[o->nr_compare++] = optarg;
				if (optind >= argc || argv[optind][0] == '-')
					break;
				optarg = argv[optind++];
			}
			break;
		case OPT_FEATURES:
			o->features = optarg;
			break;
		case OPT_ITERATIONS:
			if (cli_parse_int(SIM_CMD, "--iterations", optarg, 1, TS_EXP_MAX_ITERATIONS,
					  &o->iterations))
				return CLI_EXIT_USAGE;
			break;
		case OPT_DURATION:
			if (cli_parse_duration(SIM_CMD, "--duration", optarg, 0, &o->duration_ns))
				return CLI_EXIT_USAGE;
			o->duration_given = true;
			break;
		case OPT_WARMUP:
			if (cli_parse_duration(SIM_CMD, "--warmup", optarg, CLI_DURATION_ZERO,
					       &o->warmup_ns))
				return CLI_EXIT_USAGE;
			o->warmup_given = true;
			break;
		case OPT_NO_BACKGROUND:
			o->no_background = true;
			break;
		case OPT_BIND:
			if (parse_bind(optarg, &o->bind))
				return CLI_EXIT_USAGE;
			break;
		case OPT_SEED:
			if (cli_parse_seed(SIM_CMD, "--seed", optarg, &o->seed))
				return CLI_EXIT_USAGE;
			break;
		case OPT_PIN:
			o->pin = optarg;
			break;
		case OPT_PIN_CPUS:
			o->pin_cpus = optarg;
			break;
		case OPT_CPUS:
			o->cpus = optarg;
			break;
		case OPT_COST:
			if (o->nr_costs >= SIM_MAX_COSTS)
				return sim_error("--cost: more than %d overrides", SIM_MAX_COSTS);
			o->costs[o->nr_costs++] = optarg;
			break;
		case OPT_HZ:
			if (cli_parse_int(SIM_CMD, "--hz", optarg, 10, 10000, &o->hz))
				return CLI_EXIT_USAGE;
			break;
		case OPT_JOBS:
			if (cli_parse_int(SIM_CMD, "--jobs", optarg, 1, TS_EXP_MAX_JOBS, &o->jobs))
				return CLI_EXIT_USAGE;
			break;
		case OPT_LOOPS:
			if (cli_parse_int(SIM_CMD, "--loops", optarg, 1, 100000000, &o->loops))
				return CLI_EXIT_USAGE;
			break;
		case OPT_FORMAT:
			if (parse_format(optarg, &o->format))
				return CLI_EXIT_USAGE;
			o->format_given = true;
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case OPT_SCHEDSTAT:
			o->schedstat = optarg;
			break;
		case 'q':
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_LIST:
			o->list_workloads = true;
			break;
		case OPT_GROUPS_SPEC:
			o->groups_spec = optarg;
			break;
		case OPT_TG_LAYOUT:
			o->tg_layout = optarg;
			break;
		case OPT_DUMP_GROUPS:
			o->dump_groups = true;
			break;
		case OPT_KERNEL:
			if (cli_parse_kernel(SIM_CMD, "--kernel", optarg, &o->kernel))
				return CLI_EXIT_USAGE;
			break;
		case OPT_TRACE:
			o->trace = optarg;
			break;
		case OPT_TRACE_POINT:
			o->trace_point = optarg;
			break;
		case OPT_TRACE_MAX_MB:
			if (cli_parse_int(SIM_CMD, "--trace-max-mb", optarg, 1, CLI_TRACE_MAX_MB,
					  &o->trace_max_mb))
				return CLI_EXIT_USAGE;
			break;
		case OPT_SHARD:
			o->shard = optarg;
			break;
		case 'h':
			*help = true;
			return 0;
		default:
			return cli_getopt_error(SIM_CMD, opt, argv);
		}
	}
	if (optind < argc)
		return sim_error("unexpected argument '%s' (a --compare NAME=FEATURES?)",
				 argv[optind]);
	return 0;
}

/* Everything the run needs, built and checked from the options. */
struct sim_setup {
	struct ts_topology *topo;
	struct ts_cost_model costs;
	const struct ts_workload *workload;
	struct ts_cpumask *pin;
	int *pin_cpus; /* --pin-cpus, in order (NULL: none) */
	int nr_pin_cpus;
	int *loads;
	int nr_loads;
	struct ts_exp_config configs[TS_EXP_MAX_CONFIGS];
	int nr_configs;
	/* task groups */
	bool layout_given[TS_EXP_MAX_CONFIGS]; /* by a tg_layout= token of the configuration */
	bool has_groups;
	struct ts_groups_spec groups;
	struct ts_sim_rtapp *rtapp; /* --workload FILE.json */
};

/* --cpus: the run's CPUs as a cpulist, the cpuset a taskset -c or cgroup gives. */
static int build_pin_from_cpus(const struct sim_opts *o, struct sim_setup *s)
{
	if (o->pin)
		return sim_error("--cpus '%s' and --pin '%s' both choose the run's CPUs; give one",
				 o->cpus, o->pin);
	struct ts_error err = {0};
	if (!(s->pin = ts_cpumask_alloc(s->topo->nr_cpus)))
		return sim_error("out of memory");
	if (ts_cpumask_parse(s->pin, o->cpus, &err))
		return sim_error("--cpus: %s", err.msg);
	if (ts_cpumask_empty(s->pin))
		return sim_error("--cpus '%s': selects no CPU", o->cpus);
	return 0;
}

static int build_pin(const struct sim_opts *o, struct sim_setup *s)
{
	if (o->cpus)
		return build_pin_from_cpus(o, s);
	/* the default pin is the default experiment's; a NUMA workload wants every node */
	bool numa = s->workload && s->workload->nr_regions > 0;
	const char *text =
		o->pin ? o->pin : (o->machine_given || numa || s->rtapp ? NULL : SIM_DEFAULT_PIN);
	if (!text || strcmp(text, "all") == 0 || strcmp(text, "none") == 0)
		return 0;
	const struct ts_topology *t = s->topo;
	struct ts_cpumask *nodes = ts_cpumask_alloc(t->nr_nodes);
	s->pin = ts_cpumask_alloc(t->nr_cpus);
	struct ts_cpumask *m = ts_cpumask_alloc(t->nr_cpus);
	int rc = 0;
	if (!nodes || !s->pin || !m) {
		rc = sim_error("out of memory");
	} else if (!(rc = cli_parse_node_list(SIM_CMD, "--pin", text, t->nr_nodes, t->name,
					      nodes))) {
		int node;
		ts_cpumask_zero(s->pin);
		ts_for_each_cpu(node, nodes)
		{
			ts_topology_node_mask(t, node, m);
			ts_cpumask_or(s->pin, s->pin, m);
		}
		if (ts_cpumask_empty(s->pin))
			rc = sim_error("--pin '%s': these nodes of %s have no CPUs", text, t->name);
	}
	ts_cpumask_free(nodes);
	ts_cpumask_free(m);
	return rc;
}

/* --pin-cpus: a comma list of CPUs of the machine, in order, repeats allowed, each inside
 * the --pin CPUs when there are any. */
static int build_pin_cpus(const struct sim_opts *o, struct sim_setup *s)
{
	const char *text = o->pin_cpus;
	if (!text)
		return 0;
	if (cli_parse_cpu_sequence(SIM_CMD, "--pin-cpus", text, s->topo->nr_cpus, s->topo->name,
				   &s->pin_cpus, &s->nr_pin_cpus))
		return CLI_EXIT_USAGE;
	for (int i = 0; i < s->nr_pin_cpus; i++)
		if (s->pin && !ts_cpumask_test(s->pin, s->pin_cpus[i]))
			return o->cpus ? sim_error("--pin-cpus '%s': CPU %d is outside --cpus '%s'",
						   text, s->pin_cpus[i], o->cpus)
				       : sim_error("--pin-cpus '%s': CPU %d is outside the --pin "
						   "nodes (%s)",
						   text, s->pin_cpus[i],
						   o->pin ? o->pin : SIM_DEFAULT_PIN);
	return 0;
}

/* ---- task groups: --groups-spec, --tg-layout, tg_layout= tokens ---- */

/* The base layout: --tg-layout, overridden by a tg_layout= token of --features (taken out
 * of the features, into rest). */
static int take_base_layout(const struct sim_opts *o, char *rest, size_t size,
			    enum ts_tg_layout *layout, bool *given)
{
	struct ts_error err = {0};
	*given = false;
	rest[0] = '\0';
	if (o->tg_layout) {
		if (ts_tg_layout_parse(o->tg_layout, layout, &err))
			return sim_error("--tg-layout '%s': expected " TS_TG_LAYOUT_NAMES,
					 o->tg_layout);
		*given = true;
	}
	bool in_features = false;
	if (o->features && ts_tg_layout_take(o->features, rest, size, layout, &in_features, &err))
		return sim_error("--features '%s': %s", o->features, err.msg);
	*given |= in_features;
	return 0;
}

/* Every configuration without its own tg_layout= gets the base layout if one was given,
 * else its kernel's (ts_kernel_tg_layout()); the spec is parsed against the workload. */
static int build_groups(const struct sim_opts *o, struct sim_setup *s,
			enum ts_tg_layout base_layout, bool base_given)
{
	bool any_given = base_given;
	const char *given_by = o->tg_layout ? "--tg-layout" : "--features";
	for (int i = 0; i < s->nr_configs; i++) {
		if (s->layout_given[i]) {
			if (!any_given)
				given_by = "--compare";
			any_given = true;
		} else {
			s->configs[i].tg_layout =
				base_given ? base_layout
					   : ts_kernel_tg_layout(&s->configs[i].kernel);
		}
	}
	const char *spec = o->groups_spec ? o->groups_spec
			   : s->rtapp	  ? s->rtapp->groups_spec
					  : NULL;
	if (!spec) {
		if (any_given)
			return sim_error("%s: a task-group layout needs --groups-spec (without it "
					 "every task is in the root group)",
					 given_by);
		if (o->dump_groups)
			return sim_error("--dump-groups needs --groups-spec");
		return 0;
	}
	struct ts_error err = {0};
	if (ts_groups_spec_parse(spec, s->workload, &s->groups, &err))
		return sim_error("%s '%s': %s", o->groups_spec ? "--groups-spec" : "taskgroup",
				 spec, err.msg);
	s->has_groups = true;
	return 0;
}

/* A workload whose phases fork (rt-app's fork event): its task count follows its loops. */
static bool workload_forks(const struct ts_workload *w)
{
	for (int c = 0; c < w->nr_classes; c++) {
		const struct ts_task_class *k = &w->classes[c];
		for (int i = 0; i < k->nr_phases; i++)
			if (k->phases[i].kind == TS_PH_FORK)
				return true;
		for (int i = 0; i < k->nr_prologue; i++)
			if (k->prologue[i].kind == TS_PH_FORK)
				return true;
	}
	return false;
}

static int build_setup(const struct sim_opts *o, struct sim_setup *s)
{
	struct ts_error err = {0};
	if (cli_workload_open(SIM_CMD, o->workload, &s->workload, &s->rtapp))
		return CLI_EXIT_USAGE;
	if (o->loops > 0 && workload_forks(s->workload))
		return sim_error("--loops: workload '%s' forks tasks: its tasks are as many as its "
				 "loops fork, so --loops cannot change them",
				 s->workload->name);
	const char *default_loads =
		s->workload->default_loads ? s->workload->default_loads : SIM_DEFAULT_LOADS;
	if (cli_parse_list(SIM_CMD, o->loads_option ? o->loads_option : "--clients",
			   o->loads_text ? o->loads_text : default_loads, TS_SIM_MAX_TASKS,
			   TS_EXP_MAX_LOADS, &s->loads, &s->nr_loads))
		return CLI_EXIT_USAGE;
	if (o->bind != TS_BIND_NONE && s->workload->nr_regions == 0)
		return sim_error("--bind: workload '%s' has no memory to bind (the NUMA workloads "
				 "have: numa01, numa01-thread-alloc, numa02, numa02-smt, specjbb)",
				 s->workload->name);

	struct ts_features base = ts_kernel_features_default(&o->kernel);
	enum ts_tg_layout base_layout = TS_TG_ALIGNED;
	bool base_layout_given = false;
	char base_features[TS_FEATURES_STR_MAX];
	if (take_base_layout(o, base_features, sizeof(base_features), &base_layout,
			     &base_layout_given))
		return CLI_EXIT_USAGE;
	if (o->features && ts_features_parse(base_features, &base, &err))
		return sim_error("--features '%s': %s (see 'toposched features')", o->features,
				 err.msg);
	if (o->nr_compare > 0) {
		for (int i = 0; i < o->nr_compare; i++) {
			if (cli_parse_compare(SIM_CMD, o->compare[i], &o->kernel,
					      o->features ? base_features : NULL, &s->configs[i],
					      &s->layout_given[i]))
				return CLI_EXIT_USAGE;
			for (int k = 0; k < i; k++)
				if (strcmp(s->configs[k].name, s->configs[i].name) == 0)
					return sim_error("--compare: the name '%s' is used twice",
							 s->configs[i].name);
			if (o->features) {
				/* the reports show what was applied, base first */
				char text[TS_FEATURES_STR_MAX];
				int n = snprintf(text, sizeof(text), "%s%s%s", o->features,
						 s->configs[i].features_text[0] ? " " : "",
						 s->configs[i].features_text);
				if (n < 0 || (size_t)n >= sizeof(text))
					return sim_error("--features with --compare '%s': too long",
							 o->compare[i]);
				memcpy(s->configs[i].features_text, text, sizeof(text));
			}
		}
		s->nr_configs = o->nr_compare;
	} else if (o->features) {
		snprintf(s->configs[0].name, sizeof(s->configs[0].name), "features");
		if (strlen(o->features) >= sizeof(s->configs[0].features_text))
			return sim_error("--features: too long");
		snprintf(s->configs[0].features_text, sizeof(s->configs[0].features_text), "%s",
			 o->features);
		s->configs[0].features = base;
		s->configs[0].kernel = o->kernel;
		s->nr_configs = 1;
	} else {
		for (size_t i = 0; i < sizeof(sim_default_compare) / sizeof(sim_default_compare[0]);
		     i++)
			if (cli_parse_compare(SIM_CMD, sim_default_compare[i], &o->kernel, NULL,
					      &s->configs[i], &s->layout_given[i]))
				return CLI_EXIT_USAGE;
		s->nr_configs = (int)(sizeof(sim_default_compare) / sizeof(sim_default_compare[0]));
	}
	if (build_groups(o, s, base_layout, base_layout_given))
		return CLI_EXIT_USAGE;
	if ((long long)s->nr_configs * s->nr_loads * o->iterations > TS_EXP_MAX_RUNS)
		return sim_error("%d configurations x %d loads x %ld iterations: more than %d runs",
				 s->nr_configs, s->nr_loads, o->iterations, TS_EXP_MAX_RUNS);

	int load_rc = cli_load_topology(SIM_CMD, o->machine, NULL, &s->topo);
	if (load_rc)
		return load_rc; /* the loader's whole message */
	if (ts_cost_model_for(s->topo, o->machine, &s->costs, &err))
		return sim_error("--machine '%s': %s", o->machine, err.msg);
	for (int i = 0; i < o->nr_costs; i++) {
		ts_error_clear(&err);
		if (ts_cost_model_set(&s->costs, o->costs[i], &err))
			return sim_error("--cost '%s': %s (see 'toposched machines --costs %s')",
					 o->costs[i], err.msg, s->topo->name);
	}
	if (build_pin(o, s) || build_pin_cpus(o, s))
		return CLI_EXIT_USAGE;
	/* the task bound at the largest load, on the CPUs and nodes the run may use */
	int cpus = 0, nodes = 0;
	for (int n = 0; n < s->topo->nr_nodes; n++) {
		int here = 0;
		for (int c = 0; c < s->topo->nr_cpus; c++)
			if (s->topo->cpu[c].node == n && (!s->pin || ts_cpumask_test(s->pin, c)))
				here++;
		cpus += here;
		nodes += here > 0;
	}
	int max_load = s->loads[s->nr_loads - 1];
	int64_t tasks = ts_workload_nr_tasks(s->workload, cpus, nodes, max_load);
	if (tasks > TS_SIM_MAX_TASKS)
		return sim_error("%s %d: %s makes %lld tasks, more than the limit of %d",
				 o->loads_option ? o->loads_option : "--clients", max_load,
				 s->workload->name, (long long)tasks, TS_SIM_MAX_TASKS);
	return 0;
}

static void free_setup(struct sim_setup *s)
{
	free(s->loads);
	free(s->pin_cpus);
	ts_cpumask_free(s->pin);
	ts_sim_rtapp_free(s->rtapp);
	ts_topology_free(s->topo);
}

/* --dump-groups: the hierarchy for the first load under the first configuration. */
static int dump_groups(const struct sim_setup *s)
{
	struct ts_error err = {0};
	if (ts_groups_spec_dump(&s->groups, s->topo, s->configs[0].features,
				s->configs[0].tg_layout, s->workload, s->loads[0], stdout, &err)) {
		fprintf(stderr, "toposched sim: error: --dump-groups: %s\n", err.msg);
		return 1;
	}
	return cli_flush_stdout("sim");
}

/* The default comparison is NO_SIS_CLUSTER against SIS_CLUSTER: where the domains have no
 * CLS level (sched_cluster_active false: a machine without clusters, or a kernel before
 * v5.16) both run the same scheduler. */
static void warn_no_clusters(const struct sim_opts *o, const struct sim_setup *s,
			     struct cli_warnings *w)
{
	struct ts_domains *d = NULL;
	struct ts_error err = {0};
	struct ts_kernel_profile k = o->kernel.major ? o->kernel : ts_kernel_profile_newest();
	if (o->nr_compare || o->features || ts_domains_build(s->topo, NULL, &d, &err))
		return;
	if (!d->cluster_active)
		cli_warn(w, SIM_CMD,
			 "%s has no cluster level (no CLS domain), so the default comparison, "
			 "NO_SIS_CLUSTER vs SIS_CLUSTER, runs the same scheduler twice; give "
			 "--compare",
			 s->topo->name);
	else if (!k.sched_cluster)
		cli_warn(w, SIM_CMD,
			 "kernel %d.%d builds no cluster level (CONFIG_SCHED_CLUSTER came in "
			 "v5.16), so the default comparison, NO_SIS_CLUSTER vs SIS_CLUSTER, runs "
			 "the same scheduler twice; give --compare",
			 k.major, k.minor);
	ts_domains_free(d);
}

/* --shard: the part holds the runs; the report, its format, the plot are merge's. One
 * run's counters and trace belong to one shard: run that point alone for them (its seed
 * depends only on --seed, the load and the iteration). */
static int check_shard(const struct sim_opts *o, int *shard, int *nr_shards)
{
	if (cli_parse_shard(SIM_CMD, o->shard, shard, nr_shards))
		return CLI_EXIT_USAGE;
	if (o->format_given)
		return sim_error("--shard writes a partial result: give --format to 'toposched "
				 "merge'");
	if (o->plot)
		return sim_error("--shard: draw the plot with 'toposched merge --plot'");
	if (o->schedstat || o->trace)
		return sim_error("--shard with %s: one run's file, run that point alone "
				 "(docs/sim-json.md, \"Shards\")",
				 o->schedstat ? "--schedstat" : "--trace");
	return 0;
}

static int write_report(const struct ts_experiment *e, enum sim_format f, FILE *out)
{
	switch (f) {
	case SIM_CSV:
		return ts_exp_write_csv(e, out);
	case SIM_JSON:
		return ts_exp_write_json(e, out);
	default:
		return ts_exp_write_table(e, out);
	}
}

int cmd_sim(int argc, char **argv)
{
	struct sim_opts o = {
		.machine = CLI_DEFAULT_TOPOLOGY,
		.workload = SIM_DEFAULT_WORKLOAD,
		.iterations = SIM_DEFAULT_ITERATIONS,
		.seed = SIM_DEFAULT_SEED,
		.format = SIM_TABLE,
		.trace_max_mb = CLI_TRACE_DEFAULT_MAX_MB,
	};
	bool help = false;
	/* the defaults go through the parser, so that the help text cannot disagree */
	if (cli_parse_duration(SIM_CMD, "--duration", SIM_DEFAULT_DURATION, 0, &o.duration_ns) ||
	    cli_parse_duration(SIM_CMD, "--warmup", SIM_DEFAULT_WARMUP, CLI_DURATION_ZERO,
			       &o.warmup_ns))
		return CLI_EXIT_USAGE;
	if (parse_args(argc, argv, &o, &help))
		return CLI_EXIT_USAGE;
	const struct ts_workload *named = ts_workload_find(o.workload);
	if (named && !o.duration_given && named->default_duration_ns)
		o.duration_ns = named->default_duration_ns;
	if (named && !o.warmup_given && named->default_warmup_ns)
		o.warmup_ns = named->default_warmup_ns;
	if (help) {
		print_help();
		return 0;
	}
	if (o.list_workloads) {
		list_workloads();
		return cli_flush_stdout("sim");
	}
	if (!o.format_given && o.output) {
		if (cli_path_has_suffix(o.output, ".json"))
			o.format = SIM_JSON;
		else if (cli_path_has_suffix(o.output, ".csv"))
			o.format = SIM_CSV;
	}
	enum ts_plot_format plot_format = TS_PLOT_PNG;
	char gnuplot[PATH_MAX], plot_script[PATH_MAX] = "";
	if (o.plot) {
		if (cli_plot_prepare(SIM_CMD, "--plot", o.plot, &plot_format, gnuplot,
				     sizeof(gnuplot)) ||
		    cli_plot_script_path(SIM_CMD, "--plot", o.plot, plot_script,
					 sizeof(plot_script)))
			return CLI_EXIT_USAGE;
		if (o.output && strcmp(o.output, o.plot) == 0)
			return sim_error("--output and --plot name the same file '%s'", o.plot);
	}
	if (o.schedstat) {
		if (o.output && strcmp(o.output, o.schedstat) == 0)
			return sim_error("--output and --schedstat name the same file '%s'",
					 o.schedstat);
		if (o.plot && strcmp(o.plot, o.schedstat) == 0)
			return sim_error("--plot and --schedstat name the same file '%s'",
					 o.schedstat);
	}

	int shard = 0, nr_shards = 0;
	if (o.shard && check_shard(&o, &shard, &nr_shards))
		return CLI_EXIT_USAGE;
	if ((o.trace_point || o.trace_max_mb != CLI_TRACE_DEFAULT_MAX_MB) && !o.trace)
		return sim_error("--trace-point and --trace-max-mb need --trace FILE");
	const char *const files[] = {o.output ? o.output : "-", o.plot, o.schedstat,
				     plot_script[0] ? plot_script : NULL};
	const char *const file_opts[] = {"--output", "--plot", "--schedstat", "--plot's script"};
	for (int i = 0; plot_script[0] && i < 3; i++)
		if (files[i] && i != 1 && strcmp(files[i], plot_script) == 0)
			return sim_error("%s names the file where --plot keeps its script '%s'",
					 file_opts[i], plot_script);
	for (int i = 0; o.trace && i < 4; i++)
		if (files[i] && strcmp(files[i], o.trace) == 0)
			return sim_error("%s and --trace name the same file '%s'", file_opts[i],
					 o.trace);

	struct sim_setup s = {0};
	int rc = build_setup(&o, &s);
	struct cli_output out = {0}, plot = {0}, plot_gp = {0}, schedstat = {0}, trace = {0};
	if (rc)
		goto done;
	if (s.rtapp && !o.duration_given && s.workload->default_duration_ns) /* its duration */
		o.duration_ns = s.workload->default_duration_ns;
	if (o.dump_groups) { /* task groups: the hierarchy only, nothing run */
		rc = dump_groups(&s);
		goto done;
	}
	struct cli_warnings warnings = {0}; /* a part carries them to merge */
	warn_no_clusters(&o, &s, &warnings);
	if (cli_output_open(&out, SIM_CMD, "--output", o.output) ||
	    (o.plot && (cli_output_open(&plot, SIM_CMD, "--plot", o.plot) ||
			cli_output_open(&plot_gp, SIM_CMD, "--plot", plot_script))) ||
	    (o.schedstat && cli_output_open(&schedstat, SIM_CMD, "--schedstat", o.schedstat)) ||
	    (o.trace && cli_output_open(&trace, SIM_CMD, "--trace", o.trace))) {
		rc = CLI_EXIT_USAGE;
		goto done;
	}

	struct ts_experiment e = {
		.machine = s.topo->name,
		.pin_text = s.pin && !o.cpus ? (o.pin ? o.pin : SIM_DEFAULT_PIN) : NULL,
		.base =
			{
				.topo = s.topo,
				.costs = &s.costs,
				.workload = s.workload,
				.iterations = (int)o.loops,
				.pin = s.pin,
				.pin_cpus = s.pin_cpus,
				.nr_pin_cpus = s.nr_pin_cpus,
				.duration_ns = o.duration_ns,
				.warmup_ns = o.warmup_ns,
				.hz = (unsigned)o.hz,
				.bind = o.bind,
				.no_background = o.no_background,
				.groups = s.has_groups ? &s.groups : NULL,
			},
		.seed = o.seed,
		.configs = s.configs,
		.nr_configs = s.nr_configs,
		.loads = s.loads,
		.nr_loads = s.nr_loads,
		.iterations = (int)o.iterations,
		.jobs = (int)o.jobs,
		.progress = o.quiet ? NULL : stderr,
		.schedstat = o.schedstat ? cli_output_stream(&schedstat) : NULL,
		.trace = o.trace ? cli_output_stream(&trace) : NULL,
		.trace_max_bytes = (uint64_t)o.trace_max_mb << 20,
		.nr_shards = nr_shards,
		.shard = shard,
	};
	if (o.trace && cli_trace_point(SIM_CMD, o.trace_point, &e)) {
		rc = CLI_EXIT_USAGE;
		goto done;
	}
	if (e.nr_configs > 1 && e.iterations < TS_EXP_TTEST_MIN_SAMPLES)
		cli_warn(&warnings, SIM_CMD,
			 "%d iteration: too few samples for the significance test (Welch's "
			 "t-test needs %d or more)",
			 e.iterations, TS_EXP_TTEST_MIN_SAMPLES);
	struct ts_error err = {0};
	if (ts_experiment_run(&e, &err)) {
		fprintf(stderr, "toposched sim: error: %s\n", err.msg);
		rc = 1;
		goto done;
	}
	if (!nr_shards) /* a shard has no points: its runs are summarised at merge */
		cli_warn_thin_percentile(SIM_CMD, &e);
	if (nr_shards ? ts_exp_write_part(&e, cli_shard_version(), warnings.text, warnings.nr,
					  cli_output_stream(&out))
		      : write_report(&e, o.format, cli_output_stream(&out))) {
		fprintf(stderr, "toposched sim: error: writing the report to %s failed: %s\n",
			o.output ? o.output : "stdout", strerror(errno));
		rc = 1;
	}
	if (!rc && o.plot && cli_plot_draw(&plot, &plot_gp, gnuplot, &e, plot_format))
		rc = 1;
	/* all complete: put them in place together, or none */
	struct cli_output *outs[5] = {&out};
	int nr_outs = 1;
	if (o.plot) {
		outs[nr_outs++] = &plot;
		outs[nr_outs++] = &plot_gp;
	}
	if (o.schedstat)
		outs[nr_outs++] = &schedstat;
	if (o.trace)
		outs[nr_outs++] = &trace;
	if (!rc && cli_output_commit_all(outs, nr_outs))
		rc = 1;
	ts_experiment_free(&e);
done:
	cli_output_discard(&out);
	cli_output_discard(&plot);
	cli_output_discard(&plot_gp);
	cli_output_discard(&schedstat);
	cli_output_discard(&trace);
	free_setup(&s);
	return rc;
}
