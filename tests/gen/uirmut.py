#!/usr/bin/env python3
"""uirmut.py - break exactly one rule of a generated program, knowing the code check must give.

    uirmut.py SEED [NAME]      prints a mutant of generated program SEED and its code

As a module, mutants(prog, info, rng, n) returns up to n (name, Program, code) triples, each
a deep copy of prog (from uirgen.generate) with one rule broken; `uir check` must exit 1 with
`code` as its first diagnostic. The generator's Info says which accesses have which race-rule
role in which check, so each mutation can pick a place where the rule it breaks applies and
nothing else changes (offsets stay in bounds, so no E0301 comes first; the first stage with
an error is the one broken). Python 3 standard library only.
"""

import copy
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import uirast as A
import uirgen as G

# ---------------------------------------------------------------- helpers


def copy_prog(prog):
    return copy.deepcopy(prog)


def node(prog, orig):
    """The copy of orig (a node of the original program) in prog."""
    r = A.find_nid(prog, orig.nid)
    return r[0] if r else None


def find_let(prog, name):
    for s in A.walk_stmts(prog.stmts):
        if s.kind == 'let' and s.name == name:
            return s
    return None


def offset_slot(prog, info, holder):
    """(container, index) of the offset argument of an access holder in prog, following a
    `let o = OFF` that names a store's offset; container.args[index] is the offset."""
    h = node(prog, holder)
    if h is None:
        return None
    off = h.args[1]
    if off.op is None and off.text in info.offset_lets:
        let = find_let(prog, off.text)
        if let is not None:
            return let, None
    return h, 1


def get_off(slot):
    c, i = slot
    return c.expr if i is None else c.args[i]


def set_off(slot, e):
    c, i = slot
    if i is None:
        c.expr = e
    else:
        c.args[i] = e


def subst(e, name, repl):
    """A copy of e with atom `name` replaced by the text repl."""
    if e.op is None:
        return A.atom(repl) if e.text == name else A.atom(e.text)
    return A.Expr(op=e.op, args=[subst(a, name, repl) for a in e.args])


def fresh_name(prog, base):
    used = set()
    for s in A.walk_stmts(prog.stmts):
        if s.name:
            used.add(s.name)
    i = 0
    while '%s%d' % (base, i) in used:
        i += 1
    return '%s%d' % (base, i)


def skipped_really(prog, info, check, mem):
    """Whether mem is private to check's parallel loop in prog (an alloc homed there), which
    the generator may not have known (an alloc meant for several places used in one)."""
    if not mem.is_alloc or check.kind == 'phase':
        return False
    home = A.alloc_homes(prog).get(mem.name)
    if home is None:
        return False
    loops = [st for st, c in info.threads if c is check] + \
            [k[0] for k in info.kernels if k[3] is check]
    return any(A.find_nid(prog, st.nid)[0] is home for st in loops)


def accesses_in(info, check, mem):
    """Accesses of mem whose roles include check."""
    out = []
    for a in info.accesses:
        if a.mem is mem and any(c is check for c, _ in a.roles):
            out.append(a)
    return out


def role_in(a, check):
    for c, r in a.roles:
        if c is check:
            return r
    return None


def multi(check):
    """Whether the check's parallel loop has more than one iteration (else it passes)."""
    return check.p.maxv >= 1


def stored_in(info, check, mem):
    return any(a.kind != 'load' for a in accesses_in(info, check, mem))


def zero_lit(ty):
    return 'false' if ty == 'bool' else '0'


def top_insert(prog, stmt):
    prog.stmts.append(stmt)


# ---------------------------------------------------------------- race-rule mutations


