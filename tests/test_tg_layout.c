/* The task group layouts by kernel version (tg_layout.h): which fields share the load_avg
 * line in each, with and without CONFIG_RT_GROUP_SCHED, as struct task_group of each
 * version has them; the readers perf c2c would see on that line (sim_groups.h); and the
 * core reporting set_task_rq()'s rt_rq read and list_add_leaf_cfs_rq()'s parent read
 * there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/groups_run.h"
#include "test_support.h"
#include "toposched/group.h"
#include "toposched/tg_layout.h"

/* Does `field` lie on the load_avg line of layout l? */
static bool on_load_line(enum ts_tg_layout l, bool rt, enum ts_tg_field field)
{
	size_t load = ts_tg_field_offset(l, rt, TS_TG_FIELD_LOAD_AVG),
	       off = ts_tg_field_offset(l, rt, field);
	return off != SIZE_MAX && off / 64 == load / 64;
}

/* The set of fields on the load_avg line, as a bit mask over enum ts_tg_field. */
static unsigned line_set(enum ts_tg_layout l, bool rt)
{
	unsigned m = 0;
	for (int f = 0; f < TS_TG_FIELD_NR; f++)
		if (on_load_line(l, rt, (enum ts_tg_field)f))
			m |= 1u << f;
	return m;
}

#define B(f) (1u << TS_TG_FIELD_##f)

static void test_fields_on_the_load_avg_line(void **state)
{
	(void)state;
	/* v6.4: load_avg at +0x0 of its own aligned line; with RT rt_se +0x8, rt_rq +0x10;
	 * without, rcu +0x8, list +0x18, parent +0x28 */
	assert_int_equal(line_set(TS_TG_V6_4, true), B(LOAD_AVG) | B(RT_SE) | B(RT_RQ));
	assert_int_equal(ts_tg_field_offset(TS_TG_V6_4, true, TS_TG_FIELD_RT_SE) % 64, 0x8);
	assert_int_equal(ts_tg_field_offset(TS_TG_V6_4, true, TS_TG_FIELD_RT_RQ) % 64, 0x10);
	assert_int_equal(line_set(TS_TG_V6_4, false), B(LOAD_AVG) | B(PARENT));
	assert_int_equal(ts_tg_field_offset(TS_TG_V6_4, false, TS_TG_FIELD_PARENT) % 64, 0x28);
	/* the re-layout: load_avg with rcu/list/siblings/children; parent, rt_se, rt_rq next */
	for (int rt = 0; rt < 2; rt++) {
		assert_int_equal(line_set(TS_TG_RELAYOUT, rt), B(LOAD_AVG));
		assert_int_equal(line_set(TS_TG_ALIGNED, rt), B(LOAD_AVG));
		size_t load = ts_tg_field_offset(TS_TG_RELAYOUT, rt, TS_TG_FIELD_LOAD_AVG);
		assert_int_equal(ts_tg_field_offset(TS_TG_RELAYOUT, rt, TS_TG_FIELD_PARENT),
				 load + 64);
		assert_int_equal(ts_tg_field_offset(TS_TG_RELAYOUT, rt, TS_TG_FIELD_RT_SE),
				 rt ? load + 64 + 8 : SIZE_MAX);
		/* v4.4: se, cfs_rq, parent, shares, load_avg, rt_se, rt_rq all on one line */
		assert_int_equal(line_set(TS_TG_PACKED, rt),
				 B(SE) | B(CFS_RQ) | B(SHARES) | B(LOAD_AVG) | B(PARENT) |
					 (rt ? B(RT_SE) | B(RT_RQ) : 0));
	}
	/* se, cfs_rq and shares: the line before load_avg in every layout but v4.4 */
	for (int l = 0; l < TS_TG_LAYOUT_NR; l++)
		assert_int_equal(
			ts_tg_field_offset((enum ts_tg_layout)l, false, TS_TG_FIELD_SHARES), 0x18);
	assert_int_equal(ts_tg_field_offset(TS_TG_PER_NODE, true, TS_TG_FIELD_LOAD_AVG), SIZE_MAX);
	assert_string_equal(ts_tg_field_name(TS_TG_FIELD_RT_RQ), "rt_rq");
}

