/*
 * filter.h - name filters.
 *
 * A filter holds any number of patterns and at most one PCRE2 regex. A pattern
 * containing any of `*?[` is a shell wildcard (fnmatch), otherwise an exact
 * name. A name passes when (no patterns, or it matches any pattern) and (no
 * regex, or the regex matches somewhere in it). An event passes when its name
 * or its op key passes. The regex is compiled once (UTF mode, JIT when
 * available).
 */
#ifndef OPSCOPE_FILTER_H
#define OPSCOPE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/*
 * A pattern read once (osc_pattern_compile), so that matching a million
 * names does not read it a million times: an exact name, a literal with
 * '*'s at one end or both ("aten::*", "*_kernel", "*conv*"), or any other
 * wildcard (fnmatch).
 */
enum osc_pattern_kind { OSC_PATTERN_EXACT, OSC_PATTERN_ENDS, OSC_PATTERN_FNMATCH };

struct osc_pattern {
	const char *text;          /* the pattern, kept alive by its owner */
	size_t len;                /* EXACT: the name's length */
	size_t mid_at, mid_len;    /* ENDS: the literal between the stars */
	bool head, tail;           /* ENDS: stars before it, after it */
	enum osc_pattern_kind kind;
};

/* Read pattern text (kept alive by the caller) into p. */
void osc_pattern_compile(struct osc_pattern *p, const char *text);
/*
 * Whether name[0 .. len) matches p as a filter pattern does: a shell
 * wildcard (fnmatch, case-sensitive) when it has any of `*?[`, else exactly.
 */
bool osc_pattern_matches(const struct osc_pattern *p, const char *name, size_t len);

struct osc_filter {
	char **patterns;
	struct osc_pattern *compiled; /* per pattern: it, read once */
	size_t nr_patterns, alloc_patterns;
	void *re;          /* pcre2_code *, NULL if none */
	void *match_data;  /* pcre2_match_data * */
	char *re_text;     /* the regex as given */
};

void osc_filter_init(struct osc_filter *f);
void osc_filter_release(struct osc_filter *f);


/*
 * A pattern that matches name and nothing else (a new string): name itself,
 * or, when it has any of `*?[`, those and backslashes quoted with a backslash.
 */
char *osc_pattern_exact(const char *name);

/* Add a wildcard or exact pattern (copied). */
void osc_filter_add_pattern(struct osc_filter *f, const char *pattern);

/*
 * Set the regex (replacing any previous one). On a compile error returns
 * OSC_USAGE with PCRE2's message and the offset inside the pattern in the
 * message, leaving f unchanged; err->subject is "--regex".
 */
enum osc_status osc_filter_set_regex(struct osc_filter *f, const char *re,
				     struct osc_error *err);

/*
 * Parse the TUI/`:filter` form, which replaces the whole filter: "re:RE" makes
 * it that regex alone, anything else that one pattern alone, "" clears it.
 * Leaves f unchanged on error.
 */
enum osc_status osc_filter_set_spec(struct osc_filter *f, const char *spec,
				    struct osc_error *err);

/* True when the filter has no patterns and no regex. */
bool osc_filter_is_empty(const struct osc_filter *f);

/* True when the name passes (see top). Not reentrant: shares match data. */
bool osc_filter_match(const struct osc_filter *f, const char *name, size_t len);

/* True when event ev passes by its name or its op key. */
bool osc_filter_match_event(const struct osc_filter *f, const struct osc_trace *t,
			    uint32_t ev);

/*
 * A filter applied to every event of one trace: remembers the verdict per
 * string id, so a scan of millions of events matches each distinct name once.
 * f may be NULL or empty (everything passes). Keep f and t alive and unchanged
 * while the cache is in use. A cache has its own regex match data, so one
 * thread may scan through it while another calls osc_filter_match() on f.
 */
struct osc_filter_cache {
	const struct osc_filter *filter; /* NULL: everything passes */
	const struct osc_trace *trace;
	uint8_t *memo;     /* per string id: 0 unknown, 1 fails, 2 passes */
	void *match_data;  /* pcre2_match_data * of this cache, NULL without regex */
};

void osc_filter_cache_init(struct osc_filter_cache *c, const struct osc_filter *f,
			   const struct osc_trace *t);
/* Same verdict as osc_filter_match_event(). */
bool osc_filter_cache_event(struct osc_filter_cache *c, uint32_t ev);
/* The same verdict for an event with this name and op key. */
bool osc_filter_cache_names(struct osc_filter_cache *c, osc_str name, osc_str op);
void osc_filter_cache_release(struct osc_filter_cache *c);

/* Description into a new string, e.g. "Conv*|Relu re:gemm", or "" if empty. */
char *osc_filter_describe(const struct osc_filter *f);

#endif
