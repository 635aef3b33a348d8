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
 * resched request arrives), TIMER (a SLEEP ends), WINDOW (the measured window opens) and
 * END.
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
 * virtual time (the core's own max_newidle_lb_cost therefore stays 0); memory placement
 * (mem_local / mem_per_distance) is not used yet (no phase touches memory); the forking
 * parent is not modelled: START forks from CPU 0 whether or not anything runs there, so
 * with staggered starts fork balancing often finds CPU 0 (or its group) idle and keeps
 * quickly-blocking tasks there, where a real parent would be running on it; wake-up
 * scans spread them later (once SIS_UTIL has its first budget, see docs/model.md).
 *
 * Invariants checked in debug builds: the lock contract above; a task is the current
 * task of at most one CPU and the engine's current task is the core's rq->curr; tasks the
 * engine holds runnable = the sum of nr_running (every tick of CPU 0 and at the end);
 * virtual time never goes backwards; every message sent is received or still queued. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/channel.h"
#include "sim/event_queue.h"
#include "sim/groups_run.h"
#include "sim/latency_hist.h"
#include "sim/rng.h"
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

enum ev_kind { EV_TICK, EV_START, EV_DONE, EV_RESCHED, EV_TIMER, EV_WINDOW, EV_END };

struct sim_task {
	struct ts_task t;          /* the core's task; t.host_data points back here */
	struct sim_wait_link wait; /* on a channel's receiver or sender queue */
	const struct ts_task_class *cls;
	int cls_index, inst, idx;  /* class, instance, index among the class's tasks in it */
	int pc;                    /* next phase */
	uint64_t iter, limit;      /* iterations done / to do (0 = unbounded) */
	uint64_t work;             /* ns of CPU work before the program moves on */
	double work_frac;          /* sub-ns part of the costs added so far */
	uint32_t send_bytes;       /* SEND being retried: its size (0 = not drawn yet) */
	int on_cpu;                /* CPU it is the current task of, or -1 */
	int last_cpu;              /* CPU it last ran on (-1: never ran) */
	uint64_t wake_ns;          /* when it was last woken */
	bool woken;                /* woken, not yet run since */
	bool exiting, exited;
};

struct sim_cpu {
	struct sim_task *curr;    /* the engine's view (== rq->curr) */
	uint64_t seg_start;       /* start of the running work segment */
	uint64_t gen;             /* DONE events carry it: a stale one is skipped */
	uint64_t busy_since, busy_total;
	bool seg_active;
	bool need_resched;        /* set by resched_cpu() while this CPU's event is handled */
	bool resched_posted;      /* a RESCHED event is on its way */
	bool locked;
};

struct stat_snap {
	struct ts_sis_counts sis;
	uint64_t reasons[TS_PLACE_NR];
	uint64_t by_rel[TS_REL_NR];
	uint64_t scan_hist[TS_SCAN_HIST_BUCKETS];
	uint64_t wakeups, migrations;
	uint64_t busy, exec;
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
	int cur_cpu;          /* the CPU whose event is being handled */
	int nr_locked;
	uint64_t ctx_switch_ns, idle_exit_ns;
	double c2c[TS_REL_NR], bulk[TS_REL_NR], refill[TS_REL_NR], scan[TS_REL_NR];
	double scan_mix_per_cpu; /* mean scan cost per CPU of the last scanning placement */

	bool in_window, window_done, stop, truncated;
	uint64_t win_start, win_end;
	struct stat_snap snap0;

	uint64_t marks, bytes, msgs_sent, msgs_recv, events;
	int64_t nr_runnable;  /* tasks the engine made runnable and not yet blocked/exited */
	int limited_tasks, exited_limited;
	uint64_t finish_ns;
	struct sim_hist *lat;
	int error;
	struct ts_error *err;
	/* ---- task groups (cfg->groups; NULL without) ---- */
	struct sim_groups *groups;
	uint64_t *tg_exec; /* [groups->nr_top + 1] scratch for CPU time by top-level group */
	double *tg_stall;  /* [nr_cpus] line stalls not charged yet (see host_tg_line_access) */
};

static inline struct sim_task *sim_task_of(struct ts_task *p) { return p->host_data; }

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
#define SIM_CHECK(cond, ...)                     \
	do {                                     \
		if (!(cond))                     \
			internal_error(__VA_ARGS__); \
	} while (0)
#else
#define SIM_CHECK(cond, ...) ((void)sizeof(!(cond)))
#endif

static void fail(struct sim *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
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
			     double (*between)(const struct ts_cost_model *, const struct ts_topology *,
					       int, int),
			     int a, int b)
{
	enum ts_cpu_relation rel = ts_topology_relation(m->topo, a, b);
	if (rel != TS_REL_REMOTE)
		return tier[rel];
	return between(m->costs, m->topo, a, b); /* scaled by the SLIT distance */
}

static inline uint64_t ns_of(double v) { return v > 0 ? (uint64_t)llround(v) : 0; }

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
	struct ts_event ev = { .time = time, .kind = kind, .cpu = cpu, .obj = obj, .gen = gen };
	int rc = ts_eq_push(&m->q, ev);
	if (rc == -ENOMEM)
		fail(m, -ENOMEM, "sim: out of memory for events");
	SIM_CHECK(rc != -EINVAL, "event at %llu before now %llu", (unsigned long long)time,
		  (unsigned long long)m->q.now);
}

