#!/usr/bin/python3
"""An independent model of `uir run` for the subset of .uir the verify suite uses.

Written from the definition of the language (docs/language.md, sections 1-5), not from uir's
code or output: i32 and bool values only, every loop run sequentially (axes ignored: a program
means its plain loops, docs/language.md 4.4.2), allocs zeroed at each iteration of their home. It
prints one `# expect NAME: ...` line per buffer named on the command line (default: every buffer).

    model.py FILE.uir [NAME ...]
"""
import sys

MASK = 0xFFFFFFFF


def wrap(v):
    v &= MASK
    return v - (1 << 32) if v & 0x80000000 else v


def splitmix64(x):
    M = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


assert splitmix64(3 * 2**32 + 0) == 0x4fad8879896d31fb  # the check value of docs/language.md 3.3.7


def tokenize(text):
    toks = []  # (kind, value, line)
    for ln, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0]
        i = 0
        while i < len(line):
            c = line[i]
            if c.isspace():
                i += 1
            elif c in "(){}[]=":
                toks.append((c, c, ln))
                i += 1
            else:
                j = i
                while j < len(line) and not line[j].isspace() and line[j] not in "(){}[]=":
                    j += 1
                toks.append(("w", line[i:j], ln))
                i = j
        toks.append(("nl", "\n", ln))
    return toks


class Parser:
    def __init__(self, toks):
        self.t = toks
        self.i = 0
        self.paren = 0

    def peek(self):
        # inside parentheses or brackets, line breaks are ignored
        while self.paren and self.t[self.i][0] == "nl":
            self.i += 1
        return self.t[self.i] if self.i < len(self.t) else ("eof", None, 0)

    def next(self):
        tok = self.peek()
        self.i += 1
        return tok

    def skip_nl(self):
        while self.i < len(self.t) and self.t[self.i][0] == "nl":
            self.i += 1

    def arg(self):
        k, v, _ = self.next()
        if k == "(":
            self.paren += 1
            e = self.expr()
            self.paren -= 1
            assert self.next()[0] == ")"
            return e
        assert k == "w", (k, v)
        return atom(v)

    def expr(self):
        k, v, _ = self.peek()
        if k == "(":
            return self.arg()
        self.next()
        if v in OPS:
            n = OPS[v]
            args = [self.arg() for _ in range(n)]
            return ("op", v, args)
        return atom(v)

    def block(self):
        assert self.next()[0] == "{"
        body = []
        while True:
            self.skip_nl()
            if self.peek()[0] == "}":
                self.next()
                return body
            body.append(self.stmt())

    def stmt(self):
        k, v, ln = self.next()
        assert k == "w", (k, v, ln)
        if v == "let":
            name = self.next()[1]
            assert self.next()[0] == "="
            return ("let", name, self.expr())
        if v == "store":
            return ("store", self.next()[1], self.arg(), self.arg())
        if v.startswith("atomic."):
            return ("atomic", v[7:], self.next()[1], self.arg(), self.arg())
        if v == "loop":
            name = self.next()[1]
            bound = self.arg()
            axis = None
            if self.peek()[0] == "w":
                axis = self.next()[1]
            return ("loop", name, bound, axis, self.block())
        if v == "if":
            cond = self.arg()
            then = self.block()
            els = []
            if self.peek()[0] == "w" and self.peek()[1] == "else":
                self.next()
                if self.peek()[0] == "w" and self.peek()[1] == "if":
                    els = [self.stmt()]
                else:
                    els = self.block()
            return ("if", cond, then, els)
        raise SyntaxError("line %d: %s" % (ln, v))

    def program(self):
        decls, body = [], []
        while True:
            self.skip_nl()
            k, v, ln = self.peek()
            if k == "eof":
                return decls, body
            if v in ("buffer", "alloc"):
                self.next()
                name = self.next()[1]
                typ = self.next()[1]
                size = int(self.next()[1], 0)
                init = ("zeros",)
                if v == "buffer" and self.peek()[0] == "=":
                    self.next()
                    init = self.init()
                assert typ == "i32", "the model knows i32 memory only"
                decls.append((v, name, size, init))
            else:
                body.append(self.stmt())

    def init(self):
        k, v, _ = self.next()
        if k == "[":
            self.paren += 1
            vals = []
            while self.peek()[0] != "]":
                vals.append(int(self.next()[1], 0))
            self.paren -= 1
            self.next()
            return ("list", vals)
        if v == "iota":
            return ("iota",)
        if v == "zeros":
            return ("zeros",)
        if v == "fill":
            return ("fill", int(self.next()[1], 0))
        if v == "random":
            seed = int(self.next()[1], 0)
            if self.peek()[0] == "w":
                lo = int(self.next()[1], 0)
                hi = int(self.next()[1], 0)
                return ("random", seed, lo, hi)
            return ("random", seed, None, None)
        raise SyntaxError(v)


OPS = {"add": 2, "sub": 2, "mul": 2, "div": 2, "mod": 2, "min": 2, "max": 2, "neg": 1,
       "abs": 1, "shl": 2, "shr": 2, "and": 2, "or": 2, "xor": 2, "not": 1, "lt": 2,
       "le": 2, "gt": 2, "ge": 2, "eq": 2, "ne": 2, "select": 3, "load": 2}


def atom(v):
    if v == "true":
        return ("lit", True)
    if v == "false":
        return ("lit", False)
    try:
        return ("lit", wrap(int(v, 0)) if not v.startswith("-") else wrap(-int(v[1:], 0)))
    except ValueError:
        return ("name", v)


def tdiv(a, b):
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return wrap(q if (a < 0) == (b < 0) else -q)


