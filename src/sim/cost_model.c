/* The machine cost model (include/toposched/cost_model.h; docs/model.md explains every
 * term, rule and value). Per preset a table holds the published figures we use, each
 * naming its public source (data set, article, kernel file or commit), and labelled
 * estimates where no figure is published; the bulk, refill and scan tiers are derived
 * from those figures by the rules below. Nothing here is fitted to a benchmark result. */
#include "toposched/cost_model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- derivation rules ------------------------------------------------------------------- */

/* 1 KiB = 16 cache lines of 64 bytes (every machine here has 64-byte lines). */
#define LINES_PER_KIB 16.0
/* Cache misses one core keeps in flight while it streams lines (a copy, or refetching a
 * footprint): Intel cores have 10 L1D line-fill buffers since Nehalem (Broadwell 10;
 * later cores have more). Assumed for every core: an estimate, not a measurement. */
#define MISSES_IN_FLIGHT 10.0
/* A probe of an idle scan (available_idle_cpu(): rq->curr, rq->nr_running,
 * rq->ttwu_pending) reads one struct rq cache line that the examined CPU writes on every
 * schedule; the loop stops at the first idle CPU, a data-dependent branch, so probes are
 * charged one full line transfer each. */
#define SCAN_LINES_PER_CPU 1.0
/* Kunpeng 920 pinned-pair figures of the openEuler WAYCA scheduler project
 * (repository openeuler-mirror/wayca-scheduler). lmbench lat_pipe round trips, ns, on a
 * Kunpeng 920 with 8 clusters of 4 per node
 * (tools/kp920.2P.8CCL.type2/log.pipe.lock.0420.8ccl.filtered.txt): CPU 1 <-> 0 (same
 * cluster) 5.807 and 5.787 us, CPU 1 <-> 4, 8, ..., 28 (other clusters of the die) 7.317-7.477
 * us, mean 7.406, CPU 1 <-> 32 (the other die) 12.87 us. */
#define KP_PIPE_SAME_CLUSTER_NS	 5797.0
#define KP_PIPE_OTHER_CLUSTER_NS 7406.0
#define KP_PIPE_OTHER_DIE_NS	 12870.0
/* The same log: attractivechaos/benchmarks lock/lock_test.c, a pthread spinlock handed among
 * 4 threads, 1e8 lock/unlock pairs in all: 7.83 s with the 4 threads in one cluster (CPUs
 * 0-3), 17.52 s in 4 clusters (0, 4, 8, 12): one contended line handed over per pair,
 * 78.3 vs 175.2 ns. */
#define KP_LOCK_CLUSTER_NS (7.83e9 / 1e8)
/* lat_pipe on a Kunpeng 920 with 6 clusters per node
 * (tools/kp920.2P.6CCL/log.pipe-latency.0404.filtered.txt): both processes on one CPU, 6 runs
 * 11.84-12.00 us, mean 11.88; the two on two CPUs of one cluster, 6 pairs 9.952-10.358 us,
 * mean 10.18. */
#define KP6_PIPE_SAME_CPU_NS	 11880.0
#define KP6_PIPE_SAME_CLUSTER_NS 10180.0
/* Lines of state one wake-up hand-off moves between waker and wakee CPU (task, wait queue,
 * pipe/socket, run queue). derived: a round trip is two hand-offs, so the 8-cluster pair
 * pays (7,406 - 5,797) / 2 = 804.5 ns more per hand-off across clusters, and one contended
 * line costs 175.2 - 78.3 = 96.9 ns more across clusters: 804.5 / 96.9 = 8.30 lines
 * (rounded to the figures' precision; tests/test_cost_model.c redoes the division). */
#define HANDOFF_LINES 8.30
/* Of those, the run-queue lines a waker moves when it enqueues on a busy CPU itself
 * (ttwu_queue() without the wake list: the target's rq->lock, its cfs_rq/rb-tree line and
 * rq->curr read by check_preempt): estimate, 3 lines. */
#define WAKE_RQ_LINES 3.0
/* The cache working set of one run of a task (cache.run_kib): the one free value of the
 * cache-capacity mechanism, calibrated once so that tbench on kunpeng920 node 0 at 64
 * clients gives its published baseline, 7,408.94 MB/s (the cluster-scan patch v10 mail,
 * "sched/fair: Scan cluster before scanning LLC in wake-up path", Yicong Yang, Oct 2023),
 * and used unchanged on every preset. */
#define CACHE_RUN_KIB 153.0
/* Upper bound for any override (one second), so that no product of terms overflows. */
#define COST_MAX 1e9

/* ---- the term table --------------------------------------------------------------------- */

struct term_desc {
	struct ts_cost_term_info info;
	size_t offset;
	double min_excl, max; /* valid override: min_excl < v <= max (min_excl < 0: v >= 0) */
};

/* Start-up costs (estimates; see their source texts below). */
#define FORK_NS	  40000.0
#define ACCEPT_NS 3000.0

#define TERM(name, field, unit, meaning, lo, hi)                                                   \
	{                                                                                          \
		{name, unit, meaning}, offsetof(struct ts_cost_model, field), lo, hi               \
	}

