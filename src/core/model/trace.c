/* trace.c - the in-memory trace model: event, kernel, thread and args tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "opscope/base/alloc.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"
#include "base/hash.h"
#include "base/i64map.h"
#include "base/json_scan.h"
#include "base/mapguard.h"
#include "base/radix.h"
#include "model/device_args.h"
#include "model/run_merge.h"

/* Where osc_trace_args renders args kept by reference. */
struct osc_args_view {
	char *p;
	size_t alloc;
};

static const char *const format_names[] = {
#define OSC_FORMAT_TEXT(name, text) text,
	OSC_FORMAT_LIST(OSC_FORMAT_TEXT)
#undef OSC_FORMAT_TEXT
};

static const char *const kind_names[] = {
#define OSC_KIND_TEXT(name, text) text,
	OSC_KIND_LIST(OSC_KIND_TEXT)
#undef OSC_KIND_TEXT
};

static const char *const warn_texts[] = {
#define OSC_WARN_TEXT(name, text) text,
	OSC_WARN_LIST(OSC_WARN_TEXT)
#undef OSC_WARN_TEXT
};

const char *osc_format_name(enum osc_format f)
{
	return (unsigned)f < OSC_FORMAT_COUNT ? format_names[f] : "unknown";
}

const char *osc_kind_name(enum osc_kind k)
{
	return (unsigned)k < OSC_KIND_COUNT ? kind_names[k] : "other";
}

const char *osc_warn_text(enum osc_warn w)
{
	return (unsigned)w < OSC_WARN_COUNT ? warn_texts[w] : "unknown warning";
}

const char *osc_warning_format(const struct osc_warning *x, enum osc_warn w, char *buf,
			       size_t size)
{
	int n = snprintf(buf, size, "%llu %s", (unsigned long long)x->count, osc_warn_text(w));

	/* SQLite rows have no byte offset (-1). */
	if (x->first_offset >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ": first at byte %lld",
			 (long long)x->first_offset);
	return buf;
}

void osc_trace_init(struct osc_trace *t)
{
	memset(t, 0, sizeof(*t));
	osc_strtab_init(&t->strs);
	/* Offset 0 of the args store is the shared empty string. */
	t->args_alloc = 4096;
	t->args_text = osc_xmalloc(t->args_alloc);
	t->args_text[0] = '\0';
	t->args_len = 1;
	t->format = OSC_FORMAT_UNKNOWN;
	t->meta_json = osc_xstrdup("");
	t->args_view = osc_xcalloc(1, sizeof(*t->args_view));
	for (int w = 0; w < OSC_WARN_COUNT; w++)
		t->warnings[w].first_offset = -1;
}

void osc_trace_drop_derived(struct osc_trace *t)
{
	if (t->derived)
		t->derived->drop(t->derived);
	t->derived_used = false;
}

void osc_trace_release(struct osc_trace *t)
{
	osc_strtab_release(&t->strs);
	free(t->events);
	free(t->args_off);
	free(t->extras);
	free(t->args_text);
	for (size_t k = 0; k < t->nr_raw; k++)
		osc_room_free(t->raw[k].text, t->raw[k].alloc);
	free(t->raw);
	free(t->kernels);
	free(t->kernel_slots);
	free(t->threads);
	free(t->path);
	free(t->meta_json);
	osc_mapguard_free(t->args_guard);
	if (t->args_map)
		munmap(t->args_map, t->args_map_len);
	if (t->args_view)
		free(t->args_view->p);
	free(t->args_view);
	if (t->derived)
		t->derived->free(t->derived);
	free(t->flows);
	free(t->flow_args);
	free(t->wide_ids);
	if (t->wide_map)
		osc_i64map_release(t->wide_map);
	free(t->wide_map);
	if (t->flow_name_map)
		osc_i64map_release(t->flow_name_map);
	free(t->flow_name_map);
	free(t->flow_names);
	memset(t, 0, sizeof(*t));
}

