/* hwloc sources: this host, an hwloc XML file, a captured Linux sysfs root, or an hwloc
 * synthetic description, mapped onto the levels Linux's scheduler builds its domains from. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "topo_build.h"

/* hwloc takes the sysfs root and a few switches only from the environment; they are set
 * around one load and restored afterwards so that the caller's environment is unchanged. */
struct env_save {
	const char *name;
	char *old; /* strdup of the previous value, NULL when it was unset */
	bool pushed;
};

static int env_push(struct env_save *s, const char *name, const char *value)
{
	const char *old = getenv(name);

	s->name = name;
	s->old = NULL;
	s->pushed = false;
	if (old && !(s->old = strdup(old)))
		return -ENOMEM;
	if (setenv(name, value, 1) != 0) {
		free(s->old);
		s->old = NULL;
		return -errno;
	}
	s->pushed = true;
	return 0;
}

static void env_pop(struct env_save *s)
{
	if (!s->pushed)
		return;
	if (s->old)
		setenv(s->name, s->old, 1);
	else
		unsetenv(s->name);
	free(s->old);
	s->old = NULL;
	s->pushed = false;
}

enum { ENV_MAX = 6 };

struct env_stack {
	struct env_save s[ENV_MAX];
	int n;
};

static int env_stack_push(struct env_stack *st, const char *name, const char *value)
{
	if (st->n >= ENV_MAX)
		return -EINVAL;
	int rc = env_push(&st->s[st->n], name, value);
	if (rc == 0)
		st->n++;
	return rc;
}

static void env_stack_pop_all(struct env_stack *st)
{
	while (st->n > 0)
		env_pop(&st->s[--st->n]);
}

static int cmp_obj_os_index(const void *a, const void *b)
{
	const hwloc_obj_t x = *(const hwloc_obj_t *)a, y = *(const hwloc_obj_t *)b;
	return x->os_index < y->os_index ? -1 : x->os_index > y->os_index;
}

/* A key unique to one object: objects at one depth are disjoint and each holds at least one
 * PU, so logical indexes there are below nr_pus. */
static int obj_key(const hwloc_obj_t o, int nr_pus)
{
	return o->depth * nr_pus + (int)o->logical_index;
}

static bool is_cluster_group(const hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_GROUP && o->subtype && strcasecmp(o->subtype, "Cluster") == 0;
}

/* Candidate nodes of a memory subtree (NUMA nodes may sit below memory-side caches). */
static void best_numa_in(hwloc_obj_t first, hwloc_obj_t *best)
{
	for (hwloc_obj_t m = first; m; m = m->next_sibling) {
		if (m->type != HWLOC_OBJ_NUMANODE) {
			best_numa_in(m->memory_first_child, best);
			continue;
		}
		/* Prefer plain DRAM nodes over HBM/NVM/GPU memory attached at the same place,
		 * then the lowest OS number: Linux lists a CPU in its DRAM node. */
		bool plain = !m->subtype || strcasecmp(m->subtype, "DRAM") == 0;
		bool best_plain =
			*best && (!(*best)->subtype || strcasecmp((*best)->subtype, "DRAM") == 0);
		if (!*best || (plain && !best_plain) ||
		    (plain == best_plain && m->os_index < (*best)->os_index))
			*best = m;
	}
}

/* Linux's cpu_to_node(): the most local NUMA node, i.e. one attached to the lowest ancestor
 * that carries memory. */
static hwloc_obj_t pu_numa_node(hwloc_obj_t pu)
{
	for (hwloc_obj_t o = pu; o; o = o->parent) {
		hwloc_obj_t best = NULL;
		best_numa_in(o->memory_first_child, &best);
		if (best)
			return best;
	}
	return NULL;
}

