/* NUMA balancing, the core part: fault statistics, task_numa_placement(), NUMA groups,
 * task_numa_migrate() with update_numa_stats(), task_numa_find_cpu(),
 * task_numa_compare(), task_numa_assign() and the rq->numa_migrate_on reservation, and
 * the stop work of migrate_task_to()/migrate_swap(). Modern mainline (v6.x) logic; see
 * reference §4. Deviations are marked "toposched:". */
#include "toposched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum numa_type { node_has_spare = 0, node_fully_busy, node_overloaded };

struct numa_stats {
	unsigned long load, runnable, util, compute_capacity;
	unsigned int nr_running, weight;
	enum numa_type node_type;
	int idle_cpu;
};

struct task_numa_env {
	struct ts_sched *s;
	struct ts_task *p;
	int src_cpu, src_nid, dst_cpu, dst_nid;
	int imb_numa_nr;
	struct numa_stats src_stats, dst_stats;
	int imbalance_pct;
	int dist;
	struct ts_task *best_task;
	long best_imp;
	int best_cpu;
	bool reserve;		      /* NUMA_RESERVE */
	struct ts_numa_cpu_stats *st; /* the searching CPU's counters */
};

/* ---- small helpers ---- */

static inline int nr_nodes_of(struct ts_sched *s)
{
	return s->topo->nr_nodes;
}
static inline int cpu_to_node(struct ts_sched *s, int cpu)
{
	return s->topo->cpu[cpu].node;
}
static inline int task_node(struct ts_sched *s, const struct ts_task *p)
{
	return cpu_to_node(s, __atomic_load_n(&p->cpu, __ATOMIC_RELAXED));
}
static inline int node_distance(struct ts_sched *s, int a, int b)
{
	return ts_topo_distance(s->topo, a, b);
}
static inline uint64_t jiffies(struct ts_sched *s)
{
	return s->ops.clock(s->host) / s->tick_nsec;
}
static inline uint64_t msecs_to_jiffies(struct ts_sched *s, uint64_t ms)
{
	return (ms * s->hz + 999) / 1000;
}
/* cpumask_of_node(nid) restricted to the scheduled CPUs; NULL for a CPU-less node. */
static inline const struct ts_cpumask *node_mask(struct ts_sched *s, int nid)
{
	return ts_numa_mask(&s->dom->numa, 0, nid);
}
static inline bool node_has_cpus(struct ts_sched *s, int nid)
{
	return ts_cpumask_test(s->dom->numa.node_has_cpu, nid);
}
/* rq->curr read without the lock (rcu_dereference(rq->curr) in the kernel): rq.c stores it
 * with a relaxed atomic store (ts_rq_set_curr()). */
static inline struct ts_task *rq_curr(struct ts_sched *s, int cpu)
{
	return __atomic_load_n(&s->rq[cpu].curr, __ATOMIC_RELAXED);
}
/* Of env->p or of another CPU's running task, without that CPU's lock: every field it
 * reads is a relaxed atomic load (ts_task_h_load_of(), pelt.h, group.h). */
static inline unsigned long task_h_load(struct ts_sched *s, struct ts_task *p)
{
	return ts_task_h_load_of(s, p);
}
static inline int preferred_nid(const struct ts_task *p)
{
	return p->numa ? p->numa->numa_preferred_nid : TS_NUMA_NO_NODE;
}
static inline struct ts_numa_group *numa_group_of(const struct ts_task *p)
{
	return p->numa ? p->numa->numa_group : NULL;
}

static void group_lock(struct ts_numa_group *g)
{
	while (atomic_flag_test_and_set_explicit(&g->lock, memory_order_acquire))
		;
}
static void group_unlock(struct ts_numa_group *g)
{
	atomic_flag_clear_explicit(&g->lock, memory_order_release);
}

static void put_numa_group(struct ts_numa_group *g)
{
	if (g && --g->refcount == 0) {
		free(g->faults);
		free(g);
	}
}

/* ---- scores ---- */

unsigned long ts_numa_task_faults(const struct ts_task *p, int nid)
{
	const struct ts_numa_task *n = p->numa;
	if (!n || !n->numa_faults)
		return 0;
	return n->numa_faults[ts_numa_faults_idx(n->nr_nodes, TS_NUMA_MEM, nid, 0)] +
	       n->numa_faults[ts_numa_faults_idx(n->nr_nodes, TS_NUMA_MEM, nid, 1)];
}

unsigned long ts_numa_group_faults(const struct ts_task *p, int nid)
{
	const struct ts_numa_group *ng = numa_group_of(p);
	if (!ng)
		return 0;
	int nn = p->numa->nr_nodes;
	return ng->faults[ts_numa_faults_idx(nn, TS_NUMA_MEM, nid, 0)] +
	       ng->faults[ts_numa_faults_idx(nn, TS_NUMA_MEM, nid, 1)];
}

static unsigned long group_faults_cpu(const struct ts_numa_group *ng, int nn, int nid)
{
	return ng->faults[ts_numa_faults_idx(nn, TS_NUMA_CPU, nid, 0)] +
	       ng->faults[ts_numa_faults_idx(nn, TS_NUMA_CPU, nid, 1)];
}

static unsigned long group_faults_priv(const struct ts_numa_group *ng, int nn, int priv)
{
	unsigned long f = 0;
	for (int node = 0; node < nn; node++)
		f += ng->faults[ts_numa_faults_idx(nn, TS_NUMA_MEM, node, priv)];
	return f;
}

static bool numa_is_active_node(const struct ts_numa_group *ng, int nn, int nid)
{
	return group_faults_cpu(ng, nn, nid) * TS_NUMA_ACTIVE_NODE_FRACTION > ng->max_faults_cpu;
}

static unsigned long score_nearby_nodes(struct ts_sched *s, const struct ts_task *p, int nid,
					int lim_dist, bool task)
{
	const struct ts_numa_levels *nl = &s->dom->numa;
	unsigned long score = 0;
	if (nl->type == TS_NUMA_DIRECT)
		return 0;
	int max_dist = nl->max_distance;
	for (int node = 0; node < nr_nodes_of(s); node++) {
		int dist = node_distance(s, nid, node);
		if (dist >= max_dist || node == nid)
			continue;
		if (nl->type == TS_NUMA_BACKPLANE && dist >= lim_dist)
			continue;
		unsigned long faults =
			task ? ts_numa_task_faults(p, node) : ts_numa_group_faults(p, node);
		if (nl->type == TS_NUMA_GLUELESS_MESH) {
			faults *= (unsigned long)(max_dist - dist);
			faults /= (unsigned long)(max_dist - TS_LOCAL_DISTANCE);
		}
		score += faults;
	}
	return score;
}

