/* Scheduler feature switches: the equivalent of the kernel's SCHED_FEAT() list
 * (kernel/sched/features.h) and its /sys/kernel/debug/sched/features file. A feature
 * set is a plain value: each ts_sched holds its own, so two simulations with different
 * switches can run side by side. Only the switches the core consumes are listed. */
#ifndef TOPOSCHED_FEATURES_H
#define TOPOSCHED_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/error.h"

/* Bit numbers, in table order: the kernel's order in features.h, with the
 * non-mainline switches next to the mainline ones they relate to. */
enum ts_feature {
	TS_FEAT_PLACE_LAG,
	TS_FEAT_PLACE_DEADLINE_INITIAL,
	TS_FEAT_RUN_TO_PARITY,
	TS_FEAT_PREEMPT_SHORT,
	TS_FEAT_NEXT_BUDDY,
	TS_FEAT_CACHE_HOT_BUDDY,
	TS_FEAT_WAKEUP_PREEMPTION,
	TS_FEAT_SIS_PROP,
	TS_FEAT_SIS_UTIL,
	TS_FEAT_SIS_OVERLOAD,
	TS_FEAT_SIS_CLUSTER,
	TS_FEAT_WA_IDLE,
	TS_FEAT_WA_WEIGHT,
	TS_FEAT_WA_BIAS,
	TS_FEAT_NEWIDLE_BALANCE,
	TS_FEAT_NUMA,
	TS_FEAT_NUMA_RESERVE,
	TS_FEAT_TG_LOAD_RATELIMIT,
	TS_FEAT_TG_LOAD_FILTER,
	TS_FEAT_RT_GROUP_SCHED,
	TS_FEAT_NR
};

/* Bit (1 << TS_FEAT_x) set = feature on. Bits at or above TS_FEAT_NR are never set by
 * this API, ignored by ts_features_format() and left alone by ts_features_parse(). */
struct ts_features {
	uint64_t mask;
};

struct ts_feature_info {
	const char *name;    /* kernel spelling, upper case: "SIS_UTIL" */
	bool default_on;     /* the kernel's default (for our own switches: our default) */
	const char *origin;  /* "mainline", "mainline <= v6.6", "proposal (...)", "toposched" */
	const char *meaning; /* one line */
};

/* Enough for ts_features_format() of any mask, NUL included (checked at compile time). */
#define TS_FEATURES_STR_MAX 512

struct ts_features ts_features_default(void);

static inline bool ts_features_has(struct ts_features f, enum ts_feature bit)
{
	return (unsigned)bit < (unsigned)TS_FEAT_NR && (f.mask >> bit) & 1;
}

static inline void ts_features_set(struct ts_features *f, enum ts_feature bit)
{
	if ((unsigned)bit < (unsigned)TS_FEAT_NR)
		f->mask |= UINT64_C(1) << bit;
}

static inline void ts_features_clear(struct ts_features *f, enum ts_feature bit)
{
	if ((unsigned)bit < (unsigned)TS_FEAT_NR)
		f->mask &= ~(UINT64_C(1) << bit);
}

/* Applies text, written as for the kernel's sched/features file, on top of *inout:
 * names separated by blanks and/or commas, applied left to right; "X" sets X, "NO_X"
 * clears it (names are case-sensitive). Blank or empty text changes nothing. An unknown
 * name, "NO_" alone, or an empty name (",,", or a ',' at either end) is an error that
 * names the token and its byte offset; then *inout is unchanged. Returns 0 or -EINVAL. */
int ts_features_parse(const char *text, struct ts_features *inout, struct ts_error *err);

/* Every feature in table order, "NAME" if on and "NO_NAME" if off, separated by single
 * spaces (what /sys/kernel/debug/sched/features shows, without the trailing blank).
 * snprintf semantics: returns the length of the whole string; writes at most size bytes,
 * NUL-terminated when size > 0; buf may be NULL when size is 0. */
int ts_features_format(struct ts_features f, char *buf, size_t size);

/* The KEY=VALUE tokens that a --compare features string may carry besides feature names
 * (kernel=, tg_layout=): copies text into rest with every token starting with key (e.g.
 * "kernel=") blanked, so that the other tokens keep their offsets for ts_features_parse()'s
 * messages, and calls take(value, ctx, err) for each, in order. Tokens are separated by
 * blanks or commas, as feature names are. Returns 0; -EINVAL when text does not fit
 * rest_size; take's error when it fails. */
int ts_features_take_key(const char *text, const char *key, char *rest, size_t rest_size,
			 int (*take)(const char *value, void *ctx, struct ts_error *err), void *ctx,
			 struct ts_error *err);

int ts_feature_count(void);
/* The table entry for feature i (0 <= i < ts_feature_count()), else NULL. */
const struct ts_feature_info *ts_feature_info(int i);

#endif
