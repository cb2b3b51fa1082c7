#!/usr/bin/python3
"""model.py - an independent model of every .uir op, written from docs/language.md.

Each op of docs/language.md 4.5 on every type it takes, the casts and bitcasts between
every pair of types, the INIT forms of 3.2 and the generator of 3.3. Nothing here reads or
imitates uir's C code: integer ops are Python integers reduced to the type's width, float
ops are exact rational arithmetic (fractions.Fraction) rounded once to nearest-even by
round_mag() below, so the model does not depend on the host's floating point at all.

Representation of values:
  bool        0 or 1
  integers    Python int in the type's range (signed types negative where negative)
  f32, f64    the bit pattern as a non-negative int (a NaN result is the canonical NaN;
              every NaN equals every other NaN, docs/language.md 2.4)

exp2, log2, sin and cos (docs/math.md: correctly rounded on every f32 input; on f64
correctly rounded unless the exact value lies within 2^-100 of a rounding boundary) are
computed in integer fixed point with a proved error bound, and the result is the rounding
of the whole error interval when every point of it rounds to one value; otherwise (and,
for f64, when the interval widened by 2^-100 relative meets a rounding boundary) the model
answers None: "not decided", and such a case is not compared.

    python3 model.py        runs the self-checks (docs/language.md 3.3.7 among them)
"""
import math
import struct
from fractions import Fraction

# ---- types (docs/language.md 2.1) -------------------------------------------------------


class Fmt:
    """An IEEE 754 binary format: p significand bits (with the hidden one), ebits exponent bits."""

    def __init__(self, p, ebits):
        self.p = p
        self.ebits = ebits
        self.bias = (1 << (ebits - 1)) - 1
        self.emin = 1 - self.bias
        self.emax = self.bias
        self.width = ebits + p
        self.sign = 1 << (self.width - 1)
        self.exp_mask = ((1 << ebits) - 1) << (p - 1)
        self.frac_mask = (1 << (p - 1)) - 1
        self.inf = self.exp_mask
        self.qnan = self.exp_mask | (1 << (p - 2))     # 2.4.2: the canonical NaN
        self.max_finite = self.exp_mask - (1 << (p - 1)) | self.frac_mask


F32 = Fmt(24, 8)
F64 = Fmt(53, 11)


class Type:
    def __init__(self, name, kind, bits, signed=False, fmt=None):
        self.name, self.kind, self.bits, self.signed, self.fmt = name, kind, bits, signed, fmt
        if kind == 'int':
            self.min = -(1 << (bits - 1)) if signed else 0
            self.max = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1

    def __repr__(self):
        return self.name


# In the order of docs/language.md 2.1.
TYPES = {
    'bool': Type('bool', 'bool', 8),
    'i8': Type('i8', 'int', 8, True),
    'u8': Type('u8', 'int', 8, False),
    'i32': Type('i32', 'int', 32, True),
    'u32': Type('u32', 'int', 32, False),
    'i64': Type('i64', 'int', 64, True),
    'u64': Type('u64', 'int', 64, False),
    'f32': Type('f32', 'float', 32, fmt=F32),
    'f64': Type('f64', 'float', 64, fmt=F64),
}
INT_TYPES = [t for t in TYPES.values() if t.kind == 'int']
FLOAT_TYPES = [TYPES['f32'], TYPES['f64']]


def T(name):
    return TYPES[name] if isinstance(name, str) else name


# ---- integers (2.2.1: two's complement, wrapping) ----------------------------------------


def wrap(t, v):
    """v reduced modulo 2^width into t's range."""
    v &= (1 << t.bits) - 1
    if t.signed and v >> (t.bits - 1):
        v -= 1 << t.bits
    return v


def to_unsigned_bits(t, v):
    return v & ((1 << t.bits) - 1)


# ---- floats: exact decoding and one rounding (2.3.1) ------------------------------------

NAN, INF, ZERO, NUM = 'nan', 'inf', 'zero', 'num'


def unpack(fmt, bits):
    """(kind, sign, m, e): the value is m * 2^e, m a non-negative integer (0 for zeros)."""
    sign = 1 if bits & fmt.sign else 0
    be = (bits & fmt.exp_mask) >> (fmt.p - 1)
    f = bits & fmt.frac_mask
    if be == (1 << fmt.ebits) - 1:
        return (NAN, sign, 0, 0) if f else (INF, sign, 0, 0)
    if be == 0:
        return (ZERO if f == 0 else NUM, sign, f, fmt.emin - (fmt.p - 1))
    return (NUM, sign, f | (1 << (fmt.p - 1)), be - fmt.bias - (fmt.p - 1))


def dyadic(m, e):
    return Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)


