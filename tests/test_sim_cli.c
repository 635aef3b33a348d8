/* toposched sim as a user sees it: bad input of every class (exit 2, one error line
 * naming the input, nothing on stdout, no output file and no temporary file left), the
 * atomic --output and --plot (a failing plot leaves neither file), and tiny end-to-end
 * sweeps on the real engine (JSON shape, determinism whatever --jobs, seeds). */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_support.h"

static char tmpdir[256]; /* the runner's stdout/stderr files */
static char outdir[300]; /* where --output/--plot files go; must stay empty on failure */

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
/* a sweep small enough for Debug and sanitizer builds */
#define TINY                                                                                       \
	"--clients", "1,2", "--iterations", "2", "--duration", "2ms", "--warmup", "1ms", "--quiet"

static struct run run_cli(const char *const *args)
{
	return ts_run_cli(tmpdir, args, 300);
}

/* Entries of outdir other than . and .. */
static int outdir_entries(char *names, size_t size)
{
	DIR *d = opendir(outdir);
	assert_non_null(d);
	int n = 0;
	names[0] = '\0';
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		size_t len = strlen(names);
		snprintf(names + len, size - len, " %s", de->d_name);
	}
	closedir(d);
	return n;
}

static void clear_outdir(void)
{
	DIR *d = opendir(outdir);
	assert_non_null(d);
	struct dirent *de;
	char path[600];
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", outdir, de->d_name);
		unlink(path);
	}
	closedir(d);
}

static void print_args(const char *const *args)
{
	print_message("toposched");
	for (int i = 0; args[i]; i++)
		print_message(" '%s'", args[i]);
	print_message("\n");
}

/* Exit 2, empty stdout, exactly one "toposched sim: error:" line containing every word,
 * and nothing in outdir. */
static void expect_error_v(const char *const *args, const char *const *words)
{
	struct run r = run_cli(args);
	bool ok = r.status == 2 && r.out[0] == '\0' &&
		  strncmp(r.err, "toposched sim: error: ", 22) == 0 && count_lines(r.err) == 1 &&
		  count_substr(r.err, "error:") == 1;
	for (int i = 0; ok && words[i]; i++)
		ok = strstr(r.err, words[i]) != NULL;
	char names[512];
	int left = outdir_entries(names, sizeof(names));
	if (!ok || left) {
		print_args(args);
		print_message("want exit 2, one error line with:");
		for (int i = 0; words[i]; i++)
			print_message(" [%s]", words[i]);
		print_message("\ngot exit %d, stdout %zu bytes, stderr: %s\nleft in outdir:%s\n",
			      r.status, strlen(r.out), r.err, names);
		run_free(&r);
		clear_outdir();
		fail();
	}
	run_free(&r);
}
#define EXPECT_ERROR(args, ...) expect_error_v(args, (const char *const[]){__VA_ARGS__, NULL})

static void expect_ok(struct run *r, const char *const *args)
{
	if (r->status != 0 || r->err[0]) {
		print_args(args);
		print_message("exit %d, stderr: %s\n", r->status, r->err);
		run_free(r);
		fail();
	}
}

static char out_json[400], out_svg[400], fakebin[400], saved_path[4096];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_sim_cli.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(outdir, sizeof(outdir), "%s/out", tmpdir);
	snprintf(fakebin, sizeof(fakebin), "%s/bin", tmpdir);
	if (mkdir(outdir, 0700) || mkdir(fakebin, 0700))
		return -1;
	snprintf(out_json, sizeof(out_json), "%s/r.json", outdir);
	snprintf(out_svg, sizeof(out_svg), "%s/r.svg", outdir);
	const char *p = getenv("PATH");
	snprintf(saved_path, sizeof(saved_path), "%s", p ? p : "/usr/bin:/bin");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	clear_outdir();
	char path[600];
	snprintf(path, sizeof(path), "%s/gnuplot", fakebin);
	unlink(path);
	rmdir(outdir);
	rmdir(fakebin);
	snprintf(path, sizeof(path), "%s/stdout", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	setenv("PATH", saved_path, 1);
	return 0;
}

/* ---- bad input, one case per class, each with --output (which must not appear) ---- */

