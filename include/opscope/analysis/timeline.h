/*
 * timeline.h - the trace as lanes of time, indexed for drawing a window of
 * it in time independent of the number of events (the explorer's timeline
 * view, `opscope timeline`).
 *
 * Lanes: every thread of the trace that holds drawn events (a host thread,
 * or a device stream: the thread a kernel, memcpy or memset is on, as in
 * gpu.h) gets one lane per nesting depth: each event goes to the first lane
 * of its thread, from depth 0, whose last event ended no later than it
 * starts (first fit), so properly nested ops land at their nesting depth and
 * the events of one lane never overlap. Drawn events: complete events of a
 * duration of every kind but python_function frames (tens of levels deep in
 * Kineto traces; the module view shows them) and flows; events deeper than
 * OSC_TL_MAX_DEPTH lanes are left out and counted.
 *
 * Groups: the lanes of one process (pid), processes holding device events
 * after the others. Each group starts with a union lane: the union of the
 * windows of every event of its threads (the process busy, or for a GPU
 * process the device busy of gpu.h, so its gaps are the GPU's idle time).
 *
 * Each lane keeps its intervals' starts and the prefix sums of their
 * lengths; since a lane's intervals do not overlap, its busy time in any
 * window is two binary searches, so drawing W cells of L lanes costs
 * O(L W log n) whatever the window holds.
 */
#ifndef OPSCOPE_TIMELINE_H
#define OPSCOPE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

#define OSC_TL_MAX_DEPTH 64 /* lanes per thread at most */

struct osc_tl_lane {
	uint32_t group;  /* index into timeline->groups */
	uint32_t thread; /* index into trace->threads; OSC_NONE for a union lane */
	uint32_t depth;  /* nesting depth in the thread (0 for a union lane) */
	bool device;     /* a device stream (or the union of one process's streams) */
	size_t nr;       /* intervals */
	int64_t *start;  /* their starts, ascending (ns) */
	int64_t *busy;   /* nr + 1 prefix sums of their lengths: busy[i] = Σ len of 0..i-1 */
	uint32_t *ev;    /* their events (ascending); NULL for a union lane */
};

struct osc_tl_group {
	uint32_t pid_thread; /* a thread of the process (its names) */
	uint32_t first_lane; /* its union lane; its threads' lanes follow */
	uint32_t nr_lanes;   /* with the union lane */
	bool device;
};

struct osc_timeline {
	struct osc_tl_lane *lanes;
	size_t nr_lanes;
	struct osc_tl_group *groups;
	size_t nr_groups;
	int64_t from, to;  /* the drawn events' extent */
	uint64_t too_deep; /* events left out: deeper than OSC_TL_MAX_DEPTH */
};

/* Build the lanes of trace t (release with osc_timeline_release). */
void osc_timeline_build(const struct osc_trace *t, struct osc_timeline *out);
void osc_timeline_release(struct osc_timeline *tl);

/* End of interval i of lane l (start + length). */
static inline int64_t osc_tl_end(const struct osc_tl_lane *l, size_t i)
{
	return l->start[i] + (l->busy[i + 1] - l->busy[i]);
}

/* Busy time of lane l in [a, b) (a <= b), ns. */
int64_t osc_tl_busy(const struct osc_tl_lane *l, int64_t a, int64_t b);

/* Intervals of lane l overlapping [a, b): first index *lo, count returned. */
size_t osc_tl_range(const struct osc_tl_lane *l, int64_t a, int64_t b, size_t *lo);

#define OSC_TL_NONE SIZE_MAX

/* The interval of lane l holding time x ([start, end), or start == x), else OSC_TL_NONE. */
size_t osc_tl_at(const struct osc_tl_lane *l, int64_t x);

/*
 * The first interval of lane l starting after x (dir > 0), or the last one
 * starting before x (dir < 0); OSC_TL_NONE when there is none.
 */
size_t osc_tl_step(const struct osc_tl_lane *l, int64_t x, int dir);

/* One cell of a lane drawn over [a, a + width). */
struct osc_tl_cell {
	int64_t busy;  /* ns of the cell covered by the lane's intervals */
	size_t shown;  /* the interval the cell stands for: the one holding the
			  cell's middle, else the first overlapping it; OSC_TL_NONE */
	bool marked;   /* a marked interval overlaps the cell */
};

/*
 * Cells [0, n) of lane l, cell k covering [t0 + k * width, t0 + (k + 1) *
 * width) (width >= 1). marked[0 .. nr_marked): indexes of marked intervals
 * of the lane, ascending (NULL, 0: none).
 */
void osc_tl_cells(const struct osc_tl_lane *l, int64_t t0, int64_t width, size_t n,
		  const size_t *marked, size_t nr_marked, struct osc_tl_cell *out);

/* The lane of event ev and its index there; false when the event is not drawn. */
bool osc_tl_find(const struct osc_timeline *tl, const struct osc_trace *t, uint32_t ev,
		 size_t *lane, size_t *index);

/*
 * The window of the selected runs (sel of r; NULL or none selected: the
 * drawn events' extent): from the first one's start to the last one's end,
 * or to the end of the last event assigned to them when later (kernels run
 * after the step that launched them). *to > *from.
 */
void osc_tl_runs_window(const struct osc_timeline *tl, const struct osc_runs *r,
			const struct osc_runsel *sel, int64_t *from, int64_t *to);

/*
 * Mark events ev[0 .. n) (any order, repeats allowed): per lane l of tl,
 * (*marked)[l] gets the indexes of its marked intervals, ascending, and
 * (*nr_marked)[l] their number (new arrays: free each list, then both).
 * One pass over the lanes: O(events drawn + n).
 */
void osc_tl_mark(const struct osc_timeline *tl, const struct osc_trace *t, const uint32_t *ev,
		 size_t n, size_t ***marked, size_t **nr_marked);

/*
 * Name of lane l into buf: a union lane its process ("GPU 0" for a device),
 * a thread its name without a leading "thread " (Kineto's "thread 4037
 * (python3.8)" becomes " 4037 (python3.8)"), else "thread TID" / "stream
 * TID"; a deeper lane "  +DEPTH".
 */
void osc_tl_lane_name(const struct osc_timeline *tl, const struct osc_trace *t, size_t l,
		      char *buf, size_t size);

#endif
