/* Error reporting shared by every layer: a negative errno-style code plus one
 * human-readable message that names the input and what is wrong with it. */
#ifndef TOPOSCHED_ERROR_H
#define TOPOSCHED_ERROR_H

#include <stddef.h>

#define TS_ERR_MSG_MAX 512

struct ts_error {
	int code;		  /* 0 or a negative errno value */
	char msg[TS_ERR_MSG_MAX]; /* "" when code == 0 */
};

/* Records the first error only: later calls keep the original (root-cause) message.
 * Returns code, so that callers can write `return ts_error_set(err, -EINVAL, ...)`.
 * err may be NULL. */
int ts_error_set(struct ts_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefixes an already-set message with context ("topology 'x.xml': ..."). */
void ts_error_prefix(struct ts_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void ts_error_clear(struct ts_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

#endif
