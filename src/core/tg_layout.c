/* The task group layouts (tg_layout.h): their names and where each hot field lies. */
#include "toposched/tg_layout.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "toposched/group.h"

/* The names of "Simulator fidelity II": by kernel version, or by what the layout does. */
static const char *const layout_names[TS_TG_LAYOUT_NR] = {
	[TS_TG_ALIGNED] = "isolated", [TS_TG_PACKED] = "v4.4",	     [TS_TG_PER_NODE] = "per-node",
	[TS_TG_V6_4] = "v6.4",	      [TS_TG_RELAYOUT] = "relayout",
};

/* The names printed before, still accepted on input. */
static const struct {
	const char *name;
	enum ts_tg_layout layout;
} layout_aliases[] = {
	{"aligned", TS_TG_ALIGNED},
	{"packed", TS_TG_PACKED},
	{"per_node", TS_TG_PER_NODE},
};

const char *ts_tg_layout_name(enum ts_tg_layout l)
{
	return (unsigned)l < TS_TG_LAYOUT_NR ? layout_names[l] : "?";
}

int ts_tg_layout_parse(const char *s, enum ts_tg_layout *out, struct ts_error *err)
{
	for (int i = 0; s && i < TS_TG_LAYOUT_NR; i++)
		if (strcmp(s, layout_names[i]) == 0) {
			*out = (enum ts_tg_layout)i;
			return 0;
		}
	for (size_t i = 0; s && i < sizeof(layout_aliases) / sizeof(layout_aliases[0]); i++)
		if (strcmp(s, layout_aliases[i].name) == 0) {
			*out = layout_aliases[i].layout;
			return 0;
		}
	return ts_error_set(err, -EINVAL,
			    "task group layout '%s': expected " TS_TG_LAYOUT_NAMES
			    " (or the old names aligned = isolated, packed = v4.4)",
			    s ? s : "(null)");
}

static const char *const field_names[TS_TG_FIELD_NR] = {
	[TS_TG_FIELD_SE] = "se",	 [TS_TG_FIELD_CFS_RQ] = "cfs_rq",
	[TS_TG_FIELD_SHARES] = "shares", [TS_TG_FIELD_LOAD_AVG] = "load_avg",
	[TS_TG_FIELD_PARENT] = "parent", [TS_TG_FIELD_RT_SE] = "rt_se",
	[TS_TG_FIELD_RT_RQ] = "rt_rq",
};

const char *ts_tg_field_name(enum ts_tg_field field)
{
	return (unsigned)field < TS_TG_FIELD_NR ? field_names[field] : "?";
}

#define L 64 /* TS_TG_CACHELINE */

/* The read-mostly line (struct ts_tg_ro, group.h) is line 0 in every layout: se +0x0,
 * cfs_rq +0x8, parent +0x10, shares +0x18; rt_se and rt_rq where a layout keeps them in a
 * line nobody writes follow at +0x20, +0x28 (+0x30, +0x38 in PER_NODE, whose line holds
 * the node pointer at +0x20; in PACKED, where load_avg takes +0x20, exactly as v4.4's
 * struct had them: shares, load_avg, rt_se, rt_rq). */
size_t ts_tg_field_offset(enum ts_tg_layout l, bool rt, enum ts_tg_field field)
{
	switch (field) {
	case TS_TG_FIELD_SE:
		return 0x0;
	case TS_TG_FIELD_CFS_RQ:
		return 0x8;
	case TS_TG_FIELD_SHARES:
		return 0x18;
	case TS_TG_FIELD_LOAD_AVG:
		return l == TS_TG_PACKED ? 0x20 : l == TS_TG_PER_NODE ? SIZE_MAX : L;
	case TS_TG_FIELD_PARENT:
		if (l ==
		    TS_TG_V6_4) /* rt: behind rt_se, rt_rq, rt_bandwidth (96 bytes), rcu, list */
			return rt ? 3 * L + 0x18 : L + 0x28;
		return l == TS_TG_RELAYOUT ? 2 * L : 0x10;
	case TS_TG_FIELD_RT_SE:
	case TS_TG_FIELD_RT_RQ: {
		if (!rt)
			return SIZE_MAX; /* no such field without CONFIG_RT_GROUP_SCHED */
		size_t second = field == TS_TG_FIELD_RT_RQ ? 0x8 : 0;
		switch (l) {
		case TS_TG_V6_4:
			return L + 0x8 + second;
		case TS_TG_RELAYOUT:
			return 2 * L + 0x8 + second;
		case TS_TG_PACKED:
			return 0x28 + second;
		case TS_TG_PER_NODE:
			return 0x30 + second;
		default:
			return 0x20 + second;
		}
	}
	default:
		return SIZE_MAX;
	}
}
