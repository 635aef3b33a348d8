/* The runtime's basics on this machine's topology: spawn/join, yield, sleep, self, nice,
 * affinity, stack guard pages, channels, mutex/cond/wait group, detached
 * tasks, and the errors of misuse.
 * No assertion on elapsed time except sleep's lower bound. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "toposched/runtime_core.h"

static int setup(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {0};
	int rc = ts_rt_start(&cfg);
	if (rc)
		fprintf(stderr, "ts_rt_start: %s\n", ts_rt_last_error());
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	return ts_rt_stop();
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- spawn / join ---- */

static void *add_one(void *arg)
{
	return (void *)((uintptr_t)arg + 1);
}

static void test_spawn_join(void **state)
{
	(void)state;
	ts_task_handle h[16];
	for (uintptr_t i = 0; i < 16; i++) {
		h[i] = ts_spawn(add_one, (void *)i, NULL);
		assert_true(h[i].id != 0);
	}
	for (uintptr_t i = 0; i < 16; i++) {
		void *ret = NULL;
		assert_int_equal(ts_join(h[i], &ret), 0);
		assert_int_equal((uintptr_t)ret, i + 1);
	}
	/* joined twice: the handle is stale */
	assert_int_equal(ts_join(h[0], NULL), -ESRCH);
	assert_non_null(strstr(ts_rt_last_error(), "already joined"));
	assert_int_equal(ts_join((ts_task_handle){0}, NULL), -ESRCH);
	assert_int_equal(ts_join((ts_task_handle){12345}, NULL), -ESRCH);
}

static void *spawner(void *arg)
{
	int depth = (int)(uintptr_t)arg;
	if (depth == 0)
		return (void *)1;
	ts_task_handle a = ts_spawn(spawner, (void *)(uintptr_t)(depth - 1), NULL);
	ts_task_handle b = ts_spawn(spawner, (void *)(uintptr_t)(depth - 1), NULL);
	void *ra, *rb;
	if (ts_join(a, &ra) || ts_join(b, &rb))
		return NULL;
	return (void *)((uintptr_t)ra + (uintptr_t)rb);
}

static void test_spawn_tree(void **state)
{
	(void)state;
	ts_task_handle h = ts_spawn(spawner, (void *)6, NULL);
	void *ret;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_int_equal((uintptr_t)ret, 64);
}

/* ---- yield ---- */

static atomic_int turn_counter;

static void *yielder(void *arg)
{
	int n = (int)(uintptr_t)arg;
	for (int i = 0; i < n; i++) {
		atomic_fetch_add(&turn_counter, 1);
		if (ts_yield()) /* no cmocka assertion inside a task: it would longjmp away */
			return (void *)1;
	}
	return NULL;
}

