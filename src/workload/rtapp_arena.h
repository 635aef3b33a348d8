/* The memory of one struct ts_rtapp: every string and array of the description is
 * allocated here and freed at once by ts_rtapp_free(). */
#ifndef TS_WORKLOAD_RTAPP_ARENA_H
#define TS_WORKLOAD_RTAPP_ARENA_H

#include <stddef.h>

struct ts_rtapp_arena;

struct ts_rtapp_arena *rtapp_arena_new(void);
/* n zeroed bytes (NULL when out of memory) */
void *rtapp_alloc(struct ts_rtapp_arena *a, size_t n);
char *rtapp_strdup(struct ts_rtapp_arena *a, const char *s);
void rtapp_arena_free(struct ts_rtapp_arena *a);

#endif
