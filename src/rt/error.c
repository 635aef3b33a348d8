/* ts_rt_last_error(): the message of the last error, kept per task (a task moves between
 * threads) or per plain thread. */
#include "rt_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char thread_err[TS_ERR_MSG_MAX];

static char *err_buf(size_t *size)
{
	struct rt_task *t = rt_current();
	*size = t ? sizeof(t->err) : sizeof(thread_err);
	return t ? t->err : thread_err;
}

int rt_error(int code, const char *fmt, ...)
{
	size_t size;
	char *buf = err_buf(&size);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	errno = -code;
	return code;
}

void rt_error_clear(void)
{
	size_t size;
	err_buf(&size)[0] = '\0';
}

const char *ts_rt_last_error(void)
{
	size_t size;
	return err_buf(&size);
}
