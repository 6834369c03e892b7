#!/usr/bin/env bash
# Reproduce the denial-of-service attacks on `sbc-bench net` (docs/NET.md, "Hostile
# peers") on loopback, each bounded, and print how long each one holds its victim.
#
#   scripts/net-attack.sh [path/to/sbc-bench]     (default: target/debug/sbc-bench)
#
# Environment: PORT (default 5299, and PORT+1 for the fake server), CAP (seconds after
# which an attack is given up and reported as "> CAP", default 120). Needs python3.
# Every connection goes to 127.0.0.1; nothing leaves the machine.
set -euo pipefail
BIN=${1:-target/debug/sbc-bench}
[ -x "$BIN" ] || { echo "no sbc-bench at $BIN (cargo build first)" >&2; exit 2; }
export BIN PORT=${PORT:-5299} CAP=${CAP:-120}
exec python3 - <<'EOF'
import json, os, signal, socket, struct, subprocess, threading, time

BIN, PORT, CAP = os.environ["BIN"], int(os.environ["PORT"]), float(os.environ["CAP"])
HOST = "127.0.0.1"
COOKIE = b"attackattackattackattackattackattack\0"
PARAM_EXCHANGE, CREATE_STREAMS, TEST_START, TEST_RUNNING = 9, 10, 1, 2
TEST_END, EXCHANGE_RESULTS, DISPLAY_RESULTS, ACCESS_DENIED = 4, 13, 14, 255

def frame(obj):
    b = json.dumps(obj).encode()
    return struct.pack(">I", len(b)) + b

def wait_listening(port):
    t = time.time()
    while time.time() - t < 10:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            time.sleep(0.3)  # let the server drop the probe
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")

def until_closed(s, cap=CAP):
    """Seconds until the peer closes (or resets) s, None past cap; and what it sent."""
    t, got = time.time(), b""
    s.settimeout(0.5)
    while time.time() - t < cap:
        try:
            b = s.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            break
        if not b:
            break
        got += b
    else:
        return None, got
    return time.time() - t, got

def fmt(secs):
    return f"> {CAP:.0f} s (gave up)" if secs is None else f"{secs:.1f} s"

def server(*extra):
    p = subprocess.Popen([BIN, "net", "server", "-p", str(PORT), "--no-diagnose", *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(PORT)
    return p

def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()

def real_client_in(deadline_s):
    """Seconds until a well-behaved client gets PARAM_EXCHANGE, retrying on "busy"."""
    t = time.time()
    while time.time() - t < deadline_s:
        try:
            s = socket.create_connection((HOST, PORT), timeout=5)
            s.sendall(COOKIE)
            s.settimeout(CAP)
            b = s.recv(1)
            s.close()
            if b and b[0] == PARAM_EXCHANGE:
                return time.time() - t
        except OSError:
            pass
        time.sleep(0.1)
    return None

class Results(list):
    def append(self, r):
        what, figure, note = r
        print(f"{what:<58}  {figure:>10}  {note}", flush=True)

results = Results()

# 1. 200 idle connections, then a real client.
p = server()
t = time.time()
idle = []
for _ in range(200):
    try:
        idle.append(socket.create_connection((HOST, PORT), timeout=5))
    except OSError:
        pass
opened = time.time() - t
locked = real_client_in(CAP)
denied = sum(1 for s in idle if until_closed(s, 0.1)[1] == bytes([ACCESS_DENIED]))
for s in idle:
    s.close()
stop(p)
results.append(("200 idle connections: a real client waits", fmt(locked),
                f"({len(idle)} opened in {opened:.1f} s, {denied} told busy)"))

# 2. Parameters trickled one byte every 4 s.
p = server()
s = socket.create_connection((HOST, PORT))
s.sendall(COOKIE)
assert s.recv(1)[0] == PARAM_EXCHANGE
msg = frame({"tcp": True, "time": 1, "parallel": 1, "len": 131072, "pacing_timer": 1000,
             "client_version": "3.12", "title": "x" * 200})
stop_trickle = threading.Event()
def trickle():
    for b in msg:
        if stop_trickle.is_set():
            return
        try:
            s.send(bytes([b]))
        except OSError:
            return
        stop_trickle.wait(4)
threading.Thread(target=trickle, daemon=True).start()
held, _ = until_closed(s)
stop_trickle.set()
s.close()
stop(p)
results.append(("control message trickled 1 byte / 4 s holds the slot", fmt(held), ""))

# 3. Reverse test without a time whose client never reads.
p = server()
s = socket.create_connection((HOST, PORT))
s.sendall(COOKIE)
assert s.recv(1)[0] == PARAM_EXCHANGE
s.sendall(frame({"tcp": True, "time": 0, "parallel": 1, "reverse": True, "len": 131072}))
assert s.recv(1)[0] == CREATE_STREAMS
d = socket.create_connection((HOST, PORT))
d.sendall(COOKIE)
held, got = until_closed(s)
d.close()
s.close()
stop(p)
results.append(("reverse -t 0 client that never reads holds the slot", fmt(held),
                "(then SERVER_ERROR)" if got.endswith(bytes([254, 0, 0, 0, 144, 0, 0, 0, 0])) else ""))

# 4. A server that trickles its results one byte a second; 5. the same, with Ctrl-C.
def fake_server(port, ready):
    l = socket.socket()
    l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind((HOST, port))
    l.listen(4)
    ready.set()
    c, _ = l.accept()
    c.recv(37)
    c.sendall(bytes([PARAM_EXCHANGE]))
    n = struct.unpack(">I", c.recv(4))[0]
    while n > 0:
        n -= len(c.recv(n))
    c.sendall(bytes([CREATE_STREAMS]))
    dc, _ = l.accept()
    l.close()  # the next run binds the port again
    def drain():
        try:
            while dc.recv(1 << 16):
                pass
        except OSError:
            pass
    threading.Thread(target=drain, daemon=True).start()
    c.sendall(bytes([TEST_START, TEST_RUNNING]))
    while c.recv(1) != bytes([TEST_END]):
        pass
    c.sendall(bytes([EXCHANGE_RESULTS]))
    n = struct.unpack(">I", c.recv(4))[0]
    while n > 0:
        n -= len(c.recv(n))
    body = json.dumps({"cpu_util_total": 1, "cpu_util_user": 0, "cpu_util_system": 1,
                       "sender_has_retransmits": 0, "streams": [{"id": 1, "bytes": 1, "retransmits": -1,
                       "jitter": 0, "errors": 0, "packets": 0}], "pad": "x" * 400}).encode()
    c.sendall(struct.pack(">I", len(body)))
    for b in body:
        try:
            c.send(bytes([b]))
        except OSError:
            break
        time.sleep(1)
    c.close(); dc.close()

def trickling_server_run(interrupt_after):
    ready = threading.Event()
    threading.Thread(target=fake_server, args=(PORT + 1, ready), daemon=True).start()
    ready.wait()
    t = time.time()
    c = subprocess.Popen([BIN, "net", "client", HOST, "-p", str(PORT + 1), "-t", "1", "-i", "0",
                          "--no-diagnose"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        t = time.time()
        c.send_signal(signal.SIGINT)
    try:
        c.wait(CAP)
        return time.time() - t, c.returncode
    except subprocess.TimeoutExpired:
        c.kill()
        c.wait()
        return None, None

held, rc = trickling_server_run(None)
results.append(("server trickling its results 1 byte / s holds the client", fmt(held), f"(exit {rc})"))
time.sleep(1)
took, rc = trickling_server_run(3.0)
results.append(("Ctrl-C during that trickle ends the client in", fmt(took), f"(exit {rc})"))
EOF
