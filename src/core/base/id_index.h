/*
 * id_index.h - ids to the first value added with each (private to the
 * core): the correlator's correlation, External and flow id lookups.
 */
#ifndef OPSCOPE_ID_INDEX_H
#define OPSCOPE_ID_INDEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Profilers count their ids up from a counter, so a trace's ids come in
 * dense stretches (one per capture, or per copy of a scaled trace): they
 * are held in pages of 4,096 ids, allocated where some id falls, and
 * answer in two reads. Ids too scattered for that are sorted and bisected.
 */
struct osc_id_index {
	uint64_t *pairs;   /* id << 32 | value: as added, then sorted when scattered */
	size_t nr, alloc;
	uint32_t **pages;  /* paged: per page of ids from lo, NULL or its first values */
	size_t nr_pages;
	uint32_t lo;
};

/* Room for n ids in all, so that adding them copies nothing. */
void osc_id_index_reserve(struct osc_id_index *x, size_t n);

/* Add id with value val; values are added in increasing order. */
void osc_id_index_add(struct osc_id_index *x, uint32_t id, uint32_t val);

/* Make the index answer (after the last add, before the first get). */
void osc_id_index_finish(struct osc_id_index *x);

/* The first (smallest) value added with id, or UINT32_MAX when none was. */
uint32_t osc_id_index_get(const struct osc_id_index *x, uint32_t id);

/* Free the index; it reads as empty afterwards. */
void osc_id_index_release(struct osc_id_index *x);

#endif
