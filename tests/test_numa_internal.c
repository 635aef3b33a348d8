/* NUMA balancing's internal rules that no sequential call of the public API reaches,
 * tested on the static functions themselves: this file compiles src/core/numa_migrate.c into
 * the test (the library's numa_migrate.o is then never linked: every symbol it defines is
 * already defined here).
 *
 * task_numa_assign() finding its candidate CPU already reserved happens only when another
 * search reserves it between this search's update_numa_stats()/task_numa_compare() checks
 * and its xchg(): a race. Here the flag is set by hand before the call. The formulas of
 * numa_classify(), load_too_imbalanced() and adjust_numa_imbalance() are checked at their
 * boundaries with hand numbers. */
#include "../src/core/numa_migrate.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "numa_env.h"

/* 4 nodes x 4 CPUs, distance 20 (NUMA_DIRECT); CPU i on node i / 4. */
struct wb {
	struct fake_host f;
	struct ts_topology *t;
	struct ts_sched *s;
	struct ts_task p, busy;
};

static void wb_open(struct wb *w, const char *features)
{
	memset(w, 0, sizeof(*w));
	struct ts_error err = {0};
	w->t = grid_topology(4, 4, "10 20 20 20; 20 10 20 20; 20 20 10 20; 20 20 20 10");
	w->s = fake_sched(&w->f, w->t, features);
	assert_non_null(w->s);
	/* p on CPU 0; `busy` makes CPU 6 non-idle */
	assert_int_equal(ts_task_init(w->s, &w->p, 0, NULL, 0, &err), 0);
	fake_run_on(w->s, &w->f, &w->p, 0);
	assert_int_equal(ts_task_init(w->s, &w->busy, 0, NULL, 6, &err), 0);
	w->busy.id = 1;
	fake_run_on(w->s, &w->f, &w->busy, 6);
}

static void wb_close(struct wb *w)
{
	assert_int_equal(w->f.lock_errors, 0);
	ts_task_destroy(&w->p);
	ts_task_destroy(&w->busy);
	ts_sched_destroy(w->s);
	ts_topology_free(w->t);
}

/* The env of a search by p (CPU 0) towards node 1, as task_numa_migrate() sets it up. */
static struct task_numa_env wb_env(struct wb *w)
{
	return (struct task_numa_env){
		.s = w->s,
		.p = &w->p,
		.src_cpu = 0,
		.src_nid = 0,
		.dst_nid = 1,
		.best_cpu = -1,
		.reserve = ts_features_has(w->s->features, TS_FEAT_NUMA_RESERVE),
		.st = &w->s->rq[0].numa_stats,
	};
}

/* A candidate as task_numa_compare() offers it: dst_cpu, then task_numa_assign() with the
 * task to swap with (NULL: a move) and the improvement. */
static void offer(struct task_numa_env *env, int cpu, struct ts_task *task, long imp)
{
	env->dst_cpu = cpu;
	task_numa_assign(env, task, imp);
}

static int flag(struct wb *w, int cpu)
{
	return atomic_load(&w->s->rq[cpu].ro.numa_migrate_on);
}

static void set_flag(struct wb *w, int cpu, int v)
{
	atomic_store(&w->s->rq[cpu].ro.numa_migrate_on, v);
}

/* A candidate taken by xchg() when it becomes the best; the previous best released
 * (WRITE_ONCE 0) when a better one replaces it; re-assigning the best CPU itself does not
 * touch the flag. */
static void test_assign_takes_and_releases(void **state)
{
	(void)state;
	struct wb w;
	wb_open(&w, "");
	struct task_numa_env env = wb_env(&w);
	offer(&env, 4, NULL, 10);
	assert_int_equal(env.best_cpu, 4);
	assert_int_equal(env.best_imp, 10);
	assert_int_equal(flag(&w, 4), 1);
	offer(&env, 5, &w.busy, 50);
	assert_int_equal(env.best_cpu, 5);
	assert_ptr_equal(env.best_task, &w.busy);
	assert_int_equal(flag(&w, 4), 0);
	assert_int_equal(flag(&w, 5), 1);
	/* the best again, with a better task: no xchg (the flag is ours), no conflict */
	offer(&env, 5, NULL, 60);
	assert_int_equal(env.best_cpu, 5);
	assert_null(env.best_task);
	assert_int_equal(flag(&w, 5), 1);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflicts), 0);
	set_flag(&w, 5, 0);
	wb_close(&w);
}

/* The candidate was reserved by another migration in the meantime: the node's CPUs are
 * tried from dst_cpu + 1, wrapping, skipping the current best, CPUs that are not idle and
 * CPUs p may not use; the first one whose xchg() finds it free becomes the best
 * (reserve_conflict_alt) and the previous best is released. CPU 5 reserved elsewhere,
 * CPU 6 busy, CPU 7 free. */