/* ---- the host interface ---- */

static uint64_t host_clock(void *h) { return ((struct sim *)h)->now; }

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
 * The core reports each access to a group's shared lines (tg_line_access) with the CPU
 * making it: the CPU of the run queue it works on, which is the kernel's for a wake-up
 * across LLCs (TTWU_QUEUE: the target CPU enqueues the task itself) and a simplification
 * within one LLC, where the kernel's waker enqueues on the remote queue (the transfer tier
 * is the same, the line ends in the target's cache instead of the waker's). The line model
 * (sim/line_model.h) prices the access; the stall is CPU time of that CPU, charged like
 * the other costs as work of the task running there: at once when another CPU is busy
 * (its running segment is extended); for the CPU whose event is being handled, collected
 * while the handler runs and charged to the task switched in next (set_curr), to the
 * waker with its wake-up's scan time (wake), or to the current task when it keeps running
 * after a tick or a fork (tg_settle); an idle CPU that stays idle absorbs it (an idle CPU
 * that is woken pays it in the woken task). */
static void start_segment(struct sim *m, int cpu);
static void stop_segment(struct sim *m, int cpu);

static void host_tg_line_access(void *h, int cpu, const void *line, bool write)
{
	struct sim *m = h;
	if (!m->groups)
		return; /* not set up yet */
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

static const struct ts_host_ops sim_ops_groups = {
	.clock = host_clock,
	.resched_cpu = host_resched,
	.rq_lock = host_lock,
	.rq_unlock = host_unlock,
	.scan_time = host_scan_time,
	.tg_line_access = host_tg_line_access,
};

static inline void lock(struct sim *m, int cpu) { host_lock(m, cpu); }
static inline void unlock(struct sim *m, int cpu) { host_unlock(m, cpu); }

/* ---- CPU execution ---- */

static bool measuring(const struct sim *m) { return m->in_window; }

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
	t->work = done >= t->work ? 0 : t->work - done;
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
	struct ts_placement pl = ts_try_to_wake_up(m->s, &t->t, cpu, waker ? &waker->t : NULL, flags);
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
	if (m->groups) { /* task groups: the line stalls of the wake-up, paid by the waker */
		cost += m->tg_stall[cpu];
		m->tg_stall[cpu] = 0;
	}
	return cost;
}

enum step { STEP_SEGMENT, STEP_BLOCK, STEP_EXIT };

static void advance(struct sim_task *t)
{
	if (++t->pc < t->cls->nr_phases)
		return;
	t->pc = 0;
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
			     "sim: workload '%s' class '%s' runs its program without ever using time "
			     "or blocking",
			     m->w->name, t->cls->name ? t->cls->name : "?");
			return STEP_EXIT;
		}
		const struct ts_phase *ph = &t->cls->phases[t->pc];
		switch (ph->kind) {
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
					t->send_bytes = draw_size(m, t->cls_index == 0 ? &m->w->request_mix
										   : &m->w->reply_mix);
				if (!t->send_bytes)
					t->send_bytes = UINT32_MAX; /* a drawn 0: "drawn" marker */
			}
			uint32_t bytes = t->send_bytes == UINT32_MAX ? 0 : t->send_bytes;
			if (!sim_chan_fits(ch, bytes, m->w->channel_capacity)) {
				sim_waitq_push(&ch->senders, &t->wait);
				return STEP_BLOCK;
			}
			if (sim_chan_push(ch, (struct sim_msg){ .bytes = bytes, .sender_cpu = cpu })) {
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
					(struct sim_task *)((char *)l - offsetof(struct sim_task, wait));
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
					(struct sim_task *)((char *)l - offsetof(struct sim_task, wait));
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
}
#endif

