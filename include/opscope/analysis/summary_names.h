/*
 * summary_names.h - the kernel rows of a summary file in the job's name style.
 *
 * `opscope summary` writes the rows of the kernel, dims and mapping levels
 * with their kernel names demangled (libiberty), and beside each row the
 * kernel's name as the trace recorded it (summary.h's kernel). A job in
 * another style (short, mangled, or another demangler) shows each such row
 * with that name in its style instead, and rows that then show the same
 * keys in one run are one row, as a trace's rows are (demangle.h): their
 * counts and sums add up, their min and max are the least and greatest.
 */
#ifndef OPSCOPE_SUMMARY_NAMES_H
#define OPSCOPE_SUMMARY_NAMES_H

#include <stddef.h>

#include "opscope/analysis/demangle.h"
#include "opscope/base/status.h"
#include "opscope/model/summary.h"

/*
 * Show s's kernel rows in style (cmd: osc_names_build's demangler, NULL:
 * libiberty); s's rows stay sorted (osc_summary_sort). *kept (when not
 * NULL): the kernel rows left as the file wrote them, having no recorded
 * name (files written before it was kept) or one the row's text does not
 * show. Errors: osc_names_build's (OSC_IO, subject "--demangler"), s
 * unchanged then.
 */
enum osc_status osc_summary_restyle(struct osc_summary *s, enum osc_name_style style,
				    const char *cmd, size_t *kept, struct osc_error *err);

#endif
