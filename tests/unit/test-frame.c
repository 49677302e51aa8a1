/* SPDX-License-Identifier: GPL-2.0-only */
/* proto/frame.c: encoding limits and the streaming decoder on split, merged and bad input. */
#include <errno.h>

#include <json-c/json.h>

#include "proto.h"
#include "tests.h"

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);

	ASSERT_TRUE(o);
	return o;
}

/* Feeds all of data, draining frames into out[] as they complete; returns frames seen. */
static int feed_all(struct proto_decoder *d, const char *data, size_t len, struct json_object **out,
		    int *errors, int max)
{
	int n = 0;

	for (;;) {
		struct json_object *o;
		int r;

		while ((r = proto_decoder_next(d, &o)) != 0) {
			if (r < 0) {
				errors[n < max ? n : max - 1] = r;
				out[n < max ? n : max - 1] = NULL;
			} else {
				out[n < max ? n : max - 1] = o;
				errors[n < max ? n : max - 1] = 0;
			}
			n++;
		}
		if (len == 0)
			return n;
		ssize_t taken = proto_decoder_feed(d, data, len);
		ASSERT_TRUE(taken >= 0);
		data += taken;
		len -= (size_t)taken;
	}
}

static void put_all(struct json_object **o, int n)
{
	for (int i = 0; i < n; i++)
		json_object_put(o[i]);
}

static void test_encode(void)
{
	struct proto_buf b = {0};
	/* No slash escaping; a newline inside a string stays escaped. */
	const char *frame = "{\"path\":\"/run/x\",\"text\":\"a\\nb\"}\n";
	size_t flen = strlen(frame);
	struct json_object *o = parse(frame);

	ASSERT_EQ(proto_buf_add_frame(&b, o, PROTO_FRAME_MAX), 0);
	ASSERT_EQ(proto_buf_pending(&b), flen);
	ASSERT_TRUE(memcmp(proto_buf_head(&b), frame, flen) == 0);
	/* Frames append; consuming part of the buffer leaves the rest in order. */
	ASSERT_EQ(proto_buf_add_frame(&b, o, PROTO_FRAME_MAX), 0);
	proto_buf_consume(&b, 10);
	ASSERT_EQ(proto_buf_pending(&b), 2 * flen - 10);
	ASSERT_EQ(proto_buf_head(&b)[0], 'r');
	proto_buf_consume(&b, proto_buf_pending(&b));
	ASSERT_EQ(proto_buf_pending(&b), 0);
	json_object_put(o);

	/* The limit counts the newline: 9 bytes of JSON fit in 10, not in 9. */
	o = parse("{\"a\":123}");
	ASSERT_EQ(proto_buf_add_frame(&b, o, 10), 0);
	ASSERT_EQ(proto_buf_add_frame(&b, o, 9), -EMSGSIZE);
	ASSERT_EQ(proto_buf_pending(&b), 10);
	json_object_put(o);

	o = parse("[1,2]");
	ASSERT_EQ(proto_buf_add_frame(&b, o, PROTO_FRAME_MAX), -EINVAL);
	json_object_put(o);
	proto_buf_done(&b);
	proto_buf_done(NULL);
}

static void test_split_and_merged(void)
{
	const char *stream = "{\"a\":1}\n{\"b\":[1,2]}\r\n\n   \n{\"c\":\"x\"}\n";
	struct proto_decoder d;
	struct json_object *o[8], *got;
	int errors[8];

	/* Merged: all frames in one feed; CRLF and blank lines are fine. */
	proto_decoder_init(&d, PROTO_FRAME_MAX);
	ASSERT_EQ(feed_all(&d, stream, strlen(stream), o, errors, 8), 3);
	ASSERT_EQ(json_object_get_int(json_object_object_get(o[0], "a")), 1);
	ASSERT_EQ(json_object_array_length(json_object_object_get(o[1], "b")), 2);
	ASSERT_STREQ(json_object_get_string(json_object_object_get(o[2], "c")), "x");
	put_all(o, 3);
	ASSERT_EQ(proto_decoder_pending(&d), 0);
	proto_decoder_done(&d);

	/* Split: one byte at a time gives the same frames, each exactly once. */
	proto_decoder_init(&d, PROTO_FRAME_MAX);
	int n = 0;
	for (size_t i = 0; i < strlen(stream); i++) {
		ASSERT_EQ(proto_decoder_feed(&d, stream + i, 1), 1);
		while (proto_decoder_next(&d, &got) > 0) {
			o[n++] = got;
			ASSERT_TRUE(n <= 3);
		}
	}
	ASSERT_EQ(n, 3);
	ASSERT_STREQ(json_object_get_string(json_object_object_get(o[2], "c")), "x");
	put_all(o, 3);

	/* A partial frame stays pending until its newline comes. */
	ASSERT_EQ(proto_decoder_feed(&d, "{\"d\":", 5), 5);
	ASSERT_EQ(proto_decoder_next(&d, &got), 0);
	ASSERT_TRUE(got == NULL);
	ASSERT_EQ(proto_decoder_pending(&d), 5);
	ASSERT_EQ(proto_decoder_feed(&d, "4}\n", 3), 3);
	ASSERT_EQ(proto_decoder_next(&d, &got), 1);
	ASSERT_EQ(json_object_get_int(json_object_object_get(got, "d")), 4);
	json_object_put(got);
	proto_decoder_done(&d);
}

