/* The runtime's wake path goes through the core's ttwu_queue_cond() (ttwu.h): the
 * placement of each wake-up says whether the kernel would queue its activation on the
 * target's wakelist, and rt_do_ttwu() counts those (ts_rt_stats.ttwu_queued). Where the
 * target worker runs nothing it activates the wake-up itself, off its inbox (counted in
 * ts_rt_stats.wakelist); a busy target's wake-up the waker activates. Two tasks ping-pong
 * over channels on a virtual machine of two LLCs (CPUs 0-1 and 2-3): pinned to CPUs 0
 * and 2, every wake-up a task issues crosses the LLCs, is one the kernel queues (the
 * target executes it, as the simulator's line model charges it: test_sim_groups.c) and,
 * its target idle (each CPU runs one task, which sleeps when woken), is activated by the
 * target; a deferred one (the waker found the task being switched out) is done by the
 * task's own worker, onto its own CPU, and is not. Both pinned to CPU 0, every wake-up is
 * onto the waker's own CPU and none is. test_ttwu_queue.c has the rule's cases. With
 * ts_chan_send_handoff() (WF_CURRENT_CPU) every placed wake-up goes to the waker's own
 * CPU, whatever is idle; with ts_chan_send_sync() to the wakee's idle previous CPU (unless
 * the pair came to share one), whose worker activates it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "toposched/runtime_core.h"

#define ROUNDS 200

struct pingpong {
	struct ts_chan *to_b, *to_a;
};

/* How both tasks send: ts_chan_send unless a test says otherwise. */
static int (*send_fn)(struct ts_chan *, const void *) = ts_chan_send;

static void *ping(void *arg)
{
	struct pingpong *pp = arg;
	for (int i = 0; i < ROUNDS; i++) {
		int v = i, r;
		assert_int_equal(send_fn(pp->to_b, &v), 0);
		assert_int_equal(ts_chan_recv(pp->to_a, &r), 0);
		assert_int_equal(r, i);
	}
	return NULL;
}

static void *pong(void *arg)
{
	struct pingpong *pp = arg;
	for (int i = 0; i < ROUNDS; i++) {
		int v;
		assert_int_equal(ts_chan_recv(pp->to_b, &v), 0);
		assert_int_equal(send_fn(pp->to_a, &v), 0);
	}
	return NULL;
}

/* The running runtime's placed wake-ups by reason, summed over its CPUs. */
static void placement_reasons(uint64_t reasons[TS_PLACE_NR])
{
	struct ts_sched *s = ts_rt_sched();
	for (int r = 0; r < TS_PLACE_NR; r++) {
		reasons[r] = 0;
		for (int c = 0; c < s->nr_cpus; c++)
			reasons[r] += ts_stat_read(&ts_cpu_rq(s, c)->stats.reasons[r]);
	}
}

/* Runs the ping-pong with a on cpus_a and b on cpus_b; the run's wake-ups and those the
 * kernel would have queued. */
static void run(const char *cpus_a, const char *cpus_b, uint64_t *wakeups, uint64_t *deferred,
		uint64_t *queued, uint64_t *listed, uint64_t reasons[TS_PLACE_NR])
{
	struct ts_rt_config cfg = {.topology = "synthetic:pack:2 l3:1 core:2 pu:1"};
	if (ts_rt_start(&cfg))
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
	struct pingpong pp = {ts_chan_create(1, sizeof(int)), ts_chan_create(1, sizeof(int))};
	assert_non_null(pp.to_b);
	assert_non_null(pp.to_a);
	struct ts_task_attr a = TS_TASK_ATTR_INIT, b = TS_TASK_ATTR_INIT;
	a.cpus = cpus_a;
	b.cpus = cpus_b;
	ts_task_handle hb = ts_spawn(pong, &pp, &b);
	ts_task_handle ha = ts_spawn(ping, &pp, &a);
	assert_true(ha.id && hb.id);
	assert_int_equal(ts_join(ha, NULL), 0);
	assert_int_equal(ts_join(hb, NULL), 0);
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	*wakeups = st.wakeups;
	*deferred = st.deferred_wakeups;
	*queued = st.ttwu_queued;
	*listed = st.wakelist;
	placement_reasons(reasons);
	ts_chan_destroy(pp.to_b);
	ts_chan_destroy(pp.to_a);
	assert_int_equal(ts_rt_stop(), 0);
}

static void test_cross_llc_wakeups_are_queued(void **state)
{
	(void)state;
	uint64_t wakeups, deferred, queued, listed, reasons[TS_PLACE_NR];
	run("0", "2", &wakeups, &deferred, &queued, &listed, reasons);
	print_message("    cross-LLC: %llu wake-ups (%llu deferred), %llu for the wakelist, %llu "
		      "activated by the target\n",
		      (unsigned long long)wakeups, (unsigned long long)deferred,
		      (unsigned long long)queued, (unsigned long long)listed);
	assert_true(wakeups > deferred);
	assert_int_equal(queued, wakeups - deferred);
	assert_int_equal(listed, queued);
}

static void test_same_cpu_wakeups_are_not(void **state)
{
	(void)state;
	uint64_t wakeups, deferred, queued, listed, reasons[TS_PLACE_NR];
	run("0", "0", &wakeups, &deferred, &queued, &listed, reasons);
	print_message("    same CPU: %llu wake-ups, %llu for the wakelist\n",
		      (unsigned long long)wakeups, (unsigned long long)queued);
	assert_true(wakeups > 0);
	assert_int_equal(queued, 0);
	assert_int_equal(listed, 0);
}

