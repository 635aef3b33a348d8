/* NUMA balancing, the core part: per-task fault statistics, the rq accounting of NUMA
 * tasks, sched_setnuma(), migrate_degrades_locality(), task_numa_placement() and NUMA
 * groups, and task_numa_fault(). The search (task_numa_migrate()) and its stop work are
 * numa_migrate.c's, the scan pacing numa_scan.c's, should_numa_migrate_memory()
 * numa_pages.c's. Modern mainline (v6.x) logic, kernel/sched/fair.c. Deviations are
 * marked "toposched:". */
#include "numa_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
void ts_sched_setnuma(struct ts_sched *s, struct ts_task *p, int nid)
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
	if (!mm) /* a new mm of its own */
		ts_numa_mm_init(s, n->mm, TS_NUMA_SCAN_DELAY_MS);
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
		ts_sched_setnuma(s, p, max_nid);
	ts_numa_update_task_scan_period(p, fault_types[0], fault_types[1]);
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
