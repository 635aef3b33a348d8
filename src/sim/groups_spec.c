/* The --groups-spec syntax (include/toposched/sim_groups.h), the tg_layout= token of a
 * --compare configuration, and the arithmetic of per-run group results. */
#include "toposched/sim_groups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "toposched/sim.h"

#define SPEC_ERR(err, ...) ts_error_set((err), -EINVAL, __VA_ARGS__)

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* The list of w's class names for messages: "a, b". */
static void class_list(const struct ts_workload *w, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < w->nr_classes && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
					w->classes[i].name ? w->classes[i].name : "?");
}

static int find_node(const struct ts_groups_spec *s, int parent, const char *name)
{
	for (int i = 0; i < s->nr_nodes; i++)
		if (s->node[i].parent == parent && strcmp(s->node[i].name, name) == 0)
			return i;
	return -1;
}

static bool has_children(const struct ts_groups_spec *s, int node)
{
	for (int i = 0; i < s->nr_nodes; i++)
		if (s->node[i].parent == node)
			return true;
	return false;
}

/* "a/b/c" for node i, for messages. */
static void node_path(const struct ts_groups_spec *s, int i, char *buf, size_t size)
{
	int chain[TS_GROUPS_MAX_DEPTH], n = 0;
	for (; i >= 0 && n < TS_GROUPS_MAX_DEPTH; i = s->node[i].parent)
		chain[n++] = i;
	size_t len = 0;
	buf[0] = '\0';
	while (n-- > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "/" : "",
					s->node[chain[n]].name);
}

/* One GROUP token "NAME[:SHARES]" below parent; the node index in *node. */
static int parse_group(struct ts_groups_spec *s, const char *entry, const char *tok, size_t len,
		       int parent, bool last, bool instance, int *node, struct ts_error *err)
{
	char text[TS_GROUPS_SPEC_MAX];
	snprintf(text, sizeof(text), "%.*s", (int)len, tok);
	char *colon = strchr(text, ':');
	const char *shares_text = NULL;
	if (colon) {
		*colon = '\0';
		shares_text = colon + 1;
	}
	size_t nlen = strlen(text);
	size_t max = last && instance ? TS_GROUPS_TEMPLATE_MAX : TS_TG_NAME_MAX - 1;
	bool ok = nlen >= 1 && nlen <= max;
	for (size_t i = 0; ok && i < nlen; i++)
		ok = name_char(text[i]);
	if (!ok)
		return SPEC_ERR(err, "group name '%s' in '%s': 1 to %zu letters, digits or '_-.'%s",
				text, entry, max,
				last && instance
					? " (a per-instance name leaves room for the number)"
					: "");
	unsigned long shares = 1024;
	if (shares_text) {
		char *end;
		bool digits = shares_text[0] >= '0' && shares_text[0] <= '9';
		unsigned long long v = digits ? strtoull(shares_text, &end, 10) : 0;
		if (!digits || *end || strlen(shares_text) > 7 || v < TS_GROUPS_SHARES_MIN ||
		    v > TS_GROUPS_SHARES_MAX)
			return SPEC_ERR(
				err,
				"shares '%s' of group '%s' in '%s': not an integer from %d to %d",
				shares_text, text, entry, TS_GROUPS_SHARES_MIN,
				TS_GROUPS_SHARES_MAX);
		shares = (unsigned long)v;
	}
	int i = find_node(s, parent, text);
	if (i >= 0) {
		struct ts_groups_node *n = &s->node[i];
		char path[256];
		node_path(s, i, path, sizeof(path));
		if (shares_text && n->shares_given && n->shares != shares)
			return SPEC_ERR(err, "group '%s' in '%s': shares %lu, but %lu before", path,
					entry, shares, n->shares);
		if (n->per_instance)
			return SPEC_ERR(
				err,
				"group '%s' in '%s': a per-instance group (=instance) cannot "
				"be named again or have children",
				path, entry);
		if (shares_text) {
			n->shares = shares;
			n->shares_given = true;
		}
		*node = i;
		return 0;
	}
	if (s->nr_nodes >= TS_GROUPS_MAX_NODES)
		return SPEC_ERR(err, "group '%s' in '%s': more than %d groups", text, entry,
				TS_GROUPS_MAX_NODES);
	struct ts_groups_node *n = &s->node[s->nr_nodes];
	memset(n, 0, sizeof(*n));
	memcpy(n->name, text, nlen + 1);
	n->parent = parent;
	n->shares = shares;
	n->shares_given = shares_text != NULL;
	*node = s->nr_nodes++;
	return 0;
}

