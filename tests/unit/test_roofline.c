/*
 * test_roofline.c - the work formulas of roofline.h, worked out by hand, and
 * the device peak table.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/roofline.h"

static bool work(const char *op, const char *shape, struct osc_work *w)
{
	return osc_work_of(op, strlen(op), shape, strlen(shape), NULL, w);
}

/* The work of a call whose args hold Concrete Inputs ci (a JSON array's items). */
static bool work_ci(const char *op, const char *shape, const char *ci, struct osc_work *w)
{
	char args[512];

	snprintf(args, sizeof(args), "{\"External id\":7,\"Concrete Inputs\":[%s]}", ci);
	return osc_work_of(op, strlen(op), shape, strlen(shape), args, w);
}

/* op, shape string, expected flops and bytes per call, dtype class */
static const struct {
	const char *op, *shape;
	double flops, bytes;
	enum osc_dtype dtype;
} known[] = {
	/* BERT's addmm: M=141 K=512 N=512; 2MNK + MN (bias add) = 73924608 + 72192;
	   bytes 2 * (141*512 + 512*512 + 141*512 out + 512 bias) */
	{ "aten::addmm", "c10::BFloat16(512),c10::BFloat16(141x512),c10::BFloat16(512x512),"
	  "Scalar(),Scalar()", 73996800, 814080, OSC_DTYPE_FP16 },
	/* its aten::linear: the same work */
	{ "aten::linear", "c10::BFloat16(1x141x512),c10::BFloat16(512x512),c10::BFloat16(512)",
	  73996800, 814080, OSC_DTYPE_FP16 },
	/* no bias: 2*10*4*3; 4 * (30 + 12 + 40) */
	{ "aten::linear", "float(10x3),float(4x3),()", 240, 328, OSC_DTYPE_FP32 },
	/* 2*8*2*4; 4 * (32 + 8 + 16) */
	{ "aten::mm", "float(8x4),float(4x2)", 128, 224, OSC_DTYPE_FP32 },
	/* batch 3: 2*3*8*2*4; 4 * (96 + 24 + 48) */
	{ "aten::bmm", "float(3x8x4),float(3x4x2)", 384, 672, OSC_DTYPE_FP32 },
	/* + 3*8*2 bias adds; + 48 elements of bias read */
	{ "aten::baddbmm", "float(3x8x2),float(3x8x4),float(3x4x2),Scalar(),Scalar()", 432, 864,
	  OSC_DTYPE_FP32 },
	/* Qwen's rotary matmul: M=32 K=1 N=559; 4 * (32 + 559 + 32*559) */
	{ "aten::matmul", "float(1x32x1),float(1x1x559)", 35776, 73916, OSC_DTYPE_FP32 },
	/* 1-D A is 1 x K: 2*1*3*5; 4 * (5 + 15 + 3) */
	{ "aten::matmul", "float(5),float(5x3)", 30, 92, OSC_DTYPE_FP32 },
	/* batch (2,1) with (3) broadcasts to 2x3 = 6: 2*6*4*6*5; 4 * (40 + 90 + 6*4*6) */
	{ "aten::matmul", "float(2x1x4x5),float(3x5x6)", 1440, 1096, OSC_DTYPE_FP32 },
	{ "MatMul", "float(5),float(5x3)", 30, 92, OSC_DTYPE_FP32 },
	/* elementwise: n(out) flops; tensors read + out written */
	{ "aten::add", "c10::BFloat16(1x141x512),c10::BFloat16(1x141x512),Scalar()", 72192,
	  433152, OSC_DTYPE_FP16 },
	/* a 0-dim double is one element of 8 bytes: 35776*4 + 8 + 35776*4 */
	{ "aten::mul", "float(1x559x64),double()", 35776, 286216, OSC_DTYPE_FP32 },
	{ "aten::relu_", "c10::BFloat16(10x512x7x7)", 250880, 1003520, OSC_DTYPE_FP16 },
	/* pow(Tensor, Scalar): unary */
	{ "aten::pow", "c10::BFloat16(16x559x1024),Scalar()", 9158656, 36634624, OSC_DTYPE_FP16 },
	{ "aten::threshold_backward", "float(2x3),float(2x3),Scalar()", 6, 72, OSC_DTYPE_FP32 },
	/* copy_(dst bf16, src fp32): no FLOP, 2*6 written + 4*6 read */
	{ "aten::copy_", "c10::BFloat16(2x3),float(2x3),Scalar()", 0, 36, OSC_DTYPE_FP16 },
	{ "aten::fill_", "float(1000),Scalar()", 0, 4000, OSC_DTYPE_FP32 },
		/* broadcast (4x1) with (3): out 4x3 */
	{ "aten::sub", "float(4x1),float(3)", 12, 4 * (4 + 3 + 12), OSC_DTYPE_FP32 },
};

