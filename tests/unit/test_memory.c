/*
 * test_memory.c - the memory this process may use (src/core/base/memory.c):
 * the cgroup limits read from a made-up /proc/self/cgroup and /sys/fs/cgroup
 * tree, v2 and v1, the lowest of a cgroup and its ancestors; and this
 * process's limit against /proc/meminfo.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "opscope/base/memory.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/opscope-memory-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(memory, .init = make_dir, .fini = remove_dir);

/* Write text to dir/name, making the folders on the way. */
static void put(const char *name, const char *text)
{
	char path[256], cmd[320];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	cr_assert_eq(system(cmd), 0);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* osc_cgroup_limit of dir/cgroup over the tree at dir/sys. */
static uint64_t limit(void)
{
	char cgroups[128], root[128];

	snprintf(cgroups, sizeof(cgroups), "%s/cgroup", dir);
	snprintf(root, sizeof(root), "%s/sys", dir);
	return osc_cgroup_limit(cgroups, root);
}

Test(memory, v2_takes_the_lowest_of_the_cgroup_and_its_ancestors)
{
	put("cgroup", "0::/a/b\n");
	put("sys/a/b/memory.max", "max\n");
	put("sys/a/memory.max", "3221225472\n");
	put("sys/memory.max", "8589934592\n");
	cr_expect_eq(limit(), (uint64_t)3 << 30);
}

Test(memory, v1_reads_the_memory_controller)
{
	put("cgroup", "9:name=systemd:/\n5:cpu,cpuacct:/x\n4:memory:/x/y\n0::/\n");
	put("sys/memory/x/y/memory.limit_in_bytes", "2147483648\n");
	put("sys/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("sys/x/memory.max", "1024\n"); /* not this process's v2 cgroup */
	cr_expect_eq(limit(), (uint64_t)2 << 30);
}

Test(memory, no_limit_when_none_is_set_or_readable)
{
	put("cgroup", "0::/a\n");
	put("sys/a/memory.max", "max\n");
	cr_expect_eq(limit(), UINT64_MAX);
	put("cgroup", "");
	cr_expect_eq(limit(), UINT64_MAX, "no cgroup listed");
	cr_expect_eq(osc_cgroup_limit("/no/such/file", dir), UINT64_MAX);
}

Test(memory, this_process_may_use_at_most_the_machine)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kib = 0;
	uint64_t m = osc_memory_limit();

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "MemTotal: %llu kB", &kib), 1);
	fclose(f);
	cr_expect(m > 0 && m <= (uint64_t)kib << 10, "%llu bytes against MemTotal %llu KiB",
		  (unsigned long long)m, kib);
}
