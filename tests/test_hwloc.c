/* hwloc sources: synthetic strings, XML round trips of hand-built machines (Kunpeng-like
 * clusters and SLIT, x86 SMT numbering, CPU-less nodes, nodes over packages, asymmetric
 * capacity), a fake sysfs root written at run time, this host, and every bad-input class. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../src/topo/topo_build.h"
#include "topo_fixture.h"
#include "toposched/topology.h"

/* ---- helpers ---------------------------------------------------------------------- */

static struct ts_topology *load_ok(const char *kind, const char *arg)
{
	struct ts_error err = {0};
	struct ts_topology *t = NULL;
	int rc = ts_topology_load_hwloc(kind, arg, &t, &err);
	if (rc != 0)
		print_message("load %s '%s' failed: %s\n", kind, arg ? arg : "", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(t);
	assert_string_equal(err.msg, "");
	return t;
}

/* Asserts a failure with a message that names the input. */
static void load_fails(const char *kind, const char *arg, const char *must_name)
{
	struct ts_error err = {0};
	struct ts_topology *t = (struct ts_topology *)&err; /* must be reset to NULL */
	int rc = ts_topology_load_hwloc(kind, arg, &t, &err);
	if (rc >= 0 || !strstr(err.msg, must_name))
		print_message("load %s '%s': rc %d, msg '%s'\n", kind, arg ? arg : "(null)", rc,
			      err.msg);
	assert_true(rc < 0);
	assert_int_equal(err.code, rc);
	assert_null(t);
	assert_non_null(strstr(err.msg, must_name));
}

/* write_xml + load("xml"), through a temporary file that is removed afterwards. */
static struct ts_topology *xml_roundtrip(const struct ts_topology *t)
{
	char path[] = "/tmp/test_hwloc_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	struct ts_error err = {0};
	int rc = ts_topology_write_xml(t, f, &err);
	if (rc)
		print_message("write_xml: %s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(fclose(f), 0);

	struct ts_topology *u = NULL;
	rc = ts_topology_load_hwloc("xml", path, &u, &err);
	if (rc)
		print_message("reading back %s: %s\n", path, err.msg);
	unlink(path);
	assert_int_equal(rc, 0);
	assert_string_equal(u->name, strrchr(path, '/') + 1);
	return u;
}

static void check_roundtrip(struct ts_topology *t)
{
	struct ts_topology *u = xml_roundtrip(t);
	assert_same_topology(t, u);
	ts_topology_free(u);
	ts_topology_free(t);
}

static struct ts_topology *finish_ok(struct ts_topology *t)
{
	struct ts_error err = {0};
	int rc = ts_topology_finish(t, &err);
	if (rc)
		print_message("finish: %s\n", err.msg);
	assert_int_equal(rc, 0);
	return t;
}

static void set_distance(struct ts_topology *t, const char *text)
{
	struct ts_error err = {0};
	int rc = ts_topology_parse_distance(t, text, &err);
	if (rc)
		print_message("distance: %s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* ---- synthetic ---------------------------------------------------------------------- */

static void test_synthetic_smt(void **state)
{
	(void)state;
	struct ts_topology *t = load_ok("synthetic", "pack:2 core:4 pu:2");
	assert_int_equal(t->nr_cpus, 16);
	assert_int_equal(t->nr_cores, 8);
	assert_int_equal(t->nr_packages, 2);
	assert_int_equal(t->nr_nodes, 1);
	assert_true(t->has_smt);
	assert_false(t->has_clusters);
	assert_string_equal(t->name, "synthetic");
	assert_non_null(strstr(t->description, "pack:2 core:4 pu:2"));
	for (int i = 0; i < 16; i++) {
		assert_int_equal(t->cpu[i].os_index, i);
		assert_int_equal(t->cpu[i].core, i / 2); /* synthetic PUs are adjacent siblings */
		assert_int_equal(t->cpu[i].package, i / 8);
		assert_int_equal(t->cpu[i].node, 0);
		assert_int_equal(t->cpu[i].cluster, t->cpu[i].core);
		assert_int_equal(t->cpu[i].llc, t->cpu[i].core); /* no cache shared: LLC per core */
		assert_int_equal(t->cpu[i].capacity, TS_CAPACITY_SCALE);
	}
	assert_int_equal(t->distance[0], TS_LOCAL_DISTANCE);
	ts_topology_free(t);
}

static void test_synthetic_kunpeng_groups(void **state)
{
	(void)state;
	/* Groups of 4 cores below the LLC are Linux's clusters (Kunpeng 920 shape). */
	struct ts_topology *t = load_ok("synthetic", "pack:2 numa:2 l3:1 group:8 core:4 pu:1");
	assert_int_equal(t->nr_cpus, 128);
	assert_int_equal(t->nr_cores, 128);
	assert_int_equal(t->nr_clusters, 32);
	assert_int_equal(t->nr_llcs, 4);
	assert_int_equal(t->nr_nodes, 4);
	assert_int_equal(t->nr_packages, 2);
	assert_true(t->has_clusters);
	assert_false(t->has_smt);
	for (int i = 0; i < 128; i++) {
		assert_int_equal(t->cpu[i].cluster, i / 4);
		assert_int_equal(t->cpu[i].llc, i / 32);
		assert_int_equal(t->cpu[i].node, i / 32);
		assert_int_equal(t->cpu[i].package, i / 64);
	}
	/* No distances in a synthetic description: Linux's default. */
	assert_int_equal(ts_topo_distance(t, 0, 0), 10);
	assert_int_equal(ts_topo_distance(t, 0, 3), 20);
	ts_topology_free(t);
}

static void test_synthetic_l2_clusters(void **state)
{
	(void)state;
	/* Jacobsville: 6 clusters of 4 cores sharing an L2, one L3 (x86 clusters = L2). */
	struct ts_topology *t = load_ok("synthetic", "pack:1 l3:1 l2:6 core:4 pu:1");
	assert_int_equal(t->nr_cpus, 24);
	assert_int_equal(t->nr_clusters, 6);
	assert_int_equal(t->nr_llcs, 1);
	assert_true(t->has_clusters);
	for (int i = 0; i < 24; i++)
		assert_int_equal(t->cpu[i].cluster, i / 4);
	ts_topology_free(t);

	/* An L2 that is the LLC is no cluster. */
	t = load_ok("synthetic", "pack:2 l2:2 core:2 pu:2");
	assert_int_equal(t->nr_llcs, 4);
	assert_int_equal(t->nr_clusters, 8);
	assert_false(t->has_clusters);
	assert_true(t->has_smt);
	ts_topology_free(t);
}

static void test_synthetic_limits(void **state)
{
	(void)state;
	struct ts_error err = {0};
	struct ts_topology *t = NULL;
	/* Exactly TS_MAX_CPUS loads (hwloc is slow on wide levels: keep arities small). */
	t = load_ok("synthetic", "pack:8 l3:8 group:4 core:8 pu:4");
	assert_int_equal(t->nr_cpus, TS_MAX_CPUS);
	assert_int_equal(t->nr_llcs, 64);
	assert_int_equal(t->nr_clusters, 256);
	ts_topology_free(t);
	t = NULL;

	int rc = ts_topology_load_hwloc("synthetic", "pack:8 l3:8 group:4 core:8 pu:5", &t, &err);
	assert_true(rc < 0);
	assert_null(t);
	assert_non_null(strstr(err.msg, "pack:8 l3:8 group:4 core:8 pu:5"));
	assert_non_null(strstr(err.msg, "TS_MAX_CPUS"));

	ts_error_clear(&err);
	rc = ts_topology_load_hwloc("synthetic", "numa:1025 pu:1", &t, &err);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, "TS_MAX_NODES"));
}

/* ---- XML round trips ---------------------------------------------------------------- */

/* Kunpeng 920 in miniature: 2 packages x 2 nodes (one L3 each) x 2 clusters x 4 cores,
 * with the XA320 V2 SLIT. */
static void test_xml_roundtrip_kunpeng(void **state)
{
	(void)state;
	struct ts_topology *t = ts_topology_alloc(32, 4, NULL);
	assert_non_null(t);
	for (int i = 0; i < 32; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i / 4;
		t->cpu[i].llc = i / 8;
		t->cpu[i].node = i / 8;
		t->cpu[i].package = i / 16;
	}
	set_distance(t, "10 16 32 33; 16 10 25 32; 32 25 10 16; 33 32 16 10");
	finish_ok(t);
	assert_true(t->has_clusters);
	assert_int_equal(t->nr_clusters, 8);
	check_roundtrip(t);
}

/* x86: 2 packages x 8 cores x 2 threads, siblings at +16 (node0 = 0-7,16-23), SLIT 10/21,
 * OS numbers not starting at 0 to see that os_index travels. */
static void test_xml_roundtrip_x86_smt(void **state)
{
	(void)state;
	struct ts_topology *t = ts_topology_alloc(32, 2, NULL);
	assert_non_null(t);
	for (int i = 0; i < 32; i++) {
		int core = i % 16;
		t->cpu[i].core = core;
		t->cpu[i].cluster = core;
		t->cpu[i].llc = core / 8;
		t->cpu[i].node = core / 8;
		t->cpu[i].package = core / 8;
		t->cpu[i].os_index = 100 + i;
	}
	set_distance(t, "10 21; 21 10");
	finish_ok(t);
	assert_true(t->has_smt);
	assert_int_equal(t->cpu[0].core, t->cpu[16].core);
	struct ts_topology *u = xml_roundtrip(t);
	assert_same_topology(t, u);
	assert_int_equal(u->cpu[16].os_index, 116);
	assert_int_equal(u->cpu[0].core, u->cpu[16].core);
	ts_topology_free(u);
	check_roundtrip(t);
}

/* EPYC 7601 shape: a node (die) holds two LLCs (CCX) inside a package; SMT split. */
static void test_xml_roundtrip_node_group_in_package(void **state)
{
	(void)state;
	const int cores = 16;
	struct ts_topology *t = ts_topology_alloc(2 * cores, 4, NULL);
	assert_non_null(t);
	for (int i = 0; i < 2 * cores; i++) {
		int core = i % cores;
		t->cpu[i].core = core;
		t->cpu[i].cluster = core;
		t->cpu[i].llc = core / 2;
		t->cpu[i].node = core / 4;
		t->cpu[i].package = core / 8;
	}
	set_distance(t, "10 16 32 32; 16 10 32 32; 32 32 10 16; 32 32 16 10");
	check_roundtrip(finish_ok(t));
}

/* A CPU-less (memory-only) node between two CPU nodes, as CXL or HBM shows up. */
static void test_xml_roundtrip_memory_only_node(void **state)
{
	(void)state;
	struct ts_topology *t = ts_topology_alloc(8, 3, NULL);
	assert_non_null(t);
	for (int i = 0; i < 8; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i;
		t->cpu[i].llc = i / 4;
		t->cpu[i].node = i < 4 ? 0 : 2;
		t->cpu[i].package = 0;
	}
	set_distance(t, "10 30 20; 30 10 30; 20 30 10");
	finish_ok(t);
	assert_int_equal(ts_topology_node_weight(t, 1), 0);
	struct ts_topology *u = xml_roundtrip(t);
	assert_same_topology(t, u);
	assert_int_equal(ts_topology_node_weight(u, 1), 0);
	assert_int_equal(ts_topo_distance(u, 1, 2), 30);
	ts_topology_free(u);
	ts_topology_free(t);
}

/* Nodes above packages: 4 packages in 2 nodes; then one node over 2 packages (the whole
 * machine). Asymmetric capacities travel as CPU kinds. */
static void test_xml_roundtrip_nodes_over_packages(void **state)
{
	(void)state;
	struct ts_topology *t = ts_topology_alloc(16, 2, NULL);
	assert_non_null(t);
	for (int i = 0; i < 16; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i / 2;
		t->cpu[i].llc = i / 4;
		t->cpu[i].node = i / 8;
		t->cpu[i].package = i / 4;
		t->cpu[i].capacity = i % 4 < 2 ? 1024 : 446;
	}
	set_distance(t, "10 40; 40 10");
	finish_ok(t);
	assert_true(t->has_clusters);
	check_roundtrip(t);

	t = ts_topology_alloc(8, 1, NULL);
	assert_non_null(t);
	for (int i = 0; i < 8; i++) {
		t->cpu[i].core = i / 2;
		t->cpu[i].cluster = i / 2;
		t->cpu[i].llc = i / 4;
		t->cpu[i].node = 0;
		t->cpu[i].package = i / 4;
	}
	check_roundtrip(finish_ok(t));
}

/* Every preset survives write + read unchanged. */
static void test_xml_roundtrip_presets(void **state)
{
	(void)state;
	int n = 0;
	const struct ts_preset *p = ts_preset_list(&n);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		struct ts_error err = {0};
		struct ts_topology *t = p[i].build(&err);
		if (!t)
			print_message("preset %s: %s\n", p[i].name, err.msg);
		assert_non_null(t);
		/* every preset but jacobsville states its L3 (cache_size survives the export) */
		if (strcmp(p[i].name, "jacobsville") != 0)
			assert_true(t->llc_bytes >= 8u << 20);
		check_roundtrip(t);
	}
}

static void test_xml_write_errors(void **state)
{
	(void)state;
	/* Node 0 holds all of package 0 and half of package 1: no tree can hold that. */
	struct ts_topology *t = ts_topology_alloc(4, 2, NULL);
	assert_non_null(t);
	for (int i = 0; i < 4; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i;
		t->cpu[i].llc = i;
		t->cpu[i].node = i < 3 ? 0 : 1;
		t->cpu[i].package = i / 2;
	}
	finish_ok(t);
	FILE *f = tmpfile();
	assert_non_null(f);
	struct ts_error err = {0};
	int rc = ts_topology_write_xml(t, f, &err);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, "package"));
	fclose(f);
	ts_topology_free(t);

	/* A full disk is reported, not ignored. */
	t = load_ok("synthetic", "pack:1 core:2 pu:1");
	f = fopen("/dev/full", "w");
	if (f) {
		ts_error_clear(&err);
		rc = ts_topology_write_xml(t, f, &err);
		assert_true(rc < 0);
		assert_non_null(strstr(err.msg, "write"));
		fclose(f);
	}
	ts_topology_free(t);
}

