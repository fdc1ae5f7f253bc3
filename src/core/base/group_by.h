/* group_by.h - items grouped by a dense key, by a counting sort (private to the core). */
#ifndef OPSCOPE_GROUP_BY_H
#define OPSCOPE_GROUP_BY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Group the items 0 .. n) by key[i] among nr_keys keys (UINT32_MAX, the
 * model's OSC_NONE: left out): *idx the items, ascending within a key, and
 * *first per key its start in *idx (nr_keys + 1 entries: first[nr_keys] is
 * how many). Free both.
 */
void osc_group_by_key(const uint32_t *key, size_t n, size_t nr_keys, uint32_t **idx,
		      uint32_t **first);

/*
 * The same grouping for a caller that lays out the items itself, in item
 * order: at[key[i] + 1]++ is where item i goes. After that pass over every
 * item, at[k] is key k's start and at[nr_keys] how many (nr_keys + 2
 * entries; free it).
 */
uint32_t *osc_group_cursors(const uint32_t *key, size_t n, size_t nr_keys);

#endif
