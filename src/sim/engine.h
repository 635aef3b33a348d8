/* The simulator's engine, private to src/sim/engine_*.c: the state of one run (struct sim),
 * its tasks and CPUs, the small helpers every part of the engine calls on the hot path
 * (inline here), and the functions one part of the engine calls in another. How the
 * engine works, event by event: docs/engine.md. */
#ifndef TOPOSCHED_SIM_ENGINE_H
#define TOPOSCHED_SIM_ENGINE_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "channel.h"
#include "event_queue.h"
#include "groups_run.h"
#include "latency_hist.h"
#include "numa_memory.h"
#include "pipe_mutex.h"
#include "rng.h"
#include "segment_ends.h"
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

enum ev_kind {
	EV_TICK,
	EV_START,
	EV_DONE,
	EV_RESCHED,
	EV_TIMER,
	EV_WINDOW,
	EV_END,
	EV_NUMA_STOP,
	EV_STOP_PUSH,
	EV_TTWU, /* a wake-up's ttwu_queue() after its waker's selection (sim_ttwu_queue_due) */
};

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

/* What a task is: one of the workload's, or the benchmark's own start-up process. */
enum sim_role {
	SIM_ROLE_TASK,	   /* an instance's task of a workload class */
	SIM_ROLE_LAUNCHER, /* the benchmark's main process: forks, then releases the barrier */
	SIM_ROLE_LISTENER, /* a daemon in accept() forking a server per connection */
	SIM_ROLE_KWORKER,  /* a per-CPU kworker of the background (engine_background.c) */
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
	int waker_cpu;		  /* the CPU its last wake-up came from */
	int ttwu_cpu;		  /* TASK_WAKING: the CPU its wake-up selected, not queued yet */
	double cache_mark;	  /* its core's sim_cache_kib() when its last run there began */
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
	/* start-up (engine_start.c) */
	enum sim_role role;
	int child0, nr_children, next_child; /* it forks m->children[child0 ..] in order */
	int forking;			     /* the child whose fork it is paying for, or -1 */
	int server;    /* TS_PH_CONNECT: the task the listener forks for it, or -1 */
	bool arrived;  /* at the start barrier */
	bool released; /* TS_PH_COND_WAIT / BARRIER_WAIT: woken by the condition or barrier */
	/* TS_PH_TIMER: when it began its program (after the prologue), and each slot's next
	 * expiry once the slot is armed */
	bool loop_started;
	uint8_t timers_armed;
	uint64_t loop_start;
	uint64_t timer_next[TS_SIM_TASK_TIMERS];
	/* a kworker (engine_background.c): its CPU's task_runs when it last looked */
	uint64_t kw_seen;
	/* pipe->mutex (pipe_mutex.c): the one it holds, spins on or waits for */
	struct sim_pipe_mutex *mx;
	struct sim_task *mx_next; /* on mx's spinner list */
	uint8_t mx_state;	  /* enum sim_mx_state */
	uint8_t mx_stage;	  /* its pipe SEND/RECV: 0 to lock, 1 locked, 2 work charged */
	bool pipe_was;		  /* pipe_write()'s was_empty, pipe_read()'s was_full */
	bool pipe_waited;	  /* pipe_write() slept on a full pipe: wake_next_writer */
	bool pipe_merge;	  /* the write goes into the last page */
	bool mx_waiter;		  /* on mx's wait list */
	bool mx_nospin;		  /* need_resched ended its spin: it sleeps at the next try */
	bool mx_resched;	  /* a preemption waits for its unlock */
};

/* Domain levels whose balancing costs are kept per CPU (the presets have at most 5). */
#define SIM_LB_LEVELS 8

