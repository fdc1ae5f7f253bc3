/* json_scan.c - tolerant restartable JSON scanning over a byte window. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/json_scan.h"

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Bytes of w equal to zero, as high bits (exact for the lowest match). */
static inline uint64_t zero_bytes(uint64_t w)
{
	return (w - ONES) & ~w & HIGHS;
}

/* Bytes that end a plain run inside a string: '"', '\\', >= 0x80, and
   (when ctrl) control characters. */
static inline uint64_t string_stops(uint64_t w, bool ctrl)
{
	uint64_t m = zero_bytes(w ^ (ONES * '"')) | zero_bytes(w ^ (ONES * '\\')) | (w & HIGHS);

	if (ctrl)
		m |= (w - ONES * 0x20) & ~w & HIGHS;
	return m;
}

/*
 * First byte at or after p that ends a plain run inside a string ('"', '\\'
 * or >= 0x80), or end: 16 bytes at a time with SSE2, else 8 with SWAR,
 * jumping straight to the stop.
 */
static inline const char *string_run_end(const char *p, const char *end)
{
#ifdef __SSE2__
	while (end - p >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
					 _mm_cmpeq_epi8(w, _mm_set1_epi8('\\')));
		/* the sign bits of w flag the bytes >= 0x80 */
		unsigned bits = (unsigned)_mm_movemask_epi8(_mm_or_si128(m, w));

		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (end - p >= 8) {
		uint64_t w, m;

		memcpy(&w, p, 8);
		m = string_stops(w, false);
		if (m) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* The lowest flagged byte is exact (a borrow only runs upwards). */
			return p + (__builtin_ctzll(m) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p < 0x80)
		p++;
	return p;
}

static inline bool is_ws(unsigned char ch)
{
	return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
}

const char *js_skip_ws_slow(const char *p, const char *end)
{
	while (p < end && is_ws((unsigned char)*p))
		p++;
	return p;
}

static enum js_rc at_end(const struct js_ctx *c)
{
	return c->eof ? JS_EOF : JS_MORE;
}

static enum js_rc syntax(struct js_ctx *c, const char *at, const char *msg)
{
	c->err_at = at;
	c->msg = msg;
	return JS_ERR;
}

/* *q is one of the bytes in follow (a short NUL-terminated set). */
static inline bool follows(const char *follow, char q)
{
	for (; *follow; follow++)
		if (*follow == q)
			return true;
	return false;
}

enum js_rc js_scan_string(struct js_ctx *c, const char **pp, struct js_val *v,
			  const char *follow)
{
	const char *start = *pp + 1, *p = start, *end = c->end;
	uint8_t flags = 0;

	for (;;) {
		p = string_run_end(p, end);
		if (p >= end)
			return at_end(c);
		if ((unsigned char)*p >= 0x80) {
			flags |= JS_F_HIGH;
			p++;
			continue;
		}
		if (*p == '\\') {
			if (end - p < 2)
				return at_end(c);
			flags |= JS_F_ESC;
			p += 2;
			continue;
		}
		/* Most strings close right before their delimiter. */
		if (end - p >= 2 && follows(follow, p[1]))
			break;
		const char *q = js_skip_ws(p + 1, end);

		if (q >= end && !c->eof)
			return JS_MORE;
		if (q >= end || follows(follow, *q))
			break;
		/* A quote that cannot close the string here: a literal one. */
		flags |= JS_F_REPAIR;
		c->repairs++;
		if (c->nr_repair_at < JS_MAX_REPAIRS)
			c->repair_at[c->nr_repair_at++] = p;
		p++;
	}
	v->p = start;
	v->len = (size_t)(p - start);
	v->type = JS_STRING;
	v->flags = flags;
	*pp = p + 1;
	return JS_OK;
}

/*
 * The common string inline: no escape, no byte >= 0x80, closed right before
 * its delimiter. Anything else goes through js_scan_string from the start.
 */
static inline enum js_rc scan_string(struct js_ctx *c, const char **pp, struct js_val *v,
				     const char *follow)
{
	const char *start = *pp + 1, *p = string_run_end(start, c->end);

	if (c->end - p >= 2 && *p == '"' && follows(follow, p[1])) {
		v->p = start;
		v->len = (size_t)(p - start);
		v->type = JS_STRING;
		v->flags = 0;
		*pp = p + 1;
		return JS_OK;
	}
	return js_scan_string(c, pp, v, follow);
}

static bool is_token_char(unsigned char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '-' || ch == '+' || ch == '.';
}

/* true, false, null, and the NaN / Infinity that Python's json writes. */
static bool is_literal(const struct js_val *v)
{
	static const char *const words[] = { "true", "false", "null", "NaN", "Infinity" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == v->len && !memcmp(words[i], v->p, v->len))
			return true;
	return false;
}

/*
 * First quote or bracket at or after p, or end. Brackets: '[' | 0x20 is '{'
 * and ']' | 0x20 is '}', and no other byte maps onto those two.
 */
static inline const char *container_run_end(const char *p, const char *end)
{
#ifdef __SSE2__
	while (end - p >= 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i lw = _mm_or_si128(w, _mm_set1_epi8(0x20));
		__m128i m = _mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
					 _mm_or_si128(_mm_cmpeq_epi8(lw, _mm_set1_epi8('{')),
						      _mm_cmpeq_epi8(lw, _mm_set1_epi8('}'))));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);

		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (end - p >= 8) {
		uint64_t w, lw, m;

		memcpy(&w, p, 8);
		lw = w | ONES * 0x20;
		m = zero_bytes(w ^ (ONES * '"')) | zero_bytes(lw ^ (ONES * '{')) |
		    zero_bytes(lw ^ (ONES * '}'));
		if (m) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return p + (__builtin_ctzll(m) >> 3);
#else
			break;
#endif
		}
		p += 8;
	}
	while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']')
		p++;
	return p;
}

