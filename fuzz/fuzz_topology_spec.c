/* libFuzzer target: ts_topology_load() on spec strings that cannot reach the filesystem or
 * the host: the input always gets the "synthetic:" prefix (an hwloc synthetic description,
 * parsed by hwloc and converted by hwloc_import.c), and is also looked up as a preset name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_domains_check.h"
#include "toposched/topology.h"

/* hwloc builds every object of a synthetic description before ts_topology_load() can
 * count PUs, and wide levels are slow there, so a description that multiplies out to a
 * large machine hangs the load (see the report on hwloc_import.c). Skip inputs whose
 * numbers could multiply past a small bound; every number counts, attributes included. */
static int small_enough(const char *s)
{
	unsigned long long product = 1;
	for (const char *p = s; *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		/* as hwloc reads them: decimal, hex ("0x20") or octal ("020") */
		char *end;
		unsigned long long v = strtoull(p, &end, 0);
		p = end > p ? end : p + 1;
		if (v > 512)
			return 0;
		if (v > 1)
			product *= v;
		if (product > 512)
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256)
		return 0;
	static const char prefix[] = "synthetic:";
	char *spec = malloc(sizeof(prefix) + size);
	if (!spec)
		return 0;
	memcpy(spec, prefix, sizeof(prefix) - 1);
	memcpy(spec + sizeof(prefix) - 1, data, size);
	spec[sizeof(prefix) - 1 + size] = '\0';
	const char *body = spec + sizeof(prefix) - 1;

	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	if (small_enough(body)) {
		int rc = ts_topology_load(spec, &t, &err);
		if (rc) {
			if (rc > 0 || t || err.msg[0] == '\0')
				abort();
		} else if (!t || t->nr_cpus < 1 || t->nr_nodes < 1 ||
			   ts_distance_validate(t->distance, t->nr_nodes, &err) != 0) {
			abort();
		} else {
			fuzz_check_domains(t);
		}
		ts_topology_free(t);
	}

	/* A preset lookup never touches the filesystem either. */
	const struct ts_preset *p = ts_preset_find(body);
	if (p) {
		ts_error_clear(&err);
		t = p->build(&err);
		if (!t)
			abort();
		ts_topology_free(t);
	}
	free(spec);
	return 0;
}