static const struct term_desc terms[] = {
	TERM("c2c.same_cpu", c2c[TS_REL_SAME_CPU], "ns",
	     "one-way cache-line transfer / wake-up signal to the same CPU (none)", -1, COST_MAX),
	TERM("c2c.smt", c2c[TS_REL_SMT], "ns",
	     "one-way cache-line transfer / wake-up signal between SMT siblings", -1, COST_MAX),
	TERM("c2c.cluster", c2c[TS_REL_CLUSTER], "ns", "the same, between CPUs of one cluster", -1,
	     COST_MAX),
	TERM("c2c.llc", c2c[TS_REL_LLC], "ns",
	     "the same, between CPUs sharing the LLC (other cluster)", -1, COST_MAX),
	TERM("c2c.node", c2c[TS_REL_NODE], "ns",
	     "the same, between CPUs of one node with different LLCs", -1, COST_MAX),
	TERM("c2c.package", c2c[TS_REL_PACKAGE], "ns",
	     "the same, between CPUs of different nodes of one package", -1, COST_MAX),
	TERM("c2c.remote", c2c[TS_REL_REMOTE], "ns",
	     "the same, between packages, at SLIT distance remote_distance", -1, COST_MAX),
	TERM("remote_distance", remote_distance, "SLIT",
	     "the node distance at which the *.remote tiers apply; others scale by d/this",
	     TS_LOCAL_DISTANCE, TS_MAX_DISTANCE),
	TERM("idle_exit", idle_exit, "ns", "waking a CPU out of its shallow idle state (C1 / WFI)",
	     -1, COST_MAX),
	TERM("ctx_switch", ctx_switch, "ns",
	     "direct cost of one context switch on a CPU (no cache effects)", -1, COST_MAX),
	TERM("bulk_per_kib.same_cpu", bulk_per_kib[TS_REL_SAME_CPU], "ns/KiB",
	     "moving message payload hot in this CPU's own caches", -1, COST_MAX),
	TERM("bulk_per_kib.smt", bulk_per_kib[TS_REL_SMT], "ns/KiB",
	     "moving payload from the sender's caches to an SMT sibling", -1, COST_MAX),
	TERM("bulk_per_kib.cluster", bulk_per_kib[TS_REL_CLUSTER], "ns/KiB",
	     "the same, within the cluster", -1, COST_MAX),
	TERM("bulk_per_kib.llc", bulk_per_kib[TS_REL_LLC], "ns/KiB",
	     "the same, within the LLC (other cluster)", -1, COST_MAX),
	TERM("bulk_per_kib.node", bulk_per_kib[TS_REL_NODE], "ns/KiB",
	     "the same, to another LLC of the node", -1, COST_MAX),
	TERM("bulk_per_kib.package", bulk_per_kib[TS_REL_PACKAGE], "ns/KiB",
	     "the same, to another node of the package", -1, COST_MAX),
	TERM("bulk_per_kib.remote", bulk_per_kib[TS_REL_REMOTE], "ns/KiB",
	     "the same, to another package, at remote_distance", -1, COST_MAX),
	TERM("refill.same_cpu", refill[TS_REL_SAME_CPU], "ns/KiB",
	     "refetching a task's footprint when it stays on its CPU (none)", -1, COST_MAX),
	TERM("refill.smt", refill[TS_REL_SMT], "ns/KiB",
	     "refetching a task's warm footprint after a move to an SMT sibling", -1, COST_MAX),
	TERM("refill.cluster", refill[TS_REL_CLUSTER], "ns/KiB",
	     "the same, after a move within the cluster", -1, COST_MAX),
	TERM("refill.llc", refill[TS_REL_LLC], "ns/KiB", "the same, after a move within the LLC",
	     -1, COST_MAX),
	TERM("refill.node", refill[TS_REL_NODE], "ns/KiB",
	     "the same, after a move to another LLC of the node", -1, COST_MAX),
	TERM("refill.package", refill[TS_REL_PACKAGE], "ns/KiB",
	     "the same, after a move to another node of the package", -1, COST_MAX),
	TERM("refill.remote", refill[TS_REL_REMOTE], "ns/KiB",
	     "the same, after a move to another package, at remote_distance", -1, COST_MAX),
	TERM("scan_per_cpu.same_cpu", scan_per_cpu[TS_REL_SAME_CPU], "ns",
	     "an idle-scan probe of the waker's own CPU", -1, COST_MAX),
	TERM("scan_per_cpu.smt", scan_per_cpu[TS_REL_SMT], "ns",
	     "an idle-scan probe of an SMT sibling of the waker", -1, COST_MAX),
	TERM("scan_per_cpu.cluster", scan_per_cpu[TS_REL_CLUSTER], "ns",
	     "an idle-scan probe of a CPU in the waker's cluster", -1, COST_MAX),
	TERM("scan_per_cpu.llc", scan_per_cpu[TS_REL_LLC], "ns",
	     "an idle-scan probe of a CPU elsewhere in the waker's LLC", -1, COST_MAX),
	TERM("scan_per_cpu.node", scan_per_cpu[TS_REL_NODE], "ns",
	     "an idle-scan probe of a CPU in another LLC of the waker's node", -1, COST_MAX),
	TERM("scan_per_cpu.package", scan_per_cpu[TS_REL_PACKAGE], "ns",
	     "an idle-scan probe of a CPU on another node of the package", -1, COST_MAX),
	TERM("scan_per_cpu.remote", scan_per_cpu[TS_REL_REMOTE], "ns",
	     "an idle-scan probe of a CPU in another package, at remote_distance", -1, COST_MAX),
	TERM("mem.local", mem_local, "ns", "DRAM load latency from a CPU to its own node", -1,
	     COST_MAX),
	TERM("mem.per_distance", mem_per_distance, "ns/SLIT",
	     "extra DRAM latency per SLIT unit: mem(d) = mem.local + this * (d - 10)", -1,
	     COST_MAX),
	TERM("numa.hint_fault", numa_hint_fault, "ns",
	     "one NUMA hinting fault (trap, do_huge_pmd_numa_page, task_numa_fault)", -1, COST_MAX),
	TERM("numa.migrate_per_kib", numa_migrate_per_kib, "ns/KiB",
	     "migrating a page between nodes at remote_distance, per KiB (others scale by "
	     "mem(d) + mem.local)",
	     -1, COST_MAX),
	TERM("numa.stop_latency", numa_stop_latency, "ns",
	     "a NUMA move or swap decided on a fault: the stop work (migration_cpu_stop) "
	     "takes effect this much later",
	     -1, COST_MAX),
	TERM("numa.scan_per_pmd", numa_scan_per_pmd, "ns",
	     "task_numa_work making one 2 MiB PMD PROT_NONE", -1, COST_MAX),
	TERM("handoff.same_cpu", handoff[TS_REL_SAME_CPU], "ns",
	     "a wake-up's hand-off when waker and wakee share the CPU (none)", -1, COST_MAX),
	TERM("handoff.smt", handoff[TS_REL_SMT], "ns",
	     "a wake-up's hand-off (task, wait-queue, pipe/socket, rq lines) between SMT siblings",
	     -1, COST_MAX),
	TERM("handoff.cluster", handoff[TS_REL_CLUSTER], "ns", "the same, within the cluster", -1,
	     COST_MAX),
	TERM("handoff.llc", handoff[TS_REL_LLC], "ns", "the same, within the LLC (other cluster)",
	     -1, COST_MAX),
	TERM("handoff.node", handoff[TS_REL_NODE], "ns", "the same, to another LLC of the node", -1,
	     COST_MAX),
	TERM("handoff.package", handoff[TS_REL_PACKAGE], "ns",
	     "the same, to another node of the package", -1, COST_MAX),
	TERM("handoff.remote", handoff[TS_REL_REMOTE], "ns",
	     "the same, to another package, at remote_distance", -1, COST_MAX),
	TERM("wake_enqueue.same_cpu", wake_enqueue[TS_REL_SAME_CPU], "ns",
	     "enqueueing a woken task on the waker's own CPU (in the syscall's cost: none)", -1,
	     COST_MAX),
	TERM("wake_enqueue.smt", wake_enqueue[TS_REL_SMT], "ns",
	     "the waker's remote enqueue on a busy SMT sibling (rq lock and lines)", -1, COST_MAX),
	TERM("wake_enqueue.cluster", wake_enqueue[TS_REL_CLUSTER], "ns",
	     "the same, on a busy CPU of the cluster", -1, COST_MAX),
	TERM("wake_enqueue.llc", wake_enqueue[TS_REL_LLC], "ns",
	     "the same, on a busy CPU of the LLC", -1, COST_MAX),
	TERM("wake_enqueue.node", wake_enqueue[TS_REL_NODE], "ns",
	     "the same, on a busy CPU in another LLC of the node", -1, COST_MAX),
	TERM("wake_enqueue.package", wake_enqueue[TS_REL_PACKAGE], "ns",
	     "the same, on another node of the package", -1, COST_MAX),
	TERM("wake_enqueue.remote", wake_enqueue[TS_REL_REMOTE], "ns",
	     "the same, in another package, at remote_distance", -1, COST_MAX),
	TERM("switch_out", switch_out, "ns",
	     "the leaving task's part of a switch to another task (dequeue, put_prev, pick)", -1,
	     COST_MAX),
	TERM("balance_per_cpu.same_cpu", balance_per_cpu[TS_REL_SAME_CPU], "ns",
	     "load balancing: examining one CPU (same cpu) in a balance pass", -1, COST_MAX),
	TERM("balance_per_cpu.smt", balance_per_cpu[TS_REL_SMT], "ns",
	     "load balancing: examining one CPU (smt) in a balance pass", -1, COST_MAX),
	TERM("balance_per_cpu.cluster", balance_per_cpu[TS_REL_CLUSTER], "ns",
	     "load balancing: examining one CPU (cluster) in a balance pass", -1, COST_MAX),
	TERM("balance_per_cpu.llc", balance_per_cpu[TS_REL_LLC], "ns",
	     "load balancing: examining one CPU (llc) in a balance pass", -1, COST_MAX),
	TERM("balance_per_cpu.node", balance_per_cpu[TS_REL_NODE], "ns",
	     "load balancing: examining one CPU (node) in a balance pass", -1, COST_MAX),
	TERM("balance_per_cpu.package", balance_per_cpu[TS_REL_PACKAGE], "ns",
	     "load balancing: examining one CPU (package) in a balance pass", -1, COST_MAX),
	TERM("balance_per_cpu.remote", balance_per_cpu[TS_REL_REMOTE], "ns",
	     "load balancing: examining one CPU (remote) in a balance pass", -1, COST_MAX),
	TERM("balance_per_task.same_cpu", balance_per_task[TS_REL_SAME_CPU], "ns",
	     "load balancing: moving one task from a CPU (same cpu) to the balancing CPU", -1,
	     COST_MAX),
	TERM("balance_per_task.smt", balance_per_task[TS_REL_SMT], "ns",
	     "load balancing: moving one task from a CPU (smt) to the balancing CPU", -1, COST_MAX),
	TERM("balance_per_task.cluster", balance_per_task[TS_REL_CLUSTER], "ns",
	     "load balancing: moving one task from a CPU (cluster) to the balancing CPU", -1,
	     COST_MAX),
	TERM("balance_per_task.llc", balance_per_task[TS_REL_LLC], "ns",
	     "load balancing: moving one task from a CPU (llc) to the balancing CPU", -1, COST_MAX),
	TERM("balance_per_task.node", balance_per_task[TS_REL_NODE], "ns",
	     "load balancing: moving one task from a CPU (node) to the balancing CPU", -1,
	     COST_MAX),
	TERM("balance_per_task.package", balance_per_task[TS_REL_PACKAGE], "ns",
	     "load balancing: moving one task from a CPU (package) to the balancing CPU", -1,
	     COST_MAX),
	TERM("balance_per_task.remote", balance_per_task[TS_REL_REMOTE], "ns",
	     "load balancing: moving one task from a CPU (remote) to the balancing CPU", -1,
	     COST_MAX),
	TERM("cache.capacity_kib", cache_capacity_kib, "KiB",
	     "the private cache per CPU that keeps a task's working set between its runs", 0,
	     COST_MAX),
	TERM("cache.run_kib", cache_run_kib, "KiB",
	     "the cache working set of one run of a task, evicted by other tasks' runs", -1,
	     COST_MAX),
	TERM("fork", fork, "ns", "fork() in the parent, up to the child's first wake-up", -1,
	     COST_MAX),
	TERM("accept", accept, "ns", "accept() of one loopback TCP connection", -1, COST_MAX),
};

#define NR_TERMS ((int)(sizeof(terms) / sizeof(terms[0])))

int ts_cost_term_count(void)
{
	return NR_TERMS;
}

const struct ts_cost_term_info *ts_cost_term_info(int i)
{
	return (i >= 0 && i < NR_TERMS) ? &terms[i].info : NULL;
}

