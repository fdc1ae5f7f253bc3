/*
 * correlate.h - which host op caused each device event, and how we know.
 *
 * Two links are made, each with the method that found it:
 *
 * device event -> launch (the runtime call that launched it):
 *   CORRELATION  Kineto args.correlation equal to a runtime call's;
 *   GRAPH        the same, and that launch started more than one device event
 *                (a CUDA/HIP graph replay): all of them belong to it;
 *   FLOW         no correlation id: an ac2g / async_gpu flow whose end (f) sits
 *                on the device event (same thread and ts) and whose start (s)
 *                lies inside a runtime call;
 * device event -> host node directly (no runtime call):
 *   CORRELATION  ORT: a host node with the same correlation_id;
 *   OP_NAME      ORT: the host node with the same op_name (args.op_name) whose
 *                window is nearest to the device event's start x: [s, e) is
 *                at distance max(s - x, x - e, 0), so 0 when it holds x or
 *                ends at x (a zero-length node holds nothing: |x - s|);
 *                ties: the earlier node in model order. Nodes of one
 *                op_name may overlap (ORT's parallel executor); all count;
 * launch -> host node:
 *   EXTERNAL_ID  Kineto "External id" equal to a host node's;
 *   WINDOW       the innermost host node of the launch's thread whose window
 *                holds the launch's start (the seed tools' rule).
 * A device event with neither link is unattributed; one whose launch has no
 * host node is counted apart. Nothing is dropped: every selected device event
 * has a link record, and one without a host node says why (OSC_UNATTRIBUTED).
 *
 * Launch delay is device start - launch start. Queue time is device start -
 * max(launch end, end of the previous device event on the same stream/thread),
 * at least 0. Both are only known for device events with a launch.
 */
#ifndef OPSCOPE_CORRELATE_H
#define OPSCOPE_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/unattributed.h"
#include "opscope/model/trace.h"

/* X-macro: link methods with the name shown in outputs. */
#define OSC_LINK_LIST(_)                      \
	_(NONE, "unattributed")               \
	_(CORRELATION, "correlation")         \
	_(GRAPH, "graph replay")              \
	_(FLOW, "flow")                       \
	_(OP_NAME, "op name")                 \
	_(EXTERNAL_ID, "external id")         \
	_(WINDOW, "time window")

enum osc_link {
#define OSC_LINK_ENUM(name, text) OSC_LINK_##name,
	OSC_LINK_LIST(OSC_LINK_ENUM)
#undef OSC_LINK_ENUM
	OSC_LINK_COUNT
};

const char *osc_link_name(enum osc_link l);

/* A runtime call (selected by the launch categories) and its host node. */
struct osc_launch_link {
	uint32_t event;      /* index into trace->events */
	uint32_t node;       /* instance tree node, or OSC_NONE */
	uint8_t method;      /* enum osc_link: EXTERNAL_ID, WINDOW or NONE */
	uint32_t nr_device;  /* device events it launched */
};

/* A device event (selected by the device categories) and where it came from. */
struct osc_dev_link {
	uint32_t event;      /* index into trace->events */
	uint32_t launch;     /* index into corr->launches, or OSC_NONE */
	uint32_t node;       /* instance tree node, or OSC_NONE (unattributed) */
	uint8_t method;      /* enum osc_link of the device -> launch/host step */
	uint8_t host_method; /* enum osc_link of the launch -> host step (NONE without launch) */
	uint8_t unattributed; /* enum osc_unattributed: why node is OSC_NONE (else NONE) */
	int64_t delay;       /* launch delay, ns; 0 without launch */
	int64_t queue;       /* queue time, ns; 0 without launch */
};

struct osc_correlation {
	struct osc_launch_link *launches; /* in model order */
	size_t nr_launches;
	struct osc_dev_link *devs;        /* in model order */
	size_t nr_devs;
	uint32_t *launch_of;   /* per event: index into launches, or OSC_NONE */
	uint32_t *dev_of;      /* per event: index into devs, or OSC_NONE */
	uint64_t by_method[OSC_LINK_COUNT]; /* device events per method (NONE: no link at all) */
	uint64_t no_host;      /* device events whose launch has no host node */
	uint64_t by_unattributed[OSC_UNATTRIBUTED_COUNT]; /* device events per reason
							     (NONE: with a host node) */
};

/*
 * Link the device events of t selected by device to their launches (selected
 * by launch) and to the nodes of tree c (built from the same trace).
 */
void osc_correlate(const struct osc_trace *t, const struct osc_calltree *c,
		   const struct osc_catsel *launch, const struct osc_catsel *device,
		   struct osc_correlation *out);
void osc_correlation_release(struct osc_correlation *corr);

/*
 * The host tree of the events ops selects, and the correlation of the
 * device events (device) with their launches (launch) and that tree. A
 * launch that started device work inside no op (a CUDA or HIP graph
 * replayed from Python, with no cpu_op around it) makes the innermost
 * python_function or user_annotation event around it an op too, so its
 * device time is not left unattributed: ops->also then marks those frames
 * (ops owns the mask) and both are built again with them. Release tree and
 * corr as usual.
 */
void osc_host_analysis(const struct osc_trace *t, struct osc_catsel *ops,
		       const struct osc_catsel *launch, const struct osc_catsel *device,
		       struct osc_calltree *tree, struct osc_correlation *corr);

#endif
