/*
 * test_kept.c - the TUI's kept results (src/tui/kept.c): what a view left is
 * kept within the budget, the oldest dropped first; a result computed ahead
 * (osc_kept_offer) is kept only in what the budget has left, and is the first
 * to go when a result left needs room. And what is computed ahead
 * (src/tui/ahead.c): not what is kept, shown, stale or found too big.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "ahead.h"
#include "kept.h"

/* A result: its value stands for what it holds. */
struct result {
	int value;
};

#define BUDGET ((size_t)100 << 20) /* the tests' budget */

static atomic_int released;
static atomic_int released_apart; /* of those, released on another thread */
static pthread_t test_thread;

static void release_result(void *r)
{
	(void)r;
	if (!pthread_equal(pthread_self(), test_thread))
		released_apart++;
	released++;
}

static struct osc_kept new_kept(void)
{
	released = 0;
	released_apart = 0;
	test_thread = pthread_self();
	return (struct osc_kept){ .release = release_result, .budget = BUDGET };
}

/* Leave a result of value under key for gen, as holding bytes. */
static void leave(struct osc_kept *k, unsigned key, unsigned gen, int value, size_t bytes)
{
	struct result r = { value };

	osc_kept_retire(k, true, key, gen, &r, sizeof(r), bytes);
	cr_assert_eq(r.value, 0, "the result left is zeroed");
}

/* The value kept under key for gen, taken out; -1 when none. */
static int take(struct osc_kept *k, unsigned key, unsigned gen)
{
	struct result r;

	return osc_kept_take(k, key, gen, &r, sizeof(r)) ? r.value : -1;
}

Test(kept, offer_fits_in_what_is_left)
{
	struct osc_kept k = new_kept();
	struct result r = { 7 };

	leave(&k, 1, 5, 10, BUDGET / 2);
	cr_expect(osc_kept_offer(&k, 2, 5, &r, sizeof(r), BUDGET / 4));
	cr_expect_eq(r.value, 0, "an offer kept is zeroed");
	cr_expect(osc_kept_has(&k, 2, 5));
	r.value = 8;
	cr_expect_not(osc_kept_offer(&k, 3, 5, &r, sizeof(r), BUDGET / 2),
		      "an offer over what is left is not kept");
	cr_expect_eq(r.value, 8, "an offer not kept stays the caller's");
	cr_expect_eq(released, 0, "an offer drops nothing kept");
	cr_expect_eq(take(&k, 1, 5), 10);
	cr_expect_eq(take(&k, 2, 5), 7);
	cr_expect_eq(take(&k, 3, 5), -1);
	osc_kept_release(&k);
}

Test(kept, offer_drops_other_generations_only)
{
	struct osc_kept k = new_kept();
	struct result r = { 9 };

	leave(&k, 1, 4, 10, BUDGET);
	cr_expect(osc_kept_offer(&k, 2, 5, &r, sizeof(r), BUDGET / 2),
		      "a result of another generation makes room");
	cr_expect_eq(released, 1);
	cr_expect_not(osc_kept_has(&k, 1, 4));
	r.value = 3;
	cr_expect_not(osc_kept_offer(&k, 2, 5, &r, sizeof(r), 1), "one kept already stays");
	cr_expect_eq(take(&k, 2, 5), 9);
	osc_kept_release(&k);
}

Test(kept, offered_go_first)
{
	struct osc_kept k = new_kept();
	struct result r = { 7 };

	leave(&k, 1, 5, 10, BUDGET / 4);
	cr_assert(osc_kept_offer(&k, 2, 5, &r, sizeof(r), BUDGET / 4));
	leave(&k, 3, 5, 30, BUDGET / 4);
	leave(&k, 4, 5, 40, BUDGET / 2);
	cr_expect_eq(released, 1, "one result makes room");
	cr_expect_eq(take(&k, 2, 5), -1, "the offered one, never shown, went first");
	cr_expect_eq(take(&k, 1, 5), 10);
	leave(&k, 5, 5, 50, BUDGET / 2);
	cr_expect_eq(take(&k, 3, 5), -1, "then the one left longest ago");
	cr_expect_eq(take(&k, 4, 5), 40);
	osc_kept_release(&k);
}

