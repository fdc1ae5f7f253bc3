/* radix.h - a stable integer sort for the core's big tables (private to the core). */
#ifndef OPSCOPE_RADIX_H
#define OPSCOPE_RADIX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sort the pairs (k[i], idx[i]) by k, stably (equal keys keep their order).
 * k2 and idx2 are scratch of n entries. O(n) per 11-bit digit; digits that
 * are the same for every key cost one counting pass and no move, and so do
 * keys already in order (keys each below the one before are reversed). glibc's
 * qsort allocates a copy and calls a comparator per step: this is several
 * times faster on millions of keys. From 2^19 keys per thread, each pass
 * counts and moves parts of the keys on every core (parallel.h).
 */
void osc_radix_sort(uint64_t *k, uint32_t *idx, uint64_t *k2, uint32_t *idx2, size_t n);

/* osc_radix_sort with its scratch allocated (and freed) here. */
void osc_radix_sort_pairs(uint64_t *k, uint32_t *idx, size_t n);

/*
 * Reorder the n items of size bytes at base in place, the item at src[i]
 * going to i (as a sort's idx gives them), following the permutation's
 * cycles: no second table. src is left as the identity.
 */
void osc_permute(void *base, size_t n, size_t size, uint32_t *src);

/* A signed key as an unsigned one of the same order. */
static inline uint64_t osc_radix_key(int64_t v)
{
	return (uint64_t)v ^ ((uint64_t)1 << 63);
}

/*
 * A double as a key of the same order; NaN (an unknown value, an empty
 * cell) below every number, -0 as 0.
 */
uint64_t osc_radix_double_key(double v);

#endif
