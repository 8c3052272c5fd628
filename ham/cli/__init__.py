"""The command-line entry points (``[project.scripts]`` in pyproject.toml): ``ham`` (the Hydra
app, ``main.py``) and the small tools in ``tools.py``. Each only parses arguments and calls the
stage that does the work."""
