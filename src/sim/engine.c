/* ts_sim_run(): one simulated run of a workload on a machine, hosting the real scheduling
 * core (struct ts_sched) — the simulator is the core's host (clock, resched_cpu, rq locks,
 * scan_time) and executes the workload's task programs on the CPUs the core chooses.
 *
 * Time and order. Virtual nanoseconds; one event queue (src/sim/event_queue.h) ordered by
 * (time, sequence); every random draw comes from one xoshiro256** stream seeded by
 * cfg->seed, drawn in event order; nothing depends on pointer values or the wall clock,
 * so a configuration and a seed give byte-identical results (wall_s aside). Virtual time
 * starts at T0 = one tick (PELT reads last_update_time 0 as "never updated").
 *
 * Events: TICK (per CPU, every 1/hz, all CPUs aligned as with the kernel's default
 * sched_skew_tick=0), START (a task's first wake-up, see Start below), DONE (the CPU's
 * current work segment ends; lazily cancelled by a per-CPU generation), RESCHED (a remote
 * resched request arrives), TIMER (a SLEEP ends), WINDOW (the measured window opens),
 * END, and NUMA_STOP (a NUMA migration's stop work, see Memory below).
 *
 * The host interface.
 *  - clock = virtual now.
 *  - rq locks: single-threaded, but checked: locked[cpu] is kept, and in debug builds a
 *    double lock, an unlock of a free lock, a lock held across ts_try_to_wake_up() or
 *    ts_balance_tick(), or a core call that needs the lock made without it aborts with
 *    "toposched sim: internal error: ...". ts_sched_tick, ts_schedule and
 *    ts_deactivate_curr run under their CPU's lock, which the engine takes right around
 *    each call; ts_try_to_wake_up, ts_wake_up_new_task and ts_balance_tick with no lock
 *    held (they lock what they need; checked), and no lock is held between events.
 *  - resched_cpu(cpu): for the CPU whose event is being handled, sets its need_resched,
 *    honoured at the end of the handler (schedule, switch, run); for another CPU, posts a
 *    RESCHED event at now + c2c(handling CPU -> cpu) (+ idle_exit when cpu is idle),
 *    at most one pending per CPU (later requests fold into it).
 *  - scan_time(cpu, n, t0): the core only passes the count, so the engine keeps the
 *    relation mix of the last placement that examined CPUs (ts_placement's
 *    scanned_by_relation) and returns n x the mean of ts_cost_scan_per_cpu() over that mix
 *    (before any scan: the LLC tier). This value feeds SIS_PROP's avg_scan_cost and the
 *    scan-time counters. The time charged to the waker is exact: the sum over the
 *    placement's examined CPUs of ts_cost_scan_per_cpu() by their relation to the waker.
 *
 * Ticks. Every CPU ticks at cfg->hz, busy or idle (no NOHZ: idle CPUs also tick, so
 * blocked-load decay and periodic balancing run everywhere, as with nohz=off). A tick
 * calls ts_sched_tick() under the lock and, when it returns true, ts_balance_tick()
 * without it; resched requests it makes are honoured at the end of the tick.
 *
 * Task programs (struct ts_task_class phases), executed while the task is the CPU's
 * current task:
 *  - RUN adds its drawn duration to the task's pending work. Pending work is executed as
 *    a segment (a DONE event at now + work); on switch-out the part not yet executed is
 *    kept, so RUN is preemptible. The next phase starts only when the work is done.
 *  - SEND deposits a message in the instance's channel. bytes == 0 draws the size from
 *    the workload's request_mix when the task is of the first class (the client: it sends
 *    requests), from reply_mix for every other class. A blocked receiver (the first in
 *    FIFO order) is woken with ts_try_to_wake_up(recv, sender_cpu, sender, TS_WF_SYNC if
 *    sync). When the channel would exceed its byte capacity (0 = unbounded; an empty
 *    channel accepts any message) the sender blocks on the channel's sender queue and
 *    retries the same SEND (same size) when woken.
 *  - RECV takes the oldest message (and wakes the first blocked sender, flags 0) or
 *    blocks (ts_deactivate_curr(SLEEPING) + ts_schedule) on the receiver queue, and
 *    retries when woken (a woken task may find the message taken by another receiver of
 *    the same channel and block again, like a pipe reader).
 *  - SLEEP blocks and arms a TIMER; its wake-up is ts_try_to_wake_up(task, the CPU it
 *    slept on, NULL, 0). A timer firing on an idle CPU is handled idle_exit later (the
 *    CPU leaves its idle state to take the interrupt; the event is re-posted once).
 *  - MARK counts one unit of the metric (in the measured window only).
 *  - TOUCH sweeps pages of a region (see Memory below).
 *  A class's prologue runs once before its first iteration (numa01's first bzero).
 *  After the last phase the iteration count advances; with a limit of N iterations the
 *  task exits after N (ts_deactivate_curr(TS_TASK_DEAD)), once its pending work is done.
 *  The limit is cfg->iterations when > 0, else the class's iterations, else (TIME_S
 *  workloads only) the workload's default_iterations; 0 = loops until the run ends.
 *
 * Physical costs (cfg->costs; NULL = ts_cost_model_for(topo, topo->name), which is the
 * preset's model for a preset and the generic one otherwise). Each is CPU work added to
 * the task's pending work, so it occupies the CPU and delays the task's next phase:
 *  - ctx_switch, when a CPU switches to a different task (idle counts as a task: idle ->
 *    T is a switch; T -> idle charges nobody);
 *  - refill = ts_cost_refill_between(CPU the task last ran on, this CPU) x footprint_kib,
 *    when it runs on a different CPU than last time (not on its first run);
 *  - on RECV: ts_cost_bulk_between(sender CPU, receiver CPU) x bytes / 1024 — also for a
 *    message sent on the same CPU, which pays the model's bulk_per_kib.same_cpu tier
 *    (copying a payload that is hot in the CPU's own caches);
 *  - the scan time of every wake-up the task issues (above); the scan time of a TIMER
 *    wake-up is charged to the task running on the timer's CPU (nobody when idle);
 *  - with task groups (cfg->groups), the stall of every access the core makes to a group's
 *    shared cache lines, priced by the line model (see host_tg_line_access below);
 *  - wake-up signalling: a task woken onto another CPU starts no earlier than that CPU
 *    handles the RESCHED event (c2c + idle_exit when it was idle), unless that CPU
 *    reschedules earlier for its own reasons (its task blocks): the core enqueued the
 *    task remotely at once, as try_to_wake_up() without TTWU_QUEUE does.
 *  Fractions of a nanosecond are carried per task, so sub-ns costs are not rounded away.
 *
 * Memory (workloads with regions; src/sim/numa_memory.h). Every instance is a process
 * with one address space (struct sim_mm, whose struct ts_numa_mm its tasks share) holding
 * the workload's regions in 2 MiB chunks. A TOUCH execution sweeps its pages in order and
 * is executed as segments: from the current page to the next chunk that must fault (not
 * placed yet, or marked by the scanner) or the end, at the cost of ns + accesses x
 * mem(CPU's node, chunk's node) per page (ts_cost_mem_between), analytically, one DONE
 * event per segment. A segment stopped early (preemption, a scan, the stop work) converts
 * its elapsed time into pages walked at the same costs and the rest is planned again on
 * whatever CPU the task runs next; no running segment ever covers a chunk that faults,
 * so a chunk moved by a fault is never inside one (checked in debug builds).
 *  - First touch places the chunk: by the region's policy (MPOL_INTERLEAVE over every
 *    node, MPOL_BIND|MPOL_F_NUMA_BALANCING on its node), else the task's --bind nodes
 *    (nearest to its CPU), else its CPU's node. TS_PREFAULT_PARENT places every chunk at
 *    the start. Placing costs nothing beyond the sweep (the kernel's clear_huge_page is
 *    not charged).
 *  - NUMA balancing runs when the feature NUMA is on and the machine has more than one
 *    node (the kernel enables it only then). task_tick_numa at every tick for the current
 *    task: once its runtime passes node_stamp + numa_scan_period (node_stamp 0: the period
 *    becomes task_scan_start), and the mm's numa_next_scan has come, task_numa_work runs
 *    at once (the return to user space): numa_next_scan moves a scan period on, node_stamp
 *    by 2 ticks, the window of 256 MB of present pages (8x that of address space) from the
 *    mm's scan offset is marked PROT_NONE (sim_mm_scan), a walk off the end bumps
 *    numa_scan_seq (ts_numa_scan_done), the task pays numa.scan_per_pmd per chunk marked
 *    (node_stamp += 32x that), and every running sweep of the mm re-plans. Regions without
 *    MPOL_F_MOF (interleaved, or a --bind task's) are passed over.
 *  - The next touch of a marked chunk is a hinting fault (do_huge_pmd_numa_page): the mark
 *    goes, TNF_FAULT_LOCAL when the chunk is on the CPU's node, mpol_misplaced() with
 *    should_numa_migrate_memory()'s two-stage filter (which records the accessor as the
 *    chunk's last_cpupid) decides a migration to the CPU's node (TNF_MIGRATED); the task
 *    pays numa.hint_fault plus the copy (512 pages x 4 KiB x ts_cost_migrate_per_kib) and
 *    ts_task_numa_fault(task, the previous last accessor, node, pages, flags) runs. A
 *    decided task migration (res.dst_cpu >= 0) costs the task numa.stop_latency and takes
 *    effect that much later (NUMA_STOP): both CPUs' segments stop, ts_numa_migrate_apply()
 *    and ts_numa_migrate_done() run, and both CPUs follow the core (a CPU whose task the
 *    stopper took schedules at once). Decisions made in between see the old state: the
 *    window NUMA_RESERVE closes. A NUMA arrival at a CPU (the decision's dst_cpu, the one
 *    the reservation covers) decided before that CPU's previous NUMA arrival completed
 *    counts as a double migration; one within TS_SIM_NUMA_CLOSE_NS of it as a close one.
 *  Counters (struct ts_sim_numa): the core's per-CPU NUMA statistics over the window, the
 *  engine's own (scans, PMDs marked, double/close migrations, system time charged), and at
 *  the end the tasks with a preferred node and those whose CPU is on it.
 *
 * Start: every task is initialised with ts_task_init(nice, cfg->pin, CPU 0) at T0 and
 * started with ts_wake_up_new_task() from CPU 0 (fork balancing places it) by its own
 * START event at T0 + j, the start jitter j drawn uniformly in [0, 1/hz) from the run's
 * stream, one draw per task in task order (instance by instance, class by class) before
 * any event runs; tasks drawing the same instant start in that order. Real benchmarks do
 * not start their threads in lock-step (fork/clone one after another, a thundering-herd
 * release, the first tick arriving at an arbitrary phase), and with fixed RUN times a
 * lock-step start would make every seed give the same run; the window is the first tick,
 * the core's own granularity, so every task has started before the first TICK (ticks at
 * T0 + k/hz, k >= 1). The jitter costs nothing: it only moves when each task first becomes
 * runnable. Measured window: [T0 + warmup, T0 + warmup + duration] for
 * open-ended workloads; for TIME_S workloads [T0, the moment the last task with an
 * iteration limit exits] (warm-up does not apply; tasks without a limit are ignored), cut
 * at a virtual-time cap (cfg->duration_ns when set, else TS_SIM_TIME_CAP_NS) or at
 * cfg->max_events, and then reported with finished = false.
 *
 * Result: counters are deltas of the core's per-CPU statistics between window start and
 * end. messages_sent/received/queued count the whole run (conservation: sent = received
 * + queued). Wake-up latency (wake-up to first run, for measure_wakeup classes, in the
 * window) comes from a log-linear histogram (src/sim/latency_hist.h: exact below 128 ns,
 * within 0.8 % above), nearest rank. cpu_util divides by the CPUs the tasks may use
 * (cfg->pin within the machine). MB/s uses 10^6 bytes (dbench's MB).
 *
 * Simplifications: no NOHZ; no interrupt or softirq time (a tick costs nothing, and an
 * idle CPU's tick pays no idle_exit, unlike its timers and RESCHED IPIs); a new
 * task's first run pays no refill (its footprint starts cold everywhere, not modelled);
 * RESCHED requests to a CPU that already has one pending fold into the earlier one even
 * when the later would arrive sooner; one message is copied in one piece whatever its
 * size (no partial pipe writes); the newly-idle and periodic balancing passes take no
 * virtual time (the core's own max_newidle_lb_cost therefore stays 0); memory latency
 * (mem_local / mem_per_distance) is charged only by TOUCH phases; the forking parent is
 * not modelled: START forks from CPU 0 whether or not anything runs there, so
 * with staggered starts fork balancing often finds CPU 0 (or its group) idle and keeps
 * quickly-blocking tasks there, where a real parent would be running on it; wake-up
 * scans spread them later (once SIS_UTIL has its first budget, see docs/model.md).
 * Memory: latency only, no bandwidth limit per node or link; no THP splitting, no node
 * runs full (no TNF_MIGRATE_FAIL); the scanner's per-VMA pids_active filter and the
 * threads' node_stamp stagger are left out; NUMA searches are atomic (concurrent
 * searches, and so the reservation's xchg conflicts, cannot happen); the stopper thread
 * is not a task (its time is charged to the task that decided).
 *
 * Invariants checked in debug builds: the lock contract above; a task is the current
 * task of at most one CPU and the engine's current task is the core's rq->curr; tasks the
 * engine holds runnable = the sum of nr_running (every tick of CPU 0 and at the end);
 * virtual time never goes backwards; every message sent is received or still queued; no
 * running sweep covers a chunk that faults. Page conservation (sim_mm_check) is checked
 * at the end of every run in every build (a violation fails the run). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "channel.h"
#include "event_queue.h"
#include "groups_run.h"
#include "latency_hist.h"
#include "numa_memory.h"
#include "rng.h"
#include "toposched/sched.h"
#include "toposched/sim.h"

/* Hard virtual-time cap for TIME_S runs without cfg->duration_ns: hackbench-like runs
 * finish in seconds on real machines; a run that needs a virtual minute is mis-sized or
 * stuck, and is reported as not finished rather than simulated for ever. */
