/*
 * ranks.c - each rank's selected runs, and the rank table with its
 * stragglers (ranks.h).
 */
#include "opscope/analysis/ranks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/sat.h"
#include "base/stats.h"

enum osc_status osc_rank_runs_parse(const struct osc_job *j, const char *spec,
				    struct osc_rank_runs *out, struct osc_error *err)
{
	out->nr = j->nr;
	out->sel = osc_xcalloc(j->nr ? j->nr : 1, sizeof(*out->sel));
	out->text = NULL;
	for (size_t i = 0; i < j->nr; i++) {
		const struct osc_summary *s = &j->ranks[i];
		bool warmup = s->format == OSC_FORMAT_ORT && s->nr_runs > 1;
		struct osc_error inner;
		enum osc_status st = osc_runsel_parse(spec, s->nr_runs, warmup, &out->sel[i], &inner);

		if (st != OSC_OK) {
			osc_rank_runs_release(out);
			return osc_error_set(err, st, s->path, OSC_NO_OFFSET, "--runs",
					     "rank %lld: %s", (long long)s->rank.rank, inner.message);
		}
	}
	out->text = osc_xasprintf("%s%s of each rank (%s)", spec ? "runs " : "the default runs",
				  spec ? spec : "",
				  j->nr ? osc_summary_str(&j->ranks[0], j->ranks[0].run_source) : "none");
	return OSC_OK;
}

