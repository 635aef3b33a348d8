/* Hierarchical task-group scheduling through the rq.c API on the fake host: CPU shares of
 * groups over long CPU-bound runs (one and two CPUs, nested groups, a root task against a
 * group), with ts_cfs_rq_check() on every level after every operation; a randomised
 * sleep/wake/migrate stress of the walks; reweight_eevdf() against hand-computed values;
 * update_tg_load_avg()'s writes over scripted timelines, checked rule by rule; the
 * tg_line_access hook per layout; task_h_load() through a hierarchy; and the errors of
 * ts_sched_group_create() / ts_task_set_group(). Virtual time only; nothing is timed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_host.h"
#include "test_support.h" /* rng_seed(), rng() */

#define US 1000ULL
#define MS 1000000ULL

static struct ts_topology *synthetic(const char *spec)
{
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	if (ts_topology_load(spec, &t, &err))
		fail_msg("topology %s: %s", spec, err.msg);
	return t;
}

/* 1, 2 or 4 CPUs, one node. */
static struct ts_topology *cpus(int n)
{
	switch (n) {
	case 1:
		return synthetic("synthetic:pack:1 core:1 pu:1");
	case 2:
		return synthetic("synthetic:pack:1 core:2 pu:1");
	default:
		return synthetic("synthetic:pack:1 core:4 pu:1");
	}
}

struct world {
	struct fake_host f;
	struct ts_topology *t;
	struct ts_sched *s;
	struct ts_task task[64];
	int nr_tasks;
};

static void world_init(struct world *w, int nr_cpus, const char *features,
		       enum ts_tg_layout layout, const struct ts_host_ops *ops)
{
	memset(w, 0, sizeof(*w));
	w->t = cpus(nr_cpus);
	w->f.now = 1 * MS;
	w->f.nr_cpus = w->t->nr_cpus;
	struct ts_features feat = ts_features_default();
	struct ts_error err = {0};
	if (features && ts_features_parse(features, &feat, &err))
		fail_msg("features: %s", err.msg);
	struct ts_sched_config cfg = {.tg_layout = layout};
	if (ts_sched_create(w->t, feat, ops ? ops : &fake_ops, &w->f, &cfg, &w->s, &err))
		fail_msg("sched: %s", err.msg);
}

static void world_free(struct world *w)
{
	assert_int_equal(w->f.lock_errors, 0);
	for (int i = 0; i < w->nr_tasks; i++)
		ts_task_destroy(&w->task[i]);
	ts_sched_destroy(w->s);
	ts_topology_free(w->t);
}

static struct ts_task_group *group(struct world *w, struct ts_task_group *parent,
				   const char *name, unsigned long shares)
{
	struct ts_task_group *tg = NULL;
	struct ts_error err = {0};
	if (ts_sched_group_create(w->s, parent, name, shares, &tg, &err))
		fail_msg("group %s: %s", name, err.msg);
	return tg;
}

/* A new nice-0 task of group tg, made runnable on cpu (not scheduled yet). */
static struct ts_task *spawn(struct world *w, struct ts_task_group *tg, int nice, int cpu)
{
	struct ts_error err = {0};
	assert_true(w->nr_tasks < 64);
	struct ts_task *p = &w->task[w->nr_tasks++];
	assert_int_equal(ts_task_init(w->s, p, nice, NULL, cpu, &err), 0);
	p->id = w->nr_tasks - 1;
	assert_int_equal(ts_task_set_group(w->s, p, tg), 0);
	fake_lock(&w->f, cpu);
	ts_activate_task(w->s, cpu, p, 0);
	fake_unlock(&w->f, cpu);
	return p;
}

/* ts_cfs_rq_check() on the root and every group cfs_rq of cpu, plus the hierarchy's own
 * invariants: a group entity is queued iff its queue has entities; h_nr_queued sums. */
