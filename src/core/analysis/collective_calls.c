/* collective_calls.c - the collective calls of one rank (collective_skew.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/collective.h"
#include "opscope/analysis/collective_skew.h"
#include "opscope/analysis/gpu.h"
#include "opscope/analysis/nccl_kernel.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"

/*
 * The calls being gathered, per call what its kernels' names say so far,
 * and per host-tree node the call it is (or OSC_NONE).
 */
struct gather {
	struct osc_sum_call *calls;
	struct osc_nccl_kernel *nccl;
	size_t nr, alloc, alloc_nccl;
	uint32_t *call_of_node;
};

static struct osc_sum_call *add(struct gather *g)
{
	struct osc_sum_call *c;

	OSC_GROW(g->calls, g->nr + 1, g->alloc);
	OSC_GROW(g->nccl, g->nr + 1, g->alloc_nccl);
	g->nccl[g->nr] = (struct osc_nccl_kernel){ NULL, NULL };
	c = &g->calls[g->nr++];
	memset(c, 0, sizeof(*c));
	c->ts = -1;
	return c;
}

/* Widen call i's device work by device event e of t. */
static void take(const struct osc_trace *t, struct gather *g, uint32_t i,
		 const struct osc_event *e)
{
	struct osc_sum_call *c = &g->calls[i];
	int64_t e_end = osc_event_end(e); /* saturated: a trace may hold any times */
	int64_t end = c->ts < 0 ? e_end : osc_sat_add(c->ts, c->dur);

	if (c->ts < 0 || e->ts < c->ts)
		c->ts = e->ts;
	if (e_end > end)
		end = e_end;
	c->dur = end - c->ts;
	if (e->kind == OSC_KIND_KERNEL)
		osc_nccl_take(&g->nccl[i], osc_trace_str(t, e->name));
}

/* A call per record_param_comms op with a "Collective name". */
static void op_calls(const struct osc_trace *t, const struct osc_runs *runs,
		     struct osc_summary *s, struct gather *g)
{
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	osc_str rpc = osc_strtab_find(&t->strs, "record_param_comms",
				      strlen("record_param_comms"));
	size_t nb, buf_alloc = 0;
	const struct osc_brief *b = osc_trace_briefs(t, OSC_KIND_HOST_OP, &nb);
	char *buf = NULL;

	for (size_t j = 0; rpc != OSC_STR_NONE && j < nb; j++) {
		uint32_t ev = b[j].event, n = tree->node_of[ev];
		struct osc_collective_args a;
		struct osc_sum_call *c;

		if (b[j].name != rpc || n == OSC_NONE ||
		    !osc_collective_args_read(t, ev, &buf, &buf_alloc, &a))
			continue;
		g->call_of_node[n] = (uint32_t)g->nr;
		c = add(g);
		c->name = osc_summary_intern(s, a.name);
		c->dtype = osc_summary_intern(s, a.dtype);
		if (!*a.group && a.group_size >= 0)
			snprintf(a.group, sizeof(a.group), "%lld", (long long)a.group_size);
		c->group = osc_summary_intern(s, a.group);
		c->group_size = a.group_size;
		c->bytes = a.bytes;
		c->host_ts = t->events[ev].ts;
		c->run = runs->run_of[ev];
	}
	free(buf);
}

/* The stream of device event e as a group name: "stream 7". */
static osc_str stream_group(const struct osc_trace *t, const struct osc_event *e,
			    struct osc_summary *s)
{
	char text[80];
	int32_t stream = e->kernel != OSC_NONE ? t->kernels[e->kernel].stream : -1;

	if (stream >= 0)
		snprintf(text, sizeof(text), "stream %d", stream);
	else
		snprintf(text, sizeof(text), "stream %s",
			 osc_trace_str(t, t->threads[e->thread].tid));
	return osc_summary_intern(s, text);
}

/*
 * Give each device event launched by a call (or by an op nested in it: the
 * innermost call around its launching op) to that call; an NCCL/RCCL kernel
 * that no call launched is a call of its own.
 */
static void device_work(const struct osc_trace *t, const struct osc_runs *runs,
			struct osc_summary *s, struct gather *g)
{
	const struct osc_calltree *tree = osc_trace_host_tree(t);
	const struct osc_correlation *corr = osc_trace_correlation(t);
	uint8_t *comm = osc_xcalloc(t->strs.count ? t->strs.count : 1, 1);

	for (size_t i = 0; i < corr->nr_devs; i++) {
		const struct osc_event *e = &t->events[corr->devs[i].event];
		uint32_t call = osc_collective_owner(tree, g->call_of_node, corr->devs[i].node);
		struct osc_sum_call *c;

		if (call != OSC_NONE) {
			take(t, g, call, e);
			continue;
		}
		if (e->kind != OSC_KIND_KERNEL || !osc_gpu_name_is_comm(t, e->name, comm))
			continue;
		c = add(g);
		c->name = osc_summary_intern(s, osc_trace_str(t, e->name));
		c->dtype = osc_summary_intern(s, "");
		c->group = stream_group(t, e, s);
		c->group_size = -1;
		c->bytes = NAN;
		c->host_ts = e->ts;
		c->run = runs->run_of[corr->devs[i].event];
		take(t, g, (uint32_t)(g->nr - 1), e);
	}
	free(comm);
}

/* Calls by host_ts; ties by device start, group and name (qsort is not stable). */
static int by_host_ts(const void *pa, const void *pb)
{
	const struct osc_sum_call *a = pa, *b = pb;

	if (a->host_ts != b->host_ts)
		return a->host_ts < b->host_ts ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->name > b->name) - (a->name < b->name);
}

/* The next seq of a group, while numbering. */
struct counter {
	osc_str group;
	uint32_t next;
};

void osc_summary_add_calls(const struct osc_trace *t, const struct osc_runs *runs,
			   struct osc_summary *s)
{
	size_t nodes = osc_trace_host_tree(t)->nr + 1;
	struct gather g = { 0 };
	struct counter *seq = NULL;
	size_t nr_groups = 0, alloc_groups = 0;

	g.call_of_node = osc_xmalloc(nodes * sizeof(*g.call_of_node));
	memset(g.call_of_node, 0xff, nodes * sizeof(*g.call_of_node)); /* OSC_NONE */
	op_calls(t, runs, s, &g);
	if (osc_trace_has_device(t))
		device_work(t, runs, s, &g);
	for (size_t i = 0; i < g.nr; i++) {
		const struct osc_nccl_kernel *k = &g.nccl[i];

		g.calls[i].algorithm = osc_summary_intern(s, k->algorithm ? k->algorithm : "");
		g.calls[i].protocol = osc_summary_intern(s, k->protocol ? k->protocol : "");
	}
	if (g.nr > 1)
		qsort(g.calls, g.nr, sizeof(*g.calls), by_host_ts);
	for (size_t i = 0; i < g.nr; i++) {
		size_t k = 0;

		while (k < nr_groups && seq[k].group != g.calls[i].group)
			k++;
		if (k == nr_groups) {
			OSC_GROW(seq, nr_groups + 1, alloc_groups);
			seq[nr_groups++] = (struct counter){ g.calls[i].group, 0 };
		}
		g.calls[i].seq = seq[k].next++;
		osc_summary_add_call(s, &g.calls[i]);
	}
	free(seq);
	free(g.calls);
	free(g.nccl);
	free(g.call_of_node);
}
