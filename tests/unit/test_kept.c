/*
 * test_kept.c - the TUI's kept results (src/tui/kept.c): what a view left is
 * kept within the budget, the oldest dropped first, while its state may come
 * back; a result computed ahead (osc_kept_offer) is kept only in what the
 * budget has left, and is the first to go when a result left needs room.
 * What is computed ahead (src/tui/ahead.c): not what is kept, shown,
 * forgotten or found too big. And the states' ids (src/tui/states.c): the
 * same runs and filter, the same id; another, another id, never reused.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "ahead.h"
#include "kept.h"
#include "states.h"

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

static struct osc_states states; /* the kept results' states */
static struct osc_filter no_filter;

/* The id of state n: runs flagged n, no filter (a new id the first time). */
static unsigned state(uint8_t n)
{
	return osc_states_id(&states, &n, 1, &no_filter);
}

/* Forget every state, then know states 0 to n - 1, made in that order. */
static void know_states(uint8_t n)
{
	osc_states_forget(&states);
	for (uint8_t i = 0; i < n; i++)
		state(i);
}

/* Kept results over states 0 to 7 (each known, none of them forgotten). */
static struct osc_kept new_kept(void)
{
	released = 0;
	released_apart = 0;
	test_thread = pthread_self();
	know_states(8);
	return (struct osc_kept){ .release = release_result, .budget = BUDGET, .states = &states };
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
	unsigned g = state(5);

	leave(&k, 1, g, 10, BUDGET / 2);
	cr_expect(osc_kept_offer(&k, 2, g, g, &r, sizeof(r), BUDGET / 4));
	cr_expect_eq(r.value, 0, "an offer kept is zeroed");
	cr_expect(osc_kept_has(&k, 2, g));
	r.value = 8;
	cr_expect_not(osc_kept_offer(&k, 3, g, g, &r, sizeof(r), BUDGET / 2),
		      "an offer over what is left is not kept");
	cr_expect_eq(r.value, 8, "an offer not kept stays the caller's");
	cr_expect_eq(released, 0, "an offer drops nothing kept");
	cr_expect_eq(take(&k, 1, g), 10);
	cr_expect_eq(take(&k, 2, g), 7);
	cr_expect_eq(take(&k, 3, g), -1);
	osc_kept_release(&k);
}

Test(kept, offer_drops_results_of_other_states_only)
{
	struct osc_kept k = new_kept();
	struct result r = { 9 };
	unsigned old = state(4), now = state(5), next = state(6);

	leave(&k, 1, old, 10, BUDGET);
	cr_expect(osc_kept_offer(&k, 2, now, now, &r, sizeof(r), BUDGET / 2),
		  "a result of another state makes room");
	cr_expect_eq(released, 1);
	cr_expect_not(osc_kept_has(&k, 1, old));
	r.value = 3;
	cr_expect_not(osc_kept_offer(&k, 2, now, now, &r, sizeof(r), 1), "one kept already stays");
	leave(&k, 3, now, 30, BUDGET / 2);
	r.value = 4;
	cr_expect_not(osc_kept_offer(&k, 4, next, now, &r, sizeof(r), 1),
		      "the current state's results are not dropped for another's");
	cr_expect(released == 1 && r.value == 4, "nor is any when it cannot fit");
	cr_expect_eq(take(&k, 2, now), 9);
	cr_expect(osc_kept_offer(&k, 4, next, now, &r, sizeof(r), 1), "room left: kept");
	cr_expect_eq(take(&k, 4, next), 4);
	cr_expect_eq(take(&k, 3, now), 30);
	osc_kept_release(&k);
}

Test(kept, results_stay_while_their_state_is_known)
{
	struct osc_kept k = new_kept();
	unsigned a = state(1), b = state(2);

	leave(&k, 1, a, 10, 1);
	leave(&k, 1, b, 20, 1);
	leave(&k, 2, a, 30, 1);
	cr_expect_eq(released, 0, "the same key under two states: both kept");
	cr_expect_eq(take(&k, 1, a), 10);
	cr_expect_eq(take(&k, 1, b), 20);
	leave(&k, 1, a, 10, 1);
	for (uint8_t n = 8; n < 8 + OSC_STATES_MAX - 2; n++) /* the rest of 0-7 are forgotten */
		state(n);
	state(2);
	cr_expect(osc_states_live(&states, a));
	state(100); /* state 1, used longest ago, is forgotten */
	cr_expect_not(osc_states_live(&states, a));
	cr_expect(osc_states_live(&states, b));
	leave(&k, 3, b, 40, 1);
	cr_expect_eq(released, 2, "the forgotten state's results are dropped");
	cr_expect_eq(take(&k, 1, a), -1);
	cr_expect_eq(take(&k, 3, b), 40);
	cr_expect_gt(state(1), state(100), "a state met again after: a new id");
	leave(&k, 4, 12345, 50, 1);
	cr_expect(released == 3 && take(&k, 4, 12345) == -1, "one of no known state is not kept");
	osc_kept_release(&k);
}

