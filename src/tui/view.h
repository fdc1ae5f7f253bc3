/*
 * view.h - the TUI's state, the view interface and the generic view code.
 *
 * A view is a const ops struct (one file per view, all listed once in
 * OSC_VIEW_LIST). A view exposes its rows as a struct osc_table (the export.h
 * table: columns plus a cell getter), so drawing, searching and exporting are
 * written once over that table and what is exported is what is drawn.
 * Navigation, paging, sorting state, top-N and search live in struct osc_view
 * and are handled in view.c; ops->action only sees the actions a view adds.
 *
 * Data generations: tui->gen names the state of runs and filter
 * (states.h), and changes with them; a view whose built_gen differs is
 * rebuilt before it is drawn (views deeper in the stack catch up when they
 * come back on top). A state met again has its old id.
 */
#ifndef OPSCOPE_TUI_VIEW_H
#define OPSCOPE_TUI_VIEW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/export/export.h"
#include "opscope/export/flame.h"
#include "opscope/model/filter.h"
#include "opscope/model/runs.h"
#include "opscope/model/trace.h"
#include "actions.h"
#include "early.h"
#include "states.h"
#include "tui.h"

struct osc_tui;
struct osc_view;
struct osc_lines;

/* Highlight of a row (row_mark). */
enum osc_mark {
	OSC_MARK_NONE,
	OSC_MARK_ON,     /* a selected run */
	OSC_MARK_MIN,    /* fastest instance */
	OSC_MARK_MEDIAN, /* median instance */
	OSC_MARK_MAX,    /* slowest instance */
	OSC_MARK_TITLE,  /* a heading line in the detail view */
};

/* One cell of a canvas: a glyph (UTF-8, one column wide) in a style. */
struct osc_canvas_cell {
	char glyph[5];
	unsigned char style; /* enum osc_style */
};

/* What a view that draws its own body (the timeline) fills: width x height cells. */
struct osc_canvas {
	int width, height;
	struct osc_canvas_cell *cells; /* row by row */
};

