/* The fields of struct ts_sim_result a partial result carries (experiment_part.c writes
 * them, experiment_merge.c reads them back), one table so that both sides agree. Every
 * field is carried but wall_s (host time, which no report prints and which would make
 * the same shard's parts differ). */
#ifndef TOPOSCHED_SIM_PART_FIELDS_H
#define TOPOSCHED_SIM_PART_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/sim.h"

enum ts_part_type {
	TS_PART_U64,  /* uint64_t: a JSON number */
	TS_PART_F64,  /* double: a string, C99 hexadecimal ("%a"), read back with strtod */
	TS_PART_INT,  /* int: a JSON number */
	TS_PART_BOOL, /* bool */
	TS_PART_NAME, /* char[TS_TG_NAME_MAX]: a string */
};

struct ts_part_field {
	const char *key;
	enum ts_part_type type;
	size_t offset; /* in struct ts_sim_result */
	int count;     /* 0: a scalar; else an array of count elements */
};

extern const struct ts_part_field ts_part_fields[];
/* The part's "checksum": FNV-1a 64 over its runs in file order, each its run index and
 * then every field's value bytes in table order (a name up to its NUL), so that a value
 * changed in the file, which still reads, is caught. h starts at TS_PART_DIGEST_INIT. */
#define TS_PART_DIGEST_INIT 0xcbf29ce484222325ULL
uint64_t ts_part_digest(uint64_t h, int run, const struct ts_sim_result *r);
/* Bytes of one value of type t in the struct. */
size_t ts_part_value_size(enum ts_part_type t);
extern const int ts_part_nr_fields;
/* A warning a part may carry: one line of text, 1 to TS_EXP_PART_WARNING_MAX - 1 bytes,
 * no control characters (merge prints it on a terminal). */
bool ts_part_warning_ok(const char *text);

#endif