static void test_yield(void **state)
{
	(void)state;
	atomic_store(&turn_counter, 0);
	ts_task_handle h[4];
	for (int i = 0; i < 4; i++)
		h[i] = ts_spawn(yielder, (void *)1000, NULL);
	for (int i = 0; i < 4; i++) {
		void *ret;
		assert_int_equal(ts_join(h[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(atomic_load(&turn_counter), 4000);
	assert_int_equal(ts_yield(), 0); /* plain thread: sched_yield */
}

/* ---- sleep ---- */

static void *sleeper(void *arg)
{
	uint64_t ns = (uint64_t)(uintptr_t)arg;
	uint64_t t0 = now_ns();
	if (ts_sleep_ns(ns))
		return NULL;
	return (void *)(uintptr_t)(now_ns() - t0);
}

static void test_sleep(void **state)
{
	(void)state;
	ts_task_handle h[8];
	for (int i = 0; i < 8; i++)
		h[i] = ts_spawn(sleeper, (void *)(uintptr_t)(1000000u * (unsigned)(i % 3 + 1)),
				NULL);
	for (int i = 0; i < 8; i++) {
		void *ret;
		assert_int_equal(ts_join(h[i], &ret), 0);
		assert_true((uint64_t)(uintptr_t)ret >= 1000000u * (unsigned)(i % 3 + 1));
	}
	assert_int_equal(ts_sleep_ns(1000), -EPERM);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(ts_rt_last_error(), "outside a task"));
}

/* ---- self, nice, affinity ---- */

static void *report_self(void *arg)
{
	(void)arg;
	if (ts_self_sched_task()->nice != 5)
		return NULL;
	if (strcmp(ts_self_name(), "reporter") != 0)
		return NULL;
	return (void *)(uintptr_t)ts_self().id;
}

static void test_self_and_nice(void **state)
{
	(void)state;
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.nice = 5;
	a.name = "reporter";
	ts_task_handle h = ts_spawn(report_self, NULL, &a);
	assert_true(h.id != 0);
	void *ret;
	assert_int_equal(ts_join(h, &ret), 0);
	assert_int_equal((uint64_t)(uintptr_t)ret, h.id);
	assert_int_equal(ts_self().id, 0);
	assert_int_equal(ts_self_cpu(), -1);
	assert_null(ts_self_sched_task());
	a.nice = 40;
	h = ts_spawn(report_self, NULL, &a);
	assert_int_equal(h.id, 0);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(ts_rt_last_error(), "nice"));
}

static void *pinned(void *arg)
{
	int want = (int)(intptr_t)arg;
	for (int i = 0; i < 50; i++) {
		if (ts_self_cpu() != want)
			return (void *)0;
		if (i % 2)
			ts_yield();
		else
			ts_sleep_ns(10000);
	}
	return (void *)1;
}

static void test_affinity(void **state)
{
	(void)state;
	struct ts_sched *s = ts_rt_sched();
	assert_non_null(s);
	int last = -1;
	for (int c = 0; c < s->nr_cpus; c++)
		if (ts_cpumask_test(s->dom->cpu_map, c))
			last = c;
	char list[16];
	snprintf(list, sizeof(list), "%d", last);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.cpus = list;
	ts_task_handle h[6];
	for (int i = 0; i < 6; i++)
		h[i] = ts_spawn(pinned, (void *)(intptr_t)last, &a);
	for (int i = 0; i < 6; i++) {
		void *ret;
		assert_int_equal(ts_join(h[i], &ret), 0);
		assert_int_equal((uintptr_t)ret, 1);
	}
	a.cpus = "0-";
	assert_int_equal(ts_spawn(pinned, NULL, &a).id, 0);
	a.cpus = NULL;
	a.node = 999;
	assert_int_equal(ts_spawn(pinned, NULL, &a).id, 0);
	assert_non_null(strstr(ts_rt_last_error(), "node"));
}

/* ---- stack guard ---- */

static bool mapping_perms(const void *addr, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char p[5];
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 && (uintptr_t)addr >= lo &&
		    (uintptr_t)addr < hi) {
			memcpy(perms, p, 5);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

static void *wait_on(void *arg)
{
	int v;
	ts_chan_recv(arg, &v);
	return NULL;
}

static void test_stack_guard(void **state)
{
	(void)state;
	struct ts_chan *c = ts_chan_create(1, sizeof(int));
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.stack_size = 100000; /* at least this much is usable */
	ts_task_handle h = ts_spawn(wait_on, c, &a);
	void *guard, *lo;
	size_t size;
	assert_int_equal(ts_task_stack(h, &guard, &lo, &size), 0);
	long page = sysconf(_SC_PAGESIZE);
	assert_true(size >= 100000);
	assert_ptr_equal((char *)guard + page, lo);
	char p[5];
	assert_true(mapping_perms(guard, p));
	assert_memory_equal(p, "---p", 4);
	assert_true(mapping_perms(lo, p));
	assert_memory_equal(p, "rw-p", 4);
	assert_true(mapping_perms((char *)lo + size - 1, p));
	assert_memory_equal(p, "rw-p", 4);
	int v = 1;
	assert_int_equal(ts_chan_try_send(c, &v), 0);
	assert_int_equal(ts_join(h, NULL), 0);
	assert_int_equal(ts_task_stack(h, &guard, &lo, &size), -ESRCH);
	ts_chan_destroy(c);
}

/* A task with the default stack size holds a stack only while it runs: 64 children queued
 * on their spawner's worker (bound to its CPU) run one after another once it blocks, each
 * on the stack the one before gave back when it exited, so at most a few distinct stacks
 * serve them all, where stacks bound at the spawn would be 64. Each child sees its own
 * stack under its guard page; the spawner, another task, may not ask for theirs. */
#define LAZY_CHILDREN 64

struct lazy_child {
	void *lo;
	int rc;
	char guard[5], top[5];
};

static void *lazy_child_run(void *p)
{
	struct lazy_child *c = p;
	void *guard = NULL;
	size_t size = 0;
	c->rc = ts_task_stack(ts_self(), &guard, &c->lo, &size);
	if (!c->rc &&
	    (!mapping_perms(guard, c->guard) || !mapping_perms((char *)c->lo + size - 1, c->top)))
		c->rc = -EIO;
	return NULL;
}

static void *lazy_spawner(void *p)
{
	struct lazy_child *c = p;
	char cpu[16];
	snprintf(cpu, sizeof(cpu), "%d", ts_self_cpu());
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.cpus = cpu;
	ts_task_handle h[LAZY_CHILDREN];
	for (int i = 0; i < LAZY_CHILDREN; i++)
		if (!(h[i] = ts_spawn(lazy_child_run, &c[i], &a)).id)
			return (void *)"spawn failed";
	void *lo;
	if (ts_task_stack(h[0], NULL, &lo, NULL) != -EAGAIN)
		return (void *)"another task's default stack was reported";
	for (int i = 0; i < LAZY_CHILDREN; i++)
		if (ts_join(h[i], NULL))
			return (void *)"join failed";
	return NULL;
}

static void test_default_stack_bound_when_run(void **state)
{
	(void)state;
	static struct lazy_child c[LAZY_CHILDREN];
	memset(c, 0, sizeof(c));
	ts_task_handle h = ts_spawn(lazy_spawner, c, NULL);
	void *ret = (void *)"not joined";
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	int distinct = 0;
	for (int i = 0; i < LAZY_CHILDREN; i++) {
		assert_int_equal(c[i].rc, 0);
		assert_memory_equal(c[i].guard, "---p", 4);
		assert_memory_equal(c[i].top, "rw-p", 4);
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = c[j].lo == c[i].lo;
		distinct += !seen;
	}
	assert_in_range(distinct, 1, 2);
}

/* ---- channels ---- */

struct pc {
	struct ts_chan *c;
	int n;
};

static void *producer(void *arg)
{
	struct pc *p = arg;
	for (int i = 0; i < p->n; i++)
		if (ts_chan_send(p->c, &i))
			return (void *)1;
	ts_chan_close(p->c);
	return NULL;
}

static void *consumer(void *arg)
{
	struct pc *p = arg;
	int v, expect = 0, rc;
	while ((rc = ts_chan_recv(p->c, &v)) == 0) {
		if (v != expect++)
			return (void *)1;
	}
	if (rc != -EPIPE || expect != p->n)
		return (void *)2;
	return NULL;
}

static void test_channel_fifo(void **state)
{
	(void)state;
	for (size_t cap = 0; cap < 4; cap++) {
		struct pc p = {ts_chan_create(cap, sizeof(int)), 2000};
		ts_task_handle a = ts_spawn(producer, &p, NULL), b = ts_spawn(consumer, &p, NULL);
		void *ra, *rb;
		assert_int_equal(ts_join(a, &ra), 0);
		assert_int_equal(ts_join(b, &rb), 0);
		assert_null(ra);
		assert_null(rb);
		ts_chan_destroy(p.c);
	}
}

static void test_channel_errors(void **state)
{
	(void)state;
	struct ts_chan *c = ts_chan_create(2, sizeof(int));
	int v = 7, out = 0;
	assert_null(ts_chan_create(1, 0));
	assert_int_equal(ts_chan_try_recv(c, &out), -EAGAIN);
	assert_int_equal(ts_chan_try_send(c, &v), 0);
	assert_int_equal(ts_chan_try_send(c, &v), 0);
	assert_int_equal(ts_chan_try_send(c, &v), -EAGAIN);
	assert_int_equal(ts_chan_send(c, &v), -EPERM); /* blocking, from a plain thread */
	assert_int_equal(ts_chan_recv(c, &out), -EPERM);
	assert_non_null(strstr(ts_rt_last_error(), "outside a task"));
	assert_int_equal(ts_chan_close(c), 0);
	assert_int_equal(ts_chan_close(c), -EPIPE);
	assert_int_equal(ts_chan_try_send(c, &v), -EPIPE);
	assert_non_null(strstr(ts_rt_last_error(), "closed"));
	assert_int_equal(ts_chan_try_recv(c, &out), 0); /* drains first */
	assert_int_equal(out, 7);
	assert_int_equal(ts_chan_try_recv(c, &out), 0);
	assert_int_equal(ts_chan_try_recv(c, &out), -EPIPE);
	ts_chan_destroy(c);
}

/* ts_chan_create() faults the ring in: filling a fresh channel takes no page faults on the
 * sending thread. 512 KiB, above glibc's mmap threshold, so the ring is fresh memory
 * whatever the heap held before (the 128 pages faulted during the sends before the fix).
 * TSan writes shadow memory on the sends' first accesses, which faults: not counted. */
static long thread_minor_faults(void)
{
	struct rusage ru;
	assert_int_equal(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_minflt;
}

static void test_channel_prefaulted(void **state)
{
	(void)state;
	enum { ELEM = 64, CAP = 8192 };
	struct ts_chan *c = ts_chan_create(CAP, ELEM);
	assert_non_null(c);
	unsigned char v[ELEM];
	memset(v, 0x5a, sizeof(v));
	long before = thread_minor_faults();
	for (int i = 0; i < CAP; i++)
		assert_int_equal(ts_chan_try_send(c, v), 0);
	long faults = thread_minor_faults() - before;
	assert_int_equal(ts_chan_try_send(c, v), -EAGAIN);
#if !defined(__SANITIZE_THREAD__)
	assert_true(faults < 4);
#else
	(void)faults;
#endif
	unsigned char out[ELEM];
	assert_int_equal(ts_chan_try_recv(c, out), 0);
	assert_memory_equal(out, v, sizeof(v));
	ts_chan_destroy(c);
}

/* ---- mutex, cond, wait group ---- */

struct shared {
	struct ts_mutex *m;
	struct ts_cond *cv;
	struct ts_waitgroup *wg;
	long counter;
	int ready;
};

static void *locker(void *arg)
{
	struct shared *sh = arg;
	for (int i = 0; i < 500; i++) {
		if (ts_mutex_lock(sh->m))
			return (void *)1;
		long v = sh->counter;
		if (i % 7 == 0)
			ts_yield(); /* hold it across a switch */
		sh->counter = v + 1;
		ts_mutex_unlock(sh->m);
	}
	ts_wg_done(sh->wg);
	return NULL;
}

static void *cond_waiter(void *arg)
{
	struct shared *sh = arg;
	ts_mutex_lock(sh->m);
	while (!sh->ready)
		ts_cond_wait(sh->cv, sh->m);
	sh->counter++;
	ts_mutex_unlock(sh->m);
	return NULL;
}

static void *wg_waiter(void *arg)
{
	struct shared *sh = arg;
	ts_wg_wait(sh->wg);
	ts_mutex_lock(sh->m);
	long v = sh->counter;
	ts_mutex_unlock(sh->m);
	/* a task joining itself */
	if (ts_join(ts_self(), NULL) != -EDEADLK)
		return (void *)-1;
	if (ts_rt_stop() != -EBUSY)
		return (void *)-2;
	if (ts_rt_start(NULL) != -EALREADY)
		return (void *)-3;
	return (void *)v;
}

static void test_sync(void **state)
{
	(void)state;
	struct shared sh = {ts_mutex_create(), ts_cond_create(), ts_wg_create(), 0, 0};
	assert_int_equal(ts_wg_add(sh.wg, 6), 0);
	ts_task_handle w = ts_spawn(wg_waiter, &sh, NULL);
	ts_task_handle h[6];
	for (int i = 0; i < 6; i++)
		h[i] = ts_spawn(locker, &sh, NULL);
	void *ret;
	assert_int_equal(ts_join(w, &ret), 0);
	assert_int_equal((intptr_t)ret, 3000);
	for (int i = 0; i < 6; i++)
		assert_int_equal(ts_join(h[i], NULL), 0);
	assert_int_equal(ts_wg_add(sh.wg, -1), -EINVAL);

	sh.counter = 0;
	ts_task_handle c[5];
	for (int i = 0; i < 5; i++)
		c[i] = ts_spawn(cond_waiter, &sh, NULL);
	/* let some of them block first; correctness does not depend on it */
	for (int i = 0; i < 100; i++)
		ts_yield();
	while (ts_mutex_trylock(sh.m))
		ts_yield();
	sh.ready = 1;
	assert_int_equal(ts_mutex_unlock(sh.m), 0);
	ts_cond_broadcast(sh.cv);
	for (int i = 0; i < 5; i++)
		assert_int_equal(ts_join(c[i], NULL), 0);
	assert_int_equal(sh.counter, 5);
	assert_int_equal(ts_mutex_unlock(sh.m), -EPERM);
	assert_int_equal(ts_mutex_lock(sh.m), -EPERM); /* plain thread */
	assert_int_equal(ts_cond_wait(sh.cv, sh.m), -EPERM);
	assert_int_equal(ts_wg_wait(sh.wg), -EPERM);
	ts_mutex_destroy(sh.m);
	ts_cond_destroy(sh.cv);
	ts_wg_destroy(sh.wg);
}

/* ---- two joiners ---- */

struct joiners {
	ts_task_handle target;
	struct ts_chan *release, *results;
};

static void *joiner(void *arg)
{
	struct joiners *j = arg;
	int rc = ts_join(j->target, NULL);
	ts_chan_send(j->results, &rc);
	return NULL;
}

static void test_two_joiners(void **state)
{
	(void)state;
	struct joiners j;
	j.release = ts_chan_create(1, sizeof(int));
	j.results = ts_chan_create(2, sizeof(int));
	j.target = ts_spawn(wait_on, j.release, NULL);
	ts_task_handle a = ts_spawn(joiner, &j, NULL), b = ts_spawn(joiner, &j, NULL);
	int first;
	while (ts_chan_try_recv(j.results, &first) == -EAGAIN)
		usleep(100);
	assert_int_equal(first, -EINVAL); /* the second joiner; the first still waits */
	int v = 0, second;
	assert_int_equal(ts_chan_try_send(j.release, &v), 0);
	while (ts_chan_try_recv(j.results, &second) == -EAGAIN)
		usleep(100);
	assert_int_equal(second, 0);
	assert_int_equal(ts_join(a, NULL), 0);
	assert_int_equal(ts_join(b, NULL), 0);
	assert_int_equal(ts_join(j.target, NULL), -ESRCH);
	ts_chan_destroy(j.release);
	ts_chan_destroy(j.results);
}

/* ---- runtime lifecycle ---- */

static void *unjoined(void *arg)
{
	ts_sleep_ns(100000);
	return arg;
}

static void test_lifecycle(void **state)
{
	(void)state;
	assert_int_equal(ts_rt_start(NULL), -EALREADY);
	assert_non_null(strstr(ts_rt_last_error(), "already running"));
	for (int i = 0; i < 10; i++)
		assert_true(ts_spawn(unjoined, NULL, NULL).id != 0); /* freed by ts_rt_stop */
	assert_int_equal(ts_rt_stop(), 0);
	assert_false(ts_rt_running());
	assert_null(ts_rt_sched());
	assert_int_equal(ts_rt_stop(), -ENXIO);
	assert_int_equal(ts_spawn(unjoined, NULL, NULL).id, 0);
	assert_int_equal(errno, ENXIO);
	assert_int_equal(ts_join((ts_task_handle){1}, NULL), -ENXIO);
	struct ts_rt_config bad = {.features = "NO_SUCH_FEATURE"};
	assert_int_equal(ts_rt_start(&bad), -EINVAL);
	assert_non_null(strstr(ts_rt_last_error(), "NO_SUCH_FEATURE"));
	struct ts_rt_config bad2 = {.topology = "no-such-machine"};
	assert_true(ts_rt_start(&bad2) < 0);
	struct ts_rt_config bad3 = {.cpulist = "4000"};
	assert_true(ts_rt_start(&bad3) < 0);
	/* restart for the teardown */
	struct ts_rt_config cfg = {.features = "NO_SIS_UTIL SIS_PROP", .hz = 250};
	assert_int_equal(ts_rt_start(&cfg), 0);
	assert_true(ts_rt_nr_workers() >= 1);
}

/* A task started just before ts_rt_stop() goes on spawning, joining and waiting while
 * the stop waits for it: the stop drains the tasks, it does not refuse them work. */
static atomic_int drained_children;

static void *drained_child(void *wg)
{
	atomic_fetch_add(&drained_children, 1);
	if (wg)
		ts_wg_done(wg);
	return NULL;
}

static void *drained_root(void *arg)
{
	(void)arg;
	ts_sleep_ns(20 * 1000 * 1000); /* ts_rt_stop() is waiting by now */
	struct ts_waitgroup *wg = ts_wg_create();
	struct ts_task_attr detached = TS_TASK_ATTR_INIT;
	detached.detached = true;
	long failed = 0;
	ts_wg_add(wg, 64);
	for (int i = 0; i < 64; i++)
		failed += ts_spawn(drained_child, wg, &detached).id == 0;
	ts_task_handle h = ts_spawn(drained_child, NULL, NULL);
	failed += h.id == 0 || ts_join(h, NULL) != 0;
	if (!failed)
		ts_wg_wait(wg);
	ts_wg_destroy(wg);
	return (void *)failed;
}

static void test_stop_drains_working_tasks(void **state)
{
	(void)state;
	atomic_store(&drained_children, 0);
	assert_true(ts_spawn(drained_root, NULL, NULL).id != 0);
	assert_int_equal(ts_rt_stop(), 0);
	assert_int_equal(atomic_load(&drained_children), 65);
	assert_int_equal(ts_rt_start(NULL), 0); /* for the teardown */
}

/* A plain thread cannot start a task while the stop drains: the root task waits until the
 * thread has been refused (its tries before the stop began succeed and are joined). */
struct drain_refusal {
	struct ts_waitgroup *release;
	int refused_errno;
};

static void *drain_noop(void *arg)
{
	return arg;
}

static void *drain_waiting_root(void *arg)
{
	ts_wg_wait(((struct drain_refusal *)arg)->release);
	return NULL;
}

static void *drain_spawner_thread(void *arg)
{
	struct drain_refusal *d = arg;
	for (int i = 0; i < 5000 && !d->refused_errno; i++) {
		ts_task_handle h = ts_spawn(drain_noop, NULL, NULL);
		if (h.id)
			ts_join(h, NULL); /* the stop has not begun yet */
		else
			d->refused_errno = errno;
		usleep(1000);
	}
	ts_wg_done(d->release);
	return NULL;
}

static void test_stop_refuses_plain_thread_spawns(void **state)
{
	(void)state;
	struct drain_refusal d = {ts_wg_create(), 0};
	ts_wg_add(d.release, 1);
	assert_true(ts_spawn(drain_waiting_root, &d, NULL).id != 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, drain_spawner_thread, &d), 0);
	assert_int_equal(ts_rt_stop(), 0);
	pthread_join(th, NULL);
	assert_int_equal(d.refused_errno, ENXIO);
	ts_wg_destroy(d.release);
	assert_int_equal(ts_rt_start(NULL), 0); /* for the teardown */
}

/* Plain threads reading the runtime and joining finished tasks while it stops: each call
 * either works or is refused with ENXIO, and none reads what the stop freed (ASan, TSan). */
#define READER_JOINS 64

struct stop_reader {
	ts_task_handle *h; /* READER_JOINS finished tasks, this thread's to join */
	atomic_int *started;
	int joined, refused, other;
	long calls;
};

static void *drain_sleeper(void *arg)
{
	ts_sleep_ns(20 * 1000 * 1000); /* the stop drains meanwhile */
	return arg;
}

static void *stop_reader_thread(void *arg)
{
	struct stop_reader *r = arg;
	atomic_fetch_add(r->started, 1);
	int next = 0;
	for (;;) {
		struct ts_rt_stats st;
		char buf[256];
		ts_rt_get_stats(&st);
		ts_rt_group_dump(NULL, buf, sizeof(buf));
		r->calls++;
		if (next < READER_JOINS) {
			int rc = ts_join(r->h[next], NULL);
			if (rc == 0)
				r->joined++, next++;
			else if (rc == -ENXIO)
				r->refused++;
			else
				r->other++, next++;
		}
		if (ts_rt_nr_workers() == 0) {
			/* Stopped (or stopping past its drain): a join not made yet is refused now.
			 * The stop can pass whole between a join and this look (a descheduled
			 * thread), so the refusal is asked for here rather than assumed. */
			if (next < READER_JOINS) {
				if (ts_join(r->h[next], NULL) == -ENXIO)
					r->refused++;
				else
					r->other++;
			}
			return NULL;
		}
		if (next == READER_JOINS)
			usleep(100); /* the joins are done: keep reading, less often */
	}
}

static void test_stop_with_plain_thread_calls(void **state)
{
	(void)state;
	enum { READERS = 2 };
	ts_task_handle h[READERS][READER_JOINS];
	struct stop_reader r[READERS];
	atomic_int started = 0;
	for (int i = 0; i < READERS; i++) {
		for (int j = 0; j < READER_JOINS; j++)
			assert_true((h[i][j] = ts_spawn(drain_noop, NULL, NULL)).id != 0);
		r[i] = (struct stop_reader){.h = h[i], .started = &started};
	}
	assert_true(ts_spawn(drain_sleeper, NULL, NULL).id != 0);
	pthread_t th[READERS];
	for (int i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, stop_reader_thread, &r[i]), 0);
	while (atomic_load(&started) < READERS)
		usleep(100);
	assert_int_equal(ts_rt_stop(), 0);
	for (int i = 0; i < READERS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].other, 0);
		assert_true(r[i].calls > 0);
		/* a finished task is left unjoined only if its join was refused by the stop */
		assert_true(r[i].joined == READER_JOINS || r[i].refused > 0);
	}
	assert_int_equal(ts_rt_start(NULL), 0); /* for the teardown */
}

