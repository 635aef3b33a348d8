#include "toposched/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ts_error_set(struct ts_error *err, int code, const char *fmt, ...)
{
	if (!err || err->code != 0)
		return code;
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void ts_error_prefix(struct ts_error *err, const char *fmt, ...)
{
	if (!err || err->code == 0)
		return;
	char prefix[TS_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	char joined[TS_ERR_MSG_MAX];
	/* A message too long for the buffer is cut; the prefix (the input's name) stays. */
	if (snprintf(joined, sizeof(joined), "%s: %s", prefix, err->msg) >= (int)sizeof(joined))
		joined[sizeof(joined) - 1] = '\0';
	memcpy(err->msg, joined, sizeof(err->msg));
}
