/*
 * calltree_table.c - the merged tree as a table: the seed tool's columns and
 * ours, one cell getter for the CLI, the exports and the TUI.
 *
 * List cells (cuda_runtime, kernels, kernel infos) cover a node's subtree:
 * its links are merged by name in a per-string-id slot table kept in the
 * scratch space, so writing a row costs O(subtree links), and the text is
 * built in a growing buffer (no cut names, whatever the export's buf size).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/calltree.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/correlate.h"
#include "opscope/base/sat.h"

static const struct osc_column columns[] = {
#define OSC_TREE_COL_DESC(id, title, legacy, width, align, numeric) \
	{ title, width, OSC_ALIGN_##align, numeric, OSC_STAT_NAME },
	OSC_TREE_COL_LIST(OSC_TREE_COL_DESC)
#undef OSC_TREE_COL_DESC
};

static const struct osc_column legacy_columns[] = {
#define OSC_TREE_COL_DESC(id, title, legacy, width, align, numeric) \
	{ legacy, width, OSC_ALIGN_##align, numeric, OSC_STAT_NAME },
	OSC_TREE_COL_LIST(OSC_TREE_COL_DESC)
#undef OSC_TREE_COL_DESC
};

const struct osc_column *osc_tree_columns(bool legacy, size_t *nr)
{
	*nr = OSC_TREE_COL_NR;
	return legacy ? legacy_columns : columns;
}

/* A time cell: us with 3 decimals, or ms with ctx->decimals (exact ns either way at 6). */
static void format_time(const struct osc_tree_table_ctx *ctx, int64_t ns, char *buf,
			size_t size)
{
	if (ctx->us)
		osc_format_us_int(ns, buf, size);
	else
		osc_format_ms(ns, ctx->decimals, buf, size);
}

void osc_format_ms(int64_t ns, int decimals, char *buf, size_t size)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t unit = decimals >= 6 ? 1 : 1000;

	/* round half away from zero to the last digit shown */
	if (unit > 1)
		mag = mag / unit + (mag % unit >= unit / 2);
	snprintf(buf, size, "%s%llu.%0*llu", ns < 0 && mag ? "-" : "",
		 (unsigned long long)(mag / (1000000 / unit)), decimals >= 6 ? 6 : 3,
		 (unsigned long long)(mag % (1000000 / unit)));
}

/* ---- list cells ---- */

struct osc_tree_agg {
	osc_str name;
	uint64_t count;
	int64_t total;
	uint32_t first;  /* first event (earliest), for kernel infos */
	uint8_t methods; /* bitmask of 1 << enum osc_link, device -> launch/host */
	uint8_t host_methods;
};

struct lister {
	const struct osc_tree_table_ctx *ctx;
	struct osc_tree_scratch *s;
	size_t nr;
	size_t len;
};

static void put(struct lister *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct lister *l, const char *fmt, ...)
{
	struct osc_tree_scratch *s = l->s;
	va_list ap;
	int n;

	for (;;) {
		size_t room = s->alloc - l->len;

		va_start(ap, fmt);
		n = vsnprintf(s->text + l->len, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room)
			break;
		OSC_GROW(s->text, l->len + (size_t)n + 1, s->alloc);
	}
	l->len += (size_t)n;
}

static void note(struct lister *l, uint32_t ev, int64_t dur, int method, int host_method)
{
	struct osc_tree_scratch *s = l->s;
	/* one entry per name shown */
	osc_str name = osc_names_key(l->ctx->names, l->ctx->trace->events[ev].name);
	struct osc_tree_agg *a;

	if (s->slot_of[name] == OSC_NONE) {
		OSC_GROW(s->agg, l->nr + 1, s->agg_alloc);
		s->slot_of[name] = (uint32_t)l->nr;
		s->agg[l->nr++] = (struct osc_tree_agg){ .name = name, .first = ev };
	}
	a = &s->agg[s->slot_of[name]];
	a->count++;
	a->total = osc_sat_add(a->total, dur);
	a->methods |= (uint8_t)(1u << method);
	a->host_methods |= (uint8_t)(1u << host_method);
	if (ev < a->first)
		a->first = ev;
}

