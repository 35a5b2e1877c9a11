"""Each finished or partial pair of an arena.json: deals, A − B a hand with a
95% interval over deals, A's share. For an arena stopped before it wrote
arena.md (the figures match arena.md's for finished pairs).
Usage: python3 pairdiff.py arena.json"""
import json,sys,math
d=json.load(open(sys.argv[1]))
names=[b if isinstance(b,str) else b.get('name',str(b)) for b in d['bots']]
for p in d['pairs']:
    xs=[];pa=pb=0
    for (g1,g2) in p['deals']:
        # g1: first playing [A points, B points]; g2 seats swapped [A,B]? 
        a=g1[0]+g2[0]; b=g1[1]+g2[1]
        xs.append((a-b)/2); pa+=a; pb+=b
    n=len(xs); m=sum(xs)/n; v=sum((x-m)**2 for x in xs)/(n-1)
    print(names[p['a']] if isinstance(p['a'],int) else p['a'], names[p['b']] if isinstance(p['b'],int) else p['b'], n, '%+.3f ± %.3f'%(m,1.96*math.sqrt(v/n)), '%.1f%%'%(100*pa/(pa+pb)))
