/* test_strtab.c - string interning: ids, dedupe, growth, NUL bytes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "opscope/base/strtab.h"

static struct osc_strtab st;

static void setup(void)
{
	osc_strtab_init(&st);
}

static void teardown(void)
{
	osc_strtab_release(&st);
}

TestSuite(strtab, .init = setup, .fini = teardown);

Test(strtab, empty_string_is_id_zero)
{
	cr_assert_eq(st.count, 1);
	cr_assert_eq(osc_strtab_intern(&st, "", 0), OSC_STR_EMPTY);
	cr_assert_str_eq(osc_strtab_get(&st, OSC_STR_EMPTY), "");
	cr_assert_eq(osc_strtab_len(&st, OSC_STR_EMPTY), 0);
}

Test(strtab, intern_dedupes_and_find_agrees)
{
	osc_str a = osc_strtab_intern(&st, "aten::conv2d", 12);
	osc_str b = osc_strtab_intern(&st, "aten::add", 9);
	osc_str a2 = osc_strtab_intern(&st, "aten::conv2dXXX", 12); /* same first 12 bytes */

	cr_assert_neq(a, b);
	cr_assert_eq(a, a2);
	cr_assert_eq(st.count, 3);
	cr_assert_eq(osc_strtab_find(&st, "aten::add", 9), b);
	cr_assert_eq(osc_strtab_find(&st, "aten::mul", 9), OSC_STR_NONE);
	cr_assert_str_eq(osc_strtab_get(&st, a), "aten::conv2d");
}

Test(strtab, nul_bytes_are_part_of_the_string)
{
	osc_str a = osc_strtab_intern(&st, "a\0b", 3);
	osc_str b = osc_strtab_intern(&st, "a\0c", 3);
	osc_str c = osc_strtab_intern(&st, "a", 1);

	cr_assert_neq(a, b);
	cr_assert_neq(a, c);
	cr_assert_eq(osc_strtab_len(&st, a), 3);
	cr_assert_eq(memcmp(osc_strtab_get(&st, b), "a\0c", 4), 0);
}

Test(strtab, growth_keeps_ids_and_pointers)
{
	enum { N = 100000 };
	static const char *first;
	char buf[64];

	first = osc_strtab_get(&st, osc_strtab_intern(&st, "first", 5));
	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "name-%d", i);

		cr_assert_eq(osc_strtab_intern(&st, buf, (size_t)n), (osc_str)(i + 2));
	}
	cr_assert_eq(st.count, N + 2);
	cr_assert_eq(osc_strtab_get(&st, 1), first, "bytes moved on growth");
	for (int i = 0; i < N; i += 997) {
		int n = snprintf(buf, sizeof(buf), "name-%d", i);

		cr_assert_eq(osc_strtab_find(&st, buf, (size_t)n), (osc_str)(i + 2));
		cr_assert_str_eq(osc_strtab_get(&st, (osc_str)(i + 2)), buf);
	}
}

/*
 * osc_strtab_bytes counts what the table holds: past the largest chunk (16
 * MiB), chunks of every size are counted as they are, not each as the last.
 * 2M names of 19 bytes: 40 MB of text in 11 chunks; the arrays and slots
 * add at most 16 + 8 bytes per id (alloc and slots grow by doubling).
 */
Test(strtab, bytes_are_those_allocated)
{
	enum { N = 2000000 };
	char buf[64];
	size_t text = 0, bytes;

	for (int i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "aten::op_%010d", i);

		osc_strtab_intern(&st, buf, (size_t)n);
		text += (size_t)n + 1;
	}
	cr_assert_gt(st.nchunks, 9, "past the largest chunk: %zu chunks", st.nchunks);
	bytes = osc_strtab_bytes(&st);
	cr_expect_geq(bytes, text + (size_t)N * 16, "%zu bytes for %zu of text", bytes, text);
	cr_expect_leq(bytes, text + 16 * 1024 * 1024 + (size_t)N * 2 * 24,
		      "%zu bytes for %zu of text", bytes, text);
}

Test(strtab, long_strings_bigger_than_a_chunk)
{
	static char big[200000];

	memset(big, 'k', sizeof(big));
	osc_str a = osc_strtab_intern(&st, big, sizeof(big));
	osc_str b = osc_strtab_intern(&st, "short", 5);

	cr_assert_eq(osc_strtab_len(&st, a), sizeof(big));
	cr_assert_eq(osc_strtab_get(&st, a)[sizeof(big)], '\0');
	cr_assert_eq(osc_strtab_intern(&st, big, sizeof(big)), a);
	cr_assert_str_eq(osc_strtab_get(&st, b), "short");
}

