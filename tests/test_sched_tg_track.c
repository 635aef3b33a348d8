/* struct ts_sched_config.tg_track_writer_node: passed to the root group, inherited by every
 * group created under it (nested ones too), each then with a writer line; tasks of one
 * group enqueued on CPUs of two nodes then count remote writes of tg->load_avg. Off (the
 * zero configuration, or no configuration at all): no writer line and no remote write for
 * the same run. Fake host, virtual time only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_env.h"

#define MS 1000000ULL

struct world {
	struct env env;		     /* two CPUs on two nodes, a task of h on each */
	struct ts_task_group *g, *h; /* h inside g */
};

/* cfg NULL = ts_sched_create() without a configuration. */
static void world_init(struct world *w, const struct ts_sched_config *cfg)
{
	memset(w, 0, sizeof(*w));
	env_open(&w->env, load_topology("synthetic:numa:2 core:1 pu:1"), NULL, cfg, NULL, 2);
	assert_int_equal(w->env.t->nr_nodes, 2);
	struct ts_error err = {0};
	if (ts_sched_group_create(w->env.s, NULL, "g", 1024, &w->g, &err) ||
	    ts_sched_group_create(w->env.s, w->g, "h", 1024, &w->h, &err))
		fail_msg("groups: %s", err.msg);
}

/* One task of h on each node's CPU, run for a few ms: every level's load_avg is written
 * from both nodes. */
static void run_on_both_nodes(struct world *w)
{
	struct env *e = &w->env;
	for (int c = 0; c < 2; c++) {
		struct ts_task *p = env_task(e, 0, NULL, c);
		assert_int_equal(ts_task_set_group(e->s, p, w->h), 0);
		fake_run_on(e->s, &e->f, p, c);
		assert_int_not_equal(e->t->cpu[c].node, e->t->cpu[1 - c].node);
	}
	for (int i = 0; i < 5; i++) {
		e->f.now += 2 * MS;
		for (int c = 0; c < 2; c++) {
			fake_lock(&e->f, c);
			ts_sched_tick(e->s, c);
			fake_unlock(&e->f, c);
		}
	}
}

static void world_free(struct world *w)
{
	assert_int_equal(w->env.f.lock_errors, 0);
	env_destroy(&w->env);
}

static void test_on_is_inherited_and_counts_remote_writes(void **state)
{
	(void)state;
	struct world w;
	struct ts_sched_config cfg = {.tg_track_writer_node = true};
	world_init(&w, &cfg);
	assert_true(w.env.s->root_tg->track_writer_node);
	const struct ts_task_group *groups[] = {w.g, w.h};
	for (int i = 0; i < 2; i++) {
		assert_true(groups[i]->track_writer_node);
		assert_non_null(groups[i]->writer);
		assert_int_equal(atomic_load(&groups[i]->writer->last_writer_node), -1);
	}
	run_on_both_nodes(&w);
	for (int i = 0; i < 2; i++) {
		struct ts_tg_stats st;
		ts_tg_stats_sum(groups[i], &st);
		assert_true(st.writes >= 2);
		assert_true(st.remote_writes >= 1);
		assert_true(st.remote_writes <= st.writes);
		int last = atomic_load(&groups[i]->writer->last_writer_node);
		assert_true(last == 0 || last == 1);
	}
	world_free(&w);
}

static void check_off(const struct ts_sched_config *cfg)
{
	struct world w;
	world_init(&w, cfg);
	assert_false(w.env.s->root_tg->track_writer_node);
	const struct ts_task_group *groups[] = {w.g, w.h};
	for (int i = 0; i < 2; i++) {
		assert_false(groups[i]->track_writer_node);
		assert_null(groups[i]->writer);
	}
	run_on_both_nodes(&w);
	for (int i = 0; i < 2; i++) {
		struct ts_tg_stats st;
		ts_tg_stats_sum(groups[i], &st);
		assert_true(st.writes >= 2);	       /* the same writes happen ... */
		assert_int_equal(st.remote_writes, 0); /* ... uncounted */
	}
	world_free(&w);
}

static void test_off_by_default(void **state)
{
	(void)state;
	struct ts_sched_config zero = {0};
	check_off(&zero);
	check_off(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_is_inherited_and_counts_remote_writes),
		cmocka_unit_test(test_off_by_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
