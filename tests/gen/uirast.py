"""uirast.py - a small syntax tree for .uir programs: nodes, a printer and a parser.

Shared by the program generator (uirgen.py), the mutator (uirmut.py) and the differential
runner (difftest.py), which shrinks failing programs on this tree. The parser reads any
program that `uir check` accepts syntactically (docs/language.md sections 1 and 4); declarations are
kept as their text, with name, type and size picked out. Python 3 standard library only.
"""

import re

# ---------------------------------------------------------------- nodes


class Expr:
    """An expression: an atom (op is None, text is the name or literal) or an op applied to
    arguments (op is the op word with its suffix, 'load.4'; args a list of Expr). `meta` is a
    free dict for the generator (types, roles) and is never printed."""

    __slots__ = ('op', 'args', 'text', 'meta', 'nid')

    def __init__(self, op=None, args=None, text=None, meta=None):
        self.op = op
        self.args = args if args is not None else []
        self.text = text
        self.meta = meta if meta is not None else {}
        self.nid = None

    def is_atom(self):
        return self.op is None

    def __repr__(self):
        return 'Expr(%s)' % print_expr(self)


class Stmt:
    """A statement. kind is one of:
    'decl'    text (the whole declaration), name, mtype, size, is_alloc
    'let'     name, expr
    'store'   op ('store' or 'store.K'), args [buffer atom, offset, value]
    'atomic'  op ('atomic.add' ...), args [buffer atom, offset, value]
    'loop'    name, bound (Expr), axis (None, 'unroll', 'thread', 'global', 'local'), body
    'if'      cond (Expr), body (then statements), els (None or a list)
    'raw'     text, printed as it is (comments)."""

    __slots__ = ('kind', 'name', 'expr', 'op', 'args', 'bound', 'axis', 'body', 'els',
                 'cond', 'text', 'mtype', 'size', 'is_alloc', 'meta', 'nid')

    def __init__(self, kind, **kw):
        self.kind = kind
        self.name = kw.get('name')
        self.expr = kw.get('expr')
        self.op = kw.get('op')
        self.args = kw.get('args', [])
        self.bound = kw.get('bound')
        self.axis = kw.get('axis')
        self.body = kw.get('body', [])
        self.els = kw.get('els')
        self.cond = kw.get('cond')
        self.text = kw.get('text')
        self.mtype = kw.get('mtype')
        self.size = kw.get('size')
        self.is_alloc = kw.get('is_alloc', False)
        self.meta = kw.get('meta', {})
        self.nid = None

    def __repr__(self):
        return 'Stmt(%s)' % print_stmts([self]).strip()


class Program:
    """A whole file: `header` is the list of leading comment lines (directives and prose,
    without their newline), `stmts` the top-level declarations and statements in order."""

    def __init__(self, header=None, stmts=None):
        self.header = header if header is not None else []
        self.stmts = stmts if stmts is not None else []
        self.meta = {}

    def text(self):
        out = ''.join(h + '\n' for h in self.header)
        return out + print_stmts(self.stmts)


def atom(text, **meta):
    """A name or literal atom."""
    return Expr(text=str(text), meta=meta)


def op(name, *args, **meta):
    """An op node; arguments that are str or int become atoms."""
    return Expr(op=name, args=[a if isinstance(a, Expr) else atom(a) for a in args],
                meta=meta)


# ---------------------------------------------------------------- printing


def print_arg(e):
    """An argument: an atom as it is, anything else in parentheses."""
    return e.text if e.op is None else '(' + print_expr(e) + ')'


def print_expr(e):
    """An expression at statement level (no outer parentheses)."""
    if e.op is None:
        return e.text
    return ' '.join([e.op] + [print_arg(a) for a in e.args])


def print_stmts(stmts, indent=0):
    """The text of a statement list, two blanks of indentation per level."""
    pad = '  ' * indent
    out = []
    for s in stmts:
        k = s.kind
        if k in ('decl', 'raw'):
            out.append(pad + s.text + '\n')
        elif k == 'let':
            out.append('%slet %s = %s\n' % (pad, s.name, print_expr(s.expr)))
        elif k in ('store', 'atomic'):
            out.append(pad + ' '.join([s.op] + [print_arg(a) for a in s.args]) + '\n')
        elif k == 'loop':
            ax = (' ' + s.axis) if s.axis else ''
            out.append('%sloop %s %s%s {\n' % (pad, s.name, print_arg(s.bound), ax))
            out.append(print_stmts(s.body, indent + 1))
            out.append(pad + '}\n')
        elif k == 'if':
            out.append('%sif %s {\n' % (pad, print_arg(s.cond)))
            out.append(print_stmts(s.body, indent + 1))
            if s.els is not None:
                out.append(pad + '} else {\n')
                out.append(print_stmts(s.els, indent + 1))
            out.append(pad + '}\n')
        else:
            raise ValueError('unknown statement kind ' + k)
    return ''.join(out)


