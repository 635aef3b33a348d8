/* Simulator tests' common ground: a modelled machine (a preset, its cost model and node 0's
 * CPUs), a short run's configuration and a run of the simulator that must succeed. */
#ifndef TOPOSCHED_TEST_SIM_MACHINE_H
#define TOPOSCHED_TEST_SIM_MACHINE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "toposched/cost_model.h"
#include "toposched/sim.h"
#include "toposched/topology.h"

struct machine {
	struct ts_topology *topo;
	struct ts_cost_model costs;
	struct ts_cpumask *node0;
};

static inline void machine_load(struct machine *m, const char *name)
{
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load(name, &m->topo, &err), 0);
	assert_int_equal(ts_cost_model_for(m->topo, name, &m->costs, &err), 0);
	m->node0 = ts_cpumask_alloc(m->topo->nr_cpus);
	assert_non_null(m->node0);
	ts_topology_node_mask(m->topo, 0, m->node0);
}

static inline void machine_free(struct machine *m)
{
	ts_cpumask_free(m->node0);
	ts_topology_free(m->topo);
}

/* A short run of w on m: a 5 ms window after 1 ms of warm-up, the default features, seed 1,
 * at most 50 million events. */
static inline struct ts_sim_config sim_config(const struct machine *m, const struct ts_workload *w,
					      int load)
{
	return (struct ts_sim_config){
		.topo = m->topo,
		.costs = &m->costs,
		.features = ts_features_default(),
		.workload = w,
		.load = load,
		.duration_ns = 5000000,
		.warmup_ns = 1000000,
		.seed = 1,
		.max_events = 50000000,
	};
}

/* ts_sim_run() that must succeed; its error, naming the workload, is printed when not. */
static inline struct ts_sim_result sim_run_ok(const struct ts_sim_config *cfg)
{
	struct ts_sim_result r;
	struct ts_error err = {0};
	int rc = ts_sim_run(cfg, &r, &err);
	if (rc)
		print_error("ts_sim_run(%s): %s\n", cfg->workload->name, err.msg);
	assert_int_equal(rc, 0);
	return r;
}

/* sim_run_ok() with the run's ftrace text (cfg->trace) in *text, which the caller frees. */
static inline void sim_run_ok_traced(struct ts_sim_config *cfg, char **text, size_t *len)
{
	cfg->trace = open_memstream(text, len);
	assert_non_null(cfg->trace);
	sim_run_ok(cfg);
	fclose(cfg->trace);
	cfg->trace = NULL;
}

#endif
