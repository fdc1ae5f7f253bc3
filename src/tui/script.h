/*
 * script.h - scripted keys for tests (--script FILE), tig's TIG_SCRIPT style.
 *
 * One entry per line: keys ("j", "<Down>", "jjj<Enter>"; <WheelDown> and
 * <WheelUp> are the mouse wheel), or ":command args"
 * (see command.c); blank lines and lines starting with '#' are skipped. When a
 * key opens a prompt, the keys after it on its line are typed into the prompt
 * one by one ("=2<Enter>", "/<Right>*<Enter>"), as on a keyboard; with none
 * left, the next line (verbatim, comments still skipped) answers it whole:
 * an empty line accepts the text the prompt offers, "<Esc>" cancels, and
 * ":dump FILE", ":ahead" and ":jobs ..." are commands, run with the prompt
 * still open.
 */
#ifndef OPSCOPE_TUI_SCRIPT_H
#define OPSCOPE_TUI_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "input.h"

struct osc_script;

/* Open a script; NULL with a message in err if it cannot be read. */
struct osc_script *osc_script_open(const char *path, char *err, size_t size);
void osc_script_free(struct osc_script *s);

/*
 * Next input: a key, a command, or (answer) the next line as a prompt
 * answer. OSC_IN_END at the end of the script; OSC_IN_ERROR with the
 * message in in->text for an unknown <Key>.
 */
void osc_script_next(struct osc_script *s, bool answer, struct osc_input *in);

#endif
