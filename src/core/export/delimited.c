/* delimited.c - the header and records of CSV and TSV (delimited.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "export/delimited.h"

struct delimited_state {
	const struct osc_delimited *d;
	unsigned flags;
	bool utf8;   /* the locale's, for fields shown on a terminal */
	char *shown; /* a field as the terminal gets it */
	size_t shown_alloc;
};

static void put_field(FILE *out, const char *s, struct delimited_state *st)
{
	if (st->flags & OSC_EXPORT_TERMINAL) {
		size_t len = strlen(s), need = len * 3 + 4;

		OSC_GROW(st->shown, need, st->shown_alloc);
		osc_text_fit(s, len, (size_t)-1, st->utf8, st->shown, need);
		s = st->shown;
	}
	st->d->put(out, s, st->flags);
}

void osc_delimited_begin(const struct osc_delimited *d, FILE *out, const struct osc_table *t,
			 unsigned flags, void **state)
{
	struct delimited_state *st = osc_xcalloc(1, sizeof(*st));

	st->d = d;
	st->flags = flags;
	st->utf8 = osc_locale_is_utf8();
	*state = st;
	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc(d->sep, out);
		put_field(out, t->cols[c].title, st);
	}
	putc('\n', out);
}

void osc_delimited_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	struct delimited_state *st = state;
	char buf[128];

	for (size_t c = 0; c < t->nr_cols; c++) {
		if (c)
			putc_unlocked(st->d->sep, out);
		put_field(out, t->cell(t->ctx, row, c, buf, sizeof(buf)), st);
	}
	putc_unlocked('\n', out);
}

void osc_delimited_end(FILE *out, const struct osc_table *t, void *state)
{
	struct delimited_state *st = state;

	(void)out;
	(void)t;
	free(st->shown);
	free(st);
}