static const struct term_desc *find_term(const char *name, size_t len)
{
	for (int i = 0; i < NR_TERMS; i++)
		if (strlen(terms[i].info.name) == len && memcmp(terms[i].info.name, name, len) == 0)
			return &terms[i];
	return NULL;
}

const struct ts_cost_term *ts_cost_model_term(const struct ts_cost_model *m, const char *name)
{
	const struct term_desc *d = name ? find_term(name, strlen(name)) : NULL;
	return d ? (const struct ts_cost_term *)((const char *)m + d->offset) : NULL;
}

struct ts_cost_term *ts_cost_model_term_mut(struct ts_cost_model *m, const char *name)
{
	const struct term_desc *d = name ? find_term(name, strlen(name)) : NULL;
	return d ? (struct ts_cost_term *)((char *)m + d->offset) : NULL;
}

int ts_cost_model_foreach(const struct ts_cost_model *m,
			  int (*fn)(const struct ts_cost_term_info *info,
				    const struct ts_cost_term *term, void *arg),
			  void *arg)
{
	for (int i = 0; i < NR_TERMS; i++) {
		int rc = fn(&terms[i].info,
			    (const struct ts_cost_term *)((const char *)m + terms[i].offset), arg);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- per-preset figures ----------------------------------------------------------------- */

struct fig {
	double v;
	const char *src; /* NULL: not given */
};

struct preset_costs {
	const char *name;
	/* c2c tiers SMT..REMOTE; src NULL = no CPU pair of the machine has that relation. */
	struct fig c2c[TS_REL_NR];
	/* Line latencies that replace the c2c tier in the bulk / refill rule, where the
	 * a published figure fits that kind of transfer better. */
	struct fig bulk_line[TS_REL_NR];
	struct fig refill_line[TS_REL_NR];
	struct fig remote_distance, idle_exit, ctx_switch, mem_local, mem_per_distance;
	struct fig numa_hint_fault;
	/* The private cache per CPU (L2 per core / hardware threads per core), KiB. */
	struct fig cache_capacity_kib;
	/* The hand-off tiers come from the Kunpeng 920 lat_pipe figures (a TaiShan v110
	 * machine), not from HANDOFF_LINES x c2c. */
	bool kunpeng_lat_pipe;
};

#define KCORES_KUNPENG                                                                             \
	"KCORES core-to-core-latency-plus 'HiSilicon Kunpeng 920-6426 @ 2.6GHz by-Concyclics.csv'" \
	" (one socket, 64 CPUs)"
#define KCORES_7601   "KCORES 'Dual AMD EPYC 7601 32-Core Processor by-jstzwj.csv'"
#define NVIENNOT_7742 "nviennot/core-to-core-latency 'Dual AMD EPYC 7742 64-Core Processor.csv'"
#define KCORES_BDW    "nviennot/KCORES 'Dual Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz.csv'"
#define KCORES_ICX    "KCORES 'Dual Intel Xeon Platinum 8358 CPU 2.60GHz by-leavelet.csv'"
#define KCORES_SPR    "KCORES 'Intel Xeon W9-3475X 2.2GHz 36Cores 2023-Q2 by-ReinForce-II.csv'"

#define CTX_SWITCH_EST                                                                             \
	{                                                                                          \
		1500, "estimate: no published figure found; the direct cost of switching "         \
		      "between two tasks on one CPU (__schedule, switch_mm, register state; "      \
		      "cache "                                                                     \
		      "effects are refill.*) is of the order of 1-2 us on 2-3 GHz server cores; "  \
		      "1.5 us"                                                                     \
	}

#define HINT_FAULT_EST                                                                             \
	{                                                                                          \
		1000, "estimate: no published figure found; a NUMA hinting fault on a THP is a "   \
		      "minor fault (exception entry and exit, 0.3-0.5 us with current "            \
		      "mitigations) "                                                              \
		      "plus do_huge_pmd_numa_page (page-table lock, the PMD rewrite, "             \
		      "numa_migrate_check) and task_numa_fault's bookkeeping: 1 us on 2-3 GHz "    \
		      "server cores; the page copy is numa.migrate_per_kib"                        \
	}

#define IDLE_EXIT_AMD                                                                              \
	{                                                                                          \
		1000, "estimate: no published figure found; AMD's shallow state is C1 (MWAIT) "    \
		      "via "                                                                       \
		      "ACPI _CST, comparable to Intel's C1 of the same years, which Linux "        \
		      "declares "                                                                  \
		      "1-2 us (intel_idle icx/bdw tables); 1 us"                                   \
	}

#define IDLE_EXIT_WFI                                                                              \
	{                                                                                          \
		1000, "declared: Linux ARM_CPUIDLE_WFI_STATE (WFI, exit_latency 1 us); the "       \
		      "shallow state of arm64 cpuidle; we found no published copy of Kunpeng's "   \
		      "own ACPI LPI table"                                                         \
	}

#define SMT_INTEL_EST(dataset)                                                                     \
	{                                                                                          \
		8.3, "estimate: " dataset " has SMT off; Intel SMT siblings share L1/L2 on every " \
		     "generation, so Broadwell's measured sibling figure is used: 8.3 ns "         \
		     "(E5-2680 v4, KCORES data set)"                                               \
	}

#define MEM_CLX_LOCAL                                                                              \
	{                                                                                          \
		70, "estimate: no published figure found; proxy: Cascade Lake 8269CY 2S local "    \
		    "70 ns (plantegg blog, lmbench lat_mem_rd 64M), the preceding Xeon-SP "        \
		    "generation"                                                                   \
	}

static const struct preset_costs preset_costs[] = {
	{
		.name = "kunpeng920",
		.c2c =
			{
				[TS_REL_CLUSTER] = {34.5,
						    "measured: " KCORES_KUNPENG ", same cluster, "
						    "median (p10-p90 30.0-37.9)"},
				[TS_REL_LLC] = {35.7,
						"measured: " KCORES_KUNPENG ", same die, other "
						"cluster, median (33.4-38.0)"},
				[TS_REL_PACKAGE] = {80.5,
						    "measured: " KCORES_KUNPENG ", other die of "
						    "the socket, median (72.2-84.5)"},
				[TS_REL_REMOTE] =
					{165,
					 "estimate: no cross-socket figure (the data set "
					 "is one socket); the midpoint of our estimate "
					 "150-180 ns, made from the plantegg memory "
					 "latencies (other socket 198/219 ns vs other die 135)"},
			},
		.bulk_line =
			{
				[TS_REL_CLUSTER] =
					{30.0,
					 "no published figure for coherence-heavy "
					 "transfers; a pipelined multi-line copy "
					 "is taken at the uncontended line latency, the p10 "
					 "of " KCORES_KUNPENG ", the one statistic of it that "
					 "separates the clusters: same cluster p10 30.0 ns"},
				[TS_REL_LLC] = {33.4, "as bulk_per_kib.cluster: other cluster p10 "
						      "33.4 ns of the same data set"},
			},
		.remote_distance = {32, "estimate: the distance the c2c.remote estimate is "
					"taken at: node 0 to the near die of the other socket "
					"(XA320 V2 SLIT 10/16/32/33)"},
		.idle_exit = IDLE_EXIT_WFI,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {512, "measured: TaiShan v110 core, private L2 512 KiB per "
					    "core, no SMT (Huawei Kunpeng 920 product page; "
					    "WikiChip hisilicon/microarchitectures/taishan_v110); "
					    "L1D 64 KiB is inside that budget"},
		.kunpeng_lat_pipe = true,
		.mem_local = {117, "measured: plantegg 'Intel AMD 鲲鹏 海光 飞腾性能PK' (2021), "
				   "lmbench lat_mem_rd -t 64M, 920-4826 2P, local"},
		.mem_per_distance = {4.04,
				     "derived: the 920-4826 latencies (other die 135, "
				     "other socket 198 / 219 ns) put on this preset's SLIT "
				     "(16, 32, 33): least-squares slope through (10, 117 ns); "
				     "measured on a 920-4826 board with another SLIT"},
	},
	{
		.name = "kunpeng920-48",
		.c2c =
			{
				[TS_REL_CLUSTER] =
					{34.5, "measured: " KCORES_KUNPENG ", on the 920-6426 "
					       "(same TaiShan v110 die and 4-core clusters; no "
					       "920-4826 data set), same cluster, median"},
				[TS_REL_LLC] = {35.7,
						"measured: " KCORES_KUNPENG ", on the 920-6426, "
						"same die, other cluster, median"},
				[TS_REL_PACKAGE] = {80.5, "measured: " KCORES_KUNPENG ", on the "
							  "920-6426, other die, median"},
				[TS_REL_REMOTE] =
					{165,
					 "estimate: no cross-socket figure (the data set is "
					 "one socket); the midpoint of our estimate 150-180 ns"},
			},
		.bulk_line =
			{
				[TS_REL_CLUSTER] =
					{30.0,
					 "no published figure for coherence-heavy "
					 "transfers; the uncontended (p10) line "
					 "latency of the 920-6426 data set, as for kunpeng920: "
					 "same cluster 30.0 ns"},
				[TS_REL_LLC] = {33.4, "as bulk_per_kib.cluster: other cluster p10 "
						      "33.4 ns"},
			},
		.remote_distance = {20, "estimate: node 0 to the near die of the other socket "
					"(D06 SLIT 10/12/20/22)"},
		.idle_exit = IDLE_EXIT_WFI,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{512, "measured: TaiShan v110 core, private L2 512 KiB per core, no SMT "
			      "(WikiChip hisilicon/microarchitectures/taishan_v110)"},
		.kunpeng_lat_pipe = true,
		.mem_local = {117, "measured: plantegg (2021), lmbench lat_mem_rd -t 64M, "
				   "920-4826 2P, local"},
		.mem_per_distance = {8.35,
				     "derived: plantegg lat_mem_rd (920-4826): other die "
				     "135 ns at SLIT 12, other socket 198 at 20 and 219 at 22; "
				     "least-squares slope through (10, 117 ns)"},
	},
	{
		.name = "epyc-7601",
		.c2c =
			{
				[TS_REL_SMT] = {12.0, "measured: " KCORES_7601 ", SMT sibling"},
				[TS_REL_LLC] = {38, "measured: " KCORES_7601
						    ", same CCX (the L3 is per "
						    "CCX), median (35-47)"},
				[TS_REL_NODE] =
					{216,
					 "measured: " KCORES_7601 ", other CCX of the die, "
					 "socket 1 median (130-226); socket 0 reads 334 and is "
					 "treated as the slow outlier"},
				[TS_REL_PACKAGE] =
					{244, "measured: " KCORES_7601 ", other die of the "
					      "socket, socket 1 median (209-264); socket 0: 374, "
					      "outlier"},
				[TS_REL_REMOTE] =
					{367, "measured: " KCORES_7601 ", other socket, median "
					      "(334-408); the slow socket 0 is in every such pair, "
					      "so this may read high"},
			},
		.refill_line =
			{
				[TS_REL_LLC] =
					{16, "measured: AnandTech 11544 'Sizing Up Servers' (2017, "
					     "www.anandtech.com/show/11544; lmbench), L3 in own "
					     "CCX 13-19 ns, midpoint"},
				[TS_REL_NODE] = {92, "measured: AnandTech 11544, L3 of another CCX "
						     "89-95 ns, midpoint"},
			},
		.remote_distance = {32, "measured: SLIT other socket (Matt Fleming, commit "
					"a55c7454a8c8 'sched/topology: Improve load balancing "
					"on AMD EPYC systems', 2019); the distance of every "
					"c2c.remote pair"},
		.idle_exit = IDLE_EXIT_AMD,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{256,
			 "derived: Zen L2 512 KiB per core (AMD, WikiChip "
			 "amd/microarchitectures/zen) shared by 2 SMT threads: 256 KiB per CPU"},
		.mem_local = {97, "measured: AnandTech 11544 (lmbench), local DRAM 96-98 ns, "
				  "DDR4-2400"},
		.mem_per_distance = {6.66,
				     "derived: no EPYC 7601 remote figure; the Hygon 7280 "
				     "proxy (same Zen 1 MCM; plantegg lat_mem_rd: local 107, "
				     "same socket 164-169, other socket 237-292 ns) as ratios "
				     "applied to 97 ns: 151 at SLIT 16, 240 at 32; "
				     "least-squares slope through (10, 97)"},
	},
	{
		.name = "epyc-7742",
		.c2c =
			{
				[TS_REL_SMT] = {8.0, "measured: " NVIENNOT_7742 ", SMT sibling"},
				[TS_REL_LLC] = {25, "measured: " NVIENNOT_7742
						    ", same CCX (the L3 is per "
						    "CCX), median (25-26)"},
				[TS_REL_NODE] =
					{130,
					 "derived: " NVIENNOT_7742 ", other CCX of the "
					 "socket (one node in NPS1), socket 1: same CCD 114, "
					 "same quadrant 113, other quadrant 134, weighted by a "
					 "core's partners 4/8/48; socket 0 (249/269) is the slow "
					 "outlier"},
				[TS_REL_REMOTE] = {267,
						   "measured: " NVIENNOT_7742 ", other socket, "
						   "median (255-275)"},
			},
		.refill_line =
			{
				[TS_REL_LLC] = {10, "measured: AnandTech 14694 (Rome review, "
						    "www.anandtech.com/show/14694), L3 ~34 "
						    "cycles, about 10 ns"},
			},
		.remote_distance = {32, "measured: SLIT NPS1 10/32 (ARCHER2 and other published "
					"numactl -H outputs)"},
		.idle_exit = IDLE_EXIT_AMD,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {256,
				       "derived: Zen 2 L2 512 KiB per core (AMD EPYC 7742 spec; "
				       "WikiChip amd/microarchitectures/zen_2) / 2 SMT threads"},
		.mem_local = {122, "measured: AnandTech 14694, DRAM full random 128 MB, NPS1"},
		.mem_per_distance = {4.09, "estimate: no published cross-socket figure found; "
					   "our estimate +80-100 ns, +90 at SLIT 32"},
	},
	{
		.name = "epyc-7742-nps4",
		.c2c =
			{
				[TS_REL_SMT] = {8.0, "measured: " NVIENNOT_7742 ", SMT sibling"},
				[TS_REL_LLC] = {25, "measured: " NVIENNOT_7742 ", same CCX, median "
						    "(25-26)"},
				[TS_REL_NODE] = {113.3,
						 "derived: " NVIENNOT_7742 ", other CCX of the "
						 "quadrant (the node in NPS4), socket 1: same CCD "
						 "114, "
						 "other CCD 113, weighted by partners 4/8"},
				[TS_REL_PACKAGE] = {134,
						    "measured: " NVIENNOT_7742 ", other quadrant "
						    "of the socket, socket 1 median (110-140)"},
				[TS_REL_REMOTE] = {267,
						   "measured: " NVIENNOT_7742 ", other socket, "
						   "median (255-275)"},
			},
		.refill_line =
			{
				[TS_REL_LLC] = {10, "measured: AnandTech 14694, L3 about 10 ns"},
			},
		.remote_distance = {32, "measured: SLIT NPS4 10/12/32 (ARCHER2's published "
					"numactl -H output)"},
		.idle_exit = IDLE_EXIT_AMD,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{256,
			 "derived: Zen 2 L2 512 KiB per core (AMD EPYC 7742 spec) / 2 SMT threads"},
		.mem_local = {113, "measured: AnandTech 14694, DRAM full random 128 MB, NPS4"},
		.mem_per_distance = {4.09,
				     "estimate: no published remote figure found; +90 ns "
				     "at SLIT 32 as for NPS1, so the same-socket step (SLIT 12) "
				     "is +8 ns"},
	},
	{
		.name = "broadwell-2s",
		.c2c =
			{
				[TS_REL_SMT] = {8.3,
						"measured: " KCORES_BDW " (2x14C proxy for the "
						"E5-2698 v4), SMT sibling, median (8.0-8.9)"},
				[TS_REL_LLC] =
					{45.2,
					 "measured: " KCORES_BDW ", same socket, median "
					 "(39.4-50.4); the 20-core part may read slightly higher"},
				[TS_REL_REMOTE] = {127.5, "measured: " KCORES_BDW ", other socket, "
							  "median (121.5-133.4)"},
			},
		.refill_line =
			{
				[TS_REL_LLC] =
					{34.5, "measured: AnandTech 11544, E5-2699 v4 L3 27-42 ns, "
					       "midpoint (the inclusive L3 holds the footprint)"},
			},
		.remote_distance = {21, "measured: SLIT 10/21 as two-socket Intel firmware "
					"reports it (hwloc test topology 32intel64-2p8co2t+8ve, "
					"2x Xeon Silver 4108; other BIOSes say 20)"},
		.idle_exit = {2000, "declared: Linux drivers/idle/intel_idle.c bdw_cstates C1 "
				    "exit_latency 2 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{128,
			 "derived: Broadwell-EP L2 256 KiB per core (Intel Xeon E5 v4 datasheet; "
			 "WikiChip intel/microarchitectures/broadwell_(client)) / 2 SMT threads"},
		.mem_local = {95, "measured: AnandTech 11544, E5-2699 v4 DRAM local"},
		.mem_per_distance = {4.09, "estimate: no published remote figure found; "
					   "our estimate 135-145 ns: 140 at SLIT 21"},
	},
	{
		.name = "icelake-2s",
		.c2c =
			{
				[TS_REL_SMT] = SMT_INTEL_EST("the Ice Lake data set (8358)"),
				[TS_REL_LLC] = {51.1,
						"measured: " KCORES_ICX " (2x32C proxy for the "
						"8380), same socket, median (45.6-56.2)"},
				[TS_REL_REMOTE] = {110.9, "measured: " KCORES_ICX ", other socket, "
							  "median (105.3-117.2)"},
			},
		.remote_distance = {20, "estimate: the preset's SLIT 10/20 (10/20 or 10/21 by "
					"BIOS; the data set's SLIT is not stated)"},
		.idle_exit = {1000, "declared: Linux drivers/idle/intel_idle.c icx_cstates C1 "
				    "exit_latency 1 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {640, "derived: Sunny Cove server core L2 1.25 MiB per core "
					    "(Intel Xeon Scalable 3rd gen; WikiChip "
					    "intel/microarchitectures/sunny_cove) / 2 SMT threads"},
		.mem_local = MEM_CLX_LOCAL,
		.mem_per_distance = {2.3,
				     "estimate: proxy Cascade Lake 8269CY 2S, 70 local / "
				     "93 ns remote (plantegg lat_mem_rd), the step put on this "
				     "preset's SLIT 20"},
	},
	{
		.name = "spr-2s",
		.c2c =
			{
				[TS_REL_SMT] = SMT_INTEL_EST("the SPR data set (W9-3475X)"),
				[TS_REL_LLC] = {55.3,
						"measured: " KCORES_SPR " (one socket, 36C proxy "
						"for the 8480+), median over all pairs (46.4-64.1, "
						"same tile to cross tile)"},
				[TS_REL_REMOTE] =
					{125, "estimate: no dual-socket SPR data set; the "
					      "midpoint of our estimate 110-140 ns (measured Intel "
					      "2S: Ice Lake 110.9, Broadwell 127.5)"},
			},
		.remote_distance = {21, "measured: SLIT 10/21 (0-day LKP robot reports and HPC "
					"sites' published numactl -H outputs)"},
		.idle_exit = {1000, "declared: Linux drivers/idle/intel_idle.c spr_cstates C1 "
				    "exit_latency 1 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {1024,
				       "derived: Golden Cove server core L2 2 MiB per core (Intel "
				       "Xeon Scalable 4th gen; WikiChip "
				       "intel/microarchitectures/sapphire_rapids) / 2 SMT threads"},
		.mem_local = MEM_CLX_LOCAL,
		.mem_per_distance = {2.09, "estimate: proxy Cascade Lake 8269CY 2S, 70 local / "
					   "93 ns remote (plantegg lat_mem_rd), on SLIT 21"},
	},
	{
		.name = "spr-2s-snc4",
		.c2c =
			{
				[TS_REL_SMT] = SMT_INTEL_EST("the SPR data set (W9-3475X)"),
				[TS_REL_LLC] =
					{46.4,
					 "estimate: no per-tile figure; the p10 of " KCORES_SPR
					 ", the low end of the spread, which we put "
					 "down to same-tile pairs (an SNC4 node is one tile)"},
				[TS_REL_PACKAGE] = {55.3, "estimate: the median of " KCORES_SPR
							  ", most of "
							  "whose pairs are cross-tile"},
				[TS_REL_REMOTE] =
					{125, "estimate: no dual-socket SPR data set; the "
					      "midpoint of our estimate 110-140 ns (measured Intel "
					      "2S: Ice Lake 110.9, Broadwell 127.5)"},
			},
		.remote_distance = {21, "measured: SLIT 10/12/21 (published SNC4 numactl -H "
					"outputs)"},
		.idle_exit = {1000, "declared: Linux drivers/idle/intel_idle.c spr_cstates C1 "
				    "exit_latency 1 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {1024, "derived: Golden Cove server core L2 2 MiB per core "
					     "(Intel Xeon Scalable 4th gen) / 2 SMT threads"},
		.mem_local = MEM_CLX_LOCAL,
		.mem_per_distance = {2.09,
				     "estimate: proxy Cascade Lake 8269CY 2S, 70 local / "
				     "93 ns remote (plantegg lat_mem_rd), on SLIT 21; the SNC "
				     "step (SLIT 12) is then +4 ns"},
	},
	{
		.name = "jacobsville",
		.c2c =
			{
				[TS_REL_CLUSTER] =
					{25, "estimate: no published c2c data found; a cluster "
					     "shares one L2, so a line moves through that L2: the "
					     "low end of the other presets' measured cluster/CCX "
					     "figures 25-38 ns"},
				[TS_REL_LLC] = {50,
						"estimate: no published c2c data found; the middle "
						"of the other presets' measured monolithic-LLC "
						"figures 45.2-55.3 ns"},
			},
		.remote_distance = {20, "n/a: one node; Linux's REMOTE_DISTANCE"},
		.idle_exit = {2000, "declared: Linux drivers/idle/intel_idle.c snr_cstates "
				    "(Snow Ridge, the Atom P5900 SoC) C1 exit_latency 2 us"},
		.ctx_switch = {2500,
			       "estimate: no published figure found; Tremont cores at about 2.2 "
			       "GHz with lower IPC than the big cores' 1.5 us estimate"},
		.mem_local = {100, "estimate: no published figure found; DDR4 server DRAM as on "
				   "the other presets (95-122 ns)"},
		.numa_hint_fault = {1700, "estimate: the 1 us of the big cores' estimate "
					  "scaled as ctx_switch is (2.5 / 1.5) for the slower "
					  "Tremont cores"},
		.cache_capacity_kib =
			{1152,
			 "derived: Tremont L2 4.5 MiB shared by a 4-core module (Intel Atom P5900 "
			 "family; WikiChip intel/microarchitectures/tremont) / 4 cores, no SMT"},
		.mem_per_distance = {4.5, "n/a: one node; the generic model's value"},
	},
};

/* ---- the generic model ------------------------------------------------------------------ */

static const struct preset_costs generic_costs = {
	.name = "generic",
	.c2c =
		{
			[TS_REL_SMT] = {10, "estimate (generic): SMT siblings share L1/L2; the "
					    "presets' measured SMT figures are 8.0-12.0 ns"},
			[TS_REL_CLUSTER] = {32, "estimate (generic): the middle of the presets' "
						"measured cluster/CCX figures 25-38 ns"},
			[TS_REL_LLC] = {50, "estimate (generic): the middle of the presets' "
					    "measured monolithic-LLC figures 45.2-55.3 ns"},
			[TS_REL_NODE] = {110,
					 "estimate (generic): another LLC of the node goes over "
					 "the die's fabric: AMD other-CCX figures 113-216 ns (EPYC "
					 "7742, 7601), "
					 "the low end"},
			[TS_REL_PACKAGE] =
				{120, "estimate (generic): another node of the package: "
				      "55 (SPR SNC4) to 244 ns (EPYC 7601), about the presets' "
				      "median"},
			[TS_REL_REMOTE] = {140,
					   "estimate (generic): another package: 110-130 ns "
					   "(Intel, measured 110.9-127.5) to 267-367 (AMD); 140"},
		},
	.remote_distance = {20, "estimate (generic): the topology's smallest distance between "
				"nodes of different packages (20, Linux's REMOTE_DISTANCE, when it "
				"has one package)"},
	.idle_exit = {1000, "estimate (generic): Linux declares the shallow state's exit "
			    "latency 1-2 us on every machine here (intel_idle C1, arm64 WFI)"},
	.ctx_switch = CTX_SWITCH_EST,
	.mem_local = {100, "estimate (generic): the presets' local DRAM figures are 70-122 ns"},
	.mem_per_distance = {4.5, "estimate (generic): the presets' figures are 2.1-8.4 "
				  "ns per SLIT unit; 4.5 (SLIT 20 -> +45 ns, about 1.45x local)"},
	.numa_hint_fault = {1000, "estimate (generic): the presets' estimate for 2-3 GHz "
				  "server cores, 1 us"},
	.cache_capacity_kib =
		{512,
		 "estimate (generic): the presets' private cache per CPU is 128-1152 KiB; 512 KiB"},
};

/* ---- building a model ------------------------------------------------------------------- */

static void set_term(struct ts_cost_term *t, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_term(struct ts_cost_term *t, double v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	t->value = v;
	vsnprintf(t->source, sizeof(t->source), fmt, ap);
	va_end(ap);
}

static void set_fig(struct ts_cost_term *t, struct fig f)
{
	set_term(t, f.v, "%s", f.src);
}

/* The kind word a source starts with ("measured", "estimate" ...). */
static void source_kind(const char *src, char *out, size_t n)
{
	size_t k = strcspn(src, ": (");
	if (k >= n)
		k = n - 1;
	memcpy(out, src, k);
	out[k] = '\0';
}

/* Fills the n/a tiers (present[rel] false) of one family with the next outer present tier,
 * from REMOTE inwards; REMOTE itself is always filled by the caller. */
static void fill_na(struct ts_cost_term *tier, const bool *present, const char *family,
		    const char *machine)
{
	int from = TS_REL_REMOTE;
	for (int rel = TS_REL_REMOTE; rel >= TS_REL_SMT; rel--) {
		if (present[rel]) {
			from = rel;
			continue;
		}
		if (rel == TS_REL_REMOTE)
			continue;
		set_term(&tier[rel], tier[from].value,
			 "n/a: %s has no CPU pairs of this relation; = %s.%s so that the tiers "
			 "stay monotone",
			 machine, family, ts_cpu_relation_name((enum ts_cpu_relation)from));
	}
}

/* Derived wake-up values are kept to 0.01 ns, the precision docs/model.md prints them at. */
static double cents(double v)
{
	return round(v * 100) / 100;
}

static const struct preset_costs *find_preset_costs(const char *name);

/* The leaving task's part of a switch on Kunpeng 920 and the figures behind it: per
 * hand-off the one-CPU lat_pipe pair pays switch_out plus the eviction of its working set by
 * the other task's run, the two-CPU pair idle_exit + c2c.cluster + handoff.cluster, and the
 * 6-cluster machine's one-CPU pair is (11,880 - 10,180) / 2 ns dearer. */
struct kp_switch_out {
	double value, idle_exit, c2c, handoff, evict, ctx_switch;
};

static struct kp_switch_out kunpeng_switch_out(const struct preset_costs *kp)
{
	struct kp_switch_out k = {
		.idle_exit = kp->idle_exit.v,
		.c2c = kp->c2c[TS_REL_CLUSTER].v,
		.handoff = cents(HANDOFF_LINES * KP_LOCK_CLUSTER_NS),
		.ctx_switch = kp->ctx_switch.v,
	};
	/* refill.llc (the rule of build()) and ts_cost_evicted_kib() on kunpeng920's figures */
	double refill_llc = LINES_PER_KIB * kp->c2c[TS_REL_LLC].v / MISSES_IN_FLIGHT;
	k.evict = CACHE_RUN_KIB * -expm1(-CACHE_RUN_KIB / kp->cache_capacity_kib.v) * refill_llc;
	k.value = cents((KP6_PIPE_SAME_CPU_NS - KP6_PIPE_SAME_CLUSTER_NS) / 2.0 + k.idle_exit +
			k.c2c + k.handoff - k.evict);
	return k;
}

/* handoff.*, wake_enqueue.* and switch_out, from the c2c tiers and the Kunpeng 920 pinned
 * pipe pairs (the rules at the top of this file; docs/model.md writes them out). */
static void build_wakeup(const struct preset_costs *pc, struct ts_cost_model *m)
{
	bool present[TS_REL_NR] = {true};
	for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++)
		present[rel] = pc->c2c[rel].src != NULL;
	present[TS_REL_REMOTE] = true; /* derived from c2c.remote even when n/a */
	const double lines = HANDOFF_LINES;
	set_term(&m->handoff[TS_REL_SAME_CPU], 0,
		 "definition: waker and wakee on one CPU: the state stays in its caches");
	set_term(&m->wake_enqueue[TS_REL_SAME_CPU], 0,
		 "definition: enqueueing on the waker's own run queue is part of the syscall's "
		 "own cost (the workload's RUN phases)");
	if (pc->kunpeng_lat_pipe) {
		const double cl = lines * KP_LOCK_CLUSTER_NS;
		const double c2c_cl = m->c2c[TS_REL_CLUSTER].value;
		set_term(&m->handoff[TS_REL_CLUSTER], cents(cl),
			 "derived: %.2f lines x %.1f ns, a contended line handed over inside a "
			 "cluster (4 threads on CPUs 0-3, 7.83 s per 1e8 spinlock pairs); the "
			 "lines: (7,406 - 5,797) / 2 ns more per lat_pipe hand-off across clusters "
			 "/ (175.2 - 78.3) ns more per contended line (openeuler-mirror/"
			 "wayca-scheduler tools/kp920.2P.8CCL.type2/"
			 "log.pipe.lock.0420.8ccl.filtered.txt)",
			 lines, KP_LOCK_CLUSTER_NS);
		double llc = cl + (KP_PIPE_OTHER_CLUSTER_NS - KP_PIPE_SAME_CLUSTER_NS) / 2.0 -
			     (m->c2c[TS_REL_LLC].value - c2c_cl);
		set_term(&m->handoff[TS_REL_LLC], cents(llc),
			 "derived: handoff.cluster + (7,406 - 5,797) / 2 ns (lmbench lat_pipe, CPU "
			 "1 <-> 4..28 vs 1 <-> 0, same wayca-scheduler log) - (c2c.llc - "
			 "c2c.cluster), which the wake-up signal already pays: %.1f + 804.5 - %.1f",
			 cl, m->c2c[TS_REL_LLC].value - c2c_cl);
		double pkg = cl + (KP_PIPE_OTHER_DIE_NS - KP_PIPE_SAME_CLUSTER_NS) / 2.0 -
			     (m->c2c[TS_REL_PACKAGE].value - c2c_cl);
		set_term(&m->handoff[TS_REL_PACKAGE], cents(pkg),
			 "derived: handoff.cluster + (12,870 - 5,797) / 2 ns (lat_pipe CPU 1 <-> "
			 "32, the other die, same wayca-scheduler log) - (c2c.package - "
			 "c2c.cluster): %.1f + 3,536.5 - %.1f",
			 cl, m->c2c[TS_REL_PACKAGE].value - c2c_cl);
		char kind[32];
		source_kind(m->c2c[TS_REL_REMOTE].source, kind, sizeof(kind));
		set_term(&m->handoff[TS_REL_REMOTE],
			 cents(pkg * m->c2c[TS_REL_REMOTE].value / m->c2c[TS_REL_PACKAGE].value),
			 "%s: no cross-socket pipe figure; handoff.package x c2c.remote / "
			 "c2c.package (%.1f x %g / %g; c2c.remote is an %s)",
			 strcmp(kind, "measured") == 0 ? "derived" : "estimate", pkg,
			 m->c2c[TS_REL_REMOTE].value, m->c2c[TS_REL_PACKAGE].value, kind);
		present[TS_REL_SMT] = present[TS_REL_NODE] = false;
	} else {
		for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++) {
			if (!present[rel])
				continue;
			char kind[32];
			source_kind(m->c2c[rel].source, kind, sizeof(kind));
			set_term(&m->handoff[rel], cents(lines * m->c2c[rel].value),
				 "%s: %.2f lines (derived from the Kunpeng 920 lat_pipe pairs, see "
				 "handoff.llc of kunpeng920) x c2c.%s (%g ns, %s)",
				 strcmp(kind, "measured") == 0 || strcmp(kind, "derived") == 0
					 ? "derived"
					 : "estimate",
				 lines, ts_cpu_relation_name((enum ts_cpu_relation)rel),
				 m->c2c[rel].value, kind);
		}
	}
	fill_na(m->handoff, present, "handoff", pc->name);
	for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++)
		set_term(&m->wake_enqueue[rel],
			 cents(m->handoff[rel].value * WAKE_RQ_LINES / lines),
			 "derived: the %g run-queue lines of the hand-off's %.2f (rq->lock, the "
			 "cfs_rq, rq->curr for check_preempt), moved by the waker: handoff.%s x "
			 "%g / %.2f",
			 WAKE_RQ_LINES, lines, ts_cpu_relation_name((enum ts_cpu_relation)rel),
			 WAKE_RQ_LINES, lines);

	/* load balancing: update_sg_lb_stats() reads two lines per CPU (the rq: nr_running,
	 * curr, idle state; the cfs_rq's PELT averages: load, util, runnable), each as a scan
	 * probe reads one; detach_task() + attach_task() take the source and the local rq
	 * lock and dequeue/enqueue: twice the waker's remote enqueue. */
	for (int rel = TS_REL_SAME_CPU; rel < TS_REL_NR; rel++) {
		const char *rn = ts_cpu_relation_name((enum ts_cpu_relation)rel);
		set_term(&m->balance_per_cpu[rel], 2 * m->scan_per_cpu[rel].value,
			 "derived: update_sg_lb_stats() reads 2 lines of each CPU (rq; cfs_rq "
			 "PELT averages), each priced as an idle-scan probe: 2 x scan_per_cpu.%s",
			 rn);
		if (rel == TS_REL_SAME_CPU)
			set_term(&m->balance_per_task[rel], 0,
				 "definition: no task moves from a CPU to itself");
		else
			set_term(&m->balance_per_task[rel], 2 * m->wake_enqueue[rel].value,
				 "derived: detach_task() on the source rq and attach_task() on the "
				 "local one, each an enqueue's rq lines: 2 x wake_enqueue.%s",
				 rn);
	}

	/* switch_out: Kunpeng's from its pinned pairs; other machines the same kernel work
	 * (dequeue, put_prev, pick), scaled as ctx_switch is. */
	struct kp_switch_out k = kunpeng_switch_out(find_preset_costs("kunpeng920"));
	if (pc->kunpeng_lat_pipe)
		set_term(&m->switch_out, k.value,
			 "derived: lat_pipe on a 6-cluster Kunpeng 920 (openeuler-mirror/"
			 "wayca-scheduler tools/kp920.2P.6CCL/log.pipe-latency.0404.filtered.txt), "
			 "one CPU 11.88 vs one cluster 10.18 us per round trip: per hand-off the "
			 "one-CPU pair pays switch_out and its working set's eviction by the other "
			 "run, the two-CPU pair idle_exit + c2c.cluster + handoff.cluster: "
			 "switch_out = 850 + %g + %g + %.2f - %.2f (cache.run_kib x (1 - "
			 "exp(-cache.run_kib / cache.capacity_kib)) x refill.llc)",
			 k.idle_exit, k.c2c, k.handoff, k.evict);
	else
		set_term(&m->switch_out, cents(k.value * m->ctx_switch.value / k.ctx_switch),
			 "derived: kunpeng920's switch_out (%.2f ns, from the 6-cluster lat_pipe "
			 "pairs) x ctx_switch / kunpeng920's ctx_switch (%g / %g): the same "
			 "kernel work (dequeue, put_prev, pick)",
			 k.value, m->ctx_switch.value, k.ctx_switch);
}

