/* What `toposched run` and `toposched compare-real` share: their options, and an rt-app
 * file read and checked for the runtime host (cmd_run_exec.h). */
#ifndef TOPOSCHED_CMD_RUN_H
#define TOPOSCHED_CMD_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "cmd_run_plan.h"

struct run_args {
	const char *file;
	uint64_t duration_ns; /* 0: the file's */
	const char *features;
	bool no_preempt;
	enum cli_format format;
	const char *output;
	const char *trace; /* --trace: the runtime's trace file (NULL: none) */
};

/* Parses argc/argv of `cmd` (help printed and *done set on --help). 0 or CLI_EXIT_USAGE
 * after one message. */
int run_parse_args(const char *cmd, const char *help, int argc, char **argv, struct run_args *a,
		   bool *done);

struct run_file {
	struct ts_rtapp *r;
	struct rx_plan *plan;
	uint64_t duration_ns; /* what the run lasts at most */
	bool finite;	      /* every thread ends */
};

/* Parses argc/argv of `cmd` into *a and reads and checks a->file for the runtime host into
 * *f (the reader's warnings go to stderr). 0 with *f open; 0 with *done set after --help
 * (nothing open); or CLI_EXIT_USAGE after one message naming the option, or the file,
 * line, task and key. */
int run_setup(const char *cmd, const char *help, int argc, char **argv, struct run_args *a,
	      struct run_file *f, bool *done);
void run_file_close(struct run_file *f);

/* Prints a run's report (ctx: the caller's, e.g. the simulator's result); returns 0, or
 * the JSON writer's failure (cli_output_commit_doc()). */
typedef int (*run_print_fn)(FILE *out, bool json, const struct run_file *f,
			    const struct rx_info *info, const struct run_result *real,
			    const void *ctx);
/* Opens a->output, runs f in the runtime with a's options (rx_run()) and prints the
 * report into the output, which is then put in place. 0, CLI_EXIT_USAGE (input wrong for
 * this machine, nothing written) or CLI_EXIT_FAILURE, after one message. */
int run_and_report(const char *cmd, const struct run_args *a, const struct run_file *f,
		   run_print_fn print, const void *ctx);

/* The commands (main.c's table). */
int cmd_run(int argc, char **argv);
int cmd_compare_real(int argc, char **argv);

#endif
