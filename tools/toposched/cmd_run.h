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

/* Reads and checks a->file for the runtime host (the reader's warnings go to stderr). 0
 * or CLI_EXIT_USAGE after one message naming file, line, task and key. */
int run_file_open(const char *cmd, const struct run_args *a, struct run_file *f);
void run_file_close(struct run_file *f);

/* The runtime's side: rx_run() with a's options; 0, CLI_EXIT_USAGE (input wrong for this
 * machine) or CLI_EXIT_FAILURE, after one message. */
int run_in_runtime(const char *cmd, const struct run_args *a, const struct run_file *f,
		   struct run_result *out, struct rx_info *info);

/* The commands (main.c's table). */
int cmd_run(int argc, char **argv);
int cmd_compare_real(int argc, char **argv);

#endif