static void test_error_machine_workload_feature(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", "--machine", "no-such-machine", "--output", out_json),
		     "no-such-machine");
	EXPECT_ERROR(ARGS("sim", "--workload", "tbnech", "--output", out_json), "--workload",
		     "tbnech", "unknown workload", "tbench");
	EXPECT_ERROR(ARGS("sim", "--features", "SIS_CLUSTR", "--output", out_json), "--features",
		     "SIS_CLUSTR");
	EXPECT_ERROR(ARGS("sim", "--compare", "a=SIS_PROP", "b=SIS_BOGUS", "--output", out_json),
		     "--compare", "b=SIS_BOGUS", "SIS_BOGUS");
}

static void test_error_compare(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", "--compare", "SIS_PROP", "--output", out_json), "--compare",
		     "SIS_PROP", "NAME=FEATURES");
	EXPECT_ERROR(ARGS("sim", "--compare", "=SIS_PROP", "--output", out_json), "--compare",
		     "name");
	EXPECT_ERROR(ARGS("sim", "--compare", "a b=SIS_PROP", "--output", out_json), "--compare",
		     "name");
	EXPECT_ERROR(ARGS("sim", "--compare", "a=SIS_PROP", "a=NO_SIS_PROP", "--output", out_json),
		     "--compare", "'a'", "twice");
	/* a stray argument that is not after --compare */
	EXPECT_ERROR(ARGS("sim", "--quiet", "cluster=SIS_CLUSTER", "--output", out_json),
		     "unexpected argument", "cluster=SIS_CLUSTER");
}

static void test_error_loads(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", "--clients", "1,,2", "--output", out_json), "--clients", "empty");
	EXPECT_ERROR(ARGS("sim", "--clients", "", "--output", out_json), "--clients", "empty");
	EXPECT_ERROR(ARGS("sim", "--clients", "abc", "--output", out_json), "--clients", "abc");
	EXPECT_ERROR(ARGS("sim", "--clients", "0", "--output", out_json), "--clients", "between 1");
	EXPECT_ERROR(ARGS("sim", "--clients", "-3", "--output", out_json), "--clients");
	EXPECT_ERROR(ARGS("sim", "--clients", "8-2", "--output", out_json), "--clients", "8-2",
		     "downwards");
	EXPECT_ERROR(ARGS("sim", "--clients", "4..", "--output", out_json), "--clients", "4..");
	EXPECT_ERROR(ARGS("sim", "--clients", "1", "--groups", "2", "--output", out_json),
		     "--clients", "--groups", "once");
	/* more tasks than TS_SIM_MAX_TASKS: 2000 groups x 40 hackbench tasks */
	EXPECT_ERROR(
		ARGS("sim", "--workload", "hackbench", "--groups", "1,2000", "--output", out_json),
		"--groups", "2000", "tasks", "65536");
	EXPECT_ERROR(ARGS("sim", "--clients", "100000", "--output", out_json), "--clients",
		     "100000");
}

static void test_error_durations_and_numbers(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", "--duration", "0ms", "--output", out_json), "--duration", "0ms",
		     "positive");
	EXPECT_ERROR(ARGS("sim", "--duration", "0", "--output", out_json), "--duration");
	EXPECT_ERROR(ARGS("sim", "--duration", "-5ms", "--output", out_json), "--duration", "-5ms",
		     "positive");
	EXPECT_ERROR(ARGS("sim", "--duration", "200", "--output", out_json), "--duration", "200",
		     "unit");
	EXPECT_ERROR(ARGS("sim", "--duration", "5parsecs", "--output", out_json), "--duration",
		     "unknown unit");
	EXPECT_ERROR(ARGS("sim", "--duration", "1.2.3s", "--output", out_json), "--duration",
		     "1.2.3s");
	EXPECT_ERROR(ARGS("sim", "--duration", "99999s", "--output", out_json), "--duration",
		     "limit");
	EXPECT_ERROR(ARGS("sim", "--warmup", "-1ms", "--output", out_json), "--warmup", "-1ms");
	EXPECT_ERROR(ARGS("sim", "--iterations", "0", "--output", out_json), "--iterations");
	EXPECT_ERROR(ARGS("sim", "--iterations", "x", "--output", out_json), "--iterations");
	EXPECT_ERROR(ARGS("sim", "--seed", "-1", "--output", out_json), "--seed", "-1");
	EXPECT_ERROR(ARGS("sim", "--seed", "99999999999999999999999", "--output", out_json),
		     "--seed");
	EXPECT_ERROR(ARGS("sim", "--jobs", "0", "--output", out_json), "--jobs");
	EXPECT_ERROR(ARGS("sim", "--hz", "0", "--output", out_json), "--hz");
}

