/* The simulator: a deterministic discrete-event model of a machine (topology + cost
 * model) on which a workload runs under the real scheduling core (struct ts_sched, with
 * the simulator as its host). One run = one (machine, features, workload, load, seed);
 * experiments sweep runs and compare configurations (src/sim/experiment.c).
 *
 * A workload is data: task classes, each a small program of phases (run, send, receive,
 * sleep, mark, touch memory), instantiated `load` times (pairs, groups, clients,
 * processes). An instance is a process: its tasks share its memory regions (one address
 * space, src/sim/numa_memory.h). Adding a workload is writing a description, not engine
 * code. */
#ifndef TOPOSCHED_SIM_H
#define TOPOSCHED_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/cost_model.h"
#include "toposched/cpumask.h"
#include "toposched/error.h"
#include "toposched/features.h"
#include "toposched/group.h"
#include "toposched/kernel_profile.h"
#include "toposched/sim_groups.h"
#include "toposched/stats.h"
#include "toposched/topology.h"

/* ---- workload descriptions ---- */

enum ts_phase_kind {
	TS_PH_RUN,   /* compute for `ns` (distribution `dist`) */
	TS_PH_SEND,  /* write `bytes` to a channel; wakes a blocked receiver (WF_SYNC if sync) */
	TS_PH_RECV,  /* read one message from a channel; blocks while it is empty */
	TS_PH_SLEEP, /* block for `ns` (a timer wakes the task) */
	TS_PH_MARK,  /* count one unit of the workload's metric (a transaction, a request) */
	TS_PH_TOUCH, /* compute while touching (writing) pages of a memory region; see below */
	/* Start-up phases (prologues only; see "how tasks come to exist" below): */
	TS_PH_CONNECT, /* connect() to the workload's listener: queue this task's connection and
			  wake the listener (WF_SYNC: the listening socket's sk_data_ready is
			  sock_def_readable); the task goes on */
	TS_PH_BARRIER, /* stop at the start barrier until the launcher releases every task
			  (dbench's semaphore, hackbench's wake fd) */
	TS_PH_TIMER,   /* a periodic timer (rt-app's "timer" event): block until the task's
			  timer `timer` next expires; see struct ts_phase */
	/* Synchronisation objects of the instance, `obj` indexing them (rt-app's mutexes,
	 * conditions and barriers; src/sim/engine_sync.c): */
	TS_PH_LOCK,	      /* pthread_mutex_lock(): takes mutex `obj`, or blocks while another
				 task holds it; woken by the unlock it tries again (a futex mutex:
				 no hand-off, a running task may take it first) */
	TS_PH_UNLOCK,	      /* releases mutex `obj`, waking one waiter (FUTEX_WAKE: not sync) */
	TS_PH_COND_WAIT,      /* pthread_cond_wait(cond `obj`, mutex `mutex`): releases the mutex
				 (as UNLOCK) and blocks until a COND_SIGNAL or COND_BROADCAST of
				 the condition picks it; the program takes the mutex again with a
				 LOCK phase after it */
	TS_PH_COND_SIGNAL,    /* wakes the longest waiter of condition `obj`, if any */
	TS_PH_COND_BROADCAST, /* wakes every waiter of condition `obj` */
	TS_PH_BARRIER_WAIT,   /* rt-app's barrier `obj`: its count of others still to come
				 (`parties` - 1 at the start) is 0: wake every waiter and go on;
				 else count down and block until then, counting back up when woken */
	TS_PH_YIELD,	      /* sched_yield(): the core's yield_task_fair(), then schedule() */
	/* rt-app's fork event and the start of a thread it forks (src/sim/engine_start.c): */
	TS_PH_FORK,	   /* pays the cost model's `fork`, then forks the next task of class `obj`
			      (a TS_SPAWN_FORK class) of its instance not forked yet */
	TS_PH_START_DELAY, /* (prologue) the task's timers count from `ns` after the benchmark
			      started (rt-app's t_first: t_zero + delay); it sleeps until then
			      when that is still to come */
};

