#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "toposched/domain.h"
#include "toposched/json_writer.h"

static const char topo_help[] =
	"usage: toposched topo [--topology SPEC] [--distance MATRIX] [--cpus LIST]\n"
	"                      [--format text|json] [--output FILE] [--export FILE.xml]\n"
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
	"  --format FMT       text (default) or json (schema: docs/topo-json.md)\n"
	"  --output FILE      write to FILE instead of standard output (as 'toposched sim\n"
	"                     --output' does: complete or untouched)\n"
	"  --export FILE.xml  write the machine (with --distance's matrix) as an hwloc v2\n"
	"                     XML topology instead, for lstopo (lstopo --input FILE.xml\n"
	"                     out.svg) or --topology FILE.xml; '-' is standard output\n";

static void print_mask(FILE *out, const struct ts_cpumask *m)
{
	char *s = ts_cpumask_to_string(m);
	fputs(s ? s : "?", out);
	free(s);
}

static void text_domains(FILE *out, const struct ts_domains *d, const struct ts_cpumask *show)
{
	const struct ts_topology *t = d->topo;
	char flags[512];
	fprintf(out, "machine: %s  (%s)\n", t->name, t->description);
	fprintf(out, "cpus %d  cores %d  clusters %d  llcs %d  nodes %d  packages %d\n", t->nr_cpus,
		t->nr_cores, t->nr_clusters, t->nr_llcs, t->nr_nodes, t->nr_packages);
	if (t->llc_bytes)
		fprintf(out, "llc size %llu KiB\n", (unsigned long long)(t->llc_bytes >> 10));
	else
		fprintf(out, "llc size unknown\n");
	fprintf(out, "smt_active %s  cluster_active %s  numa_topology_type %s\n",
		d->smt_active ? "yes" : "no", d->cluster_active ? "yes" : "no",
		ts_numa_topology_type_name(d->numa.type));
	fprintf(out, "numa levels (distances):");
	for (int i = 0; i < d->numa.nr_levels; i++)
		fprintf(out, " %d", d->numa.distance[i]);
	fprintf(out, "\n\nnode distances:\nnode ");
	for (int b = 0; b < t->nr_nodes; b++)
		fprintf(out, " %3d", b);
	fputc('\n', out);
	for (int a = 0; a < t->nr_nodes; a++) {
		fprintf(out, "%3d: ", a);
		for (int b = 0; b < t->nr_nodes; b++)
			fprintf(out, " %3d", ts_topo_distance(t, a, b));
		struct ts_cpumask *m = ts_cpumask_alloc(t->nr_cpus);
		if (m) {
			ts_topology_node_mask(t, a, m);
			fprintf(out, "   cpus ");
			if (ts_cpumask_empty(m))
				fprintf(out, "(none: memory only)");
			else
				print_mask(out, m);
			ts_cpumask_free(m);
		}
		fputc('\n', out);
	}
	int cpu;
	ts_for_each_cpu(cpu, show)
	{
		const struct ts_cpu_topo *c = &t->cpu[cpu];
		const struct ts_cpu_domains *cd = &d->cpu[cpu];
		fprintf(out,
			"\nCPU%d core %d cluster %d llc %d node %d package %d: llc_id %d share_id "
			"%d sd_llc_size %d\n",
			cpu, c->core, c->cluster, c->llc, c->node, c->package, cd->sd_llc_id,
			cd->sd_share_id, cd->sd_llc_size);
		if (!cd->sd) {
			fprintf(out, " attaching NULL sched-domain.\n");
			continue;
		}
		int depth = 0;
		for (struct ts_sched_domain *sd = cd->sd; sd; sd = sd->parent, depth++) {
			fprintf(out, "%*s domain-%d: span=", depth, "", depth);
			print_mask(out, sd->span);
			fprintf(out, " level=%s\n", sd->name);
			ts_sd_flags_format(sd->flags, flags, sizeof(flags));
			fprintf(out, "%*s  flags=%s\n", depth, "", flags);
			fprintf(out,
				"%*s  imbalance_pct=%u cache_nice_tries=%u busy_factor=%u "
				"min_interval=%u max_interval=%u imb_numa_nr=%u%s\n",
				depth, "", sd->imbalance_pct, sd->cache_nice_tries, sd->busy_factor,
				sd->min_interval, sd->max_interval, sd->imb_numa_nr,
				sd == cd->sd_llc ? "  [sd_llc]" : "");
			fprintf(out, "%*s  groups:", depth, "");
			for (int g = 0; g < sd->nr_groups; g++) {
				const struct ts_sched_group *sg = sd->groups[g];
				fprintf(out, "%s %d:{ span=", g ? "," : "", sg->sgc->id);
				print_mask(out, sg->span);
				if ((sd->flags & TS_SD_NUMA) && sg->balance_mask != sg->span) {
					fprintf(out, " mask=");
					print_mask(out, sg->balance_mask);
				}
				if (sg->sgc->capacity != TS_CAPACITY_SCALE)
					fprintf(out, " cap=%lu", sg->sgc->capacity);
				fprintf(out, " }");
			}
			fputc('\n', out);
		}
	}
}

