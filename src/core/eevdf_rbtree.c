/* The augmented red-black tree of an EEVDF run queue's entities, our own with the kernel's
 * augmentation (min_vruntime, min_slice); ordering and tie-breaking follow
 * rb_add_augmented_cached(): equal deadlines go to the right, so the earlier-inserted
 * entity stays leftmost. */
#include "eevdf_internal.h"

/* One child's subtree into the aggregate being recomputed (none: nothing). */
static inline __attribute__((always_inline)) void
fold_child(const struct ts_rb_node *c, uint64_t *min_vruntime, uint64_t *min_slice)
{
	if (!c)
		return;
	const struct ts_sched_entity *cse = node_se_nn(c);
	if (vdiff(*min_vruntime, cse->min_vruntime) > 0)
		*min_vruntime = cse->min_vruntime;
	if (cse->min_slice < *min_slice)
		*min_slice = cse->min_slice;
}

/* min_vruntime_update(): recompute n's aggregate from its own values and its children's
 * (right child first, as the kernel's); true if it did not change (RB_DECLARE_CALLBACKS'
 * early exit: nothing above can change either). In registers, stored once, inlined: it
 * runs ~7 times a spawn. */
static inline __attribute__((always_inline)) bool augment_recompute(struct ts_rb_node *n)
{
	struct ts_sched_entity *se = node_se_nn(n);
	uint64_t min_vruntime = se->vruntime, min_slice = se->slice;

	fold_child(n->right, &min_vruntime, &min_slice);
	fold_child(n->left, &min_vruntime, &min_slice);
	bool same = min_vruntime == se->min_vruntime && min_slice == se->min_slice;
	se->min_vruntime = min_vruntime;
	se->min_slice = min_slice;
	return same;
}

/* The augmented callbacks' propagate(): from n up to (not including) stop, until a node's
 * aggregate does not change. */
static void propagate_loop(struct ts_rb_node *n, const struct ts_rb_node *stop)
{
	for (; n != stop; n = n->parent)
		if (augment_recompute(n))
			break;
}
/* The empty walk (a root inserted or erased) without the call. */
static inline void propagate_until(struct ts_rb_node *n, const struct ts_rb_node *stop)
{
	if (n != stop)
		propagate_loop(n, stop);
}

void ts_rb_augment_propagate(struct ts_rb_node *n)
{
	propagate_until(n, NULL);
}

static void change_child(struct ts_rb_root_cached *t, struct ts_rb_node *parent,
			 struct ts_rb_node *old, struct ts_rb_node *new)
{
	if (!parent)
		t->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/* The augmented callbacks' rotate(old, new): new takes old's place and so its subtree's
 * aggregate; old is recomputed. Ancestors keep their node sets. */
static void rotate_augment(struct ts_rb_node *old, struct ts_rb_node *new)
{
	node_se_nn(new)->min_vruntime = node_se_nn(old)->min_vruntime;
	node_se_nn(new)->min_slice = node_se_nn(old)->min_slice;
	augment_recompute(old);
}

static void rotate_left(struct ts_rb_root_cached *t, struct ts_rb_node *x)
{
	struct ts_rb_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	change_child(t, x->parent, x, y);
	y->left = x;
	x->parent = y;
	rotate_augment(x, y);
}

static void rotate_right(struct ts_rb_root_cached *t, struct ts_rb_node *x)
{
	struct ts_rb_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	change_child(t, x->parent, x, y);
	y->right = x;
	x->parent = y;
	rotate_augment(x, y);
}

static inline bool is_red(const struct ts_rb_node *n)
{
	return n && n->red;
}

void ts_rb_insert_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se)
{
	struct ts_rb_node *n = &se->run_node, *p = NULL, **link = &t->root;
	bool leftmost = true, rightmost = true;

	if (t->rightmost && !tree_before(t, se, node_se_nn(t->rightmost))) {
		/* Not before the last node, so not before any: the descent would go right at
		 * every node and end in the last one's empty right slot. */
		p = t->rightmost;
		link = &p->right;
		leftmost = false;
	} else {
		while (*link) {
			p = *link;
			if (tree_before(t, se, node_se_nn(p))) {
				link = &p->left;
				rightmost = false;
			} else {
				link = &p->right;
				leftmost = false;
			}
		}
	}
	n->parent = p;
	n->left = n->right = NULL;
	n->red = true;
	*link = n;
	if (leftmost)
		t->leftmost = n;
	if (rightmost)
		t->rightmost = n;
	/* __enqueue_entity(): a leaf's aggregate is its own; then rb_add_augmented_cached()'s
	 * propagate(parent, NULL) */
	node_se_nn(n)->min_vruntime = se->vruntime;
	node_se_nn(n)->min_slice = se->slice;
	propagate_until(p, NULL);

	while ((p = n->parent) && p->red) {
		struct ts_rb_node *g = p->parent, *u;

		if (p == g->left) {
			u = g->right;
			if (is_red(u)) {
				p->red = u->red = false;
				g->red = true;
				n = g;
				continue;
			}
			if (n == p->right) {
				rotate_left(t, p);
				n = p;
				p = n->parent;
			}
			p->red = false;
			g->red = true;
			rotate_right(t, g);
		} else {
			u = g->left;
			if (is_red(u)) {
				p->red = u->red = false;
				g->red = true;
				n = g;
				continue;
			}
			if (n == p->left) {
				rotate_right(t, p);
				n = p;
				p = n->parent;
			}
			p->red = false;
			g->red = true;
			rotate_left(t, g);
		}
	}
	t->root->red = false;
}