static void test_round_trip(void)
{
	struct json_object *in = parse("{\"s\":\"\\u00e9\\t/\",\"n\":-5,\"x\":[{\"y\":null}]}"),
			   *out;
	struct proto_decoder d;
	struct proto_buf b = {0};

	ASSERT_EQ(proto_buf_add_frame(&b, in, PROTO_FRAME_MAX), 0);
	proto_decoder_init(&d, PROTO_FRAME_MAX);
	ASSERT_EQ(proto_decoder_feed(&d, proto_buf_head(&b), proto_buf_pending(&b)),
		  (ssize_t)proto_buf_pending(&b));
	ASSERT_EQ(proto_decoder_next(&d, &out), 1);
	ASSERT_TRUE(json_object_equal(in, out));
	json_object_put(in);
	json_object_put(out);
	proto_buf_done(&b);
	proto_decoder_done(&d);
}

/*
 * Any bytes in a string (a task's name, a message cut mid-character) still make a frame
 * this decoder takes: each byte that starts no character is '?', UTF-8 stays as it is.
 */
static void test_not_utf8(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"\xff\xfe-app", "\?\?-app"},
		{"caf\xc3\xa9", "caf\xc3\xa9"},
		{"cut \xe2\x82", "cut ??"},   /* a 3-byte character cut after 2 */
		{"\xc0\xaf", "??"},	      /* overlong '/' */
		{"\xed\xa0\x80", "???"},      /* a UTF-16 surrogate */
		{"\xf4\x90\x80\x80", "????"}, /* past U+10FFFF */
		{"\xf0\x9f\x98\x80 ok", "\xf0\x9f\x98\x80 ok"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *in = json_object_new_object(), *out;
		struct proto_decoder d;
		struct proto_buf b = {0};

		json_object_object_add(in, "comm", json_object_new_string(cases[i].in));
		ASSERT_EQ(proto_buf_add_frame(&b, in, PROTO_FRAME_MAX), 0);
		proto_decoder_init(&d, PROTO_FRAME_MAX);
		ASSERT_EQ(proto_decoder_feed(&d, proto_buf_head(&b), proto_buf_pending(&b)),
			  (ssize_t)proto_buf_pending(&b));
		ASSERT_EQ(proto_decoder_next(&d, &out), 1);
		ASSERT_STREQ(json_object_get_string(json_object_object_get(out, "comm")),
			     cases[i].out);
		json_object_put(in);
		json_object_put(out);
		proto_buf_done(&b);
		proto_decoder_done(&d);
	}
}

static void test_oversize(void)
{
	char big[100];
	struct proto_decoder d;
	struct json_object *o[8];
	int errors[8], n;

	/* max 32: a 31-byte line plus its newline is the largest frame. */
	proto_decoder_init(&d, 32);
	const char *fits = "{\"s\":\"0123456789012345678901\"}\n";
	ASSERT_EQ(strlen(fits), 31);
	n = feed_all(&d, fits, strlen(fits), o, errors, 8);
	ASSERT_EQ(n, 1);
	ASSERT_TRUE(o[0]);
	put_all(o, 1);

	/* 100 bytes without a newline: one error, the rest of the line skipped, then frames. */
	memset(big, 'x', sizeof(big));
	n = feed_all(&d, big, sizeof(big), o, errors, 8);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(errors[0], -EMSGSIZE);
	ASSERT_CONTAINS(proto_decoder_error(&d), "exceeds 32 bytes");
	ASSERT_TRUE(proto_decoder_pending(&d) <= 32);
	n = feed_all(&d, "yyy\n{\"ok\":true}\n", strlen("yyy\n{\"ok\":true}\n"), o, errors, 8);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(errors[0], 0);
	ASSERT_TRUE(json_object_get_boolean(json_object_object_get(o[0], "ok")));
	put_all(o, 1);

	/* A 33-byte frame whose newline is already there is just as oversize. */
	const char *over = "{\"s\":\"012345678901234567890123\"}\n{}\n";
	ASSERT_EQ(strlen(over), 33 + 3);
	n = feed_all(&d, over, strlen(over), o, errors, 8);
	ASSERT_EQ(n, 2);
	ASSERT_EQ(errors[0], -EMSGSIZE);
	ASSERT_TRUE(o[1] && json_object_object_length(o[1]) == 0);
	json_object_put(o[1]);
	proto_decoder_done(&d);
}

