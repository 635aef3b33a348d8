/* The built-in workload descriptions (src/sim/workloads.c): every one found by name and
 * listed once; each internally consistent (channel indexes, counts, mixes, metric fields,
 * finite iterations where the metric needs them); and none can deadlock by construction: a
 * symbolic walk of one instance's tasks (no time, no CPUs, FIFO channels with the
 * workload's capacity) runs every program to the end and leaves every channel empty. Plus
 * the figures the descriptions take from the benchmarks' sources (docs/workloads.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/sim.h"

static const char *const builtin_names[] = {
	"tbench",     "netperf-tcp-rr", "netperf-udp-rr", "hackbench",		 "hackbench-socket",
	"schbench",   "pipe",		"numa01",	  "numa01-thread-alloc", "numa02",
	"numa02-smt", "specjbb",
};

/* Task counts are read for a nominal run on 8 CPUs at load 1 (the CPU-scaled classes of
 * the NUMA workloads). */
#define NOMINAL_CPUS 8
static int count_of(const struct ts_task_class *k)
{
	return ts_class_count(k, NOMINAL_CPUS, 1);
}
#define NR_BUILTIN ((int)(sizeof(builtin_names) / sizeof(builtin_names[0])))

static const struct ts_workload *must_find(const char *name)
{
	const struct ts_workload *w = ts_workload_find(name);
	if (!w)
		fail_msg("workload %s not found", name);
	return w;
}

/* ---- lookup ------------------------------------------------------------------------------ */

static void test_every_builtin_found_and_listed_once(void **state)
{
	(void)state;
	int n = -1;
	const struct ts_workload *list = ts_workload_list(&n);
	assert_non_null(list);
	assert_int_equal(n, NR_BUILTIN);
	for (int i = 0; i < NR_BUILTIN; i++) {
		const struct ts_workload *w = must_find(builtin_names[i]);
		assert_string_equal(w->name, builtin_names[i]);
		int seen = 0;
		for (int j = 0; j < n; j++)
			if (strcmp(list[j].name, builtin_names[i]) == 0) {
				seen++;
				assert_ptr_equal(&list[j], w); /* find returns the listed entry */
			}
		assert_int_equal(seen, 1);
	}
	/* and the list holds nothing else */
	for (int j = 0; j < n; j++) {
		int known = 0;
		for (int i = 0; i < NR_BUILTIN; i++)
			known += strcmp(list[j].name, builtin_names[i]) == 0;
		assert_int_equal(known, 1);
	}
	assert_non_null(ts_workload_list(NULL)); /* count is optional */
}