unsigned long ts_numa_task_weight(struct ts_sched *s, const struct ts_task *p, int nid, int dist)
{
	const struct ts_numa_task *n = p->numa;
	if (!n || !n->numa_faults || !n->total_numa_faults)
		return 0;
	unsigned long faults =
		ts_numa_task_faults(p, nid) + score_nearby_nodes(s, p, nid, dist, true);
	return 1000 * faults / n->total_numa_faults;
}

unsigned long ts_numa_group_weight(struct ts_sched *s, const struct ts_task *p, int nid, int dist)
{
	const struct ts_numa_group *ng = numa_group_of(p);
	if (!ng || !ng->total_faults)
		return 0;
	unsigned long faults =
		ts_numa_group_faults(p, nid) + score_nearby_nodes(s, p, nid, dist, false);
	return 1000 * faults / ng->total_faults;
}

/* ---- scan period ---- */

static unsigned int task_nr_scan_windows(const struct ts_task *p)
{
	unsigned long nr_scan_pages = (unsigned long)TS_NUMA_SCAN_SIZE_MB
				      << (20 - TS_NUMA_PAGE_SHIFT);
	unsigned long rss = p->numa->mm->rss_pages;
	if (!rss)
		rss = nr_scan_pages;
	rss = (rss + nr_scan_pages - 1) / nr_scan_pages * nr_scan_pages;
	return (unsigned int)(rss / nr_scan_pages);
}

unsigned int ts_numa_task_scan_min(const struct ts_task *p)
{
	unsigned int scan_size = TS_NUMA_SCAN_SIZE_MB, windows = 1;
	if (scan_size < TS_NUMA_MAX_SCAN_WINDOW)
		windows = TS_NUMA_MAX_SCAN_WINDOW / scan_size;
	unsigned int floor = 1000 / windows;
	unsigned int scan = TS_NUMA_SCAN_PERIOD_MIN_MS / task_nr_scan_windows(p);
	return scan > floor ? scan : floor;
}

unsigned int ts_numa_task_scan_max(const struct ts_task *p)
{
	unsigned long smin = ts_numa_task_scan_min(p);
	unsigned long smax = TS_NUMA_SCAN_PERIOD_MAX_MS / task_nr_scan_windows(p);
	const struct ts_numa_group *ng = p->numa->numa_group;
	if (ng) {
		int nn = p->numa->nr_nodes;
		unsigned long shared = group_faults_priv(ng, nn, 0),
			      priv = group_faults_priv(ng, nn, 1);
		unsigned long period = smax;
		period *= (unsigned long)ng->refcount;
		period *= shared + 1;
		period /= priv + shared + 1;
		if (period > smax)
			smax = period;
	}
	return (unsigned int)(smin > smax ? smin : smax);
}

/* task_scan_start(): the first scan period, scaled up with the share of shared faults of
 * the task's group (hosts call it from task_tick_numa when node_stamp is still 0). */
unsigned int ts_numa_task_scan_start(const struct ts_task *p)
{
	unsigned long smin = ts_numa_task_scan_min(p), period = smin;
	const struct ts_numa_group *ng = p->numa->numa_group;
	if (ng) {
		int nn = p->numa->nr_nodes;
		unsigned long shared = group_faults_priv(ng, nn, 0),
			      priv = group_faults_priv(ng, nn, 1);
		period *= (unsigned long)ng->refcount;
		period *= shared + 1;
		period /= priv + shared + 1;
	}
	return (unsigned int)(smin > period ? smin : period);
}

static void scan_hist_push(struct ts_numa_task *n)
{
	n->scan_period_hist[n->scan_period_hist_n % TS_NUMA_SCAN_HIST] = n->numa_scan_period;
	n->scan_period_hist_n++;
}

static void update_task_scan_period(struct ts_task *p, unsigned long shared, unsigned long priv)
{
	struct ts_numa_task *n = p->numa;
	unsigned long remote = n->numa_faults_locality[0], local = n->numa_faults_locality[1];
	/* sic: local + shared, as the kernel */
	if (local + shared == 0 || n->numa_faults_locality[2]) {
		unsigned int d = n->numa_scan_period << 1;
		n->numa_scan_period = d < n->numa_scan_period_max ? d : n->numa_scan_period_max;
		scan_hist_push(n);
		return;
	}
	long period_slot = (n->numa_scan_period + TS_NUMA_PERIOD_SLOTS - 1) / TS_NUMA_PERIOD_SLOTS;
	long lr_ratio =
		local + remote ? (long)(local * TS_NUMA_PERIOD_SLOTS / (local + remote)) : 0;
	long ps_ratio = (long)(priv * TS_NUMA_PERIOD_SLOTS / (priv + shared));
	long diff;
	if (ps_ratio >= TS_NUMA_PERIOD_THRESHOLD) {
		long slot = ps_ratio - TS_NUMA_PERIOD_THRESHOLD;
		diff = (slot ? slot : 1) * period_slot;
	} else if (lr_ratio >= TS_NUMA_PERIOD_THRESHOLD) {
		long slot = lr_ratio - TS_NUMA_PERIOD_THRESHOLD;
		diff = (slot ? slot : 1) * period_slot;
	} else {
		long ratio = lr_ratio > ps_ratio ? lr_ratio : ps_ratio;
		diff = -(TS_NUMA_PERIOD_THRESHOLD - ratio) * period_slot;
	}
	long v = (long)n->numa_scan_period + diff;
	long lo = ts_numa_task_scan_min(p), hi = ts_numa_task_scan_max(p);
	n->numa_scan_period = (unsigned int)(v < lo ? lo : v > hi ? hi : v);
	memset(n->numa_faults_locality, 0, sizeof(n->numa_faults_locality));
	scan_hist_push(n);
}

/* ---- rq accounting ---- */

void ts_numa_account_enqueue(struct ts_sched *s, struct ts_task *p, int cpu)
{
	struct ts_numa_task *n = p->numa;
	if (!n || n->acct_cpu >= 0)
		return;
	struct ts_rq_ro *ro = &s->rq[cpu].ro;
	n->acct_cpu = cpu;
	n->acct_numa = n->numa_preferred_nid != TS_NUMA_NO_NODE;
	n->acct_preferred = n->numa_preferred_nid == cpu_to_node(s, cpu);
	if (n->acct_numa)
		atomic_store_explicit(
			&ro->nr_numa_running,
			atomic_load_explicit(&ro->nr_numa_running, memory_order_relaxed) + 1,
			memory_order_relaxed);
	if (n->acct_preferred)
		atomic_store_explicit(
			&ro->nr_preferred_running,
			atomic_load_explicit(&ro->nr_preferred_running, memory_order_relaxed) + 1,
			memory_order_relaxed);
}

