/* cli_line.c - the opscope command lines equivalent to views' exports (cli_line.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/model/filter.h"
#include "cli_line.h"

char *osc_cli_line_arg(char *line, const char *s)
{
	bool plain = *s != '\0';
	char *q, *out;
	size_t n = 0;

	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,+=@%",
			    *p))
			plain = false;
	if (plain)
		return out = osc_xasprintf("%s %s", line, s), free(line), out;
	q = osc_xmalloc(strlen(s) * 4 + 3);
	q[n++] = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(q + n, "'\\''", 4);
			n += 4;
		} else {
			q[n++] = *p;
		}
	}
	q[n++] = '\'';
	q[n] = '\0';
	out = osc_xasprintf("%s %s", line, q);
	free(q);
	free(line);
	return out;
}

/* The options naming kernels as the TUI shows them (device levels only). */
static char *names(struct osc_tui *t, char *line, enum osc_level level)
{
	enum osc_name_style style = t->names.style;

	if (!osc_level_is_device(level))
		return line; /* op names are never demangled */
	if (style == OSC_NAMES_MANGLED)
		return osc_cli_line_arg(line, "--no-demangle");
	if (style == OSC_NAMES_SHORT)
		line = osc_cli_line_arg(line, "--short-names");
	if (t->args->demangler) {
		line = osc_cli_line_arg(line, "--demangler");
		line = osc_cli_line_arg(line, t->args->demangler);
	}
	return line;
}

char *osc_cli_line_runs(struct osc_tui *t, char *line)
{
	/* The runs as detected: a failed --run-range fell back to the markers. */
	if (t->runs.source == OSC_RUNS_NVTX && t->args->run_range) {
		line = osc_cli_line_arg(line, "--run-range");
		line = osc_cli_line_arg(line, t->args->run_range);
	}
	if (t->args->whole && t->runs.source == OSC_RUNS_WHOLE)
		line = osc_cli_line_arg(line, "--whole-trace");
	if (strcmp(t->sel.spec, "default")) {
		line = osc_cli_line_arg(line, "--runs");
		line = osc_cli_line_arg(line, t->sel.spec);
	}
	return line;
}

/* --run-range / --whole-trace, --runs and the filters, as the TUI uses them. */
static char *selection(struct osc_tui *t, char *line)
{
	line = osc_cli_line_runs(t, line);
	for (size_t i = 0; i < t->filter.nr_patterns; i++) {
		line = osc_cli_line_arg(line, "--filter");
		line = osc_cli_line_arg(line, t->filter.patterns[i]);
	}
	if (t->filter.re_text) {
		line = osc_cli_line_arg(line, "--regex");
		line = osc_cli_line_arg(line, t->filter.re_text);
	}
	if (t->args->ops) {
		line = osc_cli_line_arg(line, "--ops");
		line = osc_cli_line_arg(line, t->args->ops);
	}
	return line;
}

char *osc_cli_line_format(char *line, enum osc_export_format f)
{
	return osc_cli_line_arg(osc_cli_line_arg(line, "--format"), osc_export_format_name(f));
}

char *osc_cli_line_tree(struct osc_tui *t, const char *calls_of)
{
	char *line = osc_xstrdup("opscope tree"), *out;

	if (t->args->path)
		line = osc_cli_line_arg(line, t->args->path);
	line = selection(t, names(t, line, OSC_LEVEL_KERNEL));
	if (calls_of) {
		char *pattern = osc_pattern_exact(calls_of);

		line = osc_cli_line_arg(osc_cli_line_arg(line, "--calls-of"), pattern);
		free(pattern);
	}
	line = osc_cli_line_format(line, t->export_as);
	out = osc_xasprintf("%s (every node, profile_parser_main's columns)", line);
	free(line);
	return out;
}

char *osc_cli_line_start(struct osc_tui *t, const char *command, const char *other,
			 enum osc_level level)
{
	char *line = osc_xasprintf("opscope %s", command);

	if (t->args->path)
		line = osc_cli_line_arg(line, t->args->path);
	if (other)
		line = osc_cli_line_arg(line, other);
	line = osc_cli_line_arg(line, "--by");
	line = osc_cli_line_arg(line, osc_level_name(level));
	return selection(t, names(t, line, level));
}

char *osc_cli_line_order(char *line, const struct osc_column *col, bool default_col,
			 bool cli_descends, bool descending, size_t topn,
			 enum osc_export_format format, const char *command)
{
	char num[32], *out;

	if (!default_col || !descending) {
		line = osc_cli_line_arg(line, "--sort");
		line = osc_cli_line_arg(line, col->title);
		if (cli_descends && !descending)
			line = osc_cli_line_arg(line, "--asc");
	}
	if (topn) {
		snprintf(num, sizeof(num), "%zu", topn);
		line = osc_cli_line_arg(line, "--top");
		line = osc_cli_line_arg(line, num);
	}
	line = osc_cli_line_format(line, format);
	if (cli_descends || !descending)
		return line;
	out = osc_xasprintf("%s (%s sorts %s ascending only)", line, command, col->title);
	free(line);
	return out;
}
