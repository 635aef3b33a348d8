#include "cli_warn.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

void cli_warn(struct cli_warnings *w, const char *cmd, const char *fmt, ...)
{
	char text[TS_EXP_PART_WARNING_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (char *c = text; *c; c++) /* one line, as a part may carry it */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	fprintf(stderr, "toposched %s: warning: %s\n", cmd, text);
	if (w->nr < TS_EXP_PART_MAX_WARNINGS) {
		snprintf(w->buf[w->nr], sizeof(w->buf[w->nr]), "%s", text);
		w->text[w->nr] = w->buf[w->nr];
		w->nr++;
	}
}

void cli_warn_thin_percentile(const char *cmd, const struct ts_experiment *e)
{
	const struct ts_workload *wl = e->base.workload;
	if (wl->metric != TS_METRIC_WAKEUP_P99_US)
		return;
	char list[512] = "";
	size_t len = 0;
	int thin = 0;
	uint64_t fewest = UINT64_MAX;
	int want = (int)(TS_EXP_PERCENTILE_MIN_TAIL / (1 - 0.99) + 0.5);
	for (int c = 0; c < e->nr_configs; c++)
		for (int l = 0; l < e->nr_loads; l++) {
			const struct ts_exp_point *p = ts_experiment_point(e, c, l);
			if (!ts_exp_percentile_thin(p, 0.99))
				continue;
			if (p->stats.wakeup_lat_samples_min < fewest)
				fewest = p->stats.wakeup_lat_samples_min;
			if (thin++ < 4 && len < sizeof(list))
				len += (size_t)snprintf(
					list + len, sizeof(list) - len, "%s%s at %d (%llu)",
					len ? ", " : "", e->configs[c].name, e->loads[l],
					(unsigned long long)p->stats.wakeup_lat_samples_min);
		}
	if (!thin)
		return;
	/* the wake-ups grow with the measured window: the window that gives every point
	 * enough of them, rounded up to 10 ms (none measured: no estimate) */
	char hint[64] = "a longer --duration";
	if (fewest > 0)
		snprintf(hint, sizeof(hint), "--duration %.0fms or longer",
			 ceil((double)e->base.duration_ns / 1e6 * want / (double)fewest / 10) * 10);
	fprintf(stderr,
		"toposched %s: warning: %s's p99 wake-up latency rests on fewer than %d "
		"wake-ups (%d beyond the percentile) at %d point%s: %s%s; %s gives every point "
		"a stable p99\n",
		cmd, wl->name, want, TS_EXP_PERCENTILE_MIN_TAIL, thin, thin == 1 ? "" : "s", list,
		thin > 4 ? ", ..." : "", hint);
}
