/* Did-you-mean suggestions: edit distance between a typed name and the known ones. */
#include "toposched/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

size_t ts_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > TS_SUGGEST_MAX_LEN || lb > TS_SUGGEST_MAX_LEN)
		return SIZE_MAX;
	/* d[i][j]: distance of a's first i and b's first j characters */
	size_t d[TS_SUGGEST_MAX_LEN + 1][TS_SUGGEST_MAX_LEN + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *ts_suggest_name(const char *word, const char *const *names, int n)
{
	size_t len = strlen(word);
	size_t limit = len <= 4 ? 1 : (len + 3) / 4;
	if (limit > 3)
		limit = 3;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (int i = 0; i < n; i++) {
		if (!names[i])
			continue;
		if (strcmp(word, names[i]) == 0)
			return NULL;
		size_t dist = ts_edit_distance(word, names[i]);
		if (dist <= limit && dist < best_d) {
			best = names[i];
			best_d = dist;
		}
	}
	return best;
}
