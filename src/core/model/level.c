/* level.c - the aggregation levels' names (level.h). */
#include <string.h>

#include "opscope/model/level.h"

static const char *const level_names[] = {
#define OSC_LEVEL_NAME(name, text) text,
	OSC_LEVEL_LIST(OSC_LEVEL_NAME)
#undef OSC_LEVEL_NAME
};

const char *osc_level_name(enum osc_level l)
{
	if ((unsigned)l >= OSC_LEVEL_COUNT)
		return "unknown";
	return level_names[l];
}

bool osc_level_from_name(const char *name, enum osc_level *out)
{
	for (int l = 0; l < OSC_LEVEL_COUNT; l++) {
		if (!strcmp(name, level_names[l])) {
			*out = (enum osc_level)l;
			return true;
		}
	}
	return false;
}