/* Do entries a and b select a task in common? */
static bool overlap(const struct ts_groups_entry *a, const struct ts_groups_entry *b)
{
	if (a->who != TS_GROUPS_CLASS || b->who != TS_GROUPS_CLASS)
		return true;
	return strcmp(a->class_name, b->class_name) == 0;
}

static int parse_entry(struct ts_groups_spec *s, const char *entry, const struct ts_workload *w,
		       const char *const *entry_text, struct ts_error *err)
{
	const char *eq = strchr(entry, '=');
	if (!eq || eq == entry)
		return SPEC_ERR(err, "'%s': expected PATH=WHO (e.g. app:1024=all)", entry);
	if (s->nr_entries >= TS_GROUPS_MAX_ENTRIES)
		return SPEC_ERR(err, "'%s': more than %d entries", entry, TS_GROUPS_MAX_ENTRIES);
	struct ts_groups_entry *e = &s->entry[s->nr_entries];
	memset(e, 0, sizeof(*e));
	const char *who = eq + 1;
	if (strcmp(who, "all") == 0) {
		e->who = TS_GROUPS_ALL;
	} else if (strcmp(who, "instance") == 0) {
		e->who = TS_GROUPS_INSTANCE;
	} else if (strncmp(who, "class:", 6) == 0 && who[6]) {
		e->who = TS_GROUPS_CLASS;
		const char *cls = who + 6;
		if (strlen(cls) >= sizeof(e->class_name))
			return SPEC_ERR(err, "'%s': class name '%s' is too long", entry, cls);
		snprintf(e->class_name, sizeof(e->class_name), "%s", cls);
		if (w) {
			bool found = false;
			for (int i = 0; i < w->nr_classes && !found; i++)
				found = w->classes[i].name && strcmp(w->classes[i].name, cls) == 0;
			if (!found) {
				char names[256];
				class_list(w, names, sizeof(names));
				return SPEC_ERR(
					err,
					"'%s': workload '%s' has no class '%s' (its classes: %s)",
					entry, w->name ? w->name : "?", cls, names);
			}
		}
	} else {
		return SPEC_ERR(err, "'%s': '%s' is not all, instance or class:NAME", entry, who);
	}
	/* the path, group by group */
	int parent = -1, depth = 0;
	for (const char *p = entry;;) {
		const char *slash = memchr(p, '/', (size_t)(eq - p));
		const char *end = slash ? slash : eq;
		if (end == p)
			return SPEC_ERR(err, "'%s': empty group name in the path", entry);
		if (++depth > TS_GROUPS_MAX_DEPTH)
			return SPEC_ERR(err, "'%s': deeper than %d levels", entry,
					TS_GROUPS_MAX_DEPTH);
		bool last = end == eq;
		int rc = parse_group(s, entry, p, (size_t)(end - p), parent, last,
				     e->who == TS_GROUPS_INSTANCE, &parent, err);
		if (rc)
			return rc;
		if (last)
			break;
		p = end + 1;
	}
	struct ts_groups_node *leaf = &s->node[parent];
	if (e->who == TS_GROUPS_INSTANCE) {
		char path[256];
		node_path(s, parent, path, sizeof(path));
		bool named = false; /* by an earlier entry, as a leaf or a parent */
		for (int i = 0; i < s->nr_entries; i++)
			named |= s->entry[i].node == parent;
		if (named || has_children(s, parent))
			return SPEC_ERR(err,
					"'%s': group '%s' is named elsewhere too, so it cannot be "
					"per-instance",
					entry, path);
		leaf->per_instance = true;
	}
	e->node = parent;
	for (int i = 0; i < s->nr_entries; i++)
		if (overlap(e, &s->entry[i])) {
			const char *what =
				e->who == TS_GROUPS_CLASS && s->entry[i].who == TS_GROUPS_CLASS
					? "the tasks of one class"
					: "the same tasks";
			return SPEC_ERR(err, "'%s' and '%s' both select %s", entry_text[i], entry,
					what);
		}
	s->nr_entries++;
	return 0;
}

