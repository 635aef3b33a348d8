/* Where the commands write (tools/toposched/cli_output.c), as a user sees it: --output
 * replaces a regular file whole and keeps its mode, but never replaces what is not a
 * plain file of its own: a character device (as root, 'sim --output /dev/null' used to
 * turn /dev/null into a regular file), a FIFO, a symbolic link or a file with several
 * hard links each survive with their type, mode and links and get the content; a
 * directory is refused; '-' and /dev/stdout are standard output. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_support.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
/* a quick command with a deterministic output */
#define FEATURES "features", "--format", "json"

static char files[300]; /* the targets, in a directory of their own */
static char *expected;	/* what FEATURES prints on standard output */

static struct run run_cli(const char *const *args)
{
	return ts_run_cli(ts_tmpdir, args, 120);
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", files, name);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* Runs FEATURES --output path: exit 0, nothing on stdout or stderr. */
static void output_to(const char *path)
{
	struct run r = run_cli(ARGS(FEATURES, "--output", path));
	if (r.status != 0 || r.out[0] || r.err[0])
		fail_msg("--output %s: exit %d, stdout %zu bytes, stderr: %s", path, r.status,
			 r.out_len, r.err);
	run_free(&r);
}

static void assert_content(const char *path)
{
	char *s = slurp(path, NULL);
	assert_string_equal(s, expected);
	free(s);
}

static int setup(void **state)
{
	if (ts_tmpdir_setup(state))
		return -1;
	snprintf(files, sizeof(files), "%s/files", ts_tmpdir);
	if (mkdir(files, 0700))
		return -1;
	umask(022);
	return 0;
}

static int teardown(void **state)
{
	const char *names[] = {"mode600",  "new",  "a",	   "b",	   "real",    "link",
			       "dangling", "made", "fifo", "null", "fifo.out"};
	char path[400];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_of(path, sizeof(path), names[i]);
		unlink(path);
	}
	path_of(path, sizeof(path), "dir");
	rmdir(path);
	rmdir(files);
	free(expected);
	return ts_tmpdir_teardown(state);
}

static void test_stdout_and_dash(void **state)
{
	(void)state;
	struct run r = run_cli(ARGS(FEATURES));
	assert_int_equal(r.status, 0);
	expected = r.out;
	r.out = NULL;
	run_free(&r);
	assert_true(strlen(expected) > 100);
	const char *const stdout_names[] = {"-", "/dev/stdout"};
	for (int i = 0; i < 2; i++) {
		r = run_cli(ARGS(FEATURES, "--output", stdout_names[i]));
		assert_int_equal(r.status, 0);
		assert_string_equal(r.out, expected);
		run_free(&r);
	}
}

static void test_regular_file_keeps_mode(void **state)
{
	(void)state;
	char path[400];
	path_of(path, sizeof(path), "mode600");
	write_file(path, "old\n", 0600);
	output_to(path);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_nlink, 1);
	assert_content(path);
	/* a new file gets 0666 & ~umask, as open(2) gives it */
	path_of(path, sizeof(path), "new");
	output_to(path);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_content(path);
}

static void test_hard_links_stay_linked(void **state)
{
	(void)state;
	char a[400], b[400];
	path_of(a, sizeof(a), "a");
	path_of(b, sizeof(b), "b");
	write_file(a, "a longer old content than the new one would need to be truncated\n", 0640);
	assert_int_equal(link(a, b), 0);
	struct stat before, sa, sb;
	assert_int_equal(stat(a, &before), 0);
	output_to(a);
	assert_int_equal(stat(a, &sa), 0);
	assert_int_equal(stat(b, &sb), 0);
	assert_int_equal(sa.st_ino, before.st_ino);
	assert_int_equal(sb.st_ino, before.st_ino);
	assert_int_equal(sa.st_nlink, 2);
	assert_int_equal(sa.st_mode & 07777, 0640);
	assert_content(b);
}

