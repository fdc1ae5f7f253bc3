/*
 * chrome_pairs.c - a Chrome trace's B and E events paired into complete
 * events at the end of a load, per (pid, tid) thread as a stack (the rules
 * are in load_chrome.c's list of limits).
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "load/chrome.h"

#define PREFER_SCAN 64 /* pending events looked at for an E that names the top */

/* The open B events of one thread, innermost last. */
struct be_stack {
	size_t *at;          /* indices in ch->pend */
	size_t depth, alloc;
	uint32_t *awaiting;  /* string id -> B events of that name not yet named by an E */
};

static int cmp_pending(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;

	if (a->ev.thread != b->ev.thread)
		return a->ev.thread < b->ev.thread ? -1 : 1;
	if (a->ev.ts != b->ev.ts)
		return a->ev.ts < b->ev.ts ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The first B (begin) or E (!begin) of ch->pend[i..hi), or hi. */
static size_t next_pending(const struct chrome *ch, size_t i, size_t hi, bool begin)
{
	while (i < hi && ch->pend[i].begin != begin)
		i++;
	return i;
}

/*
 * Whether B b opens before E e closes: it starts earlier, or at the same ts
 * with the same name (a zero-duration pair opens before it closes; any other
 * E at that ts closes first).
 */
static bool begin_first(const struct pending *b, const struct pending *e)
{
	if (b->ev.ts != e->ev.ts)
		return b->ev.ts < e->ev.ts;
	return b->ev.name == e->ev.name;
}

/* Of the E events at e's ts, move the first that names the innermost open B to e. */
static void prefer_top(struct chrome *ch, const struct be_stack *s, size_t e, size_t hi)
{
	osc_str top;

	if (!s->depth)
		return;
	top = ch->pend[s->at[s->depth - 1]].ev.name;
	if (ch->pend[e].ev.name == top)
		return;
	for (size_t j = e + 1; j < hi && j <= e + PREFER_SCAN; j++) {
		if (ch->pend[j].ev.ts != ch->pend[e].ev.ts)
			return;
		if (!ch->pend[j].begin && ch->pend[j].ev.name == top) {
			struct pending tmp = ch->pend[e];

			ch->pend[e] = ch->pend[j];
			ch->pend[j] = tmp;
			return;
		}
	}
}

static void open_begin(struct chrome *ch, struct be_stack *s, size_t b)
{
	OSC_GROW(s->at, s->depth + 1, s->alloc);
	s->at[s->depth++] = b;
	s->awaiting[ch->pend[b].ev.name]++;
}

/* Store B event b, closed at end, as one complete event with b's args. */
static void add_pair(struct chrome *ch, const struct pending *b, int64_t end)
{
	struct osc_event e = b->ev;
	const char *args = b->args ? ch->be_args.p + b->args : NULL;

	e.dur = end - e.ts;
	e.flags |= OSC_EVF_FROM_BE;
	if (osc_chrome_keep(ch, &e, b->offset))
		osc_trace_add_event(ch->t, &e, &b->extra, args, args ? strlen(args) : 0);
}

/*
 * E event e closes the innermost open B, as the format's stack rule says,
 * even when it names another B (counted). An extra E closes nothing (counted,
 * as speedscope drops it): one on an empty stack, or one naming no B that
 * still awaits its E (B [a, B [b, E a], E b]: the second E closes a).
 */
static void close_begin(struct chrome *ch, struct be_stack *s, size_t e)
{
	const struct pending *pe = &ch->pend[e];
	osc_str name = pe->ev.name, top;

	if (!s->depth || (name != OSC_STR_EMPTY && !s->awaiting[name])) {
		osc_trace_warn(ch->t, OSC_WARN_UNMATCHED_END, pe->offset);
		return;
	}
	top = ch->pend[s->at[s->depth - 1]].ev.name;
	if (name == OSC_STR_EMPTY)
		name = top;
	else if (name != top)
		osc_trace_warn(ch->t, OSC_WARN_END_NAME_DIFFERS, pe->offset);
	if (s->awaiting[name])
		s->awaiting[name]--;
	add_pair(ch, &ch->pend[s->at[--s->depth]], pe->ev.ts);
}

/*
 * One thread's pending events ch->pend[lo..hi): B events in (ts, file)
 * order, E events in ts order, merged as begin_first says; B events still
 * open at the end are dropped (counted).
 */
static void match_thread(struct chrome *ch, struct be_stack *s, size_t lo, size_t hi)
{
	size_t b = next_pending(ch, lo, hi, true), e = next_pending(ch, lo, hi, false);

	while (b < hi || e < hi) {
		if (e >= hi || (b < hi && begin_first(&ch->pend[b], &ch->pend[e]))) {
			open_begin(ch, s, b);
			b = next_pending(ch, b + 1, hi, true);
		} else {
			prefer_top(ch, s, e, hi);
			close_begin(ch, s, e);
			e = next_pending(ch, e + 1, hi, false);
		}
	}
	while (s->depth)
		osc_trace_warn(ch->t, OSC_WARN_UNMATCHED_BEGIN, ch->pend[s->at[--s->depth]].offset);
	for (size_t i = lo; i < hi; i++)
		s->awaiting[ch->pend[i].ev.name] = 0;
}

void osc_chrome_match_pairs(struct chrome *ch)
{
	struct be_stack s = { 0 };

	if (!ch->nr_pend)
		return;
	qsort(ch->pend, ch->nr_pend, sizeof(*ch->pend), cmp_pending);
	s.awaiting = osc_xcalloc(ch->t->strs.count, sizeof(*s.awaiting));
	for (size_t lo = 0, hi; lo < ch->nr_pend; lo = hi) {
		for (hi = lo + 1; hi < ch->nr_pend && ch->pend[hi].ev.thread == ch->pend[lo].ev.thread;
		     hi++)
			;
		match_thread(ch, &s, lo, hi);
	}
	free(s.awaiting);
	free(s.at);
}
