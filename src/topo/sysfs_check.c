/* A captured sysfs root (hwloc-gather-topology, or a copy of /sys) checked before hwloc
 * reads it. hwloc's linux component takes what it can and guesses the rest: an empty
 * cpu/online gives a one-CPU machine, a node distance file it cannot parse is dropped and
 * the 10/20 default takes its place, and a FIFO in the capture blocks the load. A capture
 * user means to simulate must be read as it is or refused, so the files that decide the
 * machine's shape are checked here and each problem is named with its file and line. */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "topo_build.h"

/* The files checked here are one line each; a larger one is not what sysfs writes. */
enum { SYSFS_FILE_MAX = 1 << 20 };

/* nftw() passes no context: one walk at a time (the load is not meant to be concurrent
 * with itself while hwloc's environment is pushed either). */
static _Thread_local struct {
	const char *label;
	struct ts_error *err;
	size_t root_len;
} walk;

static int check_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	struct stat target;
	const char *rel = path + walk.root_len;
	if (flag == FTW_DNR)
		return ts_error_set(walk.err, -EACCES, "%s: cannot read directory %s", walk.label,
				    rel);
	if (flag == FTW_SL || flag == FTW_SLN) {
		/* hwloc follows links; one leading to a device or FIFO would block the load. */
		if (stat(path, &target) != 0)
			return 0; /* dangling: hwloc finds nothing there, as on a real system */
		st = &target;
	}
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
		return 0;
	return ts_error_set(walk.err, -EINVAL,
			    "%s: %s is %s; a capture holds only files and directories", walk.label,
			    rel,
			    S_ISFIFO(st->st_mode)  ? "a FIFO"
			    : S_ISCHR(st->st_mode) ? "a character device"
			    : S_ISBLK(st->st_mode) ? "a block device"
						   : "a socket");
}

/* Reads root/rel when it exists: 1 and *text on success, 0 when absent, < 0 on error. */
static int read_optional(const char *label, const char *root, const char *rel, char **text,
			 struct ts_error *err)
{
	char path[4096], what[4400];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	struct stat st;
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return 0;
	snprintf(what, sizeof(what), "%s: %s", label, rel);
	size_t len;
	int rc = ts_read_input_file(what, path, SYSFS_FILE_MAX, text, &len, err);
	return rc ? rc : 1;
}

/* A one-line cpulist or nodelist file ("0-3,8"); empty only where allow_empty. */
static int check_list_file(const char *label, const char *root, const char *rel, bool allow_empty,
			   struct ts_error *err)
{
	char *text = NULL;
	int rc = read_optional(label, root, rel, &text, err);
	if (rc <= 0)
		return rc;
	rc = 0;
	char *nl = strchr(text, '\n');
	if (nl && nl[1] != '\0')
		rc = ts_error_set(err, -EINVAL,
				  "%s: %s: line 2: more than one line (sysfs writes one list)",
				  label, rel);
	if (nl)
		*nl = '\0';
	struct ts_cpumask *m = rc ? NULL : ts_cpumask_alloc(TS_MAX_CPUS);
	struct ts_error perr = {0};
	if (rc == 0 && !m)
		rc = ts_error_set(err, -ENOMEM, "%s: out of memory", label);
	else if (rc == 0 && ts_cpumask_parse(m, text, &perr) != 0)
		rc = ts_error_set(err, -EINVAL, "%s: %s: line 1: not a CPU list: %s", label, rel,
				  perr.msg);
	else if (rc == 0 && !allow_empty && ts_cpumask_empty(m))
		rc = ts_error_set(err, -EINVAL,
				  "%s: %s: line 1: empty; it must list at least one CPU or node",
				  label, rel);
	ts_cpumask_free(m);
	free(text);
	return rc;
}

static int count_nodes(const char *root, int *nr)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sys/devices/system/node", root);
	*nr = 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int max = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, "node", 4) != 0 || e->d_name[4] < '0' || e->d_name[4] > '9')
			continue;
		long n = strtol(e->d_name + 4, &end, 10);
		if (*end == '\0' && n < TS_MAX_NODES && n > max)
			max = (int)n;
		(*nr)++;
	}
	closedir(d);
	return max;
}

