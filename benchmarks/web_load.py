"""Load on ``bgnet web``'s analysis API: concurrent clients for a bounded time, on the loopback only.

Starts the app (the shipped network, or ``--checkpoint``) with uvicorn on
127.0.0.1 in this process, then runs ``--clients`` client threads that each
send ``GET /api/analyze`` calls one after another for ``--seconds``: rolls of
the starting position and of a few others at ``--ply``, and one cube
decision in eight.  Prints the requests per second, the p50 and p99
latency, and the errors (any answer but 200); exits 1 on an error.

    .venv/bin/python benchmarks/web_load.py [--clients 50] [--seconds 30] [--ply 0]
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import threading
import time
import urllib.parse

import numpy as np

POSITIONS = [
    "4HPwATDgc/ABMA",
    "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10",
    "sGfwATDgc/ABMA",
    "4HPhASLgc/ABMA",
]
ROLLS = ["31", "42", "65", "53", "64", "21", "66", "11"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--ply", type=int, default=0, choices=(0, 1, 2))
    ap.add_argument("--checkpoint", default=None)
    args = ap.parse_args()
    if not 1 <= args.clients <= 500 or not 0 < args.seconds <= 600:
        ap.error("--clients 1-500 and --seconds up to 600")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

    import torch
    import uvicorn

    from bgnet.players import NetPlayer
    from bgnet.web.app import create_app

    torch.set_num_threads(1)
    app = create_app(NetPlayer.from_checkpoint(args.checkpoint, ply=args.ply))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]

    latencies: list[list[float]] = [[] for _ in range(args.clients)]
    errors: list[str] = []
    stop = time.monotonic() + args.seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        i = k
        while time.monotonic() < stop:
            query = {"position": POSITIONS[i % len(POSITIONS)], "ply": str(args.ply)}
            if i % 8 != 7:
                query["dice"] = ROLLS[(i // len(POSITIONS)) % len(ROLLS)]
            i += args.clients
            t0 = time.perf_counter()
            try:
                conn.request("GET", "/api/analyze?" + urllib.parse.urlencode(query))
                r = conn.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException) as e:
                errors.append(f"{type(e).__name__}: {e}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                continue
            latencies[k].append(time.perf_counter() - t0)
            if r.status != 200:
                errors.append(f"HTTP {r.status}: {body[:200]!r}")
        conn.close()

    start = time.monotonic()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    server.should_exit = True
    thread.join(timeout=10)

    lat = np.array([x for per in latencies for x in per])
    what = f"{args.clients} clients for {elapsed:.1f} s on 127.0.0.1"
    print(f"bgnet web, GET /api/analyze at {args.ply}-ply: {what}")
    print(f"requests: {len(lat)}   requests/s: {len(lat) / elapsed:.1f}   errors: {len(errors)}")
    if len(lat):
        p50, p99 = np.percentile(lat, [50, 99]) * 1000
        print(f"latency: p50 {p50:.0f} ms   p99 {p99:.0f} ms   max {lat.max() * 1000:.0f} ms")
    for e in errors[:5]:
        print("error:", e, file=sys.stderr)
    return 1 if errors or not len(lat) else 0


if __name__ == "__main__":
    sys.exit(main())
