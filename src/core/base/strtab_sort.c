/*
 * strtab_sort.c - ids in the byte order of their strings (strtab.h): a
 * table's strings, or any strings given with their lengths.
 *
 * A radix sort on 8 bytes at a time, big-endian so that the number orders
 * as the bytes do: after the first 8 bytes only the ids whose 8 bytes were
 * equal are sorted again, on their next 8, and small groups by comparison
 * (stably: equal strings keep their ids' order). Sorting 1M distinct names
 * this way touches each string about once per 8 shared bytes, where a
 * comparison sort reads it twenty times.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/strtab.h"
#include "base/radix.h"

/* Groups this small are sorted by comparison. */
#define SMALL_GROUP 32

/* Where the strings are: a table's (t), else strs and lens by id. */
struct source {
	const struct osc_strtab *t;
	const char *const *strs;
	const size_t *lens;
};

static const char *str_of(const struct source *src, uint32_t id)
{
	return src->t ? osc_strtab_get(src->t, id) : src->strs[id];
}

static size_t len_of(const struct source *src, uint32_t id)
{
	return src->t ? osc_strtab_len(src->t, id) : src->lens[id];
}

/* Bytes [from, from + 8) of string s, big-endian, zeros past its end. */
static uint64_t chunk_at(const struct source *src, uint32_t s, size_t from)
{
	size_t len = len_of(src, s);
	const unsigned char *p = (const unsigned char *)str_of(src, s);
	uint64_t v = 0;

	for (size_t i = 0; i < 8; i++)
		v = v << 8 | (from + i < len ? p[from + i] : 0);
	return v;
}

/* memcmp order from byte `from` on, a prefix before the longer string. */
static int cmp_from(const struct source *src, uint32_t a, uint32_t b, size_t from)
{
	size_t la = len_of(src, a), lb = len_of(src, b);
	size_t n = (la < lb ? la : lb);
	int c = n > from ? memcmp(str_of(src, a) + from, str_of(src, b) + from, n - from) : 0;

	return c ? c : (la > lb) - (la < lb);
}

static void insertion_sort(const struct source *src, uint32_t *ids, size_t n, size_t from)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = ids[i];
		size_t j = i;

		for (; j && cmp_from(src, ids[j - 1], x, from) > 0; j--)
			ids[j] = ids[j - 1];
		ids[j] = x;
	}
}

/* Whether every string of ids[0..n) ends within `from` bytes. */
static bool all_end_before(const struct source *src, const uint32_t *ids, size_t n,
			   size_t from)
{
	for (size_t i = 0; i < n; i++)
		if (len_of(src, ids[i]) > from)
			return false;
	return true;
}

/* Scratch of the radix sort: keys and ids, twice (radix.h). */
struct scratch {
	uint64_t *k, *k2;
	uint32_t *idx, *idx2;
};

/* The scratch from entry i on. */
static struct scratch scratch_from(const struct scratch *s, size_t i)
{
	return (struct scratch){ s->k + i, s->k2 + i, s->idx + i, s->idx2 + i };
}

/*
 * Sort ids[0..n), whose strings share their first `from` bytes; s has n
 * entries of each array.
 */
static void sort_from(const struct source *t, uint32_t *ids, size_t n, size_t from,
		      const struct scratch *s)
{
	uint64_t *k = s->k;

	if (n <= SMALL_GROUP) {
		insertion_sort(t, ids, n, from);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		k[i] = chunk_at(t, ids[i], from);
		s->idx[i] = ids[i];
	}
	osc_radix_sort(k, s->idx, s->k2, s->idx2, n);
	memcpy(ids, s->idx, n * sizeof(*ids));
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && k[j] == k[i]; j++)
			;
		if (j - i < 2)
			continue;
		/* equal bytes up to from + 8: only their lengths may differ */
		if (all_end_before(t, ids + i, j - i, from + 8))
			insertion_sort(t, ids + i, j - i, from);
		else { /* entries i..j of the scratch are free again: the group's */
			struct scratch sub = scratch_from(s, i);

			sort_from(t, ids + i, j - i, from + 8, &sub);
		}
	}
}

/* Sort ids[0..n) by their strings in src. */
static void sort_source(const struct source *src, uint32_t *ids, size_t n)
{
	size_t m = n ? n : 1;
	uint64_t *k = osc_xmalloc_big(2 * m, sizeof(*k));
	uint32_t *idx = osc_xmalloc_big(2 * m, sizeof(*idx));
	struct scratch s = { k, k + m, idx, idx + m };

	sort_from(src, ids, n, 0, &s);
	free(k);
	free(idx);
}

void osc_strtab_sort(const struct osc_strtab *t, osc_str *ids, size_t n)
{
	const struct source src = { .t = t };

	sort_source(&src, ids, n);
}

void osc_strs_sort(const char *const *strs, const size_t *lens, uint32_t *ids, size_t n)
{
	const struct source src = { .strs = strs, .lens = lens };

	sort_source(&src, ids, n);
}

uint32_t *osc_strtab_places(const struct osc_strtab *t, osc_str **sorted)
{
	size_t n = t->count;
	osc_str *ids = osc_xmalloc((n ? n : 1) * sizeof(*ids));
	uint32_t *place = osc_xmalloc((n ? n : 1) * sizeof(*place));

	for (size_t i = 0; i < n; i++)
		ids[i] = (osc_str)i;
	osc_strtab_sort(t, ids, n);
	for (size_t i = 0; i < n; i++)
		place[ids[i]] = (uint32_t)i;
	if (sorted)
		*sorted = ids;
	else
		free(ids);
	return place;
}
