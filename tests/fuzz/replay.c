/*
 * replay.c - run a fuzz target's LLVMFuzzerTestOneInput on saved inputs,
 * outside libFuzzer: `replay_TARGET DIR PREFIX` replays every file of DIR
 * whose name starts with PREFIX (the suite: tests/data/crashers and
 * "TARGET-"), so a reproducer bench/fuzz.sh saved fails the sanitizer build
 * until its fix is in.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, alloc = 0, n;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	do {
		if (len == alloc) {
			alloc = alloc ? alloc * 2 : 65536;
			buf = realloc(buf, alloc);
			if (!buf)
				return -1;
		}
		n = fread(buf + len, 1, alloc - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	int nr = 0;

	if (argc != 3 || !(d = opendir(argv[1]))) {
		fprintf(stderr, "usage: replay DIR PREFIX\n");
		return 2;
	}
	while ((e = readdir(d))) {
		char path[4096];

		if (strncmp(e->d_name, argv[2], strlen(argv[2])))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
		if (replay(path))
			return 2;
		nr++;
	}
	closedir(d);
	printf("replayed %d inputs\n", nr);
	return 0;
}