Test(roofline, formulas_worked_by_hand)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		struct osc_work w;

		cr_expect(work(known[i].op, known[i].shape, &w), "%s %s: unknown", known[i].op,
			  known[i].shape);
		cr_expect_eq(w.flops, known[i].flops, "%s %s: flops %.0f, want %.0f", known[i].op,
			     known[i].shape, w.flops, known[i].flops);
		cr_expect_eq(w.bytes, known[i].bytes, "%s %s: bytes %.0f, want %.0f", known[i].op,
			     known[i].shape, w.bytes, known[i].bytes);
		cr_expect_eq(w.dtype, known[i].dtype, "%s %s: dtype %s", known[i].op,
			     known[i].shape, osc_dtype_name(w.dtype));
	}
}

/* Never a guess: these are unknown. */
static const struct {
	const char *op, *shape;
} unknown[] = {
	{ "aten::conv2d", "c10::BFloat16(10x256x14x14),c10::BFloat16(512x256x3x3),(),"
	  "ScalarList(),ScalarList(),ScalarList(),Scalar()" }, /* no stride/padding */
	{ "aten::mm", "float(8x4),float(5x2)" },         /* K differs */
	{ "aten::mm", "float(8x4),Scalar()" },           /* not a tensor */
	{ "aten::mm", "c10::Foo(8x4),c10::Foo(4x2)" },   /* unknown element type */
	{ "aten::mm", "float(-1x4),float(4x2)" },        /* symbolic dim */
	{ "aten::mm", "" },
	{ "aten::mm_", "float(8x4),float(4x2)" },        /* no in-place mm */
	{ "aten::mmx", "float(8x4),float(4x2)" },
	{ "aten::addmm", "(),float(8x4),float(4x2)" },   /* no bias tensor */
	{ "aten::bmm", "float(3x8x4),float(2x4x2)" },    /* batch differs */
	{ "aten::matmul", "float(2x4x5),float(3x5x6)" }, /* batch does not broadcast */
	{ "aten::add", "Scalar(),Scalar()" },
	{ "aten::add", "float(3x4),float(5)" },          /* does not broadcast */
	{ "aten::add_", "TensorList([2],[3]),TensorList([2],[3]),Scalar()" },
	{ "aten::scaled_dot_product_attention", "float(8x141x64),float(8x141x64),float(8x141x64)" },
	{ "aten::scaled_dot_product_attention", /* is_causal unknown without Concrete Inputs */
	  "c10::BFloat16(1x8x141x64),c10::BFloat16(1x8x141x64),c10::BFloat16(1x8x141x64),(),"
	  "Scalar(),Scalar(),(),Scalar()" },
	{ "aten::addmm", "float(2),float(8x4" },         /* cut */
	{ "aten::copy_", "Scalar(),float(2x3)" },         /* nothing written */
	{ "aten::copy_", "TensorList([2]),float(2)" },
};

Test(roofline, unknown_is_never_guessed)
{
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		struct osc_work w = { 1, 1, 1, 1 };

		cr_expect(!work(unknown[i].op, unknown[i].shape, &w), "%s %s: known", unknown[i].op,
			  unknown[i].shape);
		cr_expect(w.flops == 0 && w.bytes == 0 && w.family == OSC_WORK_NONE);
	}
}

