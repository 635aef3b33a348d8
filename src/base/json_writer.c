#include "toposched/json_writer.h"

#include <math.h>

void ts_json_init(struct ts_json_writer *w, FILE *out, int precision)
{
	*w = (struct ts_json_writer){.out = out, .precision = precision, .first = true};
}

static void newline_indent(struct ts_json_writer *w)
{
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* The separator before an item: a comma after the previous one, then a new line. A value
 * right after its key stays on the key's line. */
static void begin_item(struct ts_json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (!w->first)
			fputc(',', w->out);
		newline_indent(w);
	}
	w->first = false;
}

static void open_nested(struct ts_json_writer *w, char c)
{
	begin_item(w);
	fputc(c, w->out);
	w->depth++;
	w->first = true;
}

static void close_nested(struct ts_json_writer *w, char c)
{
	w->depth--;
	if (!w->first) /* an empty one stays "{}" or "[]" */
		newline_indent(w);
	fputc(c, w->out);
	w->first = false;
	if (w->depth == 0)
		fputc('\n', w->out);
}

void ts_json_begin_object(struct ts_json_writer *w)
{
	open_nested(w, '{');
}

void ts_json_end_object(struct ts_json_writer *w)
{
	close_nested(w, '}');
}

void ts_json_begin_array(struct ts_json_writer *w)
{
	open_nested(w, '[');
}

void ts_json_end_array(struct ts_json_writer *w)
{
	close_nested(w, ']');
}

static void write_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void ts_json_key(struct ts_json_writer *w, const char *key)
{
	begin_item(w);
	write_escaped(w->out, key);
	fputs(": ", w->out);
	w->after_key = true;
}

void ts_json_string(struct ts_json_writer *w, const char *s)
{
	begin_item(w);
	write_escaped(w->out, s ? s : "");
}

void ts_json_int(struct ts_json_writer *w, long long v)
{
	begin_item(w);
	fprintf(w->out, "%lld", v);
}

void ts_json_uint(struct ts_json_writer *w, uint64_t v)
{
	begin_item(w);
	fprintf(w->out, "%llu", (unsigned long long)v);
}

void ts_json_double(struct ts_json_writer *w, double v)
{
	begin_item(w);
	if (isfinite(v))
		fprintf(w->out, "%.*g", w->precision, v == 0 ? 0.0 : v);
	else
		fputs("null", w->out);
}

void ts_json_bool(struct ts_json_writer *w, bool v)
{
	begin_item(w);
	fputs(v ? "true" : "false", w->out);
}

void ts_json_null(struct ts_json_writer *w)
{
	begin_item(w);
	fputs("null", w->out);
}

static void member_key(struct ts_json_writer *w, const char *key)
{
	if (key)
		ts_json_key(w, key);
}

void ts_json_member_string(struct ts_json_writer *w, const char *key, const char *s)
{
	member_key(w, key);
	ts_json_string(w, s);
}

void ts_json_member_int(struct ts_json_writer *w, const char *key, long long v)
{
	member_key(w, key);
	ts_json_int(w, v);
}

void ts_json_member_uint(struct ts_json_writer *w, const char *key, uint64_t v)
{
	member_key(w, key);
	ts_json_uint(w, v);
}

void ts_json_member_double(struct ts_json_writer *w, const char *key, double v)
{
	member_key(w, key);
	ts_json_double(w, v);
}

void ts_json_member_bool(struct ts_json_writer *w, const char *key, bool v)
{
	member_key(w, key);
	ts_json_bool(w, v);
}

void ts_json_member_null(struct ts_json_writer *w, const char *key)
{
	member_key(w, key);
	ts_json_null(w);
}
