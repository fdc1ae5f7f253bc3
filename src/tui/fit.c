/* fit.c - fitting a column's texts into its width, rows kept distinct (fit.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "fit.h"

#define MIN_DISTINCT 8 /* narrower than this, a window cannot show much */

size_t osc_text_skip(const char *s, size_t cols, bool utf8)
{
	size_t i = 0, used = 0;

	while (s[i] && used < cols) {
		size_t n = 1;

		while (((unsigned char)s[i + n] & 0xc0) == 0x80)
			n++;
		if (used + osc_text_width(s + i, n, utf8) > cols)
			break;
		used += osc_text_width(s + i, n, utf8);
		i += n;
	}
	return i;
}

static size_t width_of(const char *s, bool utf8)
{
	return osc_text_width(s, strlen(s), utf8);
}

static const char *ellipsis(bool utf8)
{
	return utf8 ? "\xe2\x80\xa6" : "~";
}

/* The text osc_text_fit makes (the middle cut), as a new string. */
static char *fit_middle(const char *s, size_t width, bool utf8)
{
	size_t size = strlen(s) + 8;
	char *buf = osc_xmalloc(size);

	osc_text_fit(s, strlen(s), width, utf8, buf, size);
	return buf;
}

/* Append the first `cols` columns of s to out at *at. */
static void put_cols(char *out, size_t *at, const char *s, size_t cols, bool utf8)
{
	size_t n = osc_text_skip(s, cols, utf8);

	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
}

static void put_str(char *out, size_t *at, const char *s)
{
	size_t n = strlen(s);

	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
}

/*
 * A call path too wide: its root (cut to at most a third), an ellipsis, then
 * its end: from an element's start ("$$aten::matmul$$aten::mm") when one is
 * near, else from inside one. The leaf alone too wide is cut in its middle.
 * NULL when s is no path or width too small.
 */
static char *fit_path(const char *s, size_t width, bool utf8)
{
	const char *root_end = strstr(s, "$$"), *leaf = NULL, *tail, *p;
	size_t root_w, root_part, total = width_of(s, utf8), tail_w, at = 0;
	char *out;

	if (!root_end || width < MIN_DISTINCT)
		return NULL;
	for (p = root_end; p; p = strstr(p + 2, "$$"))
		leaf = p + 2;
	root_w = osc_text_width(s, (size_t)(root_end - s), utf8);
	root_part = root_w < width / 3 ? root_w : width / 3;
	out = osc_xmalloc(strlen(s) + 16);
	out[0] = '\0';
	if (root_part + 3 + width_of(leaf, utf8) > width) { /* the leaf alone is too wide */
		char *cut;

		root_part = root_w < width / 4 ? root_w : width / 4;
		if (root_part + 3 + MIN_DISTINCT > width) {
			free(out);
			return NULL;
		}
		put_cols(out, &at, s, root_part, utf8);
		put_str(out, &at, ellipsis(utf8));
		put_str(out, &at, "$$");
		cut = fit_middle(leaf, width - root_part - 3, utf8);
		put_str(out, &at, cut);
		free(cut);
		return out;
	}
	tail_w = width - root_part - 1;
	tail = s + osc_text_skip(s, total - tail_w, utf8);
	/* an element's start within the first third of the tail: start there */
	p = strstr(tail, "$$");
	if (p && osc_text_width(tail, (size_t)(p - tail), utf8) <= tail_w / 3)
		tail = p;
	tail_w = width_of(tail, utf8);
	put_cols(out, &at, s, width - 1 - tail_w < root_w ? width - 1 - tail_w : root_w, utf8);
	put_str(out, &at, ellipsis(utf8));
	put_str(out, &at, tail);
	return out;
}

char *osc_fit_text(const char *s, size_t width, bool utf8)
{
	char *out;

	if (width_of(s, utf8) <= width)
		return osc_xstrdup(s);
	out = fit_path(s, width, utf8);
	return out ? out : fit_middle(s, width, utf8);
}

/*
 * s cut around byte p (where it differs from a row it looked equal to): a
 * head of a third of the width, an ellipsis, then a window of the text that
 * holds p with some context before it, and an ellipsis if the text goes on.
 */
static char *fit_window(const char *s, size_t p, size_t width, bool utf8)
{
	size_t total = width_of(s, utf8), at_col = osc_text_width(s, p, utf8);
	/* A head for the context (a third), unless the width is too small to spare it. */
	size_t head = width >= 2 * MIN_DISTINCT ? width / 3 : 0, rest = width - head - 1, from;
	char *out;
	size_t at = 0;

	if (total <= width || width < MIN_DISTINCT)
		return osc_fit_text(s, width, utf8);
	out = osc_xmalloc(strlen(s) + 16);
	out[0] = '\0';
	if (at_col + 2 <= width - 1) { /* the difference is near the start: cut the end */
		put_cols(out, &at, s, width - 1, utf8);
		put_str(out, &at, ellipsis(utf8));
		return out;
	}
	from = at_col > head + 1 + (rest - 1) / 3 ? at_col - (rest - 1) / 3 : head + 1;
	if (total - from <= rest) /* the window reaches the end: show the end */
		from = total - rest;
	put_cols(out, &at, s, head, utf8);
	put_str(out, &at, ellipsis(utf8));
	s += osc_text_skip(s, from, utf8);
	if (width_of(s, utf8) <= rest) {
		put_str(out, &at, s);
	} else {
		put_cols(out, &at, s, rest - 1, utf8);
		put_str(out, &at, ellipsis(utf8));
	}
	return out;
}

/* Bytes a and b share from the start, backed off to a character boundary. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	while (n && ((unsigned char)a[n] & 0xc0) == 0x80)
		n--;
	return n;
}

bool osc_fit_column(const char *const *texts, size_t n, size_t width, bool utf8, char **out)
{
	bool cut = false;
	size_t *at = osc_xcalloc(n ? n : 1, sizeof(*at));

	for (size_t i = 0; i < n; i++) {
		out[i] = osc_fit_text(texts[i], width, utf8);
		cut |= strcmp(out[i], texts[i]) != 0;
	}
	/* Twice: a first window may still meet another row's. */
	for (int pass = 0; cut && pass < 2; pass++) {
		bool again = false;

		for (size_t i = 0; i < n; i++) {
			at[i] = (size_t)-1;
			for (size_t j = 0; j < n; j++) {
				size_t c;

				if (j == i || strcmp(out[i], out[j]) || !strcmp(texts[i], texts[j]))
					continue;
				c = common_prefix(texts[i], texts[j]);
				if (at[i] == (size_t)-1 || c > at[i])
					at[i] = c;
			}
		}
		for (size_t i = 0; i < n; i++) {
			if (at[i] == (size_t)-1)
				continue;
			free(out[i]);
			out[i] = fit_window(texts[i], at[i], width, utf8);
			again = true;
		}
		if (!again)
			break;
	}
	free(at);
	return cut;
}