/* Convolution and attention: their Concrete Inputs complete the shape string. */
#define BERT_QKV "c10::BFloat16(1x8x141x64),c10::BFloat16(1x8x141x64),c10::BFloat16(1x8x141x64)"
static const struct {
	const char *op, *shape, *ci;
	double flops, bytes;
	enum osc_dtype dtype;
} with_args[] = {
	/* ResNet's stride-2 conv (MI300 trace): X 10x256x14x14, W 512x256x3x3,
	   stride 2, padding 1: out floor((14 + 2 - 2 - 1) / 2) + 1 = 7;
	   2 * 10*512*7*7 * 256*3*3 = 1156055040;
	   bytes 2 * (10*256*14*14 + 512*256*3*3 + 10*512*7*7) */
	{ "aten::conv2d", "c10::BFloat16(10x256x14x14),c10::BFloat16(512x256x3x3),(),"
	  "ScalarList(),ScalarList(),ScalarList(),Scalar()",
	  "\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"1\"", 1156055040, 3864576,
	  OSC_DTYPE_FP16 },
	/* the same call one level down: miopen's padding comes before stride */
	{ "aten::miopen_convolution", "c10::BFloat16(10x256x14x14),c10::BFloat16(512x256x3x3),(),"
	  "ScalarList(),ScalarList(),ScalarList(),Scalar(),Scalar(),Scalar()",
	  "\"\",\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\",\"False\",\"False\"",
	  1156055040, 3864576, OSC_DTYPE_FP16 },
	/* 1-D, padding 2, dilation 2, a bias: out (10 + 4 - 2*2 - 1) / 1 + 1 = 10;
	   2 * 2*6*10 * 4*3 = 2880, + 2*6*10 bias adds = 3000;
	   bytes 4 * (2*4*10 + 6*4*3 + 6 + 2*6*10) */
	{ "aten::conv1d", "float(2x4x10),float(6x4x3),float(6),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[1]\",\"[2]\",\"[2]\",\"1\"", 3000, 1112,
	  OSC_DTYPE_FP32 },
	/* 4 groups, stride "[2]" for both dims: Cin/g = 2, out (5 - 2 - 1) / 2 + 1 = 2;
	   2 * 1*4*2*2 * 2*3*3 = 576; bytes 4 * (8*5*5 + 4*2*3*3 + 4*2*2) */
	{ "aten::conv2d", "float(1x8x5x5),float(4x2x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[2]\",\"[0, 0]\",\"[1, 1]\",\"4\"", 576,
	  1152, OSC_DTYPE_FP32 },
	/* transposed: W Cin x Cout/g = 4x2, stride 2, padding 1, output_padding 1:
	   out (3 - 1)*2 - 2 + 1*2 + 1 + 1 = 6; per input element 2 * 2*3*3:
	   2 * 1*4*3*3 * 2*3*3 = 1296; bytes 4 * (4*3*3 + 4*2*3*3 + 2*6*6) */
	{ "aten::convolution", "float(1x4x3x3),float(4x2x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar(),ScalarList(),Scalar()",
	  "\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"True\",\"[1, 1]\",\"1\"", 1296,
	  720, OSC_DTYPE_FP32 },
	/* 3-D, stride 2: out (4 - 1 - 1) / 2 + 1 = 2 per dim; 2 * 3*8 * 2*8 = 768;
	   bytes 2 * (2*64 + 3*2*8 + 3*8) */
	{ "aten::_convolution", "c10::Half(1x2x4x4x4),c10::Half(3x2x2x2x2),(),ScalarList(),"
	  "ScalarList(),ScalarList(),Scalar(),ScalarList(),Scalar(),Scalar(),Scalar(),Scalar(),"
	  "Scalar()", "\"\",\"\",\"\",\"[2, 2, 2]\",\"[0, 0, 0]\",\"[1, 1, 1]\",\"False\","
	  "\"[0, 0, 0]\",\"1\",\"False\",\"False\",\"True\",\"True\"", 768, 400, OSC_DTYPE_FP16 },
	/* BERT's attention, B=1 H=8 L=141 D=64, not causal: 4*8*141*141*64;
	   4 tensors of 144384 bytes */
	{ "aten::scaled_dot_product_attention", BERT_QKV ",(),Scalar(),Scalar(),(),Scalar()",
	  "\"\",\"\",\"\",\"\",\"0.\",\"False\",\"\",\"False\"", 40716288, 577536,
	  OSC_DTYPE_FP16 },
	/* causal, Lq = Lk: half of it (the diagonal not counted apart); same bytes */
	{ "aten::scaled_dot_product_attention", BERT_QKV ",(),Scalar(),Scalar(),(),Scalar()",
	  "\"\",\"\",\"\",\"\",\"0.\",\"True\",\"\",\"False\"", 20358144, 577536,
	  OSC_DTYPE_FP16 },
	{ "aten::_scaled_dot_product_flash_attention", BERT_QKV ",Scalar(),Scalar(),Scalar(),Scalar()",
	  "\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"0.125\"", 20358144, 577536,
	  OSC_DTYPE_FP16 },
	/* flash's B x L x H x D layout, is_causal 9th */
	{ "aten::_flash_attention_forward",
	  "c10::BFloat16(1x141x8x64),c10::BFloat16(1x141x8x64),c10::BFloat16(1x141x8x64),(),(),"
	  "Scalar(),Scalar(),Scalar(),Scalar(),Scalar(),Scalar(),(),(),(),()",
	  "\"\",\"\",\"\",\"\",\"\",\"141\",\"141\",\"0.\",\"False\",\"False\",\"0.125\",\"\",\"\","
	  "\"\",\"\"", 40716288, 577536, OSC_DTYPE_FP16 },
	/* Lq=2 Lk=5 D=4 Dv=3, B*H=2: 2*2*2*5*4 + 2*2*2*5*3 = 160 + 120;
	   4 * (16 + 40 + 30 + 2*2*3 out) */
	{ "aten::_scaled_dot_product_efficient_attention",
	  "float(1x2x2x4),float(1x2x5x4),float(1x2x5x3),(),Scalar(),Scalar(),Scalar()",
	  "\"\",\"\",\"\",\"\",\"False\",\"0.\",\"False\"", 280, 392, OSC_DTYPE_FP32 },
};

