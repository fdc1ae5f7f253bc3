/* kept.c - results a view has left, kept within a budget (kept.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/memory.h"
#include "opscope/base/threads.h"
#include "kept.h"

size_t osc_kept_budget_for(uint64_t memory)
{
	uint64_t b = memory / 16;

	return b < OSC_KEPT_MIN ? OSC_KEPT_MIN : b > OSC_KEPT_MAX ? OSC_KEPT_MAX : (size_t)b;
}

size_t osc_kept_budget(void)
{
	return osc_kept_budget_for(osc_memory_limit());
}

/* A result to free: release(result), then result itself. */
struct doomed {
	void (*release)(void *result);
	void *result;
};

static void *free_doomed(void *arg)
{
	struct doomed *d = arg;

	d->release(d->result);
	free(d->result);
	free(d);
	return NULL;
}

#define APART_MIN ((size_t)8 << 20) /* smaller results are freed at once, cheaper than a thread */

/*
 * Free result (allocated, released by k->release, holding about bytes): on
 * a thread of its own when k->free_apart and it is big.
 */
static void dispose(const struct osc_kept *k, void *result, size_t bytes)
{
	struct doomed *d = osc_xmalloc(sizeof(*d));

	*d = (struct doomed){ k->release, result };
	if (!(k->free_apart && bytes >= APART_MIN && osc_thread_detached(free_doomed, d)))
		free_doomed(d);
}

/* Free entry i and move the last one into its place. */
static void drop(struct osc_kept *k, size_t i)
{
	dispose(k, k->v[i].result, k->v[i].bytes);
	k->v[i] = k->v[--k->nr];
}

/* Drop the results of states forgotten (states.h): they cannot be asked for again. */
static void drop_stale(struct osc_kept *k)
{
	for (size_t i = k->nr; i-- > 0;)
		if (!osc_states_live(k->states, k->v[i].gen))
			drop(k, i);
}

/* The bytes the kept results hold. */
static size_t total_bytes(const struct osc_kept *k)
{
	size_t total = 0;

	for (size_t i = 0; i < k->nr; i++)
		total += k->v[i].bytes;
	return total;
}

/* The entry of key and gen, or k->nr when none. */
static size_t find(const struct osc_kept *k, unsigned key, unsigned gen)
{
	size_t i = 0;

	while (i < k->nr && !(k->v[i].key == key && k->v[i].gen == gen))
		i++;
	return i;
}

/*
 * Keep result under key and gen in place of the one there, then fit the
 * budget, the oldest first. left: its age, 0 for one never shown (the
 * first to go).
 */
static void put(struct osc_kept *k, unsigned key, unsigned gen, void *result, size_t bytes,
		unsigned long left)
{
	size_t total, at = find(k, key, gen);

	if (at < k->nr)
		drop(k, at);
	OSC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = (struct osc_kept_entry){ result, bytes, key, gen, left };
	total = total_bytes(k);
	while (total > k->budget) { /* the newest last of all */
		size_t oldest = 0;

		for (size_t i = 1; i < k->nr; i++)
			if (k->v[i].left < k->v[oldest].left)
				oldest = i;
		total -= k->v[oldest].bytes;
		drop(k, oldest);
	}
}

void osc_kept_dispose(const struct osc_kept *k, void *result, size_t size, size_t bytes)
{
	dispose(k, memcpy(osc_xmalloc(size), result, size), bytes);
	memset(result, 0, size);
}

void osc_kept_retire(struct osc_kept *k, bool keep, unsigned key, unsigned gen, void *shown,
		     size_t size, size_t bytes)
{
	drop_stale(k);
	if (!keep || !osc_states_live(k->states, gen)) {
		osc_kept_dispose(k, shown, size, bytes);
		return;
	}
	put(k, key, gen, memcpy(osc_xmalloc(size), shown, size), bytes, ++k->puts);
	memset(shown, 0, size);
}

bool osc_kept_take(struct osc_kept *k, unsigned key, unsigned gen, void *out, size_t size)
{
	size_t i = find(k, key, gen);

	if (i == k->nr)
		return false;
	memcpy(out, k->v[i].result, size);
	free(k->v[i].result);
	k->v[i] = k->v[--k->nr];
	return true;
}

bool osc_kept_has(const struct osc_kept *k, unsigned key, unsigned gen)
{
	return find(k, key, gen) < k->nr;
}

/*
 * Drop results of states other than gen and now, the oldest first, until
 * bytes more fit in the budget; false, with none dropped, when they cannot.
 */
static bool make_room(struct osc_kept *k, unsigned gen, unsigned now, size_t bytes)
{
	size_t total = total_bytes(k), stays = 0;

	for (size_t i = 0; i < k->nr; i++)
		if (k->v[i].gen == gen || k->v[i].gen == now)
			stays += k->v[i].bytes;
	if (stays + bytes > k->budget)
		return false;
	while (total + bytes > k->budget) {
		size_t oldest = k->nr;

		for (size_t i = 0; i < k->nr; i++)
			if (k->v[i].gen != gen && k->v[i].gen != now &&
			    (oldest == k->nr || k->v[i].left < k->v[oldest].left))
				oldest = i;
		total -= k->v[oldest].bytes;
		drop(k, oldest);
	}
	return true;
}

bool osc_kept_offer(struct osc_kept *k, unsigned key, unsigned gen, unsigned now, void *result,
		    size_t size, size_t bytes)
{
	drop_stale(k);
	if (!osc_states_live(k->states, gen) || osc_kept_has(k, key, gen) ||
	    !make_room(k, gen, now, bytes))
		return false;
	put(k, key, gen, memcpy(osc_xmalloc(size), result, size), bytes, 0);
	memset(result, 0, size);
	return true;
}

void osc_kept_release(struct osc_kept *k)
{
	while (k->nr)
		drop(k, k->nr - 1);
	free(k->v);
	k->v = NULL;
	k->alloc = 0;
}
