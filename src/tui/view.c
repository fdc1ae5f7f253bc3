/* view.c - the view stack and what every view does the same way. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opscope/base/alloc.h"
#include "opscope/base/threads.h"
#include "view.h"
#include "view_job.h"

void osc_lines_add(struct osc_lines *l, enum osc_mark mark, const char *field, const char *value)
{
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 32;

		l->field = osc_xreallocarray(l->field, n, sizeof(*l->field));
		l->value = osc_xreallocarray(l->value, n, sizeof(*l->value));
		l->mark = osc_xreallocarray(l->mark, n, sizeof(*l->mark));
		l->alloc = n;
	}
	l->field[l->nr] = osc_xstrdup(field);
	l->value[l->nr] = osc_xstrdup(value);
	l->mark[l->nr] = mark;
	l->nr++;
}

void osc_lines_add_text(struct osc_lines *l, const char *field, const char *text)
{
	const char *p = text;

	do {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = osc_xstrndup(p, len);

		osc_lines_add(l, OSC_MARK_NONE, p == text ? field : "", line);
		free(line);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
}

void osc_lines_release(struct osc_lines *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->field[i]);
		free(l->value[i]);
	}
	free(l->field);
	free(l->value);
	free(l->mark);
	memset(l, 0, sizeof(*l));
}

void osc_tui_message(struct osc_tui *t, enum osc_msg_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->msg_kind = kind;
}

void osc_tui_note(struct osc_tui *t, enum osc_msg_kind kind, const char *fmt, ...)
{
	size_t len = strlen(t->msg);
	va_list ap;

	if (len && len + 2 < sizeof(t->msg)) {
		memcpy(t->msg + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(t->msg + len, sizeof(t->msg) - len, fmt, ap);
	va_end(ap);
	if (kind == OSC_MSG_ERROR)
		t->msg_kind = kind;
}

void osc_view_init(struct osc_tui *t, struct osc_view *v, const struct osc_view_ops *ops,
		   const void *arg)
{
	static unsigned next_id;

	memset(v, 0, sizeof(*v));
	v->ops = ops;
	v->id = ++next_id;
	v->built_gen = t->gen - 1;
	if (ops->open)
		ops->open(t, v, arg);
	osc_view_refresh(t, v);
}

void osc_view_push(struct osc_tui *t, const struct osc_view_ops *ops, const void *arg)
{
	struct osc_view *v;

	if (t->depth == OSC_MAX_VIEWS) {
		osc_tui_message(t, OSC_MSG_ERROR, "too many views open: go back first");
		return;
	}
	v = osc_xmalloc(sizeof(*v));
	t->stack[t->depth++] = v;
	osc_view_init(t, v, ops, arg);
}

void osc_view_release(struct osc_view *v)
{
	if (v->ops && v->ops->close)
		v->ops->close(v);
	free(v->widths);
	memset(v, 0, sizeof(*v));
}

/* A view left while its workers ran, and the TUI that counts it as closing. */
struct closing {
	struct osc_tui *t;
	struct osc_view *v;
};

static void *close_view(void *arg)
{
	struct closing *c = arg;

	osc_view_release(c->v); /* waits for its workers */
	free(c->v);
	atomic_fetch_sub(&c->t->closing, 1);
	free(c);
	return NULL;
}

/*
 * Close v on a thread of its own (its workers may take seconds to finish
 * on a big trace, and a key must not wait for them); false when none
 * could start.
 */
static bool close_apart(struct osc_tui *t, struct osc_view *v)
{
	struct closing *c = osc_xmalloc(sizeof(*c));

	*c = (struct closing){ t, v };
	atomic_fetch_add(&t->closing, 1);
	if (osc_thread_detached(close_view, c))
		return true;
	atomic_fetch_sub(&t->closing, 1);
	free(c);
	return false;
}