def m_shift(prog, info, rng):
    """Shift one access's offset by 1 where another access of the same memory in the same
    check keeps the old form: E0503."""
    cands = []
    for a in info.accesses:
        if a.kind == 'atomic' or a.form is None:
            continue
        for c, r in a.roles:
            if r is None or r.kind != 'fixed' or not multi(c):
                continue
            others = [b for b in accesses_in(info, c, a.mem) if b is not a]
            if not others or not stored_in(info, c, a.mem) or c.cid in a.inone:
                continue
            if skipped_really(prog, info, c, a.mem) or accidental_one(prog, info, c, a.mem):
                continue
            if a.mem.size <= r.form.maxval() + 1:
                continue
            cands.append(a)
            break
    if not cands:
        return None
    a = rng.choice(cands)
    slot = offset_slot(prog, info, a.holder)
    if slot is None:
        return None
    set_off(slot, A.op('add', get_off(slot), '1'))
    return 'E0503'


def form_groups(prog, info):
    """(mem, form, check) for fixed forms of memories stored in a multi-iteration check."""
    seen = []
    for a in info.accesses:
        for c, r in a.roles:
            if r is not None and r.kind == 'fixed' and multi(c) and stored_in(info, c, a.mem) \
                    and not skipped_really(prog, info, c, a.mem):
                key = (a.mem, r.form, c)
                if key not in seen:
                    seen.append(key)
    return seen


def accesses_with_form(info, form):
    return [a for a in info.accesses if a.form is form]


def eq_guards(prog, holder, name):
    """The `if` statements around HOLDER (an access's statement, found by its nid) whose
    condition is `eq` with NAME (a parallel index) as an operand and which hold it in their
    then-part. `check` takes each as a one-thread branch (docs/language.md 7.5.2), also when the
    generator wrote it as a random condition (`if (eq (shr ...) t)`), so a mutation under one may
    break no rule: seeds 21769 (drop_digit) and 23084 (one_ne) expected E0502 of race-free
    mutants."""
    if name is None or not isinstance(holder, A.Stmt):
        return []

    def visit(stmts, path):
        for st in stmts:
            if st.nid is not None and st.nid == holder.nid:
                return path
            if st.kind == 'loop':
                r = visit(st.body, path)
            elif st.kind == 'if':
                c = st.cond
                guard = c is not None and c.op == 'eq' and any(x.is_atom() and x.text == name for x in c.args)
                r = visit(st.body, path + [st] if guard else path)
                if r is None and st.els is not None:
                    r = visit(st.els, path)
            else:
                r = None
            if r is not None:
                return r
        return None
    return visit(prog.stmts, []) or []


def accidental_one(prog, info, c, mem):
    """Whether an access of MEM in check C lies under an `if (eq X p)` of C's parallel index p
    (eq_guards()): the mutations of offsets leave such a memory alone (seed 44141: a shifted
    offset under `if (eq t g7)` expected E0503 of a race-free mutant)."""
    return any(eq_guards(prog, a.holder, a.names.get(c.p.uid)) for a in accesses_in(info, c, mem))


def m_drop_digit(prog, info, rng):
    """Remove the parallel index from every offset of one memory's form: E0502."""
    cands = []
    for mem, f, c in form_groups(prog, info):
        if f.guard and any(lp.uid == c.p.uid for lp in f.guard.sloops):
            continue
        if not any(t.loop.uid == c.p.uid for t in f.terms):
            continue
        if all(c.cid in a.inone for a in accesses_in(info, c, mem)):
            continue
        if any(c.p.uid in a.sloops for a in accesses_with_form(info, f)):
            continue
        if accidental_one(prog, info, c, mem):
            continue
        cands.append((mem, f, c))
    if not cands:
        return None
    mem, f, c = rng.choice(cands)
    for a in accesses_with_form(info, f):
        slot = offset_slot(prog, info, a.holder)
        if slot is None:
            return None
        name = a.names.get(c.p.uid)
        set_off(slot, subst(get_off(slot), name, '0'))
    return 'E0502'


