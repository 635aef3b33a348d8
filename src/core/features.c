/* The feature table and the sched/features text format (kernel: sched_feat_names[],
 * sched_feat_show(), sched_feat_set()). */
#include "toposched/features.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "toposched/suggest.h"

/* F(NAME, default, origin, meaning). Defaults are mainline's as of v6.12 (the EEVDF
 * model the core follows); tip turned NEXT_BUDDY on in Nov 2025 together with a
 * reworked NEXT_BUDDY, which the core does not model. */
#define TS_FEATURE_TABLE(F)                                                                        \
	F(PLACE_LAG, true, "mainline",                                                             \
	  "place an enqueued task by its saved lag (vlag), not at the average vruntime")           \
	F(PLACE_DEADLINE_INITIAL, true, "mainline",                                                \
	  "give a new task half a slice before its first virtual deadline")                        \
	F(RUN_TO_PARITY, true, "mainline",                                                         \
	  "keep the current task until it has used its slice or reached 0-lag")                    \
	F(PREEMPT_SHORT, true, "mainline",                                                         \
	  "a waking task with a shorter slice cancels RUN_TO_PARITY for the current task")         \
	F(NEXT_BUDDY, false, "mainline",                                                           \
	  "prefer the task woken last (cfs_rq->next) at the next pick if it is eligible")          \
	F(CACHE_HOT_BUDDY, true, "mainline",                                                       \
	  "load balancing treats a run queue's next buddy as cache hot and leaves it there")       \
	F(WAKEUP_PREEMPTION, true, "mainline",                                                     \
	  "a waking task may preempt the current task (wakeup_preempt_fair)")                      \
	F(SIS_PROP, false, "mainline <= v6.6",                                                     \
	  "limit the idle-CPU scan by the waker CPU's average idle time over the scan cost")       \
	F(SIS_UTIL, true, "mainline",                                                              \
	  "limit the idle-CPU scan to nr_idle_scan CPUs, set from the LLC's summed util")          \
	F(SIS_OVERLOAD, false, "proposal (Mel Gorman, 2020)",                                      \
	  "stop an idle-CPU scan at two running tasks per CPU seen; skip the LLC while marked")    \
	F(SIS_CLUSTER, true, "toposched",                                                          \
	  "v6.7 cluster-aware select_idle_sibling: target's cluster first; off = pre-v6.7")        \
	F(WA_IDLE, true, "mainline",                                                               \
	  "wake_affine picks an idle waker or previous CPU (wake_affine_idle)")                    \
	F(WA_WEIGHT, true, "mainline",                                                             \
	  "wake_affine compares the waker's and the previous CPU's load (wake_affine_weight)")     \
	F(WA_BIAS, true, "mainline",                                                               \
	  "wake_affine_weight favours the previous CPU by half of imbalance_pct")                  \
	F(NEWIDLE_BALANCE, true, "toposched",                                                      \
	  "a CPU about to go idle pulls work from a busier one (the kernel always does)")          \
	F(NUMA, true, "mainline",                                                                  \
	  "NUMA balancing: hinting faults drive task placement (kernel.numa_balancing)")           \
	F(NUMA_RESERVE, true, "toposched",                                                         \
	  "NUMA migrations reserve the target CPU (rq->numa_migrate_on); off = pre-v4.19")         \
	F(TG_LOAD_RATELIMIT, true, "toposched",                                                    \
	  "update tg->load_avg at most once per ms per group cfs_rq (v6.7; always on there)")      \
	F(TG_LOAD_FILTER, true, "toposched",                                                       \
	  "skip tg->load_avg updates within 1/64 of the cfs_rq's contribution (always on there)")  \
	F(RT_GROUP_SCHED, false, "mainline",                                                       \
	  "CONFIG_RT_GROUP_SCHED: set_task_rq() reads tg->rt_rq[], rt_se[] on every CPU change")

