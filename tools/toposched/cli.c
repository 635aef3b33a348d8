#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_error(const char *cmd, const char *fmt, ...)
{
	fprintf(stderr, "toposched %s: error: ", cmd);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_USAGE;
}

int cli_getopt_error(const char *cmd, int opt, char *const argv[])
{
	/* For a short option, grouped ones included ("-xy"), getopt names it in optopt;
	 * argv[optind - 1] is only reliable for long options. */
	const char *arg = argv[optind - 1];
	char short_name[3] = {'-', (char)optopt, '\0'};
	if (optopt > 0 && strncmp(arg, "--", 2) != 0)
		arg = short_name;
	if (opt == ':')
		return cli_error(cmd, "option '%s' needs a value (see 'toposched %s --help')", arg,
				 cmd);
	return cli_error(cmd, "unknown option '%s' (see 'toposched %s --help')", arg, cmd);
}

int cli_parse_int(const char *cmd, const char *option, const char *text, long min, long max,
		  long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || end == text || *end != '\0')
		return cli_error(cmd, "%s '%s': not an integer", option, text);
	if (v < min || v > max)
		return cli_error(cmd, "%s %ld: must be between %ld and %ld", option, v, min, max);
	*out = v;
	return 0;
}

int cli_parse_format(const char *cmd, const char *text, enum cli_format *out)
{
	if (strcmp(text, "text") == 0)
		*out = CLI_FORMAT_TEXT;
	else if (strcmp(text, "json") == 0)
		*out = CLI_FORMAT_JSON;
	else
		return cli_error(cmd, "--format '%s': unknown (choose text or json)", text);
	return 0;
}

int cli_load_topology(const char *cmd, const char *spec, const char *distance,
		      struct ts_topology **out)
{
	struct ts_error err = {0};
	if (ts_topology_load(spec, out, &err))
		return cli_error(cmd, "%s", err.msg);
	if (distance && ts_topology_parse_distance(*out, distance, &err)) {
		ts_topology_free(*out);
		*out = NULL;
		return cli_error(cmd, "--distance: %s", err.msg);
	}
	return 0;
}
