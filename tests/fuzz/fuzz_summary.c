/*
 * fuzz_summary.c - libFuzzer target for the summary file reader: any bytes
 * (plain or gzip) through osc_summary_read_buffer. Bad input must give a
 * status, never a crash, a hang or a leak; a summary it reads, written and
 * read again, must be read so and written as the same bytes; its kernel
 * rows in another name style stay sorted, one row per key and run.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/analysis/summary_names.h"
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

/* Restyle s; abort unless its rows stay in (level, run, key text) order, each key once. */
static void restyle(struct osc_summary *s, enum osc_name_style style)
{
	struct osc_error err;

	if (osc_summary_restyle(s, style, NULL, NULL, &err) != OSC_OK)
		abort();
	for (size_t i = 1; i < s->nr_rows; i++) {
		const struct osc_sum_row *a = &s->rows[i - 1], *b = &s->rows[i];
		int c = strcmp(osc_summary_str(s, a->key), osc_summary_str(s, b->key));

		if (a->level > b->level || (a->level == b->level && a->run > b->run) ||
		    (a->level == b->level && a->run == b->run && c >= 0))
			abort();
	}
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
	restyle(&s, OSC_NAMES_SHORT);
	restyle(&again, OSC_NAMES_MANGLED);
	osc_summary_release(&s);
	osc_summary_release(&again);
	return 0;
}
