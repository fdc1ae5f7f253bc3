/* parallel.c - one thread per piece of work (parallel.h), and their number (threads.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "opscope/base/threads.h"
#include "base/parallel.h"

static size_t cap; /* osc_threads_cap's, 0: none */

void osc_threads_cap(size_t n)
{
	cap = n;
}

bool osc_thread_detached(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t th;
	bool started;

	if (pthread_attr_init(&attr))
		return false;
	started = !pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) &&
		  !pthread_create(&th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return started;
}

size_t osc_threads(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	if (cap && (size_t)n > cap)
		n = (long)cap;
	return n < 1 ? 1 : n > OSC_THREADS_MAX ? OSC_THREADS_MAX : (size_t)n;
}

enum osc_status osc_threads_parse(const char *s, const char *subject, size_t *out,
				  struct osc_error *err)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (!*s || *s < '0' || *s > '9' || *end || errno || n > OSC_THREADS_MAX)
		return osc_error_set(err, OSC_USAGE, subject, OSC_NO_OFFSET, NULL,
				     "not a thread count: '%s' (1 to %d, or 0 for every CPU)", s,
				     OSC_THREADS_MAX);
	*out = n;
	return OSC_OK;
}

size_t osc_parallel_parts(size_t n, size_t per_thread)
{
	size_t parts = n / per_thread;

	return parts < 1 ? 1 : parts > osc_threads() ? osc_threads() : parts;
}

struct piece {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t i;
	pthread_t th;
	bool started;
};

static void *run_piece(void *p)
{
	struct piece *pc = p;

	pc->fn(pc->arg, pc->i);
	return NULL;
}

void osc_parallel_run(size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	struct piece pc[OSC_MAX_THREADS];

	for (size_t i = 0; i < n; i += OSC_MAX_THREADS) {
		size_t m = n - i < OSC_MAX_THREADS ? n - i : OSC_MAX_THREADS;

		for (size_t k = 1; k < m; k++) {
			pc[k] = (struct piece){ .fn = fn, .arg = arg, .i = i + k };
			pc[k].started = !pthread_create(&pc[k].th, NULL, run_piece, &pc[k]);
		}
		fn(arg, i);
		for (size_t k = 1; k < m; k++) {
			if (pc[k].started)
				pthread_join(pc[k].th, NULL);
			else
				fn(arg, i + k);
		}
	}
}