int ts_groups_spec_parse(const char *text, const struct ts_workload *w, struct ts_groups_spec *out,
			 struct ts_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!text || !text[0])
		return SPEC_ERR(err, "empty (expected PATH=WHO, e.g. app:1024=all)");
	if (strlen(text) >= sizeof(out->text))
		return SPEC_ERR(err, "longer than %d characters", TS_GROUPS_SPEC_MAX - 1);
	snprintf(out->text, sizeof(out->text), "%s", text);
	/* entries, split at commas; each entry's own text kept for messages */
	char buf[TS_GROUPS_SPEC_MAX];
	const char *entry_text[TS_GROUPS_MAX_ENTRIES + 1];
	snprintf(buf, sizeof(buf), "%s", text);
	char *p = buf;
	for (int n = 0;; n++) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p)
			return SPEC_ERR(err,
					"empty entry %d (entries are separated by single commas)",
					n + 1);
		if (n <= TS_GROUPS_MAX_ENTRIES)
			entry_text[n] = p;
		int rc = parse_entry(out, p, w, entry_text, err);
		if (rc)
			return rc;
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/* ---- tg_layout= in a --compare string ---- */

struct take_layout {
	enum ts_tg_layout *layout;
	bool *given;
};

static int take_layout(const char *value, void *ctx, struct ts_error *err)
{
	struct take_layout *t = ctx;
	if (!*value)
		return SPEC_ERR(err, "'tg_layout=': expected " TS_TG_LAYOUT_NAMES);
	if (ts_tg_layout_parse(value, t->layout, err))
		return -EINVAL;
	*t->given = true;
	return 0;
}

int ts_tg_layout_take(const char *features, char *rest, size_t rest_size, enum ts_tg_layout *layout,
		      bool *given, struct ts_error *err)
{
	struct take_layout t = {layout, given};
	*given = false;
	return ts_features_take_key(features, "tg_layout=", rest, rest_size, take_layout, &t, err);
}

/* ---- results ---- */

void ts_sim_tg_result_add(struct ts_sim_tg_result *a, const struct ts_sim_tg_result *b)
{
	if (!b->enabled)
		return;
	if (!a->enabled) {
		a->enabled = true;
		a->nr_top = b->nr_top;
		a->nr_cpus = b->nr_cpus;
		memcpy(a->top_name, b->top_name, sizeof(a->top_name));
	}
	a->window_ns += b->window_ns;
	a->load_avg_writes += b->load_avg_writes;
	a->load_avg_reads += b->load_avg_reads;
	a->skipped_ratelimit += b->skipped_ratelimit;
	a->skipped_filter += b->skipped_filter;
	a->line_reads += b->line_reads;
	a->line_writes += b->line_writes;
	for (int r = 0; r < TS_REL_NR; r++)
		a->line_misses[r] += b->line_misses[r];
	a->remote_node_writes += b->remote_node_writes;
	a->stall_ns += b->stall_ns;
	a->wait_ns += b->wait_ns;
	for (int r = 0; r < TS_SIM_TG_READER_NR; r++)
		for (int k = 0; k < 2; k++)
			a->hitm[r][k] += b->hitm[r][k];
	a->hitm_ns += b->hitm_ns;
	for (int i = 0; i < TS_SIM_TG_TOP_MAX; i++)
		a->top_exec_ns[i] += b->top_exec_ns[i];
	a->other_top_exec_ns += b->other_top_exec_ns;
	a->root_exec_ns += b->root_exec_ns;
}

uint64_t ts_sim_tg_line_misses(const struct ts_sim_tg_result *r)
{
	uint64_t n = 0;
	for (int i = 0; i < TS_REL_NR; i++)
		n += r->line_misses[i];
	return n;
}

uint64_t ts_sim_tg_exec_ns(const struct ts_sim_tg_result *r)
{
	uint64_t n = r->other_top_exec_ns + r->root_exec_ns;
	for (int i = 0; i < TS_SIM_TG_TOP_MAX; i++)
		n += r->top_exec_ns[i];
	return n;
}
