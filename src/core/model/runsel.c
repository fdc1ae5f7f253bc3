/*
 * runsel.c - the --runs selection grammar.
 *
 * A small recursive-descent parser, never an evaluator:
 *
 *   spec   := ws (word | list | range | slice) ws END
 *   word   := "all" | "default"
 *   list   := "[" ws [int ws ("," ws int ws)* ["," ws]] "]"
 *   range  := "range" ws "(" ws int ws ["," ws int ws ["," ws int ws]] ")"
 *   slice  := [int] ws [":" ws [int] ws [":" ws [int]]]   (at least one part)
 *   int    := ["-" | "+"] digit+
 *
 * Slices follow Python's slice.indices(n) (bounds are clamped, never an
 * error); single indices, list elements and range elements must lie in
 * [-n, n) and negative ones count from the end.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/model/runs.h"

#define SUBJECT "--runs"
/* Numbers saturate here: far beyond any run count, and safe to add and negate. */
#define NUM_LIMIT ((int64_t)1 << 60)

struct parser {
	const char *s;
	size_t pos;
	size_t nr_runs;
	uint8_t *on;
	struct osc_error *err;
};

struct number {
	int64_t v;
	size_t at, len; /* where it was written, to quote it in messages */
};

static void skip_ws(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
		p->pos++;
}

static enum osc_status syntax(struct parser *p, const char *what)
{
	char found[16];

	if (!p->s[p->pos])
		snprintf(found, sizeof(found), "end of input");
	else if (isprint((unsigned char)p->s[p->pos]))
		snprintf(found, sizeof(found), "'%c'", p->s[p->pos]);
	else
		snprintf(found, sizeof(found), "byte 0x%02x", (unsigned char)p->s[p->pos]);
	return osc_error_set(p->err, OSC_USAGE, SUBJECT, OSC_NO_OFFSET, NULL,
			     "expected %s at column %zu of '%s', found %s", what, p->pos, p->s,
			     found);
}

static bool accept(struct parser *p, char c)
{
	if (p->s[p->pos] != c)
		return false;
	p->pos++;
	skip_ws(p);
	return true;
}

static bool at_number(const struct parser *p)
{
	const char *c = p->s + p->pos;

	if (*c == '-' || *c == '+')
		c++;
	return isdigit((unsigned char)*c);
}

static enum osc_status number(struct parser *p, struct number *n)
{
	bool neg = false;

	n->at = p->pos;
	n->v = 0;
	if (p->s[p->pos] == '-' || p->s[p->pos] == '+')
		neg = p->s[p->pos++] == '-';
	if (!isdigit((unsigned char)p->s[p->pos]))
		return syntax(p, "a number");
	while (isdigit((unsigned char)p->s[p->pos])) {
		int digit = p->s[p->pos++] - '0';

		n->v = n->v > NUM_LIMIT / 10 ? NUM_LIMIT : n->v * 10 + digit;
	}
	if (neg)
		n->v = -n->v;
	n->len = p->pos - n->at;
	skip_ws(p);
	return OSC_OK;
}

static enum osc_status out_of_range(struct parser *p, const char *text)
{
	size_t n = p->nr_runs;

	if (!n)
		return osc_error_set(p->err, OSC_RANGE, SUBJECT, OSC_NO_OFFSET, NULL,
				     "run %s out of range: the trace has no runs", text);
	if (n == 1)
		return osc_error_set(p->err, OSC_RANGE, SUBJECT, OSC_NO_OFFSET, NULL,
				     "run %s out of range: the trace has 1 run (0)", text);
	return osc_error_set(p->err, OSC_RANGE, SUBJECT, OSC_NO_OFFSET, NULL,
			     "run %s out of range: the trace has %zu runs (0-%zu)", text, n, n - 1);
}

/* Select index v (negative counts from the end); text names it in errors. */
static enum osc_status select_index(struct parser *p, int64_t v, const char *text)
{
	int64_t n = (int64_t)p->nr_runs;

	if (v < -n || v >= n)
		return out_of_range(p, text);
	p->on[v < 0 ? v + n : v] = 1;
	return OSC_OK;
}

static enum osc_status select_number(struct parser *p, const struct number *num)
{
	char text[32];

	snprintf(text, sizeof(text), "%.*s", (int)(num->len < 31 ? num->len : 31), p->s + num->at);
	return select_index(p, num->v, text);
}

