/* test_demangle.c - demangled, mangled and short kernel names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/demangle.h"
#include "trace_fixture.h"

static void expect_demangle(const char *mangled, const char *want)
{
	char *got = osc_demangle(mangled);

	cr_assert_not_null(got, "%s not demangled", mangled);
	cr_expect_str_eq(got, want);
	free(got);
}

/* Expected texts are c++filt's (binutils) output for the same names. */
Test(demangle, known_names)
{
	expect_demangle("_Z13conv2d_kernelIfLi128EEvPKT_PS0_i",
			"void conv2d_kernel<float, 128>(float const*, float*, int)");
	expect_demangle("_Z11relu_kernelIfEvPT_i", "void relu_kernel<float>(float*, int)");
	expect_demangle("_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE",
			"void cutlass::Kernel<cutlass::gemm::kernel::Gemm<float> >"
			"(cutlass::gemm::kernel::Gemm<float>::Params)");
	expect_demangle("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_"
			"6detail5ArrayIPcLi1EEEEEviT0_T1_",
			"void at::native::vectorized_elementwise_kernel<4, "
			"at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
			"at::native::FillFunctor<float>, at::detail::Array<char*, 1>)");
}

Test(demangle, not_cpp)
{
	cr_expect_null(osc_demangle("volta_sgemm_128x64_nn"));
	cr_expect_null(osc_demangle("triton_poi_fused_0"));
	cr_expect_null(osc_demangle(""));
	cr_expect_null(osc_demangle("_Z")); /* damaged: not an error, just not C++ */
}

static void expect_base(const char *demangled, const char *want)
{
	char *got = osc_demangle_base(demangled);

	cr_expect_str_eq(got, want, "base of %s", demangled);
	free(got);
}

Test(demangle, short_names)
{
	expect_base("void conv2d_kernel<float, 128>(float const*, float*, int)", "conv2d_kernel");
	expect_base("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<"
		    "float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
		    "at::detail::Array<char*, 1>)",
		    "at::native::vectorized_elementwise_kernel");
	expect_base("void at::native::(anonymous namespace)::softmax_warp_forward<float, float, "
		    "float, 10, false, false>(float*, float const*, int, int, int, bool const*, "
		    "int, bool)",
		    "at::native::(anonymous namespace)::softmax_warp_forward");
	expect_base("unsigned int foo::bar<int>(int) const", "foo::bar");
	expect_base("bool operator< <int>(int, int)", "operator<");
	expect_base("plain_name", "plain_name");
}

/* One trace: a mangled kernel, a plain one, a demangled Kineto one and an op. */
Test(demangle, names_of_a_trace)
{
	static const struct fx_event ev[] = {
		FX("_Z11relu_kernelIfEvPT_i", KERNEL, 0, 5),
		FX("volta_sgemm_128x64_nn", KERNEL, 10, 5),
		FX("void at::native::reduce_kernel<512, 1>(int)", KERNEL, 20, 5),
		FX("_Z3opsv", HOST_OP, 30, 5), /* ops are never demangled */
		FX("ncclKernel_AllReduce(ncclDevComm*, int)", KERNEL, 40, 5), /* extern "C" */
	};
	struct osc_trace t;
	struct osc_names n;
	struct osc_error err;
	osc_str relu, sgemm, reduce, op, nccl;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	relu = fx_str(&t, "_Z11relu_kernelIfEvPT_i");
	sgemm = fx_str(&t, "volta_sgemm_128x64_nn");
	reduce = fx_str(&t, "void at::native::reduce_kernel<512, 1>(int)");
	op = fx_str(&t, "_Z3opsv");
	nccl = fx_str(&t, "ncclKernel_AllReduce(ncclDevComm*, int)");
	osc_names_init(&n);
	cr_assert_eq(osc_names_build(&n, &t, NULL, &err), OSC_OK);
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "void relu_kernel<float>(float*, int)");
	cr_expect_str_eq(osc_names_get(&n, &t, sgemm), "volta_sgemm_128x64_nn");
	cr_expect_str_eq(osc_names_get(&n, &t, op), "_Z3opsv");
	n.style = OSC_NAMES_SHORT;
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "relu_kernel");
	cr_expect_str_eq(osc_names_get(&n, &t, reduce), "at::native::reduce_kernel");
	cr_expect_str_eq(osc_names_get(&n, &t, sgemm), "volta_sgemm_128x64_nn");
	cr_expect_str_eq(osc_names_get(&n, &t, nccl), "ncclKernel_AllReduce");
	n.style = OSC_NAMES_MANGLED;
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "_Z11relu_kernelIfEvPT_i");
	cr_expect_str_eq(osc_names_get(NULL, &t, relu), "_Z11relu_kernelIfEvPT_i");
	/* An external demangler: one process, same texts as libiberty's. */
	if (!access("/usr/bin/c++filt", X_OK)) {
		n.style = OSC_NAMES_DEMANGLED;
		cr_assert_eq(osc_names_build(&n, &t, "c++filt", &err), OSC_OK);
		cr_expect_str_eq(osc_names_get(&n, &t, relu),
				 "void relu_kernel<float>(float*, int)");
		cr_expect_str_eq(osc_names_get(&n, &t, sgemm), "volta_sgemm_128x64_nn");
	}
	/* A command that fails, or answers the wrong number of lines, is an error. */
	cr_expect_eq(osc_names_build(&n, &t, "false", &err), OSC_IO);
	cr_expect_str_eq(err.subject, "--demangler");
	cr_expect_eq(osc_names_build(&n, &t, "head -n 1", &err), OSC_IO);
	cr_expect(strstr(err.message, "1 lines for 4 names") != NULL, "%s", err.message);
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "_Z11relu_kernelIfEvPT_i");
	osc_names_release(&n);
	osc_trace_release(&t);
}

