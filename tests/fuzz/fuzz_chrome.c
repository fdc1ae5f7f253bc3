/*
 * fuzz_chrome.c - libFuzzer target for the trace-event JSON loader: any
 * bytes (plain or gzip) through osc_load_buffer, then the args of the first
 * events rendered, as the detail view does; and the same bytes as a file
 * (mapped when plain, decompressed into the spool on a thread of its own
 * when compressed, args copied as written), which must load the same. Bad
 * input must give a status, never a crash, a hang or a leak.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "opscope/load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Load data as a file of its own (a memfd); its status. */
static enum osc_status load_file(const uint8_t *data, size_t size, struct osc_trace *t,
				 struct osc_error *err)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	char path[64];
	enum osc_status st;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	st = osc_load(path, NULL, t, err);
	close(fd);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct osc_trace t, f;
	struct osc_error err, ferr;
	enum osc_status st, fst;

	osc_trace_init(&t);
	osc_trace_init(&f);
	st = osc_load_buffer("fuzz", data, size, NULL, &t, &err);
	fst = load_file(data, size, &f, &ferr);
	if (st != fst) {
		fprintf(stderr, "buffer: %s\nfile: %s\n", st == OSC_OK ? "ok" : err.message,
			fst == OSC_OK ? "ok" : ferr.message);
		abort();
	}
	if (st == OSC_OK) {
		if (t.nr_events != f.nr_events) {
			fprintf(stderr, "events: buffer %zu, file %zu\n", t.nr_events, f.nr_events);
			abort();
		}
		/* each trace renders into a buffer of its own */
		for (uint32_t i = 0; i < t.nr_events && i < 64; i++)
			if (strcmp(osc_trace_args(&t, i), osc_trace_args(&f, i)))
				abort();
	}
	osc_trace_release(&t);
	osc_trace_release(&f);
	return 0;
}
