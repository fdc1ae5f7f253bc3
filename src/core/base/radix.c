/* radix.c - a stable LSD radix sort of 64-bit keys with 32-bit payloads (radix.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "base/parallel.h"
#include "base/radix.h"

#define RADIX_BITS 11
#define RADIX_SIZE ((size_t)1 << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

/* Reverse the pairs' order. */
static void reverse(uint64_t *k, uint32_t *idx, size_t n)
{
	for (size_t i = 0, j = n - 1; i < j; i++, j--) {
		uint64_t tk = k[i];
		uint32_t ti = idx[i];

		k[i] = k[j];
		k[j] = tk;
		idx[i] = idx[j];
		idx[j] = ti;
	}
}

/*
 * Keys per thread worth starting one for: below, two threads took longer
 * than one (the keys fit in cache).
 */
#define RADIX_PART ((size_t)1 << 19)

/* A sort's state, shared by the threads that each count and move a part of the keys. */
struct sort {
	uint64_t *k, *k2;
	uint32_t *idx, *idx2;
	size_t n, parts;
	size_t *count; /* per part, RADIX_PASSES digits' counts of RADIX_SIZE */
	size_t *falls; /* per part: its keys below the one before */
	int pass;      /* the pass count_part and move_part do */
};

/* The keys of part `part`: [*from, *to). */
static void bounds(const struct sort *s, size_t part, size_t *from, size_t *to)
{
	*from = s->n * part / s->parts;
	*to = s->n * (part + 1) / s->parts;
}

/* Part `part`'s counts of the digits of pass `pass`. */
static size_t *counts(const struct sort *s, size_t part, int pass)
{
	return s->count + (part * RADIX_PASSES + (size_t)pass) * RADIX_SIZE;
}

/* Part `part`: every pass's digit counts of its keys, and its keys below the one before. */
static void census_part(void *arg, size_t part)
{
	struct sort *s = arg;
	size_t from, to, falls = 0;

	bounds(s, part, &from, &to);
	for (size_t i = from; i < to; i++) {
		falls += i && s->k[i] < s->k[i - 1];
		for (int p = 0; p < RADIX_PASSES; p++)
			counts(s, part, p)[(s->k[i] >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
	}
	s->falls[part] = falls;
}

/* Part `part`: the counts of its keys' digit of s->pass (the keys moved since the census). */
static void count_part(void *arg, size_t part)
{
	struct sort *s = arg;
	size_t from, to, *c = counts(s, part, s->pass);
	int shift = s->pass * RADIX_BITS;

	bounds(s, part, &from, &to);
	memset(c, 0, RADIX_SIZE * sizeof(*c));
	for (size_t i = from; i < to; i++)
		c[(s->k[i] >> shift) & (RADIX_SIZE - 1)]++;
}

/* Part `part`: its keys moved to their places by s->pass's digit (its counts are offsets now). */
static void move_part(void *arg, size_t part)
{
	struct sort *s = arg;
	size_t from, to, *c = counts(s, part, s->pass);
	int shift = s->pass * RADIX_BITS;

	bounds(s, part, &from, &to);
	for (size_t i = from; i < to; i++) {
		size_t at = c[(s->k[i] >> shift) & (RADIX_SIZE - 1)]++;

		s->k2[at] = s->k[i];
		s->idx2[at] = s->idx[i];
	}
}

/* Whether every key has the same digit in pass p (the parts' counts add up to the whole's). */
static bool same_digit(const struct sort *s, int p)
{
	size_t digit = (s->k[0] >> (p * RADIX_BITS)) & (RADIX_SIZE - 1), sum = 0;

	for (size_t part = 0; part < s->parts; part++)
		sum += counts(s, part, p)[digit];
	return sum == s->n;
}

/*
 * The parts' counts of pass p become where each part's keys of each digit
 * go: after those of lower digits, and of the same digit in parts before.
 */
static void count_to_offsets(struct sort *s, int p)
{
	size_t sum = 0;

	for (size_t d = 0; d < RADIX_SIZE; d++)
		for (size_t part = 0; part < s->parts; part++) {
			size_t x = counts(s, part, p)[d];

			counts(s, part, p)[d] = sum;
			sum += x;
		}
}

void osc_radix_sort(uint64_t *k, uint32_t *idx, uint64_t *k2, uint32_t *idx2, size_t n)
{
	struct sort s = { .k = k, .k2 = k2, .idx = idx, .idx2 = idx2, .n = n };
	size_t falls = 0;
	bool swapped = false, moved = false;

	if (n < 2)
		return;
	s.parts = osc_parallel_parts(n, RADIX_PART);
	s.count = osc_xcalloc(s.parts * RADIX_PASSES * RADIX_SIZE, sizeof(*s.count));
	s.falls = osc_xcalloc(s.parts, sizeof(*s.falls));
	osc_parallel_run(s.parts, census_part, &s);
	for (size_t part = 0; part < s.parts; part++)
		falls += s.falls[part];
	if (!falls || falls + 1 == n) { /* in order already, or each key below the one before */
		if (falls)
			reverse(k, idx, n);
		goto done;
	}
	for (s.pass = 0; s.pass < RADIX_PASSES; s.pass++) {
		if (same_digit(&s, s.pass))
			continue;
		/* a part's counts change once its keys have moved; the whole's do not */
		if (moved && s.parts > 1)
			osc_parallel_run(s.parts, count_part, &s);
		count_to_offsets(&s, s.pass);
		osc_parallel_run(s.parts, move_part, &s);
		moved = true;

		uint64_t *tk = s.k;
		uint32_t *ti = s.idx;

		s.k = s.k2;
		s.k2 = tk;
		s.idx = s.idx2;
		s.idx2 = ti;
		swapped = !swapped;
	}
	if (swapped) {
		memcpy(s.k2, s.k, n * sizeof(*k));
		memcpy(s.idx2, s.idx, n * sizeof(*idx));
	}
done:
	free(s.count);
	free(s.falls);
}

void osc_radix_sort_pairs(uint64_t *k, uint32_t *idx, size_t n)
{
	uint64_t *k2 = osc_xmalloc((n ? n : 1) * sizeof(*k2));
	uint32_t *idx2 = osc_xmalloc((n ? n : 1) * sizeof(*idx2));

	osc_radix_sort(k, idx, k2, idx2, n);
	free(k2);
	free(idx2);
}

uint64_t osc_radix_double_key(double v)
{
	uint64_t bits;

	if (isnan(v))
		return 0;
	if (v == 0)
		v = 0;
	memcpy(&bits, &v, sizeof(bits));
	return bits >> 63 ? ~bits : bits | (uint64_t)1 << 63;
}

void osc_permute(void *base, size_t n, size_t size, uint32_t *src)
{
	char *b = base, *held = osc_xmalloc(size ? size : 1);

	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		if (src[i] == i)
			continue;
		memcpy(held, b + i * size, size);
		while (src[j] != i) {
			size_t k = src[j];

			memcpy(b + j * size, b + k * size, size);
			src[j] = (uint32_t)j;
			j = k;
		}
		memcpy(b + j * size, held, size);
		src[j] = (uint32_t)j;
	}
	free(held);
}
