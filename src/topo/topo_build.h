/* Builders shared inside src/topo: the regular-machine generator used by the presets,
 * and the hwloc import entry points used by ts_topology_load(). */
#ifndef TOPOSCHED_TOPO_BUILD_H
#define TOPOSCHED_TOPO_BUILD_H

#include "toposched/topology.h"

/* How the OS numbers SMT siblings. */
enum ts_smt_numbering {
	/* x86 (Intel, AMD): first threads of every core get 0..nr_cores-1 in package order,
	 * second threads nr_cores..2*nr_cores-1 ("node0 = 0-7,64-71") */
	TS_SMT_SPLIT,
	/* siblings adjacent: core c has CPUs c*threads .. c*threads+threads-1 (POWER, many arm) */
	TS_SMT_ADJACENT,
};

/* A machine built from identical parts, nested package > node > LLC > cluster > core > thread. */
struct ts_regular_machine {
	const char *name;
	const char *description;
	int packages;
	int nodes_per_package;
	int llcs_per_node;
	int clusters_per_llc; /* 1 = no cluster level (cluster = core) */
	int cores_per_cluster;
	int threads_per_core;
	enum ts_smt_numbering smt_numbering;
	const int *distance; /* [nodes*nodes] row-major, or NULL for Linux's 10/20 default */
	uint64_t llc_bytes;  /* size of each LLC, 0 = unknown */
};

struct ts_topology *ts_topology_build_regular(const struct ts_regular_machine *m,
					      struct ts_error *err);

/* hwloc sources (src/topo/hwloc_import.c). kind is "host", "xml", "fsroot" or "synthetic";
 * arg is the path or synthetic string (ignored for "host"). */
int ts_topology_load_hwloc(const char *kind, const char *arg, struct ts_topology **out,
			   struct ts_error *err);

/* Runs load(arg, ...) in a child process and returns its topology (or its error) here: a
 * library that crashes, hangs or runs out of memory on a hostile input then gives one
 * error naming label instead of taking the caller down (src/topo/isolate.c). */
typedef int (*ts_topology_loader)(void *arg, struct ts_topology **out, struct ts_error *err);
int ts_topology_load_isolated(const char *label, ts_topology_loader load, void *arg,
			      struct ts_topology **out, struct ts_error *err);

/* The most bytes read from one topology file: an hwloc export of an 8192-CPU machine with
 * its I/O devices is a few MiB. */
#define TS_TOPOLOGY_FILE_MAX (64u << 20)

/* Reads path (a regular file of at most max bytes, else an error naming label and what the
 * path is) into *text, NUL-terminated, malloc'ed; *len excludes the NUL. */
int ts_read_input_file(const char *label, const char *path, size_t max, char **text, size_t *len,
		       struct ts_error *err);

/* Checks a captured sysfs root (src/topo/sysfs_check.c): only files and directories, and
 * the CPU/node lists and node distance rows well-formed; errors name the file and line. */
int ts_sysfs_capture_check(const char *label, const char *root, struct ts_error *err);

/* Checks that buf is well-formed XML shaped like an hwloc export (src/topo/xml_check.c);
 * errors name label and the line. */
int ts_hwloc_xml_check(const char *label, const char *buf, size_t len, struct ts_error *err);

#endif
