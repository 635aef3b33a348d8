/* The runtime on a virtual machine: the kunpeng920 preset (2 packages x 2 nodes x 8
 * clusters x 4 cores) with three of its nodes' first clusters scheduled, mapped onto the
 * real CPUs (several workers per core). Placement reasons, SIS counters and wake-ups by
 * relationship must be produced and consistent with each other and with the runtime's
 * own counts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/runtime_core.h"

#define NR_PAIRS 12
#define ROUNDS	 300

struct pair {
	struct ts_chan *req, *resp;
	int rounds;
};

static void *server(void *arg)
{
	struct pair *p = arg;
	int v;
	while (ts_chan_recv(p->req, &v) == 0)
		if (ts_chan_send(p->resp, &v))
			return (void *)1;
	return NULL;
}

static void *client(void *arg)
{
	struct pair *p = arg;
	for (int i = 0; i < p->rounds; i++) {
		int v = i, back = -1;
		if (ts_chan_send_sync(p->req, &v) || ts_chan_recv(p->resp, &back) || back != i)
			return (void *)1;
		if (i % 50 == 0 && ts_sleep_ns(20000))
			return (void *)2;
	}
	ts_chan_close(p->req);
	return NULL;
}

static void *node_task(void *arg)
{
	int node = (int)(intptr_t)arg;
	struct ts_sched *s = ts_rt_sched();
	for (int i = 0; i < 20; i++) {
		if (s->topo->cpu[ts_self_cpu()].node != node)
			return (void *)1;
		ts_sleep_ns(5000);
	}
	return NULL;
}

static void test_kunpeng_statistics(void **state)
{
	(void)state;
	/* node 0: CPUs 0-31, node 1: 32-63, node 2 (other package): 64-95 */
	struct ts_rt_config cfg = {.topology = "kunpeng920", .cpulist = "0-7,32-39,64-71"};
	int rc = ts_rt_start(&cfg);
	if (rc)
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
	struct ts_sched *s = ts_rt_sched();
	assert_non_null(s);
	assert_int_equal(s->nr_cpus, 128);
	assert_int_equal(ts_rt_nr_workers(), 24);

	struct pair p[NR_PAIRS];
	ts_task_handle h[2 * NR_PAIRS];
	for (int i = 0; i < NR_PAIRS; i++) {
		p[i] = (struct pair){ts_chan_create(0, sizeof(int)), ts_chan_create(0, sizeof(int)),
				     ROUNDS};
		h[2 * i] = ts_spawn(server, &p[i], NULL);
		h[2 * i + 1] = ts_spawn(client, &p[i], NULL);
	}
	ts_task_handle n[6];
	for (int i = 0; i < 6; i++) {
		struct ts_task_attr a = TS_TASK_ATTR_INIT;
		a.node = (i % 3) == 2 ? 2 : i % 3;
		n[i] = ts_spawn(node_task, (void *)(intptr_t)a.node, &a);
		assert_true(n[i].id != 0);
	}
	for (int i = 0; i < 2 * NR_PAIRS; i++) {
		void *ret;
		assert_int_equal(ts_join(h[i], &ret), 0);
		assert_null(ret);
	}
	for (int i = 0; i < 6; i++) {
		void *ret;
		assert_int_equal(ts_join(n[i], &ret), 0);
		assert_null(ret);
	}

	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	uint64_t ttwu = 0, local = 0, reasons = 0, by_rel = 0, sis_search = 0, sis_scanned = 0,
		 affine_attempts = 0, affine = 0, forks = 0;
	uint64_t per_reason[TS_PLACE_NR] = {0};
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct ts_cpu_stats *cs = &ts_cpu_rq(s, c)->stats;
		bool scheduled = ts_cpumask_test(s->dom->cpu_map, c);
		uint64_t t = ts_stat_read(&cs->ttwu_count);
		if (!scheduled)
			assert_int_equal(t, 0);
		ttwu += t;
		local += ts_stat_read(&cs->ttwu_local);
		assert_true(ts_stat_read(&cs->ttwu_local) <= t);
		uint64_t rel = 0;
		for (int r = 0; r < TS_REL_NR; r++)
			rel += ts_stat_read(&cs->wakeups_by_relation[r]);
		assert_int_equal(rel, t); /* one relation per wake-up, per waker CPU */
		by_rel += rel;
		for (int r = 0; r < TS_PLACE_NR; r++) {
			per_reason[r] += ts_stat_read(&cs->reasons[r]);
			reasons += ts_stat_read(&cs->reasons[r]);
		}
		forks += ts_stat_read(&cs->fork_exec_placements);
		sis_search += ts_stat_read(&cs->sis_search);
		sis_scanned += ts_stat_read(&cs->sis_scanned);
		affine_attempts += ts_stat_read(&cs->wake_affine_attempts);
		affine += ts_stat_read(&cs->wake_affine);
		assert_true(ts_stat_read(&cs->sis_failed) <= ts_stat_read(&cs->sis_search));
		assert_true(ts_stat_read(&cs->sis_scanned) >= ts_stat_read(&cs->sis_search));
	}
	/* Every wake-up has one placement reason; spawns are fork placements. */
	assert_true(ttwu > 0);
	assert_int_equal(ttwu, st.wakeups);
	assert_int_equal(reasons, ttwu);
	assert_int_equal(forks, st.spawned);
	assert_int_equal(st.spawned, 2 * NR_PAIRS + 6);
	assert_int_equal(by_rel, ttwu);
	assert_true(local <= ttwu);
	assert_true(sis_search > 0 && sis_search <= ttwu);
	assert_true(affine <= affine_attempts);
	/* Wake-ups never take the fork slow path (no SD_BALANCE_WAKE level). */
	assert_int_equal(per_reason[TS_PLACE_SLOW_PATH], 0);
	print_message("    ttwu %llu (local %llu), spawns %llu, sis_search %llu scanned %llu, "
		      "affine %llu/%llu, early %llu deferred %llu\n",
		      (unsigned long long)ttwu, (unsigned long long)local,
		      (unsigned long long)st.spawned, (unsigned long long)sis_search,
		      (unsigned long long)sis_scanned, (unsigned long long)affine,
		      (unsigned long long)affine_attempts, (unsigned long long)st.early_wakeups,
		      (unsigned long long)st.deferred_wakeups);
	for (int r = 0; r < TS_PLACE_NR; r++)
		if (per_reason[r])
			print_message("      %-18s %llu\n",
				      ts_place_reason_name((enum ts_place_reason)r),
				      (unsigned long long)per_reason[r]);
	/* Tasks went where the core put them: migrations are counted on arrival. */
	uint64_t migrations = 0;
	for (int c = 0; c < s->nr_cpus; c++)
		migrations += ts_stat_read(&ts_cpu_rq(s, c)->stats.migrations);
	print_message("      migrations %llu\n", (unsigned long long)migrations);

	for (int i = 0; i < NR_PAIRS; i++) {
		ts_chan_destroy(p[i].req);
		ts_chan_destroy(p[i].resp);
	}
	assert_int_equal(ts_rt_stop(), 0);
}

static void test_more_workers_than_cores(void **state)
{
	(void)state;
	/* every CPU of the preset: 128 workers on the real CPUs */
	struct ts_rt_config cfg = {.topology = "kunpeng920", .idle_spin = -1};
	assert_int_equal(ts_rt_start(&cfg), 0);
	assert_int_equal(ts_rt_nr_workers(), 128);
	struct pair p = {ts_chan_create(1, sizeof(int)), ts_chan_create(1, sizeof(int)), 100};
	ts_task_handle a = ts_spawn(server, &p, NULL), b = ts_spawn(client, &p, NULL);
	assert_int_equal(ts_join(a, NULL), 0);
	assert_int_equal(ts_join(b, NULL), 0);
	ts_chan_destroy(p.req);
	ts_chan_destroy(p.resp);
	assert_int_equal(ts_rt_stop(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kunpeng_statistics),
		cmocka_unit_test(test_more_workers_than_cores),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