def m_overlap(prog, info, rng):
    """Lower one digit's coefficient to another's, at every access of a form: E0501."""
    cands = []
    for mem, f, c in form_groups(prog, info):
        if f.guard or accidental_one(prog, info, c, mem):
            continue
        ds = [t for t in f.terms if t.loop.uid in c.loops and t.dmax() >= 1 and
              t.loop.lit is not None]
        near = set()
        for acc in accesses_with_form(info, f):
            near |= acc.sloops
        for a in ds:
            for b in ds:
                if a.coef < b.coef and a is not b and not {a.loop.uid, b.loop.uid} & near:
                    cands.append((f, a, b))
    if not cands:
        return None
    f, a, b = rng.choice(cands)
    for acc in accesses_with_form(info, f):
        slot = offset_slot(prog, info, acc.holder)
        if slot is None:
            return None
        name = acc.names.get(b.loop.uid)
        base = A.atom(name) if b.tr == 'id' else A.op(b.tr, name, str(b.d))
        set_off(slot, A.op('add', get_off(slot), A.op('mul', base, str(a.coef - b.coef))))
    return 'E0501'


def m_one_ne(prog, info, rng):
    """Turn a one-thread branch `if (eq p C)` into `if (ne p C)`: E0502."""
    cands = []
    for st, c, cval in info.onebranches:
        if not multi(c):
            continue
        inside = {id(x) for x in A.walk_stmts(st.body)}
        ok = False
        for a in info.accesses:
            r = role_in(a, c)
            if r is None or r.kind != 'one' or a.kind == 'load':
                continue
            if skipped_really(prog, info, c, a.mem):
                continue
            h = a.holder
            if isinstance(h, A.Stmt) and id(h) in inside and \
                    not [g for g in eq_guards(prog, h, a.names.get(c.p.uid)) if g.nid != st.nid]:
                ok = True
        if ok:
            cands.append(st)
    if not cands:
        return None
    st = node(prog, rng.choice(cands))
    st.cond.op = 'ne'
    return 'E0502'


def m_atomic_ops(prog, info, rng):
    """Change one of two atomic updates of one memory to another op: E0503."""
    cands = []
    for a in info.accesses:
        if a.kind != 'atomic':
            continue
        for c, r in a.roles:
            if r is None or r.kind != 'atomic' or r.form is None or not multi(c):
                continue
            if not G.Gen.determines(None, r.form, c) or skipped_really(prog, info, c, a.mem):
                continue
            others = [b for b in accesses_in(info, c, a.mem) if b is not a]
            if others:
                cands.append(a)
                break
    if not cands:
        return None
    a = rng.choice(cands)
    st = node(prog, a.holder)
    cur = st.op.split('.')[1]
    st.op = 'atomic.' + rng.choice([o for o in ('add', 'min', 'max') if o != cur])
    return 'E0503'


# ---------------------------------------------------------------- axis mutations


def any_buffer(info, rng):
    return rng.choice(info.mems)


def m_store_in_block(prog, info, rng):
    if not info.kernels:
        return None
    gl = node(prog, rng.choice(info.kernels)[0])
    m = any_buffer(info, rng)
    if m.ty in G.INTS and rng.random() < 0.3:
        st = A.Stmt('atomic', op='atomic.add', args=[A.atom(m.name), A.atom('0'), A.atom('1')])
    else:
        st = A.Stmt('store', op='store', args=[A.atom(m.name), A.atom('0'), A.atom(zero_lit(m.ty))])
    if rng.random() < 0.3:
        st = A.Stmt('loop', name=fresh_name(prog, 'zl'), bound=A.atom('2'), body=[st])
    gl.body.insert(rng.randrange(len(gl.body) + 1), st)
    return 'E0403'


def empty_loop(prog, bound, axis):
    return A.Stmt('loop', name=fresh_name(prog, 'zq'), bound=A.atom(str(bound)), axis=axis, body=[])


