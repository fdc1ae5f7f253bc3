/*
 * outfile.h - writing an output file atomically.
 *
 * Every file opscope writes on request (report -o, explore --csv, the TUI's
 * export) goes through osc_write_file, so a half-written file never replaces
 * a good one, an existing file is replaced only when asked (--force, the
 * TUI's y), and a replaced file keeps its mode and owner, and stays where a
 * symbolic link to it points.
 */
#ifndef OPSCOPE_OUTFILE_H
#define OPSCOPE_OUTFILE_H

#include <signal.h>
#include <stdio.h>

#include "opscope/export/export.h"
#include "opscope/base/status.h"

/* Writes something to out; returns OSC_OK or the status of what failed. */
typedef enum osc_status (*osc_writer)(FILE *out, const void *arg, struct osc_error *err);

/* Flag of osc_write_file and osc_export_file: an existing file may be replaced. */
#define OSC_WRITE_REPLACE (1u << 16)

/*
 * Write to path with fn. NULL or "-" is standard output. A regular or new
 * file is written to a temporary file beside it that takes path's place on
 * success and is removed on failure: a new file gets mode 0666 less the
 * umask and appears only if no other file took the name meanwhile; an
 * existing one (through a symbolic link: the file it points to) is replaced
 * only with OSC_WRITE_REPLACE in flags, keeping its mode and, where allowed,
 * its owner. An existing path that is not a regular file (/dev/null, a
 * FIFO) is written in place. Errors: OSC_IO with subject path (or "output";
 * "the file exists" without OSC_WRITE_REPLACE), or fn's status with its
 * subject replaced by path.
 */
enum osc_status osc_write_file(const char *path, unsigned flags, osc_writer fn, const void *arg,
			       struct osc_error *err);

/*
 * Remove the temporary file of the write in progress, if any: for the front
 * ends' handlers of terminating signals (async-signal-safe: one unlink), so
 * an interrupted write leaves neither a half file nor a PATH.XXXXXX behind.
 */
void osc_outfile_abandon(void);

/*
 * Signals sent from outside (a user, a shell, a full pipe, a limit) whose
 * default action ends the process: the front ends catch those not ignored,
 * clean up (osc_outfile_abandon, the terminal), and die of them again.
 */
#define OSC_EXTERNAL_SIGNALS                                                          \
	SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, \
		SIGXFSZ, SIGVTALRM, SIGPROF

/*
 * osc_write_file of table t exported as f with meta m (width and OSC_EXPORT_*
 * flags: see export.h; OSC_WRITE_REPLACE as osc_write_file).
 */
enum osc_status osc_export_file(const char *path, enum osc_export_format f,
				const struct osc_table *t, const struct osc_export_meta *m,
				int width, unsigned flags, struct osc_error *err);

#endif
