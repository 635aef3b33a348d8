/* rt-app's unit of work and its calibration (github.com/scheduler-tools/rt-app,
 * src/rt-app.c: waste_cpu_cycles(), calibrate_cpu_cycles()). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_run_exec.h"
#include "toposched/runtime.h"

/* Loops between two preemption points of rx_burn(): a few microseconds of work, so that
 * a task whose slice is used up gives its worker back about as soon as the kernel's tick
 * would preempt a thread, while the check stays a small share of the work. */
#define RX_LOOPS_PER_POINT 64
/* calibrate_cpu_cycles_2(): trials, first length, growth, and the agreement that ends it
 * (a sample within 1/50 of the running average). */
#define CALIB_TRIALS	 1000
#define CALIB_FIRST	 10000
#define CALIB_STEP	 33333
#define CALIB_WRAP	 1000000
#define CALIB_AGREEMENT	 50
#define CALIB_MIN_ROUNDS 2 /* rt-app takes the smaller of two methods' figures */

void rx_waste_loops(uint64_t loops)
{
	/* volatile: the results are unused, as in rt-app, and must still be computed */
	volatile double param = 0.95, n = 4, result;
	for (uint64_t i = 0; i < loops; i++) {
		for (int k = 0; k < 4; k++)
			result = ldexp(param, (int)ldexp(param, (int)ldexp(param, (int)n)));
	}
	(void)result;
}

void rx_burn(uint64_t loops)
{
	while (loops) {
		uint64_t n = loops < RX_LOOPS_PER_POINT ? loops : RX_LOOPS_PER_POINT;
		rx_waste_loops(n);
		loops -= n;
		ts_cond_resched();
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* calibrate_cpu_cycles_2(): batches of growing length until one agrees with the running
 * average; 0 when none does. */
static double calibrate_once(void)
{
	uint64_t batch = CALIB_FIRST;
	double avg = 0;
	for (int trial = 0; trial < CALIB_TRIALS; trial++) {
		uint64_t t0 = mono_ns();
		rx_burn(batch);
		double per_loop = (double)(mono_ns() - t0) / (double)batch;
		avg = (avg + per_loop) / 2;
		if (fabs(per_loop - avg) * CALIB_AGREEMENT < avg)
			return avg;
		batch = (batch + CALIB_STEP) % CALIB_WRAP;
	}
	return 0;
}

int rx_calibrate(int cpu, double *ns_per_loop, struct ts_error *err)
{
	cpu_set_t old, one;
	CPU_ZERO(&one);
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return ts_error_set(err, -EINVAL, "calibration CPU%d does not exist", cpu);
	CPU_SET((size_t)cpu, &one);
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return ts_error_set(err, -EIO, "calibration: reading the affinity failed");
	if (!CPU_ISSET((size_t)cpu, &old))
		return ts_error_set(err, -EINVAL,
				    "calibration CPU%d is not one this process may run on", cpu);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (rc)
		return ts_error_set(err, -rc, "calibration: pinning to CPU%d failed: %s", cpu,
				    strerror(rc));
	double best = 0;
	for (int i = 0; i < CALIB_MIN_ROUNDS; i++) {
		double v = calibrate_once();
		if (v > 0 && (best == 0 || v < best))
			best = v;
	}
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (best <= 0)
		return ts_error_set(err, -EIO,
				    "calibration on CPU%d never settled (%d batches disagreed)",
				    cpu, CALIB_TRIALS);
	*ns_per_loop = best;
	return 0;
}
