/* Tasks: spawn, exit, join, and the handle registry. A handle is (generation << 32 |
 * slot + 1) into a table of live tasks, so that a stale handle (a task already joined)
 * is recognised instead of dereferenced. */
#include "rt_internal.h"

#include "toposched/near_node.h"
#include "toposched/spread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	struct rt_task *t;
	uint32_t gen;
	bool join_claimed;
};

/* A spinlock (zero = unlocked), as the run queues': each hold is a few dozen instructions,
 * and a spawn+join takes it three times; glibc's adaptive mutex was ~300 of the ~4,000
 * instructions of a spawn+join (callgrind), its unlock a locked instruction. */
static struct {
	/* On a line of its own: next to a flag every worker reads (rt_trace_on), each spawn's
	 * lock took the line away from the other workers and back. */
	_Alignas(64) rt_spinlock_t lock;
	uint32_t nr, cap; /* slots used, allocated */
	struct slot *slots;
	uint32_t *free; /* indices of released slots, a stack of nr_free */
	uint32_t nr_free;
} reg;

static uint64_t reg_add(struct rt_task *t, bool detached)
{
	rt_spin_lock(&reg.lock);
	uint32_t i;
	if (reg.nr_free) {
		i = reg.free[--reg.nr_free];
		/* The next spawn's slot, most likely released by another worker's batch
		 * (rt_exits_flush()): its line comes while this spawn goes on. */
		if (reg.nr_free)
			rt_prefetch_w(&reg.slots[reg.free[reg.nr_free - 1]], 1);
	} else {
		if (reg.nr == reg.cap) {
			uint32_t cap = reg.cap ? 2 * reg.cap : 256;
			struct slot *s = realloc(reg.slots, cap * sizeof(*s));
			uint32_t *f = s ? realloc(reg.free, cap * sizeof(*f)) : NULL;
			if (s)
				reg.slots = s;
			if (!s || !f) {
				rt_spin_unlock(&reg.lock);
				return 0;
			}
			reg.free = f;
			reg.cap = cap;
		}
		i = reg.nr++;
		reg.slots[i].gen = 1;
	}
	reg.slots[i].t = t;
	reg.slots[i].join_claimed = detached; /* nobody may join it */
	uint64_t id = ((uint64_t)reg.slots[i].gen << 32) | (i + 1);
	t->id = id;
	rt_spin_unlock(&reg.lock);
	return id;
}

/* Looks h up with reg.lock held; NULL if it names no live task (a finished detached task
 * waiting for rt_exits_flush() is not live). */
static struct slot *reg_find(uint64_t id)
{
	uint32_t i = (uint32_t)id, gen = (uint32_t)(id >> 32);
	if (i == 0 || i > reg.nr)
		return NULL;
	struct slot *s = &reg.slots[i - 1];
	if (!s->t || s->gen != gen)
		return NULL;
	if (s->t->detached && atomic_load_explicit(&s->t->finished, memory_order_relaxed))
		return NULL;
	return s;
}

static void reg_release(struct slot *s)
{
	s->t = NULL;
	s->gen++;
	reg.free[reg.nr_free++] = (uint32_t)(s - reg.slots);
}

/* A task's struct is allocated on its own, 64-byte aligned (its lines are prefetched and
 * shared by line: rt_task_prefetch()); its stack is bound apart (stack.c). */
#define TASK_STRUCT_BYTES ((sizeof(struct rt_task) + 63) & ~(size_t)63)

/* A stack of `size` bytes is a default one (taken from and given back to the stack caches,
 * bound when the task first runs) if its mapping has the default stack's size. */
static bool default_stack(size_t size)
{
	return !size || rt_stack_map_size(size) == rt_g.stack_map_size;
}

/* A kept TSan fiber is reused this many times, then replaced: a finished task leaves its
 * last frames on the fiber's shadow stack (it never returns from task_entry()), and
 * TSan's shadow stack has a fixed size. */
#define RT_FIBER_REUSE_MAX 1024

/* The TSan fiber kept with t's stack for its next task, if any (NULL: a new one). */
static void *task_take_fiber(struct rt_task *t)
{
	void *f = t->stack.fiber;
	t->stack.fiber = NULL;
	if (f && ++t->stack.fiber_uses > RT_FIBER_REUSE_MAX) {
		rt_ctx_fiber_free(f);
		f = NULL;
		t->stack.fiber_uses = 0;
	}
	return f;
}

/* rt_numa_task_release() for a task with NUMA state (swap pins, the core's, declared
 * memory): the call and its clearing for none of it were ~15 instructions of every exit. */