osc_id osc_trace_id(struct osc_trace *t, int64_t v)
{
	uint32_t *slot;

	if (v == OSC_NO_ID)
		return OSC_ID_NONE;
	if (v >= 0 && v < (int64_t)OSC_ID_WIDE)
		return (osc_id)v;
	if (!t->wide_map)
		t->wide_map = osc_xcalloc(1, sizeof(*t->wide_map));
	slot = osc_i64map_slot(t->wide_map, v);
	if (*slot == OSC_I64MAP_EMPTY) {
		/* codes stay below OSC_ID_NONE: 2^31 - 1 wide ids at most (beyond any
		   trace that fits in memory; past them an id reads as absent) */
		if (t->nr_wide_ids >= (size_t)(OSC_ID_WIDE - 1))
			return OSC_ID_NONE;
		*slot = (uint32_t)t->nr_wide_ids;
		OSC_GROW(t->wide_ids, t->nr_wide_ids + 1, t->alloc_wide_ids);
		t->wide_ids[t->nr_wide_ids++] = v;
	}
	return OSC_ID_WIDE | *slot;
}

/* Room for n events in t's event arrays (more or fewer than now). */
static void set_room(struct osc_trace *t, size_t n)
{
	t->events = osc_xreallocarray(t->events, n, sizeof(*t->events));
	t->args_off = osc_xreallocarray(t->args_off, n, sizeof(*t->args_off));
	if (t->extras)
		t->extras = osc_xreallocarray(t->extras, n, sizeof(*t->extras));
	t->alloc_events = n;
}

void osc_trace_reserve(struct osc_trace *t, size_t n)
{
	if (t->nr_events + n <= t->alloc_events)
		return;
	n += t->nr_events;
	/* Repeated reserves (one per merged part) still grow geometrically. */
	if (n < t->alloc_events + t->alloc_events / 2)
		n = t->alloc_events + t->alloc_events / 2;
	set_room(t, n);
}

void osc_trace_fit(struct osc_trace *t)
{
	size_t n = t->nr_events ? t->nr_events : 1;

	if (t->alloc_events > n)
		set_room(t, n);
}

void osc_trace_start_extras(struct osc_trace *t)
{
	t->extras = osc_xreallocarray(NULL, t->alloc_events ? t->alloc_events : 1,
				      sizeof(*t->extras));
	for (size_t i = 0; i < t->nr_events; i++)
		t->extras[i] = osc_event_no_extra(&t->events[i]);
}

void osc_trace_keep_flow_name(struct osc_trace *t, osc_str name, osc_str cat)
{
	uint32_t *slot;

	if (!t->flow_name_map)
		t->flow_name_map = osc_xcalloc(1, sizeof(*t->flow_name_map));
	slot = osc_i64map_slot(t->flow_name_map, osc_i64map_pair(name, cat));
	if (*slot != OSC_I64MAP_EMPTY)
		return;
	/* fewer than 2^30 (a label's 30 bits): each needs strings of its own */
	OSC_GROW(t->flow_names, t->nr_flow_names + 1, t->alloc_flow_names);
	t->flow_names[t->nr_flow_names] = (struct osc_flow_name){ name, cat };
	*slot = (uint32_t)t->nr_flow_names++;
}

struct osc_flow osc_flow_of(const struct osc_trace *t, const struct osc_event *e, size_t at)
{
	uint32_t name = osc_i64map_get(t->flow_name_map, osc_i64map_pair(e->name, e->cat));

	return (struct osc_flow){ .ts = e->ts, .id = e->corr_id, .thread = e->thread,
				  .at = (uint32_t)at,
				  .label = name << 2 | (uint32_t)(e->ph - OSC_PH_FLOW_START) };
}

static size_t new_event(struct osc_trace *t, const struct osc_event *ev,
			const struct osc_event_extra *extra)
{
	size_t i = t->nr_events;

	if (t->derived_used)
		osc_trace_drop_derived(t);
	if (i + 1 > t->alloc_events)
		osc_trace_reserve(t, t->alloc_events ? t->alloc_events / 2 : 1024);
	if (i && osc_event_before(ev, &t->events[i - 1]))
		t->unsorted = true;
	t->events[i] = *ev;
	osc_event_args_set(&t->events[i], &t->args_off[i], 0);
	if (extra && !t->extras && (extra->op != ev->name || extra->provider != OSC_STR_EMPTY))
		osc_trace_start_extras(t);
	if (t->extras)
		t->extras[i] = extra ? *extra : osc_event_no_extra(ev);
	t->has_providers |= extra && extra->provider != OSC_STR_EMPTY;
	if (osc_phase_is_flow(ev->ph)) {
		t->flows_in_events++;
		osc_trace_keep_flow_name(t, ev->name, ev->cat);
	}
	if (ev->thread < t->nr_threads)
		t->threads[ev->thread].nr_events++;
	t->nr_events++;
	return i;
}

