/*
 * fuzz_sqlite.c - libFuzzer target for the nsys and nvprof SQLite loaders:
 * any bytes that start like an SQLite database (or a gzip'd one) through
 * osc_load_buffer, then the args of the first events rendered. Other inputs
 * are left to fuzz_chrome. A damaged database must give a status, never a
 * crash, a hang or a leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "opscope/load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char magic[] = "SQLite format 3";
	struct osc_trace t;
	struct osc_error err;

	if (size < 2 || (memcmp(data, "\x1f\x8b", 2) &&
			 (size < sizeof(magic) || memcmp(data, magic, sizeof(magic)))))
		return -1; /* not kept in the corpus */
	osc_trace_init(&t);
	if (osc_load_buffer("fuzz.sqlite", data, size, NULL, &t, &err) == OSC_OK) {
		for (uint32_t i = 0; i < t.nr_events && i < 64; i++)
			(void)osc_trace_args(&t, i);
	}
	osc_trace_release(&t);
	return 0;
}
