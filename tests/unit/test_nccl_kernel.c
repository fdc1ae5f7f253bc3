/* test_nccl_kernel.c - NCCL/RCCL algorithm and protocol from kernel names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/nccl_kernel.h"

/* A name, whether it is an NCCL kernel, and what it says. */
static const struct {
	const char *name;
	bool nccl;
	const char *algorithm, *protocol;
} cases[] = {
	/* NCCL <= 2.18 (ncclKernel_<coll>_<ALGO>_<PROTO>_<redop>_<type>), from real traces */
	{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", true, "RING", "LL" },
	{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
	  true, "RING", "SIMPLE" },
	{ "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", true,
	  "RING", "LL" },
	{ "ncclKernel_AllReduce_TREE_LL128_Sum_half", true, "TREE", "LL128" },
	/* NCCL >= 2.19 (ncclDevKernel_<coll>[_<redop>_<type>]_<ALGO>_<PROTO>) */
	{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true, "RING",
	  "LL" },
	{ "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true, "RING", "LL" },
	{ "ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE", true, "NVLS_TREE", "SIMPLE" },
	{ "ncclDevKernel_AllReduce_Sum_bf16_NVLS_SIMPLE", true, "NVLS", "SIMPLE" },
	{ "ncclDevKernel_AllReduce_MinMax_f16_COLLNET_DIRECT_SIMPLE", true, "COLLNET_DIRECT",
	  "SIMPLE" },
	{ "ncclDevKernel_AllReduce_Sum_f32_COLLNET_CHAIN_SIMPLE", true, "COLLNET_CHAIN", "SIMPLE" },
	{ "ncclDevKernel_ReduceScatter_Sum_u8_PAT_SIMPLE", true, "PAT", "SIMPLE" },
	/* names that do not say: known kernels, nothing guessed */
	{ "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", true, "", "" }, /* RCCL on MI300 */
	{ "ncclKernel_AllReduce", true, "", "" },
	{ "ncclDevKernel_AllReduce_Sum_f32_RING", true, "", "" },  /* no protocol */
	{ "ncclDevKernel_AllReduce_Sum_f32_RINGS_LL", true, "", "" },
	{ "ncclDevKernel_AllReduce_RING_LL64", true, "", "" },
	{ "ncclDevKernel_AllReduce_f32(RING_LL)", true, "", "" },   /* parameters are not the name */
	/* not NCCL kernels */
	{ "", false, "", "" },
	{ "ncclKernel_", false, "", "" },
	{ "ncclDevKernel_", false, "", "" },
	{ "ncclKernel__RING_LL", false, "", "" },
	{ "ncclKerne", false, "", "" },
	{ "my_RING_LL_kernel", false, "", "" },
	{ "void at::native::RING_LL_elementwise_kernel<128>", false, "", "" },
};

Test(nccl_kernel, names)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct osc_nccl_kernel k;

		cr_expect_eq(osc_nccl_kernel_parse(cases[i].name, &k), cases[i].nccl, "%s",
			     cases[i].name);
		cr_expect_str_eq(k.algorithm, cases[i].algorithm, "%s", cases[i].name);
		cr_expect_str_eq(k.protocol, cases[i].protocol, "%s", cases[i].name);
	}
}

Test(nccl_kernel, null_and_long_names)
{
	struct osc_nccl_kernel k;
	size_t n = 1 << 20;
	char *name = malloc(n + 64);

	cr_expect(!osc_nccl_kernel_parse(NULL, &k));
	cr_expect_str_eq(k.algorithm, "");
	/* a megabyte of underscores and near-misses, then the real pair */
	strcpy(name, "ncclDevKernel_AllReduce");
	for (size_t i = strlen(name); i < n; i += 5)
		memcpy(name + i, "_RIN_", 5);
	strcpy(name + n, "_TREE_LL128(x)");
	cr_expect(osc_nccl_kernel_parse(name, &k));
	cr_expect_str_eq(k.algorithm, "TREE");
	cr_expect_str_eq(k.protocol, "LL128");
	/* truncated in the middle of the pair */
	strcpy(name + n, "_TREE_LL12");
	cr_expect(osc_nccl_kernel_parse(name, &k));
	cr_expect_str_eq(k.algorithm, "");
	free(name);
}

Test(nccl_kernel, merge)
{
	const char *acc = NULL;

	acc = osc_nccl_merge(acc, "RING");
	cr_expect_str_eq(acc, "RING");
	acc = osc_nccl_merge(acc, "RING");
	cr_expect_str_eq(acc, "RING");
	acc = osc_nccl_merge(acc, "TREE");
	cr_expect_str_eq(acc, OSC_NCCL_MIXED);
	acc = osc_nccl_merge(acc, "RING");
	cr_expect_str_eq(acc, OSC_NCCL_MIXED, "mixed stays mixed");
	cr_expect_str_eq(osc_nccl_merge(osc_nccl_merge(NULL, ""), "RING"), OSC_NCCL_MIXED,
			 "an unknown kernel beside a known one");
	cr_expect_str_eq(osc_nccl_merge(osc_nccl_merge(NULL, ""), ""), "");
}

Test(nccl_kernel, take)
{
	struct osc_nccl_kernel acc = { NULL, NULL };

	osc_nccl_take(&acc, "at::native::vectorized_elementwise_kernel");
	cr_expect_null(acc.algorithm, "not an NCCL kernel: nothing taken");
	osc_nccl_take(&acc, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)");
	osc_nccl_take(&acc, "ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE(x)");
	cr_expect_str_eq(acc.algorithm, "RING");
	cr_expect_str_eq(acc.protocol, OSC_NCCL_MIXED);
}
