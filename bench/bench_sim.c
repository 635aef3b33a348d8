/* Simulator speed: events per second and simulated seconds per wall second of ts_sim_run()
 * on kunpeng920 for a tbench-like ping-pong load with 32 and 128 pairs, and for a
 * hackbench-like many-to-many load (10 groups of 20 senders x 20 receivers, 100-byte
 * messages, 100 loops, pipe-sized buffers). Every ratio is against the 32-pair run measured
 * in the same process. Workloads are described here, so that the figures do not move when
 * the built-in workloads are retuned. Nothing is asserted; build Release to read figures.
 *
 * Usage: bench_sim [virtual_ms]   (ping-pong measured duration, default 100 ms) */
#include <stdio.h>
#include <stdlib.h>

#include "toposched/sim.h"

#define US 1000ULL
#define MS 1000000ULL

/* tbench-like: the client computes, sends a request and waits for the reply; the server
 * receives, computes, replies (sync wake-ups both ways, like a loopback socket). */
static const struct ts_phase pp_client[] = {
	{.kind = TS_PH_RUN, .ns = 5 * US, .dist = TS_DIST_EXPONENTIAL},
	{.kind = TS_PH_SEND, .ch = {.chan = 0}, .bytes = 256, .sync = true},
	{.kind = TS_PH_RECV, .ch = {.chan = 1}},
	{.kind = TS_PH_MARK},
};
static const struct ts_phase pp_server[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0}},
	{.kind = TS_PH_RUN, .ns = 5 * US, .dist = TS_DIST_EXPONENTIAL},
	{.kind = TS_PH_SEND, .ch = {.chan = 1}, .bytes = 4096, .sync = true, .count_bytes = true},
};
static const struct ts_task_class pp_classes[] = {
	{.name = "client", .count = 1, .footprint_kib = 256, .phases = pp_client, .nr_phases = 4},
	{.name = "server", .count = 1, .footprint_kib = 256, .phases = pp_server, .nr_phases = 3},
};
static const struct ts_workload pingpong = {
	.name = "bench-pingpong",
	.classes = pp_classes,
	.nr_classes = 2,
	.channels_per_instance = 2,
	.channel_capacity = 65536,
	.metric = TS_METRIC_THROUGHPUT_MBS,
};

#define HB_FDS 20
/* RUN phases stand for the write()/read() syscall path (1 us each: an estimate of the
 * order of magnitude, which only sets how much virtual time the run covers). */
static const struct ts_phase hb_sender[] = {
	{.kind = TS_PH_RUN, .ns = 1 * US},
	{.kind = TS_PH_SEND, .ch = {.chan = 0, .iter_mod = HB_FDS}, .bytes = 100},
};
static const struct ts_phase hb_receiver[] = {
	{.kind = TS_PH_RECV, .ch = {.chan = 0, .per_instance = true}},
	{.kind = TS_PH_RUN, .ns = 1 * US},
};
static const struct ts_task_class hb_classes[] = {
	{.name = "sender",
	 .count = HB_FDS,
	 .footprint_kib = 64,
	 .phases = hb_sender,
	 .nr_phases = 2,
	 .iterations = 100 * HB_FDS},
	{.name = "receiver",
	 .count = HB_FDS,
	 .footprint_kib = 64,
	 .phases = hb_receiver,
	 .nr_phases = 2,
	 .iterations = 100 * HB_FDS},
};
static const struct ts_workload hackbench = {
	.name = "bench-hackbench",
	.classes = hb_classes,
	.nr_classes = 2,
	.channels_per_instance = HB_FDS,
	.channel_capacity = 65536, /* a pipe's 16 pages */
	.metric = TS_METRIC_TIME_S,
};

struct figure {
	const char *name;
	double events_per_s, sim_per_wall;
	struct ts_sim_result r;
};

static int run(const char *name, const struct ts_sim_config *cfg, struct figure *f)
{
	struct ts_error err = {0};
	f->name = name;
	if (ts_sim_run(cfg, &f->r, &err)) {
		fprintf(stderr, "bench_sim: %s: %s\n", name, err.msg);
		return -1;
	}
	f->events_per_s = (double)f->r.events / f->r.wall_s;
	f->sim_per_wall = (double)f->r.sim_ns / 1e9 / f->r.wall_s;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t dur_ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 100;
	if (!dur_ms)
		dur_ms = 100;
	struct ts_error err = {0};
	struct ts_topology *t = NULL;
	struct ts_cost_model costs;
	if (ts_topology_load("kunpeng920", &t, &err) ||
	    ts_cost_model_for(t, "kunpeng920", &costs, &err)) {
		fprintf(stderr, "bench_sim: %s\n", err.msg);
		return 1;
	}
	struct ts_sim_config cfg = {
		.topo = t,
		.costs = &costs,
		.features = ts_features_default(),
		.workload = &pingpong,
		.duration_ns = dur_ms * MS,
		.warmup_ns = 10 * MS,
		.seed = 1,
	};
	struct figure f[3];
	int rc = 0;
	cfg.load = 32;
	rc |= run("pingpong-32", &cfg, &f[0]);
	cfg.load = 128;
	rc |= run("pingpong-128", &cfg, &f[1]);
	cfg.workload = &hackbench;
	cfg.load = 10;
	cfg.duration_ns = 0;
	rc |= run("hackbench-10", &cfg, &f[2]);
	ts_topology_free(t);
	if (rc)
		return 1;
	printf("ts_sim_run speed on kunpeng920 (one core; ratios against pingpong-32)\n");
	printf("%-14s %12s %10s %12s %10s %10s %12s\n", "run", "events", "wall_s", "events/s",
	       "ratio", "sim_s/s", "ratio");
	for (int i = 0; i < 3; i++)
		printf("%-14s %12llu %10.3f %12.0f %10.2f %10.4f %12.2f\n", f[i].name,
		       (unsigned long long)f[i].r.events, f[i].r.wall_s, f[i].events_per_s,
		       f[i].events_per_s / f[0].events_per_s, f[i].sim_per_wall,
		       f[i].sim_per_wall / f[0].sim_per_wall);
	printf("hackbench-10: %.4f s virtual (%s), %llu messages\n", f[2].r.metric,
	       f[2].r.finished ? "finished" : "NOT finished",
	       (unsigned long long)f[2].r.messages_sent);
	return 0;
}
