/* toposched run: an rt-app workload file's threads as tasks of the runtime, on this
 * machine's workers (cmd_run_exec.h). */
#include "cmd_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "toposched/features.h"

static const char run_help[] =
	"usage: toposched run FILE.json [--duration T] [--features STR] [--no-preempt]\n"
	"                     [--format text|json] [--output FILE] [--trace FILE]\n"
	"\n"
	"Runs the threads of an rt-app workload file (docs/workloads.md, \"rt-app files\") as\n"
	"tasks of libtoposched, one worker per CPU of this machine, and prints what the\n"
	"runtime did: loops done per task (a loop is one pass over a phase's events) and per\n"
	"second, the wake-up latency of timer and sleep events (p50, p90, p99, p99.9: from\n"
	"the instant the thread should have woken to the instant it runs, rt-app's wu_lat),\n"
	"migrations, and the core's placement reasons and wake-ups by relation of the waker's\n"
	"CPU to the chosen one, all over the measured time (from the start barrier's release).\n"
	"\"run\" is calibrated busy work: the file's global.calibration, a number of ns per\n"
	"loop or \"CPUn\" (rt-app's loop is measured once on CPU n). Policies other than\n"
	"SCHED_OTHER, attribute changes between phases and timers shared by several threads\n"
	"are refused (docs/runtime.md, \"rt-app files in the runtime\").\n"
	"\n"
	"  --duration T    stop after T (with a unit: 500ms, 2s) instead of the file's\n"
	"                  global.duration; a file whose threads all end runs until they\n"
	"                  do, at most 60 s\n"
	"  --features STR  the runtime's scheduler features (as 'toposched features')\n"
	"  --no-preempt    cooperative scheduling: a task keeps its worker until it blocks,\n"
	"                  yields or ends (default: preemption at slice expiry, at the\n"
	"                  preemption points of the busy work, as the kernel would preempt)\n"
	"  --format F      text (default) or json: one object with the file, the runtime's\n"
	"                  settings and the figures (docs/runtime.md)\n"
	"  --output FILE   write to FILE instead of standard output\n"
	"  --trace FILE    write the run's scheduling events to FILE in the ftrace text\n"
	"                  format of 'toposched sim --trace' (docs/trace.md), which the\n"
	"                  Perfetto UI opens; the environment's TOPOSCHED_TRACE does the\n"
	"                  same for any program of the runtime\n"
	"\n"
	"Exit status: 0, 2 for bad input (nothing run), 1 when the run fails.\n";

static int parse_args(const char *cmd, const char *help, int argc, char **argv, struct run_args *a,
		      bool *done)
{
	static const struct option longopts[] = {
		{"duration", required_argument, NULL, 'd'},
		{"features", required_argument, NULL, 'F'},
		{"no-preempt", no_argument, NULL, 'P'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"trace", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*a = (struct run_args){.format = CLI_FORMAT_TEXT};
	*done = false;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":d:F:Pf:o:t:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (cli_parse_duration(cmd, "--duration", optarg, 0, &a->duration_ns))
				return CLI_EXIT_USAGE;
			break;
		case 'F': {
			struct ts_features f = ts_features_default();
			struct ts_error err = {0};
			if (ts_features_parse(optarg, &f, &err))
				return cli_error(cmd, "--features: %s", err.msg);
			a->features = optarg;
			break;
		}
		case 'P':
			a->no_preempt = true;
			break;
		case 'f':
			if (cli_parse_format(cmd, optarg, &a->format))
				return CLI_EXIT_USAGE;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 't':
			a->trace = optarg;
			break;
		case 'h':
			fputs(help, stdout);
			*done = true;
			return 0;
		default:
			return cli_getopt_error(cmd, opt, argv);
		}
	}
	if (optind >= argc)
		return cli_error(cmd, "no workload file (toposched %s FILE.json)", cmd);
	a->file = argv[optind];
	if (optind + 1 < argc)
		return cli_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	return 0;
}