struct sim_cpu {
	struct sim_task *curr; /* the engine's view (== rq->curr) */
	uint64_t seg_start;    /* start of the running work segment */
	uint64_t busy_since, busy_total;
	bool seg_active;
	bool seg_touch;	     /* the segment is a TOUCH sweep (its task's touch.seg) */
	bool need_resched;   /* set by resched_cpu() while this CPU's event is handled */
	bool resched_posted; /* a RESCHED event is on its way */
	bool resched_wanted; /* ... for a resched request, not only the wakelist IPI */
	bool locked;
	/* load balancing's CPU time (sim_charge_balance): per pass and per task moved at
	 * each of its domain levels, base first; and what has been charged so far */
	double lb_pass[SIM_LB_LEVELS], lb_move[SIM_LB_LEVELS];
	int lb_levels;
	double lb_charged;
	/* kernel time (engine_background.c) */
	uint64_t kernel_until;	/* idle, it runs kernel work (interrupts, balancing) till then */
	uint64_t idle_since;	/* when its current (or last) idle period began */
	uint64_t next_softirq;	/* the first tick from which its next softirq is due */
	double newidle_charged; /* newly-idle balancing's CPU time charged so far */
	double newidle_timed;	/* ... and reported to the core so far */
	uint64_t task_runs;	/* workload and start-up tasks switched in */
	/* CPU speed (cpu_speed.c; only with m->speed) */
	double speed;	 /* work per ns now */
	double seg_done; /* work of the running segment done before seg_start */
};

struct stat_snap {
	struct ts_sis_counts sis;
	struct ts_sim_lb lb;
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
	struct sim_seg_ends ends; /* the DONE events: the segments' ends (segment_ends.h) */
	struct ts_rng rng;
	struct sim_cpu *cpu;
	double *core_cache_kib;	 /* [nr_cores]: KiB that entered each core's L2 (sim_cache_kib) */
	struct sim_speed *speed; /* SMT sharing and the clock (cpu_speed.c); NULL: speed 1 */
	int nr_cpus;
	struct sim_task *tasks;
	int nr_tasks, nr_tasks_inited;
	struct sim_channel *chan;
	int nr_chan;
	struct sim_pipe_mutex *mutexes; /* [nr_chan] when the workload locks its channels */
	struct ts_cpumask *allowed;	/* cfg->pin within the machine (NULL = all) */
	int nr_allowed;

	uint64_t now, t0, tick_ns;
	int cur_cpu; /* the CPU whose event is being handled */
	int nr_locked;
	uint64_t ctx_switch_ns, idle_exit_ns;
	double switch_out, run_kib, evict_refill_per_kib;
	double handoff[TS_REL_NR], wake_enqueue[TS_REL_NR];
	double c2c[TS_REL_NR], bulk[TS_REL_NR], refill[TS_REL_NR], scan[TS_REL_NR];
	double scan_mix_per_cpu; /* mean scan cost per CPU of the last scanning placement */
	/* background kernel activity and kernel time (engine_background.c) */
	bool background; /* ticks and softirqs cost CPU time (!cfg->no_background) */
	double tick_busy_ns, tick_idle_ns, softirq_ns, softirq_mean_ns;
	double vmstat_ns;	 /* a kworker's vmstat_update() run */
	uint64_t vmstat_jiffies; /* its interval */
	uint64_t jiffies_off;	 /* jiffies at T0 modulo hz (round_jiffies()' phase) */
	struct ts_rng noise_rng; /* the background's own stream */

	bool in_window, window_done, stop, truncated;
	uint64_t win_start, win_end;
	struct stat_snap snap0;
	struct sim_schedstat *schedstat; /* cfg->schedstat's window-open snapshot, or NULL */
	struct sim_trace *trace;	 /* cfg->trace's lines so far, or NULL */

