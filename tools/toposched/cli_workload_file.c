#include "cli_workload_file.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "toposched/experiment.h"
#include "toposched/rtapp.h"
#include "toposched/suggest.h"

#ifndef TS_WORKLOADS_SRC_DIR
#define TS_WORKLOADS_SRC_DIR ""
#endif
#define WORKLOADS_SUBDIR "share/toposched/workloads"
#define MAX_FILES	 256

/* The shipped files' directory: next to the installed binary (<prefix>/bin/../share/...),
 * else the source tree's (a build tree's binary). "" when neither exists. */
static const char *workloads_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%.*s/../%s", PATH_MAX - 64, exe,
				 WORKLOADS_SUBDIR);
			if (access(dir, R_OK | X_OK) == 0)
				return dir;
		}
	}
	snprintf(dir, sizeof(dir), "%s", TS_WORKLOADS_SRC_DIR);
	return dir[0] && access(dir, R_OK | X_OK) == 0 ? dir : "";
}

static bool is_json(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shipped files' names without ".json", sorted (malloc'd; *n of them). */
static char **shipped_names(int *n)
{
	*n = 0;
	const char *dir = workloads_dir();
	DIR *d = dir[0] ? opendir(dir) : NULL;
	if (!d)
		return NULL;
	char **names = calloc(MAX_FILES, sizeof(*names));
	struct dirent *e;
	while (names && *n < MAX_FILES && (e = readdir(d)))
		if (is_json(e->d_name) && (names[*n] = strndup(e->d_name, strlen(e->d_name) - 5)))
			(*n)++;
	closedir(d);
	if (names)
		qsort(names, (size_t)*n, sizeof(*names), by_name);
	return names;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The name a file's workload takes: its base name without ".json". */
static void base_name(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	size_t n = strlen(name); /* a longer name is cut: it only labels the reports */
	if (n >= size)
		n = size - 1;
	memcpy(out, name, n);
	out[n] = '\0';
	if (is_json(out))
		out[strlen(out) - 5] = '\0';
}

static int load_file(const char *cmd, const char *path, bool quiet, struct ts_sim_rtapp **file)
{
	struct ts_error err = {0};
	struct ts_rtapp *r;
	if (ts_rtapp_load(path, &r, &err))
		return cli_error(cmd, "--workload: %s", err.msg);
	for (int i = 0; i < r->nr_warnings && !quiet; i++)
		fprintf(stderr, "toposched %s: warning: %s\n", cmd, r->warnings[i]);
	char name[256];
	base_name(path, name, sizeof(name));
	int rc = ts_sim_rtapp_build(r, name, file, &err);
	ts_rtapp_free(r);
	if (rc)
		return cli_error(cmd, "--workload: %s", err.msg);
	for (int i = 0; i < (*file)->nr_notes && !quiet; i++)
		fprintf(stderr, "toposched %s: note: %s: %s\n", cmd, path, (*file)->notes[i]);
	return 0;
}

int cli_workload_open(const char *cmd, const char *text, const struct ts_workload **out,
		      struct ts_sim_rtapp **file)
{
	*file = NULL;
	if ((*out = ts_workload_find(text)))
		return 0;
	if (strchr(text, '/') || is_json(text)) {
		if (load_file(cmd, text, false, file))
			return CLI_EXIT_USAGE;
		*out = &(*file)->w;
		return 0;
	}
	int n;
	char **names = shipped_names(&n);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], text) == 0) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/%s.json", workloads_dir(), text);
			free_names(names, n);
			if (load_file(cmd, path, false, file))
				return CLI_EXIT_USAGE;
			*out = &(*file)->w;
			return 0;
		}
	int nb;
	const struct ts_workload *w = ts_workload_list(&nb);
	char list[1024] = "";
	const char *cand[128];
	int nr = 0;
	size_t len = 0;
	for (int i = 0; i < nb + n; i++) {
		const char *name = i < nb ? w[i].name : names[i - nb];
		if (nr < (int)(sizeof(cand) / sizeof(cand[0])))
			cand[nr++] = name;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						i ? ", " : "", name);
	}
	const char *near = ts_suggest_name(text, cand, nr);
	char hint[160] = "";
	if (near)
		snprintf(hint, sizeof(hint), "; did you mean '%s'?", near);
	int rc = cli_error(cmd,
			   "--workload '%s': unknown workload%s (built in: %s; or the path of an "
			   "rt-app .json file)",
			   text, hint, list);
	free_names(names, n);
	return rc;
}

void cli_workload_list_files(FILE *out, int pass, int *name_w, int *load_w, int *metric_w)
{
	int n;
	char **names = shipped_names(&n);
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX], metric[128], desc[256];
		snprintf(path, sizeof(path), "%s/%s.json", workloads_dir(), names[i]);
		struct ts_sim_rtapp *file = NULL;
		const struct ts_workload *w = NULL;
		if (load_file("sim", path, true, &file) == 0)
			w = &file->w;
		snprintf(metric, sizeof(metric), "%s (%s, %s is better)", w ? w->metric_name : "-",
			 w ? w->unit : "-",
			 w && !ts_metric_higher_is_better(w->metric) ? "lower" : "higher");
		snprintf(desc, sizeof(desc), "file %s.json%s", names[i],
			 w ? "" : " (cannot run in the simulator)");
		if (pass == 0) {
			int l = (int)strlen(names[i]);
			*name_w = l > *name_w ? l : *name_w;
			*load_w = *load_w > 6 ? *load_w : 6;
			*metric_w =
				(int)strlen(metric) > *metric_w ? (int)strlen(metric) : *metric_w;
		} else {
			fprintf(out, "%-*s  %-*s  %-*s  %s\n", *name_w, names[i], *load_w,
				w ? w->load_name : "-", *metric_w, metric, desc);
		}
		ts_sim_rtapp_free(file);
	}
	free_names(names, n);
}
