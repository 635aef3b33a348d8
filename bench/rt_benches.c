/* The runtime's benchmarks against the kernel (see rt_benches.h): each benchmark's
 * toposched form (tasks of libtoposched) and kernel form (pthreads and the kernel's
 * primitives), timed with CLOCK_MONOTONIC inside the benchmark's own code so that
 * neither side's start-up (ts_rt_start, thread creation where the real tool excludes it)
 * is counted. */
#include "rt_benches.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "toposched/cpumask.h"
#include "toposched/domain.h"

static const char *const names[RTB_NR] = {
	"pipe",	 "pingpong",   "hackbench", "hackbench-handoff",
	"spawn", "spawn-join", "yield",	    "wake",
};

const char *rtb_name(enum rtb_bench b)
{
	return b >= 0 && b < RTB_NR ? names[b] : "?";
}

int rtb_lookup(const char *name)
{
	for (int i = 0; i < RTB_NR; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

double rtb_ratio(const struct rtb_figure *f)
{
	return f->toposched > 0 ? f->kernel / f->toposched : 0;
}

long long rtb_param(const struct rtb_result *r, const char *key)
{
	for (int i = 0; i < r->nr_params; i++)
		if (!r->params[i].is_string && strcmp(r->params[i].key, key) == 0)
			return r->params[i].i;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int fail(char *err, size_t n, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t n, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return code < 0 ? code : -EIO;
}

static void param_int(struct rtb_result *r, const char *key, long long v)
{
	if (r->nr_params < RTB_MAX_PARAMS)
		r->params[r->nr_params++] = (struct rtb_param){.key = key, .i = v};
}

static void param_str(struct rtb_result *r, const char *key, const char *v)
{
	if (r->nr_params < RTB_MAX_PARAMS) {
		struct rtb_param *p = &r->params[r->nr_params++];
		*p = (struct rtb_param){.key = key, .is_string = true};
		snprintf(p->s, sizeof(p->s), "%s", v);
	}
}

static long pick(long v, long def)
{
	return v > 0 ? v : def;
}

/* ---- kernel helpers ---------------------------------------------------------------- */

static long futex(atomic_int *word, int op, int val)
{
	return syscall(SYS_futex, (int *)word, op, val, NULL, NULL, 0);
}

/* The n-th CPU (0-based) of the process's affinity mask, or -1. */
static int affinity_cpu(int n)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &set) && n-- == 0)
			return c;
	return -1;
}

/* Creates a thread pinned to cpu (-1: not pinned) with a stack of stack bytes (0: the
 * default). */
static int thread_start(pthread_t *t, void *(*fn)(void *), void *arg, int cpu, size_t stack)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET((size_t)cpu, &set);
		pthread_attr_setaffinity_np(&a, sizeof(set), &set);
	}
	if (stack)
		pthread_attr_setstacksize(&a, stack);
	int rc = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return -rc;
}

/* ---- runtime helpers --------------------------------------------------------------- */

static int rt_begin(const struct rtb_config *c, const char *cpus, char *err, size_t n)
{
	struct ts_rt_config rc = {
		.topology = c->topology,
		.cpulist = cpus ? cpus : c->cpus,
		.features = c->features,
	};
	int r = ts_rt_start(&rc);
	if (r)
		return fail(err, n, r, "%s", ts_rt_last_error());
	return 0;
}

static void stats_read(struct rtb_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct ts_sched *s = ts_rt_sched();
	if (!s)
		return;
	st->nr_workers = ts_rt_nr_workers();
	ts_rt_get_stats(&st->rt);
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct ts_cpu_stats *cs = &ts_cpu_rq(s, c)->stats;
		st->ttwu += ts_stat_read(&cs->ttwu_count);
		st->ttwu_local += ts_stat_read(&cs->ttwu_local);
		st->fork_placements += ts_stat_read(&cs->fork_exec_placements);
		st->migrations += ts_stat_read(&cs->migrations);
		st->wake_affine_attempts += ts_stat_read(&cs->wake_affine_attempts);
		st->wake_affine += ts_stat_read(&cs->wake_affine);
		for (int r = 0; r < TS_PLACE_NR; r++)
			st->reasons[r] += ts_stat_read(&cs->reasons[r]);
		for (int r = 0; r < TS_REL_NR; r++)
			st->by_relation[r] += ts_stat_read(&cs->wakeups_by_relation[r]);
	}
	ts_sis_counts_sum(&ts_cpu_rq(s, 0)->stats, s->nr_cpus, sizeof(struct ts_rq), &st->sis);
}

/* Reads the statistics, then stops the runtime. */
static int rt_end(struct rtb_result *r, char *err, size_t n)
{
	stats_read(&r->stats);
	int rc = ts_rt_stop();
	if (rc)
		return fail(err, n, rc, "%s", ts_rt_last_error());
	return 0;
}

/* Spawns fn(arg) with attr (may be NULL); on failure the message goes to err. */
static int spawn(ts_task_handle *h, ts_task_fn fn, void *arg, const struct ts_task_attr *a,
		 char *err, size_t n)
{
	*h = ts_spawn(fn, arg, a);
	if (!h->id)
		return fail(err, n, -errno, "%s", ts_rt_last_error());
	return 0;
}

/* Runs fn(arg) as one task and waits for it from this plain thread; fn returns NULL on
 * success or a static error string. */
static int run_task(ts_task_fn fn, void *arg, char *err, size_t n)
{
	ts_task_handle h;
	int rc = spawn(&h, fn, arg, NULL, err, n);
	if (rc)
		return rc;
	void *ret = NULL;
	if ((rc = ts_join(h, &ret)))
		return fail(err, n, rc, "%s", ts_rt_last_error());
	if (ret)
		return fail(err, n, -EIO, "%s", (const char *)ret);
	return 0;
}

/* ---- pipe, pingpong -----------------------------------------------------------------
 * perf bench sched pipe: one task sends a 4-byte message and waits for the reply; the
 * other echoes it. Both directions are "send, then block on the reply", which is why
 * the kernel's pipe_write() wakes the reader with a sync wake-up: here ts_chan_send_sync.
 * select_idle_sibling() then moves the reader to the idle CPU (worker) it last ran on, so
 * every message crosses CPUs, in the kernel and in the runtime alike.
 *
 * pingpong is the same exchange with each send a hand-off (ts_chan_send_handoff,
 * WF_CURRENT_CPU): the reader runs next on the sender's worker, the way Go's channels and
 * Boost.Fiber's run a woken goroutine or fiber on the waker's P or thread. The kernel's
 * form is the same pipe exchange with both threads pinned to one CPU, its nearest way to
 * the same placement (pipes have no WF_CURRENT_CPU wake-up).
 *
 * A short untimed warm-up (1/10 of the loops, at most 1000) comes first on both sides. */

struct pipe_rt {
	struct ts_chan *ping, *pong;
	int (*send)(struct ts_chan *, const void *);
	long loops, warm;
	uint64_t t0, t1;
	const char *error;
};

static void *pipe_rt_main(void *p)
{
	struct pipe_rt *a = p;
	int v;
	for (long i = 0; i < a->warm + a->loops; i++) {
		if (i == a->warm)
			a->t0 = now_ns();
		v = (int)i;
		if (a->send(a->ping, &v) || ts_chan_recv(a->pong, &v) || v != (int)i) {
			a->error = "pipe: channel operation failed";
			break;
		}
	}
	a->t1 = now_ns();
	return NULL;
}

static void *pipe_rt_echo(void *p)
{
	struct pipe_rt *a = p;
	int v;
	for (long i = 0; i < a->warm + a->loops; i++)
		if (ts_chan_recv(a->ping, &v) || a->send(a->pong, &v))
			break;
	return NULL;
}

struct pipe_k {
	int ping[2], pong[2];
	long loops, warm;
	uint64_t t0, t1;
	const char *error;
};

static void *pipe_k_main(void *p)
{
	struct pipe_k *a = p;
	int v;
	for (long i = 0; i < a->warm + a->loops; i++) {
		if (i == a->warm)
			a->t0 = now_ns();
		v = (int)i;
		if (write(a->ping[1], &v, sizeof(v)) != sizeof(v) ||
		    read(a->pong[0], &v, sizeof(v)) != sizeof(v) || v != (int)i) {
			a->error = "pipe: read/write failed";
			break;
		}
	}
	a->t1 = now_ns();
	return NULL;
}

static void *pipe_k_echo(void *p)
{
	struct pipe_k *a = p;
	int v;
	for (long i = 0; i < a->warm + a->loops; i++)
		if (read(a->ping[0], &v, sizeof(v)) != sizeof(v) ||
		    write(a->pong[1], &v, sizeof(v)) != sizeof(v))
			break;
	return NULL;
}