void osc_view_pop(struct osc_tui *t)
{
	struct osc_view *v = t->stack[t->depth - 1];

	if (v->ops->leave)
		v->ops->leave(t, v);
	t->depth--;
	/* a person's big trace (a script's :jobs apart): workers running are not waited for */
	if ((osc_view_background(t) || t->jobs_apart) && (osc_view_busy(v) || osc_view_ahead(v)) &&
	    close_apart(t, v))
		return;
	osc_view_release(v);
	free(v);
}

struct osc_view *osc_view_under(struct osc_tui *t, const struct osc_view *v)
{
	for (size_t i = 1; i < t->depth; i++)
		if (t->stack[i] == v)
			return t->stack[i - 1];
	return NULL;
}

/* Fetch the table, cut it to top-N and keep the selection inside. */
static void load_table(struct osc_tui *t, struct osc_view *v)
{
	v->ops->table(t, v, &v->tab);
	if (v->topn && v->topn < v->tab.nr_rows)
		v->tab.nr_rows = v->topn;
	if (v->cur >= v->tab.nr_rows)
		v->cur = v->tab.nr_rows ? v->tab.nr_rows - 1 : 0;
}

void osc_view_refresh(struct osc_tui *t, struct osc_view *v)
{
	if (v->built_gen != t->gen) {
		if (v->ops->build) {
			v->ops->build(t, v);
			free(v->widths);
			v->widths = NULL;
			v->nr_widths = 0;
		}
		if (v->ops->sort)
			v->ops->sort(t, v);
		v->built_gen = t->gen;
		v->rev++;
	}
	load_table(t, v);
}

void osc_view_rows_replaced(struct osc_tui *t, struct osc_view *v)
{
	free(v->widths);
	v->widths = NULL;
	v->nr_widths = 0;
	osc_view_resort(t, v);
}

void osc_view_resort(struct osc_tui *t, struct osc_view *v)
{
	if (v->ops->sort)
		v->ops->sort(t, v);
	v->rev++;
	load_table(t, v);
}

enum osc_level osc_view_level_of_action(enum osc_action a)
{
	static const enum osc_level levels[] = {
		OSC_LEVEL_OP, OSC_LEVEL_SHAPE, OSC_LEVEL_KERNEL, OSC_LEVEL_DIMS,
		OSC_LEVEL_MAPPING, OSC_LEVEL_RUN, OSC_LEVEL_PATH, OSC_LEVEL_CATEGORY,
		OSC_LEVEL_MODULE,
	};

	return levels[a - OSC_ACT_LEVEL_OP];
}

void osc_view_select(struct osc_view *v, size_t row)
{
	if (v->tab.nr_rows == 0)
		row = 0;
	else if (row >= v->tab.nr_rows)
		row = v->tab.nr_rows - 1;
	v->cur = row;
}

static inline unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/*
 * Case-insensitive substring test (ASCII folding is enough for op names):
 * lower is the needle folded, n its length (a find tests a million rows).
 */