/* Which pages of its region a TOUCH phase covers. */
enum ts_touch_slice {
	TS_SLICE_OWN, /* the task's share: pages [k*P/n, (k+1)*P/n) for task k of the n tasks
			 of its class in the instance (numa02's THREAD_SIZE slices) */
	TS_SLICE_ALL, /* the whole region (numa01's shared buffer) */
};

enum ts_dist {
	TS_DIST_FIXED,	     /* exactly ns */
	TS_DIST_EXPONENTIAL, /* mean ns */
	TS_DIST_UNIFORM,     /* uniform in [ns/2, 3ns/2] */
};

/* Which channel a SEND/RECV uses, within the task's instance (group/pair):
 * chan + (per_instance ? instance index within the class : 0)
 *      + (iter_mod ? iteration % iter_mod : 0). */
struct ts_chan_ref {
	int chan;
	bool per_instance;
	int iter_mod;
};

/* TOUCH: the task sweeps `pages` pages of its slice (0 = the whole slice) in address
 * order, continuing where its previous execution of this phase stopped and wrapping at
 * the slice's end. Each 4 KiB page costs
 *     ns + accesses x ts_cost_mem_between(costs, topo, the task's CPU, the page's node)
 * of CPU time: `ns` is the work per page apart from DRAM stalls, `accesses` the
 * latency-serialised DRAM accesses per page (a streaming write of 64 lines with 10
 * misses in flight is 6.4). The cost is computed analytically, segment by segment; a
 * segment ends where the next page faults (first touch, or a NUMA hinting fault on a
 * page the scanner marked). */
struct ts_phase {
	enum ts_phase_kind kind;
	uint64_t ns; /* RUN, SLEEP; TOUCH: CPU ns per page besides DRAM stalls; SEND, RECV with
			`pipe`: CPU ns spent holding pipe->mutex */
	enum ts_dist dist;
	struct ts_chan_ref ch; /* SEND, RECV */
	uint32_t bytes;	       /* SEND: payload; drawn from the workload's size mix when 0 */
	bool sync;	       /* SEND: the sender blocks next (WF_SYNC wake-up) */
	bool count_bytes;      /* SEND: payload counts toward a throughput metric */
	bool pipe;  /* SEND, RECV: the channel is a pipe as fs/pipe.c of v5.6 runs it: each
		       write or read holds pipe->mutex for `ns` (a sleeping lock with optimistic
		       spinning), the data sits in page slots (the capacity / 4 KiB; small writes
		       merge into the last page), and the peer is woken after the unlock by that
		       kernel's rules (src/sim/engine_pipe.c) */
	int region; /* TOUCH: index into the workload's regions */
	enum ts_touch_slice slice; /* TOUCH */
	uint64_t pages;		   /* TOUCH: pages per execution, 0 = the whole slice */
	double accesses;	   /* TOUCH: DRAM accesses per page (latency-bound) */
	/* TIMER (rt-app's run_event(), rtapp_timer): the task's timer slot `timer` (one
	 * timer per task and slot) first expires `ns` after the task began its program
	 * (after its prologue), then every `ns` after its previous expiry. Reached before
	 * the expiry, the task sleeps until it; reached late, it goes on at once and, unless
	 * timer_absolute, the next period counts from now (rt-app's "relative" mode). */
	int timer;
	bool timer_absolute;
	int obj;     /* LOCK, UNLOCK, COND_*, BARRIER_WAIT: the object, < syncs_per_instance;
			FORK: the class it forks */
	int mutex;   /* COND_WAIT: the mutex it releases */
	int parties; /* BARRIER_WAIT: the barrier's users (every phase naming it says the same) */
};

#define TS_SIM_TASK_TIMERS 4 /* timer slots per task */

