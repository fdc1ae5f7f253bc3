/*
 * memory.h - how much memory this process may use, for budgets of what is
 * kept only to answer faster (the explorer's kept rows).
 */
#ifndef OPSCOPE_MEMORY_H
#define OPSCOPE_MEMORY_H

#include <stdint.h>

/*
 * The bytes of memory this process may use: the machine's, or the lowest
 * limit of its cgroups and their ancestors when lower (v2: memory.max; v1:
 * the memory controller's memory.limit_in_bytes); 0 when unknown.
 */
uint64_t osc_memory_limit(void);

/*
 * The lowest memory limit of the cgroups that the file cgroups lists (as
 * /proc/self/cgroup does) and of their ancestors, their files under root
 * (as /sys/fs/cgroup); UINT64_MAX when none.
 */
uint64_t osc_cgroup_limit(const char *cgroups, const char *root);

#endif
