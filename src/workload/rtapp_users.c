/* How many users rt-app gives a shared resource: the rules both hosts follow, so that
 * the simulator and the runtime run a file's barriers and timers alike. */
#include <string.h>

#include "toposched/rtapp.h"

int ts_rtapp_barrier_users(const struct ts_rtapp *r, const char *ref)
{
	int users = 0;
	for (int t = 0; t < r->nr_tasks; t++)
		for (int p = 0; p < r->tasks[t].nr_phases; p++)
			for (int e = 0; e < r->tasks[t].phases[p].nr_events; e++) {
				const struct ts_rtapp_event *ev = &r->tasks[t].phases[p].events[e];
				users += ev->kind == TS_RTAPP_BARRIER && strcmp(ev->ref, ref) == 0;
			}
	return users;
}

int ts_rtapp_shared_timer_users(const struct ts_rtapp *r, const char *ref)
{
	int users = 0;
	for (int t = 0; t < r->nr_tasks; t++) {
		bool uses = false;
		for (int p = 0; p < r->tasks[t].nr_phases && !uses; p++)
			for (int e = 0; e < r->tasks[t].phases[p].nr_events && !uses; e++) {
				const struct ts_rtapp_event *ev = &r->tasks[t].phases[p].events[e];
				uses = ev->kind == TS_RTAPP_TIMER && !ev->unique &&
				       strcmp(ev->ref, ref) == 0;
			}
		users += uses ? r->tasks[t].instances : 0;
	}
	return users;
}
