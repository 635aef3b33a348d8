/* The CLI's small promises: --version names the project's version (and, in a git
 * checkout, the commit built), the same text each time; unknown machines, workloads and
 * features get a did-you-mean in their one error line (exit 2); topo --export writes an
 * hwloc XML file that loads back as the same machine (CPUs, cores, clusters, LLCs, nodes,
 * distances), for every preset; sim warns when the default cluster comparison runs on a
 * machine without a cluster level, and only then. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_support.h"
#include "topo_fixture.h"
#include "toposched/topology.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define TINY                                                                                       \
	"--clients", "1", "--iterations", "2", "--duration", "2ms", "--warmup", "1ms", "--quiet"

static struct run cli(const char *const *args)
{
	return ts_run_cli(ts_tmpdir, args, 120);
}

static void test_version(void **state)
{
	(void)state;
	struct run a = cli(ARGS("--version")), b = cli(ARGS("--version"));
	assert_int_equal(a.status, 0);
	assert_string_equal(a.err, "");
	assert_int_equal(strncmp(a.out, "toposched 0.", 12), 0);
	assert_int_equal(count_lines(a.out), 1);
	assert_string_equal(a.out, b.out);
	/* built from a git checkout (this test's tree is one): the commit is named */
	if (access(TS_SOURCE_DIR "/.git", F_OK) == 0)
		assert_non_null(strstr(a.out, " (git "));
	run_free(&a);
	run_free(&b);
}

/* exit 2, one error line holding every word */
static void expect_error_v(const char *const *args, const char *const *words)
{
	struct run r = cli(args);
	bool ok = r.status == 2 && r.out[0] == '\0' && count_lines(r.err) == 1;
	for (int i = 0; ok && words[i]; i++)
		ok = strstr(r.err, words[i]) != NULL;
	if (!ok)
		fail_msg("exit %d, stderr: %s", r.status, r.err);
	run_free(&r);
}
#define EXPECT_ERROR(args, ...) expect_error_v(args, (const char *const[]){__VA_ARGS__, NULL})

static void test_did_you_mean(void **state)
{
	(void)state;
	EXPECT_ERROR(ARGS("sim", "--machine", "kunpeng92"), "'kunpeng92'",
		     "did you mean 'kunpeng920'?");
	EXPECT_ERROR(ARGS("topo", "--topology", "epyc7601"), "did you mean 'epyc-7601'?");
	EXPECT_ERROR(ARGS("sim", "--workload", "tbnech"), "--workload 'tbnech'",
		     "did you mean 'tbench'?");
	EXPECT_ERROR(ARGS("sim", "--features", "SIS_CLUSTR"), "'SIS_CLUSTR'",
		     "did you mean 'SIS_CLUSTER'?");
	EXPECT_ERROR(ARGS("sim", "--compare", "a=NO_SIS_UTL"), "did you mean 'NO_SIS_UTIL'?");
	EXPECT_ERROR(ARGS("features", "--features", "sis_prop"), "did you mean 'SIS_PROP'?");
	/* nothing near: the lists as before */
	EXPECT_ERROR(ARGS("sim", "--workload", "zzz"), "built in: tbench");
	EXPECT_ERROR(ARGS("topo", "--topology", "zzz"), "not a preset (see");
}

static void test_topo_export_loads_back(void **state)
{
	(void)state;
	char path[400];
	snprintf(path, sizeof(path), "%s/machine.xml", ts_tmpdir);
	int n;
	const struct ts_preset *p = ts_preset_list(&n);
	assert_true(n >= 5);
	for (int i = 0; i < n; i++) {
		struct run r = cli(ARGS("topo", "--topology", p[i].name, "--export", path));
		if (r.status != 0 || r.out[0] || r.err[0])
			fail_msg("%s: exit %d, stderr %s", p[i].name, r.status, r.err);
		run_free(&r);
		struct ts_topology *want, *got;
		struct ts_error err = {0};
		assert_int_equal(ts_topology_load(p[i].name, &want, &err), 0);
		if (ts_topology_load(path, &got, &err))
			fail_msg("%s: the export does not load: %s", p[i].name, err.msg);
		assert_same_topology(want, got);
		ts_topology_free(want);
		ts_topology_free(got);
	}
	/* --distance's matrix goes into the file */
	struct run r = cli(ARGS("topo", "--topology", "pack:2 numa:1 core:2 pu:1", "--distance",
				"10 31; 31 10", "--export", path));
	assert_int_equal(r.status, 0);
	run_free(&r);
	struct ts_topology *t;
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load(path, &t, &err), 0);
	assert_int_equal(ts_topo_distance(t, 0, 1), 31);
	ts_topology_free(t);
	unlink(path);
	EXPECT_ERROR(ARGS("topo", "--export", path, "--cpus", "0"), "--export", "--cpus");
}

static void test_cluster_warning(void **state)
{
	(void)state;
	static const char warning[] = "warning: epyc-7601 has no cluster level";
	struct run r = cli(ARGS("sim", "--machine", "epyc-7601", TINY));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, warning));
	assert_int_equal(count_lines(r.err), 1);
	run_free(&r);
	/* not with configurations of one's own, nor where clusters exist */
	r = cli(ARGS("sim", "--machine", "epyc-7601", TINY, "--compare", "a=SIS_UTIL",
		     "b=SIS_PROP"));
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "warning"));
	run_free(&r);
	r = cli(ARGS("sim", "--machine", "jacobsville", TINY));
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "cluster level"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_topo_export_loads_back),
		cmocka_unit_test(test_cluster_warning),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
