/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The packet events as lttng-modules 2.13 writes them (net_dev_template: the network header
 * a variant tagged by an enum, holding the raw big-endian IPv4 or IPv6 header as a
 * structure, whose transport_header variant holds the TCP or UDP header), in a CTF trace
 * written here, read by the analysis: addresses, ports, sequence numbers and the sequence
 * space a segment uses (its payload, plus one for SYN) come out as sent; a packet received
 * on lo or a veth is one its device hands to its socket alone, one received on eth1 not.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "an.h"
#include "analysis.h"
#include "results.h"
#include "ctf.h"
#include "tests.h"

#define BE(bits)   "integer { size = " #bits "; align = 8; signed = false; byte_order = be; }"
#define BITS(bits) "integer { size = " #bits "; align = 1; signed = false; byte_order = be; }"
#define U8	   BE(8)

#define TCP_FIELDS                                                                                                   \
	BE(16)                                                                                                       \
	" _source_port; " BE(16) " _dest_port; " BE(32) " _seq; " BE(32) " _ack_seq; " BITS(                         \
		4) " _data_offset; " BITS(3) " _reserved; " BITS(9) " _flags; " BE(16) " _window_"                   \
										       "size;"                       \
										       " " BE(16) " _checksum; " BE( \
											       16) " _urg_ptr;"
#define IPV4_FIELDS                                                                                \
	BITS(4)                                                                                    \
	" _version; " BITS(4) " _ihl; " U8 " _tos; " BE(16) " _tot_len; " BE(16) " _id; " BE(      \
		16) " _frag_off; " U8 " _ttl; " U8                                                 \
		    " _protocol; " BE(16) " _checksum; " U8 " _saddr[4]; " U8 " _daddr[4];"
#define IPV6_FIELDS                                                                                \
	BITS(4)                                                                                    \
	" _version; " BITS(4) " _prio; " U8 " _flow_lbl[3]; " BE(                                  \
		16) " _payload_len; " U8 " _nexthdr; " U8                                          \
		    " _hop_limit; " BE(16) " _saddr[8]; " BE(16) " _daddr[8];"

static const char metadata[] = CTF_METADATA_HEAD
	"event {\n"
	"	name = \"net_dev_queue\"; id = 0; stream_id = 0;\n"
	"	fields := struct {\n"
	"		uint64_t _skbaddr; uint32_t _len; string _name;\n"
	"		enum : uint8_t { _unknown = 0, _ipv4 = 1, _ipv6 = 2 } "
	"_network_header_type;\n"
	"		variant <_network_header_type> {\n"
	"			struct { } _unknown;\n"
	"			struct { " IPV4_FIELDS "\n"
	"				enum : uint8_t { _unknown = 0, _tcp = 1, _udp = 2, _icmp = "
	"3 }\n"
	"					_transport_header_type;\n"
	"				variant <_transport_header_type> {\n"
	"					struct { } _unknown;\n"
	"					struct { " TCP_FIELDS " } _tcp;\n"
	"					struct { " BE(16) " _source_port; " BE(
		16) " _dest_port; " BE(16) " _len; " BE(16) " _check; } _udp;\n"
							    "					"
							    "struct { " U8 " _type; } _icmp;\n"
							    "				} "
							    "_transport_header;\n"
							    "			} _ipv4;\n"
							    "			struct "
							    "{ " IPV6_FIELDS "\n"
							    "				enum : "
							    "uint8_t { _unknown = 0, _tcp = 1, "
							    "_udp = 2, _icmp = 3 }\n"
							    "					"
							    "_transport_header_type;\n"
							    "				variant "
							    "<_transport_header_type> {\n"
							    "					"
							    "struct { } _unknown;\n"
							    "					"
							    "struct { " TCP_FIELDS " } _tcp;\n"
							    "					"
							    "struct { " BE(16) " _source_port; " BE(16) " _dest_port; " BE(
								    16) " _len; " BE(16) " _check; "
											 "} _udp;\n"
											 "	"
											 "	"
											 "	"
											 "	"
											 "	str"
											 "uct { " U8
											 " _type; "
											 "} "
											 "_icmp;\n"
											 "	"
											 "	"
											 "	"
											 "	} "
											 "_transpor"
											 "t_header;"
											 "\n"
											 "	"
											 "	"
											 "	} "
											 "_ipv6;\n"
											 "	"
											 "	} "
											 "_network_"
											 "header;\n"
											 "	};"
											 "\n"
											 "};\n";

static FILE *f;
static size_t at;
/* The event written next: net_dev_queue (0) or net_if_receive_skb (1), on that device. */
static uint32_t event_id;
static const char *device = "eth1";

static void put(const void *p, size_t n)
{
	ctf_put(f, p, n);
	at += n;
}

static void be16(uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	put(b, 2);
}

static void be32(uint32_t v)
{
	be16((uint16_t)(v >> 16));
	be16((uint16_t)v);
}

static void header(uint64_t ts, uint8_t nh)
{
	const uint32_t len = 140;
	const uint64_t skb = 0xffff888001234500ULL;

	put(&event_id, 4);
	put(&ts, 8);
	put(&skb, 8);
	put(&len, 4);
	put(device, strlen(device) + 1);
	put(&nh, 1);
}

/* The TCP header's bytes as on the wire: data offset 5 words, FLAGS. */
static void tcp(uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags)
{
	const uint8_t th = 1;

	put(&th, 1);
	be16(sport);
	be16(dport);
	be32(seq);
	be32(ack);
	be16((uint16_t)(5 << 12 | flags));
	be16(64240);
	be16(0);
	be16(0);
}

