/* Building and running the peers of `toposched bench --peers` (see rt_peers.h). */
#include "rt_peers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A peer that has not printed its figure after this long has hung: it is killed. */
#define PEER_TIMEOUT_S 300

static const char *const peer_names[RTB_PEER_NR] = {"go", "boost_fiber"};

const char *rtb_peer_name(enum rtb_peer p)
{
	return p >= 0 && p < RTB_PEER_NR ? peer_names[p] : "?";
}

static void skip(struct rtb_peers *pp, enum rtb_peer p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void skip(struct rtb_peers *pp, enum rtb_peer p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pp->skipped[p], sizeof(pp->skipped[p]), fmt, ap);
	va_end(ap);
	pp->ready[p] = false;
}

/* The program `name` on PATH, into out; false if there is none. */
static bool on_path(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		if (len && (size_t)snprintf(out, n, "%.*s/%s", (int)len, path, name) < n &&
		    access(out, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

static long long mtime_of(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long long)st.st_mtime;
}

/* Runs argv in dir (NULL: here) with extra environment entries, its output appended to
 * log; waits at most timeout_s. The exit status, or -1 when it could not run or hung. */
static int run_logged(char *const argv[], const char *dir, char *const env[], const char *log,
		      int timeout_s)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (dir && chdir(dir))
			_exit(127);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	for (int waited_ms = 0;; waited_ms += 20) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (r < 0 || waited_ms >= timeout_s * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

static void build_go(const char *src, const char *cache, struct rtb_peers *pp)
{
	enum rtb_peer p = RTB_PEER_GO;
	char go[512], dir[600], main_go[640], log[600];
	snprintf(pp->exe[p], sizeof(pp->exe[p]), "%s/peer-go", cache);
	snprintf(dir, sizeof(dir), "%s/go", src);
	snprintf(main_go, sizeof(main_go), "%s/main.go", dir);
	snprintf(log, sizeof(log), "%s/peer-go.log", cache);
	if (mtime_of(main_go) < 0)
		return skip(pp, p, "source %s not found", main_go);
	if (!on_path("go", go, sizeof(go)))
		return skip(pp, p, "no Go toolchain ('go' not on PATH; Debian: golang-go)");
	pp->ready[p] = true;
	if (mtime_of(pp->exe[p]) >= mtime_of(main_go))
		return;
	static char gocache[600], gopath[600];
	snprintf(gocache, sizeof(gocache), "GOCACHE=%s/gocache", cache);
	snprintf(gopath, sizeof(gopath), "GOPATH=%s/gopath", cache);
	char *env[] = {gocache, gopath, "GOFLAGS=-mod=mod", "GO111MODULE=on", "GOPROXY=off", NULL};
	char *argv[] = {go, "build", "-o", pp->exe[p], ".", NULL};
	if (run_logged(argv, dir, env, log, PEER_TIMEOUT_S) != 0)
		skip(pp, p, "'go build' failed: see %s", log);
}

static void build_fiber(const char *src, const char *cache, struct rtb_peers *pp)
{
	enum rtb_peer p = RTB_PEER_FIBER;
	char cxx[512], cpp[600], log[600];
	snprintf(pp->exe[p], sizeof(pp->exe[p]), "%s/peer-fiber", cache);
	snprintf(cpp, sizeof(cpp), "%s/fiber/peer.cpp", src);
	snprintf(log, sizeof(log), "%s/peer-fiber.log", cache);
	if (mtime_of(cpp) < 0)
		return skip(pp, p, "source %s not found", cpp);
	if (!on_path("c++", cxx, sizeof(cxx)) && !on_path("g++", cxx, sizeof(cxx)))
		return skip(pp, p, "no C++ compiler (c++ or g++ on PATH)");
	if (access("/usr/include/boost/fiber/all.hpp", R_OK) != 0)
		return skip(pp, p,
			    "Boost.Fiber not installed (/usr/include/boost/fiber/all.hpp; "
			    "Debian: libboost-fiber-dev)");
	pp->ready[p] = true;
	if (mtime_of(pp->exe[p]) >= mtime_of(cpp))
		return;
	char *argv[] = {cxx, "-O2",	      "-std=c++17",	 "-o",	     pp->exe[p],
			cpp, "-lboost_fiber", "-lboost_context", "-pthread", NULL};
	if (run_logged(argv, NULL, NULL, log, PEER_TIMEOUT_S) != 0)
		skip(pp, p, "building %s failed: see %s", cpp, log);
}

void rtb_peers_build(const char *src_dir, const char *cache_dir, struct rtb_peers *pp)
{
	memset(pp, 0, sizeof(*pp));
	if (mkdir(cache_dir, 0755) && errno != EEXIST) {
		for (int p = 0; p < RTB_PEER_NR; p++)
			skip(pp, (enum rtb_peer)p, "cannot create %s: %s", cache_dir,
			     strerror(errno));
		return;
	}
	build_go(src_dir, cache_dir, pp);
	build_fiber(src_dir, cache_dir, pp);
}

int rtb_peer_run(const struct rtb_peers *pp, enum rtb_peer p, int procs, struct rtb_result *r)
{
	struct rtb_peer_result *pr = &r->peer[p];
	if (!pp->ready[p]) {
		snprintf(pr->skipped, sizeof(pr->skipped), "%s", pp->skipped[p]);
		return -1;
	}
	long long loops = 1, groups = 1, tasks = 1;
	switch (r->bench) {
	case RTB_HACKBENCH:
	case RTB_HACKBENCH_HANDOFF:
		groups = rtb_param(r, "groups");
		/* fall through */
	case RTB_PIPE:
	case RTB_PINGPONG:
	case RTB_YIELD:
	case RTB_WAKE:
		loops = rtb_param(r, "loops");
		break;
	case RTB_SPAWN:
	case RTB_SPAWN_JOIN:
		tasks = rtb_param(r, "tasks");
		break;
	default:
		break;
	}
	char a[4][24], out[600];
	snprintf(a[0], sizeof(a[0]), "%lld", loops);
	snprintf(a[1], sizeof(a[1]), "%lld", groups);
	snprintf(a[2], sizeof(a[2]), "%lld", tasks);
	snprintf(a[3], sizeof(a[3]), "%d", procs > 0 ? procs : 1);
	snprintf(out, sizeof(out), "%s.out", pp->exe[p]);
	unlink(out);
	/* A peer's channels always run the woken side on the waker's P or thread: its one
	 * ping-pong is the form of both pipe (the kernel's placement) and pingpong (the same),
	 * its one hackbench that of hackbench and hackbench-handoff. */
	const char *bench = r->bench == RTB_PINGPONG		? rtb_name(RTB_PIPE)
			    : r->bench == RTB_HACKBENCH_HANDOFF ? rtb_name(RTB_HACKBENCH)
								: rtb_name(r->bench);
	char *argv[] = {(char *)pp->exe[p], (char *)bench, a[0], a[1], a[2], a[3], NULL};
	int rc = run_logged(argv, NULL, NULL, out, PEER_TIMEOUT_S);
	FILE *f = fopen(out, "r");
	char name[32] = "", line[256] = "";
	double v1 = 0, v2 = 0;
	int got = 0;
	while (f && fgets(line, sizeof(line), f))
		if ((got = sscanf(line, "%31s %lf %lf", name, &v1, &v2)) >= 2 &&
		    strcmp(name, bench) == 0)
			break;
	if (f)
		fclose(f);
	if (rc != 0 || got < 2 || strcmp(name, bench) != 0 || (r->has_p99 && got < 3)) {
		snprintf(pr->skipped, sizeof(pr->skipped), "'%s %s %s %s %s' %s (output in %.150s)",
			 bench, a[0], a[1], a[2], a[3],
			 rc < 0 ? "did not finish" : "printed no figure", out);
		return -1;
	}
	pr->have = true;
	pr->runs = 1;
	pr->fig = (struct rtb_figure){.toposched = r->fig.toposched, .kernel = v1};
	pr->p99 = (struct rtb_figure){.toposched = r->p99.toposched, .kernel = v2};
	rtb_figure_single(&pr->fig);
	rtb_figure_single(&pr->p99);
	return 0;
}

void rtb_print_peers(FILE *f, const struct rtb_result *r)
{
	for (int p = 0; p < RTB_PEER_NR; p++) {
		const struct rtb_peer_result *pr = &r->peer[p];
		char name[40];
		snprintf(name, sizeof(name), "  %s", peer_names[p]);
		if (!pr->have) {
			fprintf(f, "%-*s skipped: %s\n", RTB_NAME_COL, name, pr->skipped);
			continue;
		}
		fprintf(f, "%-*s %-16s %12.4g %12.4g %7.2fx  (%s / toposched)\n", RTB_NAME_COL,
			name, r->has_p99 ? "p50" : "", pr->fig.toposched, pr->fig.kernel,
			rtb_ratio(&pr->fig), peer_names[p]);
		rtb_print_range(f, pr->runs, &pr->fig);
		if (r->has_p99) {
			fprintf(f, "%-*s %-16s %12.4g %12.4g %7.2fx\n", RTB_NAME_COL, "", "p99",
				pr->p99.toposched, pr->p99.kernel, rtb_ratio(&pr->p99));
			rtb_print_range(f, pr->runs, &pr->p99);
		}
	}
}
