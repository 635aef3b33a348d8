/* The runtime's NUMA side: memory on a node (libnuma), the memory each task declares, the
 * NUMA balancer that samples it and feeds the core's hinting-fault path, and the stop work
 * that performs the migrations the core decides.
 *
 * The balancer. When a task scans and how far is the core's (numa_scan.h:
 * ts_task_tick_numa(), ts_task_numa_work(), the same pacing the simulator runs): the first
 * scan after the scan delay of run time, then every scan period (task_scan_start() first,
 * then as placement adapts it, or the fixed numa_scan_period_ms). The worker asks at the
 * safe point where it has picked the task and not yet switched to it (its stack is not
 * live, its on_cpu is this worker's); the walk is this file's: it samples up to
 * numa_samples pages spread over the window the core gives (TS_NUMA_SCAN_SIZE_MB of the
 * task's declared memory from the mm's scan offset), asks the kernel where they are (move_pages()
 * query; on a virtual topology the node the memory was allocated for), and feeds runs of pages on
 * one node to ts_task_numa_fault() as private faults, local when on the worker's node. Completing
 * the declared memory is a full pass: ts_numa_scan_done(). The faults go in with TS_TNF_NO_MIGRATE:
 * the core runs placement but not numa_migrate_preferred(), which this file calls after the fault
 * the kernel would have called it from (the retry time had passed). When ts_numa_migrate_due() (off
 * the preferred node) that runs task_numa_migrate(): the decision (and with NUMA_RESERVE the
 * reservation of the destination) comes back to the worker, and ends the scan.
 *
 * Locks. The faults are fed under the worker's own rq lock alone (as a lock set of one, so
 * the core's rq_lock of this CPU in sched_setnuma() is a no-op, worker.c): they write the
 * task, its rq's NUMA accounting and this CPU's counters, and the lock keeps those writes
 * apart from other workers' searches, which read this CPU's running task under its lock.
 * The search reads the running task of each candidate CPU and that task's fields (state,
 * fault statistics, load) without locks, as the kernel does under RCU; with real threads
 * those reads would race with the writers, so for it the worker drops its lock and takes
 * the rq locks of every CPU outside its own node, and its own, in CPU order
 * (w->numa_lockset). Candidates are never on the searcher's node. So the other nodes stall
 * only for scans that search (numa_searches), not for every scan. No runtime task is in a
 * NUMA group (private faults only); group faults, written by placement and read by other
 * members' searches, would need the full set again. Only the search is serialised: the stop
 * work, and the window between decision and stop work that the reservation protects, run
 * concurrently with everything.
 *
 * Stop work. It takes the tasks' pi_locks before the core takes the rq locks, as the
 * kernel's stop functions do (migrate_apply_locked()). A move (migrate_task_to) is done
 * by this worker at once: the task is its own
 * curr, not running. A swap (migrate_swap) also takes the partner, which runs on the
 * destination, off its CPU: only the destination's worker can do that, at its safe point
 * (between two tasks). The work is posted to it; this worker waits, running any stop
 * work posted to itself meanwhile (two workers swapping with each other would otherwise
 * wait for each other), and gives up after RT_STOP_TIMEOUT_TICKS ticks if the partner
 * keeps its CPU (a cooperative task that does not yield cannot be preempted). Then
 * ts_numa_migrate_done() releases the reservation. */
#include "rt_internal.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define RT_NUMA_SAMPLES_DEFAULT 256
#define RT_STOP_TIMEOUT_TICKS	10
#define SCAN_WINDOW_PAGES(page) (((size_t)TS_NUMA_SCAN_SIZE_MB << 20) / (page))

/* ---- memory on a node ---- */

/* Live allocations of ts_numa_alloc(), sorted by address: a declaration looks up the node
 * its memory was allocated for. Independent of the runtime's lifetime. */
struct numa_alloc {
	uintptr_t start;
	size_t len;   /* rounded to pages */
	int node;     /* of the topology it was allocated in */
	bool libnuma; /* numa_alloc_onnode() (else mmap) */
};
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct numa_alloc *allocs;
static size_t nr_allocs, cap_allocs;

