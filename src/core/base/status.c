/* status.c - status messages and the error object. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "opscope/base/status.h"
#include "opscope/base/strtab.h"

static const char *const status_messages[] = {
#define OSC_STATUS_MESSAGE(name, msg) msg,
	OSC_STATUS_LIST(OSC_STATUS_MESSAGE)
#undef OSC_STATUS_MESSAGE
};

const char *osc_status_message(enum osc_status code)
{
	if ((unsigned)code >= OSC_STATUS_COUNT)
		return "unknown error";
	return status_messages[code];
}

void osc_error_clear(struct osc_error *err)
{
	memset(err, 0, sizeof(*err));
	err->code = OSC_OK;
	err->offset = OSC_NO_OFFSET;
}

enum osc_status osc_error_set(struct osc_error *err, enum osc_status code,
			      const char *subject, int64_t offset,
			      const char *field, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	osc_error_clear(err);
	err->code = code;
	err->offset = offset;
	snprintf(err->subject, sizeof(err->subject), "%s", subject ? subject : "");
	snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

/*
 * s with what would break the one line or reach a terminal raw escaped: a
 * control byte as \xHH, another unsafe character (osc_text_unsafe) as
 * \u{XXXX}, an invalid byte as \xHH. Always NUL-terminated.
 */
static void escape(const char *s, char *out, size_t size)
{
	size_t at = 0;

	while (*s && at + 12 < size) {
		size_t n;
		int32_t cp = osc_utf8_decode(s, &n);

		if (cp < 0 || cp < 0x20 || cp == 0x7f)
			at += (size_t)snprintf(out + at, size - at, "\\x%02x", (unsigned char)*s);
		else if (osc_text_unsafe((uint32_t)cp))
			at += (size_t)snprintf(out + at, size - at, "\\u{%04x}", (unsigned)cp);
		else {
			memcpy(out + at, s, n);
			at += n;
		}
		s += n;
	}
	out[at] = '\0';
}

size_t osc_error_format(const struct osc_error *err, char *buf, size_t size)
{
	char offset[48] = "", field[sizeof(err->field) * 4 + 16], line[4096], subject[2048];
	char fieldtext[sizeof(err->field) * 4];
	const char *message = err->message[0] ? err->message : osc_status_message(err->code);

	field[0] = '\0';
	if (err->offset != OSC_NO_OFFSET)
		snprintf(offset, sizeof(offset), "byte %lld: ", (long long)err->offset);
	if (err->field[0]) {
		escape(err->field, fieldtext, sizeof(fieldtext));
		snprintf(field, sizeof(field), "field '%s': ", fieldtext);
	}
	escape(err->subject, subject, sizeof(subject));
	escape(message, line, sizeof(line));
	return (size_t)snprintf(buf, size, "%s%s%s%s%s", subject, subject[0] ? ": " : "", offset,
				field, line);
}
