/* --shard K/N and the version a part carries. */
#include "cli_shard.h"

#include <ctype.h>
#include <stdio.h>

#include "cli.h"
#include "git_version.h" /* TS_GIT_DESCRIBE, generated at build time */
#include "toposched/experiment.h"

/* A decimal of 1 to TS_EXP_MAX_RUNS between text and end, digits only. */
static int shard_number(const char *text, const char *end, long *out)
{
	if (text == end || end - text > 9)
		return -1;
	long v = 0;
	for (const char *p = text; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return v >= 1 && v <= TS_EXP_MAX_RUNS ? 0 : -1;
}

int cli_parse_shard(const char *cmd, const char *text, int *shard, int *nr_shards)
{
	const char *slash = text;
	while (*slash && *slash != '/')
		slash++;
	long k, n;
	const char *end = slash;
	while (*end)
		end++;
	if (!*slash || shard_number(text, slash, &k) || shard_number(slash + 1, end, &n))
		return cli_error(cmd,
				 "--shard '%s': expected K/N, the K-th of N shards, 1 <= K <= N "
				 "<= %d (e.g. 1/4)",
				 text, TS_EXP_MAX_RUNS);
	if (k > n)
		return cli_error(cmd, "--shard '%s': shard %ld of %ld does not exist (1 to %ld)",
				 text, k, n, n);
	*shard = (int)k - 1;
	*nr_shards = (int)n;
	return 0;
}

const char *cli_shard_version(void)
{
	static char buf[160];
	if (TS_GIT_DESCRIBE[0])
		snprintf(buf, sizeof(buf), "%s (git %s)", TS_PROJECT_VERSION, TS_GIT_DESCRIBE);
	else
		snprintf(buf, sizeof(buf), "%s", TS_PROJECT_VERSION);
	return buf;
}
