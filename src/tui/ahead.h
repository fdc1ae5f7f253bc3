/*
 * ahead.h - results a view computes before they are asked for (its rows at
 * other levels or in other match modes, the table's under the runs w would
 * select), one at a time on a worker, and offers to its kept results
 * (kept.h): kept when they fit in what the budget has left, so that a first
 * visit shows at once. A result that did not fit is not computed again for
 * the same state (tui->gen).
 */
#ifndef OPSCOPE_TUI_AHEAD_H
#define OPSCOPE_TUI_AHEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "kept.h"

#define OSC_AHEAD_MAX 64

struct osc_ahead {
	struct {
		unsigned key, gen;
	} too_big[OSC_AHEAD_MAX]; /* results that did not fit */
	size_t nr_too_big;
};

/* Whether the result under key is worth computing ahead for gen: not kept, not too big. */
bool osc_ahead_wanted(const struct osc_ahead *a, const struct osc_kept *k, unsigned key,
		      unsigned gen);

/*
 * The result under key, computed ahead for gen, is done: offered to k when
 * gen is a known state (states.h) and the result is not that of the rows
 * shown (key shown for gen now, the current state); noted too big when it
 * does not fit. What is not kept is freed as k frees what it drops (apart
 * when big); result is zeroed either way.
 */
void osc_ahead_done(struct osc_ahead *a, struct osc_kept *k, unsigned key, unsigned gen,
		    unsigned now, unsigned shown, void *result, size_t size, size_t bytes);

#endif
