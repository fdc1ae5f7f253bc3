/*
 * states.h - the ids of the TUI's data states (tui->gen). A state is what
 * every view's rows depend on besides the view's own choices: the runs
 * selected and the filter. A state met again gets its id back, so what was
 * kept for it (kept.h) shows again at once: w pressed twice, a filter
 * cleared and typed again. The last OSC_STATES_MAX states used are known
 * (live); an id forgotten is never given again, so a result tagged with it
 * can never pass for a result of another state. One more state may be
 * guessed (a filter being typed): live too, it takes no known state's place
 * until it is asked for as the TUI's state.
 */
#ifndef OPSCOPE_TUI_STATES_H
#define OPSCOPE_TUI_STATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/model/filter.h"

#define OSC_STATES_MAX 8

struct osc_state {
	unsigned id;
	char *key;          /* the runs selected and the filter, as bytes (state_key) */
	size_t len;
	unsigned long used; /* when last asked for (osc_states.uses) */
};

struct osc_states {
	struct osc_state v[OSC_STATES_MAX];
	size_t nr;
	struct osc_state guess; /* key NULL: none */
	unsigned next;      /* the id a new state gets */
	unsigned long uses;
};

/*
 * The id of the state of runs on[0 .. nr) (1: selected) and filter f: its
 * old one when known or guessed, else a new one (the state used longest ago
 * is then forgotten when OSC_STATES_MAX are known).
 */
unsigned osc_states_id(struct osc_states *s, const uint8_t *on, size_t nr,
		       const struct osc_filter *f);

/*
 * The id of the state of on[0 .. nr) and f without making it known: its
 * own when known, else the guess's, a new guess replacing the one before.
 */
unsigned osc_states_guess(struct osc_states *s, const uint8_t *on, size_t nr,
			  const struct osc_filter *f);

/* Whether id is one of the states known or the guess: results for it may be asked for. */
bool osc_states_live(const struct osc_states *s, unsigned id);

/*
 * Forget every state, freeing what they hold: what the states do not
 * describe changed (the other trace's runs), or the TUI ends.
 */
void osc_states_forget(struct osc_states *s);

#endif
