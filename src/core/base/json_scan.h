/*
 * json_scan.h - a tolerant, restartable, single-pass JSON scanner (private).
 *
 * It never builds a tree: callers walk a window of bytes one value at a time
 * and get spans (pointer + length) into the window. Nothing is allocated.
 *
 * Restarting: when a scan reaches the end of the window before the value is
 * complete, it returns JS_MORE (more input may come) or JS_EOF (the input
 * really ends there). The caller refills the window and scans the same value
 * again from its first byte; values are small, so re-scanning is cheap.
 *
 * Tolerance: a closing quote that is not followed (after whitespace) by the
 * delimiter its position needs is taken as a literal quote (ORT writes names
 * unescaped); each repair is counted and its position remembered so the text
 * can be copied with the quote escaped.
 */
#ifndef OPSCOPE_JSON_SCAN_H
#define OPSCOPE_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum js_rc {
	JS_OK,
	JS_MORE, /* window ended inside the value; refill and scan again */
	JS_EOF,  /* input ended inside the value */
	JS_ERR,  /* syntax error at js_ctx.err_at */
};

enum js_type { JS_NONE, JS_STRING, JS_NUMBER, JS_OBJECT, JS_ARRAY, JS_LITERAL };

enum {
	JS_F_ESC = 1 << 0,    /* string holds backslash escapes */
	JS_F_HIGH = 1 << 1,   /* string holds bytes >= 0x80 (UTF-8 to check) */
	JS_F_REPAIR = 1 << 2, /* value holds repaired unescaped quotes */
};
/* The args value of an event (JF_ARGS) carries the JS_F_* flags of every
   key and value inside it, so a loader knows whether its raw text can be
   kept as is (plain ASCII, nothing repaired). */

/* A scanned value: strings are the bytes between the quotes (still escaped),
   other values their whole text. */
struct js_val {
	const char *p;
	size_t len;
	uint8_t type;  /* enum js_type */
	uint8_t flags; /* JS_F_* */
};

#define JS_MAX_REPAIRS 32

struct js_ctx {
	const char *end;  /* end of the window */
	bool eof;         /* no input after end */
	const char *err_at; /* JS_ERR: where */
	const char *msg;    /* JS_ERR: what was expected (static text) */
	unsigned repairs;   /* unescaped quotes repaired (caller resets) */
	const char *repair_at[JS_MAX_REPAIRS]; /* their positions, first ones */
	unsigned nr_repair_at;
};

/* Fields of an event object the loader reads; JS_NONE when absent. */
enum js_field {
	JF_PH, JF_NAME, JF_CAT, JF_PID, JF_TID, JF_TS, JF_DUR, JF_ID, JF_BIND_ID, JF_ARGS,
	JF_COUNT
};

/* Keys of an event's args object the loader reads. */
enum js_arg {
	JA_OP_NAME, JA_PROVIDER, JA_INPUT_TYPE_SHAPE, JA_CORRELATION, JA_CORRELATION_ID,
	JA_EXTERNAL_ID, JA_INPUT_DIMS, JA_INPUT_TYPE, JA_GRID, JA_BLOCK,
	JA_GRID_X, JA_GRID_Y, JA_GRID_Z, JA_BLOCK_X, JA_BLOCK_Y, JA_BLOCK_Z,
	JA_STREAM, JA_DEVICE, JA_REGISTERS, JA_SHARED_MEM, JA_OCCUPANCY, JA_BYTES,
	JA_NAME, JA_SORT_INDEX, JA_NE_INPUT_TYPE, JA_NE_INPUT_SHAPE,
	JA_COUNT
};

struct js_event {
	struct js_val f[JF_COUNT];
	struct js_val a[JA_COUNT];
	bool is_object; /* false: the element was another kind of value */
};

const char *js_skip_ws_slow(const char *p, const char *end);

/* Skip JSON whitespace; returns the new position. */
static inline const char *js_skip_ws(const char *p, const char *end)
{
	if (p < end && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
		return p;
	return js_skip_ws_slow(p, end);
}

/* Scan any value at *pp, store its span in v (may be NULL), advance *pp. */
enum js_rc js_scan_value(struct js_ctx *c, const char **pp, struct js_val *v);

/* Scan a string at *pp whose closing quote must be followed by one of the
   bytes in follow (repairs otherwise). */
enum js_rc js_scan_string(struct js_ctx *c, const char **pp, struct js_val *v,
			  const char *follow);

/* Scan one element of an event array at *pp into ev. */
enum js_rc js_scan_event(struct js_ctx *c, const char **pp, struct js_event *ev);

/*
 * Decode a string value's bytes (escapes, \uXXXX with surrogate pairs) into
 * out (which needs JS_DECODE_MAX(v->len) bytes),
 * replacing invalid UTF-8, lone surrogates and \u0000 (a NUL would end the
 * text early) by U+FFFD. Returns the decoded
 * length; *bad is set when something was replaced.
 */
#define JS_DECODE_MAX(len) ((len) * 6 + 8) /* a control byte becomes \u00XX */
size_t js_decode_string(const struct js_val *v, char *out, bool *bad);

/*
 * Copy the text of a value minified (whitespace outside strings dropped),
 * escaping repaired quotes (positions in c->repair_at) and replacing invalid
 * UTF-8. out needs JS_DECODE_MAX(v->len) bytes. Returns the length; *bad as
 * above.
 */
size_t js_copy_minified(const struct js_ctx *c, const struct js_val *v, char *out, bool *bad);

enum js_num {
	JS_NUM_OK,
	JS_NUM_BIG, /* beyond int64: saturated */
	JS_NUM_BAD, /* not a number */
};

/*
 * Parse decimal text s[0..len) exactly as an integer times 10^scale (scale 3
 * turns microseconds into nanoseconds), rounding half away from zero, without
 * going through double. Accepts a sign, a fraction and an exponent.
 */
enum js_num js_parse_scaled(const char *s, size_t len, int scale, int64_t *out);

#endif
