/* The runtime's clock (the host's clock(), the timers, the tick): CLOCK_MONOTONIC, read
 * through the time-stamp counter where that is safe.
 *
 * The core reads the clock at every entry (rq_clock), so a yield or a channel round trip
 * reads it two to four times. On a guest whose clocksource is kvm-clock, clock_gettime()
 * is a vDSO pvclock read of ~35 ns; perf of `toposched bench` put 15 % of a yield's and
 * 22 % of a ping-pong's CPU time there. The kernel's own sched_clock() is the TSC scaled
 * (arch/x86/kernel/tsc.c, native_sched_clock(): cycles_2_ns()); so is this one, when the
 * CPU says the TSC runs at a constant rate in every state (/proc/cpuinfo constant_tsc
 * and nonstop_tsc, the conditions of the kernel's tsc_clocksource_reliable): the rate is
 * measured once per process against CLOCK_MONOTONIC over RT_TSC_CALIBRATE_NS and the
 * readings are anchored at that CLOCK_MONOTONIC instant. TOPOSCHED_RT_CLOCK=monotonic
 * turns it off. The scaled reading is not CLOCK_MONOTONIC to the nanosecond (the rate is
 * measured to some ppm), so what is reported as a CLOCK_MONOTONIC time
 * (rt_monotonic_ns()) reads the system clock. */
#include "rt_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RT_TSC_CALIBRATE_NS 5000000u /* 5 ms once per process: ~10 ppm */

#if defined(__x86_64__)
#include <cpuid.h>

struct rt_tsc rt_tsc;
bool rt_prefetchw;
#endif
static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;

uint64_t rt_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}

static bool tsc_reliable(void)
{
	const char *env = getenv("TOPOSCHED_RT_CLOCK");
	if (env && strcmp(env, "monotonic") == 0)
		return false;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool constant = false, nonstop = false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0) {
			constant = strstr(line, " constant_tsc") != NULL;
			nonstop = strstr(line, " nonstop_tsc") != NULL;
			break;
		}
	fclose(f);
	return constant && nonstop;
}

static void tsc_calibrate(void)
{
	if (!tsc_reliable())
		return;
	uint64_t n0 = rt_monotonic_ns(), c0 = rdtsc(), n1, c1;
	do {
		n1 = rt_monotonic_ns();
		c1 = rdtsc();
	} while (n1 - n0 < RT_TSC_CALIBRATE_NS);
	uint64_t cycles = c1 - c0, ns = n1 - n0;
	/* between 100 MHz and 10 GHz, or it is no usable TSC */
	if (cycles < ns / 10 || cycles > ns * 10)
		return;
	rt_tsc.mult = (uint64_t)(((unsigned __int128)ns << RT_TSC_SHIFT) / cycles);
	rt_tsc.tsc0 = c1;
	rt_tsc.ns0 = n1;
	rt_tsc.on = true;
}

/* Also the CPU feature rt_prefetch_w() reads: PREFETCHW (CPUID 0x80000001 ECX bit 8). */
static void clock_once(void)
{
	unsigned int a, b, c, d;
	if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
		rt_prefetchw = (c >> 8) & 1u;
	tsc_calibrate();
}

void rt_clock_init(void)
{
	pthread_once(&tsc_once, clock_once);
}

#else
void rt_clock_init(void) {}
#endif