static inline void task_numa_release(struct rt_task *t)
{
	if (atomic_load_explicit(&t->numa_pins, memory_order_acquire) || t->ts.numa ||
	    t->numa.region)
		rt_numa_task_release(t);
}

/* Frees t and the stack it still holds (one of its own size; a default one went back to
 * a cache when it exited). */
static void task_free(struct rt_task *t)
{
	task_numa_release(t);
	rt_ctx_destroy(&t->ctx);
	ts_task_destroy(&t->ts);
	rt_stack_free(&t->stack);
	free(t);
}

/* ---- the task cache ----
 * A released task's struct goes to a cache, from which ts_spawn() takes it back for the
 * next task: a fresh one is an allocation, and its first touch a page fault for every three
 * structs (10-15 us each in a guest). Each worker has its own,
 * touched only by its thread (its loop and the tasks running on it, which never run
 * at the same time: no lock), of at most RT_TASK_CACHE_LOCAL entries; behind them is a
 * shared one under a mutex, which plain threads use directly. As Go's per-P free lists of
 * goroutines (runtime/proc.go gfput()/gfget()), a worker whose cache is full moves
 * RT_TASK_CACHE_BATCH entries to the shared one, and one whose cache is empty takes up to
 * that many from it: a detached task is freed by the worker it ran on, which need not be
 * the spawner's, and without the exchange the spawner's worker would allocate every
 * struct afresh while the other's cache overflowed. The shared one holds at most
 * (workers + 1) x RT_TASK_CACHE_MAX, so the memory kept is bounded by workers x
 * RT_TASK_CACHE_LOCAL + (workers + 1) x RT_TASK_CACHE_MAX structs (stacks have caches of
 * their own, stack.c). Under ASan a cached struct is poisoned, so that a use after join is
 * still reported. Everything is freed by ts_rt_stop(). */

/* The shared cache: a stack of chains (each linked by cache_next; its head's cache_chain
 * is the next chain, its cache_chain_n its length), so that a worker gives or takes
 * RT_TASK_CACHE_BATCH entries at once without walking them: each step of a walk read a
 * struct the other worker had freed, a cache miss, and the walk was a quarter of a spawn
 * across workers on the 2-CPU VM. On lines of its own (see reg). */
static struct {
	_Alignas(64) pthread_mutex_t lock;
	struct rt_task *chains;
	int n; /* entries in all the chains */
	/* Set when a worker found its cache and the shared one empty and allocated a struct,
	 * cleared by a refill that leaves RT_TASK_CACHE_LOCAL entries behind in the shared
	 * cache (there are enough again): meanwhile every worker keeps at most
	 * RT_TASK_CACHE_BATCH finished tasks, its own and in its cache (cache_room()), and
	 * passes the rest on. A worker that runs tasks but spawns none held up to 64 back
	 * while the spawner allocated a fresh one for each task it lacked (when a stack was
	 * kept with each struct: a stack and its first touch, ~25 us in the 2-CPU guest,
	 * 150-190 of them in a run of 10,000 spawns); once the caches hold enough, nothing
	 * is allocated and the flag stays clear.
	 * On a line of its own: read at every release, written only then. */
	_Alignas(64) atomic_int hungry;
} shared = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* How many finished tasks a worker keeps (cached, or waiting for rt_exits_flush()). */
static inline int cache_room(void)
{
	return atomic_load_explicit(&shared.hungry, memory_order_relaxed) ? RT_TASK_CACHE_BATCH
									  : RT_TASK_CACHE_LOCAL;
}

static int shared_cap(void)
{
	return (rt_g.nr_workers + 1) * RT_TASK_CACHE_MAX;
}

/* A cached entry's links stay readable under ASan; the rest of it is poisoned. */
#define CACHE_LINK_OFF offsetof(struct rt_task, cache_next)
#define CACHE_LINK_END (offsetof(struct rt_task, cache_chain_n) + sizeof(int))

static void cache_poison(struct rt_task *t)
{
	RT_POISON(t, CACHE_LINK_OFF);
	RT_POISON((char *)t + CACHE_LINK_END, sizeof(*t) - CACHE_LINK_END);
}

static void cache_unpoison(struct rt_task *t)
{
	RT_UNPOISON(t, sizeof(*t));
}

static void cache_push(struct rt_task_cache *c, struct rt_task *t)
{
	t->cache_next = c->head;
	c->head = t;
	c->n++;
}

