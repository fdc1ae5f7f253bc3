/* test_radix.c - the core's sort helpers: stable radix sort, permutation in place, grouping. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/base/group_by.h"
#include "../../src/core/base/radix.h"

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* An item of an odd size, so that the permutation cannot move it as a word. */
struct item {
	uint32_t id;
	char pad[19];
};

/* Permute n items by src, which a shuffle, the identity or a reversal gives. */
static void check_permute(size_t n, int how, uint64_t seed)
{
	struct item *it = calloc(n ? n : 1, sizeof(*it));
	uint32_t *src = malloc((n ? n : 1) * sizeof(*src)), *want = malloc((n ? n : 1) * 4);

	for (size_t i = 0; i < n; i++) {
		it[i].id = (uint32_t)i;
		it[i].pad[18] = (char)i;
		src[i] = (uint32_t)(how == 2 ? n - 1 - i : i);
	}
	for (size_t i = n; how == 1 && i > 1; i--) { /* Fisher-Yates */
		size_t j = next_random(&seed) % i;
		uint32_t x = src[i - 1];

		src[i - 1] = src[j];
		src[j] = x;
	}
	memcpy(want, src, n * sizeof(*src));
	osc_permute(it, n, sizeof(*it), src);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(it[i].id, want[i], "n %zu how %d: item %zu is %u, want %u", n, how, i,
			     it[i].id, want[i]);
		cr_assert_eq(it[i].pad[18], (char)want[i]);
		cr_assert_eq(src[i], i, "src is left as the identity");
	}
	free(it);
	free(src);
	free(want);
}

Test(radix, permute_moves_each_item_to_where_src_names_it)
{
	for (int how = 0; how < 3; how++)
		for (size_t n = 0; n < 40; n++)
			check_permute(n, how, 0x9e3779b97f4a7c15ULL + n);
	check_permute(100000, 1, 42);
}

Test(radix, sorted_pairs_then_permuted_give_the_items_in_key_order_stably)
{
	enum { N = 5000 };
	uint64_t seed = 7, *k = malloc(N * sizeof(*k));
	uint32_t *idx = malloc(N * sizeof(*idx));
	struct item *it = malloc(N * sizeof(*it));
	uint64_t key[N];

	for (size_t i = 0; i < N; i++) {
		key[i] = next_random(&seed) % 97; /* many ties */
		k[i] = key[i];
		idx[i] = (uint32_t)i;
		it[i].id = (uint32_t)i;
	}
	osc_radix_sort_pairs(k, idx, N);
	osc_permute(it, N, sizeof(*it), idx);
	for (size_t i = 1; i < N; i++) {
		cr_assert_leq(key[it[i - 1].id], key[it[i].id]);
		if (key[it[i - 1].id] == key[it[i].id])
			cr_assert_lt(it[i - 1].id, it[i].id, "ties keep their order");
	}
	free(k);
	free(idx);
	free(it);
}

/*
 * n keys from `how` (0: 40 random bits, many ties; 1: only the top digit
 * varies; 2: in order but for one key; 3: every key alike but the last),
 * sorted with their indices, come out in order, ties by index: the
 * stable order. Past osc_radix_sort's part per thread, where there are two
 * cores, each part of the keys is counted and moved on its own thread.
 */
static void check_sorted(size_t n, int how, uint64_t seed)
{
	uint64_t *k = malloc(n * sizeof(*k)), *key = malloc(n * sizeof(*key));
	uint32_t *idx = malloc(n * sizeof(*idx));

	for (size_t i = 0; i < n; i++) {
		uint64_t r = next_random(&seed);

		key[i] = how == 0 ? (r >> 24) % 1000003 * 1048573 : how == 1 ? (r % 7) << 60
			 : how == 2 ? (i == n / 2 ? 0 : i) : (i + 1 == n);
		k[i] = key[i];
		idx[i] = (uint32_t)i;
	}
	osc_radix_sort_pairs(k, idx, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(k[i], key[idx[i]], "how %d: key %zu moved without its index", how, i);
		if (i)
			cr_assert(key[idx[i - 1]] < key[idx[i]] ||
					  (key[idx[i - 1]] == key[idx[i]] && idx[i - 1] < idx[i]),
				  "how %d: %zu out of order", how, i);
	}
	free(k);
	free(key);
	free(idx);
}

Test(radix, many_keys_sort_stably)
{
	for (int how = 0; how < 4; how++) {
		check_sorted(1100001, how, 11 + (uint64_t)how); /* two parts of 2^19 */
		check_sorted(37, how, 5);
	}
}

Test(radix, group_cursors_lay_out_the_items_as_group_by_key_does)
{
	enum { N = 20000, NR_KEYS = 300 };
	uint64_t seed = 99;
	uint32_t *key = malloc(N * sizeof(*key)), *laid = malloc(N * sizeof(*laid));
	uint32_t *idx, *first, *at;
	size_t kept = 0;

	for (size_t i = 0; i < N; i++) {
		uint64_t r = next_random(&seed);

		key[i] = r % 10 == 0 ? UINT32_MAX : (uint32_t)(r % (NR_KEYS - 1)); /* key 299: none */
		kept += key[i] != UINT32_MAX;
	}
	osc_group_by_key(key, N, NR_KEYS, &idx, &first);
	at = osc_group_cursors(key, N, NR_KEYS);
	for (size_t i = 0; i < N; i++)
		if (key[i] != UINT32_MAX)
			laid[at[key[i] + 1]++] = (uint32_t)i;
	cr_assert_eq(first[NR_KEYS], kept);
	cr_assert_eq(at[NR_KEYS], kept, "at[nr_keys] is how many");
	cr_assert_eq(at[NR_KEYS - 1], at[NR_KEYS], "the last key has none");
	for (size_t k = 0; k <= NR_KEYS; k++)
		cr_assert_eq(at[k], first[k], "key %zu starts at %u, want %u", k, at[k], first[k]);
	for (size_t i = 0; i < kept; i++) {
		cr_assert_eq(laid[i], idx[i]);
		cr_assert(i == 0 || key[laid[i - 1]] < key[laid[i]] || laid[i - 1] < laid[i]);
	}
	free(key);
	free(laid);
	free(idx);
	free(first);
	free(at);
}