void osc_rank_runs_release(struct osc_rank_runs *r)
{
	for (size_t i = 0; i < r->nr; i++)
		osc_runsel_release(&r->sel[i]);
	free(r->sel);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

static int by_key(const void *pa, const void *pb)
{
	const struct osc_sum_row *a = pa, *b = pb;

	return a->key < b->key ? -1 : a->key > b->key;
}

struct osc_sum_row *osc_rank_rows(const struct osc_summary *s, const struct osc_runsel *sel,
				  enum osc_level l, size_t *nr)
{
	size_t n = 0, alloc = 0, nr_ids = s->strs.count;
	struct osc_sum_row *k = NULL;
	/* per key id, its row in k: one pass in run order, no sort of every run's rows */
	uint32_t *row_of = osc_xmalloc((nr_ids ? nr_ids : 1) * sizeof(*row_of));

	memset(row_of, 0xff, (nr_ids ? nr_ids : 1) * sizeof(*row_of));
	for (uint32_t run = 0; run < s->nr_runs; run++) {
		size_t first = 0, m = sel->on[run] ? osc_summary_rows_of(s, l, run, &first) : 0;

		for (size_t i = first; m && i < first + m; i++) {
			const struct osc_sum_row *x = &s->rows[i];

			if (row_of[x->key] == UINT32_MAX) {
				OSC_GROW(k, n + 1, alloc);
				row_of[x->key] = (uint32_t)n;
				k[n] = *x;
				k[n++].run = OSC_NONE;
				continue;
			}
			osc_sum_row_add(&k[row_of[x->key]], x);
		}
	}
	free(row_of);
	if (n > 1)
		qsort(k, n, sizeof(*k), by_key);
	*nr = n;
	return k;
}

/* The kernel with the most device time over the selected runs of s (ties: the first by text). */
static void top_kernel(const struct osc_summary *s, const struct osc_runsel *sel,
		       struct osc_rank_row *row)
{
	size_t nr;
	struct osc_sum_row *k = osc_rank_rows(s, sel, OSC_LEVEL_KERNEL, &nr);

	for (size_t i = 0; i < nr; i++) {
		const char *name = osc_summary_str(s, k[i].key);

		if (!row->top_kernel || k[i].total > row->top_kernel_time ||
		    (k[i].total == row->top_kernel_time && strcmp(name, row->top_kernel) < 0)) {
			row->top_kernel = name;
			row->top_kernel_time = k[i].total;
		}
	}
	free(k);
}

/* x over the median m: NaN when m is 0. */
static double over(double x, double m)
{
	return m > 0 ? x / m : NAN;
}

/* The name of run r of s ("?" for none). */
static const char *run_name(const struct osc_summary *s, uint32_t r)
{
	return r < s->nr_runs ? osc_summary_str(s, s->runs[r].name) : "?";
}

/* Two selected runs of s in span that overlap without one holding the other, into *a and *b. */
static void overlapping_runs(const struct osc_summary *s, const struct osc_runsel *sel,
			     const struct osc_run_span *span, uint32_t *a, uint32_t *b)
{
	*a = *b = OSC_NONE;
	for (uint32_t i = 0; i < s->nr_runs && *b == OSC_NONE; i++) {
		int64_t from = s->runs[i].ts, to = osc_sat_add(from, s->runs[i].wall);

		if (!sel->on[i] || from < span->from || from >= span->to)
			continue;
		for (uint32_t j = 0; j < s->nr_runs; j++) {
			int64_t jf = s->runs[j].ts, jt = osc_sat_add(jf, s->runs[j].wall);

			if (j != i && sel->on[j] && jf < from && jt > from && jt < to) {
				*a = j;
				*b = i;
				break;
			}
		}
	}
}

/*
 * One rank's sums over its selected runs: host busy and device time over
 * every run (each event is in one run), the window's figures over the
 * runs' spans, each the run whose window it is. False, with *a and *b two
 * of its runs, when runs overlap without one holding the other: the
 * summary cannot tell their shared time apart.
 */
static bool rank_row(const struct osc_summary *s, const struct osc_runsel *sel,
		     struct osc_rank_row *row, uint32_t *a, uint32_t *b)
{
	size_t nr_spans;
	struct osc_run_span *span = osc_summary_spans(s, sel->on, &nr_spans);

	for (uint32_t run = 0; run < s->nr_runs; run++) {
		if (!sel->on[run])
			continue;
		row->nr_runs++;
		row->host_busy = osc_sat_add(row->host_busy, s->runs[run].host_busy);
		row->device_time = osc_sat_add(row->device_time, s->runs[run].device_time);
	}
	for (size_t k = 0; k < nr_spans; k++) {
		const struct osc_sum_run *r;

		if (span[k].cover == OSC_NONE) {
			overlapping_runs(s, sel, &span[k], a, b);
			free(span);
			return false;
		}
		r = &s->runs[span[k].cover];
		row->wall = osc_sat_add(row->wall, r->wall);
		row->busy = osc_sat_add(row->busy, r->busy);
		row->idle = osc_sat_add(row->idle, r->idle);
		for (int c = 0; c < OSC_SUM_CATS; c++)
			row->cat[c] = osc_sat_add(row->cat[c], r->cat[c]);
		row->exposed_comm = osc_sat_add(row->exposed_comm, r->exposed_comm);
	}
	row->step = nr_spans ? (double)row->wall / (double)nr_spans : 0;
	free(span);
	top_kernel(s, sel, row);
	return true;
}

/* The work of a rank for the straggler rule: device compute, or host busy without a device. */
static int64_t work_of(const struct osc_summary *s, const struct osc_rank_row *r)
{
	return s->has_device ? r->cat[0] : r->host_busy;
}

enum osc_status osc_rank_table(const struct osc_job *j, const struct osc_rank_runs *runs,
			       double k, struct osc_rank_table *out, struct osc_error *err)
{
	size_t n = j->nr;
	double *v;
	double m_step, m_work, m_comm;

	out->k = k > 0 ? k : OSC_STRAGGLER_K;
	out->nr = n;
	out->nr_flagged = 0;
	out->rows = osc_xcalloc(n ? n : 1, sizeof(*out->rows));
	for (size_t i = 0; i < n; i++) {
		const struct osc_summary *s = &j->ranks[i];
		uint32_t a, b;

		out->rows[i].index = i;
		if (!rank_row(s, &runs->sel[i], &out->rows[i], &a, &b)) {
			free(out->rows); /* no rows; k stays, for the view's title */
			out->rows = NULL;
			out->nr = 0;
			return osc_error_set(err, OSC_USAGE, s->path, OSC_NO_OFFSET, "--runs",
					     "rank %lld: runs %u (%s) and %u (%s) overlap "
					     "without one holding the other, so its summary "
					     "cannot tell their shared GPU time apart: select "
					     "runs that nest or do not overlap",
					     (long long)s->rank.rank, a, run_name(s, a), b,
					     run_name(s, b));
		}
	}
	v = osc_xcalloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = out->rows[i].step;
	m_step = osc_stats_median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)work_of(&j->ranks[i], &out->rows[i]);
	m_work = osc_stats_median(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)out->rows[i].cat[1];
	m_comm = osc_stats_median(v, n);
	free(v);
	for (size_t i = 0; i < n; i++) {
		struct osc_rank_row *r = &out->rows[i];

		r->step_x = over(r->step, m_step);
		r->work_x = over((double)work_of(&j->ranks[i], r), m_work);
		r->comm_x = over((double)r->cat[1], m_comm);
		r->flags = (r->step_x > out->k ? OSC_RANK_SLOW_STEP : 0) |
			   (r->work_x > out->k ? OSC_RANK_STRAGGLER : 0) |
			   (r->comm_x > out->k ? OSC_RANK_WAITS : 0);
		out->nr_flagged += r->flags != 0;
	}
	return OSC_OK;
}

void osc_rank_table_release(struct osc_rank_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

const char *osc_rank_flags_text(unsigned flags, char *buf, size_t size)
{
	static const char *const words[] = { "slow step", "straggler", "waits" };
	size_t len = 0;

	buf[0] = '\0';
	for (int b = 0; b < 3; b++)
		if (flags & (1u << b))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
						len ? ", " : "", words[b]);
	return buf;
}

/*
 * X-macro: the rank table's columns (id, title, width, align, numeric, stat).
 * The straggler's story first (the explorer shows columns from the left).
 * The table does not sort: the stat only says which columns a narrow text
 * table drops first (export_text.c's drop order: the rank, step, compute,
 * comm and flags stay).
 */