static void test_symlink_survives(void **state)
{
	(void)state;
	char real[400], link_path[400], dangling[400], made[400];
	path_of(real, sizeof(real), "real");
	path_of(link_path, sizeof(link_path), "link");
	path_of(dangling, sizeof(dangling), "dangling");
	path_of(made, sizeof(made), "made");
	write_file(real, "old\n", 0600);
	assert_int_equal(symlink("real", link_path), 0); /* relative: resolved from files/ */
	output_to(link_path);
	struct stat st;
	assert_int_equal(lstat(link_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(real, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_content(real);
	/* a link to a file that does not exist yet: the file is created, the link kept */
	assert_int_equal(symlink("made", dangling), 0);
	output_to(dangling);
	assert_int_equal(lstat(dangling, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_content(made);
}

static void test_fifo_with_reader(void **state)
{
	(void)state;
	char fifo[400], copy[400];
	path_of(fifo, sizeof(fifo), "fifo");
	path_of(copy, sizeof(copy), "fifo.out");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fflush(NULL);
	pid_t reader = fork();
	assert_true(reader >= 0);
	if (reader == 0) { /* cat fifo > fifo.out */
		alarm(120);
		FILE *in = fopen(fifo, "r"), *out = fopen(copy, "w");
		int c;
		if (!in || !out)
			_exit(1);
		while ((c = fgetc(in)) != EOF)
			fputc(c, out);
		_exit(fclose(out) ? 1 : 0);
	}
	output_to(fifo);
	int st;
	assert_int_equal(waitpid(reader, &st, 0), reader);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	struct stat sb;
	assert_int_equal(lstat(fifo, &sb), 0);
	assert_true(S_ISFIFO(sb.st_mode));
	assert_content(copy);
}

static void test_character_device(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: creating a character device (mknod 1:3) needs root\n");
		skip();
	}
	char dev[400];
	path_of(dev, sizeof(dev), "null");
	assert_int_equal(mknod(dev, S_IFCHR | 0666, makedev(1, 3)), 0);
	assert_int_equal(chmod(dev, 0666), 0); /* past the umask */
	output_to(dev);
	/* the sim report too, the case that once replaced /dev/null */
	struct run r = run_cli(ARGS("sim", "--clients", "1", "--iterations", "1", "--duration",
				    "1ms", "--warmup", "0", "--quiet", "--output", dev));
	assert_int_equal(r.status, 0);
	run_free(&r);
	struct stat st;
	assert_int_equal(lstat(dev, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);
	assert_int_equal(st.st_mode & 07777, 0666);
}

static void test_directory_refused(void **state)
{
	(void)state;
	char dir[400];
	path_of(dir, sizeof(dir), "dir");
	assert_int_equal(mkdir(dir, 0700), 0);
	struct run r = run_cli(ARGS(FEATURES, "--output", dir));
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "toposched features: error: --output"));
	assert_non_null(strstr(r.err, "is a directory"));
	run_free(&r);
}

static void test_bad_input_writes_nothing(void **state)
{
	(void)state;
	char path[400], fresh[400];
	path_of(path, sizeof(path), "mode600");
	write_file(path, "old\n", 0600);
	path_of(fresh, sizeof(fresh), "never");
	const char *const targets[] = {path, fresh};
	for (int i = 0; i < 2; i++) {
		struct run r = run_cli(
			ARGS("features", "--features", "NO_SUCH_FEATURE", "--output", targets[i]));
		assert_int_equal(r.status, 2);
		run_free(&r);
	}
	char *s = slurp(path, NULL);
	assert_string_equal(s, "old\n");
	free(s);
	assert_int_equal(access(fresh, F_OK), -1);
	/* and no temporary file stayed next to them */
	DIR *d = opendir(files);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			fail_msg("left behind: %s", de->d_name);
	closedir(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stdout_and_dash),
		cmocka_unit_test(test_regular_file_keeps_mode),
		cmocka_unit_test(test_hard_links_stay_linked),
		cmocka_unit_test(test_symlink_survives),
		cmocka_unit_test(test_fifo_with_reader),
		cmocka_unit_test(test_character_device),
		cmocka_unit_test(test_directory_refused),
		cmocka_unit_test(test_bad_input_writes_nothing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
