/* A minimal streaming JSON writer: tracks nesting so commas come out right. */
#ifndef TOPOSCHED_CLI_JSON_WRITER_H
#define TOPOSCHED_CLI_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	int depth;
	bool need_comma[64];
	bool pretty;
	bool after_key; /* the next value follows "key": directly */
};

void json_init(struct json_writer *w, FILE *out);
void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
void json_key(struct json_writer *w, const char *key); /* next value belongs to key */
void json_string(struct json_writer *w, const char *s);
void json_int(struct json_writer *w, long long v);
void json_double(struct json_writer *w, double v);
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);

#endif
