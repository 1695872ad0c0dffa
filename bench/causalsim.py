#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A model of causalprof's delay rules (kmod/causal.c), for two CPUs.

Simulates a ground-truth program (the raw-futex lock of gt_futex -t 2, or
the producer/consumer pipe of gt_pipe) thread by thread, one thread per
CPU, with the module's rules: hits at each CPU's timer ticks weighed by the
tick interval (some ticks missing, as under TCG), debts paid on the way to
user mode from a tick (from min_pause on, asleep: a wake-up latency, ended
early by its moving average) or a wake-up (from spin_min on, by spinning
below spin_max, 2 ms as the module's default; spin_max=0: as a tick's), the
waits credited and the waker's debt passed on at wake-ups, progress point
visits counted as pauses. It prints the truth (the program with the line
really faster, no profiler) and the virtual-speedup prediction (effective
time = wall - inserted delay, against the 0 % experiment), medians over
seeds. It runs in seconds on the host: a rule can be tried here before a
VM measures it (bench/RESULTS.md 2026-11-27: it reproduced the VM's futex
lock at 20/40/60 % within 1.3 points with 1/3 of the ticks missing, before
and after spinning payments). Not modelled: the profiler's own tasks, which
take CPU time where a CPU is not idle, and the host's scheduling of the
vCPUs.

	bench/causalsim.py [--prog futex|pipe] [--seeds N] [KEY=VALUE ...]