struct osc_view_ops {
	const char *name; /* "table", "runs" ... */
	/* Set up v->priv from arg (view-specific, may be NULL); called once. */
	void (*open)(struct osc_tui *t, struct osc_view *v, const void *arg);
	/* Free v->priv. */
	void (*close)(struct osc_view *v);
	/* Rebuild rows from the trace, runs and filter (NULL: rows never change). */
	void (*build)(struct osc_tui *t, struct osc_view *v);
	/* Apply v->sort_col / v->sort_desc (NULL: not sortable). */
	void (*sort)(struct osc_tui *t, struct osc_view *v);
	/* Fill the table drawn and exported (before the top-N cut). */
	void (*table)(struct osc_tui *t, struct osc_view *v, struct osc_table *out);
	/*
	 * optional: the table x writes, when the drawn one holds drawing (the
	 * tree's guides): the same rows (top-N applies), plain text.
	 */
	void (*export_table)(struct osc_tui *t, struct osc_view *v, struct osc_table *out);
	size_t flex_col; /* the name column: takes the spare width, scrolls */
	/* optional: the line shown when there is no row (else a table's "no rows" hint) */
	void (*empty)(struct osc_tui *t, struct osc_view *v, char *buf, size_t size);
	/* optional: how the header names the sort column ("|delta_us|"), into buf */
	void (*sort_label)(struct osc_tui *t, struct osc_view *v, char *buf, size_t size);
	/* Highlight of a row (NULL: none). */
	enum osc_mark (*mark)(struct osc_tui *t, struct osc_view *v, size_t row);
	/* Actions of this view; OSC_R_UNHANDLED for the rest. May be NULL. */
	unsigned (*action)(struct osc_tui *t, struct osc_view *v, enum osc_action a);
	/* Title of the view for the header line. */
	void (*title)(struct osc_tui *t, struct osc_view *v, char *buf, size_t size);
	/* optional: the bases of the view's percentages, shown after the runs and filter */
	void (*bases)(struct osc_tui *t, struct osc_view *v, char *buf, size_t size);
	bool bases_first; /* the bases lead that line (a what-if projection) */
	bool bases_only;  /* the bases are that line: the view has no trace's runs or filter */
	/* Detail of a row for the detail pane (NULL: none). */
	void (*detail)(struct osc_tui *t, struct osc_view *v, size_t row, struct osc_lines *out);
	/* Name used in export file names and the `report --by` level ("op"). */
	const char *(*export_name)(struct osc_tui *t, struct osc_view *v);
	/* An event standing for a row, for jumps into the call tree (NULL: none). */
	uint32_t (*row_event)(struct osc_tui *t, struct osc_view *v, size_t row);
	/* optional: rows after the selected one to keep on screen too (a node's children) */
	size_t (*below)(struct osc_tui *t, struct osc_view *v);
	/*
	 * optional: where the rows shown are stored: the row shown i-th is the
	 * (*order)[i]-th of the *nr stored (order holds every row shown); NULL
	 * when they are shown as stored. A find reads the rows as they are
	 * stored: read in the order shown, each of a million rows is a cache miss
	 * or two.
	 */
	const uint32_t *(*stored_order)(struct osc_view *v, size_t *nr);
	/* Length of the row's bar in the bar chart column, 0..1 (NULL: no bars). */
	double (*bar)(struct osc_tui *t, struct osc_view *v, size_t row);
	/*
	 * The opscope command line printing the same table as the export, in
	 * t->export_as's format, a new string; NULL (or a NULL op) when there is
	 * none.
	 */
	char *(*command)(struct osc_tui *t, struct osc_view *v);
	/* optional: the highlight of one cell (the matrix's slowest run), else the row's */
	enum osc_mark (*cell_mark)(struct osc_tui *t, struct osc_view *v, size_t row, size_t col);
	/*
	 * optional: the folded stacks x writes to a file named *.folded, for
	 * flame graph tools (flame.h); release them with osc_flame_release.
	 */
	void (*folded)(struct osc_tui *t, struct osc_view *v, struct osc_flame *out);
	/*
	 * optional: the view draws its body itself: fill every cell of c (sized
	 * by the caller) instead of drawing the table, which x still exports and
	 * whose rows j/k move over.
	 */
	void (*canvas)(struct osc_tui *t, struct osc_view *v, struct osc_canvas *c);
	/* optional: whether rows are computed on a worker now (view_job.h) */
	bool (*busy)(struct osc_view *v);
	/* optional: whether a worker computes rows the view may show later (levels ahead) */
	bool (*ahead)(struct osc_view *v);
	/* optional: take in the rows of a finished worker; true when they came in */
	bool (*poll)(struct osc_tui *t, struct osc_view *v);
	/*
	 * optional: move into out the view's aggregate of level l, whole (every
	 * event of the level, no `only`), for the runs and filter in force
	 * (tui->gen), for a view above it to read (what-if): the rows it shows
	 * or keeps; false when it has none. Rows shown are built again when the
	 * view comes back on top, unless they came back (rows_back).
	 */
	bool (*lend_rows)(struct osc_tui *t, struct osc_view *v, enum osc_level l,
			  struct osc_agg *out);
	/* optional, with lend_rows: rows it lent come back, still of tui->gen (*rows zeroed) */
	void (*rows_back)(struct osc_tui *t, struct osc_view *v, struct osc_agg *rows);
	/* optional: the view is left for the one under it (osc_view_pop), before close */
	void (*leave)(struct osc_tui *t, struct osc_view *v);
	/*
	 * optional: the kernel names' style changed (m); rows keyed by kernel
	 * names, one per name shown, are made again (views that only label
	 * their rows need nothing)
	 */
	void (*restyle)(struct osc_tui *t, struct osc_view *v);
	/* build starts a worker when views compute on them (the runs view builds it under) */
	bool builds_on_worker;
};

/* X-macro: every view. */
#define OSC_VIEW_LIST(_) \
	_(table)         \
	_(runs)          \
	_(instances)     \
	_(detail)        \
	_(help)          \
	_(tree)          \
	_(diff)          \
	_(whatif)        \
	_(gpu)           \
	_(warnings)      \
	_(message)       \
	_(modules)       \
	_(timeline)      \
	_(histogram)     \
	_(matrix)        \
	_(ranks)         \
	_(rank_rows)

#define OSC_VIEW_DECLARE(name) extern const struct osc_view_ops osc_view_##name;
OSC_VIEW_LIST(OSC_VIEW_DECLARE)
#undef OSC_VIEW_DECLARE

