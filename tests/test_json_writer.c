/* The JSON writer over json-c: the layout json-c's pretty printer gives (what the documented
 * schemas show), doubles at the writer's precision with the text printf gives (no ".0",
 * the exponent's sign kept, no "-0", null when not finite), 64-bit integers of both signs
 * at their limits, strings that json-c parses back to the same bytes with '/' unescaped,
 * keys copied, and each misuse refused with -EINVAL and nothing written. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "test_support.h"
#include "toposched/json_writer.h"

/* A writer into memory. */
struct buffer {
	char *text;
	size_t len;
	FILE *f;
	struct ts_json_writer w;
};

static void open_buffer(struct buffer *b, int precision)
{
	b->text = NULL;
	b->len = 0;
	b->f = open_memstream(&b->text, &b->len);
	assert_non_null(b->f);
	ts_json_init(&b->w, b->f, precision);
}

/* What was written, NUL-terminated; owned by b until close_buffer(). */
static const char *written(struct buffer *b)
{
	assert_int_equal(fflush(b->f), 0);
	return b->text;
}

static void close_buffer(struct buffer *b)
{
	fclose(b->f);
	free(b->text);
}

static void test_layout(void **state)
{
	(void)state;
	struct buffer b;
	open_buffer(&b, 6);
	struct ts_json_writer *w = &b.w;
	ts_json_begin_object(w);
	ts_json_member_string(w, "machine", "kunpeng920");
	ts_json_key(w, "cpus");
	ts_json_begin_array(w);
	ts_json_int(w, 0);
	ts_json_member_int(w, NULL, 1);
	ts_json_end_array(w);
	ts_json_key(w, "empty");
	ts_json_begin_array(w);
	ts_json_end_array(w);
	ts_json_key(w, "node");
	ts_json_begin_object(w);
	ts_json_member_null(w, "pin");
	ts_json_member_bool(w, "on", true);
	ts_json_member_bool(w, "off", false);
	ts_json_end_object(w);
	assert_int_equal(ts_json_end_object(w), 0);
	/* json-c 0.16's pretty printer, two spaces; keys in the order written */
	assert_string_equal(written(&b), "{\n"
					 "  \"machine\": \"kunpeng920\",\n"
					 "  \"cpus\": [\n"
					 "    0,\n"
					 "    1\n"
					 "  ],\n"
					 "  \"empty\": [\n"
					 "  ],\n"
					 "  \"node\": {\n"
					 "    \"pin\": null,\n"
					 "    \"on\": true,\n"
					 "    \"off\": false\n"
					 "  }\n"
					 "}\n");
	/* the writer is ready for another document */
	ts_json_begin_array(w);
	assert_int_equal(ts_json_end_array(w), 0);
	assert_non_null(strstr(written(&b), "}\n[\n]\n"));
	close_buffer(&b);
}

/* The document's one array's elements, as written. */
static void numbers(int precision, const double *v, int n, char *out, size_t size)
{
	struct buffer b;
	open_buffer(&b, precision);
	ts_json_begin_array(&b.w);
	for (int i = 0; i < n; i++)
		ts_json_double(&b.w, v[i]);
	assert_int_equal(ts_json_end_array(&b.w), 0);
	snprintf(out, size, "%s", written(&b));
	close_buffer(&b);
}

static void test_doubles(void **state)
{
	(void)state;
	const double v[] = {100, 0.1, 1e20, 1.5e-7, -0.0, NAN, INFINITY, -INFINITY, 2.0 / 3};
	char text[512];
	numbers(10, v, (int)(sizeof(v) / sizeof(v[0])), text, sizeof(text));
	assert_string_equal(text, "[\n  100,\n  0.1,\n  1e+20,\n  1.5e-07,\n  0,\n  null,\n  "
				  "null,\n  null,\n  0.6666666667\n]\n");
	const double third = 1.0 / 3;
	numbers(17, &third, 1, text, sizeof(text));
	assert_string_equal(text, "[\n  0.33333333333333331\n]\n");
}

static void test_integers(void **state)
{
	(void)state;
	struct buffer b;
	open_buffer(&b, 6);
	ts_json_begin_object(&b.w);
	ts_json_member_uint(&b.w, "seed", UINT64_MAX);
	ts_json_member_int(&b.w, "min", INT64_MIN);
	ts_json_member_int(&b.w, "max", INT64_MAX);
	assert_int_equal(ts_json_end_object(&b.w), 0);
	assert_string_equal(written(&b), "{\n  \"seed\": 18446744073709551615,\n"
					 "  \"min\": -9223372036854775808,\n"
					 "  \"max\": 9223372036854775807\n}\n");
	close_buffer(&b);
}

