#include "toposched/json_writer.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/* json-c's pretty printer: two spaces, "key": value, and '/' left as it is */
#define TS_JSON_FLAGS                                                                              \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

void ts_json_init(struct ts_json_writer *w, FILE *out, int precision)
{
	*w = (struct ts_json_writer){.out = out, .precision = precision};
}

static void fail(struct ts_json_writer *w, int code)
{
	if (!w->error)
		w->error = code;
}

void ts_json_discard(struct ts_json_writer *w)
{
	json_object_put(w->root);
	free(w->key);
	ts_json_init(w, w->out, w->precision);
}

/* Puts v (NULL: JSON null) in the innermost open object under the waiting key, or at the
 * end of the innermost array; with nothing open, v is the document. Takes v's
 * reference. After a failure nothing is built any more: v is dropped. */
static bool attach(struct ts_json_writer *w, json_object *v)
{
	bool has_key = w->has_key;
	w->has_key = false;
	json_object *parent = w->depth && !w->error ? w->open[w->depth - 1] : NULL;
	bool in_object = parent && json_object_is_type(parent, json_type_object);
	/* a key only in an object, and always there; one document */
	if (in_object != has_key || (!parent && w->root))
		fail(w, -EINVAL);
	int rc = w->error;
	if (!rc && parent)
		rc = (in_object ? json_object_object_add(parent, w->key, v)
				: json_object_array_add(parent, v))
			     ? -ENOMEM
			     : 0;
	else if (!rc)
		w->root = v;
	if (rc) {
		json_object_put(v);
		fail(w, rc);
	}
	return rc == 0;
}

/* A scalar value: v NULL is JSON null when null was meant, else json-c's failure. A
 * document is an object or an array. */
static void put_value(struct ts_json_writer *w, json_object *v, bool is_null)
{
	if (!v && !is_null)
		fail(w, -ENOMEM);
	else if (w->depth == 0)
		fail(w, -EINVAL);
	attach(w, v);
}

/* Opens c inside the innermost container. The count of open containers goes on after a
 * failure, so that the outermost close is still the one that ends the document. */
static void begin(struct ts_json_writer *w, json_object *c)
{
	if (!c)
		fail(w, -ENOMEM);
	else if (w->depth >= TS_JSON_MAX_DEPTH)
		fail(w, -EINVAL);
	if (attach(w, c)) /* the parent (or root) holds c: the stack borrows it */
		w->open[w->depth] = c;
	w->depth++;
}

/* Closes the innermost container; closing the outermost writes the document. */
static int end(struct ts_json_writer *w)
{
	if (w->depth == 0 || w->has_key) /* nothing open, or a key without its value */
		fail(w, -EINVAL);
	if (w->depth > 0 && --w->depth > 0)
		return 0;
	int rc = w->error;
	if (!rc) {
		size_t len;
		const char *text = json_object_to_json_string_length(w->root, TS_JSON_FLAGS, &len);
		if (text) {
			fwrite(text, 1, len, w->out);
			fputc('\n', w->out);
		} else {
			rc = -ENOMEM;
		}
	}
	ts_json_discard(w);
	return rc;
}

void ts_json_begin_object(struct ts_json_writer *w)
{
	begin(w, json_object_new_object());
}

int ts_json_end_object(struct ts_json_writer *w)
{
	return end(w);
}

void ts_json_begin_array(struct ts_json_writer *w)
{
	begin(w, json_object_new_array());
}

int ts_json_end_array(struct ts_json_writer *w)
{
	return end(w);
}

void ts_json_key(struct ts_json_writer *w, const char *key)
{
	size_t n = strlen(key) + 1;
	if (n > w->key_size) {
		char *k = realloc(w->key, n);
		if (!k) {
			fail(w, -ENOMEM);
			return;
		}
		w->key_size = n;
		w->key = k;
	}
	memcpy(w->key, key, n);
	w->has_key = true;
}

void ts_json_string(struct ts_json_writer *w, const char *s)
{
	put_value(w, json_object_new_string(s ? s : ""), false);
}

void ts_json_int(struct ts_json_writer *w, long long v)
{
	put_value(w, json_object_new_int64((int64_t)v), false);
}

void ts_json_uint(struct ts_json_writer *w, uint64_t v)
{
	put_value(w, json_object_new_uint64(v), false);
}

void ts_json_double(struct ts_json_writer *w, double v)
{
	if (!isfinite(v)) {
		put_value(w, NULL, true);
		return;
	}
	/* the text json-c prints for this number: ours, at the writer's precision */
	char text[64];
	snprintf(text, sizeof(text), "%.*g", w->precision, v == 0 ? 0.0 : v);
	put_value(w, json_object_new_double_s(v, text), false);
}

void ts_json_bool(struct ts_json_writer *w, bool v)
{
	put_value(w, json_object_new_boolean(v), false);
}

void ts_json_null(struct ts_json_writer *w)
{
	put_value(w, NULL, true);
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
