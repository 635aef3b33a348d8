/* libFuzzer target: the reader of shard parts, ts_exp_merge_parts() (toposched merge
 * PART.json...), on arbitrary bytes. The input is up to FUZZ_MAX_PARTS parts separated by
 * NUL bytes, each written to its own scratch file, merged as if written by toposched
 * "fuzz" (the seeds carry that version). Never crashes or hangs; a refusal has its code
 * in the error and a message; a merged experiment is well formed (configurations, loads,
 * iterations within the format's limits, a point for each (configuration, load), its
 * warnings single lines) and its JSON report is written (the writer on whatever names
 * and numbers the parts held). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "toposched/experiment_part.h"

#define FUZZ_MAX_PARTS 3
#define FUZZ_VERSION   "fuzz"

static void check_merged(const struct ts_exp_merge *m)
{
	const struct ts_experiment *e = ts_exp_merge_experiment(m);
	CHECK(e->nr_configs >= 1 && e->nr_configs <= TS_EXP_MAX_CONFIGS);
	CHECK(e->nr_loads >= 1 && e->nr_loads <= TS_EXP_MAX_LOADS);
	CHECK(e->iterations >= 1 && e->iterations <= TS_EXP_MAX_ITERATIONS);
	CHECK(e->points && e->base.topo && e->base.workload && e->base.workload->name);
	for (int c = 0; c < e->nr_configs; c++)
		for (int l = 0; l < e->nr_loads; l++)
			CHECK(ts_experiment_point(e, c, l)->n == e->iterations);
	const char *const *warnings;
	int nr = ts_exp_merge_warnings(m, &warnings);
	CHECK(nr >= 0 && nr <= TS_EXP_PART_MAX_WARNINGS);
	for (int i = 0; i < nr; i++) { /* one line each: merge prints them */
		size_t n = strlen(warnings[i]);
		CHECK(n >= 1 && n < TS_EXP_PART_WARNING_MAX);
		for (size_t k = 0; k < n; k++)
			CHECK((unsigned char)warnings[i][k] >= 0x20 && warnings[i][k] != 0x7f);
	}
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		return;
	int rc = ts_exp_write_json(e, out);
	CHECK(rc == 0 || rc == -ENOMEM);
	fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[FUZZ_MAX_PARTS][64];
	const char *paths[FUZZ_MAX_PARTS];
	int nr = 0;
	size_t start = 0;
	while (nr < FUZZ_MAX_PARTS && start <= size) {
		const uint8_t *nul = memchr(data + start, '\0', size - start);
		size_t end = nul ? (size_t)(nul - data) : size;
		if (!path[nr][0])
			snprintf(path[nr], sizeof(path[nr]), "/tmp/fuzz_part.%ld.%d.json",
				 (long)getpid(), nr);
		FILE *f = fopen(path[nr], "wb");
		if (!f)
			return 0;
		size_t wrote = fwrite(data + start, 1, end - start, f);
		if (fclose(f) != 0 || wrote != end - start)
			return 0;
		paths[nr] = path[nr];
		nr++;
		if (!nul)
			break;
		start = end + 1;
	}

	struct ts_exp_merge *m = NULL;
	struct ts_error err = {0};
	int rc = ts_exp_merge_parts(paths, nr, FUZZ_VERSION, &m, &err);
	if (rc) {
		CHECK(rc < 0 && err.code == rc && err.msg[0] && !m);
	} else {
		CHECK(m && err.code == 0);
		check_merged(m);
		ts_exp_merge_free(m);
	}
	for (int i = 0; i < nr; i++)
		unlink(paths[i]);
	return 0;
}
