/* Helpers shared by the experiment reports (report_*.c). */
#ifndef TOPOSCHED_SIM_REPORT_H
#define TOPOSCHED_SIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/experiment.h"

const char *ts_report_machine(const struct ts_experiment *e);
const char *ts_report_load_name(const struct ts_experiment *e);
/* "200ms", "1s", "1500us", "7ns": the largest unit that divides ns exactly. */
void ts_report_duration(uint64_t ns, char *buf, size_t size);
/* The pinned CPUs as a cpulist, or "" when not pinned (buf always NUL-terminated). */
void ts_report_pin_cpus(const struct ts_experiment *e, char *buf, size_t size);
/* Digits after the decimal point for metric values in text reports. */
int ts_report_metric_decimals(const struct ts_experiment *e);
/* 0 or -EIO when out is in error. */
int ts_report_finish(FILE *out);

#endif
