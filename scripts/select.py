#!/usr/bin/env python3
# select.py [PATTERN]: over the validation runs in docs/results/validation (or $RUNS), compare model-selection rules on the validation halves:
# choose on one half, score on the other (kNN Micro-F1, link AUC, their mean).
import json, glob, os, sys
ROOT = os.environ.get('RUNS', os.path.join(os.path.dirname(__file__), '..', 'docs', 'results', 'validation'))
pat = sys.argv[1] if len(sys.argv) > 1 else '*'
rules = {'best': [], 'last': []}
for f in sorted(glob.glob(f'{ROOT}/{pat}/valid.json')):
    h = [e for e in json.load(open(f))['history'] if e.get('valid_halves') and e['epoch'] > 0]
    if not h: continue
    for a in range(2):
        b = 1 - a
        def sc(e, k):
            x = e['valid_halves'][k]; return ((x.get('knn_micro_f1') or 0) + (x.get('link_auc') or 0)) / 2
        best = max(h, key=lambda e: sc(e, a))
        last = h[-1]
        for name, e in (('best', best), ('last', last)):
            x = e['valid_halves'][b]
            rules[name].append((x.get('knn_micro_f1') or 0, x.get('link_auc') or 0, e['epoch']))
for name, v in rules.items():
    if v:
        n = len(v)
        print(f"{name:5s} n={n}  other-half kNN {sum(x[0] for x in v)/n:6.2f}  AUC {sum(x[1] for x in v)/n:6.2f}  mean epoch {sum(x[2] for x in v)/n:4.1f}")
