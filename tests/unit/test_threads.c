/*
 * test_threads.c - the core's thread count (the affinity mask, the -j cap,
 * parsing it), and work on a thread nobody joins.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "opscope/base/threads.h"

static size_t affinity_cpus(void)
{
	cpu_set_t set;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return (size_t)CPU_COUNT(&set);
}

Test(threads, the_affinity_mask_capped)
{
	size_t cpus = affinity_cpus();

	osc_threads_cap(0);
	cr_expect_eq(osc_threads(), cpus < OSC_THREADS_MAX ? cpus : OSC_THREADS_MAX);
	osc_threads_cap(1);
	cr_expect_eq(osc_threads(), 1);
	osc_threads_cap(cpus + 5); /* a cap above the CPUs gives the CPUs */
	cr_expect_eq(osc_threads(), cpus < OSC_THREADS_MAX ? cpus : OSC_THREADS_MAX);
	osc_threads_cap(0);
}

Test(threads, parse)
{
	struct osc_error err;
	size_t n = 99;

	cr_assert_eq(osc_threads_parse("4", "-j", &n, &err), OSC_OK);
	cr_expect_eq(n, 4);
	cr_assert_eq(osc_threads_parse("0", "-j", &n, &err), OSC_OK);
	cr_expect_eq(n, 0);
	cr_expect_eq(osc_threads_parse("65", "-j", &n, &err), OSC_USAGE);
	cr_expect_eq(osc_threads_parse("-1", "-j", &n, &err), OSC_USAGE);
	cr_expect_eq(osc_threads_parse("2x", "OPSCOPE_THREADS", &n, &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "OPSCOPE_THREADS");
	cr_expect_eq(osc_threads_parse("", "-j", &n, &err), OSC_USAGE);
}

static atomic_int ran;        /* 1: fn ran, 2: on a thread other than the caller's */
static pthread_t caller;

static void *note_thread(void *arg)
{
	(void)arg;
	atomic_store(&ran, pthread_equal(pthread_self(), caller) ? 1 : 2);
	return NULL;
}

Test(threads, detached_work_runs_on_a_thread_of_its_own)
{
	caller = pthread_self();
	cr_assert(osc_thread_detached(note_thread, NULL));
	for (int i = 0; i < 5000 && !atomic_load(&ran); i++) /* nobody joins it */
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	cr_expect_eq(atomic_load(&ran), 2);
}