/* How many tasks of a class an instance has. */
enum ts_count_rule {
	TS_COUNT_FIXED, /* `count` */
	TS_COUNT_CPUS,	/* the CPUs the run may use / `count` (at least 1): autonuma's
			   THREADS = NCPUS (count 1) or NCPUS/2 (count 2) */
	TS_COUNT_LOAD,	/* the run's load (SPECjbb: warehouses per JVM) */
};

/* Which nodes a task belongs to under --bind (ts_sim_config.bind); see enum ts_sim_bind. */
enum ts_home_rule {
	TS_HOME_NONE,	  /* no home: the class cannot be bound */
	TS_HOME_INSTANCE, /* instance i of I: the i-th of I equal blocks of the run's nodes
			     (I <= nodes), else node i mod nodes (numa01: process 1 on the
			     first half of the nodes, process 2 on the second; SPECjbb: JVM i
			     on node i) */
	TS_HOME_TASK,	  /* task k of n in the instance: node k x nodes / n (numa02's
			     i / (THREADS / NNODES)) */
};

/* How tasks come to exist (docs/workloads.md, "Start"). A run starts as the benchmark
 * does: before it the machine has been up and idle (the engine's idle pre-phase); then the
 * workload's launcher (the benchmark's main process: tbench's create_procs(), hackbench's
 * main, the shell starting N netperfs, UnixBench's copy driver) forks its children one after
 * another from the CPU it runs on, each fork costing it the cost model's `fork`; the
 * kernel's fork balancing (sched_balance_find_dst_group) then counts that CPU busy. */
enum ts_spawn_kind {
	TS_SPAWN_LAUNCHER, /* forked by the launcher (the default) */
	TS_SPAWN_PARENT,   /* forked by task 0 of class `spawn_from` of the same instance when
			      that task first runs, before its own program (UnixBench context1's
			      copy forking its partner, schbench's message thread creating its
			      workers) */
	TS_SPAWN_ACCEPT,   /* forked by the workload's listener (a daemon blocked in accept()
			      before the run: tbench_srv, netserver) once the task of class
			      `spawn_from` with the same index in the instance has connected
			      (TS_PH_CONNECT); accept and fork cost the listener `accept` and
			      `fork` */
	TS_SPAWN_FORK,	   /* forked by the TS_PH_FORK phases naming the class, run by tasks of
			      its instance (rt-app's fork event): `count` is how many such forks
			      the instance runs, each taking the next task of the class */
};

struct ts_task_class {
	const char *name;
	int count; /* tasks of this class per instance */
	int nice;
	uint32_t footprint_kib; /* its own cache footprint: refetched from an SMT sibling, and
				   on another core if larger than cache.run_kib */
	const struct ts_phase *phases;
	int nr_phases;
	int iterations;	     /* times the program runs; 0 = until the run's duration ends */
	bool measure_wakeup; /* record wake-up-to-run latency of this class */
	enum ts_count_rule count_rule;	 /* how `count` is read (TS_COUNT_FIXED: as is) */
	const struct ts_phase *prologue; /* run once before the first iteration (may be NULL) */
	int nr_prologue;
	enum ts_home_rule home; /* home nodes for --bind */
	enum ts_spawn_kind spawn;
	int spawn_from; /* TS_SPAWN_PARENT, TS_SPAWN_ACCEPT: the forking or connecting class */
	/* The class's CPU affinity (sched_setaffinity, rt-app's "cpus"): its tasks may run
	 * only on these CPUs of the run's (NULL: every CPU the run may use). */
	const int *cpus;
	int nr_cpus;
};

/* A memory region of every instance (a process's allocation, one VMA). */
enum ts_mem_policy {
	TS_MEM_LOCAL,	       /* MPOL_DEFAULT: a page goes to the node of the CPU that first
				  touches it (or of the toucher's --bind nodes); NUMA balancing
				  scans it and migrates its pages */
	TS_MEM_INTERLEAVE,     /* mbind MPOL_INTERLEAVE over every node, chunk by chunk;
				  not scanned, never migrated (no MPOL_F_MOF) */
	TS_MEM_BIND_BALANCING, /* mbind MPOL_BIND | MPOL_F_NUMA_BALANCING to `node` (Linux
			      5.12+): pages on `node`, scanned (hinting faults drive task
			      placement), never migrated off the node */
};