def decode(fmt, bits):
    """(kind, sign, magnitude) of a bit pattern; magnitude a Fraction for ZERO and NUM."""
    k, s, m, e = unpack(fmt, bits)
    if k in (NAN, INF):
        return (k, s, None)
    return (k, s, dyadic(m, e))


def is_nan(fmt, bits):
    return (bits & ~fmt.sign) > fmt.inf


def value(fmt, bits):
    """The exact value as a Fraction (zeros as 0), or None for NaN and infinities."""
    k, s, m = decode(fmt, bits)
    if k in (NAN, INF):
        return None
    return -m if s else m


def floor_log2(q):
    """e with 2^e <= q < 2^(e+1), for a positive Fraction q."""
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    if e >= 0:
        if n < (d << e):
            e -= 1
    elif (n << -e) < d:
        e -= 1
    return e


def round_me(fmt, m, e, sticky=False):
    """The bits (without sign) of (m + d) * 2^e rounded to nearest, ties to even, with
    subnormals (gradual underflow) and overflow to infinity; m >= 0 an integer, and d = 0, or
    with sticky 0 < d < 1 (then m must have p + 2 bits or more, so that d only breaks ties)."""
    if m == 0 and not sticky:
        return 0
    p = fmt.p
    E = e + m.bit_length() - 1              # the exponent of the leading bit
    q = max(E, fmt.emin) - (p - 1)          # the exponent of one unit in the last place
    shift = q - e
    if shift <= 0:
        assert not sticky, 'round_me: too few bits for a sticky rounding'
        n = m << -shift
    else:
        n = m >> shift
        r = m & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if r > half or (r == half and (sticky or n & 1)):
            n += 1
    if n == 0:
        return 0
    if n >> p:                               # rounded up to 2^p
        n >>= 1
        q += 1
    if n < (1 << (p - 1)):                   # subnormal
        return n
    E = q + (p - 1)
    if E > fmt.emax:
        return fmt.inf
    return ((E + fmt.bias) << (p - 1)) | (n - (1 << (p - 1)))


def round_mag(fmt, mag):
    """The bits (without sign) of the positive Fraction mag rounded to nearest, ties to even."""
    if mag == 0:
        return 0
    n, d = mag.numerator, mag.denominator
    k = fmt.p + 3 - (n.bit_length() - d.bit_length())     # p + 2 bits or more in the quotient
    if k >= 0:
        q, r = divmod(n << k, d)
    else:
        q, r = divmod(n, d << -k)
    return round_me(fmt, q, -k, r != 0)


def encode(fmt, sign, mag):
    return (fmt.sign if sign else 0) | round_mag(fmt, mag)


def from_fraction(fmt, v, zero_sign=0):
    """A signed Fraction rounded once; an exact zero gets zero_sign."""
    if v == 0:
        return fmt.sign if zero_sign else 0
    return encode(fmt, 1 if v < 0 else 0, abs(v))


def f32_bits(x):
    """Bits of a Python float rounded to f32 (host rounding; for building inputs only)."""
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f64_bits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def bits_to_float(fmt, bits):
    """The value as a Python float (exact: every f32 and f64 is a double)."""
    if fmt is F32:
        return struct.unpack('<f', struct.pack('<I', bits))[0]
    return struct.unpack('<d', struct.pack('<Q', bits))[0]


def parse_float(fmt, text):
    """Bits of a decimal text (as run prints, or as strtof/strtod read it), rounded once
    from the exact decimal value; 'nan' gives the canonical NaN."""
    s = text.strip().lower()
    neg = s.startswith('-')
    body = s[1:] if s[:1] in '+-' else s
    if body in ('nan', 'nan()'):
        return fmt.qnan
    if body in ('inf', 'infinity'):
        return (fmt.sign if neg else 0) | fmt.inf
    if body.startswith('0x'):
        v = Fraction(float.fromhex(body))    # hex floats in tests are exact doubles
    else:
        v = Fraction(body)
    return encode(fmt, 1 if neg else 0, v)


def _reads_back(fmt, text, bits):
    """Does the decimal text round (once, from its exact value) to bits? Fast path: the host's
    correctly rounded strtod gives the nearest double d; for f64 that is the answer, and for
    f32 rounding d again gives the direct rounding of the text unless d is itself an f32
    rounding boundary (every such boundary is a double, so the text and d lie on one side of
    each other boundary); in that case the exact rounding decides."""
    d = float(text)
    if fmt is F64:
        return f64_bits(d) == bits
    db = f64_bits(d)
    low = db & ((1 << 29) - 1)                 # the bits of d below f32's precision
    if low == 1 << 28 or abs(d) >= 3.4028235677973366e38:
        return parse_float(fmt, text) == bits  # a midpoint (or the overflow threshold)
    return f32_bits(d) == bits