static void test_error_cost_pin_format_options(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", "--cost", "c2c.llc", "--output", out_json), "--cost", "c2c.llc");
	EXPECT_ERROR(ARGS("sim", "--cost", "no.such=5", "--output", out_json), "--cost",
		     "no.such=5");
	EXPECT_ERROR(ARGS("sim", "--cost", "c2c.llc=-5", "--output", out_json), "--cost",
		     "c2c.llc=-5");
	EXPECT_ERROR(ARGS("sim", "--pin", "9", "--output", out_json), "--pin", "'9'");
	EXPECT_ERROR(ARGS("sim", "--pin", "0-", "--output", out_json), "--pin", "0-");
	EXPECT_ERROR(ARGS("sim", "--pin-cpus", "0,x", "--output", out_json), "--pin-cpus", "0,x");
	EXPECT_ERROR(ARGS("sim", "--pin-cpus", "0,", "--output", out_json), "--pin-cpus");
	EXPECT_ERROR(ARGS("sim", "--pin-cpus", "0,128", "--output", out_json), "--pin-cpus",
		     "CPU 128");
	EXPECT_ERROR(ARGS("sim", "--pin-cpus", "0,40", "--output", out_json), "--pin-cpus",
		     "outside the --pin nodes");
	EXPECT_ERROR(ARGS("sim", "--cpus", "0-3", "--pin", "0", "--output", out_json), "--cpus",
		     "--pin", "give one");
	EXPECT_ERROR(ARGS("sim", "--cpus", "200", "--output", out_json), "--cpus", "CPU 200");
	EXPECT_ERROR(ARGS("sim", "--cpus", "0-x", "--output", out_json), "--cpus", "0-x");
	EXPECT_ERROR(ARGS("sim", "--cpus", "", "--output", out_json), "--cpus", "no CPU");
	EXPECT_ERROR(ARGS("sim", "--cpus", "0-3", "--pin-cpus", "0,5", "--output", out_json),
		     "--pin-cpus", "CPU 5", "outside --cpus '0-3'");
	EXPECT_ERROR(ARGS("sim", "--format", "xml", "--output", out_json), "--format", "xml");
	EXPECT_ERROR(ARGS("sim", "--plot", "x.pdf", "--output", out_json), "--plot", "x.pdf",
		     ".png");
	EXPECT_ERROR(ARGS("sim", "--bogus", "--output", out_json), "unknown option", "--bogus");
	EXPECT_ERROR(ARGS("sim", "--workload", "numa02", "--bind", "both", "--output", out_json),
		     "--bind", "'both'");
	EXPECT_ERROR(ARGS("sim", "--bind", "hard", "--output", out_json), "--bind", "tbench");
	EXPECT_ERROR(ARGS("sim", "--workload", "numa02", "--cost", "numa.hint_fault=-1", "--output",
			  out_json),
		     "--cost", "numa.hint_fault=-1");
	EXPECT_ERROR(ARGS("sim", "--output", out_json, "--seed"), "--seed", "needs a value");
	char path[500];
	snprintf(path, sizeof(path), "%s/no/such/dir/r.json", outdir);
	EXPECT_ERROR(ARGS("sim", TINY, "--output", path), "--output", "no/such/dir");
	EXPECT_ERROR(ARGS("sim", TINY, "--output", outdir), "--output", "directory");
}

/* ---- good input ---- */

static void test_help_and_list(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("sim", "--help"));
	expect_ok(&r, ARGS("sim", "--help"));
	const char *const words[] = {
		"--machine",	"--workload", "--clients", "--compare",	       "--features",
		"--iterations", "--duration", "--warmup",  "--seed",	       "--pin-cpus",
		"--cpus",	"--cost",     "--hz",	   "--jobs",	       "--format",
		"--output",	"--plot",     "--quiet",   "--list-workloads", "NO_SIS_CLUSTER",
		"kunpeng920",	"100ms",      "--bind",	   "inverse"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strstr(r.out, words[i]))
			fail_msg("help lacks %s", words[i]);
	run_free(&r);
	r = run_cli(ARGS("sim", "--list-workloads"));
	expect_ok(&r, ARGS("sim", "--list-workloads"));
	const char *const wl[] = {
		"tbench", "netperf-tcp-rr",	 "netperf-udp-rr", "hackbench",	 "schbench", "pipe",
		"numa01", "numa01-thread-alloc", "numa02",	   "numa02-smt", "specjbb"};
	for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++)
		if (!strstr(r.out, wl[i]))
			fail_msg("--list-workloads lacks %s", wl[i]);
	run_free(&r);
	r = run_cli(ARGS("--help"));
	assert_non_null(strstr(r.out, "sim"));
	run_free(&r);
}

