"""The version of polyrelu, in a module of its own below everything: the package and the command line read it here."""

__all__ = ["__version__"]

__version__ = "0.1.0"
