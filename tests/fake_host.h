/* A fake host for core tests: a manual clock, run-queue locks that check the locking
 * contract (no double lock, unlock only what is held), and a record of resched requests.
 * Single-threaded, deterministic. */
#ifndef TOPOSCHED_TEST_FAKE_HOST_H
#define TOPOSCHED_TEST_FAKE_HOST_H

#include <stdlib.h>
#include <string.h>

#include "toposched/sched.h"

struct fake_host {
	uint64_t now; /* ns; tests advance it */
	int nr_cpus;
	int locked[TS_MAX_CPUS];       /* 1 while the test/core holds that rq lock */
	unsigned resched[TS_MAX_CPUS]; /* resched_cpu() calls per CPU */
	int lock_errors;	       /* contract violations seen */
	uint64_t scan_ns_per_cpu;      /* modelled cost of examining one CPU (0 = clock) */
};

static uint64_t fake_clock(void *h)
{
	return ((struct fake_host *)h)->now;
}
static void fake_resched(void *h, int cpu)
{
	((struct fake_host *)h)->resched[cpu]++;
}
static void fake_lock(void *h, int cpu)
{
	struct fake_host *f = h;
	if (f->locked[cpu])
		f->lock_errors++;
	f->locked[cpu] = 1;
}
static void fake_unlock(void *h, int cpu)
{
	struct fake_host *f = h;
	if (!f->locked[cpu])
		f->lock_errors++;
	f->locked[cpu] = 0;
}
static uint64_t fake_scan_time(void *h, int cpu, int nr_scanned, uint64_t t0)
{
	struct fake_host *f = h;
	(void)cpu;
	return f->scan_ns_per_cpu ? f->scan_ns_per_cpu * (uint64_t)nr_scanned : f->now - t0;
}

static const struct ts_host_ops fake_ops = {
	.clock = fake_clock,
	.resched_cpu = fake_resched,
	.rq_lock = fake_lock,
	.rq_unlock = fake_unlock,
	.scan_time = fake_scan_time,
};

/* A scheduler on a preset (or NULL topology -> returns NULL) with a feature string
 * applied on the defaults ("" for the defaults) and a configuration (NULL: the defaults).
 * The topology is owned by the caller. */
static inline struct ts_sched *fake_sched_cfg(struct fake_host *f, const struct ts_topology *t,
					      const char *features,
					      const struct ts_sched_config *cfg)
{
	memset(f, 0, sizeof(*f));
	f->now = 1000000; /* non-zero: PELT treats last_update_time 0 as "never" */
	f->nr_cpus = t->nr_cpus;
	struct ts_features feat = ts_features_default();
	struct ts_error err = {0};
	if (features && ts_features_parse(features, &feat, &err))
		return NULL;
	struct ts_sched *s = NULL;
	if (ts_sched_create(t, feat, &fake_ops, f, cfg, &s, &err))
		return NULL;
	return s;
}

/* fake_sched() with the default configuration. */
static inline struct ts_sched *fake_sched(struct fake_host *f, const struct ts_topology *t,
					  const char *features)
{
	return fake_sched_cfg(f, t, features, NULL);
}

/* Runs `cpu` for `ns` in 1-ms ticks, rescheduling whenever the core asked for it. */
static inline void fake_run_cpu(struct ts_sched *s, struct fake_host *f, int cpu, uint64_t ns)
{
	for (uint64_t t = 0; t < ns; t += 1000000) {
		f->now += 1000000;
		unsigned before = f->resched[cpu];
		fake_lock(f, cpu);
		ts_sched_tick(s, cpu);
		if (f->resched[cpu] != before)
			ts_schedule(s, cpu);
		fake_unlock(f, cpu);
	}
}

/* Makes `p` the running task of its CPU, as if it had been woken there and scheduled. */
static inline void fake_run_on(struct ts_sched *s, struct fake_host *f, struct ts_task *p, int cpu)
{
	fake_lock(f, cpu);
	p->cpu = cpu;
	p->recent_used_cpu = cpu;
	ts_activate_task(s, cpu, p, 0);
	ts_schedule(s, cpu);
	fake_unlock(f, cpu);
}

#endif
