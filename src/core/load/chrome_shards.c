/*
 * chrome_shards.c - a Chrome trace's event array parsed on all cores.
 *
 * A mapped file's event array is cut into shards at likely element starts
 * ('{' after "}," with a raw newline between: a newline cannot sit inside a
 * JSON string). Each shard is parsed on some core into its own trace (own
 * string table, threads, kernels, pending B/E), then merged in file order
 * with its string ids remapped. A cut is trusted only when the shard before
 * it, parsing on, lands exactly on it at an element boundary; otherwise that
 * shard keeps going to the next cut and the shard started at the bad cut is
 * dropped. Errors, truncation and the end of the array are left to the
 * sequential walk, which resumes where the last trusted shard stopped.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "base/parallel.h"
#include "load/chrome.h"

#define SPLIT_MIN ((size_t)8 << 20)      /* smaller arrays parse on one thread */
#define SHARD_MIN ((size_t)2 << 20)
#define SHARD_MAX ((size_t)32 << 20)
#define SPLIT_SEARCH ((size_t)4 << 20)   /* how far to look for a cut */
#define SHARDS_PER_CPU 4                 /* a shard is this share of what is left per core */
/*
 * The JSON bytes of an event, at least, in the traces seen (Kineto about
 * 260, ORT 300, a million tiny ops 150): a shard reserves room for its bytes
 * over this many events at once, so that its arrays are not grown by copies
 * into fresh pages, and gives back what it did not use once parsed; one of
 * smaller events grows as it must.
 */
#define SHARD_EVENT_BYTES 128

struct shard {
	const char *start;  /* an element's first byte */
	struct osc_trace t;
	struct chrome *ch;
	struct osc_input in;
	const char *stop;   /* where it stopped when it did not land on a cut */
	enum state stop_state;
	size_t end_cut;     /* index of the cut it landed on, 0: none */
	bool done;
};

