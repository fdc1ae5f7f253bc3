/* test_json_scan.c - exact numbers, string decoding, repairs, truncation. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/base/json_scan.h"

struct num_case {
	const char *text;
	int scale;
	enum js_num rc;
	int64_t want;
};

static const struct num_case num_cases[] = {
	{ "1712195495505583.123", 3, JS_NUM_OK, 1712195495505583123LL }, /* Kineto ts, µs -> ns */
	{ "68.0", 3, JS_NUM_OK, 68000 },
	{ "68", 3, JS_NUM_OK, 68000 },
	{ "1.5e3", 3, JS_NUM_OK, 1500000 },
	{ "1.5E+3", 0, JS_NUM_OK, 1500 },
	{ "-2.5", 3, JS_NUM_OK, -2500 },
	{ "0.0005", 3, JS_NUM_OK, 1 },    /* half rounds away from zero */
	{ "-0.0005", 3, JS_NUM_OK, -1 },
	{ "0.0004999", 3, JS_NUM_OK, 0 },
	{ "1.23456789", 3, JS_NUM_OK, 1235 },
	{ "3743411222894.405", 3, JS_NUM_OK, 3743411222894405LL },
	{ "5e-1", 0, JS_NUM_OK, 1 },
	{ "12345678901234567890123e-10", 0, JS_NUM_OK, 1234567890123LL },
	{ "9223372036854775807", 0, JS_NUM_OK, INT64_MAX },
	{ "9223372036854775808", 0, JS_NUM_BIG, INT64_MAX },
	{ "10159970886766084423", 0, JS_NUM_BIG, INT64_MAX },
	{ "-10159970886766084423", 0, JS_NUM_BIG, INT64_MIN },
	{ "1e400", 3, JS_NUM_BIG, INT64_MAX },
	{ "1e-400", 3, JS_NUM_OK, 0 },
	{ "0", 3, JS_NUM_OK, 0 },
	{ "abc", 3, JS_NUM_BAD, 0 },
	{ "", 3, JS_NUM_BAD, 0 },
	{ "1.2.3", 3, JS_NUM_BAD, 0 },
	{ "1e", 3, JS_NUM_BAD, 0 },
	{ "-", 3, JS_NUM_BAD, 0 },
};

Test(json_scan, numbers_are_exact)
{
	for (size_t i = 0; i < sizeof(num_cases) / sizeof(num_cases[0]); i++) {
		const struct num_case *c = &num_cases[i];
		int64_t got = 0;
		enum js_num rc = js_parse_scaled(c->text, strlen(c->text), c->scale, &got);

		cr_assert_eq(rc, c->rc, "'%s': rc %d, want %d", c->text, rc, c->rc);
		if (rc != JS_NUM_BAD)
			cr_assert_eq(got, c->want, "'%s': %lld, want %lld", c->text, (long long)got,
				     (long long)c->want);
	}
}

/*
 * Digit strings of every length up to 19, some with one byte swapped for a
 * byte next to the digits ('/', ':', 0xb0) or a letter, which makes them
 * not numbers: the eight-at-a-time path against a plain digit loop.
 */
Test(json_scan, integers_match_a_digit_loop)
{
	static const char near[] = { '/', ':', 'a', (char)0xb0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int round = 0; round < 20000; round++) {
		char text[24];
		size_t len;
		uint64_t want = 0;
		bool digits = true;
		int64_t got = 0;
		enum js_num rc;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
		len = 1 + (size_t)(x % 19);
		for (size_t i = 0; i < len; i++) {
			text[i] = (char)('0' + (x >> (i * 3 % 60)) % 10);
			want = want * 10 + (uint64_t)(text[i] - '0');
		}
		if (round % 3 == 0) {
			text[(x >> 20) % len] = near[(x >> 40) % sizeof(near)];
			digits = false;
		}
		text[len] = '\0';
		rc = js_parse_scaled(text, len, 0, &got);
		if (!digits) {
			cr_assert_eq(rc, JS_NUM_BAD, "'%s'", text);
			continue;
		}
		if (want > (uint64_t)INT64_MAX) {
			cr_assert_eq(rc, JS_NUM_BIG, "'%s'", text);
			continue;
		}
		cr_assert_eq(rc, JS_NUM_OK, "'%s'", text);
		cr_assert_eq(got, (int64_t)want, "'%s': %lld", text, (long long)got);
	}
}

/*
 * A number's span ends at the first byte after its digits that cannot be in
 * a number, wherever it falls among the eight-byte words: every length up
 * to 20 digits, with each kind of end; a window ending on a digit asks for
 * more unless the input ends there.
 */
Test(json_scan, number_spans_end_after_their_digits)
{
	static const char *const ends[] = { ",", "}", "]", " ", "\n", ":",
					    "\"", "/", "\xc3\xa9", "\xb0", "\x80" };

	for (size_t n = 1; n <= 20; n++) {
		for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++) {
			char text[40];
			struct js_ctx c;
			struct js_val v;
			const char *p = text;

			for (size_t i = 0; i < n; i++)
				text[i] = (char)('0' + (i * 7 + n) % 10);
			snprintf(text + n, sizeof(text) - n, "%s", ends[k]);
			c = (struct js_ctx){ .end = text + strlen(text), .eof = true };
			cr_assert_eq(js_scan_value(&c, &p, &v), JS_OK, "%zu digits, end %zu", n, k);
			cr_assert_eq(v.len, n, "%zu digits, end %zu: %zu", n, k, v.len);
			cr_assert_eq(v.type, JS_NUMBER);
			p = text;
			c = (struct js_ctx){ .end = text + n, .eof = false };
			cr_assert_eq(js_scan_value(&c, &p, &v), JS_MORE, "%zu digits, cut", n);
		}
	}
}

