/*
 * gather_json.c - gather_op_profile's JSON (see gather.h).
 *
 * Kernels are found from their launches: kernel events are indexed by
 * correlation id, runtime calls listed per thread in time order, so each op
 * looks at the launches inside its window with a binary search. O(N log N)
 * plus the launches of each op (nested ops see the same launches again).
 * The document is built with json-c and written at once.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/demangle.h"
#include "opscope/export/export.h"
#include "opscope/export/gather.h"

/* Ranges ending in the word Forward or Backward: ORT's "Batch-0 Forward". */
#define PASS_RE "(?i)(?:^|[^[:alnum:]_])(?:forward|backward)$"

struct corr_kernel {
	int64_t corr;
	uint32_t ev;
};

struct index {
	struct corr_kernel *kernels; /* sorted by corr, then event */
	size_t nr_kernels;
	uint32_t *launches;          /* runtime calls grouped by thread, each group by ts */
	size_t *first;               /* per thread: start of its group; [nr_threads] = end */
};

static int cmp_corr(const void *a, const void *b)
{
	const struct corr_kernel *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->ev > y->ev) - (x->ev < y->ev);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void index_build(const struct osc_trace *t, struct index *ix)
{
	size_t *fill;

	memset(ix, 0, sizeof(*ix));
	ix->first = osc_xcalloc(t->nr_threads + 1, sizeof(*ix->first));
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (e->kind == OSC_KIND_KERNEL && e->corr_id != OSC_ID_NONE)
			ix->nr_kernels++;
		else if (e->kind == OSC_KIND_RUNTIME && e->corr_id != OSC_ID_NONE &&
			 e->thread < t->nr_threads)
			ix->first[e->thread + 1]++;
	}
	for (size_t th = 0; th < t->nr_threads; th++)
		ix->first[th + 1] += ix->first[th];
	ix->kernels = osc_xmalloc((ix->nr_kernels ? ix->nr_kernels : 1) * sizeof(*ix->kernels));
	ix->launches = osc_xmalloc((ix->first[t->nr_threads] ? ix->first[t->nr_threads] : 1) *
				   sizeof(*ix->launches));
	fill = osc_xmalloc((t->nr_threads + 1) * sizeof(*fill));
	memcpy(fill, ix->first, (t->nr_threads + 1) * sizeof(*fill));
	ix->nr_kernels = 0;
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (e->kind == OSC_KIND_KERNEL && e->corr_id != OSC_ID_NONE)
			ix->kernels[ix->nr_kernels++] =
				(struct corr_kernel){ e->corr_id, (uint32_t)i };
		else if (e->kind == OSC_KIND_RUNTIME && e->corr_id != OSC_ID_NONE &&
			 e->thread < t->nr_threads)
			ix->launches[fill[e->thread]++] = (uint32_t)i; /* events are in ts order */
	}
	free(fill);
	if (ix->nr_kernels)
		qsort(ix->kernels, ix->nr_kernels, sizeof(*ix->kernels), cmp_corr);
}

static void index_release(struct index *ix)
{
	free(ix->kernels);
	free(ix->launches);
	free(ix->first);
}

