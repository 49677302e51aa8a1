/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "Did you mean": the choice nearest to a mistyped word (proto.h). */
#include <string.h>

#include "proto.h"

#define WORD_MAX 64

/* Optimal string alignment distance: insertions, deletions, substitutions and one swap of
 * neighbours each cost 1 ("stauts" is 1 from "status"). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[WORD_MAX + 1][WORD_MAX + 1];

	if (la > WORD_MAX || lb > WORD_MAX)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *proto_nearest(const char *word, const char *const *choices, size_t n)
{
	/* Near: two edits at most, and fewer than half the word (no "did you mean" for "x"). */
	size_t allowed = strlen(word) / 2 < 2 ? strlen(word) / 2 : 2, best = (size_t)-1;
	const char *found = NULL;
	bool tie = false;

	for (size_t i = 0; i < n; i++) {
		size_t dist = choices[i] ? distance(word, choices[i]) : (size_t)-1;

		if (dist == 0)
			return choices[i];
		if (dist > allowed)
			continue;
		if (dist < best) {
			best = dist;
			found = choices[i];
			tie = false;
		} else if (dist == best) {
			tie = true;
		}
	}
	return tie ? NULL : found;
}
