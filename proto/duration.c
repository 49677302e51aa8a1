/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Durations as people type and read them: "10ms", "500us", "1.5ms", "2s", "250ns", "5min",
 * "2h", "1d", and "0" (no unit needed for nothing). The one grammar of latencyctl's
 * arguments (--since too), latencyd.conf and latencyd's messages, so that all agree.
 * Parsing is exact (no floating point): "1.5ms" is 1500000 ns; any other number needs a
 * unit ("10" could be any of them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

static const struct {
	const char *suffix;
	uint64_t ns;
} units[] = {
	{"ns", 1ULL},	       {"us", 1000ULL},		{"\xc2\xb5s", 1000ULL}, /* µs */
	{"ms", 1000000ULL},    {"s", 1000000000ULL},	{"min", 60000000000ULL},
	{"m", 60000000000ULL}, {"h", 3600000000000ULL}, {"d", 86400000000000ULL},
};

#define UNITS_SAID "ns, us, ms, s, min (or m), h or d"

/* SUFFIX is a unit then a number: the start of a sum such as "1h30min", which is refused. */
static bool compound(const char *suffix)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t len = strlen(units[i].suffix);

		if (strncmp(suffix, units[i].suffix, len) == 0 && suffix[len] >= '0' &&
		    suffix[len] <= '9')
			return true;
	}
	return false;
}

int proto_duration_parse(const char *s, uint64_t *ret_ns, const char **why)
{
	uint64_t whole = 0, frac = 0, frac_scale = 1, unit = 0;
	const char *p = s, *why_dummy;
	size_t nfrac = 0;

	if (!why)
		why = &why_dummy;
	if (!s || !*s) {
		*why = "empty duration";
		return -EINVAL;
	}
	if (*p < '0' || *p > '9') {
		*why = "a duration starts with a number, as in 10ms, 500us, 1.5ms, 2s, 5min, 2h";
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			*why = "duration too large";
			return -ERANGE;
		}
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9') {
			*why = "a digit must follow the decimal point";
			return -EINVAL;
		}
		for (; *p >= '0' && *p <= '9'; p++, nfrac++) {
			if (nfrac >= 9) {
				*why = "too many decimals (the resolution is 1ns)";
				return -EINVAL;
			}
			frac = frac * 10 + (uint64_t)(*p - '0');
			frac_scale *= 10;
		}
	}
	if (!*p && whole == 0 && frac == 0) {
		*ret_ns = 0;
		return 0;
	}
	if (!*p) {
		*why = "a unit is required: " UNITS_SAID " (as in 10ms or 500us)";
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(p, units[i].suffix) == 0)
			unit = units[i].ns;
	if (!unit && compound(p)) {
		*why = "one number and one unit: 90min or 1.5h, not 1h30min";
		return -EINVAL;
	}
	if (!unit) {
		*why = "unknown unit: use " UNITS_SAID;
		return -EINVAL;
	}
	if (whole > UINT64_MAX / unit) {
		*why = "duration too large";
		return -ERANGE;
	}
	/*
	 * frac / frac_scale * unit must be a whole number of nanoseconds. Both are reduced by
	 * their common factor first: frac * unit alone passes 2^64 for hours and days (up to
	 * 9 decimals times 8.64e13 ns).
	 */
	{
		uint64_t a = unit, b = frac_scale, r;

		while (b) {
			r = a % b;
			a = b;
			b = r;
		}
		if ((frac * (unit / a)) % (frac_scale / a) != 0) {
			*why = "finer than a nanosecond";
			return -EINVAL;
		}
		frac = frac * (unit / a) / (frac_scale / a);
	}
	if (whole * unit > UINT64_MAX - frac) {
		*why = "duration too large";
		return -ERANGE;
	}
	*ret_ns = whole * unit + frac;
	return 0;
}

/*
 * The largest unit the value reaches, with up to three decimals and no trailing zeros:
 * "0ns", "250ns", "500µs", "1.5ms", "2s", "1.234567s" is "1.235s" (rounded to the nearest);
 * whole hours and minutes as such, "1h", "5min" ("90s" stays: "1.5min" reads worse).
 * Like snprintf, returns the length of the whole text.
 */
size_t proto_duration_format(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} whole_units[] = {
		{"d", 86400000000000ULL}, {"h", 3600000000000ULL}, {"min", 60000000000ULL}};

	for (size_t i = 0; ns && i < sizeof(whole_units) / sizeof(whole_units[0]); i++)
		if (ns % whole_units[i].ns == 0)
			return (size_t)snprintf(buf, size, "%" PRIu64 "%s", ns / whole_units[i].ns,
						whole_units[i].suffix);

	static const struct {
		const char *suffix;
		uint64_t ns;
	} fmt[] = {{"s", 1000000000ULL}, {"ms", 1000000ULL}, {"\xc2\xb5s", 1000ULL}};
	char dec[8];

	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		uint64_t u = fmt[i].ns, milli = u / 1000, whole, part;

		if (ns < u)
			continue;
		/* Thousandths of the unit, rounded; 999.9995ms becomes 1000ms, which is fine. */
		part = (ns % u + milli / 2) / milli;
		whole = ns / u;
		if (part >= 1000) {
			whole++;
			part -= 1000;
		}
		dec[0] = 0;
		if (part) {
			snprintf(dec, sizeof(dec), ".%03u", (unsigned)part);
			/* ".500" to ".5": dec holds a dot then three digits, not all zero. */
			for (size_t n = strlen(dec); n > 1 && dec[n - 1] == '0'; n--)
				dec[n - 1] = 0;
		}
		return (size_t)snprintf(buf, size, "%" PRIu64 "%s%s", whole, dec, fmt[i].suffix);
	}
	return (size_t)snprintf(buf, size, "%" PRIu64 "ns", ns);
}

/*
 * ns in the unit TYPED is written in ("7200000ms": ms), so that a range reads in the
 * units of the value it refuses: a bound that is a whole number of that unit, or one with
 * at most six decimals, exactly ("0.001ms", "3600000ms", "0.000001s", "60min"), in the
 * unit as typed ("us", "µs", "m" or "min"). Any other bound, and any TYPED without a unit
 * ("0", not a duration), is written as proto_duration_format() writes it: 1µs is
 * 2.7e-10h, which nobody wants to read ("'2h' is not between 1µs and 1h").
 */
size_t proto_duration_format_unit(char *buf, size_t size, uint64_t ns, const char *typed)
{
	const char *suffix = typed ? typed + strspn(typed, "0123456789.") : "";
	uint64_t unit = 0, rem;
	char dec[8];
	size_t n = 0;

	for (size_t i = 0; *suffix && i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(suffix, units[i].suffix) == 0)
			unit = units[i].ns;
	if (!unit)
		return proto_duration_format(buf, size, ns);
	/* The decimals by long division: rem * 10 stays far below 2^64 (a day is 2^46 ns). */
	rem = ns % unit;
	while (rem && n < 6) {
		rem *= 10;
		dec[n++] = (char)('0' + rem / unit);
		rem %= unit;
	}
	if (rem)
		return proto_duration_format(buf, size, ns);
	dec[n] = 0;
	return (size_t)snprintf(buf, size, "%" PRIu64 "%s%s%s", ns / unit, n ? "." : "", dec,
				suffix);
}