KEY=VALUE sets a parameter of run() below (times in ms), e.g. spin_max=0
(the module's spin_pause_us 0: no spinning), line=other (other() or consume()
selected), miss=0 (every tick on time).
"""
import argparse
import heapq
import random


class Thread:
    def __init__(self, i):
        self.i = i
        self.local = 0.0	# delay paid or inserted by itself
        self.lag = 0.0		# debt taken on at wake-ups
        self.state = 'ready'
        self.gen = 0		# invalidates queued events
        self.step = 0
        self.blocked = None	# (global, owed, time) when it blocked
        self.woken = False	# its payment is a woken thread's
        self.keep = 0.0		# debt taken on from its waker at a wake-up


def run(speedup, prof=True, prog='futex', P=1.0, miss=0.33, min_pause=2.0,
        spin_min=0.1, spin_max=2.0, max_pause=10.0, Lw=0.05, Lp=0.2, Lj=0.5,
        trap=0.02, visit=0.003, jitter=0.05, dur=20000.0, warm=1000.0, seed=1,
        crit=1.3, other=0.65, produce=2.8, consume=1.7, cap=8192, line='main'):
    """One run: returns (wall, effective) ms per progress event."""
    rnd = random.Random(seed)
    evq, seq = [], [0]
    G = [0.0]		# the global delay
    late = [0.0]	# moving average of sleeps' lateness
    count = [0]
    mark = [None, 0, 0.0]
    s = speedup if not prof else 0.0

    def push(t, kind, *a):
        seq[0] += 1
        heapq.heappush(evq, (t, seq[0], kind, a))

    # Programs: steps of ('work', ms, selected), ('lock',), ('unlock',),
    # ('put',), ('get',), ('progress',).
    # line: the selected code, 'main' (crit(), produce()) or 'other'
    # (other(), consume()).
    m = line == 'main'
    if prog == 'futex':
        script = [[('lock',), ('work', crit, m), ('unlock',), ('progress',),
                   ('work', other, not m)]] * 2
    else:
        script = [[('work', produce, m), ('put',)],
                  [('get',), ('work', consume, not m), ('progress',)]]
    ths = [Thread(i) for i in range(len(script))]
    lock = {'v': 0, 'q': []}
    pipe = {'n': 0, 'rq': [], 'wq': []}

    def owed(t):
        return G[0] - t.local + t.lag

    def block(t, now, q):
        t.state = 'blocked'
        t.gen += 1
        q.append(t)
        if prof:
            t.blocked = (G[0], max(owed(t), 0.0), now)

    def still_owed(debt, ins, waited):
        if debt <= 0:
            return 0.0
        ins = max(ins, 0.0)
        if ins < waited and waited >= debt * waited / (waited - ins):
            return 0.0
        return max(debt + ins - waited, 0.0)

    def wake(w, u, now):
        if prof:
            debt = max(owed(w), 0.0)
            if u.blocked:
                g0, o0, t0 = u.blocked
                mine = still_owed(o0, G[0] - g0, now - t0)
                u.local, u.lag = G[0], max(mine, debt)
                u.keep = max(debt - mine, 0.0)	# the waker's part
                u.blocked = None
        u.state = 'waking'
        u.gen += 1
        push(now + Lw * (1 + rnd.uniform(-Lj, Lj)), 'woken', u, u.gen)

    def least(t):
        # a woken thread pays from spin_min on where it may spin
        return min(min_pause, spin_min) if spin_max and t.woken else min_pause

    def advance(t, now):
        """Run t's steps from t.step until it works, blocks or pays."""
        while True:
            st = script[t.i][t.step]
            if st[0] == 'work':
                L = st[1] * (1 - s if st[2] else 1) * (1 + rnd.uniform(-jitter, jitter))
                t.state, t.sel, t.gen = 'run', st[2], t.gen + 1
                t.end = now + L
                push(t.end, 'done', t, t.gen)
                return
            if st[0] == 'lock':
                # gt_futex's lock_take(): after a wait it takes the lock as 2
                if lock['v'] == 0:
                    lock['v'] = 2 if t.state == 'waking' else 1
                else:
                    lock['v'] = 2
                    block(t, now, lock['q'])
                    return
            elif st[0] == 'unlock':
                old = lock['v']
                lock['v'] -= 1
                if old != 1:
                    lock['v'] = 0
                    if lock['q']:
                        wake(t, lock['q'].pop(0), now)
            elif st[0] == 'put':
                if pipe['n'] >= cap:
                    block(t, now, pipe['wq'])
                    return
                pipe['n'] += 1
                if pipe['rq']:
                    wake(t, pipe['rq'].pop(0), now)
            elif st[0] == 'get':
                if pipe['n'] == 0:
                    block(t, now, pipe['rq'])
                    return
                pipe['n'] -= 1
                if pipe['wq']:
                    wake(t, pipe['wq'].pop(0), now)
            elif st[0] == 'progress':
                count[0] += 1
                if prof and visit:
                    t.local += visit
                    G[0] = max(G[0], t.local - t.lag)
                if prof and trap:
                    # the uprobe's trap: time in the kernel, no sample hits
                    t.step = (t.step + 1) % len(script[t.i])
                    t.state, t.sel, t.gen = 'trap', False, t.gen + 1
                    push(now + trap, 'trapped', t, t.gen)
                    return
            t.step = (t.step + 1) % len(script[t.i])

    def due(t):
        # wake_due(): with spinning, a woken thread's own debt only
        return owed(t) - (t.keep if t.woken and spin_max else 0.0)

    def pay(t, now, resume):
        """settle(): one payment, or back to work."""
        d = due(t)
        if d >= t.least:
            amount = min(d, max_pause)
            if amount < spin_max and t.woken:
                asked, slept = amount, amount
            else:
                asked = amount - min(late[0], amount / 2)
                slept = asked + Lp * (1 + rnd.uniform(-Lj, Lj))
            t.state, t.gen = 'paying', t.gen + 1
            push(now + slept, 'paid', t, t.gen, asked, slept, resume)
            return
        if resume is None:
            advance(t, now)
        else:
            t.state, t.gen = 'run', t.gen + 1
            t.end = now + resume
            push(t.end, 'done', t, t.gen)

    for t in ths:
        push(rnd.uniform(0, 0.1), 'go', t, t.gen)
    last_tick = [None] * len(ths)
    for c in range(len(ths)):
        push(rnd.uniform(0, P), 'tick', c)
    while evq:
        now, _, kind, a = heapq.heappop(evq)
        if now > dur:
            break
        if mark[0] is None and now > warm:
            mark[:] = [now, count[0], G[0]]
        if kind == 'tick':
            c = a[0]
            push(now + P, 'tick', c)
            if miss and rnd.random() < miss:
                continue
            w = P if last_tick[c] is None else now - last_tick[c]
            last_tick[c] = now
            t = ths[c]
            if not prof or t.state != 'run':
                continue
            if t.sel and speedup:
                d = w * speedup
                if G[0] - t.local > 2 * d:
                    t.local += d
                    G[0] += d
                else:
                    t.local += d
                    G[0] = max(G[0], t.local)
            t.woken = False
            t.least = least(t)
            if owed(t) >= t.least:
                pay(t, now, t.end - now)
            continue
        t = a[0]
        if a[1] != t.gen:
            continue
        if kind in ('go', 'trapped'):
            t.state = 'ready'
            advance(t, now)
        elif kind == 'done':
            t.step = (t.step + 1) % len(script[t.i])
            advance(t, now)
        elif kind == 'woken':
            t.woken = True
            t.least = least(t)
            if prof and due(t) >= t.least:
                pay(t, now, None)
            else:
                advance(t, now)
        elif kind == 'paid':
            asked, slept, resume = a[2:]
            if slept > asked:
                late[0] += (min(slept - asked, asked) - late[0]) / 8
            off = min(max(t.lag, 0.0), slept)
            t.lag -= off
            t.local += slept - off
            t.least = least(t)
            pay(t, now, resume)
    wall = dur - mark[0]
    n = count[0] - mark[1]
    return wall / n, (wall - (G[0] - mark[2])) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--prog', default='futex', choices=('futex', 'pipe'))
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--speedups', default='20,40,60')
    ap.add_argument('set', nargs='*', metavar='KEY=VALUE')
    a = ap.parse_args()
    kw = {'prog': a.prog}
    for kv in a.set:
        k, v = kv.split('=', 1)
        kw[k] = v if k == 'line' else float(v)
    for sp in (int(x) / 100 for x in a.speedups.split(',')):
        tr, pr = [], []
        for seed in range(a.seeds):
            t0, _ = run(0, prof=False, seed=seed, **kw)
            ts, _ = run(sp, prof=False, seed=seed, **kw)
            _, v0 = run(0, seed=seed, **kw)
            _, vs = run(sp, seed=seed, **kw)
            tr.append(100 * (1 - ts / t0))
            pr.append(100 * (1 - vs / v0))
        tr.sort()
        pr.sort()
        print(f"{a.prog} {kw.get('line', 'main')} {round(sp * 100)} %: truth {tr[len(tr) // 2]:.1f}  "
              f"predicted {pr[len(pr) // 2]:.1f} [{pr[0]:.1f}, {pr[-1]:.1f}]")


if __name__ == '__main__':
    main()
