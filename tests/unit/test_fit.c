/*
 * test_fit.c - the TUI's column fitting (src/tui/fit.c): texts that differ
 * stay different on screen (issue 16: four cutlass kernels shown as the same
 * "void cutlass::Ke…_align1::Params)", $$ paths of different depths alike).
 */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/columns.h"
#include "fit.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Widths of UTF-8 text need a UTF-8 locale, as the TUI sets it. */
static void utf8_locale(void)
{
	setlocale(LC_CTYPE, "C.UTF-8");
}

TestSuite(fit, .init = utf8_locale);

/* Fit texts at width; every result fits, and differing texts give differing results. */
static void check_distinct(const char *const *texts, size_t n, size_t width, bool utf8)
{
	char **out = calloc(n, sizeof(*out));

	osc_fit_column(texts, n, width, utf8, out);
	for (size_t i = 0; i < n; i++) {
		cr_expect_leq(osc_text_width(out[i], strlen(out[i]), utf8), width, "'%s' at %zu",
			      out[i], width);
		for (size_t j = 0; j < i; j++)
			if (strcmp(texts[i], texts[j]))
				cr_expect_str_neq(out[i], out[j], "'%s' and '%s' both show as '%s'",
						  texts[i], texts[j], out[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(out[i]);
	free(out);
}

static const char *const cutlass[] = {
	"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1>"
	"(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1::Params)",
	"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1>"
	"(cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align1::Params)",
	"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x3_nn_align1>"
	"(cutlass_80_tensorop_s1688gemm_128x64_32x3_nn_align1::Params)",
	"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x128_32x3_nn_align1>"
	"(cutlass_80_tensorop_s1688gemm_64x128_32x3_nn_align1::Params)",
	"ampere_sgemm_128x64_nn",
};

Test(fit, cutlass_kernels_stay_distinct)
{
	for (size_t w = 8; w <= 60; w++) {
		check_distinct(cutlass, LEN(cutlass), w, true);
		check_distinct(cutlass, LEN(cutlass), w, false);
	}
}

Test(fit, the_distinguishing_part_is_shown)
{
	char *out[LEN(cutlass)];

	osc_fit_column(cutlass, LEN(cutlass), 27, true, out);
	cr_expect(strstr(out[1], "64x64") != NULL, "%s", out[1]);
	cr_expect_str_eq(out[4], "ampere_sgemm_128x64_nn"); /* it fits: as is */
	for (size_t i = 0; i < LEN(cutlass); i++)
		free(out[i]);
}

static const char *const paths[] = {
	"autograd::engine::evaluate_function: MmBackward0$$MmBackward0$$aten::mm",
	"autograd::engine::evaluate_function: AddmmBackward0$$AddmmBackward0$$aten::mm",
	"forward$$aten::linear$$aten::addmm",
	"forward$$aten::linear$$aten::matmul$$aten::mm",
	"forward$$aten::linear$$aten::matmul$$aten::bmm$$aten::mm",
	"forward$$aten::cat",
};

Test(fit, paths_keep_their_leaf_and_stay_distinct)
{
	char *one = osc_fit_text(paths[3], 27, true);

	cr_expect(strstr(one, "$$aten::mm") && strlen(strstr(one, "$$aten::mm")) == 10, "%s",
		  one);
	cr_expect_str_eq(one, "forward\xe2\x80\xa6n::matmul$$aten::mm");
	free(one);
	for (size_t w = 8; w <= 50; w++)
		check_distinct(paths, LEN(paths), w, true);
}

Test(fit, fitting_texts_and_equal_texts_are_left_alone)
{
	static const char *const t[] = { "aten::mm", "aten::mm", "Conv" };
	char *out[3];

	cr_expect_not(osc_fit_column(t, 3, 10, true, out));
	for (size_t i = 0; i < 3; i++) {
		cr_expect_str_eq(out[i], t[i]);
		free(out[i]);
	}
}

Test(fit, utf8_is_cut_on_characters)
{
	static const char *const t[] = { "\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9-aaaa-\xc3\xa9t\xc3\xa9-x1",
					 "\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9-aaaa-\xc3\xa9t\xc3\xa9-x2",
					 "\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9-bbbb-\xc3\xa9t\xc3\xa9-x1" };

	for (size_t w = 8; w <= 20; w++)
		check_distinct(t, 3, w, true);
}