static int bench_pipe(const struct rtb_config *c, bool handoff, struct rtb_result *r, char *err,
		      size_t n)
{
	long loops = pick(c->loops, RTB_PIPE_LOOPS);
	long warm = loops / 10 < 1000 ? loops / 10 : 1000;
	int kcpu = -1; /* the kernel threads' CPU (-1: not pinned) */
	r->unit = "us";
	r->what = "per round trip";
	param_int(r, "loops", loops);
	param_int(r, "message_bytes", 4);
	if (handoff) {
		if ((kcpu = affinity_cpu(0)) < 0)
			return fail(err, n, -EINVAL, "pingpong: no CPU in the affinity mask");
		param_int(r, "kernel_cpu", kcpu);
		snprintf(r->kernel_cmd, sizeof(r->kernel_cmd),
			 "taskset -c %d perf bench sched pipe -T -l %ld", kcpu, loops);
	} else {
		snprintf(r->kernel_cmd, sizeof(r->kernel_cmd), "perf bench sched pipe -T -l %ld",
			 loops);
	}

	/* toposched */
	int rc = rt_begin(c, NULL, err, n);
	if (rc)
		return rc;
	struct pipe_rt a = {
		.send = handoff ? ts_chan_send_handoff : ts_chan_send_sync,
		.loops = loops,
		.warm = warm,
	};
	a.ping = ts_chan_create(1, sizeof(int));
	a.pong = ts_chan_create(1, sizeof(int));
	ts_task_handle h1 = {0}, h2 = {0};
	if (!a.ping || !a.pong)
		rc = fail(err, n, -ENOMEM, "pipe: cannot create channels");
	if (!rc)
		rc = spawn(&h1, pipe_rt_echo, &a, NULL, err, n);
	if (!rc && (rc = spawn(&h2, pipe_rt_main, &a, NULL, err, n)) != 0)
		ts_chan_close(a.ping); /* the echo task's receive fails: it ends */
	if (h2.id)
		ts_join(h2, NULL);
	if (h1.id)
		ts_join(h1, NULL);
	int rc2 = rt_end(r, err, n);
	ts_chan_destroy(a.ping);
	ts_chan_destroy(a.pong);
	if (rc || rc2)
		return rc ? rc : rc2;
	if (a.error)
		return fail(err, n, -EIO, "%s", a.error);
	r->fig.toposched = (double)(a.t1 - a.t0) / (double)loops / 1e3;

	/* kernel */
	struct pipe_k k = {.loops = loops, .warm = warm};
	if (pipe(k.ping) || pipe(k.pong))
		return fail(err, n, -errno, "pipe: pipe(): %s", strerror(errno));
	pthread_t t1, t2;
	rc = thread_start(&t1, pipe_k_echo, &k, kcpu, 0);
	if (!rc && (rc = thread_start(&t2, pipe_k_main, &k, kcpu, 0)) != 0) {
		close(k.ping[1]); /* the echo thread's read fails: it ends */
		pthread_join(t1, NULL);
	} else if (!rc) {
		pthread_join(t2, NULL);
		pthread_join(t1, NULL);
	}
	for (int i = 0; i < 2; i++) {
		close(k.ping[i]);
		close(k.pong[i]);
	}
	if (rc)
		return fail(err, n, rc, "pipe: pthread_create: %s", strerror(-rc));
	if (k.error)
		return fail(err, n, -EIO, "%s", k.error);
	r->fig.kernel = (double)(k.t1 - k.t0) / (double)loops / 1e3;
	return 0;
}

/* ---- hackbench ----------------------------------------------------------------------
 * rt-tests hackbench -T -p -g G -l L: per group, 20 receivers each reading its own pipe
 * and 20 senders each writing L rounds of one 100-byte message to every receiver of the
 * group. Everyone signals ready and waits for the start; the time runs from the start
 * signal until the last thread is joined (hackbench's own measure). Our channel per
 * receiver holds what a 64 KiB pipe holds: 655 messages of 100 bytes.
 *
 * hackbench-handoff is the same with every send and receive a hand-off
 * (ts_chan_send_handoff, ts_chan_recv_handoff: WF_CURRENT_CPU), the wake-up Go's and
 * Boost.Fiber's channels make: a task woken by a message, or by the room a receive made,
 * is queued on its waker's worker, so the tasks that exchange messages gather on one
 * worker. The kernel's form is the same threads and pipes (no pipe wakes with
 * WF_CURRENT_CPU). */

#define HB_FDS	    RTB_HACKBENCH_FDS
#define HB_DATA	    RTB_HACKBENCH_DATASIZE
#define HB_CHAN_CAP (65536 / HB_DATA)

struct hb_rt {
	long groups, loops;
	int (*send)(struct ts_chan *, const void *);
	int (*recv)(struct ts_chan *, void *);
	struct ts_chan **chan; /* [groups * HB_FDS] */
	struct ts_chan *start; /* closed: the start signal */
	struct ts_waitgroup *ready;
	ts_task_handle *h; /* [groups * 2 * HB_FDS] */
	uint64_t t0, t1;
	atomic_long errors;
	char err[160];
};

struct hb_rt_arg {
	struct hb_rt *hb;
	long index; /* sender: group; receiver: channel */
};

static void hb_rt_wait_start(struct hb_rt *hb)
{
	char c;
	ts_wg_done(hb->ready);
	ts_chan_recv(hb->start, &c); /* -EPIPE once closed: the start */
}

static void *hb_rt_sender(void *p)
{
	struct hb_rt_arg *a = p;
	struct hb_rt *hb = a->hb;
	char data[HB_DATA] = {0};
	hb_rt_wait_start(hb);
	for (long l = 0; l < hb->loops; l++)
		for (int j = 0; j < HB_FDS; j++)
			if (hb->send(hb->chan[a->index * HB_FDS + j], data))
				atomic_fetch_add(&hb->errors, 1);
	return NULL;
}

static void *hb_rt_receiver(void *p)
{
	struct hb_rt_arg *a = p;
	struct hb_rt *hb = a->hb;
	char data[HB_DATA];
	hb_rt_wait_start(hb);
	for (long i = 0; i < hb->loops * HB_FDS; i++)
		if (hb->recv(hb->chan[a->index], data))
			atomic_fetch_add(&hb->errors, 1);
	return NULL;
}

/* The controller task: spawns everyone, waits until all are ready, starts the clock,
 * releases them and joins them. */
static void *hb_rt_main(void *p)
{
	struct hb_rt *hb = p;
	long nr = hb->groups * 2 * HB_FDS;
	struct hb_rt_arg *args = calloc((size_t)nr, sizeof(*args));
	if (!args)
		return "hackbench: out of memory";
	ts_wg_add(hb->ready, (int)nr);
	long spawned = 0;
	for (long g = 0; g < hb->groups; g++) {
		for (int j = 0; j < HB_FDS; j++, spawned++) {
			args[spawned] = (struct hb_rt_arg){hb, g * HB_FDS + j};
			if (spawn(&hb->h[spawned], hb_rt_receiver, &args[spawned], NULL, hb->err,
				  sizeof(hb->err)))
				goto out;
		}
		for (int j = 0; j < HB_FDS; j++, spawned++) {
			args[spawned] = (struct hb_rt_arg){hb, g};
			if (spawn(&hb->h[spawned], hb_rt_sender, &args[spawned], NULL, hb->err,
				  sizeof(hb->err)))
				goto out;
		}
	}
	ts_wg_wait(hb->ready);
out:
	/* On a spawn failure the spawned ones are released all the same (their peers are
	 * missing, so each channel is closed first: they end with -EPIPE). */
	if (spawned < nr) {
		ts_wg_add(hb->ready, (int)(spawned - nr));
		for (long i = 0; i < hb->groups * HB_FDS; i++)
			ts_chan_close(hb->chan[i]);
	}
	hb->t0 = now_ns();
	ts_chan_close(hb->start);
	for (long i = 0; i < spawned; i++)
		ts_join(hb->h[i], NULL);
	hb->t1 = now_ns();
	free(args);
	return spawned < nr ? hb->err : NULL;
}

struct hb_k {
	long groups, loops;
	int (*fds)[2]; /* [groups * HB_FDS] */
	int ready[2], wake[2];
};

struct hb_k_arg {
	struct hb_k *hb;
	long index;
	long errors;
};

static void hb_k_wait_start(struct hb_k *hb)
{
	char c = 0;
	struct pollfd pfd = {.fd = hb->wake[0], .events = POLLIN};
	if (write(hb->ready[1], &c, 1) != 1)
		return;
	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
}

static void *hb_k_sender(void *p)
{
	struct hb_k_arg *a = p;
	struct hb_k *hb = a->hb;
	char data[HB_DATA] = {0};
	hb_k_wait_start(hb);
	for (long l = 0; l < hb->loops; l++)
		for (int j = 0; j < HB_FDS; j++)
			for (size_t done = 0; done < HB_DATA;) {
				ssize_t w = write(hb->fds[a->index * HB_FDS + j][1], data + done,
						  HB_DATA - done);
				if (w <= 0) {
					a->errors++;
					return NULL;
				}
				done += (size_t)w;
			}
	return NULL;
}

