/* toposched: topology-aware scheduling, from the kernel's rules, in user space. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_run.h"
#include "git_version.h" /* TS_GIT_DESCRIBE, generated at build time */

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{"topo", cmd_topo, "show a machine's topology and its scheduling domains"},
	{"sim", cmd_sim, "simulate a workload under scheduler configurations and compare them"},
	{"merge", cmd_merge, "merge the parts of a sweep run in shards (sim --shard K/N)"},
	{"spread", cmd_spread, "list CPUs in cpumask_local_spread() order from a node"},
	{"machines", cmd_machines, "list the built-in machine presets"},
	{"features", cmd_features, "list the scheduler feature switches (sched/features)"},
	{"bench", cmd_bench, "benchmark the runtime against the kernel's threads, side by side"},
	{"run", cmd_run, "run an rt-app workload file's threads as tasks of the runtime"},
	{"compare-real", cmd_compare_real,
	 "run an rt-app file in the runtime and the simulator, side by side"},
	{"validate", cmd_validate, "run the published experiments and show the model against them"},
};

static void usage(FILE *out)
{
	fputs("usage: toposched COMMAND [OPTIONS]\n\ncommands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'toposched COMMAND --help' describes each command's options;\n"
	      "'toposched --version' names the version.\n"
	      "The main job: 'toposched sim' with no options runs the default experiment,\n"
	      "tbench on " CLI_DEFAULT_TOPOLOGY " node 0 at 1..128 clients, without and with\n"
	      "cluster-aware wake-up (NO_SIS_CLUSTER vs SIS_CLUSTER).\n",
	      out);
}

/* "toposched 0.1.0", then the git describe of the tree built when there was one */
static void version(void)
{
	if (TS_GIT_DESCRIBE[0])
		printf("toposched %s (git %s)\n", TS_PROJECT_VERSION, TS_GIT_DESCRIBE);
	else
		printf("toposched %s\n", TS_PROJECT_VERSION);
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		version();
		return cli_flush_stdout("version");
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "toposched: error: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
