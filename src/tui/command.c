/* command.c - global actions, ':' commands and the CSV export of a view. */
#include <curses.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "opscope/export/outfile.h"
#include "command.h"
#include "draw.h"
#include "keymap.h"
#include "prompt.h"

/* ---- filter, find, top N ---- */

static unsigned filter_done(struct osc_tui *t, const char *spec)
{
	struct osc_filter f;
	struct osc_error err;

	if (!spec)
		return OSC_R_REDRAW;
	/* A new filter replaces the whole old one (patterns and regex). */
	osc_filter_init(&f);
	osc_error_clear(&err);
	if (osc_filter_set_spec(&f, spec, &err) != OSC_OK) {
		osc_filter_release(&f);
		osc_tui_message(t, OSC_MSG_ERROR, "bad filter '%s': %s (filter kept)", spec,
				err.message);
		return OSC_R_REDRAW;
	}
	osc_filter_release(&t->filter);
	t->filter = f;
	free(t->filter_spec);
	t->filter_spec = osc_xstrdup(spec);
	t->gen = osc_tui_state(t, &t->sel);
	return OSC_R_REBUILD | OSC_R_REDRAW;
}

bool osc_command_filter_typed(const struct osc_tui *t, struct osc_filter *out)
{
	struct osc_error err;

	if (!t->prompt.active || t->prompt.done != filter_done || t->prompt.fresh)
		return false;
	osc_filter_init(out);
	osc_error_clear(&err);
	if (osc_filter_set_spec(out, t->prompt.buf, &err) == OSC_OK)
		return true;
	osc_filter_release(out);
	return false;
}

static unsigned find_done(struct osc_tui *t, const char *text)
{
	if (!text || !*text)
		return OSC_R_REDRAW;
	free(t->find);
	t->find = osc_xstrdup(text);
	if (!osc_view_find(t, osc_tui_top(t), 1))
		osc_tui_message(t, OSC_MSG_ERROR, "no row matches '%s'", text);
	return OSC_R_REDRAW;
}

static unsigned top_done(struct osc_tui *t, const char *text)
{
	struct osc_view *v = osc_tui_top(t);
	char *end;
	unsigned long long n;

	if (!text)
		return OSC_R_REDRAW;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (!*text || *end || *text == '-' || errno) {
		osc_tui_message(t, OSC_MSG_ERROR, "not a row count: '%s'", text);
		return OSC_R_REDRAW;
	}
	v->topn = (size_t)n;
	osc_view_refresh(t, v);
	return OSC_R_REDRAW;
}

static unsigned sort_by(struct osc_tui *t, const char *col, const char *dir)
{
	struct osc_view *v = osc_tui_top(t);

	if (!v->ops->sort) {
		osc_tui_message(t, OSC_MSG_ERROR, "this view has no sort order");
		return OSC_R_REDRAW;
	}
	size_t c = osc_columns_find(v->tab.cols, v->tab.nr_cols, col);

	if (c == v->tab.nr_cols) {
		osc_tui_message(t, OSC_MSG_ERROR, "no column '%s' in this view", col);
		return OSC_R_REDRAW;
	}
	v->sort_col = c;
	v->sort_desc = dir ? !strcmp(dir, "desc") : v->tab.cols[c].numeric;
	osc_view_resort(t, v);
	return OSC_R_REDRAW;
}

