#!/usr/bin/env python3
"""embed.py - turn the marked runtime headers into a C table of helper texts.

Usage: embed.py OUT.c HEADER...

Each HEADER follows the marker convention of runtime/README.md: a helper starts at a line

    /* uir-helper: NAME needs: DEP1 DEP2 */      (or: /* uir-helper: NAME */)

and runs up to the next marker line or a line `/* uir-helper-end */`. Text before the first
marker and after an end line (the header's include guard, includes, the UIR_FN define) is
not part of any helper: renderers write their own preamble.

OUT.c defines the table declared in runtime/uir_helpers.h:

    const UirHelper uir_helpers[] = { {"uir_div_i32", "", "...text..."}, ... };
    const int uir_helper_count = N;
    const UirHelper *uir_helper_find(const char *name);

in the order of the headers and of the helpers in them. `needs` is a space-separated list;
`text` is the helper's exact source without its marker line and without leading or trailing
blank lines, ending in one newline.

The script fails (exit 1, a message naming FILE:LINE) on a malformed marker, a duplicate
name, a dependency that no helper defines, a dependency cycle, a helper whose text does not
define NAME, a helper not closed by a marker or end line, an #include inside a helper, or
preprocessor conditionals that do not balance within a helper. Python 3 standard library
only.
"""

import re
import sys

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
MARKER = re.compile(r"^/\* uir-helper: (%s)(?: needs:((?: %s)+))? \*/$" % (NAME, NAME))
END = "/* uir-helper-end */"


class EmbedError(Exception):
    pass


def parse_header(path):
    """Returns the helpers of one header as a list of (name, needs, text, where)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    helpers = []
    current = None  # [name, needs, body lines, where, open #if count]

    def finish():
        if current is not None:
            if current[4] != 0:
                raise EmbedError("%s: helper %s ends inside an #if" % (current[3], current[0]))
            body = current[2]
            while body and body[0].strip() == "":
                body.pop(0)
            while body and body[-1].strip() == "":
                body.pop()
            helpers.append((current[0], current[1], "\n".join(body) + "\n", current[3]))

    for number, line in enumerate(lines, 1):
        where = "%s:%d" % (path, number)
        stripped = line.rstrip()
        if stripped == END:
            finish()
            current = None
            continue
        if "uir-helper" in line:
            match = MARKER.match(stripped)
            if not match:
                raise EmbedError("%s: malformed helper marker: %s" % (where, stripped))
            finish()
            needs = match.group(2).split() if match.group(2) else []
            current = [match.group(1), needs, [], where, 0]
            continue
        if current is not None:
            check_directive(line, current, where)
            current[2].append(line)
    if current is not None:
        raise EmbedError("%s: helper %s is not closed by %s" % (path, current[0], END))
    return helpers


def check_directive(line, current, where):
    """Checks a preprocessor line inside a helper: conditionals must balance within the
    helper (so that no helper takes the header's include guard), and #include is left to
    the renderers' preamble. current[4] counts the open conditionals."""
    text = line.strip()
    if not text.startswith("#"):
        return
    word = re.match(r"#\s*([a-z]*)", text).group(1)
    if word == "include":
        raise EmbedError("%s: #include inside helper %s (includes belong to the preamble)"
                         % (where, current[0]))
    if word in ("if", "ifdef", "ifndef"):
        current[4] += 1
    elif word in ("elif", "else", "endif"):
        if current[4] == 0:
            raise EmbedError("%s: #%s without #if inside helper %s" % (where, word, current[0]))
        if word == "endif":
            current[4] -= 1


def check(helpers):
    """Checks names, dependencies and definitions across all headers."""
    by_name = {}
    for name, needs, text, where in helpers:
        if name in by_name:
            raise EmbedError("%s: helper %s defined twice (first at %s)"
                             % (where, name, by_name[name][3]))
        if not re.search(r"\b%s\s*\(" % re.escape(name), text):
            raise EmbedError("%s: helper %s does not define a function of that name"
                             % (where, name))
        by_name[name] = (name, needs, text, where)
    for name, needs, text, where in helpers:
        for dep in needs:
            if dep not in by_name:
                raise EmbedError("%s: helper %s needs unknown helper %s" % (where, name, dep))
            if dep == name:
                raise EmbedError("%s: helper %s needs itself" % (where, name))
    # Cycle check: depth-first search with colours.
    state = {}

    def visit(name, path):
        if state.get(name) == "done":
            return
        if state.get(name) == "active":
            raise EmbedError("%s: dependency cycle: %s"
                             % (by_name[name][3], " -> ".join(path + [name])))
        state[name] = "active"
        for dep in by_name[name][1]:
            visit(dep, path + [name])
        state[name] = "done"

    for name, _, _, _ in helpers:
        visit(name, [])


def c_string(text):
    """The text as C string literal pieces, one source line per line of text."""
    pieces = []
    for line in text.splitlines(keepends=True):
        out = []
        previous = ""
        for ch in line:
            if ch == "\\":
                out.append("\\\\")
            elif ch == '"':
                out.append('\\"')
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif ch == "?" and previous == "?":
                out.append("\\?")  # no trigraphs
            elif " " <= ch <= "~":
                out.append(ch)
            else:
                for byte in ch.encode("utf-8"):
                    out.append("\\%03o" % byte)
            previous = ch
        pieces.append('"' + "".join(out) + '"')
    return pieces


def generate(helpers, sources):
    out = []
    out.append("/* Generated by runtime/embed.py from %s. Do not edit. */" % " ".join(sources))
    out.append("#include <string.h>")
    out.append("")
    out.append("/* Helper texts may exceed the 4095 characters ISO C guarantees in a string literal. */")
    out.append("#if defined(__GNUC__)")
    out.append('#pragma GCC diagnostic ignored "-Woverlength-strings"')
    out.append("#endif")
    out.append("")
    out.append('#include "uir_helpers.h"')
    out.append("")
    out.append("const UirHelper uir_helpers[] = {")
    for name, needs, text, _ in helpers:
        out.append('\t{"%s", "%s",' % (name, " ".join(needs)))
        for piece in c_string(text):
            out.append("\t " + piece)
        out.append("\t},")
    out.append("};")
    out.append("")
    out.append("const int uir_helper_count = %d;" % len(helpers))
    out.append("")
    out.append("const UirHelper *uir_helper_find(const char *name)")
    out.append("{")
    out.append("\tint i;")
    out.append("\tfor (i = 0; i < uir_helper_count; i++)")
    out.append("\t\tif (strcmp(uir_helpers[i].name, name) == 0)")
    out.append("\t\t\treturn &uir_helpers[i];")
    out.append("\treturn NULL;")
    out.append("}")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: embed.py OUT.c HEADER...\n")
        return 64
    out_path, headers = argv[1], argv[2:]
    try:
        helpers = []
        for header in headers:
            helpers.extend(parse_header(header))
        check(helpers)
    except (EmbedError, OSError) as e:
        sys.stderr.write("embed.py: %s\n" % e)
        return 1
    text = generate(helpers, [h.replace("\\", "/").split("/")[-1] for h in headers])
    try:
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        sys.stderr.write("embed.py: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
