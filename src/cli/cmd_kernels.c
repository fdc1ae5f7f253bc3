/*
 * cmd_kernels.c - `opscope kernels`: device kernels with the op stack that
 * launched them (the reverse of `opscope tree`).
 *
 * One row per (kernel name, launching call path): count, device time, mean,
 * mean launch delay and queue time, how the link was made, the innermost op
 * and, in CSV and JSON, the whole $$-joined stack. Rows come from the merged
 * tree's per-node device links, so --runs selects the same instances as in
 * `opscope tree`; --filter keeps kernels whose name matches.
 */
#include <stdlib.h>
#include <string.h>

#include "opscope/base/alloc.h"
#include "opscope/analysis/columns.h"
#include "cli.h"
#include "cmd_tree.h"

enum { COL_KERNEL, COL_COUNT, COL_TOTAL, COL_MEAN, COL_DELAY, COL_QUEUE, COL_METHOD, COL_OP,
       COL_STACK, NR_COLS };

/* Report's names in us (report --by kernel's total_us, mean_us), and the seed's in ms. */
static const struct osc_column cols[NR_COLS] = {
	[COL_KERNEL] = { "kernel", 16, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_COUNT] = { "count", 5, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_TOTAL] = { "total_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_MEAN] = { "mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_DELAY] = { "launch_delay_mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_QUEUE] = { "queue_mean_us", 9, OSC_ALIGN_RIGHT, true, OSC_STAT_NAME },
	[COL_METHOD] = { "attributed_by", 8, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_OP] = { "launching_op", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
	[COL_STACK] = { "op_stack", 12, OSC_ALIGN_LEFT, false, OSC_STAT_NAME },
};

static const char *const legacy_titles[NR_COLS] = {
	"kernel",		 "count",	    "device (ms)",  "mean (ms)",
	"mean launch delay (ms)", "mean queue (ms)", "attributed by", "launching op",
	"op stack",
};

struct krow {
	osc_str name;
	uint32_t node;  /* merged node */
	uint64_t count, nr_delay;
	__int128 total, delay, queue; /* exact: means stay exact, the total saturates when shown */
	uint8_t methods, host_methods; /* 1 << enum osc_link */
	uint8_t whys;   /* 1 << enum osc_unattributed, for events without an op */
};

struct kctx {
	const struct osc_cli_tree_data *d;
	struct krow *rows;
	size_t nr;
	int decimals;
	bool us;                /* times in us (3 decimals), else ms (--legacy-columns) */
	char *text; /* the last stack or method cell */
	size_t alloc;
};

static const struct osc_trace *sort_trace;
static const struct osc_names *sort_names; /* the rows' name style: one row per name shown */

static int cmp_dev_name(const void *pa, const void *pb)
{
	const struct osc_event *ev = sort_trace->events;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	osc_str na = osc_names_key(sort_names, ev[a].name);
	osc_str nb = osc_names_key(sort_names, ev[b].name);

	if (na != nb)
		return na < nb ? -1 : 1;
	return (a > b) - (a < b);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct krow *a = pa, *b = pb;
	int c;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	c = strcmp(osc_trace_str(sort_trace, a->name), osc_trace_str(sort_trace, b->name));
	if (c)
		return c;
	return (a->node > b->node) - (a->node < b->node);
}

/* Rows per merged node: its device events grouped by kernel name. */
static void build_rows(struct kctx *k, const struct osc_filter *f)
{
	const struct osc_cli_tree_data *d = k->d;
	const struct osc_trace *t = &d->trace;
	size_t alloc = 0;
	uint32_t *ev = osc_xmalloc((d->corr.nr_devs ? d->corr.nr_devs : 1) * sizeof(*ev));
	bool all = osc_filter_is_empty(f);

	sort_trace = t;
	sort_names = &d->names;
	for (uint32_t n = 0; n < d->m.nr; n++) {
		size_t nr = 0;

		for (size_t i = d->m.dev_first[n]; i < d->m.dev_first[n + 1]; i++) {
			uint32_t e = d->corr.devs[d->m.dev[i]].event;
			const char *name = osc_trace_str(t, t->events[e].name);

			if (all || osc_filter_match(f, name, strlen(name)))
				ev[nr++] = e;
		}
		if (nr)
			qsort(ev, nr, sizeof(*ev), cmp_dev_name);
		for (size_t i = 0; i < nr; i++) {
			const struct osc_event *e = &t->events[ev[i]];
			const struct osc_dev_link *dl = &d->corr.devs[d->corr.dev_of[ev[i]]];
			osc_str name = osc_names_key(sort_names, e->name);
			struct krow *r;

			if (!i || k->rows[k->nr - 1].name != name) {
				OSC_GROW(k->rows, k->nr + 1, alloc);
				k->rows[k->nr++] = (struct krow){ .name = name, .node = n };
			}
			r = &k->rows[k->nr - 1];
			r->count++;
			r->total += e->dur;
			r->methods |= (uint8_t)(1u << dl->method);
			r->host_methods |= (uint8_t)(1u << dl->host_method);
			if (dl->unattributed != OSC_UNATTRIBUTED_NONE)
				r->whys |= (uint8_t)(1u << dl->unattributed);
			if (dl->launch != OSC_NONE) {
				r->nr_delay++;
				r->delay += dl->delay;
				r->queue += dl->queue;
			}
		}
	}
	free(ev);
	if (k->nr)
		qsort(k->rows, k->nr, sizeof(*k->rows), cmp_rows);
}

static char *room(struct kctx *k, size_t n)
{
	OSC_GROW(k->text, n, k->alloc);
	return k->text;
}

#define CELL 256 /* room of a method cell */

static const char *link_text(int m)
{
	return osc_link_name((enum osc_link)m);
}

static const char *why_text(int u)
{
	return osc_unattributed_name((enum osc_unattributed)u);
}

/*
 * Append to s (len used of CELL) the names of mask's bits from `from` to
 * count: open before the first, '|' between them. Returns the new length.
 */
static size_t join_names(char *s, size_t len, unsigned mask, int from, int count,
			 const char *(*name)(int), const char *open)
{
	for (int b = from, first = 1; b < count && len < CELL; b++) {
		if ((mask >> b) & 1) {
			len += (size_t)snprintf(s + len, CELL - len, "%s%s", first ? open : "|",
						name(b));
			first = 0;
		}
	}
	return len;
}

/* "correlation + external id", "unattributed (launched before the trace)". */
static const char *methods_cell(struct kctx *k, const struct krow *r)
{
	size_t len;
	char *s = room(k, CELL);

	s[0] = '\0';
	len = join_names(s, 0, r->methods, 0, OSC_LINK_COUNT, link_text, "");
	len = join_names(s, len, r->host_methods, 1, OSC_LINK_COUNT, link_text, " + ");
	len = join_names(s, len, r->whys, 1, OSC_UNATTRIBUTED_COUNT, why_text, " (");
	if (r->whys && len < CELL)
		snprintf(s + len, CELL - len, ")");
	return s;
}

static const char *stack_cell(struct kctx *k, uint32_t n)
{
	const struct osc_mtree *m = &k->d->m;
	size_t need = 1, len = 0;
	char *s;

	for (uint32_t a = n; a != OSC_NONE; a = m->nodes[a].parent)
		need += strlen(osc_mnode_name(m, &k->d->trace, a)) + 2;
	s = room(k, need);
	s[0] = '\0';
	for (uint32_t dpt = 0; dpt <= m->nodes[n].depth; dpt++) {
		uint32_t a = n;

		while (m->nodes[a].depth > dpt)
			a = m->nodes[a].parent;
		len += (size_t)snprintf(s + len, need - len, "%s%s", dpt ? "$$" : "",
					osc_mnode_name(m, &k->d->trace, a));
	}
	return s;
}

static const char *kcell(const void *ctx, size_t row, size_t col, char *buf, size_t size)
{
	struct kctx *k = (struct kctx *)ctx;
	const struct krow *r = &k->rows[row];
	int64_t ns = 0;

	switch (col) {
	case COL_KERNEL:
		return osc_names_get(&k->d->names, &k->d->trace, r->name);
	case COL_COUNT:
		snprintf(buf, size, "%llu", (unsigned long long)r->count);
		return buf;
	case COL_TOTAL:
		ns = r->total > INT64_MAX ? INT64_MAX : (int64_t)r->total;
		break;
	case COL_MEAN:
		ns = (int64_t)(r->total / (__int128)r->count);
		break;
	case COL_DELAY:
		ns = r->nr_delay ? (int64_t)(r->delay / (__int128)r->nr_delay) : 0;
		break;
	case COL_QUEUE:
		ns = r->nr_delay ? (int64_t)(r->queue / (__int128)r->nr_delay) : 0;
		break;
	case COL_METHOD:
		return methods_cell(k, r);
	case COL_OP:
		return osc_mnode_name(&k->d->m, &k->d->trace, r->node);
	default:
		return stack_cell(k, r->node);
	}
	if (k->us)
		osc_format_us_int(ns, buf, size);
	else
		osc_format_ms(ns, k->decimals, buf, size);
	return buf;
}

static void print_help(void)
{
	puts("usage: opscope kernels [OPTIONS] [TRACE]\n"
	     "\n"
	     "Device kernels (and memcpy/memset) of TRACE with the host op stack that\n"
	     "launched them: one row per kernel name and launching call path, with count,\n"
	     "device time, mean, mean launch delay and queue time, and how each link was\n"
	     "made (correlation id, graph replay, flow, op name, External id, time window).\n"
	     "C++ kernel names are shown demangled.\n"
	     "Kernels no op launched are listed under <unattributed>, the reason in\n"
	     "parentheses after the link (e.g. launched before the trace).\n"
	     "\n"
	     "options:");
	osc_cli_tree_print_options(OSC_TREE_MODE_KERNELS);
	puts("\n"
	     "The text table shows the innermost op; CSV and JSON add the whole stack.\n"
	     "Exit status: 0 on success, 2 on any error.");
}

static enum osc_status run_kernels(const struct osc_cli_tree *o, struct osc_cli_tree_data *d,
				   struct osc_error *err)
{
	struct kctx k = { .d = d, .decimals = o->format == OSC_EXPORT_TABLE ? 3 : 6,
			  .us = !o->legacy };
	struct osc_column shown[NR_COLS];
	struct osc_cli_tree_meta mt;
	struct osc_table table;
	enum osc_status st;

	build_rows(&k, &o->filter);
	osc_cli_tree_meta_init(&mt, o, d, osc_xasprintf("%zu", k.nr),
			       osc_cli_rows_json(k.nr, k.nr, ""));
	memcpy(shown, cols, sizeof(shown));
	if (o->legacy)
		for (int c = 0; c < NR_COLS; c++)
			shown[c].title = legacy_titles[c];
	table = (struct osc_table){
		.cols = shown,
		.nr_cols = o->format == OSC_EXPORT_TABLE ? COL_STACK : NR_COLS,
		.nr_rows = k.nr,
		.cell = kcell,
		.ctx = &k,
	};
	st = osc_cli_tree_write(o, &table, &mt.meta, err);
	if (st == OSC_OK && !osc_export_has_meta(o->format))
		fprintf(stderr, "opscope: using %s\n", d->runs_text);
	osc_cli_tree_meta_release(&mt);
	free(k.rows);
	free(k.text);
	return st;
}

int osc_cmd_kernels(int argc, char **argv)
{
	return osc_cli_tree_main(argc, argv, OSC_TREE_MODE_KERNELS, print_help, run_kernels);
}
