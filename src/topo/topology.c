#include "toposched/topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "topo_build.h"
#include "toposched/suggest.h"

struct ts_topology *ts_topology_alloc(int nr_cpus, int nr_nodes, struct ts_error *err)
{
	if (nr_cpus < 1 || nr_cpus > TS_MAX_CPUS) {
		ts_error_set(err, -E2BIG,
			     "topology has %d CPUs; supported are 1 to %d (TS_MAX_CPUS)", nr_cpus,
			     TS_MAX_CPUS);
		return NULL;
	}
	if (nr_nodes < 1 || nr_nodes > TS_MAX_NODES) {
		ts_error_set(err, -E2BIG,
			     "topology has %d NUMA nodes; supported are 1 to %d (TS_MAX_NODES)",
			     nr_nodes, TS_MAX_NODES);
		return NULL;
	}
	struct ts_topology *t = calloc(1, sizeof(*t));
	if (t) {
		t->cpu = calloc((size_t)nr_cpus, sizeof(*t->cpu));
		t->distance = malloc((size_t)nr_nodes * (size_t)nr_nodes * sizeof(int));
	}
	if (!t || !t->cpu || !t->distance) {
		ts_topology_free(t);
		ts_error_set(err, -ENOMEM, "topology: out of memory");
		return NULL;
	}
	t->nr_cpus = nr_cpus;
	t->nr_nodes = nr_nodes;
	for (int a = 0; a < nr_nodes; a++)
		for (int b = 0; b < nr_nodes; b++)
			t->distance[a * nr_nodes + b] =
				a == b ? TS_LOCAL_DISTANCE : TS_REMOTE_DISTANCE;
	for (int i = 0; i < nr_cpus; i++) {
		t->cpu[i].capacity = TS_CAPACITY_SCALE;
		t->cpu[i].os_index = i;
	}
	return t;
}

void ts_topology_free(struct ts_topology *t)
{
	if (!t)
		return;
	free(t->cpu);
	free(t->distance);
	free(t);
}

/* Dense renumbering: maps a 64-bit key to ids 0,1,2,... in order of first appearance,
 * with a small open-addressing table (nr_cpus keys at most). */
struct dense_map {
	uint64_t *keys;
	int *ids;
	size_t cap;
	int next_id;
};

static int dense_init(struct dense_map *m, int n)
{
	m->cap = 16;
	while (m->cap < (size_t)n * 2)
		m->cap <<= 1;
	m->keys = malloc(m->cap * sizeof(*m->keys));
	m->ids = malloc(m->cap * sizeof(*m->ids));
	m->next_id = 0;
	if (!m->keys || !m->ids)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		m->ids[i] = -1;
	return 0;
}

static void dense_free(struct dense_map *m)
{
	free(m->keys);
	free(m->ids);
}

static int dense_id(struct dense_map *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
	while (m->ids[i] >= 0) {
		if (m->keys[i] == key)
			return m->ids[i];
		i = (i + 1) & (m->cap - 1);
	}
	m->keys[i] = key;
	m->ids[i] = m->next_id++;
	return m->ids[i];
}

static uint64_t pair_key(int outer, int inner)
{
	return ((uint64_t)(uint32_t)outer << 32) | (uint32_t)inner;
}

/* Renumbers one field densely, keyed by (outer id, raw id) so that an object is split where
 * it crosses its parent: e.g. an L3 spanning two SNC nodes becomes two LLCs, which is what
 * x86's match_llc() does under Sub-NUMA Clustering. Returns the count or -ENOMEM. */
static int renumber(struct ts_topology *t, size_t field_off, size_t outer_off)
{
	struct dense_map m;
	if (dense_init(&m, t->nr_cpus)) {
		dense_free(&m);
		return -ENOMEM;
	}
	for (int i = 0; i < t->nr_cpus; i++) {
		char *c = (char *)&t->cpu[i];
		int outer = outer_off == SIZE_MAX ? 0 : *(int *)(c + outer_off);
		int *field = (int *)(c + field_off);
		*field = dense_id(&m, pair_key(outer, *field));
	}
	int n = m.next_id;
	dense_free(&m);
	return n;
}

#define OFF(f) offsetof(struct ts_cpu_topo, f)