static size_t alloc_find(uintptr_t addr) /* first allocation ending above addr */
{
	size_t lo = 0, hi = nr_allocs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (allocs[mid].start + allocs[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int alloc_add(struct numa_alloc a)
{
	pthread_mutex_lock(&alloc_lock);
	if (nr_allocs == cap_allocs) {
		size_t cap = cap_allocs ? 2 * cap_allocs : 16;
		struct numa_alloc *v = realloc(allocs, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&alloc_lock);
			return -ENOMEM;
		}
		allocs = v;
		cap_allocs = cap;
	}
	size_t i = alloc_find(a.start);
	memmove(&allocs[i + 1], &allocs[i], (nr_allocs - i) * sizeof(*allocs));
	allocs[i] = a;
	nr_allocs++;
	pthread_mutex_unlock(&alloc_lock);
	return 0;
}

/* Removes the allocation starting at p into *out; false if there is none. */
static bool alloc_remove(uintptr_t p, struct numa_alloc *out)
{
	pthread_mutex_lock(&alloc_lock);
	size_t i = alloc_find(p);
	bool found = i < nr_allocs && allocs[i].start == p;
	if (found) {
		*out = allocs[i];
		memmove(&allocs[i], &allocs[i + 1], (nr_allocs - i - 1) * sizeof(*allocs));
		if (--nr_allocs == 0) {
			free(allocs);
			allocs = NULL;
			cap_allocs = 0;
		}
	}
	pthread_mutex_unlock(&alloc_lock);
	return found;
}

static void alloc_release(const struct numa_alloc *a)
{
	if (a->libnuma)
		numa_free((void *)a->start, a->len);
	else
		munmap((void *)a->start, a->len);
}

/* len rounded up to pages; 0 when it would overflow. */
static size_t page_round(size_t len)
{
	size_t page = rt_page_size();
	return len > SIZE_MAX - page ? 0 : (len + page - 1) & ~(page - 1);
}

static void *alloc_on_node(size_t len, int node)
{
	int nr = rt_g.topo->nr_nodes;
	size_t size = page_round(len);
	if (!size) {
		rt_error(-EINVAL, "ts_numa_alloc: length %zu (must be 1 .. SIZE_MAX - page size)",
			 len);
		return NULL;
	}
	if (node < 0 || node >= nr) {
		rt_error(-EINVAL, "ts_numa_alloc: node %d does not exist (%d nodes: 0-%d)", node,
			 nr, nr - 1);
		return NULL;
	}
	struct numa_alloc a = {.len = size, .node = node};
	void *p;
	if (rt_g.numa_query && rt_g.os_node[node] >= 0) {
		p = numa_alloc_onnode(size, rt_g.os_node[node]);
		a.libnuma = true;
	} else {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	if (!p) {
		rt_error(-ENOMEM, "ts_numa_alloc: cannot allocate %zu bytes on node %d", size,
			 node);
		return NULL;
	}
	a.start = (uintptr_t)p;
	if (alloc_add(a)) {
		alloc_release(&a);
		rt_error(-ENOMEM, "ts_numa_alloc: out of memory");
		return NULL;
	}
	if (rt_current()) {
		int rc = ts_numa_declare(p, size);
		if (rc) {
			char msg[TS_ERR_MSG_MAX];
			snprintf(msg, sizeof(msg), "%s", ts_rt_last_error());
			alloc_remove(a.start, &a);
			alloc_release(&a);
			rt_error(rc, "ts_numa_alloc: %s", msg);
			return NULL;
		}
	}
	return p;
}

void *ts_numa_alloc(size_t len, int node)
{
	if (!rt_call_enter(true)) {
		rt_error(
			-ENXIO,
			"ts_numa_alloc: the runtime is not running (its topology names the nodes)");
		return NULL;
	}
	void *p = alloc_on_node(len, node);
	rt_call_leave();
	return p;
}

int ts_numa_free(void *p, size_t len)
{
	struct numa_alloc a;
	if (!p)
		return rt_error(-EINVAL, "ts_numa_free: NULL pointer");
	pthread_mutex_lock(&alloc_lock);
	size_t i = alloc_find((uintptr_t)p);
	bool found = i < nr_allocs && allocs[i].start == (uintptr_t)p;
	size_t have = found ? allocs[i].len : 0;
	pthread_mutex_unlock(&alloc_lock);
	if (!found)
		return rt_error(-EINVAL,
				"ts_numa_free: %p is no memory of ts_numa_alloc (or freed already)",
				p);
	if (page_round(len) != have)
		return rt_error(-EINVAL, "ts_numa_free: %p has %zu bytes, not %zu", p, have, len);
	if (!alloc_remove((uintptr_t)p, &a)) /* freed by another thread meanwhile */
		return rt_error(-EINVAL,
				"ts_numa_free: %p is no memory of ts_numa_alloc (or freed already)",
				p);
	if (rt_current())
		ts_numa_undeclare(p, a.len);
	alloc_release(&a);
	return 0;
}

/* ---- declared memory ---- */

static int region_add(struct rt_task *t, uintptr_t start, size_t pages, int node)
{
	struct rt_numa_task *rn = &t->numa;
	if (rn->nr_region == rn->cap_region) {
		int cap = rn->cap_region ? 2 * rn->cap_region : 4;
		struct rt_numa_region *v = realloc(rn->region, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		rn->region = v;
		rn->cap_region = cap;
	}
	rn->region[rn->nr_region++] = (struct rt_numa_region){start, pages, node};
	rn->nr_pages += pages;
	return 0;
}

/* get_mm_rss() of the task's own mm, in the 4 KiB pages the core counts: what
 * scan_min/scan_max are scaled by. */
static void update_rss(struct rt_task *t)
{
	if (t->ts.numa)
		t->ts.numa->own_mm.rss_pages =
			t->numa.nr_pages * (rt_page_size() >> TS_NUMA_PAGE_SHIFT);
}

/* The core's NUMA state (p->numa) is created on first use (a declaration or a preferred
 * node), not at spawn: most tasks never need it, and a spawn would pay its allocation.
 * A task without it is one with no preferred node and no faults to the core. It is set
 * under the task's rq lock (held by the caller), where the search and the rq accounting
 * read it. */
static int numa_state_locked(struct rt_task *t)
{
	if (t->ts.numa)
		return 0;
	struct ts_error err = {0};
	int rc = ts_numa_task_init(rt_g.s, &t->ts, NULL, &err);
	if (rc)
		return rt_error(rc, "%s", err.msg);
	ts_numa_scan_tune(rt_g.s, &t->ts, rt_g.numa_delay_ms, rt_g.numa_period_ms);
	update_rss(t);
	return 0;
}

int ts_numa_declare(void *addr, size_t len)
{
	struct rt_task *t = rt_current();
	if (!t)
		return rt_error(-EPERM, "ts_numa_declare: called outside a task (memory is "
					"declared by the task using it)");
	size_t page = rt_page_size();
	uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	if (!addr || !len || (uintptr_t)addr > UINTPTR_MAX - page ||
	    len > UINTPTR_MAX - page - (uintptr_t)addr)
		return rt_error(-EINVAL, "ts_numa_declare: bad range %p + %zu", addr, len);
	uintptr_t end = ((uintptr_t)addr + len + page - 1) & ~(uintptr_t)(page - 1);
	struct rt_numa_task *rn = &t->numa;
	for (int i = 0; i < rn->nr_region; i++) {
		const struct rt_numa_region *r = &rn->region[i];
		if (start < r->start + r->pages * page && r->start < end)
			return rt_error(-EEXIST,
					"ts_numa_declare: %p + %zu overlaps memory this task "
					"declared already",
					addr, len);
	}
	/* Split by allocation: each part on its allocation's node, the rest on the node this
	 * task runs on now (where a first touch would place it). */
	int first_touch = rt_g.topo->cpu[t->worker->cpu].node;
	int nr0 = rn->nr_region;
	size_t pages0 = rn->nr_pages;
	int rc = 0;
	uintptr_t cur = start;
	pthread_mutex_lock(&alloc_lock);
	for (size_t i = alloc_find(start); i < nr_allocs && allocs[i].start < end && !rc; i++) {
		uintptr_t a = allocs[i].start, b = a + allocs[i].len;
		if (a > cur)
			rc = region_add(t, cur, (a - cur) / page, first_touch);
		if (a < cur)
			a = cur;
		if (b > end)
			b = end;
		if (!rc)
			rc = region_add(t, a, (b - a) / page, allocs[i].node);
		cur = b;
	}
	pthread_mutex_unlock(&alloc_lock);
	if (!rc && cur < end)
		rc = region_add(t, cur, (end - cur) / page, first_touch);
	if (!rc) {
		struct ts_sched *s = rt_g.s;
		s->ops.rq_lock(s->host, t->ts.cpu); /* a running task's CPU is stable */
		rc = numa_state_locked(t);
		s->ops.rq_unlock(s->host, t->ts.cpu);
	}
	if (rc) {
		rn->nr_region = nr0;
		rn->nr_pages = pages0;
		return rt_error(rc, "ts_numa_declare: out of memory");
	}
	update_rss(t);
	return 0;
}

int ts_numa_undeclare(void *addr, size_t len)
{
	struct rt_task *t = rt_current();
	if (!t)
		return rt_error(-EPERM, "ts_numa_undeclare: called outside a task");
	size_t page = rt_page_size();
	uintptr_t start = (uintptr_t)addr;
	uintptr_t end = len > UINTPTR_MAX - start ? UINTPTR_MAX : start + len;
	struct rt_numa_task *rn = &t->numa;
	int kept = 0, dropped = 0;
	for (int i = 0; i < rn->nr_region; i++) {
		struct rt_numa_region r = rn->region[i];
		if (r.start >= start && r.start + r.pages * page <= end) {
			rn->nr_pages -= r.pages;
			dropped++;
		} else {
			rn->region[kept++] = r;
		}
	}
	rn->nr_region = kept;
	if (dropped && t->ts.numa) /* the scan starts over */
		t->ts.numa->own_mm.numa_scan_offset = 0;
	update_rss(t);
	return dropped;
}

/* ---- the node preference ---- */

/* task_rq_lock(): the calling task's own CPU cannot change under it (nothing moves a
 * running task); another task's can at any moment, so every rq is locked (a rare call). */
static int lock_task_rq(struct rt_task *t)
{
	struct ts_sched *s = rt_g.s;
	if (t == rt_current()) {
		s->ops.rq_lock(s->host, t->ts.cpu);
		return t->ts.cpu;
	}
	for (int i = 0; i < rt_g.nr_workers; i++)
		s->ops.rq_lock(s->host, rt_g.worker_cpus[i]);
	return t->ts.cpu;
}

static void unlock_task_rq(struct rt_task *t, int cpu)
{
	struct ts_sched *s = rt_g.s;
	if (t == rt_current()) {
		s->ops.rq_unlock(s->host, cpu);
		return;
	}
	for (int i = rt_g.nr_workers - 1; i >= 0; i--)
		s->ops.rq_unlock(s->host, rt_g.worker_cpus[i]);
}

struct pref_op {
	int node;
	bool set;
};

/* Reads or sets the preferred node; the core's NUMA state is created for a node to set
 * (under t's rq lock, where it is read) and the setting is the core's sched_setnuma(),
 * which takes t's rq lock itself. */
static int pref_apply(struct rt_task *t, void *arg)
{
	struct pref_op *op = arg;
	struct ts_task *p = &t->ts;
	int cpu = lock_task_rq(t), rc = 0;
	if (op->set && op->node >= 0)
		rc = numa_state_locked(t);
	bool have = p->numa != NULL;
	if (have && !op->set)
		op->node = p->numa->numa_preferred_nid;
	unlock_task_rq(t, cpu);
	if (rc)
		return rc;
	if (!have)
		op->node = TS_NUMA_NO_NODE; /* none set, nothing to clear */
	else if (op->set)
		ts_sched_setnuma(rt_g.s, p, op->node);
	return 0;
}

int ts_task_set_preferred_node(ts_task_handle h, int node)
{
	if (!rt_call_enter(true))
		return rt_error(-ENXIO, "ts_task_set_preferred_node: the runtime is not running");
	int nr = rt_g.topo->nr_nodes, rc;
	struct pref_op op = {.node = node, .set = true};
	if (node < -1 || node >= nr)
		rc = rt_error(
			-EINVAL,
			"ts_task_set_preferred_node: node %d does not exist (%d nodes; -1 = none)",
			node, nr);
	else
		rc = rt_task_with(h.id, "ts_task_set_preferred_node", pref_apply, &op);
	rt_call_leave();
	return rc;
}

int ts_task_get_preferred_node(ts_task_handle h, int *node)
{
	if (!node)
		return rt_error(-EINVAL, "ts_task_get_preferred_node: node is NULL");
	if (!rt_call_enter(true))
		return rt_error(-ENXIO, "ts_task_get_preferred_node: the runtime is not running");
	struct pref_op op = {.set = false};
	int rc = rt_task_with(h.id, "ts_task_get_preferred_node", pref_apply, &op);
	rt_call_leave();
	if (!rc)
		*node = op.node;
	return rc;
}

/* ---- task state ---- */

void rt_numa_task_release(struct rt_task *t)
{
	/* A stop work of a swap may still name t as the partner: it finishes in a few
	 * microseconds, or after its timeout. A worker reaping a detached task (task.c) may
	 * be the one that stop work was posted to: it serves it meanwhile (t, dead, stays). */
	if (atomic_load_explicit(&t->numa_pins, memory_order_acquire)) {
		/* Rare: the thread-local look-ups only then (a task's release is on the spawn
		 * path). */
		struct rt_worker *w = rt_current() ? NULL : rt_this_worker();
		while (atomic_load_explicit(&t->numa_pins, memory_order_acquire)) {
			if (rt_current()) {
				ts_yield();
				continue;
			}
			if (w)
				rt_stop_service(w, t, false);
			sched_yield();
		}
	}
	if (t->ts.numa)
		ts_numa_task_free(rt_g.s, &t->ts);
	free(t->numa.region);
	memset(&t->numa, 0, sizeof(t->numa));
}

/* ---- start / stop ---- */

/* Topology node i is the i-th NUMA node by OS number (hwloc import); checked against the
 * CPUs, else derived from them (memory-only nodes then stay unmapped). */
static int map_os_nodes(void)
{
	const struct ts_topology *tp = rt_g.topo;
	int max = numa_max_node();
	rt_g.nr_os_nodes = max + 1;
	rt_g.os_node = malloc((size_t)tp->nr_nodes * sizeof(int));
	rt_g.node_of_os = malloc((size_t)rt_g.nr_os_nodes * sizeof(int));
	if (!rt_g.os_node || !rt_g.node_of_os)
		return -ENOMEM;
	int k = 0;
	for (int i = 0; i < tp->nr_nodes; i++)
		rt_g.os_node[i] = -1;
	for (int os = 0; os <= max; os++)
		if (numa_bitmask_isbitset(numa_nodes_ptr, (unsigned)os) && k < tp->nr_nodes)
			rt_g.os_node[k++] = os;
	bool ok = k == tp->nr_nodes;
	for (int c = 0; c < tp->nr_cpus && ok; c++) {
		int os = tp->cpu[c].os_index;
		if (os >= 0 && numa_node_of_cpu(os) != rt_g.os_node[tp->cpu[c].node])
			ok = false;
	}
	if (!ok) {
		for (int i = 0; i < tp->nr_nodes; i++)
			rt_g.os_node[i] = -1;
		for (int c = 0; c < tp->nr_cpus; c++)
			if (tp->cpu[c].os_index >= 0)
				rt_g.os_node[tp->cpu[c].node] =
					numa_node_of_cpu(tp->cpu[c].os_index);
	}
	for (int os = 0; os < rt_g.nr_os_nodes; os++)
		rt_g.node_of_os[os] = -1;
	for (int i = 0; i < tp->nr_nodes; i++)
		if (rt_g.os_node[i] >= 0 && rt_g.os_node[i] < rt_g.nr_os_nodes)
			rt_g.node_of_os[rt_g.os_node[i]] = i;
	return 0;
}

/* NUMA support, and move_pages() allowed (container runtimes filter it without
 * CAP_SYS_NICE): asked once, of a page of this stack. */
static bool kernel_answers_queries(void)
{
	char probe = 1;
	void *pages[1] = {&probe};
	int status[1];
	return move_pages(0, 1, pages, NULL, status, 0) == 0;
}

int rt_numa_start(const struct ts_rt_config *cfg, bool host)
{
	const struct ts_topology *tp = rt_g.topo;
	struct ts_sched *s = rt_g.s;
	pthread_mutex_init(&rt_g.trace_lock, NULL);
	rt_g.numa_on = ts_features_has(s->features, TS_FEAT_NUMA);
	rt_g.numa_delay_ms =
		cfg->numa_scan_delay_ms ? cfg->numa_scan_delay_ms : TS_NUMA_SCAN_DELAY_MS;
	rt_g.numa_period_ms = cfg->numa_scan_period_ms;
	rt_g.numa_samples =
		cfg->numa_scan_samples ? cfg->numa_scan_samples : RT_NUMA_SAMPLES_DEFAULT;
	if (rt_g.numa_samples > (unsigned)SCAN_WINDOW_PAGES(rt_page_size()))
		rt_g.numa_samples = (unsigned)SCAN_WINDOW_PAGES(rt_page_size());
	rt_g.numa_stop_delay_ns = (uint64_t)cfg->numa_test_stop_delay_us * 1000u;
	rt_g.spread_next = calloc((size_t)tp->nr_nodes, sizeof(*rt_g.spread_next));
	if (!rt_g.spread_next)
		return rt_error(-ENOMEM, "ts_rt_start: out of memory");
	if (cfg->numa_trace) {
		if (cfg->numa_trace > SIZE_MAX / sizeof(*rt_g.trace) ||
		    !(rt_g.trace = calloc(cfg->numa_trace, sizeof(*rt_g.trace))))
			return rt_error(-ENOMEM,
					"ts_rt_start: no memory for a NUMA trace of %zu events",
					cfg->numa_trace);
		rt_g.trace_cap = cfg->numa_trace;
	}
	rt_g.numa_query = host && numa_available() >= 0 && kernel_answers_queries();
	if (rt_g.numa_query && map_os_nodes())
		return rt_error(-ENOMEM, "ts_rt_start: out of memory");
	for (int i = 0; i < rt_g.nr_workers; i++) {
		struct rt_worker *w = rt_g.worker[rt_g.worker_cpus[i]];
		int node = tp->cpu[w->cpu].node;
		pthread_mutex_init(&w->stop_lock, NULL);
		w->numa_lockset = ts_cpumask_alloc(tp->nr_cpus);
		w->numa_ownset = ts_cpumask_alloc(tp->nr_cpus);
		w->numa_pages = calloc(rt_g.numa_samples, sizeof(void *));
		w->numa_status = calloc(rt_g.numa_samples, sizeof(int));
		w->numa_node = calloc(rt_g.numa_samples, sizeof(int));
		if (!w->numa_lockset || !w->numa_ownset || !w->numa_pages || !w->numa_status ||
		    !w->numa_node)
			return rt_error(-ENOMEM, "ts_rt_start: out of memory");
		ts_cpumask_set(w->numa_ownset, w->cpu);
		for (int j = 0; j < rt_g.nr_workers; j++) {
			int c = rt_g.worker_cpus[j];
			if (c == w->cpu || tp->cpu[c].node != node)
				ts_cpumask_set(w->numa_lockset, c);
		}
	}
	return 0;
}

void rt_numa_stop(void)
{
	if (rt_g.worker)
		for (int i = 0; i < rt_g.topo->nr_cpus; i++) {
			struct rt_worker *w = rt_g.worker[i];
			if (!w)
				continue;
			pthread_mutex_destroy(&w->stop_lock);
			ts_cpumask_free(w->numa_lockset);
			ts_cpumask_free(w->numa_ownset);
			free(w->numa_pages);
			free(w->numa_status);
			free(w->numa_node);
		}
	free(rt_g.spread_next);
	free(rt_g.trace);
	free(rt_g.os_node);
	free(rt_g.node_of_os);
	pthread_mutex_destroy(&rt_g.trace_lock);
}

/* ---- the trace ---- */

static void trace_add(const struct ts_rt_numa_event *ev)
{
	if (!rt_g.trace_cap)
		return;
	pthread_mutex_lock(&rt_g.trace_lock);
	if (rt_g.trace_n < rt_g.trace_cap)
		rt_g.trace[rt_g.trace_n++] = *ev;
	pthread_mutex_unlock(&rt_g.trace_lock);
}

size_t ts_rt_numa_trace(struct ts_rt_numa_event *out, size_t max)
{
	if (!rt_call_enter(true))
		return 0;
	pthread_mutex_lock(&rt_g.trace_lock);
	size_t n = rt_g.trace_n;
	if (out)
		memcpy(out, rt_g.trace, (n < max ? n : max) * sizeof(*out));
	pthread_mutex_unlock(&rt_g.trace_lock);
	rt_call_leave();
	return n;
}

/* ---- the scan ---- */

/* task_tick_numa() at the worker's safe point (t picked, its rq locked): the core's. */
bool rt_numa_due(struct rt_worker *w, struct rt_task *t)
{
	(void)w;
	if (!rt_g.numa_on || !t->numa.nr_pages || !t->ts.numa)
		return false;
	return ts_task_tick_numa(rt_g.s, &t->ts);
}

/* The samples of this scan into w's scratch: addresses and the nodes their memory was
 * declared with, from page `start` of the declared regions over the window the core allows
 * (scan->pages, counted in 4 KiB pages); returns how many, with the window they cover and
 * the stride (host pages). */
static unsigned int collect_samples(struct rt_worker *w, struct rt_task *t, size_t start,
				    const struct ts_numa_scan *scan, size_t *window, size_t *stride)
{
	const struct rt_numa_task *rn = &t->numa;
	size_t page = rt_page_size();
	size_t budget = ((size_t)scan->pages << TS_NUMA_PAGE_SHIFT) / page;
	size_t win = rn->nr_pages - start;
	if (win > budget)
		win = budget;
	unsigned int n = win < rt_g.numa_samples ? (unsigned int)win : rt_g.numa_samples;
	size_t step = win / n;
	*window = win;
	*stride = step;
	/* Offsets start + k * step over the regions in order. */
	int r = 0;
	size_t base = 0; /* pages before region r */
	for (unsigned int k = 0; k < n; k++) {
		size_t off = start + k * step;
		while (off >= base + rn->region[r].pages)
			base += rn->region[r++].pages;
		w->numa_pages[k] = (void *)(rn->region[r].start + (off - base) * page);
		w->numa_node[k] = rn->region[r].node;
	}
	return n;
}

/* Where the pages are: the kernel's answer on the host topology with libnuma (pages never
 * touched, -ENOENT, are no access: -1), else the declared node. */
static void query_nodes(struct rt_worker *w, unsigned int n)
{
	if (!rt_g.numa_query)
		return;
	if (move_pages(0, n, w->numa_pages, NULL, w->numa_status, 0) < 0)
		return; /* the query failed as a whole: keep the declared nodes */
	for (unsigned int k = 0; k < n; k++) {
		int st = w->numa_status[k];
		w->numa_node[k] = st >= 0 && st < rt_g.nr_os_nodes ? rt_g.node_of_os[st] : -1;
	}
}

/* The stop work of a decided migration (see the top of the file). */
static void wait_servicing(struct rt_worker *w, struct rt_task *t, uint64_t until)
{
	while (rt_clock_ns() < until) {
		rt_stop_service(w, t, true);
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
	}
}

static bool swap_on_partner_worker(struct rt_worker *w, struct rt_task *t,
				   struct ts_numa_result *res)
{
	struct rt_worker *dw = rt_g.worker[res->dst_cpu];
	struct rt_stop_work work = {.res = res};
	atomic_init(&work.state, RT_STOP_POSTED);
	pthread_mutex_lock(&dw->stop_lock);
	work.next = dw->stop_head;
	dw->stop_head = &work;
	atomic_fetch_add(&dw->stop_n, 1);
	pthread_mutex_unlock(&dw->stop_lock);
	rt_worker_kick(dw);
	uint64_t deadline = rt_clock_ns() + RT_STOP_TIMEOUT_TICKS * rt_g.s->tick_nsec;
	for (unsigned int spins = 0;; spins++) {
		int st = atomic_load_explicit(&work.state, memory_order_acquire);
		if (st == RT_STOP_DONE)
			return work.rc == 0;
		if (st == RT_STOP_POSTED && rt_clock_ns() > deadline) {
			pthread_mutex_lock(&dw->stop_lock);
			bool cancel = atomic_load_explicit(&work.state, memory_order_relaxed) ==
				      RT_STOP_POSTED;
			if (cancel) {
				struct rt_stop_work **pp = &dw->stop_head;
				while (*pp != &work)
					pp = &(*pp)->next;
				*pp = work.next;
				atomic_fetch_sub(&dw->stop_n, 1);
				atomic_store_explicit(&work.state, RT_STOP_CANCELLED,
						      memory_order_relaxed);
			}
			pthread_mutex_unlock(&dw->stop_lock);
			if (cancel)
				return false;
		}
		rt_stop_service(w, t, true);
		if (spins % 64 == 63)
			sched_yield();
	}
}

/* The stop work proper, as migration_cpu_stop() and migrate_swap_stop()
 * (kernel/sched/core.c) do it: the tasks' pi_locks first (both, in address order, as
 * double_raw_lock()), then the core takes the two rq locks. A wake-up writes p's cpu and
 * state under p's pi_lock and the lock of a third CPU's rq (rt_do_ttwu()): holding only
 * the two rq locks, the re-check would read them while they are written. */
static int migrate_apply_locked(struct ts_numa_result *res)
{
	rt_spinlock_t *a = &rt_task_of(res->p)->pi_lock;
	rt_spinlock_t *b = res->swap ? &rt_task_of(res->swap)->pi_lock : NULL;
	if (b && b < a) {
		rt_spinlock_t *x = a;
		a = b;
		b = x;
	}
	rt_spin_lock(a);
	if (b)
		rt_spin_lock(b);
	int rc = ts_numa_migrate_apply(rt_g.s, res);
	if (b)
		rt_spin_unlock(b);
	rt_spin_unlock(a);
	return rc;
}

bool rt_stop_service(struct rt_worker *w, struct rt_task *held, bool movable)
{
	if (!atomic_load_explicit(&w->stop_n, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&w->stop_lock);
	struct rt_stop_work *list = w->stop_head;
	w->stop_head = NULL;
	atomic_store(&w->stop_n, 0);
	for (struct rt_stop_work *x = list; x; x = x->next)
		atomic_store_explicit(&x->state, RT_STOP_TAKEN, memory_order_relaxed);
	pthread_mutex_unlock(&w->stop_lock);
	bool moved = false;
	while (list) {
		struct rt_stop_work *next = list->next;
		struct ts_numa_result *res = list->res;
		bool partner_held = held && res->swap == &held->ts;
		/* At this safe point nothing runs here: the partner is the task just switched
		 * out (held), queued, or gone; a held partner that is blocking or exiting is
		 * on its way off the queue and stays. */
		int rc = -EAGAIN;
		if (!partner_held || movable)
			rc = migrate_apply_locked(res);
		if (rc == 0 && partner_held)
			moved = true;
		list->rc = rc;
		atomic_store_explicit(&list->state, RT_STOP_DONE, memory_order_release);
		list = next;
	}
	return moved;
}

static bool numa_stop_work(struct rt_worker *w, struct rt_task *t, struct ts_numa_result *res,
			   uint64_t decided_ns)
{
	struct ts_sched *s = rt_g.s;
	struct rt_task *q = res->swap ? rt_task_of(res->swap) : NULL;
	struct ts_rt_numa_event ev = {
		.task = t->id,
		.swap_with = q ? q->id : 0,
		.src_cpu = res->src_cpu,
		.dst_cpu = res->dst_cpu,
		.decided_ns = decided_ns - rt_g.t0,
	};
	rt_stat_bump(&w->numa_decisions);
	if (rt_g.numa_stop_delay_ns)
		wait_servicing(w, t, decided_ns + rt_g.numa_stop_delay_ns);
	bool applied = q ? swap_on_partner_worker(w, t, res) : migrate_apply_locked(res) == 0;
	ev.done_ns = rt_clock_ns() - rt_g.t0;
	ev.applied = applied;
	ts_numa_migrate_done(s, res);
	if (q)
		atomic_fetch_sub_explicit(&q->numa_pins, 1, memory_order_release);
	rt_stat_bump(applied ? (q ? &w->numa_swaps : &w->numa_migrations)
			     : &w->numa_migrate_failed);
	trace_add(&ev);
	return !rt_still_curr(t, w->cpu);
}

/* numa_migrate_preferred() for the fault just fed, whose retry time had passed; the caller
 * holds its own rq lock (w->numa_ownset). When the search will run (ts_numa_migrate_due)
 * the own lock is dropped and the full set taken, in CPU order; otherwise the call only
 * re-arms numa_migrate_retry, which needs nothing but p. True when a migration was
 * decided (in *res, the swap partner pinned). */
static bool migrate_preferred(struct rt_worker *w, struct ts_task *p, struct ts_numa_result *res)
{
	struct ts_sched *s = rt_g.s;
	if (!ts_numa_migrate_due(s, p)) {
		ts_numa_migrate_preferred(s, p, res);
		return false;
	}
	rt_rq_unlock_set(w->numa_ownset);
	rt_rq_lock_set(w->numa_lockset);
	rt_stat_bump(&w->numa_searches);
	/* Re-checked inside: the preferred node may have been set (ts_task_set_preferred_node)
	 * while no lock was held. */
	bool have = ts_numa_migrate_preferred(s, p, res) == 0 && res->dst_cpu >= 0;
	/* The partner runs on dst_cpu (locked): alive until unpinned. */
	if (have && res->swap)
		atomic_fetch_add_explicit(&rt_task_of(res->swap)->numa_pins, 1,
					  memory_order_relaxed);
	rt_rq_unlock_set(w->numa_lockset);
	rt_rq_lock_set(w->numa_ownset);
	return have;
}

bool rt_numa_work(struct rt_worker *w, struct rt_task *t)
{
	struct ts_sched *s = rt_g.s;
	struct rt_numa_task *rn = &t->numa;
	struct ts_task *p = &t->ts;
	int node = s->topo->cpu[w->cpu].node;
	struct ts_numa_scan scan;
	rt_rq_lock_set(w->numa_ownset);
	bool go = ts_task_numa_work(s, p, &scan);
	rt_rq_unlock_set(w->numa_ownset);
	if (!go)
		return false;
	/* Past the end (memory was undeclared): the walk starts over (reset_ptenuma_scan()). */
	int resets = 0;
	size_t start = (size_t)scan.start;
	if (start >= rn->nr_pages) {
		start = 0;
		resets++;
	}
	size_t window, stride;
	unsigned int n = collect_samples(w, t, start, &scan, &window, &stride);
	query_nodes(w, n);

	struct ts_numa_result decided = {.dst_cpu = -1};
	bool have = false;
	size_t consumed = 0;
	uint64_t faults = 0, local = 0;
	rt_rq_lock_set(w->numa_ownset);
	for (unsigned int k = 0; k < n && !have;) {
		/* A run of samples on one node is one fault of that many pages. */
		unsigned int e = k + 1;
		while (e < n && w->numa_node[e] == w->numa_node[k])
			e++;
		size_t pages = e == n ? window - (size_t)k * stride : (size_t)(e - k) * stride;
		int mem = w->numa_node[k];
		if (mem >= 0) {
			unsigned int flags = mem == node ? TS_TNF_FAULT_LOCAL : 0;
			/* Read before the fault, as the fault path does (jiffies move on). */
			bool retry = ts_numa_migrate_retry_passed(s, p);
			ts_task_numa_fault(s, p, p, mem, (int)pages, flags | TS_TNF_NO_MIGRATE,
					   NULL);
			faults += pages;
			local += flags ? pages : 0;
			if (retry)
				have = migrate_preferred(w, p, &decided);
		}
		consumed += pages;
		k = e;
	}
	/* The rest of the window is scanned next time (the task moves first). The scan is
	 * the worker's time, not the task's: its run time did not grow (the 32x rule adds 0). */
	size_t end = start + consumed;
	if (end >= rn->nr_pages) {
		end = 0;
		resets++;
	}
	ts_task_numa_work_end(s, p, end, resets, 0);
	rt_rq_unlock_set(w->numa_ownset);
	uint64_t decided_ns = rt_clock_ns();

	rt_stat_bump(&w->numa_scans);
	ts_stat_add(&w->numa_faults, faults);
	ts_stat_add(&w->numa_faults_local, local);
	return have && numa_stop_work(w, t, &decided, decided_ns);
}
