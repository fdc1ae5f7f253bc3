/* status.c - status messages and the error object. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "opscope/base/status.h"

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

size_t osc_error_format(const struct osc_error *err, char *buf, size_t size)
{
	char offset[48] = "", field[160] = "";
	const char *message = err->message[0] ? err->message : osc_status_message(err->code);

	if (err->offset != OSC_NO_OFFSET)
		snprintf(offset, sizeof(offset), "byte %lld: ", (long long)err->offset);
	if (err->field[0])
		snprintf(field, sizeof(field), "field '%s': ", err->field);
	return (size_t)snprintf(buf, size, "%s%s%s%s%s", err->subject,
				err->subject[0] ? ": " : "", offset, field, message);
}
