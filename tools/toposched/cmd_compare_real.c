/* toposched compare-real: one rt-app file in both hosts, the simulator checked against the
 * runtime on the machine we have. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_compare_real.h"
#include "cmd_run.h"

static const char compare_help[] =
	"usage: toposched compare-real FILE.json [--duration T] [--features STR]\n"
	"                              [--no-preempt] [--format text|json] [--output FILE]\n"
	"                              [--trace FILE]\n"
	"\n"
	"Runs an rt-app workload file twice: in the simulator on --topology host (this\n"
	"machine's topology, the generic cost model, seed 1) and in the runtime on this\n"
	"machine's workers ('toposched run'), for the same duration, and prints both side by\n"
	"side with the difference of the simulator from the runtime: loops per second of\n"
	"each task, wake-up latency p50 and p99, migrations per second (relative, %), and\n"
	"the shares of the placement reasons and of the wake-ups by relation (percentage\n"
	"points). The file must run in both hosts: what either refuses (a fork for ever, a\n"
	"policy other than SCHED_OTHER, ...) is refused before anything runs\n"
	"(docs/compare-real.md).\n"
	"\n"
	"  --duration T    measure T in each host (with a unit: 500ms, 2s) instead of the\n"
	"                  file's global.duration\n"
	"  --features STR  the scheduler features of both hosts (as 'toposched features')\n"
	"  --no-preempt    the runtime schedules cooperatively (the simulator always\n"
	"                  preempts, as the kernel does)\n"
	"  --format F      text (default) or json: {file, topology, cpus, duration_s,\n"
	"                  runtime, simulator, difference} (docs/compare-real.md)\n"
	"  --output FILE   write to FILE instead of standard output\n"
	"  --trace FILE    write the runtime's scheduling events to FILE, as 'toposched run\n"
	"                  --trace' does (the simulator's side: 'toposched sim --trace')\n"
	"\n"
	"Exit status: 0, 2 for bad input or a file one host refuses (nothing run), 1 when a\n"
	"run fails.\n";

/* The simulator relative to the runtime, %; NAN when the runtime's figure is 0 or
 * either is missing (negative). */
static double rel_diff(double real, double sim)
{
	if (real <= 0 || sim < 0)
		return NAN;
	return 100.0 * (sim - real) / real;
}

/* The share of counter i in each host's total, and the difference in points. */
struct share {
	double real, sim, diff; /* -1 / NAN when a host has no total */
};

static struct share share_of(const uint64_t *real, const uint64_t *sim, int n, int i)
{
	uint64_t tr = 0, ts = 0;
	for (int k = 0; k < n; k++) {
		tr += real[k];
		ts += sim[k];
	}
	struct share s = {run_share(real[i], tr), run_share(sim[i], ts), NAN};
	if (s.real >= 0 && s.sim >= 0)
		s.diff = s.sim - s.real;
	return s;
}

/* The loops of the class named like runtime class i in the simulator's result, -1. */
static double sim_loops_per_s(const struct run_result *sim, const char *name)
{
	for (int i = 0; i < sim->nr_classes; i++)
		if (strcmp(sim->classes[i].name, name) == 0)
			return run_loops_per_s(sim, i);
	return -1;
}

static void text_row(FILE *f, const char *what, double real, double sim, const char *unit)
{
	double d =
		unit[0] == 'p' ? (real >= 0 && sim >= 0 ? sim - real : NAN) : rel_diff(real, sim);
	char rs[32] = "-", ss[32] = "-", ds[32] = "n/a";
	if (real >= 0)
		snprintf(rs, sizeof(rs), "%.1f", real);
	if (sim >= 0)
		snprintf(ss, sizeof(ss), "%.1f", sim);
	if (!isnan(d))
		snprintf(ds, sizeof(ds), "%+.1f %s", d, unit);
	fprintf(f, "%-30s %12s %12s %12s\n", what, rs, ss, ds);
}

static const int compared_lat[] = {0, 2}; /* p50, p99 */

static void print_text(FILE *f, const struct run_file *rf, const struct rx_info *info,
		       const struct run_result *real, const struct run_result *sim)
{
	fprintf(f,
		"toposched compare-real: %s on host (%d CPUs), %.3f s runtime / %.3f s "
		"simulated; runtime preemption %s, %.2f ns per loop\n",
		rf->r->file, real->nr_cpus, real->seconds, sim->seconds,
		info->preempt ? "on" : "off", info->ns_per_loop);
	fprintf(f, "%-30s %12s %12s %12s\n", "", "runtime", "simulator", "sim - real");
	char what[64];
	for (int i = 0; i < real->nr_classes; i++) {
		snprintf(what, sizeof(what), "loops/s %s", real->classes[i].name);
		text_row(f, what, run_loops_per_s(real, i),
			 sim_loops_per_s(sim, real->classes[i].name), "%");
	}
	for (size_t k = 0; k < sizeof(compared_lat) / sizeof(compared_lat[0]); k++) {
		int i = compared_lat[k];
		snprintf(what, sizeof(what), "wake-up latency %s us", run_lat_name(i));
		text_row(f, what, real->lat_samples ? real->lat_us[i] : -1,
			 sim->lat_samples ? sim->lat_us[i] : -1, "%");
	}
	text_row(f, "CPU busy, % of the machine", run_share_of_machine(real),
		 run_share_of_machine(sim), "pp");
	text_row(f, "host steal, % of the machine", run_steal_share(real), run_steal_share(sim),
		 "pp");
	text_row(f, "migrations/s", run_migrations_per_s(real), run_migrations_per_s(sim), "%");
	text_row(f, "wake-ups/s", real->seconds > 0 ? (double)real->wakeups / real->seconds : 0,
		 sim->seconds > 0 ? (double)sim->wakeups / sim->seconds : 0, "%");
	fputs("placement reasons, % of placements:\n", f);
	for (int i = 0; i < TS_PLACE_NR; i++) {
		if (!real->reasons[i] && !sim->reasons[i])
			continue;
		struct share s = share_of(real->reasons, sim->reasons, TS_PLACE_NR, i);
		snprintf(what, sizeof(what), "  %s", run_reason_name(i));
		text_row(f, what, s.real, s.sim, "pp");
	}
	fputs("wake-ups by relation, % of wake-ups:\n", f);
	for (int i = 0; i < TS_REL_NR; i++) {
		if (!real->by_relation[i] && !sim->by_relation[i])
			continue;
		struct share s = share_of(real->by_relation, sim->by_relation, TS_REL_NR, i);
		snprintf(what, sizeof(what), "  %s", run_relation_name(i));
		text_row(f, what, s.real, s.sim, "pp");
	}
}

