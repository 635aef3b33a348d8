/* bench_rt: the runtime's benchmarks against the kernel (rt_benches.c) with their default
 * parameters, as `toposched bench` runs them; names on the command line select some
 * (default: all). `toposched bench --help` has the options (loops, CPUs, topology, JSON).
 * Prints times only; nothing is asserted. */
#include <stdio.h>
#include <string.h>

#include "rt_benches.h"

int main(int argc, char **argv)
{
	bool selected[RTB_NR] = {false}, any = false, stats = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--stats") == 0) {
			stats = true;
			continue;
		}
		int b = rtb_lookup(argv[i]);
		if (b < 0) {
			fprintf(stderr,
				"bench_rt: unknown benchmark '%s' (pipe, pingpong, hackbench, "
				"hackbench-handoff, spawn, spawn-join, yield, wake; --stats)\n",
				argv[i]);
			return 2;
		}
		selected[b] = any = true;
	}
	struct rtb_config cfg = {0};
	char err[256];
	rtb_print_header(stdout);
	for (int b = 0; b < RTB_NR; b++) {
		if (any && !selected[b])
			continue;
		struct rtb_result r;
		if (rtb_run((enum rtb_bench)b, &cfg, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_rt: %s: %s\n", rtb_name((enum rtb_bench)b), err);
			return 1;
		}
		rtb_print_result(stdout, &r);
		if (stats)
			rtb_print_stats(stdout, &r);
		fflush(stdout);
	}
	return 0;
}