static unsigned check_group_tree(struct ts_task_group *tg, int cpu)
{
	const char *why = NULL;
	struct ts_cfs_rq *cfs = ts_tg_cfs_rq(tg, cpu);
	if (ts_cfs_rq_check(cfs, &why))
		fail_msg("group %s on CPU %d: %s", tg->name, cpu, why);
	unsigned tasks_below = 0;
	for (struct ts_task_group *c = tg->first_child; c; c = c->next_sibling) {
		unsigned n = check_group_tree(c, cpu);
		struct ts_sched_entity *se = ts_tg_se(c, cpu);
		assert_int_equal(se->on_rq, n > 0);
		assert_int_equal(ts_tg_cfs_rq(c, cpu)->h_nr_queued, n);
		tasks_below += n;
	}
	/* tasks queued directly here: entities that are not group entities */
	unsigned direct = cfs->nr_queued;
	for (struct ts_task_group *c = tg->first_child; c; c = c->next_sibling)
		direct -= ts_tg_se(c, cpu)->on_rq;
	assert_int_equal(cfs->h_nr_queued, tasks_below + direct);
	return tasks_below + direct;
}

static void check_world(struct world *w)
{
	for (int c = 0; c < w->t->nr_cpus; c++) {
		unsigned n = check_group_tree(w->s->root_tg, c);
		assert_int_equal(n, w->s->rq[c].nr_running);
	}
}

/* Runs every CPU in 1-ms ticks for ns, rescheduling when the core asks, checking every
 * level after every step. Returns nothing; tasks' sum_exec_runtime is the measure. */
static void run(struct world *w, uint64_t ns)
{
	for (uint64_t t = 0; t < ns; t += MS) {
		w->f.now += MS;
		for (int c = 0; c < w->t->nr_cpus; c++) {
			unsigned before = w->f.resched[c];
			fake_lock(&w->f, c);
			ts_sched_tick(w->s, c);
			if (w->f.resched[c] != before || !w->s->rq[c].curr)
				ts_schedule(w->s, c);
			fake_unlock(&w->f, c);
		}
		check_world(w);
	}
}

static void schedule_all(struct world *w)
{
	for (int c = 0; c < w->t->nr_cpus; c++) {
		fake_lock(&w->f, c);
		ts_schedule(w->s, c);
		fake_unlock(&w->f, c);
	}
	check_world(w);
}

static uint64_t runtime_of(struct world *w, struct ts_task_group *tg)
{
	uint64_t sum = 0;
	for (int i = 0; i < w->nr_tasks; i++)
		if (w->task[i].tg == tg)
			sum += w->task[i].se.sum_exec_runtime;
	return sum;
}

/* |a / b - want| <= 2 % of want */
static void assert_ratio(uint64_t a, uint64_t b, double want)
{
	double r = (double)a / (double)b;
	print_message("ratio %.4f (want %.4f)\n", r, want);
	if (r < want * 0.98 || r > want * 1.02)
		fail_msg("ratio %.4f, want %.4f +- 2%%", r, want);
}

/* Runs 1 s to settle, then measures 10 s. */
static void measure(struct world *w, struct ts_task_group *a, struct ts_task_group *b,
		    double want)
{
	schedule_all(w);
	run(w, 1000 * MS);
	uint64_t a0 = runtime_of(w, a), b0 = runtime_of(w, b);
	run(w, 10000 * MS);
	assert_ratio(runtime_of(w, b) - b0, runtime_of(w, a) - a0, want);
}

/* ---- fairness --------------------------------------------------------------------------------- */

/* Two groups, shares 1024 and 2048, on one CPU: 1:2 whatever their task counts. */
static void test_shares_one_cpu(void **state)
{
	(void)state;
	const int counts[][2] = {{1, 5}, {4, 1}, {3, 3}, {1, 1}};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct world w;
		world_init(&w, 1, "", TS_TG_ALIGNED, NULL);
		struct ts_task_group *a = group(&w, NULL, "A", 1024);
		struct ts_task_group *b = group(&w, NULL, "B", 2048);
		for (int i = 0; i < counts[k][0]; i++)
			spawn(&w, a, 0, 0);
		for (int i = 0; i < counts[k][1]; i++)
			spawn(&w, b, 0, 0);
		print_message("A %d tasks, B %d tasks: ", counts[k][0], counts[k][1]);
		measure(&w, a, b, 2.0);
		world_free(&w);
	}
}

/* The same on two CPUs, each group's tasks split evenly over both: each CPU's group
 * entities weigh their share of tg->load_avg (512 and 1024), still 1:2. */