/* Skip an object or array without checking its inner structure. */
static enum js_rc scan_container(struct js_ctx *c, const char **pp, struct js_val *v)
{
	const char *p = *pp, *end = c->end;
	size_t depth = 0;
	uint8_t flags = 0;
	struct js_val s;
	enum js_rc rc;

	for (;;) {
		p = container_run_end(p, end);
		if (p >= end)
			return at_end(c);
		switch (*p) {
		case '"':
			rc = scan_string(c, &p, &s, ",}]:");
			if (rc != JS_OK)
				return rc;
			flags |= s.flags;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		default: /* '}' or ']' */
			if (--depth == 0) {
				p++;
				v->p = *pp;
				v->len = (size_t)(p - *pp);
				v->type = **pp == '{' ? JS_OBJECT : JS_ARRAY;
				v->flags = flags;
				*pp = p;
				return JS_OK;
			}
			break;
		}
		p++;
	}
}

static inline bool is_digit(char ch)
{
	return (unsigned char)(ch - '0') < 10;
}

static inline enum js_rc scan_value(struct js_ctx *c, const char **pp, struct js_val *v)
{
	const char *p = *pp, *end = c->end;

	if (p >= end)
		return at_end(c);
	if (*p == '"')
		return scan_string(c, pp, v, ",}]:");
	if (*p == '{' || *p == '[')
		return scan_container(c, pp, v);
	/* Plain integers (most numbers of a trace) end at the first non-digit. */
	if (is_digit(*p) || *p == '-') {
		p++;
		while (p < end && is_digit(*p))
			p++;
	}
	while (p < end && is_token_char((unsigned char)*p))
		p++;
	if (p >= end && !c->eof)
		return JS_MORE;
	v->p = *pp;
	v->len = (size_t)(p - *pp);
	v->flags = 0;
	if (is_digit(*v->p) || *v->p == '-')
		v->type = JS_NUMBER;
	else if (is_literal(v))
		v->type = JS_LITERAL;
	else
		return syntax(c, *pp, "expected a value");
	*pp = p;
	return JS_OK;
}

enum js_rc js_scan_value(struct js_ctx *c, const char **pp, struct js_val *v)
{
	struct js_val tmp;

	return scan_value(c, pp, v ? v : &tmp);
}

