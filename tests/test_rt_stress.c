/* Runtime stress: producers and consumers over many channels of different capacities,
 * request/response pairs (WF_SYNC), a mutex-protected counter, random yields, sleeps
 * and nested spawns. Checks counts only: every message received exactly once, every task
 * joined, every request answered. Sized to take a few seconds on 2 cores, also under
 * TSan (TS_STRESS_SCALE multiplies the message counts). */
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

#define NR_CHANS	   8
#define PRODUCERS_PER_CHAN 4
#define CONSUMERS_PER_CHAN 3
#define NR_PAIRS	   6

static int scale = 1;
static int msgs_per_producer = 1000;

struct rng {
	uint64_t s;
};
static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/* Random yield / short sleep / nested spawn. Returns tasks it spawned and joined. */
static atomic_long child_runs;
static void *child(void *arg)
{
	atomic_fetch_add(&child_runs, 1);
	if ((uintptr_t)arg & 1)
		ts_yield();
	return (void *)((uintptr_t)arg * 3);
}

static int jitter(struct rng *r)
{
	uint64_t x = rnd(r) % 64;
	if (x < 8)
		return ts_yield();
	if (x == 8)
		return ts_sleep_ns(1000 + rnd(r) % 20000);
	if (x == 9) {
		uintptr_t v = (uintptr_t)(rnd(r) % 1000);
		ts_task_handle h = ts_spawn(child, (void *)v, NULL);
		if (!h.id)
			return -1;
		void *ret;
		if (ts_join(h, &ret) || (uintptr_t)ret != v * 3)
			return -1;
	}
	return 0;
}

struct chan_ctx {
	struct ts_chan *c;
	struct ts_waitgroup *producers;
	int index;
};

static atomic_uchar *seen; /* [NR_CHANS * PRODUCERS_PER_CHAN * msgs] */
static atomic_long received;
static atomic_long failures;

struct prod_arg {
	struct chan_ctx *cc;
	int id; /* global producer number */
};

static void *producer(void *arg)
{
	struct prod_arg *p = arg;
	struct rng r = {UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(p->id + 1)};
	for (int i = 0; i < msgs_per_producer; i++) {
		uint32_t msg = (uint32_t)(p->id * msgs_per_producer + i);
		int rc = (rnd(&r) % 8 == 0) ? ts_chan_try_send(p->cc->c, &msg) : -EAGAIN;
		if (rc == -EAGAIN)
			rc = ts_chan_send(p->cc->c, &msg);
		if (rc || jitter(&r))
			atomic_fetch_add(&failures, 1);
	}
	ts_wg_done(p->cc->producers);
	return NULL;
}

static void *consumer(void *arg)
{
	struct chan_ctx *cc = arg;
	struct rng r = {UINT64_C(0xD1B54A32D192ED03) * (uint64_t)(cc->index + 7)};
	uint32_t msg;
	int rc;
	long n = 0;
	while ((rc = ts_chan_recv(cc->c, &msg)) == 0) {
		if (atomic_fetch_add(&seen[msg], 1) != 0)
			atomic_fetch_add(&failures, 1); /* received twice */
		atomic_fetch_add(&received, 1);
		n++;
		if (jitter(&r))
			atomic_fetch_add(&failures, 1);
	}
	if (rc != -EPIPE)
		atomic_fetch_add(&failures, 1);
	return (void *)n;
}

static void *closer(void *arg)
{
	struct chan_ctx *cc = arg;
	ts_wg_wait(cc->producers);
	return (void *)(intptr_t)ts_chan_close(cc->c);
}

/* Request/response: the client sends with WF_SYNC and waits for the reply. */
struct pair {
	struct ts_chan *req, *resp;
	struct ts_mutex *m;
	long *shared;
	int n;
};

static void *server(void *arg)
{
	struct pair *p = arg;
	uint64_t v;
	while (ts_chan_recv(p->req, &v) == 0) {
		v += 1;
		if (ts_chan_send(p->resp, &v))
			return (void *)1;
	}
	return NULL;
}

static void *client(void *arg)
{
	struct pair *p = arg;
	for (int i = 0; i < p->n; i++) {
		uint64_t v = (uint64_t)i * 10, back;
		if (ts_chan_send_sync(p->req, &v) || ts_chan_recv(p->resp, &back) || back != v + 1)
			return (void *)1;
		if (ts_mutex_lock(p->m))
			return (void *)2;
		(*p->shared)++;
		if (i % 16 == 0)
			ts_yield();
		ts_mutex_unlock(p->m);
	}
	ts_chan_close(p->req);
	return NULL;
}