static void *hb_k_receiver(void *p)
{
	struct hb_k_arg *a = p;
	struct hb_k *hb = a->hb;
	char data[HB_DATA];
	hb_k_wait_start(hb);
	for (long i = 0; i < hb->loops * HB_FDS; i++)
		for (size_t done = 0; done < HB_DATA;) {
			ssize_t got = read(hb->fds[a->index][0], data + done, HB_DATA - done);
			if (got <= 0) {
				a->errors++;
				return NULL;
			}
			done += (size_t)got;
		}
	return NULL;
}

static int hb_kernel(long groups, long loops, double *secs, char *err, size_t n)
{
	long nr = groups * 2 * HB_FDS, nfds = groups * HB_FDS;
	struct hb_k hb = {.groups = groups, .loops = loops, .ready = {-1, -1}, .wake = {-1, -1}};
	hb.fds = malloc((size_t)nfds * sizeof(*hb.fds));
	struct hb_k_arg *args = calloc((size_t)nr, sizeof(*args));
	pthread_t *th = calloc((size_t)nr, sizeof(*th));
	long opened = 0, started = 0;
	int rc = 0;
	if (!hb.fds || !args || !th) {
		rc = fail(err, n, -ENOMEM, "hackbench: out of memory");
		goto out;
	}
	if (pipe(hb.ready) || pipe(hb.wake)) {
		rc = fail(err, n, -errno, "hackbench: pipe(): %s", strerror(errno));
		goto out;
	}
	for (; opened < nfds; opened++)
		if (pipe(hb.fds[opened])) {
			rc = fail(err, n, -errno, "hackbench: pipe(): %s (%ld pipes needed)",
				  strerror(errno), nfds);
			goto out;
		}
	for (long g = 0; g < groups && !rc; g++) {
		for (int j = 0; j < 2 * HB_FDS && !rc; j++, started++) {
			bool receiver = j < HB_FDS;
			args[started] = (struct hb_k_arg){&hb, receiver ? g * HB_FDS + j : g, 0};
			/* hackbench -T uses small stacks too */
			rc = thread_start(&th[started], receiver ? hb_k_receiver : hb_k_sender,
					  &args[started], -1, 64 * 1024);
			if (rc) {
				fail(err, n, rc,
				     "hackbench: pthread_create (thread %ld of %ld): %s",
				     started + 1, nr, strerror(-rc));
				started--;
			}
		}
	}
	if (rc) {
		/* The started ones get EOF/EPIPE from closed pipes and end. */
		for (long i = 0; i < nfds; i++) {
			close(hb.fds[i][0]);
			close(hb.fds[i][1]);
		}
		opened = 0;
	}
	char c;
	for (long i = 0; i < started; i++)
		if (read(hb.ready[0], &c, 1) != 1)
			break;
	uint64_t t0 = now_ns();
	if (write(hb.wake[1], &c, 1) != 1 && !rc)
		rc = fail(err, n, -errno, "hackbench: write: %s", strerror(errno));
	for (long i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	*secs = (double)(now_ns() - t0) / 1e9;
	for (long i = 0; i < started && !rc; i++)
		if (args[i].errors)
			rc = fail(err, n, -EIO, "hackbench: a pipe read or write failed");
out:
	for (long i = 0; i < opened; i++) {
		close(hb.fds[i][0]);
		close(hb.fds[i][1]);
	}
	for (int i = 0; i < 2; i++) {
		if (hb.ready[i] >= 0)
			close(hb.ready[i]);
		if (hb.wake[i] >= 0)
			close(hb.wake[i]);
	}
	free(hb.fds);
	free(args);
	free(th);
	return rc;
}

static int bench_hackbench(const struct rtb_config *c, bool handoff, struct rtb_result *r,
			   char *err, size_t n)
{
	long groups = pick(c->groups, RTB_HACKBENCH_GROUPS);
	long loops = pick(c->loops, RTB_HACKBENCH_LOOPS);
	long nr = groups * 2 * HB_FDS;
	r->unit = "s";
	r->what = "total";
	param_int(r, "groups", groups);
	param_int(r, "senders", HB_FDS);
	param_int(r, "receivers", HB_FDS);
	param_int(r, "loops", loops);
	param_int(r, "message_bytes", HB_DATA);
	param_int(r, "messages", (long long)groups * HB_FDS * HB_FDS * loops);
	snprintf(r->kernel_cmd, sizeof(r->kernel_cmd), "hackbench -T -p -g %ld -l %ld", groups,
		 loops);

	int rc = rt_begin(c, NULL, err, n);
	if (rc)
		return rc;
	struct hb_rt hb = {.groups = groups,
			   .loops = loops,
			   .send = handoff ? ts_chan_send_handoff : ts_chan_send,
			   .recv = handoff ? ts_chan_recv_handoff : ts_chan_recv};
	hb.chan = calloc((size_t)(groups * HB_FDS), sizeof(*hb.chan));
	hb.h = calloc((size_t)nr, sizeof(*hb.h));
	hb.start = ts_chan_create(0, 1);
	hb.ready = ts_wg_create();
	if (!hb.chan || !hb.h || !hb.start || !hb.ready)
		rc = fail(err, n, -ENOMEM, "hackbench: out of memory");
	for (long i = 0; !rc && i < groups * HB_FDS; i++)
		if (!(hb.chan[i] = ts_chan_create(HB_CHAN_CAP, HB_DATA)))
			rc = fail(err, n, -ENOMEM, "hackbench: out of memory");
	if (!rc)
		rc = run_task(hb_rt_main, &hb, err, n);
	int rc2 = rt_end(r, err, n);
	for (long i = 0; hb.chan && i < groups * HB_FDS; i++)
		ts_chan_destroy(hb.chan[i]);
	free(hb.chan);
	free(hb.h);
	ts_chan_destroy(hb.start);
	ts_wg_destroy(hb.ready);
	if (rc || rc2)
		return rc ? rc : rc2;
	if (atomic_load(&hb.errors))
		return fail(err, n, -EIO, "hackbench: %ld channel operations failed",
			    atomic_load(&hb.errors));
	r->fig.toposched = (double)(hb.t1 - hb.t0) / 1e9;
	return hb_kernel(groups, loops, &r->fig.kernel, err, n);
}

/* ---- spawn, spawn-join ---------------------------------------------------------------
 * N tasks that return at once, created in batches of 256 (so that many exist at a time,
 * as in a fan-out) by a task; against pthread_create with default attributes by a plain
 * thread. ns per task, from the first creation to the end of the last batch.
 *   spawn       each batch is awaited once, as Go's `go` + sync.WaitGroup: detached tasks
 *               (ts_task_attr.detached) calling ts_wg_done on a ts_waitgroup the spawner
 *               waits on; detached threads counting down a mutex + condition variable.
 *   spawn-join  each task is joined: ts_join, pthread_join (Boost.Fiber's fiber::join). */

struct spawn_rt {
	long tasks;
	bool join;
	ts_task_handle *h;
	struct ts_waitgroup *wg;
	uint64_t t0, t1;
	char err[160];
};

static void *spawn_child(void *p)
{
	return p;
}

static void *spawn_child_done(void *p)
{
	ts_wg_done(p);
	return NULL;
}

static void *spawn_rt_main(void *p)
{
	struct spawn_rt *a = p;
	struct ts_task_attr detached = TS_TASK_ATTR_INIT;
	detached.detached = true;
	a->t0 = now_ns();
	for (long done = 0; done < a->tasks;) {
		long b = a->tasks - done < RTB_SPAWN_BATCH ? a->tasks - done : RTB_SPAWN_BATCH, i;
		if (!a->join)
			ts_wg_add(a->wg, (int)b);
		for (i = 0; i < b; i++)
			if (a->join ? spawn(&a->h[i], spawn_child, NULL, NULL, a->err,
					    sizeof(a->err))
				    : spawn(&a->h[i], spawn_child_done, a->wg, &detached, a->err,
					    sizeof(a->err)))
				break;
		if (a->join) {
			for (long j = 0; j < i; j++)
				ts_join(a->h[j], NULL);
		} else {
			ts_wg_add(a->wg, (int)(i - b)); /* none on success */
			ts_wg_wait(a->wg);
		}
		if (i < b)
			return a->err;
		done += b;
	}
	a->t1 = now_ns();
	return NULL;
}

/* The kernel's form of spawn's wait group: a count under a mutex. */
struct spawn_count {
	pthread_mutex_t lock;
	pthread_cond_t zero;
	long n;
};

static void *spawn_thread_done(void *p)
{
	struct spawn_count *c = p;
	pthread_mutex_lock(&c->lock);
	if (--c->n == 0)
		pthread_cond_signal(&c->zero);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static int spawn_kernel(long tasks, bool join, double *ns, char *err, size_t n)
{
	pthread_t th[RTB_SPAWN_BATCH];
	struct spawn_count c = {.n = 0};
	pthread_attr_t detached;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.zero, NULL);
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	int rc = 0;
	uint64_t t0 = now_ns();
	for (long done = 0; done < tasks && !rc;) {
		long b = tasks - done < RTB_SPAWN_BATCH ? tasks - done : RTB_SPAWN_BATCH, i;
		if (!join) {
			pthread_mutex_lock(&c.lock);
			c.n += b;
			pthread_mutex_unlock(&c.lock);
		}
		for (i = 0; i < b; i++)
			if ((rc = join ? pthread_create(&th[i], NULL, spawn_child, NULL)
				       : pthread_create(&th[i], &detached, spawn_thread_done, &c)))
				break;
		if (join) {
			for (long j = 0; j < i; j++)
				pthread_join(th[j], NULL);
		} else {
			pthread_mutex_lock(&c.lock);
			c.n -= b - i; /* none on success */
			while (c.n > 0)
				pthread_cond_wait(&c.zero, &c.lock);
			pthread_mutex_unlock(&c.lock);
		}
		done += b;
	}
	*ns = (double)(now_ns() - t0) / (double)tasks;
	pthread_attr_destroy(&detached);
	pthread_cond_destroy(&c.zero);
	pthread_mutex_destroy(&c.lock);
	if (rc)
		return fail(err, n, -rc, "spawn: pthread_create: %s", strerror(rc));
	return 0;
}

static int bench_spawn(const struct rtb_config *c, bool join, struct rtb_result *r, char *err,
		       size_t n)
{
	long tasks = pick(c->tasks, RTB_SPAWN_TASKS);
	r->unit = "ns";
	r->what = join ? "per spawn+join" : "per spawn+wait";
	param_int(r, "tasks", tasks);
	param_int(r, "batch", RTB_SPAWN_BATCH);
	snprintf(r->kernel_cmd, sizeof(r->kernel_cmd),
		 join ? "%ld x pthread_create + pthread_join, default attributes"
		      : "%ld x pthread_create (detached), a mutex + condvar count per batch",
		 tasks);

	struct spawn_rt a = {.tasks = tasks, .join = join};
	a.h = calloc(RTB_SPAWN_BATCH, sizeof(*a.h));
	a.wg = ts_wg_create();
	int rc = 0;
	if (!a.h || !a.wg)
		rc = fail(err, n, -ENOMEM, "spawn: out of memory");
	if (!rc && !(rc = rt_begin(c, NULL, err, n))) {
		rc = run_task(spawn_rt_main, &a, err, n);
		int rc2 = rt_end(r, err, n);
		rc = rc ? rc : rc2;
	}
	free(a.h);
	ts_wg_destroy(a.wg);
	if (rc)
		return rc;
	r->fig.toposched = (double)(a.t1 - a.t0) / (double)tasks;
	return spawn_kernel(tasks, join, &r->fig.kernel, err, n);
}

/* ---- yield --------------------------------------------------------------------------
 * Two tasks on one worker (the runtime started on one CPU) each calling ts_yield()
 * LOOPS times, against two threads pinned to that CPU calling sched_yield(). Both
 * meet at a barrier first, so neither yields to nobody. One switch = one yield; the time
 * from the first one's start to the last one's end over 2 x LOOPS switches. */

struct yield_rt {
	struct ts_waitgroup *wg;
	long loops;
	uint64_t t0[2], t1[2];
};

struct yield_rt_arg {
	struct yield_rt *y;
	int i;
};

static void *yield_rt_task(void *p)
{
	struct yield_rt_arg *a = p;
	ts_wg_done(a->y->wg);
	ts_wg_wait(a->y->wg);
	a->y->t0[a->i] = now_ns();
	for (long l = 0; l < a->y->loops; l++)
		ts_yield();
	a->y->t1[a->i] = now_ns();
	return NULL;
}

struct yield_k {
	pthread_barrier_t bar;
	long loops;
	uint64_t t0[2], t1[2];
};

struct yield_k_arg {
	struct yield_k *y;
	int i;
};

static void *yield_k_thread(void *p)
{
	struct yield_k_arg *a = p;
	pthread_barrier_wait(&a->y->bar);
	a->y->t0[a->i] = now_ns();
	for (long l = 0; l < a->y->loops; l++)
		sched_yield();
	a->y->t1[a->i] = now_ns();
	return NULL;
}

static double span_per(const uint64_t t0[2], const uint64_t t1[2], long switches)
{
	uint64_t a = t0[0] < t0[1] ? t0[0] : t0[1], b = t1[0] > t1[1] ? t1[0] : t1[1];
	return (double)(b - a) / (double)switches;
}

static int bench_yield(const struct rtb_config *c, struct rtb_result *r, char *err, size_t n)
{
	long loops = pick(c->loops, RTB_YIELD_LOOPS);
	int cpu = affinity_cpu(0);
	if (cpu < 0)
		return fail(err, n, -EINVAL, "yield: no CPU in the affinity mask");
	char cpus[16];
	/* One worker: with the host topology the first allowed CPU; with a preset, virtual
	 * CPU 0 (mapped onto the first allowed CPU). */
	snprintf(cpus, sizeof(cpus), "%d", c->topology && strcmp(c->topology, "host") ? 0 : cpu);
	r->unit = "ns";
	r->what = "per switch";
	param_int(r, "loops", loops);
	param_int(r, "tasks", 2);
	param_str(r, "runtime_cpus", cpus);
	param_int(r, "kernel_cpu", cpu);
	snprintf(r->kernel_cmd, sizeof(r->kernel_cmd),
		 "2 threads pinned to CPU %d, %ld x sched_yield() each", cpu, loops);

	int rc = rt_begin(c, cpus, err, n);
	if (rc)
		return rc;
	struct yield_rt y = {.wg = ts_wg_create(), .loops = loops};
	struct yield_rt_arg ya[2] = {{&y, 0}, {&y, 1}};
	ts_task_handle h[2] = {{0}, {0}};
	if (!y.wg)
		rc = fail(err, n, -ENOMEM, "yield: out of memory");
	else
		ts_wg_add(y.wg, 2);
	for (int i = 0; i < 2 && !rc; i++)
		rc = spawn(&h[i], yield_rt_task, &ya[i], NULL, err, n);
	if (rc && h[0].id) /* the first one waits for a partner that never comes */
		ts_wg_add(y.wg, -1);
	for (int i = 0; i < 2; i++)
		if (h[i].id)
			ts_join(h[i], NULL);
	int rc2 = rt_end(r, err, n);
	ts_wg_destroy(y.wg);
	if (rc || rc2)
		return rc ? rc : rc2;
	r->fig.toposched = span_per(y.t0, y.t1, 2 * loops);

	struct yield_k k = {.loops = loops};
	struct yield_k_arg ka[2] = {{&k, 0}, {&k, 1}};
	pthread_barrier_init(&k.bar, NULL, 2);
	pthread_t th[2];
	if ((rc = thread_start(&th[0], yield_k_thread, &ka[0], cpu, 0)) == 0 &&
	    (rc = thread_start(&th[1], yield_k_thread, &ka[1], cpu, 0)) != 0) {
		pthread_barrier_wait(&k.bar); /* the partner of the one waiting there */
		pthread_join(th[0], NULL);
	} else if (!rc) {
		pthread_join(th[0], NULL);
		pthread_join(th[1], NULL);
	}
	pthread_barrier_destroy(&k.bar);
	if (rc)
		return fail(err, n, rc, "yield: pthread_create: %s", strerror(-rc));
	r->fig.kernel = span_per(k.t0, k.t1, 2 * loops);
	return 0;
}

/* ---- wake ---------------------------------------------------------------------------
 * A waiter blocked on one CPU, a waker on another: the waker sleeps 50 us (so that the
 * waiter's CPU goes idle: the runtime's worker spins, then parks on its futex, as an idle
 * kernel CPU does), reads the clock and wakes the waiter, which reads the clock when it
 * runs; the difference is one sample. The waiter acknowledges, and the next sample
 * begins. toposched: two tasks pinned (ts_task_attr.cpus) to the runtime's first two
 * workers, a channel send; kernel: two threads pinned to the first two allowed CPUs, a
 * FUTEX_WAKE. p50 and p99 of LOOPS samples (after 1/10 of them, at most 100, untimed). */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void percentiles(uint64_t *v, long n, double *p50, double *p99)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	*p50 = (double)v[n * 50 / 100];
	*p99 = (double)v[n * 99 / 100];
}

