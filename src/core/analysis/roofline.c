/*
 * roofline.c - the work of an op from its shape string, and the device peak
 * table (roofline.h).
 *
 * Tables are data: element types with their size and dtype class, op names
 * with their formula, devices with their datasheet peaks, convolution ops
 * with where their schema puts stride, padding... The formulas follow AMD
 * TraceLens's perf model (GEMM, convolution, SDPA, unary/binary
 * elementwise); the code is our own and where it differs roofline.h and the
 * man page say.
 *
 * Limits: at most MAX_ARGS arguments and MAX_DIMS dims per tensor are read;
 * an op with more is unknown. Dims over 2^53 are unknown (doubles are exact
 * below it); a convolution parameter (stride, padding...) over 2^31 is
 * unknown.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/roofline.h"
#include "opscope/analysis/trace_cache.h"
#include "opscope/base/alloc.h"
#include "base/hash.h"

#define MAX_ARGS 32
#define MAX_DIMS 8

static const char *const dtype_names[] = {
#define OSC_DTYPE_NAME(name, text) text,
	OSC_DTYPE_LIST(OSC_DTYPE_NAME)
#undef OSC_DTYPE_NAME
};

const char *osc_dtype_name(enum osc_dtype d)
{
	return (unsigned)d < OSC_DTYPE_NR ? dtype_names[d] : dtype_names[OSC_DTYPE_UNKNOWN];
}

/* ---- element types ---- */

static const struct {
	const char *name;
	uint8_t size;  /* bytes per element */
	uint8_t dtype; /* enum osc_dtype */
} elem_types[] = {
	/* PyTorch (Kineto "Input type") */
	{ "float", 4, OSC_DTYPE_FP32 },
	{ "double", 8, OSC_DTYPE_FP64 },
	{ "c10::Half", 2, OSC_DTYPE_FP16 },
	{ "c10::BFloat16", 2, OSC_DTYPE_FP16 },
	{ "c10::Float8_e4m3fn", 1, OSC_DTYPE_FP8 },
	{ "c10::Float8_e5m2", 1, OSC_DTYPE_FP8 },
	{ "c10::Float8_e4m3fnuz", 1, OSC_DTYPE_FP8 },
	{ "c10::Float8_e5m2fnuz", 1, OSC_DTYPE_FP8 },
	{ "long int", 8, OSC_DTYPE_OTHER },
	{ "int", 4, OSC_DTYPE_OTHER },
	{ "short int", 2, OSC_DTYPE_OTHER },
	{ "signed char", 1, OSC_DTYPE_INT8 },
	{ "unsigned char", 1, OSC_DTYPE_INT8 },
	{ "bool", 1, OSC_DTYPE_OTHER },
	{ "c10::complex<float>", 8, OSC_DTYPE_OTHER },
	{ "c10::complex<double>", 16, OSC_DTYPE_OTHER },
	/* ONNX Runtime (input_type_shape keys) */
	{ "float16", 2, OSC_DTYPE_FP16 },
	{ "bfloat16", 2, OSC_DTYPE_FP16 },
	{ "int64", 8, OSC_DTYPE_OTHER },
	{ "int32", 4, OSC_DTYPE_OTHER },
	{ "int8", 1, OSC_DTYPE_INT8 },
	{ "uint8", 1, OSC_DTYPE_INT8 },
};

/* One argument of a shape string. */
struct arg {
	bool tensor;
	uint8_t size, dtype;     /* element size and class (tensors) */
	size_t nr;               /* dims */
	double dims[MAX_DIMS];
};

static bool elem_type(const char *s, size_t n, struct arg *a)
{
	for (size_t i = 0; i < sizeof(elem_types) / sizeof(elem_types[0]); i++) {
		if (strlen(elem_types[i].name) == n && !memcmp(elem_types[i].name, s, n)) {
			a->size = elem_types[i].size;
			a->dtype = elem_types[i].dtype;
			return true;
		}
	}
	return false;
}

/* Dims "AxBxC" (or "" for 0-dim) of s[0..n); false for anything else. */
static bool parse_dims(const char *s, size_t n, struct arg *a)
{
	size_t i = 0;

	a->nr = 0;
	if (!n)
		return true;
	for (;;) {
		double v = 0;
		size_t start = i;

		while (i < n && s[i] >= '0' && s[i] <= '9') {
			v = v * 10 + (s[i] - '0');
			i++;
		}
		if (i == start || v > 9007199254740992.0 || a->nr == MAX_DIMS)
			return false;
		a->dims[a->nr++] = v;
		if (i == n)
			return true;
		if (s[i++] != 'x')
			return false;
	}
}

/*
 * Split shape into its arguments: items "type(dims)" at depth 0, separated
 * by commas. Returns the count, or -1 when the text does not read as such
 * (or has more than MAX_ARGS).
 */
static int parse_args(const char *s, size_t n, struct arg *args)
{
	size_t i = 0;
	int nr = 0;

	if (!n)
		return 0;
	for (;;) {
		size_t t0 = i, d0, depth = 0;
		struct arg *a;

		if (nr == MAX_ARGS)
			return -1;
		a = &args[nr++];
		memset(a, 0, sizeof(*a));
		while (i < n && s[i] != '(')
			i++;
		if (i == n)
			return -1;
		d0 = ++i;
		for (; i < n; i++) {
			if (s[i] == '(' || s[i] == '[')
				depth++;
			else if ((s[i] == ')' || s[i] == ']') && depth)
				depth--;
			else if (s[i] == ')')
				break;
		}
		if (i == n)
			return -1;
		a->tensor = elem_type(s + t0, d0 - 1 - t0, a) && parse_dims(s + d0, i - d0, a);
		i++;
		if (i == n)
			return nr;
		if (s[i++] != ',')
			return -1;
	}
}

