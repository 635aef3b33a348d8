/* Helpers shared by the experiment reports (report_*.c). */
#ifndef TOPOSCHED_SIM_REPORT_H
#define TOPOSCHED_SIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/experiment.h"

const char *ts_report_machine(const struct ts_experiment *e);
const char *ts_report_load_name(const struct ts_experiment *e);
/* The pinned CPUs as a cpulist, or "" when not pinned (buf always NUL-terminated). */
void ts_report_pin_cpus(const struct ts_experiment *e, char *buf, size_t size);
/* Digits after the decimal point for metric values in text reports. */
int ts_report_metric_decimals(const struct ts_experiment *e);
/* 0 or -EIO when out is in error. */
int ts_report_finish(FILE *out);
/* "none", "hard", "inverse" */
const char *ts_report_bind_name(enum ts_sim_bind b);

/* The fields of struct ts_sim_numa, in report order: JSON key (CSV column "numa_" key)
 * and table label. Every field is a uint64_t counter. */
struct ts_report_numa_field {
	const char *key;
	const char *label;
	size_t offset;
};
extern const struct ts_report_numa_field ts_report_numa_fields[];
extern const int ts_report_numa_nr;
static inline uint64_t ts_report_numa_value(const struct ts_sim_numa *n, int i)
{
	return *(const uint64_t *)((const char *)n + ts_report_numa_fields[i].offset);
}
static inline uint64_t *ts_report_numa_ptr(struct ts_sim_numa *n, int i)
{
	return (uint64_t *)((char *)n + ts_report_numa_fields[i].offset);
}
/* NUMA balancing did something in these runs (a task got a preferred node, a fault, a
 * scan or a search). */
bool ts_report_numa_active(const struct ts_sim_numa *n);
/* tasks_preferred / tasks_numa in percent, -1 when no task has a preferred node. */
double ts_report_numa_preferred_pct(const struct ts_sim_numa *n);

/* The CPU shares a task-group result reports, in report order: its top-level groups by
 * name (at most TS_SIM_TG_TOP_MAX), "(other groups)" when it has more, then "(root)".
 * ts_report_tg_nr_shares() counts them; ts_report_tg_share() names entry i and puts its
 * share of the groups' CPU time (0..1; 0 when no group ran) in *share. */
int ts_report_tg_nr_shares(const struct ts_sim_tg_result *g);
const char *ts_report_tg_share(const struct ts_sim_tg_result *g, int i, double *share);

#endif
