/* test_filter.c - exact, wildcard and regex name filters. */
#include <criterion/criterion.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "opscope/model/filter.h"
#include "trace_fixture.h"

static bool match(const struct osc_filter *f, const char *name)
{
	return osc_filter_match(f, name, strlen(name));
}

static void set_regex_ok(struct osc_filter *f, const char *re)
{
	struct osc_error err;

	cr_assert_eq(osc_filter_set_regex(f, re, &err), OSC_OK, "%s: %s", re, err.message);
}

Test(filter, empty_filter_passes_everything)
{
	struct osc_filter f;

	osc_filter_init(&f);
	cr_expect(osc_filter_is_empty(&f));
	cr_expect(match(&f, "anything"));
	cr_expect(match(&f, ""));
	osc_filter_release(&f);
}

Test(filter, exact_names)
{
	struct osc_filter f;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Conv");
	cr_expect_not(osc_filter_is_empty(&f));
	cr_expect(match(&f, "Conv"));
	cr_expect_not(match(&f, "Conv2d"), "exact: no prefix match");
	cr_expect_not(match(&f, "conv"), "exact: case matters");
	cr_expect_not(match(&f, "Con"));
	/* a name given with a length need not end there */
	cr_expect(osc_filter_match(&f, "Conv2d", 4));
	osc_filter_release(&f);
}

Test(filter, wildcards)
{
	struct osc_filter f;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Conv*");
	cr_expect(match(&f, "Conv"));
	cr_expect(match(&f, "Conv2d_kernel_time"));
	cr_expect_not(match(&f, "FusedConv"));
	osc_filter_release(&f);

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Re?u");
	cr_expect(match(&f, "Relu"));
	cr_expect_not(match(&f, "Reelu"));
	osc_filter_release(&f);

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "[CG]emm");
	cr_expect(match(&f, "Gemm"));
	cr_expect(match(&f, "Cemm"));
	cr_expect_not(match(&f, "Hemm"));
	/* the name's length bounds the wildcard match too */
	cr_expect(osc_filter_match(&f, "Gemmxyz", 4));
	cr_expect_not(osc_filter_match(&f, "Gemmxyz", 5));
	osc_filter_release(&f);
}

Test(filter, patterns_are_alternatives)
{
	struct osc_filter f;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Conv*");
	osc_filter_add_pattern(&f, "Relu");
	cr_expect(match(&f, "Conv1"));
	cr_expect(match(&f, "Relu"));
	cr_expect_not(match(&f, "Relu6"));
	cr_expect_not(match(&f, "Add"));
	osc_filter_release(&f);
}

Test(filter, regex_matches_anywhere)
{
	struct osc_filter f;

	osc_filter_init(&f);
	set_regex_ok(&f, "gemm");
	cr_expect(match(&f, "volta_sgemm_128x64"));
	cr_expect_not(match(&f, "Gemm"));
	set_regex_ok(&f, "(?i)gemm");
	cr_expect(match(&f, "Gemm"), "the second regex replaces the first");
	set_regex_ok(&f, "^Conv$");
	cr_expect(match(&f, "Conv"));
	cr_expect_not(match(&f, "Conv2d"));
	osc_filter_release(&f);
}

Test(filter, patterns_and_regex_must_both_pass)
{
	struct osc_filter f;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Conv*");
	set_regex_ok(&f, "2d");
	cr_expect(match(&f, "Conv2d"));
	cr_expect_not(match(&f, "Conv1d"));
	cr_expect_not(match(&f, "Relu2d"));
	osc_filter_release(&f);
}

Test(filter, bad_regex_reports_pcre2_message_and_offset)
{
	struct osc_filter f;
	struct osc_error err;

	osc_filter_init(&f);
	set_regex_ok(&f, "relu");
	cr_assert_eq(osc_filter_set_regex(&f, "ab(c", &err), OSC_USAGE);
	cr_expect_str_eq(err.subject, "--regex");
	cr_expect_eq(err.offset, OSC_NO_OFFSET); /* the offset is in the message */
	cr_expect_str_eq(err.message, "regex error at offset 4: missing closing parenthesis");
	cr_assert_eq(osc_filter_set_regex(&f, "a)b", &err), OSC_USAGE);
	cr_expect_eq(err.offset, OSC_NO_OFFSET); /* the offset is in the message */
	cr_expect_str_eq(err.message, "regex error at offset 1: unmatched closing parenthesis");
	/* the filter is unchanged */
	cr_expect(match(&f, "relu"));
	cr_expect_not(match(&f, "abc"));
	cr_expect_str_eq(f.re_text, "relu");
	osc_filter_release(&f);
}

