/* libFuzzer target: ts_groups_spec_parse() (the --groups-spec of toposched sim) on arbitrary
 * text, without and with a workload whose class names it must check, and ts_tg_layout_take()
 * (the tg_layout= token of a --compare string) on the same text. Never crashes; an error is
 * -EINVAL with a message; a parsed spec is well formed: parents before children, depth and
 * counts within their bounds, shares in range, every entry pointing at a node, and a
 * template only as a leaf selecting every task alone. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "toposched/sim.h"
#include "toposched/sim_groups.h"

static void check_spec(const struct ts_groups_spec *s, const char *text)
{
	CHECK(strncmp(s->text, text, sizeof(s->text) - 1) == 0);
	CHECK(s->nr_nodes >= 1 && s->nr_nodes <= TS_GROUPS_MAX_NODES);
	CHECK(s->nr_entries >= 1 && s->nr_entries <= TS_GROUPS_MAX_ENTRIES);
	for (int i = 0; i < s->nr_nodes; i++) {
		const struct ts_groups_node *n = &s->node[i];
		CHECK(n->parent >= -1 && n->parent < i);
		CHECK(n->shares >= TS_GROUPS_SHARES_MIN && n->shares <= TS_GROUPS_SHARES_MAX);
		size_t len = strnlen(n->name, sizeof(n->name));
		CHECK(len >= 1 && len < sizeof(n->name));
		int depth = 1;
		for (int p = n->parent; p >= 0; p = s->node[p].parent)
			depth++;
		CHECK(depth <= TS_GROUPS_MAX_DEPTH);
		if (n->parent >= 0)
			CHECK(!s->node[n->parent].per_instance); /* a template has no children */
	}
	for (int e = 0; e < s->nr_entries; e++) {
		const struct ts_groups_entry *en = &s->entry[e];
		CHECK(en->node >= 0 && en->node < s->nr_nodes);
		CHECK(en->who == TS_GROUPS_ALL || en->who == TS_GROUPS_CLASS ||
		      en->who == TS_GROUPS_INSTANCE);
		CHECK((en->who == TS_GROUPS_INSTANCE) == s->node[en->node].per_instance);
		if (en->who == TS_GROUPS_INSTANCE)
			CHECK(s->nr_entries == 1);
		if (en->who == TS_GROUPS_CLASS)
			CHECK(en->class_name[0] != '\0');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return 0;

	const struct ts_workload *ws[] = {NULL, ts_workload_find("netperf-udp-rr")};
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++) {
		struct ts_groups_spec *spec = malloc(sizeof(*spec));
		if (!spec)
			break;
		struct ts_error err = {0};
		int rc = ts_groups_spec_parse(text, ws[i], spec, &err);
		if (rc) {
			CHECK(rc == -EINVAL && err.code == rc && err.msg[0] != '\0');
		} else {
			CHECK(err.code == 0);
			check_spec(spec, text);
		}
		free(spec);
	}

	char rest[TS_FEATURES_STR_MAX];
	enum ts_tg_layout layout = TS_TG_ALIGNED;
	bool given = false;
	struct ts_error err = {0};
	int rc = ts_tg_layout_take(text, rest, sizeof(rest), &layout, &given, &err);
	if (rc) {
		CHECK(rc == -EINVAL && err.code == rc && err.msg[0] != '\0');
	} else {
		CHECK(strlen(rest) == strlen(text)); /* tokens blanked, offsets kept */
		CHECK(!given || (unsigned)layout < TS_TG_LAYOUT_NR);
	}
	free(text);
	return 0;
}
