/*
 * cli.h - what the opscope commands share: the command table type, option
 * parsing and help text from one option table, the options of the table
 * views (report and TUI), error lines, loading a trace (or the bundled
 * sample) and writing the output file atomically.
 *
 * Exit status: 0 on success, 1 when a compare with --changed found changed rows
 * (as diff(1): a script can gate on it), 2 for every error (bad option, bad
 * input, failed write), after exactly one "opscope: ..." line on stderr.
 */
#ifndef OPSCOPE_CLI_H
#define OPSCOPE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/category.h"
#include "opscope/analysis/demangle.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/histogram.h"
#include "opscope/export/export.h"
#include "opscope/model/filter.h"
#include "opscope/model/runs.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

#define OSC_EXIT_OK 0
#define OSC_EXIT_CHANGED 1 /* compare --changed: rows changed */
#define OSC_EXIT_ERROR 2

/* A command: `opscope NAME ...`; fn gets argv[0] == NAME and returns the exit status. */
struct osc_cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help; /* one line for `opscope --help` */
};

int osc_cmd_info(int argc, char **argv);
int osc_cmd_report(int argc, char **argv);
int osc_cmd_explore(int argc, char **argv);
int osc_cmd_diff(int argc, char **argv);
int osc_cmd_whatif(int argc, char **argv);
int osc_cmd_tree(int argc, char **argv);
int osc_cmd_kernels(int argc, char **argv);
int osc_cmd_gpu(int argc, char **argv);
int osc_cmd_flame(int argc, char **argv);
int osc_cmd_timeline(int argc, char **argv);
int osc_cmd_slice(int argc, char **argv);
int osc_cmd_summary(int argc, char **argv);

/* ---- option parsing ---- */

/* Modes: which commands accept an option (a bitmask in struct osc_cli_option). */
enum {
	OSC_MODE_REPORT = 1 << 0,  /* opscope report */
	OSC_MODE_TUI = 1 << 1,     /* the TUI (opscope TRACE on a terminal) */
	OSC_MODE_DEFAULT = 1 << 2, /* opscope with no command: report or TUI */
	OSC_MODE_INFO = 1 << 3,    /* opscope info */
	OSC_MODE_DIFF = 1 << 4,    /* opscope diff (and opscope BASE OTHER) */
	OSC_MODE_WHATIF = 1 << 5,  /* opscope whatif */
	OSC_MODE_GPU = 1 << 6,     /* opscope gpu */
};

struct osc_cli_option {
	int id;             /* what osc_cli_next returns for it (> 0) */
	const char *name;   /* long name without "--" */
	char short_name;    /* 0 if none */
	const char *arg;    /* argument name in the help ("SPEC"), NULL for a flag */
	const char *help;   /* one line */
	unsigned modes;     /* OSC_MODE_* that accept it */
};

/* osc_cli_next results besides option ids. */
enum { OSC_CLI_DONE = 0, OSC_CLI_ERROR = -1, OSC_CLI_OPERAND = -2 };

struct osc_cli_parser {
	int argc;
	char **argv;
	int next;            /* next argv index */
	const char *cluster; /* rest of a "-abc" cluster */
	bool operands_only;  /* after "--" */
	const char *arg;     /* argument of the option just returned, or the operand */
};

/* Start parsing argv[1..argc). */
void osc_cli_parser_init(struct osc_cli_parser *p, int argc, char **argv);

/*
 * Next option accepted in `mode`: its id (p->arg holds its argument), or
 * OSC_CLI_OPERAND (p->arg is the operand; "-" is an operand), OSC_CLI_DONE,
 * or OSC_CLI_ERROR with err filled (subject: the option as written; unknown
 * option, missing argument, argument given to a flag).
 * Accepts --name, --name=ARG, --name ARG, -x, -xARG, -x ARG and "--".
 */
int osc_cli_next(struct osc_cli_parser *p, const struct osc_cli_option *opts, unsigned mode,
		 struct osc_error *err);

/* Print the options accepted in mode, one per line, as the help shows them. */
void osc_cli_print_options(FILE *out, const struct osc_cli_option *opts, unsigned mode);