static bool cache_put(struct rt_task_cache *c, struct rt_task *t, int cap)
{
	if (c->n >= cap)
		return false;
	cache_push(c, t);
	cache_poison(t);
	return true;
}

static struct rt_task *cache_get(struct rt_task_cache *c)
{
	struct rt_task *t = c->head;
	if (!t)
		return NULL;
	c->head = t->cache_next;
	c->n--;
	cache_unpoison(t);
	return t;
}

/* Frees a chain of cached entries (linked by cache_next). */
static void cache_free_chain(struct rt_task *t)
{
	while (t) {
		struct rt_task *next = t->cache_next;
		cache_unpoison(t);
		free(t);
		t = next;
	}
}

static void cache_flush(struct rt_task_cache *c)
{
	cache_free_chain(c->head);
	c->head = NULL;
	c->n = 0;
}

/* shared.lock held: the chain head..(n entries) on top of the shared cache, if it has room
 * for it; false if not (the caller frees the chain). */
static bool shared_push_chain(struct rt_task *head, int n)
{
	if (shared.n + n > shared_cap())
		return false;
	head->cache_chain = shared.chains;
	head->cache_chain_n = n;
	shared.chains = head;
	shared.n += n;
	return true;
}

/* Everything in the shared cache, freed (ts_rt_stop()). */
static void shared_flush(void)
{
	pthread_mutex_lock(&shared.lock);
	struct rt_task *c = shared.chains;
	shared.chains = NULL;
	shared.n = 0;
	atomic_store_explicit(&shared.hungry, 0, memory_order_relaxed); /* a new run: not yet */
	pthread_mutex_unlock(&shared.lock);
	while (c) {
		struct rt_task *next = c->cache_chain;
		cache_free_chain(c);
		c = next;
	}
}

/* A worker's full cache: its first RT_TASK_CACHE_BATCH entries (its own, hot) as one chain
 * to the shared cache, or freed when that is full. Only the links of a cached entry are
 * touched (not poisoned). */
static void cache_spill(struct rt_task_cache *local)
{
	struct rt_task *head = local->head, *tail = head;
	int n = 1;
	while (n < RT_TASK_CACHE_BATCH && tail->cache_next) {
		tail = tail->cache_next;
		n++;
	}
	local->head = tail->cache_next;
	local->n -= n;
	tail->cache_next = NULL;
	pthread_mutex_lock(&shared.lock);
	bool kept = shared_push_chain(head, n);
	pthread_mutex_unlock(&shared.lock);
	if (!kept)
		cache_free_chain(head);
}

/* A worker's empty cache: the shared cache's top chain, taken whole. */
static void cache_refill(struct rt_task_cache *local)
{
	pthread_mutex_lock(&shared.lock);
	struct rt_task *c = shared.chains;
	if (c) {
		shared.chains = c->cache_chain;
		shared.n -= c->cache_chain_n;
		local->head = c;
		local->n = c->cache_chain_n;
	}
	bool plenty = shared.n >= RT_TASK_CACHE_LOCAL;
	pthread_mutex_unlock(&shared.lock);
	if (plenty && atomic_load_explicit(&shared.hungry, memory_order_relaxed))
		atomic_store_explicit(&shared.hungry, 0, memory_order_relaxed);
}

/* One entry of the shared cache, for a plain thread (the rest of its chain stays). */
static struct rt_task *shared_get(void)
{
	pthread_mutex_lock(&shared.lock);
	struct rt_task *c = shared.chains;
	if (c) {
		struct rt_task *rest = c->cache_next;
		if (rest) {
			rest->cache_chain = c->cache_chain;
			rest->cache_chain_n = c->cache_chain_n - 1;
			shared.chains = rest;
		} else {
			shared.chains = c->cache_chain;
		}
		shared.n--;
	}
	pthread_mutex_unlock(&shared.lock);
	if (c)
		cache_unpoison(c);
	return c;
}

/* The end of a joined or reaped task: its struct to a cache (its stack, if it still holds
 * one of its own size, unmapped). */
static void task_release(struct rt_task *t)
{
	task_numa_release(t);
	rt_ctx_destroy(&t->ctx);
	ts_task_destroy(&t->ts);
	rt_stack_free(&t->stack); /* nothing unless it has one of its own size */
	struct rt_worker *w = rt_this_worker();
	if (w) {
		if (w->tcache.n >= cache_room())
			cache_spill(&w->tcache);
		cache_put(&w->tcache, t, RT_TASK_CACHE_LOCAL);
		return;
	}
	t->cache_next = NULL;
	cache_poison(t); /* before another thread can take it */
	pthread_mutex_lock(&shared.lock);
	bool kept = shared_push_chain(t, 1);
	pthread_mutex_unlock(&shared.lock);
	if (kept)
		return;
	cache_unpoison(t);
	free(t);
}

