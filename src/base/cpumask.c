#include "toposched/cpumask.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts_cpumask *ts_cpumask_alloc(int nr_cpus)
{
	if (nr_cpus < 0 || nr_cpus > TS_MAX_CPUS)
		return NULL;
	struct ts_cpumask *m = calloc(1, ts_cpumask_size(nr_cpus));
	if (m)
		m->nr_cpus = nr_cpus;
	return m;
}

struct ts_cpumask *ts_cpumask_dup(const struct ts_cpumask *src)
{
	struct ts_cpumask *m = ts_cpumask_alloc(src->nr_cpus);
	if (m)
		ts_cpumask_copy(m, src);
	return m;
}

void ts_cpumask_free(struct ts_cpumask *m)
{
	free(m);
}

/* Mask of the valid bits of the last word, so fill/not never set bits past nr_cpus. */
static uint64_t last_word_mask(int nr_cpus)
{
	int r = nr_cpus & 63;
	return r ? (UINT64_C(1) << r) - 1 : ~UINT64_C(0);
}

void ts_cpumask_zero(struct ts_cpumask *m)
{
	memset(m->bits, 0, (size_t)ts_cpumask_words(m->nr_cpus) * sizeof(uint64_t));
}

void ts_cpumask_fill(struct ts_cpumask *m)
{
	int n = ts_cpumask_words(m->nr_cpus);
	if (n == 0)
		return;
	memset(m->bits, 0xff, (size_t)n * sizeof(uint64_t));
	m->bits[n - 1] &= last_word_mask(m->nr_cpus);
}

void ts_cpumask_copy(struct ts_cpumask *dst, const struct ts_cpumask *src)
{
	memcpy(dst->bits, src->bits, (size_t)ts_cpumask_words(src->nr_cpus) * sizeof(uint64_t));
}

bool ts_cpumask_and(struct ts_cpumask *dst, const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	uint64_t any = 0;
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		any |= dst->bits[i] = a->bits[i] & b->bits[i];
	return any != 0;
}

