/*
 * fuzz_options.c - libFuzzer target for the option parsers that take
 * free text: --runs (osc_runsel_parse), --speedup rules and --speedup-csv
 * files, --filter patterns, --regex and the TUI's filter spec, and
 * --run-range (over a small trace with named ranges). The input is split
 * at its first byte 0-4 (which parser) and used as the option's text; the
 * parser must give a status and a message, never a crash, a hang, a leak or
 * undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/model/filter.h"
#include "opscope/load/load.h"
#include "opscope/model/runs.h"
#include "opscope/analysis/whatif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A trace with NVTX-like ranges for --run-range: three "step" ranges, nested work. */
static const char ranges[] =
	"[{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"step 0\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":50},"
	"{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"step 1\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":50},"
	"{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"Forward pass\",\"pid\":1,\"tid\":1,\"ts\":61,"
	"\"dur\":20},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":62,\"dur\":5},"
	"{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"step 2\",\"pid\":1,\"tid\":2,\"ts\":120,\"dur\":5}]";

static const char *const names[] = { "aten::mm", "Conv_0_kernel_time", "", "\xc3\xa9t\xc3\xa9",
				     "void gemm<float, 128>(float const*)", "a*b?[c]" };

static void runs(const char *spec, uint8_t n)
{
	struct osc_runsel sel;
	struct osc_error err;

	if (osc_runsel_parse(spec, n % 40, n & 0x80, &sel, &err) == OSC_OK)
		osc_runsel_release(&sel);
}

static void speedups(const char *spec, const uint8_t *data, size_t size)
{
	static char path[64];
	struct osc_speedups s;
	struct osc_error err;
	FILE *f;

	osc_speedups_init(&s);
	osc_speedups_parse(&s, spec, &err);
	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/fuzz-speedups-XXXXXX");
		fd = mkstemp(path);
		if (fd >= 0)
			close(fd);
	}
	f = fopen(path, "w");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
		osc_speedups_read_csv(&s, path, &err);
	}
	osc_speedups_release(&s);
}

static void filters(const char *text)
{
	struct osc_filter f;
	struct osc_error err;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, text);
	osc_filter_set_regex(&f, text, &err);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		osc_filter_match(&f, names[i], strlen(names[i]));
	osc_filter_set_spec(&f, text, &err);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		osc_filter_match(&f, names[i], strlen(names[i]));
	osc_filter_release(&f);
}

static void run_range(const char *spec)
{
	static struct osc_trace t;
	static int loaded;
	struct osc_runs_opts o = { .range = spec };
	struct osc_runs r;
	struct osc_error err;

	if (!loaded) {
		osc_trace_init(&t);
		loaded = osc_load_buffer("ranges", ranges, strlen(ranges), NULL, &t, &err) ==
				 OSC_OK ? 1 : -1;
	}
	if (loaded < 0)
		return;
	osc_runs_detect_opts(&t, &o, &r, &err);
	osc_runs_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (!size)
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0'; /* the option's text: up to its first NUL */
	switch (data[0] % 5) {
	case 0:
		runs(text, size > 1 ? data[1] : 0);
		break;
	case 1:
		speedups(text, data + 1, size - 1);
		break;
	case 2:
		filters(text);
		break;
	case 3:
		run_range(text);
		break;
	default: /* all of them */
		runs(text, (uint8_t)size);
		speedups(text, data + 1, size - 1);
		filters(text);
		run_range(text);
	}
	free(text);
	return 0;
}