void ts_numa_account_dequeue(struct ts_sched *s, struct ts_task *p)
{
	struct ts_numa_task *n = p->numa;
	if (!n || n->acct_cpu < 0)
		return;
	struct ts_rq_ro *ro = &s->rq[n->acct_cpu].ro;
	if (n->acct_numa)
		atomic_store_explicit(
			&ro->nr_numa_running,
			atomic_load_explicit(&ro->nr_numa_running, memory_order_relaxed) - 1,
			memory_order_relaxed);
	if (n->acct_preferred)
		atomic_store_explicit(
			&ro->nr_preferred_running,
			atomic_load_explicit(&ro->nr_preferred_running, memory_order_relaxed) - 1,
			memory_order_relaxed);
	n->acct_cpu = -1;
	n->acct_numa = n->acct_preferred = false;
}

/* sched_setnuma(): under p's rq lock; a queued task is re-accounted. */
static void sched_setnuma(struct ts_sched *s, struct ts_task *p, int nid)
{
	/* task_rq_lock(): p may be moved (NUMA stop work) between the read and the lock. */
	int cpu;
	for (;;) {
		cpu = __atomic_load_n(&p->cpu, __ATOMIC_RELAXED);
		s->ops.rq_lock(s->host, cpu);
		if (__atomic_load_n(&p->cpu, __ATOMIC_RELAXED) == cpu)
			break;
		s->ops.rq_unlock(s->host, cpu);
	}
	bool queued = p->state == TS_TASK_RUNNABLE; /* task_on_rq_queued() */
	if (queued)
		ts_numa_account_dequeue(s, p);
	p->numa->numa_preferred_nid = nid;
	if (queued)
		ts_numa_account_enqueue(s, p, p->cpu);
	s->ops.rq_unlock(s->host, cpu);
}

/* ---- the regular load balancer at NUMA levels ---- */

int ts_numa_migrate_degrades_locality(struct ts_sched *s, const struct ts_task *p,
				      const struct ts_sched_domain *sd, int src_cpu, int dst_cpu,
				      enum ts_idle_type idle)
{
	if (!ts_features_has(s->features, TS_FEAT_NUMA)) /* sched_numa_balancing */
		return -1;
	const struct ts_numa_task *n = p->numa;
	if (!n || !n->numa_faults || !(sd->flags & TS_SD_NUMA))
		return -1;
	int src_nid = cpu_to_node(s, src_cpu), dst_nid = cpu_to_node(s, dst_cpu);
	if (src_nid == dst_nid)
		return -1;
	/* Migrating away from the preferred node is always bad (unless src has tasks that
	 * are not on their preferred node, which are pulled first: then p is "hot"). */
	if (src_nid == n->numa_preferred_nid) {
		const struct ts_rq *src = &s->rq[src_cpu];
		if (src->nr_running >
		    atomic_load_explicit(&src->ro.nr_preferred_running, memory_order_relaxed))
			return 1;
		return -1;
	}
	/* Encourage migration to the preferred node. */
	if (dst_nid == n->numa_preferred_nid)
		return 0;
	/* Leaving a core idle is often worse than degrading locality. */
	if (idle == TS_CPU_IDLE)
		return -1;
	int dist = node_distance(s, src_nid, dst_nid);
	unsigned long src_weight, dst_weight;
	if (n->numa_group) {
		src_weight = ts_numa_group_weight(s, p, src_nid, dist);
		dst_weight = ts_numa_group_weight(s, p, dst_nid, dist);
	} else {
		src_weight = ts_numa_task_weight(s, p, src_nid, dist);
		dst_weight = ts_numa_task_weight(s, p, dst_nid, dist);
	}
	return dst_weight < src_weight;
}

/* ---- task state ---- */

int ts_numa_task_init(struct ts_sched *s, struct ts_task *p, struct ts_numa_mm *mm,
		      struct ts_error *err)
{
	struct ts_numa_task *n = calloc(1, sizeof(*n));
	if (!n)
		return ts_error_set(err, -ENOMEM, "numa: out of memory");
	n->nr_nodes = nr_nodes_of(s);
	n->own_mm.id = p->id;
	n->mm = mm ? mm : &n->own_mm;
	n->numa_preferred_nid = TS_NUMA_NO_NODE;
	n->numa_scan_seq = atomic_load_explicit(&n->mm->numa_scan_seq, memory_order_relaxed);
	n->numa_scan_period = TS_NUMA_SCAN_DELAY_MS;
	n->numa_scan_period_max = TS_NUMA_SCAN_PERIOD_MAX_MS;
	n->acct_cpu = -1;
	p->numa = n;
	n->numa_scan_period_max = ts_numa_task_scan_max(p);
	return 0;
}

void ts_numa_task_free(struct ts_sched *s, struct ts_task *p)
{
	struct ts_numa_task *n = p->numa;
	if (!n)
		return;
	int cpu = p->cpu;
	s->ops.rq_lock(s->host, cpu);
	ts_numa_account_dequeue(s, p);
	s->ops.rq_unlock(s->host, cpu);
	struct ts_numa_group *ng = n->numa_group;
	if (ng && n->numa_faults) { /* task_numa_free() */
		group_lock(ng);
		for (int i = 0; i < TS_NUMA_FAULT_STATS * n->nr_nodes; i++)
			ng->faults[i] -= n->numa_faults[i];
		ng->total_faults -= n->total_numa_faults;
		group_unlock(ng);
	}
	if (ng) {
		ng->nr_tasks--;
		put_numa_group(ng);
	}
	free(n->numa_faults);
	free(n);
	p->numa = NULL;
}

void ts_numa_scan_done(struct ts_numa_mm *mm)
{
	atomic_fetch_add_explicit(&mm->numa_scan_seq, 1, memory_order_relaxed);
}

/* ---- placement ---- */

static void numa_group_count_active_nodes(struct ts_numa_group *ng, int nn)
{
	unsigned long max_faults = 0;
	int active = 0;
	for (int nid = 0; nid < nn; nid++) {
		unsigned long f = group_faults_cpu(ng, nn, nid);
		if (f > max_faults)
			max_faults = f;
	}
	for (int nid = 0; nid < nn; nid++)
		if (group_faults_cpu(ng, nn, nid) * TS_NUMA_ACTIVE_NODE_FRACTION > max_faults)
			active++;
	ng->max_faults_cpu = max_faults;
	ng->active_nodes = active;
}

