/*
 * job_info.h - what `opscope info` says of a job (job.h): one row per rank
 * with where its rank came from and what its input holds, and the job's
 * ranks against the world size the traces state.
 */
#ifndef OPSCOPE_JOB_INFO_H
#define OPSCOPE_JOB_INFO_H

#include <stddef.h>

#include "opscope/analysis/columns.h"
#include "opscope/analysis/job.h"

/* The inputs table's columns, and the text of cell (row = rank index, col). */
const struct osc_column *osc_job_info_columns(size_t *nr);
const char *osc_job_info_cell(const struct osc_job *j, size_t row, size_t col, char *buf,
			      size_t size);

/*
 * The job's ranks against its world into buf: "8 of world size 8",
 * "3 of world size 8; missing 3-6", "4; no world size recorded", or, when
 * the ranks state different world sizes, "4; world sizes differ: 8 (3
 * ranks), 16 (1 rank)". The world size is the one most ranks state; ranges
 * of missing ranks are listed up to about size bytes ("..." past that).
 * Returns buf.
 */
const char *osc_job_world_text(const struct osc_job *j, char *buf, size_t size);

#endif
