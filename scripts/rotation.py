#!/usr/bin/env python3
# rotation.py: leave-one-dataset-out check of each lever on validation (last state).
# For each lever (base, alt variant names per dataset), the paired difference
# chosen-minus-alternative per dataset; a lever is "decided" on two datasets
# by the mean of their paired kNN+AUC differences, and "confirmed" on the third
# when the held-out dataset's paired difference is not below −1 (noise) on kNN and AUC.
import json, statistics as st, os
R = os.environ.get('RUNS', os.path.join(os.path.dirname(__file__), '..', 'docs', 'results', 'validation'))
def get(name):
    f = f'{R}/{name}/valid.json'
    if not os.path.exists(f): return None
    h = json.load(open(f))['history'][-1]
    t = json.load(open(f))['topics']
    return dict(knn=h['valid_knn_micro_f1'], auc=h['valid_link_auc'], npmi=t['npmi'] * 100, ppl=h.get('valid_log_perplexity'))
levers = {
  'hop features (default) vs none': {d: ('abl-grow', 'nofeat') for d in ('ml', 'pl', 'covid')},
  'tree settings H3 (default) vs the paper\'s': {'ml': ('e6-fsmH3', 'e6-fsm'), 'covid': ('abl-grow', 'papertree')},
  'growing tree (default) vs fixed': {d: ('abl-grow', 'abl-fixed') for d in ('ml', 'pl', 'covid')},
  'two hops (default) vs one': {'ml': ('e6-fsmH3', 'e6-fsmH3h1'), 'pl': ('e6-fsmH3', 'e6-fsmH3h1'), 'covid': ('abl-grow', 'hops1')},
}
for lever, per in levers.items():
    print(f'== {lever}')
    diffs = {}
    for ds, (a, b) in per.items():
        rows = []
        for s in range(1, 6):
            x, y = get(f'{ds}-{a}-s{s}'), get(f'{ds}-{b}-s{s}')
            if x and y: rows.append({k: x[k] - y[k] for k in ('knn', 'auc', 'npmi', 'ppl') if x[k] is not None and y[k] is not None})
        if not rows: continue
        diffs[ds] = rows
        m = lambda k: st.mean(r[k] for r in rows)
        sd = lambda k: st.stdev(r[k] for r in rows) if len(rows) > 1 else 0
        print(f'  {ds:6s} n={len(rows)}  ΔkNN {m("knn"):+5.2f}±{sd("knn"):.2f}  ΔAUC {m("auc"):+5.2f}±{sd("auc"):.2f}  ΔNPMI {m("npmi"):+5.2f}  Δppl {m("ppl"):+6.3f}')
    for held in diffs:
        others = [d for d in diffs if d != held]
        if len(others) < 2: continue
        dec = st.mean(st.mean(r['knn'] + r['auc'] for r in diffs[d]) for d in others)
        h = diffs[held]
        hk, ha = st.mean(r['knn'] for r in h), st.mean(r['auc'] for r in h)
        choice = 'default' if dec >= 0 else 'alternative'
        ok = (hk >= -1 and ha >= -1) if dec >= 0 else (hk <= 1 and ha <= 1)
        print(f'  decide on {"+".join(others):9s}: {choice:11s} (mean Δ(kNN+AUC) {dec:+.2f}); held-out {held}: ΔkNN {hk:+.2f} ΔAUC {ha:+.2f} -> {"confirmed" if ok else "NOT confirmed"}')

# Model selection (last state vs best-scored epoch) on the validation halves:
# choose on one half, score on the other; 6-epoch runs only.
import glob
print('== last state (default) vs best-scored epoch, validation halves, 6-epoch runs')
sel = {}
for f in sorted(glob.glob(f'{R}/*/valid.json')):
    ds = f.split('/')[-2].split('-')[0]
    r = json.load(open(f))
    h = [e for e in r['history'] if e.get('valid_halves') and e['epoch'] > 0]
    if r.get('epochs') != 6 or len(h) != 6: continue
    for a in range(2):
        b = 1 - a
        sc = lambda e, k: ((e['valid_halves'][k].get('knn_micro_f1') or 0) + (e['valid_halves'][k].get('link_auc') or 0)) / 2
        best = max(h, key=lambda e: sc(e, a)); last = h[-1]
        sel.setdefault(ds, []).append(tuple(last['valid_halves'][b][k] - best['valid_halves'][b][k] for k in ('knn_micro_f1', 'link_auc')))
for ds, v in sel.items():
    print(f'  {ds:6s} n={len(v)} halves  ΔkNN {st.mean(x[0] for x in v):+5.2f}  ΔAUC {st.mean(x[1] for x in v):+5.2f}')
for held in sel:
    others = [d for d in sel if d != held]
    dec = st.mean(st.mean(x[0] + x[1] for x in sel[d]) for d in others)
    hk, ha = st.mean(x[0] for x in sel[held]), st.mean(x[1] for x in sel[held])
    ok = (hk >= -1 and ha >= -1) if dec >= 0 else (hk <= 1 and ha <= 1)
    print(f'  decide on {"+".join(others):9s}: {"last" if dec >= 0 else "best"} (mean Δ(kNN+AUC) {dec:+.2f}); held-out {held}: ΔkNN {hk:+.2f} ΔAUC {ha:+.2f} -> {"confirmed" if ok else "NOT confirmed"}')
