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
/* Runs gnuplot on e's script (ts_exp_write_gnuplot), the image going straight into plot's
 * stream. 0, or prints gnuplot's first message and returns 1. */
int cli_plot_draw(struct cli_output *plot, const char *gnuplot, const struct ts_experiment *e,
		  enum ts_plot_format format);

#endif
