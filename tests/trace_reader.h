/* A reader of the ftrace text traces both hosts write (--trace, TOPOSCHED_TRACE): every
 * line must match the kernel's line layout (trace_print_context(): "%16s-%-7d [%03d] FLAGS
 * %5lu.%06lu: EVENT: ARGS") and the regular expression of Perfetto's systrace importer
 * (google/perfetto, src/trace_processor/importers/systrace/systrace_line_tokenizer.cc);
 * the header must count the lines; timestamps never go back (per CPU and overall); each
 * sched_switch's prev is the task the previous switch on that CPU put there; a woken task
 * next runs on its sched_wakeup's target_cpu (or where a sched_migrate_task moved it
 * since). It counts the events and each task's switch-ins and time on a CPU. */
#ifndef TOPOSCHED_TESTS_TRACE_READER_H
#define TOPOSCHED_TESTS_TRACE_READER_H

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 256
#define MAX_PIDS 4096

/* Perfetto's SystraceLineTokenizer, as POSIX ERE: pid, optional tgid, cpu, flags, ts,
 * event name. */
static const char perfetto_line_re[] =
	"-([0-9]+)[[:space:]]+\\(?[[:space:]]*([0-9]+|-+)?\\)?[[:space:]]?\\[([0-9]+)\\][[:space:]]"
	"*"
	"([a-zA-Z.]{3}[0-9a-f.]{1,2}[[:space:]]*)?([0-9]+\\.[0-9]+):[[:space:]]+([^[:space:]]+):";
/* The kernel's layout, column for column: comm right-aligned in 16, '-', pid left-aligned
 * in 7, a space, [CPU] in three digits, the five latency flags, the time in at least 5.6
 * digits, the event and its key=value arguments (sched_switch has its "==>"). */
static const char kernel_line_re[] =
	"^ *[^ ][^ ]*-[0-9]+ +\\[[0-9]{3}\\] [a-zA-Z.]{3}[0-9a-f.]{2} +[0-9]{1,}\\.[0-9]{6}: "
	"(sched_[a-z_]+): ([a-z_]+=[^ ]+)( ([a-z_]+=[^ ]+|==>))*$";

struct event {
	char comm[17];
	int pid, cpu;
	uint64_t us;
	char name[32];
	const char *args;
};

/* The value of key= in args ("" when absent). */
static inline const char *arg(const char *args, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);
	for (const char *p = args; p && *p;) {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " ");
			snprintf(buf, size, "%.*s", (int)n, p + kl + 1);
			return buf;
		}
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	buf[0] = '\0';
	return buf;
}

static inline int iarg(const char *args, const char *key)
{
	char buf[32];
	arg(args, key, buf, sizeof(buf));
	assert_true(buf[0] >= '0' && buf[0] <= '9');
	return atoi(buf);
}

static inline void parse_line(char *line, struct event *ev)
{
	/* the comm is the 16 columns before the '-' of the pid */
	assert_true(strlen(line) > 40);
	assert_int_equal(line[16], '-');
	memcpy(ev->comm, line, 16);
	ev->comm[16] = '\0';
	char *c = ev->comm;
	while (*c == ' ')
		c++;
	memmove(ev->comm, c, strlen(c) + 1);
	unsigned long sec, usec;
	int n = 0;
	assert_int_equal(sscanf(line + 17, "%d [%d] %*5c %lu.%lu: %31[a-z_]: %n", &ev->pid,
				&ev->cpu, &sec, &usec, ev->name, &n),
			 5);
	assert_true(n > 0);
	assert_int_equal(line[25], '['); /* pid in 7 columns and a space */
	ev->us = (uint64_t)sec * 1000000 + usec;
	ev->args = line + 17 + n;
}

struct reader {
	int nr_cpus;
	int curr[MAX_CPUS]; /* pid running on each CPU (0: idle) */
	uint64_t last_us[MAX_CPUS];
	int expect_cpu[MAX_PIDS]; /* where a woken task must run next (-1: no wake-up) */
	uint64_t lines, switches, wakeups, migrations, forks, new_tasks;
	uint64_t runs_on[MAX_PIDS][2]; /* switch-ins of pid on node 0's CPUs / elsewhere */
	uint64_t on_since[MAX_CPUS];   /* when the CPU's current task was switched in */
	uint64_t run_us[MAX_PIDS];     /* each task's time on a CPU */
	uint64_t pair_on[3][MAX_CPUS]; /* switch-ins of pids 1 and 2 by CPU */
	char comm[MAX_PIDS][17];
};

