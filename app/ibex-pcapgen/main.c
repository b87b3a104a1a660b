/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex-pcapgen: write a pcap of generated frames for ibex tests and labs.
 *
 * Frames come from ibex_pkt_build, so what the switch parses and what this
 * tool writes share one definition. Addressing follows a fixed scheme that
 * other tools rely on (docs/pcapgen.md):
 *
 *   pair i (0-based): A_i = 02:00:00:00:0a:ii, B_i = 02:00:00:00:0b:ii
 *                     IPv4 10.0.0.(i+1) / 10.0.1.(i+1)
 *                     IPv6 fd00::a:(i+1) / fd00::b:(i+1)
 *                     UDP sport 49152 + i, RoCEv2 dest QP 0x100 + i
 *
 * Frame k belongs to pair k mod pairs and goes A_i -> B_i (B_i -> A_i with
 * --reverse). Timestamps start at 2024-01-01 00:00:00 UTC and advance by
 * one microsecond per frame, so the output is the same on every run.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "ibex_common.h"
#include "ibex_pkt.h"
#include "ibex_units.h"
#include "ibex_version.h"

#define PCAPGEN_SNAPLEN		65535
#define PCAPGEN_MIN_SIZE	IBEX_ETHER_MIN_LEN
#define PCAPGEN_MAX_SIZE	9216
#define PCAPGEN_MAX_PAIRS	255	/* keeps 10.0.x.(i+1) a valid octet */
#define PCAPGEN_MAX_COUNT	1000000000ull
#define PCAPGEN_T0_SEC		1704067200	/* 2024-01-01T00:00:00Z */
#define PCAPGEN_MALFORMED_EVERY	10
#define PCAPGEN_UDP_DPORT	9	/* discard: --kind udp */
#define PCAPGEN_RAW_ETHERTYPE	0x88B6	/* IEEE local experimental 2 */
#define PCAPGEN_BTH_OPCODE	0x04	/* RC SEND Only */

enum kind { K_ROCE, K_UDP, K_IPV4, K_IPV6, K_ROCE6, K_RAW };

static const char *const kind_names[] = {
	[K_ROCE] = "roce", [K_UDP] = "udp", [K_IPV4] = "ipv4",
	[K_IPV6] = "ipv6", [K_ROCE6] = "roce6", [K_RAW] = "raw",
};

static const char *const ecn_names[] = {
	[IBEX_ECN_NOT_ECT] = "not-ect", [IBEX_ECN_ECT1] = "ect1",
	[IBEX_ECN_ECT0] = "ect0", [IBEX_ECN_CE] = "ce",
};

/* The malformed frames, in the order they cycle. */
enum bad { B_RUNT, B_IP4_TRUNC, B_IP4_VERSION, B_IP4_IHL, B_UDP_LEN,
	   B_BTH_TRUNC, B_COUNT };

static const enum ibex_reason bad_reason[B_COUNT] = {
	[B_RUNT] = IBEX_R_RUNT, [B_IP4_TRUNC] = IBEX_R_IP4_TRUNC,
	[B_IP4_VERSION] = IBEX_R_IP4_VERSION, [B_IP4_IHL] = IBEX_R_IP4_IHL,
	[B_UDP_LEN] = IBEX_R_UDP_LEN, [B_BTH_TRUNC] = IBEX_R_BTH_TRUNC,
};

