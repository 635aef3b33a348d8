/* should_numa_migrate_memory() (numa_pages.h), kernel/sched/fair.c v6.x without the
 * memory-tiering branch (every node is a top tier). */
#include "numa_internal.h"

#include "toposched/numa_pages.h"

bool ts_should_numa_migrate_memory(const struct ts_topology *topo, const struct ts_task *p,
				   int p_pid, struct ts_numa_cpupid *last, int src_nid, int dst_cpu)
{
	const struct ts_numa_task *n = p->numa;
	int dst_nid = topo->cpu[dst_cpu].node;
	struct ts_numa_cpupid prev = *last;
	*last = (struct ts_numa_cpupid){p_pid, dst_cpu}; /* folio_xchg_last_cpupid() */
	bool unset = prev.pid < 0, match = prev.pid == p_pid;
	int preferred = n ? n->numa_preferred_nid : TS_NUMA_NO_NODE;
	int scan_seq = n ? n->numa_scan_seq : 0;
	/* First faults and private faults migrate at once early in a task's life: the 4 is two
	 * full passes of the filter below. */
	if ((preferred == TS_NUMA_NO_NODE || scan_seq <= 4) && (unset || match))
		return true;
	/* The two-stage filter: migrate only on a second consecutive fault from the same
	 * node (the previous accessor's CPU was on this node too). */
	if (!unset && topo->cpu[prev.cpu].node != dst_nid)
		return false;
	if (match) /* always on private faults */
		return true;
	const struct ts_numa_group *ng = n ? n->numa_group : NULL;
	if (!ng) /* shared, but no group yet */
		return true;
	int nn = topo->nr_nodes;
	unsigned long cpu_dst = group_faults_cpu(ng, nn, dst_nid);
	unsigned long cpu_src = group_faults_cpu(ng, nn, src_nid);
	/* The destination is used far more than the source. */
	if (cpu_dst > cpu_src * TS_NUMA_ACTIVE_NODE_FRACTION)
		return true;
	/* Memory follows CPU use, with 3/4 hysteresis:
	 * faults_cpu(dst) / faults_mem(dst) * 3/4 > faults_cpu(src) / faults_mem(src) */
	return cpu_dst * ts_numa_group_faults(p, src_nid) * 3 >
	       cpu_src * ts_numa_group_faults(p, dst_nid) * 4;
}
