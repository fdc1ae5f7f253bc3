/*
 * nccl_kernel.h - the algorithm and protocol NCCL/RCCL chose for a
 * collective, read from the name of the kernel it ran.
 *
 * NCCL names its kernels by what they run (NCCL_KERN_NAME in collectives.h
 * up to 2.18, src/device/generate.py from 2.19; RCCL follows):
 *   ncclKernel_<coll>_<ALGO>_<PROTO>_<redop>_<type>
 *       ncclKernel_AllReduce_RING_LL_Sum_float
 *   ncclDevKernel_<coll>[_<redop>_<type>]_<ALGO>_<PROTO>
 *       ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclDevKernel_AllGather_RING_LL
 * then, as a trace records it, "(" and the parameters.
 * ALGO is one of TREE, RING, COLLNET_DIRECT, COLLNET_CHAIN, NVLS, NVLS_TREE,
 * PAT (ncclAlgoStr); PROTO one of LL, LL128, SIMPLE (ncclProtoStr).
 * A kernel that serves every algorithm (ncclDevKernel_Generic, RCCL's
 * usual kernel) or a name without the two parts (ncclKernel_AllReduce)
 * does not say: both are "" then, never a guess.
 */
#ifndef OPSCOPE_NCCL_KERNEL_H
#define OPSCOPE_NCCL_KERNEL_H

#include <stdbool.h>

/* What a kernel name says; the strings are static, "" when it does not say. */
struct osc_nccl_kernel {
	const char *algorithm; /* "RING", "TREE", ..., "" */
	const char *protocol;  /* "LL", "LL128", "SIMPLE", "" */
};

/* The value of a merged field whose kernels disagree (osc_nccl_merge). */
#define OSC_NCCL_MIXED "mixed"

/*
 * Read kernel name name (NULL is ""): true when it is an NCCL/RCCL kernel
 * (ncclKernel_ or ncclDevKernel_ then a collective), with *out what it says;
 * false, and both "", for any other name.
 */
bool osc_nccl_kernel_parse(const char *name, struct osc_nccl_kernel *out);

/*
 * Fold the field value v of one more kernel of a call into acc (NULL before
 * its first kernel): the common value when all agree (an unknown "" is a
 * value), else OSC_NCCL_MIXED. Returns the new acc; strings are not copied.
 */
const char *osc_nccl_merge(const char *acc, const char *v);

/*
 * Fold kernel name into acc, what a call's kernels say (both fields NULL
 * before its first NCCL kernel): nothing when it is not an NCCL/RCCL kernel
 * (a copy or a cast the call also launched), else each field merged.
 */
void osc_nccl_take(struct osc_nccl_kernel *acc, const char *name);

#endif