int ts_topology_finish(struct ts_topology *t, struct ts_error *err)
{
	for (int i = 0; i < t->nr_cpus; i++) {
		if (t->cpu[i].node < 0 || t->cpu[i].node >= t->nr_nodes)
			return ts_error_set(err, -EINVAL,
					    "CPU %d is on node %d, but the machine has %d nodes", i,
					    t->cpu[i].node, t->nr_nodes);
		if (t->cpu[i].capacity <= 0 || t->cpu[i].capacity > TS_CAPACITY_SCALE)
			return ts_error_set(err, -EINVAL,
					    "CPU %d has capacity %d; it must be 1 to %d", i,
					    t->cpu[i].capacity, TS_CAPACITY_SCALE);
	}
	int rc = ts_distance_validate(t->distance, t->nr_nodes, err);
	if (rc)
		return rc;

	int counts[4];
	if ((counts[0] = renumber(t, OFF(package), SIZE_MAX)) < 0 ||
	    (counts[1] = renumber(t, OFF(llc), OFF(node))) < 0 ||
	    (counts[2] = renumber(t, OFF(cluster), OFF(llc))) < 0 ||
	    (counts[3] = renumber(t, OFF(core), OFF(cluster))) < 0)
		return ts_error_set(err, -ENOMEM, "topology: out of memory");
	t->nr_packages = counts[0];
	t->nr_llcs = counts[1];
	t->nr_cores = counts[3];

	/* Sizes per object, to decide which clusters are real. */
	int *core_w = calloc((size_t)t->nr_cpus, sizeof(int));
	int *cls_w = calloc((size_t)t->nr_cpus, sizeof(int));
	int *llc_w = calloc((size_t)t->nr_cpus, sizeof(int));
	if (!core_w || !cls_w || !llc_w) {
		free(core_w);
		free(cls_w);
		free(llc_w);
		return ts_error_set(err, -ENOMEM, "topology: out of memory");
	}
	for (int i = 0; i < t->nr_cpus; i++) {
		core_w[t->cpu[i].core]++;
		cls_w[t->cpu[i].cluster]++;
		llc_w[t->cpu[i].llc]++;
	}
	/* A cluster that covers its whole LLC is no cluster: like arm64's
	 * cpu_clustergroup_mask(), fall back to the SMT siblings (cluster = core). */
	bool collapsed = false;
	for (int i = 0; i < t->nr_cpus; i++) {
		struct ts_cpu_topo *c = &t->cpu[i];
		if (cls_w[c->cluster] == llc_w[c->llc] && cls_w[c->cluster] > core_w[c->core]) {
			c->cluster = -1 - c->core; /* marker, renumbered below */
			collapsed = true;
		}
	}
	t->has_smt = false;
	for (int i = 0; i < t->nr_cpus; i++)
		if (core_w[t->cpu[i].core] > 1)
			t->has_smt = true;
	free(core_w);
	free(cls_w);
	free(llc_w);
	if (collapsed) {
		if (renumber(t, OFF(cluster), OFF(llc)) < 0 ||
		    renumber(t, OFF(core), OFF(cluster)) < 0)
			return ts_error_set(err, -ENOMEM, "topology: out of memory");
	}
	t->nr_clusters = 0;
	for (int i = 0; i < t->nr_cpus; i++)
		if (t->cpu[i].cluster >= t->nr_clusters)
			t->nr_clusters = t->cpu[i].cluster + 1;
	t->has_clusters = t->nr_clusters < t->nr_cores;
	return 0;
}

/* No symmetry rule: Linux accepts an asymmetric SLIT (real firmware has them, e.g. 3-node
 * ia64 machines with 17 one way and 14 the other). sched_init_numa() records every
 * node_distance(i, j) as a level, and a level's mask for node j holds the nodes k with
 * node_distance(j, k) within it: each node sees the machine by its own row (with
 * sched_debug it warns "Node-distance not symmetric", sched_numa_warn()). */
int ts_distance_validate(const int *d, int n, struct ts_error *err)
{
	for (int a = 0; a < n; a++) {
		for (int b = 0; b < n; b++) {
			int v = d[a * n + b];
			if (v <= 0)
				return ts_error_set(
					err, -EINVAL,
					"distance[%d][%d] is %d: distances must be positive", a, b,
					v);
			if (a == b && v != TS_LOCAL_DISTANCE)
				return ts_error_set(err, -EINVAL,
						    "distance[%d][%d] is %d: a node's distance to "
						    "itself must be %d (LOCAL_DISTANCE)",
						    a, b, v, TS_LOCAL_DISTANCE);
			if (a != b && (v <= TS_LOCAL_DISTANCE || v > TS_MAX_DISTANCE))
				return ts_error_set(err, -EINVAL,
						    "distance[%d][%d] is %d: a remote distance "
						    "must be %d to %d",
						    a, b, v, TS_LOCAL_DISTANCE + 1,
						    TS_MAX_DISTANCE);
		}
	}
	return 0;
}