/* The row of kernels shown as `name` in n's style; fails the test when there is none. */
static const struct osc_agg_row *row_shown(const struct osc_trace *t, const struct osc_names *n,
					   const struct osc_agg *a, const char *name)
{
	for (size_t i = 0; i < a->nr; i++)
		if (!strcmp(osc_names_get(n, t, a->rows[i].key), name))
			return &a->rows[i];
	cr_assert_fail("no row '%s'", name);
	return NULL;
}

/*
 * One row per name shown: a kernel recorded mangled and demangled is one
 * row when demangled, every instantiation of a template one row with short
 * names, and each name its own row as recorded (nsys stats' :base).
 */
Test(demangle, one_row_per_name_shown)
{
	static const struct fx_event ev[] = {
		FX("_Z11relu_kernelIfEvPT_i", KERNEL, 0, 5),
		FX("void relu_kernel<float>(float*, int)", KERNEL, 10, 7),
		FX("_Z11relu_kernelIdEvPT_i", KERNEL, 20, 11),
		FX("volta_sgemm_128x64_nn", KERNEL, 30, 13),
		FX("relu_kernel", HOST_OP, 40, 17), /* an op: keyed as it is */
	};
	static const struct {
		enum osc_name_style style;
		size_t rows;
		const char *name;
		size_t count;
		int64_t total;
	} want[] = {
		{ OSC_NAMES_DEMANGLED, 3, "void relu_kernel<float>(float*, int)", 2, 12 },
		{ OSC_NAMES_SHORT, 2, "relu_kernel", 3, 23 },
		{ OSC_NAMES_MANGLED, 4, "_Z11relu_kernelIfEvPT_i", 1, 5 },
	};
	struct osc_trace t;
	struct osc_names n;
	struct osc_error err;
	osc_str f_mangled, f_demangled, d_mangled, sgemm, op;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	f_mangled = fx_str(&t, "_Z11relu_kernelIfEvPT_i");
	f_demangled = fx_str(&t, "void relu_kernel<float>(float*, int)");
	d_mangled = fx_str(&t, "_Z11relu_kernelIdEvPT_i");
	sgemm = fx_str(&t, "volta_sgemm_128x64_nn");
	op = fx_str(&t, "relu_kernel");
	osc_names_init(&n);
	cr_expect_eq(osc_names_key(&n, f_demangled), f_demangled, "nothing built: as recorded");
	cr_assert_eq(osc_names_build(&n, &t, NULL, &err), OSC_OK);
	/* the least id of each name shown */
	cr_expect_eq(osc_names_key(&n, f_demangled), osc_names_key(&n, f_mangled));
	cr_expect_eq(osc_names_key(&n, f_mangled),
		     f_mangled < f_demangled ? f_mangled : f_demangled);
	cr_expect_eq(osc_names_key(&n, d_mangled), d_mangled);
	cr_expect_eq(osc_names_key(&n, op), op);
	n.style = OSC_NAMES_SHORT;
	cr_expect_eq(osc_names_key(&n, d_mangled), osc_names_key(&n, f_mangled));
	cr_expect_eq(osc_names_key(&n, sgemm), sgemm);
	cr_expect_eq(osc_names_key(&n, op), op, "an op named as a short kernel name");
	n.style = OSC_NAMES_MANGLED;
	cr_expect_eq(osc_names_key(&n, f_demangled), f_demangled);
	cr_expect_eq(osc_names_key(NULL, f_mangled), f_mangled);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct osc_query q = { .level = OSC_LEVEL_KERNEL, .names = &n };
		const struct osc_agg_row *r;
		struct osc_agg a;

		n.style = want[i].style;
		osc_aggregate(&t, NULL, &q, &a);
		cr_expect_eq(a.nr, want[i].rows, "%s: %zu rows", osc_name_style_name(n.style), a.nr);
		cr_expect_eq(a.key_style, want[i].style);
		cr_expect_eq(a.device_time, 36, "the rows merge, the time stays");
		r = row_shown(&t, &n, &a, want[i].name);
		cr_expect_eq(r->nr, want[i].count, "%s: %s", osc_name_style_name(n.style),
			     want[i].name);
		cr_expect_eq(osc_agg_value(&a, (size_t)(r - a.rows), OSC_STAT_TOTAL),
			     (double)want[i].total);
		osc_agg_release(&a);
	}
	osc_names_release(&n);
	osc_trace_release(&t);
}
