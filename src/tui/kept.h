/*
 * kept.h - results a view has left (a level's rows, a comparison), kept to
 * show again at once when the view comes back to them under the same runs
 * and filter: the same tui->gen, a state that may come back (states.h).
 * Kept results take at most a budget per view (osc_kept_budget); those left
 * longest ago are dropped first, and those of states no longer known when a
 * result is retired or offered. A result is a struct moved in and out by
 * value (its size given), freed by release.
 */
#ifndef OPSCOPE_TUI_KEPT_H
#define OPSCOPE_TUI_KEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "states.h"

#define OSC_KEPT_MIN ((size_t)512 << 20) /* the least budget, on any machine */
#define OSC_KEPT_MAX ((size_t)4 << 30)   /* the most */

struct osc_kept_entry {
	void *result;       /* a copy of the struct */
	size_t bytes;       /* about what it holds */
	unsigned key;       /* what it is of (a level, a level and a match mode) */
	unsigned gen;       /* the tui->gen (state) it was built for */
	unsigned long left; /* when it was left: its age (0: offered, never shown) */
};

struct osc_kept {
	struct osc_kept_entry *v;
	size_t nr, alloc;
	unsigned long puts;
	size_t budget;      /* the bytes kept results may hold */
	bool free_apart;    /* free what is dropped (8 MiB or more) on a thread of its own:
			       hundreds of MiB take 50-150 ms to give back, which a key
			       must not wait for */
	void (*release)(void *result); /* frees what a result holds (not the struct) */
	const struct osc_states *states; /* the states whose results are worth keeping */
};

/* The budget of one view for a process that may use memory bytes: a
   sixteenth of it (the table and the compare view over it take at most an
   eighth), within OSC_KEPT_MIN .. OSC_KEPT_MAX. */
size_t osc_kept_budget_for(uint64_t memory);

/* The budget of this process: osc_kept_budget_for osc_memory_limit. */
size_t osc_kept_budget(void);

/*
 * The result at shown (a struct of size bytes, holding about bytes, built
 * for gen) makes way for another: kept under key and gen, in place of the
 * one there, when keep and gen is a known state; else released (apart, as
 * what is dropped). shown is zeroed.
 */
void osc_kept_retire(struct osc_kept *k, bool keep, unsigned key, unsigned gen, void *shown,
		     size_t size, size_t bytes);

/* Move the result kept under key for gen into out (size bytes); false when none. */
bool osc_kept_take(struct osc_kept *k, unsigned key, unsigned gen, void *out, size_t size);

/* Whether a result is kept under key for gen. */
bool osc_kept_has(const struct osc_kept *k, unsigned key, unsigned gen);

/*
 * A result computed before it was asked for (a struct of size bytes at
 * result, holding about bytes, built for gen, a known state; now: the
 * current one): kept under key when it fits in what the budget has left,
 * dropping no other result but those of states other than gen and now, the
 * oldest first; result is then zeroed. false: not kept, and result is left
 * to the caller.
 */
bool osc_kept_offer(struct osc_kept *k, unsigned key, unsigned gen, unsigned now, void *result,
		    size_t size, size_t bytes);

/*
 * Free result (a struct of size bytes, holding about bytes) as what is
 * dropped: apart when k frees big results apart. result is zeroed.
 */
void osc_kept_dispose(const struct osc_kept *k, void *result, size_t size, size_t bytes);

/* Free every kept result. */
void osc_kept_release(struct osc_kept *k);

#endif