static void test_json_end_to_end(void **state)
{
	(void)state;
	const char *const *args = ARGS("sim", TINY, "--format", "json", "--jobs", "1");
	struct run a = run_cli(args);
	expect_ok(&a, args);
	const char *const keys[] = {"\"machine\": \"kunpeng920\"",
				    "\"workload\": \"tbench\"",
				    "\"metric\":",
				    "\"unit\":",
				    "\"higher_is_better\": true",
				    "\"seed\": 1",
				    "\"configs\": [",
				    "\"name\": \"baseline\"",
				    "\"features\": \"NO_SIS_CLUSTER\"",
				    "\"name\": \"cluster\"",
				    "\"cpus\": \"0-31\"",
				    "\"groups_spec\": null"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(a.out, keys[i]))
			fail_msg("JSON lacks %s", keys[i]);
	const char *const per_point[] = {"\"load\":",
					 "\"samples\": [",
					 "\"hmean\":",
					 "\"amean\":",
					 "\"stddev\":",
					 "\"stats\": {",
					 "\"sis_search\":",
					 "\"sis_domain_search\":",
					 "\"sis_scanned\":",
					 "\"sis_failed\":",
					 "\"search_efficiency\":",
					 "\"domain_search_efficiency\":",
					 "\"success_rate\":",
					 "\"scanned_per_wakeup\":",
					 "\"reasons\": {",
					 "\"wakeups_by_relation\": {",
					 "\"migrations\":",
					 "\"task_groups\": null"};
	for (size_t i = 0; i < sizeof(per_point) / sizeof(per_point[0]); i++)
		if (count_substr(a.out, per_point[i]) != 4)
			fail_msg("JSON has %d x %s, want 4", count_substr(a.out, per_point[i]),
				 per_point[i]);
	/* the same with 2 jobs: byte-identical */
	const char *const *args2 = ARGS("sim", TINY, "--format", "json", "--jobs", "2");
	struct run b = run_cli(args2);
	expect_ok(&b, args2);
	assert_string_equal(a.out, b.out);
	run_free(&b);
	/* another seed: other samples */
	const char *const *args3 = ARGS("sim", TINY, "--format", "json", "--seed", "2");
	struct run c = run_cli(args3);
	expect_ok(&c, args3);
	assert_non_null(strstr(c.out, "\"seed\": 2"));
	const char *sa = strstr(a.out, "\"samples\""), *sc = strstr(c.out, "\"samples\"");
	assert_true(strncmp(sa, sc, 80) != 0);
	run_free(&c);
	run_free(&a);
}

static void test_output_file_atomic(void **state)
{
	(void)state;
	clear_outdir();
	/* the extension selects the format; the file holds what stdout would */
	const char *const *args = ARGS("sim", TINY, "--output", out_json);
	struct run r = run_cli(args);
	expect_ok(&r, args);
	assert_string_equal(r.out, "");
	run_free(&r);
	char *file = slurp(out_json, NULL);
	assert_int_equal(file[0], '{');
	const char *const *args2 = ARGS("sim", TINY, "--format", "json");
	r = run_cli(args2);
	expect_ok(&r, args2);
	assert_string_equal(file, r.out);
	run_free(&r);
	free(file);
	/* an existing file is replaced; no temporary file stays */
	const char *const *args3 = ARGS("sim", TINY, "--format", "csv", "--output", out_json);
	r = run_cli(args3);
	expect_ok(&r, args3);
	run_free(&r);
	file = slurp(out_json, NULL);
	assert_int_equal(strncmp(file, "config,features,clients,", 24), 0);
	free(file);
	char names[512];
	assert_int_equal(outdir_entries(names, sizeof(names)), 1);
	clear_outdir();
}

static void write_fake_gnuplot(const char *body)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/gnuplot", fakebin);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	char p[8192];
	snprintf(p, sizeof(p), "%s:%s", fakebin, saved_path);
	setenv("PATH", p, 1);
}

