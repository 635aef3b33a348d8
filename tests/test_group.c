/* Task groups: calc_group_shares() against hand-computed cases, update_tg_load_avg()'s
 * 1/64 filter and 1 ms rate limit over a scripted timeline (exact update counts for each
 * switch setting), the three load_avg layouts (static layout checked again at run time),
 * PER_NODE sums against ALIGNED, the remote-writer counter, update_cfs_group(), h_load
 * through nested groups with the once-per-jiffy cache, hierarchy and dump. All inputs are
 * fixed or from a fixed-seed generator; nothing is timed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/group.h"

#include "test_support.h" /* rng_seed(), rng() */

#define MS 1000000ULL
#define US 1000ULL

static const struct ts_tg_switches SW_ALL = {.filter = true, .ratelimit = true};
static const struct ts_tg_switches SW_NONE = {.filter = false, .ratelimit = false};

static struct ts_task_group *mk_root(int nr_cpus, int nr_nodes, const int *map,
				     enum ts_tg_layout layout, bool track)
{
	struct ts_tg_root_params p = {.nr_cpus = nr_cpus,
				      .nr_nodes = nr_nodes,
				      .cpu_node = map,
				      .layout = layout,
				      .track_writer_node = track};
	struct ts_task_group *root = NULL;
	struct ts_error err = {0};
	if (ts_tg_create_root(&p, &root, &err))
		fail_msg("create root: %s", err.msg);
	return root;
}

static struct ts_task_group *mk_child(struct ts_task_group *parent, const char *name,
				      unsigned long shares, enum ts_tg_layout layout)
{
	struct ts_task_group *tg = NULL;
	struct ts_error err = {0};
	if (ts_tg_create(parent, name, shares, layout, &tg, &err))
		fail_msg("create %s: %s", name, err.msg);
	return tg;
}

/* The group cfs_rq's queued weight and PELT load_avg on cpu. */
static void set_load(struct ts_task_group *tg, int cpu, unsigned long weight, unsigned long avg)
{
	struct ts_cfs_rq *cfs = ts_tg_cfs_rq(tg, cpu);
	cfs->load.weight = weight;
	cfs->avg.load_avg = avg;
}

/* Set the load and publish it (both switches off: every change is written). */
static void publish(struct ts_task_group *tg, int cpu, unsigned long weight, unsigned long avg)
{
	set_load(tg, cpu, weight, avg);
	ts_update_tg_load_avg(tg, cpu, 10 * MS, SW_NONE);
}

/* ---- calc_group_shares ------------------------------------------------------------------ */

