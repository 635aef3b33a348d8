#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "toposched/features.h"
#include "toposched/json_writer.h"

static const char features_help[] =
	"usage: toposched features [--features LIST] [--format text|json] [--output FILE]\n"
	"\n"
	"Lists the scheduler feature switches (the kernel's sched/features): each one's name,\n"
	"default, state after --features, origin and meaning.\n"
	"\n"
	"  --features LIST  applied to the defaults, left to right, as when writing the\n"
	"                   kernel's /sys/kernel/debug/sched/features: names separated by\n"
	"                   blanks or commas; NAME turns a feature on, NO_NAME turns it off\n"
	"                   (e.g. 'NO_SIS_UTIL SIS_PROP'); may be given more than once\n"
	"  --format F       text (default) or json\n"
	"  --output FILE   write to FILE instead of standard output (complete or untouched,\n"
	"                  as 'toposched sim --output')\n"
	"\n"
	"origin: mainline = in today's kernel; mainline <= vX = removed after vX;\n"
	"proposal = posted to LKML, never merged; toposched = a switch of ours.\n";

static void print_text(FILE *out, struct ts_features f)
{
	int n = ts_feature_count();
	int name_w = (int)strlen("feature"), origin_w = (int)strlen("origin");
	for (int i = 0; i < n; i++) {
		const struct ts_feature_info *fi = ts_feature_info(i);
		if ((int)strlen(fi->name) > name_w)
			name_w = (int)strlen(fi->name);
		if ((int)strlen(fi->origin) > origin_w)
			origin_w = (int)strlen(fi->origin);
	}
	fprintf(out, "%-*s  %-7s  %-7s  %-*s  %s\n", name_w, "feature", "default", "enabled",
		origin_w, "origin", "meaning");
	for (int i = 0; i < n; i++) {
		const struct ts_feature_info *fi = ts_feature_info(i);
		fprintf(out, "%-*s  %-7s  %-7s  %-*s  %s\n", name_w, fi->name,
			fi->default_on ? "on" : "off",
			ts_features_has(f, (enum ts_feature)i) ? "on" : "off", origin_w, fi->origin,
			fi->meaning);
	}
}

static void print_json(FILE *out, struct ts_features f)
{
	struct ts_json_writer w;
	ts_json_init(&w, out, CLI_JSON_PRECISION);
	ts_json_begin_object(&w);
	ts_json_key(&w, "features");
	ts_json_begin_array(&w);
	for (int i = 0; i < ts_feature_count(); i++) {
		const struct ts_feature_info *fi = ts_feature_info(i);
		ts_json_begin_object(&w);
		ts_json_key(&w, "name");
		ts_json_string(&w, fi->name);
		ts_json_key(&w, "default");
		ts_json_bool(&w, fi->default_on);
		ts_json_key(&w, "enabled");
		ts_json_bool(&w, ts_features_has(f, (enum ts_feature)i));
		ts_json_key(&w, "origin");
		ts_json_string(&w, fi->origin);
		ts_json_key(&w, "meaning");
		ts_json_string(&w, fi->meaning);
		ts_json_end_object(&w);
	}
	ts_json_end_array(&w);
	ts_json_end_object(&w);
}

int cmd_features(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"features", required_argument, NULL, 'F'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct ts_features f = ts_features_default();
	enum cli_format format = CLI_FORMAT_TEXT;
	struct ts_error err = {0};
	const char *output = NULL;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":F:f:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			if (ts_features_parse(optarg, &f, &err))
				return cli_error("features", "--features: %s", err.msg);
			break;
		case 'f':
			if (cli_parse_format("features", optarg, &format))
				return CLI_EXIT_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(features_help, stdout);
			return 0;
		default:
			return cli_getopt_error("features", opt, argv);
		}
	}
	if (optind < argc)
		return cli_error("features", "unexpected argument '%s'", argv[optind]);
	struct cli_output out;
	if (cli_output_open(&out, "features", "--output", output))
		return CLI_EXIT_USAGE;
	if (format == CLI_FORMAT_JSON)
		print_json(cli_output_stream(&out), f);
	else
		print_text(cli_output_stream(&out), f);
	return cli_output_commit(&out);
}