static unsigned set_level(struct osc_tui *t, const char *name)
{
	struct osc_error err;
	enum osc_level level;
	char msg[512];

	if (osc_level_parse(name, &level, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s", msg);
		return OSC_R_REDRAW;
	}
	while (t->depth > 1)
		osc_view_pop(t);
	osc_view_pop(t);
	osc_view_push(t, &osc_view_table, &(struct osc_table_arg){ .level = level });
	return OSC_R_REDRAW;
}

/* ---- export ---- */

static enum osc_status folded_fn(FILE *out, const void *arg, struct osc_error *err)
{
	return osc_flame_write(out, arg, err);
}

/* The view's folded stacks to path (a view with a folded op, path ending in .folded). */
static unsigned folded_write(struct osc_tui *t, struct osc_view *v, const char *path,
			     bool replace)
{
	struct osc_flame f;
	struct osc_error err;
	char msg[1024];

	v->ops->folded(t, v, &f);
	if (osc_write_file(path, replace ? OSC_WRITE_REPLACE : 0, folded_fn, &f, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s", msg);
	} else {
		osc_tui_message(t, OSC_MSG_INFO, "wrote %s (%zu folded stacks of self us, as opscope flame)",
				path, f.nr);
	}
	osc_flame_release(&f);
	return OSC_R_REDRAW;
}

static bool is_folded_name(const char *path)
{
	size_t n = strlen(path);

	return n > 7 && !strcmp(path + n - 7, ".folded");
}

/*
 * Write the view's table, atomically (osc_export_file), in the format the
 * name's extension names (.tsv, .json, .md), else as CSV; or its folded
 * stacks to a name ending in .folded where it has them; replace: the user
 * said y to replacing the existing file.
 */
static unsigned export_write(struct osc_tui *t, const char *path, bool replace)
{
	struct osc_view *v = osc_tui_top(t);
	struct osc_table tab;
	struct osc_error err;
	char msg[1024], *cmd = NULL;
	enum osc_export_format f = OSC_EXPORT_CSV;

	/* "updating...": the rows on screen are not the report's yet. */
	osc_view_settle(t, v);
	if (v->ops->folded && is_folded_name(path))
		return folded_write(t, v, path, replace);
	tab = v->tab;
	if (v->ops->export_table) { /* plain text for the rows drawn */
		v->ops->export_table(t, v, &tab);
		tab.nr_rows = v->tab.nr_rows;
	}
	osc_export_format_of_name(path, &f);
	if (osc_export_file(path, f, &tab, NULL, 0, replace ? OSC_WRITE_REPLACE : 0, &err) !=
	    OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s", msg);
		return OSC_R_REDRAW;
	}
	t->export_as = f; /* the command lines below name it */
	if (v->ops == &osc_view_table && osc_table_view_only(v)) {
		osc_tui_message(t, OSC_MSG_INFO, "wrote %s (%zu rows: %s; report has no equivalent)",
				path, v->tab.nr_rows, osc_table_view_only(v));
	} else if (v->ops->command && (cmd = v->ops->command(t, v))) {
		osc_tui_message(t, OSC_MSG_INFO, "wrote %s (%zu rows%s) %s %s", path,
				v->tab.nr_rows, t->export_as == OSC_EXPORT_JSON ? ", no meta" : "",
				t->export_as == OSC_EXPORT_JSON ? "~" : "=", cmd);
		free(cmd);
	} else {
		osc_tui_message(t, OSC_MSG_INFO, "wrote %s (%zu rows)", path, v->tab.nr_rows);
	}
	return OSC_R_REDRAW;
}

static unsigned overwrite_done(struct osc_tui *t, const char *answer)
{
	if (answer && !strcmp(answer, "y"))
		return export_write(t, t->prompt.pending, true);
	osc_tui_message(t, OSC_MSG_INFO, "not exported: '%s' kept", t->prompt.pending);
	return OSC_R_REDRAW;
}

static unsigned export_to(struct osc_tui *t, const char *answer)
{
	char label[4200], path[4096];

	if (!answer || !*answer) {
		osc_tui_message(t, OSC_MSG_INFO, "export cancelled");
		return OSC_R_REDRAW;
	}
	snprintf(path, sizeof(path), "%s", answer); /* answer may be the prompt's buffer */
	if (access(path, F_OK) == 0) {
		snprintf(label, sizeof(label), "'%s' exists: overwrite? (y/n) ", path);
		osc_prompt_open(t, label, NULL, true, overwrite_done, path);
		return OSC_R_REDRAW;
	}
	return export_write(t, path, false);
}

/*
 * opscope-<trace basename without extensions>-<view>.csv; a job's: its
 * directory's (or its one input's) basename, else "job".
 */
static char *default_export_name(struct osc_tui *t)
{
	struct osc_view *v = osc_tui_top(t);
	const struct osc_tui_args *a = t->args;
	char *path = osc_xstrdup(t->trace.path ? t->trace.path :
				 a->job && a->nr_job_inputs == 1 ? a->job_inputs[0] :
				 a->job ? "job" : "trace");
	size_t len = strlen(path);
	const char *base;
	char *stem, *dot, *name;

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	stem = osc_xstrdup(*base && strcmp(base, "-") ? base : "stdin");
	free(path);

	while ((dot = strrchr(stem, '.')) && dot != stem &&
	       (!strcmp(dot, ".gz") || !strcmp(dot, ".json")))
		*dot = '\0';
	name = osc_xasprintf("opscope-%s-%s.csv", stem, v->ops->export_name(t, v));
	free(stem);
	return name;
}

/* ---- commands ---- */

/* :compare FILE: the compare view of the trace against FILE, at the top view's level. */
static unsigned compare_with(struct osc_tui *t, const char *path)
{
	struct osc_diff_view_arg a = { path, NULL, osc_table_top_level(t), OSC_MATCH_NAME, false,
				       OSC_TUI_CHANGED_PCT };

	osc_view_push(t, &osc_view_diff, &a);
	return OSC_R_REDRAW;
}

static unsigned command_done(struct osc_tui *t, const char *line)
{
	return line && *line ? osc_command_run(t, line) : OSC_R_REDRAW;
}

static enum osc_status write_dump(FILE *out, const void *arg, struct osc_error *err)
{
	(void)arg;
	(void)err;
	osc_draw_dump(out);
	return OSC_OK;
}

/* :dump FILE (scripts): the screen's text, replacing FILE atomically. */
static unsigned dump_screen(struct osc_tui *t, const char *path)
{
	struct osc_error err;
	char msg[1024];

	if (osc_write_file(path, OSC_WRITE_REPLACE, write_dump, NULL, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s", msg);
		return OSC_R_REDRAW;
	}
	return OSC_R_NONE;
}

unsigned osc_command_run(struct osc_tui *t, const char *line)
{
	char name[32], *arg, *arg2;
	size_t n = strcspn(line, " \t");
	char rest[4096];

	snprintf(name, sizeof(name), "%.*s", (int)(n < 31 ? n : 31), line);
	line += n;
	line += strspn(line, " \t");
	snprintf(rest, sizeof(rest), "%s", line);
	arg = rest;
	if (!strcmp(name, "runs"))
		return osc_runs_select(t, *arg ? arg : NULL);
	if (!strcmp(name, "other-runs"))
		return osc_diff_view_runs(t, *arg ? arg : NULL);
	if (!strcmp(name, "filter"))
		return filter_done(t, arg);
	if (!strcmp(name, "find"))
		return find_done(t, arg);
	if (!strcmp(name, "top"))
		return top_done(t, arg);
	if (!strcmp(name, "level"))
		return set_level(t, arg);
	if (!strcmp(name, "export")) {
		char *def = NULL;
		unsigned r;

		if (!*arg)
			arg = def = default_export_name(t);
		r = export_to(t, arg);
		free(def);
		return r;
	}
	if (!strcmp(name, "dump") && *arg)
		return dump_screen(t, arg);
	if (!strcmp(name, "compare") && *arg)
		return compare_with(t, arg);
	if (!strcmp(name, "speedups") && *arg)
		return osc_whatif_view_load(t, arg);
	if (!strcmp(name, "warm") && t->script &&
	    (!strcmp(arg, "hold") || !strcmp(arg, "views") || !strcmp(arg, "go"))) {
		if (!strcmp(arg, "hold"))
			osc_tui_warm_hold(t);
		else if (!strcmp(arg, "views"))
			osc_tui_warm_views(t);
		else
			osc_tui_warm_go(t);
		return OSC_R_REDRAW;
	}
	if (!strcmp(name, "jobs") && t->script && !strcmp(arg, "hold")) {
		t->jobs_async = true;
		atomic_store(&t->jobs_held, true);
		return OSC_R_REDRAW;
	}
	if (!strcmp(name, "jobs") && t->script && !strcmp(arg, "apart")) {
		t->jobs_apart = true;
		return OSC_R_REDRAW;
	}
	if (!strcmp(name, "jobs") && t->script && !strcmp(arg, "go")) {
		for (size_t i = 0; i < t->depth; i++) /* the held tables come in */
			osc_view_settle(t, t->stack[i]);
		return OSC_R_REDRAW;
	}
	if (!strcmp(name, "ahead") && t->script) {
		osc_view_settle_ahead(t, osc_tui_top(t));
		osc_early_settle(t);
		return OSC_R_REDRAW;
	}
	if (!strcmp(name, "budget") && t->script && *arg) { /* of views opened from now on */
		t->kept_budget = (size_t)strtoull(arg, NULL, 10);
		return OSC_R_REDRAW;
	}
	if (!strcmp(name, "quit"))
		return OSC_R_QUIT;
	if (!strcmp(name, "sort") && *arg) {
		arg2 = arg + strcspn(arg, " \t");
		if (*arg2)
			*arg2++ = '\0';
		arg2 += strspn(arg2, " \t");
		return sort_by(t, arg, *arg2 ? arg2 : NULL);
	}
	if (!strcmp(name, "resize")) {
		int lines, cols;

		if (sscanf(arg, "%d %d", &lines, &cols) == 2 && lines > 2 && cols > 10) {
			resizeterm(lines, cols);
			return OSC_R_REDRAW;
		}
	}
	osc_tui_message(t, OSC_MSG_ERROR, "unknown command ':%s%s%s' (see ? for help)", name,
			*rest ? " " : "", rest);
	return OSC_R_REDRAW;
}

unsigned osc_command_action(struct osc_tui *t, enum osc_action a)
{
	struct osc_view *v = osc_tui_top(t);
	char buf[4096], *name;

	switch (a) {
	case OSC_ACT_BACK:
		if (t->depth == 1)
			return OSC_R_QUIT;
		osc_view_pop(t);
		return OSC_R_REDRAW;
	case OSC_ACT_ESCAPE:
		if (t->depth == 1) {
			osc_tui_message(t, OSC_MSG_INFO, "nothing to go back to (q quits)");
			return OSC_R_REDRAW;
		}
		osc_view_pop(t);
		return OSC_R_REDRAW;
	case OSC_ACT_QUIT:
		return OSC_R_QUIT;
	case OSC_ACT_HELP:
		if (v->ops != &osc_view_help)
			osc_view_push(t, &osc_view_help, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_MESSAGE:
		if (v->ops != &osc_view_message)
			osc_view_push(t, &osc_view_message, v);
		return OSC_R_REDRAW;
	case OSC_ACT_WARNINGS:
		if (v->ops != &osc_view_warnings)
			osc_view_push(t, &osc_view_warnings, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_VIEW_RUNS:
		if (v->ops != &osc_view_runs)
			osc_view_push(t, &osc_view_runs, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_VIEW_GPU:
		if (v->ops != &osc_view_gpu)
			osc_view_push(t, &osc_view_gpu, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_TIMELINE:
		return osc_timeline_open(t);
	case OSC_ACT_TOGGLE_WARMUP:
		return osc_runs_toggle_warmup(t);
	case OSC_ACT_TOGGLE_DETAIL:
		t->pane_on = !t->pane_on;
		if (t->pane_on && !v->ops->detail)
			osc_tui_message(t, OSC_MSG_INFO, "this view has no detail pane");
		return OSC_R_REDRAW;
	case OSC_ACT_PANE_DOWN:
	case OSC_ACT_PANE_UP: {
		struct osc_view *p = &t->pane;
		size_t step = p->height > 2 ? p->height / 2 : 1;

		if (!t->pane_on || !p->ops) {
			osc_tui_message(t, OSC_MSG_INFO, "no detail pane: d shows it");
			return OSC_R_REDRAW;
		}
		if (a == OSC_ACT_PANE_UP)
			p->top = p->top > step ? p->top - step : 0;
		else if (p->top + p->height < p->tab.nr_rows)
			p->top += step;
		p->cur = p->top; /* the pane draws from top; cur keeps it there */
		return OSC_R_REDRAW;
	}
	case OSC_ACT_FULL_NAME:
		if (!v->tab.nr_rows)
			return OSC_R_REDRAW;
		free(t->popup);
		t->popup = osc_xstrdup(v->tab.cell(v->tab.ctx, v->cur, v->ops->flex_col, buf,
						   sizeof(buf)));
		return OSC_R_REDRAW;
	case OSC_ACT_FILTER: /* the filter in force is offered: typing replaces it, Right edits it */
		osc_prompt_open(t, "filter (Conv*, re:REGEX, empty clears): ", t->filter_spec, false,
				filter_done, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_FIND:
	case OSC_ACT_FIND_NEXT:
	case OSC_ACT_FIND_PREV:
		osc_prompt_open(t, "find: ", NULL, false, find_done, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_TOP_N:
		osc_prompt_open(t, "show the first N rows (0 = all): ", NULL, false, top_done, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_EXPORT:
		name = default_export_name(t);
		osc_prompt_open(t, "export (csv, tsv, json, md by name) to: ", name, false, export_to,
				NULL);
		free(name);
		return OSC_R_REDRAW;
	case OSC_ACT_COMMAND:
		osc_prompt_open(t, ":", NULL, false, command_done, NULL);
		return OSC_R_REDRAW;
	case OSC_ACT_REFRESH:
		clearok(curscr, TRUE);
		return OSC_R_REDRAW;
	case OSC_ACT_NEXT_LEVEL:
		osc_tui_message(t, OSC_MSG_INFO, "levels belong to the op and kernel tables");
		return OSC_R_REDRAW;
	case OSC_ACT_TREE:
		return osc_tree_open(t);
	case OSC_ACT_NAME_STYLE:
		t->names.style = (t->names.style + 1) % OSC_NAME_STYLE_COUNT;
		for (size_t i = 0; i < t->depth; i++) { /* names change width */
			free(t->stack[i]->widths);
			t->stack[i]->widths = NULL;
			t->stack[i]->nr_widths = 0;
			if (t->stack[i]->ops->restyle)
				t->stack[i]->ops->restyle(t, t->stack[i]);
		}
		osc_view_release(&t->pane); /* the pane names kernels too */
		osc_tui_message(t, OSC_MSG_INFO, "kernel names: %s",
				osc_name_style_name(t->names.style));
		return OSC_R_REDRAW;
	case OSC_ACT_BARS:
		t->bars = !t->bars;
		osc_view_release(&t->pane); /* the pane shows the per-run sparkline with the bars */
		if (t->bars && !v->ops->bar)
			osc_tui_message(t, OSC_MSG_INFO, "this view has no bar chart");
		return OSC_R_REDRAW;
	case OSC_ACT_WHATIF: {
		enum osc_level level = osc_table_top_level(t);

		if (v->ops != &osc_view_whatif)
			osc_view_push(t, &osc_view_whatif, &level);
		return OSC_R_REDRAW;
	}
	default:
		osc_tui_message(t, OSC_MSG_INFO, "%s does nothing in this view",
				osc_action_name(a));
		return OSC_R_REDRAW;
	}
}
