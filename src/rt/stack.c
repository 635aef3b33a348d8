/* Task stacks: mmap'ed, with a PROT_NONE guard page below the usable range, so that an
 * overflow faults instead of writing over a neighbour; and the caches of default-size
 * stacks.
 *
 * A task with the default stack size gets its stack when it first runs, from the cache of
 * the worker that runs it, and gives it back there when it exits (task.c): a stack is held
 * only while its task has started and not finished. So a fan-out of N spawns that run one
 * after another on a worker reuses the same few stacks, hot in that CPU's cache, where a
 * stack bound at the spawn made each of the N queued tasks hold one: the first 10,000
 * spawns of `toposched bench --bench spawn` (batches of 256) mapped ~170 fresh stacks,
 * each an mmap, an mprotect for the guard page and a first-touch fault of its top page
 * (~17 us in the 2-CPU guest: 1.6 + 2.6 + 12), about a third of the run.
 *
 * Each worker keeps up to RT_STACK_CACHE_LOCAL free stacks, touched only by its thread
 * (its loop and the tasks running on it, which never run at the same time: no lock). A
 * task may exit on another worker than the one it started on, so a worker that gains
 * stacks passes RT_STACK_CACHE_BATCH of its coldest to a shared pool when its cache is
 * full, and one that lacks takes a batch from there before it maps a new one; the pool
 * holds at most (workers + 1) x RT_STACK_CACHE_MAX, the rest are unmapped. Under ASan a
 * free stack is poisoned; under TSan the fiber of the task that last ran on it is kept with
 * it (creating one costs ~2 ms in this guest). Everything is unmapped by ts_rt_stop(). */
#include "rt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_STACK
#define MAP_STACK 0
#endif

size_t rt_page_size(void)
{
	static size_t page;
	size_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);
	if (!p) {
		long v = sysconf(_SC_PAGESIZE);
		p = v > 0 ? (size_t)v : 4096;
		__atomic_store_n(&page, p, __ATOMIC_RELAXED);
	}
	return p;
}

/* The stack's bytes: whole pages, at least 4. */
static size_t stack_bytes(size_t size)
{
	size_t page = rt_page_size();
	if (size < 4 * page)
		size = 4 * page;
	return (size + page - 1) & ~(page - 1);
}

size_t rt_stack_map_size(size_t size)
{
	return rt_page_size() + stack_bytes(size);
}

int rt_stack_alloc(struct rt_stack *st, size_t size)
{
	size_t page = rt_page_size(), bytes = stack_bytes(size);
	size_t total = page + bytes;
	void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		       -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	if (mprotect(m, page, PROT_NONE)) {
		int e = errno;
		munmap(m, total);
		return -e;
	}
	st->map = m;
	st->map_size = total;
	st->lo = (char *)m + page;
	st->size = bytes;
	st->fiber = NULL;
	st->fiber_uses = 0;
	return 0;
}

void rt_stack_free(struct rt_stack *st)
{
	rt_ctx_fiber_free(st->fiber);
	if (st->map)
		munmap(st->map, st->map_size);
	memset(st, 0, sizeof(*st));
}

/* ---- the caches of default-size stacks ---- */

static struct {
	_Alignas(64) pthread_mutex_t lock;
	struct rt_stack *v; /* [cap], the coldest first */
	int n, cap;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

int rt_stack_take(struct rt_worker *w, struct rt_stack *st)
{
	struct rt_stack_cache *c = &w->scache;
	if (!c->n) {
		pthread_mutex_lock(&pool.lock);
		int k = pool.n < RT_STACK_CACHE_BATCH ? pool.n : RT_STACK_CACHE_BATCH;
		if (k) {
			pool.n -= k;
			memcpy(c->v, pool.v + pool.n, (size_t)k * sizeof(*c->v));
		}
		pthread_mutex_unlock(&pool.lock);
		c->n = k;
	}
	if (!c->n)
		return rt_stack_alloc(st, rt_g.stack_size);
	*st = c->v[--c->n];
	RT_UNPOISON(st->lo, st->size);
	return 0;
}

void rt_stack_give(struct rt_worker *w, struct rt_stack *st)
{
	struct rt_stack_cache *c = &w->scache;
	if (c->n == RT_STACK_CACHE_LOCAL) {
		/* The coldest batch (the bottom of the cache) to the pool. */
		int k = RT_STACK_CACHE_BATCH, kept = 0;
		pthread_mutex_lock(&pool.lock);
		int cap = (rt_g.nr_workers + 1) * RT_STACK_CACHE_MAX;
		if (pool.cap < cap) {
			struct rt_stack *v = realloc(pool.v, (size_t)cap * sizeof(*v));
			if (v) {
				pool.v = v;
				pool.cap = cap;
			}
		}
		if (pool.n + k <= pool.cap) {
			memcpy(pool.v + pool.n, c->v, (size_t)k * sizeof(*c->v));
			pool.n += k;
			kept = k;
		}
		pthread_mutex_unlock(&pool.lock);
		for (int i = kept; i < k; i++) {
			RT_UNPOISON(c->v[i].lo, c->v[i].size);
			rt_stack_free(&c->v[i]);
		}
		c->n -= k;
		memmove(c->v, c->v + k, (size_t)c->n * sizeof(*c->v));
	}
	RT_POISON(st->lo, st->size);
	c->v[c->n++] = *st;
	memset(st, 0, sizeof(*st));
}

static void unmap_all(struct rt_stack *v, int n)
{
	for (int i = 0; i < n; i++) {
		RT_UNPOISON(v[i].lo, v[i].size);
		rt_stack_free(&v[i]);
	}
}

void rt_stack_caches_flush(void)
{
	if (rt_g.worker)
		for (int i = 0; i < rt_g.nr_workers; i++) {
			struct rt_stack_cache *c = &rt_g.worker[rt_g.worker_cpus[i]]->scache;
			unmap_all(c->v, c->n);
			c->n = 0;
		}
	pthread_mutex_lock(&pool.lock);
	unmap_all(pool.v, pool.n);
	free(pool.v);
	pool.v = NULL;
	pool.n = pool.cap = 0;
	pthread_mutex_unlock(&pool.lock);
}
