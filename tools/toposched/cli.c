#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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

int cli_flush_stdout(const char *cmd)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "toposched %s: error: writing to standard output failed: %s\n", cmd,
		strerror(errno ? errno : EIO));
	return CLI_EXIT_FAILURE;
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

int cli_load_topology(const char *cmd, const char *spec, const char *distance,
		      struct ts_topology **out)
{
	struct ts_error err = {0};
	if (ts_topology_load(spec, out, &err)) {
		cli_error(cmd, "%s", err.msg);
		/* out of memory is a failure while running, not bad input */
		return err.code == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	if (distance && ts_topology_parse_distance(*out, distance, &err)) {
		ts_topology_free(*out);
		*out = NULL;
		cli_error(cmd, "--distance: %s", err.msg);
		return err.code == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	return 0;
}