	uint64_t marks, bytes, msgs_sent, msgs_recv, events;
	int64_t nr_runnable; /* tasks the engine made runnable and not yet blocked/exited */
	int64_t nr_waking;   /* of those, woken but not queued yet (EV_TTWU in flight) */
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
	double work_by[TS_WORK_NR];  /* work charged in the window, by term (ts_sim_work) */
	uint64_t ticks0;
	/* ---- task groups (cfg->groups; NULL without) ---- */
	struct sim_groups *groups;
	uint64_t *tg_exec; /* [groups->nr_top + 1] scratch for CPU time by top-level group */
	double *tg_stall;  /* [nr_cpus] line stalls not charged yet (see host_tg_line_access) */
	const struct sim_task *tg_wakee; /* the task sim_wake()'s ts_try_to_wake_up() wakes */
	int tg_exec_cpu; /* >= 0: the CPU executing the core's code now, instead of cur_cpu
			    (the target running a queued wake-up's activation) */
	/* ---- the benchmark's start-up (engine_start.c) ---- */
	struct sim_task *launcher, *listener; /* after the workload's tasks in tasks[] */
	int nr_sys;			      /* 1 or 2: the launcher and the listener */
	int *children;			      /* the forks of every parent, parent by parent */
	int *conns;			      /* the listener's accept queue (task ids) */
	int *fork_next; /* [inst * nr_classes + class]: the task the next TS_PH_FORK of a
			   TS_SPAWN_FORK class forks (NULL: the workload has none) */
	int nr_conns, conn_head;
	struct sim_task **barrier; /* tasks blocked at the start barrier */
	struct sim_sync *sync;	   /* [inst * syncs_per_instance + i] (engine_sync.c) */
	int nr_sync;
	int barrier_tasks, at_barrier;	     /* tasks with a BARRIER / arrived there */
	int nr_waiting;			     /* in barrier[] */
	bool launcher_waits, listener_waits; /* blocked until the last arrival / a connect */
	bool started;			     /* the benchmark started (window scheduled) */
	uint64_t idle_ns;		     /* the idle pre-phase (T0 to the launcher's start) */
	uint64_t start_ns;		     /* when the benchmark started */
	double fork_ns, accept_ns;
	uint64_t *scan_updates0;       /* per CPU: nr_idle_scan_updates at the start */
	bool *llc_seen;		       /* scratch, by sd_llc_id */
	struct ts_cpumask *lb_scratch; /* for ts_balance_finds_imbalance() */
	bool tasks_bound;	       /* some task may not run on every CPU of the run */
	uint64_t settle_ns;	       /* warm-up past cfg->warmup_ns (see sim_window_due()) */
	bool settle_capped;	       /* ... ended at a cap, unsettled */
	bool multi_node;	       /* the run's CPUs span several nodes */
	unsigned int *node_cpus, *node_running; /* per node, for nodes_uneven() */
};

static inline struct sim_task *sim_task_of(struct ts_task *p)
{
	return p->host_data;
}

/* Debug builds check the engine's invariants (docs/engine.md); a violation aborts with
 * "toposched sim: internal error: ...". */
#ifndef NDEBUG
__attribute__((noreturn, format(printf, 1, 2))) void sim_internal_error(const char *fmt, ...);
#define SIM_CHECK(cond, ...)                                                                       \
	do {                                                                                       \
		if (!(cond))                                                                       \
			sim_internal_error(__VA_ARGS__);                                           \
	} while (0)
#else
#define SIM_CHECK(cond, ...) ((void)sizeof(!(cond)))
#endif