/* First kernel with correlation id corr, or nr_kernels. */
static size_t first_kernel(const struct index *ix, int64_t corr)
{
	size_t lo = 0, hi = ix->nr_kernels;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->kernels[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct json_object *kernel_json(const struct osc_trace *t, uint32_t ev)
{
	const struct osc_event *e = &t->events[ev];
	const struct osc_kernel *k = e->kernel < t->nr_kernels ? &t->kernels[e->kernel] : NULL;
	const char *name = osc_trace_str(t, e->name);
	char *demangled = osc_demangle(name);
	struct json_object *o = json_object_new_object();

	/* keys in the order of gather_op_profile's output (sorted) */
	json_object_object_add(o, "duration(ns)", json_object_new_int64(e->dur));
	json_object_object_add(o, "end", json_object_new_int64(osc_event_end(e)));
	json_object_object_add(o, "n_registers_per_thread",
			       json_object_new_int(k ? k->registers : -1));
	json_object_object_add(o, "name", json_object_new_string(demangled ? demangled : name));
	json_object_object_add(o, "start", json_object_new_int64(e->ts));
	json_object_object_add(o, "stream_id", json_object_new_int(k ? k->stream : -1));
	free(demangled);
	return o;
}

/* The kernels op launched on its thread inside its window, by start. */
static struct json_object *op_kernels(const struct osc_trace *t, const struct index *ix,
				      const struct osc_event *op, uint32_t **buf, size_t *alloc)
{
	struct json_object *list = json_object_new_array();
	size_t lo, hi, n = 0;
	int64_t end = osc_event_end(op);

	if (op->thread >= t->nr_threads)
		return list;
	lo = ix->first[op->thread];
	hi = ix->first[op->thread + 1];
	while (lo < hi) { /* first launch starting at or after the op */
		size_t mid = lo + (hi - lo) / 2;

		if (t->events[ix->launches[mid]].ts < op->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->first[op->thread + 1]; lo++) {
		const struct osc_event *l = &t->events[ix->launches[lo]];

		if (l->ts > end)
			break;
		if (osc_event_end(l) > end)
			continue;
		for (size_t k = first_kernel(ix, l->corr_id);
		     k < ix->nr_kernels && ix->kernels[k].corr == l->corr_id; k++) {
			OSC_GROW(*buf, n + 1, *alloc);
			(*buf)[n++] = ix->kernels[k].ev;
		}
	}
	if (n)
		qsort(*buf, n, sizeof(**buf), cmp_u32); /* event order is start order */
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, kernel_json(t, (*buf)[i]));
	return list;
}

static bool is_backward(const struct osc_trace *t, osc_str name)
{
	const char *s = osc_trace_str(t, name);

	for (; *s; s++)
		if (!strncasecmp(s, "backward", 8))
			return true;
	return false;
}

static struct json_object *build(const struct osc_trace *t, const struct osc_runs *runs,
				 const struct osc_runsel *sel)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *fwd = json_object_new_array(), *bwd = json_object_new_array();
	uint8_t *is_pass = osc_xcalloc(t->nr_events ? t->nr_events : 1, 1);
	struct index ix;
	uint32_t *buf = NULL;
	size_t alloc = 0;

	index_build(t, &ix);
	for (size_t r = 0; r < runs->nr; r++)
		if (runs->runs[r].event < t->nr_events)
			is_pass[runs->runs[r].event] = 1;
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		uint32_t r = runs->run_of[i];
		struct json_object *op;

		if (e->kind != OSC_KIND_HOST_OP || e->ph != OSC_PH_COMPLETE || is_pass[i] ||
		    r == OSC_NONE || (sel && (r >= sel->nr_runs || !sel->on[r])))
			continue;
		op = json_object_new_object();
		json_object_object_add(op, osc_trace_str(t, e->name),
				       op_kernels(t, &ix, e, &buf, &alloc));
		json_object_array_add(is_backward(t, runs->runs[r].name) ? bwd : fwd, op);
	}
	json_object_object_add(doc, "forward", fwd);
	json_object_object_add(doc, "backward", bwd);
	free(buf);
	free(is_pass);
	index_release(&ix);
	return doc;
}

enum osc_status osc_gather_json(FILE *out, const struct osc_trace *t, const struct osc_runs *runs,
				const struct osc_runsel *sel, struct osc_error *err)
{
	static const struct osc_runs_opts passes = { .range = PASS_RE };
	struct osc_runs own;
	struct json_object *doc;
	struct osc_error ignored;
	const char *text;
	bool bad;

	if (runs->source == OSC_RUNS_NVTX) {
		doc = build(t, runs, sel);
	} else {
		if (osc_runs_detect_opts(t, &passes, &own, &ignored) != OSC_OK)
			osc_runs_detect(t, &own); /* no passes: the runs found, all forward */
		doc = build(t, &own, NULL);
		osc_runs_release(&own);
	}
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	osc_export_json_text(out, text, isatty(fileno(out)) ? OSC_EXPORT_TERMINAL : 0);
	bad = putc('\n', out) == EOF || ferror(out);
	json_object_put(doc);
	if (bad)
		return osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL, "write failed");
	return OSC_OK;
}
