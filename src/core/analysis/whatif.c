/*
 * whatif.c - speedup rules and the projected latency.
 *
 * Rules are tested in order, once per row and distinct (name, op, shape)
 * of its events (rule_memo): a CSV table of shapes may hold hundreds, and
 * the events of a row repeat a few names and shapes. With such a table an
 * event's shape is looked up among the rules' (shape_index), and only the
 * rules it finds, and those without a shape, are tested. The label of a
 * row is computed once per row.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/diff.h"
#include "opscope/analysis/opcost.h"
#include "opscope/base/sat.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/analysis/whatif.h"
#include "base/i64map.h"
#include "base/radix.h"

#define LABEL_SIZE 4096

void osc_speedups_init(struct osc_speedups *s)
{
	memset(s, 0, sizeof(*s));
}

static void rule_release(struct osc_speedup *r)
{
	free(r->pattern);
	free(r->shape);
	osc_filter_release(&r->match);
}

void osc_speedups_release(struct osc_speedups *s)
{
	for (size_t i = 0; i < s->nr; i++)
		rule_release(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

enum osc_status osc_speedups_set(struct osc_speedups *s, const char *pattern, const char *shape,
				 double factor, struct osc_error *err)
{
	struct osc_speedup *r;
	size_t i;

	if (!(factor >= OSC_SPEEDUP_MIN && factor <= OSC_SPEEDUP_MAX)) /* NaN too */
		return osc_error_set(err, OSC_USAGE, "--speedup", OSC_NO_OFFSET, NULL,
				     "'%s': factor %g is out of range %g..%g (2 halves its time)",
				     pattern, factor, OSC_SPEEDUP_MIN, OSC_SPEEDUP_MAX);
	if (!*pattern)
		return osc_error_set(err, OSC_USAGE, "--speedup", OSC_NO_OFFSET, NULL,
				     "a rule needs an op name or pattern before '='");
	shape = shape ? shape : "";
	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].pattern, pattern) && !strcmp(s->v[i].shape, shape))
			break;
	if (i < s->nr && factor == 1) {
		rule_release(&s->v[i]);
		memmove(&s->v[i], &s->v[i + 1], (s->nr - i - 1) * sizeof(s->v[0]));
		s->nr--;
		return OSC_OK;
	}
	if (i == s->nr) {
		if (factor == 1)
			return OSC_OK;
		OSC_GROW(s->v, s->nr + 1, s->alloc);
		r = &s->v[s->nr++];
		r->pattern = osc_xstrdup(pattern);
		r->shape = osc_xstrdup(shape);
		osc_filter_init(&r->match);
		osc_filter_add_pattern(&r->match, pattern);
	}
	s->v[i].factor = factor;
	return OSC_OK;
}

/* A whole-string number (its range is osc_speedups_set's to check). */
static bool parse_factor(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	while (*end == ' ')
		end++;
	return *s && !*end && end != s;
}

enum osc_status osc_speedups_parse(struct osc_speedups *s, const char *spec,
				   struct osc_error *err)
{
	const char *eq = strrchr(spec, '=');
	char *pattern, *shape;
	double factor;
	enum osc_status st;

	if (!eq || !parse_factor(eq + 1, &factor))
		return osc_error_set(err, OSC_USAGE, "--speedup", OSC_NO_OFFSET, NULL,
				     "expected OP[@SHAPE]=FACTOR with a number as FACTOR, got '%s'",
				     spec);
	pattern = osc_xstrndup(spec, (size_t)(eq - spec));
	shape = strchr(pattern, '@');
	if (shape)
		*shape++ = '\0';
	st = osc_speedups_set(s, pattern, shape, factor, err);
	free(pattern);
	return st;
}

/* Split line at commas into at most 3 trimmed fields; returns the count. */
static size_t split3(char *line, char *f[3])
{
	size_t n = 0;
	char *p = line;

	while (n < 3) {
		char *c = strchr(p, ','), *e;

		f[n++] = p;
		if (c)
			*c = '\0';
		while (*f[n - 1] == ' ' || *f[n - 1] == '"')
			f[n - 1]++;
		e = f[n - 1] + strlen(f[n - 1]);
		while (e > f[n - 1] && strchr(" \"\r\n", e[-1]))
			*--e = '\0';
		if (!c)
			break;
		p = c + 1;
	}
	return n;
}

enum osc_status osc_speedups_read_csv(struct osc_speedups *s, const char *path,
				      struct osc_error *err)
{
	FILE *f = fopen(path, "r");
	char line[4096], *fld[3], field[32];
	enum osc_status st = OSC_OK;
	double factor;

	if (!f)
		return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "%s",
				     strerror(errno));
	for (unsigned n = 1; st == OSC_OK && fgets(line, sizeof(line), f); n++) {
		size_t k;

		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		k = split3(line, fld);
		snprintf(field, sizeof(field), "line %u", n);
		if (k == 3 && parse_factor(fld[2], &factor)) {
			struct osc_error bad;

			osc_error_clear(&bad);
			st = osc_speedups_set(s, fld[0], fld[1], factor, &bad);
			if (st != OSC_OK) /* the file's line, not --speedup */
				osc_error_set(err, st, path, OSC_NO_OFFSET, field, "%s", bad.message);
		} else if (n > 1 || k != 3) {
			st = osc_error_set(err, OSC_USAGE, path, OSC_NO_OFFSET, field,
					   "expected op,shape,factor with a number as factor");
		}
	}
	if (st == OSC_OK && ferror(f))
		st = osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "read error");
	fclose(f);
	return st;
}

/* An event's input shapes, and their compact form made when a rule first asks. */
struct event_shape {
	const char *text;
	char compact[LABEL_SIZE];
	bool compacted;
};

/* The shapes of event ev (compacted only when asked). */
static void event_shape_of(const struct osc_trace *t, uint32_t ev, struct event_shape *sh)
{
	sh->text = osc_trace_str(t, t->events[ev].shape);
	sh->compacted = false; /* the rest is not zeroed: compact is 4 KiB, made per event */
}