static enum osc_status parse_list(struct parser *p)
{
	struct number num;
	enum osc_status st;

	while (!accept(p, ']')) {
		if (!at_number(p))
			return syntax(p, "a number or ']'");
		if ((st = number(p, &num)) || (st = select_number(p, &num)))
			return st;
		if (!accept(p, ',') && p->s[p->pos] != ']')
			return syntax(p, "',' or ']'");
	}
	return OSC_OK;
}

static enum osc_status parse_range(struct parser *p)
{
	struct number arg[3];
	int64_t start = 0, stop, step = 1;
	size_t nargs = 0;
	enum osc_status st;

	if (!accept(p, '('))
		return syntax(p, "'('");
	do {
		if (nargs == 3)
			return syntax(p, "')'");
		if ((st = number(p, &arg[nargs++])))
			return st;
	} while (accept(p, ','));
	if (!accept(p, ')'))
		return syntax(p, nargs < 3 ? "',' or ')'" : "')'");

	stop = arg[nargs == 1 ? 0 : 1].v;
	if (nargs > 1)
		start = arg[0].v;
	if (nargs == 3)
		step = arg[2].v;
	if (!step)
		return osc_error_set(p->err, OSC_USAGE, SUBJECT, OSC_NO_OFFSET, NULL,
				     "range() step must not be zero at column %zu of '%s'",
				     arg[2].at, p->s);
	/* every element must be valid, so the loop stops after at most 2n + 1 steps */
	for (int64_t v = start; step > 0 ? v < stop : v > stop; v += step) {
		char text[32];

		snprintf(text, sizeof(text), "%lld", (long long)v);
		if ((st = select_index(p, v, text)))
			return st;
	}
	return OSC_OK;
}

/* Python's slice.indices(): clamp a bound for a given step direction. */
static int64_t slice_bound(const struct number *b, bool present, int64_t n, bool forward,
			   bool is_start)
{
	int64_t v;

	if (!present)
		return is_start ? (forward ? 0 : n - 1) : (forward ? n : -1);
	v = b->v;
	if (v < 0) {
		v += n;
		if (v < 0)
			v = forward ? 0 : -1;
	} else if (v >= n) {
		v = forward ? n : n - 1;
	}
	return v;
}

/* A slice whose first part (start or its absence) has been read. */
static enum osc_status parse_slice(struct parser *p, const struct number *start, bool has_start)
{
	struct number stop = {0}, step = {.v = 1};
	bool has_stop = false;
	int64_t n = (int64_t)p->nr_runs, from, to;
	enum osc_status st;

	/* the first ':' has been accepted */
	if (at_number(p)) {
		if ((st = number(p, &stop)))
			return st;
		has_stop = true;
	}
	if (accept(p, ':') && at_number(p) && (st = number(p, &step)))
		return st;
	if (!step.v)
		return osc_error_set(p->err, OSC_USAGE, SUBJECT, OSC_NO_OFFSET, NULL,
				     "slice step must not be zero at column %zu of '%s'", step.at,
				     p->s);
	from = slice_bound(start, has_start, n, step.v > 0, true);
	to = slice_bound(&stop, has_stop, n, step.v > 0, false);
	for (int64_t v = from; step.v > 0 ? v < to : v > to; v += step.v)
		p->on[v] = 1;
	return OSC_OK;
}

static bool accept_word(struct parser *p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(p->s + p->pos, w, n) || isalnum((unsigned char)p->s[p->pos + n]) ||
	    p->s[p->pos + n] == '_')
		return false;
	p->pos += n;
	skip_ws(p);
	return true;
}

static void select_default(struct parser *p, bool warmup)
{
	memset(p->on, 1, p->nr_runs);
	if (warmup && p->nr_runs > 1)
		p->on[0] = 0;
}

static enum osc_status parse_spec(struct parser *p, bool warmup)
{
	struct number num;
	enum osc_status st;

	skip_ws(p);
	if (accept_word(p, "all")) {
		memset(p->on, 1, p->nr_runs);
	} else if (accept_word(p, "default")) {
		select_default(p, warmup);
	} else if (accept_word(p, "range")) {
		if ((st = parse_range(p)))
			return st;
	} else if (accept(p, '[')) {
		if ((st = parse_list(p)))
			return st;
	} else if (accept(p, ':')) {
		if ((st = parse_slice(p, NULL, false)))
			return st;
	} else if (at_number(p)) {
		if ((st = number(p, &num)))
			return st;
		if (accept(p, ':'))
			st = parse_slice(p, &num, true);
		else
			st = select_number(p, &num);
		if (st)
			return st;
	} else {
		return syntax(p, "a run number, a slice, a [list], range(...) or 'all'");
	}
	if (p->s[p->pos])
		return syntax(p, "end of input");
	return OSC_OK;
}

