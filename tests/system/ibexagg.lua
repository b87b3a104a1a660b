-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark/tshark dissector for ibex in-network aggregation packets
-- (UDP port 0xBEF0 = 48880). Layout in docs/aggregation.md, header in
-- network byte order, elements little-endian:
--
--   0 version (4 bits, 1) | type (4 bits: 1 contribution, 2 result)
--   1 element type (1 int32, 2 fp32) | 2-3 element count
--   4-7 job | 8-11 chunk offset (elements)
--   12-13 set (bit 15) | slot (bits 0-14) | 14-15 child (0xFFFF: all)
--   16-19 sequence (the slot's use; low bit = set)
--   20 flags (bit 0 retransmission) | 21 reserved | 22.. elements
--
-- Use:  tshark -X lua_script:tests/system/ibexagg.lua -r f.pcap -Y ibexagg \
--              -T fields -e ibexagg.job -e ibexagg.slot -e ibexagg.seq

local p = Proto("ibexagg", "ibex in-network aggregation")

local types = { [1] = "contribution", [2] = "result" }
local dtypes = { [1] = "int32", [2] = "fp32" }

local f = {
	version = ProtoField.uint8("ibexagg.version", "Version", base.DEC, nil, 0xF0),
	type = ProtoField.uint8("ibexagg.type", "Type", base.DEC, types, 0x0F),
	dtype = ProtoField.uint8("ibexagg.dtype", "Element type", base.DEC, dtypes),
	count = ProtoField.uint16("ibexagg.count", "Elements", base.DEC),
	job = ProtoField.uint32("ibexagg.job", "Job", base.HEX_DEC),
	offset = ProtoField.uint32("ibexagg.offset", "Chunk offset (elements)",
				   base.DEC),
	set = ProtoField.uint16("ibexagg.set", "Set", base.DEC, nil, 0x8000),
	slot = ProtoField.uint16("ibexagg.slot", "Slot", base.DEC, nil, 0x7FFF),
	child = ProtoField.uint16("ibexagg.child", "Child", base.DEC,
				  { [0xFFFF] = "all" }),
	seq = ProtoField.uint32("ibexagg.seq", "Sequence (use)", base.DEC),
	flags = ProtoField.uint8("ibexagg.flags", "Flags", base.HEX),
	retx = ProtoField.bool("ibexagg.retx", "Retransmission", 8, nil, 0x01),
	reserved = ProtoField.uint8("ibexagg.reserved", "Reserved", base.HEX),
	int32 = ProtoField.int32("ibexagg.int32", "Element", base.DEC),
	fp32 = ProtoField.float("ibexagg.fp32", "Element"),
}
p.fields = { f.version, f.type, f.dtype, f.count, f.job, f.offset, f.set,
	     f.slot, f.child, f.seq, f.flags, f.retx, f.reserved, f.int32,
	     f.fp32 }

local e_bad = ProtoExpert.new("ibexagg.malformed",
			      "Malformed ibex aggregation packet",
			      expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { e_bad }

local HDR = 22
local MAX_ELEMS = 2048

-- what ibex_agg_parse() would refuse, or nil
local function problem(buf, len)
	local ver, typ = buf(0, 1):bitfield(0, 4), buf(0, 1):bitfield(4, 4)
	local dt, n = buf(1, 1):uint(), buf(2, 2):uint()
	if ver ~= 1 then return "version" end
	if types[typ] == nil then return "type" end
	if dtypes[dt] == nil then return "element type" end
	if n == 0 or n > MAX_ELEMS then return "element count" end
	if bit.band(buf(20, 1):uint(), 0xFE) ~= 0 or buf(21, 1):uint() ~= 0 then
		return "reserved bits"
	end
	if len ~= HDR + 4 * n then return "length" end
	if buf(12, 1):bitfield(0, 1) ~= buf(19, 1):bitfield(7, 1) then
		return "set is not the sequence's low bit"
	end
	return nil
end

function p.dissector(buf, pinfo, tree)
	local len = buf:len()
	pinfo.cols.protocol = "IBEXAGG"
	local t = tree:add(p, buf(0, math.min(len, HDR)))
	if len < HDR then
		t:add_proto_expert_info(e_bad, "truncated header")
		return len
	end
	t:add(f.version, buf(0, 1))
	t:add(f.type, buf(0, 1))
	t:add(f.dtype, buf(1, 1))
	t:add(f.count, buf(2, 2))
	t:add(f.job, buf(4, 4))
	t:add(f.offset, buf(8, 4))
	t:add(f.set, buf(12, 2))
	t:add(f.slot, buf(12, 2))
	t:add(f.child, buf(14, 2))
	t:add(f.seq, buf(16, 4))
	local fl = t:add(f.flags, buf(20, 1))
	fl:add(f.retx, buf(20, 1))
	t:add(f.reserved, buf(21, 1))
	local why = problem(buf, len)
	if why ~= nil then
		t:add_proto_expert_info(e_bad, why)
		pinfo.cols.info = "malformed: " .. why
		return len
	end
	local typ, dt = buf(0, 1):bitfield(4, 4), buf(1, 1):uint()
	local n = buf(2, 2):uint()
	local el = t:add(buf(HDR, 4 * n), string.format("%d %s elements", n,
							 dtypes[dt]))
	for i = 0, n - 1 do
		el:add_le(dt == 1 and f.int32 or f.fp32, buf(HDR + 4 * i, 4))
	end
	t:set_len(len)
	local child = buf(14, 2):uint()
	pinfo.cols.info = string.format("%s job %d slot %d seq %d %s %s x%d @%d%s",
		types[typ], buf(4, 4):uint(), buf(12, 2):bitfield(1, 15),
		buf(16, 4):uint(),
		child == 0xFFFF and "child all" or ("child " .. child),
		dtypes[dt], n, buf(8, 4):uint(),
		bit.band(buf(20, 1):uint(), 1) == 1 and " retx" or "")
	return len
end

DissectorTable.get("udp.port"):add(0xBEF0, p)
