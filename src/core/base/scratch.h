/*
 * scratch.h - big blocks of scratch whose pages are taken already (private
 * to the core).
 *
 * A sort of a million rows needs 24 MB of scratch for a few milliseconds.
 * Fresh memory costs a page fault and the zeroing of each page, which on a
 * virtual machine took 10 to 20 ms of a 40 to 70 ms answer; glibc maps such
 * blocks anew at each malloc until a free has raised its threshold, per
 * arena. A block given back here is kept for the next taker, on any thread.
 */
#ifndef OPSCOPE_SCRATCH_H
#define OPSCOPE_SCRATCH_H

#include <stddef.h>

/*
 * At least `bytes` of scratch, not zeroed: from OSC_SCRATCH_MIN bytes on, a
 * block kept (the smallest that fits) where one fits, else a new one.
 */
void *osc_scratch_take(size_t bytes);

/*
 * Give back block p from osc_scratch_take (NULL: nothing). A block of
 * OSC_SCRATCH_MIN bytes or more is kept for the next taker while the blocks
 * kept hold at most OSC_SCRATCH_KEPT bytes (the oldest go first); a smaller
 * one (256 pages at most) is freed.
 */
void osc_scratch_give(void *p);

/* The most bytes the blocks given back keep, and the least a block kept holds. */
#define OSC_SCRATCH_KEPT ((size_t)64 << 20)
#define OSC_SCRATCH_MIN ((size_t)1 << 20)

#endif