/*
 * Catch the OSC_EXTERNAL_SIGNALS that are not ignored: an interrupted write
 * leaves no temporary file (osc_outfile_abandon), then the signal kills as
 * it would have. Called once at start-up (the TUI adds its own handlers).
 */
void osc_cli_catch_signals(void);

/*
 * The JSON meta's "rows": {"shown": SHOWN, "total": TOTAL} plus more (raw
 * members with their leading comma, or ""). Free it.
 */
char *osc_cli_rows_json(size_t shown, size_t total, const char *more);

/*
 * The JSON meta's "runs": {"text": TEXT (the table's line), "source": how
 * the runs were found, "count": runs in the trace, "selected": [indexes]}.
 * Free it.
 */
char *osc_cli_runs_json(const struct osc_runsel *sel, const struct osc_runs *r,
			const char *text);

/* Print "opscope: " + the formatted error to stderr; returns OSC_EXIT_ERROR. */
int osc_cli_fail(const struct osc_error *err);

/* ---- the table views: report and TUI ---- */

/* Everything `opscope [report] [OPTIONS] [TRACE]` was asked for. */
struct osc_cli_view {
	const char *path;            /* NULL: the bundled sample */
	const char *other;           /* second trace: compare path (base) with it */
	const char **inputs;         /* every trace or directory given, in order (path first) */
	size_t nr_inputs, alloc_inputs;
	bool by_rank;                /* --by rank: the rank table of a job */
	bool split_rank;             /* --split rank: every rank's rows of a job */
	double straggler;            /* --straggler K: the straggler rule's k, 0: default */
	bool per_call;               /* --per-call (gpu --collectives, a job): a row per call */
	const char *ranks;           /* --ranks LIST: a job's ranks to keep, NULL: all */
	enum osc_level level;        /* --by */
	bool op_instance;            /* --by op-instance: one row per op instance (report) */
	const char *runs;            /* --runs, NULL for the default */
	const char *run_range;       /* --run-range RE[/N[:COUNT]], NULL: detect runs */
	bool whole_trace;            /* --whole-trace: one run, markers ignored */
	enum osc_name_style names;   /* --no-demangle, --short-names; default demangled */
	const char *demangler;       /* --demangler CMD, NULL: libiberty */
	const char **filters;        /* --filter patterns, in order */
	size_t nr_filters, alloc_filters;
	const char *regex;           /* --regex, NULL if none */
	struct osc_filter filter;    /* the patterns and regex, compiled */
	size_t top;                  /* --top, 0 = all */
	bool top_set;                /* --top given (else the format's default) */
	enum osc_stat sort;          /* --sort; OSC_STAT_NR: the level's default */
	const char *columns;         /* --columns LIST (report), NULL: the level's own */
	const char *ops;             /* --ops CATS: the categories that are ops, NULL: default */
	struct osc_categories categories; /* --categories FILE: the user's op category rules */
	size_t gaps;                 /* --gaps N (gpu): list the N longest idle gaps, 0: none */
	int64_t kernel_wait;         /* --kernel-wait NS (gpu): shorter gaps are kernel waits */
	bool launches;               /* --launches (gpu): the launch statistics instead */
	int64_t short_kernel;        /* --short NS (gpu --launches): shorter kernels are short */
	bool per_op;                 /* --per-op (gpu --launches): a row per launching op */
	bool short_only;             /* --short-only (gpu --launches): rows with short kernels */
	bool collectives;            /* --collectives (gpu): the collectives table */
	uint64_t max_input;          /* --max-input (osc_load_opts.max_input), 0: default */
	double peak_tflops, peak_tbs; /* --peak-tflops, --peak-tbs (roofline), 0: the table's */
	const char *sort_arg;        /* --sort as given (diff and whatif have their columns) */
	enum osc_match match;        /* --match (diff) */
	const char *other_runs;      /* --other-runs (diff), NULL: as --runs */
	bool changed;                /* --changed or --min-change (diff) */
	double min_change;           /* --min-change percent (diff) */
	double percent_limit;        /* --percent-limit percent (report; < 0: none) */
	const char *histogram;       /* --histogram NAME (report): that row's histogram */
	size_t bins;                 /* --bins N (report --histogram), 0: the default */
	enum osc_hist_scale scale;   /* --scale (report --histogram) */
	bool matrix;                 /* --matrix (report): the top rows' time per run */
	enum osc_measure measure;    /* --measure (report --matrix); OSC_MEASURE_NR: default */
	const char **speedups;       /* --speedup RULE (whatif), in order */
	size_t nr_speedups, alloc_speedups;
	const char *speedup_csv;     /* --speedup-csv FILE (whatif) */
	bool asc;                    /* --asc */
	enum osc_export_format format; /* --format; else -o FILE's extension's; else table */
	bool format_given;           /* --format */
	const char *output;          /* -o FILE, NULL for stdout */
	unsigned export_flags;       /* OSC_EXPORT_CSV_SAFE (--csv-safe), OSC_WRITE_REPLACE
					(--force) */
	const char *script;          /* --script FILE (TUI tests) */
	bool report_only;            /* an option only `report` uses was given */
	bool trace_column;           /* --trace-column: a last column with the trace's path */
	bool help;                   /* --help */
	bool version;                /* --version */
};

