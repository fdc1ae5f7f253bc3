/*
 * flame.c - folded stacks of the merged call tree (flame.h).
 *
 * Limits: none on names or depth; a stack is built by walking its node's
 * parents, O(depth) per node.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/base/strtab.h"
#include "opscope/export/flame.h"

struct stackbuf {
	char *s;
	size_t len, alloc;
};

/* Append name as a frame (after a ';' unless first): see flame.h for the rewriting. */
static void sb_add(struct stackbuf *b, const char *name)
{
	size_t n;

	if (!*name)
		name = "<unnamed>";
	n = strlen(name);
	if (b->len + n + 2 > b->alloc) {
		b->alloc = (b->len + n + 2) * 2;
		b->s = osc_xrealloc(b->s, b->alloc);
	}
	if (b->len)
		b->s[b->len++] = ';';
	for (size_t i = 0; i < n;) {
		size_t len = 1;
		int32_t cp = (unsigned char)name[i] < 0x80 ? (unsigned char)name[i]
							    : osc_utf8_decode(name + i, &len);

		if (cp == ';') {
			b->s[b->len++] = ':';
		} else if (cp >= 0 && osc_text_unsafe((uint32_t)cp)) {
			b->s[b->len++] = ' '; /* shorter than the character: fits */
		} else {
			memcpy(b->s + b->len, name + i, len);
			b->len += len;
		}
		i += len;
	}
	b->s[b->len] = 0;
}

/* The stack of node n (its path from the root) into b. */
static void node_stack(const struct osc_trace *t, const struct osc_mtree *m, uint32_t n,
		       uint32_t **chain, size_t *alloc, struct stackbuf *b)
{
	size_t depth = 0;

	for (uint32_t p = n; p != OSC_NONE; p = m->nodes[p].parent) {
		if (depth == *alloc) {
			*alloc = *alloc ? *alloc * 2 : 64;
			*chain = osc_xrealloc(*chain, *alloc * sizeof(**chain));
		}
		(*chain)[depth++] = p;
	}
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
	while (depth--)
		sb_add(b, osc_mnode_name(m, t, (*chain)[depth]));
}

static void add(struct osc_flame *f, const char *stack, int64_t ns)
{
	if (f->nr == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 256;
		f->stacks = osc_xrealloc(f->stacks, f->alloc * sizeof(*f->stacks));
		f->ns = osc_xrealloc(f->ns, f->alloc * sizeof(*f->ns));
	}
	f->stacks[f->nr] = osc_xstrdup(stack);
	f->ns[f->nr++] = ns;
	f->total += ns;
}

struct entry {
	char *stack;
	int64_t ns;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->stack, ((const struct entry *)b)->stack);
}

/* Sort by stack and merge equal stacks (frames rewritten alike, kernels of one name). */
static void sort_merge(struct osc_flame *f)
{
	struct entry *e = osc_xmalloc((f->nr ? f->nr : 1) * sizeof(*e));
	size_t out = 0;

	for (size_t i = 0; i < f->nr; i++)
		e[i] = (struct entry){ f->stacks[i], f->ns[i] };
	qsort(e, f->nr, sizeof(*e), cmp_entry);
	for (size_t i = 0; i < f->nr; i++) {
		if (out && !strcmp(f->stacks[out - 1], e[i].stack)) {
			f->ns[out - 1] += e[i].ns;
			free(e[i].stack);
			continue;
		}
		f->stacks[out] = e[i].stack;
		f->ns[out++] = e[i].ns;
	}
	free(e);
	f->nr = out;
}

void osc_flame_build(const struct osc_trace *t, const struct osc_mtree *m,
		     const struct osc_correlation *corr, const struct osc_flame_opts *o,
		     struct osc_flame *f)
{
	struct stackbuf b = { 0 };
	uint32_t *chain = NULL;
	size_t chain_alloc = 0;
	size_t base;

	uint8_t *through = NULL; /* per node: a frame of its stack passes the filter */

	memset(f, 0, sizeof(*f));
	if (o->filter && !osc_filter_is_empty(o->filter)) {
		through = osc_xmalloc(m->nr ? m->nr : 1);
		for (uint32_t n = 0; n < m->nr; n++) { /* parents come before children */
			const char *name = osc_mnode_name(m, t, n);
			uint32_t p = m->nodes[n].parent;

			through[n] = (p != OSC_NONE && through[p]) ||
				     osc_filter_match(o->filter, name, strlen(name));
		}
	}
	for (uint32_t n = 0; n < m->nr; n++) {
		const struct osc_mnode *mn = &m->nodes[n];
		bool leaf_frames = o->value == OSC_FLAME_DEVICE && o->kernels;

		/* with kernel frames, a kernel's name may be the frame that matches */
		if (through && !through[n] && !leaf_frames)
			continue;
		if (o->value == OSC_FLAME_HOST ? mn->self <= 0
					       : m->dev_first[n] == m->dev_first[n + 1])
			continue;
		node_stack(t, m, n, &chain, &chain_alloc, &b);
		if (o->value == OSC_FLAME_HOST) {
			add(f, b.s, mn->self);
			continue;
		}
		if (!o->kernels) {
			int64_t dev = 0;

			for (size_t i = m->dev_first[n]; i < m->dev_first[n + 1]; i++)
				dev += t->events[corr->devs[m->dev[i]].event].dur;
			add(f, b.s, dev);
			continue;
		}
		base = b.len;
		for (size_t i = m->dev_first[n]; i < m->dev_first[n + 1]; i++) {
			const struct osc_event *ev = &t->events[corr->devs[m->dev[i]].event];
			const char *name = o->names ? osc_names_get(o->names, t, ev->name)
						    : osc_trace_str(t, ev->name);

			if (through && !through[n] && !osc_filter_match(o->filter, name, strlen(name)))
				continue;
			b.len = base;
			b.s[base] = 0;
			sb_add(&b, name);
			add(f, b.s, ev->dur);
		}
	}
	free(through);
	free(b.s);
	free(chain);
	sort_merge(f);
}

void osc_flame_release(struct osc_flame *f)
{
	for (size_t i = 0; i < f->nr; i++)
		free(f->stacks[i]);
	free(f->stacks);
	free(f->ns);
	memset(f, 0, sizeof(*f));
}

/* ns to whole µs, half up (values are never negative). */
static int64_t round_us(int64_t ns)
{
	return ns / 1000 + (ns % 1000 >= 500);
}

enum osc_status osc_flame_write(FILE *out, const struct osc_flame *f, struct osc_error *err)
{
	int64_t sum = 0, written = 0;

	for (size_t i = 0; i < f->nr; i++) {
		int64_t v;

		sum += f->ns[i];
		v = round_us(sum) - written;
		if (v <= 0)
			continue;
		written += v;
		fprintf(out, "%s %lld\n", f->stacks[i], (long long)v);
	}
	return ferror(out) ? osc_error_set(err, OSC_IO, "output", OSC_NO_OFFSET, NULL,
					   "cannot write")
			   : OSC_OK;
}
