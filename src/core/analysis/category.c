/*
 * category.c - the built-in op category table, the user's rules and the
 * category of each event of a trace (category.h).
 *
 * The table is data: one row per (category, kind, pattern), matched in
 * order, first match wins. Patterns are --filter's (osc_pattern_matches:
 * exact, or a case-sensitive shell wildcard), so a user file reads the same
 * way. The categories follow AMD TraceLens (GEMM, CONV_fwd/bwd, SDPA_fwd/bwd,
 * elementwise, reduce, triton) and HTA's kernel types (communication,
 * memory); the rows are our own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/category.h"
#include "opscope/base/alloc.h"
#include "analysis/category_index.h"

static const char *const cat_names[] = {
#define OSC_CATEGORY_NAME(name, text) text,
	OSC_CATEGORY_LIST(OSC_CATEGORY_NAME)
#undef OSC_CATEGORY_NAME
};

#define OP(c, p) { OSC_CAT_##c, OSC_CAT_KIND_OP, (char *)(p) }
#define K(c, p) { OSC_CAT_##c, OSC_CAT_KIND_KERNEL, (char *)(p) }

/* The built-in rules, in order: the first that matches decides. */
static const struct osc_cat_rule builtin[] = {
	/* host ops: PyTorch aten ops, ORT and NE op types */
	OP(COMM, "nccl:*"), OP(COMM, "c10d::*"), OP(COMM, "record_param_comms"),
	OP(COMM, "*all_reduce*"), OP(COMM, "*allreduce*"), OP(COMM, "*all_gather*"),
	OP(COMM, "*allgather*"), OP(COMM, "*reduce_scatter*"), OP(COMM, "*all_to_all*"),
	OP(COMM, "*alltoall*"), OP(COMM, "*broadcast_*"),
	OP(TRITON, "triton_*"), OP(TRITON, "triton__*"),
	OP(SDPA_BWD, "*attention*backward*"), OP(SDPA_BWD, "*Attention*Backward*"),
	OP(SDPA_BWD, "*FlashAttn*Backward*"), OP(SDPA_BWD, "*flash_attn*backward*"),
	OP(SDPA_FWD, "*scaled_dot_product*"), OP(SDPA_FWD, "*flash_attention*"),
	OP(SDPA_FWD, "*efficient_attention*"), OP(SDPA_FWD, "*FlashAttn*"),
	OP(SDPA_FWD, "*flash_attn*"), OP(SDPA_FWD, "Attention"),
	OP(SDPA_FWD, "MultiHeadAttention"), OP(SDPA_FWD, "GroupQueryAttention"),
	OP(CONV_BWD, "*convolution_backward*"), OP(CONV_BWD, "*ConvolutionBackward*"),
	OP(CONV_FWD, "aten::conv*"), OP(CONV_FWD, "aten::_conv*"),
	OP(CONV_FWD, "aten::cudnn_convolution*"), OP(CONV_FWD, "aten::miopen_convolution*"),
	OP(CONV_FWD, "aten::mkldnn_convolution*"), OP(CONV_FWD, "Conv"),
	OP(CONV_FWD, "FusedConv"), OP(CONV_FWD, "QLinearConv"), OP(CONV_FWD, "ConvTranspose"),
	OP(CONV_FWD, "NhwcConv"), OP(CONV_FWD, "ConvInteger"),
	OP(GEMM, "aten::mm"), OP(GEMM, "aten::addmm"), OP(GEMM, "aten::bmm"),
	OP(GEMM, "aten::baddbmm"), OP(GEMM, "aten::matmul"), OP(GEMM, "aten::linear"),
	OP(GEMM, "aten::_scaled_mm"), OP(GEMM, "aten::addmv"), OP(GEMM, "aten::mv"),
	OP(GEMM, "aten::addbmm"), OP(GEMM, "aten::einsum"), OP(GEMM, "aten::_addmm_activation"),
	OP(GEMM, "MatMul"), OP(GEMM, "Gemm"), OP(GEMM, "FusedMatMul"), OP(GEMM, "FusedGemm"),
	OP(GEMM, "MatMulInteger"), OP(GEMM, "QLinearMatMul"), OP(GEMM, "MatMulNBits"),
	OP(GEMM, "InnerProduct"),
	OP(NORM, "*batch_norm*"), OP(NORM, "*layer_norm*"), OP(NORM, "*rms_norm*"),
	OP(NORM, "*group_norm*"), OP(NORM, "*instance_norm*"), OP(NORM, "*BatchNorm*"),
	OP(NORM, "*LayerNorm*"), OP(NORM, "*RMSNorm*"), OP(NORM, "*GroupNorm*"),
	OP(NORM, "*InstanceNorm*"), OP(NORM, "BatchNormalization"),
	OP(MEMCPY, "aten::copy_"), OP(MEMCPY, "aten::_to_copy"), OP(MEMCPY, "aten::to"),
	OP(MEMCPY, "aten::fill_"), OP(MEMCPY, "aten::zero_"), OP(MEMCPY, "Memcpy*"),
	OP(REDUCE, "*softmax*"), OP(REDUCE, "*Softmax*"), OP(REDUCE, "aten::sum"),
	OP(REDUCE, "aten::mean"), OP(REDUCE, "aten::max"), OP(REDUCE, "aten::min"),
	OP(REDUCE, "aten::amax"), OP(REDUCE, "aten::amin"), OP(REDUCE, "aten::argmax"),
	OP(REDUCE, "aten::argmin"), OP(REDUCE, "aten::norm"), OP(REDUCE, "aten::linalg_vector_norm"),
	OP(REDUCE, "aten::var*"), OP(REDUCE, "aten::std*"), OP(REDUCE, "aten::prod"),
	OP(REDUCE, "aten::cumsum"), OP(REDUCE, "aten::logsumexp"), OP(REDUCE, "aten::nll_loss*"),
	OP(REDUCE, "Reduce*"), OP(REDUCE, "ArgMax"), OP(REDUCE, "ArgMin"),
	OP(REDUCE, "GlobalAveragePool"), OP(REDUCE, "GlobalMaxPool"),
	OP(ELEMENTWISE, "aten::_foreach_*"), OP(ELEMENTWISE, "aten::add*"),
	OP(ELEMENTWISE, "aten::sub*"), OP(ELEMENTWISE, "aten::rsub"), OP(ELEMENTWISE, "aten::mul*"),
	OP(ELEMENTWISE, "aten::div*"), OP(ELEMENTWISE, "aten::relu*"), OP(ELEMENTWISE, "aten::gelu*"),
	OP(ELEMENTWISE, "aten::silu*"), OP(ELEMENTWISE, "aten::sigmoid*"),
	OP(ELEMENTWISE, "aten::tanh*"), OP(ELEMENTWISE, "aten::exp*"), OP(ELEMENTWISE, "aten::log"),
	OP(ELEMENTWISE, "aten::pow*"), OP(ELEMENTWISE, "aten::sqrt*"), OP(ELEMENTWISE, "aten::rsqrt*"),
	OP(ELEMENTWISE, "aten::neg*"), OP(ELEMENTWISE, "aten::abs*"), OP(ELEMENTWISE, "aten::clamp*"),
	OP(ELEMENTWISE, "aten::where"), OP(ELEMENTWISE, "aten::masked_fill*"),
	OP(ELEMENTWISE, "aten::threshold*"), OP(ELEMENTWISE, "aten::hardtanh*"),
	OP(ELEMENTWISE, "aten::leaky_relu*"), OP(ELEMENTWISE, "aten::native_dropout*"),
	OP(ELEMENTWISE, "aten::lerp*"), OP(ELEMENTWISE, "aten::addcmul*"),
	OP(ELEMENTWISE, "aten::addcdiv*"), OP(ELEMENTWISE, "aten::eq"), OP(ELEMENTWISE, "aten::ne"),
	OP(ELEMENTWISE, "aten::lt"), OP(ELEMENTWISE, "aten::gt"),
	OP(ELEMENTWISE, "Add"), OP(ELEMENTWISE, "Sub"), OP(ELEMENTWISE, "Mul"),
	OP(ELEMENTWISE, "Div"), OP(ELEMENTWISE, "Relu"), OP(ELEMENTWISE, "Gelu"),
	OP(ELEMENTWISE, "FastGelu"), OP(ELEMENTWISE, "BiasGelu"), OP(ELEMENTWISE, "Sigmoid"),
	OP(ELEMENTWISE, "Tanh"), OP(ELEMENTWISE, "Erf"), OP(ELEMENTWISE, "Sqrt"),
	OP(ELEMENTWISE, "Pow"), OP(ELEMENTWISE, "Cast"), OP(ELEMENTWISE, "Where"),
	OP(ELEMENTWISE, "Clip"), OP(ELEMENTWISE, "LeakyRelu"), OP(ELEMENTWISE, "Neg"),
	OP(ELEMENTWISE, "Exp"), OP(ELEMENTWISE, "BiasAdd"), OP(ELEMENTWISE, "Eltwise*"),
	/* device events: kernel, memcpy and memset names */
	K(COMM, "*nccl*"), K(COMM, "*Nccl*"), K(COMM, "*NCCL*"), K(COMM, "*rccl*"),
	K(MEMCPY, "Memcpy*"), K(MEMCPY, "Memset*"), K(MEMCPY, "*memcpy*"), K(MEMCPY, "*memset*"),
	K(MEMCPY, "*direct_copy_kernel*"), K(MEMCPY, "*copy_kernel*"),
	K(TRITON, "triton*"),
	K(SDPA_BWD, "*flash_bwd*"), K(SDPA_BWD, "*fmha*bwd*"), K(SDPA_BWD, "*fmha*backward*"),
	K(SDPA_BWD, "*mha_bwd*"), K(SDPA_BWD, "*attention*backward*"), K(SDPA_BWD, "*attn_bwd*"),
	K(SDPA_FWD, "*flash_fwd*"), K(SDPA_FWD, "*fmha*"), K(SDPA_FWD, "*mha_fwd*"),
	K(SDPA_FWD, "*attention*"), K(SDPA_FWD, "*attn_fwd*"), K(SDPA_FWD, "*flash*"),
	K(CONV_BWD, "*dgrad*"), K(CONV_BWD, "*wgrad*"), K(CONV_BWD, "*backward_data*"),
	K(CONV_BWD, "*backward_filter*"),
	K(CONV_FWD, "*fprop*"), K(CONV_FWD, "*convolve*"), K(CONV_FWD, "*conv2d*"),
	K(CONV_FWD, "*winograd*"), K(CONV_FWD, "*_conv_*"),
	K(NORM, "*bn_fw*"), K(NORM, "*bn_bw*"), K(NORM, "*batch_norm*"), K(NORM, "*layer_norm*"),
	K(NORM, "*rms_norm*"), K(NORM, "*group_norm*"), K(NORM, "*BatchNorm*"),
	K(NORM, "*LayerNorm*"), K(NORM, "*layernorm*"), K(NORM, "*rmsnorm*"), K(NORM, "*RMSNorm*"),
	K(GEMM, "*[Gg][Ee][Mm][Mm]*"), K(GEMM, "*[Gg][Ee][Mm][Vv]*"), K(GEMM, "*cutlass*"),
	K(GEMM, "*cublas*"), K(GEMM, "*Cijk_*"), K(GEMM, "*splitKreduce*"), K(GEMM, "nvjet_*"),
	K(GEMM, "bmm_*"),
	K(REDUCE, "*softmax*"), K(REDUCE, "*Softmax*"), K(REDUCE, "*reduce*"),
	K(REDUCE, "*Reduce*"),
	K(ELEMENTWISE, "*elementwise*"), K(ELEMENTWISE, "*Elementwise*"),
	K(ELEMENTWISE, "*pointwise*"), K(ELEMENTWISE, "*multi_tensor_apply*"),
};

