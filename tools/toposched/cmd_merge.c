/* toposched merge: the report of a sweep run in shards (toposched sim --shard K/N), the
 * same bytes as the report of the whole sweep run at once. Every part is read and checked
 * before anything is written. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_plot.h"
#include "cli_shard.h"
#include "cli_warn.h"
#include "toposched/experiment_part.h"

#define MERGE_CMD "merge"

// clang-format off
static const char merge_help[] =
	"usage: toposched merge PART.json... [--format FMT] [--output FILE] [--plot FILE]\n"
	"\n"
	"Reads the partial results of a sweep run in shards ('toposched sim ... --shard\n"
	"K/N --output PART.json', one run per K of 1..N) and writes the report that the\n"
	"sweep run at once writes, byte for byte. The parts are given in any order; each\n"
	"shard exactly once, all of one experiment, written by this toposched\n"
	"(docs/sim-json.md, \"Shards\"). It prints the warnings the sweep run at once\n"
	"prints.\n"
	"\n"
	"  --format FMT        table (or text; default), csv or json; without --format,\n"
	"                      an --output ending in .csv or .json selects that format\n"
	"  --output FILE       write the report to FILE once everything succeeded ('-':\n"
	"                      standard output, the default)\n"
	"  --plot FILE         also draw it with gnuplot, as 'toposched sim --plot' does\n"
	"                      (FILE ends in .png or .svg; the script is kept as FILE.gp)\n"
	"  --help              this text\n"
	"\n"
	"Exit status: 0 on success, 2 for bad input (a part missing, given twice, of\n"
	"another experiment or another toposched, or damaged: nothing is written), 1 when\n"
	"writing fails.\n";
// clang-format on

enum merge_format { MERGE_TABLE, MERGE_CSV, MERGE_JSON };

static int parse_format(const char *text, enum merge_format *out)
{
	if (strcmp(text, "table") == 0 || strcmp(text, "text") == 0)
		*out = MERGE_TABLE;
	else if (strcmp(text, "csv") == 0)
		*out = MERGE_CSV;
	else if (strcmp(text, "json") == 0)
		*out = MERGE_JSON;
	else
		return cli_error(MERGE_CMD, "--format '%s': unknown (choose table, csv or json)",
				 text);
	return 0;
}

static int write_report(const struct ts_experiment *e, enum merge_format f, FILE *out)
{
	switch (f) {
	case MERGE_CSV:
		return ts_exp_write_csv(e, out);
	case MERGE_JSON:
		return ts_exp_write_json(e, out);
	case MERGE_TABLE:
		break;
	}
	return ts_exp_write_table(e, out);
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"plot", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum merge_format format = MERGE_TABLE;
	bool format_given = false;
	const char *output = NULL, *plot_path = NULL;
	opterr = 0;
	optind = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (parse_format(optarg, &format))
				return CLI_EXIT_USAGE;
			format_given = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'p':
			plot_path = optarg;
			break;
		case 'h':
			fputs(merge_help, stdout);
			return cli_flush_stdout(MERGE_CMD);
		default:
			return cli_getopt_error(MERGE_CMD, opt, argv);
		}
	}
	if (optind >= argc)
		return cli_error(MERGE_CMD,
				 "no parts given (toposched merge PART.json...; --help)");
	if (!format_given && output) {
		if (cli_path_has_suffix(output, ".json"))
			format = MERGE_JSON;
		else if (cli_path_has_suffix(output, ".csv"))
			format = MERGE_CSV;
	}
	enum ts_plot_format plot_format = TS_PLOT_PNG;
	char gnuplot[PATH_MAX], script[PATH_MAX] = "";
	if (plot_path) {
		if (cli_plot_prepare(MERGE_CMD, "--plot", plot_path, &plot_format, gnuplot,
				     sizeof(gnuplot)) ||
		    cli_plot_script_path(MERGE_CMD, "--plot", plot_path, script, sizeof(script)))
			return CLI_EXIT_USAGE;
		if (output && (strcmp(output, plot_path) == 0 || strcmp(output, script) == 0))
			return cli_error(MERGE_CMD, "--output and --plot name the same file '%s'",
					 output);
	}
	/* an output that is one of the parts would be read after it was replaced */
	for (int i = optind; output && i < argc; i++)
		if (strcmp(argv[i], output) == 0 ||
		    (plot_path &&
		     (strcmp(argv[i], plot_path) == 0 || strcmp(argv[i], script) == 0)))
			return cli_error(MERGE_CMD, "the part '%s' is also an output", argv[i]);

	struct ts_exp_merge *m = NULL;
	struct ts_error err = {0};
	if (ts_exp_merge_parts((const char *const *)argv + optind, argc - optind,
			       cli_shard_version(), &m, &err)) {
		cli_error(MERGE_CMD, "%s", err.msg);
		return err.code == -ENOMEM ? CLI_EXIT_FAILURE : CLI_EXIT_USAGE;
	}
	const struct ts_experiment *e = ts_exp_merge_experiment(m);
	/* the unsharded run's warnings: those of the parts, then those of the points */
	const char *const *warnings;
	int nr_warnings = ts_exp_merge_warnings(m, &warnings);
	for (int i = 0; i < nr_warnings; i++)
		fprintf(stderr, "toposched %s: warning: %s\n", MERGE_CMD, warnings[i]);
	cli_warn_thin_percentile(MERGE_CMD, e);
	struct cli_output out = {0}, plot = {0}, plot_gp = {0};
	int rc = 0;
	if (cli_output_open(&out, MERGE_CMD, "--output", output) ||
	    (plot_path && (cli_output_open(&plot, MERGE_CMD, "--plot", plot_path) ||
			   cli_output_open(&plot_gp, MERGE_CMD, "--plot", script)))) {
		rc = CLI_EXIT_USAGE;
		goto done;
	}
	if (write_report(e, format, cli_output_stream(&out))) {
		fprintf(stderr, "toposched merge: error: writing the report to %s failed\n",
			output ? output : "stdout");
		rc = CLI_EXIT_FAILURE;
	}
	if (!rc && plot_path && cli_plot_draw(&plot, &plot_gp, gnuplot, e, plot_format))
		rc = CLI_EXIT_FAILURE;
	struct cli_output *outs[3] = {&out, &plot, &plot_gp};
	if (!rc && cli_output_commit_all(outs, plot_path ? 3 : 1))
		rc = CLI_EXIT_FAILURE;
done:
	cli_output_discard(&out);
	cli_output_discard(&plot);
	cli_output_discard(&plot_gp);
	ts_exp_merge_free(m);
	return rc;
}
