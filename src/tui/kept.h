/*
 * kept.h - results a view has left (a level's rows, a comparison), kept to
 * show again at once when the view comes back to them while the runs and
 * the filter stay (the same tui->gen). Kept results take at most
 * OSC_KEPT_BYTES per view; those left longest ago are dropped first, and
 * those of another generation when a result is put or forgotten.
 */
#ifndef OPSCOPE_TUI_KEPT_H
#define OPSCOPE_TUI_KEPT_H

#include <stddef.h>

#define OSC_KEPT_BYTES ((size_t)512 << 20)

struct osc_kept_entry {
	void *result;
	size_t bytes;       /* about what it holds */
	unsigned key;       /* what it is of (a level, a level and a match mode) */
	unsigned gen;       /* the tui->gen it was built for */
	unsigned long left; /* when it was put: its age */
};

struct osc_kept {
	struct osc_kept_entry *v;
	size_t nr, alloc;
	unsigned long puts;
	void (*release)(void *result); /* frees a result */
};

/* Keep result (of bytes, made for gen) under key, in place of the one there; see top. */
void osc_kept_put(struct osc_kept *k, unsigned key, unsigned gen, void *result, size_t bytes);

/* Free the results kept for another gen than gen (the runs or the filter changed). */
void osc_kept_forget(struct osc_kept *k, unsigned gen);

/* The result kept under key for gen, taken out of k; NULL when none. */
void *osc_kept_take(struct osc_kept *k, unsigned key, unsigned gen);

/* Free every kept result. */
void osc_kept_release(struct osc_kept *k);

#endif
