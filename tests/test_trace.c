/* --trace: the file is read back by a reader of the ftrace text format. Every line must
 * match the kernel's line layout (trace_print_context(): "%16s-%-7d [%03d] FLAGS
 * %5lu.%06lu: EVENT: ARGS") and the regular expression of Perfetto's systrace importer
 * (google/perfetto, src/trace_processor/importers/systrace/systrace_line_tokenizer.cc);
 * the header must count the lines; timestamps never go back (the file is one merged,
 * sorted buffer, per CPU and overall); each sched_switch's prev is the task the previous
 * switch on that CPU put there; a woken task next runs on its sched_wakeup's target_cpu
 * (or where a sched_migrate_task moved it since); and in the default experiment's 1-client
 * point the pair's two tasks run, on node 0's CPUs, as the UI's CPU tracks show them (in
 * one cluster under SIS_CLUSTER). The trace is the same bytes whatever --jobs, and
 * tracing leaves the run's results as they were. A trace past its bound fails the run with a
 * message naming the bound. */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_machine.h"
#include "test_support.h"
#include "toposched/experiment.h"

#define MAX_CPUS 256
#define MAX_PIDS 4096

/* Perfetto's SystraceLineTokenizer, as POSIX ERE: pid, optional tgid, cpu, flags, ts,
 * event name. */
static const char perfetto_line_re[] =
	"-([0-9]+)[[:space:]]+\\(?[[:space:]]*([0-9]+|-+)?\\)?[[:space:]]?\\[([0-9]+)\\][[:space:]]"
	"*"
	"([a-zA-Z.]{3}[0-9a-f.]{1,2}[[:space:]]*)?([0-9]+\\.[0-9]+):[[:space:]]+([^[:space:]]+):";
/* The kernel's layout, column for column: comm right-aligned in 16, '-', pid left-aligned
 * in 7, a space, [CPU] in three digits, the five latency flags, the time in at least 5.6
 * digits, the event and its key=value arguments (sched_switch has its "==>"). */
static const char kernel_line_re[] =
	"^ *[^ ][^ ]*-[0-9]+ +\\[[0-9]{3}\\] [a-zA-Z.]{3}[0-9a-f.]{2} +[0-9]{1,}\\.[0-9]{6}: "
	"(sched_[a-z_]+): ([a-z_]+=[^ ]+)( ([a-z_]+=[^ ]+|==>))*$";

struct event {
	char comm[17];
	int pid, cpu;
	uint64_t us;
	char name[32];
	const char *args;
};

/* The value of key= in args ("" when absent). */
static const char *arg(const char *args, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);
	for (const char *p = args; p && *p;) {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " ");
			snprintf(buf, size, "%.*s", (int)n, p + kl + 1);
			return buf;
		}
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	buf[0] = '\0';
	return buf;
}

static int iarg(const char *args, const char *key)
{
	char buf[32];
	arg(args, key, buf, sizeof(buf));
	assert_true(buf[0] >= '0' && buf[0] <= '9');
	return atoi(buf);
}

static void parse_line(char *line, struct event *ev)
{
	/* the comm is the 16 columns before the '-' of the pid */
	assert_true(strlen(line) > 40);
	assert_int_equal(line[16], '-');
	memcpy(ev->comm, line, 16);
	ev->comm[16] = '\0';
	char *c = ev->comm;
	while (*c == ' ')
		c++;
	memmove(ev->comm, c, strlen(c) + 1);
	unsigned long sec, usec;
	int n = 0;
	assert_int_equal(sscanf(line + 17, "%d [%d] %*5c %lu.%lu: %31[a-z_]: %n", &ev->pid,
				&ev->cpu, &sec, &usec, ev->name, &n),
			 5);
	assert_true(n > 0);
	assert_int_equal(line[25], '['); /* pid in 7 columns and a space */
	ev->us = (uint64_t)sec * 1000000 + usec;
	ev->args = line + 17 + n;
}