def tmod(a, b):
    if b == 0:
        return a
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def evaluate(e, env, mem):
    kind = e[0]
    if kind == "lit":
        return e[1]
    if kind == "name":
        return env[e[1]]
    op, args = e[1], e[2]
    if op == "load":
        buf = mem[args[0][1]]
        off = evaluate(args[1], env, mem)
        if not 0 <= off < len(buf):
            raise IndexError("%s[%d] out of bounds" % (args[0][1], off))
        return buf[off]
    a = [evaluate(x, env, mem) for x in args]
    if op == "select":
        return a[1] if a[0] else a[2]
    if isinstance(a[0], bool):
        if op == "and":
            return a[0] and a[1]
        if op == "or":
            return a[0] or a[1]
        if op == "xor":
            return a[0] != a[1]
        if op == "not":
            return not a[0]
        if op == "eq":
            return a[0] == a[1]
        if op == "ne":
            return a[0] != a[1]
        raise TypeError(op)
    x = a[0]
    y = a[1] if len(a) > 1 else None
    return {
        "add": lambda: wrap(x + y), "sub": lambda: wrap(x - y), "mul": lambda: wrap(x * y),
        "div": lambda: tdiv(x, y), "mod": lambda: tmod(x, y), "min": lambda: min(x, y),
        "max": lambda: max(x, y), "neg": lambda: wrap(-x), "abs": lambda: wrap(abs(x)),
        "shl": lambda: wrap(x << (y & 31)), "shr": lambda: x >> (y & 31),
        "and": lambda: wrap(x & y), "or": lambda: wrap(x | y), "xor": lambda: wrap(x ^ y),
        "not": lambda: wrap(~x), "lt": lambda: x < y, "le": lambda: x <= y,
        "gt": lambda: x > y, "ge": lambda: x >= y, "eq": lambda: x == y,
        "ne": lambda: x != y,
    }[op]()


def accesses(stmts, stack, out):
    """For each memory, the loop stacks (lists of loop nodes) of its accesses."""
    def in_expr(e, stack):
        if e[0] == "op":
            if e[1] == "load":
                out.setdefault(e[2][0][1], []).append(stack)
            for x in e[2]:
                in_expr(x, stack)
    for s in stmts:
        if s[0] == "let":
            in_expr(s[2], stack)
        elif s[0] in ("store", "atomic"):
            name = s[1] if s[0] == "store" else s[2]
            out.setdefault(name, []).append(stack)
            for x in s[2:]:
                if isinstance(x, tuple):
                    in_expr(x, stack)
        elif s[0] == "loop":
            in_expr(s[2], stack)
            accesses(s[4], stack + [s], out)
        elif s[0] == "if":
            in_expr(s[1], stack)
            accesses(s[2], stack, out)
            accesses(s[3], stack, out)


def run(path):
    decls, body = Parser(tokenize(open(path).read())).program()
    mem, order, homes = {}, [], {}
    for kind, name, size, init in decls:
        if init[0] == "zeros":
            vals = [0] * size
        elif init[0] == "fill":
            vals = [init[1]] * size
        elif init[0] == "iota":
            vals = list(range(size))
        elif init[0] == "list":
            assert len(init[1]) == size
            vals = list(init[1])
        else:
            seed, lo, hi = init[1:]
            vals = []
            for i in range(size):
                z = splitmix64((seed * 2**32 + i) % 2**64)
                vals.append(wrap(lo + z % (hi - lo)) if lo is not None else wrap(z))
        mem[name] = vals
        if kind == "buffer":
            order.append(name)
    acc = {}
    accesses(body, [], acc)
    for kind, name, size, init in decls:
        if kind != "alloc" or name not in acc:
            continue
        stacks = acc[name]
        common = stacks[0]
        for s in stacks[1:]:
            n = 0
            while n < min(len(common), len(s)) and common[n] is s[n]:
                n += 1
            common = common[:n]
        home = [l for l in common if l[3] in ("thread", "global")]
        if home:
            homes.setdefault(id(home[-1]), []).append((name, size))

    def execute(stmts, env):
        env = dict(env)
        for s in stmts:
            if s[0] == "let":
                env[s[1]] = evaluate(s[2], env, mem)
            elif s[0] == "store":
                off = evaluate(s[2], env, mem)
                val = evaluate(s[3], env, mem)
                buf = mem[s[1]]
                if not 0 <= off < len(buf):
                    raise IndexError("%s[%d] out of bounds" % (s[1], off))
                buf[off] = wrap(int(val))
            elif s[0] == "atomic":
                op, name = s[1], s[2]
                off = evaluate(s[3], env, mem)
                val = evaluate(s[4], env, mem)
                buf = mem[name]
                if not 0 <= off < len(buf):
                    raise IndexError("%s[%d] out of bounds" % (name, off))
                buf[off] = {"add": lambda a, b: wrap(a + b), "min": min, "max": max}[op](buf[off], val)
            elif s[0] == "loop":
                n = evaluate(s[2], env, mem)
                for i in range(n):
                    for name, size in homes.get(id(s), []):
                        mem[name] = [0] * size
                    inner = dict(env)
                    inner[s[1]] = i
                    execute(s[4], inner)
            elif s[0] == "if":
                execute(s[2] if evaluate(s[1], env, mem) else s[3], env)

    execute(body, {})
    return {name: mem[name] for name in order}, order


def main():
    path = sys.argv[1]
    bufs, order = run(path)
    names = sys.argv[2:] or order
    for name in names:
        print("# expect %s: %s" % (name, " ".join(str(v) for v in bufs[name])))


if __name__ == "__main__":
    main()