/* The compact form of sh's shapes, made the first time. */
static const char *compact_of(struct event_shape *sh)
{
	if (!sh->compacted) {
		osc_shape_compact(sh->text, sh->compact, sizeof(sh->compact));
		sh->compacted = true;
	}
	return sh->compact;
}

/* True when want names the shapes of sh, their compact form, or one input's dims. */
static bool shape_matches(struct event_shape *sh, const char *want)
{
	const char *p;
	size_t n = strlen(want);

	if (!strcmp(sh->text, want) || !strcmp(compact_of(sh), want))
		return true;
	/* "(256x256)" inside "fp32(1024x256),fp32(256x256)". */
	for (p = sh->text; (p = strchr(p, '(')); p++)
		if (!strncmp(p + 1, want, n) && p[1 + n] == ')')
			return true;
	return false;
}

/* Rule r matches ev, in a row labelled label (of length len), by its pattern. */
static bool pattern_matches(const struct osc_speedup *r, const struct osc_trace *t,
			    const char *label, size_t len, uint32_t ev)
{
	return osc_filter_match(&r->match, label, len) || osc_filter_match_event(&r->match, t, ev);
}

/*
 * The index of the first rule of s before limit that ev (in a row labelled
 * label) matches; limit for none.
 */
static size_t first_rule(const struct osc_speedups *s, const struct osc_trace *t,
			 const char *label, uint32_t ev, size_t limit)
{
	struct event_shape sh;
	size_t len = strlen(label);

	event_shape_of(t, ev, &sh);

	for (size_t i = 0; i < limit; i++) {
		const struct osc_speedup *r = &s->v[i];

		/* the shapes first: cheaper than the patterns, and most rules of a table fail there */
		if (*r->shape && !shape_matches(&sh, r->shape))
			continue;
		if (pattern_matches(r, t, label, len, ev))
			return i;
	}
	return limit;
}

/*
 * The rules' shapes indexed, so that a table of shape rules costs a few
 * lookups per event, not a test of every rule. shape_matches holds when the
 * rule's shape is the event's text, its compact form, or the text between
 * a '(' of the event's and a ')' after it: each of those is looked up. A
 * shape with no ')' can only be the text up to the first ')'; the few that
 * hold one (they span inputs) are looked up at every later ')' too, or,
 * when an event has more of those places than there are such rules, tested
 * one by one. Rules with no shape are kept aside.
 */
struct shape_index {
	struct osc_strtab texts; /* the distinct shapes of the rules */
	uint32_t *first, *next;  /* per text id, its first rule; per rule, the next of its text */
	uint32_t *aside;         /* the rules with no shape, in order */
	size_t nr_aside;
	uint32_t *spanning;      /* the rules whose shape holds a ')' */
	size_t nr_spanning;
	uint32_t *hits;          /* scratch: one event's rules found by shape */
	size_t hits_alloc;
};

static void shape_index_build(struct shape_index *x, const struct osc_speedups *s)
{
	memset(x, 0, sizeof(*x));
	osc_strtab_init(&x->texts); /* id 0 is "", which no rule with a shape has */
	x->first = osc_xmalloc((s->nr + 1) * sizeof(*x->first));
	x->first[OSC_STR_EMPTY] = UINT32_MAX;
	x->next = osc_xmalloc((s->nr ? s->nr : 1) * sizeof(*x->next));
	x->aside = osc_xmalloc((s->nr ? s->nr : 1) * sizeof(*x->aside));
	x->spanning = osc_xmalloc((s->nr ? s->nr : 1) * sizeof(*x->spanning));
	for (size_t i = s->nr; i-- > 0;) { /* backwards: each text's list ends up in order */
		const char *shape = s->v[i].shape;
		osc_str id;

		x->next[i] = UINT32_MAX;
		if (!*shape)
			continue;
		id = osc_strtab_intern(&x->texts, shape, strlen(shape));
		if (id == x->texts.count - 1) /* new */
			x->first[id] = UINT32_MAX;
		x->next[i] = x->first[id];
		x->first[id] = (uint32_t)i;
	}
	for (size_t i = 0; i < s->nr; i++) {
		if (!*s->v[i].shape)
			x->aside[x->nr_aside++] = (uint32_t)i;
		else if (strchr(s->v[i].shape, ')'))
			x->spanning[x->nr_spanning++] = (uint32_t)i;
	}
}

static void shape_index_release(struct shape_index *x)
{
	osc_strtab_release(&x->texts);
	free(x->first);
	free(x->next);
	free(x->aside);
	free(x->spanning);
	free(x->hits);
}

/* Add rule i to x->hits (n of them so far); returns the new count. */
static size_t add_hit(struct shape_index *x, uint32_t i, size_t n)
{
	OSC_GROW(x->hits, n + 1, x->hits_alloc);
	x->hits[n] = i;
	return n + 1;
}

/* Add the rules of shape text[0..len) to x->hits (n of them so far); returns the new count. */
static size_t add_hits(struct shape_index *x, const char *text, size_t len, size_t n)
{
	osc_str id = osc_strtab_find(&x->texts, text, len);

	for (uint32_t i = id != OSC_STR_NONE ? x->first[id] : UINT32_MAX; i != UINT32_MAX;
	     i = x->next[i])
		n = add_hit(x, i, n);
	return n;
}

/* Add the spanning rules that sh matches to x->hits (n so far); returns the new count. */
static size_t spanning_hits(const struct osc_speedups *s, struct shape_index *x,
			    struct event_shape *sh, size_t n)
{
	size_t opens = 0, closes = 0;

	for (const char *p = sh->text; *p; p++)
		opens += *p == '(', closes += *p == ')';
	if (opens * closes > x->nr_spanning) { /* fewer tests than lookups */
		for (size_t k = 0; k < x->nr_spanning; k++)
			if (shape_matches(sh, s->v[x->spanning[k]].shape))
				n = add_hit(x, x->spanning[k], n);
		return n;
	}
	for (const char *p = sh->text; (p = strchr(p, '(')); p++) {
		const char *q = strchr(p + 1, ')');

		while (q && (q = strchr(q + 1, ')'))) /* past the first: shapes holding a ')' */
			n = add_hits(x, p + 1, (size_t)(q - p - 1), n);
	}
	return n;
}

