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
	       atomic_load(&w->inbox_n) || atomic_load(&rt_g.stopping);
}

void rt_worker_park(struct rt_worker *w, uint64_t timeout_ns)
{
	/* Spin first: a wake-up that comes within a few microseconds costs no syscall. */
	for (int i = 0; i < rt_g.idle_spin; i++) {
		if (has_work(w))
			return;
#if defined(__x86_64__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ volatile("yield");
#endif
	}
	atomic_store(&w->parked, 1);
	if (has_work(w)) {
		atomic_store(&w->parked, 0);
		return;
	}
	rt_stat_bump(&w->parks);
	rt_futex_wait(&w->parked, 1, timeout_ns);
	atomic_store(&w->parked, 0);
}