/* ---- detached tasks (ts_task_attr.detached): freed by their worker at exit, waited for
 * with a wait group, never joined; from a task and from a plain thread, many at once so
 * that their structs and stacks go through the task caches, and the runtime stops
 * cleanly with none of them joined ---- */

#define DETACH_BATCH  256
#define DETACH_ROUNDS 8

struct batch {
	struct ts_waitgroup *wg;
	atomic_long ran;
};

static void *detached_child(void *p)
{
	struct batch *b = p;
	atomic_fetch_add(&b->ran, 1);
	ts_wg_done(b->wg);
	return NULL;
}

/* DETACH_ROUNDS batches of DETACH_BATCH detached children, each batch awaited on the wait group. */
static void *detached_spawner(void *p)
{
	struct batch *b = p;
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	for (int r = 0; r < DETACH_ROUNDS; r++) {
		ts_wg_add(b->wg, DETACH_BATCH);
		for (int i = 0; i < DETACH_BATCH; i++)
			if (!ts_spawn(detached_child, b, &a).id)
				return (void *)"ts_spawn failed";
		ts_wg_wait(b->wg);
	}
	return NULL;
}

/* detached_spawner's rounds, from a task joined here. */
static void spawn_detached_rounds(struct batch *b)
{
	ts_task_handle h = ts_spawn(detached_spawner, b, NULL);
	assert_true(h.id != 0);
	void *ret = (void *)"not joined";
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
}

