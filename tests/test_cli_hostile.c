/* The reproducers of "hostile and broken inputs" (issue 12), one test each, run through
 * the built CLI: every one gives one clear message and the documented exit status (2 bad
 * input, 1 a failure while writing), and a signal leaves no temporary file behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <hwloc.h>

#include "toposched/topology.h"

#include "test_support.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Exit status want, empty stdout, and stderr one "toposched ...: error:" line holding
 * every one of words (NULL-terminated). */
static void expect_error_v(int want, const char *const *args, const char *const *words)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 120);
	bool ok = r.status == want && r.out[0] == '\0' && strncmp(r.err, "toposched ", 10) == 0 &&
		  count_substr(r.err, "error:") == 1 && count_lines(r.err) == 1;
	for (int i = 0; ok && words[i]; i++)
		ok = strstr(r.err, words[i]) != NULL;
	if (!ok) {
		print_message("toposched");
		for (int i = 0; args[i]; i++)
			print_message(" '%s'", args[i]);
		print_message("\nwant exit %d and:", want);
		for (int i = 0; words[i]; i++)
			print_message(" [%s]", words[i]);
		print_message("\ngot exit %d\nstdout: %.300s\nstderr: %s", r.status, r.out, r.err);
	}
	run_free(&r);
	assert_true(ok);
}
#define EXPECT_ERROR(want, args, ...)                                                              \
	expect_error_v(want, args, (const char *const[]){__VA_ARGS__, NULL})

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void path_in_tmp(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", ts_tmpdir, name);
}

/* 1. A truncated XML file crashed hwloc's reader (exit 139). */
static void test_xml_truncated(void **state)
{
	(void)state;
	char path[320];
	path_in_tmp(path, sizeof(path), "truncated.xml");
	write_file(path, "<topology version=\"2.0");
	EXPECT_ERROR(2, ARGS("topo", "--topology", path), path, "not a valid hwloc XML topology",
		     "line 1");
	unlink(path);
}

/* 1. Well-formed, but a PU lacks its complete_cpuset: hwloc_topology_load() crashes
 * (lstopo too); the load runs in a child, whose crash is the message. */
static void test_xml_hwloc_crash(void **state)
{
	(void)state;
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<topology version=\"2.0\">\n"
		"<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" "
		"allowed_cpuset=\"0x3\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
		"allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
		"<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" "
		"nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"2\" local_memory=\"1024\"/>\n"
		"<object type=\"Package\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" "
		"nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"3\">\n"
		"<object type=\"Core\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" "
		"nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"4\">\n"
		"<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" "
		"nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"5\"/>\n"
		"<object type=\"PU\" os_index=\"1\" cpuset=\"0x2\" "
		"nodeset=\"0x1\" complete_nodeset=\"0x1\" gp_index=\"6\"/>\n"
		"</object>\n</object>\n</object>\n</topology>\n";
	char path[320];
	path_in_tmp(path, sizeof(path), "inconsistent.xml");
	write_file(path, xml);
	EXPECT_ERROR(2, ARGS("topo", "--topology", path), path, "hwloc crashed");
	/* The same file with the attribute back loads: the message is about the file. */
	char *fixed = strdup(xml);
	assert_non_null(fixed);
	char *pu1 = strstr(fixed, "os_index=\"1\" cpuset=\"0x2\" ");
	assert_non_null(pu1);
	pu1[0] = '\0';
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%sos_index=\"1\" cpuset=\"0x2\" complete_cpuset=\"0x2\" %s", fixed,
		pu1 + strlen("os_index=\"1\" cpuset=\"0x2\" "));
	assert_int_equal(fclose(f), 0);
	free(fixed);
	struct run r = ts_run_cli(ts_tmpdir, ARGS("topo", "--topology", path), 120);
	if (r.status != 0)
		print_message("%s", r.err);
	assert_int_equal(r.status, 0);
	run_free(&r);
	unlink(path);
}

/* 1. A PU without an os_index: hwloc numbers it 2^32-1 and takes seconds sizing bitmaps. */
static void test_xml_pu_without_os_index(void **state)
{
	(void)state;
	char path[320];
	path_in_tmp(path, sizeof(path), "no-index.xml");
	write_file(path, "<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\">"
			 "<object type=\"PU\" cpuset=\"0x1\"/></object></topology>");
	EXPECT_ERROR(2, ARGS("topo", "--topology", path), "line 1", "<object type=\"PU\">",
		     "without an os_index");
	/* hwloc takes any case and abbreviations of a type (fuzz_xml timed out on
	 * "NUMANod"): those are recognised as hwloc reads them */
	static const char *const spellings[] = {"pu", "NUMANod", "nu", "node"};
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		char text[256], what[64];
		snprintf(text, sizeof(text),
			 "<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\">"
			 "<object type=\"%s\" cpuset=\"0x1\"/></object></topology>",
			 spellings[i]);
		write_file(path, text);
		snprintf(what, sizeof(what), "<object type=\"%s\">", spellings[i]);
		EXPECT_ERROR(2, ARGS("topo", "--topology", path), what, "without an os_index");
	}
	unlink(path);
}

