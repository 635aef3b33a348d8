/* "Did you mean": the known name nearest to a mistyped one, for the messages of bad
 * input (machines, workloads, features, configurations). */
#ifndef TOPOSCHED_SUGGEST_H
#define TOPOSCHED_SUGGEST_H

#include <stddef.h>

/* Optimal string alignment distance (Levenshtein plus adjacent transpositions), ASCII
 * letters compared without case; SIZE_MAX when either string is longer than
 * TS_SUGGEST_MAX_LEN. */
#define TS_SUGGEST_MAX_LEN 64
size_t ts_edit_distance(const char *a, const char *b);

/* The name of names[0..n) nearest to word, when it is near enough to be a typo: at most
 * one edit for words of up to 4 characters, then one more per 4 characters (at most 3);
 * the first of equally near ones. NULL when none is (or word is one of them exactly). */
const char *ts_suggest_name(const char *word, const char *const *names, int n);

#endif