static double numel(const struct arg *a)
{
	double v = 1;

	for (size_t i = 0; i < a->nr; i++)
		v *= a->dims[i];
	return v;
}

static double nbytes(const struct arg *a)
{
	return numel(a) * a->size;
}

/* ---- Concrete Inputs: what the shape string lacks ---- */

/*
 * The "Concrete Inputs" array of an event's args text (Kineto: one string
 * per argument, "" for tensors): NULL when absent. *root owns it. Only the
 * array is parsed, not the whole args (Input Dims, Input Strides... are
 * most of them): the key, then one JSON value. The key text cannot occur
 * inside a string (its quotes would be escaped there); Kineto's args are
 * flat, so it is the top level's.
 */
static struct json_object *concrete_inputs(const char *args, struct json_object **root)
{
	static const char key[] = "\"Concrete Inputs\"";
	const char *p = args ? strstr(args, key) : NULL;
	struct json_tokener *tok;

	*root = NULL;
	if (!p)
		return NULL;
	p += sizeof(key) - 1;
	p += strspn(p, " \t\r\n");
	if (*p++ != ':')
		return NULL;
	p += strspn(p, " \t\r\n");
	if (*p != '[' || !(tok = json_tokener_new()))
		return NULL;
	*root = json_tokener_parse_ex(tok, p, (int)strnlen(p, INT32_MAX));
	json_tokener_free(tok);
	return json_object_is_type(*root, json_type_array) ? *root : NULL;
}

