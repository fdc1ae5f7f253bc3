/*
 * timeline_draw.h - a window of the timeline (timeline.h) as cells of text:
 * what the explorer's timeline view draws with its styles and `opscope
 * timeline` prints.
 *
 * A lane's cell shows the share of its time the lane is busy: eighth blocks
 * (U+258F to U+2588) when utf8, else ' ', '-' (under 1/2), '=' (under 7/8
 * rounded), '#'; a busy cell shows at least the thinnest mark. Where eight or
 * more full cells in a row stand for one event (timeline.h's osc_tl_cell
 * `shown`), its name is written over them (cut in the middle when longer),
 * and over three or more when it fits whole. A device's union lane shows its
 * idle cells (busy 0: the GPU did nothing then) as a middle dot ('.').
 */
#ifndef OPSCOPE_TIMELINE_DRAW_H
#define OPSCOPE_TIMELINE_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/demangle.h"
#include "opscope/analysis/timeline.h"

/* What a cell shows, for the front end's styles. */
enum osc_tl_look {
	OSC_TL_LOOK_EMPTY,  /* nothing (or text of a label column) */
	OSC_TL_LOOK_BAR,    /* busy */
	OSC_TL_LOOK_NAME,   /* an event's name on its bar */
	OSC_TL_LOOK_MARKED, /* busy, a marked event among it */
	OSC_TL_LOOK_MARKED_NAME,
	OSC_TL_LOOK_IDLE,   /* a device idle */
	OSC_TL_LOOK_RULER,  /* the time ruler */
};

/* A cell: one glyph one column wide (a wide character: "" in the next cell). */
struct osc_tl_glyph {
	char glyph[5];
	uint8_t look; /* enum osc_tl_look */
};

/* A window: cells [0, width) from t0, cell ns each. */
struct osc_tl_window {
	int64_t t0, cell;
	size_t width;
};

/*
 * The window of `width` cells from `from` over [from, to): cells of
 * ceil((to - from) / width) ns, at least 1.
 */
struct osc_tl_window osc_tl_window_fit(int64_t from, int64_t to, size_t width);

/*
 * Lane `lane` of tl (built from t; kernel names through names, NULL: as
 * written) over window w into out[0 .. w->width), with marked[0 ..
 * nr_marked) its marked intervals (timeline.h). scratch: w->width cells.
 */
void osc_tl_draw_lane(const struct osc_trace *t, const struct osc_names *names,
		      const struct osc_timeline *tl, size_t lane, const struct osc_tl_window *w,
		      const size_t *marked, size_t nr_marked, bool utf8,
		      struct osc_tl_cell *scratch, struct osc_tl_glyph *out);

/* The ruler over window w: every 16 cells a bar and the time since origin. */
void osc_tl_draw_ruler(const struct osc_tl_window *w, int64_t origin, bool utf8,
		       struct osc_tl_glyph *out);

/*
 * Text s fitted into cells out[0 .. width) (one character a cell, wide ones
 * two), in look; the cells after it are left as they are. Returns the cells
 * written.
 */
size_t osc_tl_put_text(struct osc_tl_glyph *out, size_t width, const char *s, uint8_t look,
		       bool utf8);

/* A time in ns as short text: "12.35ms", "3.2us", "87ns", "1.5s". */
void osc_tl_short_time(int64_t ns, char *buf, size_t size);

/* An event's name as drawn: a kernel's through names (when given), else as written. */
const char *osc_tl_event_name(const struct osc_trace *t, const struct osc_names *names,
			      uint32_t ev);

/*
 * The lanes lanes[0 .. nr) of tl over [from, to) as a table (export.h): per
 * lane its process, thread (or "all": the process's union lane), depth,
 * the events overlapping the window and the time it is busy in it, in µs and
 * as a percentage of the window. ctx must outlive the table.
 */
struct osc_tl_table {
	const struct osc_trace *t;
	const struct osc_timeline *tl;
	const size_t *lanes;
	size_t nr;
	int64_t from, to;
};
struct osc_table;
void osc_tl_table(const struct osc_tl_table *ctx, struct osc_table *out);

#endif
