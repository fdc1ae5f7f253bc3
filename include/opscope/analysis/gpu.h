/*
 * gpu.h - where the GPU's time goes, per run, device and stream: the
 * temporal breakdown of HTA and TraceLens's gpu_timeline, and HTA's
 * idle-time breakdown.
 *
 * Device events are kernels, memcpy and memset (complete events). A stream
 * is the thread a device event is on (Kineto: tid "stream 7" of pid 0, the
 * device); a device is the process of its streams. Each event falls in one
 * category: memcpy and memset by kind, a kernel whose name holds "nccl" or
 * "rccl" (any case) is communication (TraceLens's rule, with ROCm's
 * library), every other kernel computation.
 *
 * Definitions (tests recompute them independently), for a window W (a run's
 * [ts, ts + dur): HTA and TraceLens use the span from the first to the last
 * GPU event instead; opscope keeps the run's window so that a step's idle
 * time is the time its GPU waited during that step):
 * - busy = |union of the device events' windows ∩ W| (over the streams of
 *   the row: never a sum); idle = |W| - busy;
 * - compute, comm, memcpy, memset = |union of the category's windows ∩ W|;
 * - exposed comm = comm - |comm ∩ compute| (TraceLens's exposed_comm);
 *   exposed memcpy = memcpy - |memcpy ∩ (compute ∪ comm)|; comm overlap =
 *   |comm ∩ compute| (comm_overlap_pct = 100 * overlap / comm);
 * - idle breakdown, per stream (HTA): each gap between consecutive device
 *   events of the stream within W is a kernel wait when shorter than the
 *   threshold (HTA's consecutive_kernel_delay, 30 ns by default), else a
 *   host wait when the next event's launch (its runtime call) started no
 *   earlier than the previous event ended (the GPU had nothing queued),
 *   else other (a wait on another stream or an event); the idle time before
 *   the first and after the last event of W is other. The three add up to
 *   the stream's idle time.
 * The selection's rows are those of its spans (runs.h), summed: runs whose
 * windows overlap (nested NVTX ranges) are measured once, as one window.
 */
#ifndef OPSCOPE_GPU_H
#define OPSCOPE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/demangle.h"
#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

/* X-macro: the categories of device events, with their column stem. */
#define OSC_GPU_CAT_LIST(_)      \
	_(COMPUTE, "compute")    \
	_(COMM, "comm")          \
	_(MEMCPY, "memcpy")      \
	_(MEMSET, "memset")

enum osc_gpu_cat {
#define OSC_GPU_CAT_ENUM(name, stem) OSC_GPU_##name,
	OSC_GPU_CAT_LIST(OSC_GPU_CAT_ENUM)
#undef OSC_GPU_CAT_ENUM
	OSC_GPU_CAT_NR
};

/*
 * X-macro: the directions of copies, from the name the profiler gives them
 * (CUPTI's and roctracer's "Memcpy HtoD (Pinned -> Device)", nsys's copyKind
 * named alike); OTHER: host to host, peer to peer, arrays, or not said.
 */
#define OSC_GPU_COPY_LIST(_) \
	_(HTOD, "htod")      \
	_(DTOH, "dtoh")      \
	_(DTOD, "dtod")      \
	_(OTHER, "other")

enum osc_gpu_copy {
#define OSC_GPU_COPY_ENUM(name, stem) OSC_GPU_COPY_##name,
	OSC_GPU_COPY_LIST(OSC_GPU_COPY_ENUM)
#undef OSC_GPU_COPY_ENUM
	OSC_GPU_COPY_NR
};

/* X-macro: why a stream was idle (HTA's idle-time breakdown). */
#define OSC_GPU_WAIT_LIST(_)       \
	_(HOST, "host wait")       \
	_(KERNEL, "kernel wait")   \
	_(OTHER, "other")

enum osc_gpu_wait {
#define OSC_GPU_WAIT_ENUM(name, text) OSC_GPU_WAIT_##name,
	OSC_GPU_WAIT_LIST(OSC_GPU_WAIT_ENUM)
#undef OSC_GPU_WAIT_ENUM
	OSC_GPU_WAIT_NR
};

const char *osc_gpu_wait_name(enum osc_gpu_wait w);

/* True for the name of a communication kernel: it holds "nccl" or "rccl", any case. */
bool osc_gpu_is_comm(const char *kernel_name);

/*
 * osc_gpu_is_comm of t's string name, remembered in memo (t->strs.count
 * bytes, zeroed by the caller): a trace repeats a few hundred long kernel
 * names over millions of kernels, so each name is looked at once.
 */
bool osc_gpu_name_is_comm(const struct osc_trace *t, osc_str name, uint8_t *memo);

struct osc_gpu_query {
	const struct osc_runs *runs;
	const struct osc_runsel *sel; /* NULL: every run */
	int64_t kernel_wait;          /* ns: shorter gaps are kernel waits */
	size_t nr_gaps;               /* how many of the longest gaps to list */
};