/* task_alloc() clears a cached struct from ctx to err: ts first, err last. */
_Static_assert(offsetof(struct rt_task, ts) == 0, "the core's task first in rt_task");
_Static_assert(sizeof(struct rt_task) - offsetof(struct rt_task, err) < TS_ERR_MSG_MAX + 64,
	       "the error message last in rt_task");

/* A zeroed task struct, without a stack: from a task cache (w's: the calling thread's
 * worker, NULL for a plain thread) or allocated anew; NULL if out of memory. */
static struct rt_task *task_alloc(struct rt_worker *w)
{
	struct rt_task *t;
	if (w) {
		if (!w->tcache.n)
			cache_refill(&w->tcache);
		t = cache_get(&w->tcache);
		if (!t && !atomic_load_explicit(&shared.hungry, memory_order_relaxed))
			atomic_store_explicit(&shared.hungry, 1, memory_order_relaxed);
	} else {
		t = shared_get();
	}
	if (t) {
		/* The next one's lines, most likely freed on another worker, come while this
		 * spawn goes on (rt_task_prefetch()). */
		if (w && w->tcache.head)
			rt_task_prefetch(w->tcache.head);
		/* Zeroed as a fresh one: all but the core's task, which ts_task_init() clears,
		 * and the error message, of which only "" counts (its 512 bytes were a third
		 * of the clearing). */
		char *from = (char *)t + offsetof(struct rt_task, ctx);
		memset(from, 0, offsetof(struct rt_task, err) - offsetof(struct rt_task, ctx));
		t->err[0] = '\0';
		return t;
	}
	t = aligned_alloc(64, TASK_STRUCT_BYTES);
	if (t)
		memset(t, 0, TASK_STRUCT_BYTES);
	return t;
}

static void task_entry(void *arg);

/* The stack of a task with the default stack size, bound as it first runs on w (by w's
 * thread, from the loop or a task switching to it directly): the stack caches'
 * (stack.c). A task that cannot get one cannot run: out of address space or memory, the
 * process stops here, as Go's runtime does ("fatal error: out of memory"). */
void rt_task_bind_stack(struct rt_worker *w, struct rt_task *t)
{
	int rc = rt_stack_take(w, &t->stack);
	if (rc) {
		fprintf(stderr,
			"toposched runtime: cannot map a stack of %zu bytes for task %s: %s\n",
			rt_g.stack_size, t->name, strerror(-rc));
		abort();
	}
	rt_ctx_init_task(&t->ctx, t->stack.lo, t->stack.size, task_entry, t, task_take_fiber(t));
}

/* A finished task's default stack back to w's cache (its frames are dead: it switched to
 * the loop for the last time), with its TSan fiber; t keeps no context. */
static void task_unbind_stack(struct rt_worker *w, struct rt_task *t)
{
	t->stack.fiber = rt_ctx_keep_fiber(&t->ctx);
	rt_ctx_destroy(&t->ctx); /* ASan: the frames it left, unpoisoned */
	memset(&t->ctx, 0, sizeof(t->ctx));
	rt_stack_give(w, &t->stack);
}

void rt_tasks_free_all(void)
{
	rt_spin_lock(&reg.lock);
	for (uint32_t i = 0; i < reg.nr; i++) {
		if (reg.slots[i].t) {
			task_free(reg.slots[i].t);
			reg.slots[i].t = NULL;
		}
	}
	free(reg.slots);
	free(reg.free);
	reg.slots = NULL;
	reg.free = NULL;
	reg.nr = reg.cap = reg.nr_free = 0;
	rt_spin_unlock(&reg.lock);
	/* The workers have exited: their caches are ours now (their finished tasks were
	 * flushed as they stopped, and any left are registered, so freed above). */
	if (rt_g.worker)
		for (int i = 0; i < rt_g.nr_workers; i++) {
			struct rt_worker *w = rt_g.worker[rt_g.worker_cpus[i]];
			w->zombies = NULL;
			w->nr_zombies = 0;
			w->nr_exited = 0;
			cache_flush(&w->tcache);
		}
	shared_flush();
	rt_stack_caches_flush();
}

