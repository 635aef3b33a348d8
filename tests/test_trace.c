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
#include "trace_reader.h"

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
