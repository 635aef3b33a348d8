/* toposched validate: run every published experiment the project knows and show the
 * model against it (include/sim/toposched/validation.h). The rows, the runner and the
 * reports live in the sim layer; this is option parsing and the output file. Misses are
 * results, not errors: the exit status is 0 whenever the runs completed. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "toposched/validation.h"

#define VAL_CMD		 "validate"
#define VAL_DEFAULT_SEED 1
#define VAL_MAX_ROW_IDS	 64

int cmd_validate(int argc, char **argv);

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
	"  --jobs N            worker threads (default: the number of online CPUs)\n"
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
	long jobs, seed;
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
			if (cli_parse_int(VAL_CMD, "--seed", optarg, 0, LONG_MAX, &o->seed))
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

/* The report goes to a temporary file next to FILE, renamed over it once complete. */
static FILE *open_temp(const char *path, char *tmp, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(tmp, size, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1);
	else
		snprintf(tmp, size, ".%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
	}
	return f;
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
		len += (size_t)snprintf(buf + len, size - len, " --seed %ld", o->seed);
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
	const char *ext = o.output ? strrchr(o.output, '.') : NULL;
	if (!o.format_given && ext)
		o.format = strcasecmp(ext, ".json") == 0 ? VAL_JSON
			   : strcasecmp(ext, ".md") == 0 ? VAL_MARKDOWN
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
	char tmp[PATH_MAX] = "", command[1024];
	FILE *out = stdout;
	if (o.output && !(out = open_temp(o.output, tmp, sizeof(tmp)))) {
		int e = errno;
		free(rows);
		return cli_error(VAL_CMD,
				 "--output '%s': cannot create a file in its directory: %s",
				 o.output, strerror(e));
	}
	command_text(&o, command, sizeof(command));
	struct ts_val_options vo = {
		.seed = (uint64_t)o.seed, .jobs = (int)o.jobs, .progress = stderr};
	struct ts_validation v;
	int rc = 0;
	if (ts_validation_run(rows, nr, &vo, &v, &err)) {
		fprintf(stderr, "toposched validate: error: %s\n", err.msg);
		rc = 1;
	} else {
		v.command = command;
		if (write_report(&v, o.format, out) || (o.output && fflush(out))) {
			fprintf(stderr, "toposched validate: error: writing %s failed\n",
				o.output ? o.output : "stdout");
			rc = 1;
		}
		ts_validation_free(&v);
	}
	if (o.output) {
		if (fclose(out) && !rc) {
			fprintf(stderr, "toposched validate: error: writing %s failed\n", o.output);
			rc = 1;
		}
		if (!rc && rename(tmp, o.output)) {
			fprintf(stderr, "toposched validate: error: --output '%s': %s\n", o.output,
				strerror(errno));
			rc = 1;
		}
		if (rc)
			unlink(tmp);
	}
	free(rows);
	return rc;
}