struct pcapgen_opts {
	const char *output;
	uint64_t count;
	uint32_t size;
	uint32_t pairs;
	bool reverse;
	enum kind kind;
	int vlan;		/* -1 = untagged */
	int pcp;		/* -1 = not given */
	uint8_t dscp;
	uint32_t dscp_spread;	/* pair i: dscp + i % spread; 0 = off */
	int ecn;		/* -1 = kind default */
	bool dst_set, src_set, broadcast, malformed;
	uint8_t dst[6], src[6];
	uint64_t seed;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ibex-pcapgen -o FILE [options]\n"
		"  -o, --output FILE   pcap to write (required)\n"
		"  -n, --count N       frames to write (default 1000)\n"
		"  -s, --size BYTES    frame length without FCS, %d..%d "
		"(default 64)\n"
		"  -p, --pairs N       MAC/IP pairs, 1..%d (default 4)\n"
		"      --reverse       frames go B_i -> A_i\n"
		"      --kind K        roce|udp|ipv4|ipv6|roce6|raw "
		"(default roce)\n"
		"      --vlan VID      802.1Q tag with this VID (0..4095)\n"
		"      --pcp P         802.1Q PCP 0..7 (VID 0 without --vlan)\n"
		"      --dscp D        DSCP 0..63 (default 0)\n"
		"      --dscp-spread N pair i gets DSCP D + (i mod N): traffic\n"
		"                      over N classes (lanes benchmarks)\n"
		"      --ecn E         not-ect|ect0|ect1|ce (default ect0 for "
		"roce/udp/roce6, else not-ect)\n"
		"      --dst MAC       destination MAC for every frame\n"
		"      --src MAC       source MAC for every frame\n"
		"      --broadcast     destination ff:ff:ff:ff:ff:ff\n"
		"      --malformed     every 10th frame is malformed\n"
		"      --seed N        first PSN of each pair from N "
		"(default 0: PSNs start at 0)\n"
		"  -h, --help          this text\n"
		"      --version       ibex version\n",
		PCAPGEN_MIN_SIZE, PCAPGEN_MAX_SIZE, PCAPGEN_MAX_PAIRS);
}

static void __attribute__((noreturn))
bad_arg(const char *fmt, const char *opt, const char *val)
{
	fprintf(stderr, "ibex-pcapgen: ");
	fprintf(stderr, fmt, opt, val);
	fprintf(stderr, "\nTry 'ibex-pcapgen --help'.\n");
	exit(2);
}

static uint64_t
num_arg(const char *opt, const char *val, uint64_t min, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (val[0] < '0' || val[0] > '9')
		bad_arg("%s: '%s' is not a number", opt, val);
	v = strtoull(val, &end, 0);
	if (errno != 0 || *end != '\0')
		bad_arg("%s: '%s' is not a number", opt, val);
	if (v < min || v > max) {
		fprintf(stderr, "ibex-pcapgen: %s: %s is out of range "
			"%" PRIu64 "..%" PRIu64 "\n", opt, val, min, max);
		exit(2);
	}
	return v;
}

/* A size in the syntax of every ibex tool (ibex_units.h: 1K = 1024). */
static uint32_t
size_arg(const char *opt, const char *val, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (ibex_parse_size(val, &v) != 0)
		bad_arg("%s: '%s' is not a size (e.g. 64, 1500, 9K)", opt, val);
	if (v < min || v > max) {
		fprintf(stderr, "ibex-pcapgen: %s: %s is out of range "
			"%" PRIu64 "..%" PRIu64 " bytes\n", opt, val, min, max);
		exit(2);
	}
	return (uint32_t)v;
}

static int
name_arg(const char *opt, const char *val, const char *const *names,
	 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(val, names[i]) == 0)
			return (int)i;
	bad_arg("%s: unknown value '%s'", opt, val);
}

enum { O_REVERSE = 256, O_KIND, O_VLAN, O_PCP, O_DSCP, O_ECN, O_DST, O_SRC,
       O_BROADCAST, O_MALFORMED, O_SEED, O_DSCP_SPREAD, O_VERSION };