struct osc_view {
	const struct osc_view_ops *ops;
	struct osc_table tab; /* rows as drawn and exported (top-N applied) */
	size_t cur, top;      /* selected row, first visible row */
	size_t height;        /* rows shown at the last draw (for paging) */
	size_t colskip;       /* hidden columns on the left (besides the name) */
	size_t hoff;          /* horizontal offset into the name column */
	int *widths;          /* natural column widths seen so far */
	size_t nr_widths;
	unsigned built_gen;   /* tui->gen the rows were built for */
	unsigned rev;         /* bumped when the rows are built or sorted again (the pane follows) */
	unsigned id;          /* unique per view opened (a new view may reuse an old one's memory) */
	size_t sort_col;      /* column sorted by */
	bool sort_desc;
	size_t topn;          /* 0: all rows */
	void *priv;
};

/* Lines of "field: value" for the detail view/pane. */
struct osc_lines {
	char **field, **value;
	enum osc_mark *mark;
	size_t nr, alloc;
	bool has_event;  /* the lines describe one event (T opens the tree at it) */
	uint32_t event;
};

void osc_lines_add(struct osc_lines *l, enum osc_mark mark, const char *field,
		   const char *value);
/* Add "field: value" lines for each line of a multi-line value. */
void osc_lines_add_text(struct osc_lines *l, const char *field, const char *text);
void osc_lines_release(struct osc_lines *l);

enum osc_msg_kind { OSC_MSG_INFO, OSC_MSG_ERROR };

/* A prompt being answered on the status line. */
struct osc_prompt {
	bool active;
	bool yesno;          /* a single y/n key answers it */
	char label[128];
	char buf[4096];      /* UTF-8 text typed so far */
	size_t len;
	bool fresh;          /* buf is the offered text: typing replaces it, Right/End/BS edit it */
	/* Called with the answer (NULL when cancelled). */
	unsigned (*done)(struct osc_tui *t, const char *answer);
	char pending[4096];  /* data for done (e.g. the export path) */
};

#define OSC_MAX_VIEWS 16

/*
 * What the warm-up (warm_thread) has built after loading a big trace, in
 * the order it builds it: the host tree and the kernel-to-op links (what T,
 * K and P need), then the timeline (V), then the rest of the trace's cache.
 */
enum osc_warm_stage {
	OSC_WARM_NONE,
	OSC_WARM_LINKS,
	OSC_WARM_TIMELINE,
	OSC_WARM_ALL,
};

struct osc_tui {
	const struct osc_tui_args *args;
	struct osc_trace trace;
	struct osc_runs runs;
	struct osc_runsel sel;
	struct osc_filter filter;
	struct osc_names names; /* kernel names, demangled once; names.style: the one shown (m) */
	char *filter_spec; /* the filter as last typed, to edit it again */
	char *find;        /* text of find / n / N, NULL when none */
	unsigned gen;      /* data generation, see top: an id of states */
	struct osc_states states;
	unsigned swaps;    /* aggregates swapped in by workers (the pane follows them) */
	unsigned top_swaps; /* of them, those of the view on top (OPSCOPE_TUI_TIMING's "shown") */
	struct osc_view *stack[OSC_MAX_VIEWS];
	size_t depth;
	struct osc_view pane; /* the detail pane (a detail view not on the stack) */
	bool pane_on;
	struct osc_prompt prompt;
	char msg[2048];
	enum osc_msg_kind msg_kind;
	char last_msg[2048]; /* the message before the last key cleared it (y shows it) */
	char *popup;       /* text shown in a box until the next key, or NULL */
	/* what x wrote last (CSV until then; the name's extension picks it): the
	   views' command lines (ops->command) name this format */
	enum osc_export_format export_as;
	bool utf8;         /* the locale can show UTF-8 */
	bool script;       /* driven by --script */
	int last_toggled;  /* runs view: run last toggled, -1 none */
	bool bars;         /* bar chart column shown (views with ops->bar) */
	pthread_t warm;    /* builds the trace's cache (trace_cache.h) after loading */
	bool warming;      /* warm was started */
	atomic_int warm_stage; /* enum osc_warm_stage: what warm has built so far */
	atomic_bool warm_held; /* scripts: warm waits before building anything */
	atomic_bool warm_rest_held; /* scripts: warm waits after what views wait for */
	enum osc_action acting;  /* the action being done (do_action) */
	enum osc_action waiting; /* asked too early: done once the warm-up reaches
				    waiting_stage and its view's rows are there
				    (OSC_ACT_NONE: none) */
	unsigned waiting_view;   /* the id of the view it was asked in */
	enum osc_warm_stage waiting_stage; /* what of the warm-up it waits for */
	bool ahead;            /* views compute other levels ahead (ahead.h): on big
				  traces, in scripts after :ahead */
	bool jobs_async;       /* scripts (:jobs hold): tables compute on workers, any size */
	size_t kept_budget;    /* what one view may keep (kept.h), from the memory, read once */
	struct osc_early early[OSC_EARLY_COUNT]; /* views' results computed before they open */
	atomic_bool jobs_held; /* scripts: those workers wait before computing */
	atomic_uint closing;   /* views left while their workers ran, being closed on a
				  thread of their own (osc_view_pop) */
	bool jobs_apart;       /* scripts (:jobs apart): such views close so, as on a big trace */
};

