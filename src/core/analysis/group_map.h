/*
 * group_map.h - group keys to dense group indices, for aggregate.c (private
 * to the core).
 *
 * A group is a row of an aggregate: the events sharing a key. Indices are
 * given in the order keys are first added, which aggregate.c relies on to
 * merge the maps of several threads into the order one thread would give.
 */
#ifndef OPSCOPE_GROUP_MAP_H
#define OPSCOPE_GROUP_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/base/strtab.h"

/* Identity of a row; all 32-bit fields, so no padding bytes enter the hash. */
struct osc_group_key {
	osc_str name, shape, op;
	uint32_t run;
	int32_t dims[6];
	uint32_t node; /* path level: the merged tree node */
	uint32_t op_shape; /* host ops keyed by op and shape: the pair's id (osc_brief) */
	uint32_t cat;      /* category level: enum osc_category */
};

/* The key of no row yet: no name, shape, op or node, no run, unknown dims. */
static inline void osc_group_key_init(struct osc_group_key *k)
{
	*k = (struct osc_group_key){ .run = UINT32_MAX, .dims = { -1, -1, -1, -1, -1, -1 },
				     .op_shape = UINT32_MAX };
}

/*
 * Open addressing with linear probing. When one dense id decides the whole
 * key (direct_key: the name at the op and kernel levels, the run at the run
 * level, the merged node at the path level, the op_shape pair at the shape
 * level, the category at the category level), a table by that id stands in
 * for the hash; keys whose id falls outside it still go through the hash.
 */
struct osc_group_map {
	struct osc_group_key *keys;
	uint32_t *count;     /* per group: events in it */
	size_t nr, alloc;
	size_t room;         /* reserved: the groups keys and count have room for (osc_xroom) */
	uint64_t *slots;     /* the key's hash, high half, over its group index; all ones:
				empty (a probe reads a group's key only when the hashes
				agree) */
	size_t nslots;       /* power of two, at least twice nr */
	unsigned direct_key; /* OSC_KEY_NAME, _RUN, _PATH, _CATEGORY or _NAME | _SHAPE; 0: none */
	uint32_t *direct;    /* id -> group index, UINT32_MAX = none yet */
	size_t ndirect;
};

/* Look keys up by a table of n ids of the field that direct_key names. */
void osc_group_map_direct(struct osc_group_map *m, unsigned direct_key, size_t n);
/*
 * Room for n groups (a bound known before the first is added, e.g. the
 * events to be grouped), where a map growing to a million groups would copy
 * its keys at every step of its growth: room (osc_xroom) of which only the
 * part used is ever touched. A map that outgrows it moves to the heap and
 * grows there.
 */
void osc_group_map_reserve(struct osc_group_map *m, size_t n);
/* Index of key k, added (with count 0) when new. Invalidates m->keys and m->count. */
uint32_t osc_group_map_index(struct osc_group_map *m, const struct osc_group_key *k);
/* Index of key k, or UINT32_MAX when absent. */
uint32_t osc_group_map_find(const struct osc_group_map *m, const struct osc_group_key *k);
void osc_group_map_release(struct osc_group_map *m);

#endif
