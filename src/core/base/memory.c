/* memory.c - the memory this process may use (memory.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opscope/base/memory.h"

/* The number in the file at path ("max", absent or unreadable: UINT64_MAX). */
static uint64_t read_limit(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long v;
	int got;

	if (!f)
		return UINT64_MAX;
	got = fscanf(f, "%llu", &v);
	fclose(f);
	return got == 1 ? (uint64_t)v : UINT64_MAX;
}

/* The lowest limit in file of the cgroup at dir (under base) and its ancestors. */
static uint64_t least_up(const char *base, char *dir, const char *file)
{
	char path[4400];
	uint64_t least = UINT64_MAX;

	for (;;) {
		char *slash = strrchr(dir, '/');
		uint64_t v;

		snprintf(path, sizeof(path), "%s%s/%s", base, dir, file);
		v = read_limit(path);
		least = v < least ? v : least;
		if (!slash || !strcmp(dir, "/"))
			return least;
		*slash = '\0'; /* "/a" goes on to "", the root */
	}
}

uint64_t osc_cgroup_limit(const char *cgroups, const char *root)
{
	char line[4096], base[4096];
	FILE *f = fopen(cgroups, "r");
	uint64_t least = UINT64_MAX;

	if (!f)
		return least;
	while (fgets(line, sizeof(line), f)) { /* ID:CONTROLLERS:PATH */
		char *ctl = strchr(line, ':'), *dir = ctl ? strchr(ctl + 1, ':') : NULL;
		uint64_t v = UINT64_MAX;

		if (!dir)
			continue;
		*ctl++ = '\0';
		*dir++ = '\0';
		dir[strcspn(dir, "\n")] = '\0';
		if (!strcmp(line, "0") && !*ctl) {
			v = least_up(root, dir, "memory.max");
		} else if (!strcmp(ctl, "memory")) {
			snprintf(base, sizeof(base), "%s/memory", root);
			v = least_up(base, dir, "memory.limit_in_bytes");
		}
		least = v < least ? v : least;
	}
	fclose(f);
	return least;
}

uint64_t osc_memory_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	uint64_t limit = osc_cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup");

	return limit < memory ? limit : memory;
}
