#!/usr/bin/env bash
# Self-test of the redis-py driver against a real redis-server: starts its own
# redis-server on a free port (redis-server and redis-cli must be on PATH),
# talks to two driver processes over the driver protocol, and exits non-zero
# at the first reply that is not the expected one.
#
#   impl/drivers/redis-py/selftest.sh
set -u

here=$(cd "$(dirname "$0")" && pwd)
DRIVER=${DRIVER:-$here/driver.py}
tmp=$(mktemp -d)
fails=0
redis_pid=

free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

cleanup() {
	local p
	for p in "${DPID[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
	--logfile "$tmp/redis.log" &
redis_pid=$!
rcli() { redis-cli -p "$port" "$@"; }
for _ in $(seq 50); do rcli ping >/dev/null 2>&1 && break; sleep 0.1; done
rcli ping >/dev/null || { echo "redis-server did not start"; exit 1; }

declare -A W R DPID
ms() { echo $(($(date +%s%N) / 1000000)); }

# nofds: close the pipes to the drivers (in a child process).
nofds() {
	local f
	for f in "${W[@]}" "${R[@]}"; do eval "exec $f>&-"; done
}

# start NAME: start a driver process with pipes to talk to it.
start() {
	mkfifo "$tmp/$1.in" "$tmp/$1.out"
	# The driver must not inherit the other drivers' stdin pipes, or their
	# EOF never comes.
	(
		nofds
		exec "$DRIVER" <"$tmp/$1.in" >"$tmp/$1.out" 2>"$tmp/$1.err"
	) &
	DPID[$1]=$!
	local w r
	exec {w}>"$tmp/$1.in"
	exec {r}<"$tmp/$1.out"
	W[$1]=$w R[$1]=$r
}

# recv NAME: read one line from the driver into $line (10 s at most).
recv() {
	line=
	read -t 10 -r line <&"${R[$1]}" || line="<no reply>"
}

# check DESC LINE PATTERN: LINE must match the extended regexp PATTERN.
check() {
	if [[ $2 =~ $3 ]]; then
		echo "ok   $1"
	else
		echo "FAIL $1: got $2, want /$3/"
		fails=$((fails + 1))
	fi
}

# rq NAME JSON PATTERN DESC: send a request, check its reply; $took is the
# reply's latency in ms.
id=0
rq() {
	id=$((id + 1))
	local t0
	t0=$(ms)
	echo "{\"id\":$id,${2}}" >&"${W[$1]}"
	recv "$1"
	took=$(($(ms) - t0))
	check "$4 ($took ms)" "$line" "^\\{\"id\":$id,$3\\}\$"
}

within() { # DESC LO HI: $took within [LO, HI] ms
	if [ "$took" -ge "$2" ] && [ "$took" -le "$3" ]; then
		echo "ok   $1: $took ms in [$2, $3]"
	else
		echo "FAIL $1: $took ms not in [$2, $3]"
		fails=$((fails + 1))
	fi
}

OK='"status":"ok"'
FAIL='"status":"fail"'
ERR='"status":"error","error":"[^"]*"'
RERR='"status":"error","redis_error":true,"error":"[^"]*"'
hello() { echo "\"op\":\"hello\",\"protocol\":1,\"timeout_ms\":${2:-2000},\"redis\":[\"$1\"],\"username\":\"\",\"password\":\"\",\"db\":0,\"client\":\"t\",\"watchdog_ms\":1500,\"seed\":1"; }
L=selftest:l0

start a
start b
recv a; check "banner a" "$line" '^\{"protocol":1,"driver":"redis-py","version":"4\.3\.4","capabilities":\[\]\}$'
recv b; check "banner b" "$line" '^\{"protocol":1,"driver":"redis-py",'
rq a '"op":"lock","name":"x","lease_ms":100,"timeout_ms":1000' "$ERR" "lock before hello -> error"
rq a "$(hello 127.0.0.1:$port)" "$OK" "hello a"
rq b "$(hello 127.0.0.1:$port)" "$OK" "hello b"
rq a '"op":"frobnicate","timeout_ms":1000' "$ERR" "unknown op -> error"

# Mutual exclusion, ownership.
rq a "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":5000,\"timeout_ms\":2000" "$OK" "a lock"
rq b "\"op\":\"trylock\",\"name\":\"$L\",\"wait_ms\":150,\"lease_ms\":5000,\"timeout_ms\":2000" "$FAIL" "b trylock while a holds -> fail"
within "b trylock waited its wait_ms" 100 600
rq b "\"op\":\"trylock\",\"name\":\"$L\",\"wait_ms\":0,\"lease_ms\":5000,\"timeout_ms\":2000" "$FAIL" "b trylock wait 0 while a holds -> fail"
rq b "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$FAIL" "b unlock (not owner) -> fail"
check "key survives b's unlock" "$(rcli exists $L)" '^1$'
rq b "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":5000,\"timeout_ms\":500" "$FAIL" "b lock gives up at timeout_ms -> fail"
within "b lock gave up within timeout_ms" 200 600
rq a "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$OK" "a unlock"
check "key gone after a's unlock" "$(rcli exists $L)" '^0$'
rq a "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$FAIL" "a unlock again -> fail"
rq b "\"op\":\"trylock\",\"name\":\"$L\",\"wait_ms\":0,\"lease_ms\":5000,\"timeout_ms\":2000" "$OK" "b trylock wait 0 on a free lock -> ok"
rq b "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$OK" "b unlock"

# Lease: exact PX, expiry, handover to a blocked waiter.
(
	nofds
	exec redis-cli -p "$port" monitor >"$tmp/monitor"
) &
mon=$!
sleep 0.2
rq a "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":1001,\"timeout_ms\":2000" "$OK" "a lock lease 1001 ms"
sleep 0.2
kill $mon; wait $mon 2>/dev/null
check "PX is the lease, not truncated to 1000" "$(grep -c '"SET" "'$L'" .* "PX" "1001"' "$tmp/monitor")" '^1$'
rq a "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$OK" "a unlock"
rq a "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":300,\"timeout_ms\":2000" "$OK" "a lock lease 300 ms"
rq b "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":5000,\"timeout_ms\":3000" "$OK" "b lock waits for a's lease to run out"
within "b granted once a's lease ran out" 200 600
rq a "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$FAIL" "a unlock after its lease ran out (b holds) -> fail"
check "a's failed unlock left b's key" "$(rcli exists $L)" '^1$'
rq b "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$OK" "b unlock"
rq a "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":200,\"timeout_ms\":2000" "$OK" "a lock lease 200 ms"
sleep 0.4
rq a "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$FAIL" "a unlock after its lease ran out (free) -> fail"
rq a "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":0,\"timeout_ms\":2000" "$OK" "a lock lease 0 (= watchdog_ms 1500)"
check "lease 0 is a plain lease of watchdog_ms" "$(rcli pttl $L)" '^1(4[0-9][0-9]|500)$'
rq a "\"op\":\"unlock\",\"name\":\"$L\",\"timeout_ms\":2000" "$OK" "a unlock"

# Redis error replies.
H=selftest:hash
rq a "\"op\":\"lock\",\"name\":\"$H\",\"lease_ms\":10000,\"timeout_ms\":2000" "$OK" "a lock $H"
rcli del $H >/dev/null; rcli hset $H f v >/dev/null
rq a "\"op\":\"unlock\",\"name\":\"$H\",\"timeout_ms\":2000" "$RERR" "a unlock when the key became a hash -> WRONGTYPE, redis_error"
check "the WRONGTYPE error says so" "$line" 'WRONGTYPE'
rq b "\"op\":\"trylock\",\"name\":\"$H\",\"wait_ms\":0,\"lease_ms\":1000,\"timeout_ms\":2000" "$FAIL" "trylock on a hash key -> fail (SET NX: the key exists)"

# Timeouts: a server that does not answer (stopped with SIGSTOP).
start c
recv c
kill -STOP $redis_pid
rq b "\"op\":\"lock\",\"name\":\"$L\",\"lease_ms\":5000,\"timeout_ms\":400" "$ERR" "lock while redis hangs -> error"
within "hung lock answered within timeout_ms (+ shell slack)" 100 650
rq c "$(hello 127.0.0.1:$port 400)" "$ERR" "hello while redis hangs -> error"
within "hung hello answered within timeout_ms (+ shell slack)" 100 650
kill -CONT $redis_pid
dead=$(free_port)
rq c "$(hello 127.0.0.1:$dead 1000)" "$ERR" "hello to a closed port -> error"
within "refused hello answered within timeout_ms" 0 1000

# EOF: exit 0 without unlocking.
# (b's lock above may well hold $L now: its SET reached the stopped server,
# which ran it once resumed; the error reply said "outcome unknown".)
E=selftest:eof
rq a "\"op\":\"lock\",\"name\":\"$E\",\"lease_ms\":10000,\"timeout_ms\":2000" "$OK" "a lock before EOF"
for n in a b c; do
	eval "exec ${W[$n]}>&-"
	wait "${DPID[$n]}"
	check "driver $n exits 0 on EOF" "$?" '^0$'
done
DPID=()
check "EOF left a's lock held" "$(rcli exists $E)" '^1$'

if [ "$fails" -ne 0 ]; then
	echo "$fails check(s) FAILED; driver stderr:"
	tail -n 5 "$tmp"/*.err
	exit 1
fi
echo "all checks passed"