# ---------------------------------------------------------------- walking


def walk_stmts(stmts):
    """Every statement of a list, depth first, in source order."""
    for s in stmts:
        yield s
        if s.kind == 'loop':
            yield from walk_stmts(s.body)
        elif s.kind == 'if':
            yield from walk_stmts(s.body)
            if s.els is not None:
                yield from walk_stmts(s.els)


def stmt_exprs(s):
    """The expressions directly held by statement s (not those of nested statements)."""
    if s.kind == 'let':
        return [s.expr]
    if s.kind in ('store', 'atomic'):
        return list(s.args)
    if s.kind == 'loop':
        return [s.bound]
    if s.kind == 'if':
        return [s.cond]
    return []


def walk_expr(e):
    """Every node of expression e, parents before children."""
    yield e
    for a in e.args:
        yield from walk_expr(a)


def number_nodes(prog):
    """Give every statement and expression node of prog a distinct nid (0, 1, ...), so that
    a node can be found again in a deep copy."""
    n = 0
    for s in walk_stmts(prog.stmts):
        s.nid = n
        n += 1
        for e in stmt_exprs(s):
            for x in walk_expr(e):
                x.nid = n
                n += 1
    return n


def find_nid(prog, nid):
    """The node with this nid, with its parent: (node, parent statement or expression,
    the list that holds it or None)."""
    def in_list(stmts):
        for s in stmts:
            if s.nid == nid:
                return s, None, stmts
            for e in stmt_exprs(s):
                r = in_expr(e, s)
                if r:
                    return r
            if s.kind == 'loop':
                r = in_list(s.body)
                if r:
                    return r
            elif s.kind == 'if':
                r = in_list(s.body) or (s.els is not None and in_list(s.els))
                if r:
                    return r
        return None

    def in_expr(e, parent):
        if e.nid == nid:
            return e, parent, None
        for a in e.args:
            r = in_expr(a, e)
            if r:
                return r
        return None

    return in_list(prog.stmts)


def replace_expr(parent, old, new):
    """Replace child expression `old` of parent (a Stmt or Expr) by `new`."""
    if isinstance(parent, Stmt):
        if parent.expr is old:
            parent.expr = new
            return
        if parent.bound is old:
            parent.bound = new
            return
        if parent.cond is old:
            parent.cond = new
            return
    for i, a in enumerate(parent.args):
        if a is old:
            parent.args[i] = new
            return
    raise ValueError('not a child')


# ---------------------------------------------------------------- parsing

_TOKEN = re.compile(r'[ \t\r]+|#[^\n]*|\n|"[^"\n]*"|[(){}\[\]=]|[^\s(){}\[\]=#"]+')


class ParseError(Exception):
    pass


def _tokens(text):
    """(kind, text, line) tokens; kind is 'nl', 'punct', 'str' or 'word'. Comments vanish."""
    toks = []
    line = 1
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ParseError('line %d: bad character %r' % (line, text[pos]))
        t = m.group(0)
        pos = m.end()
        if t == '\n':
            toks.append(('nl', t, line))
            line += 1
        elif t[0] in ' \t\r' or t[0] == '#':
            continue
        elif t[0] == '"':
            toks.append(('str', t, line))
        elif t in '(){}[]=':
            toks.append(('punct', t, line))
        else:
            toks.append(('word', t, line))
    toks.append(('eof', '', line))
    return toks