static void json_number(struct ts_json_writer *w, const char *key, double v)
{
	if (isnan(v))
		ts_json_member_null(w, key);
	else
		ts_json_member_double(w, key, v);
}

static void json_shares(struct ts_json_writer *w, const char *key, const uint64_t *real,
			const uint64_t *sim, int n, const char *(*name)(int))
{
	ts_json_key(w, key);
	ts_json_begin_object(w);
	for (int i = 0; i < n; i++)
		json_number(w, name(i), share_of(real, sim, n, i).diff);
	ts_json_end_object(w);
}

static void json_host(struct ts_json_writer *w, const char *key, const struct run_result *r)
{
	ts_json_key(w, key);
	ts_json_begin_object(w);
	run_result_json(w, r);
	ts_json_end_object(w);
}

static int print_json(FILE *f, const struct run_file *rf, const struct rx_info *info,
		      const struct run_result *real, const struct run_result *sim)
{
	struct ts_json_writer w;
	ts_json_init(&w, f, CLI_JSON_PRECISION);
	ts_json_begin_object(&w);
	ts_json_member_string(&w, "file", rf->r->file);
	ts_json_member_string(&w, "topology", "host");
	ts_json_member_int(&w, "cpus", real->nr_cpus);
	ts_json_member_double(&w, "duration_s", (double)info->duration_ns / 1e9);
	ts_json_member_bool(&w, "preempt", info->preempt);
	ts_json_member_double(&w, "ns_per_loop", info->ns_per_loop);
	json_host(&w, "runtime", real);
	json_host(&w, "simulator", sim);
	ts_json_key(&w, "difference");
	ts_json_begin_object(&w);
	ts_json_key(&w, "loops_per_s_pct");
	ts_json_begin_object(&w);
	for (int i = 0; i < real->nr_classes; i++)
		json_number(&w, real->classes[i].name,
			    rel_diff(run_loops_per_s(real, i),
				     sim_loops_per_s(sim, real->classes[i].name)));
	ts_json_end_object(&w);
	ts_json_key(&w, "wakeup_latency_pct");
	ts_json_begin_object(&w);
	for (size_t k = 0; k < sizeof(compared_lat) / sizeof(compared_lat[0]); k++) {
		int i = compared_lat[k];
		json_number(&w, run_lat_name(i),
			    rel_diff(real->lat_samples ? real->lat_us[i] : -1,
				     sim->lat_samples ? sim->lat_us[i] : -1));
	}
	ts_json_end_object(&w);
	json_number(&w, "cpu_busy_pp", run_share_of_machine(sim) - run_share_of_machine(real));
	json_number(&w, "migrations_per_s_pct",
		    rel_diff(run_migrations_per_s(real), run_migrations_per_s(sim)));
	json_shares(&w, "reasons_pp", real->reasons, sim->reasons, TS_PLACE_NR, run_reason_name);
	json_shares(&w, "wakeups_by_relation_pp", real->by_relation, sim->by_relation, TS_REL_NR,
		    run_relation_name);
	ts_json_end_object(&w);
	return ts_json_end_object(&w);
}

static int print_both(FILE *out, bool json, const struct run_file *f, const struct rx_info *info,
		      const struct run_result *real, const void *sim)
{
	if (json)
		return print_json(out, f, info, real, sim);
	print_text(out, f, info, real, sim);
	return 0;
}

int cmd_compare_real(int argc, char **argv)
{
	const char *cmd = "compare-real";
	struct run_args a;
	struct run_file f;
	bool done;
	if (run_setup(cmd, compare_help, argc, argv, &a, &f, &done) || done)
		return done ? 0 : CLI_EXIT_USAGE;
	/* the simulator first: a file it refuses costs no real time */
	struct run_result sim;
	struct ts_error err = {0};
	int rc = crs_run(f.r, a.features, f.duration_ns, &sim, &err);
	if (rc) {
		run_file_close(&f);
		if (rc == -EINVAL)
			return cli_error(cmd, "the simulator: %s", err.msg);
		fprintf(stderr, "toposched %s: error: the simulator: %s\n", cmd, err.msg);
		return CLI_EXIT_FAILURE;
	}
	rc = run_and_report(cmd, &a, &f, print_both, &sim);
	crs_free(&sim);
	run_file_close(&f);
	return rc;
}