/* The reference order, written from the definition: memcmp, then length. */
static int ref_cmp(const void *pa, const void *pb)
{
	osc_str a = *(const osc_str *)pa, b = *(const osc_str *)pb;
	size_t la = osc_strtab_len(&st, a), lb = osc_strtab_len(&st, b);
	int c = memcmp(osc_strtab_get(&st, a), osc_strtab_get(&st, b), la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

Test(strtab, sort_orders_as_memcmp_then_length)
{
	enum { N = 20000 };
	static osc_str ids[2 * N + 8], want[2 * N + 8];
	/* prefixes share 0, 7, 8, 9 and 40 bytes; bytes past 127 and NULs inside */
	static const char *const stems[] = { "", "aten::c", "aten::co", "aten::con",
					     "aten::convolution_backward_input_and_w", "\xc3\xa9" };
	size_t n = 0;
	unsigned seed = 7;
	char buf[128];

	for (int i = 0; i < N; i++) {
		const char *stem = stems[(unsigned)i % 6];
		size_t len = strlen(stem), extra;

		seed = seed * 1103515245u + 12345u;
		extra = (seed >> 16) % 12;
		memcpy(buf, stem, len);
		for (size_t j = 0; j < extra; j++) {
			seed = seed * 1103515245u + 12345u;
			buf[len + j] = (char)((seed >> 16) % 5 == 0 ? '\0' : 'a' + (seed >> 20) % 4);
		}
		ids[n] = osc_strtab_intern(&st, buf, len + extra);
		ids[n + 1] = ids[n]; /* duplicates sort next to each other */
		n += 2;
	}
	ids[n++] = osc_strtab_intern(&st, "a", 1);
	ids[n++] = osc_strtab_intern(&st, "a\0", 2);
	ids[n++] = osc_strtab_intern(&st, "a\0\0\0\0\0\0\0\0", 9);
	ids[n++] = OSC_STR_EMPTY;
	memcpy(want, ids, n * sizeof(*ids));
	qsort(want, n, sizeof(*want), ref_cmp);
	osc_strtab_sort(&st, ids, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(ref_cmp(&ids[i], &want[i]), 0, "position %zu", i);
}

/* Places: every id once, in the order the reference comparison gives. */
Test(strtab, places_follow_the_byte_order)
{
	static const char *const words[] = { "mm", "addmm", "", "add", "a\0b", "a", "zz", "add_" };
	osc_str *sorted;
	uint32_t *place;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		osc_strtab_intern(&st, words[i], i == 4 ? 3 : strlen(words[i]));
	place = osc_strtab_places(&st, &sorted);
	for (size_t i = 0; i < st.count; i++) {
		cr_assert_eq(place[sorted[i]], i);
		if (i)
			cr_expect_lt(ref_cmp(&sorted[i - 1], &sorted[i]), 0, "place %zu", i);
	}
	free(sorted);
	free(place);
	place = osc_strtab_places(&st, NULL);
	cr_expect_eq(place[osc_strtab_find(&st, "zz", 2)], st.count - 1);
	free(place);
}

/* Strings outside a table, for osc_strs_sort's reference: memcmp, length, then id. */
static const char *ref_strs[4000];
static size_t ref_lens[4000];

static int ref_cmp_strs(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	size_t la = ref_lens[a], lb = ref_lens[b];
	int c = memcmp(ref_strs[a], ref_strs[b], la < lb ? la : lb);

	return c ? c : la != lb ? (la > lb) - (la < lb) : (a > b) - (a < b);
}

/*
 * osc_strs_sort: the same byte order for strings given with their lengths,
 * equal ones (in separate buffers) in their ids' order; groups of a shared
 * prefix big enough for the radix passes and small enough for comparisons.
 */
Test(strtab, strings_sort_stably_in_byte_order)
{
	enum { N = 4000 };
	static const char *const stems[] = { "", "aten::c", "aten::co", "aten::con",
					     "aten::convolution_backward_input_and_w [[1]]",
					     "\xc3\xa9" };
	static char text[N][64];
	static uint32_t ids[N], want[N];
	unsigned seed = 11;

	for (uint32_t i = 0; i < N; i++) {
		const char *stem = stems[i % 6];
		size_t len = strlen(stem), extra;

		seed = seed * 1103515245u + 12345u;
		extra = (seed >> 16) % 6;
		memcpy(text[i], stem, len);
		for (size_t j = 0; j < extra; j++) {
			seed = seed * 1103515245u + 12345u;
			text[i][len + j] =
				(char)((seed >> 16) % 5 == 0 ? '\0' : 'a' + (seed >> 20) % 3);
		}
		ref_strs[i] = text[i];
		ref_lens[i] = len + extra;
		ids[i] = i;
	}
	memcpy(want, ids, sizeof(ids));
	qsort(want, N, sizeof(*want), ref_cmp_strs);
	osc_strs_sort(ref_strs, ref_lens, ids, N);
	for (size_t i = 0; i < N; i++)
		cr_assert_eq(ids[i], want[i], "position %zu: id %u, want %u", i, ids[i], want[i]);
}
