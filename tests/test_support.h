/* Helpers shared by several tests: a runner of the built CLI (TS_CLI_PATH, a compile
 * definition of every test) that captures stdout, stderr and the exit status, the scratch
 * directories it writes into, and a fixed-seed xorshift64* generator. Header-only and all
 * static inline, so a test that uses only part of it still builds under -Wall -Werror; not
 * a test itself (the tests are the test_*.c files). Include it after <cmocka.h>'s
 * prerequisites; it includes cmocka. */
#ifndef TS_TEST_SUPPORT_H
#define TS_TEST_SUPPORT_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* ---- CPUs ------------------------------------------------------------------------------- */

/* The first CPU of this process's affinity mask (the runtime's host CPU numbering): the
 * one worker of the runtime tests that run on one CPU. */
static inline int ts_first_allowed_cpu(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &set))
			return c;
	fail();
	return -1;
}

/* ---- doubles ---------------------------------------------------------------------------- */

/* cmocka's assert_float_equal() converts to float, which cannot hold 1e-12 tolerances; this
 * compares doubles and prints both values at full precision. */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), #a, __FILE__, __LINE__)

/* ts_cfs_rq_check() (toposched/eevdf.h) holds, or the test fails naming the violation. */
#define assert_cfs_ok(cfs)                                                                         \
	do {                                                                                       \
		const char *why_ = NULL;                                                           \
		if (ts_cfs_rq_check((cfs), &why_) != 0)                                            \
			fail_msg("cfs_rq check failed: %s", why_ ? why_ : "?");                    \
	} while (0)

static inline void assert_near_at(double a, double b, double eps, const char *expr,
				  const char *file, int line)
{
	if (!(a - b <= eps && b - a <= eps)) {
		print_error("%s = %.17g, expected %.17g within %g\n", expr, a, b, eps);
		_fail(file, line);
	}
}

/* ---- fixed-seed PRNG (xorshift64*) ------------------------------------------------------ */

static uint64_t rng_state __attribute__((unused));

static inline void rng_seed(uint64_t s)
{
	rng_state = s ? s : 1;
}

static inline uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* ---- the CLI runner --------------------------------------------------------------------- */

struct run {
	int status;		 /* exit status, or 128 + signal */
	char *out, *err;	 /* NUL-terminated, malloc'd; free with run_free() */
	size_t out_len, err_len; /* bytes read, which may include NULs */
};

/* The whole file at path, NUL-terminated; its length (without the NUL) in *len. */
static inline char *slurp(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t cap = 4096, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	size_t n;
	while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			s = realloc(s, cap);
			assert_non_null(s);
		}
	}
	fclose(f);
	s[len] = '\0';
	if (len_out)
		*len_out = len;
	return s;
}

/* Runs TS_CLI_PATH with args (NULL-terminated, without argv[0]) and stdin on /dev/null;
 * output goes through the files dir/stdout and dir/stderr (left there for the caller to
 * remove) so that a large stdout cannot deadlock against an unread stderr. A run longer
 * than `limit` seconds is killed by SIGALRM (the alarm survives exec): a hang fails the
 * test instead of stalling ctest. */
static inline struct run ts_run_cli(const char *dir, const char *const *args, unsigned limit)
{
	char out_path[300], err_path[300];
	snprintf(out_path, sizeof(out_path), "%s/stdout", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	const char *argv[32] = {TS_CLI_PATH};
	int argc = 1;
	for (; args[argc - 1]; argc++) {
		assert_true(argc < 31);
		argv[argc] = args[argc - 1];
	}
	argv[argc] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int in = open("/dev/null", O_RDONLY);
		if (o < 0 || e < 0 || in < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(in, 0) < 0)
			_exit(127);
		alarm(limit);
		execv(TS_CLI_PATH, (char *const *)argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		assert_int_equal(errno, EINTR);
	struct run r = {0};
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r.out = slurp(out_path, &r.out_len);
	r.err = slurp(err_path, &r.err_len);
	return r;
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* ---- scratch directories for ts_run_cli's output files ---------------------------------- */

/* Removes what ts_run_cli() leaves in dir (stdout and stderr), then dir: rmdir()'s result,
 * which fails where anything else was left there. */
static inline int ts_tmpdir_remove(const char *dir)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/stdout", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	unlink(path);
	return rmdir(dir);
}

/* The directory of a test file whose cmocka group runs ts_tmpdir_setup() and
 * ts_tmpdir_teardown(): "$TMPDIR/<test>.XXXXXX" (TMPDIR unset: /tmp), the test's name from
 * TS_TEST_NAME (a compile definition of every test). */
static char ts_tmpdir[256] __attribute__((unused));

static inline int ts_tmpdir_setup(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(ts_tmpdir, sizeof(ts_tmpdir), "%s/%s.XXXXXX", base ? base : "/tmp", TS_TEST_NAME);
	return mkdtemp(ts_tmpdir) ? 0 : -1;
}

/* Always 0: a file left behind is not a failure of the group (tests that insist on a clean
 * directory check ts_tmpdir_remove()'s result themselves). */
static inline int ts_tmpdir_teardown(void **state)
{
	(void)state;
	ts_tmpdir_remove(ts_tmpdir);
	return 0;
}

/* Occurrences of sub in s (non-overlapping). */
static inline int count_substr(const char *s, const char *sub)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, sub)); p += strlen(sub))
		n++;
	return n;
}

static inline int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Runs the CLI as ts_run_cli() does and fails the test unless it exits 0 with nothing on
 * standard error; returns its standard output (malloc'd). */
static inline char *ts_run_cli_ok(const char *dir, const char *const *args, unsigned limit)
{
	struct run r = ts_run_cli(dir, args, limit);
	if (r.status != 0 || r.err[0]) {
		print_message("exit %d, stderr: %s", r.status, r.err);
		run_free(&r);
		fail();
	}
	free(r.err);
	return r.out;
}

/* The CLI refused bad input as every command must: exit 2, nothing on standard output, one
 * line on standard error, "toposched CMD: error: ...", holding every word of words
 * (NULL-terminated). */
static inline bool ts_cli_refused(const struct run *r, const char *cmd, const char *const *words)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "toposched %s: error: ", cmd);
	bool ok = r->status == 2 && r->out[0] == '\0' &&
		  strncmp(r->err, prefix, strlen(prefix)) == 0 && count_lines(r->err) == 1;
	for (int i = 0; ok && words[i]; i++)
		ok = strstr(r->err, words[i]) != NULL;
	return ok;
}

#endif
