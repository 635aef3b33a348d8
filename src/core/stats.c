/* Names of the placement reasons and CPU relationships, the scan-length histogram, and
 * mmtests' derived SIS metrics (gormanm/mmtests, bin/lib/MMTests/MonitorProcschedstat.pm),
 * with the formulas as written there (mmtests' own "success" branch has an
 * inverted test; we do not reproduce it). */
#include <stddef.h>
#include <string.h>

#include "toposched/stats.h"

static const char *const reason_names[TS_PLACE_NR] = {
	[TS_PLACE_TARGET_IDLE] = "target_idle",
	[TS_PLACE_PREV] = "prev",
	[TS_PLACE_KTHREAD_STACK] = "kthread_stack",
	[TS_PLACE_RECENT] = "recent",
	[TS_PLACE_ASYM_CAPACITY] = "asym_capacity",
	[TS_PLACE_NO_LLC] = "no_llc",
	[TS_PLACE_IDLE_SMT] = "idle_smt",
	[TS_PLACE_IDLE_CORE] = "idle_core",
	[TS_PLACE_IDLE_THREAD] = "idle_thread",
	[TS_PLACE_CLUSTER_SCAN] = "cluster_scan",
	[TS_PLACE_LLC_SCAN] = "llc_scan",
	[TS_PLACE_PREV_FALLBACK] = "prev_fallback",
	[TS_PLACE_RECENT_FALLBACK] = "recent_fallback",
	[TS_PLACE_TARGET_FALLBACK] = "target_fallback",
	[TS_PLACE_SCAN_ABORTED] = "scan_aborted",
	[TS_PLACE_BUDGET_EXHAUSTED] = "budget_exhausted",
	[TS_PLACE_CURRENT_CPU] = "current_cpu",
	[TS_PLACE_SLOW_PATH] = "slow_path",
	[TS_PLACE_SINGLE_CPU] = "single_cpu",
};

/* Out-of-range values give "?" rather than NULL, so that a report never prints NULL. */
const char *ts_place_reason_name(enum ts_place_reason r)
{
	if (r == TS_PLACE_NEAR_NODE_SPREAD)
		return "near_node_spread";
	if ((unsigned)r >= (unsigned)TS_PLACE_NR || !reason_names[r])
		return "?";
	return reason_names[r];
}

/* Buckets 0, 1, 2, 3-4, 5-8, ..., 257-512, 513+: bucket b >= 2 holds 2^(b-2)+1 .. 2^(b-1). */
int ts_scan_hist_bucket(int nr_scanned)
{
	if (nr_scanned <= 0)
		return 0;
	if (nr_scanned <= 2)
		return nr_scanned;
	int b = 1;
	unsigned v = (unsigned)nr_scanned - 1; /* ceil(log2(n)) = bits of n-1 */
	while (v) {
		b++;
		v >>= 1;
	}
	return b < TS_SCAN_HIST_BUCKETS ? b : TS_SCAN_HIST_BUCKETS - 1;
}

static const char *const hist_labels[TS_SCAN_HIST_BUCKETS] = {
	"0",	 "1",	  "2",	    "3-4",     "5-8",	  "9-16",
	"17-32", "33-64", "65-128", "129-256", "257-512", "513+",
};
_Static_assert(TS_SCAN_HIST_BUCKETS == 12, "labels follow the bucket count");

const char *ts_scan_hist_label(int bucket)
{
	if (bucket < 0 || bucket >= TS_SCAN_HIST_BUCKETS)
		return "?";
	return hist_labels[bucket];
}

static double pct(double num, double den)
{
	return den > 0 ? 100.0 * num / den : -1.0;
}

struct ts_sis_metrics ts_sis_metrics(const struct ts_sis_counts *c)
{
	struct ts_sis_metrics m;
	/* signed, so that inconsistent deltas (a counter reset between samples) give a
	 * non-positive denominator, i.e. "undefined", instead of a huge unsigned value */
	double search = (double)c->search, domain = (double)c->domain_search;
	double scanned = (double)c->scanned;
	double fast_search = search - domain;
	double domain_scanned = scanned - fast_search;
	m.search_efficiency = pct(search, scanned);
	m.domain_search_efficiency = pct(domain, domain_scanned);
	m.fast_success_rate = pct(fast_search, search);
	m.success_rate = pct(search - (double)c->failed, search);
	m.recent_success_rate =
		pct((double)c->recent_hit, (double)c->recent_hit + (double)c->recent_miss);
	m.core_search_efficiency =
		pct((double)c->core_search - (double)c->core_failed, (double)c->core_search);
	m.scanned_per_wakeup = search > 0 ? scanned / search : -1.0;
	return m;
}

/* per_cpu points at the first CPU's counters; consecutive CPUs are `stride` bytes apart
 * (0 = packed array of struct ts_cpu_stats). To sum the counters in place in the run
 * queues: ts_sis_counts_sum(&s->rq[0].stats, s->nr_cpus, sizeof(struct ts_rq), &out). */
void ts_sis_counts_sum(const struct ts_cpu_stats *per_cpu, int nr_cpus, size_t stride,
		       struct ts_sis_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!per_cpu)
		return;
	if (!stride)
		stride = sizeof(*per_cpu);
	const char *base = (const char *)per_cpu;
	for (int i = 0; i < nr_cpus; i++) {
		const struct ts_cpu_stats *st =
			(const struct ts_cpu_stats *)(base + (size_t)i * stride);
		out->search += ts_stat_read(&st->sis_search);
		out->domain_search += ts_stat_read(&st->sis_domain_search);
		out->scanned += ts_stat_read(&st->sis_scanned);
		out->failed += ts_stat_read(&st->sis_failed);
		out->recent_hit += ts_stat_read(&st->sis_recent_hit);
		out->recent_miss += ts_stat_read(&st->sis_recent_miss);
		out->core_search += ts_stat_read(&st->sis_core_search);
		out->core_failed += ts_stat_read(&st->sis_core_failed);
	}
}
