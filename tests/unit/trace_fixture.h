/*
 * trace_fixture.h - building small traces by hand for the analysis tests.
 *
 * A test lists its events as a table in file order; fx_build() interns the
 * strings, adds the events and sorts the trace into model order, exactly as
 * a loader would. fx_find() looks an event up by name after the sort;
 * fx_load() reads a real trace.
 */
#ifndef OPSCOPE_TEST_TRACE_FIXTURE_H
#define OPSCOPE_TEST_TRACE_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opscope/load/load.h"
#include "opscope/model/trace.h"

#define FX_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Table rows: FX(name, KIND, ts, dur), with a correlation id, with an op key. */
#define FX(n, k, ts, dur) {(n), OSC_KIND_##k, (ts), (dur), 0, NULL}
#define FX_CORR(n, k, ts, dur, corr) {(n), OSC_KIND_##k, (ts), (dur), (corr), NULL}
#define FX_OP(n, k, ts, dur, op) {(n), OSC_KIND_##k, (ts), (dur), 0, (op)}

struct fx_event {
	const char *name;
	enum osc_kind kind;
	int64_t ts, dur;
	int64_t corr;   /* 0 in a table means "none": tests use ids >= 1 */
	const char *op; /* NULL: the name */
};

static inline osc_str fx_str(struct osc_trace *t, const char *s)
{
	return osc_trace_intern(t, s, strlen(s));
}

static inline void fx_build(struct osc_trace *t, enum osc_format format,
			    const struct fx_event *ev, size_t n)
{
	uint32_t thread;

	osc_trace_init(t);
	t->format = format;
	thread = osc_trace_thread(t, fx_str(t, "1"), fx_str(t, "1"));
	for (size_t i = 0; i < n; i++) {
		struct osc_event e = {
			.ts = ev[i].ts,
			.dur = ev[i].dur,
			.corr_id = osc_trace_id(t, ev[i].corr ? ev[i].corr : OSC_NO_ID),
			.ext = OSC_ID_NONE,
			.name = fx_str(t, ev[i].name),
			.thread = thread,
			.kernel = OSC_NONE,
			.ph = OSC_PH_COMPLETE,
			.kind = (uint8_t)ev[i].kind,
		};
		struct osc_event_extra x = { .op = fx_str(t, ev[i].op ? ev[i].op : ev[i].name) };

		osc_trace_add_event(t, &e, &x, NULL, 0);
	}
	osc_trace_sort(t);
}

/* Index of the first event (in model order) named name; fails the test if none. */
static inline uint32_t fx_find(const struct osc_trace *t, const char *name)
{
	for (size_t i = 0; i < t->nr_events; i++)
		if (!strcmp(osc_trace_str(t, t->events[i].name), name))
			return (uint32_t)i;
	cr_assert_fail("no event named '%s'", name);
	return OSC_NONE;
}

/*
 * Load a real trace, path relative to the repository root ("samples/x.json",
 * "../shared/traces/..."); skips the test when OPSCOPE_SOURCE_ROOT is unset
 * or the file is absent (a user's clone has no ../shared).
 */
static inline void fx_load(struct osc_trace *t, const char *rel)
{
	const char *root = getenv("OPSCOPE_SOURCE_ROOT");
	char path[4096];
	struct osc_error err;

	if (!root)
		cr_skip_test("OPSCOPE_SOURCE_ROOT is not set");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (access(path, R_OK))
		cr_skip_test("%s is absent", path);
	osc_trace_init(t);
	cr_assert_eq(osc_load(path, NULL, t, &err), OSC_OK, "%s: %s", path, err.message);
}

#endif