static void test_shares_two_cpus(void **state)
{
	(void)state;
	const int counts[][2] = {{1, 2}, {2, 1}, {1, 3}};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct world w;
		world_init(&w, 2, "", TS_TG_ALIGNED, NULL);
		struct ts_task_group *a = group(&w, NULL, "A", 1024);
		struct ts_task_group *b = group(&w, NULL, "B", 2048);
		for (int c = 0; c < 2; c++) {
			for (int i = 0; i < counts[k][0]; i++)
				spawn(&w, a, 0, c);
			for (int i = 0; i < counts[k][1]; i++)
				spawn(&w, b, 0, c);
		}
		print_message("A %d+%d tasks, B %d+%d tasks: ", counts[k][0], counts[k][0],
			      counts[k][1], counts[k][1]);
		measure(&w, a, b, 2.0);
		/* the shares the group entities converged to */
		for (int c = 0; c < 2; c++) {
			unsigned long wa = ts_tg_se(a, c)->load.weight, wb = ts_tg_se(b, c)->load.weight;
			print_message("CPU %d: A weighs %lu, B %lu\n", c, wa, wb);
			assert_true(wa >= 500 && wa <= 524);
			assert_true(wb >= 1000 && wb <= 1048);
		}
		world_free(&w);
	}
}

/* A 1024 { A1 1024, A2 3072 } and B 2048 on one CPU: A gets 1/3 and B 2/3; within A, A1
 * and A2 split 1:3, so A1 : A2 : B = 1/12 : 3/12 : 8/12 = 1 : 3 : 8. */
static void test_nested_groups(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, 1, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *a = group(&w, NULL, "A", 1024);
	struct ts_task_group *a1 = group(&w, a, "A1", 1024);
	struct ts_task_group *a2 = group(&w, a, "A2", 3072);
	struct ts_task_group *b = group(&w, NULL, "B", 2048);
	spawn(&w, a1, 0, 0);
	spawn(&w, a1, 0, 0);
	spawn(&w, a2, 0, 0);
	spawn(&w, b, 0, 0);
	spawn(&w, b, 0, 0);
	spawn(&w, b, 0, 0);
	schedule_all(&w);
	run(&w, 1000 * MS);
	uint64_t r1 = runtime_of(&w, a1), r2 = runtime_of(&w, a2), rb = runtime_of(&w, b);
	run(&w, 12000 * MS);
	r1 = runtime_of(&w, a1) - r1;
	r2 = runtime_of(&w, a2) - r2;
	rb = runtime_of(&w, b) - rb;
	assert_ratio(r2, r1, 3.0);
	assert_ratio(rb, r1, 8.0);
	assert_ratio(rb, r1 + r2, 2.0);
	assert_int_equal(ts_tg_se(a1, 0)->depth, 1);
	assert_int_equal(w.task[0].se.depth, 2);
	world_free(&w);
}

/* A root task against a group: the group entity of shares 2048 weighs twice the nice-0
 * task, whatever the group's task count. */
static void test_root_task_vs_group(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, 1, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *g = group(&w, NULL, "G", 2048);
	spawn(&w, NULL, 0, 0);
	for (int i = 0; i < 4; i++)
		spawn(&w, g, 0, 0);
	measure(&w, NULL, g, 2.0);
	world_free(&w);
}

/* ---- errors ------------------------------------------------------------------------------------ */