struct osc_gpu_row {
	uint32_t run;          /* run index; OSC_NONE: the selection's sum */
	osc_str device;        /* the process of the streams */
	uint32_t thread;       /* the stream's thread; OSC_NONE: every stream of the device */
	int64_t wall, busy;    /* ns */
	int64_t cat[OSC_GPU_CAT_NR];
	int64_t copy[OSC_GPU_COPY_NR]; /* memcpy time per direction (each a union) */
	int64_t overlap;       /* |comm ∩ compute| */
	int64_t exposed_comm, exposed_memcpy;
	int64_t wait[OSC_GPU_WAIT_NR]; /* stream rows only */
	uint64_t events;       /* device events that start in the window */
};

/* One idle gap of a stream, with the host op running when it began. */
struct osc_gpu_gap {
	uint32_t run, thread;
	int64_t ts, dur;       /* ns */
	enum osc_gpu_wait why;
	uint32_t next;         /* the device event after it */
	uint32_t op;           /* host op open on the next event's launch thread at ts, or OSC_NONE */
};

struct osc_gpu {
	struct osc_gpu_row *rows; /* per run: each device, then its streams; the selection last */
	size_t nr;
	struct osc_gpu_gap *gaps; /* the longest gaps, longest first */
	size_t nr_gaps;
};

/*
 * The streams and devices of t with their spans (the part of the breakdown
 * no run changes), kept by trace_cache.h (osc_trace_gpu_index).
 */
struct osc_gpu_index;
struct osc_gpu_index *osc_gpu_index_build(const struct osc_trace *t);
void osc_gpu_index_free(struct osc_gpu_index *x);

/* The breakdown of t's device events per q into out. Only reads t. */
void osc_gpu_breakdown(const struct osc_trace *t, const struct osc_gpu_query *q,
		       struct osc_gpu *out);
void osc_gpu_release(struct osc_gpu *g);

/* The columns of the breakdown table; *nr receives the count. */
const struct osc_column *osc_gpu_columns(size_t *nr);
/* Text of cell (row, col) into buf; "" for the idle breakdown of a device row. */
const char *osc_gpu_cell(const struct osc_trace *t, const struct osc_runs *runs,
			 const struct osc_gpu *g, size_t row, size_t col, char *buf, size_t size);

/*
 * The columns of the gap table, and its cells: the next kernel's name in
 * names' style (NULL: as the trace has it).
 */
const struct osc_column *osc_gpu_gap_columns(size_t *nr);
const char *osc_gpu_gap_cell(const struct osc_trace *t, const struct osc_names *names,
			     const struct osc_runs *runs, const struct osc_gpu *g, size_t row,
			     size_t col, char *buf, size_t size);

/* ---- kernel launch statistics ---- */

/*
 * One row per kernel name (per_op: per launching op, as
 * osc_trace_launchers links them, TraceLens's leaf op; "<unattributed>",
 * name OSC_STR_NONE, for kernels of no known op), over the kernels of the selected runs (each in
 * its own run, runs.h): count and total; the short ones (shorter than the
 * threshold: many short kernels mean a CPU-bound launch loop, HTA's short
 * kernels); the distribution of the launch delay (kernel start - start of
 * the runtime call that launched it), of that call's duration and of the
 * queue time (correlate.h), over the kernels with a launch.
 */
struct osc_launch_row {
	osc_str name;
	uint64_t count, nr_short, nr_launched;
	int64_t total, short_total;  /* ns */
	double delay[3], call[3], queue[3]; /* p50, p90, p99, ns (launched kernels) */
};

struct osc_launches {
	struct osc_launch_row *rows; /* by total (short_only: short_total), descending; ties by name */
	size_t nr;
	uint64_t count, nr_short;    /* over every row */
	int64_t total, short_total;
};

struct osc_launch_query {
	const struct osc_runs *runs;
	const struct osc_runsel *sel; /* NULL: every run */
	int64_t short_ns;             /* shorter kernels are short */
	bool per_op;                  /* a row per launching op, not per kernel name */
	bool short_only;              /* only rows with short kernels, by their short time */
	/* per kernel: a row per name shown in names' style (osc_names_key);
	   NULL: per name in the trace */
	const struct osc_names *names;
};

/*
 * The launch statistics of t's kernels in q's runs. The totals (count,
 * nr_short, total, short_total) are over every kernel, short_only or not.
 */
void osc_gpu_launches(const struct osc_trace *t, const struct osc_launch_query *q,
		      struct osc_launches *out);
void osc_launches_release(struct osc_launches *l);

/*
 * The columns of the launch table (per_op: its first is "op", else
 * "kernel"), and its cells: kernel names in names' style (NULL: as the
 * trace has them), as the kernel level shows them.
 */
const struct osc_column *osc_launch_columns(bool per_op, size_t *nr);
const char *osc_launch_cell(const struct osc_trace *t, const struct osc_names *names,
			    const struct osc_launches *l, size_t row, size_t col, char *buf,
			    size_t size);

#endif