Test(kept, offered_go_first)
{
	struct osc_kept k = new_kept();
	struct result r = { 7 };
	unsigned g = state(5);

	leave(&k, 1, g, 10, BUDGET / 4);
	cr_assert(osc_kept_offer(&k, 2, g, g, &r, sizeof(r), BUDGET / 4));
	leave(&k, 3, g, 30, BUDGET / 4);
	leave(&k, 4, g, 40, BUDGET / 2);
	cr_expect_eq(released, 1, "one result makes room");
	cr_expect_eq(take(&k, 2, g), -1, "the offered one, never shown, went first");
	cr_expect_eq(take(&k, 1, g), 10);
	leave(&k, 5, g, 50, BUDGET / 2);
	cr_expect_eq(take(&k, 3, g), -1, "then the one left longest ago");
	cr_expect_eq(take(&k, 4, g), 40);
	osc_kept_release(&k);
}

Test(kept, dropped_results_are_freed_apart)
{
	struct osc_kept k = new_kept();
	struct result r = { 5 };
	struct timespec ms = { 0, 1000000 };
	unsigned g = state(5), fresh;

	k.free_apart = true;
	osc_kept_retire(&k, false, 9, g, &r, sizeof(r), 1); /* small: released at once */
	cr_expect_eq(released, 1);
	cr_expect_eq(released_apart, 0, "a small result is released on the caller's thread");
	leave(&k, 1, g, 10, BUDGET);
	leave(&k, 2, g, 20, BUDGET); /* drops the first to fit */
	r.value = 5;
	osc_kept_retire(&k, false, 3, g, &r, sizeof(r), BUDGET / 2); /* not kept: released */
	cr_expect_eq(r.value, 0, "the result shown is zeroed");
	osc_states_forget(&states);
	fresh = state(6);
	leave(&k, 4, fresh, 40, 1); /* the states were forgotten: drops the second */
	for (int i = 0; i < 5000 && released < 4; i++)
		nanosleep(&ms, NULL);
	cr_expect_eq(released, 4);
	cr_expect_eq(released_apart, 3, "each big one on a thread of its own");
	cr_expect_eq(take(&k, 4, fresh), 40);
	osc_kept_release(&k);
}

Test(ahead, offers_what_is_known_and_not_shown)
{
	struct osc_kept k = new_kept();
	struct osc_ahead a = { 0 };
	struct result r = { 7 };
	unsigned now = state(5), next = state(6), forgotten = 12345;

	cr_expect(osc_ahead_wanted(&a, &k, 2, now));
	osc_ahead_done(&a, &k, 2, forgotten, now, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 1, "one of a forgotten state is freed, not kept");
	r.value = 7;
	osc_ahead_done(&a, &k, 1, now, now, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 2, "one of the rows shown meanwhile is freed");
	cr_expect(osc_ahead_wanted(&a, &k, 2, now), "neither is taken for too big");
	r.value = 7;
	osc_ahead_done(&a, &k, 2, now, now, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 2, "one current and not shown is kept");
	r.value = 8;
	osc_ahead_done(&a, &k, 1, next, now, 1, &r, sizeof(r), 10);
	cr_expect(r.value == 0 && released == 2,
		  "the shown rows' key under another known state (w) is kept");
	cr_expect_eq(take(&k, 2, now), 7);
	cr_expect_eq(take(&k, 1, next), 8);
	leave(&k, 2, now, 7, 10);
	cr_expect_not(osc_ahead_wanted(&a, &k, 2, now), "one kept is not computed again");
	cr_expect(osc_ahead_wanted(&a, &k, 2, next), "but is for other runs or filter");
	osc_kept_release(&k);
}

Test(ahead, too_big_is_not_computed_again_for_the_same_state)
{
	struct osc_kept k = new_kept();
	struct osc_ahead a = { 0 };
	struct result r = { 7 };
	unsigned now = state(5), next = state(6);

	k.free_apart = true;
	osc_ahead_done(&a, &k, 3, now, now, 1, &r, sizeof(r), BUDGET + 1);
	cr_expect_eq(r.value, 0, "one too big is freed");
	for (int i = 0; i < 2000 && !released; i++) /* on a thread of its own */
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	cr_expect(released == 1 && released_apart == 1, "one too big is freed apart");
	r.value = 7;
	cr_expect_not(osc_ahead_wanted(&a, &k, 3, now));
	cr_expect(osc_ahead_wanted(&a, &k, 4, now), "another key still is");
	cr_expect(osc_ahead_wanted(&a, &k, 3, next), "another state may have room");
	osc_ahead_done(&a, &k, 4, next, next, 1, &r, sizeof(r), BUDGET + 1);
	cr_expect_not(osc_ahead_wanted(&a, &k, 4, next));
	cr_expect_not(osc_ahead_wanted(&a, &k, 3, now),
		      "a state's too big are remembered when it may come back");
	osc_kept_release(&k);
}