/* The readers by 8-byte word of the load_avg line, as c2c splits them. */
static void test_readers_by_word(void **state)
{
	(void)state;
	unsigned char w[8];
	sim_groups_word_readers(TS_TG_V6_4, true, w);
	assert_int_equal(w[0], TS_SIM_TG_UPDATE_CFS_GROUP);
	assert_int_equal(w[1], TS_SIM_TG_SET_TASK_CPU);
	assert_int_equal(w[2], TS_SIM_TG_SET_TASK_CPU);
	for (int i = 3; i < 8; i++)
		assert_int_equal(w[i], TS_SIM_TG_READER_OTHER);
	sim_groups_word_readers(TS_TG_V6_4, false, w);
	assert_int_equal(w[0], TS_SIM_TG_UPDATE_CFS_GROUP);
	assert_int_equal(w[5], TS_SIM_TG_LIST_ADD_LEAF); /* parent at +0x28 */
	assert_int_equal(w[1], TS_SIM_TG_READER_OTHER);	 /* rcu: nobody reads it */
	sim_groups_word_readers(TS_TG_RELAYOUT, true, w);
	assert_int_equal(w[0], TS_SIM_TG_UPDATE_CFS_GROUP);
	for (int i = 1; i < 8; i++)
		assert_int_equal(w[i], TS_SIM_TG_READER_OTHER);
	sim_groups_word_readers(TS_TG_PACKED, true, w);
	assert_int_equal(w[0], TS_SIM_TG_READER_OTHER);	    /* se: h_load, blocked walk */
	assert_int_equal(w[1], TS_SIM_TG_SET_TASK_CPU);	    /* cfs_rq */
	assert_int_equal(w[2], TS_SIM_TG_LIST_ADD_LEAF);    /* parent */
	assert_int_equal(w[3], TS_SIM_TG_UPDATE_CFS_GROUP); /* shares */
	assert_int_equal(w[4], TS_SIM_TG_UPDATE_CFS_GROUP); /* load_avg */
	assert_int_equal(w[5], TS_SIM_TG_SET_TASK_CPU);	    /* rt_se */
	assert_int_equal(w[6], TS_SIM_TG_SET_TASK_CPU);	    /* rt_rq */
	/* the published split: update_cfs_group and set_task_cpu only */
	assert_near(ts_sim_tg_c2c_share(TS_SIM_TG_UPDATE_CFS_GROUP, true), 63.72, 1e-9);
	assert_near(ts_sim_tg_c2c_share(TS_SIM_TG_SET_TASK_CPU, false), 16.30 + 14.97, 1e-9);
	assert_near(ts_sim_tg_c2c_share(TS_SIM_TG_LIST_ADD_LEAF, false), -1, 1e-9);
}

struct rec {
	const void *addr[16];
	int n;
};
static void record(void *host, int cpu, const void *addr, bool write)
{
	(void)cpu;
	assert_false(write);
	struct rec *r = host;
	if (r->n < 16)
		r->addr[r->n++] = addr;
}

/* set_task_rq() reads cfs_rq[] (the read-mostly line) and, with RT_GROUP_SCHED, rt_rq[]
 * where the layout puts it: in v6.4 on the load_avg line at +0x10; the parent read of
 * list_add_leaf_cfs_rq() lands on the load_avg line in v6.4 without RT (+0x28). */
static void test_core_reports_the_readers(void **state)
{
	(void)state;
	static struct rec r;
	for (int rt = 0; rt < 2; rt++) {
		struct ts_tg_root_params p = {.nr_cpus = 2,
					      .nr_nodes = 1,
					      .layout = TS_TG_V6_4,
					      .line_access = record,
					      .line_host = &r};
		struct ts_task_group *root, *g;
		assert_int_equal(ts_tg_create_root(&p, &root, NULL), 0);
		assert_int_equal(ts_tg_create(root, "g", 1024, TS_TG_V6_4, &g, NULL), 0);
		g->rt_group_sched = rt;
		const char *base = (const char *)g;
		struct ts_sched_entity se;
		memset(&se, 0, sizeof(se));
		memset(&r, 0, sizeof(r));
		ts_tg_set_task_rq(g, 1, &se);
		assert_int_equal(r.n, rt ? 2 : 1);
		assert_ptr_equal(r.addr[0], base + 0x8); /* cfs_rq[] */
		if (rt)
			assert_ptr_equal(r.addr[1], base + 64 + 0x10); /* rt_rq[] */
		assert_ptr_equal(se.cfs_rq, ts_tg_cfs_rq(g, 1));
		r.n = 0;
		ts_tg_note_parent_read(g, 1);
		assert_int_equal(r.n, 1);
		assert_ptr_equal(r.addr[0], rt ? base + 3 * 64 + 0x18 : base + 64 + 0x28);
		/* the root's lines are never written: nothing reported */
		r.n = 0;
		ts_tg_note_parent_read(root, 0);
		assert_int_equal(r.n, 0);
		ts_tg_destroy_tree(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_on_the_load_avg_line),
		cmocka_unit_test(test_readers_by_word),
		cmocka_unit_test(test_core_reports_the_readers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
