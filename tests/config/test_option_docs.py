"""Every option file says what it is in its opening comment: docs/options.md (generated) shows that
comment beside the class the option builds, and `ham --help` lists the option."""
import pytest

from ham.conf import option_files
from ham.conf.reference import _first_line, render

OPTIONS = option_files()


@pytest.mark.parametrize("group,option,path", OPTIONS, ids=[f"{g}/{o}" for g, o, _ in OPTIONS])
def test_every_option_file_opens_with_what_it_is(group, option, path):
    assert len(_first_line(path).split()) >= 3, f"{path}: start it with a comment saying what the option is"


def test_every_packaged_option_is_in_the_reference():
    text = render()
    for group, option, _ in OPTIONS:
        if group not in ("experiment", "grid", "cell"):
            assert f"| `{option}` |" in text.split(f"## {group}\n", 1)[1], f"{group}={option} missing from docs/options.md"