static void build(const struct preset_costs *pc, bool generic, int generic_remote_distance,
		  struct ts_cost_model *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->machine, sizeof(m->machine), "%s", pc->name);
	m->generic = generic;
	bool present[TS_REL_NR] = {true};
	for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++)
		present[rel] = pc->c2c[rel].src != NULL;

	/* c2c */
	set_term(&m->c2c[TS_REL_SAME_CPU], 0, "definition: no transfer to the same CPU");
	for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++)
		if (present[rel])
			set_fig(&m->c2c[rel], pc->c2c[rel]);
	if (!present[TS_REL_REMOTE])
		set_term(&m->c2c[TS_REL_REMOTE], generic_costs.c2c[TS_REL_REMOTE].v,
			 "n/a: %s has one package; the generic model's value (%s)", pc->name,
			 generic_costs.c2c[TS_REL_REMOTE].src);
	fill_na(m->c2c, present, "c2c", pc->name);

	/* bulk_per_kib, refill, scan_per_cpu: from the c2c tiers (or the line figures given
	 * for that kind of transfer) by the rules at the top of this file. */
	set_term(&m->bulk_per_kib[TS_REL_SAME_CPU], LINES_PER_KIB * 4.0 / MISSES_IN_FLIGHT,
		 "estimate: copying payload hot in the CPU's own caches: %g lines/KiB x ~4 ns "
		 "(an L2 hit, ~12 cycles at ~3 GHz) / %g misses in flight",
		 LINES_PER_KIB, MISSES_IN_FLIGHT);
	set_term(&m->refill[TS_REL_SAME_CPU], 0,
		 "definition: the footprint is warm on the CPU the task ran on");
	set_term(&m->scan_per_cpu[TS_REL_SAME_CPU], 2,
		 "estimate: probing the waker's own run queue, whose lines are L1-hot: a few "
		 "instructions, ~2 ns");
	bool derived_present[TS_REL_NR];
	memcpy(derived_present, present, sizeof(derived_present));
	derived_present[TS_REL_REMOTE] = true; /* derived from c2c.remote even when n/a */
	for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++) {
		if (!derived_present[rel])
			continue;
		const char *na =
			present[rel] ? "" : "n/a: one package; derived from c2c.remote anyway: ";
		char kind[32];
		source_kind(m->c2c[rel].source, kind, sizeof(kind));
		const struct fig *bl = &pc->bulk_line[rel], *rl = &pc->refill_line[rel];
		double line = bl->src ? bl->v : m->c2c[rel].value;
		if (bl->src)
			set_term(&m->bulk_per_kib[rel], LINES_PER_KIB * line / MISSES_IN_FLIGHT,
				 "%sestimate: %g lines/KiB x %g ns / %g misses in flight; the line "
				 "latency: %s",
				 na, LINES_PER_KIB, line, MISSES_IN_FLIGHT, bl->src);
		else
			set_term(&m->bulk_per_kib[rel], LINES_PER_KIB * line / MISSES_IN_FLIGHT,
				 "%sestimate: %g lines/KiB x c2c.%s (%g ns, %s) / %g misses in "
				 "flight",
				 na, LINES_PER_KIB, ts_cpu_relation_name((enum ts_cpu_relation)rel),
				 line, kind, MISSES_IN_FLIGHT);
		line = rl->src ? rl->v : m->c2c[rel].value;
		if (rl->src)
			set_term(&m->refill[rel], LINES_PER_KIB * line / MISSES_IN_FLIGHT,
				 "%sestimate: %g lines/KiB x %g ns / %g misses in flight; the line "
				 "latency: %s",
				 na, LINES_PER_KIB, line, MISSES_IN_FLIGHT, rl->src);
		else
			set_term(
				&m->refill[rel], LINES_PER_KIB * line / MISSES_IN_FLIGHT,
				"%sestimate: %g lines/KiB x c2c.%s (%g ns, %s) / %g misses in "
				"flight; the footprint is refetched from the previous CPU's caches",
				na, LINES_PER_KIB, ts_cpu_relation_name((enum ts_cpu_relation)rel),
				line, kind, MISSES_IN_FLIGHT);
		set_term(&m->scan_per_cpu[rel], SCAN_LINES_PER_CPU * m->c2c[rel].value,
			 "%sestimate: one struct rq line fetched from the examined CPU per probe "
			 "= c2c.%s (%g ns, %s)",
			 na, ts_cpu_relation_name((enum ts_cpu_relation)rel), m->c2c[rel].value,
			 kind);
	}
	fill_na(m->bulk_per_kib, derived_present, "bulk_per_kib", pc->name);
	fill_na(m->refill, derived_present, "refill", pc->name);
	fill_na(m->scan_per_cpu, derived_present, "scan_per_cpu", pc->name);

	set_fig(&m->remote_distance, pc->remote_distance);
	if (generic)
		m->remote_distance.value = generic_remote_distance;
	set_fig(&m->idle_exit, pc->idle_exit);
	set_fig(&m->ctx_switch, pc->ctx_switch);
	set_fig(&m->mem_local, pc->mem_local);
	set_fig(&m->mem_per_distance, pc->mem_per_distance);

	/* NUMA balancing. */
	set_fig(&m->numa_hint_fault, pc->numa_hint_fault);
	double far = ts_cost_mem(m, (int)m->remote_distance.value);
	set_term(&m->numa_migrate_per_kib,
		 LINES_PER_KIB * (far + m->mem_local.value) / MISSES_IN_FLIGHT,
		 "derived: migrate_misplaced_folio() copies the page on the faulting CPU, "
		 "reading each line from the old node at mem(remote_distance) = %g ns and "
		 "writing it locally at mem.local = %g ns: %g lines/KiB x (%g + %g) / %g "
		 "misses in flight (Kunpeng 920 cross-check: single-thread STREAM copy remote "
		 "4.1 GB/s on the plantegg blog, moves 1 KiB in ~500 ns)",
		 far, m->mem_local.value, LINES_PER_KIB, far, m->mem_local.value, MISSES_IN_FLIGHT);
	set_term(&m->numa_stop_latency, 2 * m->ctx_switch.value,
		 "derived: migrate_task_to()/migrate_swap() run the move on the CPU's stopper "
		 "thread (stop_one_cpu / stop_two_cpus, kernel/stop_machine.c): it is woken, "
		 "preempts the task (a context switch), moves it, and the CPU switches back "
		 "(a second): 2 x ctx_switch (%g ns, itself an estimate)",
		 m->ctx_switch.value);
	set_fig(&m->cache_capacity_kib, pc->cache_capacity_kib);
	set_term(&m->cache_run_kib, CACHE_RUN_KIB,
		 "calibrated: the one free value of the cache-capacity mechanism, set once on "
		 "tbench, kunpeng920 node 0, 64 clients, baseline 7,408.94 MB/s (cluster-scan "
		 "patch v10 mail, Yicong Yang, Oct 2023); the same on every preset");
	build_wakeup(pc, m);

	set_term(&m->numa_scan_per_pmd, m->mem_local.value,
		 "estimate: change_huge_pmd() rewrites one PMD entry per 2 MiB THP made "
		 "PROT_NONE; the page-table line is taken as cache-cold, one DRAM load at "
		 "mem.local (%g ns); the TLB flush after change_prot_numa() is not charged",
		 m->mem_local.value);

	/* A benchmark's start-up (the same on every machine: no per-machine figure). */
	set_term(&m->fork, FORK_NS,
		 "estimate: kernel_clone() -> copy_process() in the parent duplicates the "
		 "task, its files and signal state and copies the page tables of a small "
		 "process's few MiB of mappings (dup_mmap), then wake_up_new_task(); tens of "
		 "microseconds on servers of the 2010s: 40 us");
	set_term(&m->accept, ACCEPT_NS,
		 "estimate: inet_csk_accept() takes the established child socket off the "
		 "listener's queue and sock_alloc_file()/fd_install() give it a file: one "
		 "syscall of the weight of a loopback send (TCP_SEND_NS, src/sim/workloads.c): "
		 "3 us");
}

