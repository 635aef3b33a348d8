/* The figures of one host's run of an rt-app file, as JSON members and as text. */
#include "cmd_run_result.h"

const double run_lat_quantiles[RUN_LAT_NR] = {0.50, 0.90, 0.99, 0.999};

const char *run_lat_name(int i)
{
	static const char *const names[RUN_LAT_NR] = {"p50", "p90", "p99", "p99.9"};
	return i >= 0 && i < RUN_LAT_NR ? names[i] : "?";
}

double run_loops_per_s(const struct run_result *r, int i)
{
	return r->seconds > 0 ? (double)r->classes[i].loops / r->seconds : 0;
}

double run_migrations_per_s(const struct run_result *r)
{
	return r->seconds > 0 ? (double)r->migrations / r->seconds : 0;
}

static double machine_share(const struct run_result *r, double s)
{
	double all = (double)r->nr_cpus * r->seconds;
	return all > 0 ? 100.0 * s / all : -1;
}

double run_share_of_machine(const struct run_result *r)
{
	return machine_share(r, r->cpu_s);
}

double run_steal_share(const struct run_result *r)
{
	return machine_share(r, r->steal_s);
}

double run_share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : -1;
}

uint64_t run_placements(const struct run_result *r)
{
	uint64_t n = 0;
	for (int i = 0; i < TS_PLACE_NR; i++)
		n += r->reasons[i];
	return n;
}

const char *run_reason_name(int i)
{
	return ts_place_reason_name((enum ts_place_reason)i);
}

const char *run_relation_name(int i)
{
	return ts_cpu_relation_name((enum ts_cpu_relation)i);
}

void run_result_json(struct ts_json_writer *w, const struct run_result *r)
{
	ts_json_member_double(w, "seconds", r->seconds);
	ts_json_member_bool(w, "finished", r->finished);
	ts_json_member_int(w, "cpus", r->nr_cpus);
	ts_json_member_double(w, "cpu_s", r->cpu_s);
	ts_json_member_double(w, "steal_s", r->steal_s);
	ts_json_key(w, "classes");
	ts_json_begin_array(w);
	for (int i = 0; i < r->nr_classes; i++) {
		ts_json_begin_object(w);
		ts_json_member_string(w, "name", r->classes[i].name);
		ts_json_member_int(w, "threads", r->classes[i].threads);
		ts_json_member_uint(w, "loops", r->classes[i].loops);
		ts_json_member_double(w, "loops_per_s", run_loops_per_s(r, i));
		ts_json_end_object(w);
	}
	ts_json_end_array(w);
	ts_json_key(w, "wakeup_latency_us");
	ts_json_begin_object(w);
	ts_json_member_uint(w, "samples", r->lat_samples);
	for (int i = 0; i < RUN_LAT_NR; i++)
		if (r->lat_us[i] < 0)
			ts_json_member_null(w, run_lat_name(i));
		else
			ts_json_member_double(w, run_lat_name(i), r->lat_us[i]);
	ts_json_end_object(w);
	ts_json_member_uint(w, "wakeups", r->wakeups);
	ts_json_member_uint(w, "migrations", r->migrations);
	ts_json_member_double(w, "migrations_per_s", run_migrations_per_s(r));
	ts_json_key(w, "reasons");
	ts_json_begin_object(w);
	for (int i = 0; i < TS_PLACE_NR; i++)
		ts_json_member_uint(w, ts_place_reason_name((enum ts_place_reason)i),
				    r->reasons[i]);
	ts_json_end_object(w);
	ts_json_key(w, "wakeups_by_relation");
	ts_json_begin_object(w);
	for (int i = 0; i < TS_REL_NR; i++)
		ts_json_member_uint(w, ts_cpu_relation_name((enum ts_cpu_relation)i),
				    r->by_relation[i]);
	ts_json_end_object(w);
}

/* "name count (share %)" for every non-zero counter, or "none". */
static void text_counts(FILE *f, const char *title, const uint64_t *v, int n,
			const char *(*name)(int))
{
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		total += v[i];
	fprintf(f, "  %-22s", title);
	if (!total)
		fputs(" none", f);
	for (int i = 0; i < n; i++)
		if (v[i])
			fprintf(f, " %s %llu (%.1f%%)", name(i), (unsigned long long)v[i],
				run_share(v[i], total));
	fputc('\n', f);
}

void run_result_text(FILE *f, const struct run_result *r)
{
	fprintf(f, "  %-22s %.3f s%s\n", "measured", r->seconds,
		r->finished ? " (every thread ended)" : "");
	fprintf(f, "  %-22s %.3f s of %d CPUs x %.3f s\n", "CPU time", r->cpu_s, r->nr_cpus,
		r->seconds);
	fprintf(f, "  %-22s %.3f s (workers off the CPU with a task running; not charged)\n",
		"host steal", r->steal_s);
	for (int i = 0; i < r->nr_classes; i++)
		fprintf(f, "  loops %-16s %llu by %d thread%s, %.1f/s\n", r->classes[i].name,
			(unsigned long long)r->classes[i].loops, r->classes[i].threads,
			r->classes[i].threads == 1 ? "" : "s", run_loops_per_s(r, i));
	fprintf(f, "  %-22s", "wake-up latency us");
	if (!r->lat_samples)
		fputs(" no samples", f);
	for (int i = 0; r->lat_samples && i < RUN_LAT_NR; i++)
		fprintf(f, " %s %.1f", run_lat_name(i), r->lat_us[i]);
	if (r->lat_samples)
		fprintf(f, " (%llu samples)", (unsigned long long)r->lat_samples);
	fputc('\n', f);
	fprintf(f, "  %-22s %llu (%.1f/s), wake-ups %llu\n", "migrations",
		(unsigned long long)r->migrations, run_migrations_per_s(r),
		(unsigned long long)r->wakeups);
	text_counts(f, "placement reasons", r->reasons, TS_PLACE_NR, run_reason_name);
	text_counts(f, "wake-ups by relation", r->by_relation, TS_REL_NR, run_relation_name);
}