static void
parse_args(int argc, char **argv, struct pcapgen_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "pairs", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "reverse", no_argument, NULL, O_REVERSE },
		{ "kind", required_argument, NULL, O_KIND },
		{ "vlan", required_argument, NULL, O_VLAN },
		{ "pcp", required_argument, NULL, O_PCP },
		{ "dscp", required_argument, NULL, O_DSCP },
		{ "dscp-spread", required_argument, NULL, O_DSCP_SPREAD },
		{ "ecn", required_argument, NULL, O_ECN },
		{ "dst", required_argument, NULL, O_DST },
		{ "src", required_argument, NULL, O_SRC },
		{ "broadcast", no_argument, NULL, O_BROADCAST },
		{ "malformed", no_argument, NULL, O_MALFORMED },
		{ "seed", required_argument, NULL, O_SEED },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->count = 1000;
	o->size = 64;
	o->pairs = 4;
	o->kind = K_ROCE;
	o->vlan = -1;
	o->pcp = -1;
	o->ecn = -1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "o:n:s:p:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'n':
			o->count = num_arg("--count", optarg, 0,
					   PCAPGEN_MAX_COUNT);
			break;
		case 's':
			o->size = size_arg("--size", optarg, PCAPGEN_MIN_SIZE,
					   PCAPGEN_MAX_SIZE);
			break;
		case 'p':
			o->pairs = num_arg("--pairs", optarg, 1,
					   PCAPGEN_MAX_PAIRS);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("ibex-pcapgen %s (git %s)\nbuilt against DPDK "
			       "%s headers\n", IBEX_VERSION, IBEX_GIT,
			       IBEX_DPDK_BUILT);
			exit(0);
		case O_REVERSE:
			o->reverse = true;
			break;
		case O_KIND:
			o->kind = name_arg("--kind", optarg, kind_names,
					   IBEX_ARRAY_SIZE(kind_names));
			break;
		case O_VLAN:
			o->vlan = num_arg("--vlan", optarg, 0, 4095);
			break;
		case O_PCP:
			o->pcp = num_arg("--pcp", optarg, 0, 7);
			break;
		case O_DSCP:
			o->dscp = num_arg("--dscp", optarg, 0, 63);
			break;
		case O_DSCP_SPREAD:
			o->dscp_spread = num_arg("--dscp-spread", optarg, 1, 64);
			break;
		case O_ECN:
			o->ecn = name_arg("--ecn", optarg, ecn_names,
					  IBEX_ARRAY_SIZE(ecn_names));
			break;
		case O_DST:
			if (ibex_mac_parse(optarg, o->dst) != 0)
				bad_arg("%s: '%s' is not a MAC "
					"(xx:xx:xx:xx:xx:xx)", "--dst", optarg);
			o->dst_set = true;
			break;
		case O_SRC:
			if (ibex_mac_parse(optarg, o->src) != 0)
				bad_arg("%s: '%s' is not a MAC "
					"(xx:xx:xx:xx:xx:xx)", "--src", optarg);
			o->src_set = true;
			break;
		case O_BROADCAST:
			o->broadcast = true;
			break;
		case O_MALFORMED:
			o->malformed = true;
			break;
		case O_SEED:
			o->seed = num_arg("--seed", optarg, 0, UINT64_MAX);
			break;
		default:	/* getopt_long has said what was wrong */
			fprintf(stderr, "Try 'ibex-pcapgen --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		bad_arg("%sunexpected argument '%s'", "", argv[optind]);
	if (o->output == NULL)
		bad_arg("%s%s: an output file is required", "-o FILE", "");
	if (o->broadcast && o->dst_set)
		bad_arg("%s and %s conflict", "--broadcast", "--dst");
	if (o->ecn < 0)
		o->ecn = (o->kind == K_ROCE || o->kind == K_UDP ||
			  o->kind == K_ROCE6) ? IBEX_ECN_ECT0 :
			 IBEX_ECN_NOT_ECT;
}

/* splitmix64: the first PSN of a pair, a pure function of seed and pair. */
static uint32_t
first_psn(uint64_t seed, uint32_t pair)
{
	uint64_t z;

	if (seed == 0)
		return 0;
	z = seed + (pair + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31)) & 0xffffff;
}

static void
pair_mac(uint8_t mac[6], uint8_t side, uint32_t i)
{
	mac[0] = 0x02;
	mac[1] = mac[2] = mac[3] = 0;
	mac[4] = side;
	mac[5] = (uint8_t)i;
}

