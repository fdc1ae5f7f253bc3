/*
 * roofline.h - the work an op does, from its name and input shapes, and the
 * peaks of known devices: FLOPs and bytes per call for the roofline columns.
 *
 * An op's input shapes are its shape string (trace.h's osc_event.shape):
 * one "type(dims)" item per argument, dims 'x'-joined, as the loaders build
 * it from Kineto's "Input Dims" + "Input type" (or ORT's input_type_shape).
 * An argument is a tensor when its type is an element type below and its
 * dims are all integers ("()" is a 0-dim tensor of one element); "Scalar()",
 * "ScalarList()", "()" and tensor lists are not. Element sizes: double,
 * long int, int64, complex<float> 8; float, int, int32 4; c10::Half,
 * c10::BFloat16, float16, bfloat16, short int 2; c10::Float8_*, signed
 * char, unsigned char, int8, uint8, bool 1 (complex<double> 16).
 *
 * Convolution and attention also need what the shape string lacks: the
 * call's Kineto "Concrete Inputs" (one string per argument, e.g. "[2, 2]"
 * for a stride, "True" for is_causal), read from its args when the work is
 * asked (osc_work_needs_args), not kept by the loader: a few ops need them,
 * and the event struct stays 48 bytes.
 *
 * Formulas per call (n(T) = elements of T, b(T) = its bytes):
 * - GEMM, A (M x K) times B (K x N):
 *   aten::mm(A, B)                 flops 2MNK,        bytes b(A)+b(B)+b(out)
 *   aten::addmm(C, A, B)           flops 2MNK + MN,   bytes + b(C)
 *   aten::bmm(A, B), batch P       flops 2PMNK,       bytes b(A)+b(B)+b(out)
 *   aten::baddbmm(C, A, B)         flops 2PMNK + PMN, bytes + b(C)
 *   aten::matmul / MatMul(A, B)    numpy rules: a 1-D A is 1 x K, a 1-D B is
 *                                  K x 1; leading dims broadcast to P;
 *                                  flops 2PMNK, bytes b(A)+b(B)+b(out)
 *   aten::linear(X, W[, bias])     X (... x K), W (N x K), M = n(X)/K;
 *                                  flops 2MNK (+ MN with a bias),
 *                                  bytes b(X)+b(W)+b(out) (+ b(bias))
 *   out has A's (X's) element type; the bias add counts one FLOP per output
 *   element, as TraceLens's GEMM model; the bias read is its real size.
 * - attention, Q (B x H x Lq x D), K (B x Hk x Lk x D), V (B x Hk x Lk x Dv):
 *   aten::scaled_dot_product_attention, aten::_scaled_dot_product_*_attention
 *   (and aten::_flash_attention_forward, whose tensors are B x L x H x D):
 *   flops 2*B*H*Lq*Lk*D + 2*B*H*Lq*Lk*Dv (QK^T and PV; softmax not counted),
 *   halved when the call's Concrete Inputs say is_causal=True (Lq*Lk/2
 *   pairs, the diagonal not counted apart, as TraceLens; a causal call with
 *   Lq != Lk is unknown: kernels align its mask differently); bytes
 *   b(Q)+b(K)+b(V)+b(out), out B x H x Lq x Dv. No Concrete Inputs, or an
 *   is_causal that is not True or False: unknown. dropout_p is not read:
 *   the mask is drawn in the kernel and, like softmax, not counted.
 * - convolution (aten:: conv1d conv2d conv3d convolution _convolution
 *   convolution_overrideable conv_transpose1d/2d/3d cudnn_convolution
 *   cudnn_convolution_transpose miopen_convolution
 *   miopen_depthwise_convolution miopen_convolution_transpose
 *   mkldnn_convolution), X (N x Cin x spatial; unbatched Cin x spatial is
 *   N = 1), W (Cout x Cin/g x kernel; transposed Cin x Cout/g x kernel),
 *   optional bias (Cout): stride, padding, dilation, groups g, transposed
 *   and output_padding are read from the call's Concrete Inputs at the
 *   positions of each op's ATen schema (a one-item list applies to every
 *   spatial dim). Output per spatial dim: floor((in + 2*pad - dil*(k-1) -
 *   1) / stride) + 1; transposed (in-1)*stride - 2*pad + dil*(k-1) +
 *   output_padding + 1. flops 2*N*Cout*prod(out)*(Cin/g)*prod(k) (transposed:
 *   2*N*Cin*prod(in)*(Cout/g)*prod(k)), + N*Cout*prod(out) with a bias (one
 *   FLOP per output element, as GEMM's); bytes b(X)+b(W)(+b(bias)) +
 *   N*Cout*prod(out) elements of X's type. Missing or unreadable
 *   parameters, channels that do not match groups, or an output under 1:
 *   unknown.
 * - elementwise (aten:: add sub mul div, relu gelu silu sigmoid tanh exp log
 *   sqrt rsqrt neg abs reciprocal clamp clamp_min clamp_max pow sin cos erf,
 *   each also in place with '_'; maximum minimum and the threshold, gelu,
 *   silu, sigmoid and tanh _backward): out = the broadcast of the tensor
 *   arguments, of the first one's type; flops n(out), bytes = the tensors
 *   read + b(out) (an in-place op writes its first argument: the same count).
 * - memory (aten::copy_, fill_, zero_): no FLOP; bytes = b(first tensor,
 *   written) + the other tensors (read): copy_(dst, src) b(dst) + b(src).
 * Anything else, an unknown type, a missing tensor or dims that do not fit
 * (K of A and B differ) is unknown: no number rather than a guess.
 */