/* Gather the links of n's subtree (devices, or launches) by name. */
static void gather(struct lister *l, uint32_t n, bool devices)
{
	const struct osc_mtree *m = l->ctx->tree;
	const struct osc_correlation *corr = l->ctx->corr;
	const struct osc_trace *t = l->ctx->trace;
	const uint32_t *first = devices ? m->dev_first : m->launch_first;
	const uint32_t *idx = devices ? m->dev : m->launch;

	for (uint32_t k = n; k != OSC_NONE; k = osc_mtree_next(m, k, true, n)) {

		for (size_t i = first[k]; i < first[k + 1]; i++) {
			if (devices) {
				const struct osc_dev_link *d = &corr->devs[idx[i]];

				note(l, d->event, t->events[d->event].dur, d->method, d->host_method);
			} else {
				uint32_t ev = corr->launches[idx[i]].event;

				note(l, ev, t->events[ev].dur, OSC_LINK_NONE, OSC_LINK_NONE);
			}
		}
	}
}

static const struct osc_trace *sort_trace;

/* Largest total first, then by name: a stable, readable order. */
static int cmp_agg(const void *pa, const void *pb)
{
	const struct osc_tree_agg *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(osc_trace_str(sort_trace, a->name), osc_trace_str(sort_trace, b->name));
}

static void dims(struct lister *l, const char *what, const int32_t *v)
{
	if (v[0] >= 0)
		put(l, " %s [%d,%d,%d]", what, v[0], v[1], v[2]);
}

static void put_methods(struct lister *l, uint8_t methods, uint8_t host_methods)
{
	const char *sep = " via ";

	for (int m = 1; m < OSC_LINK_COUNT; m++) {
		if ((methods >> m) & 1) {
			put(l, "%s%s", sep, osc_link_name((enum osc_link)m));
			sep = "|";
		}
	}
	sep = " + ";
	for (int m = 1; m < OSC_LINK_COUNT; m++) {
		if ((host_methods >> m) & 1) {
			put(l, "%s%s", sep, osc_link_name((enum osc_link)m));
			sep = "|";
		}
	}
}

static void put_info(struct lister *l, const struct osc_tree_agg *a)
{
	const struct osc_trace *t = l->ctx->trace;
	const struct osc_event *e = &t->events[a->first];
	const struct osc_kernel *k = e->kernel != OSC_NONE ? &t->kernels[e->kernel] : NULL;

	put(l, "%s:", osc_names_get(l->ctx->names, t, a->name));
	if (k) {
		dims(l, "grid", k->grid);
		dims(l, "block", k->block);
		if (k->registers >= 0)
			put(l, " registers %d", k->registers);
		if (k->shared_mem >= 0)
			put(l, " shared %lld", (long long)k->shared_mem);
		if (k->bytes >= 0)
			put(l, " bytes %lld", (long long)k->bytes);
		if (k->stream >= 0)
			put(l, " stream %d", k->stream);
	}
	put_methods(l, a->methods, a->host_methods);
}

static const char *list_cell(const struct osc_tree_table_ctx *ctx, uint32_t n,
			     enum osc_tree_col col)
{
	struct osc_tree_scratch *s = ctx->scratch;
	struct lister l = { .ctx = ctx, .s = s };
	struct osc_tree_agg *a;
	char ms[64];

