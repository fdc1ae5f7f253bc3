/*
 * category_index.c - the category rules indexed by what a name needs to
 * match them (category_index.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/category_index.h"
#include "opscope/base/alloc.h"

/* The bucket of names a rule can match: its first byte when literal, else 256 (any). */
#define ANY_FIRST 256

static void need_byte(uint64_t need[4], unsigned char b)
{
	need[b >> 6] |= 1ull << (b & 63);
}

/*
 * What a name needs to match pattern p (a --filter pattern: exact, or an
 * fnmatch wildcard with backslash escapes): the literal bytes before the
 * first bracket, and one byte for each of them and each '?'. A bracket and
 * what follows are left out, which can only let more names through.
 */
static void entry_needs(struct osc_cat_entry *e, const char *p)
{
	for (; *p && *p != '['; p++) {
		if (*p == '*')
			continue;
		e->min_len++;
		if (*p == '?')
			continue;
		if (*p == '\\' && p[1])
			p++;
		need_byte(e->need, (unsigned char)*p);
	}
}

static unsigned first_bucket(const char *p)
{
	return *p && !strchr("*?[\\", *p) ? (unsigned char)*p : ANY_FIRST;
}

static void add_entry(struct osc_cat_index *x, const struct osc_cat_rule *r, size_t *count)
{
	struct osc_cat_entry *e = &x->rules[x->nr++];

	*e = (struct osc_cat_entry){ .cat = r->cat,
				     .bucket = (uint16_t)((r->kind ? 257 : 0) +
							  first_bucket(r->pattern)) };
	osc_pattern_compile(&e->pattern, r->pattern);
	entry_needs(e, r->pattern);
	count[e->bucket]++;
}

void osc_cat_index_init(struct osc_cat_index *x, const struct osc_categories *user,
			const struct osc_cat_rule *builtin, size_t nr)
{
	size_t nuser = user ? user->nr : 0, count[2 * 257] = { 0 }, at = 0;
	size_t fill[2 * 257];

	memset(x, 0, sizeof(*x));
	x->rules = osc_xmalloc((nuser + nr ? nuser + nr : 1) * sizeof(*x->rules));
	x->list = osc_xmalloc((nuser + nr ? nuser + nr : 1) * sizeof(*x->list));
	for (size_t i = 0; i < nuser; i++)
		add_entry(x, &user->rules[i], count);
	for (size_t i = 0; i < nr; i++)
		add_entry(x, &builtin[i], count);
	for (int k = 0; k < 2; k++) {
		for (int b = 0; b < 257; b++) {
			x->start[k][b] = fill[k * 257 + b] = at;
			at += count[k * 257 + b];
		}
		x->start[k][257] = at;
	}
	for (size_t i = 0; i < x->nr; i++)
		x->list[fill[x->rules[i].bucket]++] = (uint32_t)i;
}

void osc_cat_index_release(struct osc_cat_index *x)
{
	free(x->rules);
	free(x->list);
	memset(x, 0, sizeof(*x));
}

/* Rule e matches the name whose bytes are `has`. */
static bool entry_matches(const struct osc_cat_entry *e, const uint64_t has[4], const char *name,
			  size_t len)
{
	for (int w = 0; w < 4; w++)
		if (e->need[w] & ~has[w])
			return false;
	return len >= e->min_len && osc_pattern_matches(&e->pattern, name, len);
}

enum osc_category osc_cat_index_match(const struct osc_cat_index *x, enum osc_cat_kind kind,
				      const char *name, size_t len)
{
	const size_t *start = x->start[kind == OSC_CAT_KIND_KERNEL];
	unsigned first = len ? (unsigned char)name[0] : ANY_FIRST;
	size_t i = start[first], iend = start[first + 1];
	size_t j = start[ANY_FIRST], jend = first == ANY_FIRST ? j : start[ANY_FIRST + 1];
	uint64_t has[4] = { 0 };

	for (size_t k = 0; k < len; k++)
		need_byte(has, (unsigned char)name[k]);
	/* the two ascending lists merged: rules in order */
	while (i < iend || j < jend) {
		uint32_t r = j >= jend || (i < iend && x->list[i] < x->list[j]) ? x->list[i++]
										   : x->list[j++];

		if (entry_matches(&x->rules[r], has, name, len))
			return (enum osc_category)x->rules[r].cat;
	}
	return OSC_CAT_OTHER;
}