/* The smallest distance between nodes of different packages (20 with one package). */
static int nearest_remote_distance(const struct ts_topology *t)
{
	int best = 0;
	for (int a = 0; a < t->nr_cpus; a++)
		for (int b = a + 1; b < t->nr_cpus; b++) {
			if (t->cpu[a].package == t->cpu[b].package)
				continue;
			int d = ts_topo_distance(t, t->cpu[a].node, t->cpu[b].node);
			if (d > TS_LOCAL_DISTANCE && (best == 0 || d < best))
				best = d;
		}
	return best ? best : TS_REMOTE_DISTANCE;
}

static const struct preset_costs *find_preset_costs(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(preset_costs) / sizeof(preset_costs[0]); i++)
		if (strcmp(preset_costs[i].name, name) == 0)
			return &preset_costs[i];
	return NULL;
}

int ts_cost_model_for(const struct ts_topology *t, const char *preset_name,
		      struct ts_cost_model *out, struct ts_error *err)
{
	if (!out)
		return ts_error_set(err, -EINVAL, "cost model: no output model");
	const struct ts_preset *p = ts_preset_find(preset_name);
	if (p) {
		const struct preset_costs *pc = find_preset_costs(p->name);
		if (!pc)
			return ts_error_set(err, -ENOENT,
					    "cost model: preset '%s' has no cost "
					    "figures",
					    p->name);
		if (t) {
			struct ts_topology *ref = p->build(err);
			if (!ref)
				return err ? err->code : -EINVAL;
			bool same = ref->nr_cpus == t->nr_cpus && ref->nr_nodes == t->nr_nodes &&
				    ref->nr_packages == t->nr_packages;
			int rc =
				same ? 0
				     : ts_error_set(
					       err, -EINVAL,
					       "cost model '%s': the topology '%s' has %d CPUs, %d "
					       "nodes, %d packages; the preset has %d, %d, %d",
					       p->name, t->name, t->nr_cpus, t->nr_nodes,
					       t->nr_packages, ref->nr_cpus, ref->nr_nodes,
					       ref->nr_packages);
			ts_topology_free(ref);
			if (rc)
				return rc;
		}
		build(pc, false, 0, out);
		return 0;
	}
	if (!t)
		return ts_error_set(err, -EINVAL,
				    "cost model for '%s': not a preset, and no topology to derive "
				    "the generic model from",
				    preset_name ? preset_name : "(none)");
	build(&generic_costs, true, nearest_remote_distance(t), out);
	return 0;
}