static void test_detached_from_task(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	spawn_detached_rounds(&b);
	assert_int_equal(atomic_load(&b.ran), DETACH_ROUNDS * DETACH_BATCH);
	ts_wg_destroy(b.wg);
}

static void *return_arg(void *p)
{
	return p;
}

/* A finished detached task's registry slot is released (by its worker, in batches) and
 * reused: after 2 x DETACH_ROUNDS x DETACH_BATCH detached tasks, at most a batch of them
 * alive at a time, a new task's slot index is within that batch plus the finished ones a
 * worker may hold back (RT_EXIT_BATCH, 32, each) and the eight new ones. */
static void test_detached_slots_reused(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	spawn_detached_rounds(&b);
	spawn_detached_rounds(&b);
	/* more than the two slots the joined spawners freed */
	ts_task_handle more[8];
	uint32_t slot = 0;
	for (int i = 0; i < 8; i++) {
		more[i] = ts_spawn(return_arg, NULL, NULL);
		assert_true(more[i].id != 0);
		if ((uint32_t)more[i].id > slot)
			slot = (uint32_t)more[i].id;
	}
	assert_true(slot <= (uint32_t)(DETACH_BATCH + 32 * ts_rt_nr_workers() + 8));
	for (int i = 0; i < 8; i++)
		assert_int_equal(ts_join(more[i], NULL), 0);
	assert_int_equal(atomic_load(&b.ran), 2 * DETACH_ROUNDS * DETACH_BATCH);
	ts_wg_destroy(b.wg);
}