/* fd00::<side>:<i+1> */
static void
pair_ip6(uint8_t ip[16], uint8_t side, uint32_t i)
{
	memset(ip, 0, 16);
	ip[0] = 0xfd;
	ip[13] = side;
	ip[14] = (uint8_t)((i + 1) >> 8);
	ip[15] = (uint8_t)(i + 1);
}

/* The spec of the frame of pair @p i, in the direction the options ask. */
static void
pair_spec(const struct pcapgen_opts *o, enum kind kind, uint32_t i,
	  uint32_t psn, struct ibex_pkt_spec *s)
{
	uint8_t from = o->reverse ? 0x0b : 0x0a;
	uint8_t to = o->reverse ? 0x0a : 0x0b;

	memset(s, 0, sizeof(*s));
	pair_mac(s->src, from, i);
	pair_mac(s->dst, to, i);
	if (o->src_set)
		memcpy(s->src, o->src, 6);
	if (o->dst_set)
		memcpy(s->dst, o->dst, 6);
	if (o->broadcast)
		memset(s->dst, 0xff, 6);
	s->vlan = o->vlan >= 0 ? o->vlan : (o->pcp >= 0 ? 0 : -1);
	s->pcp = o->pcp >= 0 ? (uint8_t)o->pcp : 0;
	s->dscp = o->dscp_spread != 0 ?
		  (uint8_t)((o->dscp + i % o->dscp_spread) & 63) : o->dscp;
	s->ecn = (uint8_t)o->ecn;
	s->src_ip4 = 0x0a000000u | (from == 0x0a ? 0 : 0x100) | (i + 1);
	s->dst_ip4 = 0x0a000000u | (to == 0x0a ? 0 : 0x100) | (i + 1);
	pair_ip6(s->src_ip6, from, i);
	pair_ip6(s->dst_ip6, to, i);
	s->sport = (uint16_t)(49152 + i);
	s->dport = PCAPGEN_UDP_DPORT;
	s->bth_opcode = PCAPGEN_BTH_OPCODE;
	s->dest_qp = 0x100 + i;
	s->psn = psn;
	s->frame_len = o->size;
	switch (kind) {
	case K_ROCE:
		s->l3 = IBEX_L3_IPV4;
		s->roce = true;
		break;
	case K_ROCE6:
		s->l3 = IBEX_L3_IPV6;
		s->roce = true;
		break;
	case K_UDP:
		s->l3 = IBEX_L3_IPV4;
		s->udp = true;
		break;
	case K_IPV4:
		s->l3 = IBEX_L3_IPV4;
		break;
	case K_IPV6:
		s->l3 = IBEX_L3_IPV6;
		break;
	case K_RAW:
		s->l3 = IBEX_L3_NONE;
		s->ether_type = PCAPGEN_RAW_ETHERTYPE;
		break;
	}
}

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
ip4_recsum(uint8_t *ip)
{
	put16(ip + 10, 0);
	put16(ip + 10, (uint16_t)~ibex_csum_fold(ip, (ip[0] & 0xf) * 4u, 0));
}

/*
 * Turn a valid RoCEv2/IPv4 frame of @p len bytes into malformed frame
 * @p b. @return its (capture and wire) length.
 */
static uint32_t
make_bad(uint8_t *f, uint32_t len, const struct ibex_pkt_info *in,
	 enum bad b)
{
	uint8_t *ip = f + in->l3_off, *udp = f + in->l4_off;

	switch (b) {
	case B_RUNT:
		return IBEX_ETHER_HDR_LEN - 4;
	case B_IP4_TRUNC:
		return in->l3_off + 10u;
	case B_IP4_VERSION:
		ip[0] = 0x65;
		break;
	case B_IP4_IHL:
		ip[0] = 0x44;
		break;
	case B_UDP_LEN:
		/* One byte more than the IP payload holds. */
		put16(udp + 4, len - in->l4_off + 1u);
		return len;
	case B_BTH_TRUNC:
		/* Consistent IP and UDP lengths, only 6 bytes of BTH. */
		len = in->bth_off + 6u;
		put16(ip + 2, len - in->l3_off);
		put16(udp + 4, len - in->l4_off);
		break;
	default:
		break;
	}
	ip4_recsum(ip);
	return len;
}

