/*
 * category.h - op categories (GEMM, CONV_fwd, SDPA_bwd, norm, ...) decided
 * from op and kernel name patterns.
 *
 * The patterns live in one table of (category, kind, pattern) rows in
 * category.c, matched in order, first match wins; a user file (lines
 * `CATEGORY op|kernel PATTERN`, patterns as --filter takes them) is checked
 * before it. A name no row matches is OSC_CAT_OTHER.
 *
 * Per event of a trace (osc_categorize):
 * - a host op: the category of its op key (else of its name); when that is
 *   other, the category holding most device time among the device events it
 *   launched itself (the leaf op of correlate.h), ties to the earlier one;
 * - a device event (kernel, memcpy, memset): the name category of the op that
 *   launched it when that is not other, else the category of its own name.
 * Each device event thus has one category, and its time is counted once.
 */
#ifndef OPSCOPE_CATEGORY_H
#define OPSCOPE_CATEGORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/* X-macro: the categories with their printed name, in table order. */
#define OSC_CATEGORY_LIST(_)                 \
	_(GEMM, "GEMM")                      \
	_(CONV_FWD, "CONV_fwd")              \
	_(CONV_BWD, "CONV_bwd")              \
	_(SDPA_FWD, "SDPA_fwd")              \
	_(SDPA_BWD, "SDPA_bwd")              \
	_(NORM, "norm")                      \
	_(ELEMENTWISE, "elementwise")        \
	_(REDUCE, "reduce")                  \
	_(TRITON, "triton")                  \
	_(COMM, "communication")             \
	_(MEMCPY, "memcpy/memset")           \
	_(OTHER, "other")

enum osc_category {
#define OSC_CATEGORY_ENUM(name, text) OSC_CAT_##name,
	OSC_CATEGORY_LIST(OSC_CATEGORY_ENUM)
#undef OSC_CATEGORY_ENUM
	OSC_CAT_NR
};

/* Which name a rule matches. */
enum osc_cat_kind { OSC_CAT_KIND_OP, OSC_CAT_KIND_KERNEL };

/* The printed name of category c ("other" when out of range). */
const char *osc_category_name(enum osc_category c);

/* The category named s (exact); false when none is. */
bool osc_category_parse(const char *s, enum osc_category *out);

struct osc_cat_rule {
	uint8_t cat;          /* enum osc_category */
	uint8_t kind;         /* enum osc_cat_kind */
	char *pattern;        /* owned (user rules) */
};

/* The user's rules, checked before the built-in table. */
struct osc_categories {
	struct osc_cat_rule *rules;
	size_t nr, alloc;
};

void osc_categories_init(struct osc_categories *c);
void osc_categories_release(struct osc_categories *c);

/*
 * Add the rules of file path to c: one `CATEGORY op|kernel PATTERN` a line
 * (spaces or tabs between; the pattern runs to the end of the line, trailing
 * blanks dropped); blank lines and lines starting with '#' are skipped.
 * OSC_IO when it cannot be read; OSC_USAGE for a bad line, with subject
 * path and "line N: ..." in the message; c keeps the lines before it.
 */
enum osc_status osc_categories_load(struct osc_categories *c, const char *path,
				    struct osc_error *err);

/*
 * Add the rules of text (the file's format) to c; subject names it in
 * errors. As osc_categories_load.
 */
enum osc_status osc_categories_parse(struct osc_categories *c, const char *text,
				     const char *subject, struct osc_error *err);

/* The built-in rules, in order (*nr of them). */
const struct osc_cat_rule *osc_category_builtin(size_t *nr);

/*
 * The category of name[0 .. len) as a `kind` name: the first user rule of
 * that kind that matches (user may be NULL), else the first built-in one,
 * else OSC_CAT_OTHER.
 */
enum osc_category osc_category_match(const struct osc_categories *user, enum osc_cat_kind kind,
				     const char *name, size_t len);

/*
 * The category of every event of t into out[0 .. t->nr_events) (see the top
 * of this file; events that are neither host ops nor device events get
 * OSC_CAT_OTHER). launcher: per event, the host op that launched a device
 * event, or OSC_NONE (osc_trace_launchers). user may be NULL.
 */
void osc_categorize(const struct osc_trace *t, const uint32_t *launcher,
		    const struct osc_categories *user, uint8_t *out);

#endif