/* The i-th concrete input's text, or NULL when there is none. */
static const char *concrete_at(struct json_object *ci, int i)
{
	struct json_object *v;

	if (!ci || i < 0 || (size_t)i >= json_object_array_length(ci))
		return NULL;
	v = json_object_array_get_idx(ci, (size_t)i);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A decimal integer in [0, 2^31) at *s, advancing *s. */
static bool read_int(const char **s, int64_t *v)
{
	const char *p = *s;

	*v = 0;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9' && *v < INT32_MAX)
		*v = *v * 10 + (*p++ - '0');
	*s = p;
	return *v < INT32_MAX;
}

/* "True" / "False". */
static bool read_bool(const char *s, bool *v)
{
	if (!s)
		return false;
	*v = !strcmp(s, "True");
	return *v || !strcmp(s, "False");
}

/* One integer "g". */
static bool read_scalar(const char *s, int64_t *v)
{
	return s && read_int(&s, v) && !*s;
}

/* An int list "[a, b, c]" of n values, or "[a]" meaning a for each of the n. */
static bool read_list(const char *s, int64_t *v, size_t n)
{
	size_t nr = 0;

	if (!s || *s++ != '[')
		return false;
	for (;;) {
		if (nr == n || !read_int(&s, &v[nr++]))
			return false;
		if (*s == ']')
			break;
		if (*s++ != ',')
			return false;
		while (*s == ' ')
			s++;
	}
	if (s[1])
		return false;
	for (size_t i = nr; nr == 1 && i < n; i++)
		v[i] = v[0];
	return nr == n || nr == 1;
}

/* ---- the formulas ---- */

/* A GEMM's result: flops 2*P*M*N*K (+ bias), bytes of A, B, out (+ bias). */
static bool gemm(const struct arg *a, const struct arg *b, double p, double m, double n,
		 double k, const struct arg *bias, struct osc_work *w)
{
	w->flops = 2 * p * m * n * k + (bias ? p * m * n : 0);
	w->bytes = nbytes(a) + nbytes(b) + p * m * n * a->size + (bias ? nbytes(bias) : 0);
	w->family = OSC_WORK_GEMM;
	w->dtype = a->dtype;
	return true;
}

static bool both_tensors(const struct arg *args, int nr, int i)
{
	return nr > i + 1 && args[i].tensor && args[i + 1].tensor;
}

/* mm / addmm: 2-D A and B from argument i. */
static bool mm(const struct arg *args, int nr, int i, bool bias, struct osc_work *w)
{
	const struct arg *a = &args[i], *b = &args[i + 1];

	if (!both_tensors(args, nr, i) || a->nr != 2 || b->nr != 2 || a->dims[1] != b->dims[0])
		return false;
	if (bias && !args[0].tensor)
		return false;
	return gemm(a, b, 1, a->dims[0], b->dims[1], a->dims[1], bias ? &args[0] : NULL, w);
}

/* bmm / baddbmm: 3-D A and B from argument i, same batch. */
static bool bmm(const struct arg *args, int nr, int i, bool bias, struct osc_work *w)
{
	const struct arg *a = &args[i], *b = &args[i + 1];

	if (!both_tensors(args, nr, i) || a->nr != 3 || b->nr != 3 || a->dims[0] != b->dims[0] ||
	    a->dims[2] != b->dims[1])
		return false;
	if (bias && !args[0].tensor)
		return false;
	return gemm(a, b, a->dims[0], a->dims[1], b->dims[2], a->dims[2],
		    bias ? &args[0] : NULL, w);
}

/* matmul: numpy's rules (1-D operands, broadcast batch dims). */
static bool matmul(const struct arg *args, int nr, struct osc_work *w)
{
	const struct arg *a = &args[0], *b = &args[1];
	double m, n, k, kb, p = 1;
	size_t ba, bb, nb;

	if (!both_tensors(args, nr, 0) || a->nr < 1 || b->nr < 1)
		return false;
	m = a->nr == 1 ? 1 : a->dims[a->nr - 2];
	k = a->dims[a->nr - 1];
	kb = b->nr == 1 ? b->dims[0] : b->dims[b->nr - 2];
	n = b->nr == 1 ? 1 : b->dims[b->nr - 1];
	if (k != kb)
		return false;
	ba = a->nr > 2 ? a->nr - 2 : 0; /* batch dims of each */
	bb = b->nr > 2 ? b->nr - 2 : 0;
	nb = ba > bb ? ba : bb;
	for (size_t i = 0; i < nb; i++) { /* aligned from the right */
		double x = i < ba ? a->dims[ba - 1 - i] : 1, y = i < bb ? b->dims[bb - 1 - i] : 1;

		if (x != y && x != 1 && y != 1)
			return false;
		p *= x > y ? x : y;
	}
	return gemm(a, b, p, m, n, k, NULL, w);
}

/* linear: X (... x K), W (N x K), optional bias. */
static bool linear(const struct arg *args, int nr, struct osc_work *w)
{
	const struct arg *x = &args[0], *wt = &args[1];
	bool bias = nr > 2 && args[2].tensor;
	double k;

	if (!both_tensors(args, nr, 0) || x->nr < 1 || wt->nr != 2 ||
	    x->dims[x->nr - 1] != wt->dims[1])
		return false;
	k = wt->dims[1];
	return gemm(x, wt, 1, k ? numel(x) / k : 0, wt->dims[0], k, bias ? &args[2] : NULL, w);
}

/*
 * SDPA: Q, K, V of 4 dims; bhld: B x H x L x D, else B x L x H x D (flash).
 * is_causal, the Concrete Input at position causal, must read True or False.
 */
static bool sdpa(const struct arg *args, int nr, bool bhld, struct json_object *ci, int causal,
		 struct osc_work *w)
{
	const struct arg *q = &args[0], *k = &args[1], *v = &args[2];
	int h = bhld ? 1 : 2, l = bhld ? 2 : 1;
	double bh, lq, lk, d, dv;
	bool is_causal;

	if (nr < 3 || !q->tensor || !k->tensor || !v->tensor || q->nr != 4 || k->nr != 4 ||
	    v->nr != 4 || (size_t)nr != json_object_array_length(ci) ||
	    !read_bool(concrete_at(ci, causal), &is_causal))
		return false;
	lq = q->dims[l];
	lk = k->dims[l];
	d = q->dims[3];
	dv = v->dims[3];
	if (k->dims[3] != d || v->dims[l] != lk || k->dims[0] != q->dims[0])
		return false;
	/* causal: half the pairs when Lq = Lk; otherwise the mask's alignment
	   (top left or bottom right) differs between kernels: unknown */
	if (is_causal && lq != lk)
		return false;
	bh = q->dims[0] * q->dims[h];
	w->flops = (2 * bh * lq * lk * d + 2 * bh * lq * lk * dv) / (is_causal ? 2 : 1);
	w->bytes = nbytes(q) + nbytes(k) + nbytes(v) + bh * lq * dv * q->size;
	w->family = OSC_WORK_SDPA;
	w->dtype = q->dtype;
	return true;
}

/* Elementwise: the broadcast of the tensor arguments, one FLOP an element. */
static bool elementwise(const struct arg *args, int nr, struct osc_work *w)
{
	double out[MAX_DIMS], read = 0, n = 1;
	size_t nd = 0;
	const struct arg *first = NULL;

	for (int i = 0; i < nr; i++) {
		const struct arg *a = &args[i];

		if (!a->tensor)
			continue;
		if (!first)
			first = a;
		read += nbytes(a);
		for (size_t j = 0; j < a->nr; j++) { /* aligned from the right */
			double x = a->dims[a->nr - 1 - j];

			if (j >= nd) {
				out[j] = x;
				nd = j + 1;
			} else if (out[j] == 1) {
				out[j] = x;
			} else if (x != 1 && x != out[j]) {
				return false;
			}
		}
	}
	if (!first)
		return false;
	for (size_t j = 0; j < nd; j++)
		n *= out[j];
	w->flops = n;
	w->bytes = read + n * first->size;
	w->family = OSC_WORK_ELEMENTWISE;
	w->dtype = first->dtype;
	return true;
}

/* A copy or fill: no FLOP; the first tensor written, every other tensor read. */
static bool memory(const struct arg *args, int nr, struct osc_work *w)
{
	if (nr < 1 || !args[0].tensor)
		return false;
	for (int i = 0; i < nr; i++)
		if (args[i].tensor)
			w->bytes += nbytes(&args[i]);
	w->family = OSC_WORK_MEMORY;
	w->dtype = args[0].dtype;
	return true;
}

/*
 * Where a convolution op keeps its parameters: the argument positions of
 * bias, stride, padding, dilation, transposed, output_padding and groups in
 * its ATen schema (-1: not an argument; transposed then is the op's own).
 */
struct conv_layout {
	int8_t bias, stride, padding, dilation, transposed, out_pad, groups;
	bool is_transposed;
};

enum { CL_CONVND, CL_CONVOLUTION, CL_CONV_T, CL_CUDNN, CL_CUDNN_T, CL_MIOPEN, CL_MIOPEN_T };

static const struct conv_layout conv_layouts[] = {
	/* conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups) */
	[CL_CONVND] = { 2, 3, 4, 5, -1, -1, 6, false },
	/* convolution(input, weight, bias, stride, padding, dilation, transposed,
	   output_padding, groups) and _convolution (then benchmark...) */
	[CL_CONVOLUTION] = { 2, 3, 4, 5, 6, 7, 8, false },
	/* conv_transpose1d/2d/3d(input, weight, bias, stride, padding,
	   output_padding, groups, dilation) */
	[CL_CONV_T] = { 2, 3, 4, 7, -1, 5, 6, true },
	/* cudnn_convolution(self, weight, padding, stride, dilation, groups, ...) */
	[CL_CUDNN] = { -1, 3, 2, 4, -1, -1, 5, false },
	/* cudnn_convolution_transpose(self, weight, padding, output_padding,
	   stride, dilation, groups, ...) */
	[CL_CUDNN_T] = { -1, 4, 2, 5, -1, 3, 6, true },
	/* miopen_convolution(self, weight, bias, padding, stride, dilation, groups,
	   ...), miopen_depthwise_convolution, mkldnn_convolution */
	[CL_MIOPEN] = { 2, 4, 3, 5, -1, -1, 6, false },
	/* miopen_convolution_transpose(self, weight, bias, padding,
	   output_padding, stride, dilation, groups, ...) */
	[CL_MIOPEN_T] = { 2, 5, 3, 6, -1, 4, 7, true },
};

/*
 * A convolution: input X (N x Cin x spatial, or unbatched Cin x spatial),
 * weight W (Cout x Cin/g x kernel; transposed: Cin x Cout/g x kernel), the
 * parameters from the Concrete Inputs ci at layout l's positions.
 */
static bool conv(const struct arg *args, int nr, struct json_object *ci,
		 const struct conv_layout *l, struct osc_work *w)
{
	const struct arg *x = &args[0], *wt = &args[1], *bias = NULL;
	int64_t stride[MAX_DIMS], pad[MAX_DIMS], dil[MAX_DIMS], opad[MAX_DIMS] = { 0 }, groups;
	double n, cin, cout, in_sp = 1, out_sp = 1, k_sp = 1, out;
	size_t sp, xs; /* spatial dims; X's first spatial dim */
	bool transposed = l->is_transposed;

	if (!both_tensors(args, nr, 0) || wt->nr < 3 || wt->nr > 5 ||
	    (x->nr != wt->nr && x->nr != wt->nr - 1) ||
	    (size_t)nr != json_object_array_length(ci))
		return false;
	sp = wt->nr - 2;
	xs = x->nr - sp;
	if (l->transposed >= 0 && !read_bool(concrete_at(ci, l->transposed), &transposed))
		return false;
	if (!read_list(concrete_at(ci, l->stride), stride, sp) ||
	    !read_list(concrete_at(ci, l->padding), pad, sp) ||
	    !read_list(concrete_at(ci, l->dilation), dil, sp) ||
	    !read_scalar(concrete_at(ci, l->groups), &groups) || !groups ||
	    (transposed && l->out_pad >= 0 && !read_list(concrete_at(ci, l->out_pad), opad, sp)))
		return false;
	if (l->bias >= 0 && l->bias < nr && args[l->bias].tensor) {
		bias = &args[l->bias];
		if (bias->nr != 1)
			return false;
	}
	n = xs == 2 ? x->dims[0] : 1;
	cin = x->dims[xs - 1];
	/* channels: Cin = g * W[1] (transposed: Cin = W[0], Cout = g * W[1]) */
	if (transposed ? cin != wt->dims[0] || fmod(wt->dims[0], (double)groups)
		       : cin != wt->dims[1] * (double)groups || fmod(wt->dims[0], (double)groups))
		return false;
	cout = transposed ? wt->dims[1] * (double)groups : wt->dims[0];
	if (bias && bias->dims[0] != cout)
		return false;
	for (size_t i = 0; i < sp; i++) {
		double in = x->dims[xs + i], k = wt->dims[2 + i];

		if (!stride[i] || !dil[i] || !k)
			return false;
		if (transposed)
			out = (in - 1) * (double)stride[i] - 2 * (double)pad[i] +
			      (double)dil[i] * (k - 1) + (double)opad[i] + 1;
		else
			out = floor((in + 2 * (double)pad[i] - (double)dil[i] * (k - 1) - 1) /
				    (double)stride[i]) + 1;
		if (out < 1)
			return false;
		in_sp *= in;
		out_sp *= out;
		k_sp *= k;
	}
	/* one multiply-add per (output, weight) pair met: per output element
	   2 * Cin/g * kernel; transposed, per input element 2 * Cout/g * kernel */
	if (transposed)
		w->flops = 2 * n * cin * in_sp * wt->dims[1] * k_sp;
	else
		w->flops = 2 * n * cout * out_sp * wt->dims[1] * k_sp;
	w->flops += bias ? n * cout * out_sp : 0;
	w->bytes = nbytes(x) + nbytes(wt) + (bias ? nbytes(bias) : 0) + n * cout * out_sp * x->size;
	w->family = OSC_WORK_CONV;
	w->dtype = x->dtype;
	return true;
}

enum formula {
	F_MM, F_ADDMM, F_BMM, F_BADDBMM, F_MATMUL, F_LINEAR, F_SDPA, F_FLASH, F_ELEM, F_MEMORY,
	F_CONV
};

/* A name of ops[] and its length. */
#define OP_NAME(s) s, sizeof(s) - 1

/* Op names with their formula (exact match; "_" names the in-place variant too). */
static const struct {
	const char *name;
	uint8_t len;
	uint8_t formula;
	bool inplace; /* name + "_" is the same formula */
	int8_t param; /* F_CONV: its conv_layouts[]; F_SDPA, F_FLASH: is_causal's position */
} ops[] = {
	{ OP_NAME("aten::mm"), F_MM, false, 0 },
	{ OP_NAME("aten::addmm"), F_ADDMM, false, 0 },
	{ OP_NAME("aten::bmm"), F_BMM, false, 0 },
	{ OP_NAME("aten::baddbmm"), F_BADDBMM, false, 0 },
	{ OP_NAME("aten::matmul"), F_MATMUL, false, 0 },
	{ OP_NAME("MatMul"), F_MATMUL, false, 0 },
	{ OP_NAME("aten::linear"), F_LINEAR, false, 0 },
	{ OP_NAME("aten::scaled_dot_product_attention"), F_SDPA, false, 5 },
	{ OP_NAME("aten::_scaled_dot_product_flash_attention"), F_SDPA, false, 4 },
	{ OP_NAME("aten::_scaled_dot_product_efficient_attention"), F_SDPA, false, 6 },
	{ OP_NAME("aten::_scaled_dot_product_cudnn_attention"), F_SDPA, false, 6 },
	{ OP_NAME("aten::_flash_attention_forward"), F_FLASH, false, 8 },
	{ OP_NAME("aten::conv1d"), F_CONV, false, CL_CONVND },
	{ OP_NAME("aten::conv2d"), F_CONV, false, CL_CONVND },
	{ OP_NAME("aten::conv3d"), F_CONV, false, CL_CONVND },
	{ OP_NAME("aten::convolution"), F_CONV, false, CL_CONVOLUTION },
	{ OP_NAME("aten::_convolution"), F_CONV, false, CL_CONVOLUTION },
	{ OP_NAME("aten::convolution_overrideable"), F_CONV, false, CL_CONVOLUTION },
	{ OP_NAME("aten::conv_transpose1d"), F_CONV, false, CL_CONV_T },
	{ OP_NAME("aten::conv_transpose2d"), F_CONV, false, CL_CONV_T },
	{ OP_NAME("aten::conv_transpose3d"), F_CONV, false, CL_CONV_T },
	{ OP_NAME("aten::cudnn_convolution"), F_CONV, false, CL_CUDNN },
	{ OP_NAME("aten::cudnn_convolution_transpose"), F_CONV, false, CL_CUDNN_T },
	{ OP_NAME("aten::miopen_convolution"), F_CONV, false, CL_MIOPEN },
	{ OP_NAME("aten::miopen_depthwise_convolution"), F_CONV, false, CL_MIOPEN },
	{ OP_NAME("aten::mkldnn_convolution"), F_CONV, false, CL_MIOPEN },
	{ OP_NAME("aten::miopen_convolution_transpose"), F_CONV, false, CL_MIOPEN_T },
	{ OP_NAME("aten::add"), F_ELEM, true, 0 },
	{ OP_NAME("aten::sub"), F_ELEM, true, 0 },
	{ OP_NAME("aten::mul"), F_ELEM, true, 0 },
	{ OP_NAME("aten::div"), F_ELEM, true, 0 },
	{ OP_NAME("aten::relu"), F_ELEM, true, 0 },
	{ OP_NAME("aten::gelu"), F_ELEM, true, 0 },
	{ OP_NAME("aten::silu"), F_ELEM, true, 0 },
	{ OP_NAME("aten::sigmoid"), F_ELEM, true, 0 },
	{ OP_NAME("aten::tanh"), F_ELEM, true, 0 },
	{ OP_NAME("aten::exp"), F_ELEM, true, 0 },
	{ OP_NAME("aten::log"), F_ELEM, true, 0 },
	{ OP_NAME("aten::sqrt"), F_ELEM, true, 0 },
	{ OP_NAME("aten::rsqrt"), F_ELEM, true, 0 },
	{ OP_NAME("aten::neg"), F_ELEM, true, 0 },
	{ OP_NAME("aten::abs"), F_ELEM, true, 0 },
	{ OP_NAME("aten::reciprocal"), F_ELEM, true, 0 },
	{ OP_NAME("aten::clamp"), F_ELEM, true, 0 },
	{ OP_NAME("aten::clamp_min"), F_ELEM, true, 0 },
	{ OP_NAME("aten::clamp_max"), F_ELEM, true, 0 },
	{ OP_NAME("aten::pow"), F_ELEM, true, 0 },
	{ OP_NAME("aten::maximum"), F_ELEM, false, 0 },
	{ OP_NAME("aten::minimum"), F_ELEM, false, 0 },
	{ OP_NAME("aten::sin"), F_ELEM, true, 0 },
	{ OP_NAME("aten::cos"), F_ELEM, true, 0 },
	{ OP_NAME("aten::erf"), F_ELEM, true, 0 },
	{ OP_NAME("aten::threshold_backward"), F_ELEM, false, 0 },
	{ OP_NAME("aten::gelu_backward"), F_ELEM, false, 0 },
	{ OP_NAME("aten::silu_backward"), F_ELEM, false, 0 },
	{ OP_NAME("aten::sigmoid_backward"), F_ELEM, false, 0 },
	{ OP_NAME("aten::tanh_backward"), F_ELEM, false, 0 },
	{ OP_NAME("aten::copy_"), F_MEMORY, false, 0 },
	{ OP_NAME("aten::fill_"), F_MEMORY, false, 0 },
	{ OP_NAME("aten::zero_"), F_MEMORY, false, 0 },
};

/* The ops[] row of op, or -1. */
static int find_op(const char *op, size_t n)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && n; i++) {
		size_t len = ops[i].len;

		if ((len == n || (ops[i].inplace && n == len + 1 && op[len] == '_')) &&
		    !memcmp(ops[i].name, op, len))
			return (int)i;
	}
	return -1;
}

