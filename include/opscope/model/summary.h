/*
 * summary.h - one rank of a distributed job, kept compact: the rows of
 * every table level per run, the runs with their GPU breakdown, and the
 * collective calls. What the cross-rank analyses (analysis/ranks.h) read,
 * whether the summary was built from a loaded trace (analysis/summary_build.h)
 * or read from a summary file written by `opscope summary` (load/summary_file.h,
 * export/summary_write.h), so a job of a thousand ranks needs no raw trace in
 * memory.
 *
 * Pure data: this layer only holds it. Every time is in ns; every string is
 * interned in the summary's own table.
 */
#ifndef OPSCOPE_SUMMARY_H
#define OPSCOPE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "opscope/base/strtab.h"
#include "opscope/model/rank.h"
#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

/* The GPU breakdown's categories (gpu.h), in its order: compute, comm, memcpy, memset. */
#define OSC_SUM_CATS 4

/* One run of the rank (runs.h) with what its window holds. */
struct osc_sum_run {
	osc_str name;        /* "ProfilerStep#12", "model_run", "" for the whole trace */
	int64_t ts, wall;    /* the window [ts, ts + wall) on the rank's own clock */
	uint64_t events;     /* events assigned to the run */
	int64_t host_busy;   /* self time of every host op of the run (aggregate.h's host_busy) */
	int64_t device_time; /* summed durations of the run's device events (aggregate.h) */
	/*
	 * The GPU breakdown of the rank's device within the window (gpu.h; the
	 * device with the most device events when the rank drives several):
	 * busy = the union of its device events, idle = wall - busy, the
	 * categories' unions, exposed communication.
	 */
	int64_t busy, idle, cat[OSC_SUM_CATS], exposed_comm;
};

/* One row of a table level within one run: aggregate.h's row, reduced to its sums. */
struct osc_sum_row {
	uint8_t level;       /* enum osc_level (never OSC_LEVEL_RUN: runs[] has those) */
	uint32_t run;        /* index into runs */
	osc_str key;         /* every key of the row as text (diff.h's osc_agg_label) */
	osc_str kernel;      /* kernel, dims and mapping levels: the row's kernel name as
				the trace recorded it (one of the names shown as the row's),
				from which another name style is made; else, or unknown, "" */
	uint64_t count;      /* the row's events */
	uint64_t kernels;    /* device events counted in dev */
	int64_t total, self, dev, dev_total; /* the measures' sums (aggregate.h) */
	int64_t min, max;    /* of the events' own durations */
};

/*
 * One collective call (collective.h): a record_param_comms op, or an
 * NCCL/RCCL kernel no such op launched. Calls of one process group run in
 * the same order on every rank of the group, so (group, seq) names the same
 * call on every rank.
 */
struct osc_sum_call {
	osc_str name;        /* "Collective name" (allreduce, ...), else the kernel's name */
	osc_str dtype;       /* "dtype" as recorded, "" when absent */
	osc_str group;       /* the process group: "Process Group Name", else the
				group size as text, else ""; "stream N" for a
				kernel without an op (collective_skew.h) */
	int64_t group_size;  /* "Group size", -1 when absent */
	double bytes;        /* S of the call (collective.h), NaN when unknown */
	osc_str algorithm;   /* NCCL's algorithm and protocol, from the names of its
				kernels (nccl_kernel.h): "" when they do not say,
				"mixed" when its kernels disagree */
	osc_str protocol;
	int64_t ts, dur;     /* its device work: first start, and end - first start;
				ts on the rank's own clock; -1 / 0 when it launched none */
	int64_t host_ts;     /* when the host op began (the call was issued); the kernel's
				start for a kernel without an op */
	uint32_t run;        /* index into runs, OSC_NONE outside every run */
	uint32_t seq;        /* its index among the calls of its group, in time order */
};

/* X-macro: where a summary came from, with its name in outputs. */
#define OSC_SUM_SOURCE_LIST(_) \
	_(TRACE, "trace")      \
	_(FILE, "summary file")

enum osc_sum_source {
#define OSC_SUM_SOURCE_ENUM(name, text) OSC_SUM_FROM_##name,
	OSC_SUM_SOURCE_LIST(OSC_SUM_SOURCE_ENUM)
#undef OSC_SUM_SOURCE_ENUM
};

struct osc_summary {
	char *path;              /* the input as given (a trace or a summary file) */
	char *trace;             /* the trace it summarises (its path when it was built) */
	enum osc_sum_source source;
	struct osc_rank rank;    /* rank.h; the job may set it from argument order */
	enum osc_format format;  /* the trace's */
	uint64_t events;         /* the trace's events */
	uint64_t input_bytes;    /* the trace's uncompressed bytes */
	bool has_device;         /* the trace has device events */
	osc_str run_source;      /* where the runs came from (runs.h's names) */
	unsigned skipped;        /* levels (1 << enum osc_level) built without rows
				    (summary_build.h), 0 for a whole summary */
	size_t names_kept;       /* a summary file's kernel rows that keep the names it
				    was written with, in a job of another name style
				    (summary_names.h) */
	struct osc_strtab strs;
	struct osc_sum_run *runs;
	size_t nr_runs, alloc_runs;
	struct osc_sum_row *rows;    /* by level, then run, then key text */
	size_t nr_rows, alloc_rows;
	struct osc_sum_call *calls;  /* in time order (host_ts) */
	size_t nr_calls, alloc_calls;
};

/* Set up an empty summary. */
void osc_summary_init(struct osc_summary *s);
/* Free what s owns; s holds nothing then (init it again before reuse; releasing it again is fine). */
void osc_summary_release(struct osc_summary *s);

/* Intern text in s's table. */
static inline osc_str osc_summary_intern(struct osc_summary *s, const char *text)
{
	return osc_strtab_intern(&s->strs, text, strlen(text));
}

/* Text of a string id of s. */
static inline const char *osc_summary_str(const struct osc_summary *s, osc_str id)
{
	return osc_strtab_get(&s->strs, id);
}

/* Add row from's count, sums and extremes into row to (another row of its key). */
void osc_sum_row_add(struct osc_sum_row *to, const struct osc_sum_row *from);
/* Append a run, a row, a call (copied); each returns its index. */
uint32_t osc_summary_add_run(struct osc_summary *s, const struct osc_sum_run *r);
size_t osc_summary_add_row(struct osc_summary *s, const struct osc_sum_row *r);
size_t osc_summary_add_call(struct osc_summary *s, const struct osc_sum_call *c);

/* Sort the rows by (level, run, key text) and the calls by host_ts (stable). */
void osc_summary_sort(struct osc_summary *s);

/*
 * The spans (runs.h) of the runs of s that on selects (per run; NULL: every
 * run): a new array of *n.
 */
struct osc_run_span *osc_summary_spans(const struct osc_summary *s, const uint8_t *on, size_t *n);

/* The rows of (level, run): *first and the count returned (binary search; rows sorted). */
size_t osc_summary_rows_of(const struct osc_summary *s, unsigned level, uint32_t run,
			   size_t *first);

#endif
