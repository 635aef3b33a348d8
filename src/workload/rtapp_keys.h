/* Where each key of an rt-app file is, and rt-app's doc/workgen renaming of repeated keys.
 * json-c keeps no positions and, given a key twice in one object, keeps only the last
 * value; this scanner walks the text once (strings, C comments, nesting, as json-c's
 * tokener reads them), renames each repeated key as workgen does (the first free "KEY<n>",
 * n counting from 1 per object), and records every key's line under its path. */
#ifndef TS_WORKLOAD_RTAPP_KEYS_H
#define TS_WORKLOAD_RTAPP_KEYS_H

#include <stddef.h>

/* A key's path: the keys from the root down, separated by RTAPP_PATH_SEP; an array element
 * is "#<index>". */
#define RTAPP_PATH_SEP '\x1f'

struct rtapp_key {
	char *path;
	int line;
};

struct rtapp_keys {
	char *text; /* the input with repeated keys renamed (NUL-terminated) */
	size_t len;
	struct rtapp_key *keys;
	int nr_keys, cap;
	int renamed; /* how many keys were renamed */
};

/* 0, or -ENOMEM. Malformed text is scanned as far as it goes (json-c reports the error);
 * the text must hold no NUL byte (the caller refuses it). */
int rtapp_keys_scan(const char *in, size_t len, struct rtapp_keys *out);
/* The line of the key at path (components joined by RTAPP_PATH_SEP), 0 if unknown. */
int rtapp_keys_line(const struct rtapp_keys *k, const char *path);
/* The 1-based line of byte offset off of text. */
int rtapp_line_at(const char *text, size_t len, size_t off);
void rtapp_keys_free(struct rtapp_keys *k);

#endif
