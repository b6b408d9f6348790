"""The package version (one place; ``pyproject.toml`` and ``meson.build`` repeat it for the
build)."""

__version__ = "0.1.0.dev0"