static void test_shares_single_cpu_full(void **state)
{
	(void)state;
	struct ts_task_group *root = mk_root(1, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	/* one nice-0 task queued, PELT load 500: load = max(1024, 500) = 1024, tg_weight =
	 * 500 - 500 + 1024 = 1024, shares = 1024 * 1024 / 1024 */
	set_load(g, 0, 1024, 500);
	assert_true(ts_update_tg_load_avg(g, 0, 10 * MS, SW_ALL));
	assert_int_equal(ts_tg_load_avg_read(g), 500);
	assert_int_equal(ts_calc_group_shares(g, 0), 1024);
	/* a fully loaded CPU: PELT above the queued weight */
	set_load(g, 0, 1024, 3000);
	ts_update_tg_load_avg(g, 0, 20 * MS, SW_ALL);
	assert_int_equal(ts_calc_group_shares(g, 0), 1024);
	/* shares 2048, two tasks */
	assert_int_equal(ts_tg_set_shares(g, 2048), 0);
	set_load(g, 0, 2048, 100);
	assert_int_equal(ts_calc_group_shares(g, 0), 2048);
	ts_tg_destroy_tree(root);
}

static void test_shares_up_case_on_smp(void **state)
{
	(void)state;
	/* The group runs on CPU 2 of 4 only: the lone CPU gets the whole tg weight. */
	struct ts_task_group *root = mk_root(4, 1, NULL, TS_TG_PACKED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_PACKED);
	publish(g, 2, 1024, 1024);
	assert_int_equal(ts_calc_group_shares(g, 2), 1024);
	ts_tg_destroy_tree(root);
}

static void test_shares_clamp_min(void **state)
{
	(void)state;
	struct ts_task_group *root = mk_root(2, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	publish(g, 0, 88761, 100000);
	/* CPU 1: nothing queued, a residue of 1 not yet published: load = 1, tg_weight =
	 * 100000 - 0 + 1, shares = 1024 / 100001 = 0 -> MIN_SHARES */
	set_load(g, 1, 0, 1);
	assert_int_equal(ts_calc_group_shares(g, 1), TS_MIN_SHARES);
	/* and nothing at all: tg_weight = 100000, shares = 0 -> 2 */
	set_load(g, 1, 0, 0);
	assert_int_equal(ts_calc_group_shares(g, 1), 2);
	/* the clamp's upper end is tg->shares; shares set below MIN_SHARES are raised */
	assert_int_equal(ts_tg_set_shares(g, 1), 0);
	assert_int_equal(ts_tg_shares(g), TS_MIN_SHARES);
	assert_int_equal(ts_calc_group_shares(g, 0), 2);
	assert_int_equal(ts_tg_set_shares(g, 1UL << 30), 0);
	assert_int_equal(ts_tg_shares(g), TS_MAX_SHARES);
	assert_int_equal(ts_tg_set_shares(root, 2048), -EINVAL);
	ts_tg_destroy_tree(root);
}

static void test_shares_overestimate(void **state)
{
	(void)state;
	/* fair.c: the approximation over-estimates, sum of ge->load.weight >= tg->weight.
	 * Two CPUs, each one nice-0 task, PELT 512 each: tg->load_avg = 1024; per CPU
	 * load = max(1024, 512) = 1024, tg_weight = 1024 - 512 + 1024 = 1536, shares =
	 * 1024 * 1024 / 1536 = 682 (ideal: 512 each). */
	struct ts_task_group *root = mk_root(2, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	publish(g, 0, 1024, 512);
	publish(g, 1, 1024, 512);
	assert_int_equal(ts_tg_load_avg_read(g), 1024);
	unsigned long s0 = ts_calc_group_shares(g, 0), s1 = ts_calc_group_shares(g, 1);
	assert_int_equal(s0, 682);
	assert_int_equal(s1, 682);
	assert_true(s0 + s1 > ts_tg_shares(g));
	ts_tg_destroy_tree(root);
}

static void test_shares_proportional(void **state)
{
	(void)state;
	/* Blocked load only (load.weight 0): shares_i = 1024 * l_i / sum(l) with sum = 10240. */
	struct ts_task_group *root = mk_root(4, 1, NULL, TS_TG_PER_NODE, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_PER_NODE);
	for (int c = 0; c < 4; c++)
		publish(g, c, 0, 1024UL * (unsigned long)(c + 1));
	assert_int_equal(ts_tg_load_avg_read(g), 10240);
	const unsigned long want[4] = {102, 204, 307, 409}; /* 102.4, 204.8, 307.2, 409.6 */
	for (int c = 0; c < 4; c++)
		assert_int_equal(ts_calc_group_shares(g, c), want[c]);
	struct ts_tg_stats st;
	ts_tg_stats_cpu(g, 3, &st);
	assert_int_equal(st.reads, 1);
	assert_int_equal(st.writes, 1);
	ts_tg_destroy_tree(root);
}

/* ---- update_tg_load_avg: filter and rate limit ------------------------------------------ */

struct step {
	uint64_t t;
	unsigned long load;
};
/* Hand-worked in the comments of test_ratelimit_filter_timeline. */
static const struct step timeline[] = {
	{2000 * US, 1000}, {2500 * US, 1010}, {3200 * US, 1010},
	{3300 * US, 1020}, {4000 * US, 1030}, {5200 * US, 1040},
	{5300 * US, 2000}, {7000 * US, 2000}, {8100 * US, 1990},
};
#define NSTEPS (sizeof(timeline) / sizeof(timeline[0]))

static void run_timeline(struct ts_tg_switches sw, const bool *want_update, uint64_t writes,
			 uint64_t skip_rl, uint64_t skip_f, long final)
{
	struct ts_task_group *root = mk_root(1, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	for (size_t i = 0; i < NSTEPS; i++) {
		set_load(g, 0, 1024, timeline[i].load);
		bool u = ts_update_tg_load_avg(g, 0, timeline[i].t, sw);
		if (u != want_update[i])
			fail_msg("filter=%d ratelimit=%d step %zu: update %d, expected %d",
				 sw.filter, sw.ratelimit, i + 1, u, want_update[i]);
		/* invariant: load_avg is the sum of the contributions */
		assert_int_equal(ts_tg_load_avg_read(g),
				 (long)ts_tg_pcpu(g, 0)->tg_load_avg_contrib);
	}
	struct ts_tg_stats st;
	ts_tg_stats_sum(g, &st);
	assert_int_equal(st.writes, writes);
	assert_int_equal(st.skipped_ratelimit, skip_rl);
	assert_int_equal(st.skipped_filter, skip_f);
	assert_int_equal(st.writes + st.skipped_ratelimit + st.skipped_filter, NSTEPS);
	assert_int_equal(ts_tg_load_avg_read(g), final);
	ts_tg_destroy_tree(root);
}

static void test_ratelimit_filter_timeline(void **state)
{
	(void)state;
	/* filter + rate limit (mainline v6.7+). contrib/last start at 0.
	 *  1 2.0ms 1000: 2.0-0 >= 1, |1000| > 0        -> U (c 1000, last 2.0)
	 *  2 2.5ms 1010: 0.5 < 1                        -> RL
	 *  3 3.2ms 1010: 1.2, |10| > 1000/64 = 15? no   -> F
	 *  4 3.3ms 1020: 1.3, 20 > 15                   -> U (c 1020, last 3.3)
	 *  5 4.0ms 1030: 0.7                            -> RL
	 *  6 5.2ms 1040: 1.9, 20 > 1020/64 = 15         -> U (c 1040, last 5.2)
	 *  7 5.3ms 2000: 0.1                            -> RL
	 *  8 7.0ms 2000: 1.8, 960 > 16                  -> U (c 2000, last 7.0)
	 *  9 8.1ms 1990: 1.1, 10 > 2000/64 = 31? no     -> F */
	const bool a[NSTEPS] = {1, 0, 0, 1, 0, 1, 0, 1, 0};
	run_timeline(SW_ALL, a, 4, 3, 2, 2000);
	/* filter only (before v6.7): 1 U; 2 10>15 F; 3 F; 4 20>15 U (1020); 5 10>15 F;
	 * 6 20>15 U (1040); 7 960>16 U (2000); 8 delta 0 F; 9 10>31 F */
	const bool b[NSTEPS] = {1, 0, 0, 1, 0, 1, 1, 0, 0};
	run_timeline((struct ts_tg_switches){.filter = true, .ratelimit = false}, b, 4, 0, 5, 2000);
	/* rate limit only: 1 U (last 2.0); 2 RL; 3 1.2 ms, delta 10 U (1010, last 3.2);
	 * 4 0.1 RL; 5 0.8 RL; 6 2.0 ms, 30 U (1040, last 5.2); 7 RL; 8 U (2000, 7.0);
	 * 9 1.1 ms, -10 U (1990) */
	const bool c[NSTEPS] = {1, 0, 1, 0, 0, 1, 0, 1, 1};
	run_timeline((struct ts_tg_switches){.filter = false, .ratelimit = true}, c, 5, 4, 0, 1990);
	/* neither: every non-zero delta (steps 3 and 8 have delta 0) */
	const bool d[NSTEPS] = {1, 1, 0, 1, 1, 1, 1, 0, 1};
	run_timeline(SW_NONE, d, 7, 0, 2, 1990);
}

static void test_ratelimit_is_per_cfs_rq(void **state)
{
	(void)state;
	struct ts_task_group *root = mk_root(2, 1, NULL, TS_TG_PACKED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_PACKED);
	set_load(g, 0, 1024, 1000);
	set_load(g, 1, 1024, 700);
	assert_true(ts_update_tg_load_avg(g, 0, 5 * MS, SW_ALL));
	assert_true(ts_update_tg_load_avg(g, 1, 5 * MS, SW_ALL)); /* its own timestamp */
	set_load(g, 0, 1024, 2000);
	assert_false(ts_update_tg_load_avg(g, 0, 5 * MS + 999999, SW_ALL));
	assert_true(ts_update_tg_load_avg(g, 0, 6 * MS, SW_ALL)); /* exactly 1 ms: allowed */
	assert_int_equal(ts_tg_load_avg_read(g), 2700);
	/* the root group keeps no load_avg */
	set_load(root, 0, 1024, 5000);
	assert_false(ts_update_tg_load_avg(root, 0, 100 * MS, SW_NONE));
	assert_int_equal(ts_tg_load_avg_read(root), 0);
	/* clear_tg_load_avg: CPU 0 leaves */
	ts_clear_tg_load_avg(g, 0, 7 * MS);
	assert_int_equal(ts_tg_load_avg_read(g), 700);
	assert_int_equal(ts_tg_pcpu(g, 0)->tg_load_avg_contrib, 0);
	ts_tg_destroy_tree(root);
}

/* ---- layouts ---------------------------------------------------------------------------- */

static size_t line_of(size_t off)
{
	return off / TS_TG_CACHELINE;
}

static void test_layouts(void **state)
{
	(void)state;
	const int map[4] = {0, 0, 1, 1};
	for (int l = 0; l < TS_TG_LAYOUT_NR; l++) {
		struct ts_task_group *root = mk_root(4, 2, map, (enum ts_tg_layout)l, true);
		struct ts_task_group *g = mk_child(root, "g", 1024, (enum ts_tg_layout)l);
		struct ts_tg_layout_info li;
		ts_tg_layout_info(g, &li);
		assert_int_equal(li.layout, l);
		assert_int_equal((uintptr_t)g % TS_TG_CACHELINE, 0);
		/* the read-mostly fields share one line in every layout */
		size_t ro = line_of(li.off_se);
		assert_int_equal(line_of(li.off_cfs_rq), ro);
		assert_int_equal(line_of(li.off_parent), ro);
		assert_int_equal(line_of(li.off_shares), ro);
		assert_ptr_equal((char *)g + li.off_parent, (char *)&g->hot.ro.parent);
		uintptr_t writer = (uintptr_t)g->writer;
		assert_int_equal(writer % TS_TG_CACHELINE, 0);
		switch (l) {
		case TS_TG_PACKED:
			assert_int_equal(li.nr_counters, 1);
			assert_int_equal(line_of(li.off_load_avg), ro);
			assert_ptr_equal(li.counter_addr[0], (char *)g + li.off_load_avg);
			break;
		case TS_TG_ALIGNED:
		case TS_TG_V6_4: /* the same counter line; the kernel's neighbours of load_avg */
		case TS_TG_RELAYOUT: /* are placed for the line model only (tg_layout.h) */
			assert_int_equal(li.nr_counters, 1);
			assert_int_equal(li.off_load_avg % TS_TG_CACHELINE, 0);
			assert_true(line_of(li.off_load_avg) != ro);
			assert_ptr_equal(li.counter_addr[0], (char *)g + li.off_load_avg);
			/* nothing but padding up to the next line: the cold fields start after */
			assert_true(offsetof(struct ts_task_group, layout) >=
				    li.off_load_avg + TS_TG_CACHELINE);
			break;
		default:
			assert_int_equal(li.nr_counters, 2);
			assert_int_equal(li.off_load_avg, SIZE_MAX);
			for (int n = 0; n < 2; n++) {
				uintptr_t a = (uintptr_t)li.counter_addr[n];
				assert_int_equal(a % TS_TG_CACHELINE, 0);
				/* outside the group and the writer line */
				assert_true(a >= (uintptr_t)g + sizeof(*g) ||
					    a + TS_TG_CACHELINE <= (uintptr_t)g);
				assert_true(a / TS_TG_CACHELINE != writer / TS_TG_CACHELINE);
			}
			assert_true((uintptr_t)li.counter_addr[1] - (uintptr_t)li.counter_addr[0] >=
				    TS_TG_CACHELINE);
			break;
		}
		if (l != TS_TG_PER_NODE)
			assert_true(writer / TS_TG_CACHELINE !=
				    (uintptr_t)li.counter_addr[0] / TS_TG_CACHELINE);
		/* per-CPU blocks are whole lines */
		assert_int_equal((uintptr_t)ts_tg_pcpu(g, 1) % TS_TG_CACHELINE, 0);
		assert_int_equal(sizeof(struct ts_tg_cpu) % TS_TG_CACHELINE, 0);
		ts_tg_destroy_tree(root);
	}
	enum ts_tg_layout out;
	assert_int_equal(ts_tg_layout_parse("per-node", &out, NULL), 0);
	assert_int_equal(out, TS_TG_PER_NODE);
	assert_int_equal(ts_tg_layout_parse("packed", &out, NULL), 0);
	assert_int_equal(out, TS_TG_PACKED);
	assert_int_equal(ts_tg_layout_parse("wide", &out, NULL), -EINVAL);
	assert_string_equal(ts_tg_layout_name(TS_TG_ALIGNED), "isolated");
	assert_string_equal(ts_tg_layout_name(TS_TG_PACKED), "v4.4");
	assert_int_equal(ts_tg_layout_parse("aligned", &out, NULL), 0); /* the old name */
	assert_int_equal(out, TS_TG_ALIGNED);
	/* the names by kernel version */
	assert_int_equal(ts_tg_layout_parse("v4.4", &out, NULL), 0);
	assert_int_equal(out, TS_TG_PACKED);
	assert_int_equal(ts_tg_layout_parse("isolated", &out, NULL), 0);
	assert_int_equal(out, TS_TG_ALIGNED);
	assert_int_equal(ts_tg_layout_parse("v6.4", &out, NULL), 0);
	assert_int_equal(out, TS_TG_V6_4);
	assert_int_equal(ts_tg_layout_parse("relayout", &out, NULL), 0);
	assert_int_equal(out, TS_TG_RELAYOUT);
}

static void test_per_node_equals_aligned(void **state)
{
	(void)state;
	const int map[8] = {0, 0, 1, 1, 2, 2, 3, 3};
	struct ts_task_group *ra = mk_root(8, 4, map, TS_TG_ALIGNED, true);
	struct ts_task_group *rp = mk_root(8, 4, map, TS_TG_PER_NODE, true);
	struct ts_task_group *a = mk_child(ra, "a", 1024, TS_TG_ALIGNED);
	struct ts_task_group *p = mk_child(rp, "p", 1024, TS_TG_PER_NODE);
	rng_seed(42);
	uint64_t now[8] = {0};
	for (int i = 0; i < 5000; i++) {
		int cpu = (int)(rng() % 8);
		unsigned long load = (unsigned long)(rng() % 4000);
		now[cpu] += 100 * US + rng() % (2 * MS);
		struct ts_tg_switches sw = {.filter = rng() & 1, .ratelimit = rng() & 1};
		set_load(a, cpu, 1024, load);
		set_load(p, cpu, 1024, load);
		bool ua = ts_update_tg_load_avg(a, cpu, now[cpu], sw);
		bool up = ts_update_tg_load_avg(p, cpu, now[cpu], sw);
		assert_int_equal(ua, up);
		assert_int_equal(ts_tg_load_avg_read(a), ts_tg_load_avg_read(p));
	}
	/* each node counter is the sum of its CPUs' contributions */
	for (int n = 0; n < 4; n++) {
		long sum = 0;
		for (int c = 0; c < 8; c++)
			if (map[c] == n)
				sum += (long)ts_tg_pcpu(p, c)->tg_load_avg_contrib;
		assert_int_equal(atomic_load(&p->hot.per_node.node[n].load_avg), sum);
	}
	for (int c = 0; c < 8; c++)
		assert_int_equal(ts_calc_group_shares(a, c), ts_calc_group_shares(p, c));
	struct ts_tg_stats sa, sp;
	ts_tg_stats_sum(a, &sa);
	ts_tg_stats_sum(p, &sp);
	assert_int_equal(sa.writes, sp.writes);
	assert_true(sa.remote_writes > 0);
	assert_int_equal(sp.remote_writes, 0); /* a node's line is only written by the node */
	ts_tg_destroy_tree(ra);
	ts_tg_destroy_tree(rp);
}

static void test_remote_writer_share(void **state)
{
	(void)state;
	const int map[4] = {0, 0, 1, 1};
	struct ts_task_group *root = mk_root(4, 2, map, TS_TG_PACKED, true);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_PACKED);
	/* writers: cpu0 (first), cpu1 (same node), cpu2 (remote), cpu0 (remote), cpu3 (remote) */
	const int order[5] = {0, 1, 2, 0, 3};
	for (int i = 0; i < 5; i++)
		publish(g, order[i], 1024, 100UL * (unsigned long)(i + 1));
	struct ts_tg_stats st, s0, s2;
	ts_tg_stats_sum(g, &st);
	assert_int_equal(st.writes, 5);
	assert_int_equal(st.remote_writes, 3);
	assert_true(ts_tg_remote_share(&st) > 0.59 && ts_tg_remote_share(&st) < 0.61);
	ts_tg_stats_cpu(g, 0, &s0);
	ts_tg_stats_cpu(g, 2, &s2);
	assert_int_equal(s0.writes, 2);
	assert_int_equal(s0.remote_writes, 1);
	assert_int_equal(s2.remote_writes, 1);
	/* per second over a caller's 2.5 ms interval */
	assert_true(ts_tg_per_sec(st.writes, 2500 * US) > 1999.9 &&
		    ts_tg_per_sec(st.writes, 2500 * US) < 2000.1);
	assert_true(ts_tg_per_sec(1, 0) < 0);
	ts_tg_destroy_tree(root);
	/* without tracking: no writer line, no remote count */
	root = mk_root(4, 2, map, TS_TG_ALIGNED, false);
	g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	assert_null(g->writer);
	for (int i = 0; i < 5; i++)
		publish(g, order[i], 1024, 100UL * (unsigned long)(i + 1));
	ts_tg_stats_sum(g, &st);
	assert_int_equal(st.writes, 5);
	assert_int_equal(st.remote_writes, 0);
	ts_tg_destroy_tree(root);
}

/* ---- update_cfs_group ------------------------------------------------------------------- */

static void test_update_cfs_group(void **state)
{
	(void)state;
	struct ts_task_group *root = mk_root(2, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	struct ts_sched_entity *se = ts_tg_se(g, 0);
	assert_non_null(se);
	assert_ptr_equal(se->my_q, ts_tg_cfs_rq(g, 0));
	assert_ptr_equal(se->cfs_rq, ts_tg_cfs_rq(root, 0));
	assert_null(se->parent);
	assert_int_equal(se->load.weight, 1024);
	assert_null(ts_tg_se(root, 0));
	struct ts_features f = ts_features_default();
	assert_false(ts_update_cfs_group(root, 0, 0, f));
	/* empty group cfs_rq: weight kept */
	assert_false(ts_update_cfs_group(g, 0, 0, f));
	assert_int_equal(se->load.weight, 1024);
	/* the over-estimation setup: 682, and the PELT average follows the new weight:
	 * 682 * 23000 / (46718 + 0) = 335, moved into the parent's sums; the dequeued
	 * entity's vlag is rescaled: 1000 * 1024 / 682 = 1501 */
	publish(g, 0, 1024, 512);
	publish(g, 1, 1024, 512);
	se->avg.load_sum = 23000;
	se->avg.period_contrib = 0;
	se->vlag = 1000;
	assert_true(ts_update_cfs_group(g, 0, 0, f));
	assert_int_equal(se->load.weight, 682);
	assert_int_equal(se->avg.load_avg, 335);
	assert_int_equal(se->vlag, 1501);
	assert_int_equal(ts_tg_cfs_rq(root, 0)->avg.load_avg, 335);
	assert_int_equal(ts_tg_cfs_rq(root, 0)->avg.load_sum, 682ULL * 23000);
	/* a queued group entity is reweighted in place: weight, queue sums and tree */
	struct ts_cfs_rq *rcfs = ts_tg_cfs_rq(root, 0);
	struct ts_sched_entity other;
	ts_sched_entity_init(&other);
	ts_enqueue_task(rcfs, &other, 1000, 0, f);
	ts_enqueue_task(rcfs, se, 1000, 0, f);
	publish(g, 0, 1024, 2000); /* 1024 * 2000 / (2512 - 2000 + 2000) = 815 */
	assert_true(ts_update_cfs_group(g, 0, 1000, f));
	assert_int_equal(se->load.weight, 815);
	assert_int_equal(rcfs->load.weight, 1024 + 815);
	assert_int_equal(rcfs->avg_load, 1024 + 815);
	const char *why = NULL;
	assert_int_equal(ts_cfs_rq_check(rcfs, &why), 0);
	ts_tg_destroy_tree(root);
}

/* ---- h_load ----------------------------------------------------------------------------- */

static void test_h_load_nested(void **state)
{
	(void)state;
	struct ts_task_group *root = mk_root(1, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *a = mk_child(root, "A", 1024, TS_TG_ALIGNED);
	struct ts_task_group *b = mk_child(a, "B", 1024, TS_TG_ALIGNED);
	assert_ptr_equal(ts_tg_se(b, 0)->parent, ts_tg_se(a, 0));
	assert_int_equal(ts_tg_se(b, 0)->depth, 1);
	assert_int_equal(b->depth, 2);
	set_load(root, 0, 0, 3000);
	ts_tg_se(a, 0)->avg.load_avg = 2000;
	set_load(a, 0, 0, 1000);
	ts_tg_se(b, 0)->avg.load_avg = 600;
	set_load(b, 0, 0, 999);
	/* root 3000; A = 3000 * 2000 / 3001 = 1999; B = 1999 * 600 / 1001 = 1198;
	 * task of B with load 500: 500 * 1198 / 1000 = 599 */
	assert_int_equal(ts_tg_update_h_load(root, 0, 1), 3000);
	assert_int_equal(ts_tg_update_h_load(b, 0, 1), 1198);
	assert_int_equal(ts_tg_pcpu(a, 0)->h_load, 1999);
	assert_int_equal(ts_task_h_load(b, 0, 500, 1), 599);
	/* jiffy 5: A computed, then loads change: B's walk up stops at A (cached) */
	assert_int_equal(ts_tg_update_h_load(a, 0, 5), 1999);
	set_load(root, 0, 0, 6000);
	ts_tg_se(a, 0)->avg.load_avg = 4000;
	assert_int_equal(ts_tg_update_h_load(b, 0, 5), 1198);
	assert_int_equal(ts_tg_update_h_load(a, 0, 5), 1999);
	assert_int_equal(ts_tg_pcpu(root, 0)->h_load, 3000);
	/* jiffy 6: A = 6000 * 4000 / 6001 = 3999; B = 3999 * 600 / 1001 = 2397 */
	assert_int_equal(ts_tg_update_h_load(b, 0, 6), 2397);
	assert_int_equal(ts_tg_pcpu(a, 0)->h_load, 3999);
	assert_int_equal(ts_tg_pcpu(root, 0)->h_load, 6000);
	ts_tg_destroy_tree(root);
}

static void test_h_load_composes(void **state)
{
	(void)state;
	/* Each level takes half of its parent's load: h_load halves per level (minus the +1
	 * rounding), and a task owning all of the deepest queue gets that queue's h_load. */
	struct ts_task_group *root = mk_root(1, 1, NULL, TS_TG_PACKED, false);
	struct ts_task_group *g[5];
	struct ts_task_group *parent = root;
	set_load(root, 0, 0, 1UL << 20);
	for (int i = 0; i < 5; i++) {
		char name[8];
		snprintf(name, sizeof(name), "g%d", i);
		g[i] = mk_child(parent, name, 1024, TS_TG_PACKED);
		ts_tg_se(g[i], 0)->avg.load_avg = ts_tg_cfs_rq(parent, 0)->avg.load_avg / 2;
		set_load(g[i], 0, 0, 1000);
		parent = g[i];
	}
	unsigned long h = ts_tg_update_h_load(g[4], 0, 7);
	unsigned long want = 1UL << 20;
	for (int i = 0; i < 5; i++) {
		unsigned long pl = i ? 1000 : 1UL << 20;
		want = want * ts_tg_se(g[i], 0)->avg.load_avg / (pl + 1);
		assert_int_equal(ts_tg_pcpu(g[i], 0)->h_load, want);
	}
	assert_int_equal(h, want);
	assert_int_equal(ts_task_h_load(g[4], 0, 1000, 7), want * 1000 / 1001);
	ts_tg_destroy_tree(root);
}

/* ---- hierarchy and dump ----------------------------------------------------------------- */

static void test_hierarchy_dump(void **state)
{
	(void)state;
	struct ts_task_group *root = mk_root(2, 1, NULL, TS_TG_ALIGNED, false);
	struct ts_task_group *a = mk_child(root, "A", 2048, TS_TG_ALIGNED);
	struct ts_task_group *b = mk_child(a, "B", 512, TS_TG_PER_NODE);
	struct ts_task_group *c = mk_child(root, "C", 0, TS_TG_PACKED);
	assert_true(ts_tg_is_root(root));
	assert_ptr_equal(ts_tg_parent(b), a);
	assert_int_equal(ts_tg_shares(c), 1024);
	publish(b, 1, 1024, 77);
	const char *want = "/ shares=1024 parent=- layout=isolated load_avg=0\n"
			   "  A shares=2048 parent=/ layout=isolated load_avg=0\n"
			   "    B shares=512 parent=A layout=per-node load_avg=77\n"
			   "  C shares=1024 parent=/ layout=v4.4 load_avg=0\n";
	char buf[512];
	size_t n = ts_tg_dump(root, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
	char small[20];
	assert_int_equal(ts_tg_dump(root, small, sizeof(small)), strlen(want));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, want, sizeof(small) - 1);
	assert_int_equal(ts_tg_dump(root, NULL, 0), strlen(want));

	assert_int_equal(ts_tg_destroy(a), -EBUSY);
	assert_int_equal(ts_tg_destroy(b), 0);
	assert_int_equal(ts_tg_destroy(a), 0);
	n = ts_tg_dump(root, buf, sizeof(buf));
	assert_string_equal(buf, "/ shares=1024 parent=- layout=isolated load_avg=0\n"
				 "  C shares=1024 parent=/ layout=v4.4 load_avg=0\n");
	struct ts_task_group *d = mk_child(root, "D", 100, TS_TG_ALIGNED);
	assert_ptr_equal(root->last_child, d);
	assert_ptr_equal(c->next_sibling, d);
	ts_tg_destroy_tree(root);
}

static void test_create_errors(void **state)
{
	(void)state;
	struct ts_error err = {0};
	struct ts_task_group *tg = (void *)1;
	const int bad[2] = {0, 2};
	struct ts_tg_root_params p = {.nr_cpus = 2, .nr_nodes = 2, .cpu_node = bad};
	assert_int_equal(ts_tg_create_root(&p, &tg, &err), -EINVAL);
	assert_null(tg);
	assert_non_null(strstr(err.msg, "CPU 1 on node 2"));
	p.nr_cpus = 0;
	assert_int_equal(ts_tg_create_root(&p, &tg, NULL), -EINVAL);
	p = (struct ts_tg_root_params){.nr_cpus = 2, .nr_nodes = 1, .layout = TS_TG_LAYOUT_NR};
	assert_int_equal(ts_tg_create_root(&p, &tg, NULL), -EINVAL);
	struct ts_task_group *root = mk_root(2, 1, NULL, TS_TG_ALIGNED, false);
	assert_int_equal(ts_tg_create(root, "", 1024, TS_TG_ALIGNED, &tg, NULL), -EINVAL);
	assert_int_equal(ts_tg_create(root, "a b", 1024, TS_TG_ALIGNED, &tg, NULL), -EINVAL);
	assert_int_equal(ts_tg_create(NULL, "x", 1024, TS_TG_ALIGNED, &tg, NULL), -EINVAL);
	/* a root on the host's run queues */
	struct ts_cfs_rq host[2] = {0};
	struct ts_cfs_rq *hp[2] = {&host[0], &host[1]};
	ts_tg_destroy_tree(root);
	p = (struct ts_tg_root_params){.nr_cpus = 2, .nr_nodes = 1, .root_cfs_rq = hp};
	assert_int_equal(ts_tg_create_root(&p, &root, NULL), 0);
	struct ts_task_group *g = mk_child(root, "g", 1024, TS_TG_ALIGNED);
	assert_ptr_equal(ts_tg_cfs_rq(root, 1), &host[1]);
	assert_ptr_equal(ts_tg_se(g, 1)->cfs_rq, &host[1]);
	host[0].avg.load_avg = 4242;
	assert_int_equal(ts_tg_update_h_load(root, 0, 3), 4242);
	ts_tg_destroy_tree(root);
}

/* The switches follow the feature set (TG_LOAD_FILTER, TG_LOAD_RATELIMIT). */
static void test_switches_from_features(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_tg_switches sw = ts_tg_switches_of(f);
	assert_true(sw.filter && sw.ratelimit);
	struct ts_error err = {0};
	assert_int_equal(ts_features_parse("NO_TG_LOAD_RATELIMIT", &f, &err), 0);
	sw = ts_tg_switches_of(f);
	assert_true(sw.filter);
	assert_false(sw.ratelimit);
	assert_int_equal(ts_features_parse("NO_TG_LOAD_FILTER TG_LOAD_RATELIMIT", &f, &err), 0);
	sw = ts_tg_switches_of(f);
	assert_false(sw.filter);
	assert_true(sw.ratelimit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares_single_cpu_full),
		cmocka_unit_test(test_shares_up_case_on_smp),
		cmocka_unit_test(test_shares_clamp_min),
		cmocka_unit_test(test_shares_overestimate),
		cmocka_unit_test(test_shares_proportional),
		cmocka_unit_test(test_ratelimit_filter_timeline),
		cmocka_unit_test(test_ratelimit_is_per_cfs_rq),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_per_node_equals_aligned),
		cmocka_unit_test(test_remote_writer_share),
		cmocka_unit_test(test_update_cfs_group),
		cmocka_unit_test(test_h_load_nested),
		cmocka_unit_test(test_h_load_composes),
		cmocka_unit_test(test_hierarchy_dump),
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_switches_from_features),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