def m_bad_nesting(prog, info, rng):
    """A parallel loop where the axis rules forbid it: E0401."""
    opts = ['local_top']
    if info.threads:
        opts += ['in_thread']
    if info.kernels:
        opts += ['global_in_global', 'thread_in_phase', 'local_in_local', 'local_in_if']
    k = rng.choice(opts)
    if k == 'local_top':
        top_insert(prog, empty_loop(prog, rng.choice([1, 4, 32]), 'local'))
    elif k == 'in_thread':
        th = node(prog, rng.choice(info.threads)[0])
        th.body.insert(0, empty_loop(prog, 2, rng.choice(['thread', 'global', 'local'])))
    elif k == 'global_in_global':
        # inside a plain loop: a global loop directly in a global body alone would be a 2-D
        # grid (docs/language.md 6.5), which is valid
        gl = node(prog, rng.choice(info.kernels)[0])
        inner = empty_loop(prog, 2, rng.choice(['global', 'thread']))
        gl.body.insert(0, A.Stmt('loop', name=fresh_name(prog, 'zp'), bound=A.atom('1'), body=[inner]))
    elif k == 'thread_in_phase':
        kern = rng.choice(info.kernels)
        ph = node(prog, rng.choice(kern[2]))
        ph.body.insert(0, empty_loop(prog, 2, rng.choice(['thread', 'global'])))
    elif k == 'local_in_local':
        # inside a plain loop: a local loop directly in a local body alone would be a 2-D
        # block (docs/language.md 6.5), which is valid
        kern = rng.choice(info.kernels)
        ph = node(prog, rng.choice(kern[2]))
        inner = empty_loop(prog, kern[1], 'local')
        ph.body.insert(0, A.Stmt('loop', name=fresh_name(prog, 'zp'), bound=A.atom('1'), body=[inner]))
    else:
        kern = rng.choice(info.kernels)
        ph = node(prog, rng.choice(kern[2]))
        r = A.find_nid(prog, ph.nid)
        lst = r[2]
        i = lst.index(ph)
        lst[i] = A.Stmt('if', cond=A.atom('true'), body=[ph], els=None)
    return 'E0401'


def m_bad_bound(prog, info, rng):
    """A bad unroll or local bound: E0402."""
    opts = ['unroll', 'unroll_product', 'unroll_expr']
    if info.kernels:
        opts += ['block_size', 'local_1025']
    k = rng.choice(opts)
    where = prog.stmts
    if k.startswith('unroll'):
        # anywhere: the top level, or the start of a loop body
        loops = [s for s in A.walk_stmts(prog.stmts) if s.kind == 'loop']
        if loops and rng.random() < 0.5:
            where = rng.choice(loops).body
        if k == 'unroll':
            st = empty_loop(prog, rng.choice([65, 0, -1, 100, 4097]), 'unroll')
        elif k == 'unroll_expr':
            st = empty_loop(prog, 1, 'unroll')
            st.bound = A.op('add', '1', '1')
        else:
            inner = empty_loop(prog, 2, 'unroll')
            mid = A.Stmt('loop', name=fresh_name(prog, 'zm'), bound=A.atom('64'), axis='unroll', body=[inner])
            st = A.Stmt('loop', name=fresh_name(prog, 'zo'), bound=A.atom('64'), axis='unroll', body=[mid])
            inner.name = fresh_name(prog, 'zi')
        where.insert(0, st)
        return 'E0402'
    kern = rng.choice(info.kernels)
    gl = node(prog, kern[0])
    B = kern[1]
    if k == 'block_size':
        b2 = rng.choice([b for b in (1, 2, 3, 16, 64, 1024) if b != B])
    else:
        b2 = rng.choice([1025, 0, -4])
    gl.body.insert(rng.randrange(len(gl.body) + 1), empty_loop(prog, b2, 'local'))
    return 'E0402'


# ---------------------------------------------------------------- other stages