static void ipv4_tcp(uint64_t ts, uint16_t payload, uint32_t seq, uint8_t flags)
{
	const uint8_t vihl = 0x45, tos = 0, ttl = 64, proto = 6;
	const uint8_t s[4] = {10, 99, 0, 1}, d[4] = {10, 99, 0, 2};

	header(ts, 1);
	put(&vihl, 1);
	put(&tos, 1);
	be16((uint16_t)(20 + 20 + payload));
	be16(4242);
	be16(0x4000);
	put(&ttl, 1);
	put(&proto, 1);
	be16(0);
	put(s, 4);
	put(d, 4);
	tcp(41234, 5432, seq, 77, flags);
}

static void ipv6_udp(uint64_t ts)
{
	const uint8_t vp = 0x60, fl[3] = {0}, next = 17, hop = 64, th = 2;

	header(ts, 2);
	put(&vp, 1);
	put(fl, 3);
	be16(8 + 32);
	put(&next, 1);
	put(&hop, 1);
	for (int i = 0; i < 8; i++)
		be16(i == 0 ? 0xfd00 : i == 7 ? 1 : 0);
	for (int i = 0; i < 8; i++)
		be16(i == 0 ? 0xfd00 : i == 7 ? 2 : 0);
	put(&th, 1);
	be16(5353);
	be16(53);
	be16(8 + 32);
	be16(0);
}

int main(void)
{
	char root[] = "/tmp/test-net-decode.XXXXXX", path[600];
	const uint32_t magic[2] = {0xc1fc1fc1, 0}, cpu = 1;
	struct an_options opt = {.tables = false};
	struct an_result *r = NULL;
	const struct an_packet *p;
	char *why = NULL, text[160];
	uint64_t bits[2] = {0};

	ASSERT_TRUE(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/metadata", root);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	ctf_put(f, metadata, strlen(metadata));
	{
		/* net_if_receive_skb: net_dev_queue's fields (lttng's net_dev_template) */
		const char *queue = strstr(metadata, "event {"),
			   *name = "\"net_dev_queue\"; id = 0";
		const char *at_name = strstr(queue, name);

		ASSERT_TRUE(queue && at_name);
		ctf_put(f, queue, (size_t)(at_name - queue));
		ctf_put(f, "\"net_if_receive_skb\"; id = 1",
			strlen("\"net_if_receive_skb\"; id = 1"));
		ctf_put(f, at_name + strlen(name), strlen(at_name + strlen(name)));
	}
	ASSERT_EQ(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/channel0_1", root);
	f = fopen(path, "w+b");
	ASSERT_TRUE(f);
	put(magic, sizeof(magic));
	put(bits, sizeof(bits));
	put(&cpu, sizeof(cpu));
	ipv4_tcp(1000, 100, 1000, 0x18);     /* PSH|ACK, 100 bytes */
	ipv4_tcp(2000, 0, 4000000000, 0x02); /* SYN: one sequence number */
	ipv6_udp(3000);
	event_id = 1;
	ipv4_tcp(4000, 10, 2000, 0x18); /* received on eth1 */
	device = "lo";
	ipv4_tcp(5000, 10, 3000, 0x18);
	device = "veth1a2b3c";
	ipv6_udp(6000);
	event_id = 0;
	ipv4_tcp(7000, 10, 4000, 0x18); /* sent on lo */
	bits[0] = bits[1] = at * 8;
	ASSERT_EQ(fseek(f, sizeof(magic), SEEK_SET), 0);
	ctf_put(f, bits, sizeof(bits));
	ASSERT_EQ(fclose(f), 0);

	if (an_analyze(root, &opt, &r, &why) < 0) {
		fprintf(stderr, "an_analyze: %s\n", why ? why : "?");
		return 1;
	}
	ASSERT_EQ(r->log.packets.n, 7);
	ASSERT_EQ(r->log.counts[EV_NET_XMIT], 4);
	ASSERT_EQ(r->log.counts[EV_NET_RECV], 3);
	for (size_t i = 0; i < 7; i++)
		ASSERT_EQ(AN_AT(&r->log.packets, struct an_packet, i)->per_packet,
			  i == 4 || i == 5);
	p = AN_AT(&r->log.packets, struct an_packet, 0);
	ASSERT_EQ(p->family, 4);
	ASSERT_EQ(p->proto, 6);
	ASSERT_EQ(p->sport, 41234);
	ASSERT_EQ(p->dport, 5432);
	ASSERT_EQ(p->seq, 1000);
	ASSERT_EQ(p->ack, 77);
	ASSERT_EQ(p->len, 100);
	ASSERT_EQ(p->ipid, 4242);
	ASSERT_EQ(p->flags, 0x18);
	ASSERT_EQ(AN_AT(&r->log.ev, struct an_ev, p->ev)->cpu, 1);
	an_packet_text(p, text, sizeof(text));
	ASSERT_STREQ(text, "10.99.0.1:41234 > 10.99.0.2:5432 TCP seq 1000:1100");
	p = AN_AT(&r->log.packets, struct an_packet, 1);
	ASSERT_EQ(p->len, 1); /* the SYN */
	ASSERT_EQ(p->seq, 4000000000U);
	p = AN_AT(&r->log.packets, struct an_packet, 2);
	ASSERT_EQ(p->family, 6);
	ASSERT_EQ(p->proto, 17);
	ASSERT_EQ(p->len, 40);
	an_packet_text(p, text, sizeof(text));
	ASSERT_STREQ(text, "[fd00::1]:5353 > [fd00::2]:53 UDP len 40");
	an_result_free(r);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	ASSERT_EQ(system(path), 0);
	return 0;
}
