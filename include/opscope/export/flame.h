/*
 * flame.h - folded stacks of the merged host call tree, for flame graph
 * tools (flamegraph.pl, inferno, speedscope): one line per distinct stack,
 * `frame;frame;frame VALUE`, sorted by stack (bytewise), roots first.
 *
 * Values are whole microseconds. So that they add up to the total, each
 * line's value is the difference of the rounded running sums (in ns, over
 * the lines in their sorted order; rounded half up to µs): the values sum to
 * the rounded total exactly, and a line whose value rounds to 0 is left
 * out. Frames are names as in the trace with ';' written as ':' (it splits
 * frames) and each character a terminal must not get raw (osc_text_unsafe:
 * controls such as CR and LF, which split lines, and bidi overrides) as a
 * space; an empty name is written "<unnamed>".
 */
#ifndef OPSCOPE_FLAME_H
#define OPSCOPE_FLAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/correlate.h"
#include "opscope/analysis/demangle.h"
#include "opscope/base/status.h"
#include "opscope/model/filter.h"

enum osc_flame_value {
	OSC_FLAME_HOST,   /* the self (exclusive) host time of each call path */
	OSC_FLAME_DEVICE, /* the device time each call path launched itself */
};

struct osc_flame_opts {
	enum osc_flame_value value;
	bool kernels;                  /* device: the device event's name as a leaf frame */
	const struct osc_filter *filter; /* keep the stacks with a frame passing it (NULL or
					    empty: all): an op's name as in the trace, or
					    with kernels the device event's name as shown */
	const struct osc_names *names; /* kernel names (NULL: as in the trace) */
};

/* The folded stacks, built by osc_flame_build. */
struct osc_flame {
	char **stacks;   /* sorted, distinct */
	int64_t *ns;     /* each stack's value before rounding, ns */
	size_t nr, alloc;
	int64_t total;   /* sum of ns */
};

/*
 * The folded stacks of merged tree m (of trace t, with correlation corr) as
 * o asks, into f (set up here; release with osc_flame_release). Host: a
 * stack per node with self time. Device: a stack per node with device
 * events of its own (the synthetic <unattributed> root included), or with
 * o->kernels one per (node, device event name).
 */
void osc_flame_build(const struct osc_trace *t, const struct osc_mtree *m,
		     const struct osc_correlation *corr, const struct osc_flame_opts *o,
		     struct osc_flame *f);
void osc_flame_release(struct osc_flame *f);

/* Write f as folded lines (see the top); OSC_IO with subject "output" when writing fails. */
enum osc_status osc_flame_write(FILE *out, const struct osc_flame *f, struct osc_error *err);

#endif
