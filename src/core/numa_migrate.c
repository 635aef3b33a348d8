/* NUMA balancing's search, task_numa_migrate() (kernel/sched/fair.c): update_numa_stats(),
 * task_numa_find_cpu(), task_numa_compare(), task_numa_assign() with the per-run-queue
 * reservation rq->numa_migrate_on (NUMA_RESERVE), numa_migrate_preferred(), and the stop
 * work of migrate_task_to()/migrate_swap(). Deviations are marked "toposched:". */
#include "numa_imbalance.h"
#include "numa_internal.h"

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
		if (s->kernel.numa_runnable) /* numa_classify() weighs it from v5.10 */
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
	enum ts_numa_imbalance era = s->kernel.numa_imbalance;
	/* Before v5.7 (fb86f5b21192) a move was weighed by load alone. */
	if (env->dst_stats.node_type == node_has_spare && era <= TS_NUMA_IMB_PAIR_SRC /* v5.7+ */) {
		/* Would the move cause an imbalance the load balancer would undo? */
		long src_running = (long)env->src_stats.nr_running - 1;
		long dst_running = (long)env->dst_stats.nr_running + 1;
		long imbalance = dst_running - src_running > 0 ? dst_running - src_running : 0;
		/* the node whose tasks decide: the source's until v5.10 (233e7aca4c8a); the
		 * limit: its CPUs in v5.11-v5.17, imb_numa_nr from v5.18 */
		long running = era == TS_NUMA_IMB_PAIR_SRC ? src_running : dst_running;
		long limit = era == TS_NUMA_IMB_QUARTER ? (long)env->dst_stats.weight
							: (long)env->imb_numa_nr;
		imbalance = ts_numa_adjust_imbalance(era, imbalance, running, limit);
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
		env.imb_numa_nr = (int)ts_numa_imb_nr(s, sd);
	}
	/* Cpusets can trap a task in a domain that does not cross nodes. */
	if (!sd) {
		ts_sched_setnuma(s, p, env.src_nid);
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
			ts_sched_setnuma(s, p, nid);
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

static inline int task_cpu_of(const struct ts_task *t)
{
	return __atomic_load_n(&t->cpu, __ATOMIC_RELAXED);
}

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
	/* migrate_swap_stop() / migration_cpu_stop(): re-verify under both locks. The host
	 * holds p's (and the partner's) pi_lock, taken before these rq locks as the kernel's
	 * stop functions take them, so no wake-up writes their cpu or state meanwhile. A task
	 * that left src (dst) may still be moved by load balancing under rq locks this CPU
	 * does not hold: its cpu and state are read as the lock-free readers read them; one
	 * still there cannot move. */
	bool ok = task_cpu_of(p) == src && ts_task_state_lockfree(p) == TS_TASK_RUNNABLE &&
		  ts_task_allowed(p, dst);
	if (ok && q)
		ok = task_cpu_of(q) == dst && ts_task_state_lockfree(q) == TS_TASK_RUNNABLE &&
		     ts_task_allowed(q, src);
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