static void test_assign_conflict_alternative(void **state)
{
	(void)state;
	struct wb w;
	wb_open(&w, "");
	struct task_numa_env env = wb_env(&w);
	offer(&env, 4, NULL, 10); /* our best so far: CPU 4 */
	set_flag(&w, 5, 1);	  /* another search's */
	offer(&env, 5, NULL, 20);
	assert_int_equal(env.best_cpu, 7);
	assert_int_equal(env.dst_cpu, 7);
	assert_int_equal(env.best_imp, 20);
	assert_int_equal(flag(&w, 7), 1);
	assert_int_equal(flag(&w, 4), 0); /* the previous best released */
	assert_int_equal(flag(&w, 5), 1); /* still the other search's */
	assert_int_equal(flag(&w, 6), 0); /* busy: not tried */
	assert_int_equal(ts_stat_read(&env.st->reserve_conflicts), 1);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflict_alt), 1);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflict_noalt), 0);
	/* the candidate is the node's last CPU: the search wraps to its first */
	set_flag(&w, 7, 0);
	env = wb_env(&w);
	set_flag(&w, 7, 1);
	offer(&env, 7, NULL, 20);
	assert_int_equal(env.best_cpu, 4);
	assert_int_equal(flag(&w, 4), 1);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflict_alt), 2);
	for (int c = 4; c < 8; c++)
		set_flag(&w, c, 0);
	wb_close(&w);
}

/* No free idle CPU on the node: the previous best stays, with its reservation and its
 * improvement (reserve_conflict_noalt). Best CPU 4 (ours, skipped); the candidate 5 and
 * the only other idle CPU 7 are reserved elsewhere; 6 is busy. */
static void test_assign_conflict_keeps_best(void **state)
{
	(void)state;
	struct wb w;
	wb_open(&w, "");
	struct task_numa_env env = wb_env(&w);
	offer(&env, 4, NULL, 10);
	set_flag(&w, 5, 1);
	set_flag(&w, 7, 1);
	offer(&env, 5, &w.busy, 99);
	assert_int_equal(env.best_cpu, 4);
	assert_int_equal(env.best_imp, 10);
	assert_null(env.best_task);
	assert_int_equal(flag(&w, 4), 1);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflict_noalt), 1);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflict_alt), 0);
	/* CPUs p may not use are no alternative either: 7 free but not allowed */
	set_flag(&w, 7, 0);
	struct ts_cpumask *m = ts_cpumask_alloc(16);
	ts_cpumask_set_range(m, 0, 6);
	w.p.cpus_allowed = m;
	offer(&env, 5, NULL, 99);
	assert_int_equal(env.best_cpu, 4);
	assert_int_equal(flag(&w, 7), 0);
	assert_int_equal(ts_stat_read(&env.st->reserve_conflict_noalt), 2);
	w.p.cpus_allowed = NULL;
	ts_cpumask_free(m);
	for (int c = 4; c < 8; c++)
		set_flag(&w, c, 0);
	wb_close(&w);
}

/* NO_NUMA_RESERVE: the flags are neither read nor written. */
static void test_assign_without_reservation(void **state)
{
	(void)state;
	struct wb w;
	wb_open(&w, "NO_NUMA_RESERVE");
	struct task_numa_env env = wb_env(&w);
	assert_false(env.reserve);
	set_flag(&w, 5, 1);
	offer(&env, 5, NULL, 10);
	assert_int_equal(env.best_cpu, 5);
	offer(&env, 4, NULL, 20);
	assert_int_equal(env.best_cpu, 4);
	assert_int_equal(flag(&w, 4), 0);
	assert_int_equal(flag(&w, 5), 1); /* not released either: never ours */
	assert_int_equal(ts_stat_read(&env.st->reserve_conflicts), 0);
	set_flag(&w, 5, 0);
	wb_close(&w);
}

/* numa_classify(pct, ns), strict inequalities:
 *   overloaded: nr_running > weight && (cap*100 < util*pct || cap*pct < runnable*100)
 *   has_spare:  nr_running < weight || (cap*100 > util*pct && cap*pct > runnable*100) */
static void test_numa_classify_boundaries(void **state)
{
	(void)state;
	struct numa_stats ns = {.compute_capacity = 4096, .weight = 4, .nr_running = 4};
	/* 4096*100 = 409600 vs util*108: 3792*108 = 409536 < 409600 -> spare; 3793: 409644 */
	ns.util = 3792;
	ns.runnable = 3792;
	assert_int_equal(numa_classify(108, &ns), node_has_spare);
	ns.util = 3793;
	assert_int_equal(numa_classify(108, &ns), node_fully_busy);
	/* runnable: 4096*108 = 442368 vs runnable*100: 4423 -> 442300 spare, 4424 not */
	ns.util = 0;
	ns.runnable = 4423;
	assert_int_equal(numa_classify(108, &ns), node_has_spare);
	ns.runnable = 4424;
	assert_int_equal(numa_classify(108, &ns), node_fully_busy);
	/* fewer tasks than CPUs: spare whatever the load */
	ns.nr_running = 3;
	ns.util = ns.runnable = 100000;
	assert_int_equal(numa_classify(108, &ns), node_has_spare);
	/* overloaded needs more tasks than CPUs and one of the two pressures */
	ns.nr_running = 5;
	ns.util = 3793;
	ns.runnable = 0;
	assert_int_equal(numa_classify(108, &ns), node_overloaded);
	ns.util = 3792; /* util*pct < cap*100, runnable*100 < cap*pct: spare after all */
	assert_int_equal(numa_classify(108, &ns), node_has_spare);
	ns.util = 3792;
	ns.runnable = 4424;
	assert_int_equal(numa_classify(108, &ns), node_overloaded);
}