static void *wait_then_done(void *p)
{
	struct batch *b = p;
	ts_wg_wait(b->wg); /* the test's release */
	atomic_fetch_add(&b->ran, 1);
	return NULL;
}

/* ---- a wait group's count from tasks on every worker: the changes that leave it above
 * zero are lock-free (waitgroup.c), the change to zero wakes the waiters, and no waiter
 * returns before it ---- */

#define WG_DONERS  64
#define WG_WAITERS 4

struct wg_race {
	struct ts_waitgroup *wg;
	atomic_long dones;  /* counted before each ts_wg_done() */
	atomic_long early;  /* waiters that returned with dones short of WG_DONERS */
	atomic_long passed; /* waiters that returned */
};

static void *wg_race_doner(void *p)
{
	struct wg_race *r = p;
	for (int i = 0; i < 3; i++)
		ts_yield();
	atomic_fetch_add(&r->dones, 1);
	ts_wg_done(r->wg);
	return NULL;
}

static void *wg_race_waiter(void *p)
{
	struct wg_race *r = p;
	if (ts_wg_wait(r->wg))
		return (void *)"ts_wg_wait failed";
	if (atomic_load(&r->dones) != WG_DONERS)
		atomic_fetch_add(&r->early, 1);
	atomic_fetch_add(&r->passed, 1);
	return NULL;
}