#define TS_FEAT_ENTRY(n, d, o, m)                                                                  \
	[TS_FEAT_##n] = {.name = #n, .default_on = (d), .origin = (o), .meaning = (m)},
static const struct ts_feature_info feature_table[] = {TS_FEATURE_TABLE(TS_FEAT_ENTRY)};

/* The designators are enum constants and the names are spelled from them, so an entry
 * cannot name the wrong bit; a duplicated designator is an error under -Werror
 * (-Woverride-init); equal counts then mean every bit has exactly one entry. */
#define TS_FEAT_ONE(n, d, o, m) +1
static_assert(0 TS_FEATURE_TABLE(TS_FEAT_ONE) == TS_FEAT_NR, "one table entry per feature");
static_assert(sizeof(feature_table) / sizeof(feature_table[0]) == TS_FEAT_NR,
	      "the table ends at the last feature");
static_assert(TS_FEAT_NR <= 64, "struct ts_features holds 64 features");

/* Longest formatted string: every feature as "NO_NAME" plus one separator each; sizeof
 * counts each name's NUL, which stands for the separator (and the final NUL). */
#define TS_FEAT_LEN(n, d, o, m) +sizeof("NO_" #n)
static_assert(0 TS_FEATURE_TABLE(TS_FEAT_LEN) <= TS_FEATURES_STR_MAX,
	      "TS_FEATURES_STR_MAX holds any formatted feature set");

/* Longest token quoted in an error message; longer ones are cut and marked. */
#define QUOTE_MAX 64

struct ts_features ts_features_default(void)
{
	struct ts_features f = {0};
	for (int i = 0; i < TS_FEAT_NR; i++)
		if (feature_table[i].default_on)
			f.mask |= UINT64_C(1) << i;
	return f;
}

int ts_feature_count(void)
{
	return TS_FEAT_NR;
}

const struct ts_feature_info *ts_feature_info(int i)
{
	return i >= 0 && i < TS_FEAT_NR ? &feature_table[i] : NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int lookup(const char *name, size_t len)
{
	for (int i = 0; i < TS_FEAT_NR; i++)
		if (strlen(feature_table[i].name) == len &&
		    memcmp(feature_table[i].name, name, len) == 0)
			return i;
	return -1;
}

/* The feature nearest to a mistyped name (NULL: none near enough). */
static const char *suggest(const char *name, size_t len)
{
	char word[TS_SUGGEST_MAX_LEN + 1];
	if (len > TS_SUGGEST_MAX_LEN)
		return NULL;
	memcpy(word, name, len);
	word[len] = '\0';
	int exact = lookup(name, len); /* "no_SIS_UTIL": only the prefix is wrong */
	if (exact >= 0)
		return feature_table[exact].name;
	const char *names[TS_FEAT_NR];
	for (int i = 0; i < TS_FEAT_NR; i++)
		names[i] = feature_table[i].name;
	return ts_suggest_name(word, names, TS_FEAT_NR);
}

/* The token as it can be shown in a message: bytes outside printable ASCII as \xNN,
 * at most QUOTE_MAX input bytes, then "...". */
static const char *quote(const char *tok, size_t len, char *buf, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < len && i < QUOTE_MAX && o + 5 < size; i++) {
		unsigned char c = (unsigned char)tok[i];
		if (c > 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (len > QUOTE_MAX && o + 4 <= size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

int ts_features_parse(const char *text, struct ts_features *inout, struct ts_error *err)
{
	if (!text || !inout)
		return ts_error_set(err, -EINVAL, "no feature list to parse");
	uint64_t mask = inout->mask;
	/* A ',' promises a name on each side; blanks alone may separate names too. */
	bool seen_comma = false, field_has_name = false;
	const char *p = text;
	for (;;) {
		while (is_blank(*p))
			p++;
		if ((*p == ',' || (*p == '\0' && seen_comma)) && !field_has_name)
			return ts_error_set(err, -EINVAL, "empty feature name at offset %td",
					    p - text);
		if (*p == '\0')
			break;
		if (*p == ',') {
			seen_comma = true;
			field_has_name = false;
			p++;
			continue;
		}
		const char *tok = p;
		while (*p && *p != ',' && !is_blank(*p))
			p++;
		size_t len = (size_t)(p - tok);
		const char *name = tok;
		bool neg = len >= 3 && memcmp(tok, "NO_", 3) == 0;
		if (neg)
			name += 3;
		size_t name_len = len - (size_t)(name - tok);
		if (neg && name_len == 0)
			return ts_error_set(err, -EINVAL, "'NO_' at offset %td names no feature",
					    tok - text);
		int i = lookup(name, name_len);
		if (i < 0) {
			char q[QUOTE_MAX * 4 + 4];
			/* "no_X" means NO_X, whatever its case */
			bool sneg = len > 3 && strncasecmp(tok, "NO_", 3) == 0;
			const char *near = suggest(sneg ? tok + 3 : tok, sneg ? len - 3 : len);
			if (near)
				return ts_error_set(
					err, -EINVAL,
					"unknown feature '%s' at offset %td; did you mean "
					"'%s%s'?",
					quote(tok, len, q, sizeof(q)), tok - text,
					sneg ? "NO_" : "", near);
			return ts_error_set(err, -EINVAL, "unknown feature '%s' at offset %td",
					    quote(tok, len, q, sizeof(q)), tok - text);
		}
		if (neg)
			mask &= ~(UINT64_C(1) << i);
		else
			mask |= UINT64_C(1) << i;
		field_has_name = true;
	}
	inout->mask = mask;
	return 0;
}

int ts_features_take_key(const char *text, const char *key, char *rest, size_t rest_size,
			 int (*take)(const char *value, void *ctx, struct ts_error *err), void *ctx,
			 struct ts_error *err)
{
	const char *f = text ? text : "";
	size_t len = strlen(f), klen = strlen(key);
	if (len >= rest_size)
		return ts_error_set(err, -EINVAL, "the features are too long");
	memcpy(rest, f, len + 1);
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(rest + i, " \t,");
		if (n >= klen && strncmp(rest + i, key, klen) == 0) {
			char value[64];
			snprintf(value, sizeof(value), "%.*s", (int)(n - klen), rest + i + klen);
			int rc = take(value, ctx, err);
			if (rc)
				return rc;
			memset(rest + i, ' ', n);
		}
		i += n ? n : 1;
	}
	return 0;
}

int ts_features_format(struct ts_features f, char *buf, size_t size)
{
	size_t len = 0;
	for (int i = 0; i < TS_FEAT_NR; i++) {
		bool room = buf && len < size;
		int n = snprintf(room ? buf + len : NULL, room ? size - len : 0, "%s%s%s",
				 i ? " " : "", (f.mask >> i) & 1 ? "" : "NO_",
				 feature_table[i].name);
		if (n < 0)
			return n;
		len += (size_t)n;
	}
	return (int)len;
}
