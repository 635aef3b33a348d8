/* NUMA balancing's scan pacing, the one copy both hosts run (kernel/sched/fair.c,
 * CONFIG_NUMA_BALANCING). The kernel splits it in two:
 *
 *   task_tick_numa()  at every tick of a task with an mm: once the task has run
 *                     numa_scan_period since node_stamp, node_stamp moves a period on
 *                     (its first period becomes task_scan_start()) and, if the mm's
 *                     numa_next_scan has come, task_numa_work() is queued;
 *   task_numa_work()  on the return to user space: one scanner per mm and period
 *                     (numa_next_scan moves a period on), node_stamp is pushed two ticks
 *                     so that another thread of the mm wins next time, and the walk
 *                     changes at most scan_size pages (8x that of address space) from
 *                     mm->numa_scan_offset, wrapping at the end (reset_ptenuma_scan():
 *                     numa_scan_seq++); the task then owes 32x the scan's time
 *                     (node_stamp) to keep the overhead under ~3 %.
 *
 * The core decides all of that; the host walks its own memory: the simulator marks its
 * 2 MiB chunks PROT_NONE, the runtime samples the pages of a task's declared regions.
 * Call order: ts_task_tick_numa() (true: scan now) -> ts_task_numa_work() (true: this
 * scan happens, the window is in *scan) -> the host's walk -> ts_task_numa_work_end(). The
 * scan period itself adapts in task_numa_placement() (update_task_scan_period()). */
#ifndef TOPOSCHED_NUMA_SCAN_H
#define TOPOSCHED_NUMA_SCAN_H

#include <stdbool.h>
#include <stdint.h>

struct ts_sched;
struct ts_task;
struct ts_numa_mm;

/* What one task_numa_work() may walk. Offsets are the host's positions in its address
 * space (the kernel's is a virtual address; the simulator counts 2 MiB chunks, the
 * runtime pages of the declared regions in order). */
struct ts_numa_scan {
	uint64_t start;	   /* mm->numa_scan_offset: where the walk starts */
	int64_t pages;	   /* sysctl_numa_balancing_scan_size in 4 KiB pages: the budget of
			    * pages whose protection the walk changes */
	int64_t virtpages; /* pages * 8: the budget of address space the walk passes over */
};

/* init_numa_balancing() of a new mm (mm_users == 1): its first scan no earlier than
 * scan_delay_ms from now (sysctl_numa_balancing_scan_delay), a new scan sequence, the walk
 * at the start. ts_numa_task_init() does it for a task's own mm (mm NULL) with the default
 * delay. */
void ts_numa_mm_init(struct ts_sched *s, struct ts_numa_mm *mm, unsigned int scan_delay_ms);

/* A host's sysctls for p, right after ts_numa_task_init(): its first scan after
 * scan_delay_ms of run time (numa_scan_period starts as the delay, as init_numa_balancing()
 * sets it), its own mm (if it has one) scanned no earlier than that from now; and, when
 * fixed_period_ms > 0, every later scan paced by that period instead of the adaptive
 * numa_scan_period (toposched: the runtime's numa_scan_period_ms test knob; the adaptive
 * period is still computed). 0 = the kernel's defaults. */
void ts_numa_scan_tune(struct ts_sched *s, struct ts_task *p, unsigned int scan_delay_ms,
		       unsigned int fixed_period_ms);

/* task_numa_work(): the mm's scan is due, and the host should call ts_task_numa_work()
 * now. task_tick_numa() on p's CPU, p its running task (its rq locked): p->numa must exist,
 * the host checks the rest (an mm, not exiting). Advances node_stamp when the period has
 * passed (the first period becomes task_scan_start()). */
bool ts_task_tick_numa(struct ts_sched *s, struct ts_task *p);

/* task_numa_work()'s pacing: false when another scanner of the mm came first in this
 * period (numa_next_scan not reached); else numa_next_scan and node_stamp move on and
 * *scan says what the walk may cover. */
bool ts_task_numa_work(struct ts_sched *s, struct ts_task *p, struct ts_numa_scan *scan);

/* The walk ended at host offset `end` (where the next one starts); `resets` times it ran
 * off the end of the address space (reset_ptenuma_scan(): numa_scan_seq++ each, the offset
 * then counted from 0); it took scan_ns of p's run time (node_stamp += 32x that). */
void ts_task_numa_work_end(struct ts_sched *s, struct ts_task *p, uint64_t end, int resets,
			   uint64_t scan_ns);

/* The pace p scans at now, ms: numa_scan_period, or the host's fixed period once the scan
 * delay is over (ts_numa_scan_tune()). */
unsigned int ts_numa_scan_period_now(const struct ts_task *p);

#endif