static struct ts_rb_node *rb_first_of(struct ts_rb_node *n)
{
	while (n->left)
		n = n->left;
	return n;
}

static struct ts_rb_node *rb_next(const struct ts_rb_node *n)
{
	const struct ts_rb_node *p;

	if (n->right)
		return rb_first_of(n->right);
	while ((p = n->parent) && n == p->right)
		n = p;
	return (struct ts_rb_node *)p;
}

static struct ts_rb_node *rb_last_of(struct ts_rb_node *n)
{
	while (n->right)
		n = n->right;
	return n;
}

void ts_rb_erase_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se)
{
	struct ts_rb_node *z = &se->run_node, *x, *xp;
	bool removed_red;

	if (t->leftmost == z)
		t->leftmost = rb_next(z);
	/* the last node has no right child: its predecessor is the last of its left
	 * subtree, or its parent (whose right child it is) */
	if (t->rightmost == z)
		t->rightmost = z->left ? rb_last_of(z->left) : z->parent;

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		xp = z->parent;
		removed_red = z->red;
		if (x)
			x->parent = xp;
		change_child(t, xp, z, x);
		/* Every node whose subtree lost z lies on xp's path to the root. */
		propagate_until(xp, NULL);
	} else {
		struct ts_rb_node *y = rb_first_of(z->right);

		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xp = y;
		} else {
			xp = y->parent;
			xp->left = x;
			if (x)
				x->parent = xp;
			y->right = z->right;
			y->right->parent = y;
		}
		change_child(t, z->parent, z, y);
		y->parent = z->parent;
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
		/* __rb_erase_augmented(): the successor takes z's place and z's aggregate
		 * (copy), the nodes below it that lost it are fixed (propagate(parent,
		 * successor)), then from the successor up */
		node_se_nn(y)->min_vruntime = se->min_vruntime;
		node_se_nn(y)->min_slice = se->min_slice;
		propagate_until(xp, y);
		propagate_until(y, NULL);
	}
	z->parent = z->left = z->right = NULL;

	if (removed_red)
		return;
	while (x != t->root && !is_red(x)) {
		struct ts_rb_node *w;

		if (x == xp->left) {
			w = xp->right;
			if (is_red(w)) {
				w->red = false;
				xp->red = true;
				rotate_left(t, xp);
				w = xp->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = xp;
				xp = x->parent;
			} else {
				if (!is_red(w->right)) {
					w->left->red = false;
					w->red = true;
					rotate_right(t, w);
					w = xp->right;
				}
				w->red = xp->red;
				xp->red = false;
				if (w->right)
					w->right->red = false;
				rotate_left(t, xp);
				x = t->root;
				break;
			}
		} else {
			w = xp->left;
			if (is_red(w)) {
				w->red = false;
				xp->red = true;
				rotate_right(t, xp);
				w = xp->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = xp;
				xp = x->parent;
			} else {
				if (!is_red(w->left)) {
					w->right->red = false;
					w->red = true;
					rotate_left(t, w);
					w = xp->left;
				}
				w->red = xp->red;
				xp->red = false;
				if (w->left)
					w->left->red = false;
				rotate_right(t, xp);
				x = t->root;
				break;
			}
		}
	}
	if (x)
		x->red = false;
}
