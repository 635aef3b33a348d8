#include "json_writer.h"

#include <math.h>

void json_init(struct json_writer *w, FILE *out)
{
	*w = (struct json_writer){.out = out, .pretty = true};
}

static void indent(struct json_writer *w)
{
	if (!w->pretty)
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Separator before a value in an array or a key in an object. */
static void before_item(struct json_writer *w)
{
	if (w->depth == 0)
		return;
	if (w->need_comma[w->depth])
		fputc(',', w->out);
	w->need_comma[w->depth] = true;
	indent(w);
}

static void before_value(struct json_writer *w)
{
	if (w->after_key)
		w->after_key = false;
	else
		before_item(w);
}

static void open_nested(struct json_writer *w, char c)
{
	before_value(w);
	fputc(c, w->out);
	w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_nested(struct json_writer *w, char c)
{
	bool had_items = w->need_comma[w->depth];
	w->depth--;
	if (had_items)
		indent(w);
	fputc(c, w->out);
	if (w->depth == 0)
		fputc('\n', w->out);
}

void json_begin_object(struct json_writer *w)
{
	open_nested(w, '{');
}
void json_end_object(struct json_writer *w)
{
	close_nested(w, '}');
}
void json_begin_array(struct json_writer *w)
{
	open_nested(w, '[');
}
void json_end_array(struct json_writer *w)
{
	close_nested(w, ']');
}

static void write_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void json_key(struct json_writer *w, const char *key)
{
	before_item(w);
	write_escaped(w->out, key);
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_key = true;
}

void json_string(struct json_writer *w, const char *s)
{
	before_value(w);
	write_escaped(w->out, s);
}

void json_int(struct json_writer *w, long long v)
{
	before_value(w);
	fprintf(w->out, "%lld", v);
}

void json_double(struct json_writer *w, double v)
{
	before_value(w);
	if (isfinite(v))
		fprintf(w->out, "%.6g", v);
	else
		fputs("null", w->out);
}

void json_bool(struct json_writer *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
	before_value(w);
	fputs("null", w->out);
}