/* The rules that sh's shape matches, in x->hits ascending and distinct; returns how many. */
static size_t shape_hits(const struct osc_speedups *s, struct shape_index *x,
			 struct event_shape *sh)
{
	const char *compact = compact_of(sh);
	size_t n = 0, kept = 0;

	n = add_hits(x, sh->text, strlen(sh->text), n);
	n = add_hits(x, compact, strlen(compact), n);
	for (const char *p = sh->text, *q; (p = strchr(p, '(')); p++)
		if ((q = strchr(p + 1, ')')))
			n = add_hits(x, p + 1, (size_t)(q - p - 1), n);
	if (x->nr_spanning)
		n = spanning_hits(s, x, sh, n);
	for (size_t i = 1; i < n; i++) { /* a few: insertion sort */
		uint32_t v = x->hits[i];
		size_t j = i;

		for (; j > 0 && x->hits[j - 1] > v; j--)
			x->hits[j] = x->hits[j - 1];
		x->hits[j] = v;
	}
	for (size_t i = 0; i < n; i++)
		if (!kept || x->hits[i] != x->hits[kept - 1])
			x->hits[kept++] = x->hits[i];
	return kept;
}

/* first_rule through x: the rules with no shape and the event's hits, merged in order. */
static size_t first_rule_indexed(struct shape_index *x, const struct osc_speedups *s,
				 const struct osc_trace *t, const char *label, uint32_t ev,
				 size_t limit)
{
	struct event_shape sh;
	size_t len = strlen(label), nr_hits, a = 0, h = 0;

	event_shape_of(t, ev, &sh);
	nr_hits = x->texts.count > 1 ? shape_hits(s, x, &sh) : 0;
	while (a < x->nr_aside || h < nr_hits) {
		size_t i = h == nr_hits || (a < x->nr_aside && x->aside[a] < x->hits[h])
				   ? x->aside[a++]
				   : x->hits[h++];

		if (i >= limit)
			break;
		if (pattern_matches(&s->v[i], t, label, len, ev))
			return i;
	}
	return limit;
}

static double event_factor(const struct osc_speedups *s, const struct osc_trace *t,
			   const char *label, uint32_t ev)
{
	size_t i = first_rule(s, t, label, ev, s->nr);

	return i < s->nr ? s->v[i].factor : 1;
}

/*
 * first_rule once per (row, name, op, shape) where it can: the events of a
 * model step repeat thousands to tens of thousands of those, in turn (its
 * layers' ops and shapes). The last answers are kept in a table by a hash of
 * those four (RECENT entries, one per hash: a lookup reads one; 2^12 of them
 * missed on most nodes of kineto-1300MB's steps), unless rows have a member
 * or two on average, whose answers are not asked again. Past MEMO_MIN_RULES
 * rules the shapes are indexed (shape_index), and when MEMO_MIN_RULES or
 * more rules have no shape (each event tests them all) a map keeps every
 * answer: dense ids of (name, op) pairs, then of (pair, shape) triples, key
 * the rule per row. Three lookups cost about what testing a few rules does;
 * a table of shape rules alone is cheaper looked up again than mapped (a
 * million distinct events would fill the maps for nothing).
 */
#define MEMO_MIN_RULES 8
#define RECENT_BITS 16
#define RECENT (1u << RECENT_BITS)

/* An answer of first_rule: the rule of an event of row with these strings. */
struct recent_rule {
	uint32_t row;
	osc_str name, op, shape;
	uint32_t rule;                 /* UINT32_MAX: no answer here yet */
};

struct rule_memo {
	const struct osc_speedups *s;
	const struct osc_trace *t;
	uint32_t *row_rule;            /* per row: label_rule of its label, or UINT32_MAX
					  before its first ask (rows meet in any order) */
	struct recent_rule *recent;    /* RECENT of them; NULL where rows have a member or
					  two on average (a million names): a lookup would
					  miss, a cache miss of its own */
	struct osc_i64map pairs, triples, rules;
	uint32_t nr_pairs, nr_triples;
	struct shape_index shapes;     /* from MEMO_MIN_RULES rules on */
	bool indexed;
	bool labels_are_ops;           /* each row's label is its members' op key's string
					  whole (names_whole: a host level keyed by it) */
	struct rule_id *ids;           /* per rule, its string when an exact name */
	bool exact;                    /* every rule is an exact name */
	bool shaped;                   /* some rule has a shape */
	bool rows_decide;              /* labels_are_ops, no rule has a shape and each
					  event's name is its op key (the trace holds
					  none apart): a row's rule is its events', and
					  they are not read */
};

/*
 * A rule of an exact name (the TUI's '=') matches the strings equal to it,
 * which the trace holds once: where each label is its members' op key's
 * string whole, the rows of that string, and an event by its name's or op
 * key's id. Ids are compared, and no string is read.
 */
struct rule_id {
	bool exact;  /* the rule is an exact name, */
	osc_str id;  /* ... this string's (OSC_STR_NONE: none the trace holds) */
};

/*
 * The first rule of m->s that every event of a row labelled label (ev one
 * of them) matches: by the label, with no shape (those the index keeps
 * aside, when indexed); s->nr for none. No event needs a later rule.
 */
static size_t label_rule(const struct rule_memo *m, const char *label, uint32_t ev)
{
	const struct osc_speedups *s = m->s;
	size_t n = m->indexed ? m->shapes.nr_aside : s->nr, len = SIZE_MAX;

	for (size_t k = 0; k < n; k++) {
		size_t i = m->indexed ? m->shapes.aside[k] : k;

		if (*s->v[i].shape)
			continue;
		if (m->labels_are_ops && m->ids[i].exact) {
			if (m->ids[i].id == osc_trace_op(m->t, ev))
				return i;
			continue;
		}
		if (len == SIZE_MAX)
			len = strlen(label);
		if (osc_filter_match(&s->v[i].match, label, len))
			return i;
	}
	return s->nr;
}