static void test_garbage(void)
{
	static const struct {
		const char *line;
		const char *error;
	} bad[] = {
		{"not json\n", "invalid JSON"},		  {"{\"a\":1} x\n", "invalid JSON"},
		{"{\"a\":1}{\"b\":2}\n", "invalid JSON"}, {"[1,2]\n", "not a JSON object"},
		{"\"str\"\n", "not a JSON object"},	  {"{\"a\":\n", "incomplete"},
		{"{\"a\":'x'}\n", "invalid JSON"},	  {"{\"a\":\"\xff\"}\n", "invalid JSON"},
		{"{\"a\":1,}\n", "invalid JSON"},
	};
	struct proto_decoder d;
	struct json_object *o[4];
	int errors[4], n;

	proto_decoder_init(&d, PROTO_FRAME_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fprintf(stderr, "   %s", bad[i].line);
		n = feed_all(&d, bad[i].line, strlen(bad[i].line), o, errors, 4);
		ASSERT_EQ(n, 1);
		ASSERT_EQ(errors[0], -EBADMSG);
		ASSERT_CONTAINS(proto_decoder_error(&d), bad[i].error);
		/* The decoder goes on with the next line. */
		n = feed_all(&d, "{\"next\":1}\n", 11, o, errors, 4);
		ASSERT_EQ(n, 1);
		ASSERT_TRUE(o[0]);
		json_object_put(o[0]);
	}

	/* NUL bytes inside a line. */
	n = feed_all(&d, "{\"a\":\0}\n", 8, o, errors, 4);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(errors[0], -EBADMSG);
	ASSERT_CONTAINS(proto_decoder_error(&d), "NUL");

	/* Nesting deeper than PROTO_JSON_DEPTH_MAX. */
	char deep[2 * PROTO_JSON_DEPTH_MAX + 16], *p = deep;
	p += sprintf(p, "{\"a\":");
	for (int i = 0; i < PROTO_JSON_DEPTH_MAX + 1; i++)
		*p++ = '[';
	for (int i = 0; i < PROTO_JSON_DEPTH_MAX + 1; i++)
		*p++ = ']';
	p += sprintf(p, "}\n");
	n = feed_all(&d, deep, (size_t)(p - deep), o, errors, 4);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(errors[0], -EBADMSG);
	proto_decoder_done(&d);
}

/* One line through a fresh decoder: its frame (to put), or NULL with the error in why. */
static struct json_object *decode(const char *line, char *why, size_t whylen)
{
	struct proto_decoder d;
	struct json_object *o = NULL;
	int r;

	proto_decoder_init(&d, PROTO_FRAME_MAX);
	for (size_t done = 0; (r = proto_decoder_next(&d, &o)) == 0;) {
		ssize_t n = proto_decoder_feed(&d, line + done, strlen(line) - done);

		ASSERT_TRUE(n > 0);
		done += (size_t)n;
	}
	snprintf(why, whylen, "%s", r < 0 ? proto_decoder_error(&d) : "");
	ASSERT_TRUE(r == 1 || r == -EBADMSG);
	proto_decoder_done(&d);
	return r == 1 ? o : NULL;
}

/*
 * What json-c's strict parser lets through and JSON is not: refused, saying what and
 * where. A name twice in one object above all: json-c keeps the last, so the first
 * line would run reload where a reader of the text sees status.
 */
