#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- temporary files: removed on every terminating signal as well ---- */

#define MAX_TEMPS 4 /* a command writes at most --output and --plot */
static char temp_paths[MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];

static void remove_temps_on_signal(int sig)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temp_used[i])
			unlink(temp_paths[i]); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void register_temp(const char *tmp)
{
	static bool installed;
	if (!installed) {
		struct sigaction sa = {0};
		sa.sa_handler = remove_temps_on_signal;
		sigemptyset(&sa.sa_mask);
		/* Every signal whose default action ends the process, except the ones that
		 * cannot be caught and the synchronous faults (the state is unknown there). */
		static const int fatal[] = {SIGINT,  SIGTERM, SIGHUP,	 SIGQUIT, SIGUSR1, SIGUSR2,
					    SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};
		for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
			struct sigaction old;
			/* a signal ignored by whoever started us stays ignored (nohup) */
			if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
				continue;
			sigaction(fatal[i], &sa, NULL);
		}
		installed = true;
	}
	for (int i = 0; i < MAX_TEMPS; i++)
		if (!temp_used[i]) {
			snprintf(temp_paths[i], sizeof(temp_paths[i]), "%s", tmp);
			temp_used[i] = 1;
			return;
		}
}

static void unregister_temp(const char *tmp)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temp_used[i] && strcmp(temp_paths[i], tmp) == 0) {
			temp_used[i] = 0;
			return;
		}
}

/* ---- what a path names ---- */

/* Is dir (canonical) this process's descriptor directory, /proc/PID/fd? */
static bool is_own_fd_dir(const char *dir)
{
	char own[64];
	snprintf(own, sizeof(own), "/proc/%ld/fd", (long)getpid());
	return strcmp(dir, own) == 0;
}

/* The descriptor that path names when it is /dev/stdout, /dev/fd/N, /proc/self/fd/N (its
 * directory resolved): N, else -1. Such a path is a link the kernel resolves to whatever
 * the descriptor holds (a pipe, a terminal, a file opened for appending); only writing
 * to the descriptor itself does what the caller meant. */
