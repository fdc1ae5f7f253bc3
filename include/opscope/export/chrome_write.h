/*
 * chrome_write.h - writing chosen events of a trace back out as a Chrome
 * trace-event JSON object (what Perfetto, chrome://tracing, speedscope and
 * opscope read), plain or gzip-compressed.
 *
 * The object is {"traceEvents": [...], then the input's other top-level
 * keys (deviceProperties, distributedInfo, ...) as the loader kept them
 * (trace.h's meta_json)}. Events, in model order after the metadata:
 * - M events rebuilt from the thread table for the processes and threads
 *   of the written events: process_name, process_sort_index (without tid),
 *   thread_name, thread_sort_index, each only when the input had it (a
 *   name that is not empty, a sort index that is not 0);
 * - each event with ph (X for complete events, B/E pairs included; i, C;
 *   s, t, f with "id" and, for f, "bp": "e"), cat (when not empty), name,
 *   pid and tid (numbers when they read as one, else strings, as written),
 *   ts and dur in µs with up to 3 decimals (exact: the model keeps ns), and
 *   args as written (minified); dur is left out where the input had none.
 *   Other members of an event (tts, s, id2 ...) are not kept by the model
 *   and are not written; events of other phases are not written.
 */
#ifndef OPSCOPE_CHROME_WRITE_H
#define OPSCOPE_CHROME_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "opscope/base/status.h"
#include "opscope/model/trace.h"

/* What a write wrote. */
struct osc_chrome_stats {
	uint64_t events;     /* events written (not counting metadata) */
	uint64_t metadata;   /* M events written */
	uint64_t bytes;      /* bytes written to out (compressed when gzip) */
};

/*
 * Write the events and flows of t that keep marks (osc_slice_select's
 * layout: the events, then the flows), in model order, to out as above, gzip-compressed
 * when gzip. Errors: OSC_IO (subject "output") when writing fails; OSC_NOMEM
 * style aborts as everywhere. stats may be NULL.
 */
enum osc_status osc_chrome_write(FILE *out, const struct osc_trace *t, const uint8_t *keep,
				 bool gzip, struct osc_chrome_stats *stats, struct osc_error *err);

#endif
