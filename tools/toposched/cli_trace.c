/* --trace-point NAME/LOAD/ITER: one run of a sweep, named as the reports name it. */
#include "cli_trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "toposched/suggest.h"

static int find_config(const char *cmd, const char *text, const char *name,
		       const struct ts_experiment *e)
{
	const char *names[TS_EXP_MAX_CONFIGS];
	char list[TS_EXP_MAX_CONFIGS * 8] = "";
	size_t len = 0;
	for (int c = 0; c < e->nr_configs; c++) {
		if (strcmp(e->configs[c].name, name) == 0)
			return c;
		names[c] = e->configs[c].name;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						c ? ", " : "", names[c]);
	}
	const char *near = ts_suggest_name(name, names, e->nr_configs);
	if (near)
		cli_error(cmd, "--trace-point '%s': no configuration '%s'; did you mean '%s'?",
			  text, name, near);
	else
		cli_error(cmd, "--trace-point '%s': no configuration '%s' (the sweep has: %s)",
			  text, name, list);
	return -1;
}

static bool parse_number(const char *s, long *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	*out = strtol(s, &end, 10);
	return !errno && *end == '\0';
}

int cli_trace_point(const char *cmd, const char *text, struct ts_experiment *e)
{
	e->trace_config = 0;
	e->trace_load = 0;
	e->trace_iteration = 0;
	if (!text)
		return 0;
	char buf[256];
	if (strlen(text) >= sizeof(buf))
		return cli_error(cmd, "--trace-point '%.40s...': too long", text);
	strcpy(buf, text);
	char *load = strchr(buf, '/'), *iter = NULL;
	if (load) {
		*load++ = '\0';
		iter = strchr(load, '/');
		if (iter)
			*iter++ = '\0';
	}
	if (!buf[0])
		return cli_error(cmd,
				 "--trace-point '%s': expected NAME/LOAD/ITER, a configuration, "
				 "a load and an iteration (e.g. %s/%d/1)",
				 text, e->configs[0].name, e->loads[0]);
	int c = find_config(cmd, text, buf, e);
	if (c < 0)
		return CLI_EXIT_USAGE;
	e->trace_config = c;
	long v;
	if (load) {
		if (!parse_number(load, &v))
			return cli_error(cmd, "--trace-point '%s': the load '%s' is not a number",
					 text, load);
		int l = 0;
		while (l < e->nr_loads && e->loads[l] != v)
			l++;
		if (l == e->nr_loads)
			return cli_error(cmd,
					 "--trace-point '%s': load %ld is not one of the sweep's "
					 "(%d to %d, as --clients gives them)",
					 text, v, e->loads[0], e->loads[e->nr_loads - 1]);
		e->trace_load = l;
	}
	if (iter) {
		if (!parse_number(iter, &v) || v < 1 || v > e->iterations)
			return cli_error(
				cmd,
				"--trace-point '%s': the iteration '%s' is not one of 1 to "
				"%d (--iterations)",
				text, iter, e->iterations);
		e->trace_iteration = (int)v - 1;
	}
	return 0;
}