static bool key_is(const struct js_val *k, const char *s, size_t n)
{
	return k->len == n && !memcmp(k->p, s, n);
}

#define KEY(k, lit) key_is((k), (lit), sizeof(lit) - 1)

static int field_index(const struct js_val *k)
{
	switch (k->len) {
	case 2:
		if (KEY(k, "ph"))
			return JF_PH;
		if (KEY(k, "ts"))
			return JF_TS;
		if (KEY(k, "id"))
			return JF_ID;
		break;
	case 3:
		if (KEY(k, "pid"))
			return JF_PID;
		if (KEY(k, "tid"))
			return JF_TID;
		if (KEY(k, "cat"))
			return JF_CAT;
		if (KEY(k, "dur"))
			return JF_DUR;
		break;
	case 4:
		if (KEY(k, "name"))
			return JF_NAME;
		if (KEY(k, "args"))
			return JF_ARGS;
		break;
	case 7:
		if (KEY(k, "bind_id"))
			return JF_BIND_ID;
		break;
	}
	return -1;
}

static int arg_index(const struct js_val *k)
{
	switch (k->len) {
	case 4:
		if (KEY(k, "grid"))
			return JA_GRID;
		if (KEY(k, "name"))
			return JA_NAME;
		break;
	case 5:
		if (KEY(k, "block"))
			return JA_BLOCK;
		if (KEY(k, "bytes"))
			return JA_BYTES;
		break;
	case 6:
		if (KEY(k, "stream"))
			return JA_STREAM;
		if (KEY(k, "device"))
			return JA_DEVICE;
		if (k->p[0] == 'g' && !memcmp(k->p, "grid_", 5) && k->p[5] >= 'x' && k->p[5] <= 'z')
			return JA_GRID_X + (k->p[5] - 'x');
		break;
	case 7:
		if (KEY(k, "op_name"))
			return JA_OP_NAME;
		if (!memcmp(k->p, "block_", 6) && k->p[6] >= 'x' && k->p[6] <= 'z')
			return JA_BLOCK_X + (k->p[6] - 'x');
		break;
	case 8:
		if (KEY(k, "provider"))
			return JA_PROVIDER;
		break;
	case 10:
		if (KEY(k, "Input Dims") || KEY(k, "Input dims"))
			return JA_INPUT_DIMS;
		if (KEY(k, "Input type"))
			return JA_INPUT_TYPE;
		if (KEY(k, "sort_index"))
			return JA_SORT_INDEX;
		if (KEY(k, "input_type"))
			return JA_NE_INPUT_TYPE;
		break;
	case 11:
		if (KEY(k, "correlation"))
			return JA_CORRELATION;
		if (KEY(k, "External id") || KEY(k, "external id"))
			return JA_EXTERNAL_ID;
		if (KEY(k, "input_shape"))
			return JA_NE_INPUT_SHAPE;
		break;
	case 13:
		if (KEY(k, "shared memory"))
			return JA_SHARED_MEM;
		break;
	case 14:
		if (KEY(k, "correlation_id"))
			return JA_CORRELATION_ID;
		break;
	case 16:
		if (KEY(k, "input_type_shape"))
			return JA_INPUT_TYPE_SHAPE;
		break;
	case 20:
		if (KEY(k, "registers per thread"))
			return JA_REGISTERS;
		break;
	case 25:
		if (KEY(k, "est. achieved occupancy %"))
			return JA_OCCUPANCY;
		break;
	}
	return -1;
}

/*
 * Walk an object's members: fields is the event (is_args false) or its args.
 * Keys the loader does not read are skipped as generic values.
 */
