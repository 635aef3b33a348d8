/* The machine cost model (include/toposched/cost_model.h; docs/model.md explains every
 * term, rule and value). Per preset a table holds the published figures we use, each
 * naming its public source (data set, article, kernel file or commit), and labelled
 * estimates where no figure is published; the bulk, refill and scan tiers are derived
 * from those figures by the rules below. Nothing here is fitted to a benchmark result. */
#include "toposched/cost_model.h"

#include "cost_presets.h"
#include "syscall_costs.h"

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
#define CACHE_RUN_KIB 142.0
/* Background activity, from the osnoise tracer's published traces (x86; no figure is
 * published for the presets' machines). The tick's interrupt on a busy CPU: irq_noise of
 * local_timer:236, 1845 and 2848 ns (Documentation/trace/osnoise-tracer.rst), their mean.
 * On an idle CPU: 4890 ns, and the SCHED softirq after it 992 ns (the OSNOISE_WORKLOAD
 * option's mail, Nov 2022). Softirqs per second per CPU: the SIRQ counters of the
 * documentation's 8 CPUs, (18 + 16 + 25 + 23 + 49 + 26 + 18 + 39) / 8. */
#define OSN_TICK_BUSY_NS  ((1845.0 + 2848.0) / 2)
#define OSN_TICK_IDLE_NS  4890.0
#define OSN_SOFTIRQ_NS	  992.0
#define OSN_SOFTIRQ_PER_S ((18.0 + 16 + 25 + 23 + 49 + 26 + 18 + 39) / 8)
/* A per-CPU kernel thread's run: thread_noise of migration/5, 7154 ns (the same mail). */
#define OSN_KTHREAD_NS 7154.0
/* mm/vmstat.c: sysctl_stat_interval = HZ, one second. */
#define VMSTAT_INTERVAL_NS 1e9
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
	     "the private cache per core (its SMT threads share it) that keeps a task's "
	     "working set between its runs",
	     0, COST_MAX),
	TERM("cache.run_kib", cache_run_kib, "KiB",
	     "the cache working set of one run of a task, evicted by other tasks' runs", -1,
	     COST_MAX),
	TERM("fork", fork, "ns", "fork() in the parent, up to the child's first wake-up", -1,
	     COST_MAX),
	TERM("accept", accept, "ns", "accept() of one loopback TCP connection", -1, COST_MAX),
	TERM("noise.tick_busy", noise_tick_busy, "ns",
	     "the scheduler tick's interrupt on a busy CPU (time its task loses)", -1, COST_MAX),
	TERM("noise.tick_idle", noise_tick_idle, "ns",
	     "the tick's interrupt on an idle CPU that keeps its tick (NO_HZ: idle < a tick)", -1,
	     COST_MAX),
	TERM("noise.softirq", noise_softirq, "ns",
	     "one softirq run at an interrupt's exit (TIMER, RCU, SCHED)", -1, COST_MAX),
	TERM("noise.softirq_per_s", noise_softirq_per_s, "1/s",
	     "softirqs per second per CPU (each follows a tick, at random ticks)", -1, COST_MAX),
	TERM("noise.vmstat", noise_vmstat, "ns",
	     "the per-CPU kworker's vmstat_update() run (a task on its CPU)", -1, COST_MAX),
	TERM("noise.vmstat_interval", noise_vmstat_interval, "ns",
	     "its interval, sysctl vm.stat_interval (round_jiffies()-aligned)", -1, COST_MAX),
	TERM("smt.pair_yield", smt_pair_yield, "x",
	     "throughput of a core with two busy SMT siblings vs one thread alone (2 = no "
	     "sharing); each busy sibling runs at this / 2",
	     0, 2),
	TERM("freq.max_mhz", freq_max_mhz, "MHz",
	     "the core clock with one active core in the package (CPU work runs at freq / this)", 0,
	     1e5),
	TERM("freq.all_core_mhz", freq_all_core_mhz, "MHz",
	     "the core clock with every core of the package active", 0, 1e5),
	TERM("freq.step_mhz", freq_step_mhz, "MHz",
	     "the clock's drop per extra active core of the package, down to freq.all_core_mhz "
	     "(0 = a fixed clock)",
	     -1, 1e5),
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

/* What a least-recently-used cache of cap KiB has lost of a run's working set of run KiB
 * once intervening KiB of other data entered after it: the run's lines are the oldest, and
 * the cache keeps the newest cap KiB. (A random-replacement cache would lose
 * run x (1 - exp(-intervening / cap)), part of it at any load; docs/model.md, "Cache
 * capacity", says why the model takes LRU.) */
static double lru_evicted_kib(double run, double intervening, double cap)
{
	if (intervening <= 0 || cap <= 0)
		return 0;
	return fmin(run, fmax(0, run + intervening - cap));
}

/* The leaving task's part of a switch on Kunpeng 920 and the figures behind it: per
 * hand-off the one-CPU lat_pipe pair pays switch_out plus the eviction of its working set by
 * the other task's run, the two-CPU pair idle_exit + c2c.cluster + handoff.cluster, and the
 * 6-cluster machine's one-CPU pair is (11,880 - 10,180) / 2 ns dearer. */
