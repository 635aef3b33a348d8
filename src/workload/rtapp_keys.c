#include "rtapp_keys.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* json-c's tokener refuses nesting deeper than this (JSON_TOKENER_DEFAULT_DEPTH is 32). */
#define SCAN_MAX_DEPTH 64
/* Repeated keys are looked for by a linear search: past this many keys in one object the
 * scanner stops (no rt-app object comes near; the reader refuses far fewer events). */
#define SCAN_MAX_NAMES 8192

struct level {
	bool object;
	bool expect_key;
	size_t path_len; /* of the scanner's path buffer at this container */
	int index;	 /* array: the element being read */
	char **names;	 /* object: its keys so far (after renaming) */
	int nr_names, cap_names;
	int next_id; /* workgen's curid: the next suffix tried for a repeated key */
};

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static bool has_name(const struct level *l, const char *s)
{
	for (int i = 0; i < l->nr_names; i++)
		if (strcmp(l->names[i], s) == 0)
			return true;
	return false;
}

static int add_name(struct level *l, const char *s)
{
	if (l->nr_names == l->cap_names) {
		int cap = l->cap_names ? 2 * l->cap_names : 8;
		char **v = realloc(l->names, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->names = v;
		l->cap_names = cap;
	}
	if (!(l->names[l->nr_names] = strdup(s)))
		return -ENOMEM;
	l->nr_names++;
	return 0;
}

static void drop_level(struct level *l)
{
	for (int i = 0; i < l->nr_names; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

static int record(struct rtapp_keys *k, const char *path, int line)
{
	if (k->nr_keys == k->cap) {
		int cap = k->cap ? 2 * k->cap : 64;
		struct rtapp_key *v = realloc(k->keys, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->keys = v;
		k->cap = cap;
	}
	if (!(k->keys[k->nr_keys].path = strdup(path)))
		return -ENOMEM;
	k->keys[k->nr_keys++].line = line;
	return 0;
}

/* The key raw[0..n) of object l, renamed when it repeats: its name in *name (malloc'd). */
static int key_name(struct level *l, const char *raw, size_t n, char **name)
{
	char *s = malloc(n + 16);
	if (!s)
		return -ENOMEM;
	memcpy(s, raw, n);
	s[n] = '\0';
	if (has_name(l, s)) {
		if (l->next_id < 1)
			l->next_id = 1;
		do
			snprintf(s + n, 16, "%d", l->next_id++);
		while (has_name(l, s));
		l->next_id--; /* workgen keeps curid at the suffix it used */
	}
	int rc = add_name(l, s);
	if (rc) {
		free(s);
		return rc;
	}
	*name = s;
	return 0;
}

/* Appends "/component" (the separator only when the path is not empty) to path. */
static int path_push(struct buf *path, const char *s, size_t n)
{
	char sep = RTAPP_PATH_SEP;
	if (path->len && buf_put(path, &sep, 1))
		return -ENOMEM;
	return buf_put(path, s, n);
}

static int hex4(const char *s, size_t n, size_t i, unsigned *v)
{
	if (i + 4 > n)
		return -1;
	*v = 0;
	for (size_t k = i; k < i + 4; k++) {
		char c = s[k];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16u;
		if (d == 16u)
			return -1;
		*v = *v * 16 + d;
	}
	return 0;
}

static int put_utf8(struct buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return buf_put(b, u, n);
}

/* path_push() of a key as json-c's tokener decodes it, so that paths built from json-c's
 * object keys find it: escapes decoded, \uXXXX (surrogate pairs joined, a lone surrogate
 * as U+FFFD) in UTF-8; a decoded NUL ends the key, as json-c's C-string keys end there. */
static int path_push_decoded(struct buf *path, const char *s, size_t n)
{
	char sep = RTAPP_PATH_SEP;
	if (path->len && buf_put(path, &sep, 1))
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		if (s[i] != '\\' || i + 1 >= n) {
			if (buf_put(path, s + i, 1))
				return -ENOMEM;
			i++;
			continue;
		}
		char e = s[i + 1], c;
		i += 2;
		switch (e) {
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		case 'u': {
			unsigned cp, lo;
			if (hex4(s, n, i, &cp)) {
				c = 'u'; /* malformed: json-c refuses the file anyway */
				break;
			}
			i += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && s[i] == '\\' &&
			    s[i + 1] == 'u' && !hex4(s, n, i + 2, &lo) && lo >= 0xDC00 &&
			    lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i += 6;
			} else if (cp >= 0xD800 && cp <= 0xDFFF) {
				cp = 0xFFFD;
			}
			if (cp == 0)
				return 0;
			if (put_utf8(path, cp))
				return -ENOMEM;
			continue;
		}
		default:
			c = e;
			break; /* \" \\ \/ and json-c's lenient others */
		}
		if (buf_put(path, &c, 1))
			return -ENOMEM;
	}
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rtapp_key *)a)->path, ((const struct rtapp_key *)b)->path);
}

