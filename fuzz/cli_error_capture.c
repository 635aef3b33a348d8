#include "cli_error_capture.h"

#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int cli_error_count;
char cli_error_msg[8192];

void cli_error_capture_reset(void)
{
	cli_error_count = 0;
	cli_error_msg[0] = '\0';
}

int cli_error(const char *cmd, const char *fmt, ...)
{
	int n = snprintf(cli_error_msg, sizeof(cli_error_msg), "toposched %s: error: ", cmd);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cli_error_msg + n, sizeof(cli_error_msg) - (size_t)n, fmt, ap);
	va_end(ap);
	cli_error_count++;
	return CLI_EXIT_USAGE;
}
