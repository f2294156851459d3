"""bgnet: a backgammon engine and TD(lambda) training pipeline."""

__version__ = "0.1.0"