#define TS_SIM_TIME_CAP_NS (60ULL * 1000000000ULL)
/* Safety bound on phases one task executes without using time (a program that never
 * blocks nor runs, e.g. one that only receives its own messages): an error, not a model
 * parameter. Legitimate bursts (a receiver draining a full channel) are far shorter. */
#define TS_SIM_MAX_INSTANT_PHASES (1 << 20)

enum ev_kind { EV_TICK, EV_START, EV_DONE, EV_RESCHED, EV_TIMER, EV_WINDOW, EV_END, EV_NUMA_STOP };

/* A TOUCH phase in progress: one execution's sweep, how far it got, and the running
 * segment when the CPU is executing it (from seg_from to seg_to at seg_node's latencies,
 * seg_cost ns of cost in `work` ns of time). */
struct sim_touch {
	struct sim_sweep sw;
	double pos;
	bool active, seg;
	double seg_from, seg_to, seg_cost;
	int seg_node;
};

/* A NUMA migration decided on a fault, waiting for its stop work. */
struct sim_numa_stop {
	struct ts_numa_result res;
	uint64_t decided_ns;
	struct sim_numa_stop *prev, *next;
};

struct sim_task {
	struct ts_task t;	   /* the core's task; t.host_data points back here */
	struct sim_wait_link wait; /* on a channel's receiver or sender queue */
	const struct ts_task_class *cls;
	int cls_index, inst, idx; /* class, instance, index among the class's tasks in it */
	int pc;			  /* next phase */
	uint64_t iter, limit;	  /* iterations done / to do (0 = unbounded) */
	uint64_t work;		  /* ns of CPU work before the program moves on */
	double work_frac;	  /* sub-ns part of the costs added so far */
	uint32_t send_bytes;	  /* SEND being retried: its size (0 = not drawn yet) */
	int on_cpu;		  /* CPU it is the current task of, or -1 */
	int last_cpu;		  /* CPU it last ran on (-1: never ran) */
	uint64_t wake_ns;	  /* when it was last woken */
	bool woken;		  /* woken, not yet run since */
	bool exiting, exited;
	bool pro;		     /* running its class's prologue (pc indexes it) */
	const struct ts_phase *prog; /* the program pc indexes: the prologue, then phases */
	int prog_n;
	int count; /* tasks of its class in its instance */
	/* memory (workloads with regions) */
	struct sim_mm *mm;	     /* its instance's address space */
	struct ts_cpumask *mem_bind; /* --bind: its MPOL_BIND nodes (NULL: none) */
	struct sim_touch touch;
	uint64_t *touch_cursor; /* per phase slot (prologue, then phases): next start */
	uint64_t node_stamp;	/* task_tick_numa's p->node_stamp (ns of runtime) */
};

struct sim_cpu {
	struct sim_task *curr; /* the engine's view (== rq->curr) */
	uint64_t seg_start;    /* start of the running work segment */
	uint64_t gen;	       /* DONE events carry it: a stale one is skipped */
	uint64_t busy_since, busy_total;
	bool seg_active;
	bool seg_touch;	     /* the segment is a TOUCH sweep (its task's touch.seg) */
	bool need_resched;   /* set by resched_cpu() while this CPU's event is handled */
	bool resched_posted; /* a RESCHED event is on its way */
	bool locked;
};

struct stat_snap {
	struct ts_sis_counts sis;
	uint64_t reasons[TS_PLACE_NR];
	uint64_t by_rel[TS_REL_NR];
	uint64_t scan_hist[TS_SCAN_HIST_BUCKETS];
	uint64_t wakeups, migrations;
	uint64_t busy, exec;
	struct ts_numa_cpu_stats numa;
};

struct sim {
	const struct ts_sim_config *cfg;
	const struct ts_workload *w;
	const struct ts_topology *topo;
	const struct ts_cost_model *costs;
	struct ts_cost_model own_costs;
	struct ts_sched *s;
	struct ts_event_queue q;
	struct ts_rng rng;
	struct sim_cpu *cpu;
	int nr_cpus;
	struct sim_task *tasks;
	int nr_tasks, nr_tasks_inited;
	struct sim_channel *chan;
	int nr_chan;
	struct ts_cpumask *allowed; /* cfg->pin within the machine (NULL = all) */
	int nr_allowed;

	uint64_t now, t0, tick_ns;
	int cur_cpu; /* the CPU whose event is being handled */
	int nr_locked;
	uint64_t ctx_switch_ns, idle_exit_ns;
	double c2c[TS_REL_NR], bulk[TS_REL_NR], refill[TS_REL_NR], scan[TS_REL_NR];
	double scan_mix_per_cpu; /* mean scan cost per CPU of the last scanning placement */

	bool in_window, window_done, stop, truncated;
	uint64_t win_start, win_end;
	struct stat_snap snap0;

	uint64_t marks, bytes, msgs_sent, msgs_recv, events;
	int64_t nr_runnable; /* tasks the engine made runnable and not yet blocked/exited */
	int limited_tasks, exited_limited;
	uint64_t finish_ns;
	struct sim_hist *lat;
	int error;
	struct ts_error *err;

	int nr_instances;
	/* memory and NUMA balancing (workloads with regions) */
	struct sim_mm *mms; /* [nr_instances] */
	int nr_mms;
	bool numa_scan; /* NUMA balancing runs: feature NUMA, > 1 node */
	int *run_nodes; /* nodes with CPUs the run may use, ascending */
	int nr_run_nodes;
	double *mem_lat;   /* [node * nr_nodes + node]: DRAM load latency */
	bool *scan_region; /* scratch: the regions a scan walks */
	double hint_fault_ns, stop_ns, scan_pmd_ns;
	struct sim_numa_stop *stops; /* in flight */
	uint64_t *numa_arrival;	     /* per CPU: 1 + when its last NUMA arrival was applied */
	struct ts_sim_numa numa;     /* the engine's NUMA counters (measured window) */
	double numa_sys_ns;
	uint64_t ticks0;
	/* ---- task groups (cfg->groups; NULL without) ---- */
	struct sim_groups *groups;
	uint64_t *tg_exec; /* [groups->nr_top + 1] scratch for CPU time by top-level group */
	double *tg_stall;  /* [nr_cpus] line stalls not charged yet (see host_tg_line_access) */
	bool tg_waking;	   /* inside wake()'s ts_try_to_wake_up() */
	int tg_exec_cpu;   /* >= 0: the CPU executing the core's code now, instead of cur_cpu
			      (the target running a queued wake-up's activation) */
};

static inline struct sim_task *sim_task_of(struct ts_task *p)
{
	return p->host_data;
}

/* ---- internal errors (debug builds) ---- */

