/* The augmented red-black tree of an EEVDF run queue's entities, our own with the kernel's
 * augmentation (min_vruntime, min_slice); ordering and tie-breaking follow
 * rb_add_augmented_cached(): equal deadlines go to the right, so the earlier-inserted
 * entity stays leftmost. */
#include "eevdf_internal.h"

/* min_vruntime_update() without the early-exit answer: recompute from the children. */
static void augment_recompute(struct ts_rb_node *n)
{
	struct ts_sched_entity *se = node_se(n);
	struct ts_rb_node *kids[2] = {n->right, n->left};

	se->min_vruntime = se->vruntime;
	se->min_slice = se->slice;
	for (int i = 0; i < 2; i++) {
		struct ts_sched_entity *rse;

		if (!kids[i])
			continue;
		rse = node_se(kids[i]);
		if (vdiff(se->min_vruntime, rse->min_vruntime) > 0)
			se->min_vruntime = rse->min_vruntime;
		if (rse->min_slice < se->min_slice)
			se->min_slice = rse->min_slice;
	}
}

void ts_rb_augment_propagate(struct ts_rb_node *n)
{
	for (; n; n = n->parent)
		augment_recompute(n);
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

/* Rotations keep the node set of every ancestor, so only x and y need recomputing. */
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
	augment_recompute(x);
	augment_recompute(y);
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
	augment_recompute(x);
	augment_recompute(y);
}

static inline bool is_red(const struct ts_rb_node *n)
{
	return n && n->red;
}

void ts_rb_insert_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se)
{
	struct ts_rb_node *n = &se->run_node, *p = NULL, **link = &t->root;
	bool leftmost = true;

	while (*link) {
		p = *link;
		if (tree_before(t, se, node_se(p))) {
			link = &p->left;
		} else {
			link = &p->right;
			leftmost = false;
		}
	}
	n->parent = p;
	n->left = n->right = NULL;
	n->red = true;
	*link = n;
	if (leftmost)
		t->leftmost = n;
	ts_rb_augment_propagate(n);

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

void ts_rb_erase_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se)
{
	struct ts_rb_node *z = &se->run_node, *x, *xp;
	bool removed_red;

	if (t->leftmost == z)
		t->leftmost = rb_next(z);

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		xp = z->parent;
		removed_red = z->red;
		if (x)
			x->parent = xp;
		change_child(t, xp, z, x);
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
	}
	/* Every node whose subtree lost z (or had y moved) lies on xp's path to the root. */
	ts_rb_augment_propagate(xp);
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
