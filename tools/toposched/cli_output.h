/* Where a command's output goes (--output, --plot): standard output, or a file that is
 * complete or untouched. Every command writes through it.
 *
 * The rule, for the file a path names (symbolic links followed, the links kept):
 *   absent, or a regular file with one link: a temporary file next to it, renamed over it
 *     once everything succeeded (the existing file's mode and owner kept; a new one gets
 *     0666 & ~umask, as open(2) would give it); removed on failure and on every signal
 *     that ends the process (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...), so that bad
 *     input or a failing run leaves nothing behind;
 *   a character device, a FIFO, or a regular file with more than one hard link: opened at
 *     the start, written in place (a regular file truncated first) once everything
 *     succeeded, so that /dev/null stays a device and hard links stay linked;
 *   "-", /dev/stdout or any other of this process's /dev/fd/N: that descriptor;
 *   a directory, a block device or a socket: refused (exit status 2). */
#ifndef TOPOSCHED_CLI_OUTPUT_H
#define TOPOSCHED_CLI_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum cli_output_kind {
	CLI_OUTPUT_NONE,    /* not opened, or done */
	CLI_OUTPUT_FD,	    /* "-", /dev/stdout, /dev/fd/N: written directly */
	CLI_OUTPUT_REPLACE, /* a temporary file renamed over the target */
	CLI_OUTPUT_INPLACE, /* a temporary copy written into the target at the end */
};

struct cli_output {
	const char *cmd, *option; /* for messages: "sim", "--output" */
	enum cli_output_kind kind;
	char target[PATH_MAX]; /* the file finally written (symbolic links followed) */
	char tmp[PATH_MAX];    /* REPLACE: the temporary file next to target */
	int target_fd;	       /* INPLACE: the target, opened without truncating it */
	bool truncate;	       /* INPLACE: a regular file, cut to the new length */
	bool created;	       /* REPLACE: the target did not exist before */
	FILE *f;	       /* what the command writes */
};

/* Opens the output that path names ("-" or NULL: standard output) before anything runs,
 * so that an unusable path is bad input. Returns 0, or prints "toposched CMD: error:
 * OPTION 'PATH': ..." and returns CLI_EXIT_USAGE. */
int cli_output_open(struct cli_output *o, const char *cmd, const char *option, const char *path);
/* The stream to write into (a regular temporary file, except for CLI_OUTPUT_FD). */
FILE *cli_output_stream(struct cli_output *o);
/* Writes everything out and puts the file in place. Returns 0, or prints what failed and
 * returns 1 (the target then is as it was, except for a failing in-place write). */
int cli_output_commit(struct cli_output *o);
/* cli_output_commit() after a document whose writer returned doc_rc (ts_json_end_object()
 * of the outermost object: 0, or -ENOMEM/-EINVAL with nothing written): a failed document
 * is reported ("toposched CMD: error: cannot build the JSON output: ...") and the output
 * dropped, returning 1. */
int cli_output_commit_doc(struct cli_output *o, int doc_rc);
/* Commits several outputs together: all are written and on disk before any is put in
 * place, so that a write that fails leaves every target as it was (in-place devices
 * first, renames last). Returns 0 or 1, as cli_output_commit(). */
int cli_output_commit_all(struct cli_output *const *outs, int n);
/* Drops an output that was not committed: its temporary file is removed. Safe to call
 * after cli_output_commit() and on a zeroed struct. */
void cli_output_discard(struct cli_output *o);
/* Does path end in suffix (case-insensitive)? For formats chosen by extension. */
bool cli_path_has_suffix(const char *path, const char *suffix);

#endif