static void json_mask(struct ts_json_writer *w, const struct ts_cpumask *m)
{
	char *s = ts_cpumask_to_string(m);
	ts_json_string(w, s ? s : "");
	free(s);
}

static int json_domains(FILE *out, const struct ts_domains *d, const struct ts_cpumask *show)
{
	const struct ts_topology *t = d->topo;
	struct ts_json_writer w;
	ts_json_init(&w, out, CLI_JSON_PRECISION);
	ts_json_begin_object(&w);
	ts_json_key(&w, "machine");
	ts_json_string(&w, t->name);
	ts_json_key(&w, "description");
	ts_json_string(&w, t->description);
	ts_json_key(&w, "nr_cpus");
	ts_json_int(&w, t->nr_cpus);
	ts_json_key(&w, "nr_cores");
	ts_json_int(&w, t->nr_cores);
	ts_json_key(&w, "nr_clusters");
	ts_json_int(&w, t->nr_clusters);
	ts_json_key(&w, "nr_llcs");
	ts_json_int(&w, t->nr_llcs);
	ts_json_key(&w, "nr_nodes");
	ts_json_int(&w, t->nr_nodes);
	ts_json_key(&w, "nr_packages");
	ts_json_int(&w, t->nr_packages);
	ts_json_key(&w, "llc_bytes"); /* 0: the source gives no size */
	ts_json_int(&w, (long long)t->llc_bytes);
	ts_json_key(&w, "smt_active");
	ts_json_bool(&w, d->smt_active);
	ts_json_key(&w, "cluster_active");
	ts_json_bool(&w, d->cluster_active);
	ts_json_key(&w, "numa_topology_type");
	ts_json_string(&w, ts_numa_topology_type_name(d->numa.type));
	ts_json_key(&w, "numa_distances");
	ts_json_begin_array(&w);
	for (int i = 0; i < d->numa.nr_levels; i++)
		ts_json_int(&w, d->numa.distance[i]);
	ts_json_end_array(&w);
	ts_json_key(&w, "distance");
	ts_json_begin_array(&w);
	for (int a = 0; a < t->nr_nodes; a++) {
		ts_json_begin_array(&w);
		for (int b = 0; b < t->nr_nodes; b++)
			ts_json_int(&w, ts_topo_distance(t, a, b));
		ts_json_end_array(&w);
	}
	ts_json_end_array(&w);
	ts_json_key(&w, "cpus");
	ts_json_begin_array(&w);
	int cpu;
	ts_for_each_cpu(cpu, show)
	{
		const struct ts_cpu_topo *c = &t->cpu[cpu];
		const struct ts_cpu_domains *cd = &d->cpu[cpu];
		ts_json_begin_object(&w);
		ts_json_key(&w, "cpu");
		ts_json_int(&w, cpu);
		ts_json_key(&w, "core");
		ts_json_int(&w, c->core);
		ts_json_key(&w, "cluster");
		ts_json_int(&w, c->cluster);
		ts_json_key(&w, "llc");
		ts_json_int(&w, c->llc);
		ts_json_key(&w, "node");
		ts_json_int(&w, c->node);
		ts_json_key(&w, "package");
		ts_json_int(&w, c->package);
		ts_json_key(&w, "llc_id");
		ts_json_int(&w, cd->sd_llc_id);
		ts_json_key(&w, "share_id");
		ts_json_int(&w, cd->sd_share_id);
		ts_json_key(&w, "sd_llc_size");
		ts_json_int(&w, cd->sd_llc_size);
		ts_json_key(&w, "domains");
		ts_json_begin_array(&w);
		for (struct ts_sched_domain *sd = cd->sd; sd; sd = sd->parent) {
			ts_json_begin_object(&w);
			ts_json_key(&w, "level");
			ts_json_string(&w, sd->name);
			ts_json_key(&w, "span");
			json_mask(&w, sd->span);
			ts_json_key(&w, "flags");
			ts_json_begin_array(&w);
			for (int f = 0; f < TS_SD_FLAG_COUNT; f++)
				if (sd->flags & (1u << f))
					ts_json_string(&w, ts_sd_flag_name(1u << f));
			ts_json_end_array(&w);
			ts_json_key(&w, "groups");
			ts_json_begin_array(&w);
			for (int g = 0; g < sd->nr_groups; g++)
				json_mask(&w, sd->groups[g]->span);
			ts_json_end_array(&w);
			ts_json_key(&w, "imb_numa_nr");
			ts_json_int(&w, sd->imb_numa_nr);
			ts_json_key(&w, "imbalance_pct");
			ts_json_int(&w, sd->imbalance_pct);
			ts_json_key(&w, "cache_nice_tries");
			ts_json_int(&w, sd->cache_nice_tries);
			ts_json_key(&w, "busy_factor");
			ts_json_int(&w, sd->busy_factor);
			ts_json_key(&w, "min_interval");
			ts_json_int(&w, sd->min_interval);
			ts_json_key(&w, "max_interval");
			ts_json_int(&w, sd->max_interval);
			ts_json_key(&w, "llc");
			ts_json_bool(&w, sd == cd->sd_llc);
			ts_json_end_object(&w);
		}
		ts_json_end_array(&w);
		ts_json_end_object(&w);
	}
	ts_json_end_array(&w);
	return ts_json_end_object(&w);
}

