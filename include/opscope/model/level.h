/*
 * level.h - the aggregation levels: what a row of a table is (an op, a
 * kernel, a call path ...), with the name --by and the summary files give
 * each. The analyses build the rows (aggregate.h); the model only names them,
 * so that a summary file's reader (load/) knows them too.
 */
#ifndef OPSCOPE_LEVEL_H
#define OPSCOPE_LEVEL_H

#include <stdbool.h>

/* X-macro: aggregation levels with their --by name. */
#define OSC_LEVEL_LIST(_)       \
	_(OP, "op")             \
	_(SHAPE, "shape")       \
	_(KERNEL, "kernel")     \
	_(DIMS, "dims")         \
	_(MAPPING, "mapping")   \
	_(RUN, "run")           \
	_(PATH, "path")         \
	_(CATEGORY, "category") \
	_(MODULE, "module")

enum osc_level {
#define OSC_LEVEL_ENUM(name, text) OSC_LEVEL_##name,
	OSC_LEVEL_LIST(OSC_LEVEL_ENUM)
#undef OSC_LEVEL_ENUM
	OSC_LEVEL_COUNT
};

/* The --by name of a level ("op"); "unknown" for a value out of range. */
const char *osc_level_name(enum osc_level l);

/* The level whose --by name is name exactly (case matters); false when none is. */
bool osc_level_from_name(const char *name, enum osc_level *out);

#endif