uint32_t osc_trace_add_event_ref(struct osc_trace *t, const struct osc_event *ev,
				 const struct osc_event_extra *extra, uint64_t ref)
{
	size_t i = new_event(t, ev, extra);

	osc_event_args_set(&t->events[i], &t->args_off[i], ref);
	return (uint32_t)i;
}

/*
 * Append text[0 .. len) and a NUL to args_text: its offset there, or 0 when
 * it would reach the reference bit (512 GB of args text).
 */
static uint64_t keep_args_text(struct osc_trace *t, const char *text, size_t len)
{
	uint64_t at = t->args_len;

	if (at + len >= OSC_ARGS_REF_BIT)
		return 0;
	OSC_GROW(t->args_text, t->args_len + len + 1, t->args_alloc);
	memcpy(t->args_text + at, text, len);
	t->args_text[at + len] = '\0';
	t->args_len += len + 1;
	return at;
}

uint32_t osc_trace_add_event(struct osc_trace *t, const struct osc_event *ev,
			     const struct osc_event_extra *extra, const char *args,
			     size_t args_len)
{
	size_t i = new_event(t, ev, extra);

	if (args && args_len)
		osc_event_args_set(&t->events[i], &t->args_off[i],
				   keep_args_text(t, args, args_len));
	return (uint32_t)i;
}

#define RAW_FIRST ((size_t)256 << 10) /* bytes of a trace's first raw block */
#define RAW_MOST ((size_t)32 << 20)   /* and the most a block takes (unless one object is more) */

/* The end of t's raw blocks: the next one's base. */
static uint64_t raw_end(const struct osc_trace *t)
{
	const struct osc_args_block *b = t->nr_raw ? &t->raw[t->nr_raw - 1] : NULL;

	return b ? b->base + b->len : 0;
}

uint32_t osc_trace_add_event_raw(struct osc_trace *t, const struct osc_event *ev,
				 const struct osc_event_extra *extra, const char *args,
				 size_t args_len)
{
	size_t i = new_event(t, ev, extra);
	uint64_t at = raw_end(t);
	struct osc_args_block *b;

	if (at + args_len >= OSC_ARGS_REF_BIT) /* 512 GB of args text */
		return (uint32_t)i;
	b = t->nr_raw ? &t->raw[t->nr_raw - 1] : NULL;
	if (!b || b->alloc - b->len < args_len + 1) {
		/* A new block, twice the last (none is moved or copied as it grows). */
		size_t cap = b ? b->alloc * 2 : RAW_FIRST;

		cap = cap > RAW_MOST ? RAW_MOST : cap;
		cap = cap < args_len + 1 ? args_len + 1 : cap;
		OSC_GROW(t->raw, t->nr_raw + 1, t->alloc_raw);
		b = &t->raw[t->nr_raw++];
		*b = (struct osc_args_block){ .base = at, .text = osc_xroom(cap), .alloc = cap };
	}
	memcpy(b->text + b->len, args, args_len);
	b->text[b->len + args_len] = '\0';
	b->len += args_len + 1;
	osc_event_args_set(&t->events[i], &t->args_off[i], OSC_ARGS_REF(at));
	return (uint32_t)i;
}

void osc_trace_take_raw(struct osc_trace *t, struct osc_trace *s, uint64_t *shift)
{
	*shift = raw_end(t);
	if (!s->nr_raw)
		return;
	OSC_GROW(t->raw, t->nr_raw + s->nr_raw, t->alloc_raw);
	for (size_t k = 0; k < s->nr_raw; k++) {
		t->raw[t->nr_raw] = s->raw[k];
		t->raw[t->nr_raw++].base += *shift;
	}
	free(s->raw);
	s->raw = NULL;
	s->nr_raw = s->alloc_raw = 0;
}