/* ---- overrides -------------------------------------------------------------------------- */

int ts_cost_model_set(struct ts_cost_model *m, const char *input, struct ts_error *err)
{
	if (!m || !input)
		return ts_error_set(err, -EINVAL, "cost override: no input");
	const char *eq = strchr(input, '=');
	if (!eq)
		return ts_error_set(err, -EINVAL,
				    "cost override '%.200s': missing '=' (expected NAME=VALUE, "
				    "e.g. c2c.llc=45)",
				    input);
	if (eq == input)
		return ts_error_set(err, -EINVAL, "cost override '%.200s': empty name before '='",
				    input);
	const struct term_desc *d = find_term(input, (size_t)(eq - input));
	if (!d)
		return ts_error_set(err, -EINVAL,
				    "cost override '%.200s': unknown term '%.*s' ('toposched "
				    "machines --costs MACHINE' lists them)",
				    input, (int)(eq - input > 100 ? 100 : eq - input), input);
	const char *text = eq + 1;
	if (!*text)
		return ts_error_set(err, -EINVAL, "cost override '%.200s': missing value after '='",
				    input);
	if (!(isdigit((unsigned char)text[0]) || text[0] == '.' || text[0] == '-' ||
	      text[0] == '+'))
		return ts_error_set(err, -EINVAL,
				    "cost override '%.200s': '%.100s' is not a number", input,
				    text);
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text)
		return ts_error_set(err, -EINVAL,
				    "cost override '%.200s': '%.100s' is not a number", input,
				    text);
	for (const char *c = text; c < end; c++)
		if (!(isdigit((unsigned char)*c) || strchr(".eE+-", *c)))
			return ts_error_set(err, -EINVAL,
					    "cost override '%.200s': '%.100s' is not a decimal "
					    "number",
					    input, text);
	if (*end)
		return ts_error_set(err, -EINVAL,
				    "cost override '%.200s': trailing characters '%.100s' after "
				    "the number (values are plain numbers in %s)",
				    input, end, d->info.unit);
	if (!isfinite(v) || errno == ERANGE)
		return ts_error_set(err, -ERANGE, "cost override '%.200s': not a finite number",
				    input);
	if (v < 0)
		return ts_error_set(err, -EINVAL,
				    "cost override '%.200s': negative value (costs are >= 0)",
				    input);
	if (d->min_excl >= 0 && !(v > d->min_excl))
		return ts_error_set(err, -ERANGE, "cost override '%.200s': %s must be more than %g",
				    input, d->info.name, d->min_excl);
	if (v > d->max)
		return ts_error_set(err, -ERANGE, "cost override '%.200s': %s must be at most %g",
				    input, d->info.name, d->max);
	struct ts_cost_term *term = (struct ts_cost_term *)((char *)m + d->offset);
	set_term(term, v == 0 ? 0.0 : v, "override: --cost %.300s", input);
	return 0;
}

