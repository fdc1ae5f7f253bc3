/*
 * runs.c - finding model runs and assigning every event to one.
 *
 * A run is a time window taken from the events that define it (see runs.h).
 * Assignment never uses array positions: the windows' start and end points
 * cut the time line into elementary intervals, each of which has one answer
 * (the latest-starting window covering it, so nested windows win over their
 * parents), computed once in a sweep. Events are sorted by ts, so a pointer
 * walk finds each event's interval; device events are then moved to the run
 * of the runtime call that launched them through an index of correlation
 * ids (id_index.h).
 * O(N + R log R) time in three passes over the events; extra memory O(R)
 * plus the correlation table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/model/filter.h"
#include "opscope/model/runs.h"
#include "base/id_index.h"
#include "base/parallel.h"

static const char *const source_names[] = {
#define OSC_RUN_SOURCE_NAME(name, text) text,
	OSC_RUN_SOURCE_LIST(OSC_RUN_SOURCE_NAME)
#undef OSC_RUN_SOURCE_NAME
};

const char *osc_run_source_name(enum osc_run_source s)
{
	if ((unsigned)s >= OSC_RUN_SOURCE_COUNT)
		return "unknown";
	return source_names[s];
}

static bool has_prefix(const struct osc_trace *t, osc_str id, const char *prefix)
{
	size_t n = strlen(prefix);

	return osc_strtab_len(&t->strs, id) >= n && !memcmp(osc_trace_str(t, id), prefix, n);
}

/* Which source a run-defining event belongs to, or OSC_RUN_SOURCE_COUNT if none. */
static enum osc_run_source source_of(const struct osc_trace *t, const struct osc_event *e)
{
	if (e->kind == OSC_KIND_EXECUTOR)
		return OSC_RUNS_EXECUTOR;
	if (e->kind != OSC_KIND_RUN)
		return OSC_RUN_SOURCE_COUNT;
	if (has_prefix(t, e->name, "ProfilerStep#"))
		return OSC_RUNS_PROFILER_STEP;
	if (has_prefix(t, e->name, "Iteration"))
		return OSC_RUNS_ITERATION;
	/* ORT's model_run, and any other run event a loader marks */
	return OSC_RUNS_MODEL_RUN;
}

/* Start out empty, with room for every event's run. */
static void runs_init(const struct osc_trace *t, struct osc_runs *out)
{
	memset(out, 0, sizeof(*out));
	out->run_of = osc_xmalloc((t->nr_events ? t->nr_events : 1) * sizeof(*out->run_of));
}

/* Append the run that event i defines. */
static void add_run(struct osc_runs *out, size_t *alloc, const struct osc_event *e, size_t i)
{
	struct osc_run *r;

	OSC_GROW(out->runs, out->nr + 1, *alloc);
	r = &out->runs[out->nr++];
	r->ts = e->ts;
	r->dur = e->dur;
	r->name = e->name;
	r->event = (uint32_t)i;
	r->nr_events = 0;
	r->events_end = osc_sat_add(e->ts, e->dur);
}

/*
 * Collect the runs of the best source present (the enum is in priority
 * order) in one pass: candidates of every source are kept, then the losers
 * dropped. Events are in ts order, so the runs come out sorted by ts.
 */
static enum osc_run_source collect_runs(const struct osc_trace *t, struct osc_runs *out)
{
	enum osc_run_source best = OSC_RUNS_WHOLE;
	uint8_t *src = NULL;
	size_t alloc = 0, alloc_src = 0, kept = 0;

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		enum osc_run_source s = source_of(t, e);

		if (s == OSC_RUN_SOURCE_COUNT)
			continue;
		best = s < best ? s : best;
		OSC_GROW(src, out->nr + 1, alloc_src);
		src[out->nr] = (uint8_t)s;
		add_run(out, &alloc, e, i);
	}
	for (size_t i = 0; i < out->nr; i++)
		if (src[i] == best)
			out->runs[kept++] = out->runs[i];
	out->nr = kept;
	free(src);
	return best;
}

