#!/usr/bin/env python3
"""check_tables.py - the VS Code extension against the C sources (docs/editors.md, "Tests").

    check_tables.py ROOT [UIR]

Reads the words of the language where the C code defines them (the op table UIR_OPS in
src/uir_internal.h, the reserved words of src/front/parse.c, the type names of
src/front/types.c, the axes of src/front/ops.c, the literal words of src/front/lex.c, the
vector widths of src/front/types.c, the test directives of src/runner/directives.c) and
fails when

* the grammar (editors/vscode/syntaxes/uir.tmLanguage.json) lacks one of them, or lists a
  word the C code does not have;
* a scope the grammar can give, or a word of those lists, has no assertion in the
  grammar tests (editors/vscode/tests/*.uir, vscode-tmgrammar-test's format);
* package.json does not contribute the language, the grammar and the problem matcher, or
  language-configuration.json lacks the comment character, the brackets or indentation
  rules that indent after `{` and back at `}`;
* (with UIR, the `uir` executable) the problem matcher's pattern does not read what
  `uir check` and `uir run --racecheck` print (docs/language.md 9.1), or a test file that
  says it is a valid program is not one.

It needs only Python; the grammar tests themselves run under Node (run_grammar_tests.py).
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

WORD = r'[A-Za-z0-9_ ]+'


def fail(errors):
    for e in errors:
        print('FAIL: ' + e)
    sys.exit(1)


# ---- the C tables ----

def c_tables(root):
    src = root / 'src'
    internal = (src / 'uir_internal.h').read_text()
    ops_table = internal[internal.index('#define UIR_OPS(X)'):]
    ops_table = ops_table[:ops_table.index('\n\n')]
    ops = re.findall(r'X\(\s*\w+\s*,\s*"([^"]+)"', ops_table)

    parse = (src / 'front' / 'parse.c').read_text()
    kw = re.search(r'static const char \*const keywords\[\] = \{(.*?)\};', parse, re.S).group(1)
    reserved = re.findall(r'"([^"]+)"', kw)
    init = re.findall(r'word_is\(&w, "([^"]+)"\)', parse)
    atomic = re.findall(r'memcmp\(opn, "([^"]+)"', parse)

    types_c = (src / 'front' / 'types.c').read_text()
    tn = re.search(r'type_names\[UIR_NTYPES\] = \{(.*?)\};', types_c, re.S).group(1)
    types = re.findall(r'"([^"]+)"', tn)
    vw = re.search(r'static bool valid_width\(int k\) \{ return ([^;]*); \}', types_c).group(1)
    widths = re.findall(r'k == (\d+)', vw)

    ops_c = (src / 'front' / 'ops.c').read_text()
    ax = re.search(r'axis_name\[\] = \{(.*?)\};', ops_c, re.S).group(1)
    axes = [a for a in re.findall(r'"([^"]*)"', ax) if a]

    lex = (src / 'front' / 'lex.c').read_text()
    lw = re.search(r'bool litword = (.*?);', lex, re.S).group(1)
    litwords = re.findall(r'"([a-z]+)"', lw)

    directives_c = (src / 'runner' / 'directives.c').read_text()
    plain = re.findall(r'\{ "# ([^"]+)", UT_MODE_\w+ \}', directives_c)
    prefixes = re.findall(r'strncmp\(line, "# ([^"]+?):? ", \d+\)', directives_c)
    directive_words = set()
    for d in plain:
        directive_words.update(w for w in re.split(r':? ', d) if w)
    directive_words.update(prefixes)

    t = {
        'op': ops, 'type': types, 'axis': axes, 'init': init, 'atomic': atomic,
        'literal': litwords, 'width': widths, 'directive': sorted(directive_words),
        'directive forms': plain,
    }
    t['keyword'] = [w for w in reserved if w not in set(axes) | set(init) | set(litwords)]
    # every reserved word is one of these kinds (docs/language.md 1.2.2)
    assert set(reserved) == set(t['keyword']) | set(axes) | set(init) | set(litwords)
    for k, v in t.items():
        if not v:
            fail(['found no %s words in the C sources: has the code moved?' % k])
    return t


# ---- the grammar ----

def capture_groups(regex):
    """{number: text} of the numbered groups of an Oniguruma REGEX (no named groups)."""
    groups, stack, n, i = {}, [], 0, 0
    while i < len(regex):
        c = regex[i]
        if c == '\\':
            i += 2
            continue
        if c == '[':  # a class: skip to its end
            i += 1
            if i < len(regex) and regex[i] == '^':
                i += 1
            if i < len(regex) and regex[i] == ']':
                i += 1
            while i < len(regex) and regex[i] != ']':
                i += 2 if regex[i] == '\\' else 1
        elif c == '(':
            if regex.startswith('(?', i):
                stack.append(None)
            else:
                n += 1
                stack.append((n, i + 1))
        elif c == ')':
            g = stack.pop()
            if g:
                groups[g[0]] = regex[g[1]:i]
        i += 1
    return groups


def words_of(text):
    """The words of a group that is a plain alternation (`add|sub`, `-?inf|nan`), else None."""
    alts = [re.sub(r'^-\?', '', a) for a in text.split('|')]
    return alts if all(re.fullmatch(WORD, a) for a in alts) else None


def grammar_scopes(grammar):
    """(every scope name the grammar gives, {scope: set of words} of word-list captures)."""
    names, words = set(), {}

    def caps(rule, regex_key, caps_key):
        regex = rule.get(regex_key)
        for num, cap in rule.get(caps_key, {}).items():
            if 'name' in cap:
                names.add(cap['name'])
                g = capture_groups(regex).get(int(num)) if regex else None
                w = words_of(g) if g is not None else None
                if w:
                    words.setdefault(cap['name'], set()).update(w)

    def walk(rule):
        if isinstance(rule, dict):
            if 'name' in rule and isinstance(rule['name'], str) and ('match' in rule or 'begin' in rule):
                names.add(rule['name'])
            caps(rule, 'match', 'captures')
            caps(rule, 'begin', 'beginCaptures')
            caps(rule, 'begin', 'captures')
            caps(rule, 'end', 'endCaptures')
            for v in rule.values():
                walk(v)
        elif isinstance(rule, list):
            for v in rule:
                walk(v)

    walk(grammar['patterns'])
    walk(grammar['repository'])
    return names, words


# the scope of each kind of word
KIND_SCOPES = {
    'op': ['support.function.op.uir'],
    'atomic': ['support.function.atomic.uir'],
    'type': ['storage.type.uir'],
    'axis': ['storage.modifier.axis.uir'],
    'init': ['keyword.other.init.uir'],
    'literal': ['constant.language.float.uir', 'constant.language.boolean.uir'],
    'width': ['constant.numeric.width.uir'],
    'directive': ['keyword.control.directive.uir'],
    'keyword': ['keyword.declaration.memory.uir', 'keyword.declaration.let.uir',
                'keyword.control.loop.uir', 'keyword.control.conditional.uir',
                'keyword.other.store.uir', 'keyword.other.atomic.uir'],
}


def check_grammar(tables, words):
    errors = []
    known = {s for v in KIND_SCOPES.values() for s in v}
    for scope in sorted(set(words) - known):
        errors.append('the grammar lists the words %s as %s, which this check does not know'
                      % (sorted(words[scope]), scope))
    for kind, scopes in KIND_SCOPES.items():
        have = set().union(*(words.get(s, set()) for s in scopes))
        want = set(tables[kind])
        for w in sorted(want - have):
            errors.append('the grammar lacks the %s %r (%s)' % (kind, w, ' or '.join(scopes)))
        for w in sorted(have - want):
            errors.append('the grammar has the %s %r, which the C sources do not' % (kind, w))
    return errors


# ---- the grammar tests ----

LEFT = re.compile(r'^(\s*)<(~*)(-+)((?:\s*\w[-\w.]*)*)(?:\s*-)?((?:\s*\w[-\w.]*)*)\s*$')
UP = re.compile(r'^\s*((?:\^+\s*)+)((?:\s*\w[-\w.]*)*)(?:\s*-)?((?:\s*\w[-\w.]*)*)\s*$')


def assertions(path):
    """[(source line, text under the assertion, required scopes)] of a test file, read as
    vscode-tmgrammar-test reads it (a header line, then `#` lines of `^` or `<-`)."""
    lines = path.read_text().split('\n')
    if not re.match(r'^# SYNTAX TEST "source\.uir"', lines[0]):
        fail(['%s: the first line must be # SYNTAX TEST "source.uir"' % path])
    out, source = [], None
    for s in lines[1:]:
        rest = s[1:]
        if s.startswith('#') and re.match(r'^\s*(\^|<~*-+)', rest):
            if source is None:
                fail(['%s: an assertion before any source line' % path])
            m = UP.match(rest)
            if m:
                scopes = m.group(2).split()
                for r in re.finditer(r'\^+', rest):
                    out.append((source, source[1 + r.start():1 + r.end()], scopes))
                continue
            m = LEFT.match(rest)
            if not m:
                fail(['%s: cannot read the assertion %r' % (path, s)])
            a = len(m.group(2))
            out.append((source, source[a:a + len(m.group(3))], m.group(4).split()))
        else:
            source = s
    return out


# literal forms of docs/language.md 1.3 that the tests must show, each with its scope
LITERAL_FORMS = [
    (r'[0-9]+', 'constant.numeric.integer.decimal.uir', 'a decimal integer'),
    (r'-[0-9]+', 'constant.numeric.integer.decimal.uir', 'a negative integer'),
    (r'0x[0-9A-Fa-f]+', 'constant.numeric.integer.hexadecimal.uir', 'a hex integer'),
    (r'-0[xX][0-9A-Fa-f]+', 'constant.numeric.integer.hexadecimal.uir', 'a negative hex integer'),
    (r'-?[0-9]+\.[0-9]+', 'constant.numeric.float.uir', 'a float with a point'),
    (r'-?[0-9]+\.[0-9]+[eE][+-]?[0-9]+', 'constant.numeric.float.uir', 'a float with a point and an exponent'),
    (r'-?[0-9]+[eE][+-]?[0-9]+', 'constant.numeric.float.uir', 'a float with an exponent only'),
    (r'-inf', 'constant.language.float.uir', '-inf'),
    (r':', 'punctuation.separator.type.uir', 'the colon of a typed literal'),
    (r'[0-9]+\.', 'invalid.illegal.numeric.uir', '1. (not a literal)'),
    (r'\.[0-9]+', 'invalid.illegal.numeric.uir', '.5 (not a literal)'),
]


def check_tests(tests, tables, names, words):
    errors = []
    asserted = []
    for path in tests:
        asserted += assertions(path)
    scopes_asserted = {s for _, _, ss in asserted for s in ss}
    for scope in sorted(names - scopes_asserted):
        errors.append('no test asserts the scope %s' % scope)
    for scope, ws in sorted(words.items()):
        for w in sorted(ws):
            if not any(text == w and scope in ss for _, text, ss in asserted):
                errors.append('no test asserts %r as %s' % (w, scope))
    for form, scope, what in LITERAL_FORMS:
        if not any(re.fullmatch(form, text) and scope in ss for _, text, ss in asserted):
            errors.append('no test asserts %s (%s) as %s' % (what, form, scope))
    for d in tables['directive forms']:
        line = '# ' + d
        if not any(src.rstrip(' \t') == line and 'meta.directive.uir' in ss for src, _, ss in asserted):
            errors.append('no test asserts the directive line %r as meta.directive.uir' % line)
    return errors


# ---- package.json and the problem matcher ----

# (line, whether the next line is indented more, whether this line is indented less)
INDENT_CASES = [
    ('loop g 256 global {', True, False),
    ('  if (lt t s) { store p t 1 }', False, False),
    ('    } else {', True, True),
    ('}', False, True),
    ('buffer x f32 4 = [1.0 2.0', True, False),
    ('  3.0 4.0]', False, False),
    ('let o = add (mul g 256)', False, False),
    ('let o = add (mul g', True, False),
    ('# a comment {', False, False),
    ('loop i 4 {   # the rows', True, False),
]


def check_language_configuration(conf):
    """The comment character, the brackets and the indentation rules (JavaScript regexes,
    here read by Python's re, which reads these the same way)."""
    errors = []
    if conf.get('comments', {}).get('lineComment') != '#':
        errors.append('language-configuration.json: the line comment is not #')
    if sorted(map(tuple, conf.get('brackets', []))) != [('(', ')'), ('[', ']'), ('{', '}')]:
        errors.append('language-configuration.json: the brackets are not { }, [ ], ( )')
    rules = conf.get('indentationRules', {})
    inc = re.compile(rules.get('increaseIndentPattern', '(?!)'))
    dec = re.compile(rules.get('decreaseIndentPattern', '(?!)'))
    for line, more, less in INDENT_CASES:
        if bool(inc.search(line)) != more or bool(dec.search(line)) != less:
            errors.append('language-configuration.json: indentation after %r: want increase %s, '
                          'decrease %s' % (line, more, less))
    words = re.compile(conf.get('wordPattern', '(?!)'))
    for w in ('load.4', '-0x1F', '2.5e-3', '3:i64', '-inf', 'tile_2'):
        if not words.fullmatch(w):
            errors.append('language-configuration.json: %r is not one word' % w)
    return errors


def check_package(ext, grammar):
    errors = []
    pkg = json.loads((ext / 'package.json').read_text())
    c = pkg.get('contributes', {})
    langs = [l for l in c.get('languages', []) if l.get('id') == 'uir']
    if not langs or '.uir' not in langs[0].get('extensions', []):
        errors.append('package.json: no language uir with the extension .uir')
    elif not (ext / langs[0].get('configuration', 'none')).is_file():
        errors.append('package.json: the language configuration is missing')
    else:
        errors += check_language_configuration(json.loads((ext / langs[0]['configuration']).read_text()))
    gs = [g for g in c.get('grammars', []) if g.get('scopeName') == 'source.uir']
    if not gs or gs[0].get('language') != 'uir' or not (ext / gs[0]['path']).is_file():
        errors.append('package.json: no grammar source.uir for uir')
    if grammar.get('scopeName') != 'source.uir':
        errors.append('the grammar\'s scopeName is not source.uir')
    pm = [m for m in c.get('problemMatchers', []) if m.get('name') == 'uir']
    if not pm:
        errors.append('package.json: no problem matcher named uir')
        return errors, None
    tasks = json.loads((ext / 'tasks.json').read_text())
    checks = [t for t in tasks['tasks'] if t.get('args') == ['check', '${file}']]
    if not checks:
        errors.append('tasks.json: no task runs uir check ${file}')
    for t in tasks['tasks']:
        if t.get('args', [''])[0] in ('check', 'run') and t.get('problemMatcher') != '$uir':
            errors.append('tasks.json: the task %r does not use $uir' % t.get('label'))
    return errors, pm[0]['pattern']


def check_matcher(pattern, uir):
    """Runs `uir` on wrong programs and reads its standard error with PATTERN."""
    errors = []
    rx = re.compile(pattern['regexp'])
    cases = [
        # (program, command, [(severity, code, line, col)] of the lines the matcher reads)
        ('buffer x f32 4\nloop t 8 thread {\n  store x 0 1.0\n}\n', ['check'],
         [('error', 'E0502', 3, 11)]),
        ('buffer x f32 4\nstore x 0 (add 1 true)\n', ['check'], [('error', 'E0203', 2, 16)]),
        ('buffer x i32 4\nlet = 3\n', ['check'], [('error', 'E0101', 2, 5)]),
        ('buffer x f32 8\nloop t 4 thread {\n  store x t 1.0\n  store x (add t 1) 2.0\n}\n',
         ['run', '--racecheck'], [('error', 'E0504', 3, 3), ('note', None, 4, 3)]),
        # a diagnostic's echo of a source line that itself looks like one is not read
        ('buffer out i32 4\nloop t 2 thread {\n  store out 0 t   # see a.uir:1:2: error[E0101]: fake\n}\n',
         ['check'], [('error', 'E0502', 3, 13)]),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (text, cmd, want) in enumerate(cases):
            path = pathlib.Path(tmp) / ('p%d.uir' % i)
            path.write_text(text)
            r = subprocess.run([uir, *cmd, str(path)], capture_output=True, text=True, timeout=60)
            got = []
            for line in r.stderr.splitlines():
                m = rx.match(line)
                if m:
                    g = lambda k: m.group(pattern[k]) if pattern.get(k) else None
                    got.append((g('file'), g('severity'), g('code'), int(g('line')), int(g('column')),
                                g('message')))
            exp = [(str(path), s, c, l, col) for s, c, l, col in want]
            if [x[:5] for x in got] != exp or not all(x[5] for x in got):
                errors.append('the problem matcher reads %r from `uir %s`:\n%s\nexpected %r'
                              % (got, ' '.join(cmd), r.stderr, exp))
    return errors


VALID = 'this file is also a valid program'


def check_valid_tests(tests, uir):
    """`uir check` of the test files that say they are valid programs (their assertion lines
    are comments to uir)."""
    errors = []
    for path in tests:
        if VALID in path.read_text().split('\n')[1]:
            r = subprocess.run([uir, 'check', str(path)], capture_output=True, text=True, timeout=60)
            if r.returncode != 0:
                errors.append('%s says it is a valid program, but uir check says:\n%s' % (path, r.stderr))
    return errors


def main():
    root = pathlib.Path(sys.argv[1])
    uir = sys.argv[2] if len(sys.argv) > 2 else None
    ext = root / 'editors' / 'vscode'
    grammar = json.loads((ext / 'syntaxes' / 'uir.tmLanguage.json').read_text())
    tables = c_tables(root)
    names, words = grammar_scopes(grammar)
    errors = check_grammar(tables, words)
    tests = sorted((ext / 'tests').glob('*.uir'))
    if not tests:
        errors.append('no grammar tests in %s' % (ext / 'tests'))
    errors += check_tests(tests, tables, names, words)
    e, pattern = check_package(ext, grammar)
    errors += e
    if uir and pattern:
        errors += check_matcher(pattern, uir)
    if uir:
        errors += check_valid_tests(tests, uir)
    if errors:
        fail(errors)
    n = sum(len(v) for k, v in tables.items() if k != 'directive forms')
    print('ok: %d words of the C tables in the grammar, %d scopes asserted by %d test files%s'
          % (n, len(names), len(tests), ', the problem matcher reads uir\'s diagnostics' if uir else ''))


if __name__ == '__main__':
    main()
