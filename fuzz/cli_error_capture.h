/* For the targets that compile tools/toposched/cli_parse.c: cli_error() as the CLI has it
 * (cli.c), except that the message is kept here instead of printed, so that a target can
 * check that every refusal says one thing, naming the option. */
#ifndef TOPOSCHED_FUZZ_CLI_ERROR_CAPTURE_H
#define TOPOSCHED_FUZZ_CLI_ERROR_CAPTURE_H

/* the messages since the last cli_error_capture_reset() */
extern int cli_error_count;
extern char cli_error_msg[8192]; /* the last one, truncated to fit */

void cli_error_capture_reset(void);

#endif