/* Scan the first string of text and decode it. */
static char *decode(const char *text, bool *bad)
{
	struct js_ctx c = { .end = text + strlen(text), .eof = true };
	struct js_val v;
	const char *p = text;
	char *out;
	size_t n;

	cr_assert_eq(js_scan_string(&c, &p, &v, ",}]:"), JS_OK, "scanning %s", text);
	out = malloc(JS_DECODE_MAX(v.len) + 1);
	*bad = false;
	n = js_decode_string(&v, out, bad);
	out[n] = '\0';
	return out;
}

Test(json_scan, escapes_and_surrogates)
{
	bool bad;
	char *s;

	s = decode("\"a\\u00e9b\"", &bad);
	cr_assert_str_eq(s, "a\xc3\xa9" "b");
	cr_assert(!bad);
	free(s);
	s = decode("\"\\ud83d\\ude00!\"", &bad);
	cr_assert_str_eq(s, "\xf0\x9f\x98\x80!");
	cr_assert(!bad);
	free(s);
	s = decode("\"x\\ud83dy\"", &bad); /* lone high surrogate */
	cr_assert_str_eq(s, "x\xef\xbf\xbdy");
	cr_assert(bad);
	free(s);
	s = decode("\"\\n\\t\\\"\\\\\\/\"", &bad);
	cr_assert_str_eq(s, "\n\t\"\\/");
	free(s);
}

Test(json_scan, invalid_utf8_becomes_replacement)
{
	bool bad;
	char *s = decode("\"a\xff" "b\xc3\xa9\xe2\x82\"", &bad);

	cr_assert_str_eq(s, "a\xef\xbf\xbd" "b\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
	cr_assert(bad);
	free(s);
}

Test(json_scan, unescaped_quote_is_repaired)
{
	const char *text = "{\"name\" :\"Conv \"fused\" 1\",\"ph\" : \"X\", \"args\": {\"op_name\": "
			   "\"a\"b\"}}";
	struct js_ctx c = { .end = text + strlen(text), .eof = true };
	struct js_event ev;
	const char *p = text;
	bool bad = false;
	char out[256];
	size_t n;

	cr_assert_eq(js_scan_event(&c, &p, &ev), JS_OK);
	cr_assert_eq(p, c.end);
	cr_assert_eq(c.repairs, 3);
	n = js_decode_string(&ev.f[JF_NAME], out, &bad);
	out[n] = '\0';
	cr_assert_str_eq(out, "Conv \"fused\" 1");
	n = js_decode_string(&ev.a[JA_OP_NAME], out, &bad);
	out[n] = '\0';
	cr_assert_str_eq(out, "a\"b");
	/* The stored args text escapes the repaired quote again. */
	n = js_copy_minified(&c, &ev.f[JF_ARGS], out, &bad);
	out[n] = '\0';
	cr_assert_str_eq(out, "{\"op_name\":\"a\\\"b\"}");
}

Test(json_scan, event_fields_and_args)
{
	const char *text = "{ \"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1.5, \"dur\": 2,\n"
			   "  \"args\": { \"grid\": [2, 4, 64], \"stream\": 7,\n"
			   "            \"est. achieved occupancy %\": 75, \"nested\": {\"a\": [1]} } ,}";
	struct js_ctx c = { .end = text + strlen(text), .eof = true };
	struct js_event ev;
	const char *p = text;

	cr_assert_eq(js_scan_event(&c, &p, &ev), JS_OK);
	cr_assert(ev.is_object);
	cr_assert_eq(ev.f[JF_TS].type, JS_NUMBER);
	cr_assert_eq(ev.f[JF_TS].len, 3);
	cr_assert_eq(ev.a[JA_GRID].type, JS_ARRAY);
	cr_assert_eq(ev.a[JA_OCCUPANCY].len, 2);
	cr_assert_eq(ev.f[JF_NAME].type, JS_NONE);
	cr_assert_eq(ev.f[JF_ARGS].type, JS_OBJECT);
}

/* Every prefix of an event: JS_EOF at the end of input, JS_MORE when more may
   come, never a read past the prefix (run under ASan). */
Test(json_scan, truncation_at_every_offset)
{
	const char *text = "{\"name\":\"a\\u00e9\\\"b\",\"ph\":\"X\",\"ts\":12.5,\"dur\":3,"
			   "\"args\":{\"Input Dims\":[[1,2],[]],\"x\":\"y\"}}";
	size_t len = strlen(text);

	for (size_t n = 0; n <= len; n++) {
		char *buf = malloc(n ? n : 1);
		struct js_event ev;

		memcpy(buf, text, n);
		for (int eof = 0; eof < 2; eof++) {
			struct js_ctx c = { .end = buf + n, .eof = eof };
			const char *p = buf;
			enum js_rc rc = js_scan_event(&c, &p, &ev);

			if (n == len)
				cr_assert_eq(rc, JS_OK);
			else
				cr_assert_eq(rc, eof ? JS_EOF : JS_MORE, "n=%zu rc=%d", n, rc);
		}
		free(buf);
	}
}
