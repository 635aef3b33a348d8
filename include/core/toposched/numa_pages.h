/* Whether a NUMA hinting fault migrates the page to the faulting CPU's node:
 * should_numa_migrate_memory() of kernel/sched/fair.c (without memory tiering). Policy
 * only: the host keeps the page's last_cpupid, moves the page and pays for it. The
 * simulator migrates its 2 MiB chunks with it; the runtime moves tasks, not pages, and
 * does not call it. */
#ifndef TOPOSCHED_NUMA_PAGES_H
#define TOPOSCHED_NUMA_PAGES_H

#include <stdbool.h>

struct ts_task;
struct ts_topology;

/* A page's last_cpupid: the task (the host's id for it, as the kernel keeps the low bits
 * of the pid) and the CPU of its last NUMA hinting fault. pid < 0: unset
 * (page_cpupid_reset_last(): never faulted on). */
struct ts_numa_cpupid {
	int pid;
	int cpu;
};

#define TS_NUMA_CPUPID_UNSET ((struct ts_numa_cpupid){-1, -1})

/* should_numa_migrate_memory(p, folio, src_nid, dst_cpu): p (whose host id is p_pid)
 * faults on dst_cpu on a page of src_nid whose last_cpupid is *last. Exchanges *last for
 * (p_pid, dst_cpu) (folio_xchg_last_cpupid()) and returns whether the page should move to
 * dst_cpu's node: first and private faults early in p's life (numa_scan_seq <= 4) at once;
 * otherwise only on a second fault in a row from that node (the two-stage filter), always
 * for a private fault, and for a shared one when p has no NUMA group yet or the group's
 * CPU use on the destination outweighs the source (3x, or in proportion to the memory
 * there with 3/4 hysteresis). */
bool ts_should_numa_migrate_memory(const struct ts_topology *topo, const struct ts_task *p,
				   int p_pid, struct ts_numa_cpupid *last, int src_nid,
				   int dst_cpu);

#endif
