/*
 * load_sqlite.h - the two SQLite schema readers that load_sqlite.c hands an
 * open database to (load_nsys.c, load_nvprof.c).
 */
#ifndef OPSCOPE_LOAD_SQLITE_H
#define OPSCOPE_LOAD_SQLITE_H

#include "load/sqlite_db.h"

/* The two schemas: fill q->t (events, threads, format, meta_json). */
enum osc_status osc_load_nsys(struct sq *q);
enum osc_status osc_load_nvprof(struct sq *q);

/*
 * nsys: its CUDA API rows (the biggest table) read on a connection of their
 * own over data, by whichever thread claims the reading first: the one
 * beside the load (osc_nsys_side_read), or the load when it needs the rows.
 * Set it as q->nsys_side before osc_load_nsys; NULL when no connection opens.
 */
struct nsys_side *osc_nsys_side_new(struct sq *q, unsigned char *data, size_t len);
void osc_nsys_side_read(struct nsys_side *s);
void osc_nsys_side_free(struct nsys_side *s);

#endif
