/* The library's version, fixed when it is built (toposched/version.h). */
#include "toposched/version.h"

const char *ts_version(void)
{
	return TOPOSCHED_VERSION_STRING;
}
