/* The configurations a run accepts: every check, with one message naming the workload,
 * class and phase at fault (-EINVAL), before anything is allocated. */
#include <stdarg.h>
#include <stdio.h>

#include "engine.h"

int sim_invalid(struct ts_error *err, const char *fmt, ...)
{
	char buf[TS_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ts_error_set(err, -EINVAL, "sim: %s", buf);
}

uint64_t sim_class_limit(const struct ts_sim_config *cfg, const struct ts_task_class *c)
{
	if (cfg->iterations > 0)
		return (uint64_t)cfg->iterations;
	if (c->iterations > 0)
		return (uint64_t)c->iterations;
	if (cfg->workload->metric == TS_METRIC_TIME_S && cfg->workload->default_iterations > 0)
		return (uint64_t)cfg->workload->default_iterations;
	return 0;
}

static int validate_mix(const struct ts_size_mix *mix, const char *wname, const char *which,
			struct ts_error *err)
{
	if (mix->n <= 0 || !mix->bytes || !mix->weight)
		return sim_invalid(
			err, "workload '%s': a SEND of 0 bytes needs a %s size mix, which is empty",
			wname, which);
	uint64_t total = 0;
	for (int i = 0; i < mix->n; i++)
		total += mix->weight[i];
	if (!total)
		return sim_invalid(err, "workload '%s': the %s size mix has no weight", wname,
				   which);
	return 0;
}

/* The CPUs a run may use (cfg->pin within the machine) and the nodes they cover. */
void sim_run_extent(const struct ts_sim_config *cfg, int *nr_cpus, int *nr_nodes)
{
	const struct ts_topology *t = cfg->topo;
	int cpus = 0, nodes = 0;
	bool seen[TS_MAX_NODES] = {false};
	for (int c = 0; c < t->nr_cpus; c++) {
		if (cfg->pin && (c >= cfg->pin->nr_cpus || !ts_cpumask_test(cfg->pin, c)))
			continue;
		cpus++;
		int n = t->cpu[c].node;
		if (n >= 0 && n < TS_MAX_NODES && !seen[n]) {
			seen[n] = true;
			nodes++;
		}
	}
	*nr_cpus = cpus;
	*nr_nodes = nodes;
}

/* One phase of class ci (tasks: its count per instance); `where` names it. */
static int validate_phase(const struct ts_sim_config *cfg, int ci, int tasks,
			  const struct ts_phase *ph, const char *where, bool *takes_time,
			  struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	const char *wn = w->name ? w->name : "?";
	switch (ph->kind) {
	case TS_PH_RUN:
	case TS_PH_SLEEP:
		if (ph->dist < TS_DIST_FIXED || ph->dist > TS_DIST_UNIFORM)
			return sim_invalid(err, "workload '%s' %s: unknown distribution", wn,
					   where);
		if (ph->ns > 0 || ph->kind == TS_PH_SLEEP)
			*takes_time = true;
		break;
	case TS_PH_SEND:
	case TS_PH_RECV: {
		const struct ts_chan_ref *r = &ph->ch;
		if (r->chan < 0 || r->iter_mod < 0)
			return sim_invalid(err, "workload '%s' %s: negative channel or iter_mod",
					   wn, where);
		int64_t hi = (int64_t)r->chan + (r->per_instance && tasks > 0 ? tasks - 1 : 0) +
			     (r->iter_mod ? r->iter_mod - 1 : 0);
		if (hi >= w->channels_per_instance)
			return sim_invalid(err,
					   "workload '%s' %s: channel index %lld out of range (the "
					   "instance has %d channels)",
					   wn, where, (long long)hi, w->channels_per_instance);
		if (ph->kind == TS_PH_RECV)
			*takes_time = true; /* blocks when empty */
		else if (w->channel_capacity)
			*takes_time = true; /* blocks when full */
		if (ph->pipe && ph->ns > 0)
			*takes_time = true; /* holds pipe->mutex for ns */
		if (ph->pipe && (w->channel_capacity % SIM_PIPE_PAGE ||
				 w->channel_capacity / SIM_PIPE_PAGE - 1 >= SIM_PIPE_MAX_SLOTS))
			return sim_invalid(
				err,
				"workload '%s' %s: a pipe's capacity is 1 to %d pages of "
				"%u bytes, not %u bytes",
				wn, where, SIM_PIPE_MAX_SLOTS, SIM_PIPE_PAGE, w->channel_capacity);
		if (ph->pipe && ph->kind == TS_PH_SEND &&
		    (ph->bytes == 0 || ph->bytes > SIM_PIPE_PAGE))
			return sim_invalid(
				err, "workload '%s' %s: a pipe write is 1 to %u bytes, not %u", wn,
				where, SIM_PIPE_PAGE, ph->bytes);
		if (ph->kind == TS_PH_SEND && ph->bytes == 0) {
			int rc = validate_mix(ci == 0 ? &w->request_mix : &w->reply_mix, wn,
					      ci == 0 ? "request" : "reply", err);
			if (rc)
				return rc;
		}
		break;
	}
	case TS_PH_TOUCH:
		if (ph->region < 0 || ph->region >= w->nr_regions)
			return sim_invalid(
				err,
				"workload '%s' %s: region %d does not exist (the workload has %d)",
				wn, where, ph->region, w->nr_regions);
		if (ph->slice != TS_SLICE_OWN && ph->slice != TS_SLICE_ALL)
			return sim_invalid(err, "workload '%s' %s: unknown slice %d", wn, where,
					   (int)ph->slice);
		if (!(ph->accesses >= 0 && ph->accesses <= 1e6))
			return sim_invalid(err,
					   "workload '%s' %s: accesses per page must be 0 to 1e6",
					   wn, where);
		if (ph->ns > 1000000000ULL || ph->pages > (1ULL << 40))
			return sim_invalid(err,
					   "workload '%s' %s: ns per page or pages out of range",
					   wn, where);
		if (ph->ns > 0 || ph->accesses > 0)
			*takes_time = true;
		break;
	case TS_PH_TIMER:
		if (ph->timer < 0 || ph->timer >= TS_SIM_TASK_TIMERS)
			return sim_invalid(err, "workload '%s' %s: timer slot %d (0-%d)", wn, where,
					   ph->timer, TS_SIM_TASK_TIMERS - 1);
		*takes_time = true;
		break;
	case TS_PH_FORK:
		if (ph->obj < 0 || ph->obj >= w->nr_classes ||
		    w->classes[ph->obj].spawn != TS_SPAWN_FORK)
			return sim_invalid(err,
					   "workload '%s' %s: FORK of class %d, which is not a "
					   "class forked by FORK phases",
					   wn, where, ph->obj);
		*takes_time = true; /* the fork's cost */
		break;
	case TS_PH_MARK:
	case TS_PH_CONNECT: /* (prologue only: checked by the caller) */
	case TS_PH_BARRIER:
	case TS_PH_START_DELAY:
	case TS_PH_YIELD:
		break;
	default:
		if (!sim_sync_object_phase(ph->kind))
			return sim_invalid(err, "workload '%s' %s: unknown kind %d", wn, where,
					   (int)ph->kind);
		if (ph->obj < 0 || ph->obj >= w->syncs_per_instance ||
		    (ph->kind == TS_PH_COND_WAIT &&
		     (ph->mutex < 0 || ph->mutex >= w->syncs_per_instance)))
			return sim_invalid(err,
					   "workload '%s' %s: synchronisation object out of range "
					   "(the instance has %d)",
					   wn, where, w->syncs_per_instance);
		if (ph->kind == TS_PH_BARRIER_WAIT && ph->parties < 1)
			return sim_invalid(err, "workload '%s' %s: a barrier of %d parties", wn,
					   where, ph->parties);
		/* a condition always sleeps; a barrier of others sleeps until they come */
		if (ph->kind == TS_PH_COND_WAIT ||
		    (ph->kind == TS_PH_BARRIER_WAIT && ph->parties > 1))
			*takes_time = true;
		break;
	}
	return 0;
}

static int connects(const struct ts_task_class *c)
{
	int n = 0;
	for (int i = 0; i < c->nr_prologue; i++)
		n += c->prologue[i].kind == TS_PH_CONNECT;
	return n;
}

static bool forks_class(const struct ts_task_class *c, int ci)
{
	for (int i = 0; i < c->nr_phases; i++)
		if (c->phases[i].kind == TS_PH_FORK && c->phases[i].obj == ci)
			return true;
	return false;
}

/* A class forked by FORK phases: some class's program forks it, and it starts after the
 * start-up (no start barrier, no connection). */
static int validate_forked(const struct ts_workload *w, int ci, struct ts_error *err)
{
	const char *wn = w->name ? w->name : "?";
	const struct ts_task_class *c = &w->classes[ci];
	const char *cn = c->name ? c->name : "?";
	bool forked = false;
	for (int o = 0; o < w->nr_classes && !forked; o++)
		forked = forks_class(&w->classes[o], ci);
	if (!forked)
		return sim_invalid(err, "workload '%s' class '%s': no FORK phase forks it", wn, cn);
	for (int i = 0; i < c->nr_prologue; i++)
		if (c->prologue[i].kind == TS_PH_BARRIER || c->prologue[i].kind == TS_PH_CONNECT)
			return sim_invalid(err,
					   "workload '%s' class '%s': a class forked by FORK "
					   "phases starts after the start-up (no BARRIER or "
					   "CONNECT)",
					   wn, cn);
	return 0;
}

/* Class ci's start-up (sim.h, enum ts_spawn_kind): who forks it, who accepts its
 * connection. */
static int validate_spawn(const struct ts_workload *w, int ci, int nr_cpus, int load,
			  struct ts_error *err)
{
	const char *wn = w->name ? w->name : "?";
	const struct ts_task_class *c = &w->classes[ci];
	const char *cn = c->name ? c->name : "?";
	int acceptors = 0;
	for (int o = 0; o < w->nr_classes; o++)
		acceptors +=
			w->classes[o].spawn == TS_SPAWN_ACCEPT && w->classes[o].spawn_from == ci;
	if (connects(c) > 1 || connects(c) != acceptors)
		return sim_invalid(err,
				   "workload '%s' class '%s': %d CONNECT phases but %d classes "
				   "accepted from it (one each way, or none)",
				   wn, cn, connects(c), acceptors);
	if (c->spawn == TS_SPAWN_LAUNCHER)
		return 0;
	if (c->spawn == TS_SPAWN_FORK)
		return validate_forked(w, ci, err);
	if (c->spawn != TS_SPAWN_PARENT && c->spawn != TS_SPAWN_ACCEPT)
		return sim_invalid(err, "workload '%s' class '%s': unknown spawn rule %d", wn, cn,
				   (int)c->spawn);
	if (c->spawn_from < 0 || c->spawn_from >= w->nr_classes || c->spawn_from == ci)
		return sim_invalid(err, "workload '%s' class '%s': spawned from class %d", wn, cn,
				   c->spawn_from);
	const struct ts_task_class *f = &w->classes[c->spawn_from];
	if (c->spawn == TS_SPAWN_PARENT && f->spawn != TS_SPAWN_LAUNCHER)
		return sim_invalid(err,
				   "workload '%s' class '%s': its parent class is not forked by "
				   "the launcher",
				   wn, cn);
	if (c->spawn == TS_SPAWN_ACCEPT &&
	    ts_class_count(f, nr_cpus, load) != ts_class_count(c, nr_cpus, load))
		return sim_invalid(err,
				   "workload '%s' class '%s': one server per connecting task "
				   "needs as many tasks as class '%s'",
				   wn, cn, f->name ? f->name : "?");
	return 0;
}

static int validate_regions(const struct ts_sim_config *cfg, int instances, struct ts_error *err)
{
	const struct ts_workload *w = cfg->workload;
	const char *wn = w->name ? w->name : "?";
	if (w->nr_regions < 0 || (w->nr_regions > 0 && !w->regions))
		return sim_invalid(err, "workload '%s': malformed region list", wn);
	uint64_t chunks = 0;
	for (int r = 0; r < w->nr_regions; r++) {
		const struct ts_region *g = &w->regions[r];
		const char *gn = g->name ? g->name : "?";
		if (g->bytes == 0 || g->bytes > TS_SIM_MAX_REGION_BYTES)
			return sim_invalid(err,
					   "workload '%s' region '%s': size %llu bytes (1 to %llu)",
					   wn, gn, (unsigned long long)g->bytes,
					   (unsigned long long)TS_SIM_MAX_REGION_BYTES);
		if (g->policy != TS_MEM_LOCAL && g->policy != TS_MEM_INTERLEAVE &&
		    g->policy != TS_MEM_BIND_BALANCING)
			return sim_invalid(err, "workload '%s' region '%s': unknown policy %d", wn,
					   gn, (int)g->policy);
		if (g->policy == TS_MEM_BIND_BALANCING &&
		    (g->node < 0 || g->node >= cfg->topo->nr_nodes))
			return sim_invalid(
				err,
				"workload '%s' region '%s': node %d does not exist (%s has "
				"nodes 0-%d)",
				wn, gn, g->node, cfg->topo->name, cfg->topo->nr_nodes - 1);
		if (g->prefault != TS_PREFAULT_NONE && g->prefault != TS_PREFAULT_PARENT)
			return sim_invalid(err, "workload '%s' region '%s': unknown prefault %d",
					   wn, gn, (int)g->prefault);
		chunks += (g->bytes + (2u << 20) - 1) >> 21;
	}
	if (chunks * (uint64_t)instances > TS_SIM_MAX_CHUNKS)
		return sim_invalid(
			err,
			"workload '%s': %d instances x %llu chunks of 2 MiB exceed the bound of %d",
			wn, instances, (unsigned long long)chunks, TS_SIM_MAX_CHUNKS);
	return 0;
}

int sim_validate(const struct ts_sim_config *cfg, struct ts_error *err)
{
	if (!cfg)
		return sim_invalid(err, "no configuration");
	const struct ts_topology *t = cfg->topo;
	if (!t || t->nr_cpus <= 0)
		return sim_invalid(err, "no machine topology");
	const struct ts_workload *w = cfg->workload;
	if (!w)
		return sim_invalid(err, "no workload");
	const char *wn = w->name ? w->name : "?";
	if (cfg->load <= 0)
		return sim_invalid(err, "workload '%s': load must be at least 1 (got %d)", wn,
				   cfg->load);
	if (cfg->iterations < 0)
		return sim_invalid(err, "workload '%s': negative iterations %d", wn,
				   cfg->iterations);
	if (cfg->hz > 100000)
		return sim_invalid(err, "tick frequency %u Hz is above 100000", cfg->hz);
	bool time_s = w->metric == TS_METRIC_TIME_S;
	if ((int)w->metric < 0 || w->metric > TS_METRIC_OPS_PER_S)
		return sim_invalid(err, "workload '%s': unknown metric %d", wn, (int)w->metric);
	if (!time_s && cfg->duration_ns == 0)
		return sim_invalid(err, "workload '%s': the measured duration is zero", wn);
	uint64_t tick = 1000000000ULL / (cfg->hz ? cfg->hz : TS_HZ_DEFAULT);
	if (cfg->warmup_ns > UINT64_MAX / 4 || cfg->duration_ns > UINT64_MAX / 4 - tick)
		return sim_invalid(err, "workload '%s': warm-up or duration too long", wn);
	if (!w->classes || w->nr_classes <= 0)
		return sim_invalid(err, "workload '%s' has no task classes", wn);
	if (w->channels_per_instance < 0)
		return sim_invalid(err, "workload '%s': negative channels_per_instance", wn);
	if (w->syncs_per_instance < 0)
		return sim_invalid(err, "workload '%s': negative syncs_per_instance", wn);
	if (cfg->pin) {
		if (cfg->pin->nr_cpus <= 0)
			return sim_invalid(err, "the pin mask is empty");
		int n = 0;
		for (int c = 0; c < t->nr_cpus && c < cfg->pin->nr_cpus; c++)
			n += ts_cpumask_test(cfg->pin, c);
		if (!n)
			return sim_invalid(err, "the pin mask %s the machine's %d CPUs",
					   ts_cpumask_empty(cfg->pin)
						   ? "is empty: it allows none of"
						   : "does not intersect",
					   t->nr_cpus);
	}
	if (cfg->pin_cpus && cfg->nr_pin_cpus <= 0)
		return sim_invalid(err, "pin_cpus is set but nr_pin_cpus is %d", cfg->nr_pin_cpus);
	for (int i = 0; cfg->pin_cpus && i < cfg->nr_pin_cpus; i++) {
		int c = cfg->pin_cpus[i];
		if (c < 0 || c >= t->nr_cpus)
			return sim_invalid(err,
					   "pin_cpus[%d] = %d is not a CPU of the machine (0-%d)",
					   i, c, t->nr_cpus - 1);
		if (cfg->pin && (c >= cfg->pin->nr_cpus || !ts_cpumask_test(cfg->pin, c)))
			return sim_invalid(err, "pin_cpus[%d] = CPU %d is outside the pin mask", i,
					   c);
	}
	if (w->instances != TS_INSTANCES_LOAD && w->instances != TS_INSTANCES_NODES)
		return sim_invalid(err, "workload '%s': unknown instance rule %d", wn,
				   (int)w->instances);
	if (cfg->bind != TS_BIND_NONE && cfg->bind != TS_BIND_HARD && cfg->bind != TS_BIND_INVERSE)
		return sim_invalid(err, "unknown bind mode %d", (int)cfg->bind);
	int nr_cpus, nr_nodes;
	sim_run_extent(cfg, &nr_cpus, &nr_nodes);
	int instances = ts_workload_instances(w, nr_nodes, cfg->load);
	int64_t per_instance = 0;
	bool any_limit = false;
	for (int ci = 0; ci < w->nr_classes; ci++) {
		const struct ts_task_class *c = &w->classes[ci];
		const char *cn = c->name ? c->name : "?";
		if (c->count_rule != TS_COUNT_FIXED && c->count_rule != TS_COUNT_CPUS &&
		    c->count_rule != TS_COUNT_LOAD)
			return sim_invalid(err, "workload '%s' class '%s': unknown count rule %d",
					   wn, cn, (int)c->count_rule);
		if (c->count < 0 || (c->count_rule == TS_COUNT_CPUS && c->count == 0))
			return sim_invalid(err, "workload '%s' class '%s': %s task count", wn, cn,
					   c->count < 0 ? "negative" : "a zero CPU divisor as");
		if (c->nice < -20 || c->nice > 19)
			return sim_invalid(err, "workload '%s' class '%s': nice %d outside -20..19",
					   wn, cn, c->nice);
		if (c->iterations < 0)
			return sim_invalid(err, "workload '%s' class '%s': negative iterations", wn,
					   cn);
		if (!c->phases || c->nr_phases <= 0)
			return sim_invalid(err, "workload '%s' class '%s' has no phases", wn, cn);
		if (c->nr_prologue < 0 || (c->nr_prologue > 0 && !c->prologue))
			return sim_invalid(err, "workload '%s' class '%s': malformed prologue", wn,
					   cn);
		if (c->home != TS_HOME_NONE && c->home != TS_HOME_INSTANCE &&
		    c->home != TS_HOME_TASK)
			return sim_invalid(err, "workload '%s' class '%s': unknown home rule %d",
					   wn, cn, (int)c->home);
		if (c->nr_cpus < 0 || (c->nr_cpus > 0 && !c->cpus))
			return sim_invalid(err, "workload '%s' class '%s': malformed CPU list", wn,
					   cn);
		bool any_cpu = c->nr_cpus == 0;
		for (int i = 0; i < c->nr_cpus; i++) {
			int cpu = c->cpus[i];
			if (cpu < 0 || cpu >= cfg->topo->nr_cpus)
				return sim_invalid(err,
						   "workload '%s' class '%s': CPU %d is not a CPU "
						   "of %s (0-%d)",
						   wn, cn, cpu, cfg->topo->name,
						   cfg->topo->nr_cpus - 1);
			any_cpu |= !cfg->pin ||
				   (cpu < cfg->pin->nr_cpus && ts_cpumask_test(cfg->pin, cpu));
		}
		if (!any_cpu)
			return sim_invalid(
				err,
				"workload '%s' class '%s': none of its CPUs is one the run "
				"may use (--pin)",
				wn, cn);
		if (c->nr_cpus > 0 && (cfg->bind != TS_BIND_NONE || cfg->pin_cpus))
			return sim_invalid(err,
					   "workload '%s' class '%s' has its own CPUs: --bind and "
					   "--pin-cpus do not apply",
					   wn, cn);
		int count = ts_class_count(c, nr_cpus, cfg->load);
		if (cfg->bind != TS_BIND_NONE && c->home == TS_HOME_NONE && count > 0)
			return sim_invalid(
				err,
				"workload '%s' class '%s' has no home nodes: --bind needs a "
				"NUMA workload (numa01, numa02, specjbb ...)",
				wn, cn);
		per_instance += count;
		if (count > 0 && sim_class_limit(cfg, c))
			any_limit = true;
		bool takes_time = false, prologue_time = false;
		char where[128];
		for (int pi = 0; pi < c->nr_prologue + c->nr_phases; pi++) {
			bool pro = pi < c->nr_prologue;
			snprintf(where, sizeof(where), "class '%s' %sphase %d", cn,
				 pro ? "prologue " : "", pro ? pi : pi - c->nr_prologue);
			const struct ts_phase *ph =
				pro ? &c->prologue[pi] : &c->phases[pi - c->nr_prologue];
			if (!pro && (ph->kind == TS_PH_CONNECT || ph->kind == TS_PH_BARRIER ||
				     ph->kind == TS_PH_START_DELAY))
				return sim_invalid(err,
						   "workload '%s' %s: CONNECT, BARRIER and "
						   "START_DELAY belong in the prologue (the "
						   "start-up)",
						   wn, where);
			if (ph->kind == TS_PH_FORK && cfg->iterations > 0)
				return sim_invalid(err,
						   "workload '%s' %s forks tasks: its tasks are as "
						   "many as its loops fork, --loops cannot change "
						   "them",
						   wn, where);
			int rc = validate_phase(cfg, ci, count, ph, where,
						pro ? &prologue_time : &takes_time, err);
			if (rc)
				return rc;
		}
		int rc = validate_spawn(w, ci, nr_cpus, cfg->load, err);
		if (rc)
			return rc;
		if (!takes_time)
			return sim_invalid(
				err,
				"workload '%s' class '%s': its program can loop without "
				"ever blocking or running (add a RUN or SLEEP with ns > 0, "
				"a RECV, or a TOUCH with ns or accesses > 0)",
				wn, cn);
	}
	if (per_instance <= 0 || instances <= 0)
		return sim_invalid(err, "workload '%s' has no tasks", wn);
	if (per_instance * instances > TS_SIM_MAX_TASKS)
		return sim_invalid(err, "workload '%s': %d x %lld tasks exceed the bound of %d", wn,
				   instances, (long long)per_instance, TS_SIM_MAX_TASKS);
	if (time_s && !any_limit)
		return sim_invalid(
			err,
			"workload '%s' measures time to finish but no task class has iterations",
			wn);
	if ((int64_t)w->channels_per_instance * instances > INT32_MAX)
		return sim_invalid(err, "workload '%s': too many channels", wn);
	if ((unsigned)cfg->tg_layout >= TS_TG_LAYOUT_NR)
		return sim_invalid(err, "unknown task-group layout %d", (int)cfg->tg_layout);
	if (cfg->groups && (cfg->groups->nr_entries <= 0 || cfg->groups->nr_nodes <= 0))
		return sim_invalid(err, "the groups spec has no groups");
	if (cfg->bind != TS_BIND_NONE && w->nr_regions == 0)
		return sim_invalid(
			err, "workload '%s' has no memory regions: --bind needs a NUMA workload",
			wn);
	return validate_regions(cfg, instances, err);
}
