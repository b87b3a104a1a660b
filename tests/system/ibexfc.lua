-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark/tshark dissector for the ibex credit flow-control frame
-- (EtherType 0x88B5). Layout in docs/flow-control.md:
--
--   14 magic 0xFC | 15 version 1 | 16 op (0 normal, 1 init) | 17 VL count
--   18-19 seq | then per VL, 6 bytes: vl (4 bits), reserved byte,
--   FCTBS (12 bits in 16), FCCL (12 bits in 16); zero padding to 60 bytes.
--
-- Use:  tshark -X lua_script:tests/system/ibexfc.lua -r f.pcap \
--              -T fields -e ibexfc.vl -e ibexfc.fctbs -e ibexfc.fccl

local p = Proto("ibexfc", "ibex credit flow control")

local ops = { [0] = "normal", [1] = "init" }

local f = {
	magic = ProtoField.uint8("ibexfc.magic", "Magic", base.HEX),
	version = ProtoField.uint8("ibexfc.version", "Version", base.DEC),
	op = ProtoField.uint8("ibexfc.op", "Op", base.DEC, ops),
	count = ProtoField.uint8("ibexfc.count", "VL count", base.DEC),
	seq = ProtoField.uint16("ibexfc.seq", "Sequence", base.DEC),
	vl = ProtoField.uint8("ibexfc.vl", "VL", base.DEC, nil, 0x0F),
	fctbs = ProtoField.uint16("ibexfc.fctbs", "FCTBS", base.DEC, nil, 0x0FFF),
	fccl = ProtoField.uint16("ibexfc.fccl", "FCCL", base.DEC, nil, 0x0FFF),
}
p.fields = { f.magic, f.version, f.op, f.count, f.seq, f.vl, f.fctbs, f.fccl }

local e_bad = ProtoExpert.new("ibexfc.malformed", "Malformed ibex FC frame",
			      expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { e_bad }

function p.dissector(buf, pinfo, tree)
	local len = buf:len()
	pinfo.cols.protocol = "IBEXFC"
	local t = tree:add(p, buf(0, math.min(len, 6)))
	if len < 6 then
		t:add_proto_expert_info(e_bad, "truncated header")
		return len
	end
	local magic, ver = buf(0, 1):uint(), buf(1, 1):uint()
	local op, n = buf(2, 1):uint(), buf(3, 1):uint()
	t:add(f.magic, buf(0, 1))
	t:add(f.version, buf(1, 1))
	t:add(f.op, buf(2, 1))
	t:add(f.count, buf(3, 1))
	t:add(f.seq, buf(4, 2))
	if magic ~= 0xFC or ver ~= 1 or op > 1 or n == 0 or n > 15 then
		t:add_proto_expert_info(e_bad, "bad magic/version/op/count")
		return len
	end
	if len < 6 + 6 * n then
		t:add_proto_expert_info(e_bad, "truncated VL records")
		n = math.floor((len - 6) / 6)
	end
	t:set_len(6 + 6 * n)
	local info = {}
	for i = 0, n - 1 do
		local o = 6 + 6 * i
		local vl = buf(o, 1):uint()
		local fctbs, fccl = buf(o + 2, 2):uint(), buf(o + 4, 2):uint()
		local r = t:add(buf(o, 6), string.format("VL%d: FCTBS %d FCCL %d",
			bit.band(vl, 0x0F), bit.band(fctbs, 0x0FFF), bit.band(fccl, 0x0FFF)))
		r:add(f.vl, buf(o, 1))
		r:add(f.fctbs, buf(o + 2, 2))
		r:add(f.fccl, buf(o + 4, 2))
		if vl > 14 or buf(o + 1, 1):uint() ~= 0 or
		   fctbs > 0x0FFF or fccl > 0x0FFF then
			r:add_proto_expert_info(e_bad, "reserved bits set or VL > 14")
		end
		info[#info + 1] = string.format("VL%d %d/%d", bit.band(vl, 0x0F),
			bit.band(fctbs, 0x0FFF), bit.band(fccl, 0x0FFF))
	end
	pinfo.cols.info = string.format("%s seq %d: %s", ops[op],
		buf(4, 2):uint(), table.concat(info, ", "))
	return len
end

DissectorTable.get("ethertype"):add(0x88B5, p)