static int node_index_of(hwloc_obj_t numa, hwloc_obj_t *nodes, int nr_nodes)
{
	int lo = 0, hi = nr_nodes - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (nodes[mid]->os_index == numa->os_index)
			return mid;
		if (nodes[mid]->os_index < numa->os_index)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

struct import_ctx {
	hwloc_topology_t topo;
	const char *label; /* "xml 'x.xml'" etc., for messages */
	int nr_pus, nr_nodes;
	hwloc_obj_t *pus;   /* sorted by os_index: ts CPU i = pus[i] */
	hwloc_obj_t *nodes; /* sorted by os_index: ts node i = nodes[i] */
};

/* The data-cache level that is the LLC: the highest one where some cache spans more than
 * one core (0 when no cache is shared; then every core is its own LLC). */
static int llc_level(const struct import_ctx *c)
{
	int level = 0;

	for (int i = 0; i < c->nr_pus; i++) {
		hwloc_obj_t pu = c->pus[i];
		hwloc_obj_t unit = hwloc_get_ancestor_obj_by_type(c->topo, HWLOC_OBJ_CORE, pu);
		if (!unit)
			unit = pu;
		for (hwloc_obj_t o = pu->parent; o; o = o->parent) {
			if (hwloc_obj_type_is_dcache(o->type) &&
			    (int)o->attr->cache.depth > level &&
			    !hwloc_bitmap_isequal(o->cpuset, unit->cpuset))
				level = (int)o->attr->cache.depth;
		}
	}
	return level;
}

/* The deepest data-cache level above any PU (0 when hwloc knows of no cache). */
static int deepest_dcache(const struct import_ctx *c)
{
	int level = 0;

	for (int i = 0; i < c->nr_pus; i++)
		for (hwloc_obj_t o = c->pus[i]->parent; o; o = o->parent)
			if (hwloc_obj_type_is_dcache(o->type) && (int)o->attr->cache.depth > level)
				level = (int)o->attr->cache.depth;
	return level;
}

/* The size of the LLCs at level llc_lvl in bytes, or 0 when hwloc does not know it or the
 * LLCs differ (the topology keeps one size for all). */
static uint64_t llc_size(const struct import_ctx *c, int llc_lvl)
{
	uint64_t size = 0;

	for (int i = 0; i < c->nr_pus; i++) {
		for (hwloc_obj_t o = c->pus[i]->parent; o; o = o->parent) {
			if (!hwloc_obj_type_is_dcache(o->type) ||
			    (int)o->attr->cache.depth != llc_lvl)
				continue;
			if (i > 0 && o->attr->cache.size != size)
				return 0;
			size = o->attr->cache.size;
			break;
		}
	}
	return size;
}

static void fill_cpu(const struct import_ctx *c, int i, int llc_lvl, struct ts_cpu_topo *ct)
{
	hwloc_obj_t pu = c->pus[i];
	const int n = c->nr_pus;
	hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(c->topo, HWLOC_OBJ_CORE, pu);
	hwloc_obj_t unit = core ? core : pu; /* a PU without a Core object is its own core */
	hwloc_obj_t llc = NULL, cluster = NULL;

	for (hwloc_obj_t o = pu->parent; o && !llc; o = o->parent)
		if (hwloc_obj_type_is_dcache(o->type) && (int)o->attr->cache.depth == llc_lvl)
			llc = o;

	/* Linux's cluster: hwloc's Group(Cluster) from cluster_cpus; where hwloc merged that
	 * group into an identical L2 (x86 L2 clusters), or for synthetic/other sources, the
	 * lowest Group or L2 below the LLC that spans several cores. A cluster covering its
	 * whole LLC is collapsed to the core by ts_topology_finish(), as on arm64. */
	for (hwloc_obj_t o = pu->parent; o && !cluster; o = o->parent)
		if (is_cluster_group(o))
			cluster = o;
	if (!cluster && llc) {
		for (hwloc_obj_t o = unit->parent; o && o != llc && !cluster; o = o->parent)
			if ((o->type == HWLOC_OBJ_GROUP || o->type == HWLOC_OBJ_L2CACHE) &&
			    !hwloc_bitmap_isequal(o->cpuset, unit->cpuset))
				cluster = o;
	}

	hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(c->topo, HWLOC_OBJ_PACKAGE, pu);
	hwloc_obj_t numa = pu_numa_node(pu);
	int node = numa ? node_index_of(numa, c->nodes, c->nr_nodes) : 0;

	ct->core = obj_key(unit, n);
	ct->cluster = obj_key(cluster ? cluster : unit, n);
	ct->llc = obj_key(llc ? llc : unit, n);
	ct->node = node < 0 ? 0 : node;
	ct->package = pkg ? obj_key(pkg, n) : -1;
	ct->capacity = TS_CAPACITY_SCALE;
	ct->os_index = (int)pu->os_index;
}

/* Linux's arch_scale_cpu_capacity() as hwloc reports it: the "LinuxCapacity" info of a CPU
 * kind (read from cpuN/cpu_capacity). */
static int fill_capacity(const struct import_ctx *c, struct ts_topology *t)
{
	int nr_kinds = hwloc_cpukinds_get_nr(c->topo, 0);
	if (nr_kinds <= 0)
		return 0;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set)
		return -ENOMEM;
	for (int k = 0; k < nr_kinds; k++) {
		unsigned nr_infos = 0;
		struct hwloc_info_s *infos = NULL;
		int eff;
		if (hwloc_cpukinds_get_info(c->topo, (unsigned)k, set, &eff, &nr_infos, &infos, 0))
			continue;
		long cap = -1;
		for (unsigned j = 0; j < nr_infos; j++)
			if (strcmp(infos[j].name, "LinuxCapacity") == 0)
				cap = strtol(infos[j].value, NULL, 10);
		if (cap < 1 || cap > TS_CAPACITY_SCALE)
			continue;
		for (int i = 0; i < t->nr_cpus; i++)
			if (hwloc_bitmap_isset(set, (unsigned)t->cpu[i].os_index))
				t->cpu[i].capacity = (int)cap;
	}
	hwloc_bitmap_free(set);
	return 0;
}

