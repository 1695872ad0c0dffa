#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The program speedups Coz's viewer would plot from a profile.coz (Coz's
# tab-separated format, or its JSON lines), for the benchmark's table:
#
#	coz_predict.py PROFILE LINE_SUFFIX SPEEDUP_PCT [POINT]
#
# prints "PREDICTION N" (percent, one decimal, or "nan" without data) and
# N, the experiments behind it. The math is the viewer's (Coz's
# viewer/ts/profile.ts): per selected line and speedup, durations and
# deltas are summed; the baseline is that line's own 0 % experiments;
# speedup = (p0 - ps) / p0 with p = duration / delta (throughput), and
# latency by Little's law (difference / arrival rate), sign inverted as
# the viewer does for points to minimize.
import json
import sys


def parse(line):
    if line.startswith('{'):
        return json.loads(line)
    parts = line.rstrip('\n').split('\t')
    obj = {'type': parts[0]}
    for p in parts[1:]:
        if '=' in p:
            k, v = p.split('=', 1)
            obj[k] = v
    return obj


def main():
    path, suffix, pct = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 100
    want_point = sys.argv[4] if len(sys.argv) > 4 else None
    data = {}
    exp = None
    for raw in open(path):
        if not raw.strip():
            continue
        e = parse(raw)
        t = e['type']
        if t == 'experiment':
            exp = e
            continue
        if t not in ('throughput-point', 'progress-point', 'latency-point') or exp is None:
            continue
        if want_point and e['name'] != want_point:
            continue
        key = (exp['selected'], round(float(exp['speedup']), 2))
        d = data.setdefault(key, {'n': 0, 'delta': 0, 'dur': 0, 'arr': 0, 'diff': 0.0,
                                  'lat': t == 'latency-point'})
        dur = int(exp['duration'])
        d['n'] += 1
        if t == 'latency-point':
            d['arr'] += int(e['arrivals'])
            tot = d['dur'] + dur
            d['diff'] = (d['diff'] * d['dur'] + int(e['difference']) * dur) / tot if tot else 0
        else:
            d['delta'] += int(e['delta'])
        d['dur'] += dur

    def point(d):
        if d['lat']:
            return d['diff'] / (d['arr'] / d['dur']) if d['arr'] and d['dur'] else None
        return d['dur'] / d['delta'] if d['delta'] else None

    for sel in sorted({k[0] for k in data}):
        if not sel.endswith(suffix):
            continue
        base = data.get((sel, 0.0))
        cell = data.get((sel, round(pct, 2)))
        if not base or not cell or point(base) is None or point(cell) is None:
            break
        p0, ps = point(base), point(cell)
        s = (p0 - ps) / p0
        if cell['lat']:
            s = -s
        print('PREDICTION %.1f %d' % (100 * s, cell['n']))
        return
    print('PREDICTION nan 0')


main()