#define NO_ROW UINT32_MAX /* a node outside the rows: its label is its op */

/* The dense id of key in *map, the next of *nr when new. */
static uint32_t dense_id(struct osc_i64map *map, int64_t key, uint32_t *nr)
{
	uint32_t *slot = osc_i64map_slot(map, key);

	if (*slot == OSC_I64MAP_EMPTY)
		*slot = (*nr)++;
	return *slot;
}

/*
 * first_rule of ev in row (NO_ROW: labelled by its op), through the index
 * and the map; limit: the row's label_rule.
 */
static uint32_t mapped_rule(struct rule_memo *m, uint32_t row, const char *label, uint32_t ev,
			    size_t limit)
{
	const struct osc_event *e = &m->t->events[ev];
	uint32_t pair, triple, *rule;

	if (!m->indexed)
		return (uint32_t)first_rule(m->s, m->t, label, ev, limit);
	if (m->shapes.nr_aside < MEMO_MIN_RULES) /* a few patterns per event: no map */
		return (uint32_t)first_rule_indexed(&m->shapes, m->s, m->t, label, ev, limit);
	pair = dense_id(&m->pairs, osc_i64map_pair(e->name, osc_trace_op(m->t, ev)), &m->nr_pairs);
	triple = dense_id(&m->triples, osc_i64map_pair(pair, e->shape), &m->nr_triples);
	rule = osc_i64map_slot(&m->rules, osc_i64map_pair(row, triple));
	if (*rule == OSC_I64MAP_EMPTY)
		*rule = (uint32_t)first_rule_indexed(&m->shapes, m->s, m->t, label, ev, limit);
	return *rule;
}

/* event_factor of ev in row (NO_ROW: labelled by its op) through m. */
static double memo_factor(struct rule_memo *m, uint32_t row, const char *label, uint32_t ev)
{
	const struct osc_event *e;
	struct recent_rule *r;
	osc_str op;
	size_t limit = m->s->nr;

	if (!m->s->nr)
		return 1;
	if (row != NO_ROW) {
		if (m->row_rule[row] == UINT32_MAX)
			m->row_rule[row] = (uint32_t)label_rule(m, label, ev);
		limit = m->row_rule[row];
	}
	if (limit == 0) /* the row's label decides: no event read */
		return m->s->v[0].factor;
	/* An event whose name is its op key, its row's label, matches no rule without a
	   shape before limit, as the label does not: with no rule of a shape, limit is
	   its rule, and its strings are not read (a million names, each once). */
	if (row != NO_ROW && (m->rows_decide || (!m->shaped && m->labels_are_ops &&
						 m->t->events[ev].name == osc_trace_op(m->t, ev))))
		return limit < m->s->nr ? m->s->v[limit].factor : 1;
	/* Rules of exact names alone, with no shape: the first whose string is the
	   event's name or op key, by id (the row's label matched none before limit). */
	if (row != NO_ROW && m->exact && !m->shaped) {
		const struct osc_event *x = &m->t->events[ev];

		op = osc_trace_op(m->t, ev);
		for (size_t i = 0; i < limit; i++)
			if (m->ids[i].id == x->name || m->ids[i].id == op)
				return m->s->v[i].factor;
		return limit < m->s->nr ? m->s->v[limit].factor : 1;
	}
	if (!m->recent) {
		size_t i = mapped_rule(m, row, label, ev, limit);

		return i < m->s->nr ? m->s->v[i].factor : 1;
	}
	e = &m->t->events[ev];
	op = osc_trace_op(m->t, ev);
	/* NO_ROW's label differs with the op, which is compared */
	r = &m->recent[(row * 0x9e3779b97f4a7c15ull + e->name * 0xc2b2ae3d27d4eb4full +
			op * 0x165667b19e3779f9ull + e->shape * 0xd6e8feb86659fd93ull) >>
		       (64 - RECENT_BITS)];
	if (r->rule == UINT32_MAX || row != r->row || e->name != r->name || op != r->op ||
	    e->shape != r->shape)
		*r = (struct recent_rule){ row, e->name, op, e->shape,
					   mapped_rule(m, row, label, ev, limit) };
	return r->rule < m->s->nr ? m->s->v[r->rule].factor : 1;
}

/*
 * m for the rules s over t's aggregate agg, whose labels are each their
 * members' op key's string whole when names_whole: no answer yet.
 */
static void rule_memo_init(struct rule_memo *m, const struct osc_speedups *s,
			   const struct osc_trace *t, const struct osc_agg *agg, bool names_whole)
{
	size_t nr_rows = agg->nr;

	*m = (struct rule_memo){ .s = s, .t = t, .labels_are_ops = names_whole, .exact = true };
	m->ids = osc_xmalloc((s->nr ? s->nr : 1) * sizeof(*m->ids));
	for (size_t i = 0; i < s->nr; i++) {
		const struct osc_pattern *p = &s->v[i].match.compiled[0];

		m->shaped |= *s->v[i].shape != '\0';
		m->ids[i].exact = p->kind == OSC_PATTERN_EXACT;
		m->ids[i].id = m->ids[i].exact ? osc_strtab_find(&t->strs, p->text, p->len)
					       : OSC_STR_NONE;
		m->exact &= m->ids[i].exact;
	}
	m->rows_decide = m->labels_are_ops && !m->shaped && !t->extras;
	m->row_rule = osc_xmalloc((nr_rows ? nr_rows : 1) * sizeof(*m->row_rule));
	memset(m->row_rule, 0xff, (nr_rows ? nr_rows : 1) * sizeof(*m->row_rule));
	if (agg->nr_members > 2 * nr_rows) {
		m->recent = osc_xmalloc(RECENT * sizeof(*m->recent));
		memset(m->recent, 0xff, RECENT * sizeof(*m->recent));
	}
	if (s->nr >= MEMO_MIN_RULES) {
		shape_index_build(&m->shapes, s);
		m->indexed = true;
	}
}