/* --export: the hwloc XML writer (src/topo/hwloc_export.c), through the atomic output. */
static int export_xml(struct ts_topology *t, const char *path)
{
	struct cli_output out = {0};
	struct ts_error err = {0};
	int rc = 0;
	if (cli_output_open(&out, "topo", "--export", path))
		rc = CLI_EXIT_USAGE;
	else if (ts_topology_write_xml(t, cli_output_stream(&out), &err))
		rc = cli_error("topo", "--export: %s", err.msg);
	else
		rc = cli_output_commit(&out);
	cli_output_discard(&out);
	ts_topology_free(t);
	return rc;
}

enum { OPT_EXPORT = 256 }; /* long options without a short one */

int cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"topology", required_argument, NULL, 't'},
		{"machine", required_argument, NULL, 't'},
		{"distance", required_argument, NULL, 'd'},
		{"cpus", required_argument, NULL, 'c'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"export", required_argument, NULL, OPT_EXPORT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *spec = CLI_DEFAULT_TOPOLOGY, *distance = NULL, *cpus = NULL, *output = NULL;
	const char *export = NULL;
	enum cli_format format = CLI_FORMAT_TEXT;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":t:d:c:f:o:h", longopts, NULL)) != -1) {
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
		case 'o':
			output = optarg;
			break;
		case OPT_EXPORT:
			export = optarg;
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
	if (export && (output || cpus))
		return cli_error("topo", "--export writes the whole machine: no %s with it",
				 output ? "--output" : "--cpus");
	struct ts_topology *t;
	int load_rc = cli_load_topology("topo", spec, distance, &t);
	if (load_rc)
		return load_rc; /* the loader's whole message */
	if (export)
		return export_xml(t, export);
	struct ts_error err = {0};
	struct ts_cpumask *show = ts_cpumask_alloc(t->nr_cpus);
	struct ts_domains *d = NULL;
	int rc = 0;
	if (!show) {
		cli_error("topo", "out of memory");
		rc = CLI_EXIT_FAILURE; /* a failure while running, not bad input */
	} else if (cpus) {
		if (ts_cpumask_parse(show, cpus, &err))
			rc = cli_error("topo", "--cpus: %s", err.msg);
		else if (ts_cpumask_empty(show))
			rc = cli_error("topo",
				       "--cpus '%s': selects no CPU (leave it out to show "
				       "every CPU)",
				       cpus);
	} else {
		ts_cpumask_fill(show);
	}
	if (!rc && ts_domains_build(t, NULL, &d, &err)) {
		rc = cli_error("topo", "topology '%s': %s", spec, err.msg);
		if (err.code == -ENOMEM)
			rc = CLI_EXIT_FAILURE;
	}
	struct cli_output out = {0};
	if (!rc && cli_output_open(&out, "topo", "--output", output))
		rc = CLI_EXIT_USAGE;
	if (!rc) {
		int doc = 0;
		if (format == CLI_FORMAT_JSON)
			doc = json_domains(cli_output_stream(&out), d, show);
		else
			text_domains(cli_output_stream(&out), d, show);
		rc = cli_output_commit_doc(&out, doc);
	}
	cli_output_discard(&out);
	ts_domains_free(d);
	ts_cpumask_free(show);
	ts_topology_free(t);
	return rc;
}