static int own_fd_of(const char *path)
{
	char dir[PATH_MAX], canon[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (!realpath(dir[0] ? dir : "/", canon) || !is_own_fd_dir(canon))
		return -1;
	char *end;
	long fd = strtol(slash + 1, &end, 10);
	return slash[1] && *end == '\0' && fd >= 0 && fd <= INT_MAX ? (int)fd : -1;
}

struct resolved {
	bool exists;
	struct stat st; /* of the file itself, when it exists */
	int fd;		/* >= 0: one of this process's descriptors */
};

/* Follows the symbolic links of path, one by one, to the file they end at (which need
 * not exist): its path in target. 0, or a negative errno. */
static int resolve(const char *path, char *target, size_t size, struct resolved *r)
{
	*r = (struct resolved){.fd = -1};
	snprintf(target, size, "%s", path);
	for (int hops = 0; hops < 40; hops++) { /* the kernel's MAXSYMLINKS */
		if ((r->fd = own_fd_of(target)) >= 0)
			return 0;
		if (lstat(target, &r->st) != 0)
			return errno == ENOENT ? 0 : -errno;
		if (!S_ISLNK(r->st.st_mode)) {
			r->exists = true;
			return 0;
		}
		char link[PATH_MAX];
		ssize_t n = readlink(target, link, sizeof(link) - 1);
		if (n < 0)
			return -errno;
		link[n] = '\0';
		const char *slash = strrchr(target, '/');
		char next[PATH_MAX];
		int len = link[0] == '/' || !slash ? snprintf(next, sizeof(next), "%s", link)
						   : snprintf(next, sizeof(next), "%.*s/%s",
							      (int)(slash - target), target, link);
		if (len < 0 || (size_t)len >= size)
			return -ENAMETOOLONG;
		memcpy(target, next, (size_t)len + 1);
	}
	return -ELOOP;
}

/* ---- opening ---- */

static int open_fd(struct cli_output *o, int fd, const char *path)
{
	o->kind = CLI_OUTPUT_FD;
	if (fd == STDOUT_FILENO) {
		o->f = stdout;
		return 0;
	}
	int copy = dup(fd);
	if (copy < 0 || !(o->f = fdopen(copy, "w"))) {
		int e = errno;
		if (copy >= 0)
			close(copy);
		o->kind = CLI_OUTPUT_NONE;
		return cli_error(o->cmd, "%s '%s': descriptor %d: %s", o->option, path, fd,
				 strerror(e));
	}
	return 0;
}

/* A temporary file next to the target, with the mode (and owner) the target has. */
static int open_replace(struct cli_output *o, const char *path, const struct resolved *r)
{
	const char *slash = strrchr(o->target, '/');
	int len = slash ? snprintf(o->tmp, sizeof(o->tmp), "%.*s/.%s.XXXXXX",
				   (int)(slash - o->target), o->target, slash + 1)
			: snprintf(o->tmp, sizeof(o->tmp), ".%s.XXXXXX", o->target);
	if (len < 0 || (size_t)len >= sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		return cli_error(o->cmd, "%s '%s': the path is too long", o->option, path);
	}
	/* signals blocked from the file's creation until its name is registered: one that
	 * came in between would leave it behind */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	int fd = mkstemp(o->tmp);
	int create_errno = errno;
	if (fd >= 0)
		register_temp(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		o->tmp[0] = '\0';
		return cli_error(o->cmd, "%s '%s': cannot create a file in its directory: %s",
				 o->option, path, strerror(create_errno));
	}
	o->kind = CLI_OUTPUT_REPLACE;
	o->created = !r->exists;
	mode_t mask = umask(0);
	umask(mask);
	mode_t mode = r->exists ? r->st.st_mode & 07777 : 0666 & ~mask;
	/* neither is fatal: the file keeps mkstemp's 0600, or this process's owner */
	int ignored = fchmod(fd, mode);
	(void)ignored;
	if (r->exists && (r->st.st_uid != geteuid() || r->st.st_gid != getegid()) &&
	    fchown(fd, r->st.st_uid, r->st.st_gid) == 0)
		fchmod(fd, mode); /* chown clears set-id bits */
	if (!(o->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		return cli_error(o->cmd, "%s '%s': %s", o->option, path, strerror(e));
	}
	return 0;
}

/* The target opened now (a bad permission is bad input), its contents collected in an
 * anonymous temporary file and copied in at the end. */
static int open_inplace(struct cli_output *o, const char *path, const struct resolved *r)
{
	o->kind = CLI_OUTPUT_INPLACE;
	o->target_fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	if (o->target_fd < 0) {
		int e = errno;
		return cli_error(o->cmd, "%s '%s': %s", o->option, path, strerror(e));
	}
	if (fstat(o->target_fd, &st) != 0 || st.st_ino != r->st.st_ino || st.st_dev != r->st.st_dev)
		return cli_error(o->cmd, "%s '%s': the file changed while it was opened", o->option,
				 path);
	o->truncate = S_ISREG(st.st_mode);
	if (!(o->f = tmpfile())) {
		int e = errno;
		return cli_error(o->cmd, "%s '%s': cannot create a temporary file: %s", o->option,
				 path, strerror(e));
	}
	return 0;
}

int cli_output_open(struct cli_output *o, const char *cmd, const char *option, const char *path)
{
	*o = (struct cli_output){.cmd = cmd, .option = option, .target_fd = -1};
	if (!path || strcmp(path, "-") == 0)
		return open_fd(o, STDOUT_FILENO, "-");
	size_t len = strlen(path);
	if (len == 0)
		return cli_error(cmd, "%s: empty file name", option);
	if (len >= sizeof(o->target) - 16)
		return cli_error(cmd, "%s '%s': the path is too long", option, path);
	if (path[len - 1] == '/')
		return cli_error(cmd, "%s '%s': names a directory, not a file", option, path);
	struct resolved r;
	int rc = resolve(path, o->target, sizeof(o->target) - 16, &r);
	if (rc)
		return cli_error(cmd, "%s '%s': %s", option, path, strerror(-rc));
	if (r.fd >= 0)
		return open_fd(o, r.fd, path);
	if (!r.exists || (S_ISREG(r.st.st_mode) && r.st.st_nlink == 1))
		rc = open_replace(o, path, &r);
	else if (S_ISREG(r.st.st_mode) || S_ISCHR(r.st.st_mode) || S_ISFIFO(r.st.st_mode))
		rc = open_inplace(o, path, &r);
	else if (S_ISDIR(r.st.st_mode))
		return cli_error(cmd, "%s '%s': is a directory", option, path);
	else
		return cli_error(cmd,
				 "%s '%s': a %s, not a file, a FIFO or a character device "
				 "(or '-' for standard output)",
				 option, path, S_ISBLK(r.st.st_mode) ? "block device" : "socket");
	if (rc)
		cli_output_discard(o);
	return rc;
}

FILE *cli_output_stream(struct cli_output *o)
{
	return o->f;
}

/* ---- finishing ---- */

static int write_failed(struct cli_output *o, int e)
{
	fprintf(stderr, "toposched %s: error: %s '%s': writing failed: %s\n", o->cmd, o->option,
		o->kind == CLI_OUTPUT_FD && o->f == stdout ? "-" : o->target, strerror(e));
	cli_output_discard(o);
	return 1;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copies the collected output into the target, from its start. */
static int copy_in(struct cli_output *o)
{
	int from = fileno(o->f);
	if (lseek(from, 0, SEEK_SET) != 0)
		return -1;
	if (o->truncate && ftruncate(o->target_fd, 0) != 0)
		return -1;
	char buf[65536];
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (write_all(o->target_fd, buf, (size_t)n))
			return -1;
	}
}

/* Phase one of a commit: everything written and, for a replacement, on disk and closed,
 * so that what remains (a rename, a copy into a device) rarely fails. */
static int commit_prepare(struct cli_output *o)
{
	if (!o->f)
		return 0;
	if (fflush(o->f) || ferror(o->f))
		return write_failed(o, errno ? errno : EIO);
	if (o->kind == CLI_OUTPUT_REPLACE) {
		/* the data must be on disk before it replaces anything */
		int rc = fsync(fileno(o->f));
		rc |= fclose(o->f);
		o->f = NULL;
		if (rc)
			return write_failed(o, errno);
	}
	return 0;
}

/* Phase two: the output put in place. */
static int commit_finish(struct cli_output *o)
{
	switch (o->kind) {
	case CLI_OUTPUT_REPLACE:
		if (rename(o->tmp, o->target) != 0)
			return write_failed(o, errno);
		unregister_temp(o->tmp);
		o->tmp[0] = '\0';
		break;
	case CLI_OUTPUT_INPLACE:
		if (copy_in(o) || close(o->target_fd) != 0) {
			o->target_fd = -1;
			return write_failed(o, errno);
		}
		o->target_fd = -1;
		break;
	default:
		break;
	}
	cli_output_discard(o);
	return 0;
}

int cli_output_commit(struct cli_output *o)
{
	return cli_output_commit_all(&o, 1);
}

int cli_output_commit_doc(struct cli_output *o, int doc_rc)
{
	if (doc_rc) {
		cli_output_discard(o);
		cli_error(o->cmd, "cannot build the JSON output: %s", strerror(-doc_rc));
		return CLI_EXIT_FAILURE;
	}
	return cli_output_commit(o);
}

int cli_output_commit_all(struct cli_output *const *outs, int n)
{
	for (int i = 0; i < n; i++)
		if (commit_prepare(outs[i])) {
			for (int j = 0; j < n; j++)
				cli_output_discard(outs[j]);
			return 1;
		}
	/* In-place writes first: they can still fail (a full device); a rename of a file
	 * already on disk next to its target hardly can, and is what cannot be taken back. */
	for (int i = 0; i < n; i++)
		if (outs[i]->kind == CLI_OUTPUT_INPLACE && commit_finish(outs[i])) {
			for (int j = 0; j < n; j++)
				cli_output_discard(outs[j]);
			return 1;
		}
	int rc = 0;
	for (int i = 0; i < n; i++)
		if (commit_finish(outs[i]))
			rc = 1;
	return rc;
}

void cli_output_discard(struct cli_output *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->kind == CLI_OUTPUT_INPLACE && o->target_fd >= 0)
		close(o->target_fd);
	o->target_fd = -1;
	if (o->kind == CLI_OUTPUT_REPLACE && o->tmp[0]) {
		unlink(o->tmp);
		unregister_temp(o->tmp);
		o->tmp[0] = '\0';
	}
	o->kind = CLI_OUTPUT_NONE;
}

bool cli_path_has_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path), m = strlen(suffix);
	return n >= m && strcasecmp(path + n - m, suffix) == 0;
}