static uint64_t numa_get_avg_runtime(struct ts_task *p, uint64_t *period)
{
	struct ts_numa_task *n = p->numa;
	uint64_t now = p->se.exec_start, runtime = p->se.sum_exec_runtime, delta;
	if (n->last_task_numa_placement) {
		delta = runtime - n->last_sum_exec_runtime;
		*period =
			now >= n->last_task_numa_placement ? now - n->last_task_numa_placement : 0;
	} else {
		delta = p->se.avg.load_sum;
		*period = TS_LOAD_AVG_MAX;
	}
	n->last_sum_exec_runtime = runtime;
	n->last_task_numa_placement = now;
	return delta;
}

/* preferred_group_nid(). */
static int preferred_group_nid(struct ts_sched *s, struct ts_task *p, int nid)
{
	const struct ts_numa_levels *nl = &s->dom->numa;
	int nn = nr_nodes_of(s);
	if (nl->type == TS_NUMA_DIRECT)
		return nid;
	if (nl->type == TS_NUMA_GLUELESS_MESH) {
		unsigned long max_score = 0;
		int max_node = nid;
		for (int node = 0; node < nn; node++) {
			if (!node_has_cpus(s, node)) /* for_each_node_state(node, N_CPU) */
				continue;
			unsigned long score = ts_numa_group_weight(s, p, node, nl->max_distance);
			if (score > max_score) {
				max_score = score;
				max_node = node;
			}
		}
		return max_node;
	}
	/* NUMA_BACKPLANE: narrow down the node groups from the largest distance. Only nodes
	 * still in `nodes` are grouped and summed (a node joins the first group that reaches
	 * it), and the next round looks inside the winning group only, as the kernel's
	 * nodemask loop does: on a topology that is not a tree, counting a node for several
	 * groups, or widening a group beyond `nodes`, picks another node. */
	bool *nodes = calloc((size_t)nn * 3, sizeof(bool));
	if (!nodes)
		return nid;
	bool *this_group = nodes + nn, *max_group = nodes + 2 * nn;
	for (int i = 0; i < nn; i++)
		nodes[i] = node_has_cpus(s, i); /* node_states[N_CPU] */
	for (int dist = nl->max_distance; dist > TS_LOCAL_DISTANCE; dist--) {
		unsigned long max_faults = 0;
		bool any = false;
		/* Are there nodes at this distance from each other? */
		for (int l = 0; l < nl->nr_levels; l++)
			if (nl->distance[l] == dist)
				any = true;
		if (!any)
			continue;
		memset(max_group, 0, (size_t)nn * sizeof(bool));
		for (int a = 0; a < nn; a++) {
			if (!nodes[a])
				continue;
			unsigned long faults = 0;
			memset(this_group, 0, (size_t)nn * sizeof(bool));
			/* Sum the group's faults; includes a == b. */
			for (int b = 0; b < nn; b++) {
				if (nodes[b] && node_distance(s, a, b) < dist) {
					faults += ts_numa_group_faults(p, b);
					this_group[b] = true;
					nodes[b] = false;
				}
			}
			if (faults > max_faults) {
				max_faults = faults;
				memcpy(max_group, this_group, (size_t)nn * sizeof(bool));
				nid = a; /* at the smallest distance, the winner itself */
			}
		}
		if (!max_faults)
			break;
		memcpy(nodes, max_group, (size_t)nn * sizeof(bool));
	}
	free(nodes);
	return nid;
}

void ts_task_numa_placement(struct ts_sched *s, struct ts_task *p)
{
	struct ts_numa_task *n = p->numa;
	if (!n || !n->numa_faults)
		return;
	int seq = atomic_load_explicit(&n->mm->numa_scan_seq, memory_order_relaxed);
	if (n->numa_scan_seq == seq)
		return;
	n->numa_scan_seq = seq;
	n->numa_scan_period_max = ts_numa_task_scan_max(p);
	n->nr_placements++;

	int nn = n->nr_nodes, max_nid = TS_NUMA_NO_NODE;
	unsigned long max_faults = 0, fault_types[2] = {0, 0};
	unsigned long total_faults = n->numa_faults_locality[0] + n->numa_faults_locality[1];
	uint64_t period, runtime = numa_get_avg_runtime(p, &period);
	struct ts_numa_group *ng = n->numa_group;
	if (ng)
		group_lock(ng);
	unsigned long *f = n->numa_faults;
	for (int nid = 0; nid < nn; nid++) {
		unsigned long faults = 0, group_faults = 0;
		for (int priv = 0; priv < 2; priv++) {
			int mem = ts_numa_faults_idx(nn, TS_NUMA_MEM, nid, priv);
			int membuf = ts_numa_faults_idx(nn, TS_NUMA_MEMBUF, nid, priv);
			int cpu = ts_numa_faults_idx(nn, TS_NUMA_CPU, nid, priv);
			int cpubuf = ts_numa_faults_idx(nn, TS_NUMA_CPUBUF, nid, priv);
			/* Decay the existing window, copy the faults since the last scan. */
			long diff = (long)f[membuf] - (long)(f[mem] / 2);
			fault_types[priv] += f[membuf];
			f[membuf] = 0;
			/* CPU faults normalised by the share of CPU time used. */
			long f_weight = (long)((runtime << 16) / (period + 1));
			f_weight = (long)((unsigned long)f_weight * f[cpubuf] / (total_faults + 1));
			long f_diff = f_weight - (long)(f[cpu] / 2);
			f[cpubuf] = 0;
			f[mem] += (unsigned long)diff;
			f[cpu] += (unsigned long)f_diff;
			faults += f[mem];
			n->total_numa_faults += (unsigned long)diff;
			if (ng) {
				ng->faults[mem] += (unsigned long)diff;
				ng->faults[cpu] += (unsigned long)f_diff;
				ng->total_faults += (unsigned long)diff;
				group_faults += ng->faults[mem];
			}
		}
		if (!ng) {
			if (faults > max_faults) {
				max_faults = faults;
				max_nid = nid;
			}
		} else if (group_faults > max_faults) {
			max_faults = group_faults;
			max_nid = nid;
		}
	}
	/* Cannot migrate a task to a CPU-less node. */
	max_nid = ts_numa_nearest_node(&s->dom->numa, max_nid);
	if (ng) {
		numa_group_count_active_nodes(ng, nn);
		group_unlock(ng);
		max_nid = preferred_group_nid(s, p, max_nid);
	}
	if (max_faults && max_nid != n->numa_preferred_nid)
		sched_setnuma(s, p, max_nid);
	update_task_scan_period(p, fault_types[0], fault_types[1]);
}

