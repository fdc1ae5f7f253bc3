/* parallel.c - one thread per piece of work (parallel.h). */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "base/parallel.h"

size_t osc_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > OSC_MAX_THREADS ? OSC_MAX_THREADS : (size_t)n;
}

size_t osc_parallel_parts(size_t n, size_t per_thread)
{
	size_t parts = n / per_thread;

	return parts < 1 ? 1 : parts > osc_cpus() ? osc_cpus() : parts;
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