def format_float(fmt, bits):
    """docs/language.md 10.1: %.*g with the least precision (1..9 for f32, 1..17 for f64)
    that reads back to the same bits; inf, -inf, nan, -0."""
    k, s, m = decode(fmt, bits)
    if k == NAN:
        return 'nan'
    if k == INF:
        return '-inf' if s else 'inf'
    x = bits_to_float(fmt, bits)
    for prec in range(1, 10 if fmt is F32 else 18):
        t = '%.*g' % (prec, x)
        if _reads_back(fmt, t, bits):
            return t
    raise AssertionError('no precision reads back')


def fkey(fmt, bits):
    """An exact integer sort key of a non-NaN value (m * 2^(e + 1200)); the infinities beyond
    every finite value, -0 and +0 equal."""
    k, s, m, e = unpack(fmt, bits)
    if k == INF:
        v = 1 << 2400
    else:
        v = m << (e + 1200)
    return -v if s else v


# ---- float arithmetic, exact then rounded once (2.3.1, 4.5) -----------------------------


def f_add(fmt, a, b):
    ka, sa, ma, ea = unpack(fmt, a)
    kb, sb, mb, eb = unpack(fmt, b)
    if NAN in (ka, kb):
        return fmt.qnan
    if ka == INF and kb == INF:
        return a if sa == sb else fmt.qnan
    if ka == INF:
        return a
    if kb == INF:
        return b
    e = min(ea, eb)                                      # exact: align, add as integers
    A = ma << (ea - e)
    B = mb << (eb - e)
    S = (-A if sa else A) + (-B if sb else B)
    if S == 0:
        # IEEE 754 6.3: an exact zero sum is +0 in round-to-nearest, -0 only for (-0) + (-0)
        return fmt.sign if (ka == ZERO and kb == ZERO and sa and sb) else 0
    return (fmt.sign if S < 0 else 0) | round_me(fmt, abs(S), e)


def f_neg(fmt, a):
    return a ^ fmt.sign


def f_sub(fmt, a, b):
    return f_add(fmt, a, f_neg(fmt, b))


def f_mul(fmt, a, b):
    ka, sa, ma, ea = unpack(fmt, a)
    kb, sb, mb, eb = unpack(fmt, b)
    s = fmt.sign if sa ^ sb else 0
    if NAN in (ka, kb):
        return fmt.qnan
    if (ka == INF and kb == ZERO) or (ka == ZERO and kb == INF):
        return fmt.qnan
    if INF in (ka, kb):
        return s | fmt.inf
    return s | round_me(fmt, ma * mb, ea + eb)           # exact product, rounded once


def f_div(fmt, a, b):
    ka, sa, ma, ea = unpack(fmt, a)
    kb, sb, mb, eb = unpack(fmt, b)
    s = fmt.sign if sa ^ sb else 0
    if NAN in (ka, kb):
        return fmt.qnan
    if (ka == INF and kb == INF) or (ka == ZERO and kb == ZERO):
        return fmt.qnan
    if ka == INF or kb == ZERO:
        return s | fmt.inf
    if kb == INF or ka == ZERO:
        return s
    # a quotient of p + 3 bits or more, and whether a remainder is left (sticky)
    k = max(0, fmt.p + 3 + mb.bit_length() - ma.bit_length())
    q, r = divmod(ma << k, mb)
    return s | round_me(fmt, q, ea - eb - k, r != 0)


def one(fmt):
    return fmt.bias << (fmt.p - 1)


def f_recip(fmt, a):
    """4.5: recip x is div 1 x."""
    return f_div(fmt, one(fmt), a)


def f_fma(fmt, a, b, c):
    """4.5: a*b+c rounded once."""
    ka, sa, ma = decode(fmt, a)
    kb, sb, mb = decode(fmt, b)
    kc, sc, mc = decode(fmt, c)
    if NAN in (ka, kb, kc):
        return fmt.qnan
    if (ka == INF and kb == ZERO) or (ka == ZERO and kb == INF):
        return fmt.qnan
    sp = sa ^ sb
    if INF in (ka, kb):
        if kc == INF and sc != sp:
            return fmt.qnan
        return (fmt.sign if sp else 0) | fmt.inf
    if kc == INF:
        return c
    prod = ma * mb
    s = (-prod if sp else prod) + (-mc if sc else mc)
    if s == 0:
        # as for add: -0 only when the product is a zero of sign - and c is -0
        return fmt.sign if (prod == 0 and kc == ZERO and sp and sc) else 0
    return from_fraction(fmt, s)