/* The ops[] row i's formula reads the call's args (concrete inputs), not its shapes only. */
static bool formula_needs_args(int i)
{
	return ops[i].formula == F_CONV || ops[i].formula == F_SDPA || ops[i].formula == F_FLASH;
}

bool osc_work_needs_args(const char *op, size_t op_len)
{
	int i = find_op(op, op_len);

	return i >= 0 && formula_needs_args(i);
}

bool osc_work_of(const char *op, size_t op_len, const char *shape, size_t shape_len,
		 const char *args, struct osc_work *out)
{
	struct arg args_of[MAX_ARGS];
	struct json_object *root = NULL, *ci = NULL;
	int i = find_op(op, op_len), nr;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (i < 0 || (nr = parse_args(shape, shape_len, args_of)) <= 0)
		return false;
	if (formula_needs_args(i) && !(ci = concrete_inputs(args, &root))) {
		json_object_put(root);
		return false;
	}
	switch ((enum formula)ops[i].formula) {
	case F_MM:
		ok = mm(args_of, nr, 0, false, out);
		break;
	case F_ADDMM:
		ok = mm(args_of, nr, 1, true, out);
		break;
	case F_BMM:
		ok = bmm(args_of, nr, 0, false, out);
		break;
	case F_BADDBMM:
		ok = bmm(args_of, nr, 1, true, out);
		break;
	case F_MATMUL:
		ok = matmul(args_of, nr, out);
		break;
	case F_LINEAR:
		ok = linear(args_of, nr, out);
		break;
	case F_SDPA:
		ok = sdpa(args_of, nr, true, ci, ops[i].param, out);
		break;
	case F_FLASH:
		ok = sdpa(args_of, nr, false, ci, ops[i].param, out);
		break;
	case F_ELEM:
		ok = elementwise(args_of, nr, out);
		break;
	case F_MEMORY:
		ok = memory(args_of, nr, out);
		break;
	case F_CONV:
		ok = conv(args_of, nr, ci, &conv_layouts[ops[i].param], out);
		break;
	}
	json_object_put(root);
	ok = ok && isfinite(out->flops) && isfinite(out->bytes);
	if (!ok)
		memset(out, 0, sizeof(*out));
	return ok;
}