#undef OP
#undef K

const char *osc_category_name(enum osc_category c)
{
	return (unsigned)c < OSC_CAT_NR ? cat_names[c] : cat_names[OSC_CAT_OTHER];
}

bool osc_category_parse(const char *s, enum osc_category *out)
{
	for (int c = 0; c < OSC_CAT_NR; c++) {
		if (!strcmp(s, cat_names[c])) {
			*out = (enum osc_category)c;
			return true;
		}
	}
	return false;
}

void osc_categories_init(struct osc_categories *c)
{
	memset(c, 0, sizeof(*c));
}

void osc_categories_release(struct osc_categories *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->rules[i].pattern);
	free(c->rules);
	osc_categories_init(c);
}

/* The next blank-separated word of *p (advanced past it) into w[size]; its length. */
static size_t next_word(const char **p, const char *end, char *w, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (s < end && *s != ' ' && *s != '\t') {
		if (n + 1 < size)
			w[n] = *s;
		n++;
		s++;
	}
	w[n < size ? n : size - 1] = '\0';
	*p = s;
	return n;
}

/* One line [s, end): a rule added to c, or OSC_USAGE. */
static enum osc_status parse_line(struct osc_categories *c, const char *s, const char *end,
				  const char *subject, size_t line, struct osc_error *err)
{
	char cat[64], kind[16];
	enum osc_category cv;
	struct osc_cat_rule *r;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (s == end || *s == '#')
		return OSC_OK;
	if (next_word(&s, end, cat, sizeof(cat)) >= sizeof(cat) || !osc_category_parse(cat, &cv))
		return osc_error_set(err, OSC_USAGE, subject, OSC_NO_OFFSET, NULL,
				     "line %zu: unknown category '%s'", line, cat);
	next_word(&s, end, kind, sizeof(kind));
	if (strcmp(kind, "op") && strcmp(kind, "kernel"))
		return osc_error_set(err, OSC_USAGE, subject, OSC_NO_OFFSET, NULL,
				     "line %zu: expected 'op' or 'kernel' after the category, not '%s'",
				     line, kind);
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return osc_error_set(err, OSC_USAGE, subject, OSC_NO_OFFSET, NULL,
				     "line %zu: no pattern", line);
	OSC_GROW(c->rules, c->nr + 1, c->alloc);
	r = &c->rules[c->nr++];
	r->cat = (uint8_t)cv;
	r->kind = !strcmp(kind, "op") ? OSC_CAT_KIND_OP : OSC_CAT_KIND_KERNEL;
	r->pattern = osc_xstrndup(s, (size_t)(end - s));
	return OSC_OK;
}

