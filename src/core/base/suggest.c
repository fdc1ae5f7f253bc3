/* suggest.c - "did you mean" (suggest.h). */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/suggest.h"

size_t osc_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1, d;
	size_t *m = osc_xmalloc((la + 1) * w * sizeof(*m)); /* m[i*w+j]: a[..i) vs b[..j) */

	for (size_t i = 0; i <= la; i++)
		m[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		m[j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t best = m[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]);

			if (m[(i - 1) * w + j] + 1 < best)
				best = m[(i - 1) * w + j] + 1;
			if (m[i * w + j - 1] + 1 < best)
				best = m[i * w + j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    m[(i - 2) * w + j - 2] + 1 < best)
				best = m[(i - 2) * w + j - 2] + 1;
			m[i * w + j] = best;
		}
	}
	d = m[la * w + lb];
	free(m);
	return d;
}

const char *osc_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word), limit = len / 3 ? len / 3 : 1, best_d = (size_t)-1;
	const char *best = NULL, *prefixed = NULL;

	if (!len)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!cands[i] || !strcmp(cands[i], word))
			continue;
		if (!strncmp(cands[i], word, len) &&
		    (!prefixed || strlen(cands[i]) < strlen(prefixed)))
			prefixed = cands[i];
		/* far longer or shorter: more than `limit` edits anyway */
		if (strlen(cands[i]) > len + limit || strlen(cands[i]) + limit < len)
			continue;
		d = osc_edit_distance(word, cands[i]);
		if (d <= limit && d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best ? best : prefixed;
}