enum ts_prefault {
	TS_PREFAULT_NONE,   /* pages are placed when first touched */
	TS_PREFAULT_PARENT, /* faulted in at the start by the forking parent, on the node of
			       the first CPU the run may use (numa02's main thread bzero()s
			       the buffer before creating the threads); under --bind, block
			       b of N on the b-th node, as numa02's BINDMAP does */
};

struct ts_region {
	const char *name;
	uint64_t bytes; /* rounded up to 4 KiB pages */
	enum ts_mem_policy policy;
	int node; /* TS_MEM_BIND_BALANCING: the node */
	enum ts_prefault prefault;
};

enum ts_metric_kind {
	TS_METRIC_THROUGHPUT_MBS,   /* counted SEND bytes / duration, MB/s (higher is better) */
	TS_METRIC_TPS_PER_INSTANCE, /* MARKs / duration / load (higher is better) */
	TS_METRIC_TIME_S,	    /* time until every task finished its iterations (lower) */
	TS_METRIC_WAKEUP_P99_US,    /* p99 wake-up latency of measured classes, us (lower) */
	TS_METRIC_US_PER_MARK,	    /* duration / MARKs, us (lower: e.g. pipe round trip) */
	TS_METRIC_OPS_PER_S,	    /* MARKs / duration over all instances (higher: SPECjbb's
				       bops) */
};

/* How many instances a run has. */
enum ts_instance_rule {
	TS_INSTANCES_LOAD,  /* `load` instances */
	TS_INSTANCES_NODES, /* one per node with CPUs the run may use; `load` then only sizes
			       TS_COUNT_LOAD classes (SPECjbb: one JVM per node) */
};

/* A message-size mix (tbench's op mix): sizes with relative weights. */
struct ts_size_mix {
	const uint32_t *bytes;
	const uint32_t *weight;
	int n;
};

struct ts_workload {
	const char *name;
	const char *description; /* one line, with the benchmark it models */
	const struct ts_task_class *classes;
	int nr_classes;
	int channels_per_instance;
	int syncs_per_instance;	   /* mutexes, conditions and barriers of TS_PH_LOCK etc. */
	uint32_t channel_capacity; /* bytes a channel buffers before SEND blocks */
	struct ts_size_mix request_mix, reply_mix; /* for SEND phases with bytes == 0 */
	enum ts_metric_kind metric;
	const char *metric_name;	 /* "throughput", "tps", "time", "p99_wakeup", ... */
	const char *unit;		 /* "MB/s", "trans/s", "s", "us" */
	const char *load_name;		 /* what `load` counts: "clients", "pairs", "groups" */
	int default_iterations;		 /* per task, for TS_METRIC_TIME_S workloads */
	const struct ts_region *regions; /* memory of every instance (NUMA workloads) */
	int nr_regions;
	enum ts_instance_rule instances;
	/* What `toposched sim` uses when the options do not say (NULL / 0: its own
	 * defaults): NUMA balancing needs seconds, tbench milliseconds. */
	const char *default_loads;
	uint64_t default_duration_ns, default_warmup_ns;
	/* The start barrier (classes with a TS_PH_BARRIER): after its last fork the launcher
	 * checks whether every such task waits there and releases them all at once; while
	 * not, it sleeps barrier_poll_ns and checks again (dbench's usleep(100 ms) loop), or,
	 * with 0, the last task to arrive wakes it (hackbench's ready pipe). The benchmark
	 * starts (the warm-up's clock, a TIME_S metric's start) at the release, else at the
	 * launcher's last fork. */
	uint64_t barrier_poll_ns;
};

const struct ts_workload *ts_workload_list(int *count);
const struct ts_workload *ts_workload_find(const char *name);