Test(roofline, concrete_inputs_worked_by_hand)
{
	for (size_t i = 0; i < sizeof(with_args) / sizeof(with_args[0]); i++) {
		struct osc_work w;

		cr_expect(work_ci(with_args[i].op, with_args[i].shape, with_args[i].ci, &w),
			  "%s %s: unknown", with_args[i].op, with_args[i].ci);
		cr_expect_eq(w.flops, with_args[i].flops, "%s %s: flops %.0f, want %.0f",
			     with_args[i].op, with_args[i].ci, w.flops, with_args[i].flops);
		cr_expect_eq(w.bytes, with_args[i].bytes, "%s %s: bytes %.0f, want %.0f",
			     with_args[i].op, with_args[i].ci, w.bytes, with_args[i].bytes);
		cr_expect_eq(w.dtype, with_args[i].dtype, "%s: dtype %s", with_args[i].op,
			     osc_dtype_name(w.dtype));
		cr_expect(osc_work_needs_args(with_args[i].op, strlen(with_args[i].op)));
	}
	cr_expect(!osc_work_needs_args("aten::mm", 8));
}

/* Only the Concrete Inputs array is read: spaced JSON, members after it. */
Test(roofline, concrete_inputs_anywhere_in_args)
{
	const char *shape = BERT_QKV ",Scalar(),Scalar(),Scalar(),Scalar()";
	const char *op = "aten::_scaled_dot_product_flash_attention";
	struct osc_work w;

	cr_expect(osc_work_of(op, strlen(op), shape, strlen(shape),
			      "{ \"Concrete Inputs\" :\n [\"\", \"\", \"\", \"0.\", \"True\", "
			      "\"False\", \"0.125\"], \"Input type\": [\"c10::BFloat16\"]}", &w));
	cr_expect_eq(w.flops, 20358144);
	/* the key quoted inside a string is not the key */
	cr_expect(!osc_work_of(op, strlen(op), shape, strlen(shape),
			       "{\"s\":\"\\\"Concrete Inputs\\\":[\\\"True\\\"]\"}", &w));
}

/* Concrete Inputs that do not settle the work: unknown. */
static const struct {
	const char *op, *shape, *ci;
} unknown_args[] = {
	/* stride not recorded */
	{ "aten::conv2d", "float(1x8x5x5),float(4x2x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"4\"" },
	/* Cin 8 is not groups 4 * W's 3 */
	{ "aten::conv2d", "float(1x8x5x5),float(4x3x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"4\"" },
	/* a 5x5 kernel over 2x2 without padding: no output */
	{ "aten::conv2d", "float(1x1x2x2),float(1x1x5x5),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"1\"" },
	/* three strides for two dims; a stride of 0; groups 0 */
	{ "aten::conv2d", "float(1x1x5x5),float(1x1x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[1, 1, 1]\",\"[0, 0]\",\"[1, 1]\",\"1\"" },
	{ "aten::conv2d", "float(1x1x5x5),float(1x1x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[0, 1]\",\"[0, 0]\",\"[1, 1]\",\"1\"" },
	{ "aten::conv2d", "float(1x1x5x5),float(1x1x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\",\"0\"" },
	/* Concrete Inputs of another call (fewer than the arguments) */
	{ "aten::conv2d", "float(1x1x5x5),float(1x1x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar()", "\"\",\"\",\"\",\"[1, 1]\",\"[0, 0]\",\"[1, 1]\"" },
	/* transposed not a bool */
	{ "aten::convolution", "float(1x4x3x3),float(4x2x3x3),(),ScalarList(),ScalarList(),"
	  "ScalarList(),Scalar(),ScalarList(),Scalar()",
	  "\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"1\",\"[1, 1]\",\"1\"" },
	/* causal with Lq != Lk: the mask's alignment is the kernel's */
	{ "aten::_scaled_dot_product_efficient_attention",
	  "float(1x2x2x4),float(1x2x5x4),float(1x2x5x3),(),Scalar(),Scalar(),Scalar()",
	  "\"\",\"\",\"\",\"\",\"False\",\"0.\",\"True\"" },
	/* is_causal not recorded */
	{ "aten::scaled_dot_product_attention", BERT_QKV ",(),Scalar(),Scalar(),(),Scalar()",
	  "\"\",\"\",\"\",\"\",\"0.\",\"\",\"\",\"False\"" },
};

