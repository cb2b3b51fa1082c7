"""cbatch.py - merges the C of several `uir render --main` programs into one translation
unit, each program's own definitions renamed, the definitions they share compiled once.

A rendered program is a run of top-level items (functions, declarations, structs) after
the same preprocessor lines, and the thread pool, pasted as it is from runtime/ with its own
preprocessor lines (between the comments POOL_BEGIN and POOL_END: one verbatim item); most
of its size is runtime support (printing, number formatting, the pool) that is the same
text in every program, and gcc -O2 spends as long on that as on the program itself. merge() keeps one copy of each item
whose text is the same as an earlier program's and that refers only to shared items; the
rest of a program (its kernel, main, bounds-check sites and whatever uses them) goes into
a section that renames each top-level name it defines with `#define NAME NAME_pN`
(undone after the section), so every use is renamed consistently and string literals are
untouched. `main` becomes `uir_main_N`. The program runs alone in its process (the
driver forks), so sharing a static variable between programs changes nothing.

Only for render's own output: the splitter knows C's comments, strings, character
literals and braces, not the whole language. Used by bulkrender.py.
"""
import re

IDENT = re.compile(r'[A-Za-z_]\w*')
BRACE = re.compile(r'[{}]')
# where split_items must look: the rest is code or blanks
SPECIAL = re.compile(r'[/"\'#(){};]')
# a comment (a block comment without its end runs to the end), a string or character
# literal (without its end: to the end), and, in PP_OR_NOISE, a preprocessor line
NOISE = re.compile(r'/\*(?:.*?\*/|.*\Z)|//[^\n]*|"(?:\\.|[^"\\])*(?:"|\Z)|\'(?:\\.|[^\'\\])*(?:\'|\Z)', re.S)
PP_OR_NOISE = re.compile(NOISE.pattern + r'|(?m:^#[^\n]*)', re.S)
# the pasted thread pool (src/render/support.c): kept whole, shared when the same
POOL_BEGIN = '/* ---- the thread pool of uir:'
POOL_END = '/* ---- the end of the thread pool ---- */'
VERBATIM = frozenset(['<the thread pool>'])


def split_items(text):
    """render's C as a list of items: ('pp', LINE) for a preprocessor line at the top
    level, ('item', TEXT) for a declaration or definition with the comments before it,
    ('verbatim', TEXT) for the pasted pool. Raises ValueError when the text does not split
    (unbalanced braces, a pool without its end)."""
    items = []
    i, n = 0, len(text)
    start = 0          # where the current item (with its comments) began
    depth = 0          # braces
    paren = 0
    seen_code = False  # the current item has code, not only comments
    header_end = None  # for the first '{' at depth 0: the code before it ended with ')'
    last_code = ''     # the last non-space code character at depth 0
    while i < n:
        m = SPECIAL.search(text, i)  # jump over plain code and blanks
        j = m.start() if m else n
        if j > i:
            code = text[i:j].rstrip()
            if code:
                seen_code = True
                if depth == 0:
                    last_code = code[-1]
            i = j
            if i == n:
                break
        c = text[i]
        if c == '/' and depth == 0 and not seen_code and text.startswith(POOL_BEGIN, i):
            k = text.find(POOL_END, i)
            if k < 0:
                raise ValueError('the thread pool without its end')
            if text[start:i].strip():
                items.append(('item', text[start:i]))  # comments alone
            items.append(('verbatim', text[i:k + len(POOL_END)]))
            i = start = k + len(POOL_END)
            continue
        m = NOISE.match(text, i) if c in '/"\'' else None
        if m and c == '/':  # a comment
            if m.group(0).startswith('/*') and not m.group(0).endswith('*/', 2):
                raise ValueError('unterminated comment')
            i = m.end()
            continue
        if m:  # a literal
            i = m.end()
            seen_code = True
            continue
        if c == '#' and depth == 0 and not seen_code and (i == 0 or text[i - 1] == '\n'):
            j = i
            while True:
                k = text.find('\n', j)
                if k < 0:
                    k = n
                if k > 0 and text[k - 1] == '\\':
                    j = k + 1
                    continue
                break
            if text[start:i].strip():
                items.append(('item', text[start:i]))  # comments alone
            items.append(('pp', text[i:k]))
            i = start = k + 1 if k < n else n
            continue
        seen_code = True
        if c == '(':
            paren += 1
        elif c == ')':
            paren -= 1
        elif c == '{':
            if depth == 0 and header_end is None:
                header_end = last_code == ')'
            depth += 1
        elif c == '}':
            depth -= 1
            if depth < 0:
                raise ValueError('unbalanced }')
            if depth == 0 and header_end:  # the end of a function definition
                items.append(('item', text[start:i + 1]))
                start, seen_code, header_end, last_code = i + 1, False, None, ''
                i += 1
                continue
        elif c == ';' and depth == 0 and paren == 0:
            items.append(('item', text[start:i + 1]))
            start, seen_code, header_end, last_code = i + 1, False, None, ''
            i += 1
            continue
        if depth == 0:
            last_code = c
        i += 1
    if depth != 0 or seen_code:
        raise ValueError('text ends inside an item')
    if text[start:].strip():
        items.append(('item', text[start:]))
    return items


