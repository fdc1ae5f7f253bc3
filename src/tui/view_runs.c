/*
 * view_runs.c - the runs of the trace and which of them are analysed.
 *
 * Space toggles a run, v extends the selection from the run toggled last,
 * a selects all; Enter goes back. Every change goes through osc_runs_select()
 * with a --runs spec, so the header and the exported command line always
 * show a spec that `opscope report --runs` accepts.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "view.h"

enum { COL_SEL, COL_INDEX, COL_NAME, COL_START, COL_DUR, COL_EVENTS, NR_COLS };

static const struct osc_column runs_cols[NR_COLS] = {
	[COL_SEL] = { "on", 2, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_INDEX] = { "run", 3, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_NAME] = { "name", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_START] = { "start_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_DUR] = { "dur_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_EVENTS] = { "events", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
};

static const char *runs_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct osc_tui *t = ctx;
	const struct osc_run *r = &t->runs.runs[row];

	switch (col) {
	case COL_SEL:
		snprintf(buf, size, "%s", t->sel.on[row] ? "*" : "");
		break;
	case COL_INDEX:
		snprintf(buf, size, "%zu", row);
		break;
	case COL_NAME:
		snprintf(buf, size, "%s",
			 t->runs.source == OSC_RUNS_WHOLE ? "(whole trace)"
							   : osc_trace_str(&t->trace, r->name));
		break;
	case COL_START:
		osc_format_us((double)(r->ts - osc_trace_origin(&t->trace)), buf, size);
		break;
	case COL_DUR:
		osc_format_us((double)r->dur, buf, size);
		break;
	default:
		snprintf(buf, size, "%llu", (unsigned long long)r->nr_events);
		break;
	}
	return buf;
}

static void runs_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	(void)v;
	*out = (struct osc_table){
		.cols = runs_cols,
		.nr_cols = NR_COLS,
		.nr_rows = t->runs.nr,
		.cell = runs_cell,
		.ctx = t,
	};
}

static enum osc_mark runs_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	(void)v;
	return t->sel.on[row] ? OSC_MARK_ON : OSC_MARK_NONE;
}

static void runs_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	(void)v;
	snprintf(buf, size, "runs (%zu, from %s)", t->runs.nr,
		 osc_run_source_name(t->runs.source));
}

/* The --runs spec of a set of runs: "all", "A:B" for a range, else a list. */
static char *spec_of(const uint8_t *on, size_t n)
{
	size_t first = n, last = 0, count = 0;
	char *s, *p;

	for (size_t i = 0; i < n; i++) {
		if (on[i]) {
			if (first == n)
				first = i;
			last = i;
			count++;
		}
	}
	if (count == n)
		return osc_xstrdup("all");
	if (count && count == last - first + 1)
		return osc_xasprintf("%zu:%zu", first, last + 1);
	s = p = osc_xmalloc(count * 22 + 3);
	*p++ = '[';
	for (size_t i = 0; i < n; i++)
		if (on[i])
			p += sprintf(p, "%s%zu", p[-1] == '[' ? "" : ", ", i);
	strcpy(p, "]");
	return s;
}

unsigned osc_runs_select(struct osc_tui *t, const char *spec)
{
	struct osc_runsel sel;
	struct osc_error err;
	char msg[1024];

	osc_error_clear(&err);
	if (osc_runsel_parse(spec, t->runs.nr, t->runs.warmup, &sel, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s", msg);
		return OSC_R_REDRAW;
	}
	osc_runsel_release(&t->sel);
	t->sel = sel;
	t->gen++;
	osc_tui_message(t, OSC_MSG_INFO, "runs: %s", spec ? spec : "default");
	return OSC_R_REBUILD | OSC_R_REDRAW;
}

/* Select the runs in on[]; the default set is written as the default (NULL) spec. */
static unsigned select_set(struct osc_tui *t, const uint8_t *on)
{
	struct osc_runsel def;
	struct osc_error err;
	bool is_default = false;
	char *spec;
	unsigned r;

	size_t count = 0;
	for (size_t i = 0; i < t->runs.nr; i++)
		count += on[i] != 0;
	if (!count) {
		osc_tui_message(t, OSC_MSG_ERROR, "at least one run must stay selected");
		return OSC_R_REDRAW;
	}
	if (osc_runsel_parse(NULL, t->runs.nr, t->runs.warmup, &def, &err) == OSC_OK) {
		is_default = !memcmp(def.on, on, t->runs.nr);
		osc_runsel_release(&def);
	}
	spec = is_default ? NULL : spec_of(on, t->runs.nr);
	r = osc_runs_select(t, spec);
	free(spec);
	return r;
}

unsigned osc_runs_toggle_warmup(struct osc_tui *t)
{
	uint8_t *on = osc_xmalloc(t->runs.nr);
	unsigned r;

	if (t->runs.nr < 2) {
		free(on);
		osc_tui_message(t, OSC_MSG_INFO, "the trace has a single run");
		return OSC_R_REDRAW;
	}
	memcpy(on, t->sel.on, t->runs.nr);
	on[0] = !on[0];
	r = select_set(t, on);
	free(on);
	return r;
}

static unsigned runs_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	uint8_t *on;
	unsigned r = OSC_R_REDRAW;

	if (a == OSC_ACT_ENTER) {
		osc_view_pop(t);
		return OSC_R_REDRAW;
	}
	if (a != OSC_ACT_TOGGLE_RUN && a != OSC_ACT_SELECT_ALL && a != OSC_ACT_SELECT_RANGE)
		return OSC_R_UNHANDLED;
	if (!t->runs.nr)
		return OSC_R_REDRAW;
	on = osc_xmalloc(t->runs.nr);
	memcpy(on, t->sel.on, t->runs.nr);
	if (a == OSC_ACT_TOGGLE_RUN) {
		on[v->cur] = !on[v->cur];
		t->last_toggled = (int)v->cur;
	} else if (a == OSC_ACT_SELECT_ALL) {
		memset(on, 1, t->runs.nr);
	} else {
		size_t from = t->last_toggled < 0 ? 0 : (size_t)t->last_toggled;
		size_t lo = from < v->cur ? from : v->cur, hi = from < v->cur ? v->cur : from;

		for (size_t i = lo; i <= hi; i++)
			on[i] = 1;
	}
	r = select_set(t, on);
	free(on);
	if (a == OSC_ACT_TOGGLE_RUN)
		osc_view_select(v, v->cur + 1);
	return r;
}

static const char *runs_export_name(struct osc_tui *t, struct osc_view *v)
{
	(void)t;
	(void)v;
	return "runs";
}

const struct osc_view_ops osc_view_runs = {
	.name = "runs",
	.table = runs_table,
	.flex_col = COL_NAME,
	.mark = runs_mark,
	.action = runs_action,
	.title = runs_title,
	.export_name = runs_export_name,
};
