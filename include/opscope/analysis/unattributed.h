/*
 * unattributed.h - why a device event has no host op (correlate.h says
 * how the links are made; aggregate.h sums device time by these reasons).
 */
#ifndef OPSCOPE_UNATTRIBUTED_H
#define OPSCOPE_UNATTRIBUTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/model/level.h"

struct osc_agg;

/*
 * X-macro: why a device event has no host node, with the words shown in
 * outputs. CUPTI and roctracer number a process's calls in order, so an
 * id below every launch's in the trace was launched before the trace
 * began (by the step before the profiler's window) and ran inside it:
 *   BEFORE_TRACE  a correlation id no launch has, below every launch's;
 *   NOT_IN_TRACE  an id no launch or host node has, among the launches';
 *   NO_LINK       no id (or id 0, as ROCm's communication kernels have) and
 *                 no flow, nor an ORT node of its op name;
 *   OUTSIDE_OPS   its launch is in the trace, inside no op.
 */
#define OSC_UNATTRIBUTED_LIST(_)                           \
	_(NONE, "attributed")                              \
	_(BEFORE_TRACE, "launched before the trace")       \
	_(NOT_IN_TRACE, "launch not in the trace")         \
	_(NO_LINK, "no correlation id or flow")            \
	_(OUTSIDE_OPS, "launched outside any op")

enum osc_unattributed {
#define OSC_UNATTRIBUTED_ENUM(name, text) OSC_UNATTRIBUTED_##name,
	OSC_UNATTRIBUTED_LIST(OSC_UNATTRIBUTED_ENUM)
#undef OSC_UNATTRIBUTED_ENUM
	OSC_UNATTRIBUTED_COUNT
};

/* The words of reason u ("launched before the trace"); "unknown" out of range. */
const char *osc_unattributed_name(enum osc_unattributed u);

/* Level l's rows hold every attributed device event once (op, shape, path). */
bool osc_level_sums_device(enum osc_level l);

/* The device time of a (host level) no op launched, ns: its reasons summed. */
int64_t osc_agg_unattributed(const struct osc_agg *a);

/*
 * The reasons of a's unattributed device time, largest first, e.g.
 * "launched before the trace 13441.318 us (501 events)", "; " between
 * them; "none" when there is none.
 */
void osc_agg_unattributed_text(const struct osc_agg *a, char *buf, size_t size);

#endif