/* The options of the table views, for osc_cli_next and the help. */
extern const struct osc_cli_option osc_cli_view_options[];

/*
 * Parse argv[1..argc) for mode into v (v is set up here; release it with
 * osc_cli_view_release). Validates --by, --format, --sort, --top and
 * compiles --filter/--regex; --runs is checked once the trace is loaded.
 */
enum osc_status osc_cli_view_parse(struct osc_cli_view *v, int argc, char **argv,
				   unsigned mode, struct osc_error *err);
void osc_cli_view_release(struct osc_cli_view *v);

/* `opscope report` on a parsed view: load, aggregate, export. Exit status. */
int osc_report_run(struct osc_cli_view *v);

/*
 * Whether v is about a distributed job (job.h): several inputs that are no
 * compare, a directory, or a summary file.
 */
bool osc_cli_view_is_job(const struct osc_cli_view *v);

/* Whether v compares: two traces, or one trace's runs with --other-runs. */
bool osc_cli_view_is_compare(const struct osc_cli_view *v);

/* `opscope report` on a job: the rank table, a level across ranks, or split by rank. */
int osc_ranks_run(struct osc_cli_view *v);

/* `opscope gpu --collectives` on a job: the calls matched across the ranks (collective_skew.h). */
int osc_ranks_collectives_run(struct osc_cli_view *v);

/* `opscope info` on a job: one row per rank, and the ranks against the world size. */
int osc_ranks_info_run(struct osc_cli_view *v);

/*
 * Load the job of v's inputs (v->inputs: files and directories) into job
 * (job.h) with v's loading options, a progress line per input on stderr;
 * keep_runs: the runs each summary keeps (osc_job_opts), NULL: every run;
 * skip_levels: the levels the summaries of traces leave out, for a table
 * that reads only some (osc_job_opts), 0: none.
 */
struct osc_job;
enum osc_status osc_cli_load_job(const struct osc_cli_view *v, const char *keep_runs,
				 unsigned skip_levels, struct osc_job *job,
				 struct osc_error *err);

/* Every level as a skip_levels mask, and every one but l. */
#define OSC_CLI_ALL_LEVELS ((1u << OSC_LEVEL_COUNT) - 1)
#define OSC_CLI_ALL_LEVELS_BUT(l) (OSC_CLI_ALL_LEVELS & ~(1u << (l)))

/* A command's work once its options are parsed; returns the exit status. */
typedef int (*osc_cli_view_fn)(struct osc_cli_view *v);

/*
 * The whole of a view command (report, diff, whatif): parse argv for mode,
 * then print help or run; returns the exit status.
 */
int osc_cli_view_main(int argc, char **argv, unsigned mode, void (*help)(void),
		      osc_cli_view_fn run);

/*
 * What report --histogram and --matrix start from: the report's aggregate
 * (sorted, --percent-limit applied, not cut to --top) and its texts.
 */
