/* The peers of `toposched bench --peers`: the same six benchmarks written for Go (its
 * goroutine scheduler, GOMAXPROCS = the runtime's workers) and for Boost.Fiber (C++ fibers
 * on as many threads), in bench/peers/. The bench builds them on first use into a cache
 * directory (again when a source is newer), runs each right after the runtime's and the
 * kernel's form of the same benchmark, and reports each peer's figure with its ratio to
 * toposched (the pipe ping-pong for both pipe and pingpong). A peer whose toolchain is
 * absent is skipped with the reason. */
#ifndef TS_BENCH_RT_PEERS_H
#define TS_BENCH_RT_PEERS_H

#include <stdbool.h>
#include <stddef.h>

#include "rt_benches.h"

enum rtb_peer { RTB_PEER_GO, RTB_PEER_FIBER, RTB_PEER_NR };
_Static_assert(RTB_PEER_NR == RTB_NR_PEERS, "struct rtb_result holds every peer");

struct rtb_peers {
	bool ready[RTB_PEER_NR];
	char exe[RTB_PEER_NR][512];
	char skipped[RTB_PEER_NR][320]; /* why a peer is not ready */
};

/* "go", "boost_fiber". */
const char *rtb_peer_name(enum rtb_peer p);
/* Builds the peers from src_dir (bench/peers) into cache_dir (created if missing). Never
 * fails as a whole: a peer that cannot be built is not ready, the reason in skipped[]. */
void rtb_peers_build(const char *src_dir, const char *cache_dir, struct rtb_peers *pp);
/* Runs peer p's form of r->bench with r's parameters on `procs` threads and stores its
 * figure in r->peer[p]. 0, or -1 with the reason in r->peer[p].skipped (not built, failed
 * or timed out). */
int rtb_peer_run(const struct rtb_peers *pp, enum rtb_peer p, int procs, struct rtb_result *r);
/* Text: one line per peer of r under its benchmark's lines (a skipped peer: why). */
void rtb_print_peers(FILE *f, const struct rtb_result *r);

#endif
