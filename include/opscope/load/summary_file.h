/*
 * summary_file.h - reading the summary files `opscope summary` writes.
 *
 * The format, version 1 (man opscope, SUMMARY FILES): CSV (RFC 4180:
 * comma-separated, a field with a comma, quote, CR or LF is quoted, quotes
 * doubled), UTF-8, a header line then one line per record. Every line has the
 * same columns, so a directory of summaries is one table for DuckDB
 * (read_csv('*.csv')) or Spark; a column that does not apply to a record is
 * empty:
 *
 *   format,table,trace,rank,world_size,run,level,name,text,count,kernels,
 *   ts_ns,wall_ns,dur_ns,total_ns,self_ns,device_ns,device_total_ns,min_ns,
 *   max_ns,busy_ns,idle_ns,compute_ns,comm_ns,memcpy_ns,memset_ns,
 *   exposed_comm_ns,host_busy_ns,device_time_ns,bytes,group,group_size,seq,
 *   host_ts_ns
 *
 * - format: "opscope-summary-1" on every line (a reader refuses another);
 * - table: meta, run, row or call; trace, rank, world_size on every line
 *   (rank and world_size empty when unknown);
 * - meta: name = rank_source, backend, trace_format, events, input_bytes,
 *   has_device or run_source, text = its value;
 * - run: run (index), name (its name), count (events), ts_ns, wall_ns,
 *   busy_ns ... exposed_comm_ns, host_busy_ns, device_time_ns;
 * - row: run, level (aggregate.h's --by name), name (the row's keys as
 *   text), count, kernels, total_ns ... max_ns;
 * - call: run (empty outside every run), name, text (dtype), group,
 *   group_size, bytes, ts_ns, dur_ns, seq, host_ts_ns.
 * One file holds one rank. Lines may come in any order; unknown meta names
 * are ignored (later minor additions), unknown tables and columns are errors.
 */
#ifndef OPSCOPE_SUMMARY_FILE_H
#define OPSCOPE_SUMMARY_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "opscope/base/status.h"
#include "opscope/model/summary.h"

/* The value of the format column of version 1. */
#define OSC_SUMMARY_FORMAT "opscope-summary-1"

/* True when data (the first bytes of a file) starts as a summary file does. */
bool osc_summary_sniff(const void *data, size_t len);

/*
 * Read the summary file at path into s (osc_summary_init'ed, empty); source
 * OSC_SUM_FROM_FILE, path as given. Errors (one line naming the file and
 * the byte offset, or the field): OSC_IO, OSC_EMPTY, OSC_NOT_TRACE (not a
 * summary, another version, a second rank), OSC_NOT_JSON is never used;
 * a bad field is OSC_NOT_TRACE with the line's offset and the column named.
 * On failure s is released to empty.
 */
enum osc_status osc_summary_read(const char *path, struct osc_summary *s,
				 struct osc_error *err);

/* The same from a buffer (name in messages): tests and the fuzzer. */
enum osc_status osc_summary_read_buffer(const char *name, const void *data, size_t len,
					struct osc_summary *s, struct osc_error *err);

#endif