static void task_entry(void *arg)
{
	struct rt_task *t = arg;
	rt_ctx_entered();
	rt_after_switch();
	t->ret = t->fn(t->arg);
	t->reason = RT_SW_EXIT;
	rt_ctx_switch_final(&t->ctx, &t->worker->ctx);
}

/* Releases the registry slots of a chain of finished detached tasks (linked by
 * cache_next) under one hold of reg.lock, then their structs into this worker's cache. */
static void reap_chain(struct rt_task *t)
{
	rt_spin_lock(&reg.lock);
	for (struct rt_task *z = t; z; z = z->cache_next)
		reg_release(&reg.slots[(uint32_t)z->id - 1]);
	rt_spin_unlock(&reg.lock);
	while (t) {
		struct rt_task *next = t->cache_next;
		task_release(t);
		t = next;
	}
}

void rt_exits_flush(struct rt_worker *w)
{
	struct rt_task *t = w->zombies;
	long exited = w->nr_exited;
	w->zombies = NULL;
	w->nr_zombies = 0;
	w->nr_exited = 0;
	if (t)
		reap_chain(t);
	if (exited && atomic_fetch_sub(&rt_g.live, exited) == exited)
		rt_stop_notify();
}

/* A detached task's end, by the worker w that ran it (its stack is no longer live): what
 * ts_join() does after the wait. Its slot and struct are released in batches
 * (rt_exits_flush()): releasing each took reg.lock, which a spawner on another worker
 * takes for every spawn, so its line crossed between the workers twice a task
 * (docs/runtime.md, "Spawn across workers"). Marked finished meanwhile, the task is no
 * longer found by its handle. */
static void task_reap(struct rt_task *t, struct rt_worker *w)
{
	atomic_store_explicit(&t->finished, 1, memory_order_relaxed);
	t->cache_next = w->zombies;
	w->zombies = t;
	w->nr_zombies++;
}

void rt_task_finish(struct rt_task *t, int cpu)
{
	struct rt_worker *w = rt_g.worker[cpu];
	/* Before t can be reaped or joined (and freed): its default stack to this worker. */
	if (!t->own_stack)
		task_unbind_stack(w, t);
	/* A waker may still be in the tail of the core's wake-up of t (wake.c). Only for a
	 * task that has blocked: a waker takes pi_lock only for a task it found sleeping
	 * (or its worker's deferred wake-up, or a plain thread's through the inbox, both
	 * after a block), so one that never blocked has no waker to wait for, and its exit
	 * saves the lock's exchange (perf: nearly all of this function's samples there,
	 * draining the exit's stores). t->blocked is t's own write, before it switched out. */
	if (t->blocked) {
		rt_spin_lock(&t->pi_lock);
		rt_spin_unlock(&t->pi_lock);
	}
	if (t->detached) {
		task_reap(t, w); /* nobody joins it: no join_lock, no joiner to wake */
	} else {
		rt_spin_lock(&t->join_lock);
		atomic_store(&t->finished, 1);
		struct rt_task *j = t->joiner;
		if (t->ext_waiters)
			rt_futex_wake(&t->finished, 1 << 30);
		rt_spin_unlock(&t->join_lock);
		/* t may be freed from here on */
		if (j)
			rt_wake(j, 0);
	}
	/* Off rt_g.live in batches too: the spawner adds to it at every spawn, so each
	 * subtraction from the other worker took its line away (rt_exits_flush()). The
	 * finished detached tasks count against the task cache's room, so that this worker
	 * holds no more stacks back from a spawner elsewhere than its cache did alone (each
	 * one more it held was a stack mapped and faulted in anew there). */
	if (++w->nr_exited >= RT_EXIT_BATCH || w->nr_zombies + w->tcache.n >= cache_room())
		rt_exits_flush(w);
}

static int build_mask(const struct ts_task_attr *a, struct ts_cpumask **out)
{
	struct ts_sched *s = rt_g.s;
	*out = NULL;
	if (a->cpus) {
		struct ts_error err = {0};
		struct ts_cpumask *m = ts_cpumask_alloc(s->nr_cpus);
		if (!m)
			return rt_error(-ENOMEM, "ts_spawn: out of memory");
		int rc = ts_cpumask_parse(m, a->cpus, &err);
		if (rc) {
			ts_cpumask_free(m);
			return rt_error(rc, "ts_spawn: cpus '%s': %s", a->cpus, err.msg);
		}
		*out = m;
	} else if (a->node >= 0) {
		const struct ts_topology *t = s->topo;
		if (a->node >= t->nr_nodes)
			return rt_error(-EINVAL, "ts_spawn: node %d does not exist (%d nodes)",
					a->node, t->nr_nodes);
		struct ts_cpumask *m = ts_cpumask_alloc(s->nr_cpus);
		if (!m)
			return rt_error(-ENOMEM, "ts_spawn: out of memory");
		for (int c = 0; c < t->nr_cpus; c++)
			if (t->cpu[c].node == a->node)
				ts_cpumask_set(m, c);
		*out = m;
	}
	return 0;
}

