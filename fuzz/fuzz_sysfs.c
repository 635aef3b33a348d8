/* libFuzzer target: a captured sysfs root, loaded as `--topology fsroot:DIR` is (checked
 * by sysfs_check.c, then read by hwloc's linux component in a child process and
 * converted); every topology that loads must satisfy the domain invariants
 * (fuzz_domains_check.h).
 *
 * The input is decoded into a small directory tree under one scratch directory per
 * process, rebuilt for every input. It is text: a line "@PATH" starts a file, the lines
 * up to the next "@" line are its contents. PATH is relative to the root, with two
 * shorthands: "cpu/..." and "node/..." stand for sys/devices/system/cpu/... and
 * sys/devices/system/node/.... For example
 *   @cpu/online
 *   0-1
 *   @node/node0/cpulist
 *   0-1
 *   @node/node0/distance
 *   10
 * Path components are letters, digits and "_.,:-" (never "." or ".."), so that nothing is
 * written outside the scratch directory. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "fuzz_domains_check.h"
#include "toposched/topology.h"

enum { MAX_FILES = 96, MAX_PATH_LEN = 200, MAX_INPUT = 16384 };

static bool component_ok(const char *s, size_t len)
{
	if (len == 0 || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_.,:-", c)))
			return false;
	}
	return true;
}

/* root/PATH for the "@PATH" line (len bytes at line + 1) in out, its parents created;
 * false when PATH is not acceptable or cannot be made. */
static bool make_path(const char *root, const char *name, size_t len, char *out, size_t size)
{
	const char *prefix = "";
	if (len >= 4 && memcmp(name, "cpu/", 4) == 0)
		prefix = "sys/devices/system/";
	else if (len >= 5 && memcmp(name, "node/", 5) == 0)
		prefix = "sys/devices/system/";
	if (len == 0 || len > MAX_PATH_LEN)
		return false;
	int n = snprintf(out, size, "%s/%s%.*s", root, prefix, (int)len, name);
	if (n < 0 || (size_t)n >= size)
		return false;
	char *rel = out + strlen(root) + 1;
	for (char *c = rel;;) {
		char *slash = strchr(c, '/');
		size_t clen = slash ? (size_t)(slash - c) : strlen(c);
		if (!component_ok(c, clen))
			return false;
		if (!slash)
			return true;
		*slash = '\0';
		bool ok = mkdir(out, 0700) == 0 || errno == EEXIST;
		*slash = '/';
		if (!ok)
			return false;
		c = slash + 1;
	}
}

static void write_tree(const char *root, const char *text, size_t size)
{
	const char *p = text, *end = text + size;
	int files = 0;
	while (p < end && files < MAX_FILES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		if (*p != '@') { /* text before the first file */
			p = nl ? nl + 1 : end;
			continue;
		}
		char path[4096];
		bool ok = make_path(root, p + 1, (size_t)(line_end - p - 1), path, sizeof(path));
		/* the contents: every line up to the next "@" line */
		const char *body = nl ? nl + 1 : end, *q = body;
		while (q < end && *q != '@') {
			const char *next = memchr(q, '\n', (size_t)(end - q));
			q = next ? next + 1 : end;
		}
		if (ok) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd >= 0) {
				ssize_t w = write(fd, body, (size_t)(q - body));
				(void)w;
				close(fd);
				files++;
			}
		}
		p = q;
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static char base[64], root[96];

static void remove_scratch(void)
{
	nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT) /* larger trees add nothing but time */
		return 0;
	if (!base[0]) {
		snprintf(base, sizeof(base), "/tmp/fuzz_sysfs.XXXXXX");
		if (!mkdtemp(base)) {
			base[0] = '\0';
			return 0;
		}
		snprintf(root, sizeof(root), "%s/root", base);
		atexit(remove_scratch);
	}
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (mkdir(root, 0700) != 0)
		return 0;
	write_tree(root, (const char *)data, size);

	char spec[128];
	snprintf(spec, sizeof(spec), "fsroot:%s", root);
	fuzz_check_load(spec);
	return 0;
}
