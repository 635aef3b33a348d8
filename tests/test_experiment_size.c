/* Sizing a sweep before it runs: the default --jobs bounded by memory as well as CPUs
 * (issue 12, item 8), MemAvailable read from a meminfo file, and the note announcing a
 * long sweep (--duration 3600s at 128 clients was accepted silently). Nothing is timed:
 * the estimates are functions of the sweep's inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/experiment.h"
#include "toposched/sim.h"
#include "toposched/topology.h"

#include "test_support.h"

static void test_run_bytes_grow_with_the_machine(void **state)
{
	(void)state;
	uint64_t small = ts_experiment_run_bytes(128, 256);
	uint64_t big = ts_experiment_run_bytes(8192, 256);
	/* the 8192-CPU run measured 644 MB above a 4-CPU one */
	assert_true(big > 600ull << 20 && big < 800ull << 20);
	assert_true(small < 1ull << 20);
	assert_true(ts_experiment_run_bytes(4096, 0) * 4 == ts_experiment_run_bytes(8192, 0));
	assert_true(ts_experiment_run_bytes(4, 8192) > ts_experiment_run_bytes(4, 128));
}

static void test_default_jobs_bounded_by_memory(void **state)
{
	(void)state;
	const uint64_t mib = 1ull << 20, per_run = ts_experiment_run_bytes(8192, 0);
	/* memory for plenty: one per CPU */
	assert_int_equal(ts_experiment_default_jobs(16, 64 * 1024 * mib, 10 * mib), 16);
	/* 4 GiB at ~700 MiB a run: 5, not 32 */
	assert_int_equal(ts_experiment_default_jobs(32, 4096 * mib, per_run), 5);
	/* never none, even when one run does not fit */
	assert_int_equal(ts_experiment_default_jobs(32, 100 * mib, per_run), 1);
	/* MemAvailable unknown: CPUs only, within TS_EXP_MAX_JOBS */
	assert_int_equal(ts_experiment_default_jobs(8, 0, per_run), 8);
	assert_int_equal(ts_experiment_default_jobs(5000, 0, 0), TS_EXP_MAX_JOBS);
	assert_int_equal(ts_experiment_default_jobs(-1, 0, 0), 1);
}

static void test_meminfo_available(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/meminfo", ts_tmpdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("MemTotal:       16318412 kB\nMemFree:         1224040 kB\n"
	      "MemAvailable:    9587652 kB\nBuffers:          421376 kB\n",
	      f);
	assert_int_equal(fclose(f), 0);
	assert_true(ts_meminfo_available(path) == 9587652ull * 1024);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("MemTotal:       16318412 kB\nMemFree:         1224040 kB\n", f);
	assert_int_equal(fclose(f), 0);
	assert_true(ts_meminfo_available(path) == 0); /* kernels before 3.14 */
	unlink(path);
	assert_true(ts_meminfo_available(path) == 0);
}

/* tbench on kunpeng920 at one load, 2 configurations x 3 iterations */
struct sweep {
	struct ts_topology *topo;
	struct ts_exp_config configs[2];
	int load;
	struct ts_experiment e;
};

static void sweep_init(struct sweep *s, const char *workload, int load, uint64_t duration_ns)
{
	memset(s, 0, sizeof(*s));
	struct ts_error err = {0};
	s->topo = ts_preset_find("kunpeng920")->build(&err);
	assert_non_null(s->topo);
	snprintf(s->configs[0].name, sizeof(s->configs[0].name), "a");
	snprintf(s->configs[1].name, sizeof(s->configs[1].name), "b");
	s->load = load;
	s->e.base.topo = s->topo;
	s->e.base.workload = ts_workload_find(workload);
	assert_non_null(s->e.base.workload);
	s->e.base.duration_ns = duration_ns;
	s->e.base.warmup_ns = 50000000;
	s->e.configs = s->configs;
	s->e.nr_configs = 2;
	s->e.loads = &s->load;
	s->e.nr_loads = 1;
	s->e.iterations = 3;
}

static void test_long_sweep_note(void **state)
{
	(void)state;
	struct sweep s;
	char note[320];
	/* --duration 3600s at 128 clients: 6 runs of 256 tasks for an hour each */
	sweep_init(&s, "tbench", 128, 3600ull * 1000000000);
	assert_true(ts_experiment_long_note(&s.e, 2, note, sizeof(note)));
	assert_non_null(strstr(note, "6 runs of 3600.05 s simulated, up to 256 tasks"));
	assert_non_null(strstr(note, "on 2 workers: about "));
	assert_non_null(strstr(note, " hours"));
	/* more workers shorten it, but never below the longest run */
	double cpu_s = ts_experiment_cpu_seconds(&s.e);
	assert_true(cpu_s > 6 * 3600);
	assert_true(ts_experiment_long_note(&s.e, 1000, note, sizeof(note)));
	assert_non_null(strstr(note, "on 6 workers"));
	/* twice the simulated time, twice the estimate */
	s.e.base.duration_ns = 2 * 3600ull * 1000000000 + 50000000;
	assert_near(ts_experiment_cpu_seconds(&s.e), 2 * cpu_s, 1e-9 * cpu_s);
	ts_topology_free(s.topo);

	/* the default 100 ms: short, no note */
	sweep_init(&s, "tbench", 128, 100000000);
	assert_false(ts_experiment_long_note(&s.e, 2, note, sizeof(note)));
	assert_string_equal(note, "");
	ts_topology_free(s.topo);

	/* a workload that runs to completion: its length is not the duration's */
	sweep_init(&s, "hackbench", 16, 3600ull * 1000000000);
	assert_true(ts_experiment_cpu_seconds(&s.e) == 0);
	assert_false(ts_experiment_long_note(&s.e, 2, note, sizeof(note)));
	ts_topology_free(s.topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_bytes_grow_with_the_machine),
		cmocka_unit_test(test_default_jobs_bounded_by_memory),
		cmocka_unit_test(test_meminfo_available),
		cmocka_unit_test(test_long_sweep_note),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
