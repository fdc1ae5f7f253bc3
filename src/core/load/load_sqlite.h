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

#endif
