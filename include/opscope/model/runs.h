/*
 * runs.h - model runs and run selection.
 *
 * Runs are time windows, never array positions: ORT model_run, Kineto and
 * PyTorch ProfilerStep#N, Neural Engine IterationN; else ORT
 * SequentialExecutor::Execute; else the whole trace as one run (which holds
 * every event). On request (osc_runs_detect_opts), the runs are named host
 * ranges instead: NVTX ranges of nvprof and nsys files, or annotations. A host event belongs to the run whose window contains its
 * start, the latest-starting one when windows nest or overlap; a run's own
 * event belongs to that run; a device event belongs to the run of the
 * runtime call that launched it (same correlation id, even when the device
 * work starts after the run ended), else to the run containing its own start.
 *
 * A run selection is parsed from a small grammar, never evaluated as code:
 *   all | N | A:B | A: | :B | A:B:S | [i, j, ...] | range(B) | range(A,B) | range(A,B,S)
 * Indices may be negative (counted from the end). Python slice semantics for
 * slices; an index or list element outside [-n, n) is an OSC_RANGE error, and
 * so is a selection that ends up empty.
 */
#ifndef OPSCOPE_RUNS_H
#define OPSCOPE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/* X-macro: where the runs came from, with the name printed in outputs. */
#define OSC_RUN_SOURCE_LIST(_)                        \
	_(MODEL_RUN, "model_run")                     \
	_(PROFILER_STEP, "ProfilerStep")              \
	_(ITERATION, "Iteration")                     \
	_(EXECUTOR, "SequentialExecutor::Execute")    \
	_(NVTX, "NVTX range")                         \
	_(WHOLE, "whole trace")

enum osc_run_source {
#define OSC_RUN_SOURCE_ENUM(name, text) OSC_RUNS_##name,
	OSC_RUN_SOURCE_LIST(OSC_RUN_SOURCE_ENUM)
#undef OSC_RUN_SOURCE_ENUM
	OSC_RUN_SOURCE_COUNT
};

const char *osc_run_source_name(enum osc_run_source s);

struct osc_run {
	int64_t ts, dur;  /* window [ts, ts + dur) in ns */
	osc_str name;     /* "model_run", "ProfilerStep#12", ...; "" for WHOLE */
	uint32_t event;   /* the defining event, OSC_NONE for WHOLE */
	uint64_t nr_events; /* events assigned to this run */
	int64_t events_end; /* the latest end of the window and of those events
			       (kernels run after the step that launched them) */
};

struct osc_runs {
	struct osc_run *runs; /* sorted by ts */
	size_t nr;
	enum osc_run_source source;
	bool warmup;          /* run 0 is a warm-up to skip by default (ORT) */
	uint32_t *run_of;     /* per event: run index, or OSC_NONE outside every run */
	uint64_t outside;     /* events in no run */
};

/* Find the runs of t and assign every event to one (fills run_of). */
void osc_runs_detect(const struct osc_trace *t, struct osc_runs *out);

/* Options of run detection; a NULL field keeps the default. */
struct osc_runs_opts {
	/*
	 * --run-range "RE[/INDEX[:COUNT]]": the runs are the host ranges (NVTX
	 * ranges, annotations, ops: complete host events that are not runtime
	 * calls) whose name the PCRE2 regex RE matches somewhere, in time order
	 * (source OSC_RUNS_NVTX). /INDEX keeps only the INDEX-th of them, counted
	 * from 0 (negative: from the end), and :COUNT the COUNT from there on,
	 * in the spirit of nsys's --filter-nvtx RANGE/INDEX. A trailing
	 * "/digits" is always read as the index.
	 */
	const char *range;
	/* --whole-trace: one run spanning the whole trace, run markers ignored
	   (for events that lie outside every marked run). Wins over range. */
	bool whole;
};

/*
 * osc_runs_detect with options (opts may be NULL). Errors, out left empty
 * (release it all the same): OSC_USAGE (bad regex, bad index; the message
 * says where), OSC_RANGE (no range matches, index out of range); the
 * subject is "--run-range".
 */
enum osc_status osc_runs_detect_opts(const struct osc_trace *t, const struct osc_runs_opts *opts,
				     struct osc_runs *out, struct osc_error *err);
void osc_runs_release(struct osc_runs *r);

/* A set of selected runs. */
struct osc_runsel {
	uint8_t *on;      /* per run: 1 if selected */
	size_t nr_runs;   /* size of on[] */
	size_t nr_on;     /* runs selected */
	char *spec;       /* the spec as given, or "default" */
};

/*
 * Parse spec against nr_runs runs. spec NULL means the default: every run,
 * except run 0 when warmup is set and there is more than one run.
 * Errors: OSC_USAGE (syntax; the message names the offending column),
 * OSC_RANGE (index out of range, empty selection); err->subject is "--runs".
 */
enum osc_status osc_runsel_parse(const char *spec, size_t nr_runs, bool warmup,
				 struct osc_runsel *out, struct osc_error *err);
void osc_runsel_release(struct osc_runsel *s);
/* A copy of from into to (to is set up here: release it). */
void osc_runsel_copy(struct osc_runsel *to, const struct osc_runsel *from);
/* True when a and b select the same runs (whatever their specs). */
bool osc_runsel_same(const struct osc_runsel *a, const struct osc_runsel *b);

/* True when event ev is in a selected run. */
static inline bool osc_runsel_has_event(const struct osc_runsel *s,
					const struct osc_runs *r, uint32_t ev)
{
	uint32_t run = r->run_of[ev];
	return run != OSC_NONE && run < s->nr_runs && s->on[run];
}

/*
 * A stretch of time that selected runs cover: runs whose windows overlap
 * (one starts before the other ends; windows that only touch stay apart)
 * make one span. A selection's wall time is the sum of its spans, never of
 * its runs' windows, which nest when runs are nested NVTX ranges.
 */
struct osc_run_span {
	int64_t from, to; /* [from, to), ns */
	uint32_t cover;   /* the run whose window is the whole span, OSC_NONE if none */
	uint32_t nr;      /* runs in the span */
};

/*
 * Merge s[0..n), each one run's window (nr 1, cover that run) in any order,
 * into spans sorted by from, in place; returns how many spans there are.
 */
size_t osc_run_spans_merge(struct osc_run_span *s, size_t n);

/* The spans s[0..n) summed: the time they cover, ns. */
int64_t osc_run_spans_wall(const struct osc_run_span *s, size_t n);

/* The spans of the runs of r that sel selects (NULL: every run): a new array of *n. */
struct osc_run_span *osc_runsel_spans(const struct osc_runs *r, const struct osc_runsel *sel,
				      size_t *n);

/* The selected runs' wall time: their spans summed, ns (sel NULL: every run). */
int64_t osc_runsel_wall(const struct osc_runs *r, const struct osc_runsel *sel);

/*
 * Human description into a new string, e.g.
 * "runs 1-10 of 11 (model_run, warm-up run 0 skipped)" or "runs 0,2,5 of 8 (ProfilerStep)".
 */
char *osc_runsel_describe(const struct osc_runsel *s, const struct osc_runs *r);

#endif
