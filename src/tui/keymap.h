/*
 * keymap.h - key names, the bindings of actions to keys, and their help.
 *
 * Keys are curses key codes (wgetch values). Their names use the script
 * syntax: a printable character stands for itself, others are <Name> tokens
 * (<Down>, <PgUp>, <Enter>, <Tab>, <Space>, <Lt>, <C-x>, <F1>...). Bindings
 * come from OSC_ACTION_LIST only.
 */
#ifndef OPSCOPE_TUI_KEYMAP_H
#define OPSCOPE_TUI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "actions.h"

/*
 * Parse one key at *s (a character or a <Name> token), advancing *s past it.
 * Returns the key code, or -1 for an unknown <Name> (then *s is unchanged).
 */
int osc_key_parse(const char **s);

/* Name of a key in the script syntax, into buf. */
void osc_key_name(int key, char *buf, size_t size);

/* Fold the codes terminals send for the same key (CR, KEY_ENTER, DEL...). */
int osc_key_normalize(int key);

/* Action bound to a key, OSC_ACT_NONE if none. */
enum osc_action osc_keymap_lookup(int key);

/*
 * Bind key to action a (OSC_ACT_NONE unbinds it), before the first lookup or
 * after: a configuration's `bind KEY ACTION`. False for a key beyond curses'
 * codes. The key leads the action's keys in the help and hints.
 */
bool osc_keymap_bind(int key, enum osc_action a);

/* Action by name ("move-down", "none"), OSC_ACT_NR if there is none. */
enum osc_action osc_action_find(const char *name);

/*
 * Name ("move-down"), keys as bound now (actions.h's, changed by
 * osc_keymap_bind; in its syntax) and help line of an action.
 */
const char *osc_action_name(enum osc_action a);
const char *osc_action_keys(enum osc_action a);
const char *osc_action_help(enum osc_action a);

/* Keys of an action for people: as in actions.h, with <Lt> shown as '<'. */
void osc_action_keys_text(enum osc_action a, char *buf, size_t size);

/* First key of an action in the script syntax ("j"), for hints. */
void osc_action_first_key(enum osc_action a, char *buf, size_t size);

/* Write the man page's key table (roff, between the KEYS markers) to out. */
void osc_keymap_man(FILE *out);

#endif