struct reader {
	int nr_cpus;
	int curr[MAX_CPUS]; /* pid running on each CPU (0: idle) */
	uint64_t last_us[MAX_CPUS];
	int expect_cpu[MAX_PIDS]; /* where a woken task must run next (-1: no wake-up) */
	uint64_t lines, switches, wakeups, migrations, forks, new_tasks;
	uint64_t runs_on[MAX_PIDS][2]; /* switch-ins of pid on node 0's CPUs / elsewhere */
	uint64_t pair_on[3][MAX_CPUS]; /* switch-ins of pids 1 and 2 by CPU */
	char comm[MAX_PIDS][17];
};

static void check_switch(struct reader *r, const struct event *ev)
{
	int prev = iarg(ev->args, "prev_pid"), next = iarg(ev->args, "next_pid");
	assert_int_equal(prev, r->curr[ev->cpu]);
	assert_int_equal(ev->pid, prev); /* the line's context is the task switched out */
	char state[8];
	arg(ev->args, "prev_state", state, sizeof(state));
	assert_true(!strcmp(state, "R") || !strcmp(state, "R+") || !strcmp(state, "S") ||
		    !strcmp(state, "Z"));
	r->curr[ev->cpu] = next;
	r->switches++;
	if (next == 0)
		return;
	assert_true(next < MAX_PIDS);
	if (r->expect_cpu[next] >= 0)
		assert_int_equal(ev->cpu, r->expect_cpu[next]);
	r->expect_cpu[next] = -1;
	arg(ev->args, "next_comm", r->comm[next], sizeof(r->comm[next]));
	r->runs_on[next][ev->cpu < 32 ? 0 : 1]++;
	if (next <= 2)
		r->pair_on[next][ev->cpu]++;
}

/* Reads text (cut into lines in place) into r. */
static void read_trace(char *text, struct reader *r, int nr_cpus)
{
	regex_t perfetto, kernel;
	assert_int_equal(regcomp(&perfetto, perfetto_line_re, REG_EXTENDED), 0);
	assert_int_equal(regcomp(&kernel, kernel_line_re, REG_EXTENDED), 0);
	memset(r, 0, sizeof(*r));
	r->nr_cpus = nr_cpus;
	for (int i = 0; i < MAX_PIDS; i++)
		r->expect_cpu[i] = -1;
	uint64_t entries = 0, last_us = 0;
	int header = 0;
	char *save;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			if (header++ == 0)
				assert_string_equal(line, "# tracer: nop");
			unsigned long long a, b;
			int p;
			if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d",
				   &a, &b, &p) == 3) {
				assert_int_equal(a, b);
				assert_int_equal(p, nr_cpus);
				entries = a;
			}
			continue;
		}
		assert_int_equal(header, 12); /* the whole header comes first */
		assert_int_equal(regexec(&perfetto, line, 0, NULL, 0), 0);
		if (regexec(&kernel, line, 0, NULL, 0))
			fail_msg("not the kernel's line layout: %s", line);
		struct event ev;
		parse_line(line, &ev);
		assert_true(ev.cpu >= 0 && ev.cpu < nr_cpus);
		assert_true(ev.us >= last_us && ev.us >= r->last_us[ev.cpu]);
		last_us = r->last_us[ev.cpu] = ev.us;
		/* the line's context is the task running on its CPU */
		assert_int_equal(ev.pid, r->curr[ev.cpu]);
		if (ev.pid == 0)
			assert_string_equal(ev.comm, "<idle>");
		r->lines++;
		if (!strcmp(ev.name, "sched_switch")) {
			check_switch(r, &ev);
		} else if (!strcmp(ev.name, "sched_wakeup") ||
			   !strcmp(ev.name, "sched_wakeup_new")) {
			int pid = iarg(ev.args, "pid");
			assert_true(pid > 0 && pid < MAX_PIDS);
			r->expect_cpu[pid] = iarg(ev.args, "target_cpu");
			char reason[32];
			assert_true(arg(ev.args, "reason", reason, sizeof(reason))[0] != '\0');
			iarg(ev.args, "nr_scanned");
			r->wakeups += ev.name[12] == '\0';
			r->new_tasks += ev.name[12] != '\0';
		} else if (!strcmp(ev.name, "sched_migrate_task")) {
			int pid = iarg(ev.args, "pid");
			assert_true(pid > 0 && pid < MAX_PIDS);
			assert_true(iarg(ev.args, "orig_cpu") != iarg(ev.args, "dest_cpu"));
			if (r->expect_cpu[pid] >= 0)
				r->expect_cpu[pid] = iarg(ev.args, "dest_cpu");
			r->migrations++;
		} else if (!strcmp(ev.name, "sched_waking")) {
			iarg(ev.args, "target_cpu");
		} else if (!strcmp(ev.name, "sched_process_fork")) {
			assert_int_equal(iarg(ev.args, "pid"), ev.pid);
			r->forks++;
		} else {
			assert_string_equal(ev.name, "sched_process_exit");
			assert_int_equal(iarg(ev.args, "pid"), ev.pid);
		}
	}
	assert_int_equal(header, 12);
	assert_int_equal(entries, r->lines);
	regfree(&perfetto);
	regfree(&kernel);
}

