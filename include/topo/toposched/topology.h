/* The machine as the scheduler sees it: for every CPU its core (SMT siblings), cluster,
 * last-level cache, NUMA node and package, plus the node distance matrix (SLIT values,
 * 10 = local). Every source (presets, hwloc XML/synthetic/sysfs root, this host) ends in
 * this one structure; the scheduling domains are built from it alone. */
#ifndef TOPOSCHED_TOPOLOGY_H
#define TOPOSCHED_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/cpumask.h"
#include "toposched/error.h"

#define TS_MAX_NODES	   1024
#define TS_LOCAL_DISTANCE  10	/* LOCAL_DISTANCE */
#define TS_REMOTE_DISTANCE 20	/* REMOTE_DISTANCE: what Linux assumes without a SLIT */
#define TS_MAX_DISTANCE	   254	/* SLIT entries are bytes; 255 means unreachable */
#define TS_CAPACITY_SCALE  1024 /* SCHED_CAPACITY_SCALE */

/* core, cluster, llc and package ids are dense (0..nr_X-1) and numbered in order of the
 * lowest CPU of each object, so that two sources describing the same machine give the
 * same ids. node is the OS's node number (dense), which indexes the distance matrix. */
struct ts_cpu_topo {
	int core;     /* SMT siblings share a core */
	int cluster;  /* Linux's cluster level; on machines without clusters, one per core */
	int llc;      /* last-level cache instance; one per core when no cache is shared */
	int node;     /* NUMA node */
	int package;  /* physical package (socket) */
	int capacity; /* arch_scale_cpu_capacity(); TS_CAPACITY_SCALE on symmetric machines */
	int os_index; /* the CPU number the OS uses (hwloc PU os_index); for pinning */
};

struct ts_topology {
	char name[64];	       /* preset name, "host", or a short form of the source */
	char description[160]; /* one line for humans */
	int nr_cpus;
	int nr_cores, nr_clusters, nr_llcs, nr_nodes, nr_packages;
	struct ts_cpu_topo *cpu; /* [nr_cpus] */
	int *distance;		 /* [nr_nodes * nr_nodes], row-major: distance[a*nr_nodes+b] */
	bool has_clusters;	 /* some cluster is bigger than its core and smaller than its LLC */
	bool has_smt;		 /* some core has more than one CPU */
	/* Size of each LLC in bytes, 0 when the source does not say (hwloc's cache_size;
	 * used by exports and reports only: the scheduler's domains do not depend on it). */
	uint64_t llc_bytes;
};

static inline int ts_topo_distance(const struct ts_topology *t, int a, int b)
{
	return t->distance[a * t->nr_nodes + b];
}

/* Allocates an empty topology for the builders (presets, hwloc import): the caller fills
 * cpu[] with any ids (not necessarily dense) and distance[] (initialised to the Linux
 * default 10/20), then calls ts_topology_finish(). */
struct ts_topology *ts_topology_alloc(int nr_cpus, int nr_nodes, struct ts_error *err);
/* Renumbers ids densely, checks consistency (every CPU of a core in one cluster, every
 * cluster in one LLC, every LLC in one node and package, a valid distance matrix), and
 * derives the counts and has_* flags. */
int ts_topology_finish(struct ts_topology *t, struct ts_error *err);
void ts_topology_free(struct ts_topology *t);

/* Loads a topology from a spec, in this order of interpretation:
 *   "host"                     discover this machine with hwloc
 *   a preset name              e.g. "kunpeng920" (see ts_preset_list())
 *   "xml:PATH" or PATH.xml     an hwloc XML export
 *   "fsroot:DIR" or a DIR      a captured sysfs root (hwloc's HWLOC_FSROOT)
 *   "synthetic:STR" or STR     an hwloc synthetic description, e.g. "pack:2 core:4 pu:2"
 * Errors name the spec and the problem. */
int ts_topology_load(const char *spec, struct ts_topology **out, struct ts_error *err);

/* Replaces the distance matrix with one parsed from text: rows separated by ';', '/' or
 * newlines, entries by ',' or blanks ("10 16 32 33; 16 10 25 32; ..."). The matrix must be
 * nr_nodes x nr_nodes, 10 on the diagonal, more than 10 and at most 254 elsewhere; it may
 * be asymmetric, as Linux allows (each node's NUMA levels come from its own row). */
int ts_topology_parse_distance(struct ts_topology *t, const char *text, struct ts_error *err);
/* Validates a matrix in place (used by every source). */
int ts_distance_validate(const int *d, int nr_nodes, struct ts_error *err);

/* Relationship of two CPUs, closest first: what they share. Used by the core's wake-up
 * statistics and by the simulator's cost model. */
enum ts_cpu_relation {
	TS_REL_SAME_CPU,
	TS_REL_SMT,
	TS_REL_CLUSTER,
	TS_REL_LLC,
	TS_REL_NODE,	/* another LLC of the same node (AMD: another CCX of the node) */
	TS_REL_PACKAGE, /* another node of the same package (Kunpeng: the other die) */
	TS_REL_REMOTE,	/* another package */
	TS_REL_NR
};
enum ts_cpu_relation ts_topology_relation(const struct ts_topology *t, int a, int b);
const char *ts_cpu_relation_name(enum ts_cpu_relation r); /* "same_cpu", ..., "?" */

/* Masks of the CPUs sharing one object with `cpu` (fills m, sized t->nr_cpus). */
enum ts_topo_level { TS_TOPO_CORE, TS_TOPO_CLUSTER, TS_TOPO_LLC, TS_TOPO_NODE, TS_TOPO_PACKAGE };
void ts_topology_mask(const struct ts_topology *t, enum ts_topo_level level, int cpu,
		      struct ts_cpumask *m);
/* CPUs of a node (empty for a memory-only node). */
void ts_topology_node_mask(const struct ts_topology *t, int node, struct ts_cpumask *m);
int ts_topology_node_weight(const struct ts_topology *t, int node);

/* Writes the topology as an hwloc v2 XML document that ts_topology_load() reads back into
 * the same topology (packages, L3/L2 caches or Group(Cluster) objects, cores, PUs, NUMA
 * nodes and the NUMALatency distance matrix). */
int ts_topology_write_xml(const struct ts_topology *t, FILE *out, struct ts_error *err);

/* Built-in machines, written by hand from public facts. */
struct ts_preset {
	const char *name;
	const char *description;
	struct ts_topology *(*build)(struct ts_error *err);
};
const struct ts_preset *ts_preset_list(int *count);
const struct ts_preset *ts_preset_find(const char *name);

#endif
