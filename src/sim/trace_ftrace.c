/* --trace: one run's scheduling events in the ftrace text format, as
 * /sys/kernel/tracing/trace prints them with the nop tracer and the sched events enabled
 * (docs/trace.md), so that Perfetto's UI and trace_processor (their systrace importer),
 * trace-cmd-style scripts and plain grep read the simulated machine like a real one.
 *
 * The format, from the kernel (v6.x):
 *   the header: s_show() and print_func_help_header_irq() in kernel/trace/trace.c, with
 *     the entry count and #P (the online CPUs: the machine's);
 *   each line: trace_print_context() in kernel/trace/trace_output.c, "%16s-%-7d [%03d] "
 *     then the five latency flags (irqs-off, need-resched, hardirq/softirq, preempt-depth,
 *     migrate-disable), the timestamp " %5lu.%06lu" in microseconds (ns2usecs() rounds),
 *     ": ", the event's name and ": ", then its TP_printk() arguments from
 *     include/trace/events/sched.h;
 *   the idle task is "<idle>" on the line and swapper/N in sched_switch, pid 0, prio 120.
 * sched_wakeup and sched_wakeup_new carry two arguments the kernel has not: the core's
 * placement reason (ts_place_reason_name()) and the CPUs its scans examined; readers that
 * split arguments at '=' (Perfetto's among them) take them as extra fields.
 *
 * A task's pid is its task id + 1 (0 is the idle task), its comm its class's name (spaces
 * made '_', cut to TASK_COMM_LEN - 1 = 15 characters) or kworker/CPU:1, its prio
 * 120 + nice. The lines are kept in memory until the run ends, since the header counts
 * them; cfg->trace_max_bytes bounds them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define TRACE_COMM_LEN	 16  /* TASK_COMM_LEN, NUL included */
#define TRACE_IDLE_PRIO	 120 /* the idle task's prio as sched_switch prints it */
#define TRACE_NICE_0	 120 /* MAX_RT_PRIO + NICE_WIDTH / 2: prio of nice 0 */
#define TRACE_LINE_MAX	 512
#define TRACE_FIRST_SIZE (1u << 20)

/* The latency flags of each event: what the kernel's context holds when it fires (irqs
 * off under the rq or pi lock, the preempt count of the locks held; 'h' in the timer's
 * hardirq; fork and exit run preemptible). */
#define FLAGS_SWITCH	   "d..2." /* __schedule(): rq lock, irqs off */
#define FLAGS_WAKING	   "d..2." /* try_to_wake_up(): p->pi_lock */
#define FLAGS_WAKING_TIMER "d.h2." /* ... from a timer interrupt */
#define FLAGS_WAKEUP	   "d..3." /* ttwu_do_activate(): the rq lock too */
#define FLAGS_WAKEUP_TIMER "d.h3."
#define FLAGS_MIGRATE	   "d..2." /* set_task_cpu() */
#define FLAGS_PROCESS	   "....." /* kernel_clone(), do_exit() */

struct sim_trace {
	char *buf;
	size_t len, cap;
	uint64_t entries;
	uint64_t max_bytes; /* 0: no bound */
};

int sim_trace_open(struct sim *m, struct ts_error *err)
{
	struct sim_trace *tr = calloc(1, sizeof(*tr));
	if (!tr)
		return ts_error_set(err, -ENOMEM, "sim: out of memory for the trace");
	tr->max_bytes = m->cfg->trace_max_bytes;
	m->trace = tr;
	return 0;
}

void sim_trace_free(struct sim *m)
{
	if (!m->trace)
		return;
	free(m->trace->buf);
	free(m->trace);
	m->trace = NULL;
}

static bool reserve(struct sim *m, size_t n)
{
	struct sim_trace *tr = m->trace;
	if (tr->max_bytes && tr->len + n > tr->max_bytes) {
		sim_fail(m, -EFBIG,
			 "sim: the trace passed its bound of %" PRIu64 " MiB after %" PRIu64
			 " events, at %.6f s of virtual time (--trace-max-mb raises it; a shorter "
			 "--duration or --warmup, or a smaller load, makes the trace smaller)",
			 tr->max_bytes >> 20, tr->entries, (double)m->now / 1e9);
		return false;
	}
	if (tr->len + n <= tr->cap)
		return true;
	size_t cap = tr->cap ? tr->cap : TRACE_FIRST_SIZE;
	while (cap < tr->len + n)
		cap *= 2;
	if (tr->max_bytes && cap > tr->max_bytes) /* never more than the bound */
		cap = (size_t)tr->max_bytes;
	char *buf = realloc(tr->buf, cap);
	if (!buf) {
		sim_fail(m, -ENOMEM, "sim: out of memory for the trace (%zu bytes)", cap);
		return false;
	}
	tr->buf = buf;
	tr->cap = cap;
	return true;
}

struct who {
	char comm[TRACE_COMM_LEN];
	int pid, prio;
};

/* t (NULL: cpu's idle task) as the event arguments name it. */
static void who_of(const struct sim_task *t, int cpu, struct who *w)
{
	if (!t) {
		snprintf(w->comm, sizeof(w->comm), "swapper/%d", cpu);
		w->pid = 0;
		w->prio = TRACE_IDLE_PRIO;
		return;
	}
	w->pid = t->t.id + 1;
	w->prio = TRACE_NICE_0 + t->t.nice;
	if (t->role == SIM_ROLE_KWORKER) {
		snprintf(w->comm, sizeof(w->comm), "kworker/%d:1", t->t.cpu);
		return;
	}
	const char *name = t->cls && t->cls->name ? t->cls->name : "task";
	size_t n = 0;
	for (; name[n] && n < sizeof(w->comm) - 1; n++)
		w->comm[n] = (unsigned char)name[n] <= ' ' ? '_' : name[n];
	w->comm[n] = '\0';
}