struct par {
	struct chrome *main;
	struct shard *sh;
	size_t nr;
	struct osc_trace_part *parts; /* events of the shards merged so far, in file order */
	size_t nr_parts;
	size_t next;        /* next shard to parse (under lock) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

bool osc_chrome_can_split(const struct chrome *ch, const char *p)
{
	const struct osc_input *in = ch->in;

	const char *end = in->data + in->len;

	if (ch->tried_split || !in->eof || !in->stable || (size_t)(end - p) < SPLIT_MIN)
		return false;
	p = js_skip_ws(p, end);
	return p < end && *p == '{';
}

/* The first likely element start in [p, limit), or NULL. */
static const char *find_cut(const char *p, const char *limit, const char *end)
{
	while (p < limit) {
		const char *nl = memchr(p, '\n', (size_t)(limit - p)), *q, *b;

		if (!nl)
			return NULL;
		p = nl + 1;
		q = js_skip_ws(p, end);
		if (q >= end || *q != '{')
			continue;
		b = nl;
		while (b > limit - SPLIT_SEARCH && b[-1] != ',' &&
		       (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r' || b[-1] == '\n'))
			b--;
		if (b[-1] != ',')
			continue;
		b--;
		while (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r' || b[-1] == '\n')
			b--;
		if (b[-1] == '}')
			return q;
	}
	return NULL;
}

/* Parse shard i until it lands on a later cut, or stops. */
static void parse_shard(struct par *par, size_t i)
{
	struct shard *sh = &par->sh[i];
	struct chrome *ch = sh->ch;
	const char *p = sh->start;
	size_t cut = i + 1, n = 0;
	volatile int *cancel = ch->lc->opts->cancel;
	const char *to = cut < par->nr ? par->sh[cut].start : ch->js.end;

	osc_trace_reserve(&sh->t, (size_t)(to - p) / SHARD_EVENT_BYTES);
	for (;;) {
		enum state before = ch->state;
		const char *q = js_skip_ws(p, ch->js.end);

		if (before == ST_ARR_ELEM) {
			while (cut < par->nr && q > par->sh[cut].start)
				cut++;
			if (cut < par->nr && q == par->sh[cut].start) {
				sh->end_cut = cut;
				return;
			}
		}
		if ((before == ST_ARR_SEP && q < ch->js.end && *q == ']') ||
		    (cancel && !(++n & 1023) && *cancel) || osc_chrome_step(ch, &p) != JS_OK ||
		    (ch->state != ST_ARR_ELEM && ch->state != ST_ARR_SEP)) {
			/* The sequential walk takes over from the step before. */
			sh->stop = q;
			sh->stop_state = before;
			return;
		}
	}
}

/*
 * Its input pages are not needed any more (args refs fault them back in).
 * Its events are sorted here, on the core that parsed them, for
 * osc_trace_merge_parts to merge with the other shards', in the scratch
 * memory of that core's sorts (fresh pages cost more than the sort).
 */
static void release_shard(struct par *par, size_t i, struct osc_sort_scratch *scratch)
{
	struct shard *sh = &par->sh[i];
	const char *data = par->main->in->data;
	const char *to = sh->end_cut ? par->sh[sh->end_cut].start : sh->stop;

	osc_input_release(par->main->in, (size_t)(sh->start - data), (size_t)(to - data));
	osc_trace_fit(&sh->t);
	osc_trace_sort_in(&sh->t, scratch);
}

static void *worker(void *arg)
{
	struct par *par = arg;
	struct osc_sort_scratch scratch = { 0 };

	pthread_mutex_lock(&par->lock);
	while (par->next < par->nr) {
		size_t i = par->next++;

		pthread_mutex_unlock(&par->lock);
		parse_shard(par, i);
		release_shard(par, i, &scratch);
		pthread_mutex_lock(&par->lock);
		par->sh[i].done = true;
		pthread_cond_broadcast(&par->cond);
	}
	pthread_mutex_unlock(&par->lock);
	osc_sort_scratch_release(&scratch);
	return NULL;
}

static void shard_init(struct par *par, size_t i, const char *start)
{
	struct chrome *m = par->main, *ch;
	struct shard *sh = &par->sh[i];

	sh->start = start;
	osc_trace_init(&sh->t);
	sh->in.data = m->in->data;
	sh->in.len = m->in->len;
	sh->in.base = m->in->base;
	sh->in.eof = true;
	sh->in.stable = m->in->stable;
	sh->in.fd = -1;
	ch = sh->ch = osc_xcalloc(1, sizeof(*ch));
	osc_chrome_init(ch, m->lc, &sh->t, &sh->in);
	ch->raw_args = m->raw_args;
	ch->state = ST_ARR_ELEM;
	ch->in_object = m->in_object;
	ch->next_tick = UINT64_MAX; /* the main thread reports progress */
	ch->js.end = sh->in.data + sh->in.len;
	ch->js.eof = true;
}

static void shard_release(struct shard *sh)
{
	if (!sh->ch)
		return;
	osc_chrome_release(sh->ch);
	free(sh->ch);
	osc_trace_release(&sh->t);
	sh->ch = NULL;
}

static void merge_warnings(struct osc_trace *t, const struct osc_trace *s)
{
	for (int w = 0; w < OSC_WARN_COUNT; w++) {
		if (!s->warnings[w].count)
			continue;
		if (!t->warnings[w].count)
			t->warnings[w].first_offset = s->warnings[w].first_offset;
		t->warnings[w].count += s->warnings[w].count;
	}
	for (int i = 0; i < 256; i++)
		t->ph_counts[i] += s->ph_counts[i];
	t->nr_metadata += s->nr_metadata;
}

/*
 * Merge a parsed shard into the main trace, in file order: strings, threads,
 * kernels, pending B/E events and warnings now; its (sorted) events go to
 * part, for osc_trace_merge_parts once every shard is in.
 */
static void merge_shard(struct chrome *m, struct shard *sh, struct osc_trace_part *part)
{
	struct osc_trace *t = m->t, *s = &sh->t;
	struct chrome *sc = sh->ch;
	osc_str *map = osc_xreallocarray(NULL, s->strs.count, sizeof(*map));
	uint32_t *tmap = osc_xreallocarray(NULL, s->nr_threads + 1, sizeof(*tmap));
	uint32_t *kmap = osc_xreallocarray(NULL, s->nr_kernels + 1, sizeof(*kmap));

	for (size_t id = 0; id < s->strs.count; id++)
		map[id] = osc_trace_intern(t, s->strs.ptrs[id], s->strs.lens[id]);
	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct osc_thread *th = &s->threads[i];

		tmap[i] = osc_chrome_thread_of(m, map[th->pid], map[th->tid]);
		if (th->thread_name)
			t->threads[tmap[i]].thread_name = map[th->thread_name];
		if (th->thread_sort)
			t->threads[tmap[i]].thread_sort = th->thread_sort;
	}
	for (size_t id = 0; id < sc->alloc_proc_of; id++) {
		const struct proc *pr;

		if (sc->proc_of[id] == OSC_NONE)
			continue;
		pr = &sc->procs[sc->proc_of[id]];
		if (pr->name)
			osc_chrome_proc_of(m, map[id])->name = map[pr->name];
		if (pr->sort)
			osc_chrome_proc_of(m, map[id])->sort = pr->sort;
	}
	for (size_t i = 0; i < s->nr_kernels; i++)
		kmap[i] = osc_trace_add_kernel(t, &s->kernels[i]);
	osc_trace_take_part(t, s, map, tmap, kmap, part);
	for (size_t i = 0; i < sc->nr_pend; i++) {
		struct pending *pe = &sc->pend[i];
		const char *args = pe->args ? sc->be_args.p + pe->args : NULL;

		osc_trace_part_remap(part, &pe->ev);
		m->scratch.len = 0;
		if (args)
			sb_add(&m->scratch, args, strlen(args));
		osc_trace_part_remap_extra(part, &pe->extra);
		osc_chrome_add_pending(m, &pe->ev, &pe->extra, pe->begin, pe->offset,
			    args ? m->scratch.len : 0);
	}
	merge_warnings(t, s);
	m->nr_elems += sc->nr_elems;
	m->used_refs |= sc->used_refs;
	m->votes.ort += sc->votes.ort;
	m->votes.kineto += sc->votes.kineto;
	m->votes.legacy += sc->votes.legacy;
	m->votes.ne += sc->votes.ne;
}

/*
 * Cut points: shard 0 at p, then shards of a share of what is left, so they
 * shrink towards the end and the cores finish together (guided scheduling).
 */
static size_t make_cuts(struct par *par, const char *p, const char *end, size_t cpus)
{
	const char **cuts = NULL;
	size_t n = 0, alloc = 0;

	OSC_GROW(cuts, n + 1, alloc);
	cuts[n++] = p;
	for (;;) {
		size_t step = (size_t)(end - p) / (cpus * SHARDS_PER_CPU);
		const char *from, *limit;

		step = step < SHARD_MIN ? SHARD_MIN : step > SHARD_MAX ? SHARD_MAX : step;
		if ((size_t)(end - p) <= step + SHARD_MIN)
			break;
		from = p + step;
		limit = (size_t)(end - from) > SPLIT_SEARCH ? from + SPLIT_SEARCH : end;
		p = find_cut(from, limit, end);
		if (!p)
			break;
		OSC_GROW(cuts, n + 1, alloc);
		cuts[n++] = p;
	}
	/* Shards are not moved once made: their parsers point into them. */
	par->sh = osc_xcalloc(n, sizeof(*par->sh));
	for (size_t i = 0; i < n; i++)
		shard_init(par, i, cuts[i]);
	free(cuts);
	return n;
}

enum osc_status osc_chrome_parallel_events(struct chrome *ch, const char **pp)
{
	struct par par = { .main = ch };
	const char *end = ch->in->data + ch->in->len;
	const char *p = js_skip_ws(*pp, end);
	size_t cpus = osc_threads(), cur = 0, nthreads = 0;
	pthread_t th[OSC_MAX_THREADS];
	struct osc_sort_scratch scratch = { 0 };
	enum osc_status st = OSC_OK;

	par.nr = make_cuts(&par, p, end, cpus);
	par.parts = osc_xcalloc(par.nr + 1, sizeof(*par.parts));
	pthread_mutex_init(&par.lock, NULL);
	pthread_cond_init(&par.cond, NULL);
	for (size_t i = 1; i < cpus && i < par.nr; i++)
		if (!pthread_create(&th[nthreads], NULL, worker, &par))
			nthreads++;
	/* The events parsed before (the start of a stream decoded meanwhile) are
	   sorted while the workers parse, and merged with theirs in one pass. */
	if (ch->t->nr_events)
		osc_trace_take_own_part(ch->t, &scratch, &par.parts[par.nr_parts++]);
	/* This thread parses too, and merges the trusted chain as it completes. */
	pthread_mutex_lock(&par.lock);
	for (;;) {
		struct shard *sh = &par.sh[cur];

		if (!sh->done && par.next < par.nr) {
			size_t i = par.next++;

			pthread_mutex_unlock(&par.lock);
			parse_shard(&par, i);
			release_shard(&par, i, &scratch);
			pthread_mutex_lock(&par.lock);
			par.sh[i].done = true;
			continue;
		}
		while (!sh->done)
			pthread_cond_wait(&par.cond, &par.lock);
		pthread_mutex_unlock(&par.lock);
		merge_shard(ch, sh, &par.parts[par.nr_parts++]);
		for (size_t i = cur + 1; i < (sh->end_cut ? sh->end_cut : par.nr); i++)
			if (par.sh[i].done)
				shard_release(&par.sh[i]);
		*pp = sh->end_cut ? par.sh[sh->end_cut].start : sh->stop;
		ch->state = sh->end_cut ? ST_ARR_ELEM : sh->stop_state;
		osc_input_consumed(ch->in, (size_t)(*pp - ch->in->data));
		if (st == OSC_OK) {
			ch->lc->parsed = (uint64_t)(*pp - ch->in->data);
			st = osc_load_tick(ch->lc, ch->lc->parsed);
		}
		pthread_mutex_lock(&par.lock);
		if (!sh->end_cut || st != OSC_OK)
			break;
		shard_release(sh);
		cur = sh->end_cut;
	}
	/* Shards nobody took yet are not needed any more. */
	par.next = par.nr;
	pthread_mutex_unlock(&par.lock);
	osc_sort_scratch_release(&scratch);
	for (size_t i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < par.nr; i++)
		shard_release(&par.sh[i]);
	free(par.sh);
	if (st == OSC_OK) {
		osc_trace_merge_parts(ch->t, par.parts, par.nr_parts);
	} else {
		for (size_t i = 0; i < par.nr_parts; i++)
			osc_trace_part_release(&par.parts[i]);
	}
	free(par.parts);
	pthread_mutex_destroy(&par.lock);
	pthread_cond_destroy(&par.cond);
	return st;
}
