/* The simulator's memory model for NUMA balancing (internal to src/sim/): one address
 * space per instance (a process: its threads share it, and its struct ts_numa_mm is what
 * the core reads), made of the workload's regions (one VMA each), each tracked in chunks
 * of 2 MiB — 512 pages, one PMD-mapped transparent huge page. That is the kernel's own
 * unit for large anonymous memory: a THP takes one NUMA hinting fault for all its 512
 * pages (do_huge_pmd_numa_page -> task_numa_fault(last_cpupid, nid, HPAGE_PMD_NR, ...)),
 * carries one last_cpupid and migrates as one folio; it also keeps the state of a 3 GiB
 * buffer at 1536 chunks. A region whose size is not a multiple of 2 MiB ends in a smaller
 * chunk (as a VMA tail mapped with base pages would, simplified to one unit).
 *
 * Per chunk: its node (-1 until first touched), whether the scanner made it PROT_NONE
 * (the next touch faults), and its last accessor (last_cpupid: the task and its CPU) as
 * should_numa_migrate_memory() records it. Conservation: per mm, the pages per node summed
 * over the chunks equal the node counters, and the placed pages never exceed the regions'
 * sizes (sim_mm_check(); the engine checks it in debug builds, the tests always).
 *
 * TOUCH sweeps (struct sim_sweep) are costed here: pages k.. of one execution map to
 * region pages slice_lo + (start + k) mod slice_len; a page costs page_ns + accesses x the
 * latency from the toucher's node to the page's node. */
#ifndef TOPOSCHED_SIM_NUMA_MEMORY_H
#define TOPOSCHED_SIM_NUMA_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/numa_pages.h"
#include "toposched/sched.h"
#include "toposched/sim.h"

#define SIM_PAGE_SHIFT	12
#define SIM_PAGE_KIB	4
#define SIM_CHUNK_PAGES 512 /* HPAGE_PMD_NR: 2 MiB */

struct sim_chunk {
	int32_t last_task; /* last_cpupid, pid part: the engine's task index; -1 unset */
	int32_t last_cpu;  /* its cpu part */
	int16_t node;	   /* -1: not faulted in yet */
	bool marked;	   /* PROT_NONE: the next touch takes a NUMA hinting fault */
	uint16_t pages;	   /* 1..SIM_CHUNK_PAGES */
};

struct sim_region {
	const struct ts_region *desc;
	uint64_t pages;
	uint32_t first_chunk; /* in the mm's chunk array */
	uint32_t nr_chunks;
};

struct sim_mm {
	struct ts_numa_mm numa; /* the core's view: numa_scan_seq, rss_pages, the scan's pace
				 * and offset (in chunks), id */
	struct sim_region *regions;
	int nr_regions;
	struct sim_chunk *chunks; /* every region's chunks, in address (region) order */
	uint32_t nr_chunks;
	int nr_nodes;
	uint64_t *node_pages;	  /* [nr_nodes]: pages placed on each node */
	uint64_t region_pages;	  /* the regions' total size */
	int first_task, nr_tasks; /* the instance's tasks (engine indexes) */
};

int sim_mm_init(struct sim_mm *mm, int id, const struct ts_workload *w, int nr_nodes);
void sim_mm_free(struct sim_mm *mm);

/* A chunk's first placement (first touch or prefault) and a migration. */
void sim_chunk_place(struct sim_mm *mm, uint32_t chunk, int node);
void sim_chunk_move(struct sim_mm *mm, uint32_t chunk, int node);

/* Conservation: 0, or -1 with the reason in why. */
int sim_mm_check(const struct sim_mm *mm, char *why, size_t why_size);

/* task_numa_work()'s walk over the window the core gives (ts_task_numa_work()): marks
 * PROT_NONE the chunks of mm from win->start (numa_scan_offset, in chunks), range by range
 * (each win->pages long, 2 MiB-aligned, within one region), as change_prot_numa() does
 * with THPs: chunks present and not yet marked are marked; a range that changed something
 * costs win->pages its length, every range costs win->virtpages; regions with scan[r]
 * false are passed over (unsuitable VMAs). Reaching the end of the address space resets
 * the walk (reset_ptenuma_scan(): *resets is incremented, the offset starts over). *next is
 * where the next walk starts (ts_task_numa_work_end()). Returns the chunks marked;
 * [*lo, *hi) spans them. */
uint32_t sim_mm_scan(struct sim_mm *mm, const bool *scan, const struct ts_numa_scan *win,
		     uint64_t *next, int *resets, uint32_t *lo, uint32_t *hi);

/* The core's should_numa_migrate_memory() (toposched/numa_pages.h) on chunk c: its
 * last_cpupid is exchanged for (p, dst_cpu). p_index is p's engine index. */
bool sim_should_migrate_memory(const struct ts_topology *t, struct ts_task *p, int p_index,
			       struct sim_chunk *c, int src_nid, int dst_cpu);

/* One execution of a TOUCH phase. */
struct sim_sweep {
	const struct sim_mm *mm;
	const struct sim_region *r;
	uint64_t slice_lo, slice_len; /* region pages of the task's slice */
	uint64_t start, len;	      /* first page (slice-relative) and pages to touch */
	double page_ns, accesses;
};

/* The mm chunk holding page k (0 <= k < len) of the sweep. */
uint32_t sim_sweep_chunk(const struct sim_sweep *sw, double k);
/* From page position k, the pages up to the next chunk that would fault (not placed or
 * marked) or the end: returns their cost in ns from a CPU whose latency to node n is
 * lat[n], and the end position in *end (== k: the chunk at k faults now). */
double sim_sweep_plan(const struct sim_sweep *sw, double k, const double *lat, double *end);
/* The position reached from k after `ns` of the cost sim_sweep_plan() computed (the same
 * chunks and CPU node), at most end. */
double sim_sweep_advance(const struct sim_sweep *sw, double k, double end, const double *lat,
			 double ns);

#endif
