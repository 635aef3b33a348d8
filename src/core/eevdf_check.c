/* The EEVDF run queue's invariant checker (ts_cfs_rq_check): tree shape and order, the
 * augmentation, and the sums the run queue keeps (avg_vruntime, avg_load, weights, counts). */
#include <errno.h>

#include "eevdf_internal.h"

struct check_acc {
	int64_t avg;
	unsigned long load;
	unsigned int count;
	const struct ts_rb_node *prev;
	const struct ts_rb_node *first;
};

/* Returns the black height, or -1 on a violation (with *why set). */
static int check_node(const struct ts_cfs_rq *cfs, const struct ts_rb_node *n,
		      const struct ts_rb_node *parent, unsigned int depth, struct check_acc *acc,
		      const char **why)
{
	const struct ts_sched_entity *se;
	uint64_t minv, mins;
	int lh, rh;

	if (!n)
		return 1;
	if (depth > 128) {
		*why = "tree too deep (cycle?)";
		return -1;
	}
	if (n->parent != parent) {
		*why = "bad parent link";
		return -1;
	}
	if (n->red && parent && parent->red) {
		*why = "red node with a red parent";
		return -1;
	}
	lh = check_node(cfs, n->left, n, depth + 1, acc, why);
	if (lh < 0)
		return -1;

	se = node_se(n);
	if (!acc->first)
		acc->first = n;
	if (acc->prev && tree_before(&cfs->tasks_timeline, se, node_se(acc->prev))) {
		*why = "tree not ordered by its key (deadline, or vruntime for CFS)";
		return -1;
	}
	acc->prev = n;
	if (se == cfs->curr) {
		*why = "curr is in the tree";
		return -1;
	}
	if (!se->on_rq) {
		*why = "entity in the tree is not on_rq";
		return -1;
	}
	acc->avg = s64_add(acc->avg, s64_mul(entity_key(cfs, se), (int64_t)se->load.weight));
	acc->load += se->load.weight;
	acc->count++;

	rh = check_node(cfs, n->right, n, depth + 1, acc, why);
	if (rh < 0)
		return -1;
	if (lh != rh) {
		*why = "unequal black heights";
		return -1;
	}

	minv = se->vruntime;
	mins = se->slice;
	if (n->left) {
		const struct ts_sched_entity *l = node_se(n->left);
		if (vdiff(l->min_vruntime, minv) < 0)
			minv = l->min_vruntime;
		if (l->min_slice < mins)
			mins = l->min_slice;
	}
	if (n->right) {
		const struct ts_sched_entity *r = node_se(n->right);
		if (vdiff(r->min_vruntime, minv) < 0)
			minv = r->min_vruntime;
		if (r->min_slice < mins)
			mins = r->min_slice;
	}
	if (se->min_vruntime != minv) {
		*why = "min_vruntime augmentation is stale";
		return -1;
	}
	if (se->min_slice != mins) {
		*why = "min_slice augmentation is stale";
		return -1;
	}
	return lh + (n->red ? 0 : 1);
}

int ts_cfs_rq_check(const struct ts_cfs_rq *cfs, const char **why)
{
	const char *dummy;
	struct check_acc acc = {0};
	const struct ts_sched_entity *curr = cfs->curr;
	unsigned long load;
	unsigned int nr;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (cfs->tasks_timeline.root && cfs->tasks_timeline.root->red) {
		*why = "red root";
		return -EINVAL;
	}
	if (check_node(cfs, cfs->tasks_timeline.root, NULL, 0, &acc, why) < 0)
		return -EINVAL;
	if (acc.first != cfs->tasks_timeline.leftmost) {
		*why = "leftmost cache is wrong";
		return -EINVAL;
	}
	if (acc.prev != cfs->tasks_timeline.rightmost) {
		*why = "rightmost cache is wrong";
		return -EINVAL;
	}
	if (acc.avg != cfs->avg_vruntime) {
		*why = "avg_vruntime != sum of (v - min_vruntime) * w over the tree";
		return -EINVAL;
	}
	if (acc.load != cfs->avg_load) {
		*why = "avg_load != sum of tree weights";
		return -EINVAL;
	}
	load = acc.load;
	nr = acc.count;
	if (curr && curr->on_rq) {
		load += curr->load.weight;
		nr++;
	}
	if (load != cfs->load.weight) {
		*why = "load.weight != sum of queued weights";
		return -EINVAL;
	}
	if (nr != cfs->nr_queued) {
		*why = "nr_queued != number of queued entities";
		return -EINVAL;
	}
	if (cfs->h_nr_runnable > cfs->h_nr_queued || cfs->nr_queued > cfs->h_nr_queued) {
		*why = "h_nr_runnable <= h_nr_queued >= nr_queued violated";
		return -EINVAL;
	}
	if (cfs->next && !cfs->next->on_rq) {
		*why = "next buddy is not queued";
		return -EINVAL;
	}
	return 0;
}
