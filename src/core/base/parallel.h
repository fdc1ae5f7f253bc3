/*
 * parallel.h - run a few independent pieces of work on all cores (private to
 * the core).
 */
#ifndef OPSCOPE_PARALLEL_H
#define OPSCOPE_PARALLEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "opscope/base/threads.h"

/* The most threads the core starts for one piece of work. */
#define OSC_MAX_THREADS OSC_THREADS_MAX


/*
 * How many threads n items are worth: one per per_thread items, at least
 * one, at most one per core.
 */
size_t osc_parallel_parts(size_t n, size_t per_thread);

/*
 * Call fn(arg, i) for every i in [0, n), each on its own thread (i == 0 on
 * the caller's); returns when all have returned. Where a thread cannot be
 * started, the caller's thread runs that piece itself.
 */
void osc_parallel_run(size_t n, void (*fn)(void *arg, size_t i), void *arg);

/*
 * A piece of work that whichever thread comes to it first does (a thread
 * beside the load, or the load's own when that one is late or could not
 * start); the others wait until it is done. Zeroed: not taken.
 */
struct osc_claim {
	_Atomic int state; /* 0 untaken, 1 taken, 2 done */
};

/* Whether this thread takes c's work (then osc_claim_done after it); false when taken. */
static inline bool osc_claim_take(struct osc_claim *c)
{
	int untaken = 0;

	return atomic_compare_exchange_strong(&c->state, &untaken, 1);
}

/* c's work is done: what it wrote may be read. */
static inline void osc_claim_done(struct osc_claim *c)
{
	atomic_store(&c->state, 2);
}

/* Whether c's work is done (what it wrote may be read then). */
static inline bool osc_claim_is_done(struct osc_claim *c)
{
	return atomic_load(&c->state) == 2;
}

#endif