struct osc_report_base {
	const struct osc_trace *trace;
	const struct osc_runs *runs;
	const struct osc_runsel *sel;
	const struct osc_agg *agg;
	const struct osc_names *names;
	const char *runs_text, *runs_json, *filter_text, *sort_text;
};

/* report --histogram NAME: the bins of the rows named NAME (report_dist.c). */
enum osc_status osc_report_histogram(const struct osc_report_base *b,
				     const struct osc_cli_view *v, struct osc_error *err);
/* report --matrix: the top rows' time per run (report_dist.c). */
enum osc_status osc_report_matrix(const struct osc_report_base *b, const struct osc_cli_view *v,
				  struct osc_error *err);

/* `opscope report --by op-instance`: Neural Engine's per-op table. Exit status. */
int osc_optable_run(struct osc_cli_view *v);

/*
 * `opscope diff` on a parsed view (v->path base, v->other other). Exit status:
 * OSC_EXIT_CHANGED with --changed when any row changed (before --top).
 */
int osc_diff_run(struct osc_cli_view *v);

/*
 * ---- commands over one trace that are no table view (slice, timeline) ----
 * Their shared options: ids from OSC_TOPT_RUNS on (a command's own ids
 * start after OSC_TOPT_END), table rows (OSC_CLI_TRACE_OPTIONS, after the
 * command's own), and their parsing.
 */
enum {
	OSC_TOPT_RUNS = 1,
	OSC_TOPT_RUN_RANGE,
	OSC_TOPT_WHOLE_TRACE,
	OSC_TOPT_OUTPUT,
	OSC_TOPT_FORCE,
	OSC_TOPT_MAX_INPUT,
	OSC_TOPT_THREADS,
	OSC_TOPT_NO_CONFIG,
	OSC_TOPT_HELP,
	OSC_TOPT_END,
};

/* The rows of the shared options for mode (runs_help: what --runs picks). */
#define OSC_CLI_TRACE_RUN_OPTIONS(mode, runs_help)                                          \
	{ OSC_TOPT_RUNS, "runs", 'r', "SPEC", runs_help, mode },                              \
	{ OSC_TOPT_RUN_RANGE, "run-range", 0, "RE[/N]",                                       \
	  "runs are the NVTX ranges named by RE (the Nth only with /N)", mode },              \
	{ OSC_TOPT_WHOLE_TRACE, "whole-trace", 'W', NULL,                                     \
	  "one run spanning the whole trace (run markers ignored)", mode }
#define OSC_CLI_TRACE_OUTPUT_OPTIONS(mode, output_help)                                     \
	{ OSC_TOPT_OUTPUT, "output", 'o', "FILE", output_help, mode },                        \
	{ OSC_TOPT_FORCE, "force", 0, NULL,                                                   \
	  "replace an existing output file (keeping its mode, through a symlink)", mode },    \
	{ OSC_TOPT_MAX_INPUT, "max-input", 0, "SIZE",                                         \
	  "gz, zst or stdin may expand to SIZE at most, e.g. 64G (0: no limit; default 4x RAM)", \
	  mode },                                                                             \
	{ OSC_TOPT_THREADS, "threads", 'j', "N",                                              \
	  "use at most N threads (0, the default: every CPU this process may use)", mode },   \
	{ OSC_TOPT_NO_CONFIG, "no-config", 0, NULL,                                           \
	  "ignore the configuration file (~/.config/opscope/config)", mode },                 \
	{ OSC_TOPT_HELP, "help", 'h', NULL, "show this help and exit", mode }

/* What the shared options and the operand set. */
struct osc_cli_trace_args {
	struct osc_cli_view v; /* path, run_range, whole_trace, max_input: osc_cli_open's */
	const char *runs;
	const char *output;
	unsigned flags;        /* OSC_WRITE_REPLACE (--force) */
	bool help;
};

/*
 * Take id (from osc_cli_next: a shared option, or the operand: one trace)
 * into a. Returns true when id was one of those, with *st the outcome
 * (OSC_USAGE for a second trace), false for a command's own option.
 */
bool osc_cli_trace_option(int id, const char *arg, struct osc_cli_trace_args *a,
			  enum osc_status *st, struct osc_error *err);

/* ---- loading and output ---- */