/* The SLIT as hwloc reports it ("NUMALatency", or any latency matrix between NUMA nodes);
 * without one, ts_topology_alloc()'s 10/20 default stays, as Linux assumes. */
static void fill_distance(const struct import_ctx *c, struct ts_topology *t)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1;

	if (hwloc_distances_get_by_name(c->topo, "NUMALatency", &nr, &d, 0) != 0 || nr == 0) {
		nr = 1;
		d = NULL;
		if (hwloc_distances_get_by_type(c->topo, HWLOC_OBJ_NUMANODE, &nr, &d,
						HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 ||
		    nr == 0)
			return;
	}
	for (unsigned i = 0; i < d->nbobjs; i++) {
		if (!d->objs[i] || d->objs[i]->type != HWLOC_OBJ_NUMANODE)
			continue;
		int a = node_index_of(d->objs[i], c->nodes, c->nr_nodes);
		for (unsigned j = 0; j < d->nbobjs && a >= 0; j++) {
			if (!d->objs[j] || d->objs[j]->type != HWLOC_OBJ_NUMANODE)
				continue;
			int b = node_index_of(d->objs[j], c->nodes, c->nr_nodes);
			if (b < 0)
				continue;
			hwloc_uint64_t v = d->values[i * d->nbobjs + j];
			/* Out-of-range values are kept visible for ts_distance_validate(). */
			t->distance[a * c->nr_nodes + b] = v > INT_MAX ? INT_MAX : (int)v;
		}
	}
	hwloc_distances_release(c->topo, d);
}

static const char *path_basename(const char *path, char *buf, size_t size)
{
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	size_t start = len;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (len == start) /* "/" */
		snprintf(buf, size, "%s", path);
	else
		snprintf(buf, size, "%.*s", (int)(len - start), path + start);
	return buf;
}

/* What hwloc's discovery of "host" reads instead of this machine when the environment
 * names something: the value of HWLOC_FSROOT, HWLOC_SYNTHETIC or HWLOC_XMLFILE, the first
 * one set in that order, as hwloc_topology_load() takes them (hwloc 2.x topology.c: "Only
 * the first one will be kept"); *var its name. NULL when none is set. */
static const char *host_env_source(const char **var)
{
	static const char *const vars[] = {"HWLOC_FSROOT", "HWLOC_SYNTHETIC", "HWLOC_XMLFILE"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *value = getenv(vars[i]);
		if (value) {
			*var = vars[i];
			return value;
		}
	}
	return NULL;
}

static void describe(struct ts_topology *t, const char *kind, const char *arg,
		     hwloc_topology_t topo)
{
	char base[64];
	const char *model = NULL;

	if (strcmp(kind, "host") == 0) {
		snprintf(t->name, sizeof(t->name), "host");
		hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
		model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	} else if (strcmp(kind, "synthetic") == 0) {
		snprintf(t->name, sizeof(t->name), "synthetic");
	} else {
		snprintf(t->name, sizeof(t->name), "%s", path_basename(arg, base, sizeof(base)));
	}
	char what[160];
	/* hwloc reads these for "host" too: say so rather than describe another machine as
	 * this one. */
	const char *var = NULL, *value = strcmp(kind, "host") == 0 ? host_env_source(&var) : NULL;
	if (value)
		snprintf(what, sizeof(what), "this host as %s '%.60s' describes it", var, value);
	else if (strcmp(kind, "host") == 0)
		snprintf(what, sizeof(what), "this host%s%.60s%s", model ? " (" : "",
			 model ? model : "", model ? ")" : "");
	else
		snprintf(what, sizeof(what), "hwloc %s '%.60s%s'", kind, arg,
			 strlen(arg) > 60 ? "..." : "");
	snprintf(t->description, sizeof(t->description),
		 "%.100s: %d CPUs, %d cores, %d LLCs, %d NUMA nodes, %d packages", what, t->nr_cpus,
		 t->nr_cores, t->nr_llcs, t->nr_nodes, t->nr_packages);
}