/* 2. /dev/zero and a FIFO grew memory without limit. */
static void test_topology_not_regular(void **state)
{
	(void)state;
	EXPECT_ERROR(2, ARGS("topo", "--topology", "xml:/dev/zero"), "/dev/zero",
		     "character device", "not a regular file");
	char fifo[320];
	path_in_tmp(fifo, sizeof(fifo), "pipe.xml");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	EXPECT_ERROR(2, ARGS("topo", "--topology", fifo), fifo, "a FIFO", "not a regular file");
	unlink(fifo);
}

/* 3. Hex arities passed the size guard and ran for minutes inside hwloc. */
static void test_synthetic_hex_size(void **state)
{
	(void)state;
	EXPECT_ERROR(2, ARGS("topo", "--topology", "pack:2 core:0x2000 pu:1"),
		     "more than the 8192 supported CPUs");
	EXPECT_ERROR(2, ARGS("topo", "--topology", "synthetic:0x8b6b6"),
		     "more than the 8192 supported CPUs");
	EXPECT_ERROR(2, ARGS("topo", "--topology", "pack:2 core:020000 pu:1"), /* octal */
		     "more than the 8192 supported CPUs");
}

/* A minimal sysfs capture: 2 CPUs on one node. */
static void make_capture(char *root, size_t size, const char *online, const char *distance)
{
	snprintf(root, size, "%s/capture", ts_tmpdir);
	static const char *const dirs[] = {
		"",
		"/sys",
		"/sys/devices",
		"/sys/devices/system",
		"/sys/devices/system/cpu",
		"/sys/devices/system/cpu/cpu0",
		"/sys/devices/system/cpu/cpu1",
		"/sys/devices/system/node",
		"/sys/devices/system/node/node0",
	};
	char path[512];
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
	}
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
	write_file(path, online);
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/node0/distance", root);
	write_file(path, distance);
}

static void remove_capture(const char *root)
{
	char path[512];
	static const char *const leaves[] = {
		"/sys/devices/system/cpu/online",
		"/sys/devices/system/node/node0/distance",
		"/sys/devices/system/node/node0",
		"/sys/devices/system/node",
		"/sys/devices/system/cpu/cpu1",
		"/sys/devices/system/cpu/cpu0",
		"/sys/devices/system/cpu",
		"/sys/devices/system",
		"/sys/devices",
		"/sys",
		"",
	};
	for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, leaves[i]);
		remove(path);
	}
}

/* 4. An empty cpu/online loaded as a 1-CPU machine with exit 0. */
static void test_sysfs_empty_online(void **state)
{
	(void)state;
	char root[320];
	make_capture(root, sizeof(root), "", "10\n");
	EXPECT_ERROR(2, ARGS("topo", "--topology", root), "sys/devices/system/cpu/online", "line 1",
		     "empty");
	remove_capture(root);
}

/* 4. A garbage distance row silently became the 10/20 default. */
static void test_sysfs_garbage_distance(void **state)
{
	(void)state;
	char root[320];
	make_capture(root, sizeof(root), "0-1\n", "10 x1\n");
	EXPECT_ERROR(2, ARGS("topo", "--topology", root), "sys/devices/system/node/node0/distance",
		     "line 1", "entry 2 'x1'", "not a distance");
	remove_capture(root);
	make_capture(root, sizeof(root), "0-1\n", "10 20\n");
	EXPECT_ERROR(2, ARGS("topo", "--topology", root), "sys/devices/system/node/node0/distance",
		     "2 entries", "1 node(s)");
	remove_capture(root);
}

/* 4. hwloc read a directory "cpu-2" as CPU 2^64-2 and took seconds and gigabytes sizing
 * a bitmap for it (found by fuzz_sysfs). */
static void test_sysfs_cpu_name_out_of_range(void **state)
{
	(void)state;
	char root[320], dir[512];
	make_capture(root, sizeof(root), "0-1\n", "10\n");
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/cpu-2", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	EXPECT_ERROR(2, ARGS("topo", "--topology", root), "sys/devices/system/cpu/cpu-2",
		     "hwloc reads this name as cpu number 18446744073709551614");
	rmdir(dir);
	remove_capture(root);
}

/* Runs the CLI with args, its standard output on out_fd and an address-space limit of
 * as_limit bytes (0: none); returns its exit status (-1: not an exit) and its stderr
 * (malloc'ed) in *err. */