Test(roofline, concrete_inputs_unknown)
{
	const char *shape = BERT_QKV ",(),Scalar(),Scalar(),(),Scalar()";
	struct osc_work w;

	for (size_t i = 0; i < sizeof(unknown_args) / sizeof(unknown_args[0]); i++) {
		w = (struct osc_work){ 1, 1, 1, 1 };
		cr_expect(!work_ci(unknown_args[i].op, unknown_args[i].shape, unknown_args[i].ci, &w),
			  "%s %s: known", unknown_args[i].op, unknown_args[i].ci);
		cr_expect(w.flops == 0 && w.bytes == 0 && w.family == OSC_WORK_NONE);
	}
	/* args that are not JSON, or have no Concrete Inputs */
	cr_expect(!osc_work_of("aten::scaled_dot_product_attention", 34, shape, strlen(shape),
			       "{\"Concrete Inputs\":[", &w));
	cr_expect(!osc_work_of("aten::scaled_dot_product_attention", 34, shape, strlen(shape),
			       "{\"External id\":3}", &w));
	cr_expect(!osc_work_of("aten::scaled_dot_product_attention", 34, shape, strlen(shape), "",
			       &w));
}

Test(roofline, device_table_by_substring)
{
	struct osc_peak p;

	cr_assert(osc_peak_of_device("NVIDIA H100 80GB HBM3", &p));
	cr_expect_str_eq(p.label, "H100 SXM5 (table)");
	cr_expect_eq(p.tflops[OSC_DTYPE_FP16], 989.4);
	cr_expect_eq(p.tbs, 3.35);
	cr_assert(osc_peak_of_device("NVIDIA H100 PCIe", &p));
	cr_expect_str_eq(p.label, "H100 PCIe (table)");
	cr_assert(osc_peak_of_device("AMD Instinct MI300X", &p));
	cr_expect_eq(p.tflops[OSC_DTYPE_FP8], 2614.9);
	cr_assert(osc_peak_of_device("NVIDIA A100-SXM4-80GB", &p));
	cr_expect_eq(p.tflops[OSC_DTYPE_FP8], 0); /* no fp8 on Ampere */
	cr_expect(!osc_peak_of_device("Tesla T4", &p));
	cr_expect_str_eq(p.label, "none");
	cr_expect(!osc_peak_of_device(NULL, &p));
}

Test(roofline, peaks_for_a_trace)
{
	struct osc_peak p;
	char buf[256];

	cr_assert(osc_peak_for_trace("{\"deviceProperties\":[{\"name\":\"NVIDIA H200\"}]}", 0, 0,
				     &p));
	cr_expect_str_eq(p.label, "H200 SXM (table)");
	cr_expect_eq(p.tbs, 4.8);
	cr_assert(osc_peak_for_trace("{\"deviceProperties\":[{\"name\":\"NVIDIA H200\"}]}", 100,
				     0, &p));
	cr_expect_str_eq(p.label, "--peak-tflops; TB/s from H200 SXM (table)");
	cr_expect_eq(p.tflops[OSC_DTYPE_FP32], 100);
	cr_expect_eq(p.tbs, 4.8);
	osc_peak_describe(&p, buf, sizeof(buf));
	cr_expect_str_eq(buf, "--peak-tflops; TB/s from H200 SXM (table): 100 TFLOP/s, 4.8 TB/s");
	cr_expect(!osc_peak_for_trace("", 0, 0, &p));
	cr_expect(!osc_peak_for_trace("{\"deviceProperties\": 3}", 0, 0, &p));
	cr_assert(osc_peak_for_trace(NULL, 0, 2.5, &p));
	cr_expect_str_eq(p.label, "--peak-tbs");
	cr_expect_eq(p.tflops[OSC_DTYPE_FP16], 0);
	cr_assert(osc_peak_of_device("H100", &p));
	osc_peak_describe(&p, buf, sizeof(buf));
	cr_expect_str_eq(buf, "H100 SXM5 (table): 66.9 TFLOP/s fp64, 66.9 TFLOP/s fp32, "
			 "989.4 TFLOP/s fp16/bf16, 1978.9 TFLOP/s fp8, 1978.9 TFLOP/s int8, "
			 "3.35 TB/s");
}

