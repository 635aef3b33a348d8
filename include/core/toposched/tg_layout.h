/* The memory layout of a task group's load_avg (group.h explains the three). A header of
 * its own because the runtime's public configuration (runtime.h, installed) names it and
 * must not pull in the rest of the core. */
#ifndef TOPOSCHED_TG_LAYOUT_H
#define TOPOSCHED_TG_LAYOUT_H

#ifdef __cplusplus
extern "C" {
#endif

/* TS_TG_ALIGNED first: a zero-initialised configuration gets mainline's layout. */
enum ts_tg_layout { TS_TG_ALIGNED, TS_TG_PACKED, TS_TG_PER_NODE, TS_TG_LAYOUT_NR };

#ifdef __cplusplus
}
#endif

#endif