/* task_numa_group(): a shared fault on a page last touched by `last`. */
static void task_numa_group(struct ts_sched *s, struct ts_task *p, const struct ts_task *last,
			    unsigned int flags, int *priv)
{
	struct ts_numa_task *n = p->numa;
	int nn = n->nr_nodes;
	if (!n->numa_group) {
		struct ts_numa_group *grp = calloc(1, sizeof(*grp));
		unsigned long *gf = calloc((size_t)(TS_NUMA_FAULT_STATS * nn), sizeof(*gf));
		if (!grp || !gf) {
			free(grp);
			free(gf);
			return;
		}
		grp->faults = gf;
		grp->refcount = 1;
		grp->active_nodes = 1;
		grp->gid = p->id;
		atomic_flag_clear(&grp->lock);
		for (int i = 0; i < TS_NUMA_FAULT_STATS * nn; i++)
			grp->faults[i] = n->numa_faults[i];
		grp->total_faults = n->total_numa_faults;
		grp->nr_tasks++;
		n->numa_group = grp;
	}
	/* tsk = cpu_rq(cpupid_to_cpu(last_cpupid))->curr; cpupid_match_pid(tsk, cpupid) */
	if (!last || !last->numa ||
	    rq_curr(s, __atomic_load_n(&last->cpu, __ATOMIC_RELAXED)) != last)
		return;
	struct ts_numa_group *grp = last->numa->numa_group, *my_grp = n->numa_group;
	if (!grp || grp == my_grp)
		return;
	/* Only join the bigger group; if we're the bigger, the other task joins us. */
	if (my_grp->nr_tasks > grp->nr_tasks)
		return;
	/* toposched: ties broken by gid, not by address, so that runs are reproducible. */
	if (my_grp->nr_tasks == grp->nr_tasks && my_grp->gid > grp->gid)
		return;
	bool join = last->numa->mm == n->mm || (flags & TS_TNF_SHARED);
	*priv = !join;
	if (!join)
		return;
	grp->refcount++; /* get_numa_group() */
	struct ts_numa_group *a = my_grp->gid < grp->gid ? my_grp : grp,
			     *b = a == my_grp ? grp : my_grp;
	group_lock(a);
	group_lock(b);
	for (int i = 0; i < TS_NUMA_FAULT_STATS * nn; i++) {
		my_grp->faults[i] -= n->numa_faults[i];
		grp->faults[i] += n->numa_faults[i];
	}
	my_grp->total_faults -= n->total_numa_faults;
	grp->total_faults += n->total_numa_faults;
	my_grp->nr_tasks--;
	grp->nr_tasks++;
	group_unlock(b);
	group_unlock(a);
	n->numa_group = grp;
	put_numa_group(my_grp);
}

int ts_task_numa_fault(struct ts_sched *s, struct ts_task *p, const struct ts_task *last,
		       int mem_node, int pages, unsigned int flags, struct ts_numa_result *res)
{
	if (res)
		memset(res, 0, sizeof(*res)), res->dst_cpu = -1, res->ret = 1;
	struct ts_numa_task *n = p->numa;
	if (!n || !ts_features_has(s->features, TS_FEAT_NUMA) || pages <= 0 || mem_node < 0 ||
	    mem_node >= n->nr_nodes)
		return 1;
	int nn = n->nr_nodes, cpu = p->cpu, cpu_node = cpu_to_node(s, cpu);
	int local = !!(flags & TS_TNF_FAULT_LOCAL), priv;
	bool migrated = flags & TS_TNF_MIGRATED;
	if (!n->numa_faults) {
		n->numa_faults =
			calloc((size_t)(TS_NUMA_BUCKETS * 2 * nn), sizeof(*n->numa_faults));
		if (!n->numa_faults)
			return 1;
		n->total_numa_faults = 0;
		memset(n->numa_faults_locality, 0, sizeof(n->numa_faults_locality));
	}
	/* First accesses are private; otherwise private iff the accessor did not change. */
	if (!last) {
		priv = 1;
	} else {
		priv = last == p;
		if (!priv && !(flags & TS_TNF_NO_GROUP))
			task_numa_group(s, p, last, flags, &priv);
	}
	/* A shared fault wholly within the group's active nodes counts as local. */
	struct ts_numa_group *ng = n->numa_group;
	if (!priv && !local && ng && ng->active_nodes > 1 &&
	    numa_is_active_node(ng, nn, cpu_node) && numa_is_active_node(ng, nn, mem_node))
		local = 1;

	struct ts_numa_cpu_stats *st = &s->rq[cpu].numa_stats;
	ts_stat_add(&st->hint_faults, (uint64_t)pages);
	ts_stat_add(flags & TS_TNF_FAULT_LOCAL ? &st->hint_faults_local : &st->hint_faults_remote,
		    (uint64_t)pages);
	ts_stat_add(priv ? &st->hint_faults_private : &st->hint_faults_shared, (uint64_t)pages);
	if (migrated)
		ts_stat_add(&st->pages_migrated, (uint64_t)pages);
	if (flags & TS_TNF_MIGRATE_FAIL)
		ts_stat_add(&st->pages_migrate_failed, (uint64_t)pages);

	/* Retry migrating to the preferred node periodically. */
	int ret = 1;
	if (ts_numa_migrate_retry_passed(s, p)) {
		ts_task_numa_placement(s, p);
		if (!(flags & TS_TNF_NO_MIGRATE))
			ret = ts_numa_migrate_preferred(s, p, res);
	}
	if (migrated)
		n->numa_pages_migrated += (unsigned long)pages;
	if (flags & TS_TNF_MIGRATE_FAIL)
		n->numa_faults_locality[2] += (unsigned long)pages;
	n->numa_faults[ts_numa_faults_idx(nn, TS_NUMA_MEMBUF, mem_node, priv)] +=
		(unsigned long)pages;
	n->numa_faults[ts_numa_faults_idx(nn, TS_NUMA_CPUBUF, cpu_node, priv)] +=
		(unsigned long)pages;
	n->numa_faults_locality[local] += (unsigned long)pages;
	return ret;
}

/* ---- task_numa_migrate() ---- */

/* numa_idle_core(): an idle core, when SMT is on and the LLC may have one. */
static int numa_idle_core(struct ts_sched *s, int idle_core, int cpu)
{
	if (!s->dom->smt_active || idle_core >= 0)
		return idle_core;
	struct ts_sched_domain_shared *sds = s->dom->cpu[cpu].sd_llc_shared;
	if (!sds || !atomic_load_explicit(&sds->has_idle_cores, memory_order_relaxed))
		return idle_core;
	int core = s->topo->cpu[cpu].core;
	for (int c = 0; c < s->nr_cpus; c++) /* is_core_idle() */
		if (c != cpu && s->topo->cpu[c].core == core && !ts_idle_cpu(s, c))
			return idle_core;
	return cpu;
}

