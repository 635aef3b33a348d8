/* libtoposched: an M:N task runtime whose placement, idle balancing and wake-ups are
 * decided by the scheduling core on the real machine. Installed (toposched.h includes
 * it): it names none of the core's types but the task-group layout (tg_layout.h); the
 * handles into the core are in runtime_core.h, for programs built with the core.
 *
 * One worker thread per scheduled CPU, pinned; user-level tasks with their own mmap'ed
 * stacks (guard page below) switched in assembly (x86-64, AArch64; ucontext elsewhere).
 * A task that blocks (channel, mutex, condition variable, wait group, sleep, join) leaves
 * its worker; whoever wakes it calls the core's ts_try_to_wake_up(), which selects a CPU
 * (wake_affine + select_idle_sibling, WF_SYNC when the waker is about to block) and
 * enqueues it there under that CPU's run-queue lock, unparking that worker if it sleeps;
 * where that worker runs nothing, the worker enqueues it itself (the kernel's wakelist,
 * ttwu_queue_cond()).
 *
 * Scheduling is cooperative: a task is switched out only when it blocks, yields or
 * exits. The tick (slice expiry, PELT, periodic load balancing) runs at those points
 * when a tick period has passed. A task that never blocks or yields keeps its worker
 * for as long as it runs; other tasks queued there wait (newly-idle workers may pull
 * them away, a running task is never moved).
 *
 * Errors: functions return 0 or a negative errno-style code; the message of the last
 * error of the calling thread is ts_rt_last_error(). Codes used throughout:
 *   -EPERM    a blocking call made outside a task (a plain thread) where it would have to
 *             park a task that does not exist
 *   -EALREADY ts_rt_start() while the runtime runs
 *   -ENXIO    a call that needs the runtime while it is not running
 *   -ESRCH    a task handle that names no task (never valid, or already joined)
 *   -EINVAL   bad argument, or a task joined by two joiners at once
 *   -EDEADLK  a task joining itself
 *   -EPIPE    send on a closed channel; recv on a closed and drained channel
 *   -EAGAIN   a try_ operation that would block
 *   -EBUSY    ts_rt_stop() from inside a task
 *   -EEXIST   ts_numa_declare() of memory the task has declared already
 *
 * NUMA (docs/runtime.md): tasks can be spawned near a node (cpumask_local_spread), given
 * a preferred node, and can allocate and declare the memory they use; the runtime's NUMA
 * balancer samples the pages of each task's declared memory once per scan period, feeds
 * them to the core as NUMA hinting faults and performs the task migrations and swaps the
 * core decides. It moves tasks to their memory, never memory to tasks.
 */
