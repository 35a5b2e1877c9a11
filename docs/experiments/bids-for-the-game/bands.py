#!/usr/bin/env python3
"""Each pair's hands by score band from an arena file (arena.json, or
arena.json.gz): how often each side made trump, went alone, marched and
was euchred when its game stood in each band.

usage: bands.py ARENA_JSON
"""
import gzip
import json,sys
path=sys.argv[1]
opener=gzip.open if path.endswith('.gz') else open
a=json.load(opener(path,'rt'))
names=[b['name'] for b in a['bots']]
bands=["both 5+","neither within 2","within 2 of winning","other within 2","both within 2"]
for p in a['pairs']:
    gbs=p.get('games_by_score')
    if not gbs or not p.get('games'): continue
    print(names[p['a']],'vs',names[p['b']])
    for band,(ta,tb) in zip(bands,gbs['tallies']):
        f=lambda t: f"hands {t['hands']:6d} makes {100*t['made_trump']/max(1,t['hands']):5.1f}% alone {100*t['alone']/max(1,t['hands']):5.1f}% march {100*t['marched']/max(1,t['made_trump']):5.1f}% euch {100*t['euchred']/max(1,t['made_trump']):5.1f}%"
        print(f"  {band:22s} A {f(ta)}\n  {'':22s} B {f(tb)}")