/* One line: context (cpu's current task, or <idle>), flags, time, event, arguments. */
__attribute__((format(printf, 5, 6))) static void emit(struct sim *m, int cpu, const char *flags,
						       const char *event, const char *fmt, ...)
{
	if (m->error)
		return;
	char line[TRACE_LINE_MAX];
	struct who cur;
	const struct sim_task *curr = m->cpu[cpu].curr;
	who_of(curr, cpu, &cur);
	uint64_t us = (m->now + 500) / 1000; /* ns2usecs() */
	int n = snprintf(line, sizeof(line), "%16s-%-7d [%03d] %s %5" PRIu64 ".%06" PRIu64 ": %s: ",
			 curr ? cur.comm : "<idle>", cur.pid, cpu, flags, us / 1000000,
			 us % 1000000, event);
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n += k < 0 ? 0 : k;
	if (n > (int)sizeof(line) - 2) /* cut, as trace_seq cuts a full page */
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (!reserve(m, (size_t)n))
		return;
	memcpy(m->trace->buf + m->trace->len, line, (size_t)n);
	m->trace->len += (size_t)n;
	m->trace->entries++;
}

/* __trace_sched_switch_state(): a task switched out while runnable was preempted ("R+");
 * one that blocked sleeps interruptibly, in a socket, pipe or futex wait ("S"); one that
 * exited is a zombie until its parent reaps it ("Z": exit_state EXIT_ZOMBIE). */
static const char *prev_state(const struct sim_task *prev)
{
	if (!prev)
		return "R";
	switch (prev->t.state) {
	case TS_TASK_RUNNABLE:
		return "R+";
	case TS_TASK_DEAD:
		return "Z";
	default:
		return "S";
	}
}

void sim_trace_switch(struct sim *m, int cpu, const struct sim_task *prev,
		      const struct sim_task *next)
{
	struct who p, n;
	who_of(prev, cpu, &p);
	who_of(next, cpu, &n);
	emit(m, cpu, FLAGS_SWITCH, "sched_switch",
	     "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d "
	     "next_prio=%d",
	     p.comm, p.pid, p.prio, prev_state(prev), n.comm, n.pid, n.prio);
}

void sim_trace_waking(struct sim *m, int cpu, const struct sim_task *t, bool from_timer)
{
	struct who w;
	who_of(t, cpu, &w);
	emit(m, cpu, from_timer ? FLAGS_WAKING_TIMER : FLAGS_WAKING, "sched_waking",
	     "comm=%s pid=%d prio=%d target_cpu=%03d", w.comm, w.pid, w.prio, t->t.cpu);
}

void sim_trace_wakeup(struct sim *m, int cpu, const struct sim_task *t,
		      const struct ts_placement *pl, bool from_timer, bool new_task)
{
	struct who w;
	who_of(t, cpu, &w);
	/* a wake-up sent to the target's wake list is activated there */
	int at = pl->ttwu_queued ? pl->cpu : cpu;
	emit(m, at, from_timer ? FLAGS_WAKEUP_TIMER : FLAGS_WAKEUP,
	     new_task ? "sched_wakeup_new" : "sched_wakeup",
	     "comm=%s pid=%d prio=%d target_cpu=%03d reason=%s nr_scanned=%d", w.comm, w.pid,
	     w.prio, pl->cpu, ts_place_reason_name(pl->reason), pl->nr_scanned);
}

void sim_trace_migrate(void *host, const struct ts_task *p, int dest_cpu)
{
	struct sim *m = host;
	const struct sim_task *t = sim_task_of((struct ts_task *)p);
	struct who w;
	who_of(t, p->cpu, &w);
	emit(m, m->cur_cpu >= 0 ? m->cur_cpu : p->cpu, FLAGS_MIGRATE, "sched_migrate_task",
	     "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", w.comm, w.pid, w.prio, p->cpu,
	     dest_cpu);
}

void sim_trace_fork(struct sim *m, int cpu, const struct sim_task *parent,
		    const struct sim_task *child)
{
	struct who p, c;
	who_of(parent, cpu, &p);
	who_of(child, cpu, &c);
	emit(m, cpu, FLAGS_PROCESS, "sched_process_fork",
	     "comm=%s pid=%d child_comm=%s child_pid=%d", p.comm, p.pid, c.comm, c.pid);
}

void sim_trace_exit(struct sim *m, int cpu, const struct sim_task *t)
{
	struct who w;
	who_of(t, cpu, &w);
	emit(m, cpu, FLAGS_PROCESS, "sched_process_exit", "comm=%s pid=%d prio=%d", w.comm, w.pid,
	     w.prio);
}

/* The header of kernel/trace/trace.c for the nop tracer with irq-info on (its default),
 * then the lines. */
void sim_trace_write(struct sim *m)
{
	const struct sim_trace *tr = m->trace;
	FILE *out = m->cfg->trace;
	if (!tr || !out)
		return;
	fprintf(out,
		"# tracer: nop\n"
		"#\n"
		"# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%d\n"
		"#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n",
		tr->entries, tr->entries, m->nr_cpus);
	if (tr->len)
		fwrite(tr->buf, 1, tr->len, out);
}