def f_sqrt(fmt, a):
    """Correctly rounded (4.5): sqrt(-0) = -0, NaN for every x < 0."""
    k, s, m = decode(fmt, a)
    if k == NAN:
        return fmt.qnan
    if k == ZERO:
        return a
    if s:
        return fmt.qnan
    if k == INF:
        return a
    # m = N / 2^E exactly (a dyadic); scale to an even power of two with many bits, take the
    # integer square root; an inexact root gets a quarter unit added, which lies strictly
    # between r and r+1 and so rounds as the exact root does (r has > p+2 bits).
    n, d = m.numerator, m.denominator       # d is a power of two
    E = d.bit_length() - 1
    shift = 2 * (fmt.p + 4) + 2
    if (E + shift) % 2:
        shift += 1
    N = n << shift                           # m = N / 2^(E+shift), E+shift even
    r = math.isqrt(N)
    root = Fraction(r) if r * r == N else Fraction(4 * r + 1, 4)
    return encode(fmt, 0, root / (1 << ((E + shift) // 2)))


def f_mod(fmt, a, b):
    """C's fmod (4.5): a - n*b with n = trunc(a/b), exact, the sign of a."""
    ka, sa, ma = decode(fmt, a)
    kb, sb, mb = decode(fmt, b)
    if NAN in (ka, kb) or ka == INF or kb == ZERO:
        return fmt.qnan
    if kb == INF or ka == ZERO:
        return a
    n = ma // mb                             # trunc of |a| / |b|
    r = ma - n * mb                          # exact, below |b|, so representable
    return encode(fmt, sa, r)


def _round_int(fmt, a, how):
    k, s, m = decode(fmt, a)
    if k != NUM:
        return fmt.qnan if k == NAN else a
    v = -m if s else m
    i = {'floor': math.floor, 'ceil': math.ceil, 'trunc': math.trunc}[how](v)
    # exact results; a zero result keeps the operand's sign (ceil(-0.5) = -0)
    return from_fraction(fmt, Fraction(i), zero_sign=s)


def f_floor(fmt, a):
    return _round_int(fmt, a, 'floor')


def f_ceil(fmt, a):
    return _round_int(fmt, a, 'ceil')


def f_trunc(fmt, a):
    return _round_int(fmt, a, 'trunc')


def f_abs(fmt, a):
    """4.5: floats clear the sign."""
    return a & ~fmt.sign


def f_min(fmt, a, b):
    """4.5: NaN if either operand is NaN; min -0 +0 = -0."""
    if is_nan(fmt, a) or is_nan(fmt, b):
        return fmt.qnan
    ka, kb = fkey(fmt, a), fkey(fmt, b)
    if ka == kb == 0:
        return a if a & fmt.sign else b
    return a if ka < kb else b


def f_max(fmt, a, b):
    """4.5: NaN if either operand is NaN; max -0 +0 = +0."""
    if is_nan(fmt, a) or is_nan(fmt, b):
        return fmt.qnan
    ka, kb = fkey(fmt, a), fkey(fmt, b)
    if ka == kb == 0:
        return b if a & fmt.sign else a
    return a if ka > kb else b


def f_cmp(fmt, op, a, b):
    """4.5: a NaN operand makes every comparison false but ne, which is true."""
    if is_nan(fmt, a) or is_nan(fmt, b):
        return 1 if op == 'ne' else 0
    return int(CMP[op](fkey(fmt, a), fkey(fmt, b)))


CMP = {
    'lt': lambda x, y: x < y, 'le': lambda x, y: x <= y, 'gt': lambda x, y: x > y,
    'ge': lambda x, y: x >= y, 'eq': lambda x, y: x == y, 'ne': lambda x, y: x != y,
}

# ---- exp2, log2, sin, cos (docs/math.md) --------------------------------------------------

_CONST = {}


def _atan_inv(x, bits):
    """atan(1/x) * 2^bits, truncated terms; error below (number of terms + 1) units."""
    one_ = 1 << bits
    xx = x * x
    term = one_ // x
    s = term
    k = 1
    while term:
        term //= xx
        s += -(term // (2 * k + 1)) if k & 1 else term // (2 * k + 1)
        k += 1
    return s


def pi_fixed(bits):
    """floor-ish(pi * 2^bits), within 2^-bits of pi (Machin's formula, 64 guard bits)."""
    key = ('pi', bits)
    if key not in _CONST:
        g = bits + 64
        v = 16 * _atan_inv(5, g) - 4 * _atan_inv(239, g)
        _CONST[key] = v >> 64
    return _CONST[key]


def ln2_fixed(bits):
    """ln 2 * 2^bits within 2^-bits: 2 atanh(1/3) = sum 2 / ((2k+1) 3^(2k+1))."""
    key = ('ln2', bits)
    if key not in _CONST:
        g = bits + 64
        term = (1 << g) // 3
        s = 0
        k = 0
        while term:
            s += term // (2 * k + 1)
            term //= 9
            k += 1
        _CONST[key] = (2 * s) >> 64
    return _CONST[key]


def _decide(fmt, y, err):
    """The bits every value of [y - err, y + err] rounds to, or None. For f64 the interval is
    widened by 2^-100 relative first (docs/math.md: f64 may differ within 2^-100 of a rounding
    boundary)."""
    if fmt is F64:
        err = err + abs(y) / (1 << 100)
    lo, hi = y - err, y + err
    if lo <= 0 <= hi:
        return None
    bl = from_fraction(fmt, lo)
    bh = from_fraction(fmt, hi)
    return bl if bl == bh else None


PREC = 128          # bits of relative precision aimed at beyond the format


def _sin_cos_fixed(R, Q, want_cos):
    """sin or cos of R/2^Q (|R/2^Q| < 1) in fixed point Q; returns (value, error in units).
    Each step truncates toward zero (at most one unit), on |R| (sin is odd, cos even)."""
    one_ = 1 << Q
    neg = R < 0 and not want_cos
    R = abs(R)
    R2 = (R * R) >> Q
    if want_cos:
        term, s, n = one_, one_, 0
    else:
        term, s, n = R, R, 1
    k = 0
    while term:
        term = ((term * R2) >> Q) // ((n + 1) * (n + 2))
        n += 2
        s += -term if k % 2 == 0 else term
        k += 1
    return (-s if neg else s), 4 * k + 8


def f_sincos(fmt, a, want_cos):
    k, s, m = decode(fmt, a)
    if k in (NAN, INF):
        return fmt.qnan
    if k == ZERO:
        return one(fmt) if want_cos else a
    v = -m if s else m
    ex = floor_log2(m)
    if ex < -200:
        # |v| < 2^-200: sin v = v - v^3/6 + ..., cos v = 1 - v^2/2 + ...; alternating series,
        # so the first omitted term bounds the error.
        if want_cos:
            return _decide(fmt, 1 - v * v / 2, v ** 4 / 24)
        return _decide(fmt, v - v ** 3 / 6, m ** 5 / 120)
    Q = fmt.p + PREC + 80 + max(0, -ex)
    npi = max(0, ex) + Q + 8
    PI = Fraction(pi_fixed(npi), 1 << npi)               # |PI - pi| <= 2^-npi
    kq = round(v * 2 / PI)
    r = v - kq * PI / 2                                  # |r - exact| <= |kq| 2^-npi / 2
    R = math.floor(r * (1 << Q))
    quadrant = (kq + (1 if want_cos else 0)) % 4
    val, units = _sin_cos_fixed(R, Q, quadrant % 2 == 1)
    if quadrant >= 2:
        val = -val
    err = Fraction(units + 2, 1 << Q) + Fraction(abs(kq) + 1, 1 << npi)
    return _decide(fmt, Fraction(val, 1 << Q), err)


def f_sin(fmt, a):
    return f_sincos(fmt, a, False)


def f_cos(fmt, a):
    return f_sincos(fmt, a, True)


def f_exp2(fmt, a):
    k, s, m = decode(fmt, a)
    if k == NAN:
        return fmt.qnan
    if k == INF:
        return 0 if s else fmt.inf
    if k == ZERO:
        return one(fmt)
    v = -m if s else m
    if v >= fmt.emax + 1:
        return fmt.inf
    if v < fmt.emin - fmt.p:                             # below half the least subnormal
        return 0
    n = math.floor(v)
    f = v - n
    if f == 0:                                           # exp2(n) is exact
        return encode(fmt, 0, Fraction(2) ** n)
    Q = fmt.p + PREC + 16
    Tfix = math.floor(f * ln2_fixed(Q + 4) / 16)         # f ln2 * 2^Q, error < 2 units
    one_ = 1 << Q
    term, sm, j = one_, one_, 0
    while term:
        j += 1
        term = ((term * Tfix) >> Q) // j
        sm += term
    units = 4 * j + 8 + 2 * 2                            # exp' < 2 on [0, ln 2)
    scale = Fraction(2) ** n
    return _decide(fmt, Fraction(sm, one_) * scale, Fraction(units, one_) * scale)


def f_log2(fmt, a):
    k, s, m = decode(fmt, a)
    if k == NAN:
        return fmt.qnan
    if k == ZERO:
        return fmt.sign | fmt.inf
    if s:
        return fmt.qnan
    if k == INF:
        return a
    e = floor_log2(m)
    mm = m / Fraction(2) ** e                            # in [1, 2)
    if mm == 1:
        return from_fraction(fmt, Fraction(e))           # log2(2^e) = e exactly
    if mm > Fraction(4, 3):
        mm /= 2
        e += 1                                           # mm in [2/3, 4/3]
    Q = fmt.p + PREC + 80
    one_ = 1 << Q
    sq = (mm - 1) / (mm + 1)                             # |s| <= 1/7
    sfix = math.floor(abs(sq) * one_)                    # error 1 unit; atanh is odd
    s2 = (sfix * sfix) >> Q
    pw, acc, j = sfix, sfix, 0
    while pw:
        j += 1
        pw = (pw * s2) >> Q
        acc += pw // (2 * j + 1)
    ln_m = 2 * acc if sq > 0 else -2 * acc                # error <= 2 (2j + 4) units
    ln2 = ln2_fixed(Q)
    y = Fraction(ln_m, ln2)                              # log2(mm)
    err = Fraction(2 * (4 * j + 8) * 2 + 4, ln2)         # generous: / ln2 < 1.45, + ln2's error
    return _decide(fmt, y + e, err)


# ---- the op table ------------------------------------------------------------------------

INT_BINARY = ['add', 'sub', 'mul', 'div', 'mod', 'min', 'max', 'and', 'or', 'xor', 'shl', 'shr']
INT_UNARY = ['neg', 'abs', 'not']
FLOAT_BINARY = ['add', 'sub', 'mul', 'div', 'mod', 'min', 'max']
FLOAT_UNARY = ['neg', 'abs', 'sqrt', 'recip', 'floor', 'ceil', 'trunc', 'exp2', 'log2', 'sin', 'cos']
COMPARES = ['lt', 'le', 'gt', 'ge', 'eq', 'ne']
BOOL_BINARY = ['and', 'or', 'xor', 'eq', 'ne']
BOOL_UNARY = ['not']
MATH = {'exp2', 'log2', 'sin', 'cos'}


def ops_of(t):
    """(op, arity, result type) of every op of 4.5 that takes operands of type t."""
    t = T(t)
    out = []
    if t.kind == 'bool':
        out += [(o, 2, 'bool') for o in BOOL_BINARY] + [('not', 1, 'bool')]
    elif t.kind == 'int':
        out += [(o, 2, t.name) for o in INT_BINARY] + [(o, 1, t.name) for o in INT_UNARY]
        out += [(o, 2, 'bool') for o in COMPARES]
    else:
        out += [(o, 2, t.name) for o in FLOAT_BINARY] + [(o, 1, t.name) for o in FLOAT_UNARY]
        out += [('fma', 3, t.name)] + [(o, 2, 'bool') for o in COMPARES]
    out.append(('select', 3, t.name))
    return out


def int_op(t, op, *x):
    a = x[0]
    b = x[1] if len(x) > 1 else None
    if op == 'add':
        return wrap(t, a + b)
    if op == 'sub':
        return wrap(t, a - b)
    if op == 'mul':
        return wrap(t, a * b)
    if op == 'neg':
        return wrap(t, -a)
    if op == 'abs':
        return wrap(t, abs(a))                           # abs MIN = MIN; unsigned: a itself
    if op in ('div', 'mod'):
        if b == 0:
            return 0 if op == 'div' else a               # div x 0 = 0, mod x 0 = x
        q = abs(a) // abs(b)                             # truncation toward zero
        if (a < 0) != (b < 0):
            q = -q
        # div MIN -1 = MIN and mod MIN -1 = 0 follow from wrapping the exact results
        return wrap(t, q) if op == 'div' else wrap(t, a - b * q)
    if op == 'min':
        return min(a, b)
    if op == 'max':
        return max(a, b)
    if op == 'and':
        return wrap(t, a & b)
    if op == 'or':
        return wrap(t, a | b)
    if op == 'xor':
        return wrap(t, a ^ b)
    if op == 'not':
        return wrap(t, ~a)
    if op in ('shl', 'shr'):
        n = b % t.bits                                   # the count modulo the bit width
        if op == 'shl':
            return wrap(t, a << n)
        return a >> n                                    # Python's >> is arithmetic on
        # negative values and logical on the non-negative values of an unsigned type
    if op in CMP:
        return int(CMP[op](a, b))
    raise KeyError(op)


FLOAT_FN = {
    'add': f_add, 'sub': f_sub, 'mul': f_mul, 'div': f_div, 'mod': f_mod, 'min': f_min,
    'max': f_max, 'neg': f_neg, 'abs': f_abs, 'sqrt': f_sqrt, 'recip': f_recip,
    'floor': f_floor, 'ceil': f_ceil, 'trunc': f_trunc, 'fma': f_fma, 'exp2': f_exp2,
    'log2': f_log2, 'sin': f_sin, 'cos': f_cos,
}


def apply(op, t, *x):
    """The value of `op x...` with operands of type t (bits for floats); None when the
    model cannot decide (only exp2 log2 sin cos, see the module's comment)."""
    t = T(t)
    if op == 'select':
        return x[1] if x[0] else x[2]
    if t.kind == 'bool':
        a = x[0]
        b = x[1] if len(x) > 1 else None
        return {'and': lambda: a & b, 'or': lambda: a | b, 'xor': lambda: a ^ b,
                'not': lambda: 1 - a, 'eq': lambda: int(a == b), 'ne': lambda: int(a != b)}[op]()
    if t.kind == 'int':
        return int_op(t, op, *x)
    if op in CMP:
        return f_cmp(t.fmt, op, *x)
    return FLOAT_FN[op](t.fmt, *x)


# ---- cast and bitcast (4.5, 2.5.2) --------------------------------------------------------


def cast(src, dst, x):
    src, dst = T(src), T(dst)
    if dst.kind == 'bool':                               # 2.5.2: ne x 0; a NaN is true
        if src.kind == 'float':
            return 0 if decode(src.fmt, x)[0] == ZERO else 1
        return int(x != 0)
    if src.kind == 'bool':                               # 0 or 1
        return x if dst.kind == 'int' else from_fraction(dst.fmt, Fraction(x))
    if src.kind == 'int':
        if dst.kind == 'int':
            return wrap(dst, x)                          # wraps or extends
        return from_fraction(dst.fmt, Fraction(x))       # nearest even; no int overflows f32
    k, s, m = decode(src.fmt, x)
    if dst.kind == 'float':
        if k == NAN:
            return dst.fmt.qnan
        if k == INF:
            return (dst.fmt.sign if s else 0) | dst.fmt.inf
        return encode(dst.fmt, s, m)                     # f64 to f32 rounds, ±inf past the range
    if k == NAN:                                         # float to integer
        return 0
    if k == INF:
        return dst.min if s else dst.max
    i = math.trunc(-m if s else m)                       # truncates, then saturates
    return min(max(i, dst.min), dst.max)


def bitcast(src, dst, x):
    """The same bits as another type of the same size; a float NaN is seen as the canonical
    NaN (2.4.2)."""
    src, dst = T(src), T(dst)
    assert src.bits == dst.bits and 'bool' not in (src.kind, dst.kind)
    if src.kind == 'float':
        bits = src.fmt.qnan if is_nan(src.fmt, x) else x
    else:
        bits = to_unsigned_bits(src, x)
    if dst.kind == 'float':
        return bits
    return wrap(dst, bits)


def same(t, a, b):
    """Bit for bit, every NaN equal to every other NaN (2.4.2)."""
    t = T(t)
    if t.kind == 'float' and is_nan(t.fmt, a) and is_nan(t.fmt, b):
        return True
    return a == b


def show(t, v):
    """A value as run prints it (10.1); floats also with their bits."""
    t = T(t)
    if v is None:
        return '?'
    if t.kind == 'float':
        return '%s (0x%0*x)' % (format_float(t.fmt, v), t.bits // 4, v)
    return str(v)


def text(t, v):
    """A value exactly as run prints it (10.1)."""
    t = T(t)
    if t.kind == 'float':
        return format_float(t.fmt, v)
    return str(v)


def parse(t, s):
    """A printed value (10.1) or an `# expect` value back to the model's representation."""
    t = T(t)
    if t.kind == 'float':
        return parse_float(t.fmt, s)
    if t.kind == 'bool':
        return {'0': 0, '1': 1, 'true': 1, 'false': 0}[s]
    v = int(s, 0)
    if t.min <= v <= t.max:
        return v
    raise ValueError('%s is not a %s' % (s, t.name))


# ---- INIT (3.2) and the generator (3.3) ---------------------------------------------------

M64 = (1 << 64) - 1


def splitmix64(x):
    """3.3.1."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def init_random(t, seed, n, lo=None, hi=None):
    """`random SEED` and `random SEED LO HI` (3.3); lo, hi are the literals as Python
    numbers (int for integer literals, or a decimal string for float literals)."""
    return [random_value(t, splitmix64(((seed << 32) + i) & M64), lo, hi) for i in range(n)]


def random_value(t, z, lo=None, hi=None):
    """The element of type t that the 64 random bits z give (3.3), in [lo, hi) when given."""
    t = T(t)
    if t.kind == 'bool':
        return z & 1                                     # 3.3.6
    if t.kind == 'int':
        if lo is None:
            return wrap(t, z)                            # 3.3.6: the low bits
        # 3.3.5: LO + (z mod W) modulo 2^64, W = HI - LO; a whole 64-bit range has
        # W = 2^64 and z mod W = z (the value is LO + z: z itself for u64)
        w = hi - lo
        return wrap(t, lo + z % w)
    if t.fmt is F32:
        u = Fraction(z >> 40, 1 << 24)
    else:
        u = Fraction(z >> 11, 1 << 53)
    if lo is None:                                       # exactly -1 + 2u
        return from_fraction(t.fmt, -1 + 2 * u)
    # 3.3.2: LO, HI the f64 values nearest the literals; HI - LO, u * that and
    # LO + that are separate f64 operations, then rounded to the type
    L = parse_float(F64, str(lo))
    H = parse_float(F64, str(hi))
    d = f_sub(F64, H, L)
    ub = from_fraction(F64, u)
    r64 = f_add(F64, L, f_mul(F64, ub, d))
    r = cast('f64', t, r64)
    # 3.3.3: a result at or above HI (compared in f64) becomes the largest value of
    # the type below HI
    if f_cmp(F64, 'ge', cast(t, 'f64', r), H):
        r = largest_below(t.fmt, value(F64, H))
    return r


def largest_below(fmt, h):
    """The largest finite value of fmt below the Fraction h."""
    b = from_fraction(fmt, h)
    while value(fmt, b) is None or value(fmt, b) >= h:   # +inf steps down to the largest finite
        k, s, m = decode(fmt, b)
        if k == ZERO:
            b = fmt.sign | 1
        elif s:
            b += 1
        else:
            b -= 1
    return b


def init_iota(t, n):
    """`iota`: i (an i32) converted as by cast."""
    return [cast('i32', t, i) for i in range(n)]


# ---- self-checks ----------------------------------------------------------------------------


def _selfcheck():
    # 3.3.7
    assert splitmix64(3 << 32) == 0x4fad8879896d31fb
    v = init_random('f32', 3, 1)[0]
    assert value(F32, v) == Fraction(-0.3775167465209961), value(F32, v)
    assert format_float(F32, v) == '-0.37751675'
    # rounding against the host's IEEE arithmetic on easy cases
    for x in [0.1, 1 / 3, 1e-40, 1e-45, 3.4028234663852886e38, 5e-324, 1e308]:
        assert from_fraction(F64, Fraction(x)) == f64_bits(x)
        if abs(x) < 3.4e38:
            assert from_fraction(F32, Fraction(x)) == f32_bits(x), x
    assert from_fraction(F32, Fraction(16777217)) == f32_bits(16777216.0)
    assert from_fraction(F32, Fraction(2) ** 128) == F32.inf
    assert from_fraction(F32, Fraction(2) ** -150) == 0                    # a tie to even
    assert from_fraction(F32, Fraction(3) * Fraction(2) ** -151) == 1      # 1.5 units: up
    assert f_add(F32, f32_bits(1.0), f32_bits(2.0 ** -24)) == f32_bits(1.0)
    assert f_sqrt(F64, f64_bits(2.0)) == f64_bits(math.sqrt(2.0))
    assert f_fma(F64, f64_bits(0.1), f64_bits(10.0), f64_bits(-1.0)) == f64_bits(5.551115123125783e-17)
    assert f_mod(F64, f64_bits(-7.5), f64_bits(2.0)) == f64_bits(-1.5)
    assert int_op(TYPES['i32'], 'div', -2 ** 31, -1) == -2 ** 31
    assert int_op(TYPES['i32'], 'mod', -2 ** 31, -1) == 0
    assert int_op(TYPES['i8'], 'shr', -128, -1) == -1
    assert cast('f32', 'u8', f32_bits(-1.5)) == 0 and cast('f32', 'i8', f32_bits(300.0)) == 127
    assert f_exp2(F32, f32_bits(-150.0)) == 0 and f_exp2(F32, f32_bits(0.5)) == f32_bits(math.sqrt(2))
    assert f_log2(F64, f64_bits(8.0)) == f64_bits(3.0)
    assert f_sin(F64, f64_bits(1.0)) == f64_bits(0.8414709848078965)
    assert f_cos(F64, f64_bits(1.0)) == f64_bits(0.5403023058681398)
    assert f_log2(F64, f64_bits(10.0)) == f64_bits(3.321928094887362)
    assert f_exp2(F64, f64_bits(0.1)) == f64_bits(1.0717734625362931)
    print('model.py: self-checks pass')


if __name__ == '__main__':
    _selfcheck()
