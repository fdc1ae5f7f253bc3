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

/* The first set bit of bits[0 .. words) at or after bit i; words * 64 if none. */
static inline size_t osc_bits_next(const uint64_t *bits, size_t words, size_t i)
{
	size_t w = i / 64;
	uint64_t b;

	if (w >= words)
		return words * 64;
	for (b = bits[w] & (~(uint64_t)0 << (i % 64)); !b; b = bits[w])
		if (++w == words)
			return words * 64;
	return w * 64 + (size_t)__builtin_ctzll(b);
}

/* Each set bit i (a new size_t) of bits, a bitmap of n bits, in ascending order. */
#define OSC_BITS_FOR_EACH(i, bits, n)                                          \
	for (size_t i = osc_bits_next((bits), osc_bits_words(n), 0); i < (n); \
	     i = osc_bits_next((bits), osc_bits_words(n), i + 1))

/*
 * Into before[w], the bits set in the words of bits before word w, for
 * osc_bits_rank; returns how many are set in all words.
 */
static inline size_t osc_bits_count_before(const uint64_t *bits, size_t words, uint32_t *before)
{
	size_t n = 0;

	for (size_t w = 0; w < words; w++) {
		before[w] = (uint32_t)n;
		n += (size_t)__builtin_popcountll(bits[w]);
	}
	return n;
}

/* How many bits before bit i are set (before: osc_bits_count_before's). */
static inline uint32_t osc_bits_rank(const uint64_t *bits, const uint32_t *before, size_t i)
{
	uint64_t below = ((uint64_t)1 << (i % 64)) - 1;

	return before[i / 64] + (uint32_t)__builtin_popcountll(bits[i / 64] & below);
}

#endif
