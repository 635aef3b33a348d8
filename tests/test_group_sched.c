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

#include "sched_env.h"
#include "test_support.h" /* rng_seed(), rng() */

#define US 1000ULL
#define MS 1000000ULL

/* 1, 2 or 4 CPUs, one node; -2: two CPUs on two nodes. */
static struct ts_topology *cpus(int n)
{
	switch (n) {
	case -2:
		return load_topology("synthetic:numa:2 core:1 pu:1");
	case 1:
		return load_topology("synthetic:pack:1 core:1 pu:1");
	case 2:
		return load_topology("synthetic:pack:1 core:2 pu:1");
	default:
		return load_topology("synthetic:pack:1 core:4 pu:1");
	}
}

static void world_init(struct env *w, int nr_cpus, const char *features, enum ts_tg_layout layout,
		       const struct ts_host_ops *ops)
{
	struct ts_sched_config cfg = {.tg_layout = layout};
	env_open(w, cpus(nr_cpus), features, &cfg, ops, ENV_MAX_TASKS);
}

static void world_free(struct env *w)
{
	assert_int_equal(w->f.lock_errors, 0);
	env_destroy(w);
}

static struct ts_task_group *group(struct env *w, struct ts_task_group *parent, const char *name,
				   unsigned long shares)
{
	struct ts_task_group *tg = NULL;
	struct ts_error err = {0};
	if (ts_sched_group_create(w->s, parent, name, shares, &tg, &err))
		fail_msg("group %s: %s", name, err.msg);
	return tg;
}

/* p becomes runnable on cpu (a fork or a wake-up there), not scheduled yet. */
static void activate(struct env *w, struct ts_task *p, int cpu)
{
	fake_lock(&w->f, cpu);
	ts_activate_task(w->s, cpu, p, 0);
	fake_unlock(&w->f, cpu);
}