static inline void check_switch(struct reader *r, const struct event *ev)
{
	int prev = iarg(ev->args, "prev_pid"), next = iarg(ev->args, "next_pid");
	assert_int_equal(prev, r->curr[ev->cpu]);
	assert_int_equal(ev->pid, prev); /* the line's context is the task switched out */
	char state[8];
	arg(ev->args, "prev_state", state, sizeof(state));
	assert_true(!strcmp(state, "R") || !strcmp(state, "R+") || !strcmp(state, "S") ||
		    !strcmp(state, "Z"));
	r->run_us[prev] += ev->us - r->on_since[ev->cpu];
	r->on_since[ev->cpu] = ev->us;
	r->curr[ev->cpu] = next;
	r->switches++;
	if (next == 0)
		return;
	assert_true(next < MAX_PIDS);
	if (r->expect_cpu[next] >= 0)
		assert_int_equal(ev->cpu, r->expect_cpu[next]);
	r->expect_cpu[next] = -1;
	arg(ev->args, "next_comm", r->comm[next], sizeof(r->comm[next]));
	r->runs_on[next][ev->cpu < 32 ? 0 : 1]++;
	if (next <= 2)
		r->pair_on[next][ev->cpu]++;
}

/* Reads text (cut into lines in place) into r. */
static inline void read_trace(char *text, struct reader *r, int nr_cpus)
{
	regex_t perfetto, kernel;
	assert_int_equal(regcomp(&perfetto, perfetto_line_re, REG_EXTENDED), 0);
	assert_int_equal(regcomp(&kernel, kernel_line_re, REG_EXTENDED), 0);
	memset(r, 0, sizeof(*r));
	r->nr_cpus = nr_cpus;
	for (int i = 0; i < MAX_PIDS; i++)
		r->expect_cpu[i] = -1;
	uint64_t entries = 0, last_us = 0;
	int header = 0;
	char *save;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			if (header++ == 0)
				assert_string_equal(line, "# tracer: nop");
			unsigned long long a, b;
			int p;
			if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d",
				   &a, &b, &p) == 3) {
				assert_int_equal(a, b);
				assert_int_equal(p, nr_cpus);
				entries = a;
			}
			continue;
		}
		assert_int_equal(header, 12); /* the whole header comes first */
		assert_int_equal(regexec(&perfetto, line, 0, NULL, 0), 0);
		if (regexec(&kernel, line, 0, NULL, 0))
			fail_msg("not the kernel's line layout: %s", line);
		struct event ev;
		parse_line(line, &ev);
		assert_true(ev.cpu >= 0 && ev.cpu < nr_cpus);
		assert_true(ev.us >= last_us && ev.us >= r->last_us[ev.cpu]);
		last_us = r->last_us[ev.cpu] = ev.us;
		/* the line's context is the task running on its CPU */
		assert_int_equal(ev.pid, r->curr[ev.cpu]);
		if (ev.pid == 0)
			assert_string_equal(ev.comm, "<idle>");
		r->lines++;
		if (!strcmp(ev.name, "sched_switch")) {
			check_switch(r, &ev);
		} else if (!strcmp(ev.name, "sched_wakeup") ||
			   !strcmp(ev.name, "sched_wakeup_new")) {
			int pid = iarg(ev.args, "pid");
			assert_true(pid > 0 && pid < MAX_PIDS);
			r->expect_cpu[pid] = iarg(ev.args, "target_cpu");
			char reason[32];
			assert_true(arg(ev.args, "reason", reason, sizeof(reason))[0] != '\0');
			iarg(ev.args, "nr_scanned");
			r->wakeups += ev.name[12] == '\0';
			r->new_tasks += ev.name[12] != '\0';
		} else if (!strcmp(ev.name, "sched_migrate_task")) {
			int pid = iarg(ev.args, "pid");
			assert_true(pid > 0 && pid < MAX_PIDS);
			assert_true(iarg(ev.args, "orig_cpu") != iarg(ev.args, "dest_cpu"));
			if (r->expect_cpu[pid] >= 0)
				r->expect_cpu[pid] = iarg(ev.args, "dest_cpu");
			r->migrations++;
		} else if (!strcmp(ev.name, "sched_waking")) {
			iarg(ev.args, "target_cpu");
		} else if (!strcmp(ev.name, "sched_process_fork")) {
			assert_int_equal(iarg(ev.args, "pid"), ev.pid);
			r->forks++;
		} else {
			assert_string_equal(ev.name, "sched_process_exit");
			assert_int_equal(iarg(ev.args, "pid"), ev.pid);
		}
	}
	assert_int_equal(header, 12);
	assert_int_equal(entries, r->lines);
	regfree(&perfetto);
	regfree(&kernel);
}

#endif
