/*
 * view_runs.c - the runs of the trace and which of them are analysed.
 *
 * Space toggles a run, v extends the selection from the run toggled last,
 * a selects all; Enter goes back. Every change goes through osc_runs_select()
 * with a --runs spec, so the header and the exported command line always
 * show a spec that `opscope report --runs` accepts. Opened from the compare
 * view with O, the same view picks the other trace's runs (--other-runs).
 * Where views compute ahead, the view under it computes the runs picked at
 * once, while the runs view is still shown (runs_build).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "view.h"
#include "view_job.h"

enum { COL_SEL, COL_INDEX, COL_NAME, COL_START, COL_DUR, COL_EVENTS, NR_COLS };

static const struct osc_column runs_cols[NR_COLS] = {
	[COL_SEL] = { "on", 2, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_INDEX] = { "run", 3, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_NAME] = { "name", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_START] = { "start_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_DUR] = { "dur_us", 8, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_EVENTS] = { "events", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
};

/* The runs one view shows and selects: the base's (the TUI's), or a compare's other trace's. */
struct runs_view {
	struct osc_tui *t;
	struct osc_runs_side side;
	int last_toggled; /* run last toggled, -1 none (the base's is t->last_toggled) */
};

static const char *runs_cell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	const struct runs_view *rv = ctx;
	const struct osc_runs *runs = rv->side.runs;
	const struct osc_run *r = &runs->runs[row];

	switch (col) {
	case COL_SEL:
		snprintf(buf, size, "%s", rv->side.sel->on[row] ? "*" : "");
		break;
	case COL_INDEX:
		snprintf(buf, size, "%zu", row);
		break;
	case COL_NAME:
		snprintf(buf, size, "%s",
			 runs->source == OSC_RUNS_WHOLE ? "(whole trace)"
							 : osc_trace_str(rv->side.trace, r->name));
		break;
	case COL_START:
		osc_format_us((double)(r->ts - osc_trace_origin(rv->side.trace)), buf, size);
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

static void runs_open(struct osc_tui *t, struct osc_view *v, const void *arg)
{
	struct runs_view *rv = osc_xcalloc(1, sizeof(*rv));

	rv->t = t;
	if (arg)
		rv->side = *(const struct osc_runs_side *)arg;
	else
		rv->side = (struct osc_runs_side){ &t->trace, &t->runs, &t->sel, NULL };
	rv->last_toggled = -1;
	v->priv = rv;
}

static void runs_close(struct osc_view *v)
{
	free(v->priv);
}

/*
 * The runs picked: the view under this one starts on them now when its rows
 * are computed on a worker (builds_on_worker) and views compute ahead (a
 * person on a big trace, a script's :ahead); back there, they are in, not
 * started by the key that goes back.
 */
static void runs_build(struct osc_tui *t, struct osc_view *v)
{
	struct osc_view *under = osc_tui_top(t) == v ? osc_view_under(t, v) : NULL;

	if (under && under->ops->builds_on_worker && t->ahead && osc_view_jobs_wanted(t))
		osc_view_refresh(t, under);
}

static void runs_table(struct osc_tui *t, struct osc_view *v, struct osc_table *out)
{
	struct runs_view *rv = v->priv;

	(void)t;
	*out = (struct osc_table){
		.cols = runs_cols,
		.nr_cols = NR_COLS,
		.nr_rows = rv->side.runs->nr,
		.cell = runs_cell,
		.ctx = rv,
	};
}

static enum osc_mark runs_mark(struct osc_tui *t, struct osc_view *v, size_t row)
{
	struct runs_view *rv = v->priv;

	(void)t;
	return rv->side.sel->on[row] ? OSC_MARK_ON : OSC_MARK_NONE;
}

static void runs_title(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct runs_view *rv = v->priv;

	(void)t;
	snprintf(buf, size, "runs%s%s (%zu, from %s)", rv->side.other ? " of " : "",
		 rv->side.other ? rv->side.other : "", rv->side.runs->nr,
		 osc_run_source_name(rv->side.runs->source));
}

/* The header's run line: the other trace's selection when this view picks its runs. */
static void runs_bases(struct osc_tui *t, struct osc_view *v, char *buf, size_t size)
{
	struct runs_view *rv = v->priv;
	char *desc;

	(void)t;
	buf[0] = '\0';
	if (!rv->side.other)
		return;
	desc = osc_runsel_describe(rv->side.sel, rv->side.runs);
	snprintf(buf, size, "%s: %s", rv->side.other, desc);
	free(desc);
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
	t->gen = osc_tui_state(t, &t->sel);
	osc_tui_message(t, OSC_MSG_INFO, "runs: %s", spec ? spec : "default");
	return OSC_R_REBUILD | OSC_R_REDRAW;
}

unsigned osc_runs_select_side(struct osc_tui *t, struct osc_runs_side *side, const char *spec)
{
	struct osc_runsel sel;
	struct osc_error err;
	char msg[1024];

	osc_error_clear(&err);
	if (osc_runsel_parse(spec, side->runs->nr, side->runs->warmup, &sel, &err) != OSC_OK) {
		osc_error_format(&err, msg, sizeof(msg));
		osc_tui_message(t, OSC_MSG_ERROR, "%s", msg);
		return OSC_R_REDRAW;
	}
	osc_runsel_release(side->sel);
	*side->sel = sel;
	/* the compare view pairs the rows again: no state of before describes them */
	osc_states_forget(&t->states);
	t->gen = osc_tui_state(t, &t->sel);
	osc_tui_message(t, OSC_MSG_INFO, "runs of %s: %s", side->other, spec ? spec : "default");
	return OSC_R_REBUILD | OSC_R_REDRAW;
}

/* Select the runs in on[]; the default set is written as the default (NULL) spec. */
static unsigned select_set(struct osc_tui *t, struct osc_runs_side *side, const uint8_t *on)
{
	struct osc_runsel def;
	struct osc_error err;
	bool is_default = false;
	size_t nr = side->runs->nr, count = 0;
	char *spec;
	unsigned r;

	for (size_t i = 0; i < nr; i++)
		count += on[i] != 0;
	if (!count) {
		osc_tui_message(t, OSC_MSG_ERROR, "at least one run must stay selected");
		return OSC_R_REDRAW;
	}
	if (osc_runsel_parse(NULL, nr, side->runs->warmup, &def, &err) == OSC_OK) {
		is_default = !memcmp(def.on, on, nr);
		osc_runsel_release(&def);
	}
	spec = is_default ? NULL : spec_of(on, nr);
	r = side->other ? osc_runs_select_side(t, side, spec) : osc_runs_select(t, spec);
	free(spec);
	return r;
}

void osc_runs_warmup_flipped(const struct osc_tui *t, struct osc_runsel *out)
{
	osc_runsel_copy(out, &t->sel);
	out->on[0] = !out->on[0];
	out->nr_on = out->on[0] ? out->nr_on + 1 : out->nr_on - 1;
}

unsigned osc_runs_toggle_warmup(struct osc_tui *t)
{
	struct osc_runsel flipped;
	unsigned r;

	if (t->runs.nr < 2) {
		osc_tui_message(t, OSC_MSG_INFO, "the trace has a single run");
		return OSC_R_REDRAW;
	}
	osc_runs_warmup_flipped(t, &flipped);
	r = select_set(t, &(struct osc_runs_side){ &t->trace, &t->runs, &t->sel, NULL },
		       flipped.on);
	osc_runsel_release(&flipped);
	return r;
}

static unsigned runs_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	struct runs_view *rv = v->priv;
	struct osc_runs_side *side = &rv->side;
	size_t nr = side->runs->nr;
	int *last = side->other ? &rv->last_toggled : &t->last_toggled;
	uint8_t *on;
	unsigned r = OSC_R_REDRAW;

	if (a == OSC_ACT_ENTER) {
		osc_view_pop(t);
		return OSC_R_REDRAW;
	}
	if (a != OSC_ACT_TOGGLE_RUN && a != OSC_ACT_SELECT_ALL && a != OSC_ACT_SELECT_RANGE)
		return OSC_R_UNHANDLED;
	if (!nr)
		return OSC_R_REDRAW;
	on = osc_xmalloc(nr);
	memcpy(on, side->sel->on, nr);
	if (a == OSC_ACT_TOGGLE_RUN) {
		on[v->cur] = !on[v->cur];
		*last = (int)v->cur;
	} else if (a == OSC_ACT_SELECT_ALL) {
		memset(on, 1, nr);
	} else {
		size_t from = *last < 0 ? 0 : (size_t)*last;
		size_t lo = from < v->cur ? from : v->cur, hi = from < v->cur ? v->cur : from;

		for (size_t i = lo; i <= hi; i++)
			on[i] = 1;
	}
	r = select_set(t, side, on);
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
	.open = runs_open,
	.close = runs_close,
	.build = runs_build,
	.table = runs_table,
	.bases = runs_bases,
	.bases_first = true,
	.flex_col = COL_NAME,
	.mark = runs_mark,
	.action = runs_action,
	.title = runs_title,
	.export_name = runs_export_name,
};