/* Every byte 1..255 in a string and a key: json-c parses the document back to the same
 * bytes, and '/' is printed as it is. */
static void test_strings(void **state)
{
	(void)state;
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	struct buffer b;
	open_buffer(&b, 6);
	ts_json_begin_object(&b.w);
	ts_json_member_string(&b.w, all, all);
	ts_json_member_string(&b.w, "path", "share/toposched/workloads/a.json");
	ts_json_member_string(&b.w, "none", NULL);
	assert_int_equal(ts_json_end_object(&b.w), 0);
	const char *text = written(&b);
	assert_non_null(strstr(text, "\"path\": \"share/toposched/workloads/a.json\""));
	assert_non_null(strstr(text, "\"none\": \"\""));
	json_object *root = json_tokener_parse(text), *v;
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, all, &v));
	assert_string_equal(json_object_get_string(v), all);
	json_object_put(root);
	close_buffer(&b);
}

/* A key given in a buffer that the caller reuses before the value. */
static void test_key_copied(void **state)
{
	(void)state;
	struct buffer b;
	open_buffer(&b, 6);
	char key[64];
	ts_json_begin_object(&b.w);
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "cpu%d", i);
		ts_json_key(&b.w, key);
		snprintf(key, sizeof(key), "overwritten, a much longer text than the key");
		ts_json_int(&b.w, i);
	}
	assert_int_equal(ts_json_end_object(&b.w), 0);
	assert_string_equal(written(&b), "{\n  \"cpu0\": 0,\n  \"cpu1\": 1,\n  \"cpu2\": 2\n}\n");
	close_buffer(&b);
}

/* The misuse `bad` makes: the outermost close says -EINVAL and nothing is written (and,
 * under ASan, nothing leaks). */
static void expect_misuse(void (*bad)(struct ts_json_writer *w, int *rc))
{
	struct buffer b;
	open_buffer(&b, 6);
	int rc = 0;
	bad(&b.w, &rc);
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(written(&b), "");
	close_buffer(&b);
}

static void value_without_key(struct ts_json_writer *w, int *rc)
{
	ts_json_begin_object(w);
	ts_json_member_int(w, "a", 1);
	ts_json_int(w, 2);
	*rc = ts_json_end_object(w);
}

static void key_in_array(struct ts_json_writer *w, int *rc)
{
	ts_json_begin_array(w);
	ts_json_member_int(w, "a", 1);
	*rc = ts_json_end_array(w);
}

static void key_without_value(struct ts_json_writer *w, int *rc)
{
	ts_json_begin_object(w);
	ts_json_key(w, "a");
	*rc = ts_json_end_object(w);
}

static void bare_value(struct ts_json_writer *w, int *rc)
{
	ts_json_int(w, 1);
	ts_json_begin_array(w);
	*rc = ts_json_end_array(w);
}

static void close_nothing_open(struct ts_json_writer *w, int *rc)
{
	*rc = ts_json_end_object(w);
}

static void too_deep(struct ts_json_writer *w, int *rc)
{
	for (int i = 0; i <= TS_JSON_MAX_DEPTH; i++)
		ts_json_begin_array(w);
	for (int i = 0; i <= TS_JSON_MAX_DEPTH; i++)
		*rc = ts_json_end_array(w); /* the last, outermost, close ends the document */
}

static void test_misuse(void **state)
{
	(void)state;
	expect_misuse(value_without_key);
	expect_misuse(key_in_array);
	expect_misuse(key_without_value);
	expect_misuse(bare_value);
	expect_misuse(close_nothing_open);
	expect_misuse(too_deep);
}

/* As deep as allowed is written; a document left unfinished is discarded. */
static void test_depth_and_discard(void **state)
{
	(void)state;
	struct buffer b;
	open_buffer(&b, 6);
	for (int i = 0; i < TS_JSON_MAX_DEPTH; i++)
		ts_json_begin_array(&b.w);
	int rc = -1;
	for (int i = 0; i < TS_JSON_MAX_DEPTH; i++)
		rc = ts_json_end_array(&b.w);
	assert_int_equal(rc, 0);
	json_object *root = json_tokener_parse(written(&b));
	assert_non_null(root);
	json_object_put(root);
	size_t len = b.len;
	ts_json_begin_object(&b.w);
	ts_json_member_string(&b.w, "half", "written");
	ts_json_discard(&b.w);
	written(&b);
	assert_int_equal(b.len, len);
	close_buffer(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_key_copied),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_depth_and_discard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