static int run_cli_with(const char *const *args, int out_fd, rlim_t as_limit, char **err)
{
	char err_path[320];
	path_in_tmp(err_path, sizeof(err_path), "child-stderr");
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = {as_limit, as_limit};
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (e < 0 || dup2(out_fd, 1) < 0 || dup2(e, 2) < 0 ||
		    (as_limit && setrlimit(RLIMIT_AS, &lim) != 0))
			_exit(127);
		execv(TS_CLI_PATH, (char *const *)args);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	size_t len;
	*err = slurp(err_path, &len);
	unlink(err_path);
	int status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (status != 1)
		print_message("exit %d, stderr: %s\n", status, *err);
	return status;
}

/* 6. sim --list-workloads into a full device exited 1 without a word. */
static void test_list_workloads_write_error(void **state)
{
	(void)state;
	int full = open("/dev/full", O_WRONLY);
	if (full < 0)
		skip();
	char *err;
	int status = run_cli_with(ARGS(TS_CLI_PATH, "sim", "--list-workloads"), full, 0, &err);
	close(full);
	assert_int_equal(status, 1);
	assert_non_null(strstr(err, "toposched sim: error: writing to standard output failed"));
	free(err);
}

/* 5. Asymmetric matrices were refused; Linux builds NUMA levels from each node's row. The
 * 3-node ia64 shape: 17 one way, 14 the other. */
static void test_asymmetric_distance_accepted(void **state)
{
	(void)state;
	struct run r = ts_run_cli(ts_tmpdir,
				  ARGS("topo", "--topology", "node:3 core:2 pu:1", "--distance",
				       "10 17 17; 14 10 17; 17 17 10"),
				  120);
	if (r.status != 0)
		print_message("%s", r.err);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "numa levels (distances): 10 14 17"));
	run_free(&r);
}

/* 9. `topo --cpus ''` was accepted and showed nothing. */
static void test_topo_empty_cpus(void **state)
{
	(void)state;
	EXPECT_ERROR(2, ARGS("topo", "--cpus", ""), "--cpus ''", "selects no CPU");
}

/* 9. `--topology host` followed HWLOC_XMLFILE without saying so. */
static void test_host_names_hwloc_xmlfile(void **state)
{
	(void)state;
	char path[320];
	path_in_tmp(path, sizeof(path), "env.xml");
	/* an export of a preset, which hwloc reads back (test_hwloc checks the round trip) */
	struct ts_error err = {0};
	struct ts_topology *t = ts_preset_find("jacobsville")->build(&err);
	assert_non_null(t);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ts_topology_write_xml(t, f, &err), 0);
	assert_int_equal(fclose(f), 0);
	ts_topology_free(t);
	assert_int_equal(setenv("HWLOC_XMLFILE", path, 1), 0);
	struct run r = ts_run_cli(ts_tmpdir, ARGS("topo", "--topology", "host"), 120);
	unsetenv("HWLOC_XMLFILE");
	unlink(path);
	if (r.status != 0 || !strstr(r.out, "HWLOC_XMLFILE"))
		print_message("exit %d\nstdout: %.300s\nstderr: %s", r.status, r.out, r.err);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "this host as HWLOC_XMLFILE"));
	assert_non_null(strstr(r.out, "24 CPUs"));
	run_free(&r);
}

/* 9. A --distance entry too large to read was reported cut short ("is 999999"). */
static void test_distance_huge_entry_as_written(void **state)
{
	(void)state;
	EXPECT_ERROR(2,
		     ARGS("topo", "--topology", "node:2 core:1 pu:1", "--distance",
			  "10 99999999999999999999999; 20 10"),
		     "distance[0][1] is 99999999999999999999999", "11 to 254");
}

/* 9. The XML v3 refusal named hwloc 2.8 (its API version) with 2.9 installed. */
static void test_xml_v3_names_hwloc_version(void **state)
{
	(void)state;
	char path[320];
	path_in_tmp(path, sizeof(path), "v3.xml");
	write_file(path, "<?xml version=\"1.0\"?>\n<topology version=\"3.0\">\n"
			 "<object type=\"Machine\" os_index=\"0\"/>\n</topology>\n");
	EXPECT_ERROR(2, ARGS("topo", "--topology", path), "version 3.0",
		     "hwloc " HWLOC_VERSION ", which toposched was built with");
	unlink(path);
}

/* 9. `bench --cpus 5000` on a 2-CPU host spoke of a machine of 1024 CPUs (cpu_set_t's
 * size); the message names the list and the CPUs this process has. */