static void whole_trace(const struct osc_trace *t, struct osc_runs *out)
{
	struct osc_run *r = osc_xcalloc(1, sizeof(*r));
	int64_t lo = 0, hi = 0;

	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		int64_t end = osc_event_end(e);

		if (!i || e->ts < lo)
			lo = e->ts;
		if (!i || end > hi)
			hi = end;
		out->run_of[i] = 0;
	}
	if (t->nr_flows) { /* in ts order; a flow lasts no time */
		lo = !t->nr_events || t->flows[0].ts < lo ? t->flows[0].ts : lo;
		hi = !t->nr_events || t->flows[t->nr_flows - 1].ts > hi ? t->flows[t->nr_flows - 1].ts
									  : hi;
	}
	r->ts = lo;
	if (hi <= lo || __builtin_sub_overflow(hi, lo, &r->dur))
		r->dur = hi > lo ? INT64_MAX : 0;
	r->name = OSC_STR_EMPTY;
	r->events_end = osc_sat_add(r->ts, r->dur);
	r->event = OSC_NONE;
	r->nr_events = osc_trace_nr_written(t);
	out->runs = r;
	out->nr = 1;
}

/*
 * Elementary intervals of the run windows: bound[k] .. bound[k+1] is covered
 * by run owner[k] (OSC_NONE if by none).
 */
struct timeline {
	int64_t *bound;
	uint32_t *owner;
	size_t nr; /* bounds; nr - 1 intervals */
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

struct run_end {
	int64_t end;
	uint32_t run;
};

static int cmp_run_end(const void *a, const void *b)
{
	const struct run_end *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->run > y->run) - (x->run < y->run);
}

static void timeline_build(const struct osc_runs *r, struct timeline *tl)
{
	struct run_end *ends = osc_xmalloc((r->nr ? r->nr : 1) * sizeof(*ends));
	uint32_t *stack = osc_xmalloc((r->nr ? r->nr : 1) * sizeof(*stack));
	uint8_t *done = osc_xcalloc(r->nr ? r->nr : 1, 1);
	size_t n = 0, depth = 0, next_start = 0, next_end = 0;

	tl->bound = osc_xmalloc((r->nr ? 2 * r->nr : 1) * sizeof(*tl->bound));
	for (size_t i = 0; i < r->nr; i++) {
		ends[i].end = osc_sat_add(r->runs[i].ts, r->runs[i].dur);
		ends[i].run = (uint32_t)i;
		tl->bound[n++] = r->runs[i].ts;
		tl->bound[n++] = ends[i].end;
	}
	qsort(tl->bound, n, sizeof(*tl->bound), cmp_i64);
	qsort(ends, r->nr, sizeof(*ends), cmp_run_end);
	tl->nr = 0;
	for (size_t i = 0; i < n; i++)
		if (!tl->nr || tl->bound[tl->nr - 1] != tl->bound[i])
			tl->bound[tl->nr++] = tl->bound[i];

	/*
	 * Runs start in index order, so the stack of open runs holds increasing
	 * indices and its top, once finished runs are popped, is the
	 * latest-starting open run.
	 */
	tl->owner = osc_xmalloc((tl->nr ? tl->nr : 1) * sizeof(*tl->owner));
	for (size_t k = 0; k < tl->nr; k++) {
		int64_t b = tl->bound[k];

		while (next_start < r->nr && r->runs[next_start].ts == b)
			stack[depth++] = (uint32_t)next_start++;
		while (next_end < r->nr && ends[next_end].end == b)
			done[ends[next_end++].run] = 1;
		while (depth && done[stack[depth - 1]])
			depth--;
		tl->owner[k] = depth ? stack[depth - 1] : OSC_NONE;
	}
	free(done);
	free(stack);
	free(ends);
}

static void timeline_release(struct timeline *tl)
{
	free(tl->bound);
	free(tl->owner);
}

