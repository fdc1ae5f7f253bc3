/* test_status.c - the one-line error form and status messages. */
#include <criterion/criterion.h>
#include <string.h>

#include "opscope/base/status.h"

Test(status, every_part_in_order)
{
	struct osc_error err;
	char line[256];

	cr_assert_eq(osc_error_set(&err, OSC_NOT_JSON, "x.json", 1234, "traceEvents",
				   "expected '%c'", ','),
		     OSC_NOT_JSON);
	osc_error_format(&err, line, sizeof(line));
	cr_expect_str_eq(line, "x.json: byte 1234: field 'traceEvents': expected ','");
}

Test(status, absent_parts_are_left_out)
{
	struct osc_error err;
	char line[256];

	osc_error_set(&err, OSC_RANGE, "--runs", OSC_NO_OFFSET, NULL, "run 12 out of range");
	osc_error_format(&err, line, sizeof(line));
	cr_expect_str_eq(line, "--runs: run 12 out of range");
	/* no message: the status's own text */
	osc_error_set(&err, OSC_EMPTY, "e.json", OSC_NO_OFFSET, NULL, "%s", "");
	osc_error_format(&err, line, sizeof(line));
	cr_expect_str_eq(line, "e.json: empty input");
	/* byte 0 is an offset, not "none" */
	osc_error_set(&err, OSC_BINARY, "b", 0, NULL, "binary");
	osc_error_format(&err, line, sizeof(line));
	cr_expect_str_eq(line, "b: byte 0: binary");
}

Test(status, format_truncates_and_returns_the_full_length)
{
	struct osc_error err;
	char small[8];
	size_t n;

	osc_error_set(&err, OSC_IO, "a-long-file-name.json", OSC_NO_OFFSET, NULL, "no such file");
	n = osc_error_format(&err, small, sizeof(small));
	cr_expect_eq(n, strlen("a-long-file-name.json: no such file"));
	cr_expect_eq(strlen(small), sizeof(small) - 1);
}

Test(status, messages_and_clear)
{
	struct osc_error err;

	cr_expect_str_eq(osc_status_message(OSC_OK), "ok");
	cr_expect_str_eq(osc_status_message(OSC_GZIP), "corrupt gzip data");
	cr_expect_str_eq(osc_status_message((enum osc_status)999), "unknown error");
	cr_expect_eq(osc_error_set(NULL, OSC_USAGE, NULL, 0, NULL, "x"), OSC_USAGE);
	osc_error_set(&err, OSC_USAGE, "s", 3, "f", "m");
	osc_error_clear(&err);
	cr_expect_eq(err.code, OSC_OK);
	cr_expect_eq(err.offset, OSC_NO_OFFSET);
	cr_expect_str_eq(err.subject, "");
}

/* A file name with a newline, an escape or a bidi override stays one safe line. */
Test(status, format_escapes_what_would_break_the_line)
{
	struct osc_error err;
	char line[512];

	osc_error_set(&err, OSC_NOT_JSON, "x\x1b[31mred\nline\xe2\x80\xae.json", 12, NULL,
		      "expected ','");
	osc_error_format(&err, line, sizeof(line));
	cr_expect_str_eq(line, "x\\x1b[31mred\\x0aline\\u{202e}.json: byte 12: expected ','");
	osc_error_set(&err, OSC_IO, "caf\xc3\xa9\xff.json", OSC_NO_OFFSET, NULL, "no such file");
	osc_error_format(&err, line, sizeof(line));
	cr_expect_str_eq(line, "caf\xc3\xa9\\xff.json: no such file");
}
