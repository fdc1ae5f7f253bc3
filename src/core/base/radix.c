/* radix.c - a stable LSD radix sort of 64-bit keys with 32-bit payloads (radix.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
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

void osc_radix_sort(uint64_t *k, uint32_t *idx, uint64_t *k2, uint32_t *idx2, size_t n)
{
	size_t *count, falls = 0;
	bool swapped = false;

	if (n < 2)
		return;
	count = osc_xcalloc(RADIX_PASSES * RADIX_SIZE, sizeof(*count));

	for (size_t i = 0; i < n; i++) {
		falls += i && k[i] < k[i - 1];
		for (int p = 0; p < RADIX_PASSES; p++)
			count[p * RADIX_SIZE + ((k[i] >> (p * RADIX_BITS)) & (RADIX_SIZE - 1))]++;
	}
	if (!falls || falls + 1 == n) { /* in order already, or each key below the one before */
		if (falls)
			reverse(k, idx, n);
		free(count);
		return;
	}
	for (int p = 0; p < RADIX_PASSES; p++) {
		size_t *c = count + p * RADIX_SIZE, sum = 0;
		int shift = p * RADIX_BITS;

		if (c[(k[0] >> shift) & (RADIX_SIZE - 1)] == n)
			continue; /* every key has this digit */
		for (size_t d = 0; d < RADIX_SIZE; d++) {
			size_t x = c[d];

			c[d] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++) {
			size_t at = c[(k[i] >> shift) & (RADIX_SIZE - 1)]++;

			k2[at] = k[i];
			idx2[at] = idx[i];
		}
		uint64_t *tk = k;
		uint32_t *ti = idx;

		k = k2;
		k2 = tk;
		idx = idx2;
		idx2 = ti;
		swapped = !swapped;
	}
	if (swapped) {
		memcpy(k2, k, n * sizeof(*k));
		memcpy(idx2, idx, n * sizeof(*idx));
	}
	free(count);
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