/* Two NUMA nodes attached at one place (a DRAM node and an MCDRAM/HBM one): the CPUs are
 * in the DRAM node, as Linux lists them, even when the HBM node has the lower number. */
static void test_xml_two_nodes_one_parent(void **state)
{
	(void)state;
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
		"<topology version=\"2.0\">\n"
		" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" "
		"complete_cpuset=\"0x0000000f\" allowed_cpuset=\"0x0000000f\" "
		"nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" "
		"allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
		"  <object type=\"Package\" os_index=\"0\" cpuset=\"0x0000000f\" "
		"complete_cpuset=\"0x0000000f\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"2\">\n"
		"   <object type=\"NUMANode\" os_index=\"0\" subtype=\"MCDRAM\" "
		"cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" nodeset=\"0x00000001\" "
		"complete_nodeset=\"0x00000001\" gp_index=\"3\" local_memory=\"0\"/>\n"
		"   <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x0000000f\" "
		"complete_cpuset=\"0x0000000f\" nodeset=\"0x00000002\" "
		"complete_nodeset=\"0x00000002\" gp_index=\"4\" local_memory=\"0\"/>\n"
		"   <object type=\"L2Cache\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\" "
		"nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" gp_index=\"5\" "
		"cache_size=\"1048576\" depth=\"2\" cache_linesize=\"64\" "
		"cache_associativity=\"16\" cache_type=\"0\">\n"
		"    <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000005\" "
		"complete_cpuset=\"0x00000005\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"6\">\n"
		"     <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" "
		"complete_cpuset=\"0x00000001\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"7\"/>\n"
		"     <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" "
		"complete_cpuset=\"0x00000004\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"8\"/>\n"
		"    </object>\n"
		"    <object type=\"Core\" os_index=\"1\" cpuset=\"0x0000000a\" "
		"complete_cpuset=\"0x0000000a\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"9\">\n"
		"     <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" "
		"complete_cpuset=\"0x00000002\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"10\"/>\n"
		"     <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" "
		"complete_cpuset=\"0x00000008\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" gp_index=\"11\"/>\n"
		"    </object>\n"
		"   </object>\n"
		"  </object>\n"
		" </object>\n"
		" <distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"5\" name=\"NUMALatency\" "
		"indexing=\"os\">\n"
		"  <indexes length=\"4\">0 1 </indexes>\n"
		"  <u64values length=\"12\">10 31 31 10 </u64values>\n"
		" </distances2>\n"
		"</topology>\n";
	char path[] = "/tmp/test_hwloc_knl_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, xml, sizeof(xml) - 1), (ssize_t)(sizeof(xml) - 1));
	close(fd);
	struct ts_topology *t = load_ok("xml", path);
	unlink(path);
	assert_int_equal(t->nr_cpus, 4);
	assert_int_equal(t->nr_nodes, 2);
	assert_int_equal(t->nr_cores, 2);
	assert_int_equal(t->nr_llcs, 1); /* the L2 is shared by both cores: it is the LLC */
	assert_true(t->has_smt);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(t->cpu[i].node, 1);
		assert_int_equal(t->cpu[i].core, i % 2);
		assert_int_equal(t->cpu[i].os_index, i);
	}
	assert_int_equal(ts_topology_node_weight(t, 0), 0);
	assert_int_equal(ts_topo_distance(t, 0, 1), 31);
	ts_topology_free(t);
}