#ifndef OPSCOPE_ROOFLINE_H
#define OPSCOPE_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X-macro: the classes of element type a peak is given for, with their name. */
#define OSC_DTYPE_LIST(_)     \
	_(UNKNOWN, "unknown") \
	_(FP64, "fp64")       \
	_(FP32, "fp32")       \
	_(FP16, "fp16/bf16")  \
	_(FP8, "fp8")         \
	_(INT8, "int8")       \
	_(OTHER, "other")

enum osc_dtype {
#define OSC_DTYPE_ENUM(name, text) OSC_DTYPE_##name,
	OSC_DTYPE_LIST(OSC_DTYPE_ENUM)
#undef OSC_DTYPE_ENUM
	OSC_DTYPE_NR
};

/* X-macro: the op families that have a work formula. */
#define OSC_WORK_LIST(_)              \
	_(NONE, "")                   \
	_(GEMM, "GEMM")               \
	_(SDPA, "SDPA")               \
	_(ELEMENTWISE, "elementwise") \
	_(MEMORY, "memory")           \
	_(CONV, "convolution")

enum osc_work_family {
#define OSC_WORK_ENUM(name, text) OSC_WORK_##name,
	OSC_WORK_LIST(OSC_WORK_ENUM)
#undef OSC_WORK_ENUM
	OSC_WORK_NR
};

/* The work of one call. */
struct osc_work {
	double flops;  /* floating-point operations */
	double bytes;  /* bytes of the tensors read and written */
	uint8_t family; /* enum osc_work_family */
	uint8_t dtype;  /* enum osc_dtype of the compute (the first input's) */
};

/* The name of dtype class d ("unknown" when out of range). */
const char *osc_dtype_name(enum osc_dtype d);

/*
 * Whether the work of op (its key) depends on the call's Concrete Inputs
 * (convolution, attention), so osc_work_of needs the call's args.
 */
bool osc_work_needs_args(const char *op, size_t op_len);

/*
 * The work of one call of op (its key, e.g. "aten::addmm") with shape
 * string shape (both of the given length), per the formulas above; args is
 * the call's raw JSON args (osc_trace_args), read only when
 * osc_work_needs_args (NULL or "": none). Returns false, *out zeroed, when
 * the work is unknown.
 */
bool osc_work_of(const char *op, size_t op_len, const char *shape, size_t shape_len,
		 const char *args, struct osc_work *out);

/* The work of the calls whose op needs their args (osc_work_needs_args). */
struct osc_trace;

struct osc_call_works {
	struct osc_call_work {
		uint32_t event;     /* the call's event index */
		bool known;         /* false: its work is unknown */
		struct osc_work w;
	} *v;                       /* by event index */
	size_t nr;
};

/*
 * Work out every such call of t's host ops once (reading each one's args
 * into a buffer of its own: safe beside other readers of t; the file's
 * pages read are given back as it goes, osc_trace_args_give_back). Release
 * with osc_call_works_release; trace_cache.h keeps one per trace.
 */
void osc_call_works_build(const struct osc_trace *t, struct osc_call_works *out);
void osc_call_works_release(struct osc_call_works *w);

/* The work of call ev in w, NULL when w does not hold ev. */
const struct osc_call_work *osc_call_works_find(const struct osc_call_works *w, uint32_t ev);

/* A device's peaks: a table row, the user's (--peak-tflops/--peak-tbs), or none. */
struct osc_peak {
	char label[96];                 /* what the peaks are, e.g. "H100 SXM5 (table)" */
	double tflops[OSC_DTYPE_NR];    /* dense TFLOP/s per dtype class; 0 unknown
					   (always for UNKNOWN: a row mixing classes) */
	double tbs;                     /* memory bandwidth, TB/s; 0 unknown */
};

/*
 * The peaks of the device named name (deviceProperties[].name, e.g. "NVIDIA
 * H100 80GB HBM3") from the built-in table (roofline.c, matched by substring
 * in order). false, *out zeroed, when no row matches.
 */
bool osc_peak_of_device(const char *name, struct osc_peak *out);

/*
 * The peaks for a trace: the first deviceProperties[].name of meta_json
 * (trace.h's meta_json; NULL or "" when none) in the table; then user_tflops
 * (> 0: for every dtype class but UNKNOWN) and user_tbs (> 0) replace the table's, and
 * the label says which came from where. Returns false when no peak at all
 * is known (label "none").
 */
bool osc_peak_for_trace(const char *meta_json, double user_tflops, double user_tbs,
			struct osc_peak *out);

/*
 * p in words into buf: its label, then each known peak, e.g. "H100 SXM5
 * (table): 66.9 TFLOP/s fp64, 66.9 TFLOP/s fp32, ..., 3.35 TB/s".
 */
void osc_peak_describe(const struct osc_peak *p, char *buf, size_t size);

#endif