/* ---- getters ---------------------------------------------------------------------------- */

static double tier(const struct ts_cost_model *m, const struct ts_cost_term *tiers,
		   enum ts_cpu_relation rel, int distance)
{
	if (rel < 0 || rel >= TS_REL_NR)
		return -1;
	if (rel != TS_REL_REMOTE || distance <= 0 || m->remote_distance.value <= 0)
		return tiers[rel].value;
	double v = tiers[TS_REL_REMOTE].value * distance / m->remote_distance.value;
	return v > tiers[TS_REL_PACKAGE].value ? v : tiers[TS_REL_PACKAGE].value;
}

/* The tier getters of cost_model.h, one per family. */
#define TIER_GETTER(fn, family)                                                                    \
	double fn(const struct ts_cost_model *m, enum ts_cpu_relation rel, int distance)           \
	{                                                                                          \
		return tier(m, m->family, rel, distance);                                          \
	}
TIER_GETTER(ts_cost_c2c, c2c)
TIER_GETTER(ts_cost_bulk_per_kib, bulk_per_kib)
TIER_GETTER(ts_cost_refill_per_kib, refill)
TIER_GETTER(ts_cost_scan_per_cpu, scan_per_cpu)
TIER_GETTER(ts_cost_handoff, handoff)
TIER_GETTER(ts_cost_wake_enqueue, wake_enqueue)
TIER_GETTER(ts_cost_balance_per_cpu, balance_per_cpu)
TIER_GETTER(ts_cost_balance_per_task, balance_per_task)