/* Tasks per instance of class c, on a run that may use nr_cpus CPUs at this load. */
int ts_class_count(const struct ts_task_class *c, int nr_cpus, int load);
/* Instances of w on a run whose allowed CPUs cover nr_nodes nodes. */
int ts_workload_instances(const struct ts_workload *w, int nr_nodes, int load);
/* Tasks of the whole run (0 when a count is invalid), saturating at INT64_MAX. */
int64_t ts_workload_nr_tasks(const struct ts_workload *w, int nr_cpus, int nr_nodes, int load);

/* ---- one run ---- */

/* --bind: the autonuma-benchmark references. Every task of a class with a home rule is
 * allowed only the CPUs of its CPU nodes and allocates with MPOL_BIND to its home nodes
 * (set_mempolicy()); such a task policy has no MPOL_F_MOF, so NUMA balancing does not scan
 * the process (task_numa_work skips !vma_policy_mof VMAs). */
enum ts_sim_bind {
	TS_BIND_NONE,
	TS_BIND_HARD,	 /* CPU nodes = home nodes (numa0x_HARD_BIND): the best case */
	TS_BIND_INVERSE, /* CPU nodes = the mirrored home (instance I-1-i, task n-1-k), memory
			    on the home: every thread on the wrong node (the worst case) */
};

struct ts_sim_config {
	const struct ts_topology *topo;
	const struct ts_cost_model *costs;
	struct ts_features features;
	const struct ts_workload *workload;
	int load;		      /* instances (clients, pairs, groups) */
	int iterations;		      /* overrides the classes' iterations when > 0 */
	const struct ts_cpumask *pin; /* every task allowed only here (NULL = all CPUs) */
	/* Task k of the run (in task order) allowed only CPU pin_cpus[k % nr_pin_cpus]
	 * (NULL: none): a pinned pair, as lmbench lat_pipe runs it. */
	const int *pin_cpus;
	int nr_pin_cpus;
	uint64_t duration_ns; /* measured time (after warm-up) for open-ended loads */
	uint64_t warmup_ns;   /* not measured */
	uint64_t seed;
	unsigned int hz;     /* tick (0 = 1000) */
	uint64_t max_events; /* safety bound (0 = no bound) */
	enum ts_sim_bind bind;
	/* No background kernel activity: ticks and softirqs cost no CPU time (the cost
	 * model's noise.* terms; docs/engine.md, "Kernel time"). */
	bool no_background;
	/* ---- task groups (sim_groups.h) ---- */
	const struct ts_groups_spec *groups; /* NULL = every task in the root group */
	/* of the groups' load_avg: 0 = isolated (load_avg alone, as the runtime measures it);
	 * `toposched sim` gives the kernel's, ts_kernel_tg_layout() */
	enum ts_tg_layout tg_layout;
	/* The kernel generation of the core's mechanisms (kernel_profile.h; zeroed = the
	 * newest). features are used as given: a caller wanting that kernel's switches starts
	 * from ts_kernel_features_default(). */
	struct ts_kernel_profile kernel;
	/* NULL, or where the run writes the measured window's counters in /proc/schedstat
	 * format at its end (report_schedstat.c, docs/sim-json.md) */
	FILE *schedstat;
	/* NULL, or where the run writes its scheduling events, from its first to its last
	 * event, in the ftrace text format at its end (trace_ftrace.c, docs/trace.md); held
	 * in memory until then: a trace that would pass trace_max_bytes (0: no bound) fails
	 * the run (-EFBIG) with a message naming the bound */
	FILE *trace;
	uint64_t trace_max_bytes;
};

#define TS_SIM_MAX_TASKS	65536	     /* a sane bound on load x tasks per instance */
#define TS_SIM_MAX_REGION_BYTES (1ULL << 40) /* 1 TiB per region */
#define TS_SIM_MAX_CHUNKS	(1 << 24)    /* 2 MiB chunks of all regions of a run */
/* "Two NUMA migrations to one CPU within a window": the window, 10 ms: ten ticks, shorter
 * than a NUMA domain's balance interval (its span in ms, >= 16 on the presets), so two
 * NUMA moves this close land before the load balancer could have evened them out. */
