/* trace.c - the in-memory trace model: event, kernel, thread and args tables. */
#include <stdlib.h>
#include <string.h>

#include "opscope/alloc.h"
#include "opscope/trace.h"

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
	for (int w = 0; w < OSC_WARN_COUNT; w++)
		t->warnings[w].first_offset = -1;
}

void osc_trace_release(struct osc_trace *t)
{
	osc_strtab_release(&t->strs);
	free(t->events);
	free(t->args_off);
	free(t->args_text);
	free(t->kernels);
	free(t->threads);
	free(t->path);
	free(t->meta_json);
	memset(t, 0, sizeof(*t));
}

uint32_t osc_trace_add_event(struct osc_trace *t, const struct osc_event *ev,
			     const char *args, size_t args_len)
{
	size_t i = t->nr_events;

	if (i + 1 > t->alloc_events) {
		size_t n = t->alloc_events ? t->alloc_events * 3 / 2 : 1024;

		t->events = osc_xreallocarray(t->events, n, sizeof(*t->events));
		t->args_off = osc_xreallocarray(t->args_off, n, sizeof(*t->args_off));
		t->alloc_events = n;
	}
	t->events[i] = *ev;
	t->args_off[i] = 0;
	if (args && args_len) {
		OSC_GROW(t->args_text, t->args_len + args_len + 1, t->args_alloc);
		memcpy(t->args_text + t->args_len, args, args_len);
		t->args_text[t->args_len + args_len] = '\0';
		t->args_off[i] = t->args_len;
		t->args_len += args_len + 1;
	}
	if (ev->thread < t->nr_threads)
		t->threads[ev->thread].nr_events++;
	t->nr_events++;
	return (uint32_t)i;
}

uint32_t osc_trace_add_kernel(struct osc_trace *t, const struct osc_kernel *k)
{
	OSC_GROW(t->kernels, t->nr_kernels + 1, t->alloc_kernels);
	t->kernels[t->nr_kernels] = *k;
	return (uint32_t)t->nr_kernels++;
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

void osc_trace_warn(struct osc_trace *t, enum osc_warn w, int64_t offset)
{
	struct osc_warning *wa;

	if ((unsigned)w >= OSC_WARN_COUNT)
		return;
	wa = &t->warnings[w];
	if (!wa->count++)
		wa->first_offset = offset;
}

struct sort_key {
	int64_t ts, dur;
	uint32_t idx;
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static bool key_less(const struct osc_event *a, const struct osc_event *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

/*
 * Sort keys, then apply the permutation in place by following its cycles, so
 * the event table is never held twice (it is the biggest allocation).
 */
void osc_trace_sort(struct osc_trace *t)
{
	size_t n = t->nr_events, i;
	struct sort_key *keys;
	uint32_t *src;

	for (i = 1; i < n; i++)
		if (key_less(&t->events[i], &t->events[i - 1]))
			break;
	if (i >= n)
		return;
	keys = osc_xmalloc(n * sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].ts = t->events[i].ts;
		keys[i].dur = t->events[i].dur;
		keys[i].idx = (uint32_t)i;
	}
	qsort(keys, n, sizeof(*keys), cmp_key);
	src = osc_xmalloc(n * sizeof(*src));
	for (i = 0; i < n; i++)
		src[i] = keys[i].idx;
	free(keys);
	for (i = 0; i < n; i++) {
		struct osc_event ev;
		uint64_t off;
		size_t j = i;

		if (src[i] == i)
			continue;
		ev = t->events[i];
		off = t->args_off[i];
		while (src[j] != i) {
			size_t k = src[j];

			t->events[j] = t->events[k];
			t->args_off[j] = t->args_off[k];
			src[j] = (uint32_t)j;
			j = k;
		}
		t->events[j] = ev;
		t->args_off[j] = off;
		src[j] = (uint32_t)j;
	}
	free(src);
}

const char *osc_trace_args(const struct osc_trace *t, uint32_t ev)
{
	if (ev >= t->nr_events || !t->args_off)
		return "";
	return t->args_text + t->args_off[ev];
}