#ifndef NDEBUG
__attribute__((noreturn, format(printf, 1, 2))) static void internal_error(const char *fmt, ...);
static void internal_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("toposched sim: internal error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
#define SIM_CHECK(cond, ...)                                                                       \
	do {                                                                                       \
		if (!(cond))                                                                       \
			internal_error(__VA_ARGS__);                                               \
	} while (0)
#else
#define SIM_CHECK(cond, ...) ((void)sizeof(!(cond)))
#endif

static void fail(struct sim *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct sim *m, int code, const char *fmt, ...)
{
	if (!m->error) {
		char buf[TS_ERR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		m->error = code;
		ts_error_set(m->err, code, "%s", buf);
	}
	m->stop = true;
}

/* ---- costs ---- */

static inline double cost_of(const struct sim *m, const double *tier,
			     double (*between)(const struct ts_cost_model *,
					       const struct ts_topology *, int, int),
			     int a, int b)
{
	enum ts_cpu_relation rel = ts_topology_relation(m->topo, a, b);
	if (rel != TS_REL_REMOTE)
		return tier[rel];
	return between(m->costs, m->topo, a, b); /* scaled by the SLIT distance */
}

static inline uint64_t ns_of(double v)
{
	return v > 0 ? (uint64_t)llround(v) : 0;
}

/* Adds CPU work (ns, fractional) to a task. */
static void add_work(struct sim_task *t, double ns)
{
	if (ns <= 0)
		return;
	double total = t->work_frac + ns;
	double whole = floor(total);
	t->work += (uint64_t)whole;
	t->work_frac = total - whole;
}

/* ---- events ---- */

static void post(struct sim *m, uint64_t time, int kind, int cpu, void *obj, uint64_t gen)
{
	struct ts_event ev = {.time = time, .kind = kind, .cpu = cpu, .obj = obj, .gen = gen};
	int rc = ts_eq_push(&m->q, ev);
	if (rc == -ENOMEM)
		fail(m, -ENOMEM, "sim: out of memory for events");
	SIM_CHECK(rc != -EINVAL, "event at %llu before now %llu", (unsigned long long)time,
		  (unsigned long long)m->q.now);
}

/* ---- the host interface ---- */

static uint64_t host_clock(void *h)
{
	return ((struct sim *)h)->now;
}

static void host_resched(void *h, int cpu)
{
	struct sim *m = h;
	struct sim_cpu *c = &m->cpu[cpu];
	if (cpu == m->cur_cpu) {
		c->need_resched = true;
		return;
	}
	if (c->resched_posted)
		return;
	c->resched_posted = true;
	double d = cost_of(m, m->c2c, ts_cost_between, m->cur_cpu, cpu);
	uint64_t delay = ns_of(d) + (c->curr ? 0 : m->idle_exit_ns);
	post(m, m->now + delay, EV_RESCHED, cpu, NULL, 0);
}

static void host_lock(void *h, int cpu)
{
	struct sim *m = h;
	SIM_CHECK(!m->cpu[cpu].locked, "rq lock of CPU %d taken twice", cpu);
	m->cpu[cpu].locked = true;
	m->nr_locked++;
}

static void host_unlock(void *h, int cpu)
{
	struct sim *m = h;
	SIM_CHECK(m->cpu[cpu].locked, "rq lock of CPU %d released while free", cpu);
	m->cpu[cpu].locked = false;
	m->nr_locked--;
}

static uint64_t host_scan_time(void *h, int cpu, int nr_scanned, uint64_t t0)
{
	struct sim *m = h;
	(void)cpu;
	(void)t0;
	return ns_of(nr_scanned * m->scan_mix_per_cpu);
}

static const struct ts_host_ops sim_ops = {
	.clock = host_clock,
	.resched_cpu = host_resched,
	.rq_lock = host_lock,
	.rq_unlock = host_unlock,
	.scan_time = host_scan_time,
};

/* ---- task groups: the stalls of the core's accesses to group cache lines ----
 *
 * The core reports each access to a group's shared lines (tg_line_access) with the CPU of
 * the run queue whose structures it touches; the line model (sim/line_model.h) is given
 * instead the CPU that executes the code in the kernel, which is the CPU whose event is
 * being handled (m->cur_cpu: the tick, __schedule() and newidle balancing, the periodic
 * balancing that pulls from another queue, the timer's or the waker's CPU, CPU 0 forking
 * a task, the stopper CPU of the NUMA stop work), except the activation of a wake-up that
 * ttwu_queue_cond() sends to the target's wakelist: the target runs it
 * (sim_groups_ttwu_cpu(), decided when the core takes the target's lock, tg_exec_cpu).
 * The stall is CPU time of that CPU, charged like the other costs as work of the task
 * running there: at once when that CPU is another busy CPU (its running segment is
 * extended: the wakelist IPI interrupts it); for the CPU whose event is being handled,
 * collected while the handler runs and charged to the task switched in next (set_curr),
 * to the waker with its wake-up's scan time (wake), or to the current task when it keeps
 * running after a tick or a fork (tg_settle); an idle CPU that stays idle absorbs it (an
 * idle CPU that is woken, as a wakelist target, pays it in the woken task). */
static void start_segment(struct sim *m, int cpu);
static void stop_segment(struct sim *m, int cpu);

static void host_tg_line_access(void *h, int rq_cpu, const void *line, bool write)
{
	struct sim *m = h;
	(void)rq_cpu; /* the structures' CPU; the executing one is ours to say */
	if (!m->groups)
		return; /* not set up yet */
	int cpu = m->tg_exec_cpu >= 0 ? m->tg_exec_cpu : m->cur_cpu;
	double ns = sim_groups_access(m->groups, cpu, line, write, m->now);
	if (m->groups->oom)
		fail(m, -ENOMEM, "sim: out of memory for the cache-line model");
	if (ns <= 0)
		return;
	struct sim_cpu *c = &m->cpu[cpu];
	if (cpu != m->cur_cpu && c->curr && c->seg_active) {
		stop_segment(m, cpu);
		add_work(c->curr, ns);
		start_segment(m, cpu);
	} else {
		m->tg_stall[cpu] += ns;
	}
}

/* ts_try_to_wake_up() takes the target's lock right after select_task_rq(), where the
 * kernel's ttwu_queue() decides between the wakelist and a direct activation: the
 * accesses under that lock are the activation's. Before it (select_task_rq(), the
 * wakee's and waker's task_h_load()) the waker executes. */
static void host_lock_groups(void *h, int cpu)
{
	struct sim *m = h;
	if (m->tg_waking && m->tg_exec_cpu < 0)
		m->tg_exec_cpu = sim_groups_ttwu_cpu(m->topo, m->cur_cpu, cpu,
						     ts_cpu_rq(m->s, cpu)->nr_running);
	host_lock(h, cpu);
}

static const struct ts_host_ops sim_ops_groups = {
	.clock = host_clock,
	.resched_cpu = host_resched,
	.rq_lock = host_lock_groups,
	.rq_unlock = host_unlock,
	.scan_time = host_scan_time,
	.tg_line_access = host_tg_line_access,
};

static inline void lock(struct sim *m, int cpu)
{
	host_lock(m, cpu);
}
static inline void unlock(struct sim *m, int cpu)
{
	host_unlock(m, cpu);
}

/* ---- CPU execution ---- */

static bool measuring(const struct sim *m)
{
	return m->in_window;
}

static inline int cpu_node(const struct sim *m, int cpu)
{
	return m->topo->cpu[cpu].node;
}
static inline const double *lat_row(const struct sim *m, int node)
{
	return &m->mem_lat[node * m->topo->nr_nodes];
}

/* A touch segment stops after `done` ns: the sweep's position follows the cost walked.
 * Out of line: stop_segment() runs on every event of every workload. */
__attribute__((noinline)) static void touch_stop(struct sim *m, struct sim_task *t, uint64_t done)
{
	struct sim_touch *tc = &t->touch;
	tc->seg = false;
	if (done >= t->work)
		tc->pos = tc->seg_to;
	else
		tc->pos = sim_sweep_advance(&tc->sw, tc->seg_from, tc->seg_to,
					    lat_row(m, tc->seg_node),
					    tc->seg_cost * (double)done / (double)t->work);
	t->work = 0;
}

static void start_segment(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	c->seg_start = m->now;
	c->seg_active = true;
	c->gen++;
	post(m, m->now + c->curr->work, EV_DONE, cpu, NULL, c->gen);
}

/* The running segment stops now: keep the work not yet done. */
static void stop_segment(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (!c->seg_active)
		return;
	uint64_t done = m->now - c->seg_start;
	struct sim_task *t = c->curr;
	if (__builtin_expect(c->seg_touch, 0)) {
		touch_stop(m, t, done); /* the rest of the sweep is planned again */
		c->seg_touch = false;
	} else {
		t->work = done >= t->work ? 0 : t->work - done;
	}
	c->seg_active = false;
	c->gen++; /* the DONE event is stale now */
}

/* The core switched cpu from its current task to `next` (NULL = idle). */
static void set_curr(struct sim *m, int cpu, struct sim_task *next)
{
	struct sim_cpu *c = &m->cpu[cpu];
	struct sim_task *prev = c->curr;
	SIM_CHECK(!c->seg_active, "CPU %d switched with a segment running", cpu);
	SIM_CHECK((ts_cpu_rq(m->s, cpu)->curr ? sim_task_of(ts_cpu_rq(m->s, cpu)->curr) : NULL) ==
			  next,
		  "CPU %d: the engine's task is not the core's rq->curr", cpu);
	if (prev) {
		c->busy_total += m->now - c->busy_since;
		prev->on_cpu = -1;
	}
	c->curr = next;
	if (!next)
		return;
	SIM_CHECK(next->on_cpu == -1, "task %d current on CPU %d and CPU %d", next->t.id,
		  next->on_cpu, cpu);
	SIM_CHECK(next->t.cpu == cpu, "task %d runs on CPU %d but task_cpu() is %d", next->t.id,
		  cpu, next->t.cpu);
	next->on_cpu = cpu;
	c->busy_since = m->now;
	if (m->groups && m->tg_stall[cpu] > 0) { /* task groups: stalls of the switch */
		add_work(next, m->tg_stall[cpu]);
		m->tg_stall[cpu] = 0;
	}
	if (next != prev) {
		add_work(next, (double)m->ctx_switch_ns);
		if (next->last_cpu >= 0 && next->last_cpu != cpu)
			add_work(next, cost_of(m, m->refill, ts_cost_refill_between, next->last_cpu,
					       cpu) *
					       next->cls->footprint_kib);
		next->last_cpu = cpu;
	}
	if (next->woken) {
		next->woken = false;
		if (next->cls->measure_wakeup && measuring(m))
			sim_hist_add(m->lat, m->now - next->wake_ns);
	}
}

static uint64_t draw_ns(struct sim *m, const struct ts_phase *ph)
{
	switch (ph->dist) {
	case TS_DIST_EXPONENTIAL:
		return ns_of(ts_rng_exp(&m->rng, (double)ph->ns));
	case TS_DIST_UNIFORM:
		return ph->ns / 2 + ts_rng_below(&m->rng, ph->ns + 1);
	case TS_DIST_FIXED:
	default:
		return ph->ns;
	}
}

static uint32_t draw_size(struct sim *m, const struct ts_size_mix *mix)
{
	uint64_t total = 0;
	for (int i = 0; i < mix->n; i++)
		total += mix->weight[i];
	uint64_t r = ts_rng_below(&m->rng, total);
	for (int i = 0; i < mix->n; i++) {
		if (r < mix->weight[i])
			return mix->bytes[i];
		r -= mix->weight[i];
	}
	return mix->bytes[mix->n - 1];
}

static struct sim_channel *chan_of(struct sim *m, const struct sim_task *t,
				   const struct ts_chan_ref *ref)
{
	int i = ref->chan + (ref->per_instance ? t->idx : 0) +
		(ref->iter_mod ? (int)(t->iter % (uint64_t)ref->iter_mod) : 0);
	return &m->chan[t->inst * m->w->channels_per_instance + i];
}

/* ts_try_to_wake_up() of a blocked task by `waker` (NULL: a timer) from cpu. Returns the
 * exact scan time of the placement, which the caller charges. */
static double wake(struct sim *m, struct sim_task *t, int cpu, struct sim_task *waker, int flags)
{
	SIM_CHECK(t->t.state == TS_TASK_SLEEPING, "waking task %d in state %d", t->t.id,
		  (int)t->t.state);
	SIM_CHECK(m->nr_locked == 0, "ts_try_to_wake_up() called with an rq lock held");
	t->wake_ns = m->now;
	t->woken = true;
	m->nr_runnable++;
	SIM_CHECK(cpu == m->cur_cpu, "wake-up from CPU %d while handling CPU %d", cpu, m->cur_cpu);
	m->tg_waking = m->groups != NULL;
	struct ts_placement pl =
		ts_try_to_wake_up(m->s, &t->t, cpu, waker ? &waker->t : NULL, flags);
	m->tg_waking = false;
	m->tg_exec_cpu = -1;
	double cost = 0;
	int n = 0;
	for (int r = 0; r < TS_REL_NR; r++) {
		if (pl.scanned_by_relation[r]) {
			n += pl.scanned_by_relation[r];
			cost += pl.scanned_by_relation[r] * m->scan[r];
		}
	}
	if (n)
		m->scan_mix_per_cpu = cost / n;
	if (m->groups) { /* task groups: the waker's line stalls of the wake-up */
		cost += m->tg_stall[cpu];
		m->tg_stall[cpu] = 0;
	}
	return cost;
}

/* ---- memory: TOUCH phases, faults, NUMA balancing's host part ---- */

static inline uint64_t jiffies_of(const struct sim *m)
{
	return m->now / m->tick_ns;
}
static inline uint64_t msecs_to_jiffies(const struct sim *m, uint64_t ms)
{
	return (ms * (1000000000ULL / m->tick_ns) + 999) / 1000; /* as the core's */
}

/* CPU time NUMA balancing costs a task: it runs before the task's next work. */
static void charge_numa(struct sim *m, struct sim_task *t, double ns)
{
	add_work(t, ns);
	if (measuring(m))
		m->numa_sys_ns += ns;
}

static int phase_slot(const struct sim_task *t)
{
	return t->pro ? t->pc : t->cls->nr_prologue + t->pc;
}

/* An execution of a TOUCH phase starts: its slice and first page (struct sim_sweep). */
static void touch_begin(struct sim_task *t, const struct ts_phase *ph)
{
	struct sim_touch *tc = &t->touch;
	const struct sim_region *r = &t->mm->regions[ph->region];
	uint64_t lo = 0, len = r->pages;
	if (ph->slice == TS_SLICE_OWN) {
		lo = r->pages * (uint64_t)t->idx / (uint64_t)t->count;
		len = r->pages * (uint64_t)(t->idx + 1) / (uint64_t)t->count - lo;
	}
	uint64_t *cursor = &t->touch_cursor[phase_slot(t)];
	tc->sw = (struct sim_sweep){
		.mm = t->mm,
		.r = r,
		.slice_lo = lo,
		.slice_len = len,
		.start = len ? *cursor % len : 0,
		.len = len ? (ph->pages ? ph->pages : len) : 0,
		.page_ns = (double)ph->ns,
		.accesses = ph->accesses,
	};
	if (len)
		*cursor = (tc->sw.start + tc->sw.len % len) % len;
	tc->pos = 0;
	tc->active = true;
}

/* The node of `nodes` nearest to `here` (lowest number on ties): MPOL_BIND's allocation
 * order, the local node's zonelist. */
static int nearest_node(const struct sim *m, const struct ts_cpumask *nodes, int here)
{
	int best = -1, best_d = 0, n;
	ts_for_each_cpu(n, nodes)
	{
		int d = ts_topo_distance(m->topo, here, n);
		if (best < 0 || d < best_d) {
			best = n;
			best_d = d;
		}
	}
	return best < 0 ? here : best;
}

/* Where a page is allocated: by the region's policy, else the allocating task's --bind
 * nodes, else the node it runs on. idx = the chunk's index in its region. */
static int place_node(const struct sim *m, const struct ts_cpumask *bind,
		      const struct sim_region *r, uint32_t idx, int here)
{
	switch (r->desc->policy) {
	case TS_MEM_INTERLEAVE:
		return (int)(idx % (uint32_t)m->topo->nr_nodes);
	case TS_MEM_BIND_BALANCING:
		return r->desc->node;
	case TS_MEM_LOCAL:
		break;
	}
	return bind ? nearest_node(m, bind, here) : here;
}

/* mpol_misplaced(): the node a faulting chunk should move to, or -1. */
static int mpol_misplaced(struct sim *m, struct sim_task *t, const struct sim_region *r,
			  struct sim_chunk *c, int curnid, int cpu)
{
	int thisnid = cpu_node(m, cpu);
	switch (r->desc->policy) {
	case TS_MEM_INTERLEAVE:
		return -1; /* an mbind() policy without MPOL_F_MOF */
	case TS_MEM_BIND_BALANCING:
		if (thisnid != r->desc->node)
			return -1; /* MPOL_F_MORON moves pages only among the policy's nodes */
		break;
	case TS_MEM_LOCAL:
		if (t->mem_bind)
			return -1; /* the task's MPOL_BIND: no MPOL_F_MOF */
		break;
	}
	/* MPOL_F_MORON: towards the node of the CPU referencing it, through the filter */
	if (!sim_should_migrate_memory(m->topo, &t->t, (int)(t - m->tasks), c, curnid, cpu))
		return -1;
	return curnid != thisnid ? thisnid : -1;
}

static void numa_stop_post(struct sim *m, struct sim_task *t, const struct ts_numa_result *res)
{
	struct sim_numa_stop *st = malloc(sizeof(*st));
	if (!st) {
		struct ts_numa_result r = *res;
		ts_numa_migrate_done(m->s, &r);
		fail(m, -ENOMEM, "sim: out of memory for a NUMA migration");
		return;
	}
	st->res = *res;
	st->decided_ns = m->now;
	st->prev = NULL;
	st->next = m->stops;
	if (m->stops)
		m->stops->prev = st;
	m->stops = st;
	/* The stopper's switches occupy the faulting task's CPU. */
	charge_numa(m, t, m->stop_ns);
	post(m, m->now + ns_of(m->stop_ns), EV_NUMA_STOP, res->src_cpu, st, 0);
}

/* do_huge_pmd_numa_page() for task t on cpu touching marked chunk ci. */
static void hint_fault(struct sim *m, struct sim_task *t, int cpu, uint32_t ci)
{
	struct sim_mm *mm = t->mm;
	struct sim_chunk *c = &mm->chunks[ci];
	int nid = c->node;
	c->marked = false; /* the PMD is made present again */
	/* Writable private anonymous memory: never TNF_NO_GROUP nor TNF_SHARED; no node
	 * runs out of memory, so never TNF_MIGRATE_FAIL. */
	unsigned int flags = nid == cpu_node(m, cpu) ? TS_TNF_FAULT_LOCAL : 0;
	const struct ts_task *last = c->last_task >= 0 ? &m->tasks[c->last_task].t : NULL;
	double cost = m->hint_fault_ns;
	int target = mpol_misplaced(m, t, t->touch.sw.r, c, nid, cpu);
	if (target >= 0) {
		cost += (double)c->pages * SIM_PAGE_KIB *
			ts_cost_migrate_per_kib(m->costs, ts_topo_distance(m->topo, nid, target));
		sim_chunk_move(mm, ci, target);
		flags |= TS_TNF_MIGRATED;
		nid = target;
	}
	charge_numa(m, t, cost);
	struct ts_numa_result res;
	int rc = ts_task_numa_fault(m->s, &t->t, last, nid, c->pages, flags, &res);
	if (rc == 0 && res.dst_cpu >= 0)
		numa_stop_post(m, t, &res);
}

/* One step of a TOUCH phase on cpu: a fault at the current page, or the segment to the
 * next page that faults. Returns true when the execution is complete. */
static bool touch_step(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph)
{
	struct sim_touch *tc = &t->touch;
	if (!tc->active)
		touch_begin(t, ph);
	if (tc->pos >= (double)tc->sw.len) {
		tc->active = false;
		return true;
	}
	uint32_t ci = sim_sweep_chunk(&tc->sw, tc->pos);
	struct sim_chunk *c = &t->mm->chunks[ci];
	if (c->node < 0) { /* first touch: the page fault allocates the THP */
		const struct sim_region *r = tc->sw.r;
		sim_chunk_place(
			t->mm, ci,
			place_node(m, t->mem_bind, r, ci - r->first_chunk, cpu_node(m, cpu)));
		return false;
	}
	if (c->marked) {
		hint_fault(m, t, cpu, ci);
		return false;
	}
	int node = cpu_node(m, cpu);
	double end, cost = sim_sweep_plan(&tc->sw, tc->pos, lat_row(m, node), &end);
	SIM_CHECK(end > tc->pos, "task %d: an empty touch segment", t->t.id);
	tc->seg = true;
	m->cpu[cpu].seg_touch = true; /* the segment step_task() starts next */
	tc->seg_from = tc->pos;
	tc->seg_to = end;
	tc->seg_cost = cost;
	tc->seg_node = node;
	uint64_t w = ns_of(cost);
	t->work = w ? w : 1;
	return false;
}

enum step { STEP_SEGMENT, STEP_BLOCK, STEP_EXIT };

static inline void advance(struct sim_task *t)
{
	if (++t->pc < t->prog_n)
		return;
	t->pc = 0;
	if (__builtin_expect(t->pro, 0)) { /* the prologue is done: the loop starts */
		t->pro = false;
		t->prog = t->cls->phases;
		t->prog_n = t->cls->nr_phases;
		return;
	}
	t->iter++;
	if (t->limit && t->iter >= t->limit)
		t->exiting = true;
}

/* Runs the program of cpu's current task from now until it needs CPU time (a segment is
 * posted), blocks or exits. No lock held. */
static enum step step_task(struct sim *m, int cpu, struct sim_task *t)
{
	for (long n = 0;; n++) {
		if (t->work > 0) {
			start_segment(m, cpu);
			return STEP_SEGMENT;
		}
		if (t->exiting)
			return STEP_EXIT;
		if (n > TS_SIM_MAX_INSTANT_PHASES) {
			fail(m, -ELOOP,
			     "sim: workload '%s' class '%s' runs its program without ever using "
			     "time "
			     "or blocking",
			     m->w->name, t->cls->name ? t->cls->name : "?");
			return STEP_EXIT;
		}
		const struct ts_phase *ph = &t->prog[t->pc];
		switch (ph->kind) {
		case TS_PH_TOUCH:
			if (touch_step(m, cpu, t, ph))
				advance(t);
			break;
		case TS_PH_RUN:
			add_work(t, (double)draw_ns(m, ph));
			advance(t);
			break;
		case TS_PH_MARK:
			if (measuring(m))
				m->marks++;
			advance(t);
			break;
		case TS_PH_SLEEP:
			advance(t);
			post(m, m->now + draw_ns(m, ph), EV_TIMER, cpu, t, 0);
			return STEP_BLOCK;
		case TS_PH_SEND: {
			struct sim_channel *ch = chan_of(m, t, &ph->ch);
			if (!t->send_bytes) {
				t->send_bytes = ph->bytes;
				if (!t->send_bytes)
					t->send_bytes =
						draw_size(m, t->cls_index == 0 ? &m->w->request_mix
									       : &m->w->reply_mix);
				if (!t->send_bytes)
					t->send_bytes = UINT32_MAX; /* a drawn 0: "drawn" marker */
			}
			uint32_t bytes = t->send_bytes == UINT32_MAX ? 0 : t->send_bytes;
			if (!sim_chan_fits(ch, bytes, m->w->channel_capacity)) {
				sim_waitq_push(&ch->senders, &t->wait);
				return STEP_BLOCK;
			}
			if (sim_chan_push(ch,
					  (struct sim_msg){.bytes = bytes, .sender_cpu = cpu})) {
				fail(m, -ENOMEM, "sim: out of memory for messages");
				return STEP_EXIT;
			}
			t->send_bytes = 0;
			m->msgs_sent++;
			if (ph->count_bytes && measuring(m))
				m->bytes += bytes;
			advance(t);
			struct sim_wait_link *l = sim_waitq_pop(&ch->receivers);
			if (l) {
				struct sim_task *r =
					(struct sim_task *)((char *)l -
							    offsetof(struct sim_task, wait));
				add_work(t, wake(m, r, cpu, t, ph->sync ? TS_WF_SYNC : 0));
			}
			break;
		}
		case TS_PH_RECV: {
			struct sim_channel *ch = chan_of(m, t, &ph->ch);
			struct sim_msg msg;
			if (!sim_chan_pop(ch, &msg)) {
				sim_waitq_push(&ch->receivers, &t->wait);
				return STEP_BLOCK;
			}
			m->msgs_recv++;
			add_work(t, cost_of(m, m->bulk, ts_cost_bulk_between, msg.sender_cpu, cpu) *
					    msg.bytes / 1024.0);
			advance(t);
			struct sim_wait_link *l = sim_waitq_pop(&ch->senders);
			if (l) {
				struct sim_task *s =
					(struct sim_task *)((char *)l -
							    offsetof(struct sim_task, wait));
				add_work(t, wake(m, s, cpu, t, 0));
			}
			break;
		}
		}
		if (m->stop && m->error)
			return STEP_EXIT;
	}
}

/* Runs cpu's current task (and whatever the core picks after it blocks or exits) until a
 * task is executing a segment or the CPU is idle. */
static void cpu_run(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	while (c->curr && !m->error) {
		struct sim_task *t = c->curr;
		enum step st = step_task(m, cpu, t);
		if (st == STEP_SEGMENT || m->error)
			return;
		enum ts_task_state ns = st == STEP_EXIT ? TS_TASK_DEAD : TS_TASK_SLEEPING;
		lock(m, cpu);
		ts_deactivate_curr(m->s, cpu, ns);
		m->nr_runnable--;
		struct ts_task *next = ts_schedule(m->s, cpu);
		unlock(m, cpu);
		c->need_resched = false; /* __schedule() just ran */
		if (st == STEP_EXIT) {
			t->exited = true;
			if (t->limit && ++m->exited_limited == m->limited_tasks &&
			    m->w->metric == TS_METRIC_TIME_S) {
				m->finish_ns = m->now;
				m->stop = true;
			}
		}
		set_curr(m, cpu, next ? sim_task_of(next) : NULL);
	}
}

/* __schedule() on cpu now (its need_resched or a RESCHED event), then run what it picked. */
static void do_resched(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	c->need_resched = false;
	stop_segment(m, cpu);
	lock(m, cpu);
	struct ts_task *next = ts_schedule(m->s, cpu);
	unlock(m, cpu);
	c->need_resched = false;
	set_curr(m, cpu, next ? sim_task_of(next) : NULL);
	cpu_run(m, cpu);
}

/* End of a handler on cpu: honour the resched requests made for it meanwhile. */
static void finish_cpu(struct sim *m, int cpu)
{
	while (m->cpu[cpu].need_resched && !m->error)
		do_resched(m, cpu);
}

/* Task groups: stalls left by a tick or a fork on cpu go to its running segment; an idle
 * CPU absorbs them (and, ticking every 1/hz, whatever an idle CPU collected that no task
 * switched in to pay). */
__attribute__((noinline, cold)) static void tg_settle(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	double ns = m->tg_stall[cpu];
	if (ns <= 0)
		return;
	m->tg_stall[cpu] = 0;
	if (!c->curr || m->error)
		return;
	stop_segment(m, cpu);
	add_work(c->curr, ns);
	start_segment(m, cpu);
}

/* Charges ns of CPU time to whatever runs on cpu (a timer wake-up's scan). */
static void charge_cpu(struct sim *m, int cpu, double ns)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (!c->curr || ns <= 0)
		return;
	stop_segment(m, cpu);
	add_work(c->curr, ns);
	if (c->curr->work)
		start_segment(m, cpu);
	else
		cpu_run(m, cpu);
}

/* ---- statistics ---- */

static void snapshot(struct sim *m, struct stat_snap *out)
{
	memset(out, 0, sizeof(*out));
	struct ts_sched *s = m->s;
	ts_sis_counts_sum(&s->rq[0].stats, m->nr_cpus, sizeof(struct ts_rq), &out->sis);
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct ts_cpu_stats *st = &s->rq[cpu].stats;
		for (int i = 0; i < TS_PLACE_NR; i++)
			out->reasons[i] += ts_stat_read(&st->reasons[i]);
		for (int i = 0; i < TS_REL_NR; i++)
			out->by_rel[i] += ts_stat_read(&st->wakeups_by_relation[i]);
		for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
			out->scan_hist[i] += ts_stat_read(&st->scan_hist[i]);
		out->wakeups += ts_stat_read(&st->ttwu_count);
		out->migrations += ts_stat_read(&st->migrations);
		const struct sim_cpu *c = &m->cpu[cpu];
		out->busy += c->busy_total + (c->curr ? m->now - c->busy_since : 0);
	}
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct sim_task *t = &m->tasks[i];
		out->exec += t->t.se.sum_exec_runtime;
		if (t->on_cpu >= 0 && m->now > t->t.se.exec_start)
			out->exec += m->now - t->t.se.exec_start;
	}
	if (m->nr_mms)
		ts_numa_stats_sum(s, &out->numa);
}

