/* The value parsers of every command's options. Each prints one message naming the
 * option and the text ("toposched CMD: error: --duration '5h': ...") and returns
 * CLI_EXIT_USAGE, or returns 0 with the value in *out. */
#ifndef TOPOSCHED_CLI_PARSE_H
#define TOPOSCHED_CLI_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "toposched/cpumask.h"
#include "toposched/experiment.h"
#include "toposched/kernel_profile.h"

/* durations are at most an hour */
#define CLI_MAX_DURATION_NS (3600ull * 1000 * 1000 * 1000)

enum cli_format { CLI_FORMAT_TEXT, CLI_FORMAT_JSON };

/* A decimal integer within [min, max]. */
int cli_parse_int(const char *cmd, const char *option, const char *text, long min, long max,
		  long *out);
/* A seed: any unsigned 64-bit decimal. */
int cli_parse_seed(const char *cmd, const char *option, const char *text, uint64_t *out);
/* text or json. */
int cli_parse_format(const char *cmd, const char *text, enum cli_format *out);

enum cli_duration_flags {
	CLI_DURATION_ZERO = 1 << 0,	    /* "0" (without a unit) and 0ms are allowed */
	CLI_DURATION_BARE_SECONDS = 1 << 1, /* a number without a unit is seconds */
};
/* A number with a unit, ns, us, ms or s ("200ms", "1.5s"), positive, rounded to whole
 * nanoseconds, at most CLI_MAX_DURATION_NS. */
int cli_parse_duration(const char *cmd, const char *option, const char *text, unsigned flags,
		       uint64_t *out_ns);

/* A kernel version of kernel_profile.h (--kernel): its profile. */
int cli_parse_kernel(const char *cmd, const char *option, const char *text,
		     struct ts_kernel_profile *out);

/* A list of integers within [1, max]: N, A-B (every value), A..B (A, 2A, 4A ... while
 * below B, then B), comma-separated; sorted, duplicates dropped, at most max_items
 * values. *out is malloc'd. */
int cli_parse_list(const char *cmd, const char *option, const char *text, int max, int max_items,
		   int **out, int *count);

/* A node list (--pin): N or A-B items, comma-separated, each a node below nr_nodes (machine
 * names the topology in the message); sets them in nodes (sized nr_nodes). */
int cli_parse_node_list(const char *cmd, const char *option, const char *text, int nr_nodes,
			const char *machine, struct ts_cpumask *nodes);
/* A sequence of CPUs (--pin-cpus): comma-separated, in order, repeats allowed, each below
 * nr_cpus. *out is malloc'd. */
int cli_parse_cpu_sequence(const char *cmd, const char *option, const char *text, int nr_cpus,
			   const char *machine, int **out, int *count);

/* A --compare configuration NAME=FEATURES: the configuration's kernel (kernel=V, else
 * base_kernel), then that kernel's switches, base_features (--features, tg_layout= taken
 * out; NULL: none) and FEATURES applied on them; *layout_given: FEATURES had tg_layout=. */
int cli_parse_compare(const char *cmd, const char *spec,
		      const struct ts_kernel_profile *base_kernel, const char *base_features,
		      struct ts_exp_config *out, bool *layout_given);

#endif