enum osc_status osc_categories_parse(struct osc_categories *c, const char *text,
				     const char *subject, struct osc_error *err)
{
	size_t line = 1;

	for (const char *s = text; *s; line++) {
		const char *nl = strchr(s, '\n');
		const char *end = nl ? nl : s + strlen(s);
		enum osc_status st = parse_line(c, s, end, subject, line, err);

		if (st != OSC_OK)
			return st;
		s = nl ? nl + 1 : end;
	}
	return OSC_OK;
}

enum osc_status osc_categories_load(struct osc_categories *c, const char *path,
				    struct osc_error *err)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0, alloc = 0, got;
	enum osc_status st;

	if (!f)
		return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL, "%s", strerror(errno));
	do {
		OSC_GROW(text, n + 4096 + 1, alloc);
		got = fread(text + n, 1, 4096, f);
		n += got;
	} while (got == 4096);
	text[n] = '\0';
	if (ferror(f) || memchr(text, '\0', n)) {
		fclose(f);
		free(text);
		return osc_error_set(err, OSC_IO, path, OSC_NO_OFFSET, NULL,
				     "not a text file of category rules");
	}
	fclose(f);
	st = osc_categories_parse(c, text, path, err);
	free(text);
	return st;
}

const struct osc_cat_rule *osc_category_builtin(size_t *nr)
{
	*nr = sizeof(builtin) / sizeof(builtin[0]);
	return builtin;
}