static enum js_rc scan_members(struct js_ctx *c, const char **pp, struct js_event *ev,
			       bool is_args, uint8_t *flags)
{
	const char *p = *pp + 1, *end = c->end;
	struct js_val k, v;
	enum js_rc rc;

	for (;;) {
		int idx;

		p = js_skip_ws(p, end);
		if (p >= end)
			return at_end(c);
		if (*p == '}')
			break;
		if (*p != '"')
			return syntax(c, p, is_args ? "expected a key or '}' in args" :
						      "expected a key or '}' in event");
		rc = scan_string(c, &p, &k, ":");
		if (rc != JS_OK)
			return rc;
		*flags |= k.flags;
		p = js_skip_ws(p, end);
		if (p >= end)
			return at_end(c);
		if (*p != ':')
			return syntax(c, p, "expected ':' after key");
		p = js_skip_ws(p + 1, end);
		if (p >= end)
			return at_end(c);
		idx = is_args ? arg_index(&k) : field_index(&k);
		if (!is_args && idx == JF_ARGS && *p == '{') {
			const char *start = p;
			uint8_t aflags = 0;

			rc = scan_members(c, &p, ev, true, &aflags);
			if (rc == JS_OK) {
				ev->f[JF_ARGS].p = start;
				ev->f[JF_ARGS].len = (size_t)(p - start);
				ev->f[JF_ARGS].type = JS_OBJECT;
				ev->f[JF_ARGS].flags = aflags;
			}
		} else {
			/* Scanned straight into its slot: a copy of a value just
			   written byte by byte would stall on store forwarding. */
			struct js_val *dst = idx < 0 ? &v : &(is_args ? ev->a : ev->f)[idx];

			rc = scan_value(c, &p, dst);
			if (rc == JS_OK)
				*flags |= dst->flags;
		}
		if (rc != JS_OK)
			return rc;
		p = js_skip_ws(p, end);
		if (p >= end)
			return at_end(c);
		if (*p == '}')
			break;
		if (*p != ',')
			return syntax(c, p, is_args ? "expected ',' or '}' in args" :
						      "expected ',' or '}' in event");
		p++;
	}
	*pp = p + 1;
	return JS_OK;
}

enum js_rc js_scan_event(struct js_ctx *c, const char **pp, struct js_event *ev)
{
	uint8_t flags = 0;