static enum numa_type numa_classify(unsigned int pct, const struct numa_stats *ns)
{
	if (ns->nr_running > ns->weight && (ns->compute_capacity * 100 < ns->util * pct ||
					    ns->compute_capacity * pct < ns->runnable * 100))
		return node_overloaded;
	if (ns->nr_running < ns->weight || (ns->compute_capacity * 100 > ns->util * pct &&
					    ns->compute_capacity * pct > ns->runnable * 100))
		return node_has_spare;
	return node_fully_busy;
}

static inline bool migrate_reserved(struct task_numa_env *env, int cpu)
{
	return env->reserve &&
	       atomic_load_explicit(&env->s->rq[cpu].ro.numa_migrate_on, memory_order_relaxed);
}

static void update_numa_stats(struct task_numa_env *env, struct numa_stats *ns, int nid,
			      bool find_idle)
{
	struct ts_sched *s = env->s;
	int cpu, idle_core = -1;
	memset(ns, 0, sizeof(*ns));
	ns->idle_cpu = -1;
	const struct ts_cpumask *m = node_mask(s, nid);
	if (!m)
		return;
	ts_for_each_cpu_and(cpu, m, s->dom->cpu_map)
	{
		ns->load += ts_cpu_load(s, cpu);
		ns->runnable += ts_cpu_runnable(s, cpu);
		ns->util += ts_cpu_util(s, cpu);
		ns->nr_running += ts_rq_nr_running(s, cpu);
		ns->compute_capacity += ts_capacity_of(s, cpu);
		if (find_idle && idle_core < 0 && !ts_rq_nr_running(s, cpu) &&
		    ts_idle_cpu(s, cpu)) {
			if (migrate_reserved(env, cpu)) {
				ts_stat_inc(&env->st->reserved_skips);
				continue;
			}
			if (!ts_task_allowed(env->p, cpu))
				continue;
			if (ns->idle_cpu == -1)
				ns->idle_cpu = cpu;
			idle_core = numa_idle_core(s, idle_core, cpu);
		}
	}
	/* cpumask_of_node() holds the node's online CPUs; ours are the scheduled ones (the
	 * loads above are summed over the same set, so a partly scheduled node is not seen
	 * with spare capacity it does not have). */
	ns->weight = (unsigned int)ts_cpumask_weight_and(m, s->dom->cpu_map);
	ns->node_type = numa_classify((unsigned)env->imbalance_pct, ns);
	if (idle_core >= 0)
		ns->idle_cpu = idle_core;
}

static void task_numa_assign(struct task_numa_env *env, struct ts_task *p, long imp)
{
	struct ts_sched *s = env->s;
	if (env->reserve && env->best_cpu != env->dst_cpu &&
	    atomic_exchange(&s->rq[env->dst_cpu].ro.numa_migrate_on, 1)) {
		/* Reserved by another migration: find an alternative idle CPU of the node. */
		int cpu, start = env->dst_cpu;
		const struct ts_cpumask *m = node_mask(s, env->dst_nid);
		ts_stat_inc(&env->st->reserve_conflicts);
		int first = start + 1 < s->nr_cpus ? start + 1 : 0;
		ts_for_each_cpu_wrap(cpu, m, first)
		{
			if (cpu == env->best_cpu || !ts_cpumask_test(s->dom->cpu_map, cpu) ||
			    !ts_idle_cpu(s, cpu) || !ts_task_allowed(env->p, cpu))
				continue;
			env->dst_cpu = cpu;
			if (!atomic_exchange(&s->rq[cpu].ro.numa_migrate_on, 1)) {
				ts_stat_inc(&env->st->reserve_conflict_alt);
				goto assign;
			}
		}
		ts_stat_inc(&env->st->reserve_conflict_noalt);
		return;
	}
assign:
	/* Release the previous best CPU: a better one was found. */
	if (env->reserve && env->best_cpu != -1 && env->best_cpu != env->dst_cpu)
		atomic_store(&s->rq[env->best_cpu].ro.numa_migrate_on, 0);
	env->best_task = p;
	env->best_imp = imp;
	env->best_cpu = env->dst_cpu;
}

static bool load_too_imbalanced(long src_load, long dst_load, struct task_numa_env *env)
{
	long src_capacity = (long)env->src_stats.compute_capacity;
	long dst_capacity = (long)env->dst_stats.compute_capacity;
	long imb = labs(dst_load * src_capacity - src_load * dst_capacity);
	long orig_src_load = (long)env->src_stats.load, orig_dst_load = (long)env->dst_stats.load;
	long old_imb = labs(orig_dst_load * src_capacity - orig_src_load * dst_capacity);
	return imb > old_imb;
}

static inline long adjust_numa_imbalance(long imbalance, long dst_running, long imb_numa_nr)
{
	if (dst_running > imb_numa_nr) /* !allow_numa_imbalance() */
		return imbalance;
	if (imbalance <= TS_NUMA_IMBALANCE_MIN)
		return 0;
	return imbalance;
}