static void *wg_race_main(void *p)
{
	struct wg_race *r = p;
	for (int round = 0; round < 20; round++) {
		atomic_store(&r->dones, 0);
		if (ts_wg_add(r->wg, WG_DONERS))
			return (void *)"ts_wg_add failed";
		ts_task_handle h[WG_WAITERS + WG_DONERS];
		for (int i = 0; i < WG_WAITERS; i++)
			h[i] = ts_spawn(wg_race_waiter, r, NULL);
		for (int i = 0; i < WG_DONERS; i++)
			h[WG_WAITERS + i] = ts_spawn(wg_race_doner, r, NULL);
		for (int i = 0; i < WG_WAITERS + WG_DONERS; i++) {
			void *ret = NULL;
			if (!h[i].id || ts_join(h[i], &ret) || ret)
				return ret ? ret : (void *)"spawn or join failed";
		}
		/* zero: a refused change leaves it so, and a wait returns at once */
		if (ts_wg_add(r->wg, -1) != -EINVAL || ts_wg_wait(r->wg))
			return (void *)"zero count";
	}
	return NULL;
}

static void test_wg_race(void **state)
{
	(void)state;
	struct wg_race r = {.wg = ts_wg_create()};
	assert_non_null(r.wg);
	ts_task_handle h = ts_spawn(wg_race_main, &r, NULL);
	void *ret = (void *)"not joined";
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	assert_int_equal(atomic_load(&r.passed), 20 * WG_WAITERS);
	assert_int_equal(atomic_load(&r.early), 0);
	/* 2 - 1 leaves 1 (the lock-free path), then 1 - 2 is refused and changes nothing */
	assert_int_equal(ts_wg_add(r.wg, 2), 0);
	assert_int_equal(ts_wg_done(r.wg), 0);
	assert_int_equal(ts_wg_add(r.wg, -2), -EINVAL);
	assert_int_equal(ts_wg_done(r.wg), 0);
	assert_int_equal(ts_wg_done(r.wg), -EINVAL);
	ts_wg_destroy(r.wg);
}