/* ---- device peaks ---- */

/*
 * Dense peaks (no structured sparsity), TFLOP/s per dtype class, and memory
 * bandwidth in TB/s, from the vendors' datasheets: NVIDIA H100 Tensor Core
 * GPU datasheet (SXM5 and PCIe columns), NVIDIA H200 datasheet (SXM), NVIDIA
 * A100 datasheet (SXM4 80GB / 40GB, PCIe), NVIDIA HGX B200 specifications
 * (per GPU: the 8-GPU figures divided by 8, sparsity halved), AMD Instinct
 * MI300X and MI250X data sheets (matrix cores). fp32 is the non-tensor
 * (vector) rate on NVIDIA GPUs, the matrix rate on AMD's; fp64 the tensor /
 * matrix rate. 0: the datasheet gives none. Rows are matched by substring of
 * the trace's device name, in order: the more specific first.
 */
static const struct {
	const char *match;
	const char *label;
	double fp64, fp32, fp16, fp8, int8, tbs;
} devices[] = {
	{ "H100 PCIe", "H100 PCIe", 51.2, 51.2, 756.5, 1513, 1513, 2.0 },
	{ "H100 NVL", "H100 NVL", 60, 60, 835.5, 1670.5, 1670.5, 3.9 },
	{ "H100", "H100 SXM5", 66.9, 66.9, 989.4, 1978.9, 1978.9, 3.35 },
	{ "H200", "H200 SXM", 66.9, 66.9, 989.4, 1978.9, 1978.9, 4.8 },
	{ "B200", "B200 HGX", 37, 75, 2250, 4500, 4500, 8.0 },
	{ "A100-SXM4-80GB", "A100 SXM4 80GB", 19.5, 19.5, 312, 0, 624, 2.039 },
	{ "A100 80GB PCIe", "A100 PCIe 80GB", 19.5, 19.5, 312, 0, 624, 1.935 },
	{ "A100", "A100 40GB", 19.5, 19.5, 312, 0, 624, 1.555 },
	{ "MI300X", "MI300X", 163.4, 163.4, 1307.4, 2614.9, 2614.9, 5.3 },
	{ "MI250X", "MI250X", 95.7, 95.7, 383, 0, 383, 3.2768 },
};