/* Build frame @p k into @p f. @return its length; @p bad set if malformed. */
static uint32_t
make_frame(const struct pcapgen_opts *o, uint64_t k, uint32_t *psn,
	   uint8_t *f, uint32_t cap, bool *bad)
{
	uint32_t i = (uint32_t)(k % o->pairs);
	struct ibex_pkt_spec s;
	struct ibex_pkt_info info;
	enum ibex_reason want = IBEX_R_OK, got;
	enum bad b = B_COUNT;
	int n;

	*bad = o->malformed &&
	       k % PCAPGEN_MALFORMED_EVERY == PCAPGEN_MALFORMED_EVERY - 1;
	/* Malformed frames start as RoCEv2/IPv4 so that every defect fits. */
	pair_spec(o, *bad ? K_ROCE : o->kind, i, psn[i], &s);
	psn[i] = (psn[i] + 1) & 0xffffff;
	n = ibex_pkt_build(f, cap, &s);
	if (n < 0) {
		fprintf(stderr, "ibex-pcapgen: cannot build frame: %s\n",
			strerror(-n));
		exit(1);
	}
	if (*bad) {
		b = (enum bad)(k / PCAPGEN_MALFORMED_EVERY % B_COUNT);
		want = bad_reason[b];
		if (ibex_pkt_parse(f, n, &info) != IBEX_R_OK)
			abort();
		n = (int)make_bad(f, (uint32_t)n, &info, b);
	}
	/* Every frame says what it was meant to say to the ibex parser. */
	got = ibex_pkt_parse(f, n, &info);
	if (got != want) {
		fprintf(stderr, "ibex-pcapgen: internal error: frame %" PRIu64
			" parses as %s, not %s\n", k, ibex_reason_name(got),
			ibex_reason_name(want));
		exit(1);
	}
	return (uint32_t)n;
}

int
main(int argc, char **argv)
{
	static uint8_t frame[PCAPGEN_MAX_SIZE + 128];
	static uint32_t psn[PCAPGEN_MAX_PAIRS];
	struct pcapgen_opts o;
	struct pcap_pkthdr h;
	pcap_dumper_t *d;
	pcap_t *p;
	uint64_t k, bad_count = 0;
	uint32_t i;
	bool bad;
	int ret = 0;

	parse_args(argc, argv, &o);
	for (i = 0; i < o.pairs; i++)
		psn[i] = first_psn(o.seed, i);

	p = pcap_open_dead(DLT_EN10MB, PCAPGEN_SNAPLEN);
	if (p == NULL) {
		fprintf(stderr, "ibex-pcapgen: pcap_open_dead failed\n");
		return 1;
	}
	d = pcap_dump_open(p, o.output);
	if (d == NULL) {
		fprintf(stderr, "ibex-pcapgen: %s\n", pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	for (k = 0; k < o.count; k++) {
		h.caplen = make_frame(&o, k, psn, frame, sizeof(frame), &bad);
		h.len = h.caplen;
		h.ts.tv_sec = PCAPGEN_T0_SEC + (time_t)(k / 1000000);
		h.ts.tv_usec = (suseconds_t)(k % 1000000);
		pcap_dump((u_char *)d, &h, frame);
		bad_count += bad;
	}
	if (pcap_dump_flush(d) != 0) {
		fprintf(stderr, "ibex-pcapgen: %s: write failed\n", o.output);
		ret = 1;
	}
	pcap_dump_close(d);
	pcap_close(p);
	if (ret == 0)
		printf("wrote %" PRIu64 " frames (%" PRIu64 " malformed) "
		       "to %s\n", o.count, bad_count, o.output);
	return ret;
}
