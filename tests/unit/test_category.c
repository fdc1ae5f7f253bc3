/* test_category.c - the built-in category table, user rule files and their errors. */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/analysis/category.h"

static const char *cat(const struct osc_categories *u, enum osc_cat_kind k, const char *name)
{
	return osc_category_name(osc_category_match(u, k, name, strlen(name)));
}

/* name, kind, expected category: first match of the table wins */
static const struct {
	const char *name;
	enum osc_cat_kind kind;
	const char *want;
} cases[] = {
	{ "aten::mm", OSC_CAT_KIND_OP, "GEMM" },
	{ "aten::addmm", OSC_CAT_KIND_OP, "GEMM" },
	{ "aten::linear", OSC_CAT_KIND_OP, "GEMM" },
	{ "aten::mmx", OSC_CAT_KIND_OP, "other" }, /* exact, not a prefix */
	{ "aten::cudnn_convolution", OSC_CAT_KIND_OP, "CONV_fwd" },
	{ "aten::convolution_backward", OSC_CAT_KIND_OP, "CONV_bwd" },
	{ "aten::_scaled_dot_product_flash_attention", OSC_CAT_KIND_OP, "SDPA_fwd" },
	{ "aten::_scaled_dot_product_flash_attention_backward", OSC_CAT_KIND_OP, "SDPA_bwd" },
	{ "aten::native_layer_norm", OSC_CAT_KIND_OP, "norm" },
	{ "aten::native_layer_norm_backward", OSC_CAT_KIND_OP, "norm" },
	{ "aten::add_", OSC_CAT_KIND_OP, "elementwise" },
	{ "aten::_softmax", OSC_CAT_KIND_OP, "reduce" },
	{ "nccl:all_reduce", OSC_CAT_KIND_OP, "communication" },
	{ "record_param_comms", OSC_CAT_KIND_OP, "communication" },
	{ "aten::copy_", OSC_CAT_KIND_OP, "memcpy/memset" },
	{ "MatMul", OSC_CAT_KIND_OP, "GEMM" },
	{ "ProfilerStep#3", OSC_CAT_KIND_OP, "other" },
	{ "volta_sgemm_128x64_nn", OSC_CAT_KIND_KERNEL, "GEMM" },
	{ "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", OSC_CAT_KIND_KERNEL, "GEMM" },
	{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>(Params)", OSC_CAT_KIND_KERNEL, "GEMM" },
	{ "sm80_xmma_fprop_implicit_gemm_f16f16", OSC_CAT_KIND_KERNEL, "CONV_fwd" },
	{ "sm80_xmma_dgrad_implicit_gemm_f16f16", OSC_CAT_KIND_KERNEL, "CONV_bwd" },
	{ "flash_fwd_kernel<Flash_fwd_kernel_traits>", OSC_CAT_KIND_KERNEL, "SDPA_fwd" },
	{ "flash_bwd_dq_dk_dv_loop_kernel", OSC_CAT_KIND_KERNEL, "SDPA_bwd" },
	{ "cudnn::bn_fw_tr_1C11_kernel_NCHW", OSC_CAT_KIND_KERNEL, "norm" },
	{ "void at::native::vectorized_elementwise_kernel<4, AddFunctor>", OSC_CAT_KIND_KERNEL,
	  "elementwise" },
	{ "void at::native::reduce_kernel<512, 1>", OSC_CAT_KIND_KERNEL, "reduce" },
	{ "triton_poi_fused_add_0", OSC_CAT_KIND_KERNEL, "triton" },
	{ "ncclKernel_AllReduce_RING_LL_Sum_float", OSC_CAT_KIND_KERNEL, "communication" },
	{ "Memcpy HtoD (Pageable -> Device)", OSC_CAT_KIND_KERNEL, "memcpy/memset" },
	{ "Memset (Device)", OSC_CAT_KIND_KERNEL, "memcpy/memset" },
	{ "some_custom_kernel", OSC_CAT_KIND_KERNEL, "other" },
	{ "aten::mm", OSC_CAT_KIND_KERNEL, "other" }, /* op rows never match kernels */
};

Test(category, builtin_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_str_eq(cat(NULL, cases[i].kind, cases[i].name), cases[i].want, "%s",
				 cases[i].name);
}

Test(category, names_round_trip)
{
	for (int c = 0; c < OSC_CAT_NR; c++) {
		enum osc_category got;

		cr_assert(osc_category_parse(osc_category_name((enum osc_category)c), &got));
		cr_expect_eq(got, (enum osc_category)c);
	}
	cr_expect_not(osc_category_parse("gemm", &(enum osc_category){ 0 }), "case-sensitive");
}

Test(category, user_rules_come_first)
{
	struct osc_categories u;
	struct osc_error err;

	osc_categories_init(&u);
	cr_assert_eq(osc_categories_parse(&u,
					  "# my rules\n\nreduce op aten::mm\n"
					  "triton kernel my_fused_*  \r\n"
					  "\tGEMM\top\tMy Matmul Op\n",
					  "rules.txt", &err),
		     OSC_OK, "%s", err.message);
	cr_expect_eq(u.nr, 3);
	cr_expect_str_eq(cat(&u, OSC_CAT_KIND_OP, "aten::mm"), "reduce");
	cr_expect_str_eq(cat(&u, OSC_CAT_KIND_OP, "aten::addmm"), "GEMM", "table still used");
	cr_expect_str_eq(cat(&u, OSC_CAT_KIND_KERNEL, "my_fused_gemm"), "triton");
	cr_expect_str_eq(cat(&u, OSC_CAT_KIND_OP, "my_fused_gemm"), "other", "kind matters");
	cr_expect_str_eq(cat(&u, OSC_CAT_KIND_OP, "My Matmul Op"), "GEMM", "pattern to the end");
	osc_categories_release(&u);
}

Test(category, bad_lines_name_the_line)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "GEMM op aten::mm\nFOO op x\n", "line 2: unknown category 'FOO'" },
		{ "GEMM thing x\n", "line 1: expected 'op' or 'kernel'" },
		{ "\n\nnorm kernel   \n", "line 3: no pattern" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct osc_categories u;
		struct osc_error err;

		osc_categories_init(&u);
		cr_expect_eq(osc_categories_parse(&u, bad[i].text, "r.txt", &err), OSC_USAGE);
		cr_expect_str_eq(err.subject, "r.txt");
		cr_expect(strstr(err.message, bad[i].msg), "%s", err.message);
		osc_categories_release(&u);
	}
}

