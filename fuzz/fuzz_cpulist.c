/* libFuzzer target: ts_cpumask_parse() on arbitrary bytes, for masks of several sizes.
 * A failed parse must leave the mask untouched and explain itself; a successful one must
 * respect nr_cpus and survive format -> parse unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "toposched/cpumask.h"

/* Word-boundary sizes and the maximum: off-by-one errors live at 63/64/65. */
static const int sizes[] = {0, 1, 8, 64, 65, 130, TS_MAX_CPUS};

static void check(int nr_cpus, const char *text)
{
	struct ts_cpumask *m = ts_cpumask_alloc(nr_cpus);
	struct ts_cpumask *before = ts_cpumask_alloc(nr_cpus);
	if (!m || !before)
		abort();
	if (nr_cpus > 0) { /* a pattern that an erroneous partial write would disturb */
		ts_cpumask_set(m, nr_cpus - 1);
		ts_cpumask_set(m, nr_cpus / 2);
	}
	ts_cpumask_copy(before, m);
	struct ts_error err = {0};
	int rc = ts_cpumask_parse(m, text, &err);
	if (rc) {
		if (rc > 0 || err.code != rc || err.msg[0] == '\0' || !ts_cpumask_equal(m, before))
			abort();
	} else {
		int r = nr_cpus & 63;
		if (r && (m->bits[ts_cpumask_words(nr_cpus) - 1] >> r) != 0)
			abort(); /* bits past nr_cpus */
		char *s = ts_cpumask_to_string(m);
		struct ts_cpumask *back = ts_cpumask_alloc(nr_cpus);
		if (!s || !back)
			abort();
		if (ts_cpumask_format(m, NULL, 0) != strlen(s))
			abort();
		struct ts_error err2 = {0};
		if (ts_cpumask_parse(back, s, &err2) != 0 || !ts_cpumask_equal(back, m))
			abort(); /* format -> parse must be the identity */
		free(s);
		ts_cpumask_free(back);
	}
	ts_cpumask_free(before);
	ts_cpumask_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096) /* long inputs add nothing but time */
		return 0;
	char *text = fuzz_text(data, size);
	if (!text)
		return 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check(sizes[i], text);
	free(text);
	return 0;
}
