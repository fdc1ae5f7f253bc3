/*
 * hash.h - a 64-bit mixer for the core's open-addressing tables (private to
 * the core).
 */
#ifndef OPSCOPE_HASH_H
#define OPSCOPE_HASH_H

#include <stdint.h>

/*
 * splitmix64's finaliser: every bit of key reaches every bit of the result,
 * so a table may take its low bits. (A multiply alone leaves the low bits of
 * the product blind to the key's high half: keys of the form a << 32 | b
 * then collide for every a that shares its low bits.)
 */
static inline uint64_t osc_mix64(uint64_t key)
{
	key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ULL;
	key = (key ^ (key >> 27)) * 0x94d049bb133111ebULL;
	return key ^ (key >> 31);
}

#endif
