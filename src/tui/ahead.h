/*
 * ahead.h - results a view computes before they are asked for (its rows at
 * other levels or in other match modes), one at a time on a worker, and
 * offers to its kept results (kept.h): kept when they fit in what the budget
 * has left, so that a first visit shows at once. A result that did not fit
 * is not computed again for the same runs and filter (tui->gen).
 */
#ifndef OPSCOPE_TUI_AHEAD_H
#define OPSCOPE_TUI_AHEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "kept.h"

#define OSC_AHEAD_MAX 64

struct osc_ahead {
	unsigned gen;                    /* the tui->gen of too_big */
	unsigned too_big[OSC_AHEAD_MAX]; /* keys whose results did not fit */
	size_t nr_too_big;
};

/* Whether the result under key is worth computing ahead for gen: not kept, not too big. */
bool osc_ahead_wanted(const struct osc_ahead *a, const struct osc_kept *k, unsigned key,
		      unsigned gen);

/*
 * The result under key, computed ahead for gen, is done: offered to k when
 * gen is the current one (now) and key is not that of the rows shown
 * (shown); noted too big when it does not fit. What is not kept is freed as
 * k frees what it drops (apart when big); result is zeroed either way.
 */
void osc_ahead_done(struct osc_ahead *a, struct osc_kept *k, unsigned key, unsigned gen,
		    unsigned now, unsigned shown, void *result, size_t size, size_t bytes);

#endif