int rtapp_keys_scan(const char *in, size_t len, struct rtapp_keys *out)
{
	memset(out, 0, sizeof(*out));
	struct buf text = {0}, path = {0};
	struct level stack[SCAN_MAX_DEPTH];
	int depth = 0, line = 1, rc = 0;
	bool lost = false;     /* nesting too deep: stop recording, copy the rest */
	size_t value_path = 0; /* path length of the value being read (its key's path) */
	memset(stack, 0, sizeof(stack));
	if ((rc = buf_put(&text, "", 0)) || (rc = buf_put(&path, "", 0)))
		goto out;
	size_t i = 0;
	while (i < len && !rc) {
		char c = in[i];
		if (c == '\n')
			line++;
		if (c == '/' && i + 1 < len && (in[i + 1] == '/' || in[i + 1] == '*')) {
			size_t j = i + 2;
			if (in[i + 1] == '/') {
				while (j < len && in[j] != '\n')
					j++;
			} else {
				while (j + 1 < len && !(in[j] == '*' && in[j + 1] == '/'))
					j++;
				j = j + 2 <= len ? j + 2 : len;
			}
			for (size_t q = i; q < j; q++)
				line += in[q] == '\n';
			rc = buf_put(&text, in + i, j - i);
			i = j;
			continue;
		}
		if (c == '"') {
			size_t j = i + 1;
			while (j < len && in[j] != '"') {
				if (in[j] == '\\' && j + 1 < len)
					j++;
				line += in[j] == '\n';
				j++;
			}
			struct level *top = depth ? &stack[depth - 1] : NULL;
			if (top && top->nr_names >= SCAN_MAX_NAMES)
				lost = true;
			if (!lost && top && top->object && top->expect_key) {
				char *name;
				if ((rc = key_name(top, in + i + 1, j - i - 1, &name)))
					break;
				out->renamed += strlen(name) != j - i - 1;
				path.len = top->path_len;
				path.p[path.len] = '\0';
				/* the raw key, decoded, then workgen's suffix */
				if (!(rc = path_push_decoded(&path, name, j - i - 1)) &&
				    !(rc = buf_put(&path, name + (j - i - 1),
						   strlen(name) - (j - i - 1))) &&
				    !(rc = record(out, path.p, line)) &&
				    !(rc = buf_put(&text, "\"", 1)) &&
				    !(rc = buf_put(&text, name, strlen(name))))
					rc = buf_put(&text, "\"", 1);
				free(name);
				value_path = path.len;
				top->expect_key = false;
			} else {
				rc = buf_put(&text, in + i, j < len ? j - i + 1 : j - i);
			}
			i = j < len ? j + 1 : j;
			continue;
		}
		if (!lost && (c == '{' || c == '[')) {
			if (depth == SCAN_MAX_DEPTH) {
				lost = true;
			} else {
				struct level *top = depth ? &stack[depth - 1] : NULL;
				size_t base = 0;
				if (top && top->object) {
					base = value_path;
				} else if (top) {
					char idx[24];
					int n = snprintf(idx, sizeof(idx), "#%d", top->index);
					path.len = top->path_len;
					path.p[path.len] = '\0';
					if ((rc = path_push(&path, idx, (size_t)n)))
						break;
					base = path.len;
				}
				struct level *l = &stack[depth++];
				l->object = c == '{';
				l->expect_key = l->object;
				l->path_len = base;
			}
		} else if (!lost && (c == '}' || c == ']')) {
			if (depth)
				drop_level(&stack[--depth]);
		} else if (!lost && c == ',' && depth) {
			struct level *top = &stack[depth - 1];
			if (top->object)
				top->expect_key = true;
			else
				top->index++;
		}
		rc = buf_put(&text, &c, 1);
		i++;
	}
out:
	while (depth)
		drop_level(&stack[--depth]);
	free(path.p);
	if (rc) {
		free(text.p);
		rtapp_keys_free(out);
		return rc;
	}
	out->text = text.p;
	out->len = text.len;
	/* paths are unique once repeated keys are renamed: sorted, a key is found by bsearch */
	if (out->nr_keys)
		qsort(out->keys, (size_t)out->nr_keys, sizeof(*out->keys), key_cmp);
	return 0;
}

int rtapp_keys_line(const struct rtapp_keys *k, const char *path)
{
	struct rtapp_key want = {.path = (char *)path};
	const struct rtapp_key *hit =
		k->nr_keys ? bsearch(&want, k->keys, (size_t)k->nr_keys, sizeof(want), key_cmp)
			   : NULL;
	return hit ? hit->line : 0;
}

int rtapp_line_at(const char *text, size_t len, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && i < len; i++)
		line += text[i] == '\n';
	return line;
}

void rtapp_keys_free(struct rtapp_keys *k)
{
	for (int i = 0; i < k->nr_keys; i++)
		free(k->keys[i].path);
	free(k->keys);
	free(k->text);
	memset(k, 0, sizeof(*k));
}