/* update_numa_stats() sums the node's runnable_avg for numa_classify() from v5.10
 * (8e0e0eda6a13); v5.7-v5.9 classified by utilisation and task count only. A task runs on
 * CPU 4 (node 1) for 20 ms: its runnable_avg is in node 1's sum at 5.10, not at 5.9. */
static void test_numa_stats_runnable_generations(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		bool counted;
	} cases[] = {{"5.9", false}, {"5.10", true}, {"6.12", true}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_host f;
		struct ts_error err = {0};
		struct ts_sched_config cfg = {0};
		assert_int_equal(ts_kernel_profile_parse(cases[i].v, &cfg.kernel, &err), 0);
		struct ts_topology *t =
			grid_topology(4, 4, "10 20 20 20; 20 10 20 20; 20 20 10 20; 20 20 20 10");
		struct ts_sched *s = fake_sched_cfg(&f, t, NULL, &cfg);
		assert_non_null(s);
		struct ts_task p;
		assert_int_equal(ts_task_init(s, &p, 0, NULL, 4, &err), 0);
		fake_run_on(s, &f, &p, 4);
		for (int ms = 0; ms < 20; ms++) {
			f.now += 1000000;
			fake_lock(&f, 4);
			ts_sched_tick(s, 4);
			fake_unlock(&f, 4);
		}
		assert_true(ts_cpu_runnable(s, 4) > 0);
		struct task_numa_env env = {.s = s, .p = &p};
		struct numa_stats ns;
		update_numa_stats(&env, &ns, 1, false);
		assert_int_equal(ns.runnable, cases[i].counted ? ts_cpu_runnable(s, 4) : 0);
		assert_int_equal(ns.util, ts_cpu_util(s, 4));
		ts_task_destroy(&p);
		ts_sched_destroy(s);
		ts_topology_free(t);
	}
}

/* load_too_imbalanced(src_load, dst_load): |dst_load*Cs - src_load*Cd| > |dst.load*Cs -
 * src.load*Cd|. Cs 2048, Cd 1024, src.load 3000, dst.load 1000:
 * old = |1000*2048 - 3000*1024| = 1024000. */
static void test_load_too_imbalanced_numbers(void **state)
{
	(void)state;
	struct task_numa_env env = {0};
	env.src_stats.compute_capacity = 2048;
	env.dst_stats.compute_capacity = 1024;
	env.src_stats.load = 3000;
	env.dst_stats.load = 1000;
	assert_false(load_too_imbalanced(3000, 1000, &env)); /* equal: not worse */
	assert_false(load_too_imbalanced(2500, 1500, &env)); /* |3072000 - 2560000| = 512000 */
	assert_false(load_too_imbalanced(2334, 1666, &env)); /* |3411968 - 2390016| = 1021952 */
	assert_true(load_too_imbalanced(2333, 1667, &env));  /* |3414016 - 2388992| = 1025024 */
	assert_true(load_too_imbalanced(2000, 2000, &env));  /* |4096000 - 2048000| = 2048000 */
}

/* adjust_numa_imbalance(imbalance, dst_running, imb_numa_nr) of v6.0+: the imbalance as
 * is when dst_running > imb_numa_nr, else 0 up to NUMA_IMBALANCE_MIN (2). (The other
 * generations: tests/test_numa_imbalance.c.) */
static void test_adjust_numa_imbalance_table(void **state)
{
	(void)state;
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, 2, 4, 4), 0);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, 3, 4, 4), 3);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, 1, 5, 4), 1);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, 0, 5, 4), 0);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, 2, 1, 1), 0);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, 2, 2, 1), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assign_takes_and_releases),
		cmocka_unit_test(test_assign_conflict_alternative),
		cmocka_unit_test(test_assign_conflict_keeps_best),
		cmocka_unit_test(test_assign_without_reservation),
		cmocka_unit_test(test_numa_classify_boundaries),
		cmocka_unit_test(test_numa_stats_runnable_generations),
		cmocka_unit_test(test_load_too_imbalanced_numbers),
		cmocka_unit_test(test_adjust_numa_imbalance_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