/* The default experiment (README, tools/toposched/cmd_sim.c): tbench on kunpeng920 pinned
 * to node 0, baseline=NO_SIS_CLUSTER first, seed 1, 100 ms after 50 ms of warm-up. */
struct default_exp {
	struct machine m;
	struct ts_exp_config configs[2];
	int loads[2];
	struct ts_experiment e;
	char *text;
	size_t len;
	FILE *f;
};

static void default_exp_init(struct default_exp *d, int nr_loads, int jobs)
{
	machine_load(&d->m, "kunpeng920");
	const struct ts_workload *w = ts_workload_find("tbench");
	assert_non_null(w);
	struct ts_error err = {0};
	d->configs[0] =
		(struct ts_exp_config){.name = "baseline", .features = ts_features_default()};
	d->configs[1] =
		(struct ts_exp_config){.name = "cluster", .features = ts_features_default()};
	assert_int_equal(ts_features_parse("NO_SIS_CLUSTER", &d->configs[0].features, &err), 0);
	assert_int_equal(ts_features_parse("SIS_CLUSTER", &d->configs[1].features, &err), 0);
	d->loads[0] = 1;
	d->loads[1] = 2;
	struct ts_sim_config base = sim_config(&d->m, w, 1);
	base.pin = d->m.node0;
	base.duration_ns = 100000000;
	base.warmup_ns = 50000000;
	base.max_events = 0;
	d->text = NULL;
	d->len = 0;
	d->f = open_memstream(&d->text, &d->len);
	assert_non_null(d->f);
	d->e = (struct ts_experiment){
		.base = base,
		.seed = 1,
		.configs = d->configs,
		.nr_configs = 2,
		.loads = d->loads,
		.nr_loads = nr_loads,
		.iterations = 1,
		.jobs = jobs,
		.trace = d->f,
	};
}

static void default_exp_free(struct default_exp *d)
{
	ts_experiment_free(&d->e);
	free(d->text);
	machine_free(&d->m);
}

static void test_default_point_parsed_back(void **state)
{
	(void)state;
	struct default_exp d;
	default_exp_init(&d, 1, 1);
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&d.e, &err), 0);
	fclose(d.f);

	struct reader *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	read_trace(d.text, r, d.m.topo->nr_cpus);
	/* the launcher forks the client, the listener its server: pids 1 and 2 */
	assert_true(r->forks >= 2 && r->new_tasks >= 4);
	assert_string_equal(r->comm[1], "client");
	assert_string_equal(r->comm[2], "server");
	/* a ping-pong pair: each message a wake-up, each a switch in and out */
	assert_true(r->wakeups > 1000 && r->switches > 2 * r->wakeups - 100);
	for (int pid = 1; pid <= 2; pid++) {
		assert_true(r->runs_on[pid][0] > 1000);
		assert_int_equal(r->runs_on[pid][1], 0); /* --pin 0: node 0's CPUs 0-31 */
	}
	free(r);
	default_exp_free(&d);
}

static int busiest_cpu(const uint64_t *on, int nr_cpus)
{
	int best = 0;
	for (int c = 1; c < nr_cpus; c++)
		if (on[c] > on[best])
			best = c;
	return best;
}

/* The point of the default experiment, seen in the trace: with SIS_CLUSTER the wake-ups
 * bring the pair into one cluster (a cluster_scan placement), where it stays. */
