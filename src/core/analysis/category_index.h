/*
 * category_index.h - the category rules indexed for matching many names,
 * for category.c (private to the core).
 *
 * Matching a name tries the rules in order, first match wins (category.h),
 * but skips a rule before its pattern is read when the name cannot match
 * it: a rule that starts with a literal byte is only tried on names that
 * start with that byte, and a rule only on names that hold every literal
 * byte it names before any bracket and are at least as long as those bytes
 * and its '?'s. Both tests only ever skip rules that cannot match, so the
 * answer is the plain loop's; a trace of a million distinct names then
 * reads a few patterns per name instead of all of them.
 */
#ifndef OPSCOPE_CATEGORY_INDEX_H
#define OPSCOPE_CATEGORY_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/category.h"
#include "opscope/model/filter.h"

/* A rule and what a name needs to match it. */
struct osc_cat_entry {
	struct osc_pattern pattern; /* read once (filter.h) */
	uint8_t cat;        /* enum osc_category */
	uint16_t bucket;    /* kind * 257 + first byte (256: any): its list (start) */
	size_t min_len;     /* no shorter name matches */
	uint64_t need[4];   /* bytes every match holds, one bit each */
};

struct osc_cat_index {
	struct osc_cat_entry *rules; /* user's then built-in, in order */
	size_t nr;
	/*
	 * Per kind, per first byte b (256: any first byte), the rules to try,
	 * ascending: list[start[k][b] .. start[k][b + 1]).
	 */
	uint32_t *list;
	size_t start[2][258];
};

/* Index the user's rules (may be NULL), then the nr built-in ones. */
void osc_cat_index_init(struct osc_cat_index *x, const struct osc_categories *user,
			const struct osc_cat_rule *builtin, size_t nr);

void osc_cat_index_release(struct osc_cat_index *x);

/* The category of name[0 .. len) as a `kind` name; OSC_CAT_OTHER when no rule matches. */
enum osc_category osc_cat_index_match(const struct osc_cat_index *x, enum osc_cat_kind kind,
				      const char *name, size_t len);

#endif
