/*
 * export_markdown.c - a GitHub-flavoured Markdown pipe table, to paste into
 * an issue, a pull request or a notebook: a header row, the delimiter row
 * (numeric columns right-aligned, "---:"), then one line per row. No meta
 * (the run selection goes to stderr, as for CSV).
 *
 * A cell shows its text literally once rendered: the characters Markdown
 * would read as syntax (| \ ` * _ ~ [ ] < > &; kernel names are full of
 * them, and <float> would vanish as an HTML tag) get a backslash, which
 * CommonMark allows before any ASCII punctuation (but _ within a word, which
 * never emphasises), and a line end becomes a space (a row is one line).
 * Unsafe characters (controls, bidi overrides) are shown as '?' on a
 * terminal, as in the text table, and as U+FFFD in a file, where a renderer
 * would otherwise reorder the text.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/export/export.h"

struct md_state {
	unsigned flags;
	bool utf8;   /* the locale's, for fields shown on a terminal */
	char *shown; /* a field as the terminal gets it */
	size_t shown_alloc;
};

/* A character of a word: ASCII letters and digits, and any non-ASCII one. */
static bool is_word(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
	       (unsigned char)c >= 0x80;
}

static void put_cell(FILE *out, const char *s, struct md_state *st)
{
	char prev = ' ';

	if (st->flags & OSC_EXPORT_TERMINAL) {
		size_t len = strlen(s), need = len * 3 + 4;

		OSC_GROW(st->shown, need, st->shown_alloc);
		osc_text_fit(s, len, (size_t)-1, st->utf8, st->shown, need);
		s = st->shown;
	}
	putc(' ', out);
	while (*s) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x80) {
			size_t n;
			int32_t cp = osc_utf8_decode(s, &n);

			if (cp < 0 || osc_text_unsafe((uint32_t)cp))
				fputs("\xef\xbf\xbd", out); /* U+FFFD */
			else
				fwrite(s, 1, n, out);
			s += n;
			prev = 'a'; /* a word character, for _ */
			continue;
		}
		s++;
		/* within a word, _ never emphasises: self_us stays readable */
		if (ch == '_' && is_word(prev) && is_word(*s))
			putc(ch, out);
		else if (ch == '\n' || ch == '\r' || ch == '\t')
			putc(' ', out);
		else if (ch < 0x20 || ch == 0x7f)
			fputs("\xef\xbf\xbd", out);
		else if (strchr("|\\`*_~[]<>&", ch))
			fprintf(out, "\\%c", ch);
		else
			putc(ch, out);
		prev = (char)ch;
	}
	fputs(" |", out);
}

static void md_begin(FILE *out, const struct osc_table *t, const struct osc_export_meta *m,
		     int width, unsigned flags, void **state)
{
	struct md_state *st = osc_xcalloc(1, sizeof(*st));

	(void)m;
	(void)width;
	st->flags = flags;
	st->utf8 = osc_locale_is_utf8();
	*state = st;
	putc('|', out);
	for (size_t c = 0; c < t->nr_cols; c++)
		put_cell(out, t->cols[c].title, st);
	fputs("\n|", out);
	for (size_t c = 0; c < t->nr_cols; c++)
		fputs(t->cols[c].numeric ? " ---: |" : " --- |", out);
	putc('\n', out);
}

static void md_row(FILE *out, const struct osc_table *t, size_t row, void *state)
{
	char buf[128];

	putc_unlocked('|', out);
	for (size_t c = 0; c < t->nr_cols; c++)
		put_cell(out, t->cell(t->ctx, row, c, buf, sizeof(buf)), state);
	putc_unlocked('\n', out);
}

static void md_end(FILE *out, const struct osc_table *t, void *state)
{
	struct md_state *st = state;

	(void)out;
	(void)t;
	free(st->shown);
	free(st);
}

const struct osc_exporter osc_export_markdown_ops = {
	.name = "markdown",
	.begin = md_begin,
	.row = md_row,
	.end = md_end,
};
