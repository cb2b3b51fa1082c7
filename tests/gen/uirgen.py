#!/usr/bin/env python3
"""uirgen.py - random valid .uir programs from a seed, valid by construction.

    uirgen.py SEED [--kernel-form | --general] [--strict] [--casts | --no-casts]

prints one program. As a module, generate(seed, mode=None, strict=None, casts=None) returns
(Program, Info): the syntax tree (uirast.py) and what the generator knows about it (every
memory access with the race-rule role it was given in each checked code, the checks, the
kernels and phases, the typed op nodes), which the mutator (uirmut.py) uses to break exactly
one rule. Python 3 standard library only; the same seed always gives the same program.

How validity is kept (docs/language.md section 7). Every parallel loop opens a *check* (thread
check, kernel check, phase check). Within one check each memory gets a *role* at its first access:
  ro       only loads, at any in-bounds offset;
  fixed    loads and stores at one offset *form*, a unique number whose digits determine the
           check's parallel index (built once, rendered in varied but equal normal forms);
  atomic   only one atomic.OP, at any in-bounds offset;
  one      accessed only in then-branches of `if (eq p C)` with one C, offsets without p.
Memory private to a check (allocs homed in a thread loop; shared memory in the kernel check)
is skipped. An access must satisfy every enclosing check, or it is not generated. Offsets
are in bounds for every index value, so no generated program faults.
"""

import math
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import uirast as A

# Features that can be turned off (difftest.py --avoid NAME) while a bug they trigger is
# open, so that a long run finds other bugs. All on by default.
KNOBS = {
    'phase_names': True,   # phases of one kernel name their index differently (t, u, ...)
    'guard_wide': True,    # guards `lt x C` with C - 1 above the largest value of S
    'guard_p1': True,      # guarded sums p + 1*k in checks whose p has one iteration
    'kernel_one': True,    # one-block branches `if (eq g C)` inside phases
    'loop_names': True,    # loops in different phases sharing a name and bound (one index)
    'underscore_names': True,  # names such as _Bool and __device__ (reserved in C)
    'macro_names': True,   # names that are macros of <cmath> under g++ (M_PI, MAXFLOAT)
}

# ---------------------------------------------------------------- types and literals