struct wake_rt {
	struct ts_chan *req, *ack;
	long loops, warm;
	uint64_t *lat;
	const char *error;
};

static void *wake_rt_waiter(void *p)
{
	struct wake_rt *a = p;
	uint64_t t0;
	for (long i = 0; i < a->warm + a->loops; i++) {
		if (ts_chan_recv(a->req, &t0)) {
			a->error = "wake: channel receive failed";
			return NULL;
		}
		uint64_t t1 = now_ns();
		if (i >= a->warm)
			a->lat[i - a->warm] = t1 - t0;
		if (ts_chan_send(a->ack, &t1))
			return NULL;
	}
	return NULL;
}

static void *wake_rt_waker(void *p)
{
	struct wake_rt *a = p;
	uint64_t t;
	for (long i = 0; i < a->warm + a->loops; i++) {
		ts_sleep_ns(RTB_WAKE_GAP_NS);
		t = now_ns();
		if (ts_chan_send(a->req, &t) || ts_chan_recv(a->ack, &t)) {
			a->error = "wake: channel operation failed";
			ts_chan_close(a->req);
			return NULL;
		}
	}
	return NULL;
}

struct wake_k {
	atomic_int seq, ack;
	_Atomic uint64_t t0;
	long loops, warm;
	uint64_t *lat;
};

