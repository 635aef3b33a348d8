/* The sweep runner: every (configuration x load x iteration) is one independent run with
 * its own ts_sim_config, result and derived seed, so the runs can execute on any number
 * of threads in any order; the summary is computed afterwards, sequentially and in a
 * fixed order, so that the output is byte-identical whatever `jobs` is. */
#include "toposched/experiment.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "report.h"
#include "rng.h"

/* ---- statistics ---- */

double ts_exp_amean(const double *x, int n)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += x[i];
	return n > 0 ? sum / n : NAN;
}

double ts_exp_hmean(const double *x, int n)
{
	if (n <= 0)
		return NAN;
	double inv = 0;
	bool zero = false;
	for (int i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] < 0)
			return NAN;
		if (x[i] == 0)
			zero = true;
		else
			inv += 1.0 / x[i];
	}
	return zero ? 0.0 : n / inv;
}

double ts_exp_stddev(const double *x, int n)
{
	if (n <= 0)
		return NAN;
	if (n == 1)
		return 0.0;
	double mean = ts_exp_amean(x, n), ss = 0;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (n - 1));
}

bool ts_exp_percentile_thin(const struct ts_exp_point *p, double q)
{
	uint64_t n = p->stats.wakeup_lat_samples_min;
	return n != UINT64_MAX && (double)n * (1.0 - q) < TS_EXP_PERCENTILE_MIN_TAIL;
}

double ts_exp_pct_change(double value, double base)
{
	if (!isfinite(value) || !isfinite(base) || base == 0)
		return NAN;
	return 100.0 * (value - base) / base;
}