bool osc_peak_of_device(const char *name, struct osc_peak *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->label, sizeof(out->label), "none");
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		if (!strstr(name, devices[i].match))
			continue;
		out->tflops[OSC_DTYPE_FP64] = devices[i].fp64;
		out->tflops[OSC_DTYPE_FP32] = devices[i].fp32;
		out->tflops[OSC_DTYPE_FP16] = devices[i].fp16;
		out->tflops[OSC_DTYPE_FP8] = devices[i].fp8;
		out->tflops[OSC_DTYPE_INT8] = devices[i].int8;
		out->tbs = devices[i].tbs;
		snprintf(out->label, sizeof(out->label), "%s (table)", devices[i].label);
		return true;
	}
	return false;
}

/* The first deviceProperties[].name of the trace's meta, or NULL (j keeps it). */
static const char *device_name(struct json_object *j)
{
	struct json_object *props, *dev, *name;

	if (!j || !json_object_object_get_ex(j, "deviceProperties", &props) ||
	    !json_object_is_type(props, json_type_array) || !json_object_array_length(props))
		return NULL;
	dev = json_object_array_get_idx(props, 0);
	if (!json_object_is_type(dev, json_type_object) ||
	    !json_object_object_get_ex(dev, "name", &name) ||
	    !json_object_is_type(name, json_type_string))
		return NULL;
	return json_object_get_string(name);
}

