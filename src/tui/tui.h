/*
 * tui.h - entry point of the interactive explorer (the only curses front end).
 *
 * The CLI parses the options shared with `opscope report` and hands them over;
 * the TUI loads the trace itself (with a progress bar) and runs until quit.
 */
#ifndef OPSCOPE_TUI_H
#define OPSCOPE_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/analysis/diff.h"

struct osc_job;

struct osc_categories;

struct osc_tui_args {
	const char *path;           /* trace path ("-" for stdin), or NULL for the bundled sample */
	const void *sample_data;    /* bundled sample (gzip), used when path is NULL */
	size_t sample_size;
	const char *sample_name;
	const char *runs;           /* --runs spec, NULL for the default */
	const char *run_range;      /* --run-range RE[/N[:COUNT]]: runs from named ranges */
	bool whole;                 /* --whole-trace: one run, run markers ignored */
	enum osc_name_style names;  /* initial kernel name style (--no-demangle, --short-names) */
	const char *demangler;      /* --demangler CMD, NULL: libiberty */
	const char *const *filters; /* --filter patterns */
	size_t nr_filters;
	const char *regex;          /* --regex, or NULL */
	const char *ops;            /* --ops CATS: the categories that are ops, NULL: default */
	uint64_t max_input;         /* --max-input (osc_load_opts.max_input), 0: default */
	const struct osc_categories *categories; /* --categories rules, or NULL */
	double peak_tflops, peak_tbs; /* --peak-tflops, --peak-tbs (roofline), 0: the table's */
	enum osc_level level;       /* initial level (--by) */
	const char *script;         /* --script FILE: scripted keys for tests, or NULL */
	const char *other;          /* a second trace: open the compare view against it */
	const char *other_runs;     /* --other-runs spec for it, NULL: as runs */
	enum osc_match match;       /* --match of the compare view */
	bool changed;               /* --changed: it shows only the rows that changed ... */
	double min_change;          /* ... by --min-change percent or more */
	enum osc_stat sort;         /* initial sort of the first table, OSC_STAT_NR: its default */
	bool no_color;              /* no colours (a configuration's color = off, as NO_COLOR) */
	bool no_mouse;              /* ignore the mouse (mouse = off): the terminal keeps it */
	/*
	 * A distributed job (job.h, loaded by the caller) instead of a trace:
	 * the explorer opens on its ranks view, and a rank's own explorer, or a
	 * compare of two ranks, runs as a child opscope on the ranks' traces.
	 */
	const struct osc_job *job;
	const char *const *job_inputs; /* the job's inputs as given, for the command lines */
	size_t nr_job_inputs;
	double straggler;           /* --straggler K of the rank table, 0: the default */
	const char *ranks;          /* --ranks LIST the job was cut to, NULL: all */
};

/* The change in percent from which o shows a compare's row as changed, by default. */
#define OSC_TUI_CHANGED_PCT 10.0

/*
 * osc_tui_main's answer when this terminal cannot show the explorer (TERM
 * unset or dumb, no terminfo entry, no terminal to read keys from): it
 * printed why in one line on stderr, nothing else happened (the trace was not
 * read), and the caller prints the report instead.
 */
#define OSC_TUI_NO_TERMINAL (-1)

/*
 * Run the TUI; returns the process exit status (0, or 2 after an error it
 * printed), or OSC_TUI_NO_TERMINAL.
 */
int osc_tui_main(const struct osc_tui_args *args);

/*
 * Bind key (script syntax: "x", "<C-x>", "<F2>") to the action named action
 * ("move-down"; "none" unbinds the key), for a configuration's `bind` lines.
 * Returns 0, or -1 with one line in msg saying what is wrong.
 */
int osc_tui_bind(const char *key, const char *action, char *msg, size_t size);

/*
 * Write the roff key table of the man page (the lines between the
 * `.\" KEYS-BEGIN` and `.\" KEYS-END` markers of man/opscope.1), generated
 * from the TUI's action table, for `opscope --keys-man` and the
 * opscope-keys-man generator.
 */
void osc_tui_keys_man(FILE *out);

#endif
