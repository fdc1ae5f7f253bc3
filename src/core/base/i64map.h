/*
 * i64map.h - an open-addressing map from 64-bit keys to 32-bit values
 * (private to the core): the loaders' thread keys and string ids.
 */
#ifndef OPSCOPE_I64MAP_H
#define OPSCOPE_I64MAP_H

#include <stddef.h>
#include <stdint.h>

/* The value of an empty slot: never stored. */
#define OSC_I64MAP_EMPTY UINT32_MAX

struct osc_i64map {
	int64_t *keys;
	uint32_t *vals;    /* OSC_I64MAP_EMPTY: the slot is free */
	size_t size, used; /* slots (a power of two, or 0), slots in use */
};

/* The key of a pair of 32-bit ids: hi in the high half (no signed shift). */
static inline int64_t osc_i64map_pair(uint32_t hi, uint32_t lo)
{
	return (int64_t)((uint64_t)hi << 32 | lo);
}

/* The value of key, or OSC_I64MAP_EMPTY when the map has none. */
uint32_t osc_i64map_get(const struct osc_i64map *m, int64_t key);

/*
 * The value slot of key, added as OSC_I64MAP_EMPTY when the map has none
 * (store the value there). Valid until the next call that adds a key.
 */
uint32_t *osc_i64map_slot(struct osc_i64map *m, int64_t key);

/* Free the map; it reads as empty afterwards. */
void osc_i64map_release(struct osc_i64map *m);

#endif
