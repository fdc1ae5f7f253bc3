/*
 * mapguard.h - reading a mapped file that another program may shrink or
 * rewrite (private to the core).
 *
 * A profiler that runs again into the same file truncates it while opscope
 * has it mapped: reading a page past the new end raises SIGBUS. A watched
 * mapping catches that: the SIGBUS handler (installed once, process-wide)
 * replaces the whole mapping with zero pages, notes the fault and returns, so
 * the thread that read goes on over zeros instead of dying; the owner asks
 * osc_mapguard_shrunk() before trusting what it read. A fault anywhere else
 * goes to the handler that was there before (or kills the process as
 * SIGBUS does by default), so a front end that sets its own SIGBUS handler
 * does it before the first load.
 *
 * osc_mapguard_changed() also compares the file's size and modification
 * time with those it had when the watch began: a file rewritten in place at
 * the same length faults nothing but no longer holds what was loaded.
 */
#ifndef OPSCOPE_MAPGUARD_H
#define OPSCOPE_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct osc_mapguard;

/*
 * Watch the mapping map[0..len) of the open file fd (duplicated: the caller
 * may close fd). Returns the watch (never NULL); when 64 mappings are
 * watched already, the new one only has the size and time check.
 */
struct osc_mapguard *osc_mapguard_watch(const void *map, size_t len, int fd);

/*
 * Whether the file shrank below the mapping: a read faulted, or the file is
 * shorter now. *size (may be NULL) gets the file's size now. Safe from any
 * thread; g may be NULL (false).
 */
bool osc_mapguard_shrunk(const struct osc_mapguard *g, uint64_t *size);

/*
 * Whether the mapping no longer holds what the file held when the watch
 * began: it shrank, or its size or modification time changed. g may be
 * NULL (false).
 */
bool osc_mapguard_changed(const struct osc_mapguard *g);

/* Whether a read of the mapping faulted (no system call: for hot paths). */
bool osc_mapguard_faulted(const struct osc_mapguard *g);

/* Stop watching (call before unmapping) and free g (NULL is fine). */
void osc_mapguard_free(struct osc_mapguard *g);

#endif