struct kp_switch_out {
	double value, idle_exit, c2c, handoff, evict;
};

/* handoff.cluster of the Kunpeng presets: HANDOFF_LINES contended lines inside a cluster. */
static double kunpeng_handoff_cluster(void)
{
	return cents(HANDOFF_LINES * KP_LOCK_CLUSTER_NS);
}

static struct kp_switch_out kunpeng_switch_out(const struct preset_costs *kp)
{
	struct kp_switch_out k = {
		.idle_exit = kp->idle_exit.v,
		.c2c = kp->c2c[TS_REL_CLUSTER].v,
		.handoff = kunpeng_handoff_cluster(),
	};
	/* refill.llc (the rule of build()) and ts_cost_evicted_kib() on kunpeng920's figures:
	 * one other run entered since */
	double refill_llc = LINES_PER_KIB * kp->c2c[TS_REL_LLC].v / MISSES_IN_FLIGHT;
	k.evict = lru_evicted_kib(CACHE_RUN_KIB, CACHE_RUN_KIB, kp->cache_capacity_kib.v) *
		  refill_llc;
	k.value = cents((KP6_PIPE_SAME_CPU_NS - KP6_PIPE_SAME_CLUSTER_NS) / 2.0 + k.idle_exit +
			k.c2c + k.handoff - k.evict);
	return k;
}

/* ctx_switch (the switch-in after idle) of a machine with its own lat_pipe pair on two CPUs
 * of one cluster: each of the round trip's two hand-offs is the writer's write, the wake-up
 * signal, the reader's idle exit, its switch-in, its hand-off and its read
 * (2 x SYSCALL_PIPE_NS + c2c.cluster + idle_exit + ctx_switch + handoff.cluster, the pipe
 * workload's phases and engine_charge.c), so the switch-in is what the measured round trip
 * leaves of that: the one term without a figure of its own takes the rest. */
static double lat_pipe_ctx_switch(const struct preset_costs *pc)
{
	return cents(pc->pipe_same_cluster.v / 2.0 -
		     (2.0 * SYSCALL_PIPE_NS + pc->c2c[TS_REL_CLUSTER].v + pc->idle_exit.v +
		      kunpeng_handoff_cluster()));
}

/* ctx_switch: from the machine's own lat_pipe pair, else kunpeng920's scaled by the
 * preset's figure (CTX_SWITCH_EST_NS = the same). */
