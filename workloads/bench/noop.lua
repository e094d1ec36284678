-- noop: the ceiling's script, one round trip that does nothing.
-- KEYS[1]: any key (routes the call like a lock's key; unused).
-- ARGV: none.
-- Returns 0.
return 0
