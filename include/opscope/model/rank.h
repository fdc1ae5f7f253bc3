/*
 * rank.h - which rank of a distributed job a trace is.
 *
 * Kineto writes the job's distributedInfo ({"backend": "nccl", "rank": 3,
 * "world_size": 8}) at the top level of each rank's trace; HTA and TraceLens
 * read the rank from there. Traces without it often carry the rank in their
 * file name: rank-3.json, trace_rank3.json.gz, worker3.pt.trace.json
 * (TensorBoard's plugin names its workers so).
 */
#ifndef OPSCOPE_RANK_H
#define OPSCOPE_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "opscope/model/trace.h"

/* Where a trace's rank came from. */
enum osc_rank_source {
	OSC_RANK_NONE,             /* no rank known */
	OSC_RANK_DISTRIBUTED_INFO, /* the trace's distributedInfo */
	OSC_RANK_FILE_NAME,        /* "rankN" or "workerN" in its file name */
	OSC_RANK_INPUT_ORDER,      /* its place among a job's inputs (job.h) */
	OSC_RANK_SOURCE_COUNT
};

struct osc_rank {
	enum osc_rank_source source;
	int64_t rank;       /* -1 when unknown */
	int64_t world_size; /* -1 when unknown (always from a file name) */
	char backend[32];   /* distributedInfo's backend ("nccl"), else "" */
};

/*
 * The rank of trace t: its distributedInfo's when that has a whole rank
 * (world_size and backend when present and sane), else the number after the
 * last "rank" or "worker" in the base name of path (an optional '-' or '_'
 * between; NULL path: t->path), else none.
 */
void osc_trace_rank(const struct osc_trace *t, const char *path, struct osc_rank *out);

/* "distributedInfo", "file name", "input order" or "none". */
const char *osc_rank_source_name(enum osc_rank_source s);

/* The source whose osc_rank_source_name is name; false when none is. */
bool osc_rank_source_from_name(const char *name, enum osc_rank_source *out);

#endif
