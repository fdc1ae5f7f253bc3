/*
 * threads.h - how many threads the core may use for one piece of work
 * (parsing, aggregating, building caches), and work on a thread of its own.
 *
 * The default is every CPU the process may run on (its affinity mask, so a
 * container's or taskset's limit holds), at most OSC_THREADS_MAX. A front
 * end caps it once at start-up (-j N, OPSCOPE_THREADS). The decoder thread of
 * a compressed input and the explorer's own background threads come on top.
 */
#ifndef OPSCOPE_THREADS_H
#define OPSCOPE_THREADS_H

#include <stdbool.h>
#include <stddef.h>

#include "opscope/base/status.h"

/* The most threads the core starts for one piece of work. */
#define OSC_THREADS_MAX 64

/* Cap the threads at n (0: no cap). Call before any other thread runs. */
void osc_threads_cap(size_t n);

/* The threads to use: the CPUs of the affinity mask, capped; 1 to OSC_THREADS_MAX. */
size_t osc_threads(void);

/*
 * Run fn(arg) on a thread of its own that nobody joins (work a caller must
 * not wait for, as freeing big results); false when none could start, and
 * fn was not run.
 */
bool osc_thread_detached(void *(*fn)(void *), void *arg);

/*
 * Parse a thread count for subject (an option or variable name): a whole
 * number from 1 to OSC_THREADS_MAX, or 0 for no cap; OSC_USAGE otherwise.
 */
enum osc_status osc_threads_parse(const char *s, const char *subject, size_t *out,
				  struct osc_error *err);

#endif