/* Builds the ts topology from a loaded hwloc topology. */
static int convert(struct import_ctx *c, const char *kind, const char *arg,
		   struct ts_topology **out, struct ts_error *err)
{
	hwloc_topology_t topo = c->topo;
	int nr_pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	int nr_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

	if (nr_pus <= 0) {
		if (strcmp(kind, "fsroot") == 0)
			return ts_error_set(err, -ENOENT,
					    "%s: no CPUs found under %s/sys/devices/system/cpu",
					    c->label, arg);
		return ts_error_set(err, -ENOENT, "%s: the topology has no CPUs (PU objects)",
				    c->label);
	}
	if (nr_pus > TS_MAX_CPUS)
		return ts_error_set(err, -E2BIG,
				    "%s: %d CPUs, more than the %d supported (TS_MAX_CPUS)",
				    c->label, nr_pus, TS_MAX_CPUS);
	if (nr_nodes > TS_MAX_NODES)
		return ts_error_set(err, -E2BIG,
				    "%s: %d NUMA nodes, more than the %d supported (TS_MAX_NODES)",
				    c->label, nr_nodes, TS_MAX_NODES);

	c->nr_pus = nr_pus;
	c->nr_nodes = nr_nodes > 0 ? nr_nodes : 1;
	c->pus = calloc((size_t)nr_pus, sizeof(*c->pus));
	c->nodes = calloc((size_t)c->nr_nodes, sizeof(*c->nodes));
	if (!c->pus || !c->nodes)
		return ts_error_set(err, -ENOMEM, "%s: out of memory", c->label);
	for (int i = 0; i < nr_pus; i++) {
		c->pus[i] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		if (c->pus[i]->os_index > INT_MAX)
			return ts_error_set(err, -ERANGE,
					    "%s: PU P#%u has an out-of-range OS index", c->label,
					    c->pus[i]->os_index);
	}
	qsort(c->pus, (size_t)nr_pus, sizeof(*c->pus), cmp_obj_os_index);
	if (nr_nodes > 0) {
		for (int i = 0; i < nr_nodes; i++)
			c->nodes[i] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
		qsort(c->nodes, (size_t)nr_nodes, sizeof(*c->nodes), cmp_obj_os_index);
	} else {
		c->nr_nodes = 0; /* node_index_of() finds nothing: every CPU on node 0 */
	}

	struct ts_topology *t = ts_topology_alloc(nr_pus, nr_nodes > 0 ? nr_nodes : 1, err);
	if (!t) {
		ts_error_prefix(err, "%s", c->label);
		return err && err->code ? err->code : -ENOMEM;
	}
	int lvl = llc_level(c);
	for (int i = 0; i < nr_pus; i++)
		fill_cpu(c, i, lvl, &t->cpu[i]);
	/* with no shared cache each core is its own LLC: its deepest private cache */
	t->llc_bytes = llc_size(c, lvl > 0 ? lvl : deepest_dcache(c));
	if (nr_nodes > 0)
		fill_distance(c, t);
	if (fill_capacity(c, t) < 0) {
		ts_topology_free(t);
		return ts_error_set(err, -ENOMEM, "%s: out of memory", c->label);
	}
	int rc = ts_topology_finish(t, err);
	if (rc < 0) {
		ts_error_prefix(err, "%s", c->label);
		ts_topology_free(t);
		return rc;
	}
	describe(t, kind, arg, topo);
	*out = t;
	return 0;
}

/* A sysfs root must at least have cpuN directories; hwloc would otherwise fall back to
 * guessing and report a topology that has nothing to do with the capture. */