/* A wait that returns lets its caller destroy the group at once: the task whose done made
 * the count zero must be finished with the group by then (it still pops the waiters and
 * unlocks after its change). The waiter waits only once the child has started, so that
 * many rounds find the change to zero under way; ASan and TSan check every round. */
static void *wg_destroy_rounds(void *p)
{
	(void)p;
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	for (int i = 0; i < 1000; i++) {
		struct batch b = {.wg = ts_wg_create()};
		if (!b.wg || ts_wg_add(b.wg, 1))
			return (void *)"wait group";
		if (!ts_spawn(detached_child, &b, &a).id)
			return (void *)"spawn failed";
		/* until the child is in its done (on either worker), so that the wait often
		 * finds the count reaching zero under way */
		while (!atomic_load(&b.ran))
			ts_yield();
		if (ts_wg_wait(b.wg) || atomic_load(&b.ran) != 1)
			return (void *)"wait returned early";
		ts_wg_destroy(b.wg);
	}
	return NULL;
}

static void test_wg_destroy_after_wait(void **state)
{
	(void)state;
	ts_task_handle h = ts_spawn(wg_destroy_rounds, NULL, NULL);
	void *ret = (void *)"not joined";
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
}

/* A live detached task cannot be joined; once it has exited its handle is stale. */
static void test_join_detached_refused(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	ts_wg_add(b.wg, 1);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	ts_task_handle h = ts_spawn(wait_then_done, &b, &a);
	assert_true(h.id != 0);
	assert_int_equal(ts_join(h, NULL), -EINVAL);
	ts_wg_done(b.wg);
	while (atomic_load(&b.ran) == 0)
		ts_yield();
	/* It may still be on its way out: ESRCH once its worker has reaped it. */
	int rc;
	while ((rc = ts_join(h, NULL)) == -EINVAL)
		ts_yield();
	assert_int_equal(rc, -ESRCH);
	ts_wg_destroy(b.wg);
}

