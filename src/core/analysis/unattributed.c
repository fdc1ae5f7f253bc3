/* unattributed.c - why device events have no host op, and how that reads. */
#include <stdio.h>

#include "opscope/analysis/aggregate.h"
#include "opscope/analysis/columns.h"
#include "opscope/analysis/unattributed.h"
#include "opscope/base/sat.h"

static const char *const names[] = {
#define OSC_UNATTRIBUTED_NAME(name, text) text,
	OSC_UNATTRIBUTED_LIST(OSC_UNATTRIBUTED_NAME)
#undef OSC_UNATTRIBUTED_NAME
};

const char *osc_unattributed_name(enum osc_unattributed u)
{
	if ((unsigned)u >= OSC_UNATTRIBUTED_COUNT)
		return "unknown";
	return names[u];
}

bool osc_level_sums_device(enum osc_level l)
{
	return l == OSC_LEVEL_OP || l == OSC_LEVEL_SHAPE || l == OSC_LEVEL_PATH;
}

int64_t osc_agg_unattributed(const struct osc_agg *a)
{
	int64_t sum = 0;

	for (int u = OSC_UNATTRIBUTED_NONE + 1; u < OSC_UNATTRIBUTED_COUNT; u++)
		sum = osc_sat_add(sum, a->unattributed[u]);
	return sum;
}

void osc_agg_unattributed_text(const struct osc_agg *a, char *buf, size_t size)
{
	bool done[OSC_UNATTRIBUTED_COUNT] = { [OSC_UNATTRIBUTED_NONE] = true };
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (;;) {
		int best = -1;
		char us[32];

		for (int u = 0; u < OSC_UNATTRIBUTED_COUNT; u++)
			if (!done[u] && a->nr_unattributed[u] &&
			    (best < 0 || a->unattributed[u] > a->unattributed[best]))
				best = u;
		if (best < 0 || len >= size)
			break;
		done[best] = true;
		osc_format_us_int(a->unattributed[best], us, sizeof(us));
		len += (size_t)snprintf(buf + len, size - len, "%s%s %s us (%llu event%s)",
					len ? "; " : "", osc_unattributed_name(best), us,
					(unsigned long long)a->nr_unattributed[best],
					a->nr_unattributed[best] == 1 ? "" : "s");
	}
	if (!len)
		snprintf(buf, size, "none");
}