/* ---- event handlers ---- */

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

static int invalid(struct ts_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
		return invalid(err, "workload '%s': a SEND of 0 bytes needs a %s size mix, which is empty",
			       wname, which);
	uint64_t total = 0;
	for (int i = 0; i < mix->n; i++)
		total += mix->weight[i];
	if (!total)
		return invalid(err, "workload '%s': the %s size mix has no weight", wname, which);
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
		return invalid(err, "workload '%s': load must be at least 1 (got %d)", wn, cfg->load);
	if (cfg->iterations < 0)
		return invalid(err, "workload '%s': negative iterations %d", wn, cfg->iterations);
	if (cfg->hz > 100000)
		return invalid(err, "tick frequency %u Hz is above 100000", cfg->hz);
	bool time_s = w->metric == TS_METRIC_TIME_S;
	if ((int)w->metric < 0 || w->metric > TS_METRIC_US_PER_MARK)
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
	int64_t per_instance = 0;
	bool any_limit = false;
	for (int ci = 0; ci < w->nr_classes; ci++) {
		const struct ts_task_class *c = &w->classes[ci];
		const char *cn = c->name ? c->name : "?";
		if (c->count < 0)
			return invalid(err, "workload '%s' class '%s': negative task count", wn, cn);
		if (c->nice < -20 || c->nice > 19)
			return invalid(err, "workload '%s' class '%s': nice %d outside -20..19", wn, cn,
				       c->nice);
		if (c->iterations < 0)
			return invalid(err, "workload '%s' class '%s': negative iterations", wn, cn);
		if (!c->phases || c->nr_phases <= 0)
			return invalid(err, "workload '%s' class '%s' has no phases", wn, cn);
		per_instance += c->count;
		if (c->count > 0 && class_limit(cfg, c))
			any_limit = true;
		bool takes_time = false;
		for (int pi = 0; pi < c->nr_phases; pi++) {
			const struct ts_phase *ph = &c->phases[pi];
			switch (ph->kind) {
			case TS_PH_RUN:
			case TS_PH_SLEEP:
				if (ph->dist < TS_DIST_FIXED || ph->dist > TS_DIST_UNIFORM)
					return invalid(err, "workload '%s' class '%s' phase %d: unknown distribution",
						       wn, cn, pi);
				if (ph->ns > 0 || ph->kind == TS_PH_SLEEP)
					takes_time = true;
				break;
			case TS_PH_SEND:
			case TS_PH_RECV: {
				const struct ts_chan_ref *r = &ph->ch;
				if (r->chan < 0 || r->iter_mod < 0)
					return invalid(err, "workload '%s' class '%s' phase %d: negative channel or iter_mod",
						       wn, cn, pi);
				int64_t hi = (int64_t)r->chan + (r->per_instance && c->count > 0 ? c->count - 1 : 0) +
					     (r->iter_mod ? r->iter_mod - 1 : 0);
				if (hi >= w->channels_per_instance)
					return invalid(err, "workload '%s' class '%s' phase %d: channel index %lld out of range (the instance has %d channels)",
						       wn, cn, pi, (long long)hi, w->channels_per_instance);
				if (ph->kind == TS_PH_RECV)
					takes_time = true; /* blocks when empty */
				else if (w->channel_capacity)
					takes_time = true; /* blocks when full */
				if (ph->kind == TS_PH_SEND && ph->bytes == 0) {
					int rc = validate_mix(ci == 0 ? &w->request_mix : &w->reply_mix, wn,
							      ci == 0 ? "request" : "reply", err);
					if (rc)
						return rc;
				}
				break;
			}
			case TS_PH_MARK:
				break;
			default:
				return invalid(err, "workload '%s' class '%s' phase %d: unknown kind %d", wn,
					       cn, pi, (int)ph->kind);
			}
		}
		if (!takes_time)
			return invalid(err, "workload '%s' class '%s': its program can loop without ever blocking or running (add a RUN or SLEEP with ns > 0, or a RECV)",
				       wn, cn);
	}
	if (per_instance <= 0)
		return invalid(err, "workload '%s' has no tasks", wn);
	if (per_instance * cfg->load > TS_SIM_MAX_TASKS)
		return invalid(err, "workload '%s': %d x %lld tasks exceed the bound of %d", wn,
			       cfg->load, (long long)per_instance, TS_SIM_MAX_TASKS);
	if (time_s && !any_limit)
		return invalid(err, "workload '%s' measures time to finish but no task class has iterations",
			       wn);
	if ((int64_t)w->channels_per_instance * cfg->load > INT32_MAX)
		return invalid(err, "workload '%s': too many channels", wn);
	if ((unsigned)cfg->tg_layout >= TS_TG_LAYOUT_NR)
		return invalid(err, "unknown task-group layout %d", (int)cfg->tg_layout);
	if (cfg->groups && (cfg->groups->nr_entries <= 0 || cfg->groups->nr_nodes <= 0))
		return invalid(err, "the groups spec has no groups");
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
	return 0;
}