/* The raw block that holds reference v, or NULL. */
static const struct osc_args_block *raw_block(const struct osc_trace *t, uint64_t v)
{
	size_t lo = 0, hi = t->nr_raw;

	while (lo < hi) { /* the first block past v */
		size_t mid = lo + (hi - lo) / 2;

		if (t->raw[mid].base <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && v < t->raw[lo - 1].base + t->raw[lo - 1].len ? &t->raw[lo - 1] : NULL;
}

_Static_assert(sizeof(struct osc_kernel) == 56, "struct osc_kernel has padding");

static uint64_t kernel_hash(const struct osc_kernel *k)
{
	uint64_t w[sizeof(*k) / 8], h = 0;

	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < sizeof(w) / 8; i++)
		h = osc_mix64(h ^ w[i]);
	return h;
}

/* The slot of facts k in t's index: its entry's, or the free one to take. */
static uint32_t *kernel_slot(const struct osc_trace *t, const struct osc_kernel *k)
{
	size_t mask = t->kernel_slots_size - 1, i = kernel_hash(k) & mask;

	while (t->kernel_slots[i] != OSC_NONE &&
	       memcmp(&t->kernels[t->kernel_slots[i]], k, sizeof(*k)))
		i = (i + 1) & mask;
	return &t->kernel_slots[i];
}

/* Keep the index under half full: a new table of twice the slots. */
static void kernel_slots_grow(struct osc_trace *t)
{
	size_t size = t->kernel_slots_size ? 2 * t->kernel_slots_size : 1024;

	free(t->kernel_slots);
	t->kernel_slots = osc_xreallocarray(NULL, size, sizeof(*t->kernel_slots));
	memset(t->kernel_slots, 0xff, size * sizeof(*t->kernel_slots));
	t->kernel_slots_size = size;
	for (size_t i = 0; i < t->nr_kernels; i++)
		*kernel_slot(t, &t->kernels[i]) = (uint32_t)i;
}

uint32_t osc_trace_add_kernel(struct osc_trace *t, const struct osc_kernel *k)
{
	uint32_t *slot;

	if (2 * (t->nr_kernels + 1) > t->kernel_slots_size)
		kernel_slots_grow(t);
	slot = kernel_slot(t, k);
	if (*slot == OSC_NONE) {
		OSC_GROW(t->kernels, t->nr_kernels + 1, t->alloc_kernels);
		t->kernels[t->nr_kernels] = *k;
		*slot = (uint32_t)t->nr_kernels++;
	}
	return *slot;
}

uint32_t osc_trace_thread(struct osc_trace *t, osc_str pid, osc_str tid)
{
	struct osc_thread *th;

	/* Traces have tens of threads; loaders cache the last lookups. */
	for (size_t i = t->nr_threads; i-- > 0;)
		if (t->threads[i].pid == pid && t->threads[i].tid == tid)
			return (uint32_t)i;
	OSC_GROW(t->threads, t->nr_threads + 1, t->alloc_threads);
	th = &t->threads[t->nr_threads];
	memset(th, 0, sizeof(*th));
	th->pid = pid;
	th->tid = tid;
	return (uint32_t)t->nr_threads++;
}

void osc_trace_order_threads(struct osc_trace *t, const uint32_t *order)
{
	size_t n = t->nr_threads;
	struct osc_thread *was = osc_xmalloc((n ? n : 1) * sizeof(*was));
	uint32_t *to = osc_xmalloc((n ? n : 1) * sizeof(*to));

	memcpy(was, t->threads, n * sizeof(*was));
	for (size_t i = 0; i < n; i++) {
		t->threads[i] = was[order[i]];
		to[order[i]] = (uint32_t)i;
	}
	for (size_t i = 0; i < t->nr_events; i++)
		if (t->events[i].thread < n)
			t->events[i].thread = to[t->events[i].thread];
	free(to);
	free(was);
}

void osc_trace_warn(struct osc_trace *t, enum osc_warn w, int64_t offset)
{
	struct osc_warning *wa;

	if ((unsigned)w >= OSC_WARN_COUNT)
		return;
	wa = &t->warnings[w];
	if (!wa->count++)
		wa->first_offset = offset;
}

/*
 * Model order: a stable radix sort of the start times (radix.h), then each
 * run of equal starts ordered by dur descending, stably, so file order
 * breaks the remaining ties.
 */
#define SMALL_TIE 32 /* longer runs of equal starts are radix sorted by dur */

/*
 * idx[0..n) share one start: order them by dur descending, stably. dur is
 * per event index (a copy: the event table is cold); k, k2 and idx2 are
 * scratch of n entries.
 */
static void sort_ties(const int64_t *dur, uint32_t *idx, uint64_t *k, uint64_t *k2,
		      uint32_t *idx2, size_t n)
{
	int64_t max = INT64_MIN;

	if (n <= SMALL_TIE) {
		for (size_t i = 1; i < n; i++) {
			uint32_t x = idx[i];
			size_t j = i;

			for (; j && dur[idx[j - 1]] < dur[x]; j--)
				idx[j] = idx[j - 1];
			idx[j] = x;
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (dur[idx[i]] > max)
			max = dur[idx[i]];
	for (size_t i = 0; i < n; i++)
		k[i] = (uint64_t)max - (uint64_t)dur[idx[i]];
	osc_radix_sort(k, idx, k2, idx2, n);
}

/* src[i]: the index of the event that goes to i, in s's memory (32 bytes an event). */
static uint32_t *model_order(const struct osc_event *ev, size_t n, struct osc_sort_scratch *s)
{
	uint64_t *k, *k2;
	uint32_t *idx, *idx2;
	int64_t *dur;
	int64_t min = INT64_MAX;

	if (s->bytes < n * 32) {
		free(s->p);
		s->bytes = n * 32;
		s->p = osc_xmalloc(s->bytes);
	}
	k = s->p;
	k2 = k + n;
	dur = (int64_t *)(k2 + n);
	idx = (uint32_t *)(dur + n);
	idx2 = idx + n;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].ts < min)
			min = ev[i].ts;
		dur[i] = ev[i].dur;
	}
	for (size_t i = 0; i < n; i++) {
		/* Unsigned distance from the earliest start: exact over any range. */
		k[i] = (uint64_t)ev[i].ts - (uint64_t)min;
		idx[i] = (uint32_t)i;
	}
	osc_radix_sort(k, idx, k2, idx2, n);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && k[j] == k[i];)
			j++;
		/* k[i..j) is not read again: it serves as scratch. */
		if (j - i > 1)
			sort_ties(dur, idx + i, k2 + i, k + i, idx2 + i, j - i);
	}
	return idx;
}

