#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "toposched/domain.h"

static const char topo_help[] =
	"usage: toposched topo [--topology SPEC] [--distance MATRIX] [--cpus LIST]\n"
	"                      [--format text|json]\n"
	"\n"
	"Shows the machine (CPUs, cores, clusters, LLCs, nodes, distance matrix) and, per CPU,\n"
	"its scheduling domains bottom-up after degenerate-level removal: level, span, flags,\n"
	"sd_init() constants and groups, as the kernel's sched_domain debug output shows them.\n"
	"\n"
	"  --topology SPEC    host | a preset (toposched machines) | FILE.xml | xml:FILE |\n"
	"                     a sysfs root DIR | fsroot:DIR | an hwloc synthetic string\n"
	"                     (default " CLI_DEFAULT_TOPOLOGY ")\n"
	"  --distance MATRIX  replace the node distances, rows separated by ';'\n"
	"                     (e.g. \"10 20; 20 10\")\n"
	"  --cpus LIST        show only these CPUs (cpulist, e.g. 0-3,64)\n"
	"  --format FMT       text (default) or json (schema: docs/topo-json.md)\n";

static void print_mask(FILE *out, const struct ts_cpumask *m)
{
	char *s = ts_cpumask_to_string(m);
	fputs(s ? s : "?", out);
	free(s);
}

static void text_domains(const struct ts_domains *d, const struct ts_cpumask *show)
{
	const struct ts_topology *t = d->topo;
	char flags[512];
	printf("machine: %s  (%s)\n", t->name, t->description);
	printf("cpus %d  cores %d  clusters %d  llcs %d  nodes %d  packages %d\n", t->nr_cpus,
	       t->nr_cores, t->nr_clusters, t->nr_llcs, t->nr_nodes, t->nr_packages);
	printf("smt_active %s  cluster_active %s  numa_topology_type %s\n",
	       d->smt_active ? "yes" : "no", d->cluster_active ? "yes" : "no",
	       ts_numa_topology_type_name(d->numa.type));
	printf("numa levels (distances):");
	for (int i = 0; i < d->numa.nr_levels; i++)
		printf(" %d", d->numa.distance[i]);
	printf("\n\nnode distances:\nnode ");
	for (int b = 0; b < t->nr_nodes; b++)
		printf(" %3d", b);
	putchar('\n');
	for (int a = 0; a < t->nr_nodes; a++) {
		printf("%3d: ", a);
		for (int b = 0; b < t->nr_nodes; b++)
			printf(" %3d", ts_topo_distance(t, a, b));
		struct ts_cpumask *m = ts_cpumask_alloc(t->nr_cpus);
		if (m) {
			ts_topology_node_mask(t, a, m);
			printf("   cpus ");
			if (ts_cpumask_empty(m))
				printf("(none: memory only)");
			else
				print_mask(stdout, m);
			ts_cpumask_free(m);
		}
		putchar('\n');
	}
	int cpu;
	ts_for_each_cpu(cpu, show)
	{
		const struct ts_cpu_topo *c = &t->cpu[cpu];
		const struct ts_cpu_domains *cd = &d->cpu[cpu];
		printf("\nCPU%d core %d cluster %d llc %d node %d package %d: llc_id %d share_id "
		       "%d sd_llc_size %d\n",
		       cpu, c->core, c->cluster, c->llc, c->node, c->package, cd->sd_llc_id,
		       cd->sd_share_id, cd->sd_llc_size);
		if (!cd->sd) {
			printf(" attaching NULL sched-domain.\n");
			continue;
		}
		int depth = 0;
		for (struct ts_sched_domain *sd = cd->sd; sd; sd = sd->parent, depth++) {
			printf("%*s domain-%d: span=", depth, "", depth);
			print_mask(stdout, sd->span);
			printf(" level=%s\n", sd->name);
			ts_sd_flags_format(sd->flags, flags, sizeof(flags));
			printf("%*s  flags=%s\n", depth, "", flags);
			printf("%*s  imbalance_pct=%u cache_nice_tries=%u busy_factor=%u "
			       "min_interval=%u max_interval=%u imb_numa_nr=%u%s\n",
			       depth, "", sd->imbalance_pct, sd->cache_nice_tries, sd->busy_factor,
			       sd->min_interval, sd->max_interval, sd->imb_numa_nr,
			       sd == cd->sd_llc ? "  [sd_llc]" : "");
			printf("%*s  groups:", depth, "");
			for (int g = 0; g < sd->nr_groups; g++) {
				const struct ts_sched_group *sg = sd->groups[g];
				printf("%s %d:{ span=", g ? "," : "", sg->sgc->id);
				print_mask(stdout, sg->span);
				if ((sd->flags & TS_SD_NUMA) && sg->balance_mask != sg->span) {
					printf(" mask=");
					print_mask(stdout, sg->balance_mask);
				}
				if (sg->sgc->capacity != TS_CAPACITY_SCALE)
					printf(" cap=%lu", sg->sgc->capacity);
				printf(" }");
			}
			putchar('\n');
		}
	}
}

static void json_mask(struct json_writer *w, const struct ts_cpumask *m)
{
	char *s = ts_cpumask_to_string(m);
	json_string(w, s ? s : "");
	free(s);
}

