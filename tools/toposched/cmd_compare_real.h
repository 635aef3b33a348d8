/* toposched compare-real: the simulator's side (cmd_compare_real_sim.c). */
#ifndef TOPOSCHED_CMD_COMPARE_REAL_H
#define TOPOSCHED_CMD_COMPARE_REAL_H

#include <stdint.h>

#include "cmd_run_result.h"
#include "toposched/error.h"
#include "toposched/rtapp.h"

/* Runs r in the simulator on --topology host (the generic cost model, the default
 * features with `features` applied, seed 1, no warm-up) for duration_ns of virtual time
 * from the start barrier's release, and fills *out with the same figures the runtime
 * reports. Loops per class are counted by a copy of the workload whose class k ends each
 * phase pass with a MARK phase, which costs no time and draws no random number: the runs
 * for k = 0, 1, ... are the same run, each counting one class's loops. 0; -EINVAL when
 * the simulator refuses the file (err names file, line, task and key); another negative
 * code when a run fails. crs_free() frees out's arrays. */
int crs_run(const struct ts_rtapp *r, const char *features, uint64_t duration_ns,
	    struct run_result *out, struct ts_error *err);
void crs_free(struct run_result *out);

#endif
