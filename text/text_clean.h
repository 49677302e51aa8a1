/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text that reaches a terminal or a log made safe: a task name is anyone's to choose
 * (prctl(PR_SET_NAME)), and on a terminal an ESC, a BEL or a C1 control would retitle the
 * window, clear the screen or set the clipboard. Each C0 control (newline and tab included
 * unless LINES keeps newlines: inside a value they would fake a line or a column), DEL, C1
 * control (U+0080 to U+009F) and byte of no valid UTF-8 becomes '?'; printable UTF-8 stays.
 * latencyd's log and latencyctl's text output clean the same way, here.
 */
#ifndef LATENCYD_TEXT_CLEAN_H
#define LATENCYD_TEXT_CLEAN_H

#include <stdbool.h>
#include <stddef.h>

/* Whether S needs no cleaning. */
bool text_is_clean(const char *s, bool lines);
/* In place: the text never grows. */
void text_clean(char *s, bool lines);
/* On a copy of S (NULL taken as ""); NULL: out of memory. */
char *text_clean_dup(const char *s, bool lines);
/* The bytes of S kept when it is cut to MAX at most: never inside a UTF-8 character. */
size_t text_cut_len(const char *s, size_t max);

#endif