#ifndef NDEBUG
static void check_invariants(struct sim *m)
{
	int64_t queued = 0;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct ts_rq *rq = ts_cpu_rq(m->s, cpu);
		queued += rq->nr_running;
		const struct sim_task *t = m->cpu[cpu].curr;
		SIM_CHECK((rq->curr ? sim_task_of(rq->curr) : NULL) == t,
			  "CPU %d: engine and core disagree on the running task", cpu);
		SIM_CHECK(!t || (t->on_cpu == cpu && t->t.cpu == cpu),
			  "CPU %d: its task says it is on CPU %d", cpu, t ? t->on_cpu : -1);
		SIM_CHECK(!m->cpu[cpu].locked, "CPU %d: rq lock held between events", cpu);
	}
	SIM_CHECK(queued == m->nr_runnable,
		  "runnable tasks lost: the engine holds %lld runnable, the run queues %lld",
		  (long long)m->nr_runnable, (long long)queued);
	/* Memory: conservation (every 64th check: it walks every chunk), and no running
	 * sweep covers a chunk that must fault. */
	if (m->nr_mms && (m->ticks0++ & 63) == 0) {
		char why[256];
		for (int i = 0; i < m->nr_mms; i++)
			SIM_CHECK(sim_mm_check(&m->mms[i], why, sizeof(why)) == 0, "pages: %s",
				  why);
		for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
			const struct sim_task *t = m->cpu[cpu].curr;
			if (!t || !t->touch.seg)
				continue;
			double end, k = t->touch.seg_from;
			sim_sweep_plan(&t->touch.sw, k, lat_row(m, t->touch.seg_node), &end);
			SIM_CHECK(end >= t->touch.seg_to,
				  "CPU %d: task %d's touch segment runs into a chunk that faults",
				  cpu, t->t.id);
		}
	}
}