static void *wake_k_waiter(void *p)
{
	struct wake_k *a = p;
	for (int i = 0; i < a->warm + a->loops; i++) {
		while (atomic_load(&a->seq) == i)
			futex(&a->seq, FUTEX_WAIT_PRIVATE, i);
		uint64_t t1 = now_ns();
		if (i >= a->warm)
			a->lat[i - a->warm] = t1 - atomic_load(&a->t0);
		atomic_store(&a->ack, i + 1);
		futex(&a->ack, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

static void *wake_k_waker(void *p)
{
	struct wake_k *a = p;
	struct timespec gap = {0, RTB_WAKE_GAP_NS};
	for (int i = 0; i < a->warm + a->loops; i++) {
		nanosleep(&gap, NULL);
		atomic_store(&a->t0, now_ns());
		atomic_store(&a->seq, i + 1);
		futex(&a->seq, FUTEX_WAKE_PRIVATE, 1);
		while (atomic_load(&a->ack) == i)
			futex(&a->ack, FUTEX_WAIT_PRIVATE, i);
	}
	return NULL;
}

static int bench_wake(const struct rtb_config *c, struct rtb_result *r, char *err, size_t n)
{
	long loops = pick(c->loops, RTB_WAKE_LOOPS);
	long warm = loops / 10 < 100 ? loops / 10 : 100;
	int kcpu[2] = {affinity_cpu(0), affinity_cpu(1)};
	if (kcpu[1] < 0)
		return fail(err, n, -EINVAL, "wake: needs two CPUs in the affinity mask");
	r->unit = "ns";
	r->what = "wake-up latency";
	r->has_p99 = true;
	param_int(r, "loops", loops);
	param_int(r, "gap_ns", RTB_WAKE_GAP_NS);

	uint64_t *lat = calloc((size_t)loops, sizeof(*lat));
	if (!lat)
		return fail(err, n, -ENOMEM, "wake: out of memory");
	int rc = rt_begin(c, NULL, err, n);
	if (rc) {
		free(lat);
		return rc;
	}
	char cpu_a[16], cpu_b[16], both[40];
	struct ts_sched *s = ts_rt_sched();
	if (ts_rt_nr_workers() < 2) {
		rc = fail(err, n, -EINVAL, "wake: needs at least two runtime workers (got %d)",
			  ts_rt_nr_workers());
		ts_rt_stop();
		free(lat);
		return rc;
	}
	snprintf(cpu_a, sizeof(cpu_a), "%d", ts_cpumask_nth(s->dom->cpu_map, 0));
	snprintf(cpu_b, sizeof(cpu_b), "%d", ts_cpumask_nth(s->dom->cpu_map, 1));
	snprintf(both, sizeof(both), "%s,%s", cpu_a, cpu_b);
	param_str(r, "runtime_cpus", both);
	snprintf(both, sizeof(both), "%d,%d", kcpu[0], kcpu[1]);
	param_str(r, "kernel_cpus", both);
	snprintf(r->kernel_cmd, sizeof(r->kernel_cmd),
		 "FUTEX_WAKE from a thread on CPU %d to a FUTEX_WAIT on CPU %d", kcpu[0], kcpu[1]);

	struct wake_rt a = {.loops = loops, .warm = warm, .lat = lat};
	a.req = ts_chan_create(0, sizeof(uint64_t));
	a.ack = ts_chan_create(0, sizeof(uint64_t));
	struct ts_task_attr wa = TS_TASK_ATTR_INIT, sa = TS_TASK_ATTR_INIT;
	wa.cpus = cpu_a;
	wa.name = "waker";
	sa.cpus = cpu_b;
	sa.name = "waiter";
	ts_task_handle h[2] = {{0}, {0}};
	if (!a.req || !a.ack)
		rc = fail(err, n, -ENOMEM, "wake: out of memory");
	if (!rc)
		rc = spawn(&h[0], wake_rt_waiter, &a, &sa, err, n);
	if (!rc)
		rc = spawn(&h[1], wake_rt_waker, &a, &wa, err, n);
	if (rc && h[0].id)
		ts_chan_close(a.req);
	for (int i = 0; i < 2; i++)
		if (h[i].id)
			ts_join(h[i], NULL);
	int rc2 = rt_end(r, err, n);
	ts_chan_destroy(a.req);
	ts_chan_destroy(a.ack);
	if (!rc && !rc2 && a.error)
		rc = fail(err, n, -EIO, "%s", a.error);
	if (rc || rc2) {
		free(lat);
		return rc ? rc : rc2;
	}
	percentiles(lat, loops, &r->fig.toposched, &r->p99.toposched);

	struct wake_k k = {.loops = loops, .warm = warm, .lat = lat};
	pthread_t th[2];
	if ((rc = thread_start(&th[0], wake_k_waiter, &k, kcpu[1], 0)) == 0) {
		if ((rc = thread_start(&th[1], wake_k_waker, &k, kcpu[0], 0)) == 0)
			pthread_join(th[1], NULL);
		else {
			k.warm = k.loops = 0; /* the waiter ends at its next wake-up */
			atomic_store(&k.seq, 1 << 30);
			futex(&k.seq, FUTEX_WAKE_PRIVATE, 1);
		}
		pthread_join(th[0], NULL);
	}
	if (!rc)
		percentiles(lat, loops, &r->fig.kernel, &r->p99.kernel);
	free(lat);
	if (rc)
		return fail(err, n, rc, "wake: pthread_create: %s", strerror(-rc));
	return 0;
}

/* ---- dispatch and text output ------------------------------------------------------ */

int rtb_run(enum rtb_bench b, const struct rtb_config *cfg, struct rtb_result *out, char *err,
	    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->bench = b;
	err[0] = '\0';
	if (ts_rt_running())
		return fail(err, errlen, -EALREADY, "the runtime is already running");
	int rc;
	switch (b) {
	case RTB_PIPE:
	case RTB_PINGPONG:
		rc = bench_pipe(cfg, b == RTB_PINGPONG, out, err, errlen);
		break;
	case RTB_HACKBENCH:
	case RTB_HACKBENCH_HANDOFF:
		rc = bench_hackbench(cfg, b == RTB_HACKBENCH_HANDOFF, out, err, errlen);
		break;
	case RTB_SPAWN:
	case RTB_SPAWN_JOIN:
		rc = bench_spawn(cfg, b == RTB_SPAWN_JOIN, out, err, errlen);
		break;
	case RTB_YIELD:
		rc = bench_yield(cfg, out, err, errlen);
		break;
	case RTB_WAKE:
		rc = bench_wake(cfg, out, err, errlen);
		break;
	default:
		return fail(err, errlen, -EINVAL, "unknown benchmark %d", (int)b);
	}
	if (rc)
		return rc;
	/* The runtime's configuration, for a rerun. */
	bool has_cpus = false;
	for (int i = 0; i < out->nr_params; i++)
		has_cpus |= strcmp(out->params[i].key, "runtime_cpus") == 0;
	if (!has_cpus)
		param_str(out, "runtime_cpus", cfg->cpus ? cfg->cpus : "all");
	param_str(out, "topology", cfg->topology ? cfg->topology : "host");
	if (cfg->features)
		param_str(out, "features", cfg->features);
	rtb_figure_single(&out->fig);
	rtb_figure_single(&out->p99);
	out->runs = 1;
	return 0;
}

void rtb_figure_single(struct rtb_figure *f)
{
	f->ratio_min = f->ratio_max = rtb_ratio(f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) (the mean of the middle two for even n); sorts v. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The figure at offset `off` of the runs whose peer `peer` gave one (peer -1: every run). */
static struct rtb_figure merge_figure(const struct rtb_result *runs, int n, int peer, size_t off)
{
	double t[RTB_MAX_REPEAT], k[RTB_MAX_REPEAT];
	struct rtb_figure m = {0};
	int used = 0;
	for (int i = 0; i < n; i++) {
		if (peer >= 0 && !runs[i].peer[peer].have)
			continue;
		const struct rtb_figure *f = (const void *)((const char *)&runs[i] + off);
		double r = rtb_ratio(f);
		if (used == 0 || r < m.ratio_min)
			m.ratio_min = r;
		if (used == 0 || r > m.ratio_max)
			m.ratio_max = r;
		t[used] = f->toposched;
		k[used] = f->kernel;
		used++;
	}
	if (used) {
		m.toposched = median(t, used);
		m.kernel = median(k, used);
	}
	return m;
}

void rtb_merge_runs(const struct rtb_result *runs, int n, struct rtb_result *out)
{
	if (n > RTB_MAX_REPEAT)
		n = RTB_MAX_REPEAT;
	*out = runs[n - 1];
	out->runs = n;
	out->fig = merge_figure(runs, n, -1, offsetof(struct rtb_result, fig));
	out->p99 = merge_figure(runs, n, -1, offsetof(struct rtb_result, p99));
	for (int p = 0; p < RTB_NR_PEERS; p++) {
		struct rtb_peer_result *pr = &out->peer[p];
		pr->runs = 0;
		for (int i = 0; i < n; i++)
			pr->runs += runs[i].peer[p].have;
		pr->have = pr->runs > 0;
		if (!pr->have)
			continue;
		const char *base = (const char *)&runs[0];
		pr->fig = merge_figure(runs, n, p,
				       (size_t)((const char *)&runs[0].peer[p].fig - base));
		pr->p99 = merge_figure(runs, n, p,
				       (size_t)((const char *)&runs[0].peer[p].p99 - base));
	}
}

void rtb_print_header(FILE *f)
{
	fprintf(f, "%-*s %-16s %12s %12s %8s  %s\n", RTB_NAME_COL, "bench", "unit", "toposched",
		"kernel", "ratio",
		"kernel side (ratio = kernel / toposched: >1 = toposched faster)");
}

static void print_line(FILE *f, const char *name, const char *unit, const char *what,
		       const struct rtb_figure *fig, const char *cmd)
{
	char u[40];
	snprintf(u, sizeof(u), "%s %s", unit, what);
	fprintf(f, "%-*s %-16s %12.4g %12.4g %7.2fx  %s\n", RTB_NAME_COL, name, u, fig->toposched,
		fig->kernel, rtb_ratio(fig), cmd);
}

/* Under a result's lines when it is the median of several runs. */
void rtb_print_range(FILE *f, int runs, const struct rtb_figure *fig)
{
	if (runs > 1)
		fprintf(f, "%-*s %-16s median of %d runs; their ratios %.2fx .. %.2fx\n",
			RTB_NAME_COL, "", "", runs, fig->ratio_min, fig->ratio_max);
}

void rtb_print_result(FILE *f, const struct rtb_result *r)
{
	if (r->has_p99) {
		char name[32];
		snprintf(name, sizeof(name), "%s p50", rtb_name(r->bench));
		print_line(f, name, r->unit, "latency", &r->fig, r->kernel_cmd);
		rtb_print_range(f, r->runs, &r->fig);
		snprintf(name, sizeof(name), "%s p99", rtb_name(r->bench));
		print_line(f, name, r->unit, "latency", &r->p99, "");
		rtb_print_range(f, r->runs, &r->p99);
	} else {
		print_line(f, rtb_name(r->bench), r->unit, r->what, &r->fig, r->kernel_cmd);
		rtb_print_range(f, r->runs, &r->fig);
	}
	if (r->bench == RTB_HACKBENCH || r->bench == RTB_HACKBENCH_HANDOFF) {
		double msgs = 1;
		for (int i = 0; i < r->nr_params; i++)
			if (strcmp(r->params[i].key, "messages") == 0)
				msgs = (double)r->params[i].i;
		fprintf(f, "%-*s %-16s %12.4g %12.4g\n", RTB_NAME_COL, "", "ns per message",
			r->fig.toposched * 1e9 / msgs, r->fig.kernel * 1e9 / msgs);
	}
}

void rtb_print_stats(FILE *f, const struct rtb_result *r)
{
	const struct rtb_stats *s = &r->stats;
	fprintf(f, "runtime statistics of '%s' (%d workers):\n", rtb_name(r->bench), s->nr_workers);
	fprintf(f, "  tasks spawned %llu, switches %llu, parks %llu, ticks %llu, steal %.3f ms\n",
		(unsigned long long)s->rt.spawned, (unsigned long long)s->rt.switches,
		(unsigned long long)s->rt.parks, (unsigned long long)s->rt.ticks,
		(double)s->rt.steal_ns / 1e6);
	fprintf(f,
		"  wake-ups %llu through the core (ttwu %llu, %llu local), %llu early, %llu "
		"deferred, %llu the kernel would queue on the target (ttwu_queue_cond), %llu "
		"activated by the target\n",
		(unsigned long long)s->rt.wakeups, (unsigned long long)s->ttwu,
		(unsigned long long)s->ttwu_local, (unsigned long long)s->rt.early_wakeups,
		(unsigned long long)s->rt.deferred_wakeups, (unsigned long long)s->rt.ttwu_queued,
		(unsigned long long)s->rt.wakelist);
	fprintf(f, "  fork placements %llu, migrations %llu, wake_affine %llu of %llu\n",
		(unsigned long long)s->fork_placements, (unsigned long long)s->migrations,
		(unsigned long long)s->wake_affine, (unsigned long long)s->wake_affine_attempts);
	fputs("  placement reasons:", f);
	bool any = false;
	for (int i = 0; i < TS_PLACE_NR; i++)
		if (s->reasons[i]) {
			fprintf(f, " %s %llu", ts_place_reason_name((enum ts_place_reason)i),
				(unsigned long long)s->reasons[i]);
			any = true;
		}
	fputs(any ? "\n" : " none\n", f);
	fputs("  wake-ups by relation:", f);
	any = false;
	for (int i = 0; i < TS_REL_NR; i++)
		if (s->by_relation[i]) {
			fprintf(f, " %s %llu", ts_cpu_relation_name((enum ts_cpu_relation)i),
				(unsigned long long)s->by_relation[i]);
			any = true;
		}
	fputs(any ? "\n" : " none\n", f);
	fprintf(f,
		"  SIS: search %llu, domain_search %llu, scanned %llu, failed %llu, recent %llu "
		"hit / %llu miss, core_search %llu (%llu failed)\n",
		(unsigned long long)s->sis.search, (unsigned long long)s->sis.domain_search,
		(unsigned long long)s->sis.scanned, (unsigned long long)s->sis.failed,
		(unsigned long long)s->sis.recent_hit, (unsigned long long)s->sis.recent_miss,
		(unsigned long long)s->sis.core_search, (unsigned long long)s->sis.core_failed);
}

/* ---- groups: task-group load tracking (see rt_benches.h) ---------------------------- */

static const char *const rtbg_names[RTBG_NR] = {"pipe", "hackbench"};
static const char *const rtbg_units[RTBG_NR] = {"round trips/s", "messages/s"};
static const enum ts_tg_layout rtbg_layouts[RTBG_LAYOUTS] = {TS_TG_PACKED, TS_TG_ALIGNED,
							     TS_TG_PER_NODE};

const char *rtbg_workload_name(enum rtbg_workload w)
{
	return w >= 0 && w < RTBG_NR ? rtbg_names[w] : "?";
}
const char *rtbg_workload_unit(enum rtbg_workload w)
{
	return w >= 0 && w < RTBG_NR ? rtbg_units[w] : "?";
}
enum ts_tg_layout rtbg_layout(int index)
{
	return rtbg_layouts[index];
}

static bool host_spec(const char *t)
{
	return !t || strcmp(t, "host") == 0;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int rtbg_prepare(const struct rtbg_config *c, struct rtbg_result *r, char *err, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->groups = c->groups > 0 ? c->groups : 1;
	r->repeat = c->repeat > 0 ? c->repeat : 1;
	r->duration_s = c->duration_s > 0 ? c->duration_s : 1.0;
	r->warmup_s = r->duration_s / 5 < 0.5 ? r->duration_s / 5 : 0.5;
	snprintf(r->topology, sizeof(r->topology), "%s", c->topology ? c->topology : "host");
	if (r->repeat > RTBG_MAX_REPEAT)
		return fail(err, n, -EINVAL, "--repeat %d: at most %d", r->repeat, RTBG_MAX_REPEAT);
	/* The workers: on the host the first N CPUs of the affinity mask (OS numbers); on a
	 * preset or XML the first N virtual CPUs (mapped onto the real ones). */
	int avail;
	if (host_spec(c->topology)) {
		cpu_set_t set;
		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof(set), &set))
			return fail(err, n, -errno, "sched_getaffinity: %s", strerror(errno));
		avail = CPU_COUNT(&set);
	} else {
		struct ts_topology *t = NULL;
		struct ts_error e = {0};
		if (ts_topology_load(c->topology, &t, &e))
			return fail(err, n, -EINVAL, "%s", e.msg);
		avail = t->nr_cpus;
		ts_topology_free(t);
	}
	r->workers = c->workers > 0 ? c->workers : avail;
	if (r->workers > avail)
		return fail(err, n, -EINVAL, "--workers %d: %s has only %d CPUs%s", r->workers,
			    r->topology, avail,
			    host_spec(c->topology) ? " in this process's affinity mask" : "");
	size_t len = 0;
	if (host_spec(c->topology)) {
		for (int k = 0; k < r->workers; k++)
			len += (size_t)snprintf(r->cpus + len, sizeof(r->cpus) - len, "%s%d",
						k ? "," : "", affinity_cpu(k));
	} else {
		len = (size_t)snprintf(r->cpus, sizeof(r->cpus), "0-%d", r->workers - 1);
	}
	if (len >= sizeof(r->cpus))
		return fail(err, n, -EINVAL, "--workers %d: too many CPUs to list", r->workers);
	r->pairs = 2 * r->workers;
	r->hb_groups = (r->workers + 3) / 4;
	if (r->groups > r->pairs)
		return fail(err, n, -EINVAL,
			    "--groups %d: more groups than pipe pairs (2 x %d workers = %d)",
			    r->groups, r->workers, r->pairs);
	/* Start it once: the topology, the CPUs and the node count, before anything is timed. */
	struct ts_rt_config rc = {.topology = c->topology, .cpulist = r->cpus};
	if (ts_rt_start(&rc))
		return fail(err, n, -EINVAL, "%s", ts_rt_last_error());
	struct ts_sched *s = ts_rt_sched();
	int got = ts_rt_nr_workers(), cpu, nr_nodes = s->topo->nr_nodes > 0 ? s->topo->nr_nodes : 1;
	bool *seen = calloc((size_t)nr_nodes, sizeof(bool));
	if (seen)
		ts_for_each_cpu(cpu, s->dom->cpu_map)
		{
			int node = s->topo->cpu[cpu].node;
			if (node >= 0 && node < nr_nodes && !seen[node]) {
				seen[node] = true;
				r->nodes++;
			}
		}
	free(seen);
	ts_rt_stop();
	if (got != r->workers)
		return fail(err, n, -EINVAL, "--workers %d: the runtime started %d workers",
			    r->workers, got);
	return 0;
}

/* pipe pairs: each counter on its own line, so that the benchmark adds no false sharing
 * of its own to what it measures */
struct gp_pair {
	alignas(64) atomic_long rounds;
	struct ts_chan *ping, *pong;
	atomic_int *stop;
	atomic_int *errors;
};

static void *gp_main(void *p)
{
	struct gp_pair *a = p;
	int v = 0;
	while (!atomic_load_explicit(a->stop, memory_order_relaxed)) {
		if (ts_chan_send_sync(a->ping, &v) || ts_chan_recv(a->pong, &v)) {
			atomic_fetch_add(a->errors, 1);
			break;
		}
		v++;
		atomic_store_explicit(&a->rounds,
				      atomic_load_explicit(&a->rounds, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	}
	ts_chan_close(a->ping); /* the echo task ends */
	return NULL;
}

static void *gp_echo(void *p)
{
	struct gp_pair *a = p;
	int v;
	while (ts_chan_recv(a->ping, &v) == 0)
		if (ts_chan_send_sync(a->pong, &v))
			break;
	return NULL;
}

/* hackbench: receivers count what they get; the last sender of a group to stop closes
 * the group's channels, and its receivers end once they have drained them */
struct gh_recv {
	alignas(64) atomic_long msgs;
	struct ts_chan *ch;
	atomic_int *errors;
};

struct gh_group {
	struct ts_chan *ch[RTBG_HB_FDS];
	atomic_int senders_left;
	atomic_int *stop;
	atomic_int *errors;
};

static void *gh_sender(void *p)
{
	struct gh_group *g = p;
	char data[HB_DATA] = {0};
	while (!atomic_load_explicit(g->stop, memory_order_relaxed)) {
		int j;
		for (j = 0; j < RTBG_HB_FDS; j++)
			if (ts_chan_send(g->ch[j], data))
				break;
		if (j < RTBG_HB_FDS) {
			if (!atomic_load(g->stop))
				atomic_fetch_add(g->errors, 1);
			break;
		}
	}
	if (atomic_fetch_sub(&g->senders_left, 1) == 1)
		for (int j = 0; j < RTBG_HB_FDS; j++)
			ts_chan_close(g->ch[j]);
	return NULL;
}

static void *gh_receiver(void *p)
{
	struct gh_recv *r = p;
	char data[HB_DATA];
	int rc;
	while ((rc = ts_chan_recv(r->ch, data)) == 0)
		atomic_store_explicit(&r->msgs,
				      atomic_load_explicit(&r->msgs, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	if (rc != -EPIPE)
		atomic_fetch_add(r->errors, 1);
	return NULL;
}

struct gcount {
	enum rtbg_workload w;
	void *v; /* struct gp_pair[] or struct gh_recv[] */
	long nr;
};

static long gcount_read(const struct gcount *c)
{
	long sum = 0;
	for (long i = 0; i < c->nr; i++)
		sum += c->w == RTBG_PIPE ? atomic_load_explicit(&((struct gp_pair *)c->v)[i].rounds,
								memory_order_relaxed)
					 : atomic_load_explicit(&((struct gh_recv *)c->v)[i].msgs,
								memory_order_relaxed);
	return sum;
}

/* Warm-up, then the throughput and the groups' load_avg rates over `duration`. */
static int gmeasure(const struct rtbg_result *r, const struct gcount *c, struct rtbg_sample *out,
		    char *err, size_t n)
{
	struct ts_rt_group_stats a, b;
	struct ts_rt_group_rates rt;
	sleep_s(r->warmup_s);
	if (ts_rt_group_stats(NULL, &a))
		return fail(err, n, -EIO, "%s", ts_rt_last_error());
	long c0 = gcount_read(c);
	sleep_s(r->duration_s);
	if (ts_rt_group_stats(NULL, &b))
		return fail(err, n, -EIO, "%s", ts_rt_last_error());
	long c1 = gcount_read(c);
	if (ts_rt_group_rates(&a, &b, &rt))
		return fail(err, n, -EIO, "%s", ts_rt_last_error());
	*out = (struct rtbg_sample){
		.throughput = (double)(c1 - c0) / rt.interval_s,
		.writes_per_s = rt.writes,
		.reads_per_s = rt.reads,
		.skipped_ratelimit_per_s = rt.skipped_ratelimit,
		.skipped_filter_per_s = rt.skipped_filter,
		.remote_share = rt.remote_share,
		.interval_s = rt.interval_s,
	};
	return 0;
}

static int gphase_pipe(const struct rtbg_result *r, struct ts_rt_group **grp,
		       struct rtbg_sample *out, char *err, size_t n)
{
	long np = r->pairs;
	struct gp_pair *pp = aligned_alloc(64, sizeof(*pp) * (size_t)np);
	ts_task_handle *h = calloc((size_t)np * 2, sizeof(*h));
	atomic_int stop = 0, errors = 0;
	int rc = 0;
	if (!pp || !h) {
		free(pp);
		free(h);
		return fail(err, n, -ENOMEM, "groups: out of memory");
	}
	memset(pp, 0, sizeof(*pp) * (size_t)np);
	long i;
	for (i = 0; i < np && !rc; i++) {
		pp[i].stop = &stop;
		pp[i].errors = &errors;
		pp[i].ping = ts_chan_create(1, sizeof(int));
		pp[i].pong = ts_chan_create(1, sizeof(int));
		if (!pp[i].ping || !pp[i].pong) {
			rc = fail(err, n, -ENOMEM, "groups: out of memory");
			break;
		}
		struct ts_task_attr a = TS_TASK_ATTR_INIT;
		a.group = grp[i % r->groups];
		a.name = "pipe-echo";
		if ((rc = spawn(&h[2 * i], gp_echo, &pp[i], &a, err, n)))
			break;
		a.name = "pipe";
		if ((rc = spawn(&h[2 * i + 1], gp_main, &pp[i], &a, err, n))) {
			ts_chan_close(pp[i].ping);
			break;
		}
	}
	struct gcount cnt = {RTBG_PIPE, pp, np};
	if (!rc)
		rc = gmeasure(r, &cnt, out, err, n);
	atomic_store(&stop, 1);
	for (long k = 0; k < 2 * np; k++)
		if (h[k].id)
			ts_join(h[k], NULL);
	for (long k = 0; k < np; k++) {
		ts_chan_destroy(pp[k].ping);
		ts_chan_destroy(pp[k].pong);
	}
	free(pp);
	free(h);
	if (!rc && atomic_load(&errors))
		rc = fail(err, n, -EIO, "groups: pipe: %d channel operations failed",
			  atomic_load(&errors));
	return rc;
}

static int gphase_hackbench(const struct rtbg_result *r, struct ts_rt_group **grp,
			    struct rtbg_sample *out, char *err, size_t n)
{
	long ng = r->hb_groups, nr = ng * RTBG_HB_FDS;
	struct gh_group *hg = calloc((size_t)ng, sizeof(*hg));
	struct gh_recv *rv = aligned_alloc(64, sizeof(*rv) * (size_t)nr);
	ts_task_handle *h = calloc((size_t)nr * 2, sizeof(*h));
	atomic_int stop = 0, errors = 0;
	int rc = 0;
	if (!hg || !rv || !h) {
		free(hg);
		free(rv);
		free(h);
		return fail(err, n, -ENOMEM, "groups: out of memory");
	}
	memset(rv, 0, sizeof(*rv) * (size_t)nr);
	for (long g = 0; g < ng; g++) {
		hg[g].stop = &stop;
		hg[g].errors = &errors;
		atomic_init(&hg[g].senders_left, RTBG_HB_FDS);
		for (int j = 0; j < RTBG_HB_FDS && !rc; j++) {
			struct gh_recv *x = &rv[g * RTBG_HB_FDS + j];
			x->errors = &errors;
			if (!(x->ch = hg[g].ch[j] = ts_chan_create(HB_CHAN_CAP, HB_DATA)))
				rc = fail(err, n, -ENOMEM, "groups: out of memory");
		}
	}
	long spawned = 0;
	for (long g = 0; g < ng && !rc; g++) {
		struct ts_task_attr a = TS_TASK_ATTR_INIT;
		a.group = grp[g % r->groups];
		a.name = "hb-receiver";
		for (int j = 0; j < RTBG_HB_FDS && !rc; j++)
			if (!(rc = spawn(&h[spawned], gh_receiver, &rv[g * RTBG_HB_FDS + j], &a,
					 err, n)))
				spawned++;
		a.name = "hb-sender";
		for (int j = 0; j < RTBG_HB_FDS && !rc; j++)
			if (!(rc = spawn(&h[spawned], gh_sender, &hg[g], &a, err, n)))
				spawned++;
	}
	struct gcount cnt = {RTBG_HACKBENCH, rv, nr};
	if (!rc)
		rc = gmeasure(r, &cnt, out, err, n);
	atomic_store(&stop, 1);
	if (rc) /* some senders are missing: nobody else would close their channels */
		for (long i = 0; i < nr; i++)
			ts_chan_close(rv[i].ch);
	for (long k = 0; k < spawned; k++)
		ts_join(h[k], NULL);
	for (long i = 0; i < nr; i++)
		ts_chan_destroy(rv[i].ch);
	free(hg);
	free(rv);
	free(h);
	if (!rc && atomic_load(&errors))
		rc = fail(err, n, -EIO, "groups: hackbench: %d channel operations failed",
			  atomic_load(&errors));
	return rc;
}

/* One configuration, once: start, create the groups, both workloads, stop. */
static int groups_once(const struct rtbg_config *c, struct rtbg_result *r, int li, int rl,
		       char *err, size_t n)
{
	struct ts_rt_config rc = {
		.topology = c->topology,
		.cpulist = r->cpus,
		.features = rl ? "TG_LOAD_RATELIMIT" : "NO_TG_LOAD_RATELIMIT",
		.tg_layout = rtbg_layout(li),
	};
	if (ts_rt_start(&rc))
		return fail(err, n, -EIO, "%s", ts_rt_last_error());
	struct ts_rt_group **grp = calloc((size_t)r->groups, sizeof(*grp));
	int ret = grp ? 0 : fail(err, n, -ENOMEM, "groups: out of memory");
	for (int g = 0; g < r->groups && !ret; g++) {
		char name[16];
		snprintf(name, sizeof(name), "g%d", g);
		if (!(grp[g] = ts_rt_group_create(name, 1024, NULL)))
			ret = fail(err, n, -EIO, "%s", ts_rt_last_error());
	}
	struct rtbg_sample s[RTBG_NR];
	if (!ret)
		ret = gphase_pipe(r, grp, &s[RTBG_PIPE], err, n);
	if (!ret)
		ret = gphase_hackbench(r, grp, &s[RTBG_HACKBENCH], err, n);
	free(grp);
	int rc2 = ts_rt_stop();
	if (!ret && rc2)
		ret = fail(err, n, rc2, "%s", ts_rt_last_error());
	if (ret)
		return ret;
	for (int w = 0; w < RTBG_NR; w++) {
		struct rtbg_row *row = &r->row[w][li][rl];
		row->run[row->nr++] = s[w];
	}
	return 0;
}

/* The median of the field at offset `off` over the row's runs; skip_negative leaves out
 * runs where it is negative (no writes: no remote share); -1 if none is left. */
static double row_median(const struct rtbg_row *row, size_t off, bool skip_negative)
{
	double v[RTBG_MAX_REPEAT];
	int k = 0;
	for (int i = 0; i < row->nr; i++) {
		double x = *(const double *)((const char *)&row->run[i] + off);
		if (!skip_negative || x >= 0)
			v[k++] = x;
	}
	return k ? median(v, k) : -1;
}

int rtbg_run(const struct rtbg_config *c, struct rtbg_result *r, char *err, size_t n)
{
	err[0] = '\0';
	if (ts_rt_running())
		return fail(err, n, -EALREADY, "the runtime is already running");
	for (int w = 0; w < RTBG_NR; w++)
		for (int li = 0; li < RTBG_LAYOUTS; li++)
			for (int rl = 0; rl < 2; rl++)
				r->row[w][li][rl] =
					(struct rtbg_row){.workload = (enum rtbg_workload)w,
							  .layout = rtbg_layout(li),
							  .ratelimit = rl};
	/* Interleaved: every configuration once per repeat, so that a drift of the machine
	 * (other load, frequency) spreads over all of them alike. */
	for (int rep = 0; rep < r->repeat; rep++)
		for (int li = 0; li < RTBG_LAYOUTS; li++)
			for (int rl = 0; rl < 2; rl++) {
				int rc = groups_once(c, r, li, rl, err, n);
				if (rc)
					return rc;
			}
	for (int w = 0; w < RTBG_NR; w++) {
		for (int li = 0; li < RTBG_LAYOUTS; li++)
			for (int rl = 0; rl < 2; rl++) {
				struct rtbg_row *row = &r->row[w][li][rl];
				struct rtbg_sample *m = &row->median;
				m->throughput = row_median(
					row, offsetof(struct rtbg_sample, throughput), false);
				m->writes_per_s = row_median(
					row, offsetof(struct rtbg_sample, writes_per_s), false);
				m->reads_per_s = row_median(
					row, offsetof(struct rtbg_sample, reads_per_s), false);
				m->skipped_ratelimit_per_s = row_median(
					row, offsetof(struct rtbg_sample, skipped_ratelimit_per_s),
					false);
				m->skipped_filter_per_s = row_median(
					row, offsetof(struct rtbg_sample, skipped_filter_per_s),
					false);
				m->remote_share = row_median(
					row, offsetof(struct rtbg_sample, remote_share), true);
				m->interval_s = row_median(
					row, offsetof(struct rtbg_sample, interval_s), false);
				double lo = row->run[0].throughput, hi = lo;
				for (int i = 1; i < row->nr; i++) {
					lo = row->run[i].throughput < lo ? row->run[i].throughput
									 : lo;
					hi = row->run[i].throughput > hi ? row->run[i].throughput
									 : hi;
				}
				row->spread = m->throughput > 0 ? (hi - lo) / m->throughput : 0;
			}
		double base = r->row[w][0][0].median.throughput; /* packed, ratelimit off */
		for (int li = 0; li < RTBG_LAYOUTS; li++)
			for (int rl = 0; rl < 2; rl++)
				r->row[w][li][rl].ratio =
					base > 0 ? r->row[w][li][rl].median.throughput / base : 0;
	}
	return 0;
}

void rtbg_print(FILE *f, const struct rtbg_result *r)
{
	fprintf(f,
		"toposched bench groups: %d workers (CPUs %s of %s, %d node%s), %d task group%s "
		"of shares 1024\n",
		r->workers, r->cpus, r->topology, r->nodes, r->nodes == 1 ? "" : "s", r->groups,
		r->groups == 1 ? "" : "s");
	fprintf(f,
		"  pipe: %d ping-pong pairs; hackbench: %d x %d senders x %d receivers, %d-byte "
		"messages\n",
		r->pairs, r->hb_groups, RTBG_HB_FDS, RTBG_HB_FDS, HB_DATA);
	fprintf(f,
		"  %.3g s per workload and configuration after %.3g s of warm-up; the median of "
		"%d run%s each (interleaved)\n"
		"  spread = (max - min) / median of the runs' throughput; ld = tg->load_avg of the "
		"groups;\n  remote = writes after one from another node; ratio = throughput / "
		"packed's without ratelimit\n\n",
		r->duration_s, r->warmup_s, r->repeat, r->repeat == 1 ? "" : "s");
	fprintf(f, "%-10s %-9s %-9s %12s %-14s %7s %12s %12s %7s %8s\n", "workload", "layout",
		"ratelimit", "throughput", "unit", "spread", "ld writes/s", "ld reads/s", "remote",
		"ratio");
	for (int w = 0; w < RTBG_NR; w++)
		for (int li = 0; li < RTBG_LAYOUTS; li++)
			for (int rl = 0; rl < 2; rl++) {
				const struct rtbg_row *row = &r->row[w][li][rl];
				char remote[16];
				if (row->median.remote_share < 0)
					snprintf(remote, sizeof(remote), "-");
				else
					snprintf(remote, sizeof(remote), "%.1f%%",
						 100 * row->median.remote_share);
				char spread[16];
				snprintf(spread, sizeof(spread), "%.0f%%", 100 * row->spread);
				fprintf(f,
					"%-10s %-9s %-9s %12.4g %-14s %7s %12.4g %12.4g %7s "
					"%7.3fx\n",
					rtbg_workload_name(row->workload),
					ts_tg_layout_name(row->layout),
					row->ratelimit ? "on" : "off", row->median.throughput,
					rtbg_workload_unit(row->workload), spread,
					row->median.writes_per_s, row->median.reads_per_s, remote,
					row->ratio);
			}
}
