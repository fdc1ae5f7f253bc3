/* scratch.c - big blocks of scratch kept for the next taker (scratch.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "opscope/base/alloc.h"
#include "base/scratch.h"

/* Before each block, its size; the block starts a cache line further. */
struct head {
	size_t bytes;
	char pad[64 - sizeof(size_t)];
};

/* The blocks kept, oldest first; at most this many. */
#define KEPT_MAX 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct head *kept[KEPT_MAX];
static size_t nr_kept, kept_bytes;

/* Take kept block i out of the list. */
static struct head *unkeep(size_t i)
{
	struct head *h = kept[i];

	kept_bytes -= h->bytes;
	for (size_t j = i + 1; j < nr_kept; j++)
		kept[j - 1] = kept[j];
	nr_kept--;
	return h;
}

void *osc_scratch_take(size_t bytes)
{
	struct head *h = NULL;
	size_t best;

	pthread_mutex_lock(&lock);
	best = nr_kept; /* none yet */
	for (size_t i = 0; bytes >= OSC_SCRATCH_MIN && i < nr_kept; i++)
		if (kept[i]->bytes >= bytes && (best == nr_kept || kept[i]->bytes < kept[best]->bytes))
			best = i;
	if (best < nr_kept)
		h = unkeep(best);
	pthread_mutex_unlock(&lock);
	if (!h) { /* too big to add the head to: osc_xmalloc fails, as it should */
		h = osc_xmalloc(bytes > SIZE_MAX - sizeof(*h) ? SIZE_MAX : sizeof(*h) + bytes);
		h->bytes = bytes;
	}
	return h + 1;
}

void osc_scratch_give(void *p)
{
	struct head *h = p ? (struct head *)p - 1 : NULL, *drop[KEPT_MAX + 1];
	size_t nr_drop = 0;

	if (!h)
		return;
	pthread_mutex_lock(&lock);
	if (h->bytes < OSC_SCRATCH_MIN || h->bytes > OSC_SCRATCH_KEPT) {
		drop[nr_drop++] = h;
	} else {
		while (nr_kept && (nr_kept == KEPT_MAX || kept_bytes + h->bytes > OSC_SCRATCH_KEPT))
			drop[nr_drop++] = unkeep(0);
		kept[nr_kept++] = h;
		kept_bytes += h->bytes;
	}
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < nr_drop; i++)
		free(drop[i]);
}