def m_certain_fault(prog, info, rng):
    """An access that certainly runs and certainly faults, at the top level: E0301."""
    m = any_buffer(info, rng)
    n = m.size
    v = zero_lit(m.ty)
    k = rng.randrange(6)
    if k == 0:
        st = A.Stmt('store', op='store', args=[A.atom(m.name), A.atom(str(n)), A.atom(v)])
    elif k == 1:
        st = A.Stmt('let', name=fresh_name(prog, 'zf'), expr=A.op('load', m.name, '-1'))
    elif k == 2:
        lname = fresh_name(prog, 'zl')
        st = A.Stmt('loop', name=lname, bound=A.atom('3'), body=[
            A.Stmt('store', op='store', args=[A.atom(m.name), A.op('add', lname, str(n - 1)), A.atom(v)])])
    elif k == 3 and m.ty != 'bool':
        st = A.Stmt('store', op='store.4', args=[A.atom(m.name), A.atom(str(max(n - 3, 0) if n >= 4 else n)),
                                                 A.op('splat.4', v)])
        if n < 4:
            st.args[1] = A.atom('0')
    elif k == 4:
        st = A.Stmt('let', name=fresh_name(prog, 'zf'), expr=A.op('load.2', m.name, str(n - 1)))
    else:
        st = A.Stmt('let', name=fresh_name(prog, 'zf'), expr=A.op('load', m.name, str(n + 1000)))
    top_insert(prog, st)
    return 'E0301'


BINOPS = {'add', 'sub', 'mul', 'div', 'mod', 'min', 'max', 'and', 'or', 'xor', 'shl', 'shr',
          'lt', 'le', 'gt', 'ge', 'eq', 'ne'}


def other_type_lit(ty, w):
    """A typed scalar literal of a type other than ty (any scalar differs from a vector)."""
    choices = [t for t in G.TYPES if t != ty or w]
    t = random.choice(choices)
    if t == 'bool':
        return 'true'
    if t in G.FLOATS:
        return '1.5:' + t
    return '1:' + t


def m_type(prog, info, rng):
    """An operand of another type: E0201."""
    cands = [e for e in info.ops if e.op in BINOPS and len(e.args) == 2 and
             not e.args[0].meta.get('untyped') and 'ty' in e.args[0].meta]
    if not cands or rng.random() < 0.15:
        # a stored value of the wrong type
        sts = [a.holder for a in info.accesses if a.kind == 'store' and a.width == 0]
        if not sts:
            return None
        h = rng.choice(sts)
        st = node(prog, h)
        random.seed(rng.random())
        st.args[2] = A.atom(other_type_lit(h.args[0] and info_mem_ty(info, h), 0))
        return 'E0201'
    e = rng.choice(cands)
    ty = e.args[0].meta['ty']
    w = e.args[0].meta.get('w', 0)
    random.seed(rng.random())
    n = node(prog, e)
    n.args[1] = A.atom(other_type_lit(ty, w))
    return 'E0201'


def info_mem_ty(info, holder):
    name = holder.args[0].text
    for m in info.mems:
        if m.name == name:
            return m.ty
    return 'i32'


def m_op(prog, info, rng):
    """An unknown op or a wrong operand count: E0202."""
    cands = [e for e in info.ops if e.op in BINOPS]
    if not cands:
        return None
    n = node(prog, rng.choice(cands))
    if n is None:
        return None
    k = rng.randrange(3)
    if k == 0:
        n.op = rng.choice(['frob', 'addd', 'madd', 'add.4', 'pow'])
    elif k == 1:
        n.args.pop()
    else:
        n.args.append(n.args[0])
    return 'E0202'


def m_name(prog, info, rng):
    """An unknown name: E0102."""
    lets = [s for s in A.walk_stmts(prog.stmts) if s.kind == 'let']
    if not lets or rng.random() < 0.2:
        top_insert(prog, A.Stmt('let', name=fresh_name(prog, 'zn'), expr=A.op('add', 'nosuch_name', '1')))
        return 'E0102'
    s = rng.choice(lets)
    s.expr = A.op('add', 'nosuch_name', A.op('cast', 'i32', s.expr))
    return 'E0102'


def m_shadow(prog, info, rng):
    """A let that shadows a visible name: E0103."""
    loops = [s for s in A.walk_stmts(prog.stmts) if s.kind == 'loop']
    if loops and rng.random() < 0.7:
        lp = rng.choice(loops)
        lp.body.insert(0, A.Stmt('let', name=lp.name, expr=A.atom('1')))
        return 'E0103'
    m = any_buffer(info, rng)
    top_insert(prog, A.Stmt('let', name=m.name, expr=A.atom('1')))
    return 'E0103'