#ifndef TOPOSCHED_RUNTIME_H
#define TOPOSCHED_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/api.h"
#include "toposched/tg_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ts_rt_config {
	/* "host" (NULL): this machine via hwloc; workers on `cpulist` (OS CPU numbers) or
	 * the process's affinity mask. Anything else ts_topology_load() accepts (a preset,
	 * an XML file, ...): a virtual machine mapped onto the real CPUs of the affinity
	 * mask — virtual CPU v runs on real CPU allowed[v % nr_allowed], so there may be
	 * more workers than cores; `cpulist` then selects virtual CPUs (NULL = all). */
	const char *topology;
	const char *cpulist;
	const char *features;	     /* applied on ts_features_default(); NULL = defaults */
	enum ts_tg_layout tg_layout; /* of every task group's load_avg (tg_layout.h); 0 = aligned */
	unsigned int hz;	     /* tick frequency; 0 = the core's TS_HZ_DEFAULT (1000) */
	size_t stack_size;	     /* default task stack; 0 = 256 KiB */
	/* Polls of the run queue before parking; 0 = 200, <0 = none. Then, where each worker
	 * has a CPU of its own and idle_spin >= 0, the adaptive polling of the kernel's
	 * haltpoll governor (docs/runtime.md); <0 turns that off too. */
	int idle_spin;
	bool no_pin; /* leave workers unpinned (testing) */
	/* Opt-in preemption at slice expiry, at the runtime's safe points (ts_cond_resched()
	 * and every channel operation that does not block): once a tick period has passed
	 * since the worker's last tick, the task goes back to its worker, which runs the
	 * core's tick; if the core asks for a reschedule (the slice is used up and another
	 * task is queued) the core's pick decides who runs, else the task resumes at once.
	 * A task that calls no runtime function is still never preempted (no asynchronous
	 * preemption: a task stopped inside a libc lock would stall every task needing it). */
	bool preempt;
	/* NUMA balancing (feature NUMA). A task's first scan comes after numa_scan_delay_ms
	 * of its run time, the next ones every scan period of run time: the core's adaptive
	 * p->numa->numa_scan_period, or numa_scan_period_ms when set (fixed). 0 = the kernel
	 * defaults (TS_NUMA_SCAN_DELAY_MS, adaptive period). */
	unsigned int numa_scan_delay_ms;
	unsigned int numa_scan_period_ms;
	/* Pages sampled per scan, spread evenly over the scan window (TS_NUMA_SCAN_SIZE_MB of
	 * declared memory); each stands for window / samples pages. 0 = 256. */
	unsigned int numa_scan_samples;
	/* Test knob, never for production: the worker that decided a NUMA migration waits
	 * this long before its stop work, so that decisions of other workers overlap it (the
	 * window the NUMA_RESERVE reservation protects). 0 = none. */
	unsigned int numa_test_stop_delay_us;
	/* Capacity of the NUMA migration trace (ts_rt_numa_trace()); 0 = no trace. */
	size_t numa_trace;
	/* The run's scheduling events (sched_switch, sched_waking/sched_wakeup,
	 * sched_wakeup_new, sched_migrate_task, sched_process_fork/exit, with the core's
	 * placement reason) in the ftrace text format of `toposched sim --trace`
	 * (docs/trace.md), written to this file by ts_rt_stop(). NULL: the environment's
	 * TOPOSCHED_TRACE, else no trace. Each worker records into a buffer of its own;
	 * together they hold at most trace_max_mb MiB of events (0: TOPOSCHED_TRACE_MAX_MB,
	 * else 256), and the events past a worker's share are dropped and counted in the
	 * header's entries-written. */
	const char *trace;
	unsigned int trace_max_mb;
};

/* Starts the runtime; the calling thread stays a plain thread (it may spawn, join and use
 * try_ operations). -EALREADY when running. */
TS_API int ts_rt_start(const struct ts_rt_config *cfg);
/* Waits until every task has exited, then stops the workers and frees every task that
 * was not joined. The tasks may go on spawning, joining and using everything else while
 * it waits; plain threads may not start new tasks once it is called, and their other calls
 * either work or are refused (-ENXIO, or 0 / NULL for the readers): the stop frees nothing
 * while a plain thread is inside a call. Must be called from a plain thread (-EBUSY from
 * a task); -ENXIO when not running (or already stopping). Blocks for ever if a task never
 * finishes. ts_rt_sched()'s pointer is the caller's to stop using first. */
