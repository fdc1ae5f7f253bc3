/*
 * optable.h - one row per op instance: Intel Neural Engine's per-op CSV.
 *
 * Neural Engine's profiler writes a CSV with one line per operator of the
 * graph: type, post op, name, input/output tensor names, shapes and dtypes,
 * weight shape, weight sparse ratio, sparse support and latency. This is the
 * same table from a trace (`opscope report --by op-instance`), for Neural
 * Engine and, where the fields exist, ONNX Runtime and other traces.
 *
 * Definitions:
 * - a row is an op instance: host op events (the op level's events, after
 *   runs and filter) with the same event name (ORT's "<node>_kernel_time"
 *   shows as "<node>"); rows come in the order of their first event;
 * - fields come from the first event: input shapes and dtypes from the
 *   model's shape text ("fp32(64x1024),fp32(256)" -> "64x1024;256" and
 *   "fp32;fp32"), outputs from the args (NE output_type/output_shape, ORT
 *   output_type_shape), tensor names from NE's args (';'-separated), post op
 *   from NE's attributes "append_op:X";
 * - weight_shape: the second input's shape for InnerProduct, MatMul, Gemm and
 *   FusedGemm (any case); sparse_support: TRUE for InnerProduct (Neural
 *   Engine's sparse kernels), else FALSE; weight_sparse_ratio: args
 *   weight_sparse_ratio when present, else empty (a trace has no weights);
 * - latency_ms: mean duration over the row's events, in ms with 6 decimals.
 */
#ifndef OPSCOPE_OPTABLE_H
#define OPSCOPE_OPTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/columns.h"
#include "opscope/model/filter.h"
#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

/* X-macro: the columns, in Neural Engine's order. */
#define OSC_OPTABLE_COL_LIST(_)                        \
	_(TYPE, "operator_type")                       \
	_(POST_OP, "post_op")                          \
	_(NAME, "operator_name")                       \
	_(IN_NAME, "input_tensor_name")                \
	_(IN_SHAPE, "input_shape")                     \
	_(IN_DTYPE, "input_dtype")                     \
	_(OUT_NAME, "output_tensor_name")              \
	_(OUT_SHAPE, "output_shape")                   \
	_(OUT_DTYPE, "output_dtype")                   \
	_(WEIGHT_SHAPE, "weight_shape")                \
	_(SPARSE_RATIO, "weight_sparse_ratio")         \
	_(SPARSE_SUPPORT, "sparse_support")            \
	_(COUNT, "count")                              \
	_(LATENCY, "latency_ms")

enum osc_optable_col {
#define OSC_OPTABLE_COL_ENUM(name, text) OSC_OPTABLE_##name,
	OSC_OPTABLE_COL_LIST(OSC_OPTABLE_COL_ENUM)
#undef OSC_OPTABLE_COL_ENUM
	OSC_OPTABLE_COL_COUNT
};

struct osc_optable_row {
	char *text[OSC_OPTABLE_LATENCY]; /* the text columns (TYPE .. SPARSE_SUPPORT) */
	uint64_t count;
	int64_t total;                   /* ns */
};

struct osc_optable {
	struct osc_optable_row *rows;
	size_t nr;
};

/* Build the table of t's op events in the selected runs (sel NULL: all) passing f (may be NULL). */
void osc_optable_build(const struct osc_trace *t, const struct osc_runs *runs,
		       const struct osc_runsel *sel, const struct osc_filter *f,
		       struct osc_optable *out);
void osc_optable_release(struct osc_optable *o);

const struct osc_column *osc_optable_columns(size_t *nr);
/* Text of cell (row, col) into buf; returns buf or the row's stored text. */
const char *osc_optable_cell(const struct osc_optable *o, size_t row, size_t col, char *buf,
			     size_t size);

#endif
