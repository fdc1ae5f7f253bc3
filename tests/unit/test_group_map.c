/* test_group_map.c - group keys to dense indices: reserved or grown, direct or hashed. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "../../src/core/analysis/group_map.h"
#include "opscope/analysis/aggregate.h"

#define NR_KEYS 5000
#define NDIRECT 64 /* names below it go through the direct table, the others the hash */

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* Key i of a sequence with repeats: names from 0 to 299, a run now and then. */
static struct osc_group_key key_at(uint64_t *seed)
{
	struct osc_group_key k;
	uint64_t r = next_random(seed);

	osc_group_key_init(&k);
	k.name = (osc_str)(r % 300);
	return k;
}

/*
 * Index NR_KEYS keys into m and into a map made without any room reserved:
 * the same index for each, the same counts, and every key found again.
 */
static void expect_as_grown(struct osc_group_map *m, unsigned direct)
{
	struct osc_group_map plain = { 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (direct)
		osc_group_map_direct(&plain, direct, NDIRECT);
	for (size_t i = 0; i < NR_KEYS; i++) {
		struct osc_group_key k = key_at(&seed);
		uint32_t g = osc_group_map_index(m, &k), want = osc_group_map_index(&plain, &k);

		cr_assert_eq(g, want, "key %zu (name %u): group %u, grown map's %u", i, k.name, g,
			     want);
		m->count[g]++;
		plain.count[want]++;
	}
	cr_assert_eq(m->nr, plain.nr);
	cr_assert_eq(m->nr, 300, "every name once: %zu groups", m->nr);
	for (size_t g = 0; g < m->nr; g++) {
		cr_assert_eq(m->keys[g].name, plain.keys[g].name, "group %zu", g);
		cr_assert_eq(m->count[g], plain.count[g], "group %zu", g);
		cr_assert_eq(osc_group_map_find(m, &m->keys[g]), g, "group %zu", g);
	}
	osc_group_map_release(&plain);
}

Test(group_map, reserved_room_too_small_grows_with_the_same_indices)
{
	struct osc_group_map m = { 0 };

	osc_group_map_direct(&m, OSC_KEY_NAME, NDIRECT);
	osc_group_map_reserve(&m, 3);
	cr_assert_eq(m.alloc, 3);
	expect_as_grown(&m, OSC_KEY_NAME);
	cr_assert_geq(m.alloc, 300);
	osc_group_map_release(&m);
}

Test(group_map, reserved_room_for_all_is_not_grown)
{
	struct osc_group_map m = { 0 };
	const struct osc_group_key *keys;

	osc_group_map_reserve(&m, 300);
	keys = m.keys;
	expect_as_grown(&m, 0);
	cr_assert_eq(m.keys, keys, "the keys moved: the map grew past the room it had");
	cr_assert_eq(m.alloc, 300);
	osc_group_map_release(&m);
}

Test(group_map, reserving_after_the_first_group_changes_nothing)
{
	struct osc_group_map m = { 0 };
	struct osc_group_key k;

	osc_group_key_init(&k);
	k.name = 7;
	cr_assert_eq(osc_group_map_index(&m, &k), 0);
	osc_group_map_reserve(&m, 1000);
	cr_assert_eq(m.nr, 1);
	cr_assert_eq(osc_group_map_find(&m, &k), 0);
	cr_assert_eq(m.keys[0].name, 7);
	osc_group_map_release(&m);
}

/*
 * Room of 1 MiB and more is a mapping of its own (osc_xroom), and so is a
 * direct table as big: a map that outgrows such room moves to the heap and
 * gives the indices and counts of a map grown from nothing; names past the
 * direct table go through the hash.
 */
Test(group_map, big_room_outgrown_gives_the_indices_of_a_grown_map)
{
	enum { BIG_DIRECT = 300000, RESERVED = 25000, DISTINCT = 50000 };
	struct osc_group_map m = { 0 }, plain = { 0 };

	osc_group_map_direct(&m, OSC_KEY_NAME, BIG_DIRECT);
	osc_group_map_direct(&plain, OSC_KEY_NAME, BIG_DIRECT);
	osc_group_map_reserve(&m, RESERVED);
	cr_assert_eq(m.room, RESERVED);
	cr_assert_geq(RESERVED * sizeof(*m.keys), (size_t)1 << 20, "the keys' room is mapped");
	for (size_t i = 0; i < 2 * DISTINCT; i++) {
		struct osc_group_key k;
		uint32_t g, want;

		osc_group_key_init(&k);
		/* 7919 is prime to 320000: distinct names, 1 in 16 past the direct table */
		k.name = (osc_str)((i % DISTINCT) * 7919 % (BIG_DIRECT + 20000));
		g = osc_group_map_index(&m, &k);
		want = osc_group_map_index(&plain, &k);
		cr_assert_eq(g, want, "key %zu (name %u): group %u, grown map's %u", i, k.name, g,
			     want);
		m.count[g]++;
		plain.count[want]++;
	}
	cr_assert_eq(m.room, 0, "outgrown, the map is on the heap");
	cr_assert_eq(m.nr, DISTINCT);
	cr_assert_eq(plain.nr, DISTINCT);
	for (size_t g = 0; g < m.nr; g++) {
		cr_assert_eq(m.keys[g].name, plain.keys[g].name, "group %zu", g);
		cr_assert_eq(m.count[g], 2, "group %zu", g);
		cr_assert_eq(osc_group_map_find(&m, &m.keys[g]), g, "group %zu", g);
	}
	osc_group_map_release(&m);
	osc_group_map_release(&plain);
}

/*
 * Keys of several fields through the hash (no direct table), its slots
 * holding part of each key's hash beside its group: each distinct key a new
 * group, in order, and found again.
 */
Test(group_map, distinct_keys_through_the_hash_are_distinct_groups)
{
	enum { N = 200000 };
	struct osc_group_map m = { 0 };

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < N; i++) {
			struct osc_group_key k;

			osc_group_key_init(&k);
			k.name = i % 1000;
			k.shape = i / 1000;
			k.dims[5] = (int32_t)(i % 7);
			cr_assert_eq(osc_group_map_index(&m, &k), i, "pass %d key %u", pass, i);
			cr_assert_eq(osc_group_map_find(&m, &k), i, "pass %d key %u", pass, i);
		}
		cr_assert_eq(m.nr, N);
	}
	osc_group_map_release(&m);
}
