#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_parse.h"
#include "toposched/features.h"
#include "toposched/json_writer.h"

static const char features_help[] =
	"usage: toposched features [--kernel V] [--features LIST] [--format text|json]\n"
	"                          [--output FILE]\n"
	"\n"
	"Lists the scheduler feature switches (the kernel's sched/features): each one's name,\n"
	"default, state after --features, origin and meaning.\n"
	"\n"
	"  --kernel V       the defaults of kernel V (" TS_KERNEL_KNOWN "; default\n"
	"                   " TS_KERNEL_NEWEST
	"), and after the switches that kernel's profile: the\n"
	"                   generation of every mechanism that changed since 5.4, with\n"
	"                   the release and commit of the change (docs/kernels.md);\n"
	"                   V+tip-YYYY-MM-DD: release V and the next release's changes\n"
	"                   in tip/sched/core that day\n"
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

/* The switches as kernel k boots them and after --features (f). */
static void print_text(FILE *out, struct ts_features def, struct ts_features f)
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
			ts_features_has(def, (enum ts_feature)i) ? "on" : "off",
			ts_features_has(f, (enum ts_feature)i) ? "on" : "off", origin_w, fi->origin,
			fi->meaning);
	}
}

static void print_profile_text(FILE *out, const struct ts_kernel_profile *k)
{
	char name[TS_KERNEL_NAME_SIZE];
	struct ts_kernel_mechanism m;
	int name_w = (int)strlen("mechanism"), commit_w = (int)strlen("commit");
	for (int i = 0; ts_kernel_profile_mechanism(k, i, &m); i++) {
		if ((int)strlen(m.name) > name_w)
			name_w = (int)strlen(m.name);
		if ((int)strlen(m.commit) > commit_w)
			commit_w = (int)strlen(m.commit);
	}
	ts_kernel_profile_name(k, name, sizeof(name));
	fprintf(out, "\nkernel %s:\n%-*s  %-6s  %-*s  %s\n", name, name_w, "mechanism", "since",
		commit_w, "commit", "in this kernel");
	for (int i = 0; ts_kernel_profile_mechanism(k, i, &m); i++) {
		char since[16];
		snprintf(since, sizeof(since), "v%d.%d", m.since_major, m.since_minor);
		fprintf(out, "%-*s  %-6s  %-*s  %s\n", name_w, m.name, since, commit_w, m.commit,
			m.generation);
	}
}

static void print_profile_json(struct ts_json_writer *w, const struct ts_kernel_profile *k)
{
	char name[TS_KERNEL_NAME_SIZE];
	struct ts_kernel_mechanism m;
	ts_kernel_profile_name(k, name, sizeof(name));
	ts_json_key(w, "kernel");
	ts_json_begin_object(w);
	ts_json_key(w, "version");
	ts_json_string(w, name);
	ts_json_key(w, "mechanisms");
	ts_json_begin_array(w);
	for (int i = 0; ts_kernel_profile_mechanism(k, i, &m); i++) {
		char since[16];
		snprintf(since, sizeof(since), "%d.%d", m.since_major, m.since_minor);
		ts_json_begin_object(w);
		ts_json_key(w, "name");
		ts_json_string(w, m.name);
		ts_json_key(w, "since");
		ts_json_string(w, since);
		ts_json_key(w, "commit");
		ts_json_string(w, m.commit);
		ts_json_key(w, "generation");
		ts_json_string(w, m.generation);
		ts_json_end_object(w);
	}
	ts_json_end_array(w);
	ts_json_end_object(w);
}

/* k: the --kernel profile, NULL when none was given (the JSON then has no "kernel"). */
static int print_json(FILE *out, struct ts_features def, struct ts_features f,
		      const struct ts_kernel_profile *k)
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
		ts_json_bool(&w, ts_features_has(def, (enum ts_feature)i));
		ts_json_key(&w, "enabled");
		ts_json_bool(&w, ts_features_has(f, (enum ts_feature)i));
		ts_json_key(&w, "origin");
		ts_json_string(&w, fi->origin);
		ts_json_key(&w, "meaning");
		ts_json_string(&w, fi->meaning);
		ts_json_end_object(&w);
	}
	ts_json_end_array(&w);
	if (k)
		print_profile_json(&w, k);
	return ts_json_end_object(&w);
}

int cmd_features(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"features", required_argument, NULL, 'F'},
		{"kernel", required_argument, NULL, 'k'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct ts_kernel_profile kernel = ts_kernel_profile_newest();
	bool kernel_given = false;
	enum cli_format format = CLI_FORMAT_TEXT;
	struct ts_error err = {0};
	const char *output = NULL;
	opterr = 0;
	optind = 0;
	int opt;
	/* the --features lists, kept until --kernel (wherever it is) gave their base */
	const char *lists[64];
	int nr_lists = 0;
	while ((opt = getopt_long(argc, argv, ":F:k:f:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			if (nr_lists >= (int)(sizeof(lists) / sizeof(lists[0])))
				return cli_error("features", "--features: more than %d lists",
						 (int)(sizeof(lists) / sizeof(lists[0])));
			lists[nr_lists++] = optarg;
			break;
		case 'k':
			if (cli_parse_kernel("features", "--kernel", optarg, &kernel))
				return CLI_EXIT_USAGE;
			kernel_given = true;
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
	struct ts_features def = ts_kernel_features_default(&kernel), f = def;
	for (int i = 0; i < nr_lists; i++)
		if (ts_features_parse(lists[i], &f, &err))
			return cli_error("features", "--features: %s", err.msg);
	struct cli_output out;
	if (cli_output_open(&out, "features", "--output", output))
		return CLI_EXIT_USAGE;
	int doc = 0;
	if (format == CLI_FORMAT_JSON) {
		doc = print_json(cli_output_stream(&out), def, f, kernel_given ? &kernel : NULL);
	} else {
		print_text(cli_output_stream(&out), def, f);
		if (kernel_given)
			print_profile_text(cli_output_stream(&out), &kernel);
	}
	return cli_output_commit_doc(&out, doc);
}
