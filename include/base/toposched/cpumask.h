/* A CPU mask sized at run time, with the operations the scheduler needs.
 * Semantics follow include/linux/cpumask.h: iteration returns nr_cpus when done,
 * ts_for_each_cpu_wrap() starts at any CPU and wraps once around. */
#ifndef TOPOSCHED_CPUMASK_H
#define TOPOSCHED_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/error.h"

/* Upper bound on CPUs in one topology (the kernel's NR_CPUS for big distro configs). */
#define TS_MAX_CPUS 8192

struct ts_cpumask {
	int nr_cpus;	 /* number of valid bits; bits beyond are always 0 */
	uint64_t bits[]; /* ts_cpumask_words(nr_cpus) words */
};

static inline int ts_cpumask_words(int nr_cpus)
{
	return (nr_cpus + 63) / 64;
}
static inline size_t ts_cpumask_size(int nr_cpus)
{
	return sizeof(struct ts_cpumask) + (size_t)ts_cpumask_words(nr_cpus) * sizeof(uint64_t);
}

/* Returns a zeroed mask, or NULL when out of memory or nr_cpus is out of range. */
struct ts_cpumask *ts_cpumask_alloc(int nr_cpus);
struct ts_cpumask *ts_cpumask_dup(const struct ts_cpumask *m);
void ts_cpumask_free(struct ts_cpumask *m);

static inline void ts_cpumask_set(struct ts_cpumask *m, int cpu)
{
	m->bits[cpu >> 6] |= UINT64_C(1) << (cpu & 63);
}
static inline void ts_cpumask_clear_cpu(struct ts_cpumask *m, int cpu)
{
	m->bits[cpu >> 6] &= ~(UINT64_C(1) << (cpu & 63));
}
static inline bool ts_cpumask_test(const struct ts_cpumask *m, int cpu)
{
	return (m->bits[cpu >> 6] >> (cpu & 63)) & 1;
}

void ts_cpumask_zero(struct ts_cpumask *m);
void ts_cpumask_fill(struct ts_cpumask *m);
void ts_cpumask_copy(struct ts_cpumask *dst, const struct ts_cpumask *src);
/* dst = a op b; and/andnot return whether dst is non-empty (as the kernel's do). */
bool ts_cpumask_and(struct ts_cpumask *dst, const struct ts_cpumask *a, const struct ts_cpumask *b);
void ts_cpumask_or(struct ts_cpumask *dst, const struct ts_cpumask *a, const struct ts_cpumask *b);
bool ts_cpumask_andnot(struct ts_cpumask *dst, const struct ts_cpumask *a,
		       const struct ts_cpumask *b);
void ts_cpumask_set_range(struct ts_cpumask *m, int first, int last); /* inclusive */

int ts_cpumask_weight(const struct ts_cpumask *m);
int ts_cpumask_weight_and(const struct ts_cpumask *a, const struct ts_cpumask *b);
int ts_cpumask_weight_andnot(const struct ts_cpumask *a, const struct ts_cpumask *b);
bool ts_cpumask_empty(const struct ts_cpumask *m);
bool ts_cpumask_equal(const struct ts_cpumask *a, const struct ts_cpumask *b);
bool ts_cpumask_subset(const struct ts_cpumask *a, const struct ts_cpumask *b); /* a ⊆ b */
bool ts_cpumask_intersects(const struct ts_cpumask *a, const struct ts_cpumask *b);
uint64_t ts_cpumask_hash(const struct ts_cpumask *m);

/* Next set CPU strictly after `cpu` (pass -1 for the first); nr_cpus when none. */
int ts_cpumask_next(const struct ts_cpumask *m, int cpu);
int ts_cpumask_next_and(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu);
int ts_cpumask_next_andnot(const struct ts_cpumask *a, const struct ts_cpumask *b, int cpu);
/* ts_cpumask_next(), inline for a mask of one word (the walks of fork balancing over
 * small groups called it twice per group). */
static inline int ts_cpumask_next_inline(const struct ts_cpumask *m, int cpu)
{
	int start = cpu + 1;
	if (m->nr_cpus > 64 || start < 0)
		return ts_cpumask_next(m, cpu);
	if (start >= m->nr_cpus)
		return m->nr_cpus;
	uint64_t w = m->bits[0] & (~UINT64_C(0) << start);
	int r = w ? __builtin_ctzll(w) : m->nr_cpus;
	return r < m->nr_cpus ? r : m->nr_cpus;
}

static inline int ts_cpumask_first(const struct ts_cpumask *m)
{
	return ts_cpumask_next_inline(m, -1);
}
static inline int ts_cpumask_first_and(const struct ts_cpumask *a, const struct ts_cpumask *b)
{
	return ts_cpumask_next_and(a, b, -1);
}
/* The n-th (0-based) set CPU; nr_cpus when the mask has n or fewer CPUs. */
int ts_cpumask_nth(const struct ts_cpumask *m, int n);
int ts_cpumask_nth_and(const struct ts_cpumask *a, const struct ts_cpumask *b, int n);
int ts_cpumask_nth_andnot(const struct ts_cpumask *a, const struct ts_cpumask *b, int n);

/* Wrap-around iteration: the first CPU at or after `start` (wrapping to 0), then each
 * next one, until the walk would reach `start` again; nr_cpus ends the walk. */
int ts_cpumask_first_wrap(const struct ts_cpumask *m, int start);
int ts_cpumask_next_wrap(const struct ts_cpumask *m, int cpu, int start);

#define ts_for_each_cpu(cpu, m)                                                                    \
	for ((cpu) = ts_cpumask_next_inline((m), -1); (cpu) < (m)->nr_cpus;                        \
	     (cpu) = ts_cpumask_next_inline((m), (cpu)))
#define ts_for_each_cpu_and(cpu, a, b)                                                             \
	for ((cpu) = ts_cpumask_next_and((a), (b), -1); (cpu) < (a)->nr_cpus;                      \
	     (cpu) = ts_cpumask_next_and((a), (b), (cpu)))
#define ts_for_each_cpu_andnot(cpu, a, b)                                                          \
	for ((cpu) = ts_cpumask_next_andnot((a), (b), -1); (cpu) < (a)->nr_cpus;                   \
	     (cpu) = ts_cpumask_next_andnot((a), (b), (cpu)))
#define ts_for_each_cpu_wrap(cpu, m, start)                                                        \
	for ((cpu) = ts_cpumask_first_wrap((m), (start)); (cpu) < (m)->nr_cpus;                    \
	     (cpu) = ts_cpumask_next_wrap((m), (cpu), (start)))

/* Formats as a cpulist ("0-3,8-11"; "" for an empty mask). Returns the length the full
 * string needs (excluding the NUL), like snprintf; truncates to size. */
size_t ts_cpumask_format(const struct ts_cpumask *m, char *buf, size_t size);
/* Same, into a freshly malloc'ed string (NULL when out of memory). */
char *ts_cpumask_to_string(const struct ts_cpumask *m);

/* Parses a cpulist with the kernel's bitmap_parselist() syntax: comma-separated CPUs and
 * ranges "a-b", optional stride "a-b:used/group", "N" for the last CPU, surrounding
 * white space ignored, "" for the empty mask. Stricter than the kernel on purpose: empty
 * items ("1,,2", "1,") and a zero used count are errors, since on a command line they are
 * typos. On error leaves m unchanged and returns a negative code with a message naming
 * the offending part. */
int ts_cpumask_parse(struct ts_cpumask *m, const char *list, struct ts_error *err);

#endif