#define MAX_MERGE_RUNS 64 /* more sorted runs than this: the radix sort */

/*
 * The starts of the maximal sorted runs of ev (in model order), into
 * start[0 .. nr] with start[nr] == n; 0 when there are more than
 * MAX_MERGE_RUNS of them.
 */
static size_t sorted_runs(const struct osc_event *ev, size_t n, size_t *start)
{
	size_t nr = 0;

	start[nr++] = 0;
	for (size_t i = 1; i < n; i++) {
		if (!osc_event_before(&ev[i], &ev[i - 1]))
			continue;
		if (nr == MAX_MERGE_RUNS)
			return 0;
		start[nr++] = i;
	}
	start[nr] = n;
	return nr;
}

/*
 * Put the flows back among the events, each at its place (osc_flow.at), for
 * a sort of events added after they went apart; osc_trace_split_flows takes
 * them out again. A flow comes back with only what it kept.
 */
static void join_flows(struct osc_trace *t)
{
	size_t n = t->nr_events + t->nr_flows, a = 0;
	struct osc_event *ev = osc_xmalloc(n * sizeof(*ev));
	uint32_t *off = osc_xmalloc(n * sizeof(*off));
	struct osc_event_extra *extras = t->extras ? osc_xmalloc(n * sizeof(*extras)) : NULL;

	for (size_t e = 0, f = 0; e + f < n;) {
		const struct osc_flow *x = &t->flows[f];

		if (!osc_trace_flow_next(t, e, f)) {
			ev[e + f] = t->events[e];
			off[e + f] = t->args_off[e];
			if (extras)
				extras[e + f] = t->extras[e];
			e++;
			continue;
		}
		ev[e + f] = (struct osc_event){
			.ts = x->ts, .corr_id = x->id, .ext = OSC_ID_NONE,
			.name = osc_trace_flow_name(t, x)->name,
			.cat = osc_trace_flow_name(t, x)->cat, .thread = x->thread,
			.kernel = OSC_NONE, .ph = osc_flow_ph(x), .kind = OSC_KIND_FLOW,
		};
		osc_event_args_set(&ev[e + f], &off[e + f],
				   a < t->nr_flow_args && t->flow_args[a].flow == f
					   ? t->flow_args[a++].off
					   : 0);
		if (extras)
			extras[e + f] = osc_event_no_extra(&ev[e + f]);
		f++;
	}
	free(t->events);
	free(t->args_off);
	free(t->extras);
	free(t->flows);
	free(t->flow_args);
	t->events = ev;
	t->args_off = off;
	t->extras = extras;
	t->nr_events = t->alloc_events = n;
	t->flows_in_events = t->nr_flows;
	t->flows = NULL;
	t->flow_args = NULL;
	t->nr_flows = t->nr_flow_args = 0;
}

