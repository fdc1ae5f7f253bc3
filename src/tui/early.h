/*
 * early.h - results of views computed before the view is opened (or, for
 * the what-if view, before its Tab): on a big trace (and in scripts after
 * :ahead), once the warm-up is done and no view computes anything, one at a
 * time on a worker (view_job.h), for the runs and filter of the moment
 * (tui->gen) and what the view would ask (its aim: a level), and kept when
 * it fits in the budget of what a view keeps (kept.h). A view opened then
 * takes its result at once instead of computing it; a view closing may hand
 * its result back for the next opening.
 */
#ifndef OPSCOPE_TUI_EARLY_H
#define OPSCOPE_TUI_EARLY_H

#include <stdbool.h>
#include <stddef.h>

#include "view_job.h"

struct osc_tui;

/* What is computed early, in the order it is. */
enum osc_early_id {
	OSC_EARLY_GPU,  /* the GPU view's breakdown (G: view_gpu.c) */
	OSC_EARLY_TREE, /* the whole merged call tree (T at a kernel: view_tree.c) */
	OSC_EARLY_WHATIF, /* the what-if projection W or its Tab shows next (view_whatif.c) */
	OSC_EARLY_COUNT
};

/* How one result is computed, kept and given back; the view defines it. */
struct osc_early_kind {
	size_t size; /* of the result's struct */
	/* worth computing for t now (it has what the view shows, and no such view is open) */
	bool (*wanted)(const struct osc_tui *t);
	/* optional: which of its results t would take now (a level, a name style); a
	   result for another aim is dropped. NULL: always the same (0) */
	unsigned (*aim)(const struct osc_tui *t);
	/* the result for aim, t's runs in sel and its filter into result (zeroed before) */
	void (*compute)(const struct osc_tui *t, unsigned aim, const struct osc_runsel *sel,
			const struct osc_filter *filter, void *result);
	void (*release)(void *result);
	size_t (*bytes)(const struct osc_tui *t, const void *result); /* about what it holds */
};

struct osc_early {
	const struct osc_early_kind *kind;
	const struct osc_tui *t;
	struct osc_view_job job;
	unsigned gen;  /* the tui->gen it is (being) computed for */
	unsigned aim;  /* and the aim (osc_early_kind) */
	bool ready;    /* result holds it */
	bool too_big;  /* computed for gen, and did not fit */
	void *result;  /* kind->size bytes */
};

extern const struct osc_early_kind osc_early_gpu, osc_early_tree, osc_early_whatif;

/*
 * Take in what finished and drop what the runs or the filter left behind;
 * on a big trace, once views compute ahead (osc_tui_ahead_now) and busy is
 * false (no view computes), start the next result due.
 */
void osc_early_poll(struct osc_tui *t, bool busy);

/* Scripts (:ahead): compute every result due now, and wait for them. */
void osc_early_settle(struct osc_tui *t);

/* Whether a result is being computed. */
bool osc_early_busy(const struct osc_tui *t);

/* Move the result id for t's gen and aim into out (its kind's struct); false when none is ready. */
bool osc_early_take(struct osc_tui *t, enum osc_early_id id, unsigned aim, void *out);

/* A view's result for t's gen and aim, handed back to be taken again (result is zeroed). */
void osc_early_give(struct osc_tui *t, enum osc_early_id id, unsigned aim, void *result);

/* Wait for what is being computed and give every result back. */
void osc_early_release(struct osc_tui *t);

#endif