TYPES = ['bool', 'i8', 'u8', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64']
INTS = ['i8', 'u8', 'i32', 'u32', 'i64', 'u64']
FLOATS = ['f32', 'f64']
NUMS = INTS + FLOATS
BYTES = {'bool': 1, 'i8': 1, 'u8': 1, 'i32': 4, 'u32': 4, 'f32': 4, 'i64': 8, 'u64': 8,
         'f64': 8}
RANGE = {'i8': (-128, 127), 'u8': (0, 255), 'i32': (-2 ** 31, 2 ** 31 - 1),
         'u32': (0, 2 ** 32 - 1), 'i64': (-2 ** 63, 2 ** 63 - 1), 'u64': (0, 2 ** 64 - 1)}
WIDTHS = [2, 4, 8, 16]
# cast runs (gen_castrun): the share of seeds that have them (a generator of their own
# decides; generate(casts=True) for every seed), and the types of their chains
CAST_SHARE = 0.25
CHAIN_SRCS = ['i8'] * 4 + ['i32'] * 3 + ['i64', 'u8', 'u32', 'u64', 'bool', 'f32', 'f64']
CHAIN_MIDS = ['u32'] * 3 + ['u64'] * 3 + ['i32', 'i64', 'i8', 'u8']
CHAIN_DSTS = ['f32'] * 4 + ['f64'] * 4 + ['u8', 'i8', 'u32', 'i32', 'u64', 'i64']

INT_EDGES = {
    'i8': [-128, 127, -1, 0, 1, 2, 7, 8, 100, -100],
    'u8': [0, 1, 2, 7, 8, 127, 128, 254, 255],
    'i32': [-2 ** 31, 2 ** 31 - 1, -1, 0, 1, 2, 3, 31, 32, 33, 255, 65536, -65536, 1000000007],
    'u32': [0, 1, 2, 31, 32, 33, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 65535],
    'i64': [-2 ** 63, 2 ** 63 - 1, -1, 0, 1, 63, 64, 65, 2 ** 32, -2 ** 32, 2 ** 53 + 1],
    'u64': [0, 1, 63, 64, 65, 2 ** 63, 2 ** 64 - 1, 2 ** 32, 2 ** 53 + 1],
}
F32_EDGES = ['0.0', '-0.0', '1.0', '-1.0', '0.5', '0.1', '-2.5', '3.5', '7.0',
             '3.4028234663852886e38', '-3.4028234663852886e38', '3.4028235e38',
             '1.1754943508222875e-38', '1.401298464324817e-45', '1e-40', '1e-46',
             '16777216.0', '16777217.0', '2147483648.0', '-2147483904.0', '4294967296.0',
             '9.223372036854775807e18', '1.8446744073709552e19', '255.5', '-128.5',
             '65504.0', '1e10', '-1e-10', '0.3333333333333333', 'inf', '-inf', 'nan']
F64_EDGES = ['0.0', '-0.0', '1.0', '-1.0', '0.1', '0.5', '2.5', '-3.5',
             '1.7976931348623157e308', '-1.7976931348623157e308', '2.2250738585072014e-308',
             '5e-324', '4.9406564584124654e-324', '9007199254740993.0', '9.223372036854775807e18',
             '-9.223372036854775808e18', '1.8446744073709552e19', '4294967295.5',
             '-2147483648.5', '1e300', '-1e-300', '3.4028235677973366e38', '1e-45',
             '0.30000000000000004', 'inf', '-inf', 'nan']

# Names that are keywords or predefined in C, C++ or CUDA but not reserved in .uir: a
# renderer must rename them (docs/language.md 8.5.1).
RESERVED = set('''buffer alloc let store loop if else atomic thread global local unroll bool
i8 u8 i32 u32 i64 u64 f32 f64 add sub mul div mod neg abs min max fma lt le gt ge eq ne and or
xor not shl shr select sqrt recip exp2 log2 sin cos floor ceil trunc cast bitcast load vec
splat lane zeros fill iota random file inf nan true false'''.split())

C_NAMES = ['int', 'char', 'float', 'double', 'long', 'short', 'unsigned', 'signed', 'void',
           'const', 'static', 'extern', 'register', 'volatile', 'struct', 'union', 'enum',
           'typedef', 'sizeof', 'switch', 'case', 'default', 'for', 'while', 'do', 'goto',
           'return', 'break', 'continue', 'inline', 'restrict', 'class', 'new', 'delete',
           'template', 'this', 'namespace', 'operator', 'private', 'public', 'virtual',
           'friend', 'try', 'catch', 'throw', 'using', 'typename', 'nullptr', 'explicit',
           'mutable', 'threadIdx', 'blockIdx', 'blockDim', 'gridDim', 'warpSize',
           '__syncthreads', 'main', 'printf', 'malloc', 'free', 'exit', 'NULL', 'errno',
           'int32_t', 'uint8_t', 'size_t', 'kernel', 'memset', 'sqrtf', 'fabs', 'stdin',
           'INT_MAX', 'M_PI', '_Bool', 'asm', 'auto', 'export', 'noexcept', 'constexpr',
           'static_assert', 'thread_local', 'decltype', 'alignas', '_Complex', '_Atomic',
           '_Generic', '_Noreturn', '_Alignas', '_Thread_local', '_Imaginary', '__restrict',
           '__inline', '__global__', '__device__', '__shared__', 'uint32_t', 'int64_t',
           'float4', 'dim3', 'std', 'isnan', 'fmaf', 'INFINITY', 'NAN', 'assert', 'pthread_t',
           'M_E', 'M_LN2', 'MAXFLOAT', 'HUGE_VAL', 'EOF', 'RAND_MAX', 'unix', 'linux']


def lit_int(rng, ty, v, typed, hexok=True):
    """The text of integer literal v in type ty (typed: with its :ty suffix). A hex literal
    gives the bit pattern of its type."""
    lo, hi = RANGE[ty] if ty in RANGE else (-2 ** 31, 2 ** 31 - 1)
    assert lo <= v <= hi, (ty, v)
    if hexok and ty in RANGE and rng.random() < 0.15:
        bits = 8 * BYTES[ty]
        pat = v & ((1 << bits) - 1)
        # a pattern with the top bit set in a signed type reads as negative: fine (docs/language.md
        # 2.6.7)
        txt = '0x%X' % pat if rng.random() < 0.5 else '0x%x' % pat
        if v < 0 and rng.random() < 0.3 and -v <= hi:
            txt = '-0x%X' % -v
    else:
        txt = str(v)
    return txt + (':' + ty if typed else '')


def float_text(rng, ty):
    """A decimal float literal text that is finite-or-special in ty and never rounds to
    infinity."""
    r = rng.random()
    if r < 0.45:
        return rng.choice(F32_EDGES if ty == 'f32' else F64_EDGES)
    if r < 0.7:
        return repr(float(rng.randint(-20, 20)) / rng.choice([1, 2, 4, 8, 3, 10]))
    mag = rng.uniform(-30, 30) if ty == 'f32' else rng.uniform(-300, 300)
    v = rng.choice([-1, 1]) * rng.random() * 10.0 ** mag
    return repr(v)


# ---------------------------------------------------------------- generator state


class Mem:
    """A buffer or alloc. intent: None (usable anywhere) or the uid of the segment (thread
    loop or kernel) that is its home. const: never stored anywhere (an input)."""

    def __init__(self, uid, name, ty, size, is_alloc, intent, const, init):
        self.uid = uid
        self.name = name
        self.ty = ty
        self.size = size
        self.is_alloc = is_alloc
        self.intent = intent
        self.const = const
        self.init = init
        self.values = None  # known element values (const i32 buffers with a list)


class Loop:
    """A loop in scope: uid (shared by all phases of one kernel), its current name, literal
    bound (or None), the largest index value, and its axis."""

    def __init__(self, uid, name, lit, maxv, axis):
        self.uid = uid
        self.name = name
        self.lit = lit
        self.maxv = maxv
        self.axis = axis


class Check:
    """A checked code (docs/language.md 7.1) with parallel index loop p."""

    def __init__(self, cid, kind, p):
        self.cid = cid
        self.kind = kind  # 'thread', 'kernel' or 'phase'
        self.p = p
        self.loops = {p.uid}
        self.roles = {}
        self.skipped = set()


class Role:
    def __init__(self, kind, form=None, op=None, c=None):
        self.kind = kind  # 'ro', 'fixed', 'atomic', 'one'
        self.form = form
        self.op = op
        self.c = c


class Term:
    """One digit of a form: coef * (index | div index d | mod index d)."""

    def __init__(self, loop, tr, d, coef):
        self.loop = loop
        self.tr = tr
        self.d = d
        self.coef = coef

    def dmax(self):
        n = self.loop.maxv + 1
        if self.tr == 'id':
            return n - 1
        if self.tr == 'div':
            return (n - 1) // self.d
        return min(self.d, n) - 1


class Guard:
    """An active guarded sum `if (lt x C)`, x = S + L with S = p + P*k (or just p)."""

    def __init__(self, gid, xname, sloops, lit, c):
        self.gid = gid
        self.xname = xname
        self.sloops = sloops  # the loops whose indices make up S
        self.lit = lit
        self.c = c


class Form:
    """An offset c0 + sum of digit terms + uniform terms (+ m * guarded sum) for accesses
    of `width` elements (0 for scalar)."""

    def __init__(self, terms, c0, uni, guard, m, width):
        self.terms = terms
        self.c0 = c0
        self.uni = uni  # list of (render function, largest value, loop uids needed)
        self.guard = guard
        self.m = m
        self.width = width

    def maxval(self):
        v = self.c0 + sum(t.coef * t.dmax() for t in self.terms)
        v += sum(u[1] for u in self.uni)
        if self.guard:
            v += self.m * (self.guard.c - 1)
        return v + max(self.width, 1) - 1

    def req(self):
        r = {t.loop.uid for t in self.terms}
        for u in self.uni:
            r |= set(u[2])
        if self.guard:
            r.add(self.guard.gid)
        return r


class Access:
    """One generated access, for the mutator: the node holding the offset (a Stmt for a
    store or atomic, an Expr for a load), mem, kind ('load', 'store', 'atomic'), and for
    each enclosing check where mem is not skipped, (check, role) at the time."""

    def __init__(self, holder, mem, kind, width, roles, form):
        self.holder = holder
        self.mem = mem
        self.kind = kind
        self.width = width
        self.roles = roles
        self.form = form


class Info:
    """What the generator knows about its program (see the module text)."""

    def __init__(self):
        self.mems = []
        self.checks = []
        self.accesses = []
        self.kernels = []  # (global loop Stmt, block size, [phase Stmts], kernel Check)
        self.threads = []  # (thread loop Stmt, Check)
        self.onebranches = []  # (if Stmt, Check, C)
        self.ops = []  # typed op Exprs (meta ty, w)
        self.lit_nodes = []  # typed literal atoms (meta ty)
        self.offset_lets = set()  # names of lets that hold one store's offset
        self.mode = None
        self.casts = False
        self.strict = False
        self.extensions = False


class Env:
    """The generator's scope while it walks down: values, loops, checks and branches."""

    def __init__(self):
        self.vals = []  # (name, ty, w, loop or None, uniform_ok)
        self.loops = []
        self.checks = []
        self.one = {}  # cid -> C of the active one-thread branch
        self.guards = []
        self.mult = 1
        self.unroll = 1
        self.ctx = 'top'
        self.seg = None
        self.pref = None  # in a cast run: hi -> the offset free_offset gives first, or None
        self.csrc = None  # in a cast run: its input memory, loaded first
        self.low = None  # in a cast run: its loop, the lowest digit of the forms it makes

    def loop_by_uid(self, uid):
        for lp in reversed(self.loops):
            if lp.uid == uid:
                return lp
        return None

    def in_scope(self, uids):
        have = {lp.uid for lp in self.loops} | {g.gid for g in self.guards}
        return set(uids) <= have


class Gen:
    """One program's generation from one seed."""

    def __init__(self, seed, mode=None, strict=None, casts=None):
        self.rng = random.Random(seed)
        rng = self.rng
        self.mode = mode or ('kernel' if rng.random() < 0.4 else 'general')
        self.strict = strict if strict is not None else (rng.random() < 0.15)
        # cast runs: drawn from a generator of their own, so that a seed without them makes
        # the program it made before they existed
        self.casts = casts if casts is not None else random.Random(seed * 1000003 + 15).random() < CAST_SHARE
        self.info = Info()
        self.info.casts = self.casts
        self.info.mode = self.mode
        self.info.strict = self.strict
        self.mems = []
        self.uid = 0
        self.names = set()
        self.cnames = list(C_NAMES)
        rng.shuffle(self.cnames)
        self.budget = rng.randint(12, 45)
        self.total_elems = 0
        self.env = Env()
        self.extensions = False
        self.last_store_mem = None  # the memory of gen_store's last store

    # ---------------------------------------------------------------- names and memories

    def fresh(self, prefix):
        """A new name, never used before in the program (so nothing shadows)."""
        if self.cnames and self.rng.random() < 0.06:
            n = self.cnames.pop()
            if n.startswith('_') and not KNOBS['underscore_names']:
                n = 'int'
            if n.startswith(('M_', 'MAXFLOAT')) and not KNOBS['macro_names']:
                n = 'float'
            if n not in self.names:
                self.names.add(n)
                return n
        while True:
            self.uid += 1
            n = '%s%d' % (prefix, self.uid)
            if n not in self.names and n not in RESERVED:
                self.names.add(n)
                return n

    def new_uid(self):
        self.uid += 1
        return self.uid

    def rand_init(self, ty, size):
        """The INIT text of a buffer of ty and size, or None for the default zeros."""
        rng = self.rng
        r = rng.random()
        if r < 0.15:
            return None
        if r < 0.25:
            return 'zeros'
        if r < 0.35:
            return 'fill ' + self.lit_text(ty, typed=rng.random() < 0.3)
        if r < 0.45:
            return 'iota'
        if r < 0.75 or size > 48:
            seed = rng.choice([0, 1, 3, 7, 42, 2 ** 32 - 1, rng.randint(0, 2 ** 32 - 1)])
            if ty == 'bool' or rng.random() < 0.5:
                return 'random %d' % seed
            if ty in INTS:
                lo, hi = RANGE[ty]
                a = rng.choice([lo, 0, -5, 1, rng.randint(lo, hi)])
                a = max(lo, min(hi, a))
                b = rng.choice([hi + 1, a + 1, a + 2, a + 17, a + 1000, rng.randint(a + 1, hi + 1)])
                b = max(a + 1, min(hi + 1, b))
                return 'random %d %d %d' % (seed, a, b)
            a = rng.choice([-1.0, 0.0, -100.0, 1e-3, -1e30, 0.5])
            b = a + rng.choice([1.0, 2.0, 0.25, 1e6, 1e30])
            if b <= a:
                b = a + abs(a)
            return 'random %d %r %r' % (seed, a, b)
        vals = [self.lit_text(ty, typed=False, list_ctx=True) for _ in range(size)]
        return '[' + ' '.join(vals) + ']'

    def new_mem(self, ty, size, is_alloc=False, intent=None, const=False):
        """Declare a new buffer or alloc; returns the Mem."""
        name = self.fresh('a' if is_alloc else 'b')
        init = None if is_alloc else self.rand_init(ty, size)
        m = Mem(self.new_uid(), name, ty, size, is_alloc, intent, const, init)
        self.mems.append(m)
        if not is_alloc:
            self.total_elems += size
        return m

    def new_const_i32(self):
        """A const i32 buffer with a known list of small values (loop bounds, offsets)."""
        rng = self.rng
        n = rng.randint(1, 6)
        vals = [rng.randint(0, 6) for _ in range(n)]
        m = Mem(self.new_uid(), self.fresh('c'), 'i32', n, False, None, True,
                '[' + ' '.join(str(v) for v in vals) + ']')
        m.values = vals
        self.mems.append(m)
        self.total_elems += n
        return m

    # ---------------------------------------------------------------- literals

    def lit_text(self, ty, typed, list_ctx=False):
        """A literal of type ty (any edge value)."""
        rng = self.rng
        if ty == 'bool':
            t = rng.choice(['true', 'false'])
            return t + (':bool' if typed and rng.random() < 0.3 else '')
        if ty in INTS:
            lo, hi = RANGE[ty]
            r = rng.random()
            if r < 0.5:
                v = rng.choice(INT_EDGES[ty])
            elif r < 0.85:
                v = max(lo, min(hi, rng.randint(-20, 40)))
            else:
                v = rng.randint(lo, hi)
            return lit_int(rng, ty, v, typed)
        # floats; an untyped integer literal may become a float (docs/language.md 2.6.5)
        if not typed and not list_ctx and rng.random() < 0.15:
            v = rng.choice([0, 1, -1, 3, 16777217, 2 ** 53 + 1, -2 ** 31, 2 ** 63 - 1, 255])
            return str(v)
        t = float_text(rng, ty)
        return t + (':' + ty if typed else '')

    def lit(self, ty, may_untyped):
        typed = not may_untyped or self.rng.random() < 0.4
        e = A.atom(self.lit_text(ty, typed), ty=ty, w=0, untyped=not typed)
        if typed:
            self.info.lit_nodes.append(e)
        return e

    # ---------------------------------------------------------------- offsets

    def free_offset(self, hi, depth=0):
        """An i32 expression whose value is in 0..hi for every index value in scope (hi >= 0).
        Used where no race rule constrains the offset."""
        rng = self.rng
        env = self.env
        if env.pref is not None and rng.random() < 0.85:
            e = env.pref(hi)
            if e is not None:
                return e
        idx = [lp for lp in env.loops if lp.maxv >= 0]
        r = rng.random()
        if hi == 0 or r < 0.2 or (not idx and r < 0.6):
            return A.atom(str(rng.randint(0, hi)))
        if idx and r < 0.8:
            lp = rng.choice(idx)
            n1 = lp.maxv
            name = lp.name
            if n1 <= hi:
                s = rng.random()
                if s < 0.3:
                    return A.atom(name)
                if s < 0.5:
                    return A.op('add', name, str(rng.randint(0, hi - n1)))
                if s < 0.65:
                    return A.op('sub', str(n1 + rng.randint(0, hi - n1)), name)
                if s < 0.8 and n1 > 0 and hi // n1 >= 2:
                    k = rng.randint(2, hi // n1)
                    return A.op('mul', name, str(k)) if rng.random() < 0.5 else A.op('mul', str(k), name)
                if s < 0.9:
                    return A.op('div', name, str(rng.randint(1, 4)))
                return A.op('min', name, str(hi))
            s = rng.random()
            if s < 0.5:
                return A.op('mod', name, str(hi + 1))
            if s < 0.8:
                return A.op('min', name, str(hi))
            return A.op('div', name, str(n1 // hi + 1))
        if depth < 2 and rng.random() < 0.6:
            # data dependent, clamped
            x = self.expr('i32', 0, 2, may_untyped=False)
            s = rng.random()
            if s < 0.4:
                return A.op('min', A.op('max', x, '0'), str(hi))
            if s < 0.7 and hi >= 1:
                mask = (1 << (hi + 1).bit_length() - 1) - 1
                return A.op('and', x, str(mask)) if rng.random() < 0.5 else A.op('and', str(mask), x)
            y = self.expr(rng.choice(NUMS), 0, 2, may_untyped=False)
            return A.op('cast', 'i32', A.op('mod', A.op('cast', 'u32', y), '%d:u32' % (hi + 1)))
        return A.atom(str(rng.randint(0, hi)))

    def render_index(self, lp, tr, d):
        """One digit's base expression at the current site (names may differ per phase)."""
        rng = self.rng
        cur = self.env.loop_by_uid(lp.uid)
        name = cur.name
        if tr == 'id':
            if rng.random() < 0.04:
                return A.op('div', name, '1')
            return A.atom(name)
        p2 = d & (d - 1) == 0 and d > 1
        k = d.bit_length() - 1
        if tr == 'div':
            if p2 and rng.random() < 0.3:
                return A.op('shr', name, str(k))
            return A.op('div', name, str(d))
        if p2 and rng.random() < 0.3:
            return A.op('and', name, str(d - 1)) if rng.random() < 0.6 else A.op('and', str(d - 1), name)
        return A.op('mod', name, str(d))

    def scale(self, base, coef, is_index):
        """coef * base in one of several equal normal forms."""
        rng = self.rng
        if coef == 1:
            return base
        r = rng.random()
        if is_index and coef & (coef - 1) == 0 and r < 0.15:
            return A.op('shl', base, str(coef.bit_length() - 1))
        if r < 0.25 and coef >= 2:
            a = rng.randint(1, coef - 1)
            return A.op('add', A.op('mul', base, str(a)), A.op('mul', str(coef - a), base))
        if r < 0.32:
            a = rng.randint(1, 5)
            return A.op('sub', A.op('mul', base, str(coef + a)), A.op('mul', base, str(a)))
        if r < 0.6:
            return A.op('mul', str(coef), base)
        return A.op('mul', base, str(coef))

    def sum_parts(self, parts):
        """A random binary add tree over parts (a list of Expr; at least one)."""
        rng = self.rng
        parts = list(parts)
        while len(parts) > 1:
            i = rng.randrange(len(parts) - 1)
            a, b = parts[i], parts[i + 1]
            parts[i:i + 2] = [A.op('add', a, b) if rng.random() < 0.7 else A.op('add', b, a)]
        return parts[0]

    def render_form(self, f):
        """An Expr for form f at the current site."""
        rng = self.rng
        items = []  # (coef, base, is_index)
        for t in f.terms:
            b = self.render_index(t.loop, t.tr, t.d)
            items.append((t.coef, b, b.op is None))
        parts = []
        # sometimes factor a common literal out of several terms: mul (add ...) g
        if len(items) >= 2 and rng.random() < 0.25:
            g = 0
            for c, _, _ in items:
                g = math.gcd(g, c)
            if g > 1:
                inner = [self.scale(b, c // g, ix) for c, b, ix in items]
                parts.append(A.op('mul', self.sum_parts(inner), str(g)))
                items = []
        for c, b, ix in items:
            parts.append(self.scale(b, c, ix))
        if f.guard:
            g = f.guard
            x = A.atom(g.xname)
            if g.lit:
                if rng.random() < 0.5:
                    parts.append(self.scale(A.op('sub', x, str(g.lit)), f.m, False))
                else:
                    parts.append(A.op('sub', self.scale(x, f.m, False), str(f.m * g.lit)))
            else:
                parts.append(self.scale(x, f.m, False))
        for u in f.uni:
            parts.append(u[0]())
        rng.shuffle(parts)
        c0 = f.c0
        if not parts:
            if c0 and rng.random() < 0.2:
                a = rng.randint(0, c0)
                return A.op('add', str(a), str(c0 - a))
            return A.atom(str(c0))
        e = self.sum_parts(parts)
        r = rng.random()
        if c0 and r < 0.6:
            e = A.op('add', e, str(c0)) if rng.random() < 0.5 else A.op('add', str(c0), e)
        elif c0:
            k = rng.randint(1, 9)
            e = A.op('sub', A.op('add', e, str(c0 + k)), str(k))
        elif r < 0.05:
            e = A.op('add', e, '0')
        return e

    def build_form(self, cs, determine, exclude, width, cap):
        """A new form for an access under checks cs (outermost first): its digits determine
        the parallel index of every check in `determine`, hold no digit of the checks in
        `exclude`, and are a unique number in every check. None when it would not fit in cap
        elements."""
        rng = self.rng
        env = self.env
        outer = cs[0]
        w = max(width, 1)
        excl = {c.p.uid for c in exclude}
        guard = None
        # a guarded sum of the innermost check, when its S is made of digits of every check
        if env.guards and rng.random() < 0.7:
            g = env.guards[-1]
            if all(all(lp.uid in c.loops for lp in g.sloops) for c in cs) and \
                    not any(lp.uid in excl for lp in g.sloops):
                guard = g
        inS = {lp.uid for lp in guard.sloops} if guard else set()
        need = []
        for c in determine:
            if c.p.uid in inS:
                continue
            need.append(c.p)
        cand = [lp for lp in env.loops
                if lp.uid in outer.loops and lp.uid not in excl and lp.uid not in inS and
                lp.lit is not None and lp.lit >= 1 and
                all(lp.uid != n.uid for n in need)]
        for _ in range(6):
            terms = []
            top = []  # digits of indices whose bound is not a literal: the largest only
            for p in need:
                n = p.maxv + 1
                r = rng.random()
                if p.lit is None:
                    top.append(Term(p, 'id', 1, 0))
                elif r < 0.7 or n < 4:
                    terms.append([p, 'id', 1])
                elif r < 0.85:
                    terms.append([p, 'mod', rng.randint(n, n + 3)])
                else:
                    d = rng.randint(2, n - 1)
                    terms.append([p, 'div', d])
                    terms.append([p, 'mod', rng.randint(d, min(n + 2, 2 * d))])
            for lp in cand:
                if rng.random() < 0.45:
                    n = lp.maxv + 1
                    r = rng.random()
                    if r < 0.7 or n < 3:
                        terms.append([lp, 'id', 1])
                    elif r < 0.85:
                        terms.append([lp, 'div', rng.randint(2, n)])
                    else:
                        terms.append([lp, 'mod', rng.randint(2, n)])
            rng.shuffle(terms)
            run = env.low if env.low is not None and any(lp.uid == env.low.uid for lp in cand) else None
            if run is not None:
                # a cast run's loop: the lowest digit, so that its iterations are consecutive
                terms = [[run, 'id', 1]] + [t for t in terms if t[0].uid != run.uid]
            digits = [Term(lp, tr, d, 0) for lp, tr, d in terms]
            order = list(digits)
            if guard:
                order.insert(rng.randrange(len(order) + 1), 'G')
            order += top
            digits += top
            acc = w - 1
            m = 0
            for dg in order:
                low = acc + 1
                r = rng.random()
                if run is not None and dg is order[0] and dg != 'G' and dg.loop.uid == run.uid:
                    r = 0.0  # coefficient `low`: the width of the access
                if r < 0.55:
                    coef = low
                elif r < 0.8:
                    coef = 1 << (low - 1).bit_length() if low > 1 else 1
                else:
                    coef = low + rng.randint(1, 5)
                if dg == 'G':
                    m = coef
                    acc += coef * (guard.c - 1)
                else:
                    dg.coef = coef
                    acc += coef * max(dg.dmax(), 0)
            uni = []
            if rng.random() < 0.3:
                uni = self.uniform_terms(outer)
            c0 = rng.choice([0, 0, 0, 1, 2, rng.randint(0, 9)])
            f = Form(digits, c0, uni, guard, m, width)
            if f.maxval() < cap:
                return f
        return None

    def uniform_terms(self, outer):
        """Terms that are the same for every iteration of every active check: indices of loops
        outside them, and bits of loads of const memory."""
        rng = self.rng
        env = self.env
        out = []
        outside = [lp for lp in env.loops if lp.uid not in outer.loops and lp.maxv >= 0]
        if outside and rng.random() < 0.7:
            lp = rng.choice(outside)
            k = rng.randint(1, 3)
            uid = lp.uid
            out.append((lambda uid=uid, k=k: self.scale(A.atom(env.loop_by_uid(uid).name), k, True),
                        k * lp.maxv, [uid]))
        consts = [m for m in self.mems if m.const and m.ty in INTS]
        if consts and rng.random() < 0.5:
            m = rng.choice(consts)
            off = rng.randint(0, m.size - 1)
            mask = rng.choice([1, 3])

            def mk(m=m, off=off, mask=mask):
                ld = A.op('load', m.name, str(off), ty=m.ty, w=0)
                if m.ty != 'i32':
                    ld = A.op('cast', 'i32', ld)
                return A.op('and', ld, str(mask))
            out.append((mk, mask, []))
        return out

    # ---------------------------------------------------------------- race-rule roles

    def active(self, mem):
        """The enclosing checks where mem is not skipped."""
        return [c for c in self.env.checks if mem.uid not in c.skipped]

    def plan(self, mem, kind, width):
        """How to access mem here: (offset maker, role updates) or None when no offset
        satisfies every enclosing check. kind: 'load', 'store', 'atomic'."""
        env = self.env
        rng = self.rng
        if mem.size < max(width, 1):
            return None
        if kind != 'load' and mem.const:
            return None
        if kind == 'atomic' and (mem.ty not in INTS):
            return None
        hi = mem.size - max(width, 1)
        cs = self.active(mem)
        if kind == 'atomic' and self.strict and cs:
            return None
        if mem.const or not cs:
            return (lambda: self.free_offset(hi)), []
        roles = [c.roles.get(mem.uid) for c in cs]
        fixed = [r for r in roles if r and r.kind == 'fixed']
        if fixed:
            f = fixed[0].form
            if kind == 'atomic' or f.width != width or not env.in_scope(f.req()):
                return None
            upd = []
            for c, r in zip(cs, roles):
                if r is None:
                    if self.determines(f, c):
                        upd.append((c, Role('fixed', form=f)))
                    elif kind == 'load':
                        upd.append((c, Role('ro')))
                    elif c.cid in env.one and not self.strict:
                        upd.append((c, Role('one', c=env.one[c.cid])))
                    else:
                        return None
                elif r.kind == 'ro':
                    if kind != 'load':
                        return None
                elif r.kind == 'one':
                    if env.one.get(c.cid) != r.c:
                        return None
                elif r.kind == 'atomic':
                    return None
            return (lambda: self.render_form(f)), upd
        if any(r and r.kind == 'atomic' for r in roles):
            if kind != 'atomic':
                return None
            r0 = [r for r in roles if r and r.kind == 'atomic'][0]
            if any(r is not None and (r.kind != 'atomic' or r.op != r0.op) for r in roles):
                return None
            upd = [(c, r0) for c, r in zip(cs, roles) if r is None]
            if r0.form:
                if r0.form.width != width or not env.in_scope(r0.form.req()):
                    return None
                return (lambda: self.render_form(r0.form)), upd + [('op', r0.op)]
            return (lambda: self.free_offset(hi)), upd + [('op', r0.op)]
        if kind == 'atomic':
            if any(r is not None for r in roles):
                return None
            op = rng.choice(['add', 'add', 'min', 'max'])
            form = None
            if rng.random() < 0.6:
                form = self.build_form(cs, cs, [], width, mem.size)
            r0 = Role('atomic', op=op, form=form)
            upd = [(c, r0) for c in cs] + [('op', op)]
            self.extensions = True
            if form:
                return (lambda: self.render_form(form)), upd
            return (lambda: self.free_offset(hi)), upd
        # loads and stores with no fixed form yet
        if kind == 'load' and all(r is None or r.kind == 'ro' for r in roles):
            if any(r is not None for r in roles) or rng.random() < 0.75:
                return (lambda: self.free_offset(hi)), [(c, Role('ro')) for c, r in zip(cs, roles) if r is None]
        if any(r is not None and r.kind == 'ro' for r in roles):
            return None
        # every check is unassigned or 'one' with its branch active
        determine, exclude, upd_one = [], [], []
        for c, r in zip(cs, roles):
            if r is not None:  # 'one'
                if env.one.get(c.cid) != r.c:
                    return None
                exclude.append(c)
            elif c.cid in env.one and not self.strict and rng.random() < 0.6:
                exclude.append(c)
                upd_one.append((c, Role('one', c=env.one[c.cid])))
            else:
                determine.append(c)
        f = self.build_form(cs, determine, exclude, width, mem.size)
        if f is None:
            return None
        if f.guard:
            self.extensions = True
        if upd_one:
            self.extensions = True
        upd = upd_one + [(c, Role('fixed', form=f)) for c in determine]
        return (lambda: self.render_form(f)), upd

    def determines(self, f, c):
        """Whether form f holds digits that determine check c's parallel index."""
        uid = c.p.uid
        if f.guard and any(lp.uid == uid for lp in f.guard.sloops):
            return True
        trs = [(t.tr, t.d) for t in f.terms if t.loop.uid == uid]
        if ('id', 1) in trs:
            return True
        n = c.p.maxv + 1
        if any(tr == 'mod' and d >= n for tr, d in trs):
            return True
        divs = [d for tr, d in trs if tr == 'div']
        mods = [d for tr, d in trs if tr == 'mod']
        return any(e >= d for d in divs for e in mods)

    def access(self, mem, kind, width):
        """Plan and commit an access; returns the offset Expr and the Access record (whose
        holder the caller sets), or (None, None)."""
        pl = self.plan(mem, kind, width)
        if pl is None:
            return None, None
        mk, upd = pl
        op = None
        for c, r in upd:
            if c == 'op':
                op = r
                continue
            c.roles[mem.uid] = r
        if kind == 'atomic' and op is None:
            op = self.rng.choice(['add', 'min', 'max'])
        off = mk()
        cs = self.active(mem)
        roles = [(c, c.roles.get(mem.uid)) for c in cs]
        form = None
        for _, r in roles:
            if r and r.kind in ('fixed', 'atomic') and r.form:
                form = r.form
        acc = Access(None, mem, kind, width, roles, form)
        acc.op = op
        acc.names = {lp.uid: lp.name for lp in self.env.loops}
        acc.inone = set(self.env.one)  # checks whose one-thread branch holds this access
        acc.sloops = {lp.uid for g in self.env.guards for lp in g.sloops}  # guarded S digits
        self.info.accesses.append(acc)
        return off, acc

    # ---------------------------------------------------------------- expressions

    def loadable(self, ty):
        return [m for m in self.mems if m.ty == ty and self.usable(m)]

    def gen_load(self, ty, w, prefer=None):
        """A load of type ty and width w from one of (up to) four memories, PREFER first."""
        rng = self.rng
        mems = self.loadable(ty)
        rng.shuffle(mems)
        if prefer in mems:
            mems.remove(prefer)
            mems.insert(0, prefer)
        for m in mems[:4]:
            off, acc = self.access(m, 'load', w)
            if off is not None:
                e = A.op('load' if w == 0 else 'load.%d' % w, m.name, off, ty=ty, w=w)
                acc.holder = e
                return e
        return None

    def vals_of(self, ty, w):
        return [v for v in self.env.vals if v[1] == ty and v[2] == w]

    def leaf(self, ty, w, may_untyped):
        rng = self.rng
        if w == 0:
            r = rng.random()
            vs = self.vals_of(ty, 0)
            if r < 0.3 and vs:
                v = rng.choice(vs)
                return A.atom(v[0], ty=ty, w=0)
            if r < 0.45 and ty == 'i32' and self.env.loops:
                return A.atom(rng.choice(self.env.loops).name, ty=ty, w=0)
            if r < 0.75:
                e = self.gen_load(ty, 0)
                if e is not None:
                    return e
            return self.lit(ty, may_untyped)
        vs = self.vals_of(ty, w)
        r = rng.random()
        if r < 0.3 and vs:
            return A.atom(rng.choice(vs)[0], ty=ty, w=w)
        if r < 0.7:
            e = self.gen_load(ty, w)
            if e is not None:
                return e
        if ty == 'bool':
            a = self.expr(rng.choice(NUMS), w, 0, False)
            b = self.expr(a.meta['ty'], w, 0, True)
            return A.op(rng.choice(['lt', 'eq', 'ne', 'ge']), a, b, ty=ty, w=w)
        if rng.random() < 0.5:
            return A.op('splat.%d' % w, self.expr(ty, 0, 0, False), ty=ty, w=w)
        return self.vec(ty, w, 0)

    def vec(self, ty, w, depth):
        anchor = self.rng.randrange(w)
        lanes = [self.expr(ty, 0, depth, i != anchor) for i in range(w)]
        return A.op('vec', *lanes, ty=ty, w=w)

    def operands(self, n, ty, w, depth):
        anchor = self.rng.randrange(n)
        return [self.expr(ty, w, depth, i != anchor) for i in range(n)]

    def expr(self, ty, w, depth, may_untyped):
        """An expression of type ty and width w (0 scalar). may_untyped: the context gives
        the type, so a bare untyped literal is allowed here."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.leaf(ty, w, may_untyped)
        d = depth - 1
        choices = []
        if ty != 'bool':
            choices += ['arith'] * 5 + ['unary'] * 2 + ['select', 'cast', 'cast']
            if w == 0:
                choices += ['lane']
            if w > 0:
                choices += ['splat', 'vec']
            if BYTES[ty] in (1, 4, 8):
                choices += ['bitcast']
        if ty in INTS:
            choices += ['bits'] * 2 + ['shift'] * 2
        if ty in FLOATS:
            choices += ['math'] * 3 + ['fma']
        if ty == 'bool':
            choices += ['cmp'] * 5 + ['bits'] * 2 + ['select', 'cast']
        if self.casts and ty != 'bool':
            choices += ['chain'] * 2
        k = rng.choice(choices)
        if k == 'chain':
            return self.cast_chain(ty, w, d)
        e = None
        if k == 'arith':
            o = rng.choice(['add', 'sub', 'mul', 'div', 'mod', 'min', 'max'])
            e = A.op(o, *self.operands(2, ty, w, d))
        elif k == 'unary':
            e = A.op(rng.choice(['neg', 'abs']), self.expr(ty, w, d, False))
        elif k == 'math':
            o = rng.choice(['sqrt', 'recip', 'exp2', 'log2', 'sin', 'cos', 'floor', 'ceil', 'trunc'])
            e = A.op(o, self.expr(ty, w, d, False))
        elif k == 'fma':
            e = A.op('fma', *self.operands(3, ty, w, d))
        elif k == 'bits':
            o = rng.choice(['and', 'or', 'xor', 'not'])
            if o == 'not':
                e = A.op('not', self.expr(ty, w, d, False))
            else:
                e = A.op(o, *self.operands(2, ty, w, d))
        elif k == 'shift':
            e = A.op(rng.choice(['shl', 'shr']), *self.operands(2, ty, w, d))
        elif k == 'select':
            c = self.expr('bool', w, d, False)
            a, b = self.operands(2, ty, w, d)
            e = A.op('select', c, a, b)
        elif k == 'cast':
            src = rng.choice(TYPES)
            e = A.op('cast', ty, self.expr(src, w, d, False))
        elif k == 'bitcast':
            srcs = [t for t in NUMS if BYTES[t] == BYTES[ty]]
            e = A.op('bitcast', ty, self.expr(rng.choice(srcs), w, d, False))
        elif k == 'lane':
            kw = rng.choice(WIDTHS)
            e = A.op('lane', self.expr(ty, kw, d, False), str(rng.randrange(kw)))
        elif k == 'splat':
            e = A.op('splat.%d' % w, self.expr(ty, 0, d, False))
        elif k == 'vec':
            e = self.vec(ty, w, d)
            return e
        elif k == 'cmp':
            src = rng.choice(TYPES if rng.random() < 0.2 else NUMS)
            o = rng.choice(['lt', 'le', 'gt', 'ge', 'eq', 'ne']) if src != 'bool' else rng.choice(['eq', 'ne'])
            if src == 'bool' and w > 0:
                src = rng.choice(NUMS)
            e = A.op(o, *self.operands(2, src, w, d))
        e.meta.update(ty=ty, w=w)
        self.info.ops.append(e)
        return e

    def typed(self, e, ty, w):
        """E (an op node) with its type, recorded for the mutator."""
        e.meta.update(ty=ty, w=w)
        self.info.ops.append(e)
        return e

    def cast_chain(self, ty, w, depth=1):
        """A value of ty made by a chain of casts and bitcasts through narrow and unsigned
        integer types from a (mostly loaded, mostly signed and narrow) source, with now and
        then an op that leaves many sign bits (shr, neg, sub) on the way: the class where
        LLVM 19's SLP vectoriser dropped a sign extension under uitofp (docs/llvm.md,
        "Exact conversions")."""
        rng = self.rng
        focus = ty in FLOATS and rng.random() < 0.5
        src = rng.choice(['i8', 'i8', 'i32', 'i64'] if focus else CHAIN_SRCS)
        csrc = self.env.csrc
        if csrc is not None and self.usable(csrc) and rng.random() < 0.7:
            src = csrc.ty
        x = None
        if rng.random() < 0.8:
            x = self.gen_load(src, w, prefer=csrc)
        if x is None:
            x = self.expr(src, w, min(depth, 1), False)
        cur = src
        if focus:
            # a signed source through u32 or u64 to a float: the LLVM 19 pattern
            mids = [rng.choice(['i32', 'i64', 'u32', 'u64'])] if rng.random() < 0.3 else []
            mids.append(rng.choice(['u32', 'u64']))
        else:
            mids = [rng.choice(CHAIN_MIDS) for _ in range(rng.choice([1, 1, 2, 2, 3]))]
        for nxt in mids:
            if cur in INTS and rng.random() < 0.3:
                x = self.sign_op(x, cur, w)
            if nxt == cur:
                continue
            if cur in INTS and BYTES[nxt] == BYTES[cur] and rng.random() < 0.5:
                x = self.typed(A.op('bitcast', nxt, x), nxt, w)
            else:
                x = self.typed(A.op('cast', nxt, x), nxt, w)
            cur = nxt
        if cur != ty:
            if cur in INTS and rng.random() < 0.2:
                x = self.sign_op(x, cur, w)
            x = self.typed(A.op('cast', ty, x), ty, w)
        return x

    def sign_op(self, x, ty, w):
        """X of int type ty through an op whose result has many sign bits (or high zeros)."""
        rng = self.rng
        bits = 8 * BYTES[ty]
        r = rng.random()
        if r < 0.5:
            k = rng.choice([1, bits // 4, bits // 2, bits - 2, bits - 1, rng.randint(1, bits - 1)])
            e = A.op('shr', x, self.lane_lit(ty, w, str(k)))
        elif r < 0.7:
            e = A.op('neg', x)
        elif r < 0.85:
            e = A.op('sub', x, self.lane_lit(ty, w, str(rng.choice([1, 2, 100]))))
        else:
            e = A.op(rng.choice(['min', 'max']), x, self.lane_lit(ty, w, str(rng.choice([0, 1, -1] if ty[0] == 'i' else [0, 1, 200]))))
        return self.typed(e, ty, w)

    def lane_lit(self, ty, w, text):
        """The untyped literal TEXT as an operand of type ty and width w (splatted)."""
        if w == 0:
            return A.atom(text)
        return self.typed(A.op('splat.%d' % w, A.atom(text)), ty, w)

    def gen_castrun(self):
        """A run of stores of cast chains that LLVM may vectorise: a short loop (2, 4 or 8
        iterations, `unroll` now and then) or the same number of stores in straight-line
        code, whose offsets the run prefers to make consecutive (i, i + c, or literals c + j)
        where no race rule decides them."""
        rng = self.rng
        env = self.env
        n = rng.choice([2, 2, 4, 4, 8, 8, 3, 16])
        ty = rng.choice(CHAIN_DSTS)
        width = 0 if rng.random() < 0.8 else rng.choice([2, 4, 8])
        old = env.pref, env.csrc
        if rng.random() < 0.6 and self.total_elems < 5000:
            # an input of its own, with negative values (most of the class needs them)
            src = rng.choice(['i8', 'i8', 'i32', 'i64'])
            size = n * max(width, 1) + rng.choice([0, 1, 4])
            m = self.new_mem(src, size, const=True)
            if size > 48 or rng.random() < 0.5:
                m.init = 'random %d' % rng.randint(0, 2 ** 32 - 1)
            else:
                m.init = '[' + ' '.join(lit_int(rng, src, rng.choice(INT_EDGES[src] + [-37, -2, -1]), False)
                                        for _ in range(size)) + ']'
            env.csrc = m
        if rng.random() < 0.6:
            def body():
                lp = env.loops[-1]
                c = rng.choice([0, 0, 0, 1, 4])
                step = max(width, 1)

                def pref(hi, lp=lp, c=c):
                    # i * step + c, for a load or store of the run's width; others go on
                    if lp.maxv * step + c > hi:
                        return None
                    e = A.atom(lp.name) if step == 1 else A.op('mul', lp.name, str(step))
                    return e if c == 0 else A.op('add', e, str(c))
                env.pref = pref
                env.low = lp
                out = []
                for _ in range(rng.randint(1, 3)):
                    out.extend(self.gen_store(ty=rng.choice([ty, ty, rng.choice(CHAIN_DSTS)]),
                                              width=width, value=self.cast_chain, cap=n * step + 4,
                                              target='fresh' if rng.random() < 0.6 else None) or [])
                env.low = None
                return out
            st = self.plain_loop_stmt(body, bound=n)
            env.pref, env.csrc = old
            return [st]
        # straight-line: n stores of one shape (the generator's state is the same for each,
        # only the preferred offsets differ), as a vectoriser wants them
        base = rng.choice([0, 0, 1, 4])
        step = max(width, 1)
        out = []
        target = 'fresh' if rng.random() < 0.6 else None
        state = rng.getstate()
        for j in range(n):
            rng.setstate(state)
            env.pref = lambda hi, j=j: A.atom(str(base + j * step)) if base + j * step <= hi else None
            self.last_store_mem = None
            st = self.gen_store(ty=ty, width=width, value=self.cast_chain, cap=base + n * step, target=target)
            if st and j == 0:
                target = self.last_store_mem
            out.extend(st or [])
        env.pref, env.csrc = old
        return out

    # ---------------------------------------------------------------- statements

    def spend(self, n=1):
        self.budget -= n
        return self.budget >= 0

    def push_loop(self, lp):
        env = self.env
        env.loops.append(lp)
        for c in env.checks:
            c.loops.add(lp.uid)
        env.vals.append((lp.name, 'i32', 0, lp, True))

    def pop_loop(self):
        env = self.env
        env.loops.pop()
        env.vals.pop()

    def scope_mark(self):
        return len(self.env.vals)

    def scope_reset(self, mark):
        del self.env.vals[mark:]

    def gen_let(self):
        rng = self.rng
        ty = rng.choice(TYPES)
        w = 0 if rng.random() < 0.8 else rng.choice(WIDTHS)
        e = self.expr(ty, w, rng.randint(1, 3), False)
        name = self.fresh('v')
        self.env.vals.append((name, ty, w, None, False))
        return A.Stmt('let', name=name, expr=e)

    def store_width(self):
        r = self.rng.random()
        return 0 if r < 0.8 else self.rng.choice([2, 4, 4, 8])

    def new_mem_for(self, ty, width, cap):
        """A new memory for a store here, of at least cap elements."""
        rng = self.rng
        env = self.env
        size = max(cap, max(width, 1)) + rng.choice([0, 0, 1, 2, 3])
        if size > 4096:
            return None
        seg = env.seg
        if seg is not None and rng.random() < 0.45:
            if seg['kind'] == 'kernel' and seg['shared'] + size * BYTES[ty] <= 49152:
                seg['shared'] += size * BYTES[ty]
                m = self.new_mem(ty, size, True, seg['uid'])
                seg['check'].skipped.add(m.uid)
                return m
            if seg['kind'] == 'thread':
                m = self.new_mem(ty, size, True, seg['uid'])
                seg['check'].skipped.add(m.uid)
                return m
        if self.total_elems + size > 6000:
            return None
        if self.mode == 'general' and rng.random() < 0.15:
            return self.new_mem(ty, size, True, None)
        return self.new_mem(ty, size)

    def usable(self, m):
        """Whether memory m may be used at the current site (homes and kernel form)."""
        seg = self.env.seg
        if m.intent is None:
            if self.mode == 'kernel' and m.is_alloc:
                return False
            return True
        return seg is not None and seg['uid'] == m.intent

    def gen_store(self, atomic=False, ty=None, width=None, value=None, cap=0, target=None):
        """A store (or atomic) to a memory of a random type; ty, width: those of the store
        instead, value(ty, width): its value, cap: the least size of a fresh memory,
        target: a Mem to try first, or 'fresh' for a new memory. Returns the statements."""
        rng = self.rng
        env = self.env
        if width is None:
            width = 0 if atomic else self.store_width()
        tys = INTS if atomic else TYPES
        if ty is None:
            ty = rng.choice(tys)
        mems = [m for m in self.mems if m.ty == ty and not m.const and self.usable(m)]
        rng.shuffle(mems)
        if target == 'fresh':
            mems = []
        elif target in mems:
            mems.remove(target)
            mems.insert(0, target)
        if atomic and env.checks and rng.random() < 0.6:
            # prefer memories this check already updates atomically (two updates, one op)
            c = env.checks[-1]
            mems.sort(key=lambda m: not (c.roles.get(m.uid) and c.roles[m.uid].kind == 'atomic'))
        kind = 'atomic' if atomic else 'store'
        off = acc = mem = None
        for m in mems[:5]:
            off, acc = self.access(m, kind, width)
            if off is not None:
                mem = m
                break
        if off is None:
            # a fresh memory: size it for a fresh plan
            cs = list(env.checks)
            if cs:
                f = self.build_form(cs, cs, [], width, 4096)
                if f is None:
                    return None
                need = f.maxval() + 1
            else:
                need = max(cap, rng.choice([1, 4, 8, 16, 33, 64, 200]))
            mem = self.new_mem_for(ty, width, need)
            if mem is None or not self.usable(mem):
                return None
            off, acc = self.access(mem, kind, width)
            if off is None:
                return None
        self.last_store_mem = mem
        if value is not None:
            val = value(ty, width)
        elif width:
            val = self.expr(ty, width, rng.randint(0, 3), True)
            if val.op is None and val.meta.get('untyped'):
                val = A.op('splat.%d' % width, val, ty=ty, w=width) if ty != 'bool' else self.expr(ty, width, 1, False)
        else:
            val = self.expr(ty, 0, rng.randint(0, 3), True)
        if atomic:
            st = A.Stmt('atomic', op='atomic.' + acc.op, args=[A.atom(mem.name), off, val])
        else:
            st = A.Stmt('store', op='store' if width == 0 else 'store.%d' % width,
                        args=[A.atom(mem.name), off, val])
        acc.holder = st
        out = [st]
        # sometimes name the offset first: let o = OFF; store m o v
        if off.op is not None and rng.random() < 0.2:
            name = self.fresh('o')
            self.info.offset_lets.add(name)
            out = [A.Stmt('let', name=name, expr=off), st]
            st.args[1] = A.atom(name)
        return out

    def plain_loop_stmt(self, body_fn, allow_unroll=True, bound=None):
        """A plain or unroll loop around body_fn() (of BOUND iterations, when given);
        returns the Stmt."""
        rng = self.rng
        env = self.env
        unroll = allow_unroll and rng.random() < 0.3
        if bound is not None:
            n = bound if not unroll or env.unroll * bound <= 4096 else 1
            bound = A.atom(str(n))
            lit, maxv = n, n - 1
        elif unroll:
            n = rng.choice([1, 2, 3, 4, 8]) if rng.random() < 0.9 else rng.choice([16, 64])
            if env.unroll * n > 4096:
                n = 1
            bound = A.atom(str(n))
            lit, maxv = n, n - 1
        else:
            r = rng.random()
            consts = [m for m in self.mems if m.values]
            if r < 0.07:
                n = rng.choice([0, -1, -2147483648])
                bound, lit, maxv = A.atom(str(n)), n, -1
            elif r < 0.15 and consts:
                m = rng.choice(consts)
                i = rng.randrange(m.size)
                bound, lit, maxv = A.op('load', m.name, str(i)), None, m.values[i] - 1
            elif r < 0.2:
                a, b = rng.randint(0, 3), rng.randint(0, 3)
                bound, lit, maxv = A.op('add', str(a), str(b)), None, a + b - 1
            else:
                n = rng.randint(1, 5)
                bound, lit, maxv = A.atom(str(n)), n, n - 1
        if env.mult * max(maxv + 1, 1) > 60000:
            bound, lit, maxv = A.atom('1'), 1, 0
        name = None
        seg = env.seg
        if env.ctx == 'phase' and KNOBS['loop_names'] and seg.get('ploops') and rng.random() < 0.4:
            # a loop of an earlier phase or statement: same name and bound, so one index
            inscope = {lp.uid for lp in env.loops}
            olds = [o for o in seg['ploops'] if o[2] not in inscope and
                    (not unroll or env.unroll * o[1] <= 4096)]
            if olds:
                name, lit, uid = rng.choice(olds)
                bound, maxv = A.atom(str(lit)), lit - 1
        if name is None:
            name = self.fresh('i')
            uid = self.new_uid()
            if env.ctx == 'phase' and lit is not None and lit >= 1 and bound.op is None:
                seg.setdefault('ploops', []).append((name, lit, uid))
        lp = Loop(uid, name, lit, maxv, 'unroll' if unroll else None)
        mark = self.scope_mark()
        self.push_loop(lp)
        old_mult, old_unroll = env.mult, env.unroll
        env.mult *= max(maxv + 1, 1)
        if unroll:
            env.unroll *= lit
        body = body_fn()
        env.mult, env.unroll = old_mult, old_unroll
        self.pop_loop()
        self.scope_reset(mark)
        return A.Stmt('loop', name=name, bound=bound, axis='unroll' if unroll else None, body=body)

    def cond_expr(self):
        return self.expr('bool', 0, self.rng.randint(1, 3), False)

    def checked_check(self):
        """The innermost check, or None in plain code."""
        return self.env.checks[-1] if self.env.checks else None

    def gen_one_branch(self):
        """if (eq p C) { ... } [else { ... }] in the innermost check."""
        rng = self.rng
        env = self.env
        c = self.checked_check()
        if c.kind == 'phase' and KNOBS['kernel_one'] and rng.random() < 0.35:
            c = env.checks[-2]  # the kernel check: `if (eq g C)`, one block
        if c.cid in env.one:
            return None
        p = c.p
        n = p.maxv + 1
        cval = rng.choice([0, 0, n - 1, rng.randrange(max(n, 1)), n + 1]) if n >= 1 else 0
        if rng.random() < 0.3 and cval >= 1:
            ctext = A.op('sub', str(cval + 1), '1')
        else:
            ctext = A.atom(str(cval))
        pname = A.atom(env.loop_by_uid(p.uid).name)
        cond = A.op('eq', pname, ctext) if rng.random() < 0.7 else A.op('eq', ctext, pname)
        old = env.one.get(c.cid)
        env.one[c.cid] = cval
        mark = self.scope_mark()
        body = self.body(rng.randint(1, 3))
        self.scope_reset(mark)
        if old is None:
            del env.one[c.cid]
        else:
            env.one[c.cid] = old
        els = None
        if rng.random() < 0.3:
            mark = self.scope_mark()
            els = self.body(rng.randint(1, 2))
            self.scope_reset(mark)
        st = A.Stmt('if', cond=cond, body=body, els=els)
        self.info.onebranches.append((st, c, cval))
        self.extensions = True
        return [st]

    def gen_guard(self):
        """loop k K { let x = add p (mul k P) [+ L]; if (lt x C) { ... } }."""
        rng = self.rng
        env = self.env
        c = self.checked_check()
        p = c.p
        P = p.maxv + 1
        if p.lit is None or P < 1 or env.guards or (P < 2 and not KNOBS['guard_p1']):
            return None
        pname = env.loop_by_uid(p.uid).name
        use_k = rng.random() < 0.7
        L = rng.choice([0, 0, 0, 1, 2])

        def inner(sloops, s_expr, smax):
            C = rng.randint(1, smax + 1)
            if KNOBS['guard_wide'] and rng.random() < 0.3:
                # C - 1 above the largest value of S: the checker must not do worse than
                # without the guard
                C = rng.randint(1, smax + 1 + L) if rng.random() < 0.5 else smax + L + rng.randint(2, 4)
            xname = self.fresh('x')
            x = s_expr if not L else A.op('add', s_expr, str(L))
            let = A.Stmt('let', name=xname, expr=x)
            env.vals.append((xname, 'i32', 0, None, False))
            g = Guard(self.new_uid(), xname, sloops, L, C)
            cond = A.op('lt', xname, str(C)) if rng.random() < 0.7 else A.op('gt', str(C), xname)
            env.guards.append(g)
            mark = self.scope_mark()
            body = self.body(rng.randint(1, 3))
            self.scope_reset(mark)
            env.guards.pop()
            els = None
            if rng.random() < 0.2:
                mark = self.scope_mark()
                els = self.body(1)
                self.scope_reset(mark)
            return [let, A.Stmt('if', cond=cond, body=body, els=els)]

        if not use_k:
            return inner([p], A.atom(pname), P - 1)
        K = rng.randint(1, 4)
        kname = self.fresh('k')
        unroll = rng.random() < 0.4 and env.unroll * K <= 4096
        lp = Loop(self.new_uid(), kname, K, K - 1, 'unroll' if unroll else None)
        mark = self.scope_mark()
        self.push_loop(lp)
        old, old_unroll = env.mult, env.unroll
        env.mult *= K
        if unroll:
            env.unroll *= K
        mk = A.op('mul', kname, str(P)) if rng.random() < 0.6 else A.op('mul', str(P), kname)
        s = A.op('add', pname, mk) if rng.random() < 0.6 else A.op('add', mk, pname)
        body = inner([p, lp], s, P * K - 1)
        env.mult, env.unroll = old, old_unroll
        self.pop_loop()
        self.scope_reset(mark)
        self.extensions = True
        return [A.Stmt('loop', name=kname, bound=A.atom(str(K)), axis='unroll' if unroll else None, body=body)]

    def body(self, n):
        """n statements of the current context ('top', 'plain', 'thread', 'phase')."""
        out = []
        for _ in range(n):
            if not self.spend():
                break
            s = self.stmt()
            if s:
                out.extend(s)
        return out

    def stmt(self):
        rng = self.rng
        env = self.env
        ctx = env.ctx
        kinds = ['let'] * 3 + ['store'] * 6 + ['atomic'] + ['loop'] * 2 + ['if']
        checked = ctx in ('thread', 'phase')
        if checked and not self.strict:
            kinds += ['one'] * 2 + ['guard'] * 2
        if self.casts:
            kinds += ['castrun'] * 3
        if ctx == 'top':
            if self.mode == 'kernel':
                return self.gen_kernel()
            kinds += ['thread'] * 4 + ['kernel'] * 4 + ['wrap'] * 2
        k = rng.choice(kinds)
        if k == 'let':
            return [self.gen_let()]
        if k == 'castrun':
            return self.gen_castrun()
        if k == 'store':
            return self.gen_store()
        if k == 'atomic':
            return self.gen_store(atomic=True)
        if k == 'loop':
            return [self.plain_loop_stmt(lambda: self.body(rng.randint(1, 3)))]
        if k == 'if':
            cond = self.cond_expr()
            mark = self.scope_mark()
            body = self.body(rng.randint(1, 3))
            self.scope_reset(mark)
            els = None
            if rng.random() < 0.4:
                mark = self.scope_mark()
                els = self.body(rng.randint(1, 2))
                self.scope_reset(mark)
            return [A.Stmt('if', cond=cond, body=body, els=els)]
        if k == 'one':
            return self.gen_one_branch()
        if k == 'guard':
            return self.gen_guard()
        if k == 'thread':
            return self.gen_thread()
        if k == 'kernel':
            return self.gen_kernel()
        if k == 'wrap':
            seg = rng.choice([self.gen_thread, self.gen_kernel])
            if rng.random() < 0.7:
                return [self.plain_loop_stmt(lambda: seg() or [], allow_unroll=False)]
            cond = self.cond_expr()
            mark = self.scope_mark()
            b = seg() or []
            self.scope_reset(mark)
            return [A.Stmt('if', cond=cond, body=b, els=None)]
        return None

    # ---------------------------------------------------------------- segments

    def gen_thread(self):
        """loop p N thread { ... } with its private allocs."""
        rng = self.rng
        env = self.env
        n = rng.choice([1, 2, 3, 4, 5, 8, 16]) if rng.random() < 0.95 else 64
        bound = A.atom(str(n))
        lit, maxv = n, n - 1
        name = self.fresh('p')
        uid = self.new_uid()
        seg = {'kind': 'thread', 'uid': uid, 'shared': 0}
        for _ in range(rng.choice([0, 0, 1, 2])):
            ty = rng.choice(TYPES)
            size = rng.choice([1, 2, 4, 8, 16, 50]) if rng.random() < 0.97 else 20000
            self.new_mem(ty, size, True, uid)
        lp = Loop(uid, name, lit, maxv, 'thread')
        chk = Check(len(self.info.checks), 'thread', lp)
        self.info.checks.append(chk)
        chk.skipped = {m.uid for m in self.mems if m.intent == uid}
        seg['check'] = chk
        old = (env.ctx, env.seg, env.mult)
        env.ctx, env.seg = 'thread', seg
        env.mult *= n
        env.checks.append(chk)
        mark = self.scope_mark()
        self.push_loop(lp)
        body = self.body(rng.randint(2, 6))
        self.pop_loop()
        self.scope_reset(mark)
        env.checks.pop()
        env.ctx, env.seg, env.mult = old
        st = A.Stmt('loop', name=name, bound=bound, axis='thread', body=body)
        self.info.threads.append((st, chk))
        return [st]

    def gen_kernel(self):
        """loop g G global { block code and phases } with its shared allocs."""
        rng = self.rng
        env = self.env
        G = rng.choice([1, 2, 3, 4, 8]) if rng.random() < 0.95 else 32
        B = rng.choice([1, 2, 3, 4, 8, 16, 32, 32, 64]) if rng.random() < 0.95 else rng.choice([128, 256, 1024])
        if env.mult * G * B > 100000:
            B = 4
        bound = A.atom(str(G))
        if self.mode == 'general' and rng.random() < 0.1:
            consts = [m for m in self.mems if m.values]
            if consts:
                m = rng.choice(consts)
                i = rng.randrange(m.size)
                if m.values[i] >= 1:
                    G = m.values[i]
                    bound = A.op('load', m.name, str(i))
        gname = self.fresh('g')
        uid = self.new_uid()
        seg = {'kind': 'kernel', 'uid': uid, 'shared': 0, 'B': B, 'tuid': self.new_uid()}
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            ty = rng.choice(TYPES)
            size = rng.choice([1, B, B, 2 * B, B + 1, 16])
            if seg['shared'] + size * BYTES[ty] > 49152:
                continue
            seg['shared'] += size * BYTES[ty]
            self.new_mem(ty, size, True, uid)
        lit = G if bound.op is None else None
        lp = Loop(uid, gname, lit, G - 1, 'global')
        kchk = Check(len(self.info.checks), 'kernel', lp)
        self.info.checks.append(kchk)
        kchk.skipped = {m.uid for m in self.mems if m.intent == uid}
        seg['check'] = kchk
        old = (env.ctx, env.seg, env.mult)
        env.ctx, env.seg = 'block', seg
        env.mult *= G
        env.checks.append(kchk)
        mark = self.scope_mark()
        self.push_loop(lp)
        phases = []
        body = self.block_code(rng.randint(1, 4), phases, top=True)
        self.pop_loop()
        self.scope_reset(mark)
        env.checks.pop()
        env.ctx, env.seg, env.mult = old
        st = A.Stmt('loop', name=gname, bound=bound, axis='global', body=body)
        self.info.kernels.append((st, B, phases, kchk))
        return [st]

    def block_code(self, n, phases, top=False):
        """Items of a global body: lets (loads only), phases, plain loops around phases."""
        rng = self.rng
        out = []
        have_phase = False
        for i in range(n):
            if not self.spend() and have_phase:
                break
            r = rng.random()
            if r < 0.25:
                out.append(self.gen_let())
            elif r < 0.4 and len(self.env.loops) < 5:
                out.append(self.plain_loop_stmt(lambda: self.block_code(rng.randint(1, 2), phases)))
                have_phase = True
            else:
                out.append(self.gen_phase(phases))
                have_phase = True
        if top and not phases:
            out.append(self.gen_phase(phases))
        return out

    def gen_phase(self, phases):
        rng = self.rng
        env = self.env
        seg = env.seg
        B = seg['B']
        name = 't'
        if rng.random() < 0.25 and KNOBS['phase_names']:
            name = rng.choice(['tid', 'u', 'lx', 'tt'])
        lp = Loop(seg['tuid'], name, B, B - 1, 'local')
        chk = Check(len(self.info.checks), 'phase', lp)
        self.info.checks.append(chk)
        old = (env.ctx, env.mult)
        env.ctx = 'phase'
        env.mult *= B
        env.checks.append(chk)
        mark = self.scope_mark()
        self.push_loop(lp)
        body = self.body(rng.randint(1, 5))
        self.pop_loop()
        self.scope_reset(mark)
        env.checks.pop()
        env.ctx, env.mult = old
        st = A.Stmt('loop', name=name, bound=A.atom(str(B)), axis='local', body=body)
        phases.append(st)
        return st

    # ---------------------------------------------------------------- whole program

    def program(self):
        rng = self.rng
        # inputs: a few buffers of random types, some const
        for _ in range(rng.randint(1, 4)):
            ty = rng.choice(TYPES)
            self.new_mem(ty, rng.choice([1, 3, 4, 8, 16, 17, 64]), const=rng.random() < 0.5)
        if rng.random() < 0.6:
            self.new_const_i32()
        if self.mode == 'general' and rng.random() < 0.4:
            for _ in range(rng.randint(1, 2)):
                self.new_mem(rng.choice(TYPES), rng.choice([1, 4, 16]), True, None)
        env = self.env
        env.ctx = 'top'
        stmts = []
        while self.budget > 0:
            s = self.stmt()
            self.budget -= 1
            if s:
                stmts.extend(s)
        decls = []
        for m in self.mems:
            kw = 'alloc' if m.is_alloc else 'buffer'
            text = '%s %s %s %d' % (kw, m.name, m.ty, m.size)
            if m.init:
                text += ' = ' + m.init
            decls.append(A.Stmt('decl', text=text, name=m.name, mtype=m.ty, size=m.size,
                                is_alloc=m.is_alloc))
        # declarations may stand between statements, before their first use; keep them first
        prog = A.Program(stmts=decls + stmts)
        self.info.mems = self.mems
        self.info.extensions = self.extensions
        return prog


def generate(seed, mode=None, strict=None, casts=None):
    """A valid program from seed: (Program, Info). mode 'kernel' (kernel form) or 'general';
    strict: no extension of the race rules (docs/language.md 7.7.1); casts: cast runs and
    cast chains (gen_castrun). None picks from seed."""
    g = Gen(seed, mode, strict, casts)
    prog = g.program()
    tag = '# generated by uirgen.py seed %d mode %s%s%s' % (seed, g.mode, ' strict' if g.strict else '',
                                                         ' casts' if g.casts else '')
    prog.header = [tag]
    A.number_nodes(prog)
    info = g.info
    # forget what was generated but did not end up in the program
    info.accesses = [a for a in info.accesses if a.holder is not None and a.holder.nid is not None]
    info.ops = [e for e in info.ops if e.nid is not None]
    info.lit_nodes = [e for e in info.lit_nodes if e.nid is not None]
    return prog, info


def main(argv):
    mode = None
    strict = None
    casts = None
    seed = None
    for a in argv[1:]:
        if a == '--kernel-form':
            mode = 'kernel'
        elif a == '--general':
            mode = 'general'
        elif a == '--strict':
            strict = True
        elif a in ('--casts', '--no-casts'):
            casts = a == '--casts'
        elif a.lstrip('-').isdigit() and seed is None:
            seed = int(a)
        else:
            sys.stderr.write('usage: uirgen.py SEED [--kernel-form|--general] [--strict] [--casts|--no-casts]\n')
            return 64
    if seed is None:
        sys.stderr.write('usage: uirgen.py SEED [--kernel-form|--general] [--strict] [--casts|--no-casts]\n')
        return 64
    prog, _ = generate(seed, mode, strict, casts)
    sys.stdout.write(prog.text())
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