static bool is_row_sep(char c)
{
	return c == ';' || c == '/' || c == '\n';
}
static bool is_entry_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\r';
}

int ts_topology_parse_distance(struct ts_topology *t, const char *text, struct ts_error *err)
{
	int n = t->nr_nodes;
	int *d = malloc((size_t)n * (size_t)n * sizeof(int));
	if (!d)
		return ts_error_set(err, -ENOMEM, "distance matrix: out of memory");
	int row = 0, col = 0, rc = 0;
	const char *p = text;
	for (;;) {
		while (is_entry_sep(*p))
			p++;
		if (*p == '\0' || is_row_sep(*p)) {
			if (col > 0) { /* end of a non-empty row */
				if (col != n) {
					rc = ts_error_set(err, -EINVAL,
							  "row %d has %d entries, expected %d (one "
							  "per node): the matrix must be square",
							  row, col, n);
					break;
				}
				row++;
				col = 0;
			}
			if (*p == '\0')
				break;
			p++;
			continue;
		}
		const char *start = p;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char)*p)) {
			rc = ts_error_set(err, -EINVAL,
					  "entry %d of row %d is not a number (at '%.10s')", col,
					  row, start);
			break;
		}
		long v = 0;
		while (isdigit((unsigned char)*p)) {
			if (v < 100000)
				v = v * 10 + (*p - '0');
			p++;
		}
		if (*start == '-')
			v = -v;
		if (*p && !is_entry_sep(*p) && !is_row_sep(*p)) {
			rc = ts_error_set(err, -EINVAL,
					  "entry %d of row %d is not a number (at '%.10s')", col,
					  row, start);
			break;
		}
		if (row >= n) {
			rc = ts_error_set(err, -EINVAL,
					  "more than %d rows, but the topology has %d nodes", n, n);
			break;
		}
		if (col >= n) {
			rc = ts_error_set(err, -EINVAL,
					  "row %d has more than %d entries: the matrix must be "
					  "square (one entry per node)",
					  row, n);
			break;
		}
		/* v stopped growing there: name the entry as it was written */
		if (v >= 100000 || v <= -100000) {
			rc = ts_error_set(
				err, -EINVAL, "distance[%d][%d] is %.*s: a %s distance must be %s",
				row, col, (int)(p - start), start, row == col ? "local" : "remote",
				row == col ? "10 (LOCAL_DISTANCE)" : "11 to 254");
			break;
		}
		d[row * n + col++] = (int)v;
	}
	if (rc == 0 && row != n)
		rc = ts_error_set(
			err, -EINVAL,
			"%d rows, but the topology has %d nodes: the matrix must be %dx%d", row, n,
			n, n);
	if (rc == 0)
		rc = ts_distance_validate(d, n, err);
	if (rc == 0)
		memcpy(t->distance, d, (size_t)n * (size_t)n * sizeof(int));
	else
		ts_error_prefix(err, "distance matrix '%.60s%s'", text,
				strlen(text) > 60 ? "..." : "");
	free(d);
	return rc;
}

static int level_id(const struct ts_cpu_topo *c, enum ts_topo_level level)
{
	switch (level) {
	case TS_TOPO_CORE:
		return c->core;
	case TS_TOPO_CLUSTER:
		return c->cluster;
	case TS_TOPO_LLC:
		return c->llc;
	case TS_TOPO_NODE:
		return c->node;
	default:
		return c->package;
	}
}

void ts_topology_mask(const struct ts_topology *t, enum ts_topo_level level, int cpu,
		      struct ts_cpumask *m)
{
	ts_cpumask_zero(m);
	int id = level_id(&t->cpu[cpu], level);
	for (int i = 0; i < t->nr_cpus; i++)
		if (level_id(&t->cpu[i], level) == id)
			ts_cpumask_set(m, i);
}