/* Placed wake-ups of a ping-pong that may run anywhere: WF_SYNC leaves them to
 * wake_affine() and select_idle_sibling(), which send the wakee to its idle previous CPU;
 * WF_CURRENT_CPU keeps every one the waker places on the waker's CPU. A deferred one (the
 * wakee was still being switched out) is placed by the wakee's own worker without the
 * waker or its flags, as the kernel's try_to_wake_up() leaves a wakee still on_cpu to its
 * own CPU's wake list: *deferred says how many of *placed those were. */
static uint64_t placed_on_current_cpu(int (*send)(struct ts_chan *, const void *), uint64_t *placed,
				      uint64_t *deferred, uint64_t *queued, uint64_t *listed)
{
	uint64_t wakeups, reasons[TS_PLACE_NR];
	send_fn = send;
	run("0-3", "0-3", &wakeups, deferred, queued, listed, reasons);
	send_fn = ts_chan_send;
	*placed = 0;
	for (int r = 0; r < TS_PLACE_NR; r++)
		*placed += reasons[r];
	return reasons[TS_PLACE_CURRENT_CPU];
}

static void test_handoff_wakes_on_current_cpu(void **state)
{
	(void)state;
	uint64_t placed, deferred, queued, listed,
		here = placed_on_current_cpu(ts_chan_send_handoff, &placed, &deferred, &queued,
					     &listed);
	print_message(
		"    hand-off: %llu of %llu placed wake-ups on the waker's CPU, %llu deferred\n",
		(unsigned long long)here, (unsigned long long)placed, (unsigned long long)deferred);
	assert_true(placed > deferred);
	assert_int_equal(here, placed - deferred);
	assert_int_equal(listed, 0);
	here = placed_on_current_cpu(ts_chan_send_sync, &placed, &deferred, &queued, &listed);
	print_message("    sync: %llu of %llu placed wake-ups for the wakelist, %llu activated by "
		      "their target\n",
		      (unsigned long long)queued, (unsigned long long)placed,
		      (unsigned long long)listed);
	assert_true(placed > 0);
	assert_int_equal(here, 0);
	/* Every CPU but the waker's runs nothing (two tasks; under load the pair may share
	 * one CPU, and then no wake-up is queued at all). */
	assert_int_equal(listed, queued);
}

/* A producer hands ROUNDS elements to a consumer over a rendezvous channel, both free to
 * run on any CPU, the producer with ts_chan_send_handoff(): each send that finds the
 * consumer waiting wakes it onto the producer's CPU, and each receive that finds the
 * producer waiting wakes it with the receive's flags. */
static int (*recv_fn)(struct ts_chan *, void *) = ts_chan_recv;

static void *producer(void *arg)
{
	for (int i = 0; i < ROUNDS; i++)
		assert_int_equal(ts_chan_send_handoff(arg, &i), 0);
	return NULL;
}

static void *consumer(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		int v;
		assert_int_equal(recv_fn(arg, &v), 0);
		assert_int_equal(v, i);
	}
	return NULL;
}

/* The rendezvous run with receives by recv; its placed wake-ups (*placed, of which
 * *deferred were placed by the wakee's own worker) and how many went to the waker's CPU. */
static uint64_t rendezvous_on_current_cpu(int (*recv)(struct ts_chan *, void *), uint64_t *placed,
					  uint64_t *deferred)
{
	struct ts_rt_config cfg = {.topology = "synthetic:pack:2 l3:1 core:2 pu:1"};
	if (ts_rt_start(&cfg))
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
	struct ts_chan *c = ts_chan_create(0, sizeof(int));
	assert_non_null(c);
	recv_fn = recv;
	ts_task_handle hc = ts_spawn(consumer, c, NULL), hp = ts_spawn(producer, c, NULL);
	assert_true(hc.id && hp.id);
	assert_int_equal(ts_join(hp, NULL), 0);
	assert_int_equal(ts_join(hc, NULL), 0);
	recv_fn = ts_chan_recv;
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	*deferred = st.deferred_wakeups;
	uint64_t reasons[TS_PLACE_NR];
	placement_reasons(reasons);
	*placed = 0;
	for (int r = 0; r < TS_PLACE_NR; r++)
		*placed += reasons[r];
	ts_chan_destroy(c);
	assert_int_equal(ts_rt_stop(), 0);
	return reasons[TS_PLACE_CURRENT_CPU];
}

/* With ts_chan_recv_handoff() the producer's wake-ups go to the consumer's CPU as the
 * consumer's go to the producer's: every placed wake-up is onto the waker's CPU. With
 * ts_chan_recv() the producer, woken while the consumer runs on the CPU they share, goes
 * where select_idle_sibling() finds an idle CPU. */
static void test_recv_handoff_wakes_on_current_cpu(void **state)
{
	(void)state;
	uint64_t placed, deferred,
		here = rendezvous_on_current_cpu(ts_chan_recv_handoff, &placed, &deferred);
	print_message("    receive hand-off: %llu of %llu placed wake-ups on the waker's CPU, "
		      "%llu deferred\n",
		      (unsigned long long)here, (unsigned long long)placed,
		      (unsigned long long)deferred);
	assert_true(placed > deferred);
	assert_int_equal(here, placed - deferred);
	here = rendezvous_on_current_cpu(ts_chan_recv, &placed, &deferred);
	print_message("    plain receive: %llu of %llu placed wake-ups on the waker's CPU, "
		      "%llu deferred\n",
		      (unsigned long long)here, (unsigned long long)placed,
		      (unsigned long long)deferred);
	assert_true(here < placed - deferred);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cross_llc_wakeups_are_queued),
		cmocka_unit_test(test_same_cpu_wakeups_are_not),
		cmocka_unit_test(test_handoff_wakes_on_current_cpu),
		cmocka_unit_test(test_recv_handoff_wakes_on_current_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