double ts_cost_evicted_kib(const struct ts_cost_model *m, double intervening_kib)
{
	double cap = m->cache_capacity_kib.value;
	if (intervening_kib <= 0 || cap <= 0)
		return 0;
	return m->cache_run_kib.value * -expm1(-intervening_kib / cap);
}

double ts_cost_mem(const struct ts_cost_model *m, int distance)
{
	if (distance < TS_LOCAL_DISTANCE)
		distance = TS_LOCAL_DISTANCE;
	return m->mem_local.value + m->mem_per_distance.value * (distance - TS_LOCAL_DISTANCE);
}

double ts_cost_migrate_per_kib(const struct ts_cost_model *m, int distance)
{
	double ref = ts_cost_mem(m, (int)m->remote_distance.value) + m->mem_local.value;
	double here = ts_cost_mem(m, distance) + m->mem_local.value;
	return ref > 0 ? m->numa_migrate_per_kib.value * here / ref : m->numa_migrate_per_kib.value;
}

static bool valid_cpu(const struct ts_topology *t, int cpu)
{
	return t && cpu >= 0 && cpu < t->nr_cpus;
}

static double between(const struct ts_cost_model *m, const struct ts_cost_term *tiers,
		      const struct ts_topology *t, int a, int b)
{
	if (!valid_cpu(t, a) || !valid_cpu(t, b))
		return -1;
	return tier(m, tiers, ts_topology_relation(t, a, b),
		    ts_topo_distance(t, t->cpu[a].node, t->cpu[b].node));
}

/* The pairwise getters of cost_model.h: the tier of the two CPUs' relation and distance. */
#define BETWEEN_GETTER(fn, family)                                                                 \
	double fn(const struct ts_cost_model *m, const struct ts_topology *t, int a, int b)        \
	{                                                                                          \
		return between(m, m->family, t, a, b);                                             \
	}
BETWEEN_GETTER(ts_cost_between, c2c)
BETWEEN_GETTER(ts_cost_bulk_between, bulk_per_kib)
BETWEEN_GETTER(ts_cost_refill_between, refill)
BETWEEN_GETTER(ts_cost_scan_between, scan_per_cpu)
BETWEEN_GETTER(ts_cost_handoff_between, handoff)
BETWEEN_GETTER(ts_cost_wake_enqueue_between, wake_enqueue)
BETWEEN_GETTER(ts_cost_balance_cpu_between, balance_per_cpu)
BETWEEN_GETTER(ts_cost_balance_task_between, balance_per_task)

double ts_cost_mem_between(const struct ts_cost_model *m, const struct ts_topology *t, int cpu,
			   int node)
{
	if (!valid_cpu(t, cpu) || node < 0 || node >= t->nr_nodes)
		return -1;
	return ts_cost_mem(m, ts_topo_distance(t, t->cpu[cpu].node, node));
}