void ts_topology_node_mask(const struct ts_topology *t, int node, struct ts_cpumask *m)
{
	ts_cpumask_zero(m);
	for (int i = 0; i < t->nr_cpus; i++)
		if (t->cpu[i].node == node)
			ts_cpumask_set(m, i);
}

int ts_topology_node_weight(const struct ts_topology *t, int node)
{
	int w = 0;
	for (int i = 0; i < t->nr_cpus; i++)
		w += t->cpu[i].node == node;
	return w;
}

enum ts_cpu_relation ts_topology_relation(const struct ts_topology *t, int a, int b)
{
	const struct ts_cpu_topo *x = &t->cpu[a], *y = &t->cpu[b];
	if (a == b)
		return TS_REL_SAME_CPU;
	if (x->core == y->core)
		return TS_REL_SMT;
	if (x->cluster == y->cluster)
		return TS_REL_CLUSTER;
	if (x->llc == y->llc)
		return TS_REL_LLC;
	if (x->package != y->package) /* checked before node: a node never spans packages */
		return TS_REL_REMOTE;
	if (x->node == y->node)
		return TS_REL_NODE;
	return TS_REL_PACKAGE;
}

static const char *const relation_names[TS_REL_NR] = {
	[TS_REL_SAME_CPU] = "same_cpu", [TS_REL_SMT] = "smt",	[TS_REL_CLUSTER] = "cluster",
	[TS_REL_LLC] = "llc",		[TS_REL_NODE] = "node", [TS_REL_PACKAGE] = "package",
	[TS_REL_REMOTE] = "remote",
};

/* Out-of-range values give "?" rather than NULL, so that a report never prints NULL. */
const char *ts_cpu_relation_name(enum ts_cpu_relation r)
{
	return (unsigned)r < (unsigned)TS_REL_NR ? relation_names[r] : "?";
}

static bool has_prefix(const char *s, const char *prefix, const char **rest)
{
	size_t n = strlen(prefix);
	if (strncmp(s, prefix, n) != 0)
		return false;
	*rest = s + n;
	return true;
}

int ts_topology_load(const char *spec, struct ts_topology **out, struct ts_error *err)
{
	*out = NULL;
	const char *arg;
	int rc;
	if (!spec || !*spec)
		return ts_error_set(
			err, -EINVAL,
			"topology: empty spec (use 'host', a preset from 'toposched machines', an "
			"hwloc XML file, a sysfs root or a synthetic string)");
	if (strcmp(spec, "host") == 0)
		return ts_topology_load_hwloc("host", NULL, out, err);
	const struct ts_preset *preset = ts_preset_find(spec);
	if (preset) {
		*out = preset->build(err);
		return *out ? 0 : (err && err->code ? err->code : -ENOMEM);
	}
	if (has_prefix(spec, "xml:", &arg))
		return ts_topology_load_hwloc("xml", arg, out, err);
	if (has_prefix(spec, "fsroot:", &arg))
		return ts_topology_load_hwloc("fsroot", arg, out, err);
	if (has_prefix(spec, "synthetic:", &arg))
		return ts_topology_load_hwloc("synthetic", arg, out, err);
	size_t len = strlen(spec);
	struct stat st;
	bool exists = stat(spec, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return ts_topology_load_hwloc("fsroot", spec, out, err);
	if ((len > 4 && strcmp(spec + len - 4, ".xml") == 0) || (exists && S_ISREG(st.st_mode)))
		return ts_topology_load_hwloc("xml", spec, out, err);
	if (strchr(spec, ':'))
		return ts_topology_load_hwloc("synthetic", spec, out, err);
	/* a mistyped preset: name the nearest one */
	int nr_presets;
	const struct ts_preset *presets = ts_preset_list(&nr_presets);
	const char *names[64];
	int n = 0;
	for (int i = 0; i < nr_presets && n < 63; i++)
		names[n++] = presets[i].name;
	names[n++] = "host";
	const char *near = ts_suggest_name(spec, names, n);
	if (near)
		return ts_error_set(err, -ENOENT,
				    "topology '%s': not a preset; did you mean '%s'? (see "
				    "'toposched machines')",
				    spec, near);
	rc = ts_error_set(err, -ENOENT,
			  "topology '%s': not a preset (see 'toposched machines'), not 'host', not "
			  "an existing file or directory, and not an hwloc synthetic string",
			  spec);
	return rc;
}
