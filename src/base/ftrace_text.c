/* The ftrace text lines of the scheduling events (toposched/ftrace_text.h). */
#include "toposched/ftrace_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#define IDLE_PRIO 120 /* the idle task's prio as sched_switch prints it */

void ts_ftrace_task_set(struct ts_ftrace_task *w, const char *name, int pid, int prio)
{
	size_t n = 0;
	for (; name[n] && n < sizeof(w->comm) - 1; n++)
		w->comm[n] = (unsigned char)name[n] <= ' ' ? '_' : name[n];
	w->comm[n] = '\0';
	w->pid = pid;
	w->prio = prio;
}

void ts_ftrace_idle(struct ts_ftrace_task *w, int cpu)
{
	snprintf(w->comm, sizeof(w->comm), "swapper/%d", cpu);
	w->pid = 0;
	w->prio = IDLE_PRIO;
}

/* The context, then the event's arguments. */
__attribute__((format(printf, 4, 5))) static size_t
line_of(char *line, const struct ts_ftrace_at *at, const char *event, const char *fmt, ...)
{
	uint64_t us = (at->ns + 500) / 1000; /* ns2usecs() */
	int n = snprintf(line, TS_FTRACE_LINE_MAX,
			 "%16s-%-7d [%03d] %s %5" PRIu64 ".%06" PRIu64 ": %s: ",
			 at->curr ? at->curr->comm : "<idle>", at->curr ? at->curr->pid : 0,
			 at->cpu, at->flags, us / 1000000, us % 1000000, event);
	if (n < 0)
		n = 0;
	if (n > TS_FTRACE_LINE_MAX - 2)
		n = TS_FTRACE_LINE_MAX - 2;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line + n, TS_FTRACE_LINE_MAX - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n += k < 0 ? 0 : k;
	if (n > TS_FTRACE_LINE_MAX - 2)
		n = TS_FTRACE_LINE_MAX - 2;
	line[n++] = '\n';
	return (size_t)n;
}

size_t ts_ftrace_switch(char *line, const struct ts_ftrace_at *at,
			const struct ts_ftrace_task *prev, const char *prev_state,
			const struct ts_ftrace_task *next)
{
	return line_of(line, at, "sched_switch",
		       "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s "
		       "next_pid=%d next_prio=%d",
		       prev->comm, prev->pid, prev->prio, prev_state, next->comm, next->pid,
		       next->prio);
}

size_t ts_ftrace_waking(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p,
			int target_cpu)
{
	return line_of(line, at, "sched_waking", "comm=%s pid=%d prio=%d target_cpu=%03d", p->comm,
		       p->pid, p->prio, target_cpu);
}

size_t ts_ftrace_wakeup(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p,
			bool new_task, int target_cpu, const char *reason, int nr_scanned)
{
	return line_of(line, at, new_task ? "sched_wakeup_new" : "sched_wakeup",
		       "comm=%s pid=%d prio=%d target_cpu=%03d reason=%s nr_scanned=%d", p->comm,
		       p->pid, p->prio, target_cpu, reason, nr_scanned);
}

size_t ts_ftrace_migrate(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p,
			 int orig_cpu, int dest_cpu)
{
	return line_of(line, at, "sched_migrate_task",
		       "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", p->comm, p->pid, p->prio,
		       orig_cpu, dest_cpu);
}

size_t ts_ftrace_fork(char *line, const struct ts_ftrace_at *at,
		      const struct ts_ftrace_task *parent, const struct ts_ftrace_task *child)
{
	return line_of(line, at, "sched_process_fork", "comm=%s pid=%d child_comm=%s child_pid=%d",
		       parent->comm, parent->pid, child->comm, child->pid);
}

size_t ts_ftrace_exit(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p)
{
	return line_of(line, at, "sched_process_exit", "comm=%s pid=%d prio=%d", p->comm, p->pid,
		       p->prio);
}

void ts_ftrace_header(FILE *out, uint64_t entries, uint64_t written, int nr_cpus)
{
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
		entries, written, nr_cpus);
}
