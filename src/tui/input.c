/* input.c - reading keys and mouse events from the terminal. */
#include <curses.h>
#include <string.h>

#include "display.h"
#include "input.h"

void osc_input_read(int timeout_ms, struct osc_input *in)
{
	wint_t wch;
	int rc;

	memset(in, 0, sizeof(*in));
	in->kind = OSC_IN_NONE;
	if (osc_display_sigint) {
		osc_display_sigint = 0;
		in->kind = OSC_IN_KEY;
		in->key = 3; /* <C-c> */
		return;
	}
	timeout(timeout_ms);
	rc = get_wch(&wch);
	if (rc == ERR) {
		if (osc_display_sigint) {
			osc_display_sigint = 0;
			in->kind = OSC_IN_KEY;
			in->key = 3;
		} else if (osc_display_hung_up()) {
			in->kind = OSC_IN_END;
		}
		return;
	}
	if (rc == KEY_CODE_YES && wch == KEY_MOUSE) {
		MEVENT ev;

		if (getmouse(&ev) != OK)
			return;
		in->kind = OSC_IN_MOUSE;
		in->y = ev.y;
		in->x = ev.x;
		in->buttons = (unsigned long)ev.bstate;
		return;
	}
	in->kind = OSC_IN_KEY;
	in->key = (int)wch;
	in->is_char = rc == OK;
}