void ts_cpumask_or(struct ts_cpumask *dst, const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

bool ts_cpumask_andnot(struct ts_cpumask *dst, const struct ts_cpumask *a,
		       const struct ts_cpumask *b)
{
	uint64_t any = 0;
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		any |= dst->bits[i] = a->bits[i] & ~b->bits[i];
	return any != 0;
}

void ts_cpumask_set_range(struct ts_cpumask *m, int first, int last)
{
	for (int cpu = first; cpu <= last; cpu++)
		ts_cpumask_set(m, cpu);
}

int ts_cpumask_weight(const struct ts_cpumask *m)
{
	int w = 0;
	for (int i = 0; i < ts_cpumask_words(m->nr_cpus); i++)
		w += __builtin_popcountll(m->bits[i]);
	return w;
}

int ts_cpumask_weight_and(const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	int w = 0;
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		w += __builtin_popcountll(a->bits[i] & b->bits[i]);
	return w;
}

int ts_cpumask_weight_andnot(const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	int w = 0;
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		w += __builtin_popcountll(a->bits[i] & ~b->bits[i]);
	return w;
}

bool ts_cpumask_empty(const struct ts_cpumask *m)
{
	for (int i = 0; i < ts_cpumask_words(m->nr_cpus); i++)
		if (m->bits[i])
			return false;
	return true;
}

bool ts_cpumask_equal(const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	return a->nr_cpus == b->nr_cpus &&
	       memcmp(a->bits, b->bits, (size_t)ts_cpumask_words(a->nr_cpus) * sizeof(uint64_t)) ==
		       0;
}

bool ts_cpumask_subset(const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

bool ts_cpumask_intersects(const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

uint64_t ts_cpumask_hash(const struct ts_cpumask *m)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ (uint64_t)m->nr_cpus;
	for (int i = 0; i < ts_cpumask_words(m->nr_cpus); i++) {
		h ^= m->bits[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

/* One search loop for next/next_and/next_andnot: the word at index i is combine(i). */
enum combine { C_ONE, C_AND, C_ANDNOT };

static inline uint64_t word_of(const struct ts_cpumask *a, const struct ts_cpumask *b, int i,
			       enum combine how)
{
	switch (how) {
	case C_AND:
		return a->bits[i] & b->bits[i];
	case C_ANDNOT:
		return a->bits[i] & ~b->bits[i];
	default:
		return a->bits[i];
	}
}

static int find_next(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu,
		     enum combine how)
{
	int start = cpu + 1;
	if (start < 0)
		start = 0;
	if (start >= a->nr_cpus)
		return a->nr_cpus;
	int i = start >> 6;
	uint64_t w = word_of(a, b, i, how) & (~UINT64_C(0) << (start & 63));
	int nw = ts_cpumask_words(a->nr_cpus);
	for (;;) {
		if (w) {
			int r = i * 64 + __builtin_ctzll(w);
			return r < a->nr_cpus ? r : a->nr_cpus;
		}
		if (++i >= nw)
			return a->nr_cpus;
		w = word_of(a, b, i, how);
	}
}

int ts_cpumask_next(const struct ts_cpumask *m, int cpu)
{
	return find_next(m, m, cpu, C_ONE);
}
int ts_cpumask_next_and(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu)
{
	return find_next(a, b, cpu, C_AND);
}
int ts_cpumask_next_andnot(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu)
{
	return find_next(a, b, cpu, C_ANDNOT);
}

static int find_nth(const struct ts_cpumask *a, const struct ts_cpumask *b, int n, enum combine how)
{
	if (n < 0)
		return a->nr_cpus;
	for (int i = 0; i < ts_cpumask_words(a->nr_cpus); i++) {
		uint64_t w = word_of(a, b, i, how);
		int c = __builtin_popcountll(w);
		if (n >= c) {
			n -= c;
			continue;
		}
		while (n--)
			w &= w - 1; /* drop the lowest set bit n times */
		return i * 64 + __builtin_ctzll(w);
	}
	return a->nr_cpus;
}

int ts_cpumask_nth(const struct ts_cpumask *m, int n)
{
	return find_nth(m, m, n, C_ONE);
}
int ts_cpumask_nth_and(const struct ts_cpumask *a, const struct ts_cpumask *b, int n)
{
	return find_nth(a, b, n, C_AND);
}
int ts_cpumask_nth_andnot(const struct ts_cpumask *a, const struct ts_cpumask *b, int n)
{
	return find_nth(a, b, n, C_ANDNOT);
}

int ts_cpumask_first_wrap(const struct ts_cpumask *m, int start)
{
	if (start < 0 || start >= m->nr_cpus)
		start = 0;
	int cpu = ts_cpumask_next(m, start - 1);
	if (cpu < m->nr_cpus)
		return cpu;
	cpu = ts_cpumask_next(m, -1);
	return cpu < start ? cpu : m->nr_cpus;
}

int ts_cpumask_next_wrap(const struct ts_cpumask *m, int cpu, int start)
{
	if (start < 0 || start >= m->nr_cpus)
		start = 0;
	if (cpu >= start) {
		int next = ts_cpumask_next(m, cpu);
		if (next < m->nr_cpus)
			return next;
		cpu = -1; /* wrap to the beginning */
	}
	int next = ts_cpumask_next(m, cpu);
	return next < start ? next : m->nr_cpus;
}

size_t ts_cpumask_format(const struct ts_cpumask *m, char *buf, size_t size)
{
	size_t len = 0;
	int cpu = ts_cpumask_first(m);
	while (cpu < m->nr_cpus) {
		int last = cpu;
		while (last + 1 < m->nr_cpus && ts_cpumask_test(m, last + 1))
			last++;
		char part[32];
		int n = last == cpu ? snprintf(part, sizeof(part), "%s%d", len ? "," : "", cpu)
				    : snprintf(part, sizeof(part), "%s%d-%d", len ? "," : "", cpu,
					       last);
		if (len + 1 < size) { /* copy what fits, like snprintf */
			size_t room = size - 1 - len;
			memcpy(buf + len, part, (size_t)n < room ? (size_t)n : room);
		}
		len += (size_t)n;
		cpu = ts_cpumask_next(m, last);
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return len;
}

char *ts_cpumask_to_string(const struct ts_cpumask *m)
{
	size_t n = ts_cpumask_format(m, NULL, 0);
	char *s = malloc(n + 1);
	if (s)
		ts_cpumask_format(m, s, n + 1);
	return s;
}

/* Parses one CPU number ("N" = last CPU) at *p; advances *p. */
static int parse_cpu(const char **p, int nr_cpus, const char *list, struct ts_error *err)
{
	const char *s = *p;
	if (*s == 'N') {
		*p = s + 1;
		if (nr_cpus == 0)
			return ts_error_set(err, -EINVAL,
					    "cpulist '%s': 'N' (last CPU) in an empty machine",
					    list);
		return nr_cpus - 1;
	}
	if (!isdigit((unsigned char)*s))
		return ts_error_set(err, -EINVAL,
				    "cpulist '%s': expected a CPU number at offset %td", list,
				    s - list);
	long v = 0;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v > TS_MAX_CPUS * 16L)
			return ts_error_set(err, -ERANGE,
					    "cpulist '%s': number at offset %td is too large", list,
					    *p - list);
		s++;
	}
	*p = s;
	return (int)v;
}

int ts_cpumask_parse(struct ts_cpumask *m, const char *list, struct ts_error *err)
{
	struct ts_cpumask *tmp = ts_cpumask_alloc(m->nr_cpus);
	if (!tmp)
		return ts_error_set(err, -ENOMEM, "cpulist: out of memory");
	const char *p = list;
	int rc = 0;
	while (isspace((unsigned char)*p))
		p++;
	const char *end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	while (p < end) {
		const char *item = p;
		int first = parse_cpu(&p, m->nr_cpus, list, err), last = first;
		if (first < 0) {
			rc = first;
			break;
		}
		int used = 1, group = 1;
		if (*p == '-') {
			p++;
			last = parse_cpu(&p, m->nr_cpus, list, err);
			if (last < 0) {
				rc = last;
				break;
			}
			if (*p == ':') {
				p++;
				used = parse_cpu(&p, m->nr_cpus, list, err);
				if (used >= 0 && *p != '/')
					used = ts_error_set(err, -EINVAL,
							    "cpulist '%s': expected '/' after the "
							    "used count at offset %td",
							    list, p - list);
				if (used < 0) {
					rc = used;
					break;
				}
				p++;
				group = parse_cpu(&p, m->nr_cpus, list, err);
				if (group < 0) {
					rc = group;
					break;
				}
				if (used == 0 || group == 0 || used > group) {
					rc = ts_error_set(err, -EINVAL,
							  "cpulist '%s': stride %d/%d at offset "
							  "%td needs 0 < used <= group",
							  list, used, group, item - list);
					break;
				}
			}
		}
		if (p < end && *p != ',') {
			rc = ts_error_set(err, -EINVAL,
					  "cpulist '%s': unexpected '%c' at offset %td", list, *p,
					  p - list);
			break;
		}
		if (last < first) {
			rc = ts_error_set(err, -EINVAL, "cpulist '%s': range %d-%d is decreasing",
					  list, first, last);
			break;
		}
		if (last >= m->nr_cpus) {
			rc = ts_error_set(
				err, -ERANGE,
				"cpulist '%s': CPU %d is out of range (the machine has %d CPUs)",
				list, last, m->nr_cpus);
			break;
		}
		for (int cpu = first; cpu <= last; cpu++)
			if ((cpu - first) % group < used)
				ts_cpumask_set(tmp, cpu);
		if (p < end) {
			p++; /* the comma */
			if (p == end) {
				rc = ts_error_set(err, -EINVAL, "cpulist '%s': trailing ','", list);
				break;
			}
		}
	}
	if (rc == 0)
		ts_cpumask_copy(m, tmp);
	ts_cpumask_free(tmp);
	return rc;
}