static void rule_memo_release(struct rule_memo *m)
{
	free(m->recent);
	free(m->row_rule);
	free(m->ids);
	osc_i64map_release(&m->pairs);
	osc_i64map_release(&m->triples);
	osc_i64map_release(&m->rules);
	if (m->indexed)
		shape_index_release(&m->shapes);
}

double osc_speedups_factor(const struct osc_speedups *s, const struct osc_trace *t,
			   const struct osc_agg *agg, const struct osc_agg_row *r, uint32_t ev)
{
	char label[LABEL_SIZE];

	return event_factor(s, t, osc_agg_label(t, agg, r, label, sizeof(label)), ev);
}

void osc_whatif(const struct osc_trace *t, const struct osc_agg *agg,
		const struct osc_speedups *s, struct osc_whatif *out)
{
	osc_whatif_names(t, agg, NULL, s, out);
}

#define PREFETCH_AHEAD 32 /* nodes */

/*
 * While the rules are projected, each row's fields sum its members (no
 * table of sums of its own: a million rows would take 32 MB of fresh
 * memory per projection): total (saturating, as the row shows it) and
 * projected as they end; saved the unsaturated time, what projected is made
 * of; pct, at the host levels, its members' device time saved. finish_rows
 * turns them into what they mean.
 */

/* Add time of a member, divided by its factor f, to its row and to w's sums. */
static void add_time(struct osc_whatif *w, struct osc_whatif_row *row, int64_t time, double f)
{
	row->total = osc_sat_add(row->total, time);
	row->saved += (double)time;
	row->projected += (double)time / f;
	if (f != 1)
		w->affected = osc_sat_add(w->affected, time);
}

/* w->row_of, built once: per event, its row (OSC_NONE: none). */
static const uint32_t *row_lookup(struct osc_whatif *w)
{
	const struct osc_agg *agg = w->agg;
	size_t n = w->trace->nr_events;

	if (w->row_of)
		return w->row_of;
	w->row_of = osc_xmalloc_big(n ? n : 1, sizeof(*w->row_of));
	for (size_t i = 0; i < n; i++)
		w->row_of[i] = OSC_NONE;
	for (size_t r = 0; r < agg->nr; r++)
		for (size_t i = 0; i < agg->rows[r].nr; i++)
			w->row_of[agg->members[agg->rows[r].first + i]] = (uint32_t)r;
	return w->row_of;
}

/* w->node_factor, made once for the host tree's nr nodes (its pages taken now). */
static double *node_factors(struct osc_whatif *w, size_t nr)
{
	if (!w->node_factor) {
		w->node_factor = osc_xmalloc_big(nr ? nr : 1, sizeof(*w->node_factor));
		memset(w->node_factor, 0, (nr ? nr : 1) * sizeof(*w->node_factor));
		w->nr_nodes = nr;
	}
	return w->node_factor;
}

/*
 * Host levels: every node of the host tree in model order (parents before
 * children), so the tree, the costs and the events are read in order, not
 * once per member at random. A node's factor (its self time is divided by
 * it) is that of the innermost rule around it: a row's events match rules
 * by the row's label too, every other node by its op key or name. A
 * member's self time goes to its row.
 */
static void project_host(struct osc_whatif *w, struct rule_memo *m)
{
	const struct osc_trace *t = w->trace;
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	const struct osc_op_cost *cost = osc_trace_op_costs(t);
	const uint32_t *row_of = row_lookup(w); /* kept: the next projection's too */
	double *f = m->s->nr ? node_factors(w, tree->nr) : NULL; /* kept too */

	for (size_t n = 0; n < tree->nr; n++) {
		uint32_t ev = tree->nodes[n].event, p = tree->nodes[n].parent, r = row_of[ev];
		double fn = 1;

		if (f) {
			size_t ahead = n + PREFETCH_AHEAD < tree->nr ? n + PREFETCH_AHEAD : n;

			/* memo_factor reads the event's strings, unless rows decide */
			if (!m->rows_decide)
				__builtin_prefetch(&t->events[tree->nodes[ahead].event]);
			fn = r != OSC_NONE ? memo_factor(m, r, w->labels[r], ev)
					   : memo_factor(m, NO_ROW,
							 osc_trace_str(t, osc_trace_op(t, ev)), ev);
			if (fn == 1 && p != OSC_NONE)
				fn = f[p];
			f[n] = fn;
		}
		if (r == OSC_NONE)
			continue;
		add_time(w, &w->rows[r], cost[n].self, fn);
		if (fn != 1)
			w->rows[r].pct += (double)cost[n].dev - (double)cost[n].dev / fn;
	}
}

/* Device levels: each row's events, their durations through their factors. */
static void project_device(struct osc_whatif *w, struct rule_memo *m)
{
	const struct osc_agg *agg = w->agg;

	for (size_t r = 0; r < agg->nr; r++) {
		const struct osc_agg_row *ar = &agg->rows[r];

		for (size_t i = 0; i < ar->nr; i++) {
			uint32_t ev = agg->members[ar->first + i];

			add_time(w, &w->rows[r], w->trace->events[ev].dur,
				 memo_factor(m, (uint32_t)r, w->labels[r], ev));
		}
	}
}

/*
 * w->label_rank from the trace's strings in byte order (trace_cache.h), when
 * each label is its row's name as the trace holds it, whole and with no NUL
 * byte (names_whole; then strcmp's order is the bytes' order): no string is
 * compared. False, with nothing set, otherwise.
 */
