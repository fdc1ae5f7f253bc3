/*
 * load_internal.h - the loader ops table and the state a load shares with its
 * loader (private to load.c and load_*.c).
 */
#ifndef OPSCOPE_LOAD_INTERNAL_H
#define OPSCOPE_LOAD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opscope/load/load.h"
#include "load/input.h"

struct osc_load_ctx {
	const char *name;     /* subject of error messages: the path as given */
	struct osc_input in;  /* the uncompressed byte window */
	struct osc_trace *t;  /* the trace being filled */
	struct osc_error *err;
	const struct osc_load_opts *opts; /* never NULL */
	double start;         /* monotonic seconds at the start */
	uint64_t next_progress; /* input offset of the next progress report */
	uint64_t parsed;      /* uncompressed bytes parsed so far, when the loader says */
	uint64_t rows_read, rows_total; /* a database's (osc_load_progress) */
};

/*
 * A loader: probe looks at the first bytes of the uncompressed input (len may
 * be short for small files) and says whether this loader reads it; load fills
 * ctx->t from ctx->in, sorts it, and returns a status with ctx->err filled.
 */
struct osc_loader {
	const char *name;
	bool (*probe)(const unsigned char *head, size_t len);
	enum osc_status (*load)(struct osc_load_ctx *ctx);
};

extern const struct osc_loader osc_loader_chrome;
extern const struct osc_loader osc_loader_sqlite;

/* True when head looks like binary data (NUL bytes or mostly non-text). */
bool osc_head_is_binary(const unsigned char *head, size_t len);

/*
 * Called by loaders as they move through the input (offset: uncompressed
 * bytes parsed): reports progress every few MB and checks the cancel flag.
 * Returns OSC_CANCELLED (err filled) when the load must stop.
 */
enum osc_status osc_load_tick(struct osc_load_ctx *ctx, uint64_t offset);

/*
 * The same for loaders that count rows, not bytes (SQLite), every so many
 * rows: checks the cancel flag (at: where, for its error) and, when report,
 * reports progress now.
 */
enum osc_status osc_load_step(struct osc_load_ctx *ctx, uint64_t at, bool report);

/* Final progress report. */
void osc_load_report(struct osc_load_ctx *ctx);

#endif