/* The first CPU of a task spawned near a node (attr near_node/spread_index), -1 when the
 * core's fork placement decides; `mask` is its affinity (NULL = any). The core picks it
 * (ts_select_near_node()); the spread index, when not given, is the next one of the node. */
static int spread_target(const struct ts_task_attr *a, const struct ts_cpumask *mask, int *cpu)
{
	struct ts_sched *s = rt_g.s;
	int nr = s->topo->nr_nodes;
	*cpu = -1;
	if (a->near_node == -1 && a->spread_index == -1)
		return 0;
	if (a->near_node < -1 || a->near_node >= nr)
		return rt_error(-EINVAL,
				"ts_spawn: near_node %d does not exist (%d nodes; -1 = none)",
				a->near_node, nr);
	if (a->spread_index < -1)
		return rt_error(
			-EINVAL,
			"ts_spawn: spread_index %d is negative (-1 = the next one near the node)",
			a->spread_index);
	unsigned int i = (unsigned int)a->spread_index;
	if (a->spread_index < 0)
		i = atomic_fetch_add_explicit(&rt_g.spread_next[a->near_node], 1,
					      memory_order_relaxed);
	struct ts_placement pl;
	struct ts_error err = {0};
	int rc = ts_select_near_node(s, mask, a->near_node, i, &pl, &err);
	if (rc)
		return rt_error(rc, "ts_spawn: %s", err.msg);
	*cpu = pl.cpu;
	return 0;
}

/* ts_spawn() by a task or a worker's loop (w), or by a plain thread (w NULL) inside its
 * counted call. */
