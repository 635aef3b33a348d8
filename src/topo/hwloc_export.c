/* Writes a ts topology as an hwloc v2 XML document, shaped like what hwloc's linux backend
 * produces, so that ts_topology_load_hwloc("xml") (and lstopo) read the same machine back:
 *   Machine > [Group: node over several packages] > Package > [Group: node inside a package]
 *     > L3Cache (LLC) > [Group subtype=Cluster] > Core > PU
 * NUMA nodes are memory children of the object with their CPUs (package, node group, L3 or
 * machine); CPU-less nodes sit in an empty Group, as hwloc 2.9 attaches them; distances are
 * the "NUMALatency" matrix, capacities the "LinuxCapacity" info of CPU kinds.
 * The text is generated directly: hwloc has no API to build caches, cores or PUs. */
#include <errno.h>
#include <hwloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_build.h"

enum holder_kind {
	HOLD_NONE,
	HOLD_MACHINE,
	HOLD_PACKAGE,
	HOLD_GROUP_IN_PKG,
	HOLD_GROUP_TOP,
	HOLD_LLC
};

struct node_info {
	enum holder_kind holder;
	int holder_id; /* package or LLC id */
	int package;   /* the package a HOLD_GROUP_IN_PKG group lies in */
};

/* Children of each parent id, each bucket sorted by the lowest OS index of the child. */
struct buckets {
	int *start; /* [nr_parents + 1] */
	int *list;  /* [nr_children] */
};

struct xml_out {
	const struct ts_topology *t;
	FILE *f;
	unsigned long long gp;
	int rc;
	struct ts_error *err;

	hwloc_bitmap_t all, all_nodes;
	hwloc_bitmap_t *pkg, *node, *llc, *cls, *core; /* cpusets by OS index */
	hwloc_bitmap_t *pkg_nodes;		       /* nodesets of packages */
	int *llc_node, *llc_pkg, *cls_llc, *core_cls;
	struct node_info *ni;
	struct buckets llc_by_pkg, cls_by_llc, core_by_cls, cpu_by_core;
	int nr_big_groups;
};

static hwloc_bitmap_t *alloc_sets(int n)
{
	hwloc_bitmap_t *s = calloc((size_t)n, sizeof(*s));
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!(s[i] = hwloc_bitmap_alloc())) {
			for (int j = 0; j < i; j++)
				hwloc_bitmap_free(s[j]);
			free(s);
			return NULL;
		}
	}
	return s;
}

static void free_sets(hwloc_bitmap_t *s, int n)
{
	if (!s)
		return;
	for (int i = 0; i < n; i++)
		hwloc_bitmap_free(s[i]);
	free(s);
}

