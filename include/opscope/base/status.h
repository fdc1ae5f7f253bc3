/*
 * status.h - status codes and the error object of the core library.
 *
 * The core never prints and never exits: a failing call returns a status and
 * fills a struct osc_error (code, subject, byte offset, field, message). Front
 * ends turn it into one line with osc_error_format() and exit 2 (CLI) or show
 * it on the status line (TUI).
 */
#ifndef OPSCOPE_STATUS_H
#define OPSCOPE_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* X-macro: every status code with its short message. */
#define OSC_STATUS_LIST(_)                                   \
	_(OK, "ok")                                          \
	_(IO, "cannot read")                                 \
	_(EMPTY, "empty input")                              \
	_(BINARY, "binary data, not a trace")                \
	_(NOT_JSON, "not JSON")                              \
	_(NOT_TRACE, "JSON but not a trace")                 \
	_(TRUNCATED, "truncated input")                      \
	_(GZIP, "corrupt gzip data")                         \
	_(SQLITE, "SQLite error")                            \
	_(UNSUPPORTED, "unsupported input")                  \
	_(CANCELLED, "cancelled")                            \
	_(USAGE, "bad argument")                             \
	_(RANGE, "out of range")

enum osc_status {
#define OSC_STATUS_ENUM(name, msg) OSC_##name,
	OSC_STATUS_LIST(OSC_STATUS_ENUM)
#undef OSC_STATUS_ENUM
	OSC_STATUS_COUNT
};

#define OSC_NO_OFFSET (-1)

struct osc_error {
	enum osc_status code; /* OSC_OK when nothing failed */
	char subject[512];    /* file name or option the error is about, "" if none */
	int64_t offset;       /* byte offset in the (uncompressed) input, or OSC_NO_OFFSET */
	char field[128];      /* JSON field or argument part, "" if none */
	char message[512];    /* what went wrong, lower case, no trailing period */
};

/* Short message of a status code ("not JSON"). */
const char *osc_status_message(enum osc_status code);

/* Reset err to OSC_OK with empty texts. */
void osc_error_clear(struct osc_error *err);

/*
 * Fill err and return code, so callers can `return osc_error_set(...)`.
 * subject and field may be NULL; offset may be OSC_NO_OFFSET; fmt is printf-style.
 * err may be NULL (the status is still returned).
 */
enum osc_status osc_error_set(struct osc_error *err, enum osc_status code,
			      const char *subject, int64_t offset,
			      const char *field, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * Write the one-line form into buf (always NUL-terminated):
 *   "SUBJECT: byte N: field F: MESSAGE", parts absent when unset. A file
 * name or message holding a control character (a newline, ESC) or another
 * character a terminal must not get (osc_text_unsafe) shows it escaped
 * (\xHH, \u{XXXX}), so the line stays one safe line.
 * Returns the length that the full line has (snprintf convention).
 */
size_t osc_error_format(const struct osc_error *err, char *buf, size_t size);

#endif