static bool rank_by_text(struct osc_whatif *w)
{
	const struct osc_agg *agg = w->agg;
	const struct osc_trace *t = w->trace;
	const struct osc_text_order *o;

	if (!w->names_whole)
		return false;
	o = osc_trace_text_order(t);
	w->label_rank = osc_xmalloc((w->nr_labels ? w->nr_labels : 1) * sizeof(*w->label_rank));
	for (size_t r = 0; r < w->nr_labels; r++)
		w->label_rank[r] = o->place[agg->rows[r].key];
	return true;
}

/* w->label_rank: the rows' labels in strcmp's order, equal labels one place. */
static void rank_labels(struct osc_whatif *w)
{
	size_t n = w->nr_labels;
	size_t *len;
	uint32_t *by, place = 0;

	if (rank_by_text(w))
		return;
	len = osc_xmalloc_big(n ? n : 1, sizeof(*len));
	by = osc_xmalloc_big(n ? n : 1, sizeof(*by));
	w->label_rank = osc_xmalloc((n ? n : 1) * sizeof(*w->label_rank));
	for (size_t r = 0; r < n; r++) {
		len[r] = strlen(w->labels[r]); /* to a NUL, as strcmp reads */
		by[r] = (uint32_t)r;
	}
	osc_strs_sort(w->labels, len, by, n);
	for (size_t i = 0; i < n; i++) {
		if (i && (len[by[i]] != len[by[i - 1]] ||
			  memcmp(w->labels[by[i]], w->labels[by[i - 1]], len[by[i]])))
			place++;
		w->label_rank[by[i]] = place;
	}
	free(by);
	free(len);
}

/*
 * w->labels: each aggregate row's osc_agg_label_names, in one block of text;
 * at a host level keyed by name alone, the trace's own string where it
 * needs no cut (the label is that string): a million names are not copied.
 * w->names_whole: each label is that string, whole.
 */
static void make_labels(struct osc_whatif *w, const struct osc_names *names)
{
	const struct osc_agg *agg = w->agg;
	bool held = agg->keys == OSC_KEY_NAME && !w->device;
	size_t *at = osc_xmalloc_big(agg->nr ? agg->nr : 1, sizeof(*at)), used = 0, alloc = 0;
	char label[LABEL_SIZE];

	w->labels = osc_xmalloc_big(agg->nr ? agg->nr : 1, sizeof(*w->labels));
	w->names_whole = held;
	for (size_t r = 0; r < agg->nr; r++) {
		const char *l = held ? osc_trace_str(w->trace, agg->rows[r].key) : NULL;
		size_t len = l ? strlen(l) : 0;

		if (l && len < LABEL_SIZE) {
			w->labels[r] = l;
			at[r] = SIZE_MAX;
			/* a NUL inside: strcmp's order is not the bytes' */
			w->names_whole &= len == osc_strtab_len(&w->trace->strs, agg->rows[r].key);
			continue;
		}
		w->names_whole = false;
		l = osc_agg_label_names(w->trace, agg, names, &agg->rows[r], label, sizeof(label));
		len = strlen(l);
		OSC_GROW(w->label_text, used + len + 1, alloc);
		memcpy(w->label_text + used, l, len + 1);
		at[r] = used;
		used += len + 1;
	}
	for (size_t r = 0; r < agg->nr; r++)
		if (at[r] != SIZE_MAX)
			w->labels[r] = w->label_text + at[r];
	w->label_bytes = alloc;
	free(at);
}

/*
 * The rows through the rules: each row's time summed, divided by its
 * members' factors (project_host or project_device), then finish_rows.
 */
static void project_rules(struct osc_whatif *w, const struct osc_speedups *s)
{
	const struct osc_agg *agg = w->agg;
	struct rule_memo memo;

	for (size_t r = 0; r < agg->nr; r++) {
		struct osc_whatif_row *row = &w->rows[r];

		row->total = 0;
		row->projected = row->saved = row->pct = 0;
	}
	rule_memo_init(&memo, s, w->trace, agg, w->names_whole);
	if (w->device)
		project_device(w, &memo);
	else
		project_host(w, &memo);
	rule_memo_release(&memo);
}

/*
 * No rule: each row's time is its own, unchanged: its self time at the host
 * levels, its durations at the device levels, both summed by the aggregate
 * over the same members (the tree is not walked).
 */
static void project_none(struct osc_whatif *w)
{
	const struct osc_agg *agg = w->agg;

	for (size_t r = 0; r < agg->nr; r++) {
		int64_t time = w->device ? agg->rows[r].total : agg->rows[r].self;
		struct osc_whatif_row *row = &w->rows[r];

		row->total = time;
		row->saved = row->projected = (double)time;
		row->pct = 0;
	}
}

/*
 * The rows' sums (project_rules) become what they mean, and w's summary
 * follows. Sums that saturated (OSC_WARN_HUGE_SUMS) must not make a share
 * over 100 % or a time below zero.
 */
static void finish_rows(struct osc_whatif *w)
{
	double saved = 0;

	w->device_saved = 0;
	for (size_t r = 0; r < w->nr_labels; r++) {
		struct osc_whatif_row *row = &w->rows[r];
		double exact = row->saved;

		row->saved = exact - row->projected;
		row->factor = row->projected > 0 ? exact / row->projected : 1;
		saved += row->saved;
		w->device_saved += row->pct;
		row->pct = w->total ? fmin(100, 100.0 * (double)row->total / (double)w->total) : 0;
	}
	w->projected = fmax(0, (double)w->total - saved);
	w->affected_pct = w->total ? fmin(100, 100.0 * (double)w->affected / (double)w->total) : 0;
	w->speedup = w->projected > 0 ? (double)w->total / w->projected : 1;
	w->ceiling = w->affected < w->total ? (double)w->total / (double)(w->total - w->affected)
					    : INFINITY;
	if (!w->total)
		w->ceiling = 1;
}

/* w's rows projected through s (none: as they are), and its summary. */
static void project(struct osc_whatif *w, const struct osc_speedups *s)
{
	w->affected = 0;
	if (s->nr)
		project_rules(w, s);
	else
		project_none(w);
	finish_rows(w);
}