/*
 * Load path into t, or the bundled sample when path is NULL (with a note on
 * stderr), expanding gzip or standard input to max_input bytes at most
 * (osc_load_opts.max_input). Prints the trace's load warnings on stderr;
 * an out-of-memory line names the trace.
 */
enum osc_status osc_cli_load(const char *path, uint64_t max_input, struct osc_trace *t,
			     struct osc_error *err);

/* Print t's load warnings on stderr, one line each, naming the input name. */
void osc_cli_print_warnings(const struct osc_trace *t, const char *name);

/*
 * --max-input SIZE: bytes with an optional K, M, G or T (powers of 1024); 0
 * means no limit (UINT64_MAX). Errors: OSC_USAGE with subject "--max-input".
 */
enum osc_status osc_cli_parse_size(const char *s, uint64_t *out, struct osc_error *err);

/* -j N, OPSCOPE_THREADS: cap the core's threads (threads.h); OSC_USAGE naming subject. */
enum osc_status osc_cli_parse_threads(const char *s, const char *subject, struct osc_error *err);

/*
 * OSC_IO when the args of t were read from a file that changed on disk since
 * the load (osc_trace_args_lost): what was made of them is not the trace's.
 */
enum osc_status osc_cli_check_args(const struct osc_trace *t, struct osc_error *err);

/* --ops: make the events of the categories ops (osc_trace_select_ops); ops NULL: as loaded. */
enum osc_status osc_cli_select_ops(struct osc_trace *t, const char *ops, struct osc_error *err);

/*
 * Find the runs of t as v asks (--run-range, --whole-trace) and parse the
 * selection runs (--runs) into sel.
 */
enum osc_status osc_cli_select_runs(const struct osc_cli_view *v, const struct osc_trace *t,
				    const char *runs, struct osc_runs *r, struct osc_runsel *sel,
				    struct osc_error *err);

/*
 * Load path (osc_cli_load), make v->ops ops, and select its runs
 * (osc_cli_select_runs): what every command over one trace starts with.
 */
enum osc_status osc_cli_open(const struct osc_cli_view *v, const char *path, const char *runs,
			     struct osc_trace *t, struct osc_runs *r, struct osc_runsel *sel,
			     struct osc_error *err);

/* The bundled sample (samples/meson.build generates it). */
extern const unsigned char osc_sample_data[];
extern const size_t osc_sample_size;
extern const char osc_sample_name[];

/*
 * Kernel names of t shown in style (--no-demangle, --short-names), demangled
 * by the --demangler command (NULL: libiberty), into n (set up with
 * osc_names_init). Nothing is demangled when the names are mangled or not
 * shown at all (shown false: e.g. an op level). OSC_IO when the command fails.
 */
enum osc_status osc_cli_names(struct osc_names *n, const struct osc_trace *t,
			      enum osc_name_style style, const char *demangler, bool shown,
			      struct osc_error *err);

/*
 * The first of --sort, --asc, --columns and --percent-limit given, or NULL:
 * what a table of fixed order and columns refuses (--by op-instance,
 * --histogram, a job's tables, gather_op_profile's document).
 */
const char *osc_cli_fixed_table_option(const struct osc_cli_view *v);

/* Name of the input for messages and meta: the path or the sample's name. */
const char *osc_cli_input_name(const char *path);

/* Table width: $COLUMNS if set, else the terminal's when to_tty, else 120. */
int osc_cli_width(bool to_tty);

/*
 * Write table t in format f with meta m and flags (OSC_EXPORT_*) to path
 * ("-" or NULL: stdout) atomically (osc_export_file); a text table fits the
 * terminal's width when path is stdout.
 */
enum osc_status osc_cli_write_table(const char *path, enum osc_export_format f,
				    const struct osc_table *t, const struct osc_export_meta *m,
				    unsigned flags, struct osc_error *err);

/*
 * osc_cli_write_table with the view's output, format and flags, and with
 * --trace-column the trace's path (as given) as a last column "trace".
 */
enum osc_status osc_cli_write_view(const struct osc_cli_view *v, const struct osc_table *t,
				   const struct osc_export_meta *m, struct osc_error *err);

#endif