TS_API int ts_rt_stop(void);
TS_API bool ts_rt_running(void);
/* The message of the calling thread's last error ("" when none). */
TS_API const char *ts_rt_last_error(void);
/* Scheduled CPUs and workers. */
TS_API int ts_rt_nr_workers(void);
/* Runtime counters (sums over workers, relaxed reads). */
struct ts_rt_stats {
	uint64_t spawned;	/* tasks placed by ts_wake_up_new_task() or on their spread CPU */
	uint64_t wakeups;	/* ts_try_to_wake_up() calls */
	uint64_t early_wakeups; /* wake-ups that found the task not yet switched out */
	uint64_t deferred_wakeups; /* ... caught while it was being switched out (one
				    * that a task blocking without its worker's loop
				    * caught after its look at its state counts in both) */
	uint64_t ttwu_queued;	   /* wake-ups whose activation the kernel would run on the
				    * target's wakelist (ttwu_queue_cond()) */
	uint64_t wakelist;	   /* ... of which the target worker ran the activation (it ran
				    * nothing); the waker activated the others itself */
	uint64_t switches;	   /* worker -> task switches */
	uint64_t parks;		   /* futex waits of idle workers */
	uint64_t ticks;		   /* ts_sched_tick() calls */
	uint64_t preemptions;	   /* switches out at a preemption point (config preempt) */
	/* NUMA balancing */
	uint64_t numa_scans;	      /* scans of a task's declared memory */
	uint64_t numa_searches;	      /* ... that ran the search (task_numa_migrate()) and so
				       * locked every CPU outside the worker's node */
	uint64_t numa_faults;	      /* pages fed to the core as hinting faults */
	uint64_t numa_faults_local;   /* ... on the node of the CPU the task ran on */
	uint64_t numa_decisions;      /* migrations and swaps the core decided */
	uint64_t numa_migrations;     /* task moves performed (migrate_task_to) */
	uint64_t numa_swaps;	      /* task swaps performed (migrate_swap) */
	uint64_t numa_migrate_failed; /* decided, not performed (the task or its partner
				       * moved, blocked or ran through the stop timeout) */
	uint64_t steal_ns;	      /* ns in which a worker had a task running and its thread
				       * did not run, not charged to the task (steal time;
				       * docs/runtime.md), up to the call: the stretch since
				       * each worker's last tick included */
};
TS_API void ts_rt_get_stats(struct ts_rt_stats *out);

/* ---- tasks ---- */

struct ts_rt_group;

typedef struct ts_task_handle {
	uint64_t id; /* 0 = none */
} ts_task_handle;

struct ts_task_attr {
	size_t stack_size; /* 0 = the runtime default; at least this much is usable */
	int nice;	   /* -20..19 */
	const char *cpus;  /* allowed scheduler CPUs as a cpulist; NULL = all */
	int node;	   /* allowed NUMA node; -1 = any (only when cpus is NULL) */
	const char *name;  /* copied, at most 31 bytes kept */
	/* Where the task starts: the spread_index-th CPU nearest near_node among its allowed
	 * CPUs, hop by hop over the distances (cpumask_local_spread(), v6.3+). Only the first
	 * CPU: afterwards the task moves like any other (cpus/node are the hard limits).
	 * near_node -1 with spread_index >= 0: the spread_index-th allowed CPU. spread_index
	 * -1 with near_node >= 0: 0, 1, 2, ... for successive spawns near that node. Both -1:
	 * the core's fork placement. */
	int near_node;
	int spread_index;
	struct ts_rt_group *group; /* task group (ts_rt_group_create()); NULL = the root */
	/* Freed by its worker when it exits, never joined (pthread's PTHREAD_CREATE_DETACHED,
	 * Go's `go`): ts_join() on its handle gives -EINVAL, and the handle is stale once the
	 * task has exited. Wait for detached tasks with a ts_waitgroup. */
	bool detached;
};
#define TS_TASK_ATTR_INIT                                                                          \
	{                                                                                          \
		.stack_size = 0, .nice = 0, .cpus = NULL, .node = -1, .name = NULL,                \
		.near_node = -1, .spread_index = -1, .detached = false                             \
	}

typedef void *(*ts_task_fn)(void *arg);

/* Creates a task (from a task or a plain thread) and makes it runnable. On error
 * returns a handle with id 0 and sets errno and ts_rt_last_error(). attr may be NULL. */
TS_API ts_task_handle ts_spawn(ts_task_fn fn, void *arg, const struct ts_task_attr *attr);
/* Waits for the task to exit and frees it; *ret (may be NULL) gets fn's return value.
 * From a task it blocks the task; from a plain thread it blocks the thread. A handle can
 * be joined once: a second join gives -ESRCH, two joiners at once -EINVAL. */
TS_API int ts_join(ts_task_handle h, void **ret);
/* Gives up the worker (ts_yield_task() of the core); from a plain thread: sched_yield(). */
TS_API int ts_yield(void);
/* A preemption point (the kernel's cond_resched()): with ts_rt_config.preempt, gives up
 * the worker when the slice is used up and the core picks another task (see there);
 * otherwise, and outside a task, returns at once. */