static void test_not_json(void)
{
	static const struct {
		const char *line, *error;
	} bad[] = {
		{"{\"id\":1,\"command\":\"status\",\"command\":\"reload\"}\n",
		 "duplicate member 'command' at column 28"},
		{"{\"a\":{\"x\":1,\"y\":2,\"x\":3}}\n", "duplicate member 'x' at column 19"},
		{"{\"a\":[{\"b\":1},{\"c\":1,\"c\":2}]}\n", "duplicate member 'c'"},
		/* The same name escaped otherwise, and in a nested object lost to the later. */
		{"{\"a\":1,\"\\u0061\":2}\n", "duplicate member 'a'"},
		{"{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}\n",
		 "duplicate member '\xf0\x9f\x98\x80'"},
		{"{\"\\ud800\":1,\"\\udfff\":2}\n", "duplicate member '\xef\xbf\xbd'"},
		{"{\"a\":{\"x\":1,\"x\":2},\"a\":{}}\n", "duplicate member '"},
		{"{\"a\":NaN}\n", "NaN or Infinity at column 6: not a JSON number"},
		{"{\"a\":[1,Infinity]}\n", "NaN or Infinity at column 9"},
		{"{\"a\":-Infinity}\n", "NaN or Infinity"},
		{"{\"a\":{\"b\":1e400}}\n", "the number 1e400 in member 'b' is out of range"},
		{"{\"a\":[-1e999]}\n", "the number -1e999 in member 'a' is out of range"},
		{"{'a':1}\n", "a single quote at column 2: names and strings take double quotes"},
		{"{\"a\":\"x\ty\"}\n", "a raw control character (0x09) in a string at column 8"},
		{"{\"a\x01\":1}\n", "a raw control character (0x01)"},
		{"{\"a\":1.}\n", "a number without digits after its decimal point at column 7"},
		{"{\"a\\u0000b\":1}\n", "a NUL byte (\\u0000) in the member name at column 2"},
	};
	static const char *const good[] = {
		"{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}\n",
		"{\"a\":\"NaN Infinity 'q' 1. \\t \\u0000\",\"n\":-1.5e3,\"m\":1e-400}\n",
		"{\"a\":1,\"A\":2,\"a \":3,\"\\u00e9\":4,\"\\u00e8\":5}\n",
		"{\"\\\"\":1,\"\\\\\":2,\"\\/\":3,\"x/\":4}\n",
		"{\"x\" : 1 , \"y\":\t{}}\n",
	};
	char why[PROTO_MESSAGE_MAX];
	struct json_object *o;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fprintf(stderr, "   %s", bad[i].line);
		ASSERT_TRUE(decode(bad[i].line, why, sizeof(why)) == NULL);
		ASSERT_CONTAINS(why, bad[i].error);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		fprintf(stderr, "   %s", good[i]);
		o = decode(good[i], why, sizeof(why));
		if (!o)
			fprintf(stderr, "refused: %s\n", why);
		ASSERT_TRUE(o);
		json_object_put(o);
	}

	/* "/" and "\/" are one name. */
	ASSERT_TRUE(decode("{\"/\":1,\"\\/\":2}\n", why, sizeof(why)) == NULL);
	ASSERT_CONTAINS(why, "duplicate member '/'");
}

/* The largest frame of distinct names, and of one name repeated: both answered at once. */
static void test_many_members(void)
{
	char *line = malloc(PROTO_FRAME_MAX), *p = line, why[PROTO_MESSAGE_MAX];
	struct json_object *o;
	int i;

	ASSERT_TRUE(line);
	*p++ = '{';
	for (i = 0; p - line < PROTO_FRAME_MAX - 32; i++)
		p += sprintf(p, "%s\"%x\":0", i ? "," : "", (unsigned)i);
	strcpy(p, "}\n");
	o = decode(line, why, sizeof(why));
	ASSERT_TRUE(o);
	ASSERT_EQ(json_object_object_length(o), i);
	json_object_put(o);

	p = line;
	*p++ = '{';
	for (i = 0; p - line < PROTO_FRAME_MAX - 32; i++)
		p += sprintf(p, "%s\"k\":0", i ? "," : "");
	strcpy(p, "}\n");
	ASSERT_TRUE(decode(line, why, sizeof(why)) == NULL);
	ASSERT_CONTAINS(why, "duplicate member 'k'");
	free(line);
}

int main(void)
{
	RUN(test_encode);
	RUN(test_split_and_merged);
	RUN(test_round_trip);
	RUN(test_not_utf8);
	RUN(test_oversize);
	RUN(test_garbage);
	RUN(test_not_json);
	RUN(test_many_members);
	return 0;
}
