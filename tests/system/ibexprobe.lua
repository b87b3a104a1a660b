-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark/tshark dissector for the ibex generator's probe trailers
-- (docs/generator.md, "Ranks and frames"), little-endian:
--
--   RoCEv2 frames (UDP 4791): the 24 bytes before the 4-byte ICRC:
--     magic 0x50584249 "IBXP" | flow (qp << 28 | src_rank << 14 | dst_rank) u32 |
--     seq u32 | tag u32 ((iteration & 0xffff) << 16 | step) | TX TSC u64
--   short probes (UDP 4790, frames under 82 bytes): the last 18 bytes:
--     magic 0x5349 "IS" | flow u32 (as above) | seq u32 | trial u16 |
--     TX TSC, its low 48 bits
--
-- A post-dissector: it adds an "ibex probe" tree after whatever decoded
-- the frame (RRoCE for 4791, VXLAN-GPE for 4790).
-- Use:  tshark -X lua_script:ibexprobe.lua -r f.pcap -Y ibexprobe \
--              -T fields -e ibexprobe.src -e ibexprobe.dst -e ibexprobe.seq

local p = Proto("ibexprobe", "ibex generator probe")

local f = {
	kind = ProtoField.string("ibexprobe.kind", "Kind"),
	magic = ProtoField.uint32("ibexprobe.magic", "Magic", base.HEX),
	flow = ProtoField.uint32("ibexprobe.flow", "Flow", base.DEC),
	src = ProtoField.uint32("ibexprobe.src", "Source rank", base.DEC),
	dst = ProtoField.uint32("ibexprobe.dst", "Destination rank", base.DEC),
	qp = ProtoField.uint32("ibexprobe.qp", "Queue pair of the connection", base.DEC),
	seq = ProtoField.uint32("ibexprobe.seq", "Sequence", base.DEC),
	iter = ProtoField.uint32("ibexprobe.iter", "Iteration (low 16 bits) or trial",
				 base.DEC),
	step = ProtoField.uint32("ibexprobe.step", "Step", base.DEC),
	tsc = ProtoField.uint64("ibexprobe.tsc", "TX timestamp (TSC)", base.DEC),
}
p.fields = { f.kind, f.magic, f.flow, f.src, f.dst, f.qp, f.seq, f.iter, f.step,
	     f.tsc }

local udp_dport = Field.new("udp.dstport")

-- the flow id's ranks (14 bits each) and queue pair
local function flow_fields(t, r, flow)
	t:add(f.src, r, math.floor(flow / 16384) % 16384)
	t:add(f.dst, r, flow % 16384)
	t:add(f.qp, r, math.floor(flow / 268435456))
end

local function full(tvb, tree, off)
	if tvb(off, 4):le_uint() ~= 0x50584249 then
		return
	end
	local t = tree:add(p, tvb(off, 24))
	local flow = tvb(off + 4, 4):le_uint()
	local tag = tvb(off + 12, 4):le_uint()
	t:add(f.kind, "full")
	t:add_le(f.magic, tvb(off, 4))
	t:add_le(f.flow, tvb(off + 4, 4))
	flow_fields(t, tvb(off + 4, 4), flow)
	t:add_le(f.seq, tvb(off + 8, 4))
	t:add(f.iter, tvb(off + 12, 4), math.floor(tag / 65536))
	t:add(f.step, tvb(off + 12, 4), tag % 65536)
	t:add_le(f.tsc, tvb(off + 16, 8))
end

local function short(tvb, tree, off)
	if tvb(off, 2):le_uint() ~= 0x5349 then
		return
	end
	local t = tree:add(p, tvb(off, 18))
	local flow = tvb(off + 2, 4):le_uint()
	t:add(f.kind, "short")
	t:add_le(f.magic, tvb(off, 2))
	t:add_le(f.flow, tvb(off + 2, 4))
	flow_fields(t, tvb(off + 2, 4), flow)
	t:add_le(f.seq, tvb(off + 6, 4))
	t:add_le(f.iter, tvb(off + 10, 2))
	t:add(f.tsc, tvb(off + 12, 6), tvb(off + 12, 6):le_uint64())
end

function p.dissector(tvb, pinfo, tree)
	local dp = udp_dport()
	local len = tvb:len()

	if dp == nil then
		return
	end
	if dp.value == 4791 and len >= 82 then
		full(tvb, tree, len - 28)
	elseif dp.value == 4790 and len >= 60 then
		short(tvb, tree, len - 18)
	end
end

register_postdissector(p)
