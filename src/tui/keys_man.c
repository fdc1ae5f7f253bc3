/* keys_man.c - print the man page's key table (see osc_tui_keys_man in tui.h). */
#include <stdio.h>

#include "tui.h"

int main(void)
{
	osc_tui_keys_man(stdout);
	return fflush(stdout) ? 1 : 0;
}