static bool task_numa_compare(struct task_numa_env *env, long taskimp, long groupimp, bool maymove)
{
	struct ts_sched *s = env->s;
	struct ts_numa_group *cur_ng, *p_ng = numa_group_of(env->p);
	long imp = p_ng ? groupimp : taskimp, moveimp = imp, load;
	int dist = env->dist;
	bool stopsearch = false;

	if (migrate_reserved(env, env->dst_cpu)) {
		ts_stat_inc(&env->st->reserved_skips);
		return false;
	}
	struct ts_task *cur = rq_curr(s, env->dst_cpu);
	if (cur && ts_task_state_lockfree(cur) != TS_TASK_RUNNABLE)
		cur = NULL; /* PF_EXITING */
	if (cur == env->p)
		return true;
	if (!cur) {
		if (maymove && moveimp >= env->best_imp)
			goto assign;
		return false;
	}
	/* A per-CPU kthread is a cur like any other (not the idle task) whose cpus_ptr is its
	 * own CPU: it cannot go to src_cpu. */
	if (!ts_task_allowed(cur, env->src_cpu) || cur->percpu_kthread)
		return false;
	/* Skip a candidate not moving to its preferred node when the best task is. */
	if (env->best_task && preferred_nid(env->best_task) == env->src_nid &&
	    preferred_nid(cur) != env->src_nid)
		return false;
	cur_ng = numa_group_of(cur);
	if (cur_ng == p_ng) {
		/* No swaps within a group (or between group-less tasks) with spare capacity. */
		if (env->dst_stats.node_type == node_has_spare)
			return false;
		imp = taskimp + (long)ts_numa_task_weight(s, cur, env->src_nid, dist) -
		      (long)ts_numa_task_weight(s, cur, env->dst_nid, dist);
		if (cur_ng)
			imp -= imp / 16;
	} else {
		if (cur_ng && p_ng)
			imp += (long)ts_numa_group_weight(s, cur, env->src_nid, dist) -
			       (long)ts_numa_group_weight(s, cur, env->dst_nid, dist);
		else
			imp += (long)ts_numa_task_weight(s, cur, env->src_nid, dist) -
			       (long)ts_numa_task_weight(s, cur, env->dst_nid, dist);
	}
	if (preferred_nid(cur) == env->dst_nid)
		imp -= imp / 16;
	if (preferred_nid(cur) == env->src_nid)
		imp += imp / 8;
	if (maymove && moveimp > imp && moveimp > env->best_imp) {
		imp = moveimp;
		cur = NULL;
		goto assign;
	}
	if (env->best_task && preferred_nid(cur) == env->src_nid &&
	    preferred_nid(env->best_task) != env->src_nid)
		goto assign;
	if (imp < TS_NUMA_SMALLIMP || imp <= env->best_imp + TS_NUMA_SMALLIMP / 2)
		return false;
	load = (long)task_h_load(s, env->p) - (long)task_h_load(s, cur);
	if (load && load_too_imbalanced((long)env->src_stats.load - load,
					(long)env->dst_stats.load + load, env))
		return false;
assign:
	if (!cur) {
		int cpu = env->dst_stats.idle_cpu;
		if (cpu < 0)
			cpu = env->dst_cpu;
		if (!ts_idle_cpu(s, cpu) && env->best_cpu >= 0 && ts_idle_cpu(s, env->best_cpu))
			cpu = env->best_cpu;
		env->dst_cpu = cpu;
	}
	task_numa_assign(env, cur, imp);
	if (maymove && !cur && env->best_cpu >= 0 && ts_idle_cpu(s, env->best_cpu))
		stopsearch = true;
	if (!maymove && env->best_task && preferred_nid(env->best_task) == env->src_nid)
		stopsearch = true;
	return stopsearch;
}

static void task_numa_find_cpu(struct task_numa_env *env, long taskimp, long groupimp)
{
	struct ts_sched *s = env->s;
	bool maymove = false;
	int cpu;
	if (env->dst_stats.node_type == node_has_spare) {
		/* Would the move cause an imbalance the load balancer would undo? */
		long src_running = (long)env->src_stats.nr_running - 1;
		long dst_running = (long)env->dst_stats.nr_running + 1;
		long imbalance = dst_running - src_running > 0 ? dst_running - src_running : 0;
		imbalance = adjust_numa_imbalance(imbalance, dst_running, env->imb_numa_nr);
		if (!imbalance) {
			maymove = true;
			if (env->dst_stats.idle_cpu >= 0) {
				env->dst_cpu = env->dst_stats.idle_cpu;
				task_numa_assign(env, NULL, 0);
				return;
			}
		}
	} else {
		long load = (long)task_h_load(s, env->p);
		maymove = !load_too_imbalanced((long)env->src_stats.load - load,
					       (long)env->dst_stats.load + load, env);
	}
	const struct ts_cpumask *m = node_mask(s, env->dst_nid);
	if (!m)
		return;
	ts_for_each_cpu_and(cpu, m, s->dom->cpu_map)
	{
		if (!ts_task_allowed(env->p, cpu))
			continue;
		env->dst_cpu = cpu;
		if (task_numa_compare(env, taskimp, groupimp, maymove))
			break;
	}
}

int ts_task_numa_migrate(struct ts_sched *s, struct ts_task *p, struct ts_numa_result *res)
{
	struct ts_numa_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	res->p = p;
	res->dst_cpu = -1;
	int src_cpu = __atomic_load_n(&p->cpu, __ATOMIC_RELAXED);
	res->src_cpu = src_cpu;
	struct task_numa_env env = {
		.s = s,
		.p = p,
		.src_cpu = src_cpu,
		.src_nid = cpu_to_node(s, src_cpu),
		.imbalance_pct = 112,
		.best_task = NULL,
		.best_imp = 0,
		.best_cpu = -1,
		.reserve = ts_features_has(s->features, TS_FEAT_NUMA_RESERVE),
		.st = &s->rq[src_cpu].numa_stats,
	};
	if (!p->numa || p->numa->numa_preferred_nid == TS_NUMA_NO_NODE)
		return res->ret = -EINVAL;
	ts_stat_inc(&env.st->migrate_attempts);
	struct ts_sched_domain *sd = s->dom->cpu[src_cpu].sd_numa;
	if (sd) {
		env.imbalance_pct = 100 + ((int)sd->imbalance_pct - 100) / 2;
		env.imb_numa_nr = (int)sd->imb_numa_nr;
	}
	/* Cpusets can trap a task in a domain that does not cross nodes. */
	if (!sd) {
		sched_setnuma(s, p, env.src_nid);
		return res->ret = -EINVAL;
	}
	struct ts_numa_task *n = p->numa;
	env.dst_nid = n->numa_preferred_nid;
	int dist = env.dist = node_distance(s, env.src_nid, env.dst_nid);
	long taskweight = (long)ts_numa_task_weight(s, p, env.src_nid, dist);
	long groupweight = (long)ts_numa_group_weight(s, p, env.src_nid, dist);
	update_numa_stats(&env, &env.src_stats, env.src_nid, false);
	long taskimp = (long)ts_numa_task_weight(s, p, env.dst_nid, dist) - taskweight;
	long groupimp = (long)ts_numa_group_weight(s, p, env.dst_nid, dist) - groupweight;
	update_numa_stats(&env, &env.dst_stats, env.dst_nid, true);
	/* Try to find a spot on the preferred node. */
	task_numa_find_cpu(&env, taskimp, groupimp);

	/* Other nodes: no room on the preferred one, or a group spread over several. */
	struct ts_numa_group *ng = n->numa_group;
	if (env.best_cpu == -1 || (ng && ng->active_nodes > 1)) {
		for (int nid = 0; nid < nr_nodes_of(s); nid++) {
			if (!node_has_cpus(s, nid) || nid == env.src_nid ||
			    nid == n->numa_preferred_nid)
				continue;
			dist = node_distance(s, env.src_nid,
					     env.dst_nid); /* sic: the previous dst */
			if (s->dom->numa.type == TS_NUMA_BACKPLANE && dist != env.dist) {
				taskweight = (long)ts_numa_task_weight(s, p, env.src_nid, dist);
				groupweight = (long)ts_numa_group_weight(s, p, env.src_nid, dist);
			}
			/* Only nodes where the task or the group benefits. */
			taskimp = (long)ts_numa_task_weight(s, p, nid, dist) - taskweight;
			groupimp = (long)ts_numa_group_weight(s, p, nid, dist) - groupweight;
			if (taskimp < 0 && groupimp < 0)
				continue;
			env.dist = dist;
			env.dst_nid = nid;
			update_numa_stats(&env, &env.dst_stats, env.dst_nid, true);
			task_numa_find_cpu(&env, taskimp, groupimp);
		}
	}
	/* A group settles where it lands. */
	if (ng) {
		int nid = env.best_cpu == -1 ? env.src_nid : cpu_to_node(s, env.best_cpu);
		if (nid != n->numa_preferred_nid)
			sched_setnuma(s, p, nid);
	}
	if (env.best_cpu == -1) {
		ts_stat_inc(&env.st->stick); /* trace_sched_stick_numa */
		n->nr_numa_stick++;
		return res->ret = -EAGAIN;
	}
	res->swap = env.best_task;
	res->dst_cpu = env.best_cpu;
	res->imp = env.best_imp;
	res->reserved = env.reserve;
	if (env.best_task) {
		ts_stat_inc(&env.st->swaps); /* trace_sched_swap_numa */
		n->nr_numa_swaps++;
	} else {
		ts_stat_inc(&env.st->migrations); /* trace_sched_move_numa */
		n->nr_numa_migrations++;
	}
	res->ret = 0;
	if (res == &dummy) /* a caller that cannot see the decision cannot apply it: drop it */
		ts_numa_migrate_done(s, res);
	return res->ret;
}

