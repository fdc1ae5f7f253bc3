/*
 * strtab.h - string interning.
 *
 * Traces repeat a few thousand names millions of times; every name, category,
 * shape and kernel name is stored once and referred to by a 32-bit id.
 * Invariants: id 0 (OSC_STR_EMPTY) is always "", ids are dense (0..count-1),
 * a string's bytes never move once interned (pointers from osc_strtab_get stay
 * valid until osc_strtab_release), and interned strings are NUL-terminated.
 * Not thread-safe.
 */
#ifndef OPSCOPE_STRTAB_H
#define OPSCOPE_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t osc_str;

#define OSC_STR_EMPTY ((osc_str)0)
#define OSC_STR_NONE ((osc_str)UINT32_MAX) /* "not found" from osc_strtab_find */

struct osc_strtab {
	const char **ptrs;   /* id -> bytes */
	uint32_t *lens;      /* id -> length */
	size_t count, alloc; /* ids in use, capacity of ptrs/lens */
	uint32_t *slots;     /* open-addressing hash table of ids, UINT32_MAX = empty */
	uint32_t *hashes;    /* id -> hash, to rehash without rereading bytes */
	size_t nslots;       /* power of two */
	char **chunks;       /* arena chunks holding the bytes */
	size_t nchunks, chunks_alloc;
	size_t chunk_used, chunk_size; /* fill of the last chunk */
	size_t chunk_bytes;  /* of all chunks */
};

/*
 * True for a character a terminal must not get raw: C0 and C1 controls, DEL,
 * and the invisible ones that reorder or hide text (bidi embeddings,
 * overrides, isolates and marks, zero-width space, word joiner, BOM). Every
 * output shows or escapes them (columns.h, export.h, osc_error_format).
 */
bool osc_text_unsafe(uint32_t cp);

/*
 * Decode the UTF-8 character at s (NUL-terminated): its code point, with
 * its length in *n; -1 with *n 1 for an invalid byte.
 */
int32_t osc_utf8_decode(const char *s, size_t *n);

/* Set up an empty table holding only "". */
void osc_strtab_init(struct osc_strtab *t);
/* Free everything; the table must be init'ed again before reuse. */
void osc_strtab_release(struct osc_strtab *t);
/* About the bytes t holds (its arrays, hash table and chunks): for caches' budgets. */
size_t osc_strtab_bytes(const struct osc_strtab *t);

/* Id of s[0..len) (which may hold NUL bytes), interning it if new. */
osc_str osc_strtab_intern(struct osc_strtab *t, const char *s, size_t len);
/* Id of s[0..len) if interned, else OSC_STR_NONE. */
osc_str osc_strtab_find(const struct osc_strtab *t, const char *s, size_t len);
/*
 * Start fetching what a lookup of s[0..len) reads first (its slot of the
 * hash table), for a caller that interns strings by the million and can
 * ask a few strings ahead: the lookups then seldom wait on memory.
 */
void osc_strtab_prefetch(const struct osc_strtab *t, const char *s, size_t len);

/*
 * Sort ids[0..n) (distinct or not) by their strings' bytes: memcmp order,
 * a string before the longer ones it begins. Reads t only.
 */
void osc_strtab_sort(const struct osc_strtab *t, osc_str *ids, size_t n);

/*
 * The same for any strings: ids[0..n) index strs, of lens bytes each; equal
 * strings keep their ids' order (the sort is stable).
 */
void osc_strs_sort(const char *const *strs, const size_t *lens, uint32_t *ids, size_t n);

/*
 * Per id of t, its place in the byte order of every string of t, a new
 * array of t->count; every id in that order into *sorted (a new array)
 * unless sorted is NULL.
 */
uint32_t *osc_strtab_places(const struct osc_strtab *t, osc_str **sorted);

/* Bytes of an id (NUL-terminated). */
static inline const char *osc_strtab_get(const struct osc_strtab *t, osc_str id)
{
	return t->ptrs[id];
}

/* Length of an id's string. */
static inline size_t osc_strtab_len(const struct osc_strtab *t, osc_str id)
{
	return t->lens[id];
}

#endif