Test(category, load_file)
{
	char path[] = "/tmp/opscope-cat-XXXXXX";
	int fd = mkstemp(path);
	struct osc_categories u;
	struct osc_error err;
	FILE *f;

	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	fputs("communication kernel *myAllReduce*\nGEMM oops x\n", f);
	fclose(f);
	osc_categories_init(&u);
	cr_expect_eq(osc_categories_load(&u, path, &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, path);
	cr_expect(strstr(err.message, "line 2: expected 'op' or 'kernel'"), "%s", err.message);
	cr_expect_eq(u.nr, 1, "the lines before the bad one are kept");
	osc_categories_release(&u);
	unlink(path);
	cr_expect_eq(osc_categories_load(&u, path, &err), OSC_IO);
}

/*
 * The plain loop of category.h, written from its definition: the first user
 * rule of the kind that matches, else the first built-in one; a pattern with
 * * ? or [ is an fnmatch wildcard, any other matches the whole name only.
 */
static const char *plain_match(const struct osc_categories *u, enum osc_cat_kind k,
			       const char *name)
{
	size_t nb;
	const struct osc_cat_rule *b = osc_category_builtin(&nb);
	size_t nu = u ? u->nr : 0;

	for (size_t i = 0; i < nu + nb; i++) {
		const struct osc_cat_rule *r = i < nu ? &u->rules[i] : &b[i - nu];
		bool wild = strpbrk(r->pattern, "*?[") != NULL;

		if (r->kind == k && (wild ? !fnmatch(r->pattern, name, 0) : !strcmp(r->pattern, name)))
			return osc_category_name((enum osc_category)r->cat);
	}
	return "other";
}

static uint32_t rng_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * A name near pattern p: each * replaced by a piece (maybe empty), each ?
 * by a byte, a bracket kept or dropped, and now and then a byte changed or
 * the name cut, so that names just inside and just outside a rule appear.
 */
static void name_near(const char *p, uint32_t *s, char *out, size_t size)
{
	static const char *const pieces[] = { "", "x", "_", "aten::", "gemm", "Attention",
					      "nccl", "::", "kernel<", "Backward", "[", "*" };
	size_t n = 0;

	for (; *p && n + 16 < size; p++) {
		const char *piece = NULL;
		char one[2] = { *p, 0 };

		if (*p == '*')
			piece = pieces[rng_next(s) % (sizeof(pieces) / sizeof(pieces[0]))];
		else if (*p == '?')
			one[0] = (char)('a' + rng_next(s) % 26);
		else if (*p == '[' && rng_next(s) % 2)
			one[0] = p[1] ? p[1] : 'x';
		piece = piece ? piece : one;
		n += (size_t)snprintf(out + n, size - n, "%s", piece);
	}
	out[n] = '\0';
	if (n && rng_next(s) % 4 == 0)
		out[rng_next(s) % n] = (char)('A' + rng_next(s) % 58);
	if (n && rng_next(s) % 5 == 0)
		out[rng_next(s) % n] = '\0';
}

/* osc_category_match (the indexed rules) against the plain loop on names near every rule. */
static void match_like_plain_loop(const struct osc_categories *u)
{
	size_t nb;
	const struct osc_cat_rule *b = osc_category_builtin(&nb);
	size_t nu = u ? u->nr : 0, checked = 0;
	uint32_t seed = 2463534242u;
	char name[256];

	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < nu + nb; i++) {
			name_near(i < nu ? u->rules[i].pattern : b[i - nu].pattern, &seed, name,
				  sizeof(name));
			for (int k = 0; k < 2; k++, checked++)
				cr_assert_str_eq(cat(u, (enum osc_cat_kind)k, name),
						 plain_match(u, (enum osc_cat_kind)k, name),
						 "%s (kind %d)", name, k);
		}
	}
	cr_expect_gt(checked, 8000);
}

Test(category, index_matches_the_plain_loop)
{
	struct osc_categories u;
	struct osc_error err;

	match_like_plain_loop(NULL);
	osc_categories_init(&u);
	cr_assert_eq(osc_categories_parse(&u,
					  "reduce op \\*lit*\nnorm op a?c\nGEMM kernel [ab]x*\n"
					  "triton kernel *\\[x*\nCONV_fwd op x\\\nSDPA_fwd op ?*z\n"
					  "communication kernel [!n]ccl*\nmemcpy/memset op [[:upper:]]*s\n",
					  "rules.txt", &err),
		     OSC_OK, "%s", err.message);
	match_like_plain_loop(&u);
	osc_categories_release(&u);
}