static int check_fsroot(const char *label, const char *dir, struct ts_error *err)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return ts_error_set(err, -errno, "%s: cannot open: %s", label, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ts_error_set(err, -ENOTDIR, "%s: not a directory", label);

	char path[4096];
	int len = snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", dir);
	if (len < 0 || (size_t)len >= sizeof(path))
		return ts_error_set(err, -ENAMETOOLONG, "%s: path too long", label);
	DIR *d = opendir(path);
	bool found = false;
	if (d) {
		struct dirent *e;
		while (!found && (e = readdir(d)) != NULL)
			found = strncmp(e->d_name, "cpu", 3) == 0 && e->d_name[3] >= '0' &&
				e->d_name[3] <= '9';
		closedir(d);
	}
	if (!found)
		return ts_error_set(err, -ENOENT, "%s: no CPUs found under %s", label, path);
	return ts_sysfs_capture_check(label, dir, err);
}

/* hwloc builds every object of a synthetic description before we can count PUs, and is
 * slow on wide levels: "pack:64 core:64 pu:64" would take minutes and gigabytes. The
 * product of the level arities (type:N or a bare N, in decimal, hex or octal as hwloc's
 * strtoul() reads them; attributes in () and memory in [] skipped) bounds the PU count, so
 * oversized descriptions are refused up front. */