static void check_tasks(struct sim *m)
{
	int64_t runnable = 0;
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct sim_task *t = &m->tasks[i];
		runnable += t->t.state == TS_TASK_RUNNABLE;
		SIM_CHECK(t->on_cpu < 0 || m->cpu[t->on_cpu].curr == t,
			  "task %d thinks it runs on CPU %d", i, t->on_cpu);
	}
	SIM_CHECK(runnable == m->nr_runnable, "runnable task count %lld != engine's %lld",
		  (long long)runnable, (long long)m->nr_runnable);
	uint64_t queued = 0;
	for (int i = 0; i < m->nr_chan; i++)
		queued += m->chan[i].count;
	SIM_CHECK(m->msgs_sent == m->msgs_recv + queued,
		  "messages: %llu sent, %llu received, %llu queued",
		  (unsigned long long)m->msgs_sent, (unsigned long long)m->msgs_recv,
		  (unsigned long long)queued);
	char why[256];
	for (int i = 0; i < m->nr_mms; i++)
		SIM_CHECK(sim_mm_check(&m->mms[i], why, sizeof(why)) == 0, "pages: %s", why);
}
#endif

/* ---- event handlers ---- */

static void numa_tick(struct sim *m, int cpu);

static void on_tick(struct sim *m, int cpu)
{
	SIM_CHECK(m->nr_locked == 0, "a lock is held at a tick");
	lock(m, cpu);
	bool balance = ts_sched_tick(m->s, cpu);
	unlock(m, cpu);
	if (balance) {
		SIM_CHECK(m->nr_locked == 0, "ts_balance_tick() called with an rq lock held");
		ts_balance_tick(m->s, cpu);
	}
	if (m->numa_scan)
		numa_tick(m, cpu);
	if (m->groups)
		tg_settle(m, cpu);
	post(m, m->now + m->tick_ns, EV_TICK, cpu, NULL, 0);
#ifndef NDEBUG
	if (cpu == 0)
		check_invariants(m);
#endif
}

/* A task's first wake-up (its START event; cpu 0 forks it). */
static void on_start(struct sim *m, struct sim_task *t)
{
	SIM_CHECK(m->nr_locked == 0, "ts_wake_up_new_task() called with an rq lock held");
	SIM_CHECK(t->t.state == TS_TASK_NEW, "task %d started twice", t->t.id);
	m->nr_runnable++;
	ts_wake_up_new_task(m->s, &t->t, 0, NULL);
	if (m->groups)
		tg_settle(m, 0);
}

/* expired: when the timer expired (the wake-up latency counts from there) */
static void on_timer(struct sim *m, int cpu, struct sim_task *t, uint64_t expired)
{
	double cost = wake(m, t, cpu, NULL, 0);
	t->wake_ns = expired;
	charge_cpu(m, cpu, cost);
}

/* Re-plans cpu's running work now (a scan marked pages its sweep was about to touch),
 * as if cpu's own event were being handled. */
static void recost_cpu(struct sim *m, int cpu)
{
	int saved = m->cur_cpu;
	m->cur_cpu = cpu;
	stop_segment(m, cpu);
	cpu_run(m, cpu);
	finish_cpu(m, cpu);
	m->cur_cpu = saved;
}

/* task_numa_work() of t, running on cpu, right after the tick that queued it (the task
 * work runs on the return to user space): the mm's scan window is marked PROT_NONE. */
static void task_numa_work(struct sim *m, int cpu, struct sim_task *t)
{
	struct sim_mm *mm = t->mm;
	struct ts_numa_task *n = t->t.numa;
	uint64_t now = jiffies_of(m);
	if (now < mm->numa_next_scan) /* time_before(now, mm->numa_next_scan) */
		return;
	/* one scanner per mm per scan period (the cmpxchg on numa_next_scan) */
	mm->numa_next_scan = now + msecs_to_jiffies(m, n->numa_scan_period);
	t->node_stamp += 2 * m->tick_ns; /* let another thread of the mm win next time */
	for (int r = 0; r < mm->nr_regions; r++) {
		enum ts_mem_policy pol = mm->regions[r].desc->policy;
		/* vma_policy_mof(): the VMA's own policy, else the task's */
		m->scan_region[r] =
			pol == TS_MEM_BIND_BALANCING || (pol == TS_MEM_LOCAL && !t->mem_bind);
	}
	int64_t pages = (int64_t)TS_NUMA_SCAN_SIZE_MB << (20 - TS_NUMA_PAGE_SHIFT);
	int resets = 0;
	uint32_t lo, hi;
	uint32_t marked = sim_mm_scan(mm, m->scan_region, pages, 8 * pages, &resets, &lo, &hi);
	for (int i = 0; i < resets; i++)
		ts_numa_scan_done(&mm->numa);
	if (measuring(m)) {
		m->numa.scans++;
		m->numa.pte_updates += marked;
	}
	if (!marked)
		return;
	double cost = marked * m->scan_pmd_ns;
	/* at least 32x as much time elsewhere as scanning (the ~3 % overhead cap) */
	t->node_stamp += 32 * ns_of(cost);
	stop_segment(m, cpu);
	charge_numa(m, t, cost);
	/* Every running sweep of this mm re-plans: it must stop at the marked chunks. */
	for (int c = 0; c < m->nr_cpus; c++) {
		struct sim_task *x = m->cpu[c].curr;
		if (c == cpu || (x && x->mm == mm && x->touch.seg))
			recost_cpu(m, c);
	}
}

/* task_tick_numa() for cpu's current task (sched_numa_balancing on). */
static void numa_tick(struct sim *m, int cpu)
{
	struct sim_task *t = m->cpu[cpu].curr;
	if (!t || !t->mm || !t->t.numa || t->exiting)
		return;
	struct ts_numa_task *n = t->t.numa;
	uint64_t runtime = t->t.se.sum_exec_runtime;
	uint64_t period = (uint64_t)n->numa_scan_period * 1000000ULL;
	if (runtime <= t->node_stamp + period)
		return;
	if (!t->node_stamp)
		n->numa_scan_period = ts_numa_task_scan_start(&t->t);
	t->node_stamp += period;
	if (jiffies_of(m) >= t->mm->numa_next_scan)
		task_numa_work(m, cpu, t);
}

/* The stopper took the engine's current task of cpu off it (rq->curr changed). */
static bool detach_taken(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (!c->curr || ts_cpu_rq(m->s, cpu)->curr == &c->curr->t)
		return false;
	c->busy_total += m->now - c->busy_since;
	c->curr->on_cpu = -1;
	c->curr = NULL;
	return true;
}

/* migration_cpu_stop / migrate_swap_stop: the decided move or swap takes effect (or is
 * abandoned when the tasks moved meanwhile), the reservation is released, and the
 * double-migration counters look at the destination's previous NUMA arrival. */
static void on_numa_stop(struct sim *m, struct sim_numa_stop *st)
{
	if (st->prev)
		st->prev->next = st->next;
	else
		m->stops = st->next;
	if (st->next)
		st->next->prev = st->prev;
	struct ts_numa_result *res = &st->res;
	int src = res->src_cpu, dst = res->dst_cpu, cpus[2] = {src, dst};
	for (int i = 0; i < 2; i++) { /* account the work done up to now */
		struct sim_task *x = m->cpu[cpus[i]].curr;
		if (x && (&x->t == res->p || &x->t == res->swap))
			stop_segment(m, cpus[i]);
	}
	SIM_CHECK(m->nr_locked == 0, "the NUMA stop work called with an rq lock held");
	/* The stopper executes it: migration_cpu_stop on the task's CPU (stop_one_cpu(src)),
	 * migrate_swap_stop on cpu1 of stop_two_cpus(dst, src) (multi_cpu_stop's
	 * active_cpus = cpumask_of(cpu1)). The event is src's; only a swap differs. */
	if (m->groups)
		m->tg_exec_cpu = res->swap ? dst : src;
	int rc = ts_numa_migrate_apply(m->s, res);
	ts_numa_migrate_done(m->s, res);
	m->tg_exec_cpu = -1;
	if (rc == 0) {
		uint64_t *last = &m->numa_arrival[dst];
		if (*last && measuring(m)) {
			uint64_t prev = *last - 1;
			if (st->decided_ns < prev)
				m->numa.double_migrations++;
			if (m->now - prev < TS_SIM_NUMA_CLOSE_NS)
				m->numa.close_migrations++;
		}
		*last = m->now + 1;
	}
	free(st);
	/* Both CPUs follow the core: a CPU whose task was taken schedules now (the stopper
	 * hands over to the next task); one whose task stayed resumes it. */
	bool taken[2] = {detach_taken(m, src), dst != src && detach_taken(m, dst)};
	for (int i = 0; i < (dst != src ? 2 : 1); i++) {
		int cpu = cpus[i], saved = m->cur_cpu;
		m->cur_cpu = cpu;
		if (taken[i])
			do_resched(m, cpu);
		else if (m->cpu[cpu].curr && !m->cpu[cpu].seg_active)
			cpu_run(m, cpu);
		finish_cpu(m, cpu);
		m->cur_cpu = saved;
	}
}

/* Task groups (kept out of line, off the event loop's code): the tasks' CPU time so far by
 * top-level group, into m->tg_exec; the window's start; the run's group result. */
static void tg_exec_by_top(struct sim *m)
{
	memset(m->tg_exec, 0, ((size_t)m->groups->nr_top + 1) * sizeof(*m->tg_exec));
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct sim_task *t = &m->tasks[i];
		uint64_t ns = t->t.se.sum_exec_runtime;
		if (t->on_cpu >= 0 && m->now > t->t.se.exec_start)
			ns += m->now - t->t.se.exec_start;
		sim_groups_add_exec(m->groups, m->tg_exec, i, ns);
	}
}

__attribute__((noinline)) static void tg_window_open(struct sim *m)
{
	tg_exec_by_top(m);
	sim_groups_window_open(m->groups, m->now, m->tg_exec);
}

__attribute__((noinline)) static void tg_result(struct sim *m, struct ts_sim_result *out)
{
	tg_exec_by_top(m);
	sim_groups_result(m->groups, m->now, m->tg_exec, m->nr_allowed, &out->tg);
}

static void window_open(struct sim *m)
{
	m->in_window = true;
	m->win_start = m->now;
	snapshot(m, &m->snap0);
	if (m->groups)
		tg_window_open(m);
}

/* ---- validation ---- */

