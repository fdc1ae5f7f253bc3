/*
 * test_alloc.c - allocation (src/core/base/alloc.c): blocks of 4 MiB and
 * more ask for huge pages where the kernel has them (their mapping carries
 * the "hg" flag in /proc/self/smaps), whether malloc'd or grown by realloc,
 * and a new one starts on a huge page; smaller ones do not, and every block
 * keeps its bytes. osc_give_back drops the whole pages of a range, and only
 * those. Scratch given back (scratch.h) is taken again: the smallest block
 * kept that fits, its bytes as they were left.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opscope/base/alloc.h"
#include "../../src/core/base/scratch.h"

#define MIB ((size_t)1 << 20)

/* Whether the kernel has transparent huge pages (they may be off: the flag is still set). */
static bool have_thp(void)
{
	return access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0;
}

/* The VmFlags of the mapping holding address a, "" when not found. */
static void flags_at(const void *a, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false;
	uintptr_t at = (uintptr_t)a;

	out[0] = '\0';
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = at >= lo && at < hi;
		else if (inside && !strncmp(line, "VmFlags:", 8)) {
			snprintf(out, size, "%s", line + 8);
			break;
		}
	}
	fclose(f);
}

/* Whether the mapping holding address a asks for huge pages. */
static bool asks_huge_at(const void *a)
{
	char flags[256];

	flags_at(a, flags, sizeof(flags));
	return strstr(flags, " hg") != NULL;
}

/* Whether the first whole huge page inside block p of size bytes is asked for as one. */
static bool asks_huge(const void *p, size_t size)
{
	uintptr_t inside = ((uintptr_t)p + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1);

	cr_assert_leq(inside + 2 * MIB, (uintptr_t)p + size, "a whole huge page inside");
	return asks_huge_at((const void *)inside);
}

Test(alloc, big_blocks_ask_for_huge_pages)
{
	char *big, *table, *zeroed, *room, *grown = osc_xmalloc(MIB), *small = osc_xmalloc(3 * MIB);

	if (!have_thp())
		cr_skip_test("no transparent huge pages in this kernel");
	big = osc_xmalloc(16 * MIB);
	cr_expect(asks_huge(big, 16 * MIB), "a 16 MiB malloc");
	cr_expect_eq((uintptr_t)big % (2 * MIB), 0, "a 16 MiB malloc starts on a huge page");
	table = osc_xreallocarray(NULL, 1 << 20, 8);
	cr_expect_eq((uintptr_t)table % (2 * MIB), 0, "so does a new 8 MiB table");
	zeroed = osc_xcalloc_big(1 << 20, 8);
	cr_expect_eq((uintptr_t)zeroed % (2 * MIB), 0, "and a zeroed one");
	cr_expect(zeroed[0] == 0 && zeroed[8 * MIB - 1] == 0, "zeroed");
	room = osc_xroom(8 * MIB + 100);
	cr_expect_eq((uintptr_t)room % (2 * MIB), 0, "and room of its own");
	room[8 * MIB + 99] = 1; /* all of it is there */
	osc_room_free(room, 8 * MIB + 100);
	memset(grown, 7, MIB);
	grown = osc_xrealloc(grown, 16 * MIB);
	cr_expect(asks_huge(grown, 16 * MIB), "a block grown to 16 MiB");
	cr_expect(grown[0] == 7 && grown[MIB - 1] == 7, "keeps its bytes");
	memset(small, 1, 3 * MIB);
	cr_expect_not(asks_huge_at(small + 3 * MIB / 2), "a 3 MiB block does not");
	free(big);
	free(table);
	free(zeroed);
	free(grown);
	free(small);
}

Test(alloc, give_back_drops_the_whole_pages_of_the_range)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 64 * page / sizeof(uint64_t);
	uint64_t *v = osc_xmalloc_big(n, sizeof(*v));
	/* from and to inside pages: the pages they fall in are kept */
	size_t per = page / sizeof(*v), from = 3 * per + 5, to = 40 * per + 7, zeros = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = i + 1;
	osc_give_back(v, sizeof(*v), from, to);
	for (size_t i = 0; i < n; i++) {
		/* the array may start inside a page: count by address, not index */
		uintptr_t at = (uintptr_t)&v[i];
		bool dropped = at >= (((uintptr_t)&v[from] + page - 1) & ~(uintptr_t)(page - 1)) &&
			       at < ((uintptr_t)&v[to] & ~(uintptr_t)(page - 1));

		cr_expect_eq(v[i], dropped ? 0 : i + 1, "element %zu", i);
		zeros += v[i] == 0;
	}
	cr_expect_eq(zeros, (40 - 4) * per, "36 whole pages dropped");
	osc_give_back(v, sizeof(*v), 10, 10);
	cr_expect_eq(v[10], 11, "an empty range drops nothing");
	free(v);
}

/*
 * Two blocks given back are taken again, each by the request it fits best,
 * with the bytes written into them. Blocks under OSC_SCRATCH_MIN are
 * neither kept nor handed out from those kept, and do not send them away.
 */
Test(alloc, scratch_is_taken_again)
{
	char *small = osc_scratch_take(8 * MIB), *big = osc_scratch_take(16 * MIB), *a, *b;

	memset(small, 's', 8 * MIB);
	memset(big, 'b', 16 * MIB);
	osc_scratch_give(big);
	osc_scratch_give(small);
	osc_scratch_give(NULL); /* nothing */
	a = osc_scratch_take(6 * MIB); /* both fit: the smaller */
	b = osc_scratch_take(6 * MIB);
	cr_assert_eq(a, small);
	cr_assert_eq(b, big);
	cr_assert(a[0] == 's' && a[8 * MIB - 1] == 's' && b[16 * MIB - 1] == 'b');
	osc_scratch_give(a);
	a = osc_scratch_take(12 * MIB); /* the one kept is too small: a new block */
	cr_assert_neq(a, small);
	memset(a, 'n', 12 * MIB);
	osc_scratch_give(a);
	osc_scratch_give(b); /* 8 + 12 + 16 MiB kept, at most OSC_SCRATCH_KEPT */
	cr_assert_lt(8 * MIB + 12 * MIB + 16 * MIB, OSC_SCRATCH_KEPT);
	cr_assert_eq(osc_scratch_take(16 * MIB), b);
	cr_assert_eq(osc_scratch_take(12 * MIB), a);
	cr_assert_eq(osc_scratch_take(8 * MIB), small);
	osc_scratch_give(small);
	osc_scratch_give(a);
	osc_scratch_give(b);
	for (int i = 0; i < 8; i++) { /* blocks under OSC_SCRATCH_MIN: neither kept nor given out */
		char *tiny = osc_scratch_take(4096);

		cr_assert(tiny != small && tiny != a && tiny != b);
		osc_scratch_give(tiny);
	}
	cr_assert_eq(osc_scratch_take(8 * MIB), small, "small blocks sent a big one away");
	cr_assert_eq(osc_scratch_take(12 * MIB), a);
	cr_assert_eq(osc_scratch_take(16 * MIB), b);
	osc_scratch_give(small);
	osc_scratch_give(a);
	osc_scratch_give(b);
}