static void test_plot_failure_leaves_no_file(void **state)
{
	(void)state;
	clear_outdir();
	/* gnuplot fails after the report was complete: neither file may appear */
	write_fake_gnuplot("cat >/dev/null; echo 'line 3: something broke' >&2; exit 1");
	const char *const *args = ARGS("sim", TINY, "--output", out_json, "--plot", out_svg);
	struct run r = run_cli(args);
	char names[512];
	int left = outdir_entries(names, sizeof(names));
	if (r.status != 1 || !strstr(r.err, "gnuplot failed") ||
	    !strstr(r.err, "something broke") || left) {
		print_message("exit %d, stderr: %s\nleft:%s\n", r.status, r.err, names);
		run_free(&r);
		clear_outdir();
		setenv("PATH", saved_path, 1);
		fail();
	}
	run_free(&r);
	/* no gnuplot at all: bad input, found before anything runs */
	setenv("PATH", "/nonexistent", 1);
	EXPECT_ERROR(ARGS("sim", TINY, "--output", out_json, "--plot", out_svg), "--plot",
		     "gnuplot");
	setenv("PATH", saved_path, 1);
}

static void test_plot_svg(void **state)
{
	(void)state;
	clear_outdir();
	setenv("PATH", saved_path, 1);
	char gp[4096];
	bool have = false;
	for (char *p = saved_path, *end; p && *p; p = end ? end + 1 : NULL) {
		end = strchr(p, ':');
		snprintf(gp, sizeof(gp), "%.*s/gnuplot", end ? (int)(end - p) : (int)strlen(p), p);
		if (access(gp, X_OK) == 0) {
			have = true;
			break;
		}
	}
	if (!have)
		skip();
	const char *const *args = ARGS("sim", TINY, "--output", out_json, "--plot", out_svg);
	struct run r = run_cli(args);
	expect_ok(&r, args);
	run_free(&r);
	char *svg = slurp(out_svg, NULL);
	assert_non_null(strstr(svg, "<svg"));
	assert_non_null(strstr(svg, "baseline"));
	assert_non_null(strstr(svg, "cluster"));
	assert_non_null(strstr(svg, "% change against baseline"));
	free(svg);
	/* the script is kept next to the image and draws it again from that directory */
	char gp_path[420];
	snprintf(gp_path, sizeof(gp_path), "%s.gp", out_svg);
	char *script = slurp(gp_path, NULL);
	assert_non_null(strstr(script, "set output 'r.svg'\n"));
	assert_non_null(strstr(script, "set multiplot"));
	free(script);
	char names[512];
	assert_int_equal(outdir_entries(names, sizeof(names)), 3);
	clear_outdir();
}

/* A file where --plot keeps its script that toposched did not write is never replaced:
 * exit 2 before anything runs, the file as it was, nothing else written. */
static void test_plot_keeps_foreign_script(void **state)
{
	(void)state;
	clear_outdir();
	write_fake_gnuplot("cat >/dev/null; exit 0");
	char gp_path[420];
	snprintf(gp_path, sizeof(gp_path), "%s.gp", out_svg);
	FILE *f = fopen(gp_path, "w");
	assert_non_null(f);
	fputs("plot sin(x)\n", f);
	fclose(f);
	struct run r = run_cli(ARGS("sim", TINY, "--output", out_json, "--plot", out_svg));
	char *gp = slurp(gp_path, NULL);
	char names[512];
	int left = outdir_entries(names, sizeof(names));
	bool ok = r.status == 2 && strstr(r.err, "--plot") && strstr(r.err, "did not write it") &&
		  strcmp(gp, "plot sin(x)\n") == 0 && left == 1;
	if (!ok)
		print_message("exit %d, stderr: %s\nleft:%s\n", r.status, r.err, names);
	free(gp);
	run_free(&r);
	clear_outdir();
	setenv("PATH", saved_path, 1);
	assert_true(ok);
}

/* One iteration cannot be tested for significance: stderr says so, the table too. */
static void test_one_iteration_warns(void **state)
{
	(void)state;
	const char *const *args = ARGS("sim", TINY, "--iterations", "1", "--compare",
				       "a=", "--compare", "b=NO_SIS_UTIL SIS_PROP");
	struct run r = run_cli(args);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "warning: 1 iteration: too few samples"));
	assert_non_null(strstr(r.out, "no '*': Welch's t-test needs 2 or more iterations"));
	run_free(&r);
}