/* ---- setup and teardown ---- */

static void sim_free(struct sim *m)
{
	for (int i = 0; i < m->nr_tasks_inited; i++)
		ts_task_destroy(&m->tasks[i].t);
	free(m->tasks);
	for (int i = 0; i < m->nr_chan; i++)
		sim_chan_free(&m->chan[i]);
	free(m->chan);
	free(m->cpu);
	free(m->lat);
	ts_cpumask_free(m->allowed);
	sim_groups_free(m->groups); /* before the sched, which owns the groups */
	free(m->tg_exec);
	free(m->tg_stall);
	ts_sched_destroy(m->s);
	ts_eq_destroy(&m->q);
}

/* Task groups: the spec's groups in the run's sched, and a task joining its group. */
__attribute__((noinline)) static int tg_setup(struct sim *m, struct ts_error *err)
{
	const struct ts_sim_config *cfg = m->cfg;
	int rc = sim_groups_create(m->s, cfg->groups, m->w, cfg->load, m->nr_tasks, m->topo,
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
		m->c2c[r] = ts_cost_c2c(m->costs, r, 0);
		m->bulk[r] = ts_cost_bulk_per_kib(m->costs, r, 0);
		m->refill[r] = ts_cost_refill_per_kib(m->costs, r, 0);
		m->scan[r] = ts_cost_scan_per_cpu(m->costs, r, 0);
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
	m->cpu = calloc((size_t)m->nr_cpus, sizeof(*m->cpu));
	m->lat = calloc(1, sizeof(*m->lat));
	int per_instance = 0;
	for (int ci = 0; ci < w->nr_classes; ci++)
		per_instance += w->classes[ci].count;
	m->nr_tasks = per_instance * cfg->load;
	m->tasks = calloc((size_t)m->nr_tasks, sizeof(*m->tasks));
	m->nr_chan = w->channels_per_instance * cfg->load;
	m->chan = m->nr_chan ? calloc((size_t)m->nr_chan, sizeof(*m->chan)) : NULL;
	if (!m->cpu || !m->lat || !m->tasks || (m->nr_chan && !m->chan))
		return ts_error_set(err, -ENOMEM, "sim: out of memory for %d tasks", m->nr_tasks);
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
	struct ts_sched_config scfg = { .hz = hz, .cpu_map = NULL, .tg_layout = cfg->tg_layout };
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
	int id = 0;
	for (int inst = 0; inst < cfg->load; inst++) {
		for (int ci = 0; ci < w->nr_classes; ci++) {
			const struct ts_task_class *c = &w->classes[ci];
			for (int k = 0; k < c->count; k++, id++) {
				struct sim_task *t = &m->tasks[id];
				rc = ts_task_init(m->s, &t->t, c->nice, m->allowed, 0, err);
				if (rc)
					return rc;
				m->nr_tasks_inited = id + 1;
				t->t.host_data = t;
				t->t.id = id;
				t->cls = c;
				t->cls_index = ci;
				t->inst = inst;
				t->idx = k;
				t->on_cpu = -1;
				t->last_cpu = -1;
				t->limit = class_limit(cfg, c);
				if (t->limit)
					m->limited_tasks++;
				if (m->groups && (rc = tg_join(m, t, ci, inst, err)))
					return rc;
			}
		}
	}
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
	static const double q[4] = { 0.50, 0.90, 0.99, 0.999 };
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
	}
	if (m->groups)
		tg_result(m, out);
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
			SIM_CHECK(c->curr && c->curr->work == 0, "CPU %d: segment done with work left",
				  ev.cpu);
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
		}
		if (ev.cpu >= 0)
			finish_cpu(m, ev.cpu);
	}
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