/* ---- a row's work over its calls (osc_agg_roofline) ---- */

struct agg_job {
	const struct osc_trace *t;
	struct osc_agg agg;
};

static void *agg_thread(void *arg)
{
	struct agg_job *j = arg;
	struct osc_query q = { .level = OSC_LEVEL_SHAPE, .roofline = true };

	osc_aggregate(j->t, NULL, &q, &j->agg);
	return NULL;
}

/*
 * Three conv2d calls of one shape, float 1x1x5x5 by 1x1x3x3, stride 1, 2, 1
 * (one row: the shape string holds no stride): out 3x3 (2*9*9 = 162 FLOPs,
 * 4 * (25 + 9 + 9) = 172 bytes), out 2x2 (2*4*9 = 72, 4 * (25 + 9 + 4) =
 * 152), out 3x3: the row sums 396 FLOPs and 496 bytes. A fourth call, of
 * another shape, has no Concrete Inputs: its row is unknown. Aggregated on
 * four threads at once while this one reads args with osc_trace_args (the
 * rows read theirs into buffers of their own).
 */
Test(roofline, row_sums_calls_that_differ_in_stride)
{
	static const char *const strides[] = { "[1, 1]", "[2, 2]", "[1, 1]" };
	const char *shape = "float(1x1x5x5),float(1x1x3x3),(),ScalarList(),ScalarList(),"
			    "ScalarList(),Scalar()", *other = "float(1x1x7x7),float(1x1x3x3)";
	struct agg_job jobs[4];
	pthread_t th[4];
	struct osc_trace t;
	uint32_t thread;
	char args[256];

	osc_trace_init(&t);
	t.format = OSC_FORMAT_CHROME;
	thread = osc_trace_thread(&t, osc_trace_intern(&t, "1", 1), osc_trace_intern(&t, "1", 1));
	for (int i = 0; i < 4; i++) {
		struct osc_event e = {
			.ts = 10 * i, .dur = 5, .corr_id = OSC_ID_NONE, .ext = OSC_ID_NONE,
			.name = osc_trace_intern(&t, "aten::conv2d", 12),
			.shape = i < 3 ? osc_trace_intern(&t, shape, strlen(shape))
				       : osc_trace_intern(&t, other, strlen(other)),
			.thread = thread, .kernel = OSC_NONE, .ph = OSC_PH_COMPLETE,
			.kind = OSC_KIND_HOST_OP,
		};

		if (i < 3)
			snprintf(args, sizeof(args), "{\"Concrete Inputs\":[\"\",\"\",\"\",\"%s\","
				 "\"[0, 0]\",\"[1, 1]\",\"1\"]}", strides[i]);
		else
			snprintf(args, sizeof(args), "{\"External id\":4}");
		osc_trace_add_event(&t, &e, NULL, args, strlen(args));
	}
	osc_trace_sort(&t);
	for (int i = 0; i < 4; i++) {
		jobs[i].t = &t;
		cr_assert_eq(pthread_create(&th[i], NULL, agg_thread, &jobs[i]), 0);
	}
	for (int k = 0; k < 200; k++)
		cr_assert(strstr(osc_trace_args(&t, (uint32_t)(k % 3)), "Concrete Inputs"));
	for (int i = 0; i < 4; i++) {
		const struct osc_agg *a = &jobs[i].agg;

		pthread_join(th[i], NULL);
		cr_assert_eq(a->nr, 2);
		for (size_t r = 0; r < a->nr; r++) {
			if (a->rows[r].count == 3) {
				cr_expect_eq(a->rows[r].flops, 396, "flops %g", a->rows[r].flops);
				cr_expect_eq(a->rows[r].bytes, 496, "bytes %g", a->rows[r].bytes);
				cr_expect_eq(a->rows[r].work_dtype, OSC_DTYPE_FP32);
			} else {
				cr_expect(isnan(a->rows[r].flops) && isnan(a->rows[r].bytes));
			}
		}
		osc_agg_release(&jobs[i].agg);
	}
	osc_trace_release(&t);
}
