/* Steal time: time in which a worker had a task running but its thread did not run. The
 * kernel does not charge a task for the time its hypervisor took (update_rq_clock_task()
 * holds rq_clock_task() back by the steal clock under CONFIG_PARAVIRT_TIME_ACCOUNTING, and
 * by interrupt time under CONFIG_IRQ_TIME_ACCOUNTING); a worker thread is the runtime's
 * CPU, and what the host takes from it is the wall time that did not become the thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID, the host kernel's up-to-date sum_exec_runtime of the
 * thread: its run-queue waits, and its own steal and interrupt time are not in it). Each
 * tick passes that difference since the last tick to the core (ts_sched_account_steal()),
 * which keeps it out of the running task's charge.
 *
 * Read at ticks (the CPU-time clock is a system call; a tick comes every 1-4 ms). A
 * stretch in which the worker parked is dropped: its thread slept then with no task to
 * run. A task that blocks its worker in a system call is not charged for the sleep either:
 * the thread was off the CPU. TOPOSCHED_RT_STEAL=off charges wall time.
 *
 * Another thread reading the steal of a window (ts_rt_get_stats()) adds the stretch since
 * the worker's last tick, read from the worker thread's CPU-time clock
 * (pthread_getcpuclockid()): otherwise the first tick in a window would bring up to a
 * tick interval of steal from before it, and the last would leave the window's end out. */
#include "rt_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	if (clock_gettime(c, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The worker's tick state, written under steal_seq (only its own thread writes it). */
static void steal_write(struct rt_worker *w, uint64_t wall, uint64_t cpu, uint64_t parks,
			uint64_t steal)
{
	uint64_t seq = atomic_load_explicit(&w->steal_seq, memory_order_relaxed);
	atomic_store_explicit(&w->steal_seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&w->steal_wall, wall, memory_order_relaxed);
	atomic_store_explicit(&w->steal_cpu, cpu, memory_order_relaxed);
	atomic_store_explicit(&w->steal_parks, parks, memory_order_relaxed);
	if (steal)
		ts_stat_add(&w->steal_ns, steal);
	atomic_store_explicit(&w->steal_seq, seq + 2, memory_order_release);
}

/* The steal of a stretch: wall time that did not become CPU time, none if it parked. */
static uint64_t stretch_steal(uint64_t wall, uint64_t ran, bool parked)
{
	return !parked && wall > ran ? wall - ran : 0;
}

void rt_steal_start(struct rt_worker *w, uint64_t now)
{
	const char *env = getenv("TOPOSCHED_RT_STEAL");
	w->steal_on = !(env && strcmp(env, "off") == 0);
	if (pthread_getcpuclockid(pthread_self(), &w->cpu_clock))
		w->cpu_clock = CLOCK_THREAD_CPUTIME_ID; /* readers then see their own: unused */
	steal_write(w, now, clock_ns(CLOCK_THREAD_CPUTIME_ID), ts_stat_read(&w->parks), 0);
}

/* The stretch ends where the CPU-time clock is read, not at the tick's clock reading
 * before it: the thread may be preempted in between, and then that older end would put
 * the preempted time into the next stretch, after a reader (rt_steal_read()) had taken it
 * up to its own clock in this one, dropped as parked or counted. */
uint64_t rt_steal_tick(struct rt_worker *w)
{
	if (!w->steal_on)
		return 0;
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID), parks = ts_stat_read(&w->parks);
	uint64_t now = rt_clock_ns();
	uint64_t wall = atomic_load_explicit(&w->steal_wall, memory_order_relaxed);
	uint64_t ran = atomic_load_explicit(&w->steal_cpu, memory_order_relaxed);
	bool parked = parks != atomic_load_explicit(&w->steal_parks, memory_order_relaxed);
	uint64_t steal = stretch_steal(now - wall, cpu - ran, parked);
	steal_write(w, now, cpu, parks, steal);
	return steal;
}

uint64_t rt_steal_read(struct rt_worker *w)
{
	uint64_t seq, done = 0, wall = 0, ran = 0, parks = 0;
	do {
		seq = atomic_load_explicit(&w->steal_seq, memory_order_acquire);
		if (!seq) /* not started */
			return 0;
		if (seq & 1) { /* the worker is writing */
			cpu_relax();
			continue;
		}
		done = ts_stat_read(&w->steal_ns);
		wall = atomic_load_explicit(&w->steal_wall, memory_order_relaxed);
		ran = atomic_load_explicit(&w->steal_cpu, memory_order_relaxed);
		parks = atomic_load_explicit(&w->steal_parks, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
	} while ((seq & 1) || seq != atomic_load_explicit(&w->steal_seq, memory_order_relaxed));
	if (!w->steal_on)
		return done;
	/* After the snapshot: the stretch is the one since that tick (a later tick's part
	 * of it is then in neither figure, and the next read counts it). */
	uint64_t cpu = clock_ns(w->cpu_clock), now = rt_clock_ns();
	if (!cpu || now < wall || cpu < ran) /* the thread has exited */
		return done;
	return done + stretch_steal(now - wall, cpu - ran, parks != ts_stat_read(&w->parks));
}
