/* test_category.c - the built-in category table, user rule files and their errors. */
#include <criterion/criterion.h>
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
		cr_expect_eq(got, c);
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
