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
 * Read at ticks only (the CPU-time clock is a system call; a tick comes every 1-4 ms). A
 * stretch in which the worker parked is dropped: its thread slept then with no task to
 * run. A task that blocks its worker in a system call is not charged for the sleep either:
 * the thread was off the CPU. TOPOSCHED_RT_STEAL=off charges wall time. */
#include "rt_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rt_steal_start(struct rt_worker *w, uint64_t now)
{
	const char *env = getenv("TOPOSCHED_RT_STEAL");
	w->steal_on = !(env && strcmp(env, "off") == 0);
	w->steal_wall = now;
	w->steal_cpu = thread_cpu_ns();
	w->steal_parks = ts_stat_read(&w->parks);
}

uint64_t rt_steal_tick(struct rt_worker *w, uint64_t now)
{
	if (!w->steal_on)
		return 0;
	uint64_t cpu = thread_cpu_ns(), parks = ts_stat_read(&w->parks);
	uint64_t wall = now - w->steal_wall, ran = cpu - w->steal_cpu;
	uint64_t steal = parks == w->steal_parks && wall > ran ? wall - ran : 0;
	w->steal_wall = now;
	w->steal_cpu = cpu;
	w->steal_parks = parks;
	if (steal)
		ts_stat_add(&w->steal_ns, steal);
	return steal;
}
