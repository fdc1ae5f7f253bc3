/*
 * load.h - reading a trace file into the model.
 *
 * osc_load() opens a path ("-" is standard input), sniffs gzip by its magic
 * bytes (never by the name), picks a loader by probing the first bytes of the
 * (uncompressed) content, and streams the input through it: no whole-file
 * DOM (plain files are mapped; gzip, zstd and standard input are
 * decompressed or copied into anonymous memory, which the trace keeps for
 * the args it refers to, or streamed through a buffer when none can be
 * reserved; gzip by ISA-L or zlib, see input.h). Loaders are small ops
 * structs registered in one table (load.c).
 *
 * Errors: OSC_IO (missing file, directory, read error), OSC_EMPTY, OSC_BINARY,
 * OSC_NOT_JSON, OSC_NOT_TRACE, OSC_GZIP, OSC_TRUNCATED (nothing complete could
 * be kept), OSC_CANCELLED; err names the file and the byte offset.
 * One rule for truncation, whatever the container (a profiler killed while
 * writing): a cut file keeps its complete events and warns. A cut plain
 * file counts OSC_WARN_TRUNCATED; a gzip stream cut short is the same plus
 * OSC_WARN_GZIP_CUT (deflate output is exact up to the cut). Corrupt gzip
 * data or a bad CRC or length is OSC_GZIP even when some events decoded. A
 * SQLite database cut short has no order to cut along: it loads when SQLite
 * can still read every table (OSC_WARN_DB_SHORT), else it is OSC_TRUNCATED.
 */
#ifndef OPSCOPE_LOAD_H
#define OPSCOPE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/base/status.h"
#include "opscope/model/trace.h"

struct osc_load_progress {
	uint64_t bytes_read;  /* bytes read from the file so far (compressed for .gz) */
	uint64_t bytes_total; /* file size, 0 when unknown (stdin, pipes) */
	uint64_t events;      /* events kept so far */
	/* a database (nvprof, nsys): rows read so far, and about how many the
	   tables it reads hold (their largest rowids; 0 when unknown or not a
	   database): bytes_read says nothing there, as SQLite reads the
	   mapped file where it likes */
	uint64_t rows_read, rows_total;
	double elapsed;       /* seconds since the load began */
	bool waiting;         /* a pipe or FIFO (standard input too) sent nothing for a
				 second: its writer is slow, or none has opened it yet */
};

struct osc_load_opts {
	/* Called every few MB, at the end, and once when a pipe keeps the load
	   waiting; may be NULL. Runs on a loading thread. */
	void (*progress)(const struct osc_load_progress *p, void *userdata);
	void *userdata;
	/* When non-NULL and set non-zero (from any thread or a signal handler),
	   the load stops soon with OSC_CANCELLED. */
	volatile int *cancel;
	/* Uncompressed bytes a gzip file or standard input may hold, beyond
	   which the load fails with OSC_RANGE (a gzip bomb: 10 MB that expand
	   to 10 GB). 0: osc_load_default_max_input(); UINT64_MAX: no limit.
	   A plain file is mapped as it is and never limited. */
	uint64_t max_input;
};

/* The default max_input: 4 times the physical memory, at least 1 GiB. */
uint64_t osc_load_default_max_input(void);

/*
 * Load the trace at path into t (which must be osc_trace_init'ed and empty).
 * opts may be NULL. On failure t is released to empty and err filled.
 */
enum osc_status osc_load(const char *path, const struct osc_load_opts *opts,
			 struct osc_trace *t, struct osc_error *err);

/*
 * Load from a buffer already in memory (gzip or plain), e.g. the bundled
 * sample or a fuzzer input. name is used in messages and stored as t->path.
 */
enum osc_status osc_load_buffer(const char *name, const void *data, size_t len,
				const struct osc_load_opts *opts,
				struct osc_trace *t, struct osc_error *err);

/* A library the loaders read with, for `opscope --version`. */
struct osc_library {
	const char *name;   /* "zlib", "zstd", ... */
	char version[32];   /* as the library reports it at run time; "" when not built in */
	const char *reads;  /* what it is used for, e.g. "gzip traces" */
	const char *without; /* what happens without it, e.g. "refused: built without it" */
};

/*
 * Fill out[0..OSC_NR_LIBRARIES) with the libraries of this build, in a fixed
 * order: json-c, PCRE2, zlib, zstd (version "" without OPSCOPE_HAVE_ZSTD),
 * SQLite, ISA-L (version "" without OPSCOPE_HAVE_ISAL).
 */
#define OSC_NR_LIBRARIES 6
void osc_load_libraries(struct osc_library out[OSC_NR_LIBRARIES]);

#endif
