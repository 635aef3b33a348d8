/* The machine before the run has been up: every CPU went idle at some moment, so its
 * rq->idle_stamp is set, and sched_balance_find_dst_group_cpu() sends a fork to the CPU of
 * its cluster that went idle last (tests/test_fork_placement.c). The simulator draws that
 * history per seed (engine_start.c, seed_idle_history()). Seen in the trace of tbench with
 * one client on Kunpeng 920 node 0: the launcher's first child still goes to another
 * cluster than the launcher's, but where in that cluster depends on the seed; with every
 * stamp 0 (no history) it was always the cluster's first CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_machine.h"

/* target_cpu of the first sched_wakeup_new of comm in the trace of tbench, 1 client, seed. */
static int first_fork_cpu(struct machine *m, uint64_t seed, const char *comm, int *launcher)
{
	const struct ts_workload *w = ts_workload_find("tbench");
	assert_non_null(w);
	struct ts_sim_config cfg = sim_config(m, w, 1);
	cfg.pin = m->node0;
	cfg.seed = seed;
	char *text = NULL;
	size_t len = 0;
	sim_run_ok_traced(&cfg, &text, &len);
	char key[64];
	snprintf(key, sizeof(key), "sched_wakeup_new: comm=%s ", comm);
	const char *line = strstr(text, key);
	assert_non_null(line);
	const char *t = strstr(line, "target_cpu=");
	assert_non_null(t);
	int cpu = atoi(t + strlen("target_cpu="));
	const char *l = strstr(text, "sched_wakeup_new: comm=launcher ");
	assert_non_null(l);
	*launcher = atoi(strstr(l, "target_cpu=") + strlen("target_cpu="));
	free(text);
	return cpu;
}

static void test_the_first_client_lands_where_the_idle_history_says(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	int in_cluster[4] = {0}, again, launcher;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		int cpu = first_fork_cpu(&m, seed, "client", &launcher);
		assert_true(cpu >= 0 && cpu < 32);
		assert_int_not_equal(cpu / 4, launcher / 4); /* fork balancing: another cluster */
		in_cluster[cpu % 4]++;
		if (seed == 1) /* the same seed draws the same history */
			assert_int_equal(first_fork_cpu(&m, 1, "client", &again), cpu);
	}
	int positions = 0;
	for (int i = 0; i < 4; i++)
		positions += in_cluster[i] > 0;
	assert_true(positions >= 2);
	machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_first_client_lands_where_the_idle_history_says),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
