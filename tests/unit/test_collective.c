/* test_collective.c - NCCL's bus bandwidth factors, by collective name and group size. */
#include <criterion/criterion.h>
#include <math.h>

#include "opscope/analysis/collective.h"

Test(collective, busbw_factors)
{
	cr_expect_float_eq(osc_busbw_factor("allreduce", 8), 2.0 * 7 / 8, 1e-12);
	cr_expect_float_eq(osc_busbw_factor("all_reduce", 2), 1.0, 1e-12);
	cr_expect_float_eq(osc_busbw_factor("_allgather_base", 4), 0.75, 1e-12);
	cr_expect_float_eq(osc_busbw_factor("_reduce_scatter_base", 4), 0.75, 1e-12);
	cr_expect_float_eq(osc_busbw_factor("alltoall", 16), 15.0 / 16, 1e-12);
	cr_expect_float_eq(osc_busbw_factor("broadcast", 8), 1.0, 1e-12);
	cr_expect_float_eq(osc_busbw_factor("send", 2), 1.0, 1e-12);
	cr_expect(isnan(osc_busbw_factor("allreduce", 0)), "no group: unknown");
}
