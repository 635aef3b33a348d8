/* Parking an idle worker on a futex and unparking it: the host's resched_cpu().
 *
 * No lost wake-ups: the worker publishes parked = 1 and then re-checks for work
 * (need_resched, its run queue, stop); a waker publishes need_resched = 1 and then looks
 * at parked. Both are sequentially consistent, so at least one sees the other: either the
 * worker finds the work and does not sleep, or the waker sees parked == 1, takes it back
 * to 0 and wakes the futex (a FUTEX_WAIT that has not started yet then fails at once,
 * since the word is no longer 1). */
#include "rt_internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long futex(atomic_int *uaddr, int op, int val, const struct timespec *ts)
{
	return syscall(SYS_futex, (int *)uaddr, op, val, ts, NULL, 0);
}

void rt_futex_wait(atomic_int *word, int expected, uint64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;
	if (timeout_ns) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
		ts.tv_nsec = (long)(timeout_ns % 1000000000u);
		tp = &ts;
	}
	futex(word, FUTEX_WAIT_PRIVATE, expected, tp);
}

void rt_futex_wake(atomic_int *word, int n)
{
	futex(word, FUTEX_WAKE_PRIVATE, n, NULL);
}

void rt_worker_kick(struct rt_worker *w)
{
	atomic_store(&w->need_resched, 1);
	if (atomic_load(&w->parked) == 1 && atomic_exchange(&w->parked, 0) == 1)
		rt_futex_wake(&w->parked, 1);
}

static bool has_work(struct rt_worker *w)
{
	return atomic_load(&w->need_resched) || ts_rq_nr_running(rt_g.s, w->cpu) ||
	       atomic_load(&w->inbox) || atomic_load(&rt_g.stopping);
}

/* The cpuidle haltpoll governor (drivers/cpuidle/governors/haltpoll.c, with its module
 * parameters' defaults): a guest CPU going idle polls for up to poll_limit_ns before it
 * halts, because a halt and the wake-up IPI that ends it each cost a VM exit. A futex
 * sleep and the FUTEX_WAKE that ends it are the same kind of cost for a worker (a system
 * call on each side, and the wakee's thread scheduled by the kernel: tens of
 * microseconds on a busy host), so an idle worker uses the same policy. The poll limit
 * adapts to the halts: one that lasted longer than the limit but no more than
 * RT_HALT_POLL_NS grows it (x2, at least GROW_START), a longer one shrinks it (/2). So a
 * worker whose idle periods are short polls through them, one that idles for long stops
 * polling. */
#define RT_HALT_POLL_NS		200000u /* guest_halt_poll_ns */
#define RT_HALT_POLL_GROW	2u	/* guest_halt_poll_grow */
#define RT_HALT_POLL_GROW_START 50000u	/* guest_halt_poll_grow_start */
#define RT_HALT_POLL_SHRINK	2u	/* guest_halt_poll_shrink */

/* adjust_poll_limit() */
void rt_haltpoll_adjust(struct rt_haltpoll *hp, uint64_t block_ns)
{
	if (block_ns > hp->poll_limit_ns && block_ns <= RT_HALT_POLL_NS) {
		uint64_t val = hp->poll_limit_ns * RT_HALT_POLL_GROW;
		if (val < RT_HALT_POLL_GROW_START)
			val = RT_HALT_POLL_GROW_START;
		if (val > RT_HALT_POLL_NS)
			val = RT_HALT_POLL_NS;
		hp->poll_limit_ns = val;
	} else if (block_ns > RT_HALT_POLL_NS) {
		hp->poll_limit_ns /= RT_HALT_POLL_SHRINK;
	}
}

/* haltpoll_select(): poll unless the limit is 0 or the last poll ended without an event. */
bool rt_haltpoll_select(const struct rt_haltpoll *hp)
{
	if (!hp->poll_limit_ns)
		return false;
	return !(hp->last_polled && hp->poll_time_limit);
}

/* The poll state (poll_idle()): true when work came (or the timer's deadline, when not 0,
 * passed) within the limit. */
static bool haltpoll_poll(struct rt_worker *w, uint64_t deadline)
{
	struct rt_haltpoll *hp = &w->haltpoll;
	uint64_t t0 = rt_clock_ns(), end = t0 + hp->poll_limit_ns;
	if (deadline && deadline < end)
		end = deadline;
	bool event = false;
	for (;;) {
		/* The clock costs more than a look at the flags: read it every 32 polls. */
		for (int i = 0; i < 32 && !event; i++) {
			event = has_work(w);
			cpu_relax();
		}
		if (event)
			break;
		uint64_t now = rt_clock_ns();
		if (now >= end) {
			event = deadline && now >= deadline;
			break;
		}
	}
	hp->last_polled = true;
	hp->poll_time_limit = !event;
	return event;
}

void rt_worker_park(struct rt_worker *w, uint64_t timeout_ns)
{
	/* Spin first: a wake-up that comes within a few microseconds costs no syscall. */
	for (int i = 0; i < rt_g.idle_spin; i++) {
		if (has_work(w))
			return;
		cpu_relax();
	}
	struct rt_haltpoll *hp = &w->haltpoll;
	if (rt_g.haltpoll && rt_haltpoll_select(hp) &&
	    haltpoll_poll(w, timeout_ns ? rt_clock_ns() + timeout_ns : 0))
		return;
	rt_exits_flush(w); /* nothing to hold them back for while parked */
	atomic_store(&w->parked, 1);
	if (has_work(w)) {
		atomic_store(&w->parked, 0);
		return;
	}
	rt_stat_bump(&w->parks);
	uint64_t t0 = rt_g.haltpoll ? rt_clock_ns() : 0;
	rt_futex_wait(&w->parked, 1, timeout_ns);
	atomic_store(&w->parked, 0);
	if (rt_g.haltpoll) { /* haltpoll_reflect() of the halt state */
		hp->last_polled = false;
		rt_haltpoll_adjust(hp, rt_clock_ns() - t0);
	}
}
