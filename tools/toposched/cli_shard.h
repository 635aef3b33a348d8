/* Sweeps cut into shards (toposched sim --shard K/N, toposched merge): the option's parser
 * and the version the parts carry, so that only the toposched that ran the shards merges
 * them (docs/sim-json.md, "Shards"). */
#ifndef TOPOSCHED_CLI_SHARD_H
#define TOPOSCHED_CLI_SHARD_H

/* "K/N", 1 <= K <= N <= TS_EXP_MAX_RUNS, both decimal: *shard = K - 1, *nr_shards = N.
 * Otherwise a message naming the text, and CLI_EXIT_USAGE. */
int cli_parse_shard(const char *cmd, const char *text, int *shard, int *nr_shards);
/* "0.1.0 (git v0.1.0-12-gabcdef012345)", or "0.1.0" built outside git: --version's. */
const char *cli_shard_version(void);

#endif