/* A new nice-0 task of group tg, made runnable on cpu (not scheduled yet). */
static struct ts_task *spawn(struct env *w, struct ts_task_group *tg, int nice, int cpu)
{
	struct ts_task *p = env_task(w, nice, NULL, cpu);
	assert_int_equal(ts_task_set_group(w->s, p, tg), 0);
	activate(w, p, cpu);
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

static void check_world(struct env *w)
{
	for (int c = 0; c < w->t->nr_cpus; c++) {
		unsigned n = check_group_tree(w->s->root_tg, c);
		assert_int_equal(n, w->s->rq[c].nr_running);
	}
}

/* cpu picks its next task, under its rq lock. */
static void schedule_cpu(struct env *w, int cpu)
{
	fake_lock(&w->f, cpu);
	ts_schedule(w->s, cpu);
	fake_unlock(&w->f, cpu);
}

/* A tick of cpu, rescheduling when the core asks or the CPU is idle. */
static void tick(struct env *w, int cpu)
{
	unsigned before = w->f.resched[cpu];
	fake_lock(&w->f, cpu);
	ts_sched_tick(w->s, cpu);
	if (w->f.resched[cpu] != before || !w->s->rq[cpu].curr)
		ts_schedule(w->s, cpu);
	fake_unlock(&w->f, cpu);
}

/* cpu's current task leaves the rq (state: sleeping or dead) and cpu schedules. */
static void deactivate_curr(struct env *w, int cpu, enum ts_task_state state)
{
	fake_lock(&w->f, cpu);
	ts_deactivate_curr(w->s, cpu, state);
	ts_schedule(w->s, cpu);
	fake_unlock(&w->f, cpu);
}

/* p, queued but not running, moves to dst; both rq locks taken in CPU order. */
static void move_queued(struct env *w, struct ts_task *p, int dst)
{
	int src = p->cpu, a = src < dst ? src : dst, b = src < dst ? dst : src;
	fake_lock(&w->f, a);
	fake_lock(&w->f, b);
	ts_move_queued_task(w->s, p, src, dst);
	fake_unlock(&w->f, b);
	fake_unlock(&w->f, a);
}

/* Runs every CPU in 1-ms ticks for ns, rescheduling when the core asks, checking every
 * level after every step. Returns nothing; tasks' sum_exec_runtime is the measure. */
static void run(struct env *w, uint64_t ns)
{
	for (uint64_t t = 0; t < ns; t += MS) {
		w->f.now += MS;
		for (int c = 0; c < w->t->nr_cpus; c++)
			tick(w, c);
		check_world(w);
	}
}

static void schedule_all(struct env *w)
{
	for (int c = 0; c < w->t->nr_cpus; c++)
		schedule_cpu(w, c);
	check_world(w);
}

static uint64_t runtime_of(struct env *w, struct ts_task_group *tg)
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
static void measure(struct env *w, struct ts_task_group *a, struct ts_task_group *b, double want)
{
	schedule_all(w);
	run(w, 1000 * MS);
	uint64_t a0 = runtime_of(w, a), b0 = runtime_of(w, b);
	run(w, 10000 * MS);
	assert_ratio(runtime_of(w, b) - b0, runtime_of(w, a) - a0, want);
}

/* ---- fairness ---------------------------------------------------------------------------------
 */

/* Two groups, shares 1024 and 2048, on one CPU: 1:2 whatever their task counts. */
static void test_shares_one_cpu(void **state)
{
	(void)state;
	const int counts[][2] = {{1, 5}, {4, 1}, {3, 3}, {1, 1}};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct env w;
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
		struct env w;
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
			unsigned long wa = ts_tg_se(a, c)->load.weight,
				      wb = ts_tg_se(b, c)->load.weight;
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
	struct env w;
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
	struct env w;
	world_init(&w, 1, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *g = group(&w, NULL, "G", 2048);
	spawn(&w, NULL, 0, 0);
	for (int i = 0; i < 4; i++)
		spawn(&w, g, 0, 0);
	measure(&w, NULL, g, 2.0);
	world_free(&w);
}

/* ---- errors ------------------------------------------------------------------------------------
 */

static void test_group_create_errors(void **state)
{
	(void)state;
	struct env w, other;
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
	struct env w, other;
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
	deactivate_curr(&w, 0, TS_TASK_SLEEPING);
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
	activate(&w, p, 0);
	run(&w, 5 * MS);
	assert_ptr_equal(w.s->rq[0].curr, p);
	/* a dead task */
	deactivate_curr(&w, 0, TS_TASK_DEAD);
	assert_int_equal(ts_task_set_group(w.s, p, a), -EBUSY);
	world_free(&other);
	world_free(&w);
}

/* Destroying the sched frees every group, tasks queued in them or not. */
static void test_destroy_with_tasks(void **state)
{
	(void)state;
	struct env w;
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

/* ---- a task alone in its groups is scheduled like a root task ---------------------------- */

/* r (root, always runnable) and g (runs ~2 ms, sleeps ~3 ms) on one CPU, stepped every
 * 100 us with a tick every ms; the trace of who runs, the preemptions and the runtimes must
 * be identical whether g is a root task, alone in a group of shares 1024, or alone in a
 * nested pair of such groups: each group entity then weighs exactly 1024, and wake-up
 * preemption (find_matching_se()), the tick at every level, pick and put/set across levels
 * reduce to the flat decisions. (PLACE_DEADLINE_INITIAL off: a new group entity is placed
 * as a wake-up, the new task below it as a fork.) */
static void run_pair(int depth, unsigned char *trace, size_t n, uint64_t *rt_r, uint64_t *rt_g,
		     unsigned *resched)
{
	struct env w;
	world_init(&w, 1, "NO_PLACE_DEADLINE_INITIAL", TS_TG_ALIGNED, NULL);
	struct ts_task_group *tg = NULL;
	for (int d = 0; d < depth; d++) {
		static const char *const names[] = {"G0", "G1", "G2"};
		tg = group(&w, tg, names[d], 1024);
	}
	struct ts_task *r = spawn(&w, NULL, 0, 0);
	struct ts_task *g = spawn(&w, tg, 0, 0);
	schedule_all(&w);
	uint64_t woke_at = w.f.now, slept_at = 0, ran_at_wake = 0;
	for (size_t i = 0; i < n; i++) {
		w.f.now += 100 * US;
		unsigned before = w.f.resched[0];
		fake_lock(&w.f, 0);
		if (i % 10 == 9)
			ts_sched_tick(w.s, 0);
		if (g->state == TS_TASK_RUNNABLE && w.s->rq[0].curr == g &&
		    g->se.sum_exec_runtime - ran_at_wake >= 2 * MS) {
			ts_deactivate_curr(w.s, 0, TS_TASK_SLEEPING);
			ts_schedule(w.s, 0);
			slept_at = w.f.now;
		} else if (g->state == TS_TASK_SLEEPING && w.f.now - slept_at >= 3 * MS) {
			ts_activate_task(w.s, 0, g, 0);
			woke_at = w.f.now;
			ran_at_wake = g->se.sum_exec_runtime;
		}
		if (w.f.resched[0] != before)
			ts_schedule(w.s, 0);
		fake_unlock(&w.f, 0);
		check_world(&w);
		trace[i] = w.s->rq[0].curr == r ? 'r' : w.s->rq[0].curr == g ? 'g' : '-';
	}
	(void)woke_at;
	*rt_r = r->se.sum_exec_runtime;
	*rt_g = g->se.sum_exec_runtime;
	*resched = w.f.resched[0];
	world_free(&w);
}

static void test_alone_in_group_equals_root(void **state)
{
	(void)state;
	enum { N = 20000 };
	static unsigned char trace[3][N];
	uint64_t rr[3], rg[3];
	unsigned rs[3];
	for (int d = 0; d < 3; d++)
		run_pair(d, trace[d], N, &rr[d], &rg[d], &rs[d]);
	size_t switches = 0;
	for (size_t i = 1; i < N; i++)
		switches += trace[0][i] != trace[0][i - 1];
	print_message("flat: r %.1f ms, g %.1f ms, %zu switches, %u resched requests\n",
		      (double)rr[0] / MS, (double)rg[0] / MS, switches, rs[0]);
	assert_true(switches > 500); /* g sleeps and wakes about 400 times, and is preempted */
	for (int d = 1; d < 3; d++) {
		assert_memory_equal(trace[0], trace[d], N);
		assert_int_equal(rr[0], rr[d]);
		assert_int_equal(rg[0], rg[d]);
		assert_int_equal(rs[0], rs[d]);
	}
}

/* ---- stress: random sleeps, wake-ups on any CPU, migrations, yields, nice changes and
 * group changes over a hierarchy on four CPUs, with every invariant after every step ---- */

static void check_tg_sums(struct ts_task_group *tg)
{
	for (struct ts_task_group *c = tg->first_child; c; c = c->next_sibling) {
		long sum = 0;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			sum += (long)ts_tg_pcpu(c, cpu)->tg_load_avg_contrib;
		assert_int_equal(ts_tg_load_avg_read(c), sum); /* tg->load_avg = sum of contribs */
		check_tg_sums(c);
	}
}

static void test_stress_walks(void **state)
{
	(void)state;
	struct env w;
	world_init(&w, 4, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *g[5];
	g[0] = NULL;
	g[1] = group(&w, NULL, "A", 1024);
	g[2] = group(&w, g[1], "A1", 512);
	g[3] = group(&w, g[1], "A2", 4096);
	g[4] = group(&w, NULL, "B", 3000);
	rng_seed(42);
	for (int i = 0; i < 24; i++)
		spawn(&w, g[rng() % 5], (int)(rng() % 11) - 5, (int)(rng() % 4));
	schedule_all(&w);
	unsigned ops[7] = {0};
	for (int step = 0; step < 30000; step++) {
		w.f.now += 50 * US + rng() % (200 * US);
		int cpu = (int)(rng() % 4);
		struct ts_task *p = &w.task[rng() % (uint64_t)w.nr_tasks];
		unsigned op = (unsigned)(rng() % 7);
		switch (op) {
		case 0: { /* tick, periodic balancing when due */
			unsigned before = w.f.resched[cpu];
			fake_lock(&w.f, cpu);
			bool bal = ts_sched_tick(w.s, cpu);
			if (w.f.resched[cpu] != before)
				ts_schedule(w.s, cpu);
			fake_unlock(&w.f, cpu);
			if (bal)
				ts_balance_tick(w.s, cpu);
			break;
		}
		case 1: /* curr sleeps */
			if (w.s->rq[cpu].curr)
				deactivate_curr(&w, cpu, TS_TASK_SLEEPING);
			break;
		case 2: /* a sleeper is woken from some CPU (placement may move it) */
			if (p->state == TS_TASK_SLEEPING) {
				ts_try_to_wake_up(w.s, p, cpu, NULL, (rng() & 1) ? TS_WF_SYNC : 0);
				int c = p->cpu;
				if (!w.s->rq[c].curr || (rng() & 1))
					schedule_cpu(&w, c);
			}
			break;
		case 3: /* a queued, not running task moves */
			if (p->state == TS_TASK_RUNNABLE && w.s->rq[p->cpu].curr != p &&
			    p->cpu != cpu)
				move_queued(&w, p, cpu);
			break;
		case 4: /* yield */
			fake_lock(&w.f, cpu);
			ts_yield_task(w.s, cpu);
			ts_schedule(w.s, cpu);
			fake_unlock(&w.f, cpu);
			break;
		case 5: /* renice a queued or sleeping task */
			if (p->state == TS_TASK_RUNNABLE || p->state == TS_TASK_SLEEPING) {
				int c = p->cpu;
				fake_lock(&w.f, c);
				if (p->se.on_rq)
					ts_update_curr(p->se.cfs_rq, w.f.now, w.s->features);
				assert_int_equal(ts_set_load_weight(&p->se, (int)(rng() % 11) - 5),
						 0);
				fake_unlock(&w.f, c);
			}
			break;
		default: /* a sleeper changes group */
			if (p->state == TS_TASK_SLEEPING)
				assert_int_equal(ts_task_set_group(w.s, p, g[rng() % 5]), 0);
			break;
		}
		ops[op]++;
		check_world(&w);
		check_tg_sums(w.s->root_tg);
	}
	print_message("ops: tick %u sleep %u wake %u move %u yield %u nice %u group %u\n", ops[0],
		      ops[1], ops[2], ops[3], ops[4], ops[5], ops[6]);
	/* Everyone asleep: the group loads decay away on idle ticks, and the tg sums follow. */
	for (int c = 0; c < 4; c++) {
		fake_lock(&w.f, c);
		while (w.s->rq[c].curr) {
			ts_deactivate_curr(w.s, c, TS_TASK_SLEEPING);
			ts_schedule(w.s, c);
		}
		fake_unlock(&w.f, c);
	}
	check_world(&w);
	run(&w, 3000 * MS);
	check_tg_sums(w.s->root_tg);
	for (int i = 1; i < 5; i++) {
		assert_true(ts_tg_load_avg_read(g[i]) <= 4);
		for (int c = 0; c < 4; c++) {
			assert_int_equal(ts_tg_cfs_rq(g[i], c)->avg.load_avg, 0);
			assert_false(ts_tg_cfs_rq(g[i], c)->on_list);
		}
	}
	for (int c = 0; c < 4; c++)
		assert_int_equal(w.s->rq[c].cfs.avg.load_avg, 0);
	world_free(&w);
}

/* ---- migration: the removed-load path of a group cfs_rq ---------------------------------- */

static void test_wake_elsewhere_removes_group_load(void **state)
{
	(void)state;
	struct env w;
	world_init(&w, 2, "NO_NEWIDLE_BALANCE", TS_TG_ALIGNED, NULL); /* both stay on CPU 0 */
	struct ts_task_group *a = group(&w, NULL, "A", 1024);
	struct ts_task *p = spawn(&w, a, 0, 0);
	struct ts_task *q = spawn(&w, a, 0, 0);
	schedule_all(&w);
	run(&w, 50 * MS);
	/* p sleeps on CPU 0 (its load stays there, blocked) */
	fake_lock(&w.f, 0);
	if (w.s->rq[0].curr != p) {
		ts_yield_task(w.s, 0);
		ts_schedule(w.s, 0);
	}
	assert_ptr_equal(w.s->rq[0].curr, p);
	ts_deactivate_curr(w.s, 0, TS_TASK_SLEEPING);
	ts_schedule(w.s, 0);
	fake_unlock(&w.f, 0);
	struct ts_cfs_rq *a0 = ts_tg_cfs_rq(a, 0), *a1 = ts_tg_cfs_rq(a, 1);
	unsigned long before = a0->avg.load_avg, p_load = p->se.avg.load_avg;
	print_message("p %lu, A on CPU 0 %lu\n", p_load, before);
	assert_true(p_load > 900 && before > 1800);
	/* woken on CPU 1: its averages go into A's cfs_rq's removed accumulator on CPU 0 */
	w.f.now += 10 * US;
	fake_lock(&w.f, 1);
	ts_activate_task(w.s, 1, p, 0);
	ts_schedule(w.s, 1);
	fake_unlock(&w.f, 1);
	assert_int_equal(atomic_load(&ts_tg_pcpu(a, 0)->removed.nr), 1);
	assert_int_equal(atomic_load(&ts_tg_pcpu(a, 0)->removed.load_avg), p->se.avg.load_avg);
	assert_int_equal(atomic_load(&w.s->rq[0].removed.nr), 0); /* not the root's */
	assert_ptr_equal(p->se.cfs_rq, a1);
	assert_true(a1->avg.load_avg >= p->se.avg.load_avg);
	/* CPU 0's next update folds it in and propagates it up through A's entity */
	unsigned long ge_before = ts_tg_se(a, 0)->avg.load_avg;
	run(&w, 2 * MS);
	assert_int_equal(atomic_load(&ts_tg_pcpu(a, 0)->removed.nr), 0);
	assert_true(a0->avg.load_avg + 700 < before);
	assert_true(ts_tg_se(a, 0)->avg.load_avg < ge_before);
	(void)q;
	world_free(&w);
}

/* ---- wake-up preemption, buddies and yield across levels ----------------------------------- */

static void test_buddies_and_yield_across_levels(void **state)
{
	(void)state;
	struct env w;
	world_init(&w, 1, "NEXT_BUDDY", TS_TG_ALIGNED, NULL);
	struct ts_task_group *a = group(&w, NULL, "A", 1024);
	struct ts_task_group *b = group(&w, NULL, "B", 1024);
	struct ts_task *a1 = spawn(&w, a, 0, 0);
	struct ts_task *a2 = spawn(&w, a, 0, 0);
	struct ts_task *b1 = spawn(&w, b, 0, 0);
	schedule_all(&w);
	run(&w, 30 * MS);
	/* b1 sleeps and is woken: NEXT_BUDDY names it at every level */
	while (w.s->rq[0].curr != b1)
		run(&w, 1 * MS);
	fake_lock(&w.f, 0);
	ts_deactivate_curr(w.s, 0, TS_TASK_SLEEPING);
	ts_schedule(w.s, 0);
	w.f.now += 100 * US;
	ts_activate_task(w.s, 0, b1, 0);
	assert_ptr_equal(ts_tg_cfs_rq(b, 0)->next, &b1->se);
	assert_ptr_equal(w.s->rq[0].cfs.next, ts_tg_se(b, 0));
	ts_schedule(w.s, 0);
	fake_unlock(&w.f, 0);
	check_world(&w);
	/* the buddy was eligible (b1 slept 100 us, after its turn): picked, and picking it
	 * cleared the buddies on its path */
	assert_ptr_equal(w.s->rq[0].curr, b1);
	assert_null(ts_tg_cfs_rq(b, 0)->next);
	assert_null(w.s->rq[0].cfs.next);
	/* a task of A going to sleep while A keeps a task: A's entity becomes the buddy */
	while (w.s->rq[0].curr != a1 && w.s->rq[0].curr != a2)
		run(&w, 1 * MS);
	fake_lock(&w.f, 0);
	ts_deactivate_curr(w.s, 0, TS_TASK_SLEEPING);
	assert_ptr_equal(w.s->rq[0].cfs.next, ts_tg_se(a, 0));
	ts_schedule(w.s, 0);
	fake_unlock(&w.f, 0);
	check_world(&w);
	/* yield inside a group hands the CPU over */
	struct ts_task *cur = w.s->rq[0].curr;
	assert_non_null(cur);
	uint64_t d = cur->se.deadline;
	fake_lock(&w.f, 0);
	ts_yield_task(w.s, 0);
	assert_true(cur->se.deadline > d);
	ts_schedule(w.s, 0);
	fake_unlock(&w.f, 0);
	check_world(&w);
	world_free(&w);
}

/* ---- task_h_load() through the hierarchy --------------------------------------------------- */

static void test_task_h_load_hierarchy(void **state)
{
	(void)state;
	struct env w;
	world_init(&w, 1, "", TS_TG_ALIGNED, NULL);
	struct ts_task_group *a = group(&w, NULL, "A", 1024);
	struct ts_task_group *a1 = group(&w, a, "A1", 1024);
	struct ts_task *r = spawn(&w, NULL, 0, 0);
	struct ts_task *p = spawn(&w, a1, 0, 0);
	spawn(&w, a1, 0, 0);
	schedule_all(&w);
	run(&w, 200 * MS);
	w.f.now += w.s->tick_nsec; /* a fresh jiffy: no cached h_load */
	unsigned long root = atomic_load(&w.s->rq[0].ro.load_avg);
	assert_int_equal(root, w.s->rq[0].cfs.avg.load_avg);
	/* root task: load * root / (root + 1) */
	assert_int_equal(ts_task_h_load_of(w.s, r), r->se.avg.load_avg * root / (root + 1));
	/* h_load(A) = root * A_se / (root + 1); h_load(A1) = h_load(A) * A1_se / (A + 1);
	 * task_h_load(p) = p * h_load(A1) / (A1 + 1) */
	unsigned long ha = root * ts_tg_se(a, 0)->avg.load_avg / (root + 1);
	unsigned long ha1 =
		ha * ts_tg_se(a1, 0)->avg.load_avg / (ts_tg_cfs_rq(a, 0)->avg.load_avg + 1);
	unsigned long want = p->se.avg.load_avg * ha1 / (ts_tg_cfs_rq(a1, 0)->avg.load_avg + 1);
	assert_int_equal(ts_task_h_load_of(w.s, p), want);
	print_message("root %lu, h_load(A) %lu, h_load(A1) %lu, p %lu -> %lu\n", root, ha, ha1,
		      p->se.avg.load_avg, want);
	/* two tasks of equal weight share A1's, which shares the CPU with r: ~1/4 of it */
	assert_true(want > root / 4 - root / 20 && want < root / 4 + root / 20);
	assert_int_equal(ts_tg_pcpu(a1, 0)->h_load, ha1);
	world_free(&w);
}

/* ---- update_tg_load_avg(): writes of tg->load_avg over scripted timelines ------------------ */

static struct ts_tg_stats stats_of(struct ts_task_group *tg, int cpu)
{
	struct ts_tg_stats st;
	ts_tg_stats_cpu(tg, cpu, &st);
	return st;
}

/* Runs op() and checks every (group, CPU) against the rules: with the rate limit, a write
 * comes >= 1 ms after the previous one (so at most one per step, all of whose calls share
 * `now`) and only a call within 1 ms of a write is rate-limited; with the filter, a single
 * write moved the contribution by more than 1/64; tg->load_avg is the sum of the
 * contributions. Returns the writes made. */
struct rule_snap {
	struct ts_tg_stats st[8][4];
	unsigned long contrib[8][4];
	uint64_t last[8][4];
};

static void snap_take(struct env *w, struct ts_task_group **g, int n, struct rule_snap *sn)
{
	for (int i = 0; i < n; i++)
		for (int c = 0; c < w->t->nr_cpus; c++) {
			sn->st[i][c] = stats_of(g[i], c);
			sn->contrib[i][c] = ts_tg_pcpu(g[i], c)->tg_load_avg_contrib;
			sn->last[i][c] = ts_tg_pcpu(g[i], c)->last_update_tg_load_avg;
		}
}

static uint64_t snap_check(struct env *w, struct ts_task_group **g, int n,
			   const struct rule_snap *b, struct ts_tg_switches sw)
{
	uint64_t writes = 0, now = w->f.now;
	for (int i = 0; i < n; i++) {
		long sum = 0;
		for (int c = 0; c < w->t->nr_cpus; c++) {
			struct ts_tg_stats a = stats_of(g[i], c);
			struct ts_tg_cpu *tc = ts_tg_pcpu(g[i], c);
			uint64_t dw = a.writes - b->st[i][c].writes;
			uint64_t dr = a.skipped_ratelimit - b->st[i][c].skipped_ratelimit;
			writes += dw;
			sum += (long)tc->tg_load_avg_contrib;
			if (dw) {
				assert_int_equal(tc->last_update_tg_load_avg, now);
			} else {
				assert_int_equal(tc->tg_load_avg_contrib, b->contrib[i][c]);
				assert_int_equal(tc->last_update_tg_load_avg, b->last[i][c]);
			}
			if (sw.ratelimit) {
				assert_true(dw <= 1);
				if (dw)
					assert_true(now - b->last[i][c] >= MS);
				if (dr)
					assert_true(dw || now - b->last[i][c] < MS);
			} else {
				assert_int_equal(dr, 0);
			}
			if (sw.filter && dw == 1) {
				long old = (long)b->contrib[i][c];
				long d = (long)tc->tg_load_avg_contrib - old;
				assert_true((d < 0 ? -d : d) > old / 64);
			}
		}
		assert_int_equal(ts_tg_load_avg_read(g[i]), sum);
	}
	return writes;
}

/* Random enqueues, dequeues, wake-ups elsewhere, migrations and ticks, every step checked
 * against the rules, for each switch setting; the rate limit and the filter each cut the
 * number of writes. */
static uint64_t rules_timeline(const char *features, struct ts_tg_switches sw)
{
	struct env w;
	world_init(&w, 2, features, TS_TG_ALIGNED, NULL);
	struct ts_task_group *g[3];
	g[0] = group(&w, NULL, "A", 1024);
	g[1] = group(&w, g[0], "A1", 2048);
	g[2] = group(&w, NULL, "B", 512);
	rng_seed(7);
	struct rule_snap sn;
	uint64_t writes = 0;
	for (int i = 0; i < 8; i++) {
		snap_take(&w, g, 3, &sn);
		spawn(&w, g[rng() % 3], (int)(rng() % 7) - 3, i % 2);
		writes += snap_check(&w, g, 3, &sn, sw);
	}
	for (int step = 0; step < 6000; step++) {
		w.f.now += 20 * US + rng() % (300 * US);
		int cpu = (int)(rng() % 2);
		struct ts_task *p = &w.task[rng() % (uint64_t)w.nr_tasks];
		snap_take(&w, g, 3, &sn);
		switch (rng() % 4) {
		case 0:
			tick(&w, cpu);
			break;
		case 1:
			if (w.s->rq[cpu].curr)
				deactivate_curr(&w, cpu, TS_TASK_SLEEPING);
			break;
		case 2:
			if (p->state == TS_TASK_SLEEPING) {
				fake_lock(&w.f, cpu);
				ts_activate_task(w.s, cpu, p,
						 0); /* maybe elsewhere: removed load */
				if (!w.s->rq[cpu].curr)
					ts_schedule(w.s, cpu);
				fake_unlock(&w.f, cpu);
			}
			break;
		default:
			if (p->state == TS_TASK_RUNNABLE && w.s->rq[p->cpu].curr != p)
				move_queued(&w, p, 1 - p->cpu);
			break;
		}
		writes += snap_check(&w, g, 3, &sn, sw);
		check_world(&w);
	}
	struct ts_tg_stats all = {0};
	for (int i = 0; i < 3; i++) {
		struct ts_tg_stats st;
		ts_tg_stats_sum(g[i], &st);
		all.writes += st.writes;
		all.skipped_ratelimit += st.skipped_ratelimit;
		all.skipped_filter += st.skipped_filter;
	}
	assert_int_equal(all.writes, writes);
	print_message("%-40s writes %6llu, rate-limited %6llu, filtered %6llu\n",
		      features[0] ? features : "(defaults)", (unsigned long long)all.writes,
		      (unsigned long long)all.skipped_ratelimit,
		      (unsigned long long)all.skipped_filter);
	if (!sw.ratelimit)
		assert_int_equal(all.skipped_ratelimit, 0);
	world_free(&w);
	return writes;
}

static void test_load_avg_write_rules(void **state)
{
	(void)state;
	const struct ts_tg_switches both = {.filter = true, .ratelimit = true};
	const struct ts_tg_switches rl = {.filter = false, .ratelimit = true};
	const struct ts_tg_switches fi = {.filter = true, .ratelimit = false};
	const struct ts_tg_switches none = {.filter = false, .ratelimit = false};
	uint64_t w_both = rules_timeline("", both);
	uint64_t w_rl = rules_timeline("NO_TG_LOAD_FILTER", rl);
	uint64_t w_fi = rules_timeline("NO_TG_LOAD_RATELIMIT", fi);
	uint64_t w_none = rules_timeline("NO_TG_LOAD_FILTER NO_TG_LOAD_RATELIMIT", none);
	assert_true(w_both < w_rl && w_both < w_fi);
	assert_true(w_rl < w_none && w_fi < w_none);
}

/* Exact counts where the rules alone decide: the first attach to a group's empty queue is
 * written; a second attach within 1 ms is rate-limited whatever its size (and written
 * without the limit); a detach of the last task >= 1 ms later is written (the change is
 * the whole contribution); a steady load is filtered tick after tick. */
static void scripted_counts(bool ratelimit)
{
	struct env w;
	world_init(&w, 2,
		   ratelimit ? "NO_NEWIDLE_BALANCE" : "NO_NEWIDLE_BALANCE NO_TG_LOAD_RATELIMIT",
		   TS_TG_ALIGNED, NULL);
	struct ts_task_group *g = group(&w, NULL, "G", 1024);
	struct ts_task *p = spawn(&w, g, -10, 0); /* at 1 ms: attach to an empty queue */
	struct ts_tg_stats st = stats_of(g, 0);
	assert_int_equal(st.writes, 1);
	assert_int_equal(ts_tg_pcpu(g, 0)->tg_load_avg_contrib, 9548);
	assert_int_equal(ts_tg_load_avg_read(g), 9548);
	w.f.now += 300 * US;
	struct ts_task *q = spawn(&w, g, -10, 0); /* 0.3 ms later: doubles the load */
	st = stats_of(g, 0);
	if (ratelimit) {
		assert_int_equal(st.writes, 1);
		assert_int_equal(st.skipped_ratelimit, 1);
		assert_int_equal(ts_tg_load_avg_read(g), 9548);
	} else {
		assert_int_equal(st.writes, 2);
		assert_int_equal(ts_tg_load_avg_read(g), 2 * 9548);
	}
	/* q moves to CPU 1 after 2 ms: an attach there (written), p keeps CPU 0 */
	schedule_cpu(&w, 0);
	struct ts_task *other = w.s->rq[0].curr == p ? q : p;
	w.f.now += 2 * MS;
	move_queued(&w, other, 1);
	assert_int_equal(stats_of(g, 1).writes, 1);
	/* steady state on both CPUs: 200 ticks, nothing written (filter) after the ramp */
	schedule_cpu(&w, 1);
	run(&w, 300 * MS);
	uint64_t w0 = stats_of(g, 0).writes + stats_of(g, 1).writes;
	uint64_t f0 = stats_of(g, 0).skipped_filter + stats_of(g, 1).skipped_filter;
	run(&w, 200 * MS);
	uint64_t w1 = stats_of(g, 0).writes + stats_of(g, 1).writes;
	uint64_t f1 = stats_of(g, 0).skipped_filter + stats_of(g, 1).skipped_filter;
	assert_int_equal(w1, w0);
	assert_true(f1 - f0 >= 300); /* ~190 decaying ticks per CPU, each one filtered */
	/* the task on CPU 1 sleeps: the whole contribution goes in one write */
	unsigned long contrib = ts_tg_pcpu(g, 1)->tg_load_avg_contrib;
	assert_true(contrib > 9000);
	w.f.now += 2 * MS;
	struct ts_task *t1 = w.s->rq[1].curr;
	deactivate_curr(&w, 1, TS_TASK_SLEEPING);
	/* woken on CPU 0: its blocked load leaves CPU 1 through the removed accumulator */
	activate(&w, t1, 0);
	uint64_t before = stats_of(g, 1).writes;
	w.f.now += 1 * MS;
	fake_lock(&w.f, 1);
	ts_sched_tick(w.s, 1); /* idle tick: __update_blocked_fair() folds the removed load */
	fake_unlock(&w.f, 1);
	assert_int_equal(stats_of(g, 1).writes, before + 1);
	assert_true(ts_tg_pcpu(g, 1)->tg_load_avg_contrib < contrib / 64);
	world_free(&w);
}

static void test_load_avg_write_counts(void **state)
{
	(void)state;
	scripted_counts(true);
	scripted_counts(false);
}

/* ---- the tg_line_access hook ----------------------------------------------------------------- */

struct access {
	int cpu;
	const void *line;
	bool write;
};
struct recorder {
	struct env w; /* first: the host pointer is &w.f */
	struct access a[4096];
	int n;
};

static void record_line(void *host, int cpu, const void *line, bool write)
{
	struct recorder *r = host;
	/* the hook gets the field's address; the tests here count by line */
	line = (const void *)((uintptr_t)line & ~(uintptr_t)63);
	if (r->n < 4096)
		r->a[r->n++] = (struct access){cpu, line, write};
}

static int count_of(const struct recorder *r, const void *line, int write /* -1 any */,
		    int cpu /* -1 any */)
{
	int n = 0;
	for (int i = 0; i < r->n; i++)
		if (r->a[i].line == line && (write < 0 || r->a[i].write == write) &&
		    (cpu < 0 || r->a[i].cpu == cpu))
			n++;
	return n;
}

static void hook_run(struct recorder *r, enum ts_tg_layout layout)
{
	static struct ts_host_ops ops;
	ops = fake_ops;
	ops.tg_line_access = record_line;
	memset(r, 0, sizeof(*r));
	world_init(&r->w, -2, "NO_NEWIDLE_BALANCE", layout, &ops);
	struct env *w = &r->w;
	struct ts_task_group *g = group(w, NULL, "G", 1024);
	spawn(w, g, 0, 0);
	spawn(w, g, 0, 1);
	spawn(w, NULL, 0, 0);
	schedule_all(w);
	run(w, 50 * MS);
	/* every recorded line is one of g's shared lines: never the root's, never others */
	int rest = 0;
	for (int i = 0; i < r->n; i++)
		if (r->a[i].line != ts_tg_ro_line(g) && r->a[i].line != ts_tg_load_line(g, 0) &&
		    r->a[i].line != ts_tg_load_line(g, 1))
			rest++;
	assert_int_equal(rest, 0);
	assert_int_equal(count_of(r, ts_tg_ro_line(w->s->root_tg), -1, -1), 0);
	/* every load_avg write and read the statistics count was reported */
	struct ts_tg_stats st;
	ts_tg_stats_sum(g, &st);
	int lw = 0, lr = 0;
	for (int i = 0; i < r->n; i++) {
		bool load = r->a[i].line == ts_tg_load_line(g, 0) ||
			    r->a[i].line == ts_tg_load_line(g, 1);
		if (!load || (layout == TS_TG_PACKED && !r->a[i].write))
			continue;
		lw += r->a[i].write;
		lr += !r->a[i].write;
	}
	assert_true(st.writes > 0 && st.reads > 0);
	assert_int_equal(lw, (int)st.writes);
	if (layout != TS_TG_PACKED)
		assert_int_equal(lr, (int)st.reads * (layout == TS_TG_PER_NODE ? 2 : 1));
}

static void test_line_access_hook(void **state)
{
	(void)state;
	static struct recorder r;
	/* PACKED: the read-mostly fields and load_avg on one line: written and read */
	hook_run(&r, TS_TG_PACKED);
	struct ts_task_group *g = r.w.s->root_tg->first_child;
	const void *ro = ts_tg_ro_line(g);
	assert_ptr_equal(ts_tg_load_line(g, 0), ro);
	assert_true(count_of(&r, ro, 1, 0) > 0 && count_of(&r, ro, 1, 1) > 0);
	assert_true(count_of(&r, ro, 0, 0) > 0 && count_of(&r, ro, 0, 1) > 0);
	world_free(&r.w);
	/* ALIGNED: two lines; the read-mostly one is never written */
	hook_run(&r, TS_TG_ALIGNED);
	g = r.w.s->root_tg->first_child;
	ro = ts_tg_ro_line(g);
	const void *load = ts_tg_load_line(g, 0);
	assert_ptr_not_equal(load, ro);
	assert_int_equal((const char *)load - (const char *)ro, 64);
	assert_int_equal(count_of(&r, ro, 1, -1), 0);
	assert_true(count_of(&r, ro, 0, -1) > 0);
	assert_true(count_of(&r, load, 1, 0) > 0 && count_of(&r, load, 1, 1) > 0);
	assert_true(count_of(&r, load, 0, -1) > 0);
	world_free(&r.w);
	/* PER_NODE (CPU 0 on node 0, CPU 1 on node 1): each CPU writes its node's line only,
	 * calc_group_shares() reads both */
	hook_run(&r, TS_TG_PER_NODE);
	g = r.w.s->root_tg->first_child;
	const void *n0 = ts_tg_load_line(g, 0), *n1 = ts_tg_load_line(g, 1);
	assert_ptr_not_equal(n0, n1);
	assert_true(count_of(&r, n0, 1, 0) > 0 && count_of(&r, n1, 1, 1) > 0);
	assert_int_equal(count_of(&r, n0, 1, 1), 0);
	assert_int_equal(count_of(&r, n1, 1, 0), 0);
	assert_int_equal(count_of(&r, n0, 0, 0), count_of(&r, n1, 0, 0));
	assert_true(count_of(&r, n1, 0, 0) > 0);
	assert_int_equal(count_of(&r, ts_tg_ro_line(g), 1, -1), 0);
	world_free(&r.w);
	/* set_task_rq() of a migration reads the read-mostly line (and NULL: no calls) */
	static struct ts_host_ops ops;
	ops = fake_ops;
	ops.tg_line_access = record_line;
	memset(&r, 0, sizeof(r));
	world_init(&r.w, 2, "NO_NEWIDLE_BALANCE", TS_TG_ALIGNED, &ops);
	struct env *w = &r.w;
	g = group(w, NULL, "G", 1024);
	struct ts_task *p = spawn(w, g, 0, 0);
	schedule_all(w);
	run(w, 5 * MS);
	deactivate_curr(w, 0, TS_TASK_SLEEPING);
	r.n = 0;
	activate(w, p, 1); /* woken on the other CPU */
	/* set_task_rq() and calc_group_shares() of the enqueue, and list_add_leaf_cfs_rq()'s
	 * parent read: CPU 1's group cfs_rq joins the leaf list */
	assert_int_equal(count_of(&r, ts_tg_ro_line(g), 0, 1), 3);
	assert_int_equal(count_of(&r, ts_tg_ro_line(g), -1, 0), 0);
	/* task_h_load(): a grouped task's reads tg->se[cpu]; a root task's reports nothing
	 * (the root's lines are never written) */
	struct ts_task *q = spawn(w, NULL, 0, 0);
	w->f.now += w->s->tick_nsec;
	r.n = 0;
	ts_task_h_load_of(w->s, q);
	assert_int_equal(r.n, 0);
	ts_task_h_load_of(w->s, p);
	assert_int_equal(r.n, 1);
	assert_ptr_equal(r.a[0].line, ts_tg_ro_line(g));
	ts_tg_set_line_access(w->s->root_tg, NULL, NULL);
	r.n = 0;
	run(w, 10 * MS);
	assert_int_equal(r.n, 0);
	world_free(&r.w);
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
		cmocka_unit_test(test_alone_in_group_equals_root),
		cmocka_unit_test(test_stress_walks),
		cmocka_unit_test(test_wake_elsewhere_removes_group_load),
		cmocka_unit_test(test_buddies_and_yield_across_levels),
		cmocka_unit_test(test_task_h_load_hierarchy),
		cmocka_unit_test(test_load_avg_write_rules),
		cmocka_unit_test(test_load_avg_write_counts),
		cmocka_unit_test(test_line_access_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
