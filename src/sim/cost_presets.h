/* The cost model's per-preset figures (cost_presets.c): one table row per built-in
 * machine, each figure with its published source or labelled estimate, and the generic
 * model's ranges. Private to the sim layer; cost_model.c builds the terms from them. */
#ifndef TOPOSCHED_SIM_COST_PRESETS_H
#define TOPOSCHED_SIM_COST_PRESETS_H

#include <stdbool.h>

#include "toposched/topology.h"

/* The unit of a preset's ctx_switch figure when it has no lat_pipe pair of its own: its
 * ctx_switch and switch_out are kunpeng920's x figure / CTX_SWITCH_EST_NS (the big cores'
 * 1,500, Jacobsville's slower ones 2,500). */
#define CTX_SWITCH_EST_NS 1500.0

struct fig {
	double v;
	const char *src; /* NULL: not given */
};

struct preset_costs {
	const char *name;
	/* c2c tiers SMT..REMOTE; src NULL = no CPU pair of the machine has that relation. */
	struct fig c2c[TS_REL_NR];
	/* Line latencies that replace the c2c tier in the bulk / refill rule, where the
	 * a published figure fits that kind of transfer better. */
	struct fig bulk_line[TS_REL_NR];
	struct fig refill_line[TS_REL_NR];
	struct fig remote_distance, idle_exit, ctx_switch, mem_local, mem_per_distance;
	struct fig numa_hint_fault;
	/* The private cache per CPU (L2 per core / hardware threads per core), KiB. */
	struct fig cache_capacity_kib;
	/* The hand-off tiers come from the Kunpeng 920 lat_pipe figures (a TaiShan v110
	 * machine), not from HANDOFF_LINES x c2c. */
	bool kunpeng_lat_pipe;
	/* This machine's own lmbench lat_pipe round trip between two CPUs of one cluster, ns
	 * (src NULL: none published): ctx_switch is then derived from it, not ctx_switch. Only
	 * with kunpeng_lat_pipe: the derivation takes the hand-off of that rule. */
	struct fig pipe_same_cluster;
	/* CPU speed (cpu_speed.c): the throughput of two busy SMT siblings relative to one
	 * thread alone on the core (src NULL: no SMT), and the core clock by active cores of
	 * the package: with one active core, with all of them, and the drop per extra active
	 * core (MHz). */
	struct fig smt_pair_yield, freq_max_mhz, freq_all_core_mhz, freq_step_mhz;
};

/* The figures of preset name, or NULL when it has none. */
const struct preset_costs *ts_cost_find_preset(const char *name);
/* The generic model's figures (topologies that are not presets). */
extern const struct preset_costs ts_cost_generic_costs;

#endif