static void test_unknown_names(void **state)
{
	(void)state;
	const char *bad[] = {"",	  "TBENCH", "Tbench",  "tbench ",	 " tbench",
			     "tbench2",	  "tben",   "netperf", "hackbench-pipe", "perf-pipe",
			     "schbench\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(ts_workload_find(bad[i]));
	assert_null(ts_workload_find(NULL));
}

/* ---- consistency ----------------------------------------------------------------------- */

static int chan_of(const struct ts_phase *p, int idx, int iter)
{
	return p->ch.chan + (p->ch.per_instance ? idx : 0) +
	       (p->ch.iter_mod ? iter % p->ch.iter_mod : 0);
}

/* The mix a SEND with bytes == 0 in class c draws from (the convention of workloads.c:
 * the first class is the requester). */
static const struct ts_size_mix *mix_for(const struct ts_workload *w, int c)
{
	return c == 0 ? &w->request_mix : &w->reply_mix;
}

static uint32_t mix_max(const struct ts_size_mix *m)
{
	uint32_t mx = 0;
	for (int i = 0; i < m->n; i++)
		mx = m->bytes[i] > mx ? m->bytes[i] : mx;
	return mx;
}

static uint32_t send_bytes_max(const struct ts_workload *w, int c, const struct ts_phase *p)
{
	return p->bytes ? p->bytes : mix_max(mix_for(w, c));
}

static void check_mix(const char *wname, const struct ts_size_mix *m)
{
	if (m->n == 0)
		return;
	if (m->n < 0 || !m->bytes || !m->weight)
		fail_msg("%s: malformed size mix", wname);
	for (int i = 0; i < m->n; i++)
		if (m->bytes[i] == 0 || m->weight[i] == 0)
			fail_msg("%s: mix entry %d has size %u weight %u", wname, i, m->bytes[i],
				 m->weight[i]);
}

static void check_workload(const struct ts_workload *w)
{
	const char *n = w->name;
	assert_non_null(n);
	if (!w->description || !*w->description || strchr(w->description, '\n'))
		fail_msg("%s: description must be one non-empty line", n);
	if (!w->metric_name || !*w->metric_name || !w->unit || !*w->unit || !w->load_name ||
	    !*w->load_name)
		fail_msg("%s: metric_name, unit and load_name must be set", n);
	if (!w->classes || w->nr_classes <= 0)
		fail_msg("%s: no task classes", n);
	bool messages = false;
	for (int c = 0; c < w->nr_classes; c++)
		for (int p = 0; p < w->classes[c].nr_phases; p++)
			messages |= w->classes[c].phases[p].kind == TS_PH_SEND ||
				    w->classes[c].phases[p].kind == TS_PH_RECV;
	if (messages && (w->channels_per_instance <= 0 || w->channel_capacity == 0))
		fail_msg("%s: channels_per_instance %d capacity %u", n, w->channels_per_instance,
			 w->channel_capacity);
	if (!messages && w->nr_regions <= 0)
		fail_msg("%s: neither messages nor memory", n);
	for (int r = 0; r < w->nr_regions; r++)
		if (!w->regions[r].name || w->regions[r].bytes == 0)
			fail_msg("%s: region %d has no name or size", n, r);
	check_mix(n, &w->request_mix);
	check_mix(n, &w->reply_mix);

	bool any_mark = false, any_counted = false, any_measured = false;
	for (int c = 0; c < w->nr_classes; c++) {
		const struct ts_task_class *k = &w->classes[c];
		if (!k->name || !*k->name || count_of(k) <= 0 || !k->phases || k->nr_phases <= 0)
			fail_msg("%s: class %d: name, count > 0 and phases needed", n, c);
		if (k->iterations < 0 || k->nice < -20 || k->nice > 19)
			fail_msg("%s/%s: iterations %d nice %d", n, k->name, k->iterations,
				 k->nice);
		if (w->metric == TS_METRIC_TIME_S && k->iterations <= 0 &&
		    w->default_iterations <= 0)
			fail_msg("%s/%s: a TIME_S workload needs finite iterations", n, k->name);
		any_measured |= k->measure_wakeup;
		bool runs_or_blocks = false;
		for (int p = 0; p < k->nr_phases; p++) {
			const struct ts_phase *ph = &k->phases[p];
			switch (ph->kind) {
			case TS_PH_RUN:
			case TS_PH_SLEEP:
				runs_or_blocks = true;
				if (ph->ns == 0)
					fail_msg("%s/%s phase %d: RUN/SLEEP of 0 ns", n, k->name,
						 p);
				if (ph->dist != TS_DIST_FIXED && ph->dist != TS_DIST_EXPONENTIAL &&
				    ph->dist != TS_DIST_UNIFORM)
					fail_msg("%s/%s phase %d: bad distribution", n, k->name, p);
				break;
			case TS_PH_RECV:
				runs_or_blocks = true;
				/* fall through */
			case TS_PH_SEND:
				if (ph->ch.chan < 0 || ph->ch.iter_mod < 0)
					fail_msg("%s/%s phase %d: negative channel", n, k->name, p);
				/* every task of the class, every residue of the iteration */
				for (int idx = 0; idx < count_of(k); idx++)
					for (int it = 0;
					     it < (ph->ch.iter_mod ? ph->ch.iter_mod : 1); it++) {
						int ch = chan_of(ph, idx, it);
						if (ch < 0 || ch >= w->channels_per_instance)
							fail_msg("%s/%s phase %d task %d iteration "
								 "%d: "
								 "channel %d outside 0..%d",
								 n, k->name, p, idx, it, ch,
								 w->channels_per_instance - 1);
					}
				if (ph->kind == TS_PH_SEND) {
					if (ph->bytes == 0 && mix_for(w, c)->n <= 0)
						fail_msg("%s/%s phase %d: size from an empty mix",
							 n, k->name, p);
					if (send_bytes_max(w, c, ph) > w->channel_capacity)
						fail_msg("%s/%s phase %d: message larger than the "
							 "channel",
							 n, k->name, p);
					any_counted |= ph->count_bytes;
				}
				break;
			case TS_PH_MARK:
				any_mark = true;
				break;
			case TS_PH_TOUCH:
				runs_or_blocks = true;
				if (ph->region < 0 || ph->region >= w->nr_regions)
					fail_msg("%s/%s phase %d: region %d", n, k->name, p,
						 ph->region);
				if (ph->ns == 0 && !(ph->accesses > 0))
					fail_msg("%s/%s phase %d: a TOUCH that takes no time", n,
						 k->name, p);
				break;
			default:
				fail_msg("%s/%s phase %d: unknown kind %d", n, k->name, p,
					 ph->kind);
			}
		}
		if (!runs_or_blocks)
			fail_msg("%s/%s: no RUN, SLEEP or RECV phase", n, k->name);
	}
	switch (w->metric) {
	case TS_METRIC_THROUGHPUT_MBS:
		if (!any_counted)
			fail_msg("%s: throughput metric but no count_bytes SEND", n);
		break;
	case TS_METRIC_TPS_PER_INSTANCE:
	case TS_METRIC_US_PER_MARK:
	case TS_METRIC_OPS_PER_S:
		if (!any_mark)
			fail_msg("%s: a MARK metric but no MARK phase", n);
		break;
	case TS_METRIC_WAKEUP_P99_US:
		if (!any_measured)
			fail_msg("%s: wake-up metric but no measured class", n);
		break;
	case TS_METRIC_TIME_S:
		break;
	default:
		fail_msg("%s: unknown metric %d", n, w->metric);
	}
}

static void test_descriptions_consistent(void **state)
{
	(void)state;
	int n;
	const struct ts_workload *list = ts_workload_list(&n);
	for (int i = 0; i < n; i++)
		check_workload(&list[i]);
}

/* ---- symbolic walk: no deadlock by construction ----------------------------------------- */

struct walk_task {
	int cls, idx, phase, iter, iters;
	bool done, pro; /* pro: in the class's prologue */
};

struct walk_chan {
	uint32_t *size; /* FIFO of message sizes */
	int head, count, cap;
	uint64_t bytes;
	uint64_t sent, received;
};

struct walk_result {
	bool finished; /* every task completed its iterations */
	bool channels_empty;
	uint64_t sent, received;
	uint64_t marks, counted_bytes;
};

/* Runs one instance of w, every class for `override` iterations when > 0 (the engine's
 * ts_sim_config.iterations), else for its own count or default_iterations. Round robin over
 * the tasks; a task advances through RUN/SLEEP/MARK at once, through SEND when the message
 * fits (an empty channel takes any message), through RECV when a message is queued. Stops
 * when no task can advance. */
static struct walk_result walk(const struct ts_workload *w, int override)
{
	int nt = 0;
	for (int c = 0; c < w->nr_classes; c++)
		nt += count_of(&w->classes[c]);
	struct walk_task *t = calloc((size_t)nt, sizeof(*t));
	struct walk_chan *ch = calloc((size_t)w->channels_per_instance + 1, sizeof(*ch));
	assert_non_null(t);
	assert_non_null(ch);
	int k = 0;
	for (int c = 0; c < w->nr_classes; c++)
		for (int i = 0; i < count_of(&w->classes[c]); i++) {
			int its = override > 0 ? override : w->classes[c].iterations;
			if (its <= 0)
				its = w->default_iterations;
			assert_true(its > 0); /* callers pass an override for open-ended ones */
			t[k++] = (struct walk_task){.cls = c,
						    .idx = i,
						    .iters = its,
						    .pro = w->classes[c].nr_prologue > 0};
		}
	struct walk_result r = {0};
	bool progress = true;
	uint64_t steps = 0;
	while (progress) {
		progress = false;
		for (int i = 0; i < nt; i++) {
			struct walk_task *x = &t[i];
			if (x->done)
				continue;
			const struct ts_task_class *kc = &w->classes[x->cls];
			const struct ts_phase *ph =
				x->pro ? &kc->prologue[x->phase] : &kc->phases[x->phase];
			if (ph->kind == TS_PH_SEND || ph->kind == TS_PH_RECV) {
				int c = chan_of(ph, x->idx, x->iter);
				assert_true(c >= 0 && c < w->channels_per_instance);
				struct walk_chan *q = &ch[c];
				if (ph->kind == TS_PH_SEND) {
					uint32_t b = send_bytes_max(w, x->cls, ph);
					if (q->count > 0 && q->bytes + b > w->channel_capacity)
						continue; /* blocked: full */
					if (q->count == q->cap) {
						int ncap = q->cap ? 2 * q->cap : 16;
						uint32_t *ns = malloc((size_t)ncap * sizeof(*ns));
						assert_non_null(ns);
						for (int m = 0; m < q->count; m++)
							ns[m] = q->size[(q->head + m) % q->cap];
						free(q->size);
						q->size = ns;
						q->head = 0;
						q->cap = ncap;
					}
					q->size[(q->head + q->count) % q->cap] = b;
					q->count++;
					q->bytes += b;
					q->sent++;
					r.sent++;
					if (ph->count_bytes)
						r.counted_bytes += b;
				} else {
					if (q->count == 0)
						continue; /* blocked: empty */
					q->bytes -= q->size[q->head];
					q->head = (q->head + 1) % q->cap;
					q->count--;
					q->received++;
					r.received++;
				}
			} else if (ph->kind == TS_PH_MARK) {
				r.marks++;
			}
			progress = true;
			steps++;
			assert_true(steps < 100000000ull);
			if (x->pro) {
				if (++x->phase == kc->nr_prologue) {
					x->phase = 0;
					x->pro = false;
				}
			} else if (++x->phase == kc->nr_phases) {
				x->phase = 0;
				if (++x->iter == x->iters)
					x->done = true;
			}
		}
	}
	r.finished = true;
	for (int i = 0; i < nt; i++)
		r.finished &= t[i].done;
	r.channels_empty = true;
	for (int c = 0; c < w->channels_per_instance; c++) {
		r.channels_empty &= ch[c].count == 0 && ch[c].sent == ch[c].received;
		free(ch[c].size);
	}
	free(ch);
	free(t);
	return r;
}

static void assert_walk_clean(const struct ts_workload *w, int override)
{
	struct walk_result r = walk(w, override);
	if (!r.finished || !r.channels_empty || r.sent != r.received)
		fail_msg("%s (iterations %d): finished %d, channels empty %d, sent %llu received "
			 "%llu",
			 w->name, override, r.finished, r.channels_empty,
			 (unsigned long long)r.sent, (unsigned long long)r.received);
}

static void test_every_recv_has_a_send(void **state)
{
	(void)state;
	int n;
	const struct ts_workload *list = ts_workload_list(&n);
	for (int i = 0; i < n; i++) {
		const struct ts_workload *w = &list[i];
		int nch = w->channels_per_instance;
		bool *sent = calloc((size_t)nch + 1, sizeof(bool));
		bool *recvd = calloc((size_t)nch + 1, sizeof(bool));
		assert_non_null(sent);
		assert_non_null(recvd);
		for (int c = 0; c < w->nr_classes; c++) {
			const struct ts_task_class *k = &w->classes[c];
			for (int p = 0; p < k->nr_phases; p++) {
				const struct ts_phase *ph = &k->phases[p];
				if (ph->kind != TS_PH_SEND && ph->kind != TS_PH_RECV)
					continue;
				for (int idx = 0; idx < count_of(k); idx++)
					for (int it = 0;
					     it < (ph->ch.iter_mod ? ph->ch.iter_mod : 1); it++) {
						bool *seen = ph->kind == TS_PH_SEND ? sent : recvd;
						seen[chan_of(ph, idx, it)] = true;
					}
			}
		}
		for (int c = 0; c < nch; c++) {
			if (recvd[c] && !sent[c])
				fail_msg("%s: channel %d is received from but never sent to",
					 w->name, c);
			if (sent[c] && !recvd[c])
				fail_msg("%s: channel %d is sent to but never read", w->name, c);
		}
		free(sent);
		free(recvd);
	}
}

static void test_no_deadlock_by_construction(void **state)
{
	(void)state;
	int n;
	const struct ts_workload *list = ts_workload_list(&n);
	for (int i = 0; i < n; i++) {
		/* any common iteration count (what --iterations / --loops set) */
		for (int its = 1; its <= 5; its++)
			assert_walk_clean(&list[i], its);
		assert_walk_clean(&list[i], 37);
		/* the workload's own counts, where it has them */
		bool finite = true;
		for (int c = 0; c < list[i].nr_classes; c++)
			finite &=
				list[i].classes[c].iterations > 0 || list[i].default_iterations > 0;
		if (finite)
			assert_walk_clean(&list[i], 0);
	}
}

/* A walk that must fail: a RECV nobody feeds is caught (the walk is not vacuous). */
static void test_walk_detects_deadlock(void **state)
{
	(void)state;
	static const struct ts_phase a[] = {{.kind = TS_PH_RECV, .ch = {.chan = 0}},
					    {.kind = TS_PH_RUN, .ns = 1}};
	static const struct ts_phase b[] = {{.kind = TS_PH_RECV, .ch = {.chan = 1}},
					    {.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 1}};
	static const struct ts_task_class cls[] = {
		{.name = "a", .count = 1, .phases = a, .nr_phases = 2},
		{.name = "b", .count = 1, .phases = b, .nr_phases = 2},
	};
	const struct ts_workload w = {.name = "bad",
				      .classes = cls,
				      .nr_classes = 2,
				      .channels_per_instance = 2,
				      .channel_capacity = 64};
	struct walk_result r = walk(&w, 3);
	assert_false(r.finished);
	/* and a send that overfills a channel nobody drains blocks rather than vanishing */
	static const struct ts_phase c[] = {{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 40}};
	static const struct ts_phase d[] = {{.kind = TS_PH_RECV, .ch = {.chan = 0}}};
	static const struct ts_task_class cls2[] = {
		{.name = "c", .count = 1, .phases = c, .nr_phases = 1},
		{.name = "d", .count = 1, .phases = d, .nr_phases = 1},
	};
	const struct ts_workload w2 = {.name = "short",
				       .classes = cls2,
				       .nr_classes = 2,
				       .channels_per_instance = 1,
				       .channel_capacity = 64};
	/* c sends 3, d reads 1 (their own counts): once d is done, c's third 40-B message finds
	 * no room behind the second */
	static const struct ts_task_class cls3[] = {
		{.name = "c", .count = 1, .phases = c, .nr_phases = 1, .iterations = 3},
		{.name = "d", .count = 1, .phases = d, .nr_phases = 1, .iterations = 1},
	};
	const struct ts_workload w3 = {.name = "unbalanced",
				       .classes = cls3,
				       .nr_classes = 2,
				       .channels_per_instance = 1,
				       .channel_capacity = 64};
	r = walk(&w2, 4);
	assert_true(r.finished && r.channels_empty);
	r = walk(&w3, 0);
	assert_false(r.finished);
}

/* ---- the benchmarks' published figures ----------------------------------------------------- */

static double mix_mean(const struct ts_size_mix *m)
{
	double s = 0, wsum = 0;
	for (int i = 0; i < m->n; i++) {
		s += (double)m->bytes[i] * m->weight[i];
		wsum += m->weight[i];
	}
	return s / wsum;
}

static void test_tbench_matches_reference(void **state)
{
	(void)state;
	const struct ts_workload *w = must_find("tbench");
	assert_int_equal(w->metric, TS_METRIC_THROUGHPUT_MBS);
	assert_string_equal(w->unit, "MB/s");
	assert_string_equal(w->load_name, "clients");
	assert_int_equal(w->request_mix.n, 13);
	assert_int_equal(w->reply_mix.n, 13);
	/* dbench's client.txt: average request 2.3 KB, reply 3.3 KB */
	double req = mix_mean(&w->request_mix), rep = mix_mean(&w->reply_mix);
	assert_true(req > 2250 && req < 2350);
	assert_true(rep > 3250 && rep < 3350);
	/* ReadX (reply) + WriteX (request) payload ~5,430 B per op; the counted bytes
	 * (everything) are within 4 % above it */
	double wsum = 0, payload = 0;
	for (int i = 0; i < 13; i++) {
		wsum += w->request_mix.weight[i];
		if (w->reply_mix.bytes[i] == 11912)
			payload += (11912.0 - 59) * w->reply_mix.weight[i];
		if (w->request_mix.bytes[i] == 25779)
			payload += (25779.0 - 59) * w->request_mix.weight[i];
	}
	payload /= wsum;
	assert_true(payload > 5430 * 0.99 && payload < 5430 * 1.01);
	assert_true(req + rep > payload && req + rep < payload * 1.04);
	/* one request in flight per pair: each side alternates SEND and RECV once per op,
	 * after nb_setup()'s one 8-byte exchange (the prologues) */
	struct walk_result r = walk(w, 10);
	assert_int_equal(r.sent, 20 + 2);
	assert_int_equal(r.marks, 10);
	for (int c = 0; c < w->nr_classes; c++) {
		assert_int_equal(w->classes[c].count, 1);
		assert_int_equal(w->classes[c].iterations, 0); /* runs for the duration */
		for (int p = 0; p < w->classes[c].nr_phases; p++)
			if (w->classes[c].phases[p].kind == TS_PH_SEND) {
				assert_true(w->classes[c].phases[p].sync);
				assert_true(w->classes[c].phases[p].count_bytes);
				assert_int_equal(w->classes[c].phases[p].bytes,
						 0); /* from the mix */
			}
	}
}

static void test_netperf_matches_reference(void **state)
{
	(void)state;
	const struct ts_workload *tcp = must_find("netperf-tcp-rr");
	const struct ts_workload *udp = must_find("netperf-udp-rr");
	/* the same program: they differ only in name (no basis for a UDP cost) */
	assert_ptr_equal(tcp->classes, udp->classes);
	assert_int_equal(tcp->nr_classes, udp->nr_classes);
	assert_int_equal(tcp->channel_capacity, udp->channel_capacity);
	const struct ts_workload *both[] = {tcp, udp};
	for (int i = 0; i < 2; i++) {
		const struct ts_workload *w = both[i];
		assert_int_equal(w->metric, TS_METRIC_TPS_PER_INSTANCE);
		assert_string_equal(w->unit, "trans/s");
		assert_string_equal(w->load_name, "pairs");
		for (int c = 0; c < w->nr_classes; c++)
			for (int p = 0; p < w->classes[c].nr_phases; p++) {
				const struct ts_phase *ph = &w->classes[c].phases[p];
				if (ph->kind == TS_PH_SEND) {
					assert_int_equal(ph->bytes, 1); /* -r 1,1 */
					assert_true(ph->sync);
				}
			}
		/* one MARK per transaction, two messages per transaction */
		struct walk_result r = walk(w, 7);
		assert_int_equal(r.marks, 7);
		assert_int_equal(r.sent, 14);
	}
}

static void test_hackbench_matches_reference(void **state)
{
	(void)state;
	const char *names[] = {"hackbench", "hackbench-socket"};
	for (int i = 0; i < 2; i++) {
		const struct ts_workload *w = must_find(names[i]);
		assert_int_equal(w->metric, TS_METRIC_TIME_S);
		assert_string_equal(w->unit, "s");
		assert_string_equal(w->load_name, "groups");
		assert_int_equal(w->default_iterations, 100); /* -l 100 */
		/* mmtests' group counts on the 80-CPU Broadwell (SIS_OVERLOAD mail, Mar 2020) */
		assert_string_equal(w->default_loads,
				    "1,4,7,12,21,30,48,79,110,141,172,203,234,265,296");
		/* runs to completion: the engine's own minute, not the 100 ms of --duration */
		assert_true(w->default_duration_ns == 60ULL * 1000000000ULL);
		assert_int_equal(w->nr_classes, 2);
		assert_int_equal(w->classes[0].count, 20);
		assert_int_equal(w->classes[1].count, 20);
		assert_int_equal(w->channels_per_instance, 20);
		/* hackbench.c: each group moves 400 x loops messages of 100 B */
		struct walk_result r = walk(w, 0);
		assert_int_equal(r.sent, 400 * 100);
		assert_int_equal(r.received, 400 * 100);
		for (int c = 0; c < 2; c++)
			for (int p = 0; p < w->classes[c].nr_phases; p++) {
				const struct ts_phase *ph = &w->classes[c].phases[p];
				if (ph->kind == TS_PH_SEND) {
					assert_int_equal(ph->bytes, 100);
					assert_true(ph->sync);
				}
			}
		r = walk(w, 3); /* --loops 3 */
		assert_int_equal(r.received, 400 * 3);
	}
	/* 64 KiB pipe ~ 650 messages of 100 B (PIPE_DEF_BUFFERS = 16 pages) */
	const struct ts_workload *p = must_find("hackbench");
	assert_int_equal(p->channel_capacity, 65536);
	assert_int_equal(p->channel_capacity / 100, 655);
	/* the socket's limit is an estimate below the pipe's (sk_sndbuf charged per skb) */
	assert_true(must_find("hackbench-socket")->channel_capacity < p->channel_capacity);
}

static void test_schbench_matches_reference(void **state)
{
	(void)state;
	const struct ts_workload *w = must_find("schbench");
	assert_int_equal(w->metric, TS_METRIC_WAKEUP_P99_US);
	assert_string_equal(w->unit, "us");
	assert_string_equal(w->load_name, "message_threads");
	assert_int_equal(w->nr_classes, 2);
	const struct ts_task_class *msg = &w->classes[0], *wk = &w->classes[1];
	assert_int_equal(msg->count, 1);
	assert_int_equal(wk->count, 16); /* schedtests: -t 16 */
	assert_false(msg->measure_wakeup);
	assert_true(wk->measure_wakeup);
	bool slept = false;
	for (int p = 0; p < wk->nr_phases; p++) {
		const struct ts_phase *ph = &wk->phases[p];
		if (ph->kind == TS_PH_SLEEP) {
			assert_int_equal(ph->ns, 100000); /* -s 100 us */
			slept = true;
		}
		if (ph->kind == TS_PH_SEND)
			assert_false(ph->sync); /* FUTEX_WAKE */
	}
	assert_true(slept);
	assert_true(wk->footprint_kib >= 250 && wk->footprint_kib <= 256); /* -F 256 KB */
	/* the message thread wakes each of its workers once per round */
	struct walk_result r = walk(w, 2);
	assert_int_equal(r.sent, 2 * 16 * 2);
	assert_int_equal(r.marks, 2 * 16);
}

static void test_pipe_matches_reference(void **state)
{
	(void)state;
	const struct ts_workload *w = must_find("pipe");
	assert_int_equal(w->metric, TS_METRIC_US_PER_MARK);
	assert_string_equal(w->unit, "us");
	assert_string_equal(w->load_name, "pairs");
	assert_int_equal(w->channels_per_instance, 2);
	for (int c = 0; c < w->nr_classes; c++) {
		assert_int_equal(w->classes[c].count, 1);
		for (int p = 0; p < w->classes[c].nr_phases; p++) {
			const struct ts_phase *ph = &w->classes[c].phases[p];
			if (ph->kind == TS_PH_SEND) {
				assert_int_equal(ph->bytes, 4); /* one int */
				assert_true(ph->sync);
			}
		}
	}
	/* one MARK per round trip of two messages */
	struct walk_result r = walk(w, 1000);
	assert_int_equal(r.marks, 1000);
	assert_int_equal(r.sent, 2000);
}

static int count_kind(const struct ts_phase *ph, int n, enum ts_phase_kind kind)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += ph[i].kind == kind;
	return k;
}

