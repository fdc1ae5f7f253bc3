/*
 * tree_fixture.h - small multi-thread traces for the call tree and
 * correlation tests: like trace_fixture.h, plus a thread, a phase, an
 * External id and a category per event.
 */
#ifndef OPSCOPE_TEST_TREE_FIXTURE_H
#define OPSCOPE_TEST_TREE_FIXTURE_H

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "trace_fixture.h"

/* TX(name, KIND, thread, ts, dur, corr, ext, op): a complete event (ids 0 = none). */
#define TX(n, k, th, ts, dur, corr, ext, op) \
	{ (n), OSC_KIND_##k, OSC_PH_COMPLETE, (th), (ts), (dur), (corr), (ext), (op) }
/* Flow start / end with id fid. */
#define TS(th, ts, fid) { "ac2g", OSC_KIND_FLOW, OSC_PH_FLOW_START, (th), (ts), 0, (fid), 0, NULL }
#define TF(th, ts, fid) { "ac2g", OSC_KIND_FLOW, OSC_PH_FLOW_END, (th), (ts), 0, (fid), 0, NULL }

struct tx_event {
	const char *name;
	enum osc_kind kind;
	enum osc_phase ph;
	int thread; /* 0, 1, 2 ...: tid "0", "1" ... of pid "1" */
	int64_t ts, dur, corr, ext;
	const char *op;
};

static inline void tx_build(struct osc_trace *t, enum osc_format format,
			    const struct tx_event *ev, size_t n)
{
	osc_trace_init(t);
	t->format = format;
	for (size_t i = 0; i < n; i++) {
		char tid[16];
		struct osc_event e;
		struct osc_event_extra x;

		snprintf(tid, sizeof(tid), "%d", ev[i].thread);
		e = (struct osc_event){
			.ts = ev[i].ts,
			.dur = ev[i].dur,
			.corr_id = osc_trace_id(t, ev[i].corr ? ev[i].corr : OSC_NO_ID),
			.ext = osc_trace_id(t, ev[i].ext ? ev[i].ext : OSC_NO_ID),
			.name = fx_str(t, ev[i].name),
			.cat = fx_str(t, osc_kind_name(ev[i].kind)),
			.thread = osc_trace_thread(t, fx_str(t, "1"), fx_str(t, tid)),
			.kernel = OSC_NONE,
			.ph = (uint8_t)ev[i].ph,
			.kind = (uint8_t)ev[i].kind,
		};
		x = (struct osc_event_extra){ .op = fx_str(t, ev[i].op ? ev[i].op : ev[i].name) };
		osc_trace_add_event(t, &e, &x, NULL, 0);
	}
	osc_trace_sort(t);
	osc_trace_split_flows(t); /* as a loader does */
}

/* The analysis of one fixture, with default category selections. */
struct tx_analysis {
	struct osc_trace t;
	struct osc_catsel host, launch, device;
	struct osc_calltree c;
	struct osc_correlation corr;
	struct osc_mtree m;
};

static inline void tx_analyse(struct tx_analysis *a, enum osc_format format,
			      const struct tx_event *ev, size_t n)
{
	struct osc_error err;

	tx_build(&a->t, format, ev, n);
	osc_catsel_parse(&a->host, &a->t, NULL, OSC_CATSEL_HOST_DEFAULT, "host", &err);
	osc_catsel_parse(&a->launch, &a->t, NULL, OSC_CATSEL_LAUNCH_DEFAULT, "launch", &err);
	osc_catsel_parse(&a->device, &a->t, NULL, OSC_CATSEL_DEVICE_DEFAULT, "device", &err);
	osc_calltree_build(&a->t, &a->host, &a->c);
	osc_correlate(&a->t, &a->c, &a->launch, &a->device, &a->corr);
	osc_mtree_build(&a->t, &a->c, &a->corr, NULL, NULL, OSC_STR_NONE, &a->m);
}

static inline void tx_release(struct tx_analysis *a)
{
	osc_mtree_release(&a->m);
	osc_correlation_release(&a->corr);
	osc_calltree_release(&a->c);
	osc_catsel_release(&a->host);
	osc_catsel_release(&a->launch);
	osc_catsel_release(&a->device);
	osc_trace_release(&a->t);
}

/* Instance node of the first event named name. */
static inline uint32_t tx_node(const struct tx_analysis *a, const char *name)
{
	uint32_t n = a->c.node_of[fx_find(&a->t, name)];

	cr_assert_neq(n, OSC_NONE, "'%s' is not a tree node", name);
	return n;
}

/* Name of instance node n's parent, "-" for a root. */
static inline const char *tx_parent(const struct tx_analysis *a, uint32_t n)
{
	uint32_t p = a->c.nodes[n].parent;

	return p == OSC_NONE ? "-" : osc_trace_str(&a->t, a->t.events[a->c.nodes[p].event].name);
}

/* Merged node by $$-path, OSC_NONE if absent. */
static inline uint32_t tx_mnode(const struct tx_analysis *a, const char *path)
{
	char buf[1024];

	for (uint32_t n = 0; n < a->m.nr; n++)
		if (!strcmp(osc_mtree_path(&a->m, &a->t, n, buf, sizeof(buf)), path))
			return n;
	return OSC_NONE;
}

#endif