bool osc_peak_for_trace(const char *meta_json, double user_tflops, double user_tbs,
			struct osc_peak *out)
{
	struct json_object *j = meta_json && *meta_json ? json_tokener_parse(meta_json) : NULL;
	bool table = osc_peak_of_device(device_name(j), out);
	char label[sizeof(out->label)];

	json_object_put(j);
	if (user_tflops > 0) /* every class; a row mixing classes still has none */
		for (int d = OSC_DTYPE_UNKNOWN + 1; d < OSC_DTYPE_NR; d++)
			out->tflops[d] = user_tflops;
	if (user_tbs > 0)
		out->tbs = user_tbs;
	if (user_tflops > 0 || user_tbs > 0) {
		if (!table)
			snprintf(label, sizeof(label), "%s%s%s", user_tflops > 0 ? "--peak-tflops" : "",
				 user_tflops > 0 && user_tbs > 0 ? ", " : "",
				 user_tbs > 0 ? "--peak-tbs" : "");
		else if (user_tflops > 0 && user_tbs > 0)
			snprintf(label, sizeof(label), "--peak-tflops, --peak-tbs");
		else
			snprintf(label, sizeof(label), "%s; %s from %.60s",
				 user_tflops > 0 ? "--peak-tflops" : "--peak-tbs",
				 user_tflops > 0 ? "TB/s" : "TFLOP/s", out->label);
		memcpy(out->label, label, sizeof(label));
	}
	for (int d = 0; d < OSC_DTYPE_NR; d++)
		if (out->tflops[d] > 0)
			return true;
	return out->tbs > 0;
}

void osc_peak_describe(const struct osc_peak *p, char *buf, size_t size)
{
	size_t at = (size_t)snprintf(buf, size, "%s", p->label);
	bool same = true;

	for (int d = OSC_DTYPE_UNKNOWN + 2; d < OSC_DTYPE_NR; d++)
		same &= p->tflops[d] == p->tflops[OSC_DTYPE_UNKNOWN + 1];
	if (same && p->tflops[OSC_DTYPE_UNKNOWN + 1] > 0 && at < size) /* --peak-tflops */
		at += (size_t)snprintf(buf + at, size - at, ": %g TFLOP/s",
				       p->tflops[OSC_DTYPE_UNKNOWN + 1]);
	for (int d = 0; d < OSC_DTYPE_NR && !same; d++)
		if (p->tflops[d] > 0 && at < size)
			at += (size_t)snprintf(buf + at, size - at, "%s%g TFLOP/s %s",
					       at == strlen(p->label) ? ": " : ", ", p->tflops[d],
					       dtype_names[d]);
	if (p->tbs > 0 && at < size)
		snprintf(buf + at, size - at, "%s%g TB/s", at == strlen(p->label) ? ": " : ", ",
			 p->tbs);
}

/* ---- the rows of an aggregate ---- */

/* What an op's work is made from: nothing (no formula), its shapes, or each call's args. */
enum work_need { NEED_NOTHING = 1, NEED_SHAPES, NEED_ARGS };

/* The work_need of op (an id of t's strings), looked up once per op in memo (0: not yet). */
static enum work_need work_need_of(const struct osc_trace *t, uint8_t *memo, osc_str op)
{
	if (!memo[op]) {
		int i = find_op(osc_trace_str(t, op), osc_strtab_len(&t->strs, op));

		memo[op] = (uint8_t)(i < 0 ? NEED_NOTHING : formula_needs_args(i) ? NEED_ARGS
										: NEED_SHAPES);
	}
	return (enum work_need)memo[op];
}

/*
 * A memo of osc_work_of per (op, shape) pair: open addressing, grown at half
 * full. An op without a formula has no work whatever its shapes: it is
 * known per op (a level of a million distinct names holds no pair).
 */
struct work_memo {
	struct memo_slot {
		uint64_t key; /* op << 32 | shape, + 1 (0: empty) */
		struct osc_work w;
		bool known;
		bool per_call; /* the work needs each call's args (osc_work_needs_args) */
	} *slots;
	size_t cap, nr;
	uint8_t *need; /* per op string id: its work_need (work_need_of) */
};

