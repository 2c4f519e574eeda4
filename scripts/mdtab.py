#!/usr/bin/env python3
# mdtab.py [GROUP...]: markdown tables (docs/results.md) of the validation runs in docs/results/validation (or $RUNS) of the validation runs behind each default (last state and kept state).
import json, glob, os, statistics as st, sys
ROOT = os.environ.get('RUNS', os.path.join(os.path.dirname(__file__), '..', 'docs', 'results', 'validation'))
def load(name):
    f = f'{ROOT}/{name}/valid.json'
    try: r = json.load(open(f))
    except FileNotFoundError: return None
    h = r['history']; last = h[-1]; t = r['topics']
    return dict(kNN=last.get('valid_knn_micro_f1'), AUC=last.get('valid_link_auc'), bkNN=max(e.get('valid_knn_micro_f1') or 0 for e in h),
                ppl=last.get('valid_log_perplexity'), NPMI=100*t['npmi'], TD=t['diversity'], T=t['count'], ls=t.get('level_share') or [], sec=r['train_seconds'])
def fmt(vals, d=1):
    vals=[v for v in vals if v is not None]
    if not vals: return '–'
    if len(vals)==1: return f'{vals[0]:.{d}f}'
    return f'{st.mean(vals):.{d}f} ± {st.stdev(vals):.{d}f}'
def row(label, names):
    rs=[load(n) for n in names]; rs=[r for r in rs if r]
    if not rs: return None
    ls = [' / '.join(f'{x:.2f}' for x in r['ls']) for r in rs]
    minls = min(min(r['ls']) if r['ls'] else 0 for r in rs)
    return f"| {label} | {len(rs)} | {fmt([r['kNN'] for r in rs])} | {fmt([r['AUC'] for r in rs])} | {fmt([r['NPMI'] for r in rs])} | {fmt([r['TD'] for r in rs],2)} | {minls:.2f} | {fmt([r['ppl'] for r in rs],3)} |"
hdr = "| setting | seeds | kNN Micro-F1 | link AUC | NPMI % | diversity | smallest level share | log-ppl |\n|---|---|---|---|---|---|---|---|"
groups = {
 'features': [('ML, paper defaults (12 epochs)', ['ml-default-s1']), ('ML, + hop features (3 hops)', ['ml-fh3-s1']), ('ML, + hop features, masked targets', ['ml-fh3mask-s1']),
              ('ML, + hop features, skip', ['ml-fh3skip-s1']), ('ML, + hop features, skip, masked targets', ['ml-fh3skipmask-s1']), ('ML, same, skip gate held at 0 at the start', ['ml-fsm-g0-s1'])],
 'hierarchy': [(f'{ds.upper()}, {lab}', [f'{ds}-e6-{v}-s1']) for v,lab in [('fsm','features, paper tree settings'),('fsmH1','+ level prior, path pruning, contrast 0.99'),('fsmH2','H1 with contrast 0.999'),('fsmH3','+ keep depth (H3)'),('fsmH3bg','H3 + background word distribution'),('fsmH3d1','H3 + λ_div 1'),('fsmH3d03','H3 + λ_div 0.3')] for ds in ['ml','pl']],
 'hops': [(f'{ds.upper()}, {lab}', [f'{ds}-e6-{v}-s{k}' for k in (1,2,3)]) for ds in ['ml','pl'] for v,lab in [('fsmH3','H3, two hops'),('fsmH3h1','H3, one hop')]],
 'covid': [('COVID, H3 (the default)', [f'covid-e6-fsmH3-s{k}' for k in (1,2,3)])],
 'tree': [(lab, [f'ml-abl-{v}-s{k}' for k in (1,2,3)]) for v,lab in [('grow','ML, growing tree (the default)'),('fixed','ML, fixed tree (3 levels, branching 3)'),('flat9','ML, flat tree of 9 topics under a root')]],
}
for g in sys.argv[1:] or groups:
    print(f'\n**{g}**\n'); print(hdr)
    for lab, names in groups[g]:
        r=row(lab,names)
        if r: print(r)