static void run_stress(const char *features, const char *topology, const char *cpulist)
{
	struct ts_rt_config cfg = {.features = features, .topology = topology, .cpulist = cpulist};
	assert_int_equal(ts_rt_start(&cfg), 0);
	int nr_prod = NR_CHANS * PRODUCERS_PER_CHAN;
	size_t nr_msgs = (size_t)nr_prod * (size_t)msgs_per_producer;
	seen = calloc(nr_msgs, sizeof(*seen));
	assert_non_null(seen);
	atomic_store(&received, 0);
	atomic_store(&failures, 0);
	atomic_store(&child_runs, 0);

	struct chan_ctx cc[NR_CHANS];
	struct prod_arg pa[NR_CHANS * PRODUCERS_PER_CHAN];
	ts_task_handle h[NR_CHANS * (PRODUCERS_PER_CHAN + CONSUMERS_PER_CHAN + 1)];
	int nh = 0;
	for (int c = 0; c < NR_CHANS; c++) {
		cc[c].c = ts_chan_create((size_t)(c % 4 == 0   ? 0
						  : c % 4 == 1 ? 1
							       : c * 3),
					 sizeof(uint32_t));
		cc[c].producers = ts_wg_create();
		cc[c].index = c;
		ts_wg_add(cc[c].producers, PRODUCERS_PER_CHAN);
	}
	for (int c = 0; c < NR_CHANS; c++) {
		for (int k = 0; k < CONSUMERS_PER_CHAN; k++)
			h[nh++] = ts_spawn(consumer, &cc[c], NULL);
		for (int k = 0; k < PRODUCERS_PER_CHAN; k++) {
			struct prod_arg *p = &pa[c * PRODUCERS_PER_CHAN + k];
			p->cc = &cc[c];
			p->id = c * PRODUCERS_PER_CHAN + k;
			struct ts_task_attr a = TS_TASK_ATTR_INIT;
			a.nice = k - 1;
			a.stack_size = 64 * 1024;
			h[nh++] = ts_spawn(producer, p, &a);
		}
		h[nh++] = ts_spawn(closer, &cc[c], NULL);
	}
	struct pair pr[NR_PAIRS];
	long shared = 0;
	struct ts_mutex *m = ts_mutex_create();
	ts_task_handle ph[2 * NR_PAIRS];
	for (int i = 0; i < NR_PAIRS; i++) {
		pr[i] = (struct pair){ts_chan_create(0, 8), ts_chan_create(1, 8), m, &shared,
				      200 * scale};
		ph[2 * i] = ts_spawn(server, &pr[i], NULL);
		ph[2 * i + 1] = ts_spawn(client, &pr[i], NULL);
	}
	for (int i = 0; i < nh; i++)
		assert_true(h[i].id != 0);

	long consumed = 0;
	for (int i = 0; i < nh; i++) {
		void *ret;
		assert_int_equal(ts_join(h[i], &ret), 0);
		consumed += (long)(intptr_t)ret; /* consumers return counts; others 0 */
	}
	for (int i = 0; i < 2 * NR_PAIRS; i++) {
		void *ret;
		assert_int_equal(ts_join(ph[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(atomic_load(&failures), 0);
	assert_int_equal(atomic_load(&received), (long)nr_msgs);
	assert_int_equal(consumed, (long)nr_msgs);
	for (size_t i = 0; i < nr_msgs; i++)
		if (atomic_load(&seen[i]) != 1)
			fail_msg("message %zu received %d times", i, atomic_load(&seen[i]));
	assert_int_equal(shared, (long)NR_PAIRS * 200 * scale);

	/* the core saw the work: every wake-up placed, counters consistent */
	struct ts_sched *s = ts_rt_sched();
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	uint64_t ttwu = 0, reasons = 0, forks = 0;
	for (int c = 0; c < s->nr_cpus; c++) {
		ttwu += ts_stat_read(&ts_cpu_rq(s, c)->stats.ttwu_count);
		forks += ts_stat_read(&ts_cpu_rq(s, c)->stats.fork_exec_placements);
		for (int r = 0; r < TS_PLACE_NR; r++)
			reasons += ts_stat_read(&ts_cpu_rq(s, c)->stats.reasons[r]);
	}
	assert_int_equal(ttwu, st.wakeups);
	assert_int_equal(reasons, st.wakeups); /* one reason per wake-up */
	assert_int_equal(forks, st.spawned);
	assert_int_equal(st.spawned,
			 (uint64_t)(nh + 2 * NR_PAIRS) + (uint64_t)atomic_load(&child_runs));
	print_message("    %s: %zu messages, %llu wake-ups (%llu early, %llu deferred), %llu "
		      "spawns, %llu switches, %llu parks\n",
		      features ? features : "defaults", nr_msgs, (unsigned long long)st.wakeups,
		      (unsigned long long)st.early_wakeups, (unsigned long long)st.deferred_wakeups,
		      (unsigned long long)st.spawned, (unsigned long long)st.switches,
		      (unsigned long long)st.parks);

	for (int c = 0; c < NR_CHANS; c++) {
		ts_chan_destroy(cc[c].c);
		ts_wg_destroy(cc[c].producers);
	}
	for (int i = 0; i < NR_PAIRS; i++) {
		ts_chan_destroy(pr[i].req);
		ts_chan_destroy(pr[i].resp);
	}
	ts_mutex_destroy(m);
	free(seen);
	assert_int_equal(ts_rt_stop(), 0);
}

static void test_stress_defaults(void **state)
{
	(void)state;
	run_stress(NULL, NULL, NULL);
}

static void test_stress_no_newidle(void **state)
{
	(void)state;
	run_stress("NO_NEWIDLE_BALANCE NO_WAKEUP_PREEMPTION", NULL, NULL);
}

/* 8 workers on the real CPUs: workers get preempted by the OS in the middle of the
 * switch-out protocol, which is where lost or doubled wake-ups would show. */
static void test_stress_oversubscribed(void **state)
{
	(void)state;
	run_stress(NULL, "kunpeng920", "0-3,32-35");
}

int main(void)
{
	const char *e = getenv("TS_STRESS_SCALE");
	if (e && atoi(e) > 0)
		scale = atoi(e);
	msgs_per_producer *= scale;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress_defaults),
		cmocka_unit_test(test_stress_no_newidle),
		cmocka_unit_test(test_stress_oversubscribed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
