/*
 * summary_write.h - writing a rank's summary as a summary file (the format
 * is described in load/summary_file.h and man opscope, SUMMARY FILES).
 */
#ifndef OPSCOPE_SUMMARY_WRITE_H
#define OPSCOPE_SUMMARY_WRITE_H

#include <stdio.h>

#include "opscope/base/status.h"
#include "opscope/model/summary.h"

/*
 * Write s to out: the header line, the meta lines, the runs, the rows, the
 * calls. Times are integer ns, bytes with up to 17 significant digits (NaN:
 * empty). Reading it back (osc_summary_read) gives s again. OSC_IO (subject
 * name) when a write fails.
 */
enum osc_status osc_summary_write(const struct osc_summary *s, FILE *out, const char *name,
				  struct osc_error *err);

#endif