static int file_open(const char *cmd, const struct run_args *a, struct run_file *f)
{
	struct ts_error err = {0};
	if (ts_rtapp_load(a->file, &f->r, &err))
		return cli_error(cmd, "%s", err.msg);
	for (int i = 0; i < f->r->nr_warnings; i++)
		fprintf(stderr, "toposched %s: warning: %s\n", cmd, f->r->warnings[i]);
	if (rx_plan_build(f->r, &f->plan, &err)) {
		run_file_close(f);
		return cli_error(cmd, "%s", err.msg);
	}
	f->duration_ns = rx_plan_duration_ns(f->plan, a->duration_ns, &f->finite);
	if (!f->finite && !a->duration_ns && f->r->global.duration_s <= 0) {
		run_file_close(f);
		return cli_error(cmd,
				 "%s: threads loop for ever (\"loop\": -1) and global.duration "
				 "is not set: give --duration",
				 a->file);
	}
	return 0;
}

int run_setup(const char *cmd, const char *help, int argc, char **argv, struct run_args *a,
	      struct run_file *f, bool *done)
{
	*f = (struct run_file){0};
	if (parse_args(cmd, help, argc, argv, a, done))
		return CLI_EXIT_USAGE;
	return *done ? 0 : file_open(cmd, a, f);
}

void run_file_close(struct run_file *f)
{
	rx_plan_free(f->plan);
	ts_rtapp_free(f->r);
	*f = (struct run_file){0};
}

int run_and_report(const char *cmd, const struct run_args *a, const struct run_file *f,
		   run_print_fn print, const void *ctx)
{
	struct cli_output out;
	if (cli_output_open(&out, cmd, "--output", a->output))
		return CLI_EXIT_USAGE;
	struct rx_config cfg = {.duration_ns = a->duration_ns,
				.features = a->features,
				.no_preempt = a->no_preempt,
				.trace = a->trace};
	struct ts_error err = {0};
	struct run_result r;
	struct rx_info info;
	int rc = rx_run(f->plan, &cfg, &r, &info, &err);
	if (rc) {
		cli_output_discard(&out);
		if (rc == -EINVAL)
			return cli_error(cmd, "%s", err.msg);
		fprintf(stderr, "toposched %s: error: %s\n", cmd, err.msg);
		return CLI_EXIT_FAILURE;
	}
	bool json = a->format == CLI_FORMAT_JSON;
	int doc = print(cli_output_stream(&out), json, f, &info, &r, ctx);
	if (json && !doc) /* a blank line after the document, as both commands print it */
		fputc('\n', cli_output_stream(&out));
	rx_result_free(&r);
	return cli_output_commit_doc(&out, doc);
}

static void print_text(FILE *out, const struct run_file *f, const struct rx_info *info,
		       const struct run_result *r)
{
	fprintf(out, "toposched run: %s, %d thread%s on %d worker%s, preemption %s\n", f->r->file,
		f->plan->threads, f->plan->threads == 1 ? "" : "s", info->workers,
		info->workers == 1 ? "" : "s", info->preempt ? "on" : "off");
	fprintf(out, "  %-22s %.2f ns (%s)\n", "run: ns per loop", info->ns_per_loop,
		info->calibrated ? "calibrated here" : "the file's global.calibration");
	run_result_text(out, r);
}

static int print_json(FILE *out, const struct run_file *f, const struct rx_info *info,
		      const struct run_result *r)
{
	struct ts_json_writer w;
	ts_json_init(&w, out, CLI_JSON_PRECISION);
	ts_json_begin_object(&w);
	ts_json_member_string(&w, "file", f->r->file);
	ts_json_member_int(&w, "threads", f->plan->threads);
	ts_json_member_int(&w, "workers", info->workers);
	ts_json_member_bool(&w, "preempt", info->preempt);
	ts_json_member_double(&w, "ns_per_loop", info->ns_per_loop);
	ts_json_member_bool(&w, "calibrated", info->calibrated);
	ts_json_member_double(&w, "duration_s", (double)info->duration_ns / 1e9);
	run_result_json(&w, r);
	return ts_json_end_object(&w);
}

static int print_run(FILE *out, bool json, const struct run_file *f, const struct rx_info *info,
		     const struct run_result *r, const void *ctx)
{
	(void)ctx;
	if (json)
		return print_json(out, f, info, r);
	print_text(out, f, info, r);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	const char *cmd = "run";
	struct run_args a;
	struct run_file f;
	bool done;
	if (run_setup(cmd, run_help, argc, argv, &a, &f, &done) || done)
		return done ? 0 : CLI_EXIT_USAGE;
	int rc = run_and_report(cmd, &a, &f, print_run, NULL);
	run_file_close(&f);
	return rc;
}