static struct memo_slot *memo_slot(struct work_memo *m, uint64_t key)
{
	size_t i = (size_t)osc_mix64(key) & (m->cap - 1);

	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static const struct memo_slot *memo_get(struct work_memo *m, const struct osc_trace *t,
					 osc_str op, osc_str shape)
{
	static const struct memo_slot none; /* no work known */
	uint64_t key = ((uint64_t)op << 32 | shape) + 1;
	struct memo_slot *s;
	enum work_need need;

	if (op >= t->strs.count)
		return &none;
	if (!m->need)
		m->need = osc_xcalloc(t->strs.count, 1);
	need = work_need_of(t, m->need, op);
	if (need == NEED_NOTHING)
		return &none;
	if (2 * (m->nr + 1) > m->cap) {
		struct work_memo g = { osc_xcalloc(m->cap ? 2 * m->cap : 64, sizeof(*g.slots)),
				       m->cap ? 2 * m->cap : 64, m->nr, m->need };

		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				*memo_slot(&g, m->slots[i].key) = m->slots[i];
		free(m->slots);
		*m = g;
	}
	s = memo_slot(m, key);
	if (!s->key) {
		s->key = key;
		s->per_call = need == NEED_ARGS;
		s->known = !s->per_call &&
			   osc_work_of(osc_trace_str(t, op), osc_strtab_len(&t->strs, op),
				       osc_trace_str(t, shape), osc_strtab_len(&t->strs, shape),
				       NULL, &s->w);
		m->nr++;
	}
	return s;
}

/* Calls whose args are read between two give-backs of the file's pages. */
#define GIVE_BACK_CALLS 4096

void osc_call_works_build(const struct osc_trace *t, struct osc_call_works *out)
{
	uint8_t *need = osc_xcalloc(t->strs.count ? t->strs.count : 1, 1); /* work_need_of's */
	char *buf = NULL;
	size_t nb, alloc = 0, cap = 0;
	const struct osc_brief *b = osc_trace_briefs(t, OSC_KIND_HOST_OP, &nb);

	memset(out, 0, sizeof(*out));
	for (size_t j = 0; j < nb; j++) { /* briefs come in event order */
		const struct osc_event *e = &t->events[b[j].event];
		osc_str op = b[j].op;
		struct osc_call_work *cw;

		/* no op key: no work known; a call's args are read only where they count */
		if (op >= t->strs.count || work_need_of(t, need, op) != NEED_ARGS)
			continue;
		OSC_GROW(out->v, out->nr + 1, cap);
		cw = &out->v[out->nr++];
		cw->event = b[j].event;
		cw->known = osc_work_of(osc_trace_str(t, op), osc_strtab_len(&t->strs, op),
					osc_trace_str(t, e->shape),
					osc_strtab_len(&t->strs, e->shape),
					osc_trace_args_into(t, b[j].event, &buf, &alloc), &cw->w);
		if (!(out->nr % GIVE_BACK_CALLS)) /* the pages of the file read so far */
			osc_trace_args_give_back(t);
	}
	osc_trace_args_give_back(t);
	free(need);
	free(buf);
}

void osc_call_works_release(struct osc_call_works *w)
{
	free(w->v);
	memset(w, 0, sizeof(*w));
}

const struct osc_call_work *osc_call_works_find(const struct osc_call_works *w, uint32_t ev)
{
	size_t lo = 0, hi = w->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->v[mid].event < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->nr && w->v[lo].event == ev ? &w->v[lo] : NULL;
}

void osc_agg_roofline(const struct osc_trace *t, struct osc_agg *a, const struct osc_peak *peak)
{
	struct work_memo memo = { 0 };
	const struct osc_call_works *calls = NULL;
	/* keyed by op and shape: every member of a row has the row's (no event read) */
	bool row_keyed = (a->keys & (OSC_KEY_NAME | OSC_KEY_SHAPE)) ==
			 (OSC_KEY_NAME | OSC_KEY_SHAPE);

	a->roofline = true;
	if (peak)
		a->peak = *peak;
	else
		osc_peak_of_device(NULL, &a->peak);
	for (size_t r = 0; r < a->nr; r++) {
		struct osc_agg_row *row = &a->rows[r];
		double flops = 0, bytes = 0;
		int dtype = -1;
		const struct memo_slot *of_row = row_keyed && row->nr
			? memo_get(&memo, t, row->key, row->shape) : NULL;

		for (size_t i = 0; i < row->nr && !isnan(flops); i++) {
			uint32_t ev = a->members[row->first + i];
			const struct memo_slot *s = of_row ? of_row
				: memo_get(&memo, t, osc_trace_op(t, ev), t->events[ev].shape);
			const struct osc_call_work *cw = NULL;
			struct osc_work w = s->w;

			if (s->per_call) { /* worked out once per trace */
				if (!calls)
					calls = osc_trace_call_works(t);
				cw = osc_call_works_find(calls, ev);
				w = cw ? cw->w : w;
			}
			if (s->per_call ? !cw || !cw->known : !s->known) {
				flops = bytes = NAN;
				break;
			}
			flops += w.flops;
			bytes += w.bytes;
			dtype = dtype < 0 || dtype == w.dtype ? w.dtype : OSC_DTYPE_UNKNOWN;
		}
		row->flops = row->nr ? flops : NAN;
		row->bytes = row->nr ? bytes : NAN;
		row->work_dtype = dtype < 0 ? OSC_DTYPE_UNKNOWN : (uint8_t)dtype;
	}
	free(memo.slots);
	free(memo.need);
}

/* The time the rates divide by, ns: device_total, or total without device events. */
static double rate_time(const struct osc_agg *a, const struct osc_agg_row *r)
{
	return (double)(a->has_device ? r->dev_total : r->total);
}

double osc_agg_roofline_value(const struct osc_agg *a, const struct osc_agg_row *r,
			      enum osc_stat s)
{
	double time = rate_time(a, r), n = (double)r->count, peak;

	if (!a->roofline || !r->count)
		return NAN;
	switch (s) {
	case OSC_STAT_GFLOP:
		return r->flops / n / 1e9;
	case OSC_STAT_MBYTE:
		return r->bytes / n / 1e6;
	case OSC_STAT_FLOP_PER_BYTE:
		return r->bytes > 0 ? r->flops / r->bytes : NAN;
	case OSC_STAT_TFLOP_S: /* flops / (time * 1e-9 s) / 1e12 */
		return time > 0 ? r->flops / time / 1e3 : NAN;
	case OSC_STAT_TB_S:
		return time > 0 ? r->bytes / time / 1e3 : NAN;
	case OSC_STAT_PEAK_FLOPS_PCT:
		/* UNKNOWN: the instances mix classes, no one peak applies */
		peak = a->peak.tflops[r->work_dtype < OSC_DTYPE_NR ? r->work_dtype : 0];
		return time > 0 && peak > 0 ? 100 * (r->flops / time / 1e3) / peak : NAN;
	case OSC_STAT_PEAK_BW_PCT:
		return time > 0 && a->peak.tbs > 0 ? 100 * (r->bytes / time / 1e3) / a->peak.tbs
						   : NAN;
	default:
		return NAN;
	}
}