double ts_exp_welch_p(double amean, double stddev, int n, double base_amean, double base_stddev,
		      int base_n)
{
	if (n < TS_EXP_TTEST_MIN_SAMPLES || base_n < TS_EXP_TTEST_MIN_SAMPLES || !isfinite(amean) ||
	    !isfinite(base_amean) || !isfinite(stddev) || !isfinite(base_stddev))
		return NAN;
	double v = stddev * stddev / n, bv = base_stddev * base_stddev / base_n;
	if (v + bv == 0)
		return amean == base_amean ? 1.0 : 0.0;
	double t = (amean - base_amean) / sqrt(v + bv);
	double df = (v + bv) * (v + bv) / (v * v / (n - 1) + bv * bv / (base_n - 1));
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

bool ts_exp_significant(double amean, double stddev, int n, double base_amean, double base_stddev,
			int base_n)
{
	double p = ts_exp_welch_p(amean, stddev, n, base_amean, base_stddev, base_n);
	return isfinite(p) && p < 1 - TS_EXP_CONFIDENCE;
}

bool ts_metric_higher_is_better(enum ts_metric_kind kind)
{
	return kind == TS_METRIC_THROUGHPUT_MBS || kind == TS_METRIC_TPS_PER_INSTANCE ||
	       kind == TS_METRIC_OPS_PER_S;
}

uint64_t ts_experiment_seed(uint64_t seed, int load, int iteration)
{
	uint64_t index = ((uint64_t)(unsigned)load << 24) + (uint64_t)(unsigned)iteration;
	return ts_rng_derive(seed, index);
}

uint64_t ts_experiment_stream_seed(uint64_t seed, unsigned stream, int load, int iteration)
{
	if (stream)
		seed = ts_rng_derive(seed, (UINT64_C(1) << 63) + stream);
	return ts_experiment_seed(seed, load, iteration);
}

/* ---- the parallel sweep ---- */

struct sweep {
	const struct ts_experiment *e;
	ts_sim_run_fn run;
	int total;
	const int *order;	       /* dispatch position -> run index */
	struct ts_sim_result *results; /* [total], by run index */
	atomic_int next;	       /* next dispatch position */
	atomic_bool abort;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;		    /* under lock */
	double done_weight;	    /* under lock: run_weight() of the runs done */
	double total_weight;	    /* of the runs dispatched */
	int workers_left;	    /* under lock */
	int failed_index;	    /* under lock; lowest failing run index, or -1 */
	struct ts_error failed_err; /* under lock */
};

/* run index = (config * nr_loads + load_index) * iterations + iteration */
static void run_coords(const struct ts_experiment *e, int idx, int *c, int *l, int *it)
{
	*it = idx % e->iterations;
	int point = idx / e->iterations;
	*l = point % e->nr_loads;
	*c = point / e->nr_loads;
}

/* A run's share of the sweep's time for the progress line's estimate: its load, the proxy
 * the dispatch order sorts by (the heaviest loads first, so a count of runs would make
 * the first estimates several times too long). */
static double run_weight(const struct ts_experiment *e, int idx)
{
	int c, l, it;
	run_coords(e, idx, &c, &l, &it);
	return e->loads[l] > 0 ? (double)e->loads[l] : 1.0;
}

static void *worker(void *arg)
{
	struct sweep *s = arg;
	const struct ts_experiment *e = s->e;
	for (;;) {
		if (atomic_load(&s->abort))
			break;
		int pos = atomic_fetch_add(&s->next, 1);
		if (pos >= s->total)
			break;
		int idx = s->order[pos], c, l, it;
		run_coords(e, idx, &c, &l, &it);
		struct ts_sim_config cfg = e->base;
		cfg.features = e->configs[c].features;
		cfg.tg_layout = e->configs[c].tg_layout; /* task groups */
		cfg.kernel = e->configs[c].kernel;
		cfg.load = e->loads[l];
		cfg.seed = ts_experiment_stream_seed(e->seed, e->configs[c].seed_stream,
						     e->loads[l], it);
		cfg.schedstat = idx == 0 ? e->schedstat : NULL; /* (0, first load, 1) */
		bool traced =
			c == e->trace_config && l == e->trace_load && it == e->trace_iteration;
		cfg.trace = traced ? e->trace : NULL;
		cfg.trace_max_bytes = e->trace_max_bytes;
		struct ts_error err = {0};
		memset(&s->results[idx], 0, sizeof(s->results[idx]));
		int rc = s->run(&cfg, &s->results[idx], &err);
		pthread_mutex_lock(&s->lock);
		if (rc) {
			if (s->failed_index < 0 || idx < s->failed_index) {
				s->failed_index = idx;
				s->failed_err = err;
				if (!s->failed_err.code)
					s->failed_err.code = rc < 0 ? rc : -EIO;
				if (!s->failed_err.msg[0])
					snprintf(s->failed_err.msg, sizeof(s->failed_err.msg),
						 "the run failed (%s)",
						 strerror(rc < 0 ? -rc : EIO));
			}
			atomic_store(&s->abort, true);
		}
		s->done++;
		s->done_weight += run_weight(e, idx);
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_lock(&s->lock);
	s->workers_left--;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The progress line: on a terminal, from PROGRESS_TTY_AFTER_S on, one line rewritten in
 * place every PROGRESS_TTY_EVERY_S; elsewhere (a log file), a new line every
 * PROGRESS_LOG_EVERY_S, so that short sweeps stay silent in scripts. */
#define PROGRESS_TTY_AFTER_S 1.0
#define PROGRESS_TTY_EVERY_S 0.5
#define PROGRESS_LOG_EVERY_S 10.0

static void print_progress(FILE *out, bool tty, const struct sweep *s, double elapsed)
{
	char eta[32] = "?";
	if (s->done > 0 && s->done_weight > 0)
		snprintf(eta, sizeof(eta), "%.0fs",
			 elapsed * (s->total_weight - s->done_weight) / s->done_weight);
	fprintf(out, "%ssim: runs %d/%d done, %.0fs elapsed, ETA %s%s", tty ? "\r" : "", s->done,
		s->total, elapsed, eta, tty ? "   " : "\n");
	fflush(out);
}

static void wait_for_workers(struct sweep *s, FILE *progress)
{
	bool tty = progress && isatty(fileno(progress));
	double start = now_s(), last = -1e9;
	bool shown = false;
	pthread_mutex_lock(&s->lock);
	while (s->workers_left > 0) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->cond, &s->lock, &until);
		double t = now_s(), every = tty ? PROGRESS_TTY_EVERY_S : PROGRESS_LOG_EVERY_S;
		double after = tty ? PROGRESS_TTY_AFTER_S : PROGRESS_LOG_EVERY_S;
		if (progress && s->workers_left > 0 && t - start >= after && t - last >= every) {
			print_progress(progress, tty, s, t - start);
			last = t;
			shown = true;
		}
	}
	if (shown && tty)
		fprintf(progress, "\rsim: runs %d/%d done in %.1fs%-20s\n", s->done, s->total,
			now_s() - start, "");
	pthread_mutex_unlock(&s->lock);
}

static int validate(const struct ts_experiment *e, struct ts_error *err)
{
	if (!e->base.workload)
		return ts_error_set(err, -EINVAL, "experiment: no workload");
	if (e->nr_configs < 1 || e->nr_configs > TS_EXP_MAX_CONFIGS || !e->configs)
		return ts_error_set(err, -EINVAL, "experiment: %d configurations (1 to %d)",
				    e->nr_configs, TS_EXP_MAX_CONFIGS);
	if (e->nr_loads < 1 || e->nr_loads > TS_EXP_MAX_LOADS || !e->loads)
		return ts_error_set(err, -EINVAL, "experiment: %d loads (1 to %d)", e->nr_loads,
				    TS_EXP_MAX_LOADS);
	if (e->iterations < 1 || e->iterations > TS_EXP_MAX_ITERATIONS)
		return ts_error_set(err, -EINVAL, "experiment: %d iterations (1 to %d)",
				    e->iterations, TS_EXP_MAX_ITERATIONS);
	if ((long long)e->nr_configs * e->nr_loads * e->iterations > TS_EXP_MAX_RUNS)
		return ts_error_set(err, -EINVAL,
				    "experiment: %d configurations x %d loads x %d iterations is "
				    "more than %d runs",
				    e->nr_configs, e->nr_loads, e->iterations, TS_EXP_MAX_RUNS);
	for (int l = 0; l < e->nr_loads; l++) {
		if (e->loads[l] < 1 || e->loads[l] > TS_SIM_MAX_TASKS)
			return ts_error_set(err, -EINVAL, "experiment: load %d (1 to %d)",
					    e->loads[l], TS_SIM_MAX_TASKS);
		for (int k = 0; k < l; k++)
			if (e->loads[k] == e->loads[l])
				return ts_error_set(err, -EINVAL, "experiment: load %d twice",
						    e->loads[l]);
	}
	if (e->nr_shards < 0 || e->nr_shards > TS_EXP_MAX_RUNS ||
	    (e->nr_shards && (e->shard < 0 || e->shard >= e->nr_shards)))
		return ts_error_set(err, -EINVAL, "experiment: shard %d of %d", e->shard + 1,
				    e->nr_shards);
	/* one run's counters and trace: the run belongs to one shard only */
	if (e->nr_shards && (e->schedstat || e->trace))
		return ts_error_set(err, -EINVAL,
				    "experiment: a sharded sweep writes no schedstat or trace");
	if (e->trace && (e->trace_config < 0 || e->trace_config >= e->nr_configs ||
			 e->trace_load < 0 || e->trace_load >= e->nr_loads ||
			 e->trace_iteration < 0 || e->trace_iteration >= e->iterations))
		return ts_error_set(err, -EINVAL,
				    "experiment: the traced run (configuration %d, load %d, "
				    "iteration %d) is not one of the sweep's",
				    e->trace_config + 1, e->trace_load + 1, e->trace_iteration + 1);
	for (int c = 0; c < e->nr_configs; c++) {
		if (!e->configs[c].name[0])
			return ts_error_set(err, -EINVAL,
					    "experiment: configuration %d has no name", c + 1);
		for (int k = 0; k < c; k++)
			if (strcmp(e->configs[k].name, e->configs[c].name) == 0)
				return ts_error_set(err, -EINVAL,
						    "experiment: configuration name '%s' twice",
						    e->configs[c].name);
	}
	return 0;
}

int ts_experiment_nr_runs(const struct ts_experiment *e)
{
	return e->nr_configs * e->nr_loads * e->iterations;
}

/* Heaviest loads first, so that the longest runs do not start last and leave the other
 * workers idle at the end of the sweep. Affects only timing, never results. */
int *ts_experiment_dispatch_order(const struct ts_experiment *e)
{
	int total = ts_experiment_nr_runs(e);
	int *order = malloc((size_t)total * sizeof(*order));
	int *by_load = malloc((size_t)e->nr_loads * sizeof(*by_load));
	if (!order || !by_load) {
		free(order);
		free(by_load);
		return NULL;
	}
	/* load positions by descending value (insertion sort: stable, loads are few) */
	for (int l = 0; l < e->nr_loads; l++) {
		int k = l;
		for (; k > 0 && e->loads[by_load[k - 1]] < e->loads[l]; k--)
			by_load[k] = by_load[k - 1];
		by_load[k] = l;
	}
	int pos = 0;
	for (int k = 0; k < e->nr_loads; k++)
		for (int c = 0; c < e->nr_configs; c++)
			for (int it = 0; it < e->iterations; it++)
				order[pos++] = (c * e->nr_loads + by_load[k]) * e->iterations + it;
	free(by_load);
	return order;
}

static void add_result(struct ts_exp_stats *st, const struct ts_sim_result *r)
{
	st->sis.search += r->sis.search;
	st->sis.domain_search += r->sis.domain_search;
	st->sis.scanned += r->sis.scanned;
	st->sis.failed += r->sis.failed;
	st->sis.recent_hit += r->sis.recent_hit;
	st->sis.recent_miss += r->sis.recent_miss;
	st->sis.core_search += r->sis.core_search;
	st->sis.core_failed += r->sis.core_failed;
	ts_sim_lb_add_delta(&st->lb, &(struct ts_sim_lb){0}, &r->lb);
	for (int i = 0; i < TS_PLACE_NR; i++)
		st->reasons[i] += r->reasons[i];
	for (int i = 0; i < TS_REL_NR; i++)
		st->wakeups_by_relation[i] += r->wakeups_by_relation[i];
	for (int i = 0; i < TS_SCAN_HIST_BUCKETS; i++)
		st->scan_hist[i] += r->scan_hist[i];
	st->wakeups += r->wakeups;
	st->migrations += r->migrations;
	st->events += r->events;
	st->sim_ns += r->sim_ns;
	st->start_ns += r->start_ns;
	st->settle_ns += r->settle_ns;
	st->settle_capped += r->settle_capped;
	st->busy_ns += r->busy_ns;
	st->marks += r->marks;
	st->bytes += r->bytes;
	st->messages_sent += r->messages_sent;
	st->messages_received += r->messages_received;
	st->wall_s += r->wall_s;
	if (!r->finished)
		st->all_finished = false;
	for (int i = 0; i < ts_report_numa_nr; i++)
		*ts_report_numa_ptr(&st->numa, i) += ts_report_numa_value(&r->numa, i);
	for (int i = 0; i < TS_WORK_NR; i++)
		st->work_ns[i] += r->work_ns[i];
	ts_sim_tg_result_add(&st->tg, &r->tg); /* task groups */
}

static void summarise(struct ts_experiment *e, const struct ts_sim_result *results)
{
	bool hib = ts_metric_higher_is_better(e->base.workload->metric);
	int n = e->iterations;
	for (int c = 0; c < e->nr_configs; c++) {
		for (int l = 0; l < e->nr_loads; l++) {
			int p = c * e->nr_loads + l;
			struct ts_exp_point *pt = &e->points[p];
			double *samples = &e->samples[(size_t)p * (size_t)n];
			const struct ts_sim_result *r = &results[(size_t)p * (size_t)n];
			memset(pt, 0, sizeof(*pt));
			pt->config = c;
			pt->load = e->loads[l];
			pt->n = n;
			pt->samples = samples;
			pt->stats.all_finished = true;
			double lat_sum[4] = {0};
			int lat_n[4] = {0};
			double util = 0;
			pt->stats.wakeup_lat_samples_min = UINT64_MAX;
			for (int i = 0; i < n; i++) {
				if (r[i].wakeup_lat_samples < pt->stats.wakeup_lat_samples_min)
					pt->stats.wakeup_lat_samples_min = r[i].wakeup_lat_samples;
				samples[i] = r[i].metric;
				add_result(&pt->stats, &r[i]);
				util += r[i].cpu_util;
				for (int q = 0; q < 4; q++)
					if (r[i].wakeup_lat_us[q] >= 0) {
						lat_sum[q] += r[i].wakeup_lat_us[q];
						lat_n[q]++;
					}
			}
			pt->stats.cpu_util = util / n;
			for (int q = 0; q < 4; q++)
				pt->stats.wakeup_lat_us[q] = lat_n[q] ? lat_sum[q] / lat_n[q] : -1;
			pt->stats.sis_metrics = ts_sis_metrics(&pt->stats.sis);
			pt->hmean = ts_exp_hmean(samples, n);
			pt->amean = ts_exp_amean(samples, n);
			pt->stddev = ts_exp_stddev(samples, n);
			pt->mean = hib ? pt->hmean : pt->amean;
		}
	}
	for (int c = 0; c < e->nr_configs; c++)
		for (int l = 0; l < e->nr_loads; l++) {
			struct ts_exp_point *pt = &e->points[c * e->nr_loads + l];
			const struct ts_exp_point *b = &e->points[l];
			pt->pct_change = ts_exp_pct_change(pt->mean, b->mean);
			pt->significant = c > 0 && ts_exp_significant(pt->amean, pt->stddev, pt->n,
								      b->amean, b->stddev, b->n);
		}
}

int ts_experiment_run(struct ts_experiment *e, struct ts_error *err)
{
	e->points = NULL;
	e->samples = NULL;
	e->results = NULL;
	int rc = validate(e, err);
	if (rc)
		return rc;
	int total = ts_experiment_nr_runs(e);
	/* the runs this call starts: every one, or a shard's (positions shard + k N) */
	int dispatched = total;
	if (e->nr_shards) {
		dispatched = 0;
		for (int p = 0; p < total; p++)
			dispatched += ts_experiment_shard_of(p, e->nr_shards) == e->shard;
	}
	int jobs = e->jobs;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs <= 0) {
		int nr_cpus = e->base.topo ? e->base.topo->nr_cpus : 0;
		uint64_t per_run = ts_experiment_run_bytes(nr_cpus, ts_experiment_max_tasks(e));
		jobs = ts_experiment_default_jobs(online, ts_meminfo_available("/proc/meminfo"),
						  per_run);
		if (e->progress && jobs < online && jobs < dispatched)
			fprintf(e->progress,
				"sim: note: %d worker%s, not one per CPU (%ld): a run on %d CPUs "
				"takes about %.0f MiB and MemAvailable holds %d (--jobs sets it)\n",
				jobs, jobs == 1 ? "" : "s", online, nr_cpus,
				(double)per_run / (1 << 20), jobs);
	}
	if (jobs > TS_EXP_MAX_JOBS)
		jobs = TS_EXP_MAX_JOBS;
	if (jobs > dispatched)
		jobs = dispatched;
	if (jobs < 1) /* an empty shard: one worker that finds nothing to do */
		jobs = 1;
	e->jobs_used = jobs;
	char note[320];
	if (e->progress &&
	    ts_experiment_long_note(e, online > 0 && online < jobs ? (int)online : jobs, note,
				    sizeof(note)))
		fprintf(e->progress, "sim: note: %s\n", note);

	struct sweep s = {
		.e = e,
		.run = e->run ? e->run : ts_sim_run,
		.total = dispatched,
		.failed_index = -1,
	};
	s.results = calloc((size_t)total, sizeof(*s.results));
	int *order = ts_experiment_dispatch_order(e);
	if (!e->nr_shards) {
		e->points = calloc((size_t)e->nr_configs * (size_t)e->nr_loads, sizeof(*e->points));
		e->samples = calloc((size_t)total, sizeof(*e->samples));
	}
	pthread_t *threads = calloc((size_t)jobs, sizeof(*threads));
	if (!s.results || !order || (!e->nr_shards && (!e->points || !e->samples)) || !threads) {
		rc = ts_error_set(err, -ENOMEM, "experiment: out of memory for %d runs", total);
		goto out;
	}
	if (e->nr_shards) /* keep the shard's positions, in order */
		for (int p = 0, k = 0; p < total; p++)
			if (ts_experiment_shard_of(p, e->nr_shards) == e->shard)
				order[k++] = order[p];
	s.order = order;
	for (int p = 0; p < dispatched; p++)
		s.total_weight += run_weight(e, order[p]);
	atomic_init(&s.next, 0);
	atomic_init(&s.abort, false);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);

	int started = 0;
	s.workers_left = jobs;
	for (; started < jobs; started++) {
		int prc = pthread_create(&threads[started], NULL, worker, &s);
		if (prc) {
			pthread_mutex_lock(&s.lock);
			s.workers_left -= jobs - started;
			pthread_mutex_unlock(&s.lock);
			break;
		}
	}
	if (started == 0) {
		rc = ts_error_set(err, -EAGAIN, "experiment: cannot start a worker thread");
	} else {
		wait_for_workers(&s, e->progress);
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
	if (!rc && s.failed_index >= 0) {
		int c, l, it;
		run_coords(e, s.failed_index, &c, &l, &it);
		rc = ts_error_set(err, s.failed_err.code,
				  "configuration '%s', %s %d, iteration %d: %s", e->configs[c].name,
				  e->base.workload->load_name ? e->base.workload->load_name
							      : "load",
				  e->loads[l], it + 1, s.failed_err.msg);
	}
	if (!rc && e->nr_shards) {
		e->results = s.results; /* the shard's part of the sweep, summarised at merge */
		s.results = NULL;
	} else if (!rc) {
		summarise(e, s.results);
	}
out:
	free(threads);
	free(order);
	free(s.results);
	if (rc)
		ts_experiment_free(e);
	return rc;
}

void ts_experiment_free(struct ts_experiment *e)
{
	free(e->points);
	free(e->samples);
	free(e->results);
	e->points = NULL;
	e->samples = NULL;
	e->results = NULL;
}

int ts_experiment_summarise(struct ts_experiment *e, const struct ts_sim_result *results,
			    struct ts_error *err)
{
	int rc = validate(e, err);
	if (rc)
		return rc;
	int total = ts_experiment_nr_runs(e);
	e->points = calloc((size_t)e->nr_configs * (size_t)e->nr_loads, sizeof(*e->points));
	e->samples = calloc((size_t)total, sizeof(*e->samples));
	if (!e->points || !e->samples) {
		ts_experiment_free(e);
		return ts_error_set(err, -ENOMEM, "experiment: out of memory for %d runs", total);
	}
	summarise(e, results);
	return 0;
}
