/* Helpers shared by the toposched subcommands: one error style, exit status 2 for bad
 * input, topology loading with an optional distance override; the option parsers
 * (cli_parse.h) and the output files (cli_output.h) every command uses. */
#ifndef TOPOSCHED_CLI_H
#define TOPOSCHED_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "cli_output.h"
#include "cli_parse.h"
#include "toposched/topology.h"

/* One rule for every command: 2 bad input (nothing run, nothing written), 1 a failure
 * while running or writing, 130 (128 + SIGINT) when interrupted; each with a message on
 * standard error ("toposched CMD: error: ..."), the interrupted one from the shell. */
#define CLI_EXIT_FAILURE     1
#define CLI_EXIT_USAGE	     2
#define CLI_DEFAULT_TOPOLOGY "kunpeng920"

/* significant digits of the numbers in the commands' JSON (docs/topo-json.md) */
#define CLI_JSON_PRECISION 6

/* Prints "toposched CMD: error: MSG" on stderr; returns CLI_EXIT_USAGE. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes standard output; on failure prints "toposched CMD: error: writing to standard
 * output failed: ..." and returns CLI_EXIT_FAILURE, else 0. */
int cli_flush_stdout(const char *cmd);
/* The message for a getopt_long() failure ('?' or ':'). */
int cli_getopt_error(const char *cmd, int opt, char *const argv[]);
/* Loads SPEC (and replaces the distance matrix when distance != NULL). 0, or prints the
 * loader's message and returns the exit status: CLI_EXIT_USAGE for bad input,
 * CLI_EXIT_FAILURE when out of memory. */
int cli_load_topology(const char *cmd, const char *spec, const char *distance,
		      struct ts_topology **out);

int cmd_topo(int argc, char **argv);
int cmd_spread(int argc, char **argv);
int cmd_machines(int argc, char **argv);
int cmd_features(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
