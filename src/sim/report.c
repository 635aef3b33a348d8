/* What every experiment report says the same way: the machine, what the load counts,
 * durations, the pin, the precision of metric values, the NUMA fields, the task groups'
 * CPU shares. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

const char *ts_report_machine(const struct ts_experiment *e)
{
	if (e->machine)
		return e->machine;
	return e->base.topo ? e->base.topo->name : "?";
}

const char *ts_report_load_name(const struct ts_experiment *e)
{
	const char *n = e->base.workload ? e->base.workload->load_name : NULL;
	return n && n[0] ? n : "load";
}

void ts_report_duration(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
	for (size_t i = 0; ns && i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].div == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ns / units[i].div),
				 units[i].unit);
			return;
		}
	snprintf(buf, size, "%lluns", (unsigned long long)ns);
}

void ts_report_pin_cpus(const struct ts_experiment *e, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (e->base.pin && size)
		ts_cpumask_format(e->base.pin, buf, size);
}

int ts_report_metric_decimals(const struct ts_experiment *e)
{
	/* enough decimals for 4 significant digits of the smallest mean (hackbench times
	 * can be milliseconds in seconds), at least 2, at most 9 */
	double min_abs = INFINITY;
	for (int p = 0; e->points && p < e->nr_configs * e->nr_loads; p++) {
		double v = fabs(e->points[p].mean);
		if (isfinite(v) && v > 0 && v < min_abs)
			min_abs = v;
	}
	if (!isfinite(min_abs))
		return 2;
	int d = 3 - (int)floor(log10(min_abs));
	return d < 2 ? 2 : d > 9 ? 9 : d;
}

int ts_report_finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

const char *ts_report_bind_name(enum ts_sim_bind b)
{
	switch (b) {
	case TS_BIND_HARD:
		return "hard";
	case TS_BIND_INVERSE:
		return "inverse";
	case TS_BIND_NONE:
		break;
	}
	return "none";
}

#define NUMA_FIELD(f, label)                                                                       \
	{                                                                                          \
#f, label, offsetof(struct ts_sim_numa, f)                                         \
	}
const struct ts_report_numa_field ts_report_numa_fields[] = {
	NUMA_FIELD(hint_faults, "NUMA hint faults (pages)"),
	NUMA_FIELD(hint_faults_local, "NUMA hint faults local"),
	NUMA_FIELD(hint_faults_remote, "NUMA hint faults remote"),
	NUMA_FIELD(hint_faults_private, "NUMA hint faults private"),
	NUMA_FIELD(hint_faults_shared, "NUMA hint faults shared"),
	NUMA_FIELD(pages_migrated, "NUMA pages migrated"),
	NUMA_FIELD(scans, "NUMA scans"),
	NUMA_FIELD(pte_updates, "NUMA PMDs made PROT_NONE"),
	NUMA_FIELD(migrate_attempts, "NUMA migrate searches"),
	NUMA_FIELD(task_migrations, "NUMA task moves"),
	NUMA_FIELD(task_swaps, "NUMA task swaps"),
	NUMA_FIELD(task_stick, "NUMA stick"),
	NUMA_FIELD(applied, "NUMA moves/swaps applied"),
	NUMA_FIELD(reserve_conflicts, "NUMA reserve conflicts"),
	NUMA_FIELD(reserve_conflict_alt, "NUMA conflicts, other CPU"),
	NUMA_FIELD(reserve_conflict_noalt, "NUMA conflicts, none free"),
	NUMA_FIELD(reserved_skips, "NUMA reserved CPUs skipped"),
	NUMA_FIELD(double_migrations, "NUMA double migrations"),
	NUMA_FIELD(close_migrations, "NUMA arrivals within 10ms"),
	NUMA_FIELD(tasks_numa, "NUMA tasks with a preferred node"),
	NUMA_FIELD(tasks_preferred, "NUMA tasks on it at the end"),
	NUMA_FIELD(system_ns, "NUMA system time ns"),
};
const int ts_report_numa_nr =
	(int)(sizeof(ts_report_numa_fields) / sizeof(ts_report_numa_fields[0]));
_Static_assert(sizeof(ts_report_numa_fields) / sizeof(ts_report_numa_fields[0]) ==
		       sizeof(struct ts_sim_numa) / sizeof(uint64_t),
	       "every field of struct ts_sim_numa is reported");

bool ts_report_numa_active(const struct ts_sim_numa *n)
{
	return n->tasks_numa || n->hint_faults || n->scans || n->migrate_attempts;
}

double ts_report_numa_preferred_pct(const struct ts_sim_numa *n)
{
	return n->tasks_numa ? 100.0 * (double)n->tasks_preferred / (double)n->tasks_numa : -1;
}

/* Top-level groups reported by name: the first TS_SIM_TG_TOP_MAX. */
static int tg_named(const struct ts_sim_tg_result *g)
{
	return g->nr_top < TS_SIM_TG_TOP_MAX ? g->nr_top : TS_SIM_TG_TOP_MAX;
}

int ts_report_tg_nr_shares(const struct ts_sim_tg_result *g)
{
	return tg_named(g) + (g->nr_top > TS_SIM_TG_TOP_MAX) + 1;
}

const char *ts_report_tg_share(const struct ts_sim_tg_result *g, int i, double *share)
{
	const char *name = "(root)";
	uint64_t ns = g->root_exec_ns;
	if (i < tg_named(g)) {
		name = g->top_name[i];
		ns = g->top_exec_ns[i];
	} else if (i == tg_named(g) && g->nr_top > TS_SIM_TG_TOP_MAX) {
		name = "(other groups)";
		ns = g->other_top_exec_ns;
	}
	uint64_t total = ts_sim_tg_exec_ns(g);
	*share = total ? (double)ns / (double)total : 0;
	return name;
}
