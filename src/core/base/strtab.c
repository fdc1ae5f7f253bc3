/*
 * strtab.c - string interning: an open-addressing table of ids over bytes
 * kept in arena chunks.
 *
 * The slot table stores ids; the hash of each id is kept beside it so growing
 * the table never rereads string bytes. Chunks are never reallocated, which is
 * what keeps osc_strtab_get() pointers stable.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/strtab.h"

#define SLOT_EMPTY UINT32_MAX
#define CHUNK_MIN ((size_t)64 * 1024)

/* FNV-1a over 8-byte words, then a final avalanche: fast on short names. */
static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static char *arena_copy(struct osc_strtab *t, const char *s, size_t len)
{
	char *p;

	if (!t->nchunks || t->chunk_size - t->chunk_used < len + 1) {
		size_t size = t->chunk_size ? t->chunk_size * 2 : CHUNK_MIN;

		if (size > 16 * 1024 * 1024)
			size = 16 * 1024 * 1024;
		if (size < len + 1)
			size = len + 1;
		OSC_GROW(t->chunks, t->nchunks + 1, t->chunks_alloc);
		t->chunks[t->nchunks++] = osc_xmalloc(size);
		t->chunk_size = size;
		t->chunk_bytes += size;
		t->chunk_used = 0;
	}
	p = t->chunks[t->nchunks - 1] + t->chunk_used;
	memcpy(p, s, len);
	p[len] = '\0';
	t->chunk_used += len + 1;
	return p;
}

static void rehash(struct osc_strtab *t, size_t nslots)
{
	size_t mask = nslots - 1;

	free(t->slots);
	t->slots = osc_xmalloc(nslots * sizeof(*t->slots));
	memset(t->slots, 0xff, nslots * sizeof(*t->slots));
	t->nslots = nslots;
	for (size_t id = 0; id < t->count; id++) {
		size_t i = t->hashes[id] & mask;

		while (t->slots[i] != SLOT_EMPTY)
			i = (i + 1) & mask;
		t->slots[i] = (uint32_t)id;
	}
}

/* Slot index where s lives, or the empty slot where it would go. */
static size_t probe(const struct osc_strtab *t, const char *s, size_t len, uint32_t h)
{
	size_t mask = t->nslots - 1, i = h & mask;

	for (;;) {
		uint32_t id = t->slots[i];

		if (id == SLOT_EMPTY)
			return i;
		if (t->hashes[id] == h && t->lens[id] == len && !memcmp(t->ptrs[id], s, len))
			return i;
		i = (i + 1) & mask;
	}
}

bool osc_text_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x061c || cp == 0x200b ||
	       cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || cp == 0x2060 ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

int32_t osc_utf8_decode(const char *str, size_t *n)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp, min;
	size_t len;

	*n = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return -1;
	len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	cp = s[0] & (0x7f >> len);
	min = len == 4 ? 0x10000 : len == 3 ? 0x800 : 0x80;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return -1;
	*n = len;
	return (int32_t)cp;
}

void osc_strtab_init(struct osc_strtab *t)
{
	memset(t, 0, sizeof(*t));
	rehash(t, 1024);
	osc_strtab_intern(t, "", 0);
}

void osc_strtab_release(struct osc_strtab *t)
{
	for (size_t i = 0; i < t->nchunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->ptrs);
	free(t->lens);
	free(t->hashes);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

size_t osc_strtab_bytes(const struct osc_strtab *t)
{
	return t->alloc * (sizeof(*t->ptrs) + sizeof(*t->lens) + sizeof(*t->hashes)) +
	       t->nslots * sizeof(*t->slots) + t->chunk_bytes;
}

osc_str osc_strtab_intern(struct osc_strtab *t, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len);
	size_t i = probe(t, s, len, h);
	size_t id;

	if (t->slots[i] != SLOT_EMPTY)
		return t->slots[i];
	/* Ids are 32-bit and UINT32_MAX is reserved; a trace never gets near. */
	id = t->count;
	if (t->count + 1 > t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 256;

		t->ptrs = osc_xreallocarray(t->ptrs, n, sizeof(*t->ptrs));
		t->lens = osc_xreallocarray(t->lens, n, sizeof(*t->lens));
		t->hashes = osc_xreallocarray(t->hashes, n, sizeof(*t->hashes));
		t->alloc = n;
	}
	t->ptrs[id] = arena_copy(t, s, len);
	t->lens[id] = (uint32_t)len;
	t->hashes[id] = h;
	t->count++;
	t->slots[i] = (uint32_t)id;
	/* Keep the load factor under 1/2 so probes stay short. */
	if (t->count * 2 > t->nslots)
		rehash(t, t->nslots * 2);
	return (osc_str)id;
}

void osc_strtab_prefetch(const struct osc_strtab *t, const char *s, size_t len)
{
	__builtin_prefetch(&t->slots[hash_bytes(s, len) & (t->nslots - 1)]);
}

osc_str osc_strtab_find(const struct osc_strtab *t, const char *s, size_t len)
{
	size_t i = probe(t, s, len, hash_bytes(s, len));

	return t->slots[i] == SLOT_EMPTY ? OSC_STR_NONE : t->slots[i];
}
