/*
 * filter.c - name filters: exact names, shell wildcards and one PCRE2 regex.
 *
 * The regex is compiled once in UTF mode with PCRE2_MATCH_INVALID_UTF, so a
 * subject with bad bytes can never make a match fail with an error, and
 * JIT-compiled when the library supports it (a JIT failure just leaves the
 * interpreter in use).
 */
#define _GNU_SOURCE /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <fnmatch.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/model/filter.h"

void osc_filter_init(struct osc_filter *f)
{
	memset(f, 0, sizeof(*f));
}

static void clear_patterns(struct osc_filter *f)
{
	for (size_t i = 0; i < f->nr_patterns; i++)
		free(f->patterns[i]);
	f->nr_patterns = 0;
}

static void clear_regex(struct osc_filter *f)
{
	pcre2_match_data_free(f->match_data);
	pcre2_code_free(f->re);
	free(f->re_text);
	f->re = NULL;
	f->match_data = NULL;
	f->re_text = NULL;
}

void osc_filter_release(struct osc_filter *f)
{
	clear_patterns(f);
	clear_regex(f);
	free(f->patterns);
	free(f->compiled);
	osc_filter_init(f);
}

void osc_filter_add_pattern(struct osc_filter *f, const char *pattern)
{
	size_t alloc = f->alloc_patterns;

	OSC_GROW(f->patterns, f->nr_patterns + 1, f->alloc_patterns);
	if (alloc != f->alloc_patterns)
		f->compiled = osc_xreallocarray(f->compiled, f->alloc_patterns,
						sizeof(*f->compiled));
	f->patterns[f->nr_patterns] = osc_xstrdup(pattern);
	osc_pattern_compile(&f->compiled[f->nr_patterns], f->patterns[f->nr_patterns]);
	f->nr_patterns++;
}

/* PCRE2 allocates through alloc.h, so out-of-memory follows the project's one path. */
static void *pcre2_xmalloc(size_t size, void *data)
{
	(void)data;
	return osc_xmalloc(size);
}

static void pcre2_xfree(void *p, void *data)
{
	(void)data;
	free(p);
}

enum osc_status osc_filter_set_regex(struct osc_filter *f, const char *re, struct osc_error *err)
{
	int code;
	PCRE2_SIZE offset;
	pcre2_code *compiled;
	PCRE2_UCHAR msg[256];
	pcre2_general_context *gc = pcre2_general_context_create(pcre2_xmalloc, pcre2_xfree, NULL);
	pcre2_compile_context *cc = pcre2_compile_context_create(gc);

	/* the compiled code keeps its own copy of the allocator */
	compiled = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
				 PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &offset, cc);
	pcre2_compile_context_free(cc);
	pcre2_general_context_free(gc);
	if (!compiled) {
		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			strcpy((char *)msg, "unknown error");
		return osc_error_set(err, OSC_USAGE, "--regex", OSC_NO_OFFSET, NULL,
				     "regex error at offset %zu: %s", (size_t)offset,
				     (const char *)msg);
	}
	(void)pcre2_jit_compile(compiled, PCRE2_JIT_COMPLETE);
	clear_regex(f);
	f->re = compiled;
	f->match_data = pcre2_match_data_create_from_pattern(compiled, NULL);
	f->re_text = osc_xstrdup(re);
	return OSC_OK;
}

enum osc_status osc_filter_set_spec(struct osc_filter *f, const char *spec, struct osc_error *err)
{
	enum osc_status st;

	if (!strncmp(spec, "re:", 3)) {
		if ((st = osc_filter_set_regex(f, spec + 3, err)))
			return st;
		clear_patterns(f);
		return OSC_OK;
	}
	clear_patterns(f);
	clear_regex(f);
	if (*spec)
		osc_filter_add_pattern(f, spec);
	return OSC_OK;
}

bool osc_filter_is_empty(const struct osc_filter *f)
{
	return !f->nr_patterns && !f->re;
}

static bool is_wildcard(const char *pattern)
{
	return strpbrk(pattern, "*?[") != NULL;
}