static void build_ctx_switch(const struct preset_costs *pc, struct ts_cost_model *m)
{
	if (pc->pipe_same_cluster.src) {
		set_term(&m->ctx_switch, lat_pipe_ctx_switch(pc),
			 "derived: half the measured round trip of %s less the rest of a "
			 "hand-off: %g / 2 - (2 x %d (SYSCALL_PIPE_NS, the write and the read) + "
			 "%g (c2c.cluster) + %g (idle_exit) + %.2f (handoff.cluster))",
			 pc->pipe_same_cluster.src, pc->pipe_same_cluster.v, SYSCALL_PIPE_NS,
			 pc->c2c[TS_REL_CLUSTER].v, pc->idle_exit.v, kunpeng_handoff_cluster());
		return;
	}
	double kp = lat_pipe_ctx_switch(ts_cost_find_preset("kunpeng920"));
	set_term(&m->ctx_switch, cents(kp * pc->ctx_switch.v / CTX_SWITCH_EST_NS),
		 "estimate: kunpeng920's ctx_switch (%.2f ns, derived from its lmbench lat_pipe "
		 "pair) x %g / %g: %s",
		 kp, pc->ctx_switch.v, CTX_SWITCH_EST_NS, pc->ctx_switch.src);
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
		const double cl = kunpeng_handoff_cluster();
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
	 * (dequeue, put_prev, pick), scaled as their ctx_switch is. */
	struct kp_switch_out k = kunpeng_switch_out(ts_cost_find_preset("kunpeng920"));
	if (pc->kunpeng_lat_pipe)
		set_term(&m->switch_out, k.value,
			 "derived: lat_pipe on a 6-cluster Kunpeng 920 (openeuler-mirror/"
			 "wayca-scheduler tools/kp920.2P.6CCL/log.pipe-latency.0404.filtered.txt), "
			 "one CPU 11.88 vs one cluster 10.18 us per round trip: per hand-off the "
			 "one-CPU pair pays switch_out and its working set's eviction by the other "
			 "run, the two-CPU pair idle_exit + c2c.cluster + handoff.cluster: "
			 "switch_out = 850 + %g + %g + %.2f - %.2f (what the other run evicts: "
			 "max(0, 2 x cache.run_kib - cache.capacity_kib) x refill.llc)",
			 k.idle_exit, k.c2c, k.handoff, k.evict);
	else
		set_term(&m->switch_out, cents(k.value * pc->ctx_switch.v / CTX_SWITCH_EST_NS),
			 "estimate: kunpeng920's switch_out (%.2f ns, derived from the 6-cluster "
			 "lat_pipe pairs) x %g / %g, as ctx_switch: the same kernel work (dequeue, "
			 "put_prev, pick)",
			 k.value, pc->ctx_switch.v, CTX_SWITCH_EST_NS);
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
		set_term(&m->c2c[TS_REL_REMOTE], ts_cost_generic_costs.c2c[TS_REL_REMOTE].v,
			 "n/a: %s has one package; the generic model's value (%s)", pc->name,
			 ts_cost_generic_costs.c2c[TS_REL_REMOTE].src);
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
	build_ctx_switch(pc, m);
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
	char ctx_kind[32];
	source_kind(m->ctx_switch.source, ctx_kind, sizeof(ctx_kind));
	set_term(&m->numa_stop_latency, 2 * m->ctx_switch.value,
		 "derived: migrate_task_to()/migrate_swap() run the move on the CPU's stopper "
		 "thread (stop_one_cpu / stop_two_cpus, kernel/stop_machine.c): it is woken, "
		 "preempts the task (a context switch), moves it, and the CPU switches back "
		 "(a second): 2 x ctx_switch (%g ns, %s)",
		 m->ctx_switch.value, ctx_kind);
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

	/* CPU speed: SMT sharing and the clock by active cores (cpu_speed.c). */
	if (pc->smt_pair_yield.src)
		set_fig(&m->smt_pair_yield, pc->smt_pair_yield);
	else
		set_term(&m->smt_pair_yield, 2,
			 "n/a: %s has no SMT siblings; 2 = every thread runs as on a core of its "
			 "own",
			 pc->name);
	set_fig(&m->freq_max_mhz, pc->freq_max_mhz);
	set_fig(&m->freq_all_core_mhz, pc->freq_all_core_mhz);
	set_fig(&m->freq_step_mhz, pc->freq_step_mhz);

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

	/* Background kernel activity: no per-machine figure is published; the same on
	 * every machine, from the osnoise tracer's published traces (x86). */
	set_term(&m->noise_tick_busy, OSN_TICK_BUSY_NS,
		 "measured: osnoise irq_noise of local_timer:236 on a CPU running the osnoise "
		 "thread, 1845 and 2848 ns: mean %g ns (Linux "
		 "Documentation/trace/osnoise-tracer.rst, 'Additional Tracing'; an x86 virtual "
		 "machine, not this machine)",
		 OSN_TICK_BUSY_NS);
	set_term(&m->noise_tick_idle, OSN_TICK_IDLE_NS,
		 "measured: osnoise irq_noise of local_timer:236 on an idle CPU (swapper/18), "
		 "4890 ns (Daniel Bristot de Oliveira, 'tracing/osnoise: Add OSNOISE_WORKLOAD "
		 "option', Message-ID "
		 "<f5cfbd37aefd419eefe9243b4d2fc38ed5753fe4.1668692096.git.bristot@kernel.org>, "
		 "Nov 2022; x86, not this machine)");
	set_term(&m->noise_softirq, OSN_SOFTIRQ_NS,
		 "measured: osnoise softirq_noise of the SCHED softirq after that tick, 992 ns "
		 "(the same mail; the one softirq duration it publishes)");
	set_term(&m->noise_softirq_per_s, OSN_SOFTIRQ_PER_S,
		 "measured: osnoise SIRQ interference counters of 8 CPUs over 1 s each, 18 16 25 "
		 "23 49 26 18 39: mean %g per second per CPU (Linux "
		 "Documentation/trace/osnoise-tracer.rst, 'Usage'; an x86 virtual machine at "
		 "HZ=1000)",
		 OSN_SOFTIRQ_PER_S);
	set_term(&m->noise_vmstat, OSN_KTHREAD_NS,
		 "estimate: no published duration of vmstat_update(); a per-CPU kernel thread's "
		 "run as osnoise's thread_noise measured it, migration/5 %g ns (the "
		 "OSNOISE_WORKLOAD mail above)",
		 OSN_KTHREAD_NS);
	set_term(&m->noise_vmstat_interval, VMSTAT_INTERVAL_NS,
		 "declared: mm/vmstat.c sysctl_stat_interval = HZ (vm.stat_interval 1 s), "
		 "re-armed with round_jiffies_relative()");
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

int ts_cost_model_for(const struct ts_topology *t, const char *preset_name,
		      struct ts_cost_model *out, struct ts_error *err)
{
	if (!out)
		return ts_error_set(err, -EINVAL, "cost model: no output model");
	const struct ts_preset *p = ts_preset_find(preset_name);
	if (p) {
		const struct preset_costs *pc = ts_cost_find_preset(p->name);
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
	build(&ts_cost_generic_costs, true, nearest_remote_distance(t), out);
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
	return lru_evicted_kib(m->cache_run_kib.value, intervening_kib,
			       m->cache_capacity_kib.value);
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