TS_API void ts_cond_resched(void);
/* Sleeps at least ns; -EPERM from a plain thread. */
TS_API int ts_sleep_ns(uint64_t ns);
/* The calling task's handle (id 0 from a plain thread). */
TS_API ts_task_handle ts_self(void);
/* The calling task's name, its scheduler CPU now (-1 from a plain thread). */
TS_API const char *ts_self_name(void);
TS_API int ts_self_cpu(void);
/* The guard page and usable stack of a task (for tests and debuggers). A task spawned with
 * its own ts_task_attr.stack_size has that stack from ts_spawn() until it is joined; one
 * with the default size gets a stack when it first runs and gives it back when it
 * exits, so only the task itself may ask (-EAGAIN from anyone else). */
TS_API int ts_task_stack(ts_task_handle h, void **guard, void **lo, size_t *size);

/* ---- NUMA ---- */

/* The task's preferred node (p->numa_preferred_nid), set as sched_setnuma() does (a
 * queued task is re-accounted on its rq). It seeds NUMA balancing: the task's first
 * migration attempt aims there, until a placement (after a full scan of its declared
 * memory) picks the node with most of its faults. node -1 clears it. h.id 0 = the
 * calling task. */
TS_API int ts_task_set_preferred_node(ts_task_handle h, int node);
TS_API int ts_task_get_preferred_node(ts_task_handle h, int *node);

/* len bytes (rounded up to pages) on `node` of the runtime's topology; NULL with errno and
 * ts_rt_last_error() on error (-ENXIO not running, -EINVAL bad node or len, -ENOMEM).
 * On the host topology with NUMA support (numa_available() >= 0 and the kernel answering
 * move_pages() queries) the memory is numa_alloc_onnode()'s; otherwise (no NUMA support,
 * a container filtering the NUMA system calls, or a virtual topology, whose nodes are no
 * real ones) a plain anonymous mmap, and the runtime takes its pages to be on `node`.
 * From a task the memory is also declared (ts_numa_declare). */
TS_API void *ts_numa_alloc(size_t len, int node);
/* Frees memory of ts_numa_alloc(); len as allocated. From a task its declarations of
 * that memory are dropped. -EINVAL when (p, len) is no live allocation. */
TS_API int ts_numa_free(void *p, size_t len);
/* Declares [addr, addr + len) (widened to pages) as memory the calling task uses: NUMA
 * balancing samples it. On the host topology with NUMA support the node of each page is asked
 * of the kernel (move_pages() query) at every scan, so the kernel's own page placement is
 * seen; pages never touched count as no access. Otherwise the memory's node is the one it
 * was allocated for (ts_numa_alloc) or, for other memory, the node of the CPU the task
 * runs on when it declares it (first touch). Tasks only (-EPERM); -EINVAL bad range;
 * -EEXIST overlaps a declaration of this task. */
TS_API int ts_numa_declare(void *addr, size_t len);
/* Drops the calling task's declarations that lie within [addr, addr + len). Returns how
 * many were dropped. */
TS_API int ts_numa_undeclare(void *addr, size_t len);

/* One NUMA migration or swap the core decided, as the runtime performed (or abandoned) it.
 * Times: ns since ts_rt_start(); `decided` after the decision (the reservation of dst_cpu,
 * with NUMA_RESERVE, was taken before it), `done` after the stop work and before the
 * reservation was released. */
struct ts_rt_numa_event {
	uint64_t task;	    /* ts_task_handle id of the task moved toward its memory */
	uint64_t swap_with; /* its swap partner's id, 0 for a move */
	int src_cpu, dst_cpu;
	bool applied; /* the stop work moved the task(s) */
	uint64_t decided_ns, done_ns;
};
/* Copies up to max events of the trace (config numa_trace) in order of completion;
 * returns how many there are (at most the capacity; later ones are dropped). */
TS_API size_t ts_rt_numa_trace(struct ts_rt_numa_event *out, size_t max);