class _Parser:
    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0  # open ( and [: newlines inside them are ignored

    def peek(self):
        while self.depth > 0 and self.toks[self.i][0] == 'nl':
            self.i += 1
        return self.toks[self.i]

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, text):
        t = self.next()
        if t[1] != text:
            raise ParseError('line %d: expected %r, got %r' % (t[2], text, t[1]))
        return t

    def skip_nl(self):
        while self.toks[self.i][0] == 'nl':
            self.i += 1

    def at_end_of_stmt(self):
        t = self.peek()
        return t[0] in ('nl', 'eof') or t[1] in ('{', '}', ')')

    def arg(self):
        t = self.next()
        if t[1] == '(':
            self.depth += 1
            e = self.expr()
            self.expect(')')
            self.depth -= 1
            return e
        if t[0] != 'word':
            raise ParseError('line %d: expected an argument, got %r' % (t[2], t[1]))
        return atom(t[1])

    def expr(self):
        t = self.next()
        if t[1] == '(':
            self.depth += 1
            e = self.expr()
            self.expect(')')
            self.depth -= 1
            if not self.at_end_of_stmt():
                raise ParseError('line %d: operands after a parenthesised op' % t[2])
            return e
        if t[0] != 'word':
            raise ParseError('line %d: expected an expression, got %r' % (t[2], t[1]))
        if self.at_end_of_stmt():
            return atom(t[1])
        args = []
        while not self.at_end_of_stmt():
            args.append(self.arg())
        return Expr(op=t[1], args=args)

    def block(self):
        self.expect('{')
        body = self.stmts(top=False)
        self.expect('}')
        return body

    def stmts(self, top):
        out = []
        while True:
            self.skip_nl()
            t = self.peek()
            if t[0] == 'eof':
                if not top:
                    raise ParseError('missing }')
                return out
            if t[1] == '}':
                if top:
                    raise ParseError('line %d: extra }' % t[2])
                return out
            out.append(self.stmt())

    def stmt(self):
        t = self.next()
        w = t[1]
        if w in ('buffer', 'alloc'):
            words = [w]
            while True:
                u = self.peek()
                if u[0] in ('nl', 'eof') or u[1] == '}':
                    break
                self.i += 1
                if u[1] == '[':
                    self.depth += 1
                elif u[1] == ']':
                    self.depth -= 1
                words.append(u[1])
            if len(words) < 4:
                raise ParseError('line %d: short declaration' % t[2])
            text = ' '.join(words).replace('[ ', '[').replace(' ]', ']')
            try:
                size = int(words[3], 0)
            except ValueError:
                size = None
            return Stmt('decl', text=text, name=words[1], mtype=words[2], size=size,
                        is_alloc=(w == 'alloc'))
        if w == 'let':
            name = self.next()[1]
            self.expect('=')
            return Stmt('let', name=name, expr=self.expr())
        if w == 'store' or w.startswith('store.') or w.startswith('atomic.'):
            args = [self.arg(), self.arg(), self.arg()]
            kind = 'atomic' if w.startswith('atomic.') else 'store'
            return Stmt(kind, op=w, args=args)
        if w == 'loop':
            name = self.next()[1]
            bound = self.arg()
            axis = None
            if self.peek()[1] != '{':
                axis = self.next()[1]
            return Stmt('loop', name=name, bound=bound, axis=axis, body=self.block())
        if w == 'if':
            cond = self.arg()
            body = self.block()
            els = None
            if self.peek()[1] == 'else':
                self.next()
                if self.peek()[1] == 'if':
                    els = [self.stmt()]
                else:
                    els = self.block()
            return Stmt('if', cond=cond, body=body, els=els)
        raise ParseError('line %d: unexpected %r' % (t[2], w))


def parse(text):
    """Parse a whole .uir file into a Program (leading comment lines kept as its header).
    Raises ParseError on text this small parser does not understand."""
    lines = text.split('\n')
    header = []
    for ln in lines:
        if ln.startswith('#'):
            header.append(ln.rstrip('\r'))
        else:
            break
    p = _Parser(text)
    return Program(header=header, stmts=p.stmts(top=True))


def alloc_homes(prog):
    """The home of every alloc (docs/language.md 5.2.1): name -> the innermost `thread` or `global`
    loop Stmt that contains every access of it, or None (no home, or never accessed)."""
    allocs = {s.name for s in prog.stmts if s.kind == 'decl' and s.is_alloc}
    stacks = {}

    def note(name, stack):
        if name in allocs:
            if name in stacks:
                old = stacks[name]
                n = 0
                while n < len(old) and n < len(stack) and old[n] is stack[n]:
                    n += 1
                stacks[name] = old[:n]
            else:
                stacks[name] = list(stack)

    def in_expr(e, stack):
        if e.op is not None:
            if (e.op == 'load' or e.op.startswith('load.')) and e.args and e.args[0].op is None:
                note(e.args[0].text, stack)
            for a in e.args:
                in_expr(a, stack)

    def in_list(stmts, stack):
        for s in stmts:
            if s.kind in ('store', 'atomic') and s.args and s.args[0].op is None:
                note(s.args[0].text, stack)
            for e in stmt_exprs(s):
                in_expr(e, stack)
            if s.kind == 'loop':
                inner = stack + [s] if s.axis in ('thread', 'global') else stack
                in_list(s.body, inner)
            elif s.kind == 'if':
                in_list(s.body, stack)
                if s.els is not None:
                    in_list(s.els, stack)

    in_list(prog.stmts, [])
    return {n: (stacks[n][-1] if stacks.get(n) else None) for n in allocs}
