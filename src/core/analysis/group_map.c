/* group_map.c - group keys to dense indices (group_map.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/group_map.h"
#include "opscope/analysis/aggregate.h"
#include "opscope/base/alloc.h"

/*
 * The key's 32-bit words times distinct odd constants, summed (independent
 * multiplies, so they overlap), then mixed: one hash per selected event, so
 * it must be cheap.
 */
static uint64_t key_hash(const struct osc_group_key *k)
{
	static const uint64_t mul[] = {
		0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull,
		0xd6e8feb86659fd93ull, 0xff51afd7ed558ccdull, 0xc4ceb9fe1a85ec53ull,
		0x94d049bb133111ebull, 0xbf58476d1ce4e5b9ull, 0x2545f4914f6cdd1dull,
		0x9fb21c651e98df25ull, 0xd1b54a32d192ed03ull, 0xaef17502108ef2d9ull, 0xe7037ed1a0b428dbull,
	};
	uint32_t w[sizeof(*k) / 4];
	uint64_t h = 0;

	_Static_assert(sizeof(mul) / sizeof(mul[0]) == sizeof(w) / sizeof(w[0]),
		       "one constant per key word");
	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h += (uint64_t)w[i] * mul[i];
	h ^= h >> 31;
	h *= 0x7fb5d329728ea185ull;
	return h ^ (h >> 27);
}

#define EMPTY_SLOT UINT64_MAX

/* The slot of group g, whose key hashes to h: the hash's high half over g. */
static uint64_t slot_of(uint64_t h, uint32_t g)
{
	return (h & 0xffffffff00000000ull) | g;
}

static void rehash(struct osc_group_map *m, size_t nslots)
{
	free(m->slots);
	m->nslots = nslots;
	m->slots = osc_xmalloc(nslots * sizeof(*m->slots));
	memset(m->slots, 0xff, nslots * sizeof(*m->slots));
	for (size_t g = 0; g < m->nr; g++) {
		uint64_t h = key_hash(&m->keys[g]);
		size_t i = h & (nslots - 1);

		while (m->slots[i] != EMPTY_SLOT)
			i = (i + 1) & (nslots - 1);
		m->slots[i] = slot_of(h, (uint32_t)g);
	}
}

void osc_group_map_direct(struct osc_group_map *m, unsigned direct_key, size_t n)
{
	m->direct_key = direct_key;
	m->ndirect = n;
	/* written whole first: a page read before it is written costs a second fault */
	m->direct = osc_xmalloc_big(n ? n : 1, sizeof(*m->direct));
	memset(m->direct, 0xff, (n ? n : 1) * sizeof(*m->direct));
}

void osc_group_map_reserve(struct osc_group_map *m, size_t n)
{
	if (m->keys || !n)
		return;
	m->room = n;
	m->keys = osc_xroom(n * sizeof(*m->keys));
	m->count = osc_xroom(n * sizeof(*m->count));
	m->alloc = n;
}

/* A reserved map, full: its keys and counts moved to the heap, where they grow. */
static void to_heap(struct osc_group_map *m)
{
	struct osc_group_key *keys = osc_xreallocarray(NULL, m->alloc, sizeof(*keys));
	uint32_t *count = osc_xreallocarray(NULL, m->alloc, sizeof(*count));

	memcpy(keys, m->keys, m->nr * sizeof(*keys));
	memcpy(count, m->count, m->nr * sizeof(*count));
	osc_room_free(m->keys, m->room * sizeof(*m->keys));
	osc_room_free(m->count, m->room * sizeof(*m->count));
	m->keys = keys;
	m->count = count;
	m->room = 0;
}

static uint32_t add(struct osc_group_map *m, const struct osc_group_key *k)
{
	size_t alloc;

	if (m->room && m->nr == m->alloc)
		to_heap(m);
	alloc = m->alloc;

	OSC_GROW(m->keys, m->nr + 1, m->alloc);
	if (m->alloc != alloc || !m->count) /* count grows with keys, not on every add */
		m->count = osc_xreallocarray(m->count, m->alloc, sizeof(*m->count));
	m->keys[m->nr] = *k;
	m->count[m->nr] = 0;
	return (uint32_t)m->nr++;
}

/* The direct table's slot for k, or NULL when k goes through the hash. */
static uint32_t *direct_slot(const struct osc_group_map *m, const struct osc_group_key *k)
{
	uint32_t id = m->direct_key == OSC_KEY_RUN ? k->run :
		      m->direct_key == OSC_KEY_PATH ? k->node :
		      m->direct_key == OSC_KEY_CATEGORY ? k->cat :
		      m->direct_key == (OSC_KEY_NAME | OSC_KEY_SHAPE) ? k->op_shape : k->name;

	return m->direct && id < m->ndirect ? &m->direct[id] : NULL;
}

/* The hash slot holding k (whose hash is h), or the empty slot where it would go (nslots > 0). */
static size_t probe(const struct osc_group_map *m, const struct osc_group_key *k, uint64_t h)
{
	size_t i = h & (m->nslots - 1);

	while (m->slots[i] != EMPTY_SLOT &&
	       ((m->slots[i] ^ h) >> 32 ||
		memcmp(&m->keys[(uint32_t)m->slots[i]], k, sizeof(*k))))
		i = (i + 1) & (m->nslots - 1);
	return i;
}

uint32_t osc_group_map_index(struct osc_group_map *m, const struct osc_group_key *k)
{
	uint32_t *d = direct_slot(m, k);
	size_t i, size = m->nslots ? m->nslots : 64;
	uint64_t h;

	if (d) {
		if (*d == UINT32_MAX)
			*d = add(m, k);
		return *d;
	}
	while ((m->nr + 1) * 2 > size)
		size *= 2;
	if (size != m->nslots)
		rehash(m, size);
	h = key_hash(k);
	i = probe(m, k, h);
	if (m->slots[i] == EMPTY_SLOT)
		m->slots[i] = slot_of(h, add(m, k));
	return (uint32_t)m->slots[i];
}

uint32_t osc_group_map_find(const struct osc_group_map *m, const struct osc_group_key *k)
{
	const uint32_t *d = direct_slot(m, k);

	if (d)
		return *d;
	return m->nslots ? (uint32_t)m->slots[probe(m, k, key_hash(k))] : UINT32_MAX;
}

void osc_group_map_release(struct osc_group_map *m)
{
	if (m->room) {
		osc_room_free(m->keys, m->room * sizeof(*m->keys));
		osc_room_free(m->count, m->room * sizeof(*m->count));
	} else {
		free(m->keys);
		free(m->count);
	}
	free(m->slots);
	free(m->direct);
	memset(m, 0, sizeof(*m));
}