#define TS_SIM_NUMA_CLOSE_NS (10ULL * 1000 * 1000)

/* NUMA balancing as the run saw it (the measured window; see docs/sim-json.md). Fault
 * counts are in 4 KiB pages, as the core counts them (a 2 MiB chunk's fault is 512). */
struct ts_sim_numa {
	uint64_t hint_faults;	    /* numa_hint_faults (pages) */
	uint64_t hint_faults_local; /* the page was on the faulting CPU's node */
	uint64_t hint_faults_remote;
	uint64_t hint_faults_private; /* last accessor = this task (or none) */
	uint64_t hint_faults_shared;
	uint64_t pages_migrated;       /* numa_pages_migrated */
	uint64_t scans;		       /* task_numa_work() passes that ran */
	uint64_t pte_updates;	       /* 2 MiB chunks made PROT_NONE (numa_huge_pte_updates) */
	uint64_t migrate_attempts;     /* task_numa_migrate() searches */
	uint64_t task_migrations;      /* moves decided (sched_move_numa) */
	uint64_t task_swaps;	       /* swaps decided (sched_swap_numa) */
	uint64_t task_stick;	       /* nothing better, or the stop work failed */
	uint64_t applied;	       /* moves and swaps the stop work performed */
	uint64_t reserve_conflicts;    /* the chosen CPU was reserved (NUMA_RESERVE) */
	uint64_t reserve_conflict_alt; /* ... and another idle CPU of the node was taken */
	uint64_t reserve_conflict_noalt;
	uint64_t reserved_skips;    /* reserved CPUs passed over by the searches */
	uint64_t double_migrations; /* applied to a CPU whose previous NUMA arrival was
				       still in flight when this one was decided */
	uint64_t close_migrations;  /* applied within TS_SIM_NUMA_CLOSE_NS of the previous
				       NUMA arrival at the same CPU */
	uint64_t tasks_numa;	    /* at the end: tasks with a preferred node */
	uint64_t tasks_preferred;   /* ... whose CPU is on it */
	uint64_t system_ns;	    /* CPU time charged for NUMA balancing: hinting
				       faults, page copies, scans, stop work */
};

/* The load-balance counters of /proc/schedstat's domain lines (struct ts_sd_stats), summed
 * over every CPU's domains, measured window. [] is indexed by enum ts_idle_type. */
struct ts_sim_lb {
	uint64_t lb_count[TS_CPU_MAX_IDLE_TYPES], lb_balanced[TS_CPU_MAX_IDLE_TYPES];
	uint64_t lb_failed[TS_CPU_MAX_IDLE_TYPES], lb_imbalance[TS_CPU_MAX_IDLE_TYPES];
	uint64_t lb_gained[TS_CPU_MAX_IDLE_TYPES], lb_hot_gained[TS_CPU_MAX_IDLE_TYPES];
	uint64_t lb_nobusyq[TS_CPU_MAX_IDLE_TYPES], lb_nobusyg[TS_CPU_MAX_IDLE_TYPES];
	uint64_t alb_count, alb_failed, alb_pushed;
	uint64_t ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance;
};
/* out += the counters of one domain (add) or out += b - a (two sums). */
void ts_sim_lb_add_domain(struct ts_sim_lb *out, const struct ts_sd_stats *st);
void ts_sim_lb_add_delta(struct ts_sim_lb *out, const struct ts_sim_lb *a,
			 const struct ts_sim_lb *b);

/* What the CPU work a run charges pays for (the cost model's terms, docs/model.md), for
 * struct ts_sim_result's work_ns: every ns of work charged in the window, to a task or
 * as kernel work of an idle CPU, counted once under the term that priced it. */
