#!lua flags=allow-cross-slot-keys
-- check_on_node: the check script for the checks of several clients whose keys live on one Redis Cluster
-- node but in different slots (a gateway's coalesced checks, grouped by node). A script's declared keys
-- must share a slot (else CROSSSLOT), so only the keys of the first clients, all of one slot, are declared:
-- they route the call to their node. The others come in ARGV, and the flag above lets the script use keys
-- of other slots of this node. A key this node does not serve (the caller's map of slots was stale, a slot
-- moved) fails the read of it, and check.lua reads every bucket before it writes any, so such an error
-- writes nothing. The keys in ARGV must not be in the declared slot: a node importing that slot runs a
-- call redirected to it (ASK) for every key of the slot, and would read one it does not hold yet as absent.
--
-- KEYS        the first clients' bucket keys, of one slot
-- ARGV[1]     m, how many more bucket keys follow (the other clients', in order; none in KEYS' slot)
-- ARGV[2..m+1] those keys
-- then        ARGV exactly as check.lua takes it for all the keys (KEYS first, then these m)
-- This prelude rebuilds KEYS and ARGV as check.lua expects them, as locals (Redis forbids setting globals).

local KEYS, ARGV = KEYS, ARGV
local m = tonumber(ARGV[1])
if not (m and m >= 0 and m % 1 == 0 and m < #ARGV) then
  return redis.error_reply('ERR tollgate check: the count of keys in ARGV must be a whole number from 0 to '
    .. (#ARGV - 1) .. ', was "' .. tostring(ARGV[1]) .. '"')
end
local keys, args = KEYS, {}
if m > 0 then
  keys = {}
  for i = 1, #KEYS do
    keys[i] = KEYS[i]
  end
  for i = 1, m do
    keys[#KEYS + i] = ARGV[1 + i]
  end
end
for i = m + 2, #ARGV do
  args[i - m - 1] = ARGV[i]
end
KEYS, ARGV = keys, args
