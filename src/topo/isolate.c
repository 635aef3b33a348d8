/* Loading a topology in a child process. hwloc 2.9 trusts XML files and sysfs captures:
 * a well-formed XML file with inconsistent cpusets crashes it inside
 * hwloc_topology_load() (found by fuzz/fuzz_xml.c; lstopo crashes the same way). Such
 * input cannot all be recognised beforehand, so the load runs in a child that sends the
 * finished topology (or its error) back through a pipe; its death by a signal, or a hang,
 * becomes one error about the input. The parent checks what comes back as it checks any
 * source (ts_topology_alloc(), ts_topology_finish()). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topo_build.h"

/* An export of an 8192-CPU machine loads in about a second; a minute is a hang. */
enum { ISOLATED_LOAD_SECONDS = 60 };

struct wire_header {
	int32_t code; /* 0, or the load's negative error code (msg follows) */
	int32_t nr_cpus, nr_nodes;
	uint64_t llc_bytes;
	char name[64], description[160];
};

static bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		len -= (size_t)w;
	}
	return true;
}

static _Noreturn void run_child(int fd, ts_topology_loader load, void *arg)
{
	/* A crash here is an answer about the input, not the caller's crash: its handlers (a
	 * crash reporter, a sanitizer's or fuzzer's report) must not run for it. */
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGALRM};
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	alarm(ISOLATED_LOAD_SECONDS);
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	struct wire_header h = {0};
	int rc = load(arg, &t, &err);
	bool ok;
	if (rc || !t) {
		h.code = rc ? rc : -EINVAL;
		ok = write_all(fd, &h, sizeof(h)) && write_all(fd, err.msg, sizeof(err.msg));
	} else {
		h.nr_cpus = t->nr_cpus;
		h.nr_nodes = t->nr_nodes;
		h.llc_bytes = t->llc_bytes;
		memcpy(h.name, t->name, sizeof(h.name));
		memcpy(h.description, t->description, sizeof(h.description));
		ok = write_all(fd, &h, sizeof(h)) &&
		     write_all(fd, t->cpu, (size_t)t->nr_cpus * sizeof(*t->cpu)) &&
		     write_all(fd, t->distance,
			       (size_t)t->nr_nodes * (size_t)t->nr_nodes * sizeof(int));
	}
	/* _exit: no atexit handlers (the parent's), no stdio flush of the parent's buffers. */
	_exit(ok ? 0 : 1);
}

/* Reads until EOF; the bytes in *buf (malloc'ed), their count in *len. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 1 << 16, got = 0;
	char *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (got == cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(b);
			return -e;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	*buf = b;
	*len = got;
	return 0;
}

static int decode(const char *label, const char *buf, size_t len, struct ts_topology **out,
		  struct ts_error *err)
{
	struct wire_header h;
	if (len < sizeof(h))
		return ts_error_set(err, -EIO, "%s: the loading process sent no result", label);
	memcpy(&h, buf, sizeof(h));
	if (h.code != 0) {
		char msg[TS_ERR_MSG_MAX] = "";
		if (len >= sizeof(h) + sizeof(msg))
			memcpy(msg, buf + sizeof(h), sizeof(msg));
		msg[sizeof(msg) - 1] = '\0';
		return ts_error_set(err, h.code < 0 ? h.code : -EINVAL, "%s", msg);
	}
	struct ts_topology *t = ts_topology_alloc(h.nr_cpus, h.nr_nodes, err);
	if (!t) {
		ts_error_prefix(err, "%s", label);
		return err && err->code ? err->code : -ENOMEM;
	}
	size_t cpu_bytes = (size_t)t->nr_cpus * sizeof(*t->cpu);
	size_t dist_bytes = (size_t)t->nr_nodes * (size_t)t->nr_nodes * sizeof(int);
	if (len != sizeof(h) + cpu_bytes + dist_bytes) {
		ts_topology_free(t);
		return ts_error_set(err, -EIO, "%s: the loading process sent a truncated result",
				    label);
	}
	memcpy(t->cpu, buf + sizeof(h), cpu_bytes);
	memcpy(t->distance, buf + sizeof(h) + cpu_bytes, dist_bytes);
	memcpy(t->name, h.name, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = '\0';
	t->llc_bytes = h.llc_bytes;
	memcpy(t->description, h.description, sizeof(t->description));
	t->description[sizeof(t->description) - 1] = '\0';
	int rc = ts_topology_finish(t, err);
	if (rc) {
		ts_error_prefix(err, "%s", label);
		ts_topology_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

int ts_topology_load_isolated(const char *label, ts_topology_loader load, void *arg,
			      struct ts_topology **out, struct ts_error *err)
{
	*out = NULL;
	int fds[2];
	if (pipe(fds) != 0)
		return ts_error_set(err, -errno, "%s: cannot create a pipe: %s", label,
				    strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return ts_error_set(err, -e, "%s: cannot start the loading process: %s", label,
				    strerror(e));
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(fds[1], load, arg);
	}
	close(fds[1]);
	char *buf = NULL;
	size_t len = 0;
	int rc = read_all(fds[0], &buf, &len);
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc) {
		free(buf);
		return ts_error_set(err, rc, "%s: cannot read the loading process's result: %s",
				    label, strerror(-rc));
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		rc = ts_error_set(err, -ETIMEDOUT,
				  "%s: hwloc did not finish loading it within %d s: not a "
				  "topology it can read",
				  label, ISOLATED_LOAD_SECONDS);
	else if (WIFSIGNALED(status))
		rc = ts_error_set(err, -EINVAL,
				  "%s: hwloc crashed while loading it (%s): the file is not a "
				  "consistent hwloc topology",
				  label, strsignal(WTERMSIG(status)));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = ts_error_set(err, -EIO, "%s: the loading process failed (exit status %d)",
				  label, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	else
		rc = decode(label, buf, len, out, err);
	free(buf);
	return rc;
}