/* ---- fake sysfs root ---------------------------------------------------------------- */

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

static void put(const char *root, const char *content, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(const char *root, const char *content, const char *fmt, ...)
{
	char rel[512], path[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdir_p(path);
	*slash = '/';
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", content);
	assert_int_equal(fclose(f), 0);
}

/* sysfs masks: 32-bit hex words, most significant first (enough for <= 32 CPUs). */
static const char *mask(unsigned bits, char *buf)
{
	snprintf(buf, 16, "%08x", bits);
	return buf;
}

static const char *list(unsigned bits, char *buf)
{
	char *p = buf;
	bool first = true;
	*p = '\0';
	for (int i = 0; i < 32; i++)
		if (bits & (1u << i)) {
			p += sprintf(p, "%s%d", first ? "" : ",", i);
			first = false;
		}
	return buf;
}

struct fake_cpu {
	unsigned core, cluster, l2, l3, package; /* masks of CPUs */
	int package_id, core_id;
};

static void put_cpu(const char *root, int cpu, const struct fake_cpu *c)
{
	char m[16], l[160], v[16];
	const char *top = "sys/devices/system/cpu";
	put(root, "1", "%s/cpu%d/online", top, cpu);
	put(root, mask(c->core, m), "%s/cpu%d/topology/thread_siblings", top, cpu);
	put(root, mask(c->core, m), "%s/cpu%d/topology/core_cpus", top, cpu);
	put(root, list(c->core, l), "%s/cpu%d/topology/thread_siblings_list", top, cpu);
	put(root, list(c->core, l), "%s/cpu%d/topology/core_cpus_list", top, cpu);
	put(root, mask(c->cluster, m), "%s/cpu%d/topology/cluster_cpus", top, cpu);
	put(root, list(c->cluster, l), "%s/cpu%d/topology/cluster_cpus_list", top, cpu);
	snprintf(v, sizeof(v), "%d", __builtin_ctz(c->cluster));
	put(root, v, "%s/cpu%d/topology/cluster_id", top, cpu);
	put(root, mask(c->package, m), "%s/cpu%d/topology/core_siblings", top, cpu);
	put(root, mask(c->package, m), "%s/cpu%d/topology/package_cpus", top, cpu);
	put(root, list(c->package, l), "%s/cpu%d/topology/package_cpus_list", top, cpu);
	snprintf(v, sizeof(v), "%d", c->package_id);
	put(root, v, "%s/cpu%d/topology/physical_package_id", top, cpu);
	snprintf(v, sizeof(v), "%d", c->core_id);
	put(root, v, "%s/cpu%d/topology/core_id", top, cpu);
	const struct {
		int level;
		const char *type, *size;
		unsigned shared;
	} caches[] = {
		{1, "Data", "32K", c->core},
		{1, "Instruction", "32K", c->core},
		{2, "Unified", "1024K", c->l2},
		{3, "Unified", "16384K", c->l3},
	};
	for (int k = 0; k < 4; k++) {
		snprintf(v, sizeof(v), "%d", caches[k].level);
		put(root, v, "%s/cpu%d/cache/index%d/level", top, cpu, k);
		put(root, caches[k].type, "%s/cpu%d/cache/index%d/type", top, cpu, k);
		put(root, caches[k].size, "%s/cpu%d/cache/index%d/size", top, cpu, k);
		put(root, "64", "%s/cpu%d/cache/index%d/coherency_line_size", top, cpu, k);
		put(root, mask(caches[k].shared, m), "%s/cpu%d/cache/index%d/shared_cpu_map", top,
		    cpu, k);
		put(root, list(caches[k].shared, l), "%s/cpu%d/cache/index%d/shared_cpu_list", top,
		    cpu, k);
	}
}

static void put_node(const char *root, int node, unsigned cpus, const char *distance)
{
	char m[16], l[160], meminfo[128];
	const char *top = "sys/devices/system/node";
	put(root, mask(cpus, m), "%s/node%d/cpumap", top, node);
	put(root, list(cpus, l), "%s/node%d/cpulist", top, node);
	put(root, distance, "%s/node%d/distance", top, node);
	snprintf(meminfo, sizeof(meminfo), "Node %d MemTotal:       4194304 kB", node);
	put(root, meminfo, "%s/node%d/meminfo", top, node);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Kunpeng-like capture: 8 CPUs, 2 nodes of 4 (one package and one L3 each), clusters of 2
 * from cluster_cpus, private L2, SLIT 10/20. */
static void test_fsroot_clusters(void **state)
{
	(void)state;
	char root[] = "/tmp/test_hwloc_fsroot_XXXXXX";
	assert_non_null(mkdtemp(root));
	for (int cpu = 0; cpu < 8; cpu++) {
		struct fake_cpu c = {
			.core = 1u << cpu,
			.cluster = 3u << (cpu & ~1),
			.l2 = 1u << cpu,
			.l3 = 0xfu << (cpu & ~3),
			.package = 0xfu << (cpu & ~3),
			.package_id = cpu / 4,
			.core_id = cpu,
		};
		put_cpu(root, cpu, &c);
	}
	put(root, "0-7", "sys/devices/system/cpu/online");
	put(root, "0-7", "sys/devices/system/cpu/possible");
	put(root, "0-7", "sys/devices/system/cpu/present");
	put_node(root, 0, 0x0f, "10 20");
	put_node(root, 1, 0xf0, "20 10");
	put(root, "0-1", "sys/devices/system/node/online");
	put(root, "0-1", "sys/devices/system/node/possible");

	struct ts_topology *t = load_ok("fsroot", root);
	assert_int_equal(t->nr_cpus, 8);
	assert_int_equal(t->nr_cores, 8);
	assert_int_equal(t->nr_clusters, 4);
	assert_int_equal(t->nr_llcs, 2);
	assert_int_equal(t->llc_bytes, 16384u << 10); /* cache/index3/size "16384K" */
	assert_int_equal(t->nr_nodes, 2);
	assert_int_equal(t->nr_packages, 2);
	assert_true(t->has_clusters);
	assert_false(t->has_smt);
	assert_string_equal(t->name, strrchr(root, '/') + 1);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(t->cpu[i].os_index, i);
		assert_int_equal(t->cpu[i].core, i);
		assert_int_equal(t->cpu[i].cluster, i / 2);
		assert_int_equal(t->cpu[i].llc, i / 4);
		assert_int_equal(t->cpu[i].node, i / 4);
		assert_int_equal(t->cpu[i].package, i / 4);
		assert_int_equal(t->cpu[i].capacity, TS_CAPACITY_SCALE);
	}
	assert_int_equal(ts_topo_distance(t, 0, 0), 10);
	assert_int_equal(ts_topo_distance(t, 0, 1), 20);
	assert_int_equal(ts_topo_distance(t, 1, 0), 20);
	assert_int_equal(ts_topo_distance(t, 1, 1), 10);

	/* And the capture survives an XML round trip. */
	check_roundtrip(t);
	rm_rf(root);
}

/* x86 capture: 4 cores x 2 threads, siblings at +4; pairs of cores share an L2, which
 * Linux reports as the cluster (Jacobsville style, hwloc merges that Group into the L2);
 * one L3; node 1 is CPU-less memory; per-CPU capacities (cpu_capacity). */
static void test_fsroot_smt_l2_memory_node(void **state)
{
	(void)state;
	char root[] = "/tmp/test_hwloc_fsroot_XXXXXX";
	assert_non_null(mkdtemp(root));
	for (int cpu = 0; cpu < 8; cpu++) {
		int core = cpu % 4;
		unsigned siblings = (1u << core) | (1u << (core + 4));
		unsigned l2 = 0x33u << (core & ~1);
		struct fake_cpu c = {
			.core = siblings,
			.cluster = l2,
			.l2 = l2,
			.l3 = 0xff,
			.package = 0xff,
			.package_id = 0,
			.core_id = core,
		};
		put_cpu(root, cpu, &c);
		put(root, core < 2 ? "1024" : "512", "sys/devices/system/cpu/cpu%d/cpu_capacity",
		    cpu);
	}
	put(root, "0-7", "sys/devices/system/cpu/online");
	put(root, "0-7", "sys/devices/system/cpu/possible");
	put_node(root, 0, 0xff, "10 17");
	put_node(root, 1, 0x00, "17 10");
	put(root, "0-1", "sys/devices/system/node/online");

	struct ts_topology *t = load_ok("fsroot", root);
	assert_int_equal(t->nr_cpus, 8);
	assert_int_equal(t->nr_cores, 4);
	assert_int_equal(t->nr_clusters, 2);
	assert_int_equal(t->nr_llcs, 1);
	assert_int_equal(t->nr_nodes, 2);
	assert_int_equal(t->nr_packages, 1);
	assert_true(t->has_smt);
	assert_true(t->has_clusters);
	for (int i = 0; i < 8; i++) {
		int core = i % 4;
		assert_int_equal(t->cpu[i].core, core);
		assert_int_equal(t->cpu[i].cluster, core / 2);
		assert_int_equal(t->cpu[i].llc, 0);
		assert_int_equal(t->cpu[i].node, 0);
		assert_int_equal(t->cpu[i].capacity, core < 2 ? 1024 : 512);
	}
	assert_int_equal(ts_topology_node_weight(t, 1), 0);
	assert_int_equal(ts_topo_distance(t, 0, 1), 17);
	check_roundtrip(t);
	rm_rf(root);
}

/* The environment hwloc is driven through is put back as it was. */
static void test_fsroot_env_restored(void **state)
{
	(void)state;
	char root[] = "/tmp/test_hwloc_fsroot_XXXXXX";
	assert_non_null(mkdtemp(root));
	struct fake_cpu c = {.core = 1, .cluster = 1, .l2 = 1, .l3 = 1, .package = 1};
	put_cpu(root, 0, &c);
	put_node(root, 0, 1, "10");
	unsetenv("HWLOC_FSROOT");
	setenv("HWLOC_COMPONENTS", "no_os", 1);
	struct ts_topology *t = load_ok("fsroot", root);
	assert_int_equal(t->nr_cpus, 1);
	ts_topology_free(t);
	assert_null(getenv("HWLOC_FSROOT"));
	assert_null(getenv("HWLOC_THISSYSTEM"));
	assert_string_equal(getenv("HWLOC_COMPONENTS"), "no_os");
	unsetenv("HWLOC_COMPONENTS");
	rm_rf(root);
}

/* ---- host and bad inputs ------------------------------------------------------------ */

static void test_host(void **state)
{
	(void)state;
	struct ts_topology *t = load_ok("host", NULL);
	assert_true(t->nr_cpus >= 1);
	assert_true(t->nr_nodes >= 1);
	assert_string_equal(t->name, "host");
	for (int i = 1; i < t->nr_cpus; i++)
		assert_true(t->cpu[i].os_index > t->cpu[i - 1].os_index);
	check_roundtrip(t);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	load_fails("xml", "/nonexistent/foo.xml", "xml '/nonexistent/foo.xml': cannot read");

	char bad[] = "/tmp/test_hwloc_bad_XXXXXX";
	int fd = mkstemp(bad);
	assert_true(fd >= 0);
	const char junk[] =
		"<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object type=\"Machine\"";
	assert_int_equal(write(fd, junk, sizeof(junk) - 1), (ssize_t)(sizeof(junk) - 1));
	close(fd);
	load_fails("xml", bad, "not a valid hwloc XML topology");
	load_fails("xml", bad, bad);

	/* XML 3.0 (hwloc 3.x) is named as such. */
	FILE *f = fopen(bad, "w");
	assert_non_null(f);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<topology "
	      "version=\"3.0\">\n</topology>\n",
	      f);
	fclose(f);
	load_fails("xml", bad, "version 3");
	load_fails("xml", bad, bad);

	/* Well-formed XML that is not a topology. */
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("<?xml version=\"1.0\"?>\n<html><body>hello</body></html>\n", f);
	fclose(f);
	load_fails("xml", bad, bad);
	unlink(bad);

	load_fails("synthetic", "pack:x",
		   "synthetic 'pack:x': invalid hwloc synthetic description");
	load_fails("synthetic", "pack:2 bogus:3", "pack:2 bogus:3");

	char dir[] = "/tmp/test_hwloc_empty_XXXXXX";
	assert_non_null(mkdtemp(dir));
	load_fails("xml", dir, dir); /* a directory is no XML file */
	load_fails("fsroot", dir, "no CPUs found under");
	load_fails("fsroot", dir, dir);
	/* Not a sysfs capture: a sys tree without CPUs, and some unrelated file. */
	put(dir, "hello", "notes.txt");
	put(dir, "0", "sys/devices/system/node/online");
	load_fails("fsroot", dir, "no CPUs found under");
	rm_rf(dir);
	load_fails("fsroot", "/nonexistent-root", "fsroot '/nonexistent-root': cannot open");

	load_fails("nonsense", "x", "nonsense");
	load_fails("xml", NULL, "xml");
	load_fails("synthetic", "", "synthetic");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_smt),
		cmocka_unit_test(test_synthetic_kunpeng_groups),
		cmocka_unit_test(test_synthetic_l2_clusters),
		cmocka_unit_test(test_synthetic_limits),
		cmocka_unit_test(test_xml_roundtrip_kunpeng),
		cmocka_unit_test(test_xml_roundtrip_x86_smt),
		cmocka_unit_test(test_xml_roundtrip_node_group_in_package),
		cmocka_unit_test(test_xml_roundtrip_memory_only_node),
		cmocka_unit_test(test_xml_roundtrip_nodes_over_packages),
		cmocka_unit_test(test_xml_roundtrip_presets),
		cmocka_unit_test(test_xml_write_errors),
		cmocka_unit_test(test_xml_two_nodes_one_parent),
		cmocka_unit_test(test_fsroot_clusters),
		cmocka_unit_test(test_fsroot_smt_l2_memory_node),
		cmocka_unit_test(test_fsroot_env_restored),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
