/*
 * fuzz_config.c - libFuzzer target for the configuration file parser
 * (src/cli/config.c: `NAME = VALUE` lines and `bind KEY ACTION` into the
 * explorer's keymap). The input is the file, read through $OPSCOPE_CONFIG;
 * the parser must give a status and a message naming the file and line,
 * never a crash, a hang, a leak or undefined behaviour, however many keys
 * earlier inputs bound.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct osc_error err;
	FILE *f;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/fuzz-config-XXXXXX");
		fd = mkstemp(path);
		if (fd >= 0)
			close(fd);
		setenv("OPSCOPE_CONFIG", path, 1);
	}
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	memset(&osc_cli_config, 0, sizeof(osc_cli_config));
	osc_error_clear(&err);
	osc_cli_config_load(&err);
	return 0;
}
