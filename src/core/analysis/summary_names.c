/* summary_names.c - a summary file's kernel rows in another name style (summary_names.h). */
#define _GNU_SOURCE /* memmem */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/summary_names.h"
#include "opscope/analysis/aggregate.h"
#include "opscope/base/alloc.h"

/*
 * Where a row of level l shows its kernel, the text w: at the start at the
 * kernel and dims levels ("NAME", "NAME bX,gY"), after the first " > " that
 * it follows at the mapping level ("OP > NAME SHAPE bX,gY"), followed by the
 * end or a space. The offset into *at; false when label does not show w.
 * One search of the label (memmem), however the texts repeat.
 */
static bool find_kernel(const char *label, enum osc_level l, const char *w, size_t *at)
{
	size_t len = strlen(w), n = strlen(label);
	char *inner;
	const char *p;

	if (l != OSC_LEVEL_MAPPING) {
		*at = 0;
		return !strncmp(label, w, len) && (label[len] == ' ' || !label[len]);
	}
	inner = osc_xmalloc(len + 5); /* " > w " inside the label */
	memcpy(inner, " > ", 3);
	memcpy(inner + 3, w, len);
	inner[len + 3] = ' ';
	p = memmem(label, n, inner, len + 4);
	if (!p && n >= len + 3 && !memcmp(label + n - len - 3, inner, len + 3))
		p = label + n - len - 3; /* " > w" at its end */
	free(inner);
	if (p)
		*at = (size_t)(p + 3 - label);
	return p != NULL;
}

/*
 * Row r's kernel, written as from demangles it, shown as to shows it in
 * style; false, with r unchanged, where r's label does not show it so.
 */
static bool restyle_row(struct osc_summary *s, struct osc_sum_row *r, const struct osc_names *from,
			const struct osc_names *to, enum osc_name_style style)
{
	const char *label = osc_summary_str(s, r->key);
	const char *w = osc_names_text(from, &s->strs, r->kernel, OSC_NAMES_DEMANGLED);
	const char *shown = osc_names_text(to, &s->strs, r->kernel, style);
	size_t at, wlen = strlen(w), slen = strlen(shown), tail;
	char *text;

	if (!find_kernel(label, (enum osc_level)r->level, w, &at))
		return false;
	tail = strlen(label + at + wlen);
	text = osc_xmalloc(at + slen + tail + 1); /* the table may move as it grows */
	memcpy(text, label, at);
	memcpy(text + at, shown, slen);
	memcpy(text + at + slen, label + at + wlen, tail + 1);
	r->key = osc_strtab_intern(&s->strs, text, at + slen + tail);
	free(text);
	return true;
}

/* Rows of one level, run and key (adjacent once sorted) made one: sums added, extremes kept. */
static void merge_rows(struct osc_summary *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nr_rows; i++) {
		struct osc_sum_row *r = &s->rows[i], *m = k ? &s->rows[k - 1] : NULL;

		if (!m || m->level != r->level || m->run != r->run || m->key != r->key) {
			s->rows[k++] = *r;
			continue;
		}
		osc_sum_row_add(m, r);
	}
	s->nr_rows = k;
}

enum osc_status osc_summary_restyle(struct osc_summary *s, enum osc_name_style style,
				    const char *cmd, size_t *kept, struct osc_error *err)
{
	uint8_t *want;
	struct osc_names written, shown;
	enum osc_status st;
	size_t nr_kept = 0;

	if (kept)
		*kept = 0;
	if (style == OSC_NAMES_DEMANGLED && !cmd) /* as osc_summary_build wrote them */
		return OSC_OK;
	want = osc_xcalloc(s->strs.count ? s->strs.count : 1, 1);
	for (size_t i = 0; i < s->nr_rows; i++)
		if (osc_level_is_device((enum osc_level)s->rows[i].level))
			want[s->rows[i].kernel] = 2;
	want[OSC_STR_EMPTY] = 0;
	osc_names_init(&written);
	osc_names_init(&shown);
	/* written as osc_summary_build names them: demangled by libiberty */
	st = osc_names_build_strs(&written, &s->strs, want, NULL, err);
	if (st == OSC_OK && cmd)
		st = osc_names_build_strs(&shown, &s->strs, want, cmd, err);
	for (size_t i = 0; st == OSC_OK && i < s->nr_rows; i++) {
		struct osc_sum_row *r = &s->rows[i];

		if (osc_level_is_device((enum osc_level)r->level) &&
		    (r->kernel == OSC_STR_EMPTY ||
		     !restyle_row(s, r, &written, cmd ? &shown : &written, style)))
			nr_kept++;
	}
	if (st == OSC_OK) {
		osc_summary_sort(s);
		merge_rows(s);
		if (kept)
			*kept = nr_kept;
	}
	osc_names_release(&written);
	osc_names_release(&shown);
	free(want);
	return st;
}