Test(filter, utf8)
{
	struct osc_filter f;
	struct osc_error err;

	osc_filter_init(&f);
	/* UTF mode: "é" is one character, not two bytes */
	set_regex_ok(&f, "^.$");
	cr_expect(match(&f, "\xc3\xa9"));
	cr_expect_not(match(&f, "ab"));
	set_regex_ok(&f, "^caf\xc3\xa9_\\w+$");
	cr_expect(match(&f, "caf\xc3\xa9_op"));
	/* invalid UTF-8 in a name is not an error: it just matches around it */
	set_regex_ok(&f, "b$");
	cr_expect(match(&f, "a\xff" "b"));
	cr_expect_not(match(&f, "\xff\xfe"));
	/* invalid UTF-8 in the pattern is a compile error with its offset */
	cr_expect_eq(osc_filter_set_regex(&f, "ab\xff", &err), OSC_USAGE);
	cr_expect_eq(err.offset, OSC_NO_OFFSET); /* the offset is in the message */
	cr_expect(strstr(err.message, "regex error at offset 2: ") == err.message, "%s",
		  err.message);
	osc_filter_release(&f);
}

Test(filter, spec_replaces_the_whole_filter)
{
	struct osc_filter f;
	struct osc_error err;
	char *d;

	osc_filter_init(&f);
	cr_assert_eq(osc_filter_set_spec(&f, "re:gemm", &err), OSC_OK);
	cr_expect(match(&f, "sgemm"));
	cr_expect_not(match(&f, "Conv"));
	cr_assert_eq(osc_filter_set_spec(&f, "Conv*", &err), OSC_OK);
	cr_expect(match(&f, "Conv2d"), "a pattern spec drops the previous regex");
	cr_expect_not(match(&f, "sgemm"));
	cr_assert_eq(osc_filter_set_spec(&f, "re:(", &err), OSC_USAGE);
	cr_expect(strstr(err.message, "regex error at offset 1: ") == err.message, "%s",
		  err.message);
	cr_expect(match(&f, "Conv2d"), "unchanged after an error");
	cr_assert_eq(osc_filter_set_spec(&f, "re:2d$", &err), OSC_OK);
	cr_expect(match(&f, "Relu2d"), "a regex spec drops the previous patterns");
	cr_assert_eq(osc_filter_set_spec(&f, "", &err), OSC_OK);
	cr_expect(osc_filter_is_empty(&f));
	d = osc_filter_describe(&f);
	cr_expect_str_eq(d, "");
	free(d);
	osc_filter_release(&f);
}

Test(filter, describe)
{
	struct osc_filter f;
	char *d;

	osc_filter_init(&f);
	osc_filter_add_pattern(&f, "Conv*");
	osc_filter_add_pattern(&f, "Relu");
	d = osc_filter_describe(&f);
	cr_expect_str_eq(d, "Conv*|Relu");
	free(d);
	set_regex_ok(&f, "gemm");
	d = osc_filter_describe(&f);
	cr_expect_str_eq(d, "Conv*|Relu re:gemm");
	free(d);
	osc_filter_release(&f);

	osc_filter_init(&f);
	set_regex_ok(&f, "gemm");
	d = osc_filter_describe(&f);
	cr_expect_str_eq(d, "re:gemm");
	free(d);
	osc_filter_release(&f);
}

/*
 * Events pass by their name or their op key:
 *
 *   name                op      "Conv"  "*_kernel_time"  "Relu"
 *   Conv_kernel_time    Conv    yes     yes              no
 *   fused_kernel_time   Conv    yes     yes              no
 *   Add_kernel_time     Add     no      yes              no
 */
Test(filter, events_pass_by_name_or_op)
{
	static const struct fx_event ev[] = {
		FX_OP("Conv_kernel_time", HOST_OP, 0, 1, "Conv"),
		FX_OP("fused_kernel_time", HOST_OP, 1, 1, "Conv"),
		FX_OP("Add_kernel_time", HOST_OP, 2, 1, "Add"),
	};
	static const struct {
		const char *pattern;
		const char *want; /* per event in table order */
	} cases[] = {{"Conv", "110"}, {"*_kernel_time", "111"}, {"Relu", "000"}};
	struct osc_trace t;

	fx_build(&t, OSC_FORMAT_ORT, ev, FX_LEN(ev));
	for (size_t c = 0; c < FX_LEN(cases); c++) {
		struct osc_filter f;
		struct osc_filter_cache fc;

		osc_filter_init(&f);
		osc_filter_add_pattern(&f, cases[c].pattern);
		osc_filter_cache_init(&fc, &f, &t);
		for (size_t i = 0; i < FX_LEN(ev); i++) {
			uint32_t e = fx_find(&t, ev[i].name);
			bool want = cases[c].want[i] == '1';

			cr_expect_eq(osc_filter_match_event(&f, &t, e), want, "%s on %s",
				     cases[c].pattern, ev[i].name);
			/* twice: the second answer comes from the cache */
			cr_expect_eq(osc_filter_cache_event(&fc, e), want);
			cr_expect_eq(osc_filter_cache_event(&fc, e), want);
		}
		osc_filter_cache_release(&fc);
		osc_filter_release(&f);
	}
	osc_trace_release(&t);
}

