/* The ends of the CPUs' running segments: an indexed min-heap (segment_ends.h). */
#include "segment_ends.h"

#include <errno.h>
#include <stdlib.h>

int sim_seg_ends_init(struct sim_seg_ends *q, int nr_cpus)
{
	*q = (struct sim_seg_ends){0};
	q->heap = malloc((size_t)nr_cpus * sizeof(*q->heap));
	q->pos = malloc((size_t)nr_cpus * sizeof(*q->pos));
	if (!q->heap || !q->pos) {
		sim_seg_ends_destroy(q);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		q->pos[cpu] = -1;
	return 0;
}

void sim_seg_ends_destroy(struct sim_seg_ends *q)
{
	free(q->heap);
	free(q->pos);
	*q = (struct sim_seg_ends){0};
}

bool sim_seg_ends_valid(const struct sim_seg_ends *q, int nr_cpus)
{
	if (q->count < 0 || q->count > nr_cpus)
		return false;
	int set = 0;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		int i = q->pos[cpu];
		if (i < 0)
			continue;
		if (i >= q->count || q->heap[i].cpu != cpu)
			return false;
		set++;
	}
	if (set != q->count)
		return false;
	for (int i = 1; i < q->count; i++)
		if (ts_eq_before(&q->heap[i], &q->heap[(i - 1) / TS_EQ_ARITY]))
			return false;
	return true;
}