#define RANK_COLS(_)                                                               \
	_(RANK, "rank", 4, OSC_ALIGN_RIGHT, true, NAME)                            \
	_(STEP, "step_us", 10, OSC_ALIGN_RIGHT, true, WALL)                        \
	_(STEP_X, "step_x_median", 6, OSC_ALIGN_RIGHT, true, SELF_PCT)             \
	_(COMPUTE, "compute_us", 10, OSC_ALIGN_RIGHT, true, SELF)                  \
	_(WORK_X, "work_x_median", 6, OSC_ALIGN_RIGHT, true, SELF_PCT)             \
	_(COMM, "comm_us", 10, OSC_ALIGN_RIGHT, true, DEVICE)                      \
	_(COMM_X, "comm_x_median", 6, OSC_ALIGN_RIGHT, true, SELF_PCT)             \
	_(FLAGS, "flags", 9, OSC_ALIGN_LEFT, false, HOST_BUSY)                     \
	_(BUSY_PCT, "busy_pct_of_wall", 6, OSC_ALIGN_RIGHT, true, MEAN)            \
	_(EXPOSED, "exposed_comm_us", 10, OSC_ALIGN_RIGHT, true, TOTAL)            \
	_(IDLE, "idle_us", 10, OSC_ALIGN_RIGHT, true, MEAN)                        \
	_(MEMCPY, "memcpy_us", 9, OSC_ALIGN_RIGHT, true, KERNELS)                  \
	_(WALL, "wall_us", 10, OSC_ALIGN_RIGHT, true, TOTAL)                       \
	_(HOST_BUSY, "host_busy_us", 10, OSC_ALIGN_RIGHT, true, KERNELS)           \
	_(WORLD, "world_size", 5, OSC_ALIGN_RIGHT, true, MIN)                      \
	_(RUNS, "runs", 4, OSC_ALIGN_RIGHT, true, MIN)                             \
	_(TOP, "top_kernel", 16, OSC_ALIGN_LEFT, false, STDDEV)                    \
	_(TOP_US, "top_kernel_us", 10, OSC_ALIGN_RIGHT, true, STDDEV)              \
	_(TRACE, "trace", 12, OSC_ALIGN_LEFT, false, COUNT_PER_RUN)

enum {
#define RANK_COL_ENUM(id, title, w, a, num, stat) RC_##id,
	RANK_COLS(RANK_COL_ENUM)
#undef RANK_COL_ENUM
	RC_NR
};

_Static_assert(RC_TOP == OSC_RANK_COL_TOP_KERNEL, "ranks.h names the top_kernel column");

const struct osc_column *osc_rank_table_columns(size_t *nr)
{
	static const struct osc_column cols[] = { RANK_COLS(OSC_COLUMN_DEF) };

	*nr = RC_NR;
	return cols;
}

const char *osc_rank_table_cell(const struct osc_job *j, const struct osc_rank_table *t,
				size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_rank_row *r = &t->rows[row];
	const struct osc_summary *s = &j->ranks[r->index];

	buf[0] = '\0';
	switch (col) {
	case RC_RANK:
		snprintf(buf, size, "%lld", (long long)s->rank.rank);
		break;
	case RC_WORLD:
		if (s->rank.world_size >= 0)
			snprintf(buf, size, "%lld", (long long)s->rank.world_size);
		break;
	case RC_RUNS:
		snprintf(buf, size, "%zu", r->nr_runs);
		break;
	case RC_STEP:
		osc_format_us(r->step, buf, size);
		break;
	case RC_STEP_X:
		osc_format_ratio(r->step_x, buf, size);
		break;
	case RC_BUSY_PCT:
		if (r->wall > 0)
			osc_format_pct(100.0 * (double)r->busy / (double)r->wall, buf, size);
		break;
	case RC_COMPUTE:
		osc_format_us_int(r->cat[0], buf, size);
		break;
	case RC_WORK_X:
		osc_format_ratio(r->work_x, buf, size);
		break;
	case RC_COMM:
		osc_format_us_int(r->cat[1], buf, size);
		break;
	case RC_COMM_X:
		osc_format_ratio(r->comm_x, buf, size);
		break;
	case RC_EXPOSED:
		osc_format_us_int(r->exposed_comm, buf, size);
		break;
	case RC_MEMCPY:
		osc_format_us_int(r->cat[2], buf, size);
		break;
	case RC_IDLE:
		osc_format_us_int(r->idle, buf, size);
		break;
	case RC_WALL:
		osc_format_us_int(r->wall, buf, size);
		break;
	case RC_HOST_BUSY:
		osc_format_us_int(r->host_busy, buf, size);
		break;
	case RC_FLAGS:
		return osc_rank_flags_text(r->flags, buf, size);
	case RC_TOP:
		return r->top_kernel ? r->top_kernel : buf;
	case RC_TOP_US:
		if (r->top_kernel)
			osc_format_us_int(r->top_kernel_time, buf, size);
		break;
	case RC_TRACE:
		return s->path;
	}
	return buf;
}