enum ts_sim_work {
	TS_WORK_PROGRAM,	/* the workload's own RUN phases, pipe reads and writes */
	TS_WORK_PAYLOAD,	/* a message's payload copied from the sender's CPU */
	TS_WORK_CTX_SWITCH,	/* ctx_switch: a task switched in */
	TS_WORK_SWITCH_OUT,	/* switch_out: the leaving task's part, after another task */
	TS_WORK_REFILL_EVICTED, /* back on its core: what other runs evicted (+ SMT footprint) */
	TS_WORK_REFILL_MOVED,	/* on another core: the whole working set */
	TS_WORK_HANDOFF,	/* a woken task's first run: the wake-up's state */
	TS_WORK_WAKE_ENQUEUE,	/* the waker's enqueue on a busy CPU of its LLC */
	TS_WORK_IDLE_SCAN,	/* select_idle_sibling()'s probes */
	TS_WORK_BALANCE,	/* periodic, idle and newly-idle balance passes */
	TS_WORK_MUTEX_SPIN,	/* spinning on pipe->mutex, and the lock's line after it */
	TS_WORK_START,		/* fork, accept and connect in the start-up */
	TS_WORK_KERNEL,		/* the tick, softirqs, the per-CPU kworker */
	TS_WORK_NUMA,		/* NUMA balancing: scans, hinting faults, page migrations */
	TS_WORK_TG_STALL,	/* task groups: stalls on the groups' cache lines */
	TS_WORK_NR
};
/* The term's name in reports ("program", "ctx_switch", ...). */
const char *ts_sim_work_name(enum ts_sim_work w);

struct ts_sim_result {
	double metric;		     /* the workload's metric for this run */
	uint64_t marks, bytes;	     /* raw counts behind the metric (measured window) */
	uint64_t sim_ns;	     /* virtual time simulated (incl. warm-up) */
	uint64_t start_ns;	     /* of which before the benchmark started: the idle machine
					and the start-up (forks, connections, barrier) */
	uint64_t settle_ns;	     /* warm-up added past warmup_ns until every LLC's SIS_UTIL
					budget was recomputed under the load and busy balancing
					had evened the clusters (0: none needed) */
	uint64_t settle_capped;	     /* 1: that wait ended at its cap, not settled */
	uint64_t events;	     /* events processed */
	double wall_s;		     /* host time the run took (reports only) */
	double cpu_util;	     /* busy CPU time / (CPUs x measured time), 0..1 */
	double wakeup_lat_us[4];     /* p50, p90, p99, p99.9 of measured classes (-1 if none) */
	uint64_t wakeup_lat_samples; /* the measured wake-ups those percentiles rest on */
	struct ts_sis_counts sis;    /* summed over CPUs, measured window */
	struct ts_sim_lb lb;	     /* summed over CPUs' domains, measured window */
	uint64_t reasons[TS_PLACE_NR];
	uint64_t wakeups_by_relation[TS_REL_NR];
	uint64_t wakeups;
	uint64_t migrations;
	uint64_t scan_hist[TS_SCAN_HIST_BUCKETS];
	uint64_t messages_sent, messages_received; /* conservation */
	uint64_t busy_ns;			   /* CPU time accounted to tasks */
	bool finished;				   /* TIME_S: every task completed */
	/* Added by the engine for its conservation checks. messages_* count the whole run:
	 * messages_sent == messages_received + messages_queued. */
	uint64_t messages_queued; /* still in channels at the end */
	uint64_t exec_ns;	  /* CPU time the core accounted (sum_exec_runtime) in
				     the window; equals busy_ns */
	struct ts_sim_numa numa;
	double work_ns[TS_WORK_NR]; /* CPU work charged in the window by term (ns at full
				       speed: CPU time is work / the CPU's speed) */
	/* ---- task groups: zero (enabled = false) without cfg->groups ---- */
	struct ts_sim_tg_result tg;
};

int ts_sim_run(const struct ts_sim_config *cfg, struct ts_sim_result *out, struct ts_error *err);

#endif