static int invalid(struct ts_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int invalid(struct ts_error *err, const char *fmt, ...)
{
	char buf[TS_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ts_error_set(err, -EINVAL, "sim: %s", buf);
}

static uint64_t class_limit(const struct ts_sim_config *cfg, const struct ts_task_class *c)
{
	if (cfg->iterations > 0)
		return (uint64_t)cfg->iterations;
	if (c->iterations > 0)
		return (uint64_t)c->iterations;
	if (cfg->workload->metric == TS_METRIC_TIME_S && cfg->workload->default_iterations > 0)
		return (uint64_t)cfg->workload->default_iterations;
	return 0;
}

static int validate_mix(const struct ts_size_mix *mix, const char *wname, const char *which,
			struct ts_error *err)
{
	if (mix->n <= 0 || !mix->bytes || !mix->weight)
		return invalid(
			err, "workload '%s': a SEND of 0 bytes needs a %s size mix, which is empty",
			wname, which);
	uint64_t total = 0;
	for (int i = 0; i < mix->n; i++)
		total += mix->weight[i];
	if (!total)
		return invalid(err, "workload '%s': the %s size mix has no weight", wname, which);
	return 0;
}

/* The CPUs a run may use (cfg->pin within the machine) and the nodes they cover. */
static void run_extent(const struct ts_sim_config *cfg, int *nr_cpus, int *nr_nodes)
{
	const struct ts_topology *t = cfg->topo;
	int cpus = 0, nodes = 0;
	bool seen[TS_MAX_NODES] = {false};
	for (int c = 0; c < t->nr_cpus; c++) {
		if (cfg->pin && (c >= cfg->pin->nr_cpus || !ts_cpumask_test(cfg->pin, c)))
			continue;
		cpus++;
		int n = t->cpu[c].node;
		if (n >= 0 && n < TS_MAX_NODES && !seen[n]) {
			seen[n] = true;
			nodes++;
		}
	}
	*nr_cpus = cpus;
	*nr_nodes = nodes;
}

/* One phase of class ci (tasks: its count per instance); `where` names it. */
static int validate_phase(const struct ts_sim_config *cfg, int ci, int tasks,
			  const struct ts_phase *ph, const char *where, bool *takes_time,
			  struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	const char *wn = w->name ? w->name : "?";
	switch (ph->kind) {
	case TS_PH_RUN:
	case TS_PH_SLEEP:
		if (ph->dist < TS_DIST_FIXED || ph->dist > TS_DIST_UNIFORM)
			return invalid(err, "workload '%s' %s: unknown distribution", wn, where);
		if (ph->ns > 0 || ph->kind == TS_PH_SLEEP)
			*takes_time = true;
		break;
	case TS_PH_SEND:
	case TS_PH_RECV: {
		const struct ts_chan_ref *r = &ph->ch;
		if (r->chan < 0 || r->iter_mod < 0)
			return invalid(err, "workload '%s' %s: negative channel or iter_mod", wn,
				       where);
		int64_t hi = (int64_t)r->chan + (r->per_instance && tasks > 0 ? tasks - 1 : 0) +
			     (r->iter_mod ? r->iter_mod - 1 : 0);
		if (hi >= w->channels_per_instance)
			return invalid(err,
				       "workload '%s' %s: channel index %lld out of range (the "
				       "instance has %d channels)",
				       wn, where, (long long)hi, w->channels_per_instance);
		if (ph->kind == TS_PH_RECV)
			*takes_time = true; /* blocks when empty */
		else if (w->channel_capacity)
			*takes_time = true; /* blocks when full */
		if (ph->kind == TS_PH_SEND && ph->bytes == 0) {
			int rc = validate_mix(ci == 0 ? &w->request_mix : &w->reply_mix, wn,
					      ci == 0 ? "request" : "reply", err);
			if (rc)
				return rc;
		}
		break;
	}
	case TS_PH_TOUCH:
		if (ph->region < 0 || ph->region >= w->nr_regions)
			return invalid(
				err,
				"workload '%s' %s: region %d does not exist (the workload has %d)",
				wn, where, ph->region, w->nr_regions);
		if (ph->slice != TS_SLICE_OWN && ph->slice != TS_SLICE_ALL)
			return invalid(err, "workload '%s' %s: unknown slice %d", wn, where,
				       (int)ph->slice);
		if (!(ph->accesses >= 0 && ph->accesses <= 1e6))
			return invalid(err, "workload '%s' %s: accesses per page must be 0 to 1e6",
				       wn, where);
		if (ph->ns > 1000000000ULL || ph->pages > (1ULL << 40))
			return invalid(err, "workload '%s' %s: ns per page or pages out of range",
				       wn, where);
		if (ph->ns > 0 || ph->accesses > 0)
			*takes_time = true;
		break;
	case TS_PH_MARK:
		break;
	default:
		return invalid(err, "workload '%s' %s: unknown kind %d", wn, where, (int)ph->kind);
	}
	return 0;
}

static int validate_regions(const struct ts_sim_config *cfg, int instances, struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	const char *wn = w->name ? w->name : "?";
	if (w->nr_regions < 0 || (w->nr_regions > 0 && !w->regions))
		return invalid(err, "workload '%s': malformed region list", wn);
	uint64_t chunks = 0;
	for (int r = 0; r < w->nr_regions; r++) {
		const struct ts_region *g = &w->regions[r];
		const char *gn = g->name ? g->name : "?";
		if (g->bytes == 0 || g->bytes > TS_SIM_MAX_REGION_BYTES)
			return invalid(err,
				       "workload '%s' region '%s': size %llu bytes (1 to %llu)", wn,
				       gn, (unsigned long long)g->bytes,
				       (unsigned long long)TS_SIM_MAX_REGION_BYTES);
		if (g->policy != TS_MEM_LOCAL && g->policy != TS_MEM_INTERLEAVE &&
		    g->policy != TS_MEM_BIND_BALANCING)
			return invalid(err, "workload '%s' region '%s': unknown policy %d", wn, gn,
				       (int)g->policy);
		if (g->policy == TS_MEM_BIND_BALANCING &&
		    (g->node < 0 || g->node >= cfg->topo->nr_nodes))
			return invalid(err,
				       "workload '%s' region '%s': node %d does not exist (%s has "
				       "nodes 0-%d)",
				       wn, gn, g->node, cfg->topo->name, cfg->topo->nr_nodes - 1);
		if (g->prefault != TS_PREFAULT_NONE && g->prefault != TS_PREFAULT_PARENT)
			return invalid(err, "workload '%s' region '%s': unknown prefault %d", wn,
				       gn, (int)g->prefault);
		chunks += (g->bytes + (2u << 20) - 1) >> 21;
	}
	if (chunks * (uint64_t)instances > TS_SIM_MAX_CHUNKS)
		return invalid(
			err,
			"workload '%s': %d instances x %llu chunks of 2 MiB exceed the bound of %d",
			wn, instances, (unsigned long long)chunks, TS_SIM_MAX_CHUNKS);
	return 0;
}

static int validate(const struct ts_sim_config *cfg, struct ts_error *err)
{
	if (!cfg)
		return invalid(err, "no configuration");
	const struct ts_topology *t = cfg->topo;
	if (!t || t->nr_cpus <= 0)
		return invalid(err, "no machine topology");
	const struct ts_workload *w = cfg->workload;
	if (!w)
		return invalid(err, "no workload");
	const char *wn = w->name ? w->name : "?";
	if (cfg->load <= 0)
		return invalid(err, "workload '%s': load must be at least 1 (got %d)", wn,
			       cfg->load);
	if (cfg->iterations < 0)
		return invalid(err, "workload '%s': negative iterations %d", wn, cfg->iterations);
	if (cfg->hz > 100000)
		return invalid(err, "tick frequency %u Hz is above 100000", cfg->hz);
	bool time_s = w->metric == TS_METRIC_TIME_S;
	if ((int)w->metric < 0 || w->metric > TS_METRIC_OPS_PER_S)
		return invalid(err, "workload '%s': unknown metric %d", wn, (int)w->metric);
	if (!time_s && cfg->duration_ns == 0)
		return invalid(err, "workload '%s': the measured duration is zero", wn);
	uint64_t tick = 1000000000ULL / (cfg->hz ? cfg->hz : TS_HZ_DEFAULT);
	if (cfg->warmup_ns > UINT64_MAX / 4 || cfg->duration_ns > UINT64_MAX / 4 - tick)
		return invalid(err, "workload '%s': warm-up or duration too long", wn);
	if (!w->classes || w->nr_classes <= 0)
		return invalid(err, "workload '%s' has no task classes", wn);
	if (w->channels_per_instance < 0)
		return invalid(err, "workload '%s': negative channels_per_instance", wn);
	if (cfg->pin) {
		if (cfg->pin->nr_cpus <= 0)
			return invalid(err, "the pin mask is empty");
		int n = 0;
		for (int c = 0; c < t->nr_cpus && c < cfg->pin->nr_cpus; c++)
			n += ts_cpumask_test(cfg->pin, c);
		if (!n)
			return invalid(err, "the pin mask %s the machine's %d CPUs",
				       ts_cpumask_empty(cfg->pin) ? "is empty: it allows none of"
								  : "does not intersect",
				       t->nr_cpus);
	}
	if (w->instances != TS_INSTANCES_LOAD && w->instances != TS_INSTANCES_NODES)
		return invalid(err, "workload '%s': unknown instance rule %d", wn,
			       (int)w->instances);
	if (cfg->bind != TS_BIND_NONE && cfg->bind != TS_BIND_HARD && cfg->bind != TS_BIND_INVERSE)
		return invalid(err, "unknown bind mode %d", (int)cfg->bind);
	int nr_cpus, nr_nodes;
	run_extent(cfg, &nr_cpus, &nr_nodes);
	int instances = ts_workload_instances(w, nr_nodes, cfg->load);
	int64_t per_instance = 0;
	bool any_limit = false;
	for (int ci = 0; ci < w->nr_classes; ci++) {
		const struct ts_task_class *c = &w->classes[ci];
		const char *cn = c->name ? c->name : "?";
		if (c->count_rule != TS_COUNT_FIXED && c->count_rule != TS_COUNT_CPUS &&
		    c->count_rule != TS_COUNT_LOAD)
			return invalid(err, "workload '%s' class '%s': unknown count rule %d", wn,
				       cn, (int)c->count_rule);
		if (c->count < 0 || (c->count_rule == TS_COUNT_CPUS && c->count == 0))
			return invalid(err, "workload '%s' class '%s': %s task count", wn, cn,
				       c->count < 0 ? "negative" : "a zero CPU divisor as");
		if (c->nice < -20 || c->nice > 19)
			return invalid(err, "workload '%s' class '%s': nice %d outside -20..19", wn,
				       cn, c->nice);
		if (c->iterations < 0)
			return invalid(err, "workload '%s' class '%s': negative iterations", wn,
				       cn);
		if (!c->phases || c->nr_phases <= 0)
			return invalid(err, "workload '%s' class '%s' has no phases", wn, cn);
		if (c->nr_prologue < 0 || (c->nr_prologue > 0 && !c->prologue))
			return invalid(err, "workload '%s' class '%s': malformed prologue", wn, cn);
		if (c->home != TS_HOME_NONE && c->home != TS_HOME_INSTANCE &&
		    c->home != TS_HOME_TASK)
			return invalid(err, "workload '%s' class '%s': unknown home rule %d", wn,
				       cn, (int)c->home);
		int count = ts_class_count(c, nr_cpus, cfg->load);
		if (cfg->bind != TS_BIND_NONE && c->home == TS_HOME_NONE && count > 0)
			return invalid(err,
				       "workload '%s' class '%s' has no home nodes: --bind needs a "
				       "NUMA workload (numa01, numa02, specjbb ...)",
				       wn, cn);
		per_instance += count;
		if (count > 0 && class_limit(cfg, c))
			any_limit = true;
		bool takes_time = false, prologue_time = false;
		char where[128];
		for (int pi = 0; pi < c->nr_prologue + c->nr_phases; pi++) {
			bool pro = pi < c->nr_prologue;
			snprintf(where, sizeof(where), "class '%s' %sphase %d", cn,
				 pro ? "prologue " : "", pro ? pi : pi - c->nr_prologue);
			int rc = validate_phase(cfg, ci, count,
						pro ? &c->prologue[pi]
						    : &c->phases[pi - c->nr_prologue],
						where, pro ? &prologue_time : &takes_time, err);
			if (rc)
				return rc;
		}
		if (!takes_time)
			return invalid(err,
				       "workload '%s' class '%s': its program can loop without "
				       "ever blocking or running (add a RUN or SLEEP with ns > 0, "
				       "a RECV, or a TOUCH with ns or accesses > 0)",
				       wn, cn);
	}
	if (per_instance <= 0 || instances <= 0)
		return invalid(err, "workload '%s' has no tasks", wn);
	if (per_instance * instances > TS_SIM_MAX_TASKS)
		return invalid(err, "workload '%s': %d x %lld tasks exceed the bound of %d", wn,
			       instances, (long long)per_instance, TS_SIM_MAX_TASKS);
	if (time_s && !any_limit)
		return invalid(
			err,
			"workload '%s' measures time to finish but no task class has iterations",
			wn);
	if ((int64_t)w->channels_per_instance * instances > INT32_MAX)
		return invalid(err, "workload '%s': too many channels", wn);
	if ((unsigned)cfg->tg_layout >= TS_TG_LAYOUT_NR)
		return invalid(err, "unknown task-group layout %d", (int)cfg->tg_layout);
	if (cfg->groups && (cfg->groups->nr_entries <= 0 || cfg->groups->nr_nodes <= 0))
		return invalid(err, "the groups spec has no groups");
	if (cfg->bind != TS_BIND_NONE && w->nr_regions == 0)
		return invalid(err,
			       "workload '%s' has no memory regions: --bind needs a NUMA workload",
			       wn);
	return validate_regions(cfg, instances, err);
}

/* ---- setup and teardown ---- */

static void sim_free(struct sim *m)
{
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		struct sim_task *t = &m->tasks[i];
		ts_numa_task_free(m->s, &t->t);
		ts_task_destroy(&t->t);
		ts_cpumask_free(t->mem_bind);
		free(t->touch_cursor);
	}
	free(m->tasks);
	for (int i = 0; i < m->nr_chan; i++)
		sim_chan_free(&m->chan[i]);
	free(m->chan);
	for (int i = 0; i < m->nr_mms; i++)
		sim_mm_free(&m->mms[i]);
	free(m->mms);
	while (m->stops) {
		struct sim_numa_stop *st = m->stops;
		m->stops = st->next;
		free(st);
	}
	free(m->run_nodes);
	free(m->mem_lat);
	free(m->scan_region);
	free(m->numa_arrival);
	free(m->cpu);
	free(m->lat);
	ts_cpumask_free(m->allowed);
	sim_groups_free(m->groups); /* before the sched, which owns the groups */
	free(m->tg_exec);
	free(m->tg_stall);
	ts_sched_destroy(m->s);
	ts_eq_destroy(&m->q);
}

/* The nodes [lo, hi) of run_nodes a task belongs to under --bind (enum ts_home_rule);
 * inverse: the mirrored ones. */
static void home_range(const struct sim *m, enum ts_home_rule rule, int inst, int k, int n,
		       bool inverse, int *lo, int *hi)
{
	int N = m->nr_run_nodes, I = m->nr_instances;
	if (rule == TS_HOME_INSTANCE) {
		int i = inverse ? I - 1 - inst : inst;
		if (I <= N) {
			*lo = i * N / I;
			*hi = (i + 1) * N / I;
		} else {
			*lo = i % N;
			*hi = *lo + 1;
		}
	} else {
		int j = inverse ? n - 1 - k : k;
		*lo = (int)((int64_t)j * N / n);
		*hi = *lo + 1;
	}
}

/* Memory and NUMA balancing: address spaces, latencies, the run's nodes, costs. */
static int setup_memory(struct sim *m, const struct ts_sim_config *cfg, struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	const struct ts_topology *t = m->topo;
	int nn = t->nr_nodes;
	m->run_nodes = calloc((size_t)nn, sizeof(*m->run_nodes));
	m->mem_lat = calloc((size_t)nn * (size_t)nn, sizeof(*m->mem_lat));
	m->scan_region = calloc((size_t)w->nr_regions, sizeof(*m->scan_region));
	m->numa_arrival = calloc((size_t)m->nr_cpus, sizeof(*m->numa_arrival));
	m->mms = calloc((size_t)m->nr_instances, sizeof(*m->mms));
	if (!m->run_nodes || !m->mem_lat || !m->scan_region || !m->numa_arrival || !m->mms)
		return ts_error_set(err, -ENOMEM, "sim: out of memory for the memory model");
	for (int n = 0; n < nn; n++) {
		for (int c = 0; c < m->nr_cpus; c++)
			if (t->cpu[c].node == n &&
			    (!m->allowed || ts_cpumask_test(m->allowed, c))) {
				m->run_nodes[m->nr_run_nodes++] = n;
				break;
			}
		for (int k = 0; k < nn; k++)
			m->mem_lat[n * nn + k] = ts_cost_mem(m->costs, ts_topo_distance(t, n, k));
	}
	m->hint_fault_ns = m->costs->numa_hint_fault.value;
	m->stop_ns = m->costs->numa_stop_latency.value;
	m->scan_pmd_ns = m->costs->numa_scan_per_pmd.value;
	/* sched_numa_balancing: on with the feature, and only on a NUMA machine
	 * (check_numabalancing_enable(): num_online_nodes() > 1) */
	m->numa_scan = ts_features_has(cfg->features, TS_FEAT_NUMA) && nn > 1;
	uint64_t next_scan = m->now / m->tick_ns + msecs_to_jiffies(m, TS_NUMA_SCAN_DELAY_MS);
	for (int i = 0; i < m->nr_instances; i++) {
		if (sim_mm_init(&m->mms[i], i, w, nn))
			return ts_error_set(err, -ENOMEM,
					    "sim: out of memory for the memory model");
		m->nr_mms = i + 1;
		m->mms[i].numa_next_scan = next_scan; /* init_numa_balancing() of a new mm */
	}
	return 0;
}

/* TS_PREFAULT_PARENT: the parent faults the region in before forking its threads. */
static void prefault(struct sim *m, struct sim_mm *mm, const struct ts_sim_config *cfg)
{
	int first_cpu = 0;
	while (m->allowed && !ts_cpumask_test(m->allowed, first_cpu))
		first_cpu++;
	int parent = cpu_node(m, first_cpu), N = m->nr_run_nodes;
	for (int r = 0; r < mm->nr_regions; r++) {
		const struct sim_region *g = &mm->regions[r];
		if (g->desc->prefault != TS_PREFAULT_PARENT)
			continue;
		for (uint32_t i = 0; i < g->nr_chunks; i++) {
			int node = place_node(m, NULL, g, i, parent);
			if (g->desc->policy == TS_MEM_LOCAL && cfg->bind != TS_BIND_NONE)
				node = m->run_nodes[(uint64_t)i * (uint64_t)N / g->nr_chunks];
			sim_chunk_place(mm, g->first_chunk + i, node);
		}
	}
}

/* A task's --bind masks: CPUs of its CPU nodes (within the pin), MPOL_BIND nodes. */
static int bind_task(struct sim *m, struct sim_task *t, struct ts_cpumask *cpus,
		     struct ts_error *err)
{
	const struct ts_sim_config *cfg = m->cfg;
	int lo, hi;
	t->mem_bind = ts_cpumask_alloc(m->topo->nr_nodes);
	if (!t->mem_bind)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	home_range(m, t->cls->home, t->inst, t->idx, t->count, false, &lo, &hi);
	for (int i = lo; i < hi; i++)
		ts_cpumask_set(t->mem_bind, m->run_nodes[i]);
	home_range(m, t->cls->home, t->inst, t->idx, t->count, cfg->bind == TS_BIND_INVERSE, &lo,
		   &hi);
	ts_cpumask_zero(cpus);
	for (int c = 0; c < m->nr_cpus; c++) {
		if (m->allowed && !ts_cpumask_test(m->allowed, c))
			continue;
		for (int i = lo; i < hi; i++)
			if (cpu_node(m, c) == m->run_nodes[i])
				ts_cpumask_set(cpus, c);
	}
	return 0;
}

/* Task groups: the spec's groups in the run's sched, and a task joining its group. */
__attribute__((noinline)) static int tg_setup(struct sim *m, struct ts_error *err)
{
	const struct ts_sim_config *cfg = m->cfg;
	int rc = sim_groups_create(m->s, cfg->groups, m->w, m->nr_instances, m->nr_tasks, m->topo,
				   m->costs, &m->groups, err);
	if (rc)
		return rc;
	m->tg_exec = calloc((size_t)m->groups->nr_top + 1, sizeof(*m->tg_exec));
	m->tg_stall = calloc((size_t)m->nr_cpus, sizeof(*m->tg_stall));
	if (!m->tg_exec || !m->tg_stall)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	return 0;
}

__attribute__((noinline)) static int tg_join(struct sim *m, struct sim_task *t, int ci, int inst,
					     struct ts_error *err)
{
	struct ts_task_group *tg = sim_groups_place(m->groups, t->t.id, ci, inst);
	int rc = tg ? ts_task_set_group(m->s, &t->t, tg) : 0;
	if (rc)
		return ts_error_set(err, rc, "sim: task %d cannot join group '%s'", t->t.id,
				    tg->name);
	return 0;
}

static int setup(struct sim *m, const struct ts_sim_config *cfg, struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	m->cfg = cfg;
	m->w = w;
	m->topo = cfg->topo;
	m->nr_cpus = cfg->topo->nr_cpus;
	m->err = err;
	m->costs = cfg->costs;
	if (!m->costs) {
		if (ts_cost_model_for(m->topo, m->topo->name, &m->own_costs, NULL) &&
		    ts_cost_model_for(m->topo, NULL, &m->own_costs, err))
			return err ? err->code : -EINVAL;
		m->costs = &m->own_costs;
	}
	for (int r = 0; r < TS_REL_NR; r++) {
		m->c2c[r] = ts_cost_c2c(m->costs, (enum ts_cpu_relation)r, 0);
		m->bulk[r] = ts_cost_bulk_per_kib(m->costs, (enum ts_cpu_relation)r, 0);
		m->refill[r] = ts_cost_refill_per_kib(m->costs, (enum ts_cpu_relation)r, 0);
		m->scan[r] = ts_cost_scan_per_cpu(m->costs, (enum ts_cpu_relation)r, 0);
	}
	m->scan_mix_per_cpu = m->scan[TS_REL_LLC];
	m->ctx_switch_ns = ns_of(m->costs->ctx_switch.value);
	m->idle_exit_ns = ns_of(m->costs->idle_exit.value);
	unsigned int hz = cfg->hz ? cfg->hz : TS_HZ_DEFAULT;
	m->tick_ns = 1000000000ULL / hz;
	m->t0 = m->tick_ns;
	m->now = m->t0;
	ts_rng_seed(&m->rng, cfg->seed);

	int rc = ts_eq_init(&m->q, 1024);
	if (rc)
		return ts_error_set(err, rc, "sim: out of memory");
	m->q.now = m->t0;
	if (cfg->pin) {
		m->allowed = ts_cpumask_alloc(m->nr_cpus);
		if (!m->allowed)
			return ts_error_set(err, -ENOMEM, "sim: out of memory");
		for (int c = 0; c < m->nr_cpus && c < cfg->pin->nr_cpus; c++)
			if (ts_cpumask_test(cfg->pin, c))
				ts_cpumask_set(m->allowed, c);
		m->nr_allowed = ts_cpumask_weight(m->allowed);
	} else {
		m->nr_allowed = m->nr_cpus;
	}
	int nr_cpus, nr_nodes;
	run_extent(cfg, &nr_cpus, &nr_nodes);
	m->nr_instances = ts_workload_instances(w, nr_nodes, cfg->load);
	m->cpu = calloc((size_t)m->nr_cpus, sizeof(*m->cpu));
	m->lat = calloc(1, sizeof(*m->lat));
	int per_instance = 0;
	for (int ci = 0; ci < w->nr_classes; ci++)
		per_instance += ts_class_count(&w->classes[ci], m->nr_allowed, cfg->load);
	m->nr_tasks = per_instance * m->nr_instances;
	m->tasks = calloc((size_t)m->nr_tasks, sizeof(*m->tasks));
	m->nr_chan = w->channels_per_instance * m->nr_instances;
	m->chan = m->nr_chan ? calloc((size_t)m->nr_chan, sizeof(*m->chan)) : NULL;
	if (!m->cpu || !m->lat || !m->tasks || (m->nr_chan && !m->chan))
		return ts_error_set(err, -ENOMEM, "sim: out of memory for %d tasks", m->nr_tasks);
	if (w->nr_regions > 0 && (rc = setup_memory(m, cfg, err)))
		return rc;
	struct ts_sched_config scfg = {.hz = hz, .cpu_map = NULL, .tg_layout = cfg->tg_layout};
	rc = ts_sched_create(m->topo, cfg->features, cfg->groups ? &sim_ops_groups : &sim_ops, m,
			     &scfg, &m->s, err);
	if (rc)
		return rc;
	if (cfg->groups && (rc = tg_setup(m, err))) /* before the tasks join them */
		return rc;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		post(m, m->t0 + m->tick_ns, EV_TICK, cpu, NULL, 0);
	if (w->metric == TS_METRIC_TIME_S) {
		uint64_t cap = cfg->duration_ns ? cfg->duration_ns : TS_SIM_TIME_CAP_NS;
		post(m, m->t0 + cap, EV_END, -1, NULL, 0);
		window_open(m);
	} else {
		post(m, m->t0 + cfg->warmup_ns, EV_WINDOW, -1, NULL, 0);
		post(m, m->t0 + cfg->warmup_ns + cfg->duration_ns, EV_END, -1, NULL, 0);
	}

	/* Create and fork every task from CPU 0. */
	m->cur_cpu = 0;
	struct ts_cpumask *bound = NULL;
	if (cfg->bind != TS_BIND_NONE && !(bound = ts_cpumask_alloc(m->nr_cpus)))
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	int id = 0;
	for (int inst = 0; inst < m->nr_instances; inst++) {
		struct sim_mm *mm = m->nr_mms ? &m->mms[inst] : NULL;
		if (mm) {
			mm->first_task = id;
			prefault(m, mm, cfg);
		}
		for (int ci = 0; ci < w->nr_classes; ci++) {
			const struct ts_task_class *c = &w->classes[ci];
			int count = ts_class_count(c, m->nr_allowed, cfg->load);
			for (int k = 0; k < count; k++, id++) {
				struct sim_task *t = &m->tasks[id];
				m->nr_tasks_inited = id + 1; /* freed by sim_free() from here on */
				t->cls = c;
				t->cls_index = ci;
				t->inst = inst;
				t->idx = k;
				t->count = count;
				t->mm = mm;
				if (bound && (rc = bind_task(m, t, bound, err)))
					break;
				rc = ts_task_init(m->s, &t->t, c->nice, bound ? bound : m->allowed,
						  0, err);
				if (rc)
					break;
				t->t.host_data = t;
				t->t.id = id;
				t->on_cpu = -1;
				t->last_cpu = -1;
				t->pro = c->nr_prologue > 0;
				t->prog = t->pro ? c->prologue : c->phases;
				t->prog_n = t->pro ? c->nr_prologue : c->nr_phases;
				t->limit = class_limit(cfg, c);
				if (t->limit)
					m->limited_tasks++;
				if (mm) {
					t->touch_cursor =
						calloc((size_t)(c->nr_prologue + c->nr_phases),
						       sizeof(*t->touch_cursor));
					if (!t->touch_cursor) {
						rc = ts_error_set(err, -ENOMEM,
								  "sim: out of memory");
						break;
					}
					rc = ts_numa_task_init(m->s, &t->t, &mm->numa, err);
					if (rc)
						break;
				}
				if (m->groups && (rc = tg_join(m, t, ci, inst, err)))
					break;
			}
			if (rc)
				break;
		}
		if (rc)
			break;
		if (mm)
			mm->nr_tasks = id - mm->first_task;
	}
	ts_cpumask_free(bound);
	if (rc)
		return rc;
	/* Start jitter: each task's first wake-up at T0 + uniform [0, tick), forked from
	 * CPU 0 (see the header). */
	for (int i = 0; i < m->nr_tasks; i++)
		post(m, m->t0 + ts_rng_below(&m->rng, m->tick_ns), EV_START, 0, &m->tasks[i], 0);
	for (int cpu = 0; m->groups && cpu < m->nr_cpus; cpu++)
		m->tg_stall[cpu] = 0; /* joining groups is set-up, not run time */
	return m->error;
}

/* ---- the run ---- */

static void fill_result(struct sim *m, struct ts_sim_result *out)
{
	struct stat_snap end;
	snapshot(m, &end);
	const struct stat_snap *a = &m->snap0;
	uint64_t win = m->in_window ? m->now - m->win_start : 0;
	double win_s = (double)win / 1e9;
	out->marks = m->marks;
	out->bytes = m->bytes;
	out->sim_ns = m->now - m->t0;
	out->events = m->events;
	out->sis.search = end.sis.search - a->sis.search;
	out->sis.domain_search = end.sis.domain_search - a->sis.domain_search;
	out->sis.scanned = end.sis.scanned - a->sis.scanned;
	out->sis.failed = end.sis.failed - a->sis.failed;
	out->sis.recent_hit = end.sis.recent_hit - a->sis.recent_hit;
	out->sis.recent_miss = end.sis.recent_miss - a->sis.recent_miss;
	out->sis.core_search = end.sis.core_search - a->sis.core_search;
	out->sis.core_failed = end.sis.core_failed - a->sis.core_failed;
	for (int i = 0; i < TS_PLACE_NR; i++)
		out->reasons[i] = end.reasons[i] - a->reasons[i];
	for (int i = 0; i < TS_REL_NR; i++)
		out->wakeups_by_relation[i] = end.by_rel[i] - a->by_rel[i];
	for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
		out->scan_hist[i] = end.scan_hist[i] - a->scan_hist[i];
	out->wakeups = end.wakeups - a->wakeups;
	out->migrations = end.migrations - a->migrations;
	out->busy_ns = end.busy - a->busy;
	out->exec_ns = end.exec - a->exec;
	out->cpu_util = win ? (double)out->busy_ns / ((double)m->nr_allowed * (double)win) : 0;
	uint64_t queued = 0;
	for (int i = 0; i < m->nr_chan; i++)
		queued += m->chan[i].count;
	out->messages_sent = m->msgs_sent;
	out->messages_received = m->msgs_recv;
	out->messages_queued = queued;
	static const double q[4] = {0.50, 0.90, 0.99, 0.999};
	for (int i = 0; i < 4; i++) {
		double v = sim_hist_percentile(m->lat, q[i]);
		out->wakeup_lat_us[i] = v < 0 ? -1 : v / 1000.0;
	}
	bool time_s = m->w->metric == TS_METRIC_TIME_S;
	out->finished = time_s ? m->exited_limited == m->limited_tasks : m->window_done;
	switch (m->w->metric) {
	case TS_METRIC_THROUGHPUT_MBS:
		out->metric = win ? (double)m->bytes / 1e6 / win_s : 0;
		break;
	case TS_METRIC_TPS_PER_INSTANCE:
		out->metric = win ? (double)m->marks / win_s / m->cfg->load : 0;
		break;
	case TS_METRIC_TIME_S:
		out->metric = (double)(m->now - m->t0) / 1e9;
		break;
	case TS_METRIC_WAKEUP_P99_US:
		out->metric = out->wakeup_lat_us[2];
		break;
	case TS_METRIC_US_PER_MARK:
		out->metric = m->marks ? (double)win / 1e3 / (double)m->marks : -1;
		break;
	case TS_METRIC_OPS_PER_S:
		out->metric = win ? (double)m->marks / win_s : 0;
		break;
	}
	if (m->groups)
		tg_result(m, out);
	if (!m->nr_mms)
		return;
	/* NUMA balancing: the core's counters over the window, the engine's own */
	struct ts_sim_numa *nu = &out->numa;
	*nu = m->numa;
	const struct ts_numa_cpu_stats *e = &end.numa, *b = &a->numa;
#define NUMA_DELTA(field) (ts_stat_read(&e->field) - ts_stat_read(&b->field))
	nu->hint_faults = NUMA_DELTA(hint_faults);
	nu->hint_faults_local = NUMA_DELTA(hint_faults_local);
	nu->hint_faults_remote = NUMA_DELTA(hint_faults_remote);
	nu->hint_faults_private = NUMA_DELTA(hint_faults_private);
	nu->hint_faults_shared = NUMA_DELTA(hint_faults_shared);
	nu->pages_migrated = NUMA_DELTA(pages_migrated);
	nu->migrate_attempts = NUMA_DELTA(migrate_attempts);
	nu->task_migrations = NUMA_DELTA(migrations);
	nu->task_swaps = NUMA_DELTA(swaps);
	nu->task_stick = NUMA_DELTA(stick);
	nu->applied = NUMA_DELTA(applied);
	nu->reserve_conflicts = NUMA_DELTA(reserve_conflicts);
	nu->reserve_conflict_alt = NUMA_DELTA(reserve_conflict_alt);
	nu->reserve_conflict_noalt = NUMA_DELTA(reserve_conflict_noalt);
	nu->reserved_skips = NUMA_DELTA(reserved_skips);
#undef NUMA_DELTA
	nu->system_ns = ns_of(m->numa_sys_ns);
	/* At the end: where every task with a preferred node ran last (an exited task's CPU
	 * is the one it exited on). */
	for (int i = 0; i < m->nr_tasks_inited; i++) {
		const struct ts_task *p = &m->tasks[i].t;
		if (!p->numa || p->numa->numa_preferred_nid == TS_NUMA_NO_NODE)
			continue;
		nu->tasks_numa++;
		nu->tasks_preferred += cpu_node(m, p->cpu) == p->numa->numa_preferred_nid;
	}
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ts_sim_run(const struct ts_sim_config *cfg, struct ts_sim_result *out, struct ts_error *err)
{
	int rc = validate(cfg, err);
	if (rc)
		return rc;
	if (!out)
		return invalid(err, "no result to fill");
	double wall0 = wall_now();
	struct sim *m = calloc(1, sizeof(*m));
	if (!m)
		return ts_error_set(err, -ENOMEM, "sim: out of memory");
	m->tg_exec_cpu = -1;
	rc = setup(m, cfg, err);
	if (rc) {
		sim_free(m);
		free(m);
		return rc;
	}
	struct ts_event ev;
	uint64_t max_events = cfg->max_events;
	while (!m->stop && ts_eq_pop(&m->q, &ev)) {
		if (ev.kind == EV_DONE && ev.gen != m->cpu[ev.cpu].gen)
			continue; /* cancelled */
		SIM_CHECK(ev.time >= m->now, "virtual time went back from %llu to %llu",
			  (unsigned long long)m->now, (unsigned long long)ev.time);
		if (max_events && m->events >= max_events) {
			m->truncated = true;
			break;
		}
		m->now = ev.time;
		m->events++;
		m->cur_cpu = ev.cpu;
		switch (ev.kind) {
		case EV_TICK:
			on_tick(m, ev.cpu);
			break;
		case EV_START:
			on_start(m, ev.obj);
			break;
		case EV_DONE: {
			struct sim_cpu *c = &m->cpu[ev.cpu];
			stop_segment(m, ev.cpu);
			SIM_CHECK(c->curr && c->curr->work == 0,
				  "CPU %d: segment done with work left", ev.cpu);
			cpu_run(m, ev.cpu);
			break;
		}
		case EV_RESCHED:
			m->cpu[ev.cpu].resched_posted = false;
			do_resched(m, ev.cpu);
			break;
		case EV_TIMER:
			/* An idle CPU first leaves its idle state to take the interrupt. */
			if (!ev.gen && !m->cpu[ev.cpu].curr && m->idle_exit_ns) {
				post(m, m->now + m->idle_exit_ns, EV_TIMER, ev.cpu, ev.obj, m->now);
				break;
			}
			on_timer(m, ev.cpu, ev.obj, ev.gen ? ev.gen : m->now);
			break;
		case EV_WINDOW:
			m->cur_cpu = 0;
			window_open(m);
			break;
		case EV_END:
			m->window_done = true;
			m->stop = true;
			break;
		case EV_NUMA_STOP:
			on_numa_stop(m, ev.obj);
			break;
		}
		if (ev.cpu >= 0)
			finish_cpu(m, ev.cpu);
	}
	/* Pages are conserved in every build: a violation is an internal error of the run. */
	char why[256];
	for (int i = 0; i < m->nr_mms && !m->error; i++)
		if (sim_mm_check(&m->mms[i], why, sizeof(why)))
			fail(m, -EFAULT, "sim: internal error: pages not conserved: %s", why);
	if (!m->error) {
#ifndef NDEBUG
		check_invariants(m);
		check_tasks(m);
#endif
		memset(out, 0, sizeof(*out));
		fill_result(m, out);
		out->wall_s = wall_now() - wall0;
	}
	rc = m->error;
	sim_free(m);
	free(m);
	return rc;
}