/* The start rules (sim.h, "how tasks come to exist"): CONNECT and BARRIER only in
 * prologues; a forked or accepted class names another class; a parent is forked by the
 * launcher (no chains, no cycles); an accepted class's connecting class connects exactly once
 * and has as many tasks per instance; every connecting class is accepted by one class. And
 * the built-ins start as their benchmarks do. */
static void test_start_rules(void **state)
{
	(void)state;
	int n;
	const struct ts_workload *all = ts_workload_list(&n);
	for (int i = 0; i < n; i++) {
		const struct ts_workload *w = &all[i];
		for (int c = 0; c < w->nr_classes; c++) {
			const struct ts_task_class *k = &w->classes[c];
			if (count_kind(k->phases, k->nr_phases, TS_PH_CONNECT) ||
			    count_kind(k->phases, k->nr_phases, TS_PH_BARRIER))
				fail_msg("%s/%s: CONNECT/BARRIER outside the prologue", w->name,
					 k->name);
			int connects = count_kind(k->prologue, k->nr_prologue, TS_PH_CONNECT);
			if (connects > 1)
				fail_msg("%s/%s: connects %d times", w->name, k->name, connects);
			int acceptors = 0;
			for (int o = 0; o < w->nr_classes; o++)
				acceptors += w->classes[o].spawn == TS_SPAWN_ACCEPT &&
					     w->classes[o].spawn_from == c;
			if (acceptors != connects)
				fail_msg("%s/%s: %d connects, %d accepting classes", w->name,
					 k->name, connects, acceptors);
			if (k->spawn == TS_SPAWN_LAUNCHER)
				continue;
			assert_true(k->spawn_from >= 0 && k->spawn_from < w->nr_classes);
			assert_int_not_equal(k->spawn_from, c);
			const struct ts_task_class *from = &w->classes[k->spawn_from];
			if (k->spawn == TS_SPAWN_PARENT)
				assert_int_equal(from->spawn, TS_SPAWN_LAUNCHER);
			if (k->spawn == TS_SPAWN_ACCEPT) {
				assert_int_equal(count_kind(from->prologue, from->nr_prologue,
							    TS_PH_CONNECT),
						 1);
				assert_int_equal(from->count, k->count);
				assert_int_equal(from->count_rule, k->count_rule);
			}
		}
	}
	/* tbench: the listener forks each client's server; the clients meet at dbench's
	 * barrier, polled every 100 ms. netperf: netserver forks each pair's server, no
	 * barrier. hackbench: everyone at the barrier, the last arrival wakes the launcher.
	 * pipe: the copy (class b) forks its partner. schbench: the message thread its
	 * workers. */
	const struct ts_workload *tb = ts_workload_find("tbench");
	assert_int_equal(tb->classes[1].spawn, TS_SPAWN_ACCEPT);
	assert_int_equal(
		count_kind(tb->classes[0].prologue, tb->classes[0].nr_prologue, TS_PH_BARRIER), 1);
	assert_int_equal(tb->barrier_poll_ns, 100000000ULL);
	const struct ts_workload *np = ts_workload_find("netperf-tcp-rr");
	assert_int_equal(np->classes[1].spawn, TS_SPAWN_ACCEPT);
	assert_int_equal(
		count_kind(np->classes[0].prologue, np->classes[0].nr_prologue, TS_PH_BARRIER), 0);
	const struct ts_workload *hb = ts_workload_find("hackbench");
	for (int c = 0; c < hb->nr_classes; c++)
		assert_int_equal(count_kind(hb->classes[c].prologue, hb->classes[c].nr_prologue,
					    TS_PH_BARRIER),
				 1);
	assert_int_equal(hb->barrier_poll_ns, 0);
	const struct ts_workload *pp = ts_workload_find("pipe");
	assert_int_equal(pp->classes[0].spawn, TS_SPAWN_PARENT);
	assert_int_equal(pp->classes[0].spawn_from, 1);
	const struct ts_workload *sb = ts_workload_find("schbench");
	assert_int_equal(sb->classes[1].spawn, TS_SPAWN_PARENT);
	assert_int_equal(sb->classes[1].spawn_from, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_builtin_found_and_listed_once),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_descriptions_consistent),
		cmocka_unit_test(test_every_recv_has_a_send),
		cmocka_unit_test(test_no_deadlock_by_construction),
		cmocka_unit_test(test_walk_detects_deadlock),
		cmocka_unit_test(test_tbench_matches_reference),
		cmocka_unit_test(test_netperf_matches_reference),
		cmocka_unit_test(test_hackbench_matches_reference),
		cmocka_unit_test(test_schbench_matches_reference),
		cmocka_unit_test(test_pipe_matches_reference),
		cmocka_unit_test(test_start_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