static ts_task_handle spawn(ts_task_fn fn, void *arg, const struct ts_task_attr *a,
			    struct rt_worker *w)
{
	ts_task_handle h = {0};
	if (!fn) {
		rt_error(-EINVAL, "ts_spawn: fn is NULL");
		return h;
	}
	struct rt_task *self = w ? rt_current() : NULL;
	struct ts_task_group *tg = NULL;
	if (a->group && rt_group_resolve(a->group, &tg)) {
		rt_error(-EINVAL, "ts_spawn: attr.group is not a task group of this run");
		return h;
	}
	struct ts_cpumask *mask = NULL;
	int target;
	if (build_mask(a, &mask))
		return h;
	if (spread_target(a, mask, &target)) {
		ts_cpumask_free(mask);
		return h;
	}
	struct rt_task *t = task_alloc(w);
	if (!t) {
		ts_cpumask_free(mask);
		rt_error(-ENOMEM, "ts_spawn: out of memory");
		return h;
	}
	/* A stack of its own size is mapped now, so that a failure is this call's; a
	 * default one is bound when the task first runs (rt_task_bind_stack()). */
	int rc;
	if (!default_stack(a->stack_size)) {
		if ((rc = rt_stack_alloc(&t->stack, a->stack_size))) {
			ts_cpumask_free(mask);
			free(t);
			rt_error(rc, "ts_spawn: cannot map a stack of %zu bytes: %s", a->stack_size,
				 strerror(-rc));
			return h;
		}
		t->own_stack = true;
	}
	/* Spawned from a task: fork on its CPU; from a plain thread: a worker's, round robin. */
	struct rt_worker *home = w;
	if (!home)
		home = rt_g.worker[rt_g.worker_cpus[atomic_fetch_add(&rt_g.next_inbox, 1) %
						    (unsigned)rt_g.nr_workers]];
	/* Only what ts_error_set() reads: clearing the whole message was 72 instructions of
	 * every spawn (callgrind). */
	struct ts_error err;
	err.code = 0;
	err.msg[0] = '\0';
	rc = ts_task_init(rt_g.s, &t->ts, a->nice, mask, target >= 0 ? target : home->cpu, &err);
	ts_cpumask_free(mask);
	if (rc) {
		ts_task_destroy(&t->ts);
		rt_stack_free(&t->stack);
		free(t);
		rt_error(rc, "ts_spawn: %s", err.msg);
		return h;
	}
	/* Into its group while NEW: its first enqueue (ts_wake_up_new_task()) is there. */
	if (tg && (rc = ts_task_set_group(rt_g.s, &t->ts, tg))) {
		ts_task_destroy(&t->ts);
		rt_stack_free(&t->stack);
		free(t);
		rt_error(rc, "ts_spawn: cannot put the task into group '%s'", tg->name);
		return h;
	}
	t->ts.host_data = t;
	/* The NUMA fields (t->numa, numa_pins) are zero, as task_alloc() leaves them. */
	t->fn = fn;
	t->arg = arg;
	/* Not snprintf (the format machinery was 1.5 % of a spawn), nor strncpy (its padding
	 * of the 32 bytes was another 1.2 %). */
	if (!a->name) {
		memcpy(t->name, "task", sizeof("task")); /* inline: no strnlen, no call */
	} else {
		size_t len = strnlen(a->name, sizeof(t->name) - 1);
		memcpy(t->name, a->name, len);
		t->name[len] = '\0';
	}
	rt_spin_lock_init(&t->pi_lock);
	rt_spin_lock_init(&t->join_lock);
	atomic_init(&t->wstate, RT_RUNNING);
	if (t->own_stack)
		rt_ctx_init_task(&t->ctx, t->stack.lo, t->stack.size, task_entry, t, NULL);
	t->detached = a->detached;
	h.id = reg_add(t, a->detached);
	if (!h.id) {
		task_free(t);
		rt_error(-ENOMEM, "ts_spawn: out of memory");
		return h;
	}
	atomic_fetch_add(&rt_g.live, 1);
	if (target >= 0) {
		/* Placed near its node: the core's wake_up_new_task() without fork balancing
		 * (it takes the target's rq lock; any thread may call it). */
		ts_wake_up_new_task_on(rt_g.s, &t->ts, target);
		atomic_fetch_add_explicit(&rt_g.spawned_near, 1, memory_order_relaxed);
	} else if (w) {
		/* A task, or a worker's loop: this thread is the CPU's only actor. A task placed
		 * on another, idle worker is activated by that worker (its inbox): taking its
		 * run-queue lock from here cost a spawn ~40 % more on the 2-CPU VM (the lock,
		 * the queue and the tree each a cache-line transfer between the workers,
		 * contended by the idle worker's own scheduling; docs/runtime.md). */
		struct ts_placement pl;
		ts_wake_up_new_task_or_queue(&pl, rt_g.s, &t->ts, w->cpu, self ? &self->ts : NULL);
		rt_trace_new(t, self, &pl);
		rt_stat_bump(&w->spawned);
		if (pl.ttwu_queued)
			rt_inbox_push(rt_g.worker[pl.cpu], t, RT_INBOX_NEW_QUEUED);
	} else {
		rt_inbox_push_plain(home, t, RT_INBOX_NEW);
	}
	return h;
}

ts_task_handle ts_spawn(ts_task_fn fn, void *arg, const struct ts_task_attr *attr)
{
	static const struct ts_task_attr defaults = TS_TASK_ATTR_INIT;
	const struct ts_task_attr *a = attr ? attr : &defaults;
	struct rt_worker *w = rt_this_worker();
	if (w) /* a task or a worker: the runtime runs until it (and its tasks) are done */
		return spawn(fn, arg, a, w);
	/* While ts_rt_stop() drains, only tasks start tasks: a plain thread's new task could
	 * come after the stop saw the last one exit. */
	if (!rt_call_enter(false)) {
		rt_error(-ENXIO, "ts_spawn: %s",
			 rt_is_running() ? "the runtime is stopping (ts_rt_stop() was called)"
					 : "the runtime is not running (call ts_rt_start first)");
		return (ts_task_handle){0};
	}
	ts_task_handle h = spawn(fn, arg, a, NULL);
	rt_call_leave();
	return h;
}