/* nodeN/distance: one line of nr_nodes numbers, the SLIT row of node N. */
static int check_distance_file(const char *label, const char *root, int node, int nr_nodes,
			       struct ts_error *err)
{
	char rel[96], *text = NULL;
	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/distance", node);
	int rc = read_optional(label, root, rel, &text, err);
	if (rc <= 0)
		return rc;
	rc = 0;
	int entries = 0, line = 1;
	for (char *p = text; *p && rc == 0;) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '\n') {
			line++;
			p++;
			if (*p && entries > 0)
				rc = ts_error_set(err, -EINVAL,
						  "%s: %s: line %d: more than one line (sysfs "
						  "writes the row on one)",
						  label, rel, line);
			continue;
		}
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\n') ||
		    errno == ERANGE || v < 0) {
			int n = 0;
			while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n' && n < 20)
				n++;
			rc = ts_error_set(err, -EINVAL,
					  "%s: %s: line %d: entry %d '%.*s' is not a distance",
					  label, rel, line, entries + 1, n, p);
			break;
		}
		entries++;
		p = end;
	}
	if (rc == 0 && entries != nr_nodes)
		rc = ts_error_set(err, -EINVAL,
				  "%s: %s: line 1: %d entries, but the capture has %d node(s) (one "
				  "distance per node)",
				  label, rel, entries, nr_nodes);
	free(text);
	return rc;
}

/* hwloc's linux component takes every entry of dir whose name starts with prefix ("cpu",
 * "node") for an object and reads its number with strtoul(name + strlen(prefix), NULL,
 * 0), then sets that bit in a bitmap: "cpu-2" is CPU 2^64-2 to it, and sizing the bitmap
 * took seconds and gigabytes (found by fuzz_sysfs). Names like "cpufreq" read as 0 and are
 * harmless; a number at or above max is refused. */
static int check_index_names(const char *label, const char *root, const char *dir,
			     const char *prefix, unsigned long max, struct ts_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", root, dir);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	size_t len = strlen(prefix);
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, len) != 0)
			continue;
		errno = 0;
		unsigned long n = strtoul(e->d_name + len, NULL, 0);
		if (errno == ERANGE || n >= max)
			rc = ts_error_set(err, -EINVAL,
					  "%s: %s/%.64s: hwloc reads this name as %s number %s%lu, "
					  "beyond the %lu supported",
					  label, dir, e->d_name, prefix, errno == ERANGE ? ">" : "",
					  n, max);
	}
	closedir(d);
	return rc;
}

int ts_sysfs_capture_check(const char *label, const char *root, struct ts_error *err)
{
	walk.label = label;
	walk.err = err;
	walk.root_len = strlen(root);
	while (walk.root_len > 1 && root[walk.root_len - 1] == '/')
		walk.root_len--;
	walk.root_len++; /* the '/' after the root */
	int rc = nftw(root, check_entry, 32, FTW_PHYS);
	if (rc > 0 || (rc < 0 && err && err->code))
		return err ? err->code : -EINVAL;
	if (rc < 0)
		return ts_error_set(err, -errno, "%s: cannot walk the capture: %s", label,
				    strerror(errno));

	if ((rc = check_index_names(label, root, "sys/devices/system/cpu", "cpu", TS_MAX_CPUS,
				    err)) < 0 ||
	    (rc = check_index_names(label, root, "sys/devices/system/node", "node", TS_MAX_NODES,
				    err)) < 0)
		return rc;
	static const char *const lists[] = {
		"sys/devices/system/cpu/online",    "sys/devices/system/cpu/present",
		"sys/devices/system/cpu/possible",  "sys/devices/system/node/online",
		"sys/devices/system/node/possible",
	};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if ((rc = check_list_file(label, root, lists[i], false, err)) < 0)
			return rc;
	int nr_nodes;
	int max_node = count_nodes(root, &nr_nodes);
	char rel[96];
	for (int n = 0; n <= max_node; n++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/cpulist", n);
		if ((rc = check_list_file(label, root, rel, true, err)) < 0 ||
		    (rc = check_distance_file(label, root, n, nr_nodes, err)) < 0)
			return rc;
	}
	return 0;
}
