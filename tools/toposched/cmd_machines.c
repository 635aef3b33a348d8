#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "toposched/cost_model.h"
#include "toposched/json_writer.h"

static const char machines_help[] =
	"usage: toposched machines [--format text|json] [--output FILE]\n"
	"       toposched machines --costs MACHINE [--cost NAME=VALUE ...] [--format text|json]\n"
	"\n"
	"Lists the built-in machine presets, one line each. Any preset name can be given\n"
	"to --topology; so can 'host', an hwloc XML file, a sysfs root or a synthetic string.\n"
	"\n"
	"  --costs MACHINE   print the simulator's cost model for MACHINE (a preset, or any\n"
	"                    --topology spec, which gets the generic model): every term, its\n"
	"                    value, unit and source (docs/model.md)\n"
	"  --cost NAME=VALUE override one term, as 'toposched sim --cost' does (repeatable;\n"
	"                    needs --costs)\n"
	"  --format F        text (default) or json\n"
	"  --output FILE     write to FILE instead of standard output (complete or\n"
	"                    untouched, as 'toposched sim --output')\n";

struct text_widths {
	int name, value, unit;
};

struct text_output {
	FILE *out;
	struct text_widths widths;
};

static int measure(const struct ts_cost_term_info *info, const struct ts_cost_term *term, void *arg)
{
	struct text_widths *w = arg;
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%g", term->value);
	if ((int)strlen(info->name) > w->name)
		w->name = (int)strlen(info->name);
	if (n > w->value)
		w->value = n;
	if ((int)strlen(info->unit) > w->unit)
		w->unit = (int)strlen(info->unit);
	return 0;
}

static int print_term_text(const struct ts_cost_term_info *info, const struct ts_cost_term *term,
			   void *arg)
{
	const struct text_output *t = arg;
	const struct text_widths *w = &t->widths;
	FILE *out = t->out;
	char buf[64];
	snprintf(buf, sizeof(buf), "%g", term->value);
	fprintf(out, "%-*s  %*s  %-*s  %s\n", w->name, info->name, w->value, buf, w->unit,
		info->unit, term->source);
	return 0;
}

static int print_term_json(const struct ts_cost_term_info *info, const struct ts_cost_term *term,
			   void *arg)
{
	struct ts_json_writer *w = arg;
	ts_json_begin_object(w);
	ts_json_key(w, "name");
	ts_json_string(w, info->name);
	ts_json_key(w, "value");
	ts_json_double(w, term->value);
	ts_json_key(w, "unit");
	ts_json_string(w, info->unit);
	ts_json_key(w, "source");
	ts_json_string(w, term->source);
	ts_json_key(w, "meaning");
	ts_json_string(w, info->meaning);
	ts_json_end_object(w);
	return 0;
}

static int print_costs(FILE *out, const char *spec, const struct ts_cost_model *m,
		       enum cli_format format)
{
	if (format == CLI_FORMAT_JSON) {
		struct ts_json_writer w;
		ts_json_init(&w, out, CLI_JSON_PRECISION);
		ts_json_begin_object(&w);
		ts_json_key(&w, "machine");
		ts_json_string(&w, spec);
		ts_json_key(&w, "model");
		ts_json_string(&w, m->generic ? "generic" : "preset");
		ts_json_key(&w, "terms");
		ts_json_begin_array(&w);
		ts_cost_model_foreach(m, print_term_json, &w);
		ts_json_end_array(&w);
		return ts_json_end_object(&w);
	}
	if (m->generic)
		fprintf(out,
			"cost model for '%s': generic (not a preset; estimates from architectural "
			"reasoning, docs/model.md)\n",
			spec);
	else
		fprintf(out, "cost model for %s: preset figures (docs/model.md)\n", spec);
	struct text_output t = {out,
				{(int)strlen("term"), (int)strlen("value"), (int)strlen("unit")}};
	ts_cost_model_foreach(m, measure, &t.widths);
	fprintf(out, "%-*s  %*s  %-*s  %s\n", t.widths.name, "term", t.widths.value, "value",
		t.widths.unit, "unit", "source");
	ts_cost_model_foreach(m, print_term_text, &t);
	return 0;
}

static int print_machines(FILE *out, enum cli_format format)
{
	int count;
	const struct ts_preset *p = ts_preset_list(&count);
	if (format == CLI_FORMAT_TEXT) {
		for (int i = 0; i < count; i++)
			fprintf(out, "%-16s %s\n", p[i].name, p[i].description);
		return 0;
	}
	struct ts_json_writer w;
	ts_json_init(&w, out, CLI_JSON_PRECISION);
	ts_json_begin_object(&w);
	ts_json_key(&w, "machines");
	ts_json_begin_array(&w);
	for (int i = 0; i < count; i++) {
		ts_json_begin_object(&w);
		ts_json_key(&w, "name");
		ts_json_string(&w, p[i].name);
		ts_json_key(&w, "description");
		ts_json_string(&w, p[i].description);
		ts_json_end_object(&w);
	}
	ts_json_end_array(&w);
	return ts_json_end_object(&w);
}

#define MAX_COST_OVERRIDES 64

int cmd_machines(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"costs", required_argument, NULL, 'c'},  {"cost", required_argument, NULL, 'C'},
		{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},	  {NULL, 0, NULL, 0},
	};
	const char *costs = NULL, *output = NULL;
	const char *overrides[MAX_COST_OVERRIDES];
	int nr_overrides = 0;
	enum cli_format format = CLI_FORMAT_TEXT;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			costs = optarg;
			break;
		case 'C':
			if (nr_overrides == MAX_COST_OVERRIDES)
				return cli_error("machines", "--cost: more than %d overrides",
						 MAX_COST_OVERRIDES);
			overrides[nr_overrides++] = optarg;
			break;
		case 'f':
			if (cli_parse_format("machines", optarg, &format))
				return CLI_EXIT_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(machines_help, stdout);
			return 0;
		default:
			return cli_getopt_error("machines", opt, argv);
		}
	}
	if (optind < argc)
		return cli_error("machines", "unexpected argument '%s'", argv[optind]);
	if (nr_overrides && !costs)
		return cli_error("machines", "--cost needs --costs MACHINE");
	struct ts_cost_model m;
	if (costs) {
		struct ts_topology *t;
		int load_rc = cli_load_topology("machines", costs, NULL, &t);
		if (load_rc)
			return load_rc; /* the loader's whole message */
		struct ts_error err = {0};
		int rc = ts_cost_model_for(t, costs, &m, &err);
		ts_topology_free(t);
		if (rc)
			return cli_error("machines", "--costs: %s", err.msg);
		for (int i = 0; i < nr_overrides; i++)
			if (ts_cost_model_set(&m, overrides[i], &err))
				return cli_error("machines", "--cost: %s", err.msg);
	}
	struct cli_output out;
	if (cli_output_open(&out, "machines", "--output", output))
		return CLI_EXIT_USAGE;
	int doc = costs ? print_costs(cli_output_stream(&out), costs, &m, format)
			: print_machines(cli_output_stream(&out), format);
	return cli_output_commit_doc(&out, doc);
}
