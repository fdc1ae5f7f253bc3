/*
 * opcost.h - what each host op instance costs, measure by measure, and the
 * time a set of intervals covers.
 *
 * The measures (aggregate.h's columns sum them over a row's instances):
 * - host: the instance's duration, inclusive of everything nested in it;
 * - self: its exclusive host time (calltree.h's self time): the instants
 *   when it is the innermost active op of its thread. The self times of a
 *   thread add up to the union of its ops' windows, never more;
 * - device: the summed duration of the device events (kernels, memcpy,
 *   memset) the correlation (correlate.h) links to this instance, each one
 *   counted once, at the innermost op that launched it (TraceLens's leaf op:
 *   nothing is counted twice);
 * - device_total: device of the instance plus that of every op nested in it.
 * kernels counts the device events of `device`.
 */
#ifndef OPSCOPE_OPCOST_H
#define OPSCOPE_OPCOST_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/model/trace.h"

struct osc_op_cost {
	int64_t self;       /* ns */
	int64_t dev;        /* ns, device events it launched itself */
	int64_t dev_total;  /* ns, the same over its subtree */
	uint64_t kernels;   /* device events it launched itself */
};

/*
 * The costs of the nodes of tree c (of trace t) into out (c->nr entries),
 * with device time from corr, a correlation of the same tree (NULL: no
 * device time). Sums saturate instead of overflowing.
 */
void osc_op_costs(const struct osc_trace *t, const struct osc_calltree *c,
		  const struct osc_correlation *corr, struct osc_op_cost *out);

/* A half-open interval [from, to) of time, ns. */
struct osc_span {
	int64_t from, to;
};

/*
 * The union of the windows of t's device events (kernels, memcpy, memset)
 * as disjoint spans in time order: a new array into *out (free it); returns
 * how many.
 */
size_t osc_device_spans(const struct osc_trace *t, struct osc_span **out);

/* Time that the disjoint, ordered spans s[0 .. n) cover within [from, to), ns. */
int64_t osc_spans_within(const struct osc_span *s, size_t n, int64_t from, int64_t to);

#endif