static void json_domains(const struct ts_domains *d, const struct ts_cpumask *show)
{
	const struct ts_topology *t = d->topo;
	struct json_writer w;
	json_init(&w, stdout);
	json_begin_object(&w);
	json_key(&w, "machine");
	json_string(&w, t->name);
	json_key(&w, "description");
	json_string(&w, t->description);
	json_key(&w, "nr_cpus");
	json_int(&w, t->nr_cpus);
	json_key(&w, "nr_cores");
	json_int(&w, t->nr_cores);
	json_key(&w, "nr_clusters");
	json_int(&w, t->nr_clusters);
	json_key(&w, "nr_llcs");
	json_int(&w, t->nr_llcs);
	json_key(&w, "nr_nodes");
	json_int(&w, t->nr_nodes);
	json_key(&w, "nr_packages");
	json_int(&w, t->nr_packages);
	json_key(&w, "smt_active");
	json_bool(&w, d->smt_active);
	json_key(&w, "cluster_active");
	json_bool(&w, d->cluster_active);
	json_key(&w, "numa_topology_type");
	json_string(&w, ts_numa_topology_type_name(d->numa.type));
	json_key(&w, "numa_distances");
	json_begin_array(&w);
	for (int i = 0; i < d->numa.nr_levels; i++)
		json_int(&w, d->numa.distance[i]);
	json_end_array(&w);
	json_key(&w, "distance");
	json_begin_array(&w);
	for (int a = 0; a < t->nr_nodes; a++) {
		json_begin_array(&w);
		for (int b = 0; b < t->nr_nodes; b++)
			json_int(&w, ts_topo_distance(t, a, b));
		json_end_array(&w);
	}
	json_end_array(&w);
	json_key(&w, "cpus");
	json_begin_array(&w);
	int cpu;
	ts_for_each_cpu(cpu, show)
	{
		const struct ts_cpu_topo *c = &t->cpu[cpu];
		const struct ts_cpu_domains *cd = &d->cpu[cpu];
		json_begin_object(&w);
		json_key(&w, "cpu");
		json_int(&w, cpu);
		json_key(&w, "core");
		json_int(&w, c->core);
		json_key(&w, "cluster");
		json_int(&w, c->cluster);
		json_key(&w, "llc");
		json_int(&w, c->llc);
		json_key(&w, "node");
		json_int(&w, c->node);
		json_key(&w, "package");
		json_int(&w, c->package);
		json_key(&w, "llc_id");
		json_int(&w, cd->sd_llc_id);
		json_key(&w, "share_id");
		json_int(&w, cd->sd_share_id);
		json_key(&w, "sd_llc_size");
		json_int(&w, cd->sd_llc_size);
		json_key(&w, "domains");
		json_begin_array(&w);
		for (struct ts_sched_domain *sd = cd->sd; sd; sd = sd->parent) {
			json_begin_object(&w);
			json_key(&w, "level");
			json_string(&w, sd->name);
			json_key(&w, "span");
			json_mask(&w, sd->span);
			json_key(&w, "flags");
			json_begin_array(&w);
			for (int f = 0; f < TS_SD_FLAG_COUNT; f++)
				if (sd->flags & (1u << f))
					json_string(&w, ts_sd_flag_name(1u << f));
			json_end_array(&w);
			json_key(&w, "groups");
			json_begin_array(&w);
			for (int g = 0; g < sd->nr_groups; g++)
				json_mask(&w, sd->groups[g]->span);
			json_end_array(&w);
			json_key(&w, "imb_numa_nr");
			json_int(&w, sd->imb_numa_nr);
			json_key(&w, "imbalance_pct");
			json_int(&w, sd->imbalance_pct);
			json_key(&w, "cache_nice_tries");
			json_int(&w, sd->cache_nice_tries);
			json_key(&w, "busy_factor");
			json_int(&w, sd->busy_factor);
			json_key(&w, "min_interval");
			json_int(&w, sd->min_interval);
			json_key(&w, "max_interval");
			json_int(&w, sd->max_interval);
			json_key(&w, "llc");
			json_bool(&w, sd == cd->sd_llc);
			json_end_object(&w);
		}
		json_end_array(&w);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
}

int cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"topology", required_argument, NULL, 't'},
		{"machine", required_argument, NULL, 't'},
		{"distance", required_argument, NULL, 'd'},
		{"cpus", required_argument, NULL, 'c'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *spec = CLI_DEFAULT_TOPOLOGY, *distance = NULL, *cpus = NULL;
	enum cli_format format = CLI_FORMAT_TEXT;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":t:d:c:f:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 't':
			spec = optarg;
			break;
		case 'd':
			distance = optarg;
			break;
		case 'c':
			cpus = optarg;
			break;
		case 'f':
			if (cli_parse_format("topo", optarg, &format))
				return CLI_EXIT_USAGE;
			break;
		case 'h':
			fputs(topo_help, stdout);
			return 0;
		default:
			return cli_getopt_error("topo", opt, argv);
		}
	}
	if (optind < argc)
		return cli_error("topo", "unexpected argument '%s'", argv[optind]);
	struct ts_topology *t;
	if (cli_load_topology("topo", spec, distance, &t))
		return CLI_EXIT_USAGE;
	struct ts_error err = {0};
	struct ts_cpumask *show = ts_cpumask_alloc(t->nr_cpus);
	struct ts_domains *d = NULL;
	int rc = 0;
	if (!show) {
		rc = cli_error("topo", "out of memory");
	} else if (cpus) {
		if (ts_cpumask_parse(show, cpus, &err))
			rc = cli_error("topo", "--cpus: %s", err.msg);
	} else {
		ts_cpumask_fill(show);
	}
	if (!rc && ts_domains_build(t, NULL, &d, &err))
		rc = cli_error("topo", "topology '%s': %s", spec, err.msg);
	if (!rc) {
		if (format == CLI_FORMAT_JSON)
			json_domains(d, show);
		else
			text_domains(d, show);
		if (fflush(stdout) || ferror(stdout))
			rc = cli_error("topo", "writing the output failed");
	}
	ts_domains_free(d);
	ts_cpumask_free(show);
	ts_topology_free(t);
	return rc;
}
