#!/usr/bin/env python3
"""tests/peers/tini_cases.py SCRIPT -- run tini's test/run_inner_tests.py
case by case, so that one failing case does not hide the others.

The peer's script is one main() that stops at its first failed assert.
This reads main()'s statements (the ast module) and splits them where the
script announces a case (a print call whose text starts "Running" or
"running"): a `for` or an `if` holding such a print is entered (each
iteration, each taken branch), the statements before the first print of a
block are set-up and run as they come, and each case runs the statements
from its print to the next.  A case's name is the line its print wrote.
Each case prints "PASSED NAME" or "FAILED NAME - REASON" on standard
output, SOURCE_DIR and BUILD_DIR written as such in the names.
SOURCE_DIR, BUILD_DIR, FORCE_SUBREAPER are the script's own environment."""
import ast
import io
import os
import contextlib
import sys


def announces(node):
    for sub in ast.walk(node):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                and sub.func.id == 'print' and sub.args):
            first = sub.args[0]
            if isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute):
                first = first.func.value  # "...".format(...)
            if isinstance(first, ast.Constant) and isinstance(first.value, str) \
                    and first.value.lower().startswith('running'):
                return True
    return False


def run(stmts, ns, filename):
    code = compile(ast.Module(body=stmts, type_ignores=[]), filename, 'exec')
    exec(code, ns)


def case(stmts, ns, filename):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            run(stmts[:1], ns, filename)
        name = out.getvalue().strip().splitlines()[0]
        for var in ('SOURCE_DIR', 'BUILD_DIR'):  # no path of this machine
            name = name.replace(os.environ[var].rstrip('/'), '$' + var)
    except Exception as e:  # the print itself failed
        name = ast.unparse(stmts[0])
    try:
        with contextlib.redirect_stdout(sys.stderr):
            run(stmts[1:], ns, filename)
        print('PASSED ' + name, flush=True)
    except BaseException as e:  # an assert, or anything the case raised
        reason = ' '.join(('%s: %s' % (type(e).__name__, e)).split())[:200]
        print('FAILED %s - %s' % (name, reason), flush=True)


def block(stmts, ns, filename):
    current = None
    for st in stmts:
        starts = isinstance(st, ast.Expr) and announces(st)
        nested = isinstance(st, (ast.For, ast.If)) and announces(st)
        if starts or nested:
            if current:
                case(current, ns, filename)
            current = [st] if starts else None
            if isinstance(st, ast.For):
                for value in eval(compile(ast.Expression(st.iter), filename, 'eval'), ns):
                    ns['__value'] = value
                    exec('%s = __value' % ast.unparse(st.target), ns)
                    block(st.body, ns, filename)
            elif isinstance(st, ast.If):
                taken = eval(compile(ast.Expression(st.test), filename, 'eval'), ns)
                block(st.body if taken else st.orelse, ns, filename)
        elif current is not None:
            current.append(st)
        else:
            with contextlib.redirect_stdout(sys.stderr):
                run([st], ns, filename)
    if current:
        case(current, ns, filename)


def main():
    filename = sys.argv[1]
    with open(filename) as f:
        tree = ast.parse(f.read(), filename)
    ns = {'__name__': 'tini_inner_tests', '__file__': filename}
    # the module's imports and helpers, not its `if __name__ == "__main__"`
    top = [st for st in tree.body if not isinstance(st, ast.If)]
    run(top, ns, filename)
    main_def = next(st for st in tree.body
                    if isinstance(st, ast.FunctionDef) and st.name == 'main')
    block(main_def.body, ns, filename)


if __name__ == '__main__':
    main()