/* The user's rules and the built-in ones, indexed (category_index.h). */
static void index_rules(struct osc_cat_index *x, const struct osc_categories *user)
{
	size_t nr;
	const struct osc_cat_rule *b = osc_category_builtin(&nr);

	osc_cat_index_init(x, user, b, nr);
}

enum osc_category osc_category_match(const struct osc_categories *user, enum osc_cat_kind kind,
				     const char *name, size_t len)
{
	struct osc_cat_index x;
	enum osc_category c;

	index_rules(&x, user);
	c = osc_cat_index_match(&x, kind, name, len);
	osc_cat_index_release(&x);
	return c;
}

/* The category of interned string s as a `kind` name, through a per-string memo. */
static uint8_t memo_match(const struct osc_trace *t, const struct osc_cat_index *x,
			  enum osc_cat_kind kind, uint8_t *memo, osc_str s)
{
	if (s >= t->strs.count) /* OSC_STR_NONE: no name */
		return OSC_CAT_OTHER;
	if (memo[s] == UINT8_MAX)
		memo[s] = (uint8_t)osc_cat_index_match(x, kind, osc_strtab_get(&t->strs, s),
						       osc_strtab_len(&t->strs, s));
	return memo[s];
}

void osc_categorize(const struct osc_trace *t, const uint32_t *launcher,
		    const struct osc_categories *user, uint8_t *out)
{
	size_t ns = t->strs.count ? t->strs.count : 1;
	uint8_t *op_memo = osc_xmalloc(ns), *k_memo = osc_xmalloc(ns);
	uint32_t *slot = NULL;      /* per event: its row in acc, for ops named other */
	int64_t (*acc)[OSC_CAT_NR] = NULL;
	size_t nacc = 0, acc_alloc = 0;
	struct osc_cat_index x;

	index_rules(&x, user);
	memset(op_memo, UINT8_MAX, ns);
	memset(k_memo, UINT8_MAX, ns);
	/* ops by name first: the device events read their launcher's */
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		osc_str op = osc_trace_op(t, i);

		out[i] = OSC_CAT_OTHER;
		if (e->kind != OSC_KIND_HOST_OP)
			continue;
		out[i] = memo_match(t, &x, OSC_CAT_KIND_OP, op_memo, op);
		if (out[i] == OSC_CAT_OTHER && e->name != op)
			out[i] = memo_match(t, &x, OSC_CAT_KIND_OP, op_memo, e->name);
	}
	for (size_t i = 0; i < t->nr_events; i++) {
		const struct osc_event *e = &t->events[i];
		uint32_t l = launcher ? launcher[i] : OSC_NONE;
		uint8_t own;

		if (!osc_kind_is_device(e->kind))
			continue;
		own = memo_match(t, &x, OSC_CAT_KIND_KERNEL, k_memo, e->name);
		if (l == OSC_NONE) {
			out[i] = own;
			continue;
		}
		out[i] = out[l] != OSC_CAT_OTHER ? out[l] : own;
		if (out[l] != OSC_CAT_OTHER)
			continue;
		/* the op says nothing: remember its kernels' time per category */
		if (!slot) {
			slot = osc_xmalloc(t->nr_events * sizeof(*slot));
			memset(slot, 0xff, t->nr_events * sizeof(*slot));
		}
		if (slot[l] == OSC_NONE) {
			OSC_GROW(acc, nacc + 1, acc_alloc);
			memset(acc[nacc], 0, sizeof(acc[nacc]));
			slot[l] = (uint32_t)nacc++;
		}
		acc[slot[l]][own] += e->dur;
	}
	for (size_t i = 0; slot && i < t->nr_events; i++) {
		int best = OSC_CAT_OTHER;

		if (slot[i] == OSC_NONE)
			continue;
		for (int c = 0; c < OSC_CAT_NR; c++)
			if (acc[slot[i]][c] > acc[slot[i]][best] ||
			    (acc[slot[i]][c] == acc[slot[i]][best] && c < best &&
			     acc[slot[i]][c] > 0))
				best = c;
		out[i] = (uint8_t)best;
	}
	free(slot);
	free(acc);
	free(op_memo);
	free(k_memo);
	osc_cat_index_release(&x);
}