static void test_cluster_config_pair_shares_a_cluster(void **state)
{
	(void)state;
	struct default_exp d;
	default_exp_init(&d, 1, 1);
	d.e.trace_config = 1; /* cluster=SIS_CLUSTER */
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&d.e, &err), 0);
	fclose(d.f);
	assert_non_null(strstr(d.text, "reason=cluster_scan"));
	struct reader *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	read_trace(d.text, r, d.m.topo->nr_cpus);
	int a = busiest_cpu(r->pair_on[1], d.m.topo->nr_cpus);
	int b = busiest_cpu(r->pair_on[2], d.m.topo->nr_cpus);
	assert_int_not_equal(a, b);
	assert_int_equal(d.m.topo->cpu[a].cluster, d.m.topo->cpu[b].cluster);
	assert_true(r->pair_on[1][a] > 1000 && r->pair_on[2][b] > 1000);
	free(r);
	default_exp_free(&d);
}

/* hackbench: forks, exits, and tasks the load balancer and the wake-ups move */
static void test_hackbench_forks_exits_migrations(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	const struct ts_workload *w = ts_workload_find("hackbench");
	assert_non_null(w);
	struct ts_sim_config cfg = sim_config(&m, w, 1);
	cfg.pin = m.node0;
	cfg.iterations = 20;
	cfg.duration_ns = 0;
	char *text = NULL;
	size_t len = 0;
	sim_run_ok_traced(&cfg, &text, &len);
	struct reader *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	assert_non_null(strstr(text, "sched_process_exit: comm=sender"));
	assert_non_null(strstr(text, "prev_state=Z ==>"));
	read_trace(text, r, m.topo->nr_cpus); /* cuts text into lines */
	assert_true(r->forks >= 40 && r->migrations > 0);
	free(r);
	free(text);
	machine_free(&m);
}

static void test_same_bytes_any_jobs_and_results_untouched(void **state)
{
	(void)state;
	struct default_exp a, b, plain;
	default_exp_init(&a, 2, 1);
	default_exp_init(&b, 2, 2);
	default_exp_init(&plain, 2, 2);
	/* the second configuration's second load, iteration 1 */
	a.e.trace_config = b.e.trace_config = 1;
	a.e.trace_load = b.e.trace_load = 1;
	plain.e.trace = NULL;
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&a.e, &err), 0);
	assert_int_equal(ts_experiment_run(&b.e, &err), 0);
	assert_int_equal(ts_experiment_run(&plain.e, &err), 0);
	fclose(a.f);
	fclose(b.f);
	fclose(plain.f);
	assert_true(a.len > 100000);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.text, b.text, a.len);
	assert_int_equal(plain.len, 0);
	assert_non_null(strstr(a.text, "prev_comm=client"));
	for (int p = 0; p < 4; p++) {
		const struct ts_exp_point *x = &a.e.points[p], *y = &plain.e.points[p];
		assert_int_equal(x->n, y->n);
		assert_memory_equal(x->samples, y->samples, sizeof(double) * (size_t)x->n);
		assert_int_equal(x->stats.events, y->stats.events);
		assert_int_equal(x->stats.wakeups, y->stats.wakeups);
	}
	default_exp_free(&a);
	default_exp_free(&b);
	default_exp_free(&plain);
}

static void test_bound_fails_the_run(void **state)
{
	(void)state;
	struct default_exp d;
	default_exp_init(&d, 1, 1);
	d.e.trace_max_bytes = 1 << 20;
	struct ts_error err = {0};
	assert_int_equal(ts_experiment_run(&d.e, &err), -EFBIG);
	assert_non_null(strstr(err.msg, "passed its bound of 1 MiB"));
	assert_non_null(strstr(err.msg, "--trace-max-mb"));
	fclose(d.f);
	assert_int_equal(d.len, 0); /* nothing written */
	default_exp_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_point_parsed_back),
		cmocka_unit_test(test_cluster_config_pair_shares_a_cluster),
		cmocka_unit_test(test_hackbench_forks_exits_migrations),
		cmocka_unit_test(test_same_bytes_any_jobs_and_results_untouched),
		cmocka_unit_test(test_bound_fails_the_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