void osc_whatif_names(const struct osc_trace *t, const struct osc_agg *agg,
		      const struct osc_names *names, const struct osc_speedups *s,
		      struct osc_whatif *out)
{
	memset(out, 0, sizeof(*out));
	out->trace = t;
	out->agg = agg;
	out->device = osc_level_is_device(agg->level);
	out->nr = out->nr_labels = agg->nr;
	out->nr_runs = agg->nr_runs ? agg->nr_runs : 1;
	out->total = out->device ? agg->device_time : agg->host_busy;
	out->wall = out->device ? 0 : agg->wall;
	out->device_time = out->device ? 0 : agg->device_time;
	out->rows = osc_xmalloc_big(agg->nr ? agg->nr : 1, sizeof(*out->rows));
	for (size_t r = 0; r < agg->nr; r++) /* the rest by project */
		out->rows[r] = (struct osc_whatif_row){ .agg_row = r, .count = agg->rows[r].count };
	make_labels(out, names);
	rank_labels(out);
	project(out, s);
}

/* Whether the rules leave the rows' values of column c as they are. */
static bool rules_keep(enum osc_whatif_col c)
{
	return c == OSC_WHATIF_NAME || c == OSC_WHATIF_COUNT || c == OSC_WHATIF_TOTAL ||
	       c == OSC_WHATIF_PCT;
}

void osc_whatif_prepare(struct osc_whatif *w)
{
	if (w->device)
		return;
	row_lookup(w);
	node_factors(w, osc_trace_host_tree(w->trace)->nr);
}

void osc_whatif_take_lookup(struct osc_whatif *w, struct osc_whatif *other)
{
	if (w->agg != other->agg)
		return;
	if (!w->row_of) {
		w->row_of = other->row_of;
		other->row_of = NULL;
	}
	if (!w->node_factor) {
		w->node_factor = other->node_factor;
		w->nr_nodes = other->nr_nodes;
		other->node_factor = NULL;
	}
}

void osc_whatif_again(struct osc_whatif *w, const struct osc_speedups *s)
{
	w->nr = w->nr_labels; /* all rows again, as osc_whatif_names gives them */
	project(w, s);
	if (w->order && !rules_keep(w->order_by)) { /* to be sorted again */
		free(w->order);
		w->order = NULL;
	}
}

size_t osc_whatif_bytes(const struct osc_whatif *w)
{
	return w->nr_labels * (sizeof(*w->rows) + sizeof(*w->labels) + sizeof(*w->label_rank) +
			       sizeof(*w->order) + (w->name_order ? sizeof(*w->name_order) : 0)) +
	       w->label_bytes + (w->row_of ? w->trace->nr_events * sizeof(*w->row_of) : 0) +
	       (w->node_factor ? w->nr_nodes * sizeof(*w->node_factor) : 0);
}

void osc_whatif_release(struct osc_whatif *w)
{
	free(w->labels);
	free(w->label_text);
	free(w->label_rank);
	free(w->rows);
	free(w->order);
	free(w->name_order);
	free(w->row_of);
	free(w->node_factor);
	memset(w, 0, sizeof(*w));
}

/* ---- the table ---------------------------------------------------------- */

