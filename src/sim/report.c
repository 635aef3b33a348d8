/* What every experiment report says the same way: the machine, what the load counts,
 * durations, the pin, the precision of metric values. */
#include "sim/report.h"

#include <errno.h>
#include <math.h>
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
