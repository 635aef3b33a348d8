/* What every libFuzzer target here shares: the entry point's prototype and CHECK(), an
 * invariant that aborts (so libFuzzer keeps the input) instead of asserting (compiled out
 * in some builds). */
#ifndef TOPOSCHED_FUZZ_CHECK_H
#define TOPOSCHED_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

#endif
