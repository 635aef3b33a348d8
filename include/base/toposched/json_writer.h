/* The project's one JSON writer, over json-c (the library that reads rt-app files and
 * shard parts): the calls below build a json-c tree in the order they are made, and
 * closing the outermost object or array serialises it with json-c's pretty printer
 * (two-space indentation, one item per line, keys in the order written) and ends the
 * line. Every report and CLI command that prints JSON uses it, so that all escaping,
 * number and string formatting and whitespace come from json-c.
 *
 * The streaming shape (begin, key, value, end) is kept because it lets a report be written
 * top to bottom in the order of its schema; the tree lives only until the document closes.
 * A double is printed as "%.<precision>g" (docs/sim-json.md and docs/topo-json.md fix
 * the precision) through json_object_new_double_s(), not json-c's own double format,
 * which appends ".0" to whole numbers; the '/' of a string is not escaped
 * (JSON_C_TO_STRING_NOSLASHESCAPE). */
#ifndef TOPOSCHED_JSON_WRITER_H
#define TOPOSCHED_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/* Nesting deeper than json-c's parser reads by default (JSON_TOKENER_DEFAULT_DEPTH) would
 * write a document that the project could not read back. */
#define TS_JSON_MAX_DEPTH 32

struct ts_json_writer {
	FILE *out;
	int precision; /* significant digits of ts_json_double() */
	int error;     /* the first failure (-ENOMEM, -EINVAL), or 0 */
	int depth;     /* objects and arrays open */
	struct json_object *root;
	struct json_object *open[TS_JSON_MAX_DEPTH]; /* [depth - 1] is the innermost */
	char *key;				     /* a copy of the last key written */
	size_t key_size;			     /* bytes allocated for key */
	bool has_key;				     /* key waits for its value */
};

/* precision: significant digits of every double ("%.<precision>g"). */
void ts_json_init(struct ts_json_writer *w, FILE *out, int precision);
/* A document is one object or array. Closing the outermost writes it to out and ends the
 * line; it returns 0, or the writer's first failure (then nothing is written): -ENOMEM,
 * or -EINVAL for a misuse (a value in an object without its key, a bare value outside
 * any container, nesting deeper than TS_JSON_MAX_DEPTH, a close with nothing open).
 * Inner closes return 0. */
void ts_json_begin_object(struct ts_json_writer *w);
int ts_json_end_object(struct ts_json_writer *w);
void ts_json_begin_array(struct ts_json_writer *w);
int ts_json_end_array(struct ts_json_writer *w);
/* Frees a document left unfinished (an error path that stops writing half-way); nothing
 * is written. The writer may be initialised again. */
void ts_json_discard(struct ts_json_writer *w);
/* The next value (or object, or array) is this key's; the key is copied. */
void ts_json_key(struct ts_json_writer *w, const char *key);
void ts_json_string(struct ts_json_writer *w, const char *s);
void ts_json_int(struct ts_json_writer *w, long long v);
void ts_json_uint(struct ts_json_writer *w, uint64_t v);
/* null when v is not finite; never "-0" */
void ts_json_double(struct ts_json_writer *w, double v);
void ts_json_bool(struct ts_json_writer *w, bool v);
void ts_json_null(struct ts_json_writer *w);

/* A member: key, then the value. key NULL writes the bare value (an array element), so
 * one helper serves objects and arrays. */
void ts_json_member_string(struct ts_json_writer *w, const char *key, const char *s);
void ts_json_member_int(struct ts_json_writer *w, const char *key, long long v);
void ts_json_member_uint(struct ts_json_writer *w, const char *key, uint64_t v);
void ts_json_member_double(struct ts_json_writer *w, const char *key, double v);
void ts_json_member_bool(struct ts_json_writer *w, const char *key, bool v);
void ts_json_member_null(struct ts_json_writer *w, const char *key);

#endif
