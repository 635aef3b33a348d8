/* The ftrace text format of the scheduling events, as /sys/kernel/tracing/trace prints
 * them with the nop tracer (docs/trace.md): the header and one line per event, shared by
 * the simulator's --trace (src/sim/trace_ftrace.c) and the runtime's (src/rt/trace.c), so
 * that both hosts write what Perfetto's systrace importer and the kernel's readers read.
 *
 * From the kernel (v6.x):
 *   the header: s_show() and print_func_help_header_irq() in kernel/trace/trace.c, with
 *     the entry counts and #P (the online CPUs);
 *   each line: trace_print_context() in kernel/trace/trace_output.c, "%16s-%-7d [%03d] "
 *     then the five latency flags (irqs-off, need-resched, hardirq/softirq, preempt-depth,
 *     migrate-disable), the timestamp " %5lu.%06lu" in microseconds (ns2usecs() rounds),
 *     ": ", the event's name and ": ", then its TP_printk() arguments from
 *     include/trace/events/sched.h;
 *   the idle task is "<idle>" on the line and swapper/N in sched_switch, pid 0, prio 120.
 * sched_wakeup and sched_wakeup_new carry two arguments the kernel has not: the core's
 * placement reason and the CPUs its scans examined; readers that split arguments at '='
 * (Perfetto's among them) take them as extra fields. */
#ifndef TOPOSCHED_FTRACE_TEXT_H
#define TOPOSCHED_FTRACE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TS_FTRACE_COMM_LEN 16  /* TASK_COMM_LEN, NUL included */
#define TS_FTRACE_LINE_MAX 512 /* a longer line is cut, as trace_seq cuts a full page */
#define TS_FTRACE_NICE_0   120 /* MAX_RT_PRIO + NICE_WIDTH / 2: prio of nice 0 */

/* The latency flags of each event: what the kernel's context holds when it fires (irqs
 * off under the rq or pi lock, the preempt count of the locks held; 'h' in the timer's
 * hardirq; fork and exit run preemptible). */
#define TS_FTRACE_FLAGS_SWITCH	     "d..2." /* __schedule(): rq lock, irqs off */
#define TS_FTRACE_FLAGS_WAKING	     "d..2." /* try_to_wake_up(): p->pi_lock */
#define TS_FTRACE_FLAGS_WAKING_TIMER "d.h2." /* ... from a timer interrupt */
#define TS_FTRACE_FLAGS_WAKEUP	     "d..3." /* ttwu_do_activate(): the rq lock too */
#define TS_FTRACE_FLAGS_WAKEUP_TIMER "d.h3."
#define TS_FTRACE_FLAGS_MIGRATE	     "d..2." /* set_task_cpu() */
#define TS_FTRACE_FLAGS_PROCESS	     "....." /* kernel_clone(), do_exit() */

/* A task as the events name it. */
struct ts_ftrace_task {
	char comm[TS_FTRACE_COMM_LEN];
	int pid, prio;
};

/* A task named `name` (spaces and control characters made '_', cut to 15 characters). */
void ts_ftrace_task_set(struct ts_ftrace_task *w, const char *name, int pid, int prio);
/* cpu's idle task: swapper/cpu, pid 0, prio 120. */
void ts_ftrace_idle(struct ts_ftrace_task *w, int cpu);

/* Where and when an event fires: on cpu, whose current task is curr (NULL: idle, the
 * line's "<idle>-0"), at ns, with the latency flags. */
struct ts_ftrace_at {
	const struct ts_ftrace_task *curr;
	int cpu;
	uint64_t ns;
	const char *flags;
};

/* Each writes one line, '\n' included, into line[TS_FTRACE_LINE_MAX] and returns its
 * length. prev_state is __trace_sched_switch_state()'s: "R+" preempted or yielded, "S"
 * blocked, "Z" exited, "R" the idle task. */
size_t ts_ftrace_switch(char *line, const struct ts_ftrace_at *at,
			const struct ts_ftrace_task *prev, const char *prev_state,
			const struct ts_ftrace_task *next);
size_t ts_ftrace_waking(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p,
			int target_cpu);
size_t ts_ftrace_wakeup(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p,
			bool new_task, int target_cpu, const char *reason, int nr_scanned);
size_t ts_ftrace_migrate(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p,
			 int orig_cpu, int dest_cpu);
size_t ts_ftrace_fork(char *line, const struct ts_ftrace_at *at,
		      const struct ts_ftrace_task *parent, const struct ts_ftrace_task *child);
size_t ts_ftrace_exit(char *line, const struct ts_ftrace_at *at, const struct ts_ftrace_task *p);

/* The header of kernel/trace/trace.c for the nop tracer with irq-info on (its default):
 * `entries` lines kept of `written`, on nr_cpus CPUs. */
void ts_ftrace_header(FILE *out, uint64_t entries, uint64_t written, int nr_cpus);

#endif