/* ts_join() by the task self, or by a plain thread (self NULL) inside its counted call. */
static int join(ts_task_handle h, void **ret, struct rt_task *self)
{
	rt_spin_lock(&reg.lock);
	struct slot *s = reg_find(h.id);
	if (!s) {
		rt_spin_unlock(&reg.lock);
		return rt_error(
			-ESRCH,
			"ts_join: handle %#llx names no task (never spawned, or already joined)",
			(unsigned long long)h.id);
	}
	struct rt_task *t = s->t;
	if (t == self) {
		rt_spin_unlock(&reg.lock);
		return rt_error(-EDEADLK, "ts_join: task '%s' would wait for itself", t->name);
	}
	if (t->detached) {
		rt_spin_unlock(&reg.lock);
		return rt_error(-EINVAL, "ts_join: task '%s' is detached", t->name);
	}
	if (s->join_claimed) {
		rt_spin_unlock(&reg.lock);
		return rt_error(-EINVAL,
				"ts_join: task '%s' is already being joined by someone else",
				t->name);
	}
	s->join_claimed = true;
	rt_spin_unlock(&reg.lock);

	rt_spin_lock(&t->join_lock);
	if (self) {
		struct rt_waiter wt = {.task = self};
		while (!atomic_load(&t->finished)) {
			t->joiner = self;
			rt_prepare_block(self);
			rt_spin_unlock(&t->join_lock);
			rt_block(self);
			rt_spin_lock(&t->join_lock);
		}
		(void)wt;
	} else {
		while (!atomic_load(&t->finished)) {
			t->ext_waiters = 1;
			rt_spin_unlock(&t->join_lock);
			rt_futex_wait(&t->finished, 0, 0);
			rt_spin_lock(&t->join_lock);
		}
	}
	rt_spin_unlock(&t->join_lock);
	if (ret)
		*ret = t->ret;
	rt_spin_lock(&reg.lock);
	reg_release(s = reg_find(h.id));
	rt_spin_unlock(&reg.lock);
	task_release(t);
	if (self)
		self->err[0] = '\0'; /* rt_error_clear() without its look-up */
	else
		rt_error_clear();
	return 0;
}

int ts_join(ts_task_handle h, void **ret)
{
	struct rt_task *self = rt_current();
	/* A joining task counts in rt_g.live until it returns from here, which keeps
	 * ts_rt_stop() waiting: only a plain thread's join is counted (two locked
	 * instructions less in a task's join, each a drain of the store buffer). */
	if (self)
		return join(h, ret, self);
	if (!rt_call_enter(true))
		return rt_error(-ENXIO, "ts_join: the runtime is not running");
	int rc = join(h, ret, NULL);
	rt_call_leave();
	return rc;
}

ts_task_handle ts_self(void)
{
	struct rt_task *t = rt_current();
	return (ts_task_handle){t ? t->id : 0};
}

const char *ts_self_name(void)
{
	struct rt_task *t = rt_current();
	return t ? t->name : NULL;
}

int ts_self_cpu(void)
{
	struct rt_task *t = rt_current();
	return t ? t->worker->cpu : -1;
}

struct ts_task *ts_self_sched_task(void)
{
	struct rt_task *t = rt_current();
	return t ? &t->ts : NULL;
}

int rt_task_with(uint64_t id, const char *what, int (*fn)(struct rt_task *, void *), void *arg)
{
	struct rt_task *self = rt_current();
	if (!id) {
		if (!self)
			return rt_error(-ESRCH,
					"%s: handle 0 names the calling task, and this is no task",
					what);
		id = self->id;
	}
	rt_spin_lock(&reg.lock);
	struct slot *s = reg_find(id);
	int rc = s ? fn(s->t, arg) : -ESRCH;
	rt_spin_unlock(&reg.lock);
	if (!s)
		return rt_error(-ESRCH, "%s: handle %#llx names no task", what,
				(unsigned long long)id);
	if (rc) {
		char msg[TS_ERR_MSG_MAX];
		snprintf(msg, sizeof(msg), "%s", ts_rt_last_error());
		return rt_error(rc, "%s: %s", what, msg);
	}
	return 0;
}

int ts_task_stack(ts_task_handle h, void **guard, void **lo, size_t *size)
{
	struct rt_task *self = rt_current();
	rt_spin_lock(&reg.lock);
	struct slot *s = reg_find(h.id);
	if (!s) {
		rt_spin_unlock(&reg.lock);
		return rt_error(-ESRCH, "ts_task_stack: handle %#llx names no task",
				(unsigned long long)h.id);
	}
	struct rt_task *t = s->t;
	/* A default stack is bound and given back by the worker that runs the task: only the
	 * task itself sees it stay put. */
	if (!t->own_stack && t != self) {
		rt_spin_unlock(&reg.lock);
		return rt_error(
			-EAGAIN,
			"ts_task_stack: task '%s' has the default stack size, so it holds a "
			"stack only while it runs: ask from the task itself, or spawn it "
			"with ts_task_attr.stack_size",
			t->name);
	}
	if (guard)
		*guard = t->stack.map;
	if (lo)
		*lo = t->stack.lo;
	if (size)
		*size = t->stack.size;
	rt_spin_unlock(&reg.lock);
	return 0;
}