void sim_fail(struct sim *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- costs ---- */

static inline double sim_cost_of(const struct sim *m, const double *tier,
				 double (*between)(const struct ts_cost_model *,
						   const struct ts_topology *, int, int),
				 int a, int b)
{
	enum ts_cpu_relation rel = ts_topology_relation(m->topo, a, b);
	if (rel != TS_REL_REMOTE)
		return tier[rel];
	return between(m->costs, m->topo, a, b); /* scaled by the SLIT distance */
}

static inline uint64_t sim_ns_of(double v)
{
	return v > 0 ? (uint64_t)llround(v) : 0;
}

/* Adds CPU work (ns, fractional) to a task, counted under no term: work that was counted
 * where it was priced (a wake-up's, sim_wake(); an idle CPU's kernel work a task waits
 * for). */
static inline void sim_task_add_work(struct sim_task *t, double ns)
{
	if (ns <= 0)
		return;
	double total = t->work_frac + ns;
	double whole = floor(total);
	t->work += (uint64_t)whole;
	t->work_frac = total - whole;
}

/* The term of work already counted where it was priced (a wake-up's, sim_wake()). */
#define SIM_WORK_COUNTED TS_WORK_NR

/* Counts ns of work charged now under term w (in the window only). */
static inline void sim_count_work(struct sim *m, enum ts_sim_work w, double ns)
{
	if (ns > 0 && m->in_window && w < TS_WORK_NR)
		m->work_by[w] += ns;
}

/* Work counted under w that is dropped before it ran (a spin cut short, a memory sweep's
 * segment planned again). */
static inline void sim_uncount_work(struct sim *m, enum ts_sim_work w, double ns)
{
	if (ns > 0 && m->in_window)
		m->work_by[w] -= ns;
}

/* Adds CPU work (ns, fractional) to a task, counted under term w. */
static inline void sim_add_work(struct sim *m, struct sim_task *t, double ns, enum ts_sim_work w)
{
	sim_count_work(m, w, ns);
	sim_task_add_work(t, ns);
}

/* ---- events ---- */

static inline void sim_post(struct sim *m, uint64_t time, int kind, int cpu, void *obj,
			    uint64_t gen)
{
	struct ts_event ev = {.time = time, .kind = kind, .cpu = cpu, .obj = obj, .gen = gen};
	int rc = ts_eq_push(&m->q, ev);
	if (rc == -ENOMEM)
		sim_fail(m, -ENOMEM, "sim: out of memory for events");
	SIM_CHECK(rc != -EINVAL, "event at %llu before now %llu", (unsigned long long)time,
		  (unsigned long long)m->q.now);
}

/* cpu's running segment ends at time: its DONE event, set or moved (segment_ends.h). It
 * takes the event queue's next seq, as if it were posted there. */
static inline void sim_post_end(struct sim *m, int cpu, uint64_t time)
{
	SIM_CHECK(time >= m->q.now, "segment end at %llu before now %llu", (unsigned long long)time,
		  (unsigned long long)m->q.now);
	sim_seg_ends_set(&m->ends, cpu, time, m->q.next_seq++);
}

/* The next event: the earlier of the event queue's first and the first segment end. */
static inline bool sim_next_event(struct sim *m, struct ts_event *ev)
{
	const struct ts_event *e = sim_seg_ends_peek(&m->ends);
	const struct ts_event *top = ts_eq_peek(&m->q);
	if (e && (!top || ts_eq_before(e, top))) {
		*ev = *e;
		ev->kind = EV_DONE;
		sim_seg_ends_pop(&m->ends);
		m->q.now = ev->time;
		return true;
	}
	return ts_eq_pop(&m->q, ev);
}

/* ---- rq locks (engine_host.c holds the host interface that the core calls) ---- */

extern const struct ts_host_ops sim_host_ops, sim_host_ops_groups;

static inline void sim_lock(struct sim *m, int cpu)
{
	SIM_CHECK(!m->cpu[cpu].locked, "rq lock of CPU %d taken twice", cpu);
	m->cpu[cpu].locked = true;
	m->nr_locked++;
}

static inline void sim_unlock(struct sim *m, int cpu)
{
	SIM_CHECK(m->cpu[cpu].locked, "rq lock of CPU %d released while free", cpu);
	m->cpu[cpu].locked = false;
	m->nr_locked--;
}

/* ---- CPU execution ---- */

static inline bool sim_measuring(const struct sim *m)
{
	return m->in_window;
}

static inline int sim_cpu_node(const struct sim *m, int cpu)
{
	return m->topo->cpu[cpu].node;
}
static inline const double *sim_lat_row(const struct sim *m, int node)
{
	return &m->mem_lat[node * m->topo->nr_nodes];
}

/* engine_numa.c: a TOUCH segment stopped early (rare: kept out of line) */
void sim_touch_stop(struct sim *m, struct sim_task *t, uint64_t done);

/* ns the running segment of c still takes at c's speed (cpu_speed.c). */
static inline uint64_t sim_seg_ns(const struct sim_cpu *c)
{
	double left = (double)c->curr->work - c->seg_done;
	return left > 0 ? (uint64_t)ceil(left / c->speed) : 0;
}

static inline void sim_start_segment(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	c->seg_start = m->now;
	c->seg_active = true;
	uint64_t ns = c->curr->work;
	if (m->speed) {
		c->seg_done = 0;
		ns = sim_seg_ns(c);
	}
	sim_post_end(m, cpu, m->now + ns);
}

/* llround() of work w >= 0 (below 2^63 ns), inline: the cast truncates, w - whole is
 * exact (whole <= w < whole + 1), and a half rounds up, away from zero, as llround's. */
static inline uint64_t sim_round_work(double w)
{
	uint64_t whole = (uint64_t)w;
	return whole + (w - (double)whole >= 0.5);
}

/* The running segment stops now: keep the work not yet done. */
static inline void sim_stop_segment(struct sim *m, int cpu)
{
	struct sim_cpu *c = &m->cpu[cpu];
	if (!c->seg_active)
		return;
	uint64_t done = m->now - c->seg_start;
	if (m->speed) /* work, not time: what was banked plus this stretch at its speed */
		done = sim_round_work(c->seg_done + (double)done * c->speed);
	struct sim_task *t = c->curr;
	if (__builtin_expect(c->seg_touch, 0)) {
		sim_touch_stop(m, t, done); /* the rest of the sweep is planned again */
		c->seg_touch = false;
	} else {
		t->work = done >= t->work ? 0 : t->work - done;
	}
	c->seg_active = false;
	sim_seg_ends_cancel(&m->ends, cpu); /* its DONE event, unless this is it */
}

/* cpu_speed.c: SMT sharing and the clock by active cores */
#include "cpu_speed.h"

/* engine_charge.c: what a switch, a wake-up and the core's group-line accesses cost */
/* The KiB that entered the private cache cpu's runs fill so far: its core's L2, which the
 * core's SMT threads share (sim_set_curr). */
static inline double *sim_cache_kib(struct sim *m, int cpu)
{
	return &m->core_cache_kib[m->topo->cpu[cpu].core];
}
void sim_set_curr(struct sim *m, int cpu, struct sim_task *next);
double sim_refill_ns(const struct sim *m, const struct sim_task *t, int cpu, double *moved);
double sim_wake(struct sim *m, struct sim_task *t, int cpu, struct sim_task *waker, int flags);
void sim_ttwu_queue_due(struct sim *m, int cpu, struct sim_task *t, int wake_flags);
__attribute__((cold)) void sim_tg_settle(struct sim *m, int cpu);
void sim_charge_cpu(struct sim *m, int cpu, double ns, enum ts_sim_work w);
void sim_balance_costs_init(struct sim *m);
void sim_charge_balance(struct sim *m, int cpu);
double sim_balance_cost_so_far(const struct sim *m, int cpu, int first, int last);

/* pipe_mutex.c: pipe->mutex of the channels whose phases lock it */
int sim_mx_setup(struct sim *m);
enum sim_mx_lock sim_mx_lock(struct sim *m, int cpu, struct sim_task *t, struct sim_pipe_mutex *mx);
double sim_mx_unlock(struct sim *m, int cpu, struct sim_task *t);
bool sim_mx_resched(struct sim *m, int cpu, struct sim_task *t);

/* A task's program moves to its next phase (the loop after the prologue; exiting after
 * its last iteration). */
static inline void sim_advance(struct sim_task *t)
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

/* engine_pipe.c: SEND and RECV on a pipe as fs/pipe.c of v5.6 runs them; -1: the program
 * goes on, else the step */
int sim_pipe_write(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph,
		   struct sim_channel *ch);
int sim_pipe_read(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph,
		  struct sim_channel *ch);

/* engine_program.c: the task programs */
/* STEP_YIELD: the task stays runnable and the CPU schedules (sched_yield()) */
enum sim_step { STEP_SEGMENT, STEP_BLOCK, STEP_EXIT, STEP_YIELD };
enum sim_step sim_step_task(struct sim *m, int cpu, struct sim_task *t);

/* engine_background.c: the kernel's own CPU time (ticks, softirqs, idle CPUs' kernel work,
 * newly-idle balancing) */
#define SIM_NOISE_STREAM 0x6e6f697365ULL /* ts_rng_derive() index of the noise stream */
void sim_background_init(struct sim *m);
void sim_kernel_busy(struct sim *m, int cpu, double ns, enum ts_sim_work w);
void sim_tick_background(struct sim *m, int cpu);
void sim_kernel_switch(struct sim *m, int cpu, const struct sim_task *prev, struct sim_task *next);
uint64_t sim_newidle_time(void *h, int cpu, uint64_t t0);
void sim_newidle_end(struct sim *m, int cpu, struct sim_task *next);
int sim_kworker_count(const struct sim *m);
int sim_kworkers_setup(struct sim *m, struct ts_error *err);
bool sim_kworker_timer(struct sim *m, int cpu, struct sim_task *t);
enum sim_step sim_step_kworker(struct sim *m, int cpu, struct sim_task *t);

/* engine_start.c: the start-up's forks, connections and barrier, run from the programs */
bool sim_step_fork(struct sim *m, int cpu, struct sim_task *t);
enum sim_step sim_step_launcher(struct sim *m, int cpu, struct sim_task *t);
enum sim_step sim_step_listener(struct sim *m, int cpu, struct sim_task *t);
double sim_connect(struct sim *m, int cpu, struct sim_task *t);
double sim_at_barrier(struct sim *m, int cpu, struct sim_task *t);
void sim_window_due(struct sim *m);
/* TS_PH_FORK: t pays the fork and forks its child when that is done (sim_step_fork()). */
void sim_fork_phase(struct sim *m, struct sim_task *t, const struct ts_phase *ph);
/* TS_PH_START_DELAY: false when t sleeps until its start. */
bool sim_start_delay(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph);

/* engine_sync.c: the synchronisation phases (mutexes, conditions, barriers, yield) */
/* The phases that name one of the instance's synchronisation objects (`obj`). */
static inline bool sim_sync_object_phase(enum ts_phase_kind kind)
{
	switch (kind) {
	case TS_PH_LOCK:
	case TS_PH_UNLOCK:
	case TS_PH_COND_WAIT:
	case TS_PH_COND_SIGNAL:
	case TS_PH_COND_BROADCAST:
	case TS_PH_BARRIER_WAIT:
		return true;
	default:
		return false;
	}
}
/* The phases sim_sync_step() runs: those, and sched_yield(). */
static inline bool sim_sync_phase(enum ts_phase_kind kind)
{
	return kind == TS_PH_YIELD || sim_sync_object_phase(kind);
}
struct sim_sync {
	bool locked; /* a mutex: held */
	int waiting; /* a barrier: others still to come (rt-app's res.barrier.waiting) */
	bool armed;  /* a barrier: waiting set from its parties */
	struct sim_waitq waiters;
};
int sim_sync_setup(struct sim *m);
/* A synchronisation phase of t on cpu: -1 to go on with the program, else the step. */
int sim_sync_step(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph);

/* engine_dispatch.c: what a CPU runs after an event */
void sim_cpu_run(struct sim *m, int cpu);
void sim_do_resched(struct sim *m, int cpu);
void sim_finish_cpu(struct sim *m, int cpu);

/* engine_numa.c: TOUCH phases, faults, NUMA balancing's host part */
bool sim_touch_step(struct sim *m, int cpu, struct sim_task *t, const struct ts_phase *ph);
void sim_numa_tick(struct sim *m, int cpu);
/* init_numa_balancing() of every mm, once the scheduler exists (its clock paces them). */
void sim_numa_mm_start(struct sim *m);
void sim_on_numa_stop(struct sim *m, struct sim_numa_stop *st);
bool sim_detach_taken(struct sim *m, int cpu);
int sim_setup_memory(struct sim *m, const struct ts_sim_config *cfg, struct ts_error *err);
void sim_prefault(struct sim *m, struct sim_mm *mm, const struct ts_sim_config *cfg);
int sim_bind_task(struct sim *m, struct sim_task *t, struct ts_cpumask *cpus, struct ts_error *err);

/* engine_stopper.c: active load balancing's push, run by the busiest CPU's stopper */
void sim_host_stop_one_cpu(void *host, int cpu);
void sim_on_stop_push(struct sim *m, int cpu);

/* engine_validate.c: the configuration a run accepts */
int sim_invalid(struct ts_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sim_validate(const struct ts_sim_config *cfg, struct ts_error *err);
uint64_t sim_class_limit(const struct ts_sim_config *cfg, const struct ts_task_class *c);
void sim_run_extent(const struct ts_sim_config *cfg, int *nr_cpus, int *nr_nodes);

/* engine_start.c: the start of a run and its teardown */
int sim_setup(struct sim *m, const struct ts_sim_config *cfg, struct ts_error *err);
void sim_free(struct sim *m);
void sim_on_start(struct sim *m, struct sim_task *t);

/* engine_stats.c: the measured window and the run's result */
void sim_window_open(struct sim *m);
void sim_fill_result(struct sim *m, struct ts_sim_result *out);
/* report_schedstat.c: cfg->schedstat, the counters of one run in /proc/schedstat format.
 * open snapshots them when the window opens (-ENOMEM), write prints the window's deltas
 * at the end, free releases the snapshot (sim_free()). */
int sim_schedstat_open(struct sim *m);
void sim_schedstat_write(struct sim *m);
void sim_schedstat_free(struct sim *m);
/* Adds the load-balance counters of every CPU's domains to *out. */
void sim_lb_sum(const struct sim *m, struct ts_sim_lb *out);

/* trace_ftrace.c: cfg->trace, the run's scheduling events in ftrace text format. open
 * before the scheduler exists (-ENOMEM), the events as they happen (each only when
 * sim_tracing()), write at the end, free from sim_free(). migrate is the core's
 * ts_host_ops.migrate_task while tracing. */
static inline bool sim_tracing(const struct sim *m)
{
	return __builtin_expect(m->trace != NULL, 0);
}
int sim_trace_open(struct sim *m, struct ts_error *err);
void sim_trace_switch(struct sim *m, int cpu, const struct sim_task *prev,
		      const struct sim_task *next);
void sim_trace_waking(struct sim *m, int cpu, const struct sim_task *t, bool from_timer);
void sim_trace_wakeup(struct sim *m, int cpu, const struct sim_task *t,
		      const struct ts_placement *pl, bool from_timer, bool new_task);
void sim_trace_migrate(void *host, const struct ts_task *p, int dest_cpu);
void sim_trace_fork(struct sim *m, int cpu, const struct sim_task *parent,
		    const struct sim_task *child);
void sim_trace_exit(struct sim *m, int cpu, const struct sim_task *t);
void sim_trace_write(struct sim *m);
void sim_trace_free(struct sim *m);

#endif