/* From this many events on, answers are computed off the UI thread. */
#define OSC_ASYNC_MIN_EVENTS 200000

/* Set the status line message (printf-style). */
void osc_tui_message(struct osc_tui *t, enum osc_msg_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Add to the status line message ("; " between): the notes of opening a
 * trace (terminal fallback, load warnings, bad options) all show together.
 */
void osc_tui_note(struct osc_tui *t, enum osc_msg_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The id (tui->gen) of the state of run selection sel and the TUI's filter (states.h). */
unsigned osc_tui_state(struct osc_tui *t, const struct osc_runsel *sel);

/* The id of the state of the TUI's runs and filter f, guessed (osc_states_guess). */
unsigned osc_tui_state_guess(struct osc_tui *t, const struct osc_filter *f);

/* The warm-up is still building the trace's cache up to stage s. */
bool osc_tui_warm_before(struct osc_tui *t, enum osc_warm_stage s);

/*
 * Whether views compute rows ahead now (ahead.h): on a big trace or after a
 * script's :ahead (t->ahead), once the warm-up is done.
 */
bool osc_tui_ahead_now(struct osc_tui *t);

/*
 * True, with a message naming what (e.g. "the call tree"), while the
 * warm-up has not built the trace's cache up to stage need (the answer
 * would freeze the screen until it has); the action being done then waits,
 * and is done again once it has, unless another action comes first or its
 * view is no longer on top.
 */
bool osc_tui_warming(struct osc_tui *t, const char *what, enum osc_warm_stage need);

/*
 * True, with a message naming what (e.g. "K"), while view v has no row yet
 * because its first ones are still being computed; the action being done
 * waits for them as osc_tui_warming's does.
 */
bool osc_tui_wait_rows(struct osc_tui *t, struct osc_view *v, const char *what);

/*
 * Scripts (":warm hold", ":warm views", ":warm go"): start the warm-up held
 * before it builds anything, whatever the trace's size, so a script sees the
 * screens of a cache still being built; let it build what views wait for
 * (up to OSC_WARM_TIMELINE) and hold it there, waiting until it has; then
 * let it go and wait until it is done.
 */
void osc_tui_warm_hold(struct osc_tui *t);
void osc_tui_warm_views(struct osc_tui *t);
void osc_tui_warm_go(struct osc_tui *t);

/* The view on top of the stack. */
static inline struct osc_view *osc_tui_top(struct osc_tui *t)
{
	return t->stack[t->depth - 1];
}

/* Push a new view of ops (opened with arg, built, sorted). */
void osc_view_push(struct osc_tui *t, const struct osc_view_ops *ops, const void *arg);
/* Pop and free the top view (left: ops->leave first). */
void osc_view_pop(struct osc_tui *t);
/* The view under v on t's stack, NULL when v is the first or not on it. */
struct osc_view *osc_view_under(struct osc_tui *t, const struct osc_view *v);
/* Free a view's contents (not the struct). */
void osc_view_release(struct osc_view *v);
/* Set up a view struct in place (used for the pane). */
void osc_view_init(struct osc_tui *t, struct osc_view *v, const struct osc_view_ops *ops,
		   const void *arg);

/* Rebuild rows if the data generation changed; refresh the table. */
void osc_view_refresh(struct osc_tui *t, struct osc_view *v);
/* Re-sort (views that sort) and refresh the table (keeps the selection on the same row index). */
void osc_view_resort(struct osc_tui *t, struct osc_view *v);
/* The same after new rows came in (a worker's): column widths are fitted anew. */
void osc_view_rows_replaced(struct osc_tui *t, struct osc_view *v);

/* Generic actions (moves, sort, top-N, scrolling, find) on v. */
unsigned osc_view_action(struct osc_tui *t, struct osc_view *v, enum osc_action a);

/* Select row (clamped) and keep it visible. */
void osc_view_select(struct osc_view *v, size_t row);

/* The level of a number key's action (OSC_ACT_LEVEL_OP .. OSC_ACT_LEVEL_MODULE). */
enum osc_level osc_view_level_of_action(enum osc_action a);

/* Find the next (dir 1) or previous (dir -1) row matching t->find; false if none. */
bool osc_view_find(struct osc_tui *t, struct osc_view *v, int dir);

/* ---- shared by views (defined in view_detail.c) ---- */

/* Lines describing event ev: fields, run, kernel facts and its args pretty-printed. */
void osc_detail_event(struct osc_tui *t, uint32_t ev, struct osc_lines *out);

/* What the table view is opened with: its level; for K, the events it may hold. */
struct osc_table_arg {
	enum osc_level level;
	uint8_t *only; /* NULL, or per event 1 to keep it (the view takes it over) */
	char *label;   /* what `only` holds, for the title (the view takes it over) */
	bool has_sort; /* sort by `sort` (if the level has it) rather than the default */
	enum osc_stat sort;
};

/*
 * What a job's level view (view_rank_rows.c) is opened with: the level, the
 * ranks shown (per rank of the job; copied), and the key of the one row shown
 * on every rank (copied), NULL: the level's rows across the ranks.
 */
struct osc_rank_rows_arg {
	enum osc_level level;
	const bool *chosen;
	const char *key;
	bool split; /* every rank's rows rather than their spread (ignored with a key) */
};

/* The level of a table view. */
enum osc_level osc_table_view_level(struct osc_view *v);

/* The level of the table on top of t (that W and the compare view open at); op for another view. */
enum osc_level osc_table_top_level(const struct osc_tui *t);

/* The label of a table view opened with `only` ("kernels of aten::mm"), else NULL. */
const char *osc_table_view_only(struct osc_view *v);

/* The events of row `row` of table view v ((*members)[0 .. n)); 0 while it is computed. */
size_t osc_table_view_members(struct osc_view *v, size_t row, const uint32_t **members);

/* Row `row` of table view v as shown, with its members; NULL while it is computed. */
const struct osc_agg_row *osc_table_view_row_shown(struct osc_view *v, size_t row,
						   const uint32_t **members);

/*
 * The text naming row r of table view v, as K's and T's titles show it: its
 * call path, module path, or label with every key (osc_agg_label_names),
 * in buf or the trace's own.
 */
const char *osc_table_view_row_name(struct osc_tui *t, struct osc_view *v,
				    const struct osc_agg_row *r, char *buf, size_t size);

/* What the instances view is opened with: a table view and the key of its row. */
struct osc_instances_arg {
	struct osc_view *parent;
	osc_str key;
	const char *path; /* path level: the row's whole call path (copied), else NULL */
	bool range;       /* only the instances lasting [lo, hi) ns (a histogram's bin) */
	bool closed;      /* ... [lo, hi]: the last bin */
	int64_t lo, hi;
};

/*
 * Row of table view v keyed `key` (after rebuilding v if the data changed),
 * with its members; NULL when the row is gone. Defined in view_table.c.
 */
const struct osc_agg_row *osc_table_view_row(struct osc_tui *t, struct osc_view *v, osc_str key,
					     const uint32_t **members);

/*
 * What the matrix view is opened with (view_matrix.c): the level, the
 * table's order and its top-N (0: the matrix's default).
 */
struct osc_matrix_arg {
	enum osc_level level;
	enum osc_stat sort;
	bool desc;
	size_t top;
	/* the table's rows of the level, in that order, for the runs and filter
	   in force, or NULL: the first build reads them instead of aggregating */
	const struct osc_agg *rows;
};

/* What the runs view shows and selects (NULL arg: the TUI's own runs). */
struct osc_runs_side {
	const struct osc_trace *trace;
	const struct osc_runs *runs;
	struct osc_runsel *sel;
	const char *other; /* the compare's other trace (its name), NULL for the TUI's */
};

/*
 * Select runs by a --runs spec (NULL: the default); on error the message goes
 * to the status line and the selection stays. Defined in view_runs.c.
 */
unsigned osc_runs_select(struct osc_tui *t, const char *spec);
/* The same for a compare's other trace (side->other set): :other-runs, O. */
unsigned osc_runs_select_side(struct osc_tui *t, struct osc_runs_side *side, const char *spec);
/* :other-runs SPEC: the runs of the compare view on top. Defined in view_diff.c. */
unsigned osc_diff_view_runs(struct osc_tui *t, const char *spec);
/* Flip run 0 (the warm-up run) in the selection. */
unsigned osc_runs_toggle_warmup(struct osc_tui *t);
/*
 * The selection osc_runs_toggle_warmup makes of t's (t has a run): a copy
 * with run 0 flipped, into out (none selected when run 0 was the only one:
 * w refuses it).
 */
void osc_runs_warmup_flipped(const struct osc_tui *t, struct osc_runsel *out);

/* True while view v computes new rows on its worker thread (view_job.h). */
bool osc_view_busy(struct osc_view *v);
/*
 * Swap in the rows of v's finished worker (re-sorted); true when v changed.
 * Views above v must then rebuild (they may read its rows).
 */
bool osc_view_poll(struct osc_tui *t, struct osc_view *v);
/*
 * Wait until view v holds the rows of the current data (a held worker is
 * let go), so that what is exported is what the view will show.
 */
void osc_view_settle(struct osc_tui *t, struct osc_view *v);
/* Whether a worker computes rows v may show later (its levels ahead). */
bool osc_view_ahead(struct osc_view *v);
/*
 * Scripts (:ahead): let view v compute its levels ahead and wait until it
 * has computed all it will (or has none to compute).
 */
void osc_view_settle_ahead(struct osc_tui *t, struct osc_view *v);

/* Header texts: part 0 the runs and filter, part 1 the sort and top-N ("" if none). */
void osc_view_describe(struct osc_tui *t, struct osc_view *v, char *buf, size_t size, int part);

/*
 * Runs of trace tr (the TUI's or the compare view's other) into out as the
 * command line asks (--run-range, --whole-trace); when that fails, the
 * message (after `what`) goes to the status line and the runs are detected
 * as without it. Defined in tui.c.
 */
void osc_tui_detect_runs(struct osc_tui *t, const struct osc_trace *tr, struct osc_runs *out,
			 const char *what);

/* Last part of the trace's path, for headers and file names. */
const char *osc_trace_basename(const struct osc_trace *tr);

/*
 * Add a "field: sparkline" line of the time per selected run (sel NULL:
 * every run) of events ev[0..n) of tr. Defined in view_diff.c.
 */
void osc_lines_add_spark(struct osc_lines *out, struct osc_tui *t, const struct osc_trace *tr,
			 const struct osc_runs *runs, const struct osc_runsel *sel,
			 const uint32_t *ev, size_t n, const char *field);

/* What the compare view is opened with (view_diff.c): the other trace and how to pair. */
struct osc_diff_view_arg {
	const char *path;   /* the other trace; NULL: the trace on screen (its other runs) */
	const char *runs;   /* its run selection, NULL: its default */
	enum osc_level level;
	enum osc_match match;
	bool changed;       /* only the rows that changed (o) ... */
	double min_change;  /* ... by this percent or more (--min-change) */
};

/*
 * :speedups FILE in the what-if view: add the rules of a CSV file
 * (osc_speedups_read_csv); an error on the status line leaves the rules.
 */
unsigned osc_whatif_view_load(struct osc_tui *t, const char *path);

/*
 * Note on the status line (osc_tui_note, after `what`) what loading tr
 * tolerated and the ops and kernels outside every run of runs, if any: the
 * first, and how many more the warnings view (!) lists. Defined in
 * view_warnings.c.
 */
void osc_warnings_note(struct osc_tui *t, const struct osc_trace *tr, const struct osc_runs *runs,
		       const char *what);

/* What the timeline view is opened with: the events to mark (copied), and what they are. */
struct osc_timeline_arg {
	const uint32_t *events;
	size_t nr;
	const char *label;
};

/*
 * Open the timeline (V) marking the top view's selected row: a table row's
 * events, or the event a row stands for (row_event). Defined in
 * view_timeline.c.
 */
unsigned osc_timeline_open(struct osc_tui *t);

/* What the tree view is opened with (view_tree.c). */
struct osc_tree_arg {
	uint32_t event;              /* without row: the whole tree with the event's op (or
					a kernel's launching op) selected; OSC_NONE: none */
	const struct osc_agg_row *row; /* a table row: the merged subtrees of its calls
					  (copied), else NULL */
	enum osc_level level;        /* with row: its level */
	const uint32_t *calls;       /* with row: its members as shown */
	const char *name;            /* with row: its name (osc_table_view_row_name), copied */
};

/*
 * Open the call tree from the top view's selected row: a table row of host
 * ops opens the merged subtrees of its calls; a path row, a kernel or an
 * instance (row_event) opens the whole tree at its (launching) op.
 */
unsigned osc_tree_open(struct osc_tui *t);

#endif