Test(filter, cache_without_filter_passes_everything)
{
	static const struct fx_event ev[] = {FX("a", HOST_OP, 0, 1)};
	struct osc_trace t;
	struct osc_filter_cache fc;
	struct osc_filter empty;

	fx_build(&t, OSC_FORMAT_CHROME, ev, FX_LEN(ev));
	osc_filter_cache_init(&fc, NULL, &t);
	cr_expect(osc_filter_cache_event(&fc, 0));
	osc_filter_cache_release(&fc);
	osc_filter_init(&empty);
	osc_filter_cache_init(&fc, &empty, &t);
	cr_expect(osc_filter_cache_event(&fc, 0));
	osc_filter_cache_release(&fc);
	osc_filter_release(&empty);
	osc_trace_release(&t);
}

/* Whether name[0 .. len) matches pattern, read anew. */
static bool pattern_match(const char *pattern, const char *name, size_t len)
{
	struct osc_pattern p;

	osc_pattern_compile(&p, pattern);
	return osc_pattern_matches(&p, name, len);
}

/* osc_pattern_exact: a name with wildcard characters matches itself alone. */
Test(filter, exact_pattern_of_a_name)
{
	static const char *const names[] = { "aten::mm", "a*b", "x?[y]", "back\\slash*", "" };
	static const char *const others[] = { "aten::mmm", "aXb", "xZy", "back\\slashX", "x" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = osc_pattern_exact(names[i]);

		cr_expect(pattern_match(p, names[i], strlen(names[i])), "%s by %s", names[i], p);
		cr_expect(!pattern_match(p, others[i], strlen(others[i])), "%s by %s",
			  others[i], p);
		free(p);
	}
}

/* A random string of up to max bytes of alphabet (which may hold a NUL); its length. */
static size_t random_text(char *out, size_t max, const char *alphabet, size_t nr,
			  unsigned *seed)
{
	size_t len = (size_t)rand_r(seed) % (max + 1);

	for (size_t i = 0; i < len; i++)
		out[i] = alphabet[(size_t)rand_r(seed) % nr];
	out[len] = '\0';
	return len;
}

/* Whether pattern p is letters with '*'s at its ends only, and some. */
static bool stars_at_ends(const char *p)
{
	size_t head = strspn(p, "*"), letters = strspn(p + head, "ab");

	return strspn(p + head + letters, "*") == strlen(p + head + letters) &&
	       (head || p[head + letters]);
}

/*
 * Wildcard patterns match as fnmatch (flags 0) matches the name up to a NUL,
 * whichever way osc_pattern_matches takes them (stars at the ends only: by the
 * literal middle; others: fnmatch); patterns without *?[ match the whole
 * name exactly, NUL bytes and backslashes included. A filter of the pattern
 * alone, read once when set, answers the same; so does one of two patterns
 * (the last ones), its patterns read in turn as it grows.
 */
Test(filter, patterns_match_as_fnmatch)
{
	static const char pat_chars[] = "ab*?[]\\";
	static const char name_chars[] = { 'a', 'b', '*', '\\', '[', '\0' };
	unsigned seed = 19;
	size_t ends = 0;
	struct osc_filter one, grown;
	struct osc_error err;

	osc_filter_init(&one);
	osc_filter_init(&grown);
	for (int i = 0; i < 200000; i++) {
		char pat[8], name[8], copy[8];
		size_t plen = random_text(pat, 6, pat_chars, sizeof(pat_chars) - 1, &seed);
		size_t len = random_text(name, 6, name_chars, sizeof(name_chars), &seed);
		bool want, before = false;

		memcpy(copy, name, len + 1);
		want = strpbrk(pat, "*?[") ? !fnmatch(pat, copy, 0)
					   : len == plen && !memcmp(pat, name, len);
		ends += stars_at_ends(pat);
		cr_assert_eq(pattern_match(pat, name, len), want,
			     "pattern \"%s\" on \"%.*s\" (%zu bytes)", pat, (int)len, name, len);
		cr_assert_eq(osc_filter_set_spec(&one, pat, &err), OSC_OK);
		if (*pat) /* "" clears the filter: everything passes */
			cr_assert_eq(osc_filter_match(&one, name, len), want, "filter \"%s\"", pat);
		/* the filter grown by a pattern each time, matched against the name with its
		   last pattern and the one before: both are read right */
		if (grown.nr_patterns)
			before = pattern_match(grown.patterns[grown.nr_patterns - 1], name, len);
		osc_filter_add_pattern(&grown, pat);
		cr_assert_eq(osc_pattern_matches(&grown.compiled[grown.nr_patterns - 1], name, len),
			     want);
		if (grown.nr_patterns > 1)
			cr_assert_eq(osc_pattern_matches(&grown.compiled[grown.nr_patterns - 2], name,
							 len),
				     before);
	}
	cr_expect_gt(ends, 1000, "patterns with stars at the ends only were among them");
	cr_expect_eq(grown.nr_patterns, 200000);
	osc_filter_release(&one);
	osc_filter_release(&grown);
}