	if (s->nr_strs != ctx->trace->strs.count) {
		free(s->slot_of);
		s->nr_strs = ctx->trace->strs.count;
		s->slot_of = osc_xmalloc((s->nr_strs ? s->nr_strs : 1) * sizeof(*s->slot_of));
		for (size_t i = 0; i < s->nr_strs; i++)
			s->slot_of[i] = OSC_NONE;
	}
	OSC_GROW(s->text, 256, s->alloc);
	s->text[0] = '\0';
	gather(&l, n, col != OSC_TREE_COL_RUNTIME);
	a = s->agg;
	sort_trace = ctx->trace;
	if (l.nr)
		qsort(a, l.nr, sizeof(*a), cmp_agg);
	for (size_t i = 0; i < l.nr; i++) {
		if (i)
			put(&l, "; ");
		if (col == OSC_TREE_COL_KERNEL_INFOS) {
			put_info(&l, &a[i]);
		} else {
			format_time(ctx, a[i].total, ms, sizeof(ms));
			put(&l, "%s x%llu (%s %s)",
			    osc_names_get(ctx->names, ctx->trace, a[i].name),
			    (unsigned long long)a[i].count, ms, ctx->us ? "us" : "ms");
		}
		s->slot_of[a[i].name] = OSC_NONE;
	}
	return s->text;
}

void osc_tree_scratch_release(struct osc_tree_scratch *s)
{
	free(s->text);
	free(s->agg);
	free(s->slot_of);
	free(s->chain);
	memset(s, 0, sizeof(*s));
}

/* ---- cells ---- */

/* The $$-joined path, whole, in the scratch text. */
static const char *path_cell(const struct osc_tree_table_ctx *ctx, uint32_t n)
{
	struct lister l = { .ctx = ctx, .s = ctx->scratch };
	const struct osc_mtree *m = ctx->tree;
	size_t nr = 0;

	OSC_GROW(l.s->text, 256, l.s->alloc);
	l.s->text[0] = '\0';
	/* one walk up, then the names from the root down: linear in the depth */
	OSC_GROW(l.s->chain, (size_t)m->nodes[n].depth + 1, l.s->chain_alloc);
	for (uint32_t a = n; a != OSC_NONE && nr <= m->nodes[n].depth; a = m->nodes[a].parent)
		l.s->chain[nr++] = a;
	for (size_t i = nr; i-- > 0;)
		put(&l, "%s%s", i + 1 < nr ? "$$" : "",
		    osc_mnode_name(m, ctx->trace, l.s->chain[i]));
	return l.s->text;
}

static int64_t mean(int64_t sum, uint64_t n)
{
	return n ? sum / (int64_t)n : 0;
}

const char *osc_tree_cell(const struct osc_tree_table_ctx *ctx, size_t row,
			  enum osc_tree_col col, char *buf, size_t size)
{
	const struct osc_mtree *m = ctx->tree;
	uint32_t n = ctx->rows[row];
	const struct osc_mnode *mn = &m->nodes[n];
	int64_t ns;

	switch (col) {
	case OSC_TREE_COL_NAME:
		return ctx->paths ? path_cell(ctx, n) : osc_mnode_name(m, ctx->trace, n);
	case OSC_TREE_COL_RUNTIME:
	case OSC_TREE_COL_KERNELS:
	case OSC_TREE_COL_KERNEL_INFOS:
		return list_cell(ctx, n, col);
	case OSC_TREE_COL_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)mn->count);
		return buf;
	case OSC_TREE_COL_KERNEL_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)mn->kernels_total);
		return buf;
	case OSC_TREE_COL_HOST:
		ns = mn->host;
		break;
	case OSC_TREE_COL_DEVICE:
		ns = mn->dev_total;
		break;
	case OSC_TREE_COL_LAUNCH:
		ns = mn->launch_total;
		break;
	case OSC_TREE_COL_SELF:
		ns = mn->self;
		break;
	case OSC_TREE_COL_DEVICE_SELF:
		ns = mn->dev;
		break;
	case OSC_TREE_COL_DELAY:
		ns = mean(mn->delay_sum, mn->nr_delay);
		break;
	case OSC_TREE_COL_QUEUE:
		ns = mean(mn->queue_sum, mn->nr_delay);
		break;
	default:
		buf[0] = '\0';
		return buf;
	}
	format_time(ctx, ns, buf, size);
	return buf;
}