def m_literal(prog, info, rng):
    """A literal that does not fit its type, or a bad size: E0203."""
    lits = [e for e in info.lit_nodes if ':' in e.text]
    if lits and rng.random() < 0.7:
        e = rng.choice(lits)
        ty = e.text.split(':')[1]
        n = node(prog, e)
        if ty in G.INTS:
            lo, hi = G.RANGE[ty]
            n.text = '%d:%s' % (rng.choice([hi + 1, lo - 1, hi * 4 + 3]), ty)
        elif ty == 'f32':
            n.text = rng.choice(['3.4028236e38:f32', '1e39:f32', '-1e40:f32'])
        elif ty == 'f64':
            n.text = rng.choice(['1.7976931348623159e308:f64', '1e309:f64'])
        else:
            return None
        return 'E0203'
    decls = [s for s in prog.stmts if s.kind == 'decl']
    d = rng.choice(decls)
    parts = d.text.split(' ')
    parts[3] = rng.choice(['0', '-1', '2147483648'])
    d.text = ' '.join(parts)
    return 'E0203'


def m_syntax(prog, info, rng):
    """A syntax error: E0101 (returned as extra text to append)."""
    k = rng.randrange(4)
    if k == 0:
        top_insert(prog, A.Stmt('raw', text='let loop = 1'))
    elif k == 1:
        top_insert(prog, A.Stmt('raw', text='let zz = add (load 1'))
    elif k == 2:
        top_insert(prog, A.Stmt('raw', text='loop zz 3 sideways {\n}'))
    else:
        top_insert(prog, A.Stmt('raw', text='if true {\n}\nelse {\n}'))
    return 'E0101'


MUTATIONS = {
    'shift_offset': m_shift, 'drop_digit': m_drop_digit, 'overlap': m_overlap,
    'one_ne': m_one_ne, 'atomic_ops': m_atomic_ops, 'store_in_block': m_store_in_block,
    'bad_nesting': m_bad_nesting, 'bad_bound': m_bad_bound, 'certain_fault': m_certain_fault,
    'type': m_type, 'op': m_op, 'name': m_name, 'shadow': m_shadow, 'literal': m_literal,
    'syntax': m_syntax,
}
# the race-rule mutations only apply to programs without --strict forms of the extensions
WEIGHTS = {'shift_offset': 4, 'drop_digit': 4, 'overlap': 4, 'one_ne': 2, 'atomic_ops': 2,
           'store_in_block': 2, 'bad_nesting': 2, 'bad_bound': 2, 'certain_fault': 2,
           'type': 2, 'op': 1, 'name': 1, 'shadow': 1, 'literal': 2, 'syntax': 1}


def mutants(prog, info, rng, n, names=None):
    """Up to n mutants of prog: a list of (mutation name, Program, expected code)."""
    out = []
    pool = list(names or MUTATIONS)
    tries = 0
    while len(out) < n and tries < 4 * n + 8:
        tries += 1
        name = rng.choices(pool, [WEIGHTS[p] for p in pool])[0]
        p = copy_prog(prog)
        try:
            code = MUTATIONS[name](p, info, rng)
        except (IndexError, ValueError):
            code = None
        if code is None:
            continue
        p.header = prog.header + ['# mutant %s: check must report %s' % (name, code)]
        out.append((name, p, code))
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: uirmut.py SEED [MUTATION]\n')
        return 64
    seed = int(argv[1])
    names = [argv[2]] if len(argv) > 2 else None
    prog, info = G.generate(seed)
    ms = mutants(prog, info, random.Random(seed), 1, names)
    if not ms:
        sys.stderr.write('no mutant applies\n')
        return 1
    name, p, code = ms[0]
    sys.stdout.write(p.text())
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
