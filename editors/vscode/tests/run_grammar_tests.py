#!/usr/bin/env python3
"""run_grammar_tests.py - the grammar tests of the VS Code extension (docs/editors.md, "Tests").

    run_grammar_tests.py EXTENSION_DIR

Runs vscode-tmgrammar-test (the devDependency of package.json, installed by `npm ci` in
EXTENSION_DIR) over tests/*.uir: every `^` and `<-` assertion of those files must hold for
the grammar syntaxes/uir.tmLanguage.json, tokenized by vscode-textmate, VS Code's own
tokenizer. Exits 77 (skipped, for Meson) with a message when `node`, or the installed
node_modules, is missing.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

SKIP = 77


def main():
    ext = pathlib.Path(sys.argv[1]).resolve()
    node = shutil.which('node') or shutil.which('nodejs')
    if not node:
        print('SKIP: no node on PATH (Debian: apt-get install nodejs npm; then npm ci in %s)' % ext)
        return SKIP
    tool = ext / 'node_modules' / 'vscode-tmgrammar-test' / 'dist' / 'unit.js'
    if not tool.is_file():
        print('SKIP: %s is missing: run `npm ci` in %s (.ci/install-deps does)' % (tool, ext))
        return SKIP
    v = subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()
    m = re.match(r'v(\d+)', v)
    if not m or int(m.group(1)) < 14:
        print('SKIP: vscode-tmgrammar-test needs Node 14 or later; %s is %s' % (node, v or '?'))
        return SKIP
    tests = sorted(str(p.relative_to(ext)) for p in (ext / 'tests').glob('*.uir'))
    if not tests:
        print('FAIL: no tests/*.uir in %s' % ext)
        return 1
    print('node %s, %d test files' % (v, len(tests)), flush=True)
    # each file is its own glob pattern (no wildcard): the tool globs them itself
    r = subprocess.run([node, str(tool), '--compact', '--config', 'package.json', *tests], cwd=ext)
    return 0 if r.returncode == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