/* ---- task groups ----
 * Groups of tasks with CPU shares, scheduled hierarchically by the core (group.h; the
 * kernel's cgroup v1 cpu.shares / CONFIG_FAIR_GROUP_SCHED): a group's tasks together get
 * CPU time in proportion to the group's shares against its siblings', on every CPU.
 * The layout of every group's load_avg is ts_rt_config.tg_layout; TG_LOAD_RATELIMIT and
 * TG_LOAD_FILTER (ts_rt_config.features) switch update_tg_load_avg()'s limits.
 *
 * Serialisation. The core requires that creating a group is not concurrent with anything
 * walking the hierarchy: the tick's and the balancer's blocked-load update walk every
 * group's child list under one CPU's run-queue lock. ts_rt_group_create() may be called at
 * any time while the runtime runs, from a task or a plain thread: it holds the runtime's
 * group mutex (creations, stats and dumps among themselves) and, while the core allocates
 * and links the group, EVERY worker's run-queue lock, taken in CPU order (the order of the
 * core's double_rq_lock(), so it cannot deadlock with a balancer holding two). No worker
 * is then inside a core call, and the lock's release publishes the new group to each of
 * them. The lock-free paths (wake-up placement's task_h_load()) only walk up from the
 * group of a task being woken, which a new group has none of yet. Creation is rare; the
 * cost is one pause of every worker for the allocation.
 *
 * A group lives until ts_rt_stop(), which frees it with the scheduler (the core cannot
 * destroy a group while tasks may use it); the pointer must not be used after that.
 * A task joins a group at spawn (ts_task_attr.group): ts_task_set_group() of the core on
 * the NEW task, before its first wake-up. */

/* A child of parent (NULL = the root group) with `shares` (cpu.shares scale: 1024 is one
 * nice-0 task's weight; 0 = 1024; clamped to [2, 262144] as the kernel's
 * sched_group_set_shares()). name: 1..31 characters without blanks or '/', unique among
 * parent's children. NULL on error with errno and ts_rt_last_error(): -ENXIO not running,
 * -EINVAL bad name or a parent that is not a group of this run, -EEXIST name taken,
 * -ENOMEM. */
TS_API struct ts_rt_group *ts_rt_group_create(const char *name, unsigned long shares,
					      struct ts_rt_group *parent);
TS_API const char *ts_rt_group_name(const struct ts_rt_group *g);

/* The counters of a group's tg->load_avg accesses (group.h), summed over CPUs, read with
 * relaxed loads, and when (CLOCK_MONOTONIC ns) they were read. */
struct ts_rt_group_stats {
	uint64_t writes; /* atomic adds to load_avg (update_tg_load_avg passed) */
	uint64_t reads;	 /* reads of load_avg (calc_group_shares) */
	/* writes by a CPU of another NUMA node than the previous write's (the runtime turns
	 * on the core's last-writer tracking); always 0 for per-node and on one node */
	uint64_t remote_writes;
	uint64_t skipped_ratelimit; /* update_tg_load_avg() stopped by the 1 ms limit */
	uint64_t skipped_filter;    /* ... by the 1/64 filter (or a zero delta) */
	uint64_t at_ns;
	int nr_groups; /* groups summed */
};
/* g's counters, or with g NULL the sum over every group created in this run (not the
 * root: it has no load_avg). -ENXIO not running, -EINVAL g not a group of this run. */
TS_API int ts_rt_group_stats(const struct ts_rt_group *g, struct ts_rt_group_stats *out);
/* Per second between two readings of the same groups (after - before, over their
 * at_ns); remote_share = remote writes / writes in the interval, -1 without writes.
 * -EINVAL if after is not later than before or a counter went backwards. */
struct ts_rt_group_rates {
	double writes, reads, remote_writes, skipped_ratelimit, skipped_filter;
	double remote_share;
	double interval_s;
};
TS_API int ts_rt_group_rates(const struct ts_rt_group_stats *before,
			     const struct ts_rt_group_stats *after, struct ts_rt_group_rates *out);
/* The hierarchy below g (NULL = the root, "/"), one line per group, children indented by
 * two spaces: "<name> shares=<n> parent=<name|-> layout=<layout> load_avg=<n>" (the
 * core's ts_tg_dump()). snprintf semantics: returns the length of the whole text, writes
 * at most len - 1 bytes and a NUL when len > 0. 0 (and "" in buf) when not running or g
 * is not a group of this run. */
