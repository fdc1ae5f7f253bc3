/* ahead.c - results computed before they are asked for, kept while they fit (ahead.h). */
#include "ahead.h"

bool osc_ahead_wanted(const struct osc_ahead *a, const struct osc_kept *k, unsigned key,
		      unsigned gen)
{
	for (size_t i = 0; i < a->nr_too_big; i++)
		if (a->too_big[i].key == key && a->too_big[i].gen == gen)
			return false;
	return !osc_kept_has(k, key, gen);
}

/* Forget what was too big for states forgotten (states.h). */
static void forget_stale(struct osc_ahead *a, const struct osc_states *states)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nr_too_big; i++)
		if (osc_states_live(states, a->too_big[i].gen))
			a->too_big[n++] = a->too_big[i];
	a->nr_too_big = n;
}

void osc_ahead_done(struct osc_ahead *a, struct osc_kept *k, unsigned key, unsigned gen,
		    unsigned now, unsigned shown, void *result, size_t size, size_t bytes)
{
	bool wanted = osc_states_live(k->states, gen) && (gen != now || key != shown) &&
		      !osc_kept_has(k, key, gen);

	if (wanted && osc_kept_offer(k, key, gen, now, result, size, bytes))
		return;
	osc_kept_dispose(k, result, size, bytes); /* apart: a key must not wait for it */
	if (!wanted)
		return;
	if (a->nr_too_big == OSC_AHEAD_MAX)
		forget_stale(a, k->states);
	if (a->nr_too_big == OSC_AHEAD_MAX) /* all known: the oldest are forgotten */
		a->nr_too_big = 0;
	a->too_big[a->nr_too_big].key = key;
	a->too_big[a->nr_too_big++].gen = gen;
}