static unsigned long long synthetic_pu_bound(const char *s)
{
	unsigned long long product = 1;
	int paren = 0, bracket = 0;
	while (*s) {
		if (*s == '(' || *s == '[' || *s == ')' || *s == ']') {
			paren += (*s == '(') - (*s == ')');
			bracket += (*s == '[') - (*s == ']');
			s++;
			continue;
		}
		if (paren > 0 || bracket > 0 || isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		const char *tok = s;
		while (*s && !isspace((unsigned char)*s) && *s != '(' && *s != '[')
			s++;
		const char *colon = memchr(tok, ':', (size_t)(s - tok));
		const char *num = colon ? colon + 1 : tok;
		if (!isdigit((unsigned char)*num))
			continue;
		/* Read as hwloc reads it: strtoul(..., 0), so "0x2000" and "010" count. */
		errno = 0;
		unsigned long long n = strtoull(num, NULL, 0);
		if (errno == ERANGE)
			n = ULLONG_MAX;
		if (n == 0)
			continue;
		product = n > TS_MAX_CPUS || product * n > TS_MAX_CPUS ? TS_MAX_CPUS + 1ull
								       : product * n;
	}
	return product;
}

/* hwloc 2.9 leaks 32 bytes on some refused descriptions (fuzz/lsan.supp): this named,
 * never-inlined frame lets the fuzzers' leak check suppress exactly that leak. */
__attribute__((noinline)) static int set_synthetic_description(hwloc_topology_t topo,
							       const char *description)
{
	return hwloc_topology_set_synthetic(topo, description);
}

/* What one hwloc load needs; built by ts_topology_load_hwloc() after its checks. */
struct hwloc_load {
	const char *kind, *arg, *label;
	bool host, xml, fsroot, synth;
	const char *xml_text; /* xml: the checked file; hwloc reads this copy, not the path */
	size_t xml_len;
};

/* hwloc's part: load the source and convert it. For files from outside (xml, fsroot) it
 * runs in a child process (ts_topology_load_isolated()), since hwloc trusts them. */
static int load_with_hwloc(void *arg, struct ts_topology **out, struct ts_error *err)
{
	const struct hwloc_load *l = arg;
	const char *label = l->label;
	struct import_ctx c = {0};
	struct env_stack env = {.n = 0};
	int rc = 0;

	/* Quiet hwloc: no banner about OS inconsistencies unless the user asked for it. */
	if (!getenv("HWLOC_HIDE_ERRORS") && (rc = env_stack_push(&env, "HWLOC_HIDE_ERRORS", "2")))
		goto env_fail;
	if (l->fsroot) {
		/* What lstopo --if fsroot does: only the linux component reads the capture, and
		 * nothing is taken from the machine we run on. */
		if ((rc = env_stack_push(&env, "HWLOC_FSROOT", l->arg)) ||
		    (rc = env_stack_push(&env, "HWLOC_THISSYSTEM", "0")) ||
		    (rc = env_stack_push(&env, "HWLOC_COMPONENTS", "linux,stop")))
			goto env_fail;
	}

	if (hwloc_topology_init(&c.topo) != 0) {
		c.topo = NULL;
		rc = ts_error_set(err, -ENOMEM, "%s: cannot initialise hwloc", label);
		goto out;
	}
	c.label = label;
	/* Keep every Group: cluster groups must survive even where they add no level. */
	hwloc_topology_set_type_filter(c.topo, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_ALL);

	/* The size includes the NUL, as hwloc_topology_export_xmlbuffer() reports it. */
	if (l->xml && hwloc_topology_set_xmlbuffer(c.topo, l->xml_text, (int)l->xml_len + 1) != 0) {
		rc = ts_error_set(err, -EINVAL, "%s: not a valid hwloc XML topology", label);
		goto out;
	}
	if (l->synth && set_synthetic_description(c.topo, l->arg) != 0) {
		rc = ts_error_set(err, -EINVAL, "%s: invalid hwloc synthetic description", label);
		goto out;
	}
	if (hwloc_topology_load(c.topo) != 0) {
		int e = errno ? errno : EINVAL;
		if (l->xml)
			rc = ts_error_set(err, -EINVAL, "%s: not a valid hwloc XML topology",
					  label);
		else if (l->synth)
			rc = ts_error_set(err, -EINVAL, "%s: invalid hwloc synthetic description",
					  label);
		else
			rc = ts_error_set(err, -e, "%s: hwloc could not discover the topology: %s",
					  label, strerror(e));
		goto out;
	}
	env_stack_pop_all(&env);
	rc = convert(&c, l->kind, l->host ? "" : l->arg, out, err);
	goto out;

env_fail:
	rc = ts_error_set(err, rc, "%s: cannot set up hwloc's environment: %s", label,
			  strerror(-rc));
out:
	env_stack_pop_all(&env);
	free(c.pus);
	free(c.nodes);
	if (c.topo)
		hwloc_topology_destroy(c.topo);
	return rc;
}

int ts_topology_load_hwloc(const char *kind, const char *arg, struct ts_topology **out,
			   struct ts_error *err)
{
	char label[320];
	char *xml_text = NULL;
	size_t xml_len = 0;
	int rc = 0;

	if (out)
		*out = NULL;
	if (!kind || !out)
		return ts_error_set(err, -EINVAL, "hwloc import: no source kind or output given");
	bool host = strcmp(kind, "host") == 0, xml = strcmp(kind, "xml") == 0,
	     fsroot = strcmp(kind, "fsroot") == 0, synth = strcmp(kind, "synthetic") == 0;
	if (!host && !xml && !fsroot && !synth)
		return ts_error_set(err, -EINVAL,
				    "hwloc import: unknown source kind '%.40s' (expected host, "
				    "xml, fsroot or synthetic)",
				    kind);
	/* A "host" that hwloc would read from a file, capture or description named in the
	 * environment is that input, and is checked and isolated as one. */
	const char *env_var = NULL;
	if (host && (arg = host_env_source(&env_var)) != NULL) {
		fsroot = strcmp(env_var, "HWLOC_FSROOT") == 0;
		synth = strcmp(env_var, "HWLOC_SYNTHETIC") == 0;
		xml = strcmp(env_var, "HWLOC_XMLFILE") == 0;
	}
	if (host && !env_var)
		snprintf(label, sizeof(label), "host");
	else if (host)
		snprintf(label, sizeof(label), "host (following %s '%.256s%s')", env_var, arg,
			 strlen(arg) > 256 ? "..." : "");
	else if (!arg || !*arg)
		return ts_error_set(err, -EINVAL, "%s: no %s given", kind,
				    synth ? "description" : "path");
	else
		snprintf(label, sizeof(label), "%s '%.256s%s'", kind, arg,
			 strlen(arg) > 256 ? "..." : "");

	if (synth && synthetic_pu_bound(arg) > TS_MAX_CPUS)
		return ts_error_set(err, -E2BIG,
				    "%s: describes more than the %d supported CPUs (TS_MAX_CPUS)",
				    label, TS_MAX_CPUS);
	if (xml) {
		rc = ts_read_input_file(label, arg, TS_TOPOLOGY_FILE_MAX, &xml_text, &xml_len, err);
		if (rc == 0)
			rc = ts_hwloc_xml_check(label, xml_text, xml_len, err);
	} else if (fsroot) {
		rc = check_fsroot(label, arg, err);
	}
	if (rc == 0) {
		struct hwloc_load l = {kind,   arg,   label,	host,	xml,
				       fsroot, synth, xml_text, xml_len};
		if (xml || fsroot)
			rc = ts_topology_load_isolated(label, load_with_hwloc, &l, out, err);
		else
			rc = load_with_hwloc(&l, out, err);
	}
	free(xml_text);
	return rc;
}
