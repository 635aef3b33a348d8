#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char machines_help[] =
	"usage: toposched machines\n"
	"\n"
	"Lists the built-in machine presets, one line each. Any preset name can be given\n"
	"to --topology; so can 'host', an hwloc XML file, a sysfs root or a synthetic string.\n";

int cmd_machines(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(machines_help, stdout);
			return 0;
		}
		return cli_getopt_error("machines", opt, argv);
	}
	if (optind < argc)
		return cli_error("machines", "unexpected argument '%s'", argv[optind]);
	int count;
	const struct ts_preset *p = ts_preset_list(&count);
	for (int i = 0; i < count; i++)
		printf("%-16s %s\n", p[i].name, p[i].description);
	return 0;
}
