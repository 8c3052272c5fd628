"""The command-line entry points (``[project.scripts]`` in pyproject.toml): ``ham`` (the Hydra
app, ``main.py``) and the tools: ``tree.py`` (ham-tree), ``show_unit.py`` (ham-show-unit), ``index.py`` (ham-index); ``compose.py`` composes a config outside the app. Each only parses arguments and calls the
stage that does the work."""
