"""A PEP 517 build backend in the standard library only, for a pure-Python package.

Why not setuptools (docs/decisions.md 61): the setuptools that `python3 -m venv`
installs with Python 3.11 (65.x) cannot build a wheel without the separate
`wheel` package, which a venv does not have, and the machines this project runs
on reach no Python package index. This backend writes the wheel itself
(PEP 427: the package's files, METADATA, WHEEL and RECORD), so that
`pip install ./packages/python` works offline, with or without build isolation.

It reads `name`, `version`, `description`, `readme` and `requires-python` from
the `[project]` table of pyproject.toml, and packages `src/<import name>`.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
# Wheels built from the same sources are the same bytes (a zip cannot hold dates before 1980).
EPOCH = (1980, 1, 1, 0, 0, 0)

ConfigSettings = Optional[Mapping[str, object]]


def _project() -> Dict[str, str]:
    """The string fields of [project] in pyproject.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11 and later
    except ModuleNotFoundError:
        # Python 3.9 and 3.10: the [project] table holds only `key = "string"` lines.
        table = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        if table is None:
            raise RuntimeError("pyproject.toml: no [project] table")
        return dict(re.findall(r'^([A-Za-z][\w-]*)\s*=\s*"([^"]*)"\s*$', table.group(1), re.M))
    project = tomllib.loads(text)["project"]
    return {k: v for k, v in project.items() if isinstance(v, str)}


def _names() -> Tuple[str, str, str]:
    """The distribution name, its version and the import name (`mds-client` → `mds_client`)."""
    project = _project()
    name, version = project["name"], project["version"]
    return name, version, re.sub(r"[-_.]+", "_", name).lower()


def _metadata() -> str:
    project = _project()
    name, version, _ = _names()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
    ]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines.append("Classifier: Typing :: Typed")
    body = ""
    if "readme" in project:
        lines.append("Description-Content-Type: text/markdown")
        body = (ROOT / project["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body


def _wheel_file() -> str:
    return "Wheel-Version: 1.0\nGenerator: mds_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files(import_name: str) -> List[Tuple[str, Path]]:
    """(path in the wheel, file) for every file of src/<import name>, caches left out."""
    base = ROOT / "src"
    files = []
    for path in sorted((base / import_name).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.append((path.relative_to(base).as_posix(), path))
    if not files:
        raise RuntimeError(f"no files under src/{import_name}")
    return files


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, contents: List[Tuple[str, bytes]]) -> str:
    name, version, import_name = _names()
    dist_info = f"{import_name}-{version}.dist-info"
    contents = contents + [
        (f"{dist_info}/METADATA", _metadata().encode("utf-8")),
        (f"{dist_info}/WHEEL", _wheel_file().encode("utf-8")),
    ]
    record = "\n".join([_record_line(a, d) for a, d in contents] + [f"{dist_info}/RECORD,,"]) + "\n"
    contents.append((f"{dist_info}/RECORD", record.encode("utf-8")))
    filename = f"{import_name}-{version}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in contents:
            info = zipfile.ZipInfo(arcname, date_time=EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: ConfigSettings = None) -> List[str]:
    return []


def build_wheel(
    wheel_directory: str, config_settings: ConfigSettings = None, metadata_directory: Optional[str] = None
) -> str:
    _, _, import_name = _names()
    return _write_wheel(wheel_directory, [(a, p.read_bytes()) for a, p in _package_files(import_name)])


def build_editable(
    wheel_directory: str, config_settings: ConfigSettings = None, metadata_directory: Optional[str] = None
) -> str:
    """PEP 660: a wheel holding only a .pth file that puts src/ on the path."""
    _, _, import_name = _names()
    _package_files(import_name)  # fails early when the package is missing
    pth = (str(ROOT / "src") + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, [(f"__editable__.{import_name}.pth", pth)])


def build_sdist(sdist_directory: str, config_settings: ConfigSettings = None) -> str:
    name, version, import_name = _names()
    base = f"{import_name}-{version}"
    files = [("pyproject.toml", ROOT / "pyproject.toml"), ("_build/mds_build.py", Path(__file__).resolve())]
    readme = _project().get("readme")
    if readme:
        files.append((readme, ROOT / readme))
    files += [(f"src/{a}", p) for a, p in _package_files(import_name)]
    filename = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = time.mktime(EPOCH + (0, 0, -1))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        entries = [(f"{base}/{a}", p.read_bytes()) for a, p in files]
        entries.append((f"{base}/PKG-INFO", _metadata().encode("utf-8")))
        for arcname, data in entries:
            info = tarfile.TarInfo(arcname)
            info.size, info.mode, info.mtime = len(data), 0o644, int(mtime)
            sdist.addfile(info, io.BytesIO(data))
    return filename
