/* states.c - the ids of the TUI's data states, found again by content (states.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "states.h"

/* Append n bytes at p to the key buf[*len ...] (grown as needed). */
static void put(char **buf, size_t *len, size_t *alloc, const void *p, size_t n)
{
	if (*len + n > *alloc) {
		*alloc = (*len + n) * 2;
		*buf = osc_xrealloc(*buf, *alloc);
	}
	memcpy(*buf + *len, p, n);
	*len += n;
}

/* A string with its length first, so that no two lists of strings make the same bytes. */
static void put_str(char **buf, size_t *len, size_t *alloc, const char *s)
{
	size_t n = strlen(s);

	put(buf, len, alloc, &n, sizeof(n));
	put(buf, len, alloc, s, n);
}

/* The bytes of a state: the runs' flags, each pattern, then the regex if any. */
static char *state_key(const uint8_t *on, size_t nr, const struct osc_filter *f, size_t *len)
{
	char *buf = NULL;
	size_t alloc = 0;
	uint8_t has_re = f->re_text != NULL;

	*len = 0;
	put(&buf, len, &alloc, &nr, sizeof(nr));
	put(&buf, len, &alloc, on, nr);
	put(&buf, len, &alloc, &f->nr_patterns, sizeof(f->nr_patterns));
	for (size_t i = 0; i < f->nr_patterns; i++)
		put_str(&buf, len, &alloc, f->patterns[i]);
	put(&buf, len, &alloc, &has_re, 1);
	if (has_re)
		put_str(&buf, len, &alloc, f->re_text);
	return buf;
}

/* The known state of key[0 .. len), or s->nr when none. */
static size_t find(const struct osc_states *s, const char *key, size_t len)
{
	size_t i = 0;

	while (i < s->nr && !(s->v[i].len == len && !memcmp(s->v[i].key, key, len)))
		i++;
	return i;
}

static bool is_guess(const struct osc_states *s, const char *key, size_t len)
{
	return s->guess.key && s->guess.len == len && !memcmp(s->guess.key, key, len);
}

/* Make st (its key taken) known, in place of the state used longest ago when full. */
static unsigned know(struct osc_states *s, struct osc_state st)
{
	size_t slot = 0;

	for (size_t i = 1; i < s->nr; i++)
		if (s->v[i].used < s->v[slot].used)
			slot = i;
	if (s->nr < OSC_STATES_MAX)
		slot = s->nr++;
	else
		free(s->v[slot].key);
	st.used = ++s->uses;
	s->v[slot] = st;
	return st.id;
}

unsigned osc_states_id(struct osc_states *s, const uint8_t *on, size_t nr,
		       const struct osc_filter *f)
{
	size_t len, i;
	char *key = state_key(on, nr, f, &len);

	if ((i = find(s, key, len)) < s->nr) {
		free(key);
		s->v[i].used = ++s->uses;
		return s->v[i].id;
	}
	if (is_guess(s, key, len)) { /* the guess was right: known now, its id kept */
		free(key);
		key = s->guess.key;
		s->guess.key = NULL;
		return know(s, (struct osc_state){ s->guess.id, key, len, 0 });
	}
	return know(s, (struct osc_state){ s->next++, key, len, 0 });
}

unsigned osc_states_guess(struct osc_states *s, const uint8_t *on, size_t nr,
			  const struct osc_filter *f)
{
	size_t len, i;
	char *key = state_key(on, nr, f, &len);

	if ((i = find(s, key, len)) < s->nr || is_guess(s, key, len)) {
		free(key);
		return i < s->nr ? s->v[i].id : s->guess.id;
	}
	free(s->guess.key);
	s->guess = (struct osc_state){ s->next++, key, len, 0 };
	return s->guess.id;
}

bool osc_states_live(const struct osc_states *s, unsigned id)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i].id == id)
			return true;
	return s->guess.key && s->guess.id == id;
}

void osc_states_forget(struct osc_states *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].key);
	s->nr = 0;
	free(s->guess.key);
	s->guess.key = NULL;
}