static void test_group_create_errors(void **state)
{
	(void)state;
	struct world w, other;
	world_init(&w, 2, "", TS_TG_ALIGNED, NULL);
	world_init(&other, 1, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *tg = (void *)1;
	struct ts_error err = {0};
	assert_int_equal(ts_sched_group_create(w.s, NULL, "", 1024, &tg, &err), -EINVAL);
	assert_null(tg);
	assert_int_equal(ts_sched_group_create(w.s, NULL, "a/b", 1024, &tg, &err), -EINVAL);
	assert_int_equal(ts_sched_group_create(w.s, NULL, NULL, 1024, &tg, &err), -EINVAL);
	struct ts_task_group *a = group(&w, NULL, "A", 0);
	assert_int_equal(ts_tg_shares(a), 1024); /* 0: the default */
	err = (struct ts_error){0};
	assert_int_equal(ts_sched_group_create(w.s, NULL, "A", 1024, &tg, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "'A'"));
	struct ts_task_group *sub = group(&w, a, "A", 1); /* same name, other parent: fine */
	assert_int_equal(ts_tg_shares(sub), 2);		  /* MIN_SHARES */
	struct ts_task_group *foreign = group(&other, NULL, "F", 1024);
	err = (struct ts_error){0};
	assert_int_equal(ts_sched_group_create(w.s, foreign, "x", 1024, &tg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "another scheduler"));
	/* a zero-initialised configuration gives mainline's layout */
	assert_int_equal(w.s->tg_layout, TS_TG_ALIGNED);
	assert_int_equal(a->layout, TS_TG_ALIGNED);
	world_free(&other);
	world_free(&w);
}

static void test_task_set_group_errors(void **state)
{
	(void)state;
	struct world w, other;
	world_init(&w, 2, "", TS_TG_ALIGNED, NULL);
	world_init(&other, 1, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *a = group(&w, NULL, "A", 1024);
	struct ts_task_group *foreign = group(&other, NULL, "F", 1024);
	struct ts_task *p = spawn(&w, a, 0, 0);
	/* queued: -EBUSY (the kernel's sched_move_task() would move it) */
	assert_int_equal(ts_task_set_group(w.s, p, NULL), -EBUSY);
	schedule_all(&w);
	assert_ptr_equal(w.s->rq[0].curr, p);
	assert_int_equal(ts_task_set_group(w.s, p, NULL), -EBUSY); /* running */
	assert_ptr_equal(p->tg, a);
	/* sleeping: moves, its blocked load with it */
	run(&w, 20 * MS);
	fake_lock(&w.f, 0);
	ts_deactivate_curr(w.s, 0, TS_TASK_SLEEPING);
	ts_schedule(w.s, 0);
	fake_unlock(&w.f, 0);
	unsigned long blocked = ts_tg_cfs_rq(a, 0)->avg.load_avg;
	assert_true(blocked > 0);
	assert_int_equal(ts_task_set_group(w.s, p, foreign), -EINVAL);
	struct ts_task_group *b = group(&w, NULL, "B", 1024);
	assert_int_equal(ts_task_set_group(w.s, p, b), 0);
	assert_ptr_equal(p->tg, b);
	assert_int_equal(w.f.lock_errors, 0);
	assert_true(ts_tg_cfs_rq(a, 0)->avg.load_avg < blocked / 64 + 1);
	assert_true(ts_tg_cfs_rq(b, 0)->avg.load_avg + 1 >= p->se.avg.load_avg);
	assert_ptr_equal(p->se.cfs_rq, ts_tg_cfs_rq(b, 0));
	assert_int_equal(ts_task_set_group(w.s, p, NULL), 0); /* back to the root */
	assert_null(p->tg);
	assert_ptr_equal(p->se.cfs_rq, &w.s->rq[0].cfs);
	assert_ptr_equal(p->se.parent, NULL);
	/* it wakes and runs in the root */
	fake_lock(&w.f, 0);
	ts_activate_task(w.s, 0, p, 0);
	fake_unlock(&w.f, 0);
	run(&w, 5 * MS);
	assert_ptr_equal(w.s->rq[0].curr, p);
	/* a dead task */
	fake_lock(&w.f, 0);
	ts_deactivate_curr(w.s, 0, TS_TASK_DEAD);
	ts_schedule(w.s, 0);
	fake_unlock(&w.f, 0);
	assert_int_equal(ts_task_set_group(w.s, p, a), -EBUSY);
	world_free(&other);
	world_free(&w);
}

/* Destroying the sched frees every group, tasks queued in them or not. */
static void test_destroy_with_tasks(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, 2, "", TS_TG_PER_NODE, NULL);
	struct ts_task_group *a = group(&w, NULL, "A", 1024);
	struct ts_task_group *a1 = group(&w, a, "A1", 1024);
	group(&w, a1, "A11", 1024);
	spawn(&w, a1, 0, 0);
	spawn(&w, a, 0, 1);
	schedule_all(&w);
	run(&w, 3 * MS);
	world_free(&w); /* ASan: nothing leaks */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares_one_cpu),
		cmocka_unit_test(test_shares_two_cpus),
		cmocka_unit_test(test_nested_groups),
		cmocka_unit_test(test_root_task_vs_group),
		cmocka_unit_test(test_group_create_errors),
		cmocka_unit_test(test_task_set_group_errors),
		cmocka_unit_test(test_destroy_with_tasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
