"""Path resolution for config values: absolute paths as given; relative paths against the working
directory when they exist there, else against the project checkout (so ``ham`` finds the bundled
demo from any folder while configs stay free of machine-specific absolute paths)."""
from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def resolve_path(value: str | Path, must_exist: bool = True) -> Path:
    path = Path(str(value)).expanduser()
    if path.is_absolute():
        resolved = path
    elif path.exists() or not must_exist:
        resolved = path.resolve()
    else:
        resolved = (PROJECT_ROOT / path).resolve()
    if must_exist and not resolved.exists():
        raise FileNotFoundError(f"{value}: no such file or folder (looked in {Path.cwd()} and {PROJECT_ROOT})")
    return resolved
