/* Which code path a HITM on a group's load_avg line belongs to (sim_groups.h,
 * enum ts_sim_tg_reader): perf c2c's split of a line's HITMs by the offset each load hit,
 * made from the layout's field offsets (tg_layout.h). */
#include <stdint.h>

#include "groups_run.h"

static const char *const reader_names[TS_SIM_TG_READER_NR] = {
	[TS_SIM_TG_UPDATE_CFS_GROUP] = "update_cfs_group",
	[TS_SIM_TG_SET_TASK_CPU] = "set_task_cpu",
	[TS_SIM_TG_LIST_ADD_LEAF] = "list_add_leaf_cfs_rq",
	[TS_SIM_TG_UPDATE_TG_LOAD_AVG] = "update_tg_load_avg",
	[TS_SIM_TG_READER_OTHER] = "other",
};

const char *ts_sim_tg_reader_name(enum ts_sim_tg_reader r)
{
	return (unsigned)r < TS_SIM_TG_READER_NR ? reader_names[r] : "?";
}

double ts_sim_tg_c2c_share(enum ts_sim_tg_reader r, bool remote)
{
	switch (r) {
	case TS_SIM_TG_UPDATE_CFS_GROUP:
		return remote ? 63.72 : 65.16;
	case TS_SIM_TG_SET_TASK_CPU:
		return remote ? 14.16 + 13.87 : 16.30 + 14.97;
	default:
		return -1;
	}
}

enum ts_sim_tg_reader ts_sim_tg_reader_of(enum ts_tg_field field)
{
	switch (field) {
	case TS_TG_FIELD_LOAD_AVG:
	case TS_TG_FIELD_SHARES:
		return TS_SIM_TG_UPDATE_CFS_GROUP; /* calc_group_shares() */
	case TS_TG_FIELD_CFS_RQ:
	case TS_TG_FIELD_RT_SE:
	case TS_TG_FIELD_RT_RQ:
		return TS_SIM_TG_SET_TASK_CPU; /* set_task_rq() */
	case TS_TG_FIELD_PARENT:
		return TS_SIM_TG_LIST_ADD_LEAF;
	default:
		return TS_SIM_TG_READER_OTHER; /* se[]: h_load, blocked-load walk */
	}
}

void sim_groups_word_readers(enum ts_tg_layout l, bool rt, unsigned char out[8])
{
	for (int w = 0; w < 8; w++)
		out[w] = TS_SIM_TG_READER_OTHER;
	size_t load = ts_tg_field_offset(l, rt, TS_TG_FIELD_LOAD_AVG);
	if (load == SIZE_MAX) { /* PER_NODE: each node line holds its load_avg alone */
		out[0] = TS_SIM_TG_UPDATE_CFS_GROUP;
		return;
	}
	for (int f = 0; f < TS_TG_FIELD_NR; f++) {
		size_t off = ts_tg_field_offset(l, rt, (enum ts_tg_field)f);
		if (off != SIZE_MAX && off / 64 == load / 64)
			out[(off % 64) / 8] =
				(unsigned char)ts_sim_tg_reader_of((enum ts_tg_field)f);
	}
}
