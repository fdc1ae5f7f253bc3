/*
 * bits.h - bitmaps of uint64_t words: bit i is word i / 64, bit i % 64.
 * A bitmap of n bits takes osc_bits_words(n) words.
 */
#ifndef OPSCOPE_BITS_H
#define OPSCOPE_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Words for a bitmap of n bits (at least one). */
static inline size_t osc_bits_words(size_t n)
{
	return n / 64 + 1;
}

/* Bit i of bits. */
static inline bool osc_bit(const uint64_t *bits, size_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

/* Set bit i of bits to on. */
static inline void osc_bit_put(uint64_t *bits, size_t i, bool on)
{
	if (on)
		bits[i / 64] |= (uint64_t)1 << (i % 64);
	else
		bits[i / 64] &= ~((uint64_t)1 << (i % 64));
}

#endif
