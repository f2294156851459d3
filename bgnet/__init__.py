"""bgnet: a backgammon engine and TD(lambda) training pipeline."""

from importlib.metadata import PackageNotFoundError, version

# The one version literal is pyproject.toml's; the installed package's metadata carries it.
try:
    __version__ = version("bgnet")
except PackageNotFoundError:  # a source tree used without installing it
    __version__ = "0+unknown"
