/*
 * cli_line.h - the opscope command line that prints the same CSV as a view's
 * export, shown on the status line after x (each view with a CLI equivalent
 * builds its own from these pieces).
 */
#ifndef OPSCOPE_TUI_CLI_LINE_H
#define OPSCOPE_TUI_CLI_LINE_H

#include "opscope/analysis/aggregate.h"
#include "view.h"

/* Append s to line (a new string; line is freed), single-quoted for the shell when needed. */
char *osc_cli_line_arg(char *line, const char *s);

/* Append --format and f's name (x's format: t->export_as). */
char *osc_cli_line_format(char *line, enum osc_export_format f);

/* Append --run-range / --whole-trace and --runs as the TUI picked the runs. */
char *osc_cli_line_runs(struct osc_tui *t, char *line);

/*
 * "opscope COMMAND [TRACE] [OTHER] --by LEVEL" and the options that name
 * kernels, pick the runs and filter as the TUI does (a new string). TRACE is
 * left out for the bundled sample, which the commands take without one;
 * other: a second trace (diff), or NULL.
 */
char *osc_cli_line_start(struct osc_tui *t, const char *command, const char *other,
			 enum osc_level level);

/*
 * "opscope tree [TRACE] ... --format csv" with the TUI's runs, filter and
 * kernel names, --calls-of the op named calls_of exactly (NULL: the whole
 * tree), and a note that its CSV has every node and other columns than the
 * tree view's export (a new string).
 */
char *osc_cli_line_tree(struct osc_tui *t, const char *calls_of);

/*
 * Append --sort and --asc for sorting by col (none when default_col and
 * descending: the command's default), --top n (0: none) and --format format.
 * cli_descends: the command sorts col descending unless --asc; else only
 * ascending, and a note after the line says so when the view descends.
 */
char *osc_cli_line_order(char *line, const struct osc_column *col, bool default_col,
			 bool cli_descends, bool descending, size_t topn,
			 enum osc_export_format format, const char *command);

#endif
