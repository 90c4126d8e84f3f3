#!/usr/bin/env python3
"""Live-event latency across replicas against within one replica (scripts/bench, step 6).

A visitor on replica A sends messages one at a time; the agent holds two live connections with the
same session, one to A and one to B. For every message the time from sending the request to the
event's arrival is taken on both connections, so the two latencies come from the same messages.

    cluster-latency.py URL_A URL_B [--messages N] [--api-key KEY] [--agent USER:PASSWORD]
"""
import argparse
import asyncio
import json
import time
import urllib.request

import websockets


def call(url, method="GET", body=None, token=None):
    request = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def listen(url, token, arrivals, ready):
    async with websockets.connect(url.replace("http", "ws", 1) + f"/agent/v1/events?token={token}", max_size=1 << 22) as socket:
        ready.set()
        async for text in socket:
            event = json.loads(text)
            if event.get("type") == "conversation.new_message":
                arrivals[event["message"]["text"]] = time.perf_counter()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--api-key", default="demo-api-key")
    parser.add_argument("--agent", default="agent:agent")
    args = parser.parse_args()
    username, password = args.agent.split(":", 1)

    visitor = call(f"{args.a}/mobile/v1/clients", "POST", {"apiKey": args.api_key, "deviceId": f"latency-{time.time()}", "device": {"os": "iOS"}})["token"]
    conversation = call(f"{args.a}/mobile/v1/conversations", "POST", {}, visitor)["id"]
    agent = call(f"{args.a}/agent/v1/login", "POST", {"username": username, "password": password})["token"]
    call(f"{args.a}/agent/v1/conversations/{conversation}/accept", "POST", None, agent)

    same, cross = {}, {}
    ready_a, ready_b = asyncio.Event(), asyncio.Event()
    tasks = [asyncio.create_task(listen(args.a, agent, same, ready_a)), asyncio.create_task(listen(args.b, agent, cross, ready_b))]
    await ready_a.wait()
    await ready_b.wait()
    await asyncio.sleep(0.5)
    sent = {}
    for index in range(args.messages):
        text = f"latency {index}"
        sent[text] = time.perf_counter()
        await asyncio.to_thread(call, f"{args.a}/mobile/v1/conversations/{conversation}/messages", "POST", {"text": text}, visitor)
        deadline = time.perf_counter() + 5
        while (text not in same or text not in cross) and time.perf_counter() < deadline:
            await asyncio.sleep(0.0005)
    for task in tasks:
        task.cancel()
    rows = []
    for label, arrivals in (("same replica (A → A)", same), ("across replicas (A → B)", cross)):
        latencies = [(arrivals[text] - start) * 1000 for text, start in sent.items() if text in arrivals]
        rows.append((label, len(latencies), percentile(latencies, 50), percentile(latencies, 99), max(latencies)))
    print(f"{'live event after the send request':34} {'events':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for label, count, p50, p99, worst in rows:
        print(f"{label:34} {count:7d} {p50:8.2f} {p99:8.2f} {worst:8.2f}")
    print(f"across / same: p50 {rows[1][2] / rows[0][2]:.2f}×, p99 {rows[1][3] / rows[0][3]:.2f}×")


asyncio.run(main())
