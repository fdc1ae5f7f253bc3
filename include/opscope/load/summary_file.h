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
 *   host_ts_ns,algorithm,protocol
 *
 * - format: "opscope-summary-1" on every line (a reader refuses another);
 * - table: meta, run, row or call; trace, rank, world_size on every line
 *   (rank and world_size empty when unknown);
 * - meta: name = rank_source (osc_rank_source_name), backend, trace_format
 *   (osc_format_name), events, input_bytes, has_device (true or false) or
 *   run_source, text = its value;
 * - run: run (its index: the runs of a file are 0 .. N-1, each once), name
 *   (its name), count (events), ts_ns, wall_ns, busy_ns ... exposed_comm_ns,
 *   host_busy_ns, device_time_ns;
 * - row: run (a run line's index), level (level.h's --by name, never
 *   "run"), name (the row's keys as text), count, kernels, total_ns ... max_ns;
 * - call: run (empty outside every run), name, text (dtype), group,
 *   group_size, bytes, ts_ns, dur_ns, seq, host_ts_ns, algorithm and
 *   protocol (NCCL's, summary.h; empty when unknown).
 * algorithm and protocol came later: a file whose header ends at host_ts_ns
 * (every line with OSC_SUMCOL_FIRST_NR fields) is read with both empty.
 * Integers are exact decimals (int64; count, kernels and events uint64);
 * bytes has up to 17 significant digits, empty when unknown.
 * One file holds one rank. Lines may come in any order; unknown meta names
 * are ignored (later minor additions), unknown tables and columns are errors.
 * A writer writes the meta lines, the runs by index, the rows, the calls.
 */
#ifndef OPSCOPE_SUMMARY_FILE_H
#define OPSCOPE_SUMMARY_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "opscope/base/status.h"
#include "opscope/model/summary.h"

/* The value of the format column of version 1. */
#define OSC_SUMMARY_FORMAT "opscope-summary-1"

/* X-macro: the columns of version 1, in their order, with their names. */
#define OSC_SUMCOL_LIST(_)                 \
	_(FORMAT, "format")                \
	_(TABLE, "table")                  \
	_(TRACE, "trace")                  \
	_(RANK, "rank")                    \
	_(WORLD_SIZE, "world_size")        \
	_(RUN, "run")                      \
	_(LEVEL, "level")                  \
	_(NAME, "name")                    \
	_(TEXT, "text")                    \
	_(COUNT, "count")                  \
	_(KERNELS, "kernels")              \
	_(TS, "ts_ns")                     \
	_(WALL, "wall_ns")                 \
	_(DUR, "dur_ns")                   \
	_(TOTAL, "total_ns")               \
	_(SELF, "self_ns")                 \
	_(DEVICE, "device_ns")             \
	_(DEVICE_TOTAL, "device_total_ns") \
	_(MIN, "min_ns")                   \
	_(MAX, "max_ns")                   \
	_(BUSY, "busy_ns")                 \
	_(IDLE, "idle_ns")                 \
	_(COMPUTE, "compute_ns")           \
	_(COMM, "comm_ns")                 \
	_(MEMCPY, "memcpy_ns")             \
	_(MEMSET, "memset_ns")             \
	_(EXPOSED_COMM, "exposed_comm_ns") \
	_(HOST_BUSY, "host_busy_ns")       \
	_(DEVICE_TIME, "device_time_ns")   \
	_(BYTES, "bytes")                  \
	_(GROUP, "group")                  \
	_(GROUP_SIZE, "group_size")        \
	_(SEQ, "seq")                      \
	_(HOST_TS, "host_ts_ns")           \
	_(ALGORITHM, "algorithm")          \
	_(PROTOCOL, "protocol")

/* A column; COMPUTE .. MEMSET are osc_sum_run.cat[0 .. OSC_SUM_CATS) in order. */
enum osc_sum_column {
#define OSC_SUMCOL_ENUM(name, text) OSC_SUMCOL_##name,
	OSC_SUMCOL_LIST(OSC_SUMCOL_ENUM)
#undef OSC_SUMCOL_ENUM
	OSC_SUMCOL_NR
};

/* The columns of the first files of version 1: those before algorithm. */
#define OSC_SUMCOL_FIRST_NR OSC_SUMCOL_ALGORITHM

/* X-macro: the tables (kinds of line), with their names. */
#define OSC_SUMTAB_LIST(_) \
	_(META, "meta")     \
	_(RUN, "run")       \
	_(ROW, "row")       \
	_(CALL, "call")

enum osc_sum_table {
#define OSC_SUMTAB_ENUM(name, text) OSC_SUMTAB_##name,
	OSC_SUMTAB_LIST(OSC_SUMTAB_ENUM)
#undef OSC_SUMTAB_ENUM
	OSC_SUMTAB_NR
};

/* X-macro: the meta lines of version 1, with their names. */
#define OSC_SUMMETA_LIST(_)            \
	_(RANK_SOURCE, "rank_source")   \
	_(BACKEND, "backend")           \
	_(TRACE_FORMAT, "trace_format") \
	_(EVENTS, "events")             \
	_(INPUT_BYTES, "input_bytes")   \
	_(HAS_DEVICE, "has_device")     \
	_(RUN_SOURCE, "run_source")

enum osc_sum_meta {
#define OSC_SUMMETA_ENUM(name, text) OSC_SUMMETA_##name,
	OSC_SUMMETA_LIST(OSC_SUMMETA_ENUM)
#undef OSC_SUMMETA_ENUM
	OSC_SUMMETA_NR
};

/* The header's name of a column ("wall_ns"), of a table ("row"), of a meta line ("backend"). */
const char *osc_summary_column_name(enum osc_sum_column c);
const char *osc_summary_table_name(enum osc_sum_table t);
const char *osc_summary_meta_name(enum osc_sum_meta m);

/*
 * True when data (the first bytes of a file) starts as a summary file of
 * any version does: with "format,table,".
 */
bool osc_summary_sniff(const void *data, size_t len);

/*
 * Whether path is a regular file whose first bytes osc_summary_sniff takes
 * (a FIFO or a directory is never opened: a FIFO is read once, by its loader).
 */
bool osc_summary_is_file(const char *path);

/*
 * Read the summary file at path ("-": standard input; gzip and zstd are
 * decompressed as load.h's inputs) into s (osc_summary_init'ed, empty); its
 * rows and calls sorted (osc_summary_sort), source OSC_SUM_FROM_FILE, path
 * as given, trace, rank and the rest as the file says. Errors, one line
 * naming the file, the byte offset of the line and the column (err->field):
 * OSC_IO (and load.h's input errors), OSC_EMPTY (no byte, or no record after
 * the header), OSC_TRUNCATED (the last line ends inside a field or before its
 * last one), OSC_NOT_TRACE (not a summary, another version, a second rank, a
 * bad field, a row or call of a run no run line has).
 * On failure s is released (osc_summary_release).
 */
enum osc_status osc_summary_read(const char *path, struct osc_summary *s,
				 struct osc_error *err);

/* The same from a buffer (name in messages): tests and the fuzzer. */
enum osc_status osc_summary_read_buffer(const char *name, const void *data, size_t len,
					struct osc_summary *s, struct osc_error *err);

#endif
