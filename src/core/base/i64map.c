/* i64map.c - the map from 64-bit keys to 32-bit values (i64map.h). */
#include "base/i64map.h"

#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "base/hash.h"

/* The slot holding key, or the free slot where it would go. */
static size_t find(const struct osc_i64map *m, int64_t key)
{
	size_t mask = m->size - 1, i = (size_t)osc_mix64((uint64_t)key) & mask;

	while (m->vals[i] != OSC_I64MAP_EMPTY && m->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

static void grow(struct osc_i64map *m)
{
	struct osc_i64map old = *m;

	m->size = old.size ? old.size * 2 : 64;
	m->keys = osc_xmalloc(m->size * sizeof(*m->keys));
	m->vals = osc_xmalloc(m->size * sizeof(*m->vals));
	memset(m->vals, 0xff, m->size * sizeof(*m->vals));
	for (size_t i = 0; i < old.size; i++)
		if (old.vals[i] != OSC_I64MAP_EMPTY) {
			size_t s = find(m, old.keys[i]);

			m->keys[s] = old.keys[i];
			m->vals[s] = old.vals[i];
		}
	free(old.keys);
	free(old.vals);
}

uint32_t osc_i64map_get(const struct osc_i64map *m, int64_t key)
{
	return m->size ? m->vals[find(m, key)] : OSC_I64MAP_EMPTY;
}

uint32_t *osc_i64map_slot(struct osc_i64map *m, int64_t key)
{
	size_t s;

	if (2 * (m->used + 1) > m->size)
		grow(m);
	s = find(m, key);
	if (m->vals[s] == OSC_I64MAP_EMPTY) {
		m->keys[s] = key;
		m->used++;
	}
	return &m->vals[s];
}

void osc_i64map_release(struct osc_i64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