bool ts_numa_migrate_retry_passed(struct ts_sched *s, const struct ts_task *p)
{
	return p->numa && jiffies(s) > p->numa->numa_migrate_retry; /* time_after() */
}

/* numa_migrate_preferred()'s early returns: no statistics, no preferred node, on it. */
static bool migrate_wanted(struct ts_sched *s, const struct ts_task *p)
{
	const struct ts_numa_task *n = p->numa;
	return n && n->numa_preferred_nid != TS_NUMA_NO_NODE && n->numa_faults &&
	       task_node(s, p) != n->numa_preferred_nid;
}

bool ts_numa_migrate_due(struct ts_sched *s, const struct ts_task *p)
{
	return ts_numa_migrate_retry_passed(s, p) && migrate_wanted(s, p);
}

int ts_numa_migrate_preferred(struct ts_sched *s, struct ts_task *p, struct ts_numa_result *res)
{
	struct ts_numa_task *n = p->numa;
	if (res) {
		memset(res, 0, sizeof(*res));
		res->p = p;
		res->dst_cpu = -1;
		res->ret = 1;
	}
	if (!n || n->numa_preferred_nid == TS_NUMA_NO_NODE || !n->numa_faults)
		return 1;
	uint64_t interval = msecs_to_jiffies(s, n->numa_scan_period) / 16;
	if (interval > s->hz)
		interval = s->hz;
	n->numa_migrate_retry = jiffies(s) + interval;
	if (!migrate_wanted(s, p))
		return 1;
	return ts_task_numa_migrate(s, p, res);
}

/* ---- the stop work ---- */

/* The stopper preempts a running task: it goes back into its queue (put_prev_task) and
 * the CPU is told to reschedule once the stop work is done. */
static void take_off_cpu(struct ts_sched *s, int cpu, struct ts_task *t)
{
	struct ts_rq *rq = &s->rq[cpu];
	if (rq->curr != t)
		return;
	uint64_t now = s->ops.clock(s->host);
	ts_update_rq_load(s, rq, now);
	ts_put_prev_task(s, cpu); /* every level of t's task-group hierarchy */
	s->ops.resched_cpu(s->host, cpu);
}

static void move_one(struct ts_sched *s, struct ts_task *t, int from, int to)
{
	take_off_cpu(s, from, t);
	ts_move_queued_task(s, t, from, to); /* re-accounts t's NUMA counts (rq.c) */
}

int ts_numa_migrate_apply(struct ts_sched *s, struct ts_numa_result *res)
{
	if (!res || res->ret != 0 || res->dst_cpu < 0)
		return -EINVAL;
	if (res->applied)
		return 0;
	struct ts_task *p = res->p, *q = res->swap;
	int src = res->src_cpu, dst = res->dst_cpu;
	if (src == dst)
		return -EAGAIN;
	int lo = src < dst ? src : dst, hi = src < dst ? dst : src;
	s->ops.rq_lock(s->host, lo);
	s->ops.rq_lock(s->host, hi);
	/* migrate_swap_stop() / migration_cpu_stop(): re-verify under both locks. */
	bool ok = p->cpu == src && p->state == TS_TASK_RUNNABLE && ts_task_allowed(p, dst);
	if (ok && q)
		ok = q->cpu == dst && q->state == TS_TASK_RUNNABLE && ts_task_allowed(q, src);
	if (ok) {
		move_one(s, p, src, dst);
		if (q)
			move_one(s, q, dst, src);
		res->applied = true;
		ts_stat_inc(&s->rq[src].numa_stats.applied);
	}
	s->ops.rq_unlock(s->host, hi);
	s->ops.rq_unlock(s->host, lo);
	return ok ? 0 : -EAGAIN;
}

void ts_numa_migrate_done(struct ts_sched *s, struct ts_numa_result *res)
{
	if (!res || res->ret != 0 || res->dst_cpu < 0)
		return;
	if (res->reserved) {
		atomic_store(&s->rq[res->dst_cpu].ro.numa_migrate_on, 0);
		res->reserved = false;
	}
	if (!res->applied) { /* migrate_task_to()/migrate_swap() failed: sched_stick_numa */
		ts_stat_inc(&s->rq[res->src_cpu].numa_stats.stick);
		if (res->p->numa)
			res->p->numa->nr_numa_stick++;
		res->ret = -EAGAIN;
	}
}

/* ---- metrics ---- */

void ts_numa_preferred_share(struct ts_sched *s, unsigned int *preferred, unsigned int *numa)
{
	unsigned int pr = 0, nu = 0;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		pr += atomic_load_explicit(&s->rq[cpu].ro.nr_preferred_running,
					   memory_order_relaxed);
		nu += atomic_load_explicit(&s->rq[cpu].ro.nr_numa_running, memory_order_relaxed);
	}
	if (preferred)
		*preferred = pr;
	if (numa)
		*numa = nu;
}

void ts_numa_stats_sum(struct ts_sched *s, struct ts_numa_cpu_stats *out)
{
	memset(out, 0, sizeof(*out));
	size_t nr = sizeof(*out) / sizeof(ts_counter);
	ts_counter *o = (ts_counter *)out;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		const ts_counter *c = (const ts_counter *)&s->rq[cpu].numa_stats;
		for (size_t i = 0; i < nr; i++)
			ts_stat_add(&o[i], ts_stat_read(&c[i]));
	}
}