/* Index k of the interval holding x (bound[k] <= x < bound[k+1]), or SIZE_MAX. */
static size_t timeline_find(const struct timeline *tl, int64_t x, size_t hint)
{
	size_t lo = 0, hi = tl->nr;

	if (!tl->nr || x < tl->bound[0] || x >= tl->bound[tl->nr - 1])
		return SIZE_MAX;
	/* events come in ts order: try the previous answer and its successors first */
	if (hint < tl->nr - 1 && tl->bound[hint] <= x) {
		for (int step = 0; step < 4 && hint < tl->nr - 1; step++, hint++)
			if (x < tl->bound[hint + 1])
				return hint;
		lo = hint;
	}
	while (hi - lo > 1) { /* invariant: bound[lo] <= x < bound[hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (tl->bound[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A runtime call that launched device work, with the run it is in. */
struct launch {
	osc_id corr;
	uint32_t run;
};

/* Events worth a thread of assign_events. */
#define ASSIGN_PART 100000

/* One thread's share of assign_events: events [from, to). */
struct assign_part {
	const struct osc_trace *t;
	struct osc_runs *out;
	const struct timeline *tl;
	/* second pass: the first launch of each correlation id, an index into
	   all (the whole trace's launches) */
	const struct osc_id_index *by_corr;
	const struct launch *all;
	size_t from, to;
	bool has_device;
	struct launch *launches;   /* first pass: runtime calls with an id, in model order */
	size_t nr_launches, alloc_launches;
	uint64_t *count;           /* second pass: events per run */
	int64_t *end;              /* second pass: the latest end of each run's events */
	uint64_t outside;
};

/* First pass: the run of each event by its start; launches are noted on the way. */
static void by_start(void *arg, size_t i)
{
	struct assign_part *a = &((struct assign_part *)arg)[i];
	size_t hint = 0;

	for (size_t e = a->from; e < a->to; e++) {
		const struct osc_event *ev = &a->t->events[e];
		size_t k = timeline_find(a->tl, ev->ts, hint);

		if (k != SIZE_MAX)
			hint = k;
		a->out->run_of[e] = k == SIZE_MAX ? OSC_NONE : a->tl->owner[k];
		a->has_device |= osc_kind_is_device(ev->kind);
		if (ev->kind == OSC_KIND_RUNTIME && ev->corr_id != OSC_ID_NONE) {
			OSC_GROW(a->launches, a->nr_launches + 1, a->alloc_launches);
			a->launches[a->nr_launches].corr = ev->corr_id;
			a->launches[a->nr_launches++].run = a->out->run_of[e];
		}
	}
}

/* Second pass: device work follows its launch; then count. */
static void by_launch(void *arg, size_t i)
{
	struct assign_part *a = &((struct assign_part *)arg)[i];
	uint32_t *run_of = a->out->run_of;

	a->count = osc_xcalloc(a->out->nr ? a->out->nr : 1, sizeof(*a->count));
	a->end = osc_xmalloc((a->out->nr ? a->out->nr : 1) * sizeof(*a->end));
	for (size_t r = 0; r < a->out->nr; r++)
		a->end[r] = INT64_MIN;
	for (size_t e = a->from; e < a->to; e++) {
		const struct osc_event *ev = &a->t->events[e];
		int64_t end;

		if (osc_kind_is_device(ev->kind) && ev->corr_id != OSC_ID_NONE) {
			uint32_t l = osc_id_index_get(a->by_corr, ev->corr_id);

			if (l != UINT32_MAX)
				run_of[e] = a->all[l].run;
		}
		if (run_of[e] == OSC_NONE) {
			a->outside++;
			continue;
		}
		a->count[run_of[e]]++;
		end = osc_event_end(ev);
		if (end > a->end[run_of[e]])
			a->end[run_of[e]] = end;
	}
}

/* Count the flows in the runs their start falls in (flows launch nothing). */
static void count_flows(const struct osc_trace *t, const struct timeline *tl,
			struct osc_runs *out)
{
	size_t hint = 0;

	for (size_t f = 0; f < t->nr_flows; f++) {
		size_t k = timeline_find(tl, t->flows[f].ts, hint);
		uint32_t run = k == SIZE_MAX ? OSC_NONE : tl->owner[k];

		hint = k == SIZE_MAX ? hint : k;
		if (run == OSC_NONE)
			out->outside++;
		else
			out->runs[run].nr_events++;
	}
}

/* run_of and the counts, in two passes over the events, each on all cores. */
static void assign_events(const struct osc_trace *t, struct osc_runs *out)
{
	size_t n = t->nr_events, parts = osc_parallel_parts(n, ASSIGN_PART), nr_launches = 0;
	struct assign_part *a;
	struct timeline tl;
	struct osc_id_index by_corr = { 0 };
	struct launch *launches;
	bool has_device = false;

	a = osc_xcalloc(parts, sizeof(*a));
	timeline_build(out, &tl);
	for (size_t i = 0; i < parts; i++)
		a[i] = (struct assign_part){ .t = t, .out = out, .tl = &tl,
					     .from = n * i / parts, .to = n * (i + 1) / parts };
	osc_parallel_run(parts, by_start, a);
	count_flows(t, &tl, out);
	timeline_release(&tl);

	/* a run's own event belongs to it even when a nested window starts at the same ts */
	for (size_t r = 0; r < out->nr; r++)
		out->run_of[out->runs[r].event] = (uint32_t)r;

	for (size_t i = 0; i < parts; i++) {
		has_device |= a[i].has_device;
		nr_launches += a[i].nr_launches;
	}
	launches = osc_xmalloc((nr_launches ? nr_launches : 1) * sizeof(*launches));
	nr_launches = 0;
	for (size_t i = 0; i < parts; i++) { /* in model order: the first launch of an id wins */
		if (a[i].nr_launches)
			memcpy(launches + nr_launches, a[i].launches,
			       a[i].nr_launches * sizeof(*launches));
		nr_launches += a[i].nr_launches;
		free(a[i].launches);
	}
	for (size_t l = 0; has_device && l < nr_launches; l++) /* else none is asked */
		osc_id_index_add(&by_corr, launches[l].corr, (uint32_t)l);
	osc_id_index_finish(&by_corr);
	for (size_t i = 0; i < parts; i++) {
		a[i].by_corr = &by_corr;
		a[i].all = launches;
	}
	osc_parallel_run(parts, by_launch, a);
	for (size_t i = 0; i < parts; i++) {
		out->outside += a[i].outside;
		for (size_t r = 0; r < out->nr; r++) {
			out->runs[r].nr_events += a[i].count[r];
			if (a[i].end[r] > out->runs[r].events_end)
				out->runs[r].events_end = a[i].end[r];
		}
		free(a[i].count);
		free(a[i].end);
	}
	free(a);
	free(launches);
	osc_id_index_release(&by_corr);
}

void osc_runs_detect(const struct osc_trace *t, struct osc_runs *out)
{
	runs_init(t, out);
	out->source = collect_runs(t, out);
	if (out->source == OSC_RUNS_WHOLE) {
		free(out->runs);
		whole_trace(t, out);
		return;
	}
	out->warmup = t->format == OSC_FORMAT_ORT && out->nr > 1;
	assign_events(t, out);
}

/* ---- --run-range: runs from named ranges ---- */

/* A complete host event that can be a range: not a runtime call, flow or device work. */
static bool is_range(const struct osc_event *e)
{
	return e->ph == OSC_PH_COMPLETE && !osc_kind_is_device(e->kind) &&
	       e->kind != OSC_KIND_RUNTIME && e->kind != OSC_KIND_FLOW;
}

struct range_spec {
	char *re;
	bool has_index;
	long long index, count;
};

static const char *skip_digits(const char *p)
{
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

/* True when p is -?DIGITS(:DIGITS)?, the instance part of a --run-range. */
static bool is_instance(const char *p)
{
	const char *q;

	if (*p == '-')
		p++;
	q = skip_digits(p);
	if (q == p)
		return false;
	if (*q == ':') {
		p = q + 1;
		q = skip_digits(p);
		if (q == p)
			return false;
	}
	return !*q;
}

/* Split "RE[/INDEX[:COUNT]]". */
static enum osc_status range_parse(const char *spec, struct range_spec *rs,
				   struct osc_error *err)
{
	const char *slash = strrchr(spec, '/');
	char *end;

	memset(rs, 0, sizeof(*rs));
	rs->count = 1;
	if (!slash || !is_instance(slash + 1)) {
		rs->re = osc_xstrdup(spec);
		return OSC_OK;
	}
	rs->re = osc_xstrndup(spec, (size_t)(slash - spec));
	rs->has_index = true;
	errno = 0;
	rs->index = strtoll(slash + 1, &end, 10);
	if (!errno && *end == ':')
		rs->count = strtoll(end + 1, &end, 10);
	if (errno || rs->count < 1)
		return osc_error_set(err, OSC_USAGE, "--run-range", OSC_NO_OFFSET, NULL,
				     "bad instance '%s' (expected /INDEX or /INDEX:COUNT, "
				     "COUNT >= 1)",
				     slash + 1);
	return OSC_OK;
}

/* Keep runs [index, index + count) of the matching ones. */
static enum osc_status range_select(const struct range_spec *rs, struct osc_runs *out,
				    struct osc_error *err)
{
	long long n = (long long)out->nr, i = rs->index < 0 ? rs->index + n : rs->index;
	long long count = rs->count;

	if (i < 0 || i >= n)
		return osc_error_set(err, OSC_RANGE, "--run-range", OSC_NO_OFFSET, NULL,
				     "instance %lld out of range: %lld range%s match '%s'",
				     rs->index, n, n == 1 ? "" : "s", rs->re);
	if (count > n - i)
		count = n - i;
	memmove(out->runs, out->runs + i, (size_t)count * sizeof(*out->runs));
	out->nr = (size_t)count;
	return OSC_OK;
}

static enum osc_status collect_ranges(const struct osc_trace *t, const char *spec,
				      struct osc_runs *out, struct osc_error *err)
{
	struct osc_filter f;
	struct range_spec rs;
	size_t alloc = 0;
	enum osc_status st;

	osc_filter_init(&f);
	st = range_parse(spec, &rs, err);
	if (st == OSC_OK && osc_filter_set_regex(&f, rs.re, err) != OSC_OK) {
		snprintf(err->subject, sizeof(err->subject), "--run-range");
		st = err->code;
	}
	for (size_t i = 0; st == OSC_OK && i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (!is_range(e) || !osc_filter_match(&f, osc_trace_str(t, e->name),
						      osc_strtab_len(&t->strs, e->name)))
			continue;
		add_run(out, &alloc, e, i);
	}
	if (st == OSC_OK && !out->nr)
		st = osc_error_set(err, OSC_RANGE, "--run-range", OSC_NO_OFFSET, NULL,
				   "no range matches '%s'", rs.re);
	if (st == OSC_OK && rs.has_index)
		st = range_select(&rs, out, err);
	free(rs.re);
	osc_filter_release(&f);
	return st;
}

enum osc_status osc_runs_detect_opts(const struct osc_trace *t, const struct osc_runs_opts *opts,
				     struct osc_runs *out, struct osc_error *err)
{
	enum osc_status st;

	if (opts && opts->whole) {
		runs_init(t, out);
		out->source = OSC_RUNS_WHOLE;
		whole_trace(t, out);
		return OSC_OK;
	}
	if (!opts || !opts->range) {
		osc_runs_detect(t, out);
		return OSC_OK;
	}
	runs_init(t, out);
	st = collect_ranges(t, opts->range, out, err);
	if (st != OSC_OK) {
		osc_runs_release(out);
		return st;
	}
	out->source = OSC_RUNS_NVTX;
	assign_events(t, out);
	return OSC_OK;
}

void osc_runs_release(struct osc_runs *r)
{
	free(r->runs);
	free(r->run_of);
	memset(r, 0, sizeof(*r));
}