static void test_bench_cpus_beyond_the_host(void **state)
{
	(void)state;
	cpu_set_t set;
	CPU_ZERO(&set);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	struct run r = ts_run_cli(ts_tmpdir, ARGS("bench", "--cpus", "5000"), 120);
	if (r.status != 2 || strstr(r.err, "1024") || !strstr(r.err, "cannot run on"))
		print_message("exit %d\nstderr: %s", r.status, r.err);
	assert_int_equal(r.status, 2);
	assert_null(strstr(r.err, "1024 CPUs"));
	assert_non_null(strstr(r.err, "cpulist '5000' names a CPU this process cannot run on"));
	assert_non_null(strstr(r.err, "(its CPUs: "));
	run_free(&r);
}

/* 5. HWLOC_XMLFILE made `--topology host` hand an unchecked file to hwloc: a truncated
 * one crashed it (exit 139). It is now checked and isolated as an XML file, and named. */
static void test_host_hwloc_xmlfile_checked(void **state)
{
	(void)state;
	char path[320];
	path_in_tmp(path, sizeof(path), "env-truncated.xml");
	write_file(path, "<topology version=\"2.0");
	assert_int_equal(setenv("HWLOC_XMLFILE", path, 1), 0);
	EXPECT_ERROR(2, ARGS("topo", "--topology", "host"), "host (following HWLOC_XMLFILE",
		     "env-truncated.xml", "not a valid hwloc XML topology");
	unsetenv("HWLOC_XMLFILE");
	unlink(path);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TS_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TS_TEST_SANITIZED 1
#endif
#endif

/* 5. `topo` out of memory exited 2, as if its input were bad: it is a failure while
 * running (1). 100 MB of address space holds a 4096-CPU topology (it loads in 60 MB) but
 * not its domains (about 180 MB). */
static void test_topo_out_of_memory_exit_1(void **state)
{
	(void)state;
#ifdef TS_TEST_SANITIZED
	skip(); /* the sanitizers' shadow memory needs far more address space */
#endif
	int null = open("/dev/null", O_WRONLY);
	assert_true(null >= 0);
	char *err;
	int status = run_cli_with(
		ARGS(TS_CLI_PATH, "topo", "--topology", "pack:1 core:4096 pu:1", "--cpus", "0"),
		null, 100u << 20, &err);
	close(null);
	assert_int_equal(status, 1);
	assert_non_null(strstr(err, "toposched topo: error: "));
	assert_non_null(strstr(err, "out of memory"));
	free(err);
}

/* Files in dir whose name starts with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* 7. SIGQUIT and SIGUSR1 left the ".NAME.XXXXXX" temporary file beside the output. */
static void test_signals_remove_temporary(void **state)
{
	(void)state;
	const int sigs[] = {SIGQUIT, SIGUSR1, SIGINT};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		char out[320];
		path_in_tmp(out, sizeof(out), "report.txt");
		fflush(NULL);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 2);
			/* an hour of virtual time at 128 clients: it runs until signalled */
			execl(TS_CLI_PATH, TS_CLI_PATH, "sim", "--duration", "3600s", "--jobs", "1",
			      "--output", out, (char *)NULL);
			_exit(127);
		}
		/* The temporary file exists once the output is opened, before the run; the
		 * loop bound is a hang guard (the command prepares in milliseconds). */
		for (int tries = 0; tries < 6000 && count_prefixed(ts_tmpdir, ".report.txt.") == 0;
		     tries++)
			usleep(10000);
		assert_int_equal(count_prefixed(ts_tmpdir, ".report.txt."), 1);
		assert_int_equal(kill(pid, sigs[i]), 0);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i]);
		assert_int_equal(count_prefixed(ts_tmpdir, ".report.txt."), 0);
		assert_int_equal(access(out, F_OK), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_truncated),
		cmocka_unit_test(test_xml_hwloc_crash),
		cmocka_unit_test(test_xml_pu_without_os_index),
		cmocka_unit_test(test_topology_not_regular),
		cmocka_unit_test(test_synthetic_hex_size),
		cmocka_unit_test(test_sysfs_empty_online),
		cmocka_unit_test(test_sysfs_garbage_distance),
		cmocka_unit_test(test_sysfs_cpu_name_out_of_range),
		cmocka_unit_test(test_asymmetric_distance_accepted),
		cmocka_unit_test(test_topo_empty_cpus),
		cmocka_unit_test(test_host_names_hwloc_xmlfile),
		cmocka_unit_test(test_distance_huge_entry_as_written),
		cmocka_unit_test(test_xml_v3_names_hwloc_version),
		cmocka_unit_test(test_bench_cpus_beyond_the_host),
		cmocka_unit_test(test_host_hwloc_xmlfile_checked),
		cmocka_unit_test(test_topo_out_of_memory_exit_1),
		cmocka_unit_test(test_list_workloads_write_error),
		cmocka_unit_test(test_signals_remove_temporary),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