/* --cpus: every task runs on the listed CPUs only (the schedstat run time of every other
 * CPU is 0 without the background kernel work, which runs everywhere), and the reports say
 * so. */
static void test_cpus_restricts_the_run(void **state)
{
	(void)state;
	clear_outdir();
	char ss[420];
	snprintf(ss, sizeof(ss), "%s/ss.txt", outdir);
	const char *const *args = ARGS("sim", TINY, "--cpus", "4-7,12", "--no-background",
				       "--schedstat", ss, "--output", out_json);
	struct run r = run_cli(args);
	assert_int_equal(r.status, 0);
	run_free(&r);
	char *json = slurp(out_json, NULL);
	assert_non_null(strstr(json, "\"nodes\": null,\n    \"cpus\": \"4-7,12\""));
	free(json);
	char *text = slurp(ss, NULL);
	int busy = 0;
	for (char *line = strstr(text, "\ncpu"); line; line = strstr(line + 1, "\ncpu")) {
		int cpu;
		unsigned long long f[7];
		assert_int_equal(sscanf(line + 1, "cpu%d %llu %llu %llu %llu %llu %llu %llu", &cpu,
					&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]),
				 8);
		if (f[6] == 0) /* rq_cpu_time */
			continue;
		busy++;
		if (!((cpu >= 4 && cpu <= 7) || cpu == 12))
			fail_msg("CPU %d ran outside --cpus 4-7,12", cpu);
	}
	assert_true(busy >= 2); /* 2 clients: 4 tasks */
	free(text);
	clear_outdir();
	args = ARGS("sim", TINY, "--cpus", "4-7,12");
	r = run_cli(args);
	expect_ok(&r, args);
	assert_non_null(strstr(r.out, "pinned to CPUs 4-7,12, seed"));
	run_free(&r);
}

/* schbench's p99 of a short run rests on a handful of wake-ups: stderr says so and names
 * a window long enough; a long enough run and a workload without a percentile metric do
 * not warn. */
static void test_thin_percentile_warns(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS("sim", TINY, "--workload", "schbench"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "warning: schbench's p99 wake-up latency rests on fewer "
				      "than 1000 wake-ups"));
	assert_non_null(strstr(r.err, "baseline at 1 ("));
	assert_non_null(strstr(r.err, "gives every point a stable p99"));
	run_free(&r);
	r = run_cli(ARGS("sim", TINY));
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "p99"));
	run_free(&r);
}

static void test_table_end_to_end(void **state)
{
	(void)state;
	const char *const *args = ARGS("sim", TINY, "--workload", "netperf-tcp-rr", "--compare",
				       "sis_util=", "sis_prop=NO_SIS_UTIL SIS_PROP", "--pin", "0-1",
				       "--cost", "c2c.llc=40");
	struct run r = run_cli(args);
	expect_ok(&r, args);
	const char *const words[] = {"netperf-tcp-rr on kunpeng920",
				     "pinned to nodes 0-1",
				     "CPUs 0-63",
				     "Min      1",
				     "Hmean    1",
				     "Hmean    2",
				     "Stddev   1",
				     "CoeffVar 1",
				     "Max      2",
				     "sis_util",
				     "sis_prop",
				     "SIS search",
				     "SIS domain search eff. %",
				     "SIS success rate %",
				     "wake-up to cluster",
				     "migrations",
				     "CPU utilisation %"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strstr(r.out, words[i]))
			fail_msg("table lacks [%s]:\n%s", words[i], r.out);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_machine_workload_feature),
		cmocka_unit_test(test_error_compare),
		cmocka_unit_test(test_error_loads),
		cmocka_unit_test(test_error_durations_and_numbers),
		cmocka_unit_test(test_error_cost_pin_format_options),
		cmocka_unit_test(test_help_and_list),
		cmocka_unit_test(test_json_end_to_end),
		cmocka_unit_test(test_output_file_atomic),
		cmocka_unit_test(test_plot_failure_leaves_no_file),
		cmocka_unit_test(test_plot_svg),
		cmocka_unit_test(test_plot_keeps_foreign_script),
		cmocka_unit_test(test_cpus_restricts_the_run),
		cmocka_unit_test(test_thin_percentile_warns),
		cmocka_unit_test(test_table_end_to_end),
		cmocka_unit_test(test_one_iteration_warns),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
