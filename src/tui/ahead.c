/* ahead.c - results computed before they are asked for, kept while they fit (ahead.h). */
#include "ahead.h"

bool osc_ahead_wanted(const struct osc_ahead *a, const struct osc_kept *k, unsigned key,
		      unsigned gen)
{
	for (size_t i = 0; a->gen == gen && i < a->nr_too_big; i++)
		if (a->too_big[i] == key)
			return false;
	return !osc_kept_has(k, key, gen);
}

void osc_ahead_done(struct osc_ahead *a, struct osc_kept *k, unsigned key, unsigned gen,
		    unsigned now, unsigned shown, void *result, size_t size, size_t bytes)
{
	bool wanted = gen == now && key != shown && !osc_kept_has(k, key, gen);

	if (wanted && osc_kept_offer(k, key, gen, result, size, bytes))
		return;
	osc_kept_dispose(k, result, size, bytes); /* apart: a key must not wait for it */
	if (!wanted)
		return;
	if (a->gen != gen)
		a->nr_too_big = 0;
	a->gen = gen;
	if (a->nr_too_big < OSC_AHEAD_MAX)
		a->too_big[a->nr_too_big++] = key;
}