Test(kept, dropped_results_are_freed_apart)
{
	struct osc_kept k = new_kept();
	struct result r = { 5 };
	struct timespec ms = { 0, 1000000 };

	k.free_apart = true;
	osc_kept_retire(&k, false, 9, 5, &r, sizeof(r), 1); /* small: released at once */
	cr_expect_eq(released, 1);
	cr_expect_eq(released_apart, 0, "a small result is released on the caller's thread");
	leave(&k, 1, 5, 10, BUDGET);
	leave(&k, 2, 5, 20, BUDGET); /* drops the first to fit */
	r.value = 5;
	osc_kept_retire(&k, false, 3, 5, &r, sizeof(r), BUDGET / 2); /* not kept: released */
	cr_expect_eq(r.value, 0, "the result shown is zeroed");
	leave(&k, 4, 6, 40, 1); /* another generation: drops the second */
	for (int i = 0; i < 5000 && released < 4; i++)
		nanosleep(&ms, NULL);
	cr_expect_eq(released, 4);
	cr_expect_eq(released_apart, 3, "each big one on a thread of its own");
	cr_expect_eq(take(&k, 4, 6), 40);
	osc_kept_release(&k);
}

Test(ahead, offers_what_is_current_and_not_shown)
{
	struct osc_kept k = new_kept();
	struct osc_ahead a = { 0 };
	struct result r = { 7 };

	cr_expect(osc_ahead_wanted(&a, &k, 2, 5));
	osc_ahead_done(&a, &k, 2, 4, 5, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 1, "one of another generation is freed, not kept");
	r.value = 7;
	osc_ahead_done(&a, &k, 1, 5, 5, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 2, "one of the rows shown meanwhile is freed");
	cr_expect(osc_ahead_wanted(&a, &k, 2, 5), "neither is taken for too big");
	r.value = 7;
	osc_ahead_done(&a, &k, 2, 5, 5, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 2, "one current and not shown is kept");
	cr_expect_eq(take(&k, 2, 5), 7);
	leave(&k, 2, 5, 7, 10);
	cr_expect_not(osc_ahead_wanted(&a, &k, 2, 5), "one kept is not computed again");
	cr_expect(osc_ahead_wanted(&a, &k, 2, 6), "but is for other runs or filter");
	osc_kept_release(&k);
}

Test(ahead, too_big_is_not_computed_again_for_the_same_generation)
{
	struct osc_kept k = new_kept();
	struct osc_ahead a = { 0 };
	struct result r = { 7 };

	k.free_apart = true;
	osc_ahead_done(&a, &k, 3, 5, 5, 1, &r, sizeof(r), BUDGET + 1);
	cr_expect_eq(r.value, 0, "one too big is freed");
	for (int i = 0; i < 2000 && !released; i++) /* on a thread of its own */
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	cr_expect(released == 1 && released_apart == 1, "one too big is freed apart");
	r.value = 7;
	cr_expect_not(osc_ahead_wanted(&a, &k, 3, 5));
	cr_expect(osc_ahead_wanted(&a, &k, 4, 5), "another key still is");
	cr_expect(osc_ahead_wanted(&a, &k, 3, 6), "another generation may have room");
	osc_ahead_done(&a, &k, 4, 6, 6, 1, &r, sizeof(r), BUDGET + 1);
	cr_expect(osc_ahead_wanted(&a, &k, 3, 6), "the old generation's too big are forgotten");
	cr_expect_not(osc_ahead_wanted(&a, &k, 4, 6));
	osc_kept_release(&k);
}

Test(kept, budget_is_a_sixteenth_of_memory_within_bounds)
{
	cr_expect_eq(osc_kept_budget_for((uint64_t)1 << 30), OSC_KEPT_MIN, "1 GiB: the least");
	cr_expect_eq(osc_kept_budget_for((uint64_t)24 << 30), (size_t)3 << 29, "24 GiB: 1.5 GiB");
	cr_expect_eq(osc_kept_budget_for((uint64_t)1 << 40), OSC_KEPT_MAX, "1 TiB: the most");
	cr_expect_eq(osc_kept_budget_for(0), OSC_KEPT_MIN, "unknown memory: the least");
}
