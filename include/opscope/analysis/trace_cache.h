/*
 * trace_cache.h - indexes and analyses that depend on the trace alone, built
 * once on first use and shared by every later query.
 *
 * An answer on a big trace must not redo O(N) work that no run selection,
 * filter or level changes: the events of each kind, the host call tree and
 * the correlation with the default categories, and the host op that
 * launched each device event.
 * The events of a kind come as briefs: the fields a query reads, packed, so
 * a scan streams through memory instead of touching one 64-byte event (a
 * cache miss) per hit.
 * Each is built the first time it is asked for, under its own lock, so
 * worker threads may ask at the same time. The cache itself is made on the
 * first question and kept with the trace (trace.h's osc_trace_derived),
 * which drops it when events change and frees it with the trace. The pointers returned stay valid
 * until events are added or sorted again, or the trace is released.
 */
#ifndef OPSCOPE_TRACE_CACHE_H
#define OPSCOPE_TRACE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/gpu.h"
#include "opscope/analysis/opcost.h"
#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/* What a query reads of an event: 32 bytes. */
struct osc_brief {
	int64_t dur;
	uint32_t event;      /* index into trace->events */
	osc_str name, op;    /* as in struct osc_event */
	union {
		osc_str shape;   /* host events: input shapes */
		uint32_t kernel; /* device events: index into trace->kernels, or OSC_NONE */
	};
	uint32_t op_shape;   /* host ops: a dense id of (op, shape), below
				osc_trace_nr_op_shapes(); other kinds: OSC_NONE */
};

/* The briefs of the events of kind k, in model order; *nr of them. */
const struct osc_brief *osc_trace_briefs(const struct osc_trace *t, enum osc_kind k, size_t *nr);

/* How many distinct (op, shape) pairs the host ops have (their op_shape ids). */
size_t osc_trace_nr_op_shapes(const struct osc_trace *t);

/*
 * Choose which events are ops for every later query (the host tree, the
 * op briefs, the host levels): the complete events of the comma-separated
 * categories in cats ("cpu_op,user_annotation,python_function"), run markers
 * excepted; NULL: the default, kind HOST_OP (cpu_op, ORT nodes, ...). Either
 * way the python_function or user_annotation frame around a launch of device
 * work that no op holds becomes an op too (osc_host_analysis). Drops what
 * was built: call it while no other thread uses the trace. OSC_USAGE
 * (subject "--ops") for an empty name.
 */
enum osc_status osc_trace_select_ops(struct osc_trace *t, const char *cats,
				     struct osc_error *err);

/* The events that are ops (osc_trace_select_ops), launching frames included. */
const struct osc_catsel *osc_trace_ops(const struct osc_trace *t);

/*
 * The instance tree of the ops (osc_trace_ops). The briefs of kind HOST_OP
 * are those of the ops too, whatever their kind.
 */
const struct osc_calltree *osc_trace_host_tree(const struct osc_trace *t);

/*
 * The host tree merged by call path over every event, with no run selection
 * and no device links (calltree.h's merged tree): the path of each instance.
 */
const struct osc_mtree *osc_trace_host_paths(const struct osc_trace *t);

/*
 * The correlation (correlate.h) of the host tree's nodes with the runtime
 * calls (OSC_CATSEL_LAUNCH_DEFAULT) and device work (OSC_CATSEL_DEVICE_DEFAULT).
 */
const struct osc_correlation *osc_trace_correlation(const struct osc_trace *t);

/*
 * Per event: the host op (kind HOST_OP) that launched a device event, by
 * that correlation; OSC_NONE for the rest.
 */
const uint32_t *osc_trace_launchers(const struct osc_trace *t);

struct osc_categories;

/*
 * Per event its category (category.h's osc_categorize, with the launchers
 * when t has device events) under the user's rules (NULL: the built-in table
 * only), built on the first call and kept for those rules: NULL when asked
 * with other rules than the first call's (categorize on your own then).
 */
const uint8_t *osc_trace_categories(const struct osc_trace *t, const struct osc_categories *user);

/* True when t has device events (kernels, memcpy or memset). */
bool osc_trace_has_device(const struct osc_trace *t);

/*
 * Per node of the host tree (osc_trace_host_tree): the instance's costs
 * (opcost.h), device time from osc_trace_correlation when the trace has
 * device events.
 */
const struct osc_op_cost *osc_trace_op_costs(const struct osc_trace *t);

/* The union of the device events' windows (osc_device_spans); *nr spans. */
const struct osc_span *osc_trace_device_spans(const struct osc_trace *t, size_t *nr);

/* The nn.Module hierarchy (module.h). */
struct osc_modules;
const struct osc_modules *osc_trace_modules(const struct osc_trace *t);

/* The streams and devices of the GPU breakdown (gpu.h), built once. */
const struct osc_gpu_index *osc_trace_gpu_index(const struct osc_trace *t);

struct osc_call_works;

/*
 * The roofline work of the host-op calls that need their args (roofline.h's
 * osc_call_works: convolution and attention), worked out once.
 */
const struct osc_call_works *osc_trace_call_works(const struct osc_trace *t);

struct osc_timeline;

/*
 * The lanes of the events by time (timeline.h), built on the first call
 * (not by osc_trace_cache_warm: only the timeline view needs them).
 */
const struct osc_timeline *osc_trace_timeline(const struct osc_trace *t);

struct osc_tree_index;

/*
 * The host tree's links by node (tree_index.h), built on the first call:
 * what merges the subtrees of some calls (osc_mtree_build_subtree).
 */
const struct osc_tree_index *osc_trace_tree_index(const struct osc_trace *t);

/* The trace's strings in byte order (osc_strtab_sort). */
struct osc_text_order {
	osc_str *sorted; /* every string id, in order */
	uint32_t *place; /* per string id: its index in sorted */
	size_t nr;       /* the strings (the loaders intern them all before any query) */
};

/* The trace's strings in byte order, sorted once (the sort of text columns). */
const struct osc_text_order *osc_trace_text_order(const struct osc_trace *t);

/*
 * How many of t's strings (o: its text order) are at most text, bytewise:
 * the place a text the trace may not hold ("unknown", "<unattributed>")
 * takes among them.
 */
size_t osc_text_order_rank(const struct osc_trace *t, const struct osc_text_order *o,
			   const char *text);

/*
 * Build the briefs of host ops and device events (kernels, memcpy, memset:
 * every table's device-time base reads them), the host tree and paths, the
 * correlation, the launchers, the tree's index, the op costs, the GPU index
 * and the device's busy spans, the module hierarchy, the calls' roofline
 * work and the strings' order now (e.g. on a spare thread right after
 * loading, so the first answer that needs them does not wait). The
 * categories need the user's rules: warm them with osc_trace_categories.
 */
void osc_trace_cache_warm(const struct osc_trace *t);

#endif
