"""Checks that the installed mds_client is typed throughout and stays Python 3.9 syntax.

Usage: python typing_check.py. Prints a JSON list of problems: a file that
Python 3.9 could not parse, an annotation written `X | Y` (a TypeError on 3.9
when evaluated), a function parameter or return without an annotation, a
public name whose hints `typing.get_type_hints` cannot evaluate, or a missing
py.typed. (mypy is run separately when it is installed.)
"""

import ast
import inspect
import json
import typing
from pathlib import Path
from typing import Any, List

import mds_client

root = Path(mds_client.__file__).parent
problems: List[str] = []
if not (root / "py.typed").is_file():
    problems.append("py.typed is missing")

for file in sorted(root.glob("*.py")):
    source = file.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, filename=str(file), feature_version=(3, 9))
    except SyntaxError as error:
        problems.append(f"{file.name}: not Python 3.9 syntax: {error}")
        continue
    for node in ast.walk(tree):
        annotations: List[Any] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            for index, arg in enumerate(args):
                if arg.annotation is None and not (index == 0 and arg.arg in ("self", "cls")):
                    problems.append(f"{file.name}:{node.lineno} {node.name}: parameter {arg.arg} has no annotation")
                annotations.append(arg.annotation)
            if node.returns is None:
                problems.append(f"{file.name}:{node.lineno} {node.name}: no return annotation")
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for annotation in annotations:
            for part in ast.walk(annotation) if annotation is not None else []:
                if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
                    problems.append(f"{file.name}:{part.lineno}: `X | Y` in an annotation fails on Python 3.9")

for name in mds_client.__all__:
    value = getattr(mds_client, name)
    targets = [value]
    if inspect.isclass(value) and not typing.is_typeddict(value):
        targets += [m for _, m in inspect.getmembers(value, inspect.isfunction)]
    for target in targets:
        if inspect.isclass(target) or inspect.isfunction(target):
            try:
                typing.get_type_hints(target)
            except Exception as error:  # noqa: BLE001 - any failure is the finding
                problems.append(f"{name}: get_type_hints failed: {error!r}")
print(json.dumps(problems))
