#!/usr/bin/env python3
"""Writes a synthetic fairway-report offline input: ACCOUNTS accounts of USERS users each and
RECORDS usage records spread over a 14-day window (deterministic: a fixed seed).
   report-gen.py RECORDS [ACCOUNTS] [USERS] > input.json"""
import json
import random
import sys

records = int(sys.argv[1])
accounts = int(sys.argv[2]) if len(sys.argv) > 2 else 20
users = int(sys.argv[3]) if len(sys.argv) > 3 else 50
rng = random.Random(1796231405)
now = 1796231405
out = sys.stdout
out.write('{"now": "2026-12-02T17:10:05Z", "window": "14-0", "half_life": "7-0", "algorithm": "fair_tree",\n')
out.write(' "associations": [\n')
assocs = []
for a in range(accounts):
    assocs.append({"account": f"acct{a:02d}", "parent": "root", "shares": 1 + (a * 7) % 40})
    for u in range(users):
        assocs.append({"account": f"acct{a:02d}", "user": f"user{a:02d}_{u:03d}", "shares": 1 + u % 3})
out.write(",\n".join("  " + json.dumps(x) for x in assocs))
out.write('\n ],\n "usage": [\n')
import time
for i in range(records):
    a = int(rng.random() ** 2 * accounts)          # a few accounts are much busier
    u = rng.randrange(users)
    end = now - int(rng.random() * 15 * 86400)     # some records are older than the window
    gpus = rng.choice((0, 0, 1, 2, 4, 8))
    seconds = rng.randrange(60, 36000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(end))
    out.write(f'  {{"account": "acct{a:02d}", "user": "user{a:02d}_{u:03d}", "end": "{stamp}", '
              f'"billing_seconds": {seconds * (1 + 10 * gpus)}, "gpu_seconds": {seconds * gpus}, '
              f'"cpu_seconds": {seconds * 4}}}{"," if i + 1 < records else ""}\n')
out.write(" ]\n}\n")