struct keyed {
	int key, id;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorts ids[0..n) by key[id]. */
static int sort_ids(int *ids, size_t n, const int *key)
{
	if (n < 2)
		return 0;
	struct keyed *k = malloc(n * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){key[ids[i]], ids[i]};
	qsort(k, n, sizeof(*k), cmp_keyed);
	for (size_t i = 0; i < n; i++)
		ids[i] = k[i].id;
	free(k);
	return 0;
}

/* parent[i] for i < n children, each bucket sorted by key[child] (its lowest OS index). */
static int buckets_build(struct buckets *b, const int *parent, int n, int nr_parents,
			 const int *key)
{
	b->start = calloc((size_t)nr_parents + 1, sizeof(int));
	b->list = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
	int *fill = calloc((size_t)nr_parents + 1, sizeof(int));
	if (!b->start || !b->list || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		b->start[parent[i] + 1]++;
	for (int p = 0; p < nr_parents; p++)
		b->start[p + 1] += b->start[p];
	for (int i = 0; i < n; i++)
		b->list[b->start[parent[i]] + fill[parent[i]]++] = i;
	free(fill);
	for (int p = 0; p < nr_parents; p++)
		if (sort_ids(b->list + b->start[p], (size_t)(b->start[p + 1] - b->start[p]), key))
			return -ENOMEM;
	return 0;
}

/* key[i] = lowest OS index in sets[i]. */
static int *first_keys(const hwloc_bitmap_t *sets, int n)
{
	int *key = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
	if (key)
		for (int i = 0; i < n; i++)
			key[i] = hwloc_bitmap_first(sets[i]);
	return key;
}

static void buckets_free(struct buckets *b)
{
	free(b->start);
	free(b->list);
}

static void indent(struct xml_out *x, int depth)
{
	fprintf(x->f, "%*s", 2 * depth + 2, "");
}

/* Opens <object type=... os_index=... cpuset=... nodeset=...> (the caller closes it). */
static void open_object(struct xml_out *x, int depth, const char *type, int os_index,
			hwloc_const_bitmap_t cpuset, hwloc_const_bitmap_t nodeset,
			const char *extra, bool leaf)
{
	char *cs = NULL, *ns = NULL;
	if (hwloc_bitmap_asprintf(&cs, cpuset) < 0 || hwloc_bitmap_asprintf(&ns, nodeset) < 0) {
		if (!x->rc)
			x->rc = -ENOMEM;
		free(cs);
		free(ns);
		return;
	}
	indent(x, depth);
	fprintf(x->f, "<object type=\"%s\"", type);
	if (os_index >= 0)
		fprintf(x->f, " os_index=\"%d\"", os_index);
	fprintf(x->f, " cpuset=\"%s\" complete_cpuset=\"%s\"", cs, cs);
	if (depth == 0)
		fprintf(x->f, " allowed_cpuset=\"%s\"", cs);
	fprintf(x->f, " nodeset=\"%s\" complete_nodeset=\"%s\"", ns, ns);
	if (depth == 0)
		fprintf(x->f, " allowed_nodeset=\"%s\"", ns);
	fprintf(x->f, " gp_index=\"%llu\"%s%s>\n", ++x->gp, extra ? extra : "", leaf ? "/" : "");
	free(cs);
	free(ns);
}

static void close_object(struct xml_out *x, int depth)
{
	indent(x, depth);
	fprintf(x->f, "</object>\n");
}

static void emit_numa(struct xml_out *x, int depth, int n, hwloc_const_bitmap_t cpuset)
{
	hwloc_bitmap_t ns = hwloc_bitmap_alloc();
	if (!ns) {
		x->rc = -ENOMEM;
		return;
	}
	hwloc_bitmap_only(ns, (unsigned)n);
	open_object(x, depth, "NUMANode", n, cpuset, ns, " local_memory=\"0\"", true);
	hwloc_bitmap_free(ns);
}

/* Memory children of an object: the CPU nodes held by it. */
static void emit_held_numa(struct xml_out *x, int depth, enum holder_kind kind, int id,
			   hwloc_const_bitmap_t cpuset)
{
	for (int n = 0; n < x->t->nr_nodes; n++)
		if (x->ni[n].holder == kind && (kind == HOLD_MACHINE || x->ni[n].holder_id == id))
			emit_numa(x, depth, n, cpuset);
}

static void emit_core(struct xml_out *x, int depth, int k, hwloc_bitmap_t ns)
{
	const struct ts_topology *t = x->t;
	open_object(x, depth, "Core", k, x->core[k], ns, NULL, false);
	for (int j = x->cpu_by_core.start[k]; j < x->cpu_by_core.start[k + 1]; j++) {
		int cpu = x->cpu_by_core.list[j];
		hwloc_bitmap_t pu = hwloc_bitmap_alloc();
		if (!pu) {
			x->rc = -ENOMEM;
			break;
		}
		hwloc_bitmap_only(pu, (unsigned)t->cpu[cpu].os_index);
		open_object(x, depth + 1, "PU", t->cpu[cpu].os_index, pu, ns, NULL, true);
		hwloc_bitmap_free(pu);
	}
	close_object(x, depth);
}

static void emit_llc(struct xml_out *x, int depth, int l)
{
	hwloc_bitmap_t ns = hwloc_bitmap_alloc();
	if (!ns) {
		x->rc = -ENOMEM;
		return;
	}
	hwloc_bitmap_only(ns, (unsigned)(x->llc_node[l]));
	/* cache_size 0 is hwloc's "unknown"; linesize and associativity are not modelled */
	char attrs[128];
	snprintf(attrs, sizeof(attrs),
		 " cache_size=\"%llu\" depth=\"3\" cache_linesize=\"64\" "
		 "cache_associativity=\"0\" cache_type=\"0\"",
		 (unsigned long long)x->t->llc_bytes);
	open_object(x, depth, "L3Cache", l, x->llc[l], ns, attrs, false);
	emit_held_numa(x, depth + 1, HOLD_LLC, l, x->llc[l]);
	for (int j = x->cls_by_llc.start[l]; j < x->cls_by_llc.start[l + 1]; j++) {
		int c = x->cls_by_llc.list[j];
		int first = x->core_by_cls.start[c];
		bool real = x->core_by_cls.start[c + 1] - first >
			    1; /* a cluster of one core is no level */
		int d = depth + 1;
		if (real) {
			open_object(x, d, "Group", -1, x->cls[c], ns, " subtype=\"Cluster\"",
				    false);
			d++;
		}
		for (int i = first; i < x->core_by_cls.start[c + 1]; i++)
			emit_core(x, d, x->core_by_cls.list[i], ns);
		if (real)
			close_object(x, depth + 1);
	}
	close_object(x, depth);
	hwloc_bitmap_free(ns);
}

static void emit_package(struct xml_out *x, int depth, int p)
{
	open_object(x, depth, "Package", p, x->pkg[p], x->pkg_nodes[p], NULL, false);
	emit_held_numa(x, depth + 1, HOLD_PACKAGE, p, x->pkg[p]);
	/* LLCs in package order; those of a node that is a group inside the package are
	 * wrapped in that group where its first LLC comes. */
	bool *done = calloc((size_t)x->t->nr_nodes, sizeof(bool));
	if (!done) {
		x->rc = -ENOMEM;
		return;
	}
	for (int j = x->llc_by_pkg.start[p]; j < x->llc_by_pkg.start[p + 1]; j++) {
		int l = x->llc_by_pkg.list[j];
		int n = x->llc_node[l];
		if (x->ni[n].holder != HOLD_GROUP_IN_PKG) {
			emit_llc(x, depth + 1, l);
			continue;
		}
		if (done[n])
			continue;
		done[n] = true;
		hwloc_bitmap_t ns = hwloc_bitmap_alloc();
		if (!ns) {
			x->rc = -ENOMEM;
			break;
		}
		hwloc_bitmap_only(ns, (unsigned)(n));
		open_object(x, depth + 1, "Group", -1, x->node[n], ns, NULL, false);
		hwloc_bitmap_free(ns);
		emit_numa(x, depth + 2, n, x->node[n]);
		for (int i = j; i < x->llc_by_pkg.start[p + 1]; i++)
			if (x->llc_node[x->llc_by_pkg.list[i]] == n)
				emit_llc(x, depth + 2, x->llc_by_pkg.list[i]);
		close_object(x, depth + 1);
	}
	free(done);
	close_object(x, depth);
}

/* Decides where each node attaches; fails on shapes a tree cannot hold. */
static int place_nodes(struct xml_out *x)
{
	const struct ts_topology *t = x->t;
	for (int n = 0; n < t->nr_nodes; n++) {
		struct node_info *ni = &x->ni[n];
		if (hwloc_bitmap_iszero(x->node[n])) {
			ni->holder = HOLD_NONE;
			continue;
		}
		int pkgs = 0, pkg = -1;
		for (int p = 0; p < t->nr_packages; p++) {
			if (!hwloc_bitmap_intersects(x->node[n], x->pkg[p]))
				continue;
			pkgs++;
			pkg = p;
			if (pkgs > 1 || !hwloc_bitmap_isincluded(x->node[n], x->pkg[p])) {
				if (!hwloc_bitmap_isincluded(x->pkg[p], x->node[n]))
					return ts_error_set(x->err, -EINVAL,
							    "writing XML: node %d covers part of "
							    "package %d and CPUs outside it; an "
							    "hwloc tree cannot hold that",
							    n, p);
			}
		}
		if (pkgs == 1 && hwloc_bitmap_isincluded(x->node[n], x->pkg[pkg])) {
			int nr_llcs = 0, llc = -1;
			for (int l = 0; l < t->nr_llcs; l++)
				if (x->llc_node[l] == n) {
					nr_llcs++;
					llc = l;
				}
			ni->package = pkg;
			if (hwloc_bitmap_isequal(x->node[n], x->pkg[pkg])) {
				ni->holder = HOLD_PACKAGE;
				ni->holder_id = pkg;
			} else if (nr_llcs == 1) {
				ni->holder = HOLD_LLC;
				ni->holder_id = llc;
			} else {
				ni->holder = HOLD_GROUP_IN_PKG;
				ni->holder_id = pkg;
			}
		} else if (hwloc_bitmap_isequal(x->node[n], x->all)) {
			ni->holder = HOLD_MACHINE;
		} else {
			ni->holder = HOLD_GROUP_TOP;
			x->nr_big_groups++;
		}
	}
	return 0;
}

static int check_ids(const struct ts_topology *t, struct ts_error *err)
{
	if (t->nr_cpus < 1 || !t->cpu || !t->distance || t->nr_nodes < 1 || t->nr_packages < 1 ||
	    t->nr_llcs < 1 || t->nr_clusters < 1 || t->nr_cores < 1)
		return ts_error_set(err, -EINVAL,
				    "writing XML: the topology is empty or not finished");
	for (int i = 0; i < t->nr_cpus; i++) {
		const struct ts_cpu_topo *c = &t->cpu[i];
		if (c->core < 0 || c->core >= t->nr_cores || c->cluster < 0 ||
		    c->cluster >= t->nr_clusters || c->llc < 0 || c->llc >= t->nr_llcs ||
		    c->node < 0 || c->node >= t->nr_nodes || c->package < 0 ||
		    c->package >= t->nr_packages || c->os_index < 0)
			return ts_error_set(err, -EINVAL,
					    "writing XML: CPU %d has an id out of range (topology "
					    "not finished?)",
					    i);
	}
	return 0;
}

/* Fills the sets and parent maps; checks the nesting that the XML tree relies on. */
static int collect(struct xml_out *x)
{
	const struct ts_topology *t = x->t;
	if (!(x->all = hwloc_bitmap_alloc()) || !(x->all_nodes = hwloc_bitmap_alloc()) ||
	    !(x->pkg = alloc_sets(t->nr_packages)) || !(x->node = alloc_sets(t->nr_nodes)) ||
	    !(x->llc = alloc_sets(t->nr_llcs)) || !(x->cls = alloc_sets(t->nr_clusters)) ||
	    !(x->core = alloc_sets(t->nr_cores)) || !(x->pkg_nodes = alloc_sets(t->nr_packages)))
		return -ENOMEM;
	x->llc_node = malloc((size_t)t->nr_llcs * sizeof(int));
	x->llc_pkg = malloc((size_t)t->nr_llcs * sizeof(int));
	x->cls_llc = malloc((size_t)t->nr_clusters * sizeof(int));
	x->core_cls = malloc((size_t)t->nr_cores * sizeof(int));
	x->ni = calloc((size_t)t->nr_nodes, sizeof(*x->ni));
	if (!x->llc_node || !x->llc_pkg || !x->cls_llc || !x->core_cls || !x->ni)
		return -ENOMEM;
	for (int l = 0; l < t->nr_llcs; l++)
		x->llc_node[l] = x->llc_pkg[l] = -1;
	for (int c = 0; c < t->nr_clusters; c++)
		x->cls_llc[c] = -1;
	for (int k = 0; k < t->nr_cores; k++)
		x->core_cls[k] = -1;

	for (int i = 0; i < t->nr_cpus; i++) {
		const struct ts_cpu_topo *c = &t->cpu[i];
		unsigned os = (unsigned)c->os_index;
		if (hwloc_bitmap_isset(x->all, os))
			return ts_error_set(x->err, -EINVAL,
					    "writing XML: two CPUs have OS index %d", c->os_index);
		hwloc_bitmap_set(x->all, os);
		hwloc_bitmap_set(x->pkg[c->package], os);
		hwloc_bitmap_set(x->node[c->node], os);
		hwloc_bitmap_set(x->llc[c->llc], os);
		hwloc_bitmap_set(x->cls[c->cluster], os);
		hwloc_bitmap_set(x->core[c->core], os);
		hwloc_bitmap_set(x->pkg_nodes[c->package], (unsigned)c->node);
		struct {
			int *slot, value;
			const char *what, *parent;
			int id;
		} links[] = {
			{&x->llc_node[c->llc], c->node, "LLC", "node", c->llc},
			{&x->llc_pkg[c->llc], c->package, "LLC", "package", c->llc},
			{&x->cls_llc[c->cluster], c->llc, "cluster", "LLC", c->cluster},
			{&x->core_cls[c->core], c->cluster, "core", "cluster", c->core},
		};
		for (size_t j = 0; j < sizeof(links) / sizeof(links[0]); j++) {
			if (*links[j].slot < 0)
				*links[j].slot = links[j].value;
			else if (*links[j].slot != links[j].value)
				return ts_error_set(x->err, -EINVAL,
						    "writing XML: %s %d spans more than one %s; an "
						    "hwloc tree cannot hold that",
						    links[j].what, links[j].id, links[j].parent);
		}
	}
	for (int n = 0; n < t->nr_nodes; n++)
		hwloc_bitmap_set(x->all_nodes, (unsigned)n);
	for (int l = 0; l < t->nr_llcs; l++)
		if (x->llc_node[l] < 0)
			return ts_error_set(x->err, -EINVAL, "writing XML: LLC %d has no CPU", l);
	for (int c = 0; c < t->nr_clusters; c++)
		if (x->cls_llc[c] < 0)
			return ts_error_set(x->err, -EINVAL, "writing XML: cluster %d has no CPU",
					    c);
	for (int k = 0; k < t->nr_cores; k++)
		if (x->core_cls[k] < 0)
			return ts_error_set(x->err, -EINVAL, "writing XML: core %d has no CPU", k);
	for (int p = 0; p < t->nr_packages; p++)
		if (hwloc_bitmap_iszero(x->pkg[p]))
			return ts_error_set(x->err, -EINVAL, "writing XML: package %d has no CPU",
					    p);

	int *cpu_core = malloc((size_t)t->nr_cpus * sizeof(int));
	int *cpu_os = malloc((size_t)t->nr_cpus * sizeof(int));
	int *llc_key = first_keys(x->llc, t->nr_llcs);
	int *cls_key = first_keys(x->cls, t->nr_clusters);
	int *core_key = first_keys(x->core, t->nr_cores);
	int rc = 0;
	if (!cpu_core || !cpu_os || !llc_key || !cls_key || !core_key) {
		rc = -ENOMEM;
	} else {
		for (int i = 0; i < t->nr_cpus; i++) {
			cpu_core[i] = t->cpu[i].core;
			cpu_os[i] = t->cpu[i].os_index;
		}
		if (buckets_build(&x->llc_by_pkg, x->llc_pkg, t->nr_llcs, t->nr_packages,
				  llc_key) ||
		    buckets_build(&x->cls_by_llc, x->cls_llc, t->nr_clusters, t->nr_llcs,
				  cls_key) ||
		    buckets_build(&x->core_by_cls, x->core_cls, t->nr_cores, t->nr_clusters,
				  core_key) ||
		    buckets_build(&x->cpu_by_core, cpu_core, t->nr_cpus, t->nr_cores, cpu_os))
			rc = -ENOMEM;
	}
	free(cpu_core);
	free(cpu_os);
	free(llc_key);
	free(cls_key);
	free(core_key);
	if (rc)
		return rc;
	return place_nodes(x);
}

static void emit_array(struct xml_out *x, const char *tag, const unsigned long long *v, size_t nr)
{
	/* As hwloc writes it: at most 10 values per element, length = characters of text. */
	for (size_t i = 0; i < nr; i += 10) {
		char buf[256];
		size_t len = 0;
		for (size_t j = i; j < nr && j < i + 10; j++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%llu ", v[j]);
		fprintf(x->f, "    <%s length=\"%zu\">%s</%s>\n", tag, len, buf, tag);
	}
}

static int emit_distances(struct xml_out *x)
{
	const struct ts_topology *t = x->t;
	int n = t->nr_nodes;
	if (n < 2)
		return 0;
	unsigned long long *v = malloc((size_t)n * (size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	fprintf(x->f,
		"  <distances2 type=\"NUMANode\" nbobjs=\"%d\" kind=\"%lu\" name=\"NUMALatency\" "
		"indexing=\"os\">\n",
		n,
		(unsigned long)(HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY));
	for (int i = 0; i < n; i++)
		v[i] = (unsigned long long)i;
	emit_array(x, "indexes", v, (size_t)n);
	for (int i = 0; i < n * n; i++)
		v[i] = (unsigned long long)(t->distance[i] > 0 ? t->distance[i] : 0);
	emit_array(x, "u64values", v, (size_t)n * (size_t)n);
	fprintf(x->f, "  </distances2>\n");
	free(v);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* Capacities as hwloc's linux backend reports cpuN/cpu_capacity: one CPU kind per value,
 * ranked by efficiency, with a "LinuxCapacity" info. Omitted on symmetric machines. */
static int emit_cpukinds(struct xml_out *x)
{
	const struct ts_topology *t = x->t;
	bool asym = false;
	for (int i = 0; i < t->nr_cpus; i++)
		asym |= t->cpu[i].capacity != TS_CAPACITY_SCALE;
	if (!asym)
		return 0;
	int *caps = malloc((size_t)t->nr_cpus * sizeof(int));
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!caps || !set) {
		free(caps);
		hwloc_bitmap_free(set);
		return -ENOMEM;
	}
	for (int i = 0; i < t->nr_cpus; i++)
		caps[i] = t->cpu[i].capacity;
	qsort(caps, (size_t)t->nr_cpus, sizeof(int), cmp_int);
	int rank = 0, rc = 0;
	for (int i = 0; i < t->nr_cpus && !rc; i++) {
		if (i > 0 && caps[i] == caps[i - 1])
			continue;
		hwloc_bitmap_zero(set);
		for (int j = 0; j < t->nr_cpus; j++)
			if (t->cpu[j].capacity == caps[i])
				hwloc_bitmap_set(set, (unsigned)t->cpu[j].os_index);
		char *s = NULL;
		if (hwloc_bitmap_asprintf(&s, set) < 0) {
			rc = -ENOMEM;
			break;
		}
		fprintf(x->f, "  <cpukind cpuset=\"%s\" forced_efficiency=\"%d\">\n", s, rank++);
		fprintf(x->f, "    <info name=\"LinuxCapacity\" value=\"%d\"/>\n", caps[i]);
		fprintf(x->f, "  </cpukind>\n");
		free(s);
	}
	free(caps);
	hwloc_bitmap_free(set);
	return rc;
}

static void emit_tree(struct xml_out *x)
{
	const struct ts_topology *t = x->t;
	open_object(x, 0, "Machine", 0, x->all, x->all_nodes, NULL, false);
	emit_held_numa(x, 1, HOLD_MACHINE, 0, x->all);

	/* Top-level children in order of their lowest CPU: packages, and nodes spanning
	 * several packages (each with its packages inside). */
	int *top = malloc((size_t)(t->nr_packages + t->nr_nodes) * sizeof(int));
	hwloc_bitmap_t *sets = calloc((size_t)(t->nr_packages + t->nr_nodes), sizeof(*sets));
	if (!top || !sets) {
		free(top);
		free(sets);
		x->rc = -ENOMEM;
		return;
	}
	int nr_top = 0;
	for (int p = 0; p < t->nr_packages; p++) {
		bool inside = false;
		for (int n = 0; n < t->nr_nodes && !inside; n++)
			inside = x->ni[n].holder == HOLD_GROUP_TOP &&
				 hwloc_bitmap_isincluded(x->pkg[p], x->node[n]);
		if (!inside) {
			sets[nr_top] = x->pkg[p];
			top[nr_top++] = p;
		}
	}
	for (int n = 0; n < t->nr_nodes; n++) {
		if (x->ni[n].holder == HOLD_GROUP_TOP) {
			sets[nr_top] = x->node[n];
			top[nr_top++] = t->nr_packages + n;
		}
	}
	/* Indices into sets[] sorted by lowest CPU; top[] tells what each one is. */
	int *order = malloc((size_t)(nr_top > 0 ? nr_top : 1) * sizeof(int));
	int *key = first_keys(sets, nr_top);
	if (!order || !key) {
		free(order);
		free(key);
		free(top);
		free(sets);
		x->rc = -ENOMEM;
		return;
	}
	for (int i = 0; i < nr_top; i++)
		order[i] = i;
	if (sort_ids(order, (size_t)nr_top, key))
		x->rc = -ENOMEM;
	free(key);
	for (int i = 0; i < nr_top; i++) {
		int what = top[order[i]];
		if (what < t->nr_packages) {
			emit_package(x, 1, what);
			continue;
		}
		int n = what - t->nr_packages;
		hwloc_bitmap_t ns = hwloc_bitmap_alloc();
		if (!ns) {
			x->rc = -ENOMEM;
			break;
		}
		hwloc_bitmap_only(ns, (unsigned)(n));
		open_object(x, 1, "Group", -1, x->node[n], ns, NULL, false);
		hwloc_bitmap_free(ns);
		emit_numa(x, 2, n, x->node[n]);
		for (int p = 0; p < t->nr_packages; p++)
			if (hwloc_bitmap_isincluded(x->pkg[p], x->node[n]))
				emit_package(x, 2, p);
		close_object(x, 1);
	}
	free(order);
	free(top);
	free(sets);

	/* CPU-less nodes: an empty Group per node, the way hwloc 2.9 attaches a memory-only
	 * node whose locality it cannot tell. */
	hwloc_bitmap_t empty = hwloc_bitmap_alloc(), ns = hwloc_bitmap_alloc();
	if (!empty || !ns) {
		x->rc = -ENOMEM;
	} else {
		for (int n = 0; n < t->nr_nodes; n++) {
			if (x->ni[n].holder != HOLD_NONE)
				continue;
			hwloc_bitmap_only(ns, (unsigned)n);
			open_object(x, 1, "Group", -1, empty, ns, " kind=\"1001\" subkind=\"0\"",
				    false);
			emit_numa(x, 2, n, empty);
			close_object(x, 1);
		}
	}
	hwloc_bitmap_free(empty);
	hwloc_bitmap_free(ns);
	close_object(x, 0);
}

static void release(struct xml_out *x)
{
	const struct ts_topology *t = x->t;
	hwloc_bitmap_free(x->all);
	hwloc_bitmap_free(x->all_nodes);
	free_sets(x->pkg, t->nr_packages);
	free_sets(x->node, t->nr_nodes);
	free_sets(x->llc, t->nr_llcs);
	free_sets(x->cls, t->nr_clusters);
	free_sets(x->core, t->nr_cores);
	free_sets(x->pkg_nodes, t->nr_packages);
	free(x->llc_node);
	free(x->llc_pkg);
	free(x->cls_llc);
	free(x->core_cls);
	free(x->ni);
	buckets_free(&x->llc_by_pkg);
	buckets_free(&x->cls_by_llc);
	buckets_free(&x->core_by_cls);
	buckets_free(&x->cpu_by_core);
}

int ts_topology_write_xml(const struct ts_topology *t, FILE *out, struct ts_error *err)
{
	if (!t || !out)
		return ts_error_set(err, -EINVAL, "writing XML: no topology or no output");
	int rc = check_ids(t, err);
	if (rc)
		return rc;

	struct xml_out x = {.t = t, .f = out, .err = err};
	rc = collect(&x);
	if (rc == 0) {
		fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			     "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
			     "<topology version=\"2.0\">\n");
		emit_tree(&x);
		rc = x.rc;
		if (rc == 0)
			rc = emit_distances(&x);
		if (rc == 0)
			rc = emit_cpukinds(&x);
		fprintf(out, "</topology>\n");
	}
	release(&x);
	if (rc == -ENOMEM)
		return ts_error_set(err, rc, "writing XML: out of memory");
	if (rc)
		return rc; /* message already set */
	if (fflush(out) != 0 || ferror(out))
		return ts_error_set(err, -EIO, "writing XML: write failed: %s", strerror(errno));
	return 0;
}
