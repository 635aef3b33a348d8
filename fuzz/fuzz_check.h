/* What every libFuzzer target here shares: the entry point's prototype and CHECK(), an
 * invariant that aborts (so libFuzzer keeps the input) instead of asserting (compiled out
 * in some builds). */
#ifndef TOPOSCHED_FUZZ_CHECK_H
#define TOPOSCHED_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			abort();                                                                   \
	} while (0)

/* The input as a C string (malloc'ed, NUL-terminated; parsing stops at the first NUL, as
 * for any C string), or NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
	}
	return text;
}

#endif
