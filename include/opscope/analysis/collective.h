/*
 * collective.h - the collectives of one rank: what was sent, and how fast.
 *
 * PyTorch's c10d records each collective as a record_param_comms op with
 * its parameters in args: "Collective name" (allreduce, allgather,
 * _allgather_base, reduce_scatter, _reduce_scatter_base, alltoall,
 * broadcast, send, recv, ...), "In msg nelems", "Out msg nelems", "dtype"
 * and "Group size". The op's device time is that of the kernels it launched
 * (NCCL/RCCL), opcost.h's device_total.
 *
 * Definitions (NCCL's doc/PERFORMANCE.md, as nccl-tests report them):
 * - S, the size of a call, bytes: the input (In msg nelems x the dtype's
 *   size) for allreduce, reduce, broadcast, alltoall, send and recv; the
 *   output for allgather; the input for reduce_scatter (both: the n ranks'
 *   whole buffer);
 * - t, its time: the device time of the kernels it launched, ns;
 * - algbw = S / t; busbw = algbw x f(n): allreduce 2(n-1)/n; allgather,
 *   reduce_scatter and alltoall (n-1)/n; broadcast, reduce, send, recv 1;
 *   n = Group size;
 * - algorithm and protocol, what NCCL chose for a call, as the names of
 *   the NCCL/RCCL kernels it launched say (nccl_kernel.h): "" when they do
 *   not say (ncclDevKernel_Generic, RCCL's usual kernel) or it launched
 *   none, "mixed" when its kernels disagree;
 * - rows group the calls by (collective, dtype, S, n, algorithm, protocol);
 *   a row's algbw and busbw are its total bytes over its total time
 *   (GB/s = 10^9 B/s);
 * - a call whose dtype or sizes are missing or unknown has no S: its row's
 *   bytes and bandwidths are unknown (NaN), its time still counts; a call
 *   that launched no device work has t = 0 and no bandwidth.
 * Which rank entered a collective first, and the skew across ranks, need
 * every rank's calls: collective_skew.h.
 */
#ifndef OPSCOPE_COLLECTIVE_H
#define OPSCOPE_COLLECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/analysis/calltree.h"
#include "opscope/analysis/columns.h"
#include "opscope/model/runs.h"
#include "opscope/model/trace.h"

struct osc_collective_row {
	char name[40];     /* "Collective name" */
	char dtype[24];    /* "dtype" as recorded ("Float", "BFloat16", ...) */
	int64_t group;     /* "Group size", -1 when missing */
	double bytes;      /* S of one call, NaN when unknown */
	char algorithm[16]; /* NCCL's, "" when unknown, "mixed" (above) */
	char protocol[8];
	uint64_t count;
	int64_t time;      /* the calls' device time, ns */
};

struct osc_collectives {
	struct osc_collective_row *rows; /* by time, descending; ties by name */
	size_t nr;
};

/* What c10d recorded of one call: the args of its record_param_comms op. */
struct osc_collective_args {
	char name[40];       /* "Collective name" */
	char dtype[24];      /* "dtype" as recorded, "" when absent */
	char group[64];      /* "Process Group Name", "" when absent */
	int64_t group_size;  /* "Group size", -1 when absent */
	double bytes;        /* S (above), NaN when unknown */
};

/*
 * Read the args of event ev of t (a record_param_comms op) into a; *buf and
 * *alloc as osc_trace_args_into. False when it has no "Collective name"
 * (older traces): not a call.
 */
bool osc_collective_args_read(const struct osc_trace *t, uint32_t ev, char **buf, size_t *alloc,
			      struct osc_collective_args *a);

/*
 * The call that owns host-tree node n (OSC_NONE: none): the mark of the
 * innermost node from n up to its root whose mark is not OSC_NONE (the
 * calls' nodes marked); OSC_NONE when there is none. A kernel belongs to
 * the call that owns the op that launched it.
 */
uint32_t osc_collective_owner(const struct osc_calltree *tree, const uint32_t *mark, uint32_t n);

/*
 * The collectives of the record_param_comms ops in the selected runs (sel
 * NULL: every run) into out.
 */
void osc_collectives(const struct osc_trace *t, const struct osc_runs *runs,
		     const struct osc_runsel *sel, struct osc_collectives *out);
void osc_collectives_release(struct osc_collectives *c);

/* busbw's factor f(n) for a collective name (1 when not one NCCL defines). */
double osc_busbw_factor(const char *name, int64_t n);

/* The table's columns and its cells (empty for unknown numbers). */
const struct osc_column *osc_collective_columns(size_t *nr);
const char *osc_collective_cell(const struct osc_collectives *c, size_t row, size_t col,
				char *buf, size_t size);

#endif