static bool contains(const char *hay, const char *lower, size_t n)
{
	if (!n)
		return true;
	for (const unsigned char *p = (const unsigned char *)hay; *p; p++) {
		size_t i = 1;

		if (fold(*p) != (unsigned char)lower[0])
			continue;
		while (i < n && fold(p[i]) == (unsigned char)lower[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* t->find folded (contains), in out of size bytes; its length. */
static size_t fold_find(const struct osc_tui *t, char *out, size_t size)
{
	size_t n = 0;

	for (; t->find[n] && n + 1 < size; n++)
		out[n] = (char)fold((unsigned char)t->find[n]);
	out[n] = '\0';
	return n;
}

#define FIND_AHEAD 16 /* rows */

/*
 * The rows shown whose name column holds the find (folded: lower, of len
 * bytes), read in the order they are stored (stored_order), into *out; how
 * many.
 */
static size_t find_rows(struct osc_view *v, const char *lower, size_t len, size_t **out)
{
	size_t n = v->tab.nr_rows, nr_stored = n, nr = 0, alloc = 0;
	const uint32_t *order = v->ops->stored_order ? v->ops->stored_order(v, &nr_stored) : NULL;
	uint32_t *shown_at = NULL; /* per row stored, where it is shown; UINT32_MAX: not */
	char buf[4096];

	*out = NULL;
	if (order) {
		shown_at = osc_xmalloc((nr_stored ? nr_stored : 1) * sizeof(*shown_at));
		memset(shown_at, 0xff, nr_stored * sizeof(*shown_at));
		for (size_t i = 0; i < n; i++)
			shown_at[order[i]] = (uint32_t)i;
	} else {
		nr_stored = n;
	}
	for (size_t s = 0; s < nr_stored; s++) {
		size_t r = shown_at ? shown_at[s] : s;

		/* the cell of row r reads order[r]: at random, fetched ahead */
		if (shown_at && s + FIND_AHEAD < nr_stored && shown_at[s + FIND_AHEAD] < n)
			__builtin_prefetch(&order[shown_at[s + FIND_AHEAD]]);

		if (r >= n ||
		    !contains(v->tab.cell(v->tab.ctx, r, v->ops->flex_col, buf, sizeof(buf)), lower,
			      len))
			continue;
		OSC_GROW(*out, nr + 1, alloc);
		(*out)[nr++] = r;
	}
	free(shown_at);
	return nr;
}

bool osc_view_find(struct osc_tui *t, struct osc_view *v, int dir)
{
	size_t first = SIZE_MAX, last = 0, after = SIZE_MAX, before = SIZE_MAX, hit, k = 0, nr;
	size_t *rows;
	char lower[1024];

	if (!t->find || !*t->find || v->tab.nr_rows == 0)
		return false;
	nr = find_rows(v, lower, fold_find(t, lower, sizeof(lower)), &rows);
	/* the next match either way, wrapping round, and which of them it is */
	for (size_t i = 0; i < nr; i++) {
		size_t r = rows[i];

		first = r < first ? r : first;
		last = r > last ? r : last;
		if (r > v->cur && (after == SIZE_MAX || r < after))
			after = r;
		if (r < v->cur && (before == SIZE_MAX || r > before))
			before = r;
	}
	hit = dir > 0 ? (after != SIZE_MAX ? after : first) : (before != SIZE_MAX ? before : last);
	for (size_t i = 0; i < nr; i++)
		k += rows[i] <= hit;
	free(rows);
	if (!nr)
		return false;
	osc_view_select(v, hit);
	osc_tui_message(t, OSC_MSG_INFO, "'%s': match %zu of %zu (n next, N previous)", t->find, k,
			nr);
	return true;
}

/* Cycle the sort column by step; text columns sort ascending first, numbers descending. */
static unsigned sort_cycle(struct osc_tui *t, struct osc_view *v, int step)
{
	size_t n = v->tab.nr_cols;

	if (!v->ops->sort || n == 0 || step == 0) {
		osc_tui_message(t, OSC_MSG_INFO, "this view has no sort order");
		return OSC_R_REDRAW;
	}
	v->sort_col = (size_t)((long)v->sort_col + (long)n + step) % n;
	v->sort_desc = v->tab.cols[v->sort_col].numeric;
	osc_view_resort(t, v);
	return OSC_R_REDRAW;
}

unsigned osc_view_action(struct osc_tui *t, struct osc_view *v, enum osc_action a)
{
	size_t page = v->height ? v->height : 1;

	switch (a) {
	case OSC_ACT_MOVE_DOWN:
		osc_view_select(v, v->cur + 1);
		break;
	case OSC_ACT_MOVE_UP:
		osc_view_select(v, v->cur ? v->cur - 1 : 0);
		break;
	case OSC_ACT_PAGE_DOWN:
		osc_view_select(v, v->cur + page);
		v->top += page;
		break;
	case OSC_ACT_PAGE_UP:
		osc_view_select(v, v->cur > page ? v->cur - page : 0);
		v->top = v->top > page ? v->top - page : 0;
		break;
	case OSC_ACT_MOVE_FIRST:
		osc_view_select(v, 0);
		break;
	case OSC_ACT_MOVE_LAST:
		osc_view_select(v, v->tab.nr_rows ? v->tab.nr_rows - 1 : 0);
		break;
	case OSC_ACT_SCROLL_LEFT:
		v->hoff = v->hoff > 8 ? v->hoff - 8 : 0;
		break;
	case OSC_ACT_SCROLL_RIGHT:
		v->hoff += 8; /* clamped when drawn */
		break;
	case OSC_ACT_COLUMNS_LEFT:
		if (v->colskip)
			v->colskip--;
		break;
	case OSC_ACT_COLUMNS_RIGHT:
		v->colskip++; /* clamped when drawn */
		break;
	case OSC_ACT_SORT_NEXT:
		return sort_cycle(t, v, 1);
	case OSC_ACT_SORT_PREV:
		return sort_cycle(t, v, -1);
	case OSC_ACT_SORT_REVERSE:
		if (!v->ops->sort)
			return sort_cycle(t, v, 0); /* says why nothing happens */
		v->sort_desc = !v->sort_desc;
		osc_view_resort(t, v);
		break;
	case OSC_ACT_FIND_NEXT:
	case OSC_ACT_FIND_PREV:
		if (!t->find)
			return OSC_R_UNHANDLED; /* asks for the text first */
		if (!osc_view_find(t, v, a == OSC_ACT_FIND_NEXT ? 1 : -1))
			osc_tui_message(t, OSC_MSG_ERROR, "no row matches '%s'", t->find);
		break;
	default:
		return OSC_R_UNHANDLED;
	}
	return OSC_R_REDRAW;
}

void osc_view_describe(struct osc_tui *t, struct osc_view *v, char *buf, size_t size, int part)
{
	char *runs, *filter, bases[512] = "";
	int n = 0;

	buf[0] = '\0';
	if (part == 1) {
		char label[128];

		if (v->ops->sort && v->tab.nr_cols) {
			snprintf(label, sizeof(label), "%s", v->tab.cols[v->sort_col].title);
			if (v->ops->sort_label)
				v->ops->sort_label(t, v, label, sizeof(label));
			n = snprintf(buf, size, "sort: %s %s", label, v->sort_desc ? "desc" : "asc");
		}
		if (v->topn && n >= 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, "%stop %zu", n ? ", " : "", v->topn);
		return;
	}
	if (v->ops->bases)
		v->ops->bases(t, v, bases, sizeof(bases));
	if (v->ops->bases_only) {
		snprintf(buf, size, "%s", bases);
		return;
	}
	runs = osc_runsel_describe(&t->sel, &t->runs);
	filter = osc_filter_describe(&t->filter);
	if (*bases && v->ops->bases_first)
		snprintf(buf, size, "%s | %s | filter: %s", bases, runs, *filter ? filter : "none");
	else
		snprintf(buf, size, "%s | filter: %s%s%s", runs, *filter ? filter : "none",
			 *bases ? " | " : "", bases);
	free(runs);
	free(filter);
}

const char *osc_trace_basename(const struct osc_trace *tr)
{
	const char *p = tr->path ? tr->path : "";
	const char *slash = strrchr(p, '/');

	return slash && slash[1] ? slash + 1 : p;
}

bool osc_view_busy(struct osc_view *v)
{
	return v->ops->busy && v->ops->busy(v);
}

bool osc_view_poll(struct osc_tui *t, struct osc_view *v)
{
	return v->ops->poll && v->ops->poll(t, v);
}

bool osc_view_ahead(struct osc_view *v)
{
	return v->ops->ahead && v->ops->ahead(v);
}

void osc_view_settle_ahead(struct osc_tui *t, struct osc_view *v)
{
	t->ahead = true;
	osc_view_settle(t, v); /* the rows come first */
	do {
		if (osc_view_poll(t, v)) /* takes in the level done, starts the next */
			t->swaps++;
		if (osc_view_ahead(v))
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} while (osc_view_ahead(v));
}

void osc_view_settle(struct osc_tui *t, struct osc_view *v)
{
	atomic_store(&t->jobs_held, false);
	while (osc_view_busy(v)) {
		if (osc_view_poll(t, v))
			t->swaps++;
		else
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}