/* stat only sets the text table's drop order when narrow (export_text.c). */
static const struct osc_column whatif_columns[2][OSC_WHATIF_COL_COUNT] = {
	{
		{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
		{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
		{ "self_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_SELF },
		{ "factor", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
		{ "projected_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_SELF },
		{ "saved_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
		{ "self_pct", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_P50 },
	},
	{
		{ "name", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
		{ "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_COUNT },
		{ "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_SELF },
		{ "factor", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_TOTAL },
		{ "projected_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_SELF },
		{ "saved_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_MEAN },
		{ "device_pct", 6, OSC_ALIGN_RIGHT, true, OSC_STAT_P50 },
	},
};

const struct osc_column *osc_whatif_columns(bool device, size_t *nr)
{
	*nr = OSC_WHATIF_COL_COUNT;
	return whatif_columns[device];
}

bool osc_whatif_col_parse(const char *s, enum osc_whatif_col *out)
{
	for (int d = 0; d < 2; d++) {
		size_t c = osc_columns_find(whatif_columns[d], OSC_WHATIF_COL_COUNT, s);

		if (c < OSC_WHATIF_COL_COUNT) {
			*out = (enum osc_whatif_col)c;
			return true;
		}
	}
	return false;
}

/* The key of row r by a column, ascending: exact integers where the column is one. */
static uint64_t col_key(const struct osc_whatif_row *r, enum osc_whatif_col by)
{
	switch (by) {
	case OSC_WHATIF_COUNT:
		return r->count;
	case OSC_WHATIF_FACTOR:
		return osc_radix_double_key(r->factor);
	case OSC_WHATIF_PROJECTED:
		return osc_radix_double_key(r->projected);
	case OSC_WHATIF_SAVED:
		return osc_radix_double_key(r->saved);
	default: /* TOTAL, PCT */
		return osc_radix_key(r->total);
	}
}

/*
 * The rows' indices sorted by label in byte order (descending), then by
 * aggregate row: one stable radix sort of the labels' ranks (a few digits),
 * the rows starting in aggregate row order. n: the first rows.
 */
static uint32_t *by_label(const struct osc_whatif *w, size_t n, bool descending)
{
	uint64_t *k = osc_xmalloc((n ? n : 1) * sizeof(*k));
	uint32_t *idx = osc_xmalloc((n ? n : 1) * sizeof(*idx));

	for (size_t r = 0; r < n; r++) {
		uint32_t rank = w->label_rank[w->rows[r].agg_row];

		idx[r] = (uint32_t)r;
		k[r] = descending ? UINT32_MAX - rank : rank;
	}
	osc_radix_sort_pairs(k, idx, n);
	free(k);
	return idx;
}

/*
 * By the column (descending: larger first), then the label in byte order,
 * then the aggregate row: the rows by label (kept in w->name_order for the
 * next sort: the rules change no label), then a stable radix sort by the
 * column; integer columns are keys as they are.
 */
void osc_whatif_sort(struct osc_whatif *w, enum osc_whatif_col by, bool descending)
{
	size_t n = w->nr;
	const uint32_t *names;
	uint32_t *idx;
	uint64_t *k;

	if (w->order && w->order_by == by && w->order_desc == descending)
		return;
	if (by == OSC_WHATIF_NAME) {
		idx = by_label(w, n, descending);
	} else {
		if (n == w->nr_labels && !w->name_order)
			w->name_order = by_label(w, n, false);
		names = n == w->nr_labels ? w->name_order : by_label(w, n, false);
		k = osc_xmalloc((n ? n : 1) * sizeof(*k));
		idx = osc_xmalloc((n ? n : 1) * sizeof(*idx));
		for (size_t i = 0; i < n; i++) {
			uint64_t key = col_key(&w->rows[names[i]], by);

			idx[i] = names[i];
			k[i] = descending ? ~key : key;
		}
		osc_radix_sort_pairs(k, idx, n); /* stable: by label within a value */
		free(k);
		if (names != w->name_order)
			free((uint32_t *)names);
	}
	free(w->order);
	w->order = idx;
	w->order_by = by;
	w->order_desc = descending;
}

const char *osc_whatif_cell(const struct osc_whatif *w, size_t row, size_t col, char *buf,
			    size_t size)
{
	const struct osc_whatif_row *r = osc_whatif_row_at(w, row);

	if (!size)
		return buf;
	buf[0] = '\0';
	switch ((enum osc_whatif_col)col) {
	case OSC_WHATIF_NAME:
		return osc_format_text(w->labels[r->agg_row], buf, size);
	case OSC_WHATIF_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		break;
	case OSC_WHATIF_TOTAL:
		osc_format_us_int(r->total, buf, size);
		break;
	case OSC_WHATIF_FACTOR:
		snprintf(buf, size, "%.3f", r->factor);
		break;
	case OSC_WHATIF_PROJECTED:
		osc_format_us(r->projected, buf, size);
		break;
	case OSC_WHATIF_SAVED:
		osc_format_us(r->saved, buf, size);
		break;
	case OSC_WHATIF_PCT:
		osc_format_pct(r->pct, buf, size);
		break;
	default:
		break;
	}
	return buf;
}

/* " -> PROJECTED us (SPEEDUPx)" of a per-run base, into buf at len. */
static size_t format_projection(const struct osc_whatif *w, const char *what, double base,
				double projected, char *buf, size_t len, size_t size)
{
	char from[64], to[64];

	if (len >= size)
		return len;
	osc_format_us(base / (double)w->nr_runs, from, sizeof(from));
	osc_format_us(projected / (double)w->nr_runs, to, sizeof(to));
	return len + (size_t)snprintf(buf + len, size - len, "%s %s us -> %s us (%.3fx)", what,
				      from, to, projected > 0 ? base / projected : 1.0);
}

/* One projection as JSON members: "before_us": .., "after_us": .., "speedup": .. (per run). */
static char *projection_json(const struct osc_whatif *w, double base, double projected)
{
	char from[64], to[64];

	osc_format_us(base / (double)w->nr_runs, from, sizeof(from));
	osc_format_us(projected / (double)w->nr_runs, to, sizeof(to));
	return osc_xasprintf("\"before_us\": %s, \"after_us\": %s, \"speedup\": %.3f", from, to,
			     projected > 0 ? base / projected : 1.0);
}

char *osc_whatif_summary_json(const struct osc_whatif *w)
{
	double saved = (double)w->total - w->projected;
	char *base = projection_json(w, (double)w->total, w->projected), *dev = NULL, *wall = NULL;
	char ceiling[32], *out;

	if (isinf(w->ceiling))
		snprintf(ceiling, sizeof(ceiling), "null");
	else
		snprintf(ceiling, sizeof(ceiling), "%.3f", w->ceiling);
	if (w->device_time) {
		char *p = projection_json(w, (double)w->device_time,
					  fmax(0, (double)w->device_time - w->device_saved));

		dev = osc_xasprintf(", \"device_time\": {%s}", p);
		free(p);
	}
	if (w->wall) {
		char *p = projection_json(w, (double)w->wall, fmax(0, (double)w->wall - saved));

		wall = osc_xasprintf(", \"wall\": {%s}", p);
		free(p);
	}
	out = osc_xasprintf("{\"per_run\": true, \"base\": \"%s\", %s, \"affected_pct\": %.2f, "
			    "\"ceiling\": %s%s%s}",
			    w->device ? "device time" : "host busy", base, w->affected_pct, ceiling,
			    dev ? dev : "", wall ? wall : "");
	free(base);
	free(dev);
	free(wall);
	return out;
}

const char *osc_whatif_summary(const struct osc_whatif *w, char *buf, size_t size)
{
	char ceiling[32];
	size_t len = (size_t)snprintf(buf, size, "per run ");
	double saved = (double)w->total - w->projected;

	if (isinf(w->ceiling))
		snprintf(ceiling, sizeof(ceiling), "unbounded");
	else
		snprintf(ceiling, sizeof(ceiling), "%.3fx", w->ceiling);
	len = format_projection(w, w->device ? "device time" : "host busy", (double)w->total,
				w->projected, buf, len, size);
	if (len < size)
		len += (size_t)snprintf(buf + len, size - len,
					", %.2f%% of it affected, ceiling %s", w->affected_pct,
					ceiling);
	if (w->device_time && len + 2 < size) {
		len += (size_t)snprintf(buf + len, size - len, "; ");
		len = format_projection(w, "device time", (double)w->device_time,
					fmax(0, (double)w->device_time - w->device_saved), buf, len,
					size);
	}
	if (w->wall && len + 2 < size) {
		len += (size_t)snprintf(buf + len, size - len, "; ");
		format_projection(w, "wall", (double)w->wall, fmax(0, (double)w->wall - saved), buf,
				  len, size);
	}
	return buf;
}
