/* --plot: the experiment drawn by gnuplot into a command's output (cli_output.h). */
#ifndef TOPOSCHED_CLI_PLOT_H
#define TOPOSCHED_CLI_PLOT_H

#include <stddef.h>

#include "cli_output.h"
#include "toposched/experiment.h"

/* Before anything runs: the format path's extension selects (.png or .svg) and gnuplot's
 * path in PATH. 0, or a usage error naming option. */
int cli_plot_prepare(const char *cmd, const char *option, const char *path,
		     enum ts_plot_format *format, char *gnuplot, size_t size);
/* Where the image's gnuplot script is kept: path + ".gp", next to the image. A file
 * already there that toposched did not write (its first line lacks TS_GNUPLOT_SCRIPT_MARK)
 * is never replaced: a usage error naming option. 0, or CLI_EXIT_USAGE. */
int cli_plot_script_path(const char *cmd, const char *option, const char *path, char *script,
			 size_t size);
/* Runs gnuplot on e's script (ts_exp_write_gnuplot), the image going straight into plot's
 * stream, and writes the same script into script's stream, drawing into the image's base
 * name (so that `gnuplot IMAGE.gp` in that directory draws it again). 0, or prints
 * gnuplot's first message and returns 1. */
int cli_plot_draw(struct cli_output *plot, struct cli_output *script, const char *gnuplot,
		  const struct ts_experiment *e, enum ts_plot_format format);

#endif