/* From a plain thread: spawned through the workers' inboxes, the batch awaited by a task
 * (ts_wg_wait blocks tasks only). Runs and stops with nothing joined. */
static void *batch_waiter(void *p)
{
	struct batch *b = p;
	ts_wg_wait(b->wg);
	return NULL;
}

/* One task after another, each joined before the next: every spawn reuses the struct the
 * last one left in the task cache, and every run the stack it left in its worker's stack
 * cache (and under TSan its fiber, which is replaced after RT_FIBER_REUSE_MAX = 1024
 * tasks), and each runs its own function and argument. */
static void *spawner_of_sequence(void *p)
{
	(void)p;
	for (long i = 0; i < 2100; i++) {
		ts_task_handle h = ts_spawn(return_arg, (void *)(i + 1), NULL);
		if (!h.id)
			return (void *)"spawn failed";
		void *ret = NULL;
		if (ts_join(h, &ret) || ret != (void *)(i + 1))
			return (void *)"wrong result";
	}
	return NULL;
}

static void test_sequential_spawns_reuse(void **state)
{
	(void)state;
	ts_task_handle h = ts_spawn(spawner_of_sequence, NULL, NULL);
	assert_true(h.id != 0);
	void *ret = (void *)"not joined";
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
}

static void test_detached_from_thread(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	ts_wg_add(b.wg, DETACH_BATCH);
	for (int i = 0; i < DETACH_BATCH; i++)
		assert_true(ts_spawn(detached_child, &b, &a).id != 0);
	ts_task_handle w = ts_spawn(batch_waiter, &b, NULL);
	assert_true(w.id != 0);
	assert_int_equal(ts_join(w, NULL), 0);
	assert_int_equal(atomic_load(&b.ran), DETACH_BATCH);
	ts_wg_destroy(b.wg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_spawn_join, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spawn_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_yield, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_self_and_nice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_affinity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_stack_bound_when_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_channel_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_channel_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_channel_prefaulted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_joiners, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lifecycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detached_from_task, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detached_slots_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wg_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_drains_working_tasks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_refuses_plain_thread_spawns, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stop_with_plain_thread_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wg_destroy_after_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_join_detached_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detached_from_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequential_spawns_reuse, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
