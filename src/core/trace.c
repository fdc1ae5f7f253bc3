/* trace.c - the in-memory trace model: event, kernel, thread and args tables. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "opscope/alloc.h"
#include "opscope/trace.h"
#include "json_scan.h"

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
	if (t->args_map)
		munmap(t->args_map, t->args_map_len);
	if (t->args_view)
		free(t->args_view->p);
	free(t->args_view);
	memset(t, 0, sizeof(*t));
}

void osc_trace_reserve(struct osc_trace *t, size_t n)
{
	if (t->nr_events + n <= t->alloc_events)
		return;
	n += t->nr_events;
	t->events = osc_xreallocarray(t->events, n, sizeof(*t->events));
	t->args_off = osc_xreallocarray(t->args_off, n, sizeof(*t->args_off));
	t->alloc_events = n;
}

static size_t new_event(struct osc_trace *t, const struct osc_event *ev)
{
	size_t i = t->nr_events;

	if (i + 1 > t->alloc_events)
		osc_trace_reserve(t, t->alloc_events ? t->alloc_events / 2 : 1024);
	t->events[i] = *ev;
	t->args_off[i] = 0;
	if (ev->thread < t->nr_threads)
		t->threads[ev->thread].nr_events++;
	t->nr_events++;
	return i;
}

uint32_t osc_trace_add_event_ref(struct osc_trace *t, const struct osc_event *ev, uint64_t ref)
{
	size_t i = new_event(t, ev);

	t->args_off[i] = ref;
	return (uint32_t)i;
}

uint32_t osc_trace_add_event(struct osc_trace *t, const struct osc_event *ev,
			     const char *args, size_t args_len)
{
	size_t i = new_event(t, ev);

	if (args && args_len) {
		OSC_GROW(t->args_text, t->args_len + args_len + 1, t->args_alloc);
		memcpy(t->args_text + t->args_len, args, args_len);
		t->args_text[t->args_len + args_len] = '\0';
		t->args_off[i] = t->args_len;
		t->args_len += args_len + 1;
	}
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

static inline bool key_lt(const struct sort_key *a, const struct sort_key *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (a->dur != b->dur)
		return a->dur > b->dur;
	return a->idx < b->idx;
}

static void swap_keys(struct sort_key *a, struct sort_key *b)
{
	struct sort_key x = *a;

	*a = *b;
	*b = x;
}

/* Hoare partition around the median of three; returns the split point. */
static size_t partition(struct sort_key *k, size_t n)
{
	size_t mid = n / 2, i = 0, j = n - 1;
	struct sort_key pivot;

	if (key_lt(&k[mid], &k[0]))
		swap_keys(&k[mid], &k[0]);
	if (key_lt(&k[n - 1], &k[0]))
		swap_keys(&k[n - 1], &k[0]);
	if (key_lt(&k[n - 1], &k[mid]))
		swap_keys(&k[n - 1], &k[mid]);
	pivot = k[mid];
	for (;;) {
		while (key_lt(&k[i], &pivot))
			i++;
		while (key_lt(&pivot, &k[j]))
			j--;
		if (i >= j)
			return j + 1;
		swap_keys(&k[i++], &k[j--]);
	}
}

static void heap_sift(struct sort_key *k, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && key_lt(&k[c], &k[c + 1]))
			c++;
		if (!key_lt(&k[i], &k[c]))
			return;
		swap_keys(&k[i], &k[c]);
		i = c;
	}
}

/*
 * Introsort without allocation (glibc's qsort is a merge sort that allocates
 * a copy of the keys, and calls a comparator per step): quicksort, heapsort
 * when the depth budget runs out, insertion sort for short ranges. Keys are
 * distinct (idx), so no stability is needed.
 */
static void sort_keys(struct sort_key *k, size_t n, int depth)
{
	while (n > 16) {
		size_t m;

		if (!depth--) {
			for (size_t i = n / 2; i-- > 0;)
				heap_sift(k, n, i);
			for (size_t i = n - 1; i > 0; i--) {
				swap_keys(&k[0], &k[i]);
				heap_sift(k, i, 0);
			}
			return;
		}
		m = partition(k, n);
		if (m < n - m) {
			sort_keys(k, m, depth);
			k += m;
			n -= m;
		} else {
			sort_keys(k + m, n - m, depth);
			n = m;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct sort_key x = k[i];
		size_t j = i;

		for (; j && key_lt(&x, &k[j - 1]); j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

struct sort_job {
	struct sort_key *k;
	size_t n;
};

static void *sort_thread(void *arg)
{
	struct sort_job *j = arg;

	sort_keys(j->k, j->n, 64);
	return NULL;
}

/* Big tables: split once and sort the halves on two threads. */
static void sort_all(struct sort_key *k, size_t n)
{
	struct sort_job job;
	pthread_t th;
	size_t m;

	if (n < ((size_t)1 << 16)) {
		sort_keys(k, n, 64);
		return;
	}
	m = partition(k, n);
	job.k = k + m;
	job.n = n - m;
	if (pthread_create(&th, NULL, sort_thread, &job)) {
		sort_keys(k, n, 64);
		return;
	}
	sort_keys(k, m, 64);
	pthread_join(th, NULL);
}

static bool event_less(const struct osc_event *a, const struct osc_event *b)
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
		if (event_less(&t->events[i], &t->events[i - 1]))
			break;
	if (i >= n)
		return;
	keys = osc_xmalloc(n * sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].ts = t->events[i].ts;
		keys[i].dur = t->events[i].dur;
		keys[i].idx = (uint32_t)i;
	}
	sort_all(keys, n);
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
	uint64_t off, len;
	struct osc_args_view *v = t->args_view;
	struct js_val val;
	bool bad = false;

	if (ev >= t->nr_events || !t->args_off)
		return "";
	off = t->args_off[ev];
	if (!(off & OSC_ARGS_REF_BIT))
		return t->args_text + off;
	len = (off >> 40) & (OSC_ARGS_REF_MAX_LEN - 1);
	off &= OSC_ARGS_REF_MAX_OFF - 1;
	if (!t->args_src || !v)
		return "";
	/* Rendered exactly as a loader copies args (js_copy_minified). */
	val.p = t->args_src + off;
	val.len = (size_t)len;
	val.type = JS_OBJECT;
	val.flags = 0;
	OSC_GROW(v->p, JS_DECODE_MAX(val.len) + 1, v->alloc);
	v->p[js_copy_minified(NULL, &val, v->p, &bad)] = '\0';
	return v->p;
}
