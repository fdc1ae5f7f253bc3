/* test_demangle.c - demangled, mangled and short kernel names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

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
	};
	struct osc_trace t;
	struct osc_names n;
	struct osc_error err;
	osc_str relu, sgemm, reduce, op;

	fx_build(&t, OSC_FORMAT_KINETO, ev, FX_LEN(ev));
	relu = fx_str(&t, "_Z11relu_kernelIfEvPT_i");
	sgemm = fx_str(&t, "volta_sgemm_128x64_nn");
	reduce = fx_str(&t, "void at::native::reduce_kernel<512, 1>(int)");
	op = fx_str(&t, "_Z3opsv");
	osc_names_init(&n);
	cr_assert_eq(osc_names_build(&n, &t, NULL, &err), OSC_OK);
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "void relu_kernel<float>(float*, int)");
	cr_expect_str_eq(osc_names_get(&n, &t, sgemm), "volta_sgemm_128x64_nn");
	cr_expect_str_eq(osc_names_get(&n, &t, op), "_Z3opsv");
	n.style = OSC_NAMES_SHORT;
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "relu_kernel");
	cr_expect_str_eq(osc_names_get(&n, &t, reduce), "at::native::reduce_kernel");
	cr_expect_str_eq(osc_names_get(&n, &t, sgemm), "volta_sgemm_128x64_nn");
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
	cr_expect(strstr(err.message, "1 lines for 3 names") != NULL, "%s", err.message);
	cr_expect_str_eq(osc_names_get(&n, &t, relu), "_Z11relu_kernelIfEvPT_i");
	osc_names_release(&n);
	osc_trace_release(&t);
}