#define PREFETCH_AHEAD 8 /* cycle links fetched ahead while permuting */

void osc_sort_scratch_release(struct osc_sort_scratch *s)
{
	free(s->p);
	*s = (struct osc_sort_scratch){ 0 };
}

void osc_trace_sort(struct osc_trace *t)
{
	struct osc_sort_scratch s = { 0 };

	osc_trace_sort_in(t, &s);
	osc_sort_scratch_release(&s);
}

/*
 * The model order: a merge of the sorted runs when there are few (a loader
 * that appends table after table), else the radix sort, applied in place by
 * following the permutation's cycles, so the event table is never held
 * twice (it is the biggest allocation). Each step of a cycle is a cache
 * miss that depends on the one before: the events a few links ahead are
 * prefetched so the misses overlap.
 */
void osc_trace_sort_in(struct osc_trace *t, struct osc_sort_scratch *s)
{
	size_t n, i, start[MAX_MERGE_RUNS + 1], runs;
	uint32_t *src;

	if (!t->unsorted)
		return;
	if (t->nr_flows)
		join_flows(t);
	n = t->nr_events;
	osc_trace_drop_derived(t);
	t->unsorted = false;
	runs = n ? sorted_runs(t->events, n, start) : 1;
	if (runs == 1)
		return;
	if (runs) {
		osc_trace_merge_runs(t, start, runs);
		return;
	}
	src = model_order(t->events, n, s);
	for (i = 0; i < n; i++) {
		struct osc_event ev;
		struct osc_event_extra extra = { 0 };
		uint32_t off;
		size_t j = i, ahead = i;

		if (src[i] == i)
			continue;
		for (int d = 0; d < PREFETCH_AHEAD && src[ahead] != i; d++)
			ahead = src[ahead];
		ev = t->events[i];
		off = t->args_off[i];
		if (t->extras)
			extra = t->extras[i];
		while (src[j] != i) {
			size_t k = src[j];

			/* src[ahead] is still unvisited: the lookahead runs in front. */
			if (src[ahead] != i) {
				ahead = src[ahead];
				__builtin_prefetch(&t->events[ahead]);
				__builtin_prefetch(&t->args_off[ahead]);
			}
			t->events[j] = t->events[k];
			t->args_off[j] = t->args_off[k];
			if (t->extras)
				t->extras[j] = t->extras[k];
			src[j] = (uint32_t)j;
			j = k;
		}
		t->events[j] = ev;
		t->args_off[j] = off;
		if (t->extras)
			t->extras[j] = extra;
		src[j] = (uint32_t)j;
	}
}

void osc_trace_split_flows(struct osc_trace *t)
{
	size_t kept = 0, alloc_args;

	if (!t->flows_in_events)
		return;
	if (t->nr_flows) /* some went apart already: their places change */
		join_flows(t);
	osc_trace_drop_derived(t);
	alloc_args = t->nr_flow_args;
	t->flows = osc_xreallocarray(t->flows, t->flows_in_events, sizeof(*t->flows));
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];

		if (!osc_phase_is_flow(e->ph)) {
			t->events[kept] = *e;
			if (t->extras)
				t->extras[kept] = t->extras[i];
			t->args_off[kept++] = t->args_off[i];
			continue;
		}
		if (osc_trace_args_place(t, i)) {
			OSC_GROW(t->flow_args, t->nr_flow_args + 1, alloc_args);
			t->flow_args[t->nr_flow_args++] = (struct osc_flow_args){
				.flow = (uint32_t)t->nr_flows, .off = osc_trace_args_place(t, i),
			};
		}
		t->flows[t->nr_flows++] = osc_flow_of(t, e, i);
	}
	t->flows_in_events = 0;
	t->nr_events = t->alloc_events = kept;
	t->events = osc_xreallocarray(t->events, kept ? kept : 1, sizeof(*t->events));
	t->args_off = osc_xreallocarray(t->args_off, kept ? kept : 1, sizeof(*t->args_off));
	if (t->extras)
		t->extras = osc_xreallocarray(t->extras, kept ? kept : 1, sizeof(*t->extras));
}

