/* test_id_index.c - ids to their first value: paged and sorted, against a scan. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../src/core/base/id_index.h"

#define NONE UINT32_MAX

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* The first value added with id: a scan of what was added. */
static uint32_t scan(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return (uint32_t)i;
	return NONE;
}

/* Add ids[i] with value i, then ask every id added, its neighbours and the extremes. */
static void check(const uint32_t *ids, size_t n, bool paged)
{
	struct osc_id_index x = { 0 };

	for (size_t i = 0; i < n; i++)
		osc_id_index_add(&x, ids[i], (uint32_t)i);
	osc_id_index_finish(&x);
	cr_assert_eq(x.pages != NULL, paged, "paged %d, expected %d", x.pages != NULL, paged);
	for (size_t i = 0; i < n; i++)
		for (int64_t d = -1; d <= 1; d++) {
			uint32_t id = ids[i] + (uint32_t)d; /* wraps at the ends, as an id may */

			cr_assert_eq(osc_id_index_get(&x, id), scan(ids, n, id), "id %u", id);
		}
	cr_assert_eq(osc_id_index_get(&x, 0), scan(ids, n, 0));
	cr_assert_eq(osc_id_index_get(&x, UINT32_MAX), scan(ids, n, UINT32_MAX));
	osc_id_index_release(&x);
	cr_assert_eq(osc_id_index_get(&x, ids[0]), NONE, "released reads as empty");
}

Test(id_index, empty)
{
	struct osc_id_index x = { 0 };

	osc_id_index_finish(&x);
	cr_expect_eq(osc_id_index_get(&x, 0), NONE);
	cr_expect_eq(osc_id_index_get(&x, 7), NONE);
	osc_id_index_release(&x);
}

/* A counter's ids, repeated (a launch and its kernels share one): the first value wins. */
Test(id_index, dense_with_repeats)
{
	uint32_t ids[3000];

	for (size_t i = 0; i < 3000; i++)
		ids[i] = 1766883 + (uint32_t)(i % 1000) * 3;
	check(ids, 3000, true);
}

/* Stretches far apart (captures, copies of a scaled trace): pages where ids are only. */
Test(id_index, stretches_far_apart)
{
	uint32_t ids[6000];

	for (size_t i = 0; i < 6000; i++)
		ids[i] = (uint32_t)(i % 3) * 100000000u + (uint32_t)(i / 3) * 2;
	check(ids, 6000, true);
}

/* Ids at the very ends of the range: the page arithmetic must not wrap. */
Test(id_index, extremes)
{
	uint32_t ids[] = { UINT32_MAX - 1, UINT32_MAX - 4096, UINT32_MAX - 1, UINT32_MAX - 9000 };

	check(ids, 4, true);
	uint32_t low[] = { 0, 4095, 4096, 0, 1 };

	check(low, 5, true);
}

/* Scattered ids (wide ids among small ones, hashes): sorted and bisected. */
Test(id_index, scattered)
{
	uint32_t ids[4000];
	uint64_t s = 88172645463325252ull;

	for (size_t i = 0; i < 4000; i++)
		ids[i] = i % 5 == 4 ? ids[i - 3] : (uint32_t)next_random(&s);
	check(ids, 4000, false);
}

/* Mostly dense but for a few far ids: the page table over the span is too big. */
Test(id_index, dense_but_for_a_far_id)
{
	uint32_t ids[2000];

	for (size_t i = 0; i < 2000; i++)
		ids[i] = (uint32_t)i;
	ids[1000] = 0x80000005u; /* a wide id */
	check(ids, 2000, false);
}

/* Room reserved for every id: adding them keeps the table where it is, and answers the same. */
Test(id_index, reserved)
{
	struct osc_id_index x = { 0 };
	uint64_t s = 2463534242ull;
	uint32_t ids[3000];
	const uint64_t *room;

	for (size_t i = 0; i < 3000; i++)
		ids[i] = (uint32_t)(next_random(&s) % 5000);
	osc_id_index_reserve(&x, 3000);
	room = x.pairs;
	osc_id_index_reserve(&x, 10); /* less than there is: nothing changes */
	cr_assert_eq(x.pairs, room);
	for (size_t i = 0; i < 3000; i++)
		osc_id_index_add(&x, ids[i], (uint32_t)i);
	cr_assert_eq(x.pairs, room, "the table moved while ids were added");
	osc_id_index_finish(&x);
	for (size_t i = 0; i < 3000; i++)
		cr_assert_eq(osc_id_index_get(&x, ids[i]), scan(ids, 3000, ids[i]), "id %u",
			     ids[i]);
	osc_id_index_release(&x);
}
