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

unsigned osc_states_id(struct osc_states *s, const uint8_t *on, size_t nr,
		       const struct osc_filter *f)
{
	size_t len, slot = 0;
	char *key = state_key(on, nr, f, &len);

	for (size_t i = 0; i < s->nr; i++) {
		if (s->v[i].len == len && !memcmp(s->v[i].key, key, len)) {
			free(key);
			s->v[i].used = ++s->uses;
			return s->v[i].id;
		}
		if (s->v[i].used < s->v[slot].used)
			slot = i;
	}
	if (s->nr < OSC_STATES_MAX)
		slot = s->nr++;
	else
		free(s->v[slot].key);
	s->v[slot] = (struct osc_state){ s->next++, key, len, ++s->uses };
	return s->v[slot].id;
}

bool osc_states_live(const struct osc_states *s, unsigned id)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i].id == id)
			return true;
	return false;
}

void osc_states_forget(struct osc_states *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].key);
	s->nr = 0;
}