char *osc_pattern_exact(const char *name)
{
	char *out = osc_xmalloc(strlen(name) * 2 + 1), *o = out;

	if (!is_wildcard(name))
		return strcpy(out, name);
	for (const char *p = name; *p; p++) {
		if (strchr("*?[\\", *p))
			*o++ = '\\';
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* fnmatch wants a NUL-terminated name; names from the model are, others get copied. */
static bool wildcard_match(const char *pattern, const char *name, size_t len)
{
	char small[256], *copy = small;
	bool ok;

	if (len >= sizeof(small))
		copy = osc_xmalloc(len + 1);
	memcpy(copy, name, len);
	copy[len] = '\0';
	ok = !fnmatch(pattern, copy, 0);
	if (copy != small)
		free(copy);
	return ok;
}

/*
 * A pattern whose only wildcards are '*'s at its ends ("*conv*", "aten::*",
 * "*_kernel", the usual ones) is matched without fnmatch, as fnmatch (flags
 * 0: '*' takes any bytes) would match it: by its literal middle, against the
 * name up to a NUL (where fnmatch's copy ends).
 */
void osc_pattern_compile(struct osc_pattern *p, const char *text)
{
	size_t head = strspn(text, "*"), len = strlen(text), tail = 0;

	*p = (struct osc_pattern){ .text = text, .len = len, .kind = OSC_PATTERN_EXACT };
	if (!is_wildcard(text))
		return;
	while (tail < len - head && text[len - 1 - tail] == '*')
		tail++;
	p->mid_at = head;
	p->mid_len = len - head - tail;
	p->head = head;
	p->tail = tail;
	p->kind = (head || tail) && strcspn(text + head, "*?[\\") >= p->mid_len
			  ? OSC_PATTERN_ENDS
			  : OSC_PATTERN_FNMATCH;
}

bool osc_pattern_matches(const struct osc_pattern *p, const char *name, size_t len)
{
	const char *mid = p->text + p->mid_at;

	switch (p->kind) {
	case OSC_PATTERN_EXACT:
		return p->len == len && !memcmp(p->text, name, len);
	case OSC_PATTERN_ENDS:
		len = strnlen(name, len);
		if (p->mid_len > len)
			return false;
		if (p->head && p->tail)
			return memmem(name, len, mid, p->mid_len);
		return !memcmp(p->head ? name + len - p->mid_len : name, mid, p->mid_len);
	default:
		return wildcard_match(p->text, name, len);
	}
}

/* osc_filter_match() with the match data to use (one per thread). */
static bool name_passes(const struct osc_filter *f, pcre2_match_data *md, const char *name,
			size_t len)
{
	bool any = !f->nr_patterns;

	for (size_t i = 0; !any && i < f->nr_patterns; i++)
		any = osc_pattern_matches(&f->compiled[i], name, len);
	if (!any || !f->re)
		return any;
	return pcre2_match(f->re, (PCRE2_SPTR)name, len, 0, 0, md, NULL) >= 0;
}

bool osc_filter_match(const struct osc_filter *f, const char *name, size_t len)
{
	return name_passes(f, f->match_data, name, len);
}

/* Does string id s pass? memo (one byte per string id, 0 = not known yet) may be NULL. */
static bool string_passes(const struct osc_filter *f, pcre2_match_data *md,
			  const struct osc_trace *t, osc_str s, uint8_t *memo)
{
	bool ok;

	if (memo && memo[s])
		return memo[s] == 2;
	ok = name_passes(f, md, osc_trace_str(t, s), osc_strtab_len(&t->strs, s));
	if (memo)
		memo[s] = ok ? 2 : 1;
	return ok;
}

/* An event passes by its name, or by its op key when that differs. */
static bool names_pass(const struct osc_filter *f, pcre2_match_data *md,
		       const struct osc_trace *t, osc_str name, osc_str op, uint8_t *memo)
{
	return string_passes(f, md, t, name, memo) ||
	       (op != name && string_passes(f, md, t, op, memo));
}

static bool event_passes(const struct osc_filter *f, pcre2_match_data *md,
			 const struct osc_trace *t, uint32_t ev, uint8_t *memo)
{
	return names_pass(f, md, t, t->events[ev].name, osc_trace_op(t, ev), memo);
}

bool osc_filter_match_event(const struct osc_filter *f, const struct osc_trace *t, uint32_t ev)
{
	return event_passes(f, f->match_data, t, ev, NULL);
}

void osc_filter_cache_init(struct osc_filter_cache *c, const struct osc_filter *f,
			   const struct osc_trace *t)
{
	c->filter = f && !osc_filter_is_empty(f) ? f : NULL;
	c->trace = t;
	c->memo = c->filter ? osc_xcalloc(t->strs.count ? t->strs.count : 1, 1) : NULL;
	/* its own match data, so a worker thread can scan while the UI matches */
	c->match_data =
		c->filter && f->re ? pcre2_match_data_create_from_pattern(f->re, NULL) : NULL;
}

bool osc_filter_cache_event(struct osc_filter_cache *c, uint32_t ev)
{
	return !c->filter || event_passes(c->filter, c->match_data, c->trace, ev, c->memo);
}

bool osc_filter_cache_names(struct osc_filter_cache *c, osc_str name, osc_str op)
{
	return !c->filter || names_pass(c->filter, c->match_data, c->trace, name, op, c->memo);
}

void osc_filter_cache_release(struct osc_filter_cache *c)
{
	pcre2_match_data_free(c->match_data);
	free(c->memo);
	memset(c, 0, sizeof(*c));
}

char *osc_filter_describe(const struct osc_filter *f)
{
	char *out = osc_xstrdup("");

	for (size_t i = 0; i < f->nr_patterns; i++) {
		char *next = osc_xasprintf("%s%s%s", out, i ? "|" : "", f->patterns[i]);

		free(out);
		out = next;
	}
	if (f->re) {
		char *next = osc_xasprintf("%s%sre:%s", out, *out ? " " : "", f->re_text);

		free(out);
		out = next;
	}
	return out;
}