def strip(item, keep_strings, keep_pp):
    """ITEM without its comments (each a blank); string and character literals kept, or
    each made ` 0 `; preprocessor lines kept or dropped (their newline kept)."""
    def one(m):
        t = m.group(0)
        if t[0] == '/':
            return ' '
        if t[0] == '#':
            return ''
        return t if keep_strings else ' 0 '
    return (NOISE if keep_pp else PP_OR_NOISE).sub(one, item)


def code_of(item):
    """The item's code: no comments, literals or preprocessor lines (for name scanning)."""
    return strip(item, False, False)


def same_text(item):
    """The item without its comments, blank runs collapsed: what must match for two
    programs' items to be one (string literals kept)."""
    return ' '.join(strip(item, True, True).split())


def defined_names(item):
    """The top-level names an item defines: a function's (or function type's) name; else
    the tags after struct/union/enum and the declarators at brace depth 0."""
    code = code_of(item)
    depth, top, i = 0, [], 0
    for m in BRACE.finditer(code):  # the text at brace depth 0
        if depth == 0:
            top.append(code[i:m.start()])
        i = m.end()
        if m.group(0) == '{':
            depth += 1
            top.append(' { ')
        else:
            depth -= 1
            if depth == 0:
                top.append(' } ')
    if depth == 0:
        top.append(code[i:])
    top = ''.join(top)
    names = set(m.group(1) for m in re.finditer(r'\b(?:struct|union|enum)\s+([A-Za-z_]\w*)', top))
    head = top.split('{')[0]
    m = re.search(r'([A-Za-z_]\w*)\s*\(', head)
    if m and '=' not in head[:m.start()]:
        names.add(m.group(1))
        return names
    # declarators: a name followed by [ = , ; at paren depth 0 (after a closing brace too)
    flat = re.sub(r'\([^()]*\)', ' ', top)
    for m in re.finditer(r'([A-Za-z_]\w*)\s*(?=[\[=,;])', flat):
        names.add(m.group(1))
    return names


class Merger:
    """Builds one translation unit from programs added one by one."""

    def __init__(self):
        self.head = None    # the preprocessor lines before the first item
        self.shared = {}    # frozenset(names) -> same_text of a shared item
        self.shared_names = set()
        self.parts = []

    def add(self, text, tag):
        """Adds one program's C; its main becomes uir_main_TAG. Raises ValueError when the
        program does not fit (another preamble, an item that does not split)."""
        items = split_items(text)
        k = 0
        head = []
        while k < len(items) and (items[k][0] == 'pp' or not code_of(items[k][1]).strip()):
            if items[k][0] == 'pp':
                head.append(items[k][1])
            k += 1
        if self.head is None:
            self.head = head
        elif head != self.head:
            raise ValueError('a different preamble')
        body = []
        for kind, t in items[k:]:
            if kind == 'pp':
                raise ValueError('a preprocessor line between items: ' + t)
            if kind == 'verbatim':
                if VERBATIM in self.shared and self.shared[VERBATIM] != same_text(t):
                    raise ValueError('another thread pool')
                body.append((VERBATIM, t))
                continue
            if code_of(t).strip():
                body.append((frozenset(defined_names(t)), t))
        local = set()
        for key, t in body:
            if not key:
                raise ValueError('an item that defines nothing')
            if 'main' in key or 'kernel' in key:
                local |= key
            elif key in self.shared:
                if self.shared[key] != same_text(t):
                    local |= key
            elif key & self.shared_names:
                local |= key
        # an item that uses a local name is local too
        uses = {key: set(IDENT.findall(code_of(t))) for key, t in body}
        changed = True
        while changed:
            changed = False
            for key, t in body:
                if not key <= local and uses[key] & local:
                    local |= key
                    changed = True
        out = []
        for key, t in body:
            if not key & local and key not in self.shared:
                self.shared[key] = same_text(t)
                self.shared_names |= key
                out.append(t)
        renames = sorted(local - {'main'})
        out.append('\n/* ---- program %s ---- */' % tag)
        out.append('#define main uir_main_%s' % tag)
        out += ['#define %s %s_p%s' % (nm, nm, tag) for nm in renames]
        out += [t for key, t in body if key & local]
        out.append('\n#undef main')
        out += ['#undef %s' % nm for nm in renames]
        self.parts.append('\n'.join(out) + '\n')

    def text(self):
        return '\n'.join(self.head or []) + '\n' + '\n'.join(self.parts)
