/* libFuzzer target: ts_features_parse() on arbitrary text applied to the defaults.
 * Never crashes; on error *inout is unchanged and the message names an offset; on
 * success only known bits change and format -> parse gives the same mask back from
 * any starting set. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "toposched/features.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return 0;

	const uint64_t known = (UINT64_C(1) << TS_FEAT_NR) - 1;
	const struct ts_features def = ts_features_default();
	struct ts_features f = def;
	struct ts_error err = {0};
	int rc = ts_features_parse(text, &f, &err);
	if (rc) {
		CHECK(rc == -EINVAL && err.code == rc);
		CHECK(f.mask == def.mask);
		CHECK(strstr(err.msg, " at offset ") != NULL);
	} else {
		CHECK(err.code == 0 && err.msg[0] == '\0');
		CHECK((f.mask & ~known) == 0);
		char buf[TS_FEATURES_STR_MAX];
		int n = ts_features_format(f, buf, sizeof(buf));
		CHECK(n > 0 && (size_t)n < sizeof(buf) && strlen(buf) == (size_t)n);
		const uint64_t starts[] = {def.mask, 0, known, ~def.mask};
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
			struct ts_features g = {starts[i]};
			CHECK(ts_features_parse(buf, &g, NULL) == 0);
			CHECK((g.mask & known) == f.mask);
			CHECK((g.mask & ~known) == (starts[i] & ~known));
		}
	}
	free(text);
	return 0;
}