enum osc_status osc_runsel_parse(const char *spec, size_t nr_runs, bool warmup,
				 struct osc_runsel *out, struct osc_error *err)
{
	struct parser p = {
		.s = spec ? spec : "default",
		.nr_runs = nr_runs,
		.on = osc_xcalloc(nr_runs ? nr_runs : 1, 1),
		.err = err,
	};
	enum osc_status st = parse_spec(&p, warmup);
	size_t nr_on = 0;

	for (size_t i = 0; !st && i < nr_runs; i++)
		nr_on += p.on[i];
	if (!st && !nr_on)
		st = osc_error_set(err, OSC_RANGE, SUBJECT, OSC_NO_OFFSET, NULL,
				   "'%s' selects no runs (the trace has %zu)", p.s, nr_runs);
	if (st) {
		free(p.on);
		memset(out, 0, sizeof(*out));
		return st;
	}
	out->on = p.on;
	out->nr_runs = nr_runs;
	out->nr_on = nr_on;
	out->spec = osc_xstrdup(p.s);
	return OSC_OK;
}

void osc_runsel_release(struct osc_runsel *s)
{
	free(s->on);
	free(s->spec);
	memset(s, 0, sizeof(*s));
}

void osc_runsel_copy(struct osc_runsel *to, const struct osc_runsel *from)
{
	*to = *from;
	to->on = osc_xmalloc(from->nr_runs ? from->nr_runs : 1);
	memcpy(to->on, from->on, from->nr_runs);
	to->spec = osc_xstrdup(from->spec ? from->spec : "default");
}

bool osc_runsel_same(const struct osc_runsel *a, const struct osc_runsel *b)
{
	return a->nr_runs == b->nr_runs && !memcmp(a->on, b->on, a->nr_runs);
}

/* Segments shown before the description elides the middle of a long list. */
#define DESCRIBE_HEAD 6

/* Append "a", "a,b" or "a-b" for the selected segment [a, b]. */
static void add_segment(char **buf, size_t a, size_t b, bool first)
{
	char *next;

	if (a == b)
		next = osc_xasprintf("%s%s%zu", *buf, first ? "" : ",", a);
	else if (b == a + 1)
		next = osc_xasprintf("%s%s%zu,%zu", *buf, first ? "" : ",", a, b);
	else
		next = osc_xasprintf("%s%s%zu-%zu", *buf, first ? "" : ",", a, b);
	free(*buf);
	*buf = next;
}

char *osc_runsel_describe(const struct osc_runsel *s, const struct osc_runs *r)
{
	char *list = osc_xstrdup(""), *out;
	size_t nr_seg = 0, last_a = 0, last_b = 0;
	bool elided = false;
	const char *skipped =
		r->warmup && s->nr_runs > 1 && !s->on[0] ? ", warm-up run 0 skipped" : "";

	for (size_t i = 0; i < s->nr_runs; i++) {
		size_t j = i;

		if (!s->on[i])
			continue;
		while (j + 1 < s->nr_runs && s->on[j + 1])
			j++;
		if (nr_seg < DESCRIBE_HEAD)
			add_segment(&list, i, j, !nr_seg);
		else
			elided = true;
		nr_seg++;
		last_a = i;
		last_b = j;
		i = j;
	}
	if (elided) { /* keep the head and the last segment: "0,2,4,6,8,10,...,98" */
		char *next = osc_xasprintf("%s,...", list);

		free(list);
		list = next;
		add_segment(&list, last_a, last_b, false);
	}
	if (elided)
		out = osc_xasprintf("runs %s of %zu (%zu selected, %s%s)", list, s->nr_runs,
				    s->nr_on, osc_run_source_name(r->source), skipped);
	else
		out = osc_xasprintf("run%s %s of %zu (%s%s)", s->nr_on == 1 ? "" : "s", list,
				    s->nr_runs, osc_run_source_name(r->source), skipped);
	free(list);
	return out;
}
