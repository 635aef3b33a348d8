/* The project's one JSON writer: streaming (nothing is built in memory), two-space
 * indentation, one item per line, keys in the order written, so that the same data
 * gives the same bytes. Every report and CLI command that prints JSON uses it.
 *
 * A hand-written writer rather than jansson or json-c: both print a whole-number real
 * with ".0" appended (100 -> "100.0"), jansson drops the '+' and leading zeros of an
 * exponent ("1e+20" -> "1e20") and holds integers as signed 64-bit (a uint64_t seed
 * above INT64_MAX does not fit), and json-c escapes '/' by default; the documented
 * schemas (docs/sim-json.md, docs/topo-json.md) print numbers with printf's "%.Ng". */
#ifndef TOPOSCHED_JSON_WRITER_H
#define TOPOSCHED_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ts_json_writer {
	FILE *out;
	int depth;
	int precision;	/* significant digits of ts_json_double() */
	bool first;	/* no item yet in the innermost object or array */
	bool after_key; /* the next value belongs to the key just written */
};

/* precision: significant digits of every double ("%.<precision>g"). */
void ts_json_init(struct ts_json_writer *w, FILE *out, int precision);
/* Closing the outermost object or array ends the line. */
void ts_json_begin_object(struct ts_json_writer *w);
void ts_json_end_object(struct ts_json_writer *w);
void ts_json_begin_array(struct ts_json_writer *w);
void ts_json_end_array(struct ts_json_writer *w);
/* The next value (or object, or array) is this key's. */
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
