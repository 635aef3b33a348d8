/* The segment ends (src/sim/segment_ends.h): the indexed heap keeps its order and its index
 * through every set, move, cancel and pop, and the engine's merge of it with the event
 * queue (sim_next_event()) fires events in exactly the order of the single queue with
 * lazily cancelled DONE events that it replaced. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/engine.h"

#include "test_support.h"

#define NR_CPUS 13 /* four levels of a 4-ary heap, the last one partly filled */

/* Random sets, moves (earlier and later), cancels and pops against a plain array: after
 * every operation the heap is valid and its first entry is the array's earliest. */
static void test_heap_matches_a_plain_array(void **state)
{
	(void)state;
	struct sim_seg_ends q;
	assert_int_equal(sim_seg_ends_init(&q, NR_CPUS), 0);
	bool set[NR_CPUS] = {false};
	uint64_t time[NR_CPUS], seq[NR_CPUS], next_seq = 0;
	rng_seed(7);
	for (int op = 0; op < 20000; op++) {
		int cpu = (int)(rng() % NR_CPUS);
		switch (rng() % 4) {
		case 0:
		case 1: /* set or move; few distinct times, so that seq decides ties */
			time[cpu] = rng() % 16;
			seq[cpu] = next_seq++;
			set[cpu] = true;
			sim_seg_ends_set(&q, cpu, time[cpu], seq[cpu]);
			break;
		case 2:
			set[cpu] = false;
			sim_seg_ends_cancel(&q, cpu);
			break;
		default:
			if (q.count) {
				set[q.heap[0].cpu] = false;
				sim_seg_ends_pop(&q);
			}
			break;
		}
		assert_true(sim_seg_ends_valid(&q, NR_CPUS));
		int first = -1, n = 0;
		for (int c = 0; c < NR_CPUS; c++) {
			if (!set[c])
				continue;
			n++;
			if (first < 0 || time[c] < time[first] ||
			    (time[c] == time[first] && seq[c] < seq[first]))
				first = c;
		}
		assert_int_equal(q.count, n);
		const struct ts_event *e = sim_seg_ends_peek(&q);
		if (first < 0) {
			assert_null(e);
			continue;
		}
		assert_int_equal(e->cpu, first);
		assert_int_equal(e->time, time[first]);
		assert_int_equal(e->seq, seq[first]);
	}
	sim_seg_ends_destroy(&q);
}

/* The old scheme: DONE events in the one queue, a move posting a new one and leaving the
 * old one to be skipped by its CPU's generation. */
struct one_queue {
	struct ts_event_queue q;
	uint64_t gen[NR_CPUS];
};

static void one_set_end(struct one_queue *o, int cpu, uint64_t time)
{
	o->gen[cpu]++;
	struct ts_event ev = {.time = time, .kind = EV_DONE, .cpu = cpu, .gen = o->gen[cpu]};
	assert_int_equal(ts_eq_push(&o->q, ev), 0);
}

static bool one_next(struct one_queue *o, struct ts_event *ev)
{
	while (ts_eq_pop(&o->q, ev)) {
		if (ev->kind != EV_DONE || ev->gen == o->gen[ev->cpu]) {
			if (ev->kind == EV_DONE)
				o->gen[ev->cpu]++; /* fired: nothing of this CPU is live */
			return true;
		}
	}
	return false;
}

/* The same random script of posts, segment ends set, moved and stopped, and pops, run on
 * the engine's split queues and on the old single queue: the same events in the same order
 * with the same seqs. */
static void test_split_queues_fire_in_the_single_queue_order(void **state)
{
	(void)state;
	struct sim *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	m->nr_cpus = NR_CPUS;
	assert_int_equal(ts_eq_init(&m->q, 4), 0);
	assert_int_equal(sim_seg_ends_init(&m->ends, NR_CPUS), 0);
	struct one_queue o = {0};
	assert_int_equal(ts_eq_init(&o.q, 4), 0);
	rng_seed(11);
	int pops = 0;
	for (int op = 0; op < 50000; op++) {
		int cpu = (int)(rng() % NR_CPUS);
		/* the old queue's clock runs ahead of the engine's when it popped only stale
		 * events; both take only times from the later of the two */
		uint64_t now = o.q.now > m->q.now ? o.q.now : m->q.now;
		uint64_t at = now + rng() % 8;
		switch (rng() % 5) {
		case 0: /* another event: a tick, a timer */
			sim_post(m, at, EV_TICK, cpu, NULL, (uint64_t)op);
			assert_int_equal(ts_eq_push(&o.q, (struct ts_event){.time = at,
									    .kind = EV_TICK,
									    .cpu = cpu,
									    .gen = (uint64_t)op}),
					 0);
			break;
		case 1: /* a segment starts, or its CPU got faster: its end moves */
			sim_post_end(m, cpu, at);
			one_set_end(&o, cpu, at);
			break;
		case 2: /* the segment stopped early */
			sim_seg_ends_cancel(&m->ends, cpu);
			o.gen[cpu]++;
			break;
		default: {
			struct ts_event a = {0}, b = {0};
			bool got = sim_next_event(m, &a);
			assert_int_equal(got, one_next(&o, &b));
			if (!got)
				break;
			pops++;
			assert_int_equal(a.time, b.time);
			assert_int_equal(a.seq, b.seq);
			assert_int_equal(a.kind, b.kind);
			assert_int_equal(a.cpu, b.cpu);
			if (a.kind != EV_DONE)
				assert_int_equal(a.gen, b.gen);
			break;
		}
		}
		assert_true(sim_seg_ends_valid(&m->ends, NR_CPUS));
	}
	assert_true(pops > 10000);
	ts_eq_destroy(&o.q);
	ts_eq_destroy(&m->q);
	sim_seg_ends_destroy(&m->ends);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heap_matches_a_plain_array),
		cmocka_unit_test(test_split_queues_fire_in_the_single_queue_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
