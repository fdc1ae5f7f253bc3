/*
 * fuzz_chrome.c - libFuzzer target for the trace-event JSON loader: any
 * bytes (plain or gzip) through osc_load_buffer, then the args of the first
 * events rendered, as the detail view does. Bad input must give a status,
 * never a crash, a hang or a leak.
 */
#include <stddef.h>
#include <stdint.h>

#include "opscope/load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct osc_trace t;
	struct osc_error err;

	osc_trace_init(&t);
	if (osc_load_buffer("fuzz", data, size, NULL, &t, &err) == OSC_OK) {
		for (uint32_t i = 0; i < t.nr_events && i < 64; i++)
			(void)osc_trace_args(&t, i);
	}
	osc_trace_release(&t);
	return 0;
}
