/*
 * parallel.h - run a few independent pieces of work on all cores (private to
 * the core).
 */
#ifndef OPSCOPE_PARALLEL_H
#define OPSCOPE_PARALLEL_H

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

#endif
