#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "toposched/json_writer.h"
#include "toposched/numa_levels.h"
#include "toposched/spread.h"

static const char spread_help[] =
	"usage: toposched spread [--topology SPEC] [--distance MATRIX] --node N [--count K]\n"
	"                        [--policy plain|nearest-node|numa-hops] [--format text|json]\n"
	"                        [--output FILE]\n"
	"\n"
	"Lists cpumask_local_spread(i, N) for i = 0..K-1: the CPUs a driver spreading K queues\n"
	"from node N would get, nearest first (default K = all CPUs).\n"
	"\n"
	"  --node N        the node to spread from; 'none' for NUMA_NO_NODE\n"
	"  --count K       how many CPUs (i wraps modulo the CPU count, as in the kernel)\n"
	"  --policy P      numa-hops (Linux 6.3+, default): hop by hop over the sorted\n"
	"                  distances, CPUs of one hop in id order;\n"
	"                  nearest-node (2019 proposal): node by node by distance;\n"
	"                  plain (before 6.3): the node's CPUs, then the rest in id order\n"
	"  --topology, --distance, --format, --output as for 'toposched topo'\n";

int cmd_spread(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"topology", required_argument, NULL, 't'},
		{"machine", required_argument, NULL, 't'},
		{"distance", required_argument, NULL, 'd'},
		{"node", required_argument, NULL, 'n'},
		{"count", required_argument, NULL, 'k'},
		{"policy", required_argument, NULL, 'p'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *spec = CLI_DEFAULT_TOPOLOGY, *distance = NULL, *node_arg = NULL;
	const char *count_arg = NULL, *output = NULL;
	enum ts_spread_policy policy = TS_SPREAD_NUMA_HOPS;
	enum cli_format format = CLI_FORMAT_TEXT;
	struct ts_error err = {0};
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":t:d:n:k:p:f:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			spec = optarg;
			break;
		case 'd':
			distance = optarg;
			break;
		case 'n':
			node_arg = optarg;
			break;
		case 'k':
			count_arg = optarg;
			break;
		case 'p':
			if (ts_spread_policy_parse(optarg, &policy, &err))
				return cli_error("spread", "--policy: %s", err.msg);
			break;
		case 'f':
			if (cli_parse_format("spread", optarg, &format))
				return CLI_EXIT_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(spread_help, stdout);
			return 0;
		default:
			return cli_getopt_error("spread", opt, argv);
		}
	}
	if (optind < argc)
		return cli_error("spread", "unexpected argument '%s'", argv[optind]);
	if (!node_arg)
		return cli_error("spread", "--node is required (a node number, or 'none')");
	struct ts_topology *t;
	int load_rc = cli_load_topology("spread", spec, distance, &t);
	if (load_rc)
		return load_rc; /* the loader's whole message */
	long node = TS_NUMA_NO_NODE, count = t->nr_cpus;
	int rc = 0;
	if (strcmp(node_arg, "none") != 0 &&
	    cli_parse_int("spread", "--node", node_arg, 0, t->nr_nodes - 1, &node))
		rc = CLI_EXIT_USAGE;
	if (!rc && count_arg && cli_parse_int("spread", "--count", count_arg, 1, 1L << 24, &count))
		rc = CLI_EXIT_USAGE;
	struct ts_numa_levels nl = {0};
	struct ts_cpumask *online = ts_cpumask_alloc(t->nr_cpus);
	if (!rc && (!online || ts_numa_levels_init(&nl, t, &err)))
		rc = cli_error("spread", "out of memory");
	struct cli_output output_file = {0};
	if (!rc && cli_output_open(&output_file, "spread", "--output", output))
		rc = CLI_EXIT_USAGE;
	if (!rc) {
		FILE *out = cli_output_stream(&output_file);
		ts_cpumask_fill(online);
		struct ts_json_writer w;
		if (format == CLI_FORMAT_JSON) {
			ts_json_init(&w, out, CLI_JSON_PRECISION);
			ts_json_begin_object(&w);
			ts_json_key(&w, "machine");
			ts_json_string(&w, t->name);
			ts_json_key(&w, "node");
			if (node < 0)
				ts_json_null(&w);
			else
				ts_json_int(&w, node);
			ts_json_key(&w, "policy");
			ts_json_string(&w, ts_spread_policy_name(policy));
			ts_json_key(&w, "cpus");
			ts_json_begin_array(&w);
		} else {
			fprintf(out, "cpumask_local_spread(i, %s) on %s, policy %s\n", node_arg,
				t->name, ts_spread_policy_name(policy));
			fprintf(out, "%6s %6s %5s %9s\n", "i", "cpu", "node", "distance");
		}
		for (long i = 0; i < count; i++) {
			int cpu = ts_cpumask_local_spread(&nl, online, policy,
							  (int)(i % t->nr_cpus), (int)node);
			if (format == CLI_FORMAT_JSON) {
				ts_json_int(&w, cpu);
				continue;
			}
			int cnode = t->cpu[cpu].node;
			if (node >= 0)
				fprintf(out, "%6ld %6d %5d %9d\n", i, cpu, cnode,
					ts_topo_distance(t, (int)node, cnode));
			else
				fprintf(out, "%6ld %6d %5d %9s\n", i, cpu, cnode, "-");
		}
		int doc = 0;
		if (format == CLI_FORMAT_JSON) {
			ts_json_end_array(&w);
			doc = ts_json_end_object(&w);
		}
		rc = cli_output_commit_doc(&output_file, doc);
	}
	cli_output_discard(&output_file);
	ts_numa_levels_destroy(&nl);
	ts_cpumask_free(online);
	ts_topology_free(t);
	return rc;
}