TS_API size_t ts_rt_group_dump(const struct ts_rt_group *g, char *buf, size_t len);

/* ---- channels ---- */

struct ts_chan;
/* A bounded FIFO of `capacity` elements of elem_size bytes (capacity 0: rendezvous).
 * The buffer is allocated and faulted in here (capacity x elem_size bytes resident from
 * the start). Returns NULL (errno) on bad arguments or no memory. */
TS_API struct ts_chan *ts_chan_create(size_t capacity, size_t elem_size);
/* Frees the channel; no task may be blocked on it. */
TS_API void ts_chan_destroy(struct ts_chan *c);
/* Blocking send/recv (tasks only: -EPERM elsewhere). send: -EPIPE once closed. recv:
 * -EPIPE once closed and empty. */
TS_API int ts_chan_send(struct ts_chan *c, const void *elem);
TS_API int ts_chan_recv(struct ts_chan *c, void *elem);
/* ts_chan_send() for a caller about to block (a request followed by a wait for the
 * reply): the receiver it wakes is placed with WF_SYNC (wake_affine favours this CPU). */
TS_API int ts_chan_send_sync(struct ts_chan *c, const void *elem);
/* ts_chan_send() for a caller that blocks right after and wants the receiver it wakes to
 * run next on this worker: WF_CURRENT_CPU, as the kernel wakes a seccomp supervisor in
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP mode (wake_up_poll_on_current_cpu(); Andrei Vagin,
 * "sched: add WF_CURRENT_CPU and externise ttwu", 2023), skipping wake_affine() and
 * select_idle_sibling(). A ping-pong then stays on one worker and moves no cache line
 * between CPUs; the receiver waits while the caller runs on. */
TS_API int ts_chan_send_handoff(struct ts_chan *c, const void *elem);
/* ts_chan_recv() whose wake-up of a sender it frees (one blocked on a full channel, or
 * waiting at a rendezvous) is a hand-off as above: the sender is queued on this worker
 * (WF_CURRENT_CPU), as Go's chanrecv() readies it on the receiver's P. With both ends
 * handing off, tasks that exchange messages gather on the workers that run them. */
TS_API int ts_chan_recv_handoff(struct ts_chan *c, void *elem);
/* Non-blocking (any thread): -EAGAIN instead of blocking. */
TS_API int ts_chan_try_send(struct ts_chan *c, const void *elem);
TS_API int ts_chan_try_recv(struct ts_chan *c, void *elem);
/* Wakes every blocked sender (-EPIPE) and receiver (drain, then -EPIPE). Closing twice:
 * -EPIPE. */
TS_API int ts_chan_close(struct ts_chan *c);

/* ---- mutex, condition variable, wait group (tasks only for the blocking calls) ---- */

struct ts_mutex;
struct ts_cond;
struct ts_waitgroup;
TS_API struct ts_mutex *ts_mutex_create(void);
TS_API void ts_mutex_destroy(struct ts_mutex *m);
TS_API int ts_mutex_lock(struct ts_mutex *m);
TS_API int ts_mutex_trylock(struct ts_mutex *m); /* -EBUSY when held */
TS_API int ts_mutex_unlock(struct ts_mutex *m);	 /* -EPERM when not held by the caller */

TS_API struct ts_cond *ts_cond_create(void);
TS_API void ts_cond_destroy(struct ts_cond *c);
TS_API int ts_cond_wait(struct ts_cond *c, struct ts_mutex *m);
TS_API int ts_cond_signal(struct ts_cond *c);
TS_API int ts_cond_broadcast(struct ts_cond *c);

TS_API struct ts_waitgroup *ts_wg_create(void);
TS_API void ts_wg_destroy(struct ts_waitgroup *wg);
TS_API int ts_wg_add(struct ts_waitgroup *wg, int delta); /* -EINVAL if the count goes negative */
TS_API int ts_wg_done(struct ts_waitgroup *wg);
TS_API int ts_wg_wait(struct ts_waitgroup *wg);

#ifdef __cplusplus
}
#endif

#endif
