/*
 * fuzz_summary.c - libFuzzer target for the summary file reader: any bytes
 * (plain or gzip) through osc_summary_read_buffer. Bad input must give a
 * status, never a crash, a hang or a leak; a summary it reads, written and
 * read again, must be read so and written as the same bytes.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/export/summary_write.h"
#include "opscope/load/summary_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s as a summary file, in a new string (*len bytes). */
static char *written(const struct osc_summary *s, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	struct osc_error err;

	if (!out || osc_summary_write(s, out, "fuzz", &err) != OSC_OK)
		abort();
	fclose(out);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct osc_summary s, again;
	struct osc_error err;
	char *text, *text2;
	size_t len, len2;

	osc_summary_init(&s);
	if (osc_summary_read_buffer("fuzz", data, size, &s, &err) != OSC_OK) {
		osc_summary_release(&s);
		return 0;
	}
	text = written(&s, &len);
	osc_summary_init(&again);
	if (osc_summary_read_buffer("fuzz", text, len, &again, &err) != OSC_OK) {
		fprintf(stderr, "written summary not read back: %s\n", err.message);
		abort();
	}
	text2 = written(&again, &len2);
	if (len2 != len || memcmp(text, text2, len))
		abort();
	free(text);
	free(text2);
	osc_summary_release(&s);
	osc_summary_release(&again);
	return 0;
}
