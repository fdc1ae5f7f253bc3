/*
 * cmd_tree.h - what `opscope tree` and `opscope kernels` share: their
 * options and the analysis they run (instance tree, correlation, merged tree).
 */
#ifndef OPSCOPE_CLI_CMD_TREE_H
#define OPSCOPE_CLI_CMD_TREE_H

#include <stdbool.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/export/export.h"
#include "opscope/model/filter.h"
#include "opscope/model/runs.h"

/* Which command parses: the option table lists the modes accepting each option. */
enum { OSC_TREE_MODE_TREE = 1 << 0, OSC_TREE_MODE_KERNELS = 1 << 1, OSC_TREE_MODE_FLAME = 1 << 2 };

struct osc_cli_tree {
	const char *path;          /* NULL: the bundled sample */
	const char *runs;          /* --runs, NULL for the default */
	const char *run_range;     /* --run-range RE[/N[:COUNT]]: runs from named ranges */
	bool whole;                /* --whole-trace: one run, run markers ignored */
	struct osc_filter filter;  /* --filter / --regex */
	struct osc_filter calls_of; /* --calls-of: the ops whose calls root the tree, or empty */
	long min_depth, max_depth; /* inclusive; max_depth < 0: no bound */
	enum osc_export_format format; /* --format; else -o FILE's extension's; else table */
	bool format_given;         /* --format */
	const char *host_cat;      /* --host-cat: launch (runtime) categories, NULL: kind */
	const char *device_cat;    /* --device-cat */
	const char *monitor_cat;   /* --ops (--monitor-cat): the categories that are ops */
	enum osc_name_style names; /* --no-demangle, --short-names; default demangled */
	const char *demangler;     /* --demangler CMD, NULL: libiberty */
	bool kernel_names;         /* the output shows kernel names: kernels, tree CSV/JSON */
	const char *output;        /* -o FILE */
	uint64_t max_input;        /* --max-input, 0: the default */
	unsigned export_flags;     /* OSC_EXPORT_CSV_SAFE (--csv-safe), OSC_WRITE_REPLACE
				      (--force) */
	bool trace_column;         /* --trace-column: a last column with the trace's path */
	bool modules;              /* --modules (tree): the nn.Module hierarchy instead */
	bool device_value;         /* --value device (flame): device time, else host self time */
	bool kernel_frames;        /* --kernels (flame): device event names as leaf frames */
	bool python;               /* --python (flame): python_function events are ops too */
	bool legacy;               /* --legacy-columns: profile_parser_main's titles, in ms */
	bool help;
};

/* Everything the analysis holds, released in one place. */
struct osc_cli_tree_data {
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_catsel host, launch, device;
	struct osc_calltree tree;
	struct osc_correlation corr;
	struct osc_mtree m;
	struct osc_names names;    /* kernel names as o asks */
	char *runs_text;
	char *runs_json;           /* the JSON meta's runs (osc_cli_runs_json) */
	char cats_text[512]; /* "ops: ..., launches: ..., device: ..." */
};

/* Parse argv for mode (OSC_TREE_MODE_*) into o (set up here). */
enum osc_status osc_cli_tree_parse(struct osc_cli_tree *o, int argc, char **argv, unsigned mode,
				   struct osc_error *err);
void osc_cli_tree_release(struct osc_cli_tree *o);
/* Print the options of mode, as the help shows them. */
void osc_cli_tree_print_options(unsigned mode);

/* Load the trace and build the trees and correlation (d is set up here). */
enum osc_status osc_cli_tree_load(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				  struct osc_error *err);
void osc_cli_tree_data_release(struct osc_cli_tree_data *d);

/* What a command does with the loaded trees. */
typedef enum osc_status (*osc_cli_tree_fn)(const struct osc_cli_tree *o,
					   struct osc_cli_tree_data *d, struct osc_error *err);

/*
 * The whole of `opscope tree` / `opscope kernels`: parse argv for mode, print
 * help or load the trace and call run; returns the exit status.
 */
int osc_cli_tree_main(int argc, char **argv, unsigned mode, void (*help)(void),
		      osc_cli_tree_fn run);

/*
 * The meta of tree and kernels: trace, format, runs, categories, filter,
 * rows, and calls_of when --calls-of is given (the whole tree's meta stays
 * as it was).
 */
struct osc_cli_tree_meta {
	const char *keys[7], *values[7], *json[7];
	char *filter_text, *calls_text, *rows_text, *rows_json;
	struct osc_export_meta meta;
};

/* Fill m for o and d; rows_text and rows_json (osc_cli_rows_json) become m's. */
void osc_cli_tree_meta_init(struct osc_cli_tree_meta *m, const struct osc_cli_tree *o,
			    const struct osc_cli_tree_data *d, char *rows_text, char *rows_json);
void osc_cli_tree_meta_release(struct osc_cli_tree_meta *m);

/* Write the table t as o asks (-o, --format); meta for text and JSON. */
enum osc_status osc_cli_tree_write(const struct osc_cli_tree *o, const struct osc_table *t,
				   const struct osc_export_meta *meta, struct osc_error *err);

#endif
