/* libFuzzer target: an hwloc XML topology file, loaded as `--topology xml:FILE` is (the
 * file read, checked with libxml2, then given to hwloc and converted); every topology
 * that loads must satisfy the domain invariants (fuzz_domains_check.h). The input is
 * written to one scratch file per process. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_check.h"
#include "fuzz_domains_check.h"
#include "toposched/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_xml.%ld.xml", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	size_t wrote = fwrite(data, 1, size, f);
	if (fclose(f) != 0 || wrote != size)
		return 0;

	char spec[80];
	snprintf(spec, sizeof(spec), "xml:%s", path);
	fuzz_check_load(spec);
	unlink(path);
	return 0;
}
