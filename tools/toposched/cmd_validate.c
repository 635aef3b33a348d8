/* toposched validate: run every published experiment the project knows and show the
 * model against it (include/sim/toposched/validation.h). The rows, the runner and the
 * reports live in the sim layer; this is option parsing and the output file. Misses are
 * results, not errors: the exit status is 0 whenever the runs completed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "toposched/validation.h"

#define VAL_CMD		 "validate"
#define VAL_DEFAULT_SEED 1
#define VAL_MAX_ROW_IDS	 64

static const char validate_help[] =
	"usage: toposched validate [OPTIONS]\n"
	"\n"
	"Runs every published experiment the project knows on the simulator and shows, per\n"
	"published figure, the simulated figure (mean ± stddev over the seeds), the band the\n"
	"acceptance criteria set and PASS or MISS. Calibration rows (the only points a model\n"
	"parameter may be fitted on) are shown apart from validation rows. A MISS is a model\n"
	"defect, reported, never refitted. docs/validation.md is this command's markdown.\n"
	"\n"
	"  --quick             a subset covering every experiment family (a few minutes)\n"
	"  --row ID            only this row (repeatable; see --list)\n"
	"  --list              list the rows (id, role, band, figure, source) and exit\n"
	"  --format FMT        table (default), json or markdown; without it an --output\n"
	"                      ending in .json or .md selects the format\n"
	"  --output FILE       write the report to FILE (atomically: all or nothing)\n"
	"  --jobs N            worker threads (default: the online CPUs, fewer when\n"
	"                      MemAvailable holds fewer runs of this machine's size)\n"
	"  --seed N            base seed (default 1); same seed, same bytes, any --jobs\n"
	"  --help              this text\n"
	"\n"
	"Exit status: 0 when everything ran (misses included), 2 for bad input (nothing is\n"
	"run or written), 1 when a run or writing the output fails.\n";

enum val_format { VAL_TABLE, VAL_JSON, VAL_MARKDOWN };

struct val_opts {
	bool quick, list, format_given;
	enum val_format format;
	const char *output;
	long jobs;
	uint64_t seed;
	const char *rows[VAL_MAX_ROW_IDS];
	int nr_rows;
};

static int parse_format(const char *text, enum val_format *f)
{
	if (strcmp(text, "table") == 0)
		*f = VAL_TABLE;
	else if (strcmp(text, "json") == 0)
		*f = VAL_JSON;
	else if (strcmp(text, "markdown") == 0)
		*f = VAL_MARKDOWN;
	else
		return cli_error(VAL_CMD, "--format '%s': unknown (choose table, json or markdown)",
				 text);
	return 0;
}

static int parse_args(int argc, char **argv, struct val_opts *o, bool *help)
{
	enum { OPT_QUICK = 256, OPT_ROW, OPT_LIST, OPT_FORMAT, OPT_OUTPUT, OPT_JOBS, OPT_SEED };
	static const struct option longopts[] = {
		{"quick", no_argument, NULL, OPT_QUICK},
		{"row", required_argument, NULL, OPT_ROW},
		{"list", no_argument, NULL, OPT_LIST},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, OPT_OUTPUT},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"seed", required_argument, NULL, OPT_SEED},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_ROW:
			if (o->nr_rows >= VAL_MAX_ROW_IDS)
				return cli_error(VAL_CMD, "--row: more than %d rows",
						 VAL_MAX_ROW_IDS);
			o->rows[o->nr_rows++] = optarg;
			break;
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_FORMAT:
			if (parse_format(optarg, &o->format))
				return CLI_EXIT_USAGE;
			o->format_given = true;
			break;
		case OPT_OUTPUT:
			if (!optarg[0])
				return cli_error(VAL_CMD, "--output: empty file name");
			o->output = optarg;
			break;
		case OPT_JOBS:
			if (cli_parse_int(VAL_CMD, "--jobs", optarg, 1, TS_EXP_MAX_JOBS, &o->jobs))
				return CLI_EXIT_USAGE;
			break;
		case OPT_SEED:
			if (cli_parse_seed(VAL_CMD, "--seed", optarg, &o->seed))
				return CLI_EXIT_USAGE;
			break;
		case 'h':
			*help = true;
			return 0;
		default:
			return cli_getopt_error(VAL_CMD, opt, argv);
		}
	}
	if (optind < argc)
		return cli_error(VAL_CMD, "unexpected argument '%s'", argv[optind]);
	if (o->quick && o->nr_rows)
		return cli_error(VAL_CMD, "--quick and --row both choose the rows: give one");
	return 0;
}

static int write_report(const struct ts_validation *v, enum val_format f, FILE *out)
{
	return f == VAL_JSON	   ? ts_validation_write_json(v, out)
	       : f == VAL_MARKDOWN ? ts_validation_write_markdown(v, out)
				   : ts_validation_write_table(v, out);
}

/* The command line that reproduces the report (for the markdown's header). */
static void command_text(const struct val_opts *o, char *buf, size_t size)
{
	static const char *const formats[] = {"table", "json", "markdown"};
	size_t len = (size_t)snprintf(buf, size, "toposched validate --format %s%s",
				      formats[o->format], o->quick ? " --quick" : "");
	if (o->seed != VAL_DEFAULT_SEED && len < size)
		len += (size_t)snprintf(buf + len, size - len, " --seed %llu",
					(unsigned long long)o->seed);
	for (int i = 0; i < o->nr_rows && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, " --row %s", o->rows[i]);
	if (o->output && len < size)
		snprintf(buf + len, size - len, " --output %s", o->output);
}

int cmd_validate(int argc, char **argv)
{
	struct val_opts o = {.seed = VAL_DEFAULT_SEED, .format = VAL_TABLE};
	bool help = false;
	if (parse_args(argc, argv, &o, &help))
		return CLI_EXIT_USAGE;
	if (help) {
		fputs(validate_help, stdout);
		return 0;
	}
	if (!o.format_given && o.output)
		o.format = cli_path_has_suffix(o.output, ".json") ? VAL_JSON
			   : cli_path_has_suffix(o.output, ".md") ? VAL_MARKDOWN
								  : VAL_TABLE;
	struct ts_error err = {0};
	const struct ts_val_row **rows = NULL;
	int nr = 0;
	if (ts_val_select(o.quick, o.rows, o.nr_rows, &rows, &nr, &err))
		return cli_error(VAL_CMD, "--row %s", err.msg);
	if (o.list) {
		int rc = ts_validation_write_list(rows, nr, stdout) ? 1 : 0;
		free(rows);
		return rc;
	}
	struct cli_output out;
	if (cli_output_open(&out, VAL_CMD, "--output", o.output)) {
		free(rows);
		return CLI_EXIT_USAGE;
	}
	char command[1024];
	command_text(&o, command, sizeof(command));
	struct ts_val_options vo = {.seed = o.seed, .jobs = (int)o.jobs, .progress = stderr};
	struct ts_validation v;
	int rc = 0;
	if (ts_validation_run(rows, nr, &vo, &v, &err)) {
		fprintf(stderr, "toposched validate: error: %s\n", err.msg);
		rc = 1;
	} else {
		v.command = command;
		if (write_report(&v, o.format, cli_output_stream(&out))) {
			fprintf(stderr, "toposched validate: error: writing the report failed\n");
			rc = 1;
		}
		ts_validation_free(&v);
	}
	if (rc)
		cli_output_discard(&out);
	else
		rc = cli_output_commit(&out);
	free(rows);
	return rc;
}