	memset(ev, 0, sizeof(*ev));
	if (*pp >= c->end)
		return at_end(c);
	if (**pp != '{')
		return js_scan_value(c, pp, NULL);
	ev->is_object = true;
	return scan_members(c, pp, ev, false, &flags);
}

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c0 = s[0];

	if (c0 < 0x80)
		return 1;
	if (c0 < 0xc2)
		return 0;
	if (c0 < 0xe0)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c0 < 0xf0) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c0 == 0xe0 && s[1] < 0xa0) || (c0 == 0xed && s[1] >= 0xa0))
			return 0;
		return 3;
	}
	if (c0 < 0xf5) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c0 == 0xf0 && s[1] < 0x90) || (c0 == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

static char *put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

#define REPLACEMENT 0xfffd

/* Copy a UTF-8 sequence at *sp or U+FFFD for an invalid byte. */
static char *copy_utf8(char *o, const char **sp, const char *end, bool *bad)
{
	size_t n = utf8_len((const unsigned char *)*sp, (size_t)(end - *sp));

	if (!n) {
		*bad = true;
		(*sp)++;
		return put_utf8(o, REPLACEMENT);
	}
	memcpy(o, *sp, n);
	*sp += n;
	return o + n;
}

static int hex4(const char *s, const char *end)
{
	int v = 0;

	if (end - s < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char ch = s[i];

		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= ch - '0';
		else if (ch >= 'a' && ch <= 'f')
			v |= ch - 'a' + 10;
		else if (ch >= 'A' && ch <= 'F')
			v |= ch - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Decode the escape at *sp (pointing at the backslash). */
static char *decode_escape(char *o, const char **sp, const char *end, bool *bad)
{
	const char *s = *sp + 1;
	int cp, lo;

	if (s >= end) {
		*sp = s;
		*o++ = '\\';
		return o;
	}
	*sp = s + 1;
	switch (*s) {
	case 'b':
		*o++ = '\b';
		return o;
	case 'f':
		*o++ = '\f';
		return o;
	case 'n':
		*o++ = '\n';
		return o;
	case 'r':
		*o++ = '\r';
		return o;
	case 't':
		*o++ = '\t';
		return o;
	case 'u':
		break;
	default: /* '"', '\\', '/' and unknown escapes stand for themselves */
		if ((unsigned char)*s >= 0x80) {
			*sp = s;
			return copy_utf8(o, sp, end, bad);
		}
		*o++ = *s;
		return o;
	}
	cp = hex4(s + 1, end);
	if (cp < 0) {
		*bad = true;
		return put_utf8(o, REPLACEMENT);
	}
	*sp = s + 5;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (end - *sp >= 6 && (*sp)[0] == '\\' && (*sp)[1] == 'u' &&
		    (lo = hex4(*sp + 2, end)) >= 0xdc00 && lo < 0xe000) {
			*sp += 6;
			return put_utf8(o, 0x10000 + (((uint32_t)cp - 0xd800) << 10) +
						   ((uint32_t)lo - 0xdc00));
		}
		*bad = true;
		return put_utf8(o, REPLACEMENT);
	}
	/* A NUL would end the name early ("a\u0000b" shown and grouped as "a"). */
	if ((cp >= 0xdc00 && cp < 0xe000) || !cp) {
		*bad = true;
		return put_utf8(o, REPLACEMENT);
	}
	return put_utf8(o, (uint32_t)cp);
}

size_t js_decode_string(const struct js_val *v, char *out, bool *bad)
{
	const char *s = v->p, *end = v->p + v->len;
	char *o = out;

	if (!(v->flags & (JS_F_ESC | JS_F_HIGH))) {
		memcpy(out, v->p, v->len);
		return v->len;
	}
	while (s < end) {
		if (*s == '\\')
			o = decode_escape(o, &s, end, bad);
		else if ((unsigned char)*s >= 0x80)
			o = copy_utf8(o, &s, end, bad);
		else
			*o++ = *s++;
	}
	return (size_t)(o - out);
}

static bool is_repair(const struct js_ctx *c, const char *q)
{
	for (unsigned i = 0; i < c->nr_repair_at; i++)
		if (c->repair_at[i] == q)
			return true;
	return false;
}

/* Copy string contents from s (after the opening quote) through the closing
   quote; returns the position after it. */
static const char *copy_string(const struct js_ctx *c, const char *s, const char *end, char **op,
			       bool *bad)
{
	char *o = *op;

	while (s < end) {
		const char *run = s;

		while (end - s >= 8) {
			uint64_t w;

			memcpy(&w, s, 8);
			if (string_stops(w, true))
				break;
			s += 8;
		}
		while (s < end && (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x80 &&
		       *s != '"' && *s != '\\')
			s++;
		memcpy(o, run, (size_t)(s - run));
		o += s - run;
		if (s >= end)
			break;
		if (*s == '\\') {
			*o++ = *s++;
			if (s < end)
				*o++ = *s++;
		} else if (*s == '"') {
			if (c && c->nr_repair_at && is_repair(c, s)) {
				*o++ = '\\';
				*o++ = *s++;
				continue;
			}
			*o++ = *s++;
			break;
		} else if ((unsigned char)*s >= 0x80) {
			o = copy_utf8(o, &s, end, bad);
		} else {
			static const char hex[] = "0123456789abcdef";

			memcpy(o, "\\u00", 4);
			o[4] = hex[(unsigned char)*s >> 4];
			o[5] = hex[*s & 15];
			o += 6;
			s++;
		}
	}
	*op = o;
	return s;
}

size_t js_copy_minified(const struct js_ctx *c, const struct js_val *v, char *out, bool *bad)
{
	const char *s = v->p, *end = v->p + v->len;
	char *o = out;

	if (v->type == JS_STRING) {
		*o++ = '"';
		copy_string(NULL, s, end, &o, bad);
		*o++ = '"';
		return (size_t)(o - out);
	}
	while (s < end) {
		if (is_ws((unsigned char)*s)) {
			s++;
		} else if (*s == '"') {
			*o++ = *s++;
			s = copy_string(c, s, end, &o, bad);
		} else if ((unsigned char)*s >= 0x80) {
			o = copy_utf8(o, &s, end, bad);
		} else {
			*o++ = *s++;
		}
	}
	return (size_t)(o - out);
}

/* Multiply a magnitude by 10^e, false on overflow of int64. */
static bool scale_up(uint64_t *m, int e)
{
	while (e-- > 0) {
		if (*m > (uint64_t)INT64_MAX / 10)
			return *m == 0;
		*m *= 10;
	}
	return *m <= (uint64_t)INT64_MAX;
}

/* All eight bytes of w are ASCII digits (each byte's high nibble 3, low one below 10). */
static inline bool eight_digits(uint64_t w)
{
	return ((w & 0xf0f0f0f0f0f0f0f0ull) |
		(((w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) ==
	       0x3333333333333333ull;
}

/*
 * The value of eight ASCII digits read little-endian (first digit in the low
 * byte): pairs, then fours, then the eight, by multiply-and-shift.
 */
static inline uint32_t eight_digits_value(uint64_t w)
{
	w -= 0x3030303030303030ull;
	w = w * 10 + (w >> 8);
	w = ((w & 0x000000ff000000ffull) * (100 + (1000000ull << 32)) +
	     ((w >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32))) >> 32;
	return (uint32_t)w;
}

/*
 * Plain integers of up to 18 digits (every ts, dur and id of a trace, as
 * Kineto writes them) without the general path's bookkeeping; false when
 * the text is anything else or the scaled value could overflow.
 */
static bool parse_plain(const char *s, size_t len, int scale, int64_t *out)
{
	static const int64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	bool neg = len && *s == '-';
	uint64_t m = 0;
	size_t i = 0;

	s += neg;
	len -= neg;
	if (!len || len > 18 || scale < 0 || scale > 6)
		return false;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		if (!eight_digits(w))
			return false;
		m = m * 100000000 + eight_digits_value(w);
	}
#endif
	for (; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
		m = m * 10 + (uint64_t)(s[i] - '0');
	}
	if (m > (uint64_t)(INT64_MAX / pow10[scale]))
		return false;
	*out = (int64_t)m * pow10[scale];
	if (neg)
		*out = -*out;
	return true;
}

enum js_num js_parse_scaled(const char *s, size_t len, int scale, int64_t *out)
{
	const char *p = s, *end = s + len;
	bool neg = false, digits = false, big = false;
	uint64_t m = 0;
	long exp = 0, shift = scale;
	int first_dropped = -1; /* first digit that did not fit in m */

	if (parse_plain(s, len, scale, out))
		return JS_NUM_OK;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	for (int frac = 0; frac < 2; frac++) {
		if (frac) {
			if (p >= end || *p != '.')
				break;
			p++;
		}
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			int d = *p - '0';

			digits = true;
			if (m <= (UINT64_MAX - 9) / 10) {
				m = m * 10 + (uint64_t)d;
				shift -= frac;
			} else {
				/* 19+ significant digits: the rest can only round. */
				if (first_dropped < 0)
					first_dropped = d;
				shift += !frac;
			}
		}
	}
	if (!digits)
		return JS_NUM_BAD;
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false, edigits = false;

		p++;
		if (p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			edigits = true;
			if (exp < 100000)
				exp = exp * 10 + (*p - '0');
		}
		if (!edigits)
			return JS_NUM_BAD;
		if (eneg)
			exp = -exp;
	}
	if (p != end)
		return JS_NUM_BAD;
	exp += shift;
	if (exp >= 0) {
		if (!scale_up(&m, (int)(exp > 40 ? 40 : exp)))
			big = true;
		else if (exp == 0 && first_dropped >= 5 && ++m > (uint64_t)INT64_MAX)
			big = true;
	} else if (exp < -19) {
		m = 0;
	} else {
		uint64_t div = 1;

		for (long i = 0; i < -exp - 1; i++)
			div *= 10;
		/* Round half away from zero on the first removed digit. */
		m /= div;
		m = m / 10 + (m % 10 >= 5);
	}
	if (big) {
		*out = neg ? INT64_MIN : INT64_MAX;
		return JS_NUM_BIG;
	}
	*out = neg ? -(int64_t)m : (int64_t)m;
	return JS_NUM_OK;
}
