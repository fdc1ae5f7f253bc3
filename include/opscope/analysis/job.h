/*
 * job.h - a distributed job: one trace (or summary file) per rank, each
 * reduced to its summary (summary.h), ordered by rank.
 *
 * Inputs are files and directories; a directory stands for its trace and
 * summary files (names ending in .json, .json.gz, .json.zst, .sqlite,
 * .sqlite3, .nsys-rep.sqlite or .csv; hidden files and others skipped), in
 * natural order (rank2 before rank10). Each file is loaded, its runs found
 * and its summary built, then the trace is freed: only summaries stay.
 * Files load concurrently, one per thread, as far as memory allows: a file
 * is started only while the estimated memory of the loads in flight stays
 * within half the available memory (estimates per byte of file: 0.5 for
 * plain JSON, 24 for gzip or zstd, 4 for SQLite, 1 for summary files; one
 * load always runs).
 *
 * Ranks: a trace's distributedInfo, else its file name (rank.h), else its
 * place among the inputs (0 for the first). Two inputs of the same rank are
 * an error naming both.
 */
#ifndef OPSCOPE_JOB_H
#define OPSCOPE_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/category.h"
#include "opscope/analysis/demangle.h"
#include "opscope/base/status.h"
#include "opscope/model/runs.h"
#include "opscope/model/summary.h"
#include "opscope/model/trace.h"

struct osc_job {
	struct osc_summary *ranks; /* by rank */
	size_t nr;
};

/* One input done, for progress lines. */
struct osc_job_progress {
	size_t done, nr;                 /* inputs done so far (this one included), in all */
	const char *path;                /* this input */
	const struct osc_summary *rank;  /* its summary (its rank is not final yet) */
	const struct osc_trace *trace;   /* the loaded trace (warnings), NULL for a summary file */
	double seconds;                  /* load and summary of this input */
};

struct osc_job_opts {
	uint64_t max_input;              /* osc_load_opts.max_input */
	struct osc_runs_opts runs;       /* how runs are found in each trace */
	const char *ops;                 /* osc_trace_select_ops's categories, NULL: as loaded */
	const char *keep_runs;           /* a runs.h spec of each trace's runs to keep in its
					    summary (osc_summary_build), NULL: every run */
	const struct osc_categories *categories; /* the user's category rules, or NULL */
	enum osc_name_style names;       /* how the device levels' rows name kernels (the
					    default: demangled); a summary file's rows too,
					    from the names it recorded (summary_names.h) */
	const char *demangler;           /* osc_names_build's cmd, NULL: libiberty */
	unsigned skip_levels;            /* levels the summaries of traces leave out
					    (osc_summary_build's skip), 0: none */
	/* Called as each input is done, one call at a time, from a loading thread. */
	void (*progress)(const struct osc_job_progress *p, void *userdata);
	void *userdata;
	volatile int *cancel;            /* osc_load_opts.cancel */
	uint64_t memory;                 /* bytes the loads in flight may use; 0: half the
					    available memory */
};

/*
 * Expand inputs (files and directories, as given) into the files of the job,
 * in order: *paths (free each and the array) and *nr. OSC_IO for an
 * unreadable directory; OSC_EMPTY (subject: the directory) for a directory
 * without a trace or summary file; OSC_USAGE for a file given twice.
 */
enum osc_status osc_job_expand(const char *const *inputs, size_t n, char ***paths, size_t *nr,
			       struct osc_error *err);

/*
 * Load the files paths[0 .. n) into out (set up here; osc_job_release frees
 * it). On error (the first one, naming its file; the other loads are
 * cancelled) out is empty.
 */
enum osc_status osc_job_load(const char *const *paths, size_t n, const struct osc_job_opts *o,
			     struct osc_job *out, struct osc_error *err);
void osc_job_release(struct osc_job *j);

/*
 * Keep the ranks of j that list names (--ranks): rank numbers and ranges,
 * comma-separated ("0,3,8-15"). OSC_USAGE (subject "--ranks") for a bad
 * list, OSC_RANGE for a rank the job does not have; j is unchanged then.
 */
enum osc_status osc_job_keep_ranks(struct osc_job *j, const char *list, struct osc_error *err);

/*
 * Rank order of summaries s[0 .. n): sources as above, then sorted by rank.
 * OSC_USAGE naming both files when two have the same rank.
 */
enum osc_status osc_job_order(struct osc_summary *s, size_t n, struct osc_error *err);

#endif