Test(ahead, too_big_of_forgotten_states_make_way_first)
{
	struct osc_kept k = new_kept();
	struct osc_ahead a = { 0 };
	struct result r = { 7 };
	unsigned now = state(5), old = state(6);

	osc_ahead_done(&a, &k, 3, now, now, 1, &r, sizeof(r), BUDGET + 1);
	for (unsigned key = 100; a.nr_too_big < OSC_AHEAD_MAX; key++) {
		r.value = 7;
		osc_ahead_done(&a, &k, key, old, now, 1, &r, sizeof(r), BUDGET + 1);
	}
	state(5);
	for (uint8_t n = 8; n < 8 + OSC_STATES_MAX - 1; n++) /* every state but 5 forgotten */
		state(n);
	cr_assert_not(osc_states_live(&states, old));
	r.value = 7;
	osc_ahead_done(&a, &k, 4, now, now, 1, &r, sizeof(r), BUDGET + 1);
	cr_expect_eq(a.nr_too_big, 2, "the forgotten state's are forgotten");
	cr_expect_not(osc_ahead_wanted(&a, &k, 3, now), "the known state's stay");
	cr_expect_not(osc_ahead_wanted(&a, &k, 4, now));
	osc_kept_release(&k);
}

Test(states, the_same_runs_and_filter_have_the_same_id)
{
	struct osc_filter f, g;
	uint8_t on[3] = { 0, 1, 1 }, all[3] = { 1, 1, 1 };
	unsigned plain, filtered;

	osc_states_forget(&states);
	osc_filter_init(&f);
	osc_filter_init(&g);
	plain = osc_states_id(&states, on, 3, &f);
	cr_expect_eq(osc_states_id(&states, on, 3, &f), plain);
	cr_expect_neq(osc_states_id(&states, all, 3, &f), plain, "other runs");
	cr_expect_neq(osc_states_id(&states, on, 2, &f), plain, "fewer runs");
	osc_filter_add_pattern(&f, "a|b");
	filtered = osc_states_id(&states, on, 3, &f);
	cr_expect_neq(filtered, plain, "a filter");
	osc_filter_add_pattern(&g, "a");
	osc_filter_add_pattern(&g, "b");
	cr_expect_neq(osc_states_id(&states, on, 3, &g), filtered, "two patterns are not one");
	osc_filter_release(&g);
	osc_filter_init(&g);
	cr_assert_eq(osc_filter_set_regex(&g, "a|b", NULL), OSC_OK);
	cr_expect_neq(osc_states_id(&states, on, 3, &g), filtered, "a regex is not a pattern");
	cr_expect_eq(osc_states_id(&states, on, 3, &f), filtered, "met again: its id");
	osc_states_forget(&states);
	cr_expect_not(osc_states_live(&states, plain));
	cr_expect_gt(osc_states_id(&states, on, 3, &f), filtered, "forgotten: never given again");
	osc_filter_release(&f);
	osc_filter_release(&g);
	osc_states_forget(&states);
}

Test(states, a_guess_takes_no_known_state_s_place_until_it_is_right)
{
	struct osc_filter f, g;
	unsigned guess, known[OSC_STATES_MAX];
	uint8_t on = 1;

	osc_states_forget(&states);
	osc_filter_init(&f);
	osc_filter_init(&g);
	for (uint8_t n = 0; n < OSC_STATES_MAX; n++)
		known[n] = state(n);
	osc_filter_add_pattern(&f, "aten::*");
	guess = osc_states_guess(&states, &on, 1, &f);
	cr_expect(osc_states_live(&states, guess), "a guess is live");
	for (uint8_t n = 0; n < OSC_STATES_MAX; n++)
		cr_expect(osc_states_live(&states, known[n]), "and takes no known state's place");
	cr_expect_eq(osc_states_guess(&states, &on, 1, &f), guess, "the same guess, the same id");
	cr_expect_eq(osc_states_guess(&states, &on, 1, &no_filter), known[1],
		     "a known state guessed: its own id");
	osc_filter_add_pattern(&g, "aten::mm");
	cr_expect_neq(osc_states_guess(&states, &on, 1, &g), guess);
	cr_expect_not(osc_states_live(&states, guess), "a new guess replaces the one before");
	guess = osc_states_guess(&states, &on, 1, &f);
	cr_expect_eq(osc_states_id(&states, &on, 1, &f), guess, "a right guess keeps its id");
	cr_expect_not(osc_states_live(&states, known[0]), "known now, the oldest made way");
	cr_expect_eq(osc_states_id(&states, &on, 1, &f), guess);
	osc_states_forget(&states);
	cr_expect_not(osc_states_live(&states, guess));
	osc_filter_release(&f);
	osc_filter_release(&g);
}

Test(kept, budget_is_a_sixteenth_of_memory_within_bounds)
{
	cr_expect_eq(osc_kept_budget_for((uint64_t)1 << 30), OSC_KEPT_MIN, "1 GiB: the least");
	cr_expect_eq(osc_kept_budget_for((uint64_t)24 << 30), (size_t)3 << 29, "24 GiB: 1.5 GiB");
	cr_expect_eq(osc_kept_budget_for((uint64_t)1 << 40), OSC_KEPT_MAX, "1 TiB: the most");
	cr_expect_eq(osc_kept_budget_for(0), OSC_KEPT_MIN, "unknown memory: the least");
}