/* The args text of an args place into *buf when by reference. */
static const char *args_of(const struct osc_trace *t, uint64_t place, char **buf, size_t *alloc)
{
	uint64_t off = place & ~OSC_ARGS_REF_BIT;
	struct js_ctx c = { .eof = true };
	const struct osc_args_block *b = t->nr_raw ? raw_block(t, off) : NULL;
	const char *p, *src = b ? b->text : t->nr_raw ? NULL : t->args_src;
	size_t len = b ? b->len : t->args_map_len;
	struct js_val val;
	bool bad = false;

	if (!(place & OSC_ARGS_REF_BIT))
		return t->args_text + off;
	off -= b ? b->base : 0;
	if (!src || off >= len || osc_mapguard_faulted(t->args_guard))
		return "";
	c.end = src + len;
	/* The object's end, as the loader scanned it (nothing repaired in a reference). */
	p = src + off;
	if (js_scan_value(&c, &p, &val) != JS_OK || val.type != JS_OBJECT || c.repairs)
		return "";
	/* Rendered exactly as a loader copies args (js_copy_minified). */
	val.flags = 0;
	OSC_GROW(*buf, JS_DECODE_MAX(val.len) + 1, *alloc);
	(*buf)[js_copy_minified(NULL, &val, *buf, &bad)] = '\0';
	/* The file may have shrunk while it was read: zeros, not its args. */
	return osc_mapguard_faulted(t->args_guard) ? "" : *buf;
}

/*
 * The args text of an args offset for osc_trace_args and osc_trace_flow_args:
 * by reference, rendered into the trace's buffer (none without one).
 */
static const char *args_shown(const struct osc_trace *t, uint64_t place)
{
	struct osc_args_view *v = t->args_view;

	if (!v)
		return place & OSC_ARGS_REF_BIT ? "" : t->args_text + place;
	return args_of(t, place, &v->p, &v->alloc);
}

/* Whether event ev's args are its kernel record's (osc_trace.device_args). */
static bool args_from_kernel(const struct osc_trace *t, uint32_t ev)
{
	const struct osc_event *e = &t->events[ev];

	return t->device_args && !osc_trace_args_place(t, ev) && osc_kind_is_device(e->kind) &&
	       e->kernel < t->nr_kernels;
}

/* Event ev's args from its kernel record, into *buf. */
static const char *kernel_args(const struct osc_trace *t, uint32_t ev, char **buf, size_t *alloc)
{
	const struct osc_event *e = &t->events[ev];

	OSC_GROW(*buf, OSC_DEVICE_ARGS_MAX, *alloc);
	osc_device_args(*buf, &t->kernels[e->kernel], osc_trace_id_value(t, e->corr_id),
			(enum osc_kind)e->kind);
	return *buf;
}

const char *osc_trace_args_into(const struct osc_trace *t, uint32_t ev, char **buf,
				size_t *alloc)
{
	if (ev >= t->nr_events || !t->args_off)
		return "";
	if (args_from_kernel(t, ev))
		return kernel_args(t, ev, buf, alloc);
	return args_of(t, osc_trace_args_place(t, ev), buf, alloc);
}

const char *osc_trace_flow_args(const struct osc_trace *t, uint32_t f)
{
	size_t lo = 0, hi = t->nr_flow_args;

	while (lo < hi) { /* the first entry of a flow at or after f */
		size_t mid = lo + (hi - lo) / 2;

		if (t->flow_args[mid].flow < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->nr_flow_args || t->flow_args[lo].flow != f)
		return "";
	return args_shown(t, t->flow_args[lo].off);
}

void osc_trace_args_give_back(const struct osc_trace *t)
{
	if (t->args_map)
		madvise(t->args_map, t->args_map_len, MADV_DONTNEED);
}

const char *osc_trace_args(const struct osc_trace *t, uint32_t ev)
{
	if (ev >= t->nr_events || !t->args_off)
		return "";
	if (args_from_kernel(t, ev) && t->args_view)
		return kernel_args(t, ev, &t->args_view->p, &t->args_view->alloc);
	return args_shown(t, osc_trace_args_place(t, ev));
}

bool osc_trace_args_lost(const struct osc_trace *t)
{
	return osc_mapguard_changed(t->args_guard);
}
